// Barrier, dissemination (Hensgen, Finkel & Manber). In round k every rank signals
// rank + 2^k and waits for rank - 2^k (mod p); after ⌈lg p⌉ rounds every rank has
// heard, directly or through others, from every rank. Messages carry no bytes.
//
//   p = 5      round 0 (+1)     round 1 (+2)     round 2 (+4)
//   rank 0     -> 1, <- 4       -> 2, <- 3       -> 4, <- 1
//   rank 3     -> 4, <- 2       -> 0, <- 1       -> 2, <- 4
//
// Cost: ⌈lg p⌉·α
// Restrictions: none (p = 1 is an empty schedule).
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const int p = a.size;
  for (int d = 1; d < p; d <<= 1) {
    Round& rd = s.round();
    rd.steps.push_back(Schedule::send(pat::mod(a.rank + d, p), pat::at(kRecv, 0), 0));
    rd.steps.push_back(Schedule::recv(pat::mod(a.rank - d, p), pat::at(kRecv, 0), 0));
  }
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  return pat::ceil_log2(a.size) * pat::alpha(a, m);
}

}  // namespace

extern const AlgoInfo barrier_dissemination = {
    .name = "dissemination",
    .kind = CollKind::Barrier,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α",
    .restrictions = "none",
    .doc = "every rank signals rank+2^k and waits for rank-2^k, k = 0..⌈lg p⌉-1",
};

}  // namespace chorus::coll
