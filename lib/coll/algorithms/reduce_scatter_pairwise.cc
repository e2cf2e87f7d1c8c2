// Reduce_scatter, pairwise exchange (also reduce_scatter_block_pairwise.cc). In
// step s = 1..p-1 rank r sends its input block of rank r+s straight to r+s and
// receives rank (r-s)'s input block of r, so every rank reduces its own block from
// all raw contributions, one peer per round:
//
//   p = 4, rank 1:  step 1: -> r2, <- r0    step 2: -> r3, <- r3    step 3: -> r0, <- r2
//
// Contributions arrive from r-1, ..., 0 (each prepended on the left of the partial)
// and then p-1, ..., r+1; for non-commutative ops those higher ones gather in a
// second partial (kTmp2) that is appended on the right at the end, so operand order
// is kept.
// Cost: (p-1)·(α + b·β + b·γ) + b·β_self, b = the largest block in bytes. No dependency
// between steps (a slow peer delays only its own message): large blocks.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace red {

Status build_reduce_scatter_pairwise(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(input_blocks(a, b));
  if (b.total() == 0) return Status::Ok;
  const int p = a.size, r = a.rank;
  const BufId in = a.in_place ? kRecv : kSend;
  const std::size_t mine = b.len[static_cast<std::size_t>(r)];
  // With MPI_IN_PLACE the front of kRecv is still input until the last step.
  const BufRef acc = at(a.in_place ? kTmp0 : kRecv, 0), tmp = at(kTmp1, 0);
  const BufRef higher = a.commutative ? acc : at(kTmp2, 0);  // partial of ranks > r
  const BufRef own = at(in, b.off[static_cast<std::size_t>(r)]);
  // A commutative op's first contribution lands in acc itself and the own block is
  // reduced into it (any order will do), instead of copying the own block in first.
  if (!a.commutative || p == 1) pat::copy(s.round(), own, acc, mine);
  need(s, acc, mine);
  for (int st = 1; st < p; ++st) {
    const int to = pat::mod(r + st, p), from = pat::mod(r - st, p);
    const auto t = static_cast<std::size_t>(to);
    Round& rd = s.round();
    pat::send(rd, to, at(in, b.off[t]), b.len[t]);
    if (from == p - 1 && !a.commutative) {  // the first of the higher ranks starts `higher`
      pat::recv(rd, from, higher, mine);
      continue;
    }
    if (st == 1 && a.commutative) {
      pat::recv(rd, from, acc, mine);
      combine(rd, own, acc, mine, true);
      continue;
    }
    pat::recv(rd, from, tmp, mine);
    combine(rd, tmp, from < r ? acc : higher, mine, true);
    need(s, tmp, mine);
  }
  if (!a.commutative && r < p - 1) {
    need(s, higher, mine);
    combine(s.round(), higher, acc, mine, false);
  }
  pat::copy(s.round(), acc, at(kRecv, 0), mine);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_reduce_scatter_pairwise(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (input_blocks(a, b) != Status::Ok) return 0;
  const Abg c = abg(a, m);
  const double blk = static_cast<double>(max_block(b));
  // One block copied within the rank, as the ring's estimate has: the own block in.
  // A commutative op out of place makes no such copy (its first contribution is
  // received in place), which this leaves out; so pairwise and the ring tie there,
  // and the catalog order (pairwise first) decides.
  return (a.size - 1) * (c.alpha + m.protocol(a.shape, blk) + blk * c.beta + blk * c.gamma) +
         blk * m.self.beta_us_per_b;
}

}  // namespace red

extern const AlgoInfo reduce_scatter_pairwise = {
    "pairwise", CollKind::ReduceScatter, red::build_reduce_scatter_pairwise, nullptr,
    red::cost_reduce_scatter_pairwise, "(p-1)·(α + b·β + b·γ) + b·β_self, b = largest block",
    "none (keeps operand order)", "each rank sends each peer its block directly, one peer per step"};

}  // namespace chorus::coll
