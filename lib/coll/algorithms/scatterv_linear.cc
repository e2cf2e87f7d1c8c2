// Scatterv, linear: the scatter algorithm (scatter_linear.cc) over blocks of
// counts[i] elements at the root's displs[i]; empty blocks send nothing.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole scattered buffer.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  return (p - 1) * pat::alpha(a, m) + (p - 1) / p * pat::result_bytes(a) * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo scatterv_linear = {
    .name = "linear",
    .kind = CollKind::Scatterv,
    .build = build_scatter_linear,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "the root sends every rank its block directly",
};

}  // namespace chorus::coll
