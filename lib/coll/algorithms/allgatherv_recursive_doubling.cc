// Allgatherv, recursive doubling: the allgather algorithm (allgather_recursive_doubling.cc)
// over blocks of counts[i] elements at displs[i]. The exchanges run in a packed
// rank-order temporary (kTmp0, the whole result) unless kRecv is packed already.
//
// Cost: lg p'·α + (p'-1)/p'·n·β (+ 2α + nβ if p is not a power of two p'),
// n = bytes of the whole result.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const int pp = pat::floor_pow2(a.size);
  const double n = pat::result_bytes(a), al = pat::alpha(a, m), be = pat::beta(a, m);
  // Messages of up to n/p, 2n/p, ... bytes (a group's own blocks and its folded
  // ranks' go apart); a folded rank's block in and the result out.
  double c = pat::ceil_log2(pp) * al + (pp - 1.0) / pp * n * be +
             pat::rndv_rounds(a, m, n / a.size, pat::ceil_log2(pp), 2);
  if (pp != a.size) c += 2 * al + n * be + m.rndv(a.shape, n / a.size) + m.rndv(a.shape, n);
  return c;
}

}  // namespace

extern const AlgoInfo allgatherv_recursive_doubling = {
    .name = "recursive_doubling",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_recursive_doubling,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "lg p'·α + (p'-1)/p'·n·β (+ 2α + nβ if p ≠ p' = 2^⌊lg p⌋)",
    .restrictions = "none",
    .doc = "pairwise exchanges at doubling distances; extra ranks fold in and out",
};

}  // namespace chorus::coll
