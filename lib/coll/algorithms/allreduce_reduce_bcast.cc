// Allreduce as a binomial reduce to rank 0 followed by a binomial broadcast from
// rank 0 (red::add_binomial_reduce, red::add_binomial_bcast). The tree is rooted at
// rank 0, so every subtree is a contiguous rank range and operand order is kept.
//
//   p = 6   reduce: 1->0 3->2 5->4 ; 2->0 ; 4->0     bcast: 0->4 ; 0->2 4->5 ; 0->1 2->3
//
// Cost: 2·⌈lg p⌉·(α + n·β) + ⌈lg p⌉·n·γ. Simple and order-preserving, but twice the
// latency of recursive doubling and rank 0 moves the vector 2·⌈lg p⌉ times.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  const BufRef out = red::at(kRecv, 0);
  red::add_binomial_reduce(s, a.rank, 0, a.size, red::input(a), out, red::at(kTmp0, 0), n);
  red::add_binomial_bcast(s, a.rank, 0, a.size, out, n);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(red::vector_bytes(a)), lg = pat::ceil_log2(a.size);
  const red::Abg c = red::abg_pieces(a, m, n);  // whole vectors each step
  return 2 * lg * (c.alpha + m.protocol(a.shape, n) + n * c.beta) + lg * n * c.gamma;
}

}  // namespace

extern const AlgoInfo allreduce_reduce_bcast = {
    "reduce_bcast", CollKind::Allreduce, build, nullptr, cost,
    "2·⌈lg p⌉·(α + n·β) + ⌈lg p⌉·n·γ", "none (keeps operand order)",
    "binomial reduce to rank 0, then binomial broadcast"};

}  // namespace chorus::coll
