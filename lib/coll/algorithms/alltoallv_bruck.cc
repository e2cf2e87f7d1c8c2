// Alltoallv, Bruck: listed so that CHORUS_ALLTOALLV_ALGO=bruck is understood, but it
// never runs. Bruck forwards blocks through intermediate ranks, which must know the
// sizes of blocks between other pairs; Alltoallv gives each rank only its own counts,
// and a rank-local check of "the counts happen to be uniform" could differ between
// ranks and split the choice. supports() is therefore always false, and selection
// falls back (to pairwise) by its usual policy.
//
// Cost: as alltoall bruck, ⌈lg p⌉·α + ⌈lg p⌉·n/2·β (never selected).
// Restrictions: never supported.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs&, Schedule&) { return Status::Unsupported; }
bool supports(const CollArgs&) { return false; }

double cost(const CollArgs& a, const CostModel& m) {
  pat::Blocks sb;
  const double n = pat::send_blocks(a, sb) == Status::Ok ? static_cast<double>(sb.total()) : 0;
  const int lg = pat::ceil_log2(a.size);
  return lg * pat::alpha(a, m) + lg * n / 2 * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo alltoallv_bruck = {
    .name = "bruck",
    .kind = CollKind::Alltoallv,
    .build = build,
    .supports = supports,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + ⌈lg p⌉·n/2·β",
    .restrictions = "never: intermediate ranks would need other ranks' counts",
    .doc = "not available for alltoallv; use pairwise",
};

}  // namespace chorus::coll
