// Alltoallv, pairwise exchange: the alltoall algorithm (alltoall_pairwise.cc) over
// send_counts/send_displs and counts/displs (in place: counts/displs for both, input
// copied to kTmp0 first). Empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes this rank sends in all. (Every rank
// sees other counts; with one algorithm in the catalog the choice stays consistent.)
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  pat::Blocks sb;
  const double n = pat::send_blocks(a, sb) == Status::Ok ? static_cast<double>(sb.total()) : 0;
  return (p - 1) * pat::alpha(a, m) + (p - 1) / p * n * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo alltoallv_pairwise = {
    .name = "pairwise",
    .kind = CollKind::Alltoallv,
    .build = build_alltoall_pairwise,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 steps, step s exchanging with r + s and r - s",
};

}  // namespace chorus::coll
