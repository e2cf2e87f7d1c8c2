// Gatherv, linear: the gather algorithm (gather_linear.cc) over blocks of counts[i]
// elements at the root's displs[i]; empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole gathered result.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  return (p - 1) * pat::alpha(a, m) + (p - 1) / p * pat::result_bytes(a) * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo gatherv_linear = {
    .name = "linear",
    .kind = CollKind::Gatherv,
    .build = build_gather_linear,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "every rank sends to the root directly",
};

}  // namespace chorus::coll
