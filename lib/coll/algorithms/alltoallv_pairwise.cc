// Alltoallv, pairwise exchange: the alltoall algorithm (alltoall_pairwise.cc) over
// send_counts/send_displs and counts/displs (in place: counts/displs for both, input
// copied to kTmp0 first). Empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes this rank sends in all. (Every rank
// sees other counts; with one algorithm in the catalog the choice stays consistent.)
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
extern const AlgoInfo alltoallv_pairwise = {
    .name = "pairwise",
    .kind = CollKind::Alltoallv,
    .build = build_alltoall_pairwise,
    .supports = nullptr,
    .cost_us = cost_alltoall_pairwise,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 steps, step s exchanging with r + s and r - s",
};

}  // namespace chorus::coll
