// Scatterv, binomial tree: the scatter algorithm (scatter_binomial.cc) over blocks of
// counts[i] elements at the root's displs[i]. Inner ranks receive their subtree's
// blocks packed in kTmp0, whose size they compute from counts[] of their subtree.
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β, n = bytes of the whole scattered buffer.
// Restrictions: counts[] of every rank must be known on every rank (MPI gives them
// only to the root; the caller shares them).
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  return pat::ceil_log2(a.size) * pat::alpha(a, m) +
         (p - 1) / p * pat::result_bytes(a) * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo scatterv_binomial = {
    .name = "binomial",
    .kind = CollKind::Scatterv,
    .build = build_scatter_binomial,
    .supports = [](const CollArgs& a) { return a.counts_everywhere; },
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β",
    .restrictions = "counts[] of every rank on every rank",
    .doc = "binomial tree from the root, subtrees packed in a temporary",
};

}  // namespace chorus::coll
