// Allreduce, Rabenseifner: a recursive-halving reduce-scatter followed by a
// recursive-doubling allgather, over the p' = pof2 ≤ p newranks of red::Fold (rank
// 2i < 2·rem hands its input to 2i+1 first and gets the result back last).
//
// Halving uses ascending distance (red::halving_windows): at step k newranks v and
// v^2^k split their common window, the one with bit k clear keeping the lower half,
// and reduce the half they keep. Partials then always cover aligned groups of
// consecutive ranks, so operand order is preserved. The allgather retraces the
// steps in reverse.
//
//   p' = 4, n = 8 elements:   halving d=1     halving d=2     allgather d=2, d=1
//     newrank 0: [0,8)  ->  [0,4)  ->  [0,2)    ->  [0,4)  ->  [0,8)
//     newrank 1: [0,8)  ->  [4,8)  ->  [4,6)    ->  [4,8)  ->  [0,8)
//     newrank 2: [0,8)  ->  [0,4)  ->  [2,4)    ->  [0,4)  ->  [0,8)
//     newrank 3: [0,8)  ->  [4,8)  ->  [6,8)    ->  [4,8)  ->  [0,8)
//
// Cost: 2·lg p'·α + 2(p'-1)/p'·n·β + (p'-1)/p'·n·γ, plus f·(2α + 2n·β + n·γ) when
// p is not a power of two (f = 1: the folded pairs move the whole vector twice).
// Bandwidth-optimal with logarithmic latency: large messages.
// Restrictions: none; operand order is preserved.
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
  if (f.absorbs(a.rank)) s.need_tmp(kTmp0, n);
  red::add_fold_in(s, f, a.rank, in, acc, tmp, n);
  const int v = f.newrank(a.rank);
  const std::vector<red::Range> w = red::halving_windows(v, f, a.count);
  red::add_halving_reduce_scatter(s, f, v, w, kRecv, kTmp0, red::elements(a.elem_size));
  red::add_doubling_allgather(s, f, v, w, kRecv, red::elements(a.elem_size));
  red::add_fold_out(s, f, a.rank, acc, acc, n);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(red::vector_bytes(a));
  const red::Abg c = red::abg_pieces(a, m, n / 2);  // the first halving step moves n/2
  const red::Fold f(a.size);
  const double q = f.pof2, frac = (q - 1) / q, fold = f.rem > 0 ? 1 : 0;
  // Halving sends n/2, n/4, ...; doubling the same back.
  return 2 * f.levels() * c.alpha + 2 * pat::protocol_rounds(a, m, n / 2, f.levels(), 0.5) + 2 * frac * n * c.beta +
         frac * n * c.gamma + fold * (2 * (c.alpha + m.protocol(a.shape, n)) + 2 * n * c.beta + n * c.gamma);
}

}  // namespace

extern const AlgoInfo allreduce_rabenseifner = {
    "rabenseifner", CollKind::Allreduce, build, nullptr, cost,
    "2·lg p'·α + 2(p'-1)/p'·n·β + (p'-1)/p'·n·γ + f·(2α + 2n·β + n·γ)",
    "none (keeps operand order)",
    "recursive-halving reduce-scatter + recursive-doubling allgather; large messages"};

}  // namespace chorus::coll
