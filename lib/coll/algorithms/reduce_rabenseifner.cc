// Reduce, Rabenseifner: a recursive-halving reduce-scatter (as in
// allreduce_rabenseifner.cc) followed by a gather of the reduced windows to the
// root that retraces the halving steps in reverse: at distance 2^k (descending) the
// newrank whose bit k differs from the root's sends everything it holds to its
// partner and is done. Non-power-of-two p folds first (red::Fold); when the root
// sits out, the gather ends at its partner root+1, which forwards the result.
//
//   p' = 4, root 0, n = 8:  after halving 0:[0,2) 1:[4,6) 2:[2,4) 3:[6,8)
//     gather d=2: 2 -> 0 ([2,4)), 3 -> 1 ([6,8));  d=1: 1 -> 0 ([4,8))
//
// Cost: 2·lg p'·α + 2(p'-1)/p'·n·β + (p'-1)/p'·n·γ + n·β_self (the copy of the input it
// halves in place), plus f·(α + n·β + n·γ) for the fold and α + n·β when the root
// sits out. Bandwidth-optimal: large messages.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  const red::Fold f(a.size);
  const bool is_root = a.rank == a.root;
  const BufRef in = red::at(a.in_place && is_root ? kRecv : kSend, 0);
  const BufRef acc = red::at(is_root ? kRecv : kTmp0, 0), tmp = red::at(kTmp1, 0);
  // The rank where the gather ends: the root, or its partner if the root sits out.
  const int gather_rank = f.sits_out(a.root) ? a.root + 1 : a.root;
  if (f.sits_out(a.rank)) {
    red::add_fold_in(s, f, a.rank, in, acc, tmp, n);
    if (is_root) pat::recv(s.round(), gather_rank, acc, n);
    return Status::Ok;
  }
  pat::copy(s.round(), in, acc, n);
  red::need(s, acc, n);
  if (f.absorbs(a.rank)) red::need(s, tmp, n);
  red::add_fold_in(s, f, a.rank, in, acc, tmp, n);
  const int v = f.newrank(a.rank);
  const std::vector<red::Range> w = red::halving_windows(v, f, a.count);
  const auto off = red::elements(a.elem_size);
  red::add_halving_reduce_scatter(s, f, v, w, static_cast<BufId>(acc.buf), kTmp1, off);
  red::add_halving_gather(s, f, v, f.newrank(gather_rank), w, static_cast<BufId>(acc.buf), off);
  if (a.rank == gather_rank && !is_root) pat::send(s.round(), a.root, acc, n);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const red::Abg c = red::abg(a, m);
  const red::Fold f(a.size);
  const double n = static_cast<double>(red::vector_bytes(a));
  const double q = f.pof2, frac = (q - 1) / q, fold = f.rem > 0 ? 1 : 0;
  const double forward = f.sits_out(a.root) ? 1 : 0;
  // Every rank that takes part first copies its input into the vector it halves
  // (n·β_self, a copy within the rank); binomial's ranks need none.
  // Halving sends n/2, n/4, ...; the gather to the root the same sizes back.
  const double whole = c.alpha + m.protocol(a.shape, n);
  return 2 * f.levels() * c.alpha + 2 * pat::protocol_rounds(a, m, n / 2, f.levels(), 0.5) + 2 * frac * n * c.beta +
         frac * n * c.gamma + n * m.self.beta_us_per_b + fold * (whole + n * c.beta + n * c.gamma) +
         forward * (whole + n * c.beta);
}

}  // namespace

extern const AlgoInfo reduce_rabenseifner = {
    "rabenseifner", CollKind::Reduce, build, nullptr, cost,
    "2·lg p'·α + 2(p'-1)/p'·n·β + (p'-1)/p'·n·γ + n·β_self + f·(α + n·β + n·γ)",
    "none (keeps operand order)",
    "recursive-halving reduce-scatter + gather to the root; large messages"};

}  // namespace chorus::coll
