// Reduce, binomial tree (red::add_binomial_reduce). At distance 2^k a vrank with
// bit k set sends its partial to vrank - 2^k and stops; the others receive and
// combine. Commutative ops use the tree over vranks (rank - root) mod p; for
// non-commutative ops the tree is rooted at rank 0, where every subtree is a
// contiguous rank range, and rank 0 then sends the result to the root.
//
//   p = 6, root 0:   round 1: 1->0 3->2 5->4    round 2: 2->0    round 3: 4->0
//
// Cost: ⌈lg p⌉·(α + n·β + n·γ), plus α + n·β for a non-commutative op with root ≠ 0.
// Latency-optimal; the root receives the vector ⌈lg p⌉ times, so for small messages.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  const int tree_root = a.commutative ? a.root : 0;
  const bool is_root = a.rank == a.root;
  const BufRef in = red::at(a.in_place && is_root ? kRecv : kSend, 0);
  const BufRef acc = red::at(is_root && tree_root == a.root ? kRecv : kTmp0, 0);
  red::add_binomial_reduce(s, a.rank, tree_root, a.size, in, acc, red::at(kTmp1, 0), n);
  if (tree_root != a.root) {
    if (a.rank == tree_root) pat::send(s.round(), a.root, acc, n);
    if (is_root) pat::recv(s.round(), tree_root, red::at(kRecv, 0), n);
  }
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const red::Abg c = red::abg(a, m);
  const double n = static_cast<double>(red::vector_bytes(a)), lg = pat::ceil_log2(a.size);
  const double forward = !a.commutative && a.root != 0 ? 1 : 0;
  const double al = c.alpha + m.protocol(a.shape, n);
  return lg * (al + n * c.beta + n * c.gamma) + forward * (al + n * c.beta);
}

}  // namespace

extern const AlgoInfo reduce_binomial = {
    "binomial", CollKind::Reduce, build, nullptr, cost,
    "⌈lg p⌉·(α + n·β + n·γ) (+ α + n·β: non-commutative, root ≠ 0)",
    "none (keeps operand order)", "binomial tree towards the root; small messages"};

}  // namespace chorus::coll
