// Allgatherv, Bruck: the allgather algorithm (allgather_bruck.cc) over blocks of
// counts[i] elements at displs[i]; slots in the rotated temporary have each rank's
// own length, so the ⌈lg p⌉ messages have uneven sizes.
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β + n·β_self, n = bytes of the whole result.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size, n = pat::result_bytes(a);
  if (a.size == 1) return 0;
  // Round k sends min(2^k, p - 2^k) blocks.
  double handshakes = 0;
  for (int k = 1; k < a.size; k *= 2) handshakes += m.rndv(a.shape, std::min(k, a.size - k) * n / p);
  return pat::ceil_log2(a.size) * pat::alpha(a, m) + handshakes + (p - 1) / p * n * pat::beta(a, m) +
         n * m.self.beta_us_per_b;
}

}  // namespace

extern const AlgoInfo allgatherv_bruck = {
    .name = "bruck",
    .kind = CollKind::Allgatherv,
    .build = build_allgather_bruck,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β + n·β_self",
    .restrictions = "none",
    .doc = "⌈lg p⌉ rounds for any p through a rotated temporary; for small blocks",
};

}  // namespace chorus::coll
