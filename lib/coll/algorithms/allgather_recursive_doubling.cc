// Allgather, recursive doubling. With p' the largest power of two <= p and
// rem = p - p', the "extra" ranks p'..p-1 first hand their block to rank r - p'.
// Then, for m = 1, 2, 4, .. < p', rank r (< p') swaps everything it holds with
// r xor m: the blocks of ranks [base, base + m), base = r with its low lg m bits
// cleared, plus the extras' blocks [base + p', min(base + m, rem) + p'). Finally
// ranks r < rem send the whole result to r + p'.
//
//   p = 6 (p' = 4, rem = 2)      fold:  4 -> 0, 5 -> 1
//   m = 1: 0 <-> 1, 2 <-> 3      m = 2: 0 <-> 2, 1 <-> 3      unfold: 0 -> 4, 1 -> 5
//
// The blocks travel in rank order in a packed buffer (block i at the sum of the
// lengths before it), so a rank range is one byte range: kRecv itself when its
// blocks are packed already (allgather), else kTmp0, copied out at the end.
//
// Cost: lg p'·α + (p'-1)/p'·n·β, plus 2·α + n·β when p is not a power of two;
// n = bytes of the whole result.
// Restrictions: none. Also builds allgatherv (allgatherv_recursive_doubling.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_allgather_recursive_doubling(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  const std::vector<std::size_t> pos = pat::packed_positions(b, p, [](int k) { return k; });
  const std::size_t total = pos[ur(p)];
  const bool packed = pat::contiguous_start(b, 0, p).value_or(1) == 0;
  const BufId work = packed ? kRecv : kTmp0;
  if (!packed) s.need_tmp(kTmp0, total);
  auto range = [&](int first, int n) { return pos[ur(first + n)] - pos[ur(first)]; };

  const BufRef own = a.in_place ? pat::at(kRecv, b.off[ur(r)]) : pat::at(kSend, 0);
  pat::copy(s.round(), own, pat::at(work, pos[ur(r)]), b.len[ur(r)]);

  const int pp = pat::floor_pow2(p), rem = p - pp;
  if (r >= pp) {  // extra rank: hand over the own block, get everything back at the end
    pat::send(s.round(), r - pp, own, b.len[ur(r)]);
    pat::recv(s.round(), r - pp, pat::at(work, 0), total);
  } else {
    if (r < rem) pat::recv(s.round(), r + pp, pat::at(work, pos[ur(r + pp)]), b.len[ur(r + pp)]);
    for (int m = 1; m < pp; m <<= 1) {
      Round& rd = s.round();
      const int partner = r ^ m;
      for (const int base : {r & ~(m - 1), partner & ~(m - 1)}) {
        const bool mine = base == (r & ~(m - 1));
        // The group's own ranks, then the extras folded into them.
        const int extras = std::max(0, std::min(base + m, rem) - base);
        const std::pair<int, int> segs[] = {{base, m}, {base + pp, extras}};
        for (const auto& [first, n] : segs) {
          if (n == 0) continue;  // no extras folded into this group (first may be past p)
          if (mine)
            pat::send(rd, partner, pat::at(work, pos[ur(first)]), range(first, n));
          else
            pat::recv(rd, partner, pat::at(work, pos[ur(first)]), range(first, n));
        }
      }
    }
    if (r < rem) pat::send(s.round(), r + pp, pat::at(work, 0), total);
  }
  if (work != kRecv) {
    Round& out = s.round();
    for (int i = 0; i < p; ++i)
      if (i != r || !a.in_place)
        pat::copy(out, pat::at(work, pos[ur(i)]), pat::at(kRecv, b.off[ur(i)]), b.len[ur(i)]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_allgather_recursive_doubling(const CollArgs& a, const CostModel& m) {
  const int pp = pat::floor_pow2(a.size);
  const double n = pat::result_bytes(a), al = pat::alpha(a, m), be = pat::beta(a, m);
  // Messages of up to n/p, 2n/p, ... bytes (a group's own blocks and its folded
  // ranks' go apart); a folded rank's block in and the result out.
  double c = pat::ceil_log2(pp) * al + (pp - 1.0) / pp * n * be +
             pat::protocol_rounds(a, m, n / a.size, pat::ceil_log2(pp), 2);
  if (pp != a.size) c += 2 * al + n * be + m.protocol(a.shape, n / a.size) + m.protocol(a.shape, n);
  return c;
}

extern const AlgoInfo allgather_recursive_doubling = {
    .name = "recursive_doubling",
    .kind = CollKind::Allgather,
    .build = build_allgather_recursive_doubling,
    .supports = nullptr,
    .cost_us = cost_allgather_recursive_doubling,
    .cost_formula = "lg p'·α + (p'-1)/p'·n·β (+ 2α + nβ if p ≠ p' = 2^⌊lg p⌋)",
    .restrictions = "none",
    .doc = "pairwise exchanges at doubling distances; extra ranks fold in and out",
};

}  // namespace chorus::coll
