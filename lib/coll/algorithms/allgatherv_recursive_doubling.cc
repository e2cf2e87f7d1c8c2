// Allgatherv, recursive doubling: the allgather algorithm (allgather_recursive_doubling.cc)
// over blocks of counts[i] elements at displs[i]. The exchanges run in a packed
// rank-order temporary (kTmp0, the whole result) unless kRecv is packed already.
//
// Cost: lg p'·α + (p'-1)/p'·n·β (+ 2α + nβ if p is not a power of two p'),
// n = bytes of the whole result.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
extern const AlgoInfo allgatherv_recursive_doubling = {
    .name = "recursive_doubling",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_recursive_doubling,
    .supports = nullptr,
    .cost_us = cost_allgather_recursive_doubling,
    .cost_formula = "lg p'·α + (p'-1)/p'·n·β (+ 2α + nβ if p ≠ p' = 2^⌊lg p⌋)",
    .restrictions = "none",
    .doc = "pairwise exchanges at doubling distances; extra ranks fold in and out",
};

}  // namespace chorus::coll
