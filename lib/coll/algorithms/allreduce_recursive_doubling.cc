// Allreduce, recursive doubling. Newranks exchange their whole partial with the
// newrank at distance 1, 2, 4, ... and combine it, the lower newrank's data on the
// left, so after lg p' steps every newrank holds x0 (op) ... (op) x_{p-1}. A
// non-power-of-two p folds first (red::Fold): rank 2i hands its input to 2i+1
// before the exchanges and gets the result back after them.
//
//   p = 6 (p' = 4, rem = 2; newranks 0..3 are ranks 1, 3, 4, 5)
//     fold in    0 -> 1   2 -> 3
//     step 1     1 <-> 3   4 <-> 5        (newranks 0<->1, 2<->3)
//     step 2     1 <-> 4   3 <-> 5        (newranks 0<->2, 1<->3)
//     fold out   1 -> 0   3 -> 2
//
// Cost: (lg p' + 2f)·(α + n·β) + (lg p' + f)·n·γ + n·β_self, f = 1 when p is not a
// power of two (fold in and out); β_self: the input's copy into the result.
// Latency-optimal; moves the whole vector every step, so it suits small messages.
// Restrictions: none; operand order is preserved (non-commutative ops are safe).
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  const red::Fold f(a.size);
  const BufRef in = red::input(a), acc = red::at(kRecv, 0), tmp = red::at(kTmp0, 0);
  if (f.sits_out(a.rank)) {
    red::add_fold_in(s, f, a.rank, in, acc, tmp, n);
    red::add_fold_out(s, f, a.rank, acc, acc, n);
    return Status::Ok;
  }
  pat::copy(s.round(), in, acc, n);
  if (a.size > 1) s.need_tmp(kTmp0, n);
  red::add_fold_in(s, f, a.rank, in, acc, tmp, n);
  const int v = f.newrank(a.rank);
  for (int mask = 1; mask < f.pof2; mask <<= 1) {
    const int peer = v ^ mask;
    Round& r = s.round();
    pat::send(r, f.oldrank(peer), acc, n);
    pat::recv(r, f.oldrank(peer), tmp, n);
    red::combine(r, tmp, acc, n, peer < v);
  }
  red::add_fold_out(s, f, a.rank, acc, acc, n);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(red::vector_bytes(a));
  const red::Abg c = red::abg_pieces(a, m, n);  // whole vectors each step
  const red::Fold f(a.size);
  const double lg = f.levels(), fold = f.rem > 0 ? 1 : 0;
  // The input is first copied into the result, where the exchanges combine.
  return (lg + 2 * fold) * (c.alpha + m.protocol(a.shape, n) + n * c.beta) + (lg + fold) * n * c.gamma +
         n * m.self.beta_us_per_b;
}

}  // namespace

extern const AlgoInfo allreduce_recursive_doubling = {
    "recursive_doubling", CollKind::Allreduce, build, nullptr, cost,
    "(lg p' + 2f)·(α + n·β) + (lg p' + f)·n·γ + n·β_self, p' = pof2 ≤ p, f = [p ≠ p']",
    "none (keeps operand order)",
    "whole-vector exchanges at distance 1, 2, 4, ...; latency-optimal, for small messages"};

}  // namespace chorus::coll
