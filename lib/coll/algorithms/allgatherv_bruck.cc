// Allgatherv, Bruck: the allgather algorithm (allgather_bruck.cc) over blocks of
// counts[i] elements at displs[i]; slots in the rotated temporary have each rank's
// own length, so the ⌈lg p⌉ messages have uneven sizes.
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β + n·β_self, n = bytes of the whole result.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
extern const AlgoInfo allgatherv_bruck = {
    .name = "bruck",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_bruck,
    .supports = nullptr,
    .cost_us = cost_allgather_bruck,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β + n·β_self",
    .restrictions = "none",
    .doc = "⌈lg p⌉ rounds for any p through a rotated temporary; for small blocks",
};

}  // namespace chorus::coll
