// Allgather, Bruck. Each rank r gathers in kTmp0 in rotated order: slot k holds the
// block of rank r + k (mod p), starting with its own in slot 0. At distance
// d = 1, 2, 4, .. < p it sends its first min(d, p - d) slots to r - d and receives as
// many from r + d into slots d.. (they are r + d's first slots). At the end the slots
// are copied to their places in kRecv.
//
//   p = 5, rank 0 slots:  start [0]   d=1 [0 1]   d=2 [0 1 2 3]   d=4 [0 1 2 3 4]
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β + n copied locally, n = bytes of the whole result.
// Fewer rounds than the ring for any p; needs one temporary of n bytes.
// Restrictions: none. Also builds allgatherv (allgatherv_bruck.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_allgather_bruck(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  const BufRef own = a.in_place ? pat::at(kRecv, b.off[ur(r)]) : pat::at(kSend, 0);
  if (p == 1) {
    pat::copy(s.round(), own, pat::at(kRecv, b.off[0]), b.len[0]);
    pat::drop_empty_rounds(s);
    return Status::Ok;
  }
  // slot[k]: offset in kTmp0 of the block of rank r + k.
  const std::vector<std::size_t> slot =
      pat::packed_positions(b, p, [&](int k) { return pat::mod(r + k, p); });
  s.need_tmp(kTmp0, slot[ur(p)]);
  pat::copy(s.round(), own, pat::at(kTmp0, 0), b.len[ur(r)]);
  for (int d = 1; d < p; d <<= 1) {
    const int n = std::min(d, p - d);
    Round& rd = s.round();
    pat::send(rd, pat::mod(r - d, p), pat::at(kTmp0, 0), slot[ur(n)]);
    pat::recv(rd, pat::mod(r + d, p), pat::at(kTmp0, slot[ur(d)]), slot[ur(d + n)] - slot[ur(d)]);
  }
  Round& out = s.round();
  for (int k = a.in_place ? 1 : 0; k < p; ++k) {
    const auto i = ur(pat::mod(r + k, p));
    pat::copy(out, pat::at(kTmp0, slot[ur(k)]), pat::at(kRecv, b.off[i]), b.len[i]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_allgather_bruck(const CollArgs& a, const CostModel& m) {
  const double p = a.size, n = pat::result_bytes(a);
  if (a.size == 1) return 0;
  // Round k sends min(2^k, p - 2^k) blocks.
  double by_size = 0;  // CostModel::protocol of each round's message
  for (int k = 1; k < a.size; k *= 2) by_size += m.protocol(a.shape, std::min(k, a.size - k) * n / p);
  return pat::ceil_log2(a.size) * pat::alpha(a, m) + by_size + (p - 1) / p * n * pat::beta(a, m) +
         n * m.self.beta_us_per_b;
}

extern const AlgoInfo allgather_bruck = {
    .name = "bruck",
    .kind = CollKind::Allgather,
    .build = build_allgather_bruck,
    .supports = nullptr,
    .cost_us = cost_allgather_bruck,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β + n·β_self",
    .restrictions = "none",
    .doc = "⌈lg p⌉ rounds for any p through a rotated temporary; for small blocks",
};

}  // namespace chorus::coll
