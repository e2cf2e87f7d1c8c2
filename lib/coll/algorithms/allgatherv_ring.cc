// Allgatherv, ring: the allgather ring (allgather_ring.cc) over per-rank blocks of
// counts[i] elements at displs[i]; empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole result (sum of the blocks);
// the largest block bounds each step, so very uneven counts cost more than this.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
extern const AlgoInfo allgatherv_ring = {
    .name = "ring",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_ring,
    .supports = nullptr,
    .cost_us = cost_allgather_ring,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 neighbour steps; bandwidth-optimal, for large blocks",
};

}  // namespace chorus::coll
