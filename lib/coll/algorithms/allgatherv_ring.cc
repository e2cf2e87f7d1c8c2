// Allgatherv, ring: the allgather ring (allgather_ring.cc) over per-rank blocks of
// counts[i] elements at displs[i]; empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole result (sum of the blocks);
// the largest block bounds each step, so very uneven counts cost more than this.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  const double n = pat::result_bytes(a);
  return (p - 1) * pat::alpha(a, m, n / p) + (p - 1) / p * n * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo allgatherv_ring = {
    .name = "ring",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_ring,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 neighbour steps; bandwidth-optimal, for large blocks",
};

}  // namespace chorus::coll
