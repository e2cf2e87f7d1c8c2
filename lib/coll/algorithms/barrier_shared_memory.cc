// Barrier through the communicator's shared window (coll/shm.h), for ranks that
// all run on one node: one round in which every rank Signals and then Waits for
// every peer's Signal. No messages, no data: each rank reads P - 1 counts, each a
// cache line another rank wrote.
//
//   p = 4    every rank: signal | wait(r0) wait(r1) wait(r2) wait(r3) (not itself)
//
// Cost: σ (one shared-window sync, CostModel::sync)
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM).
#include "coll/patterns.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return pat::on_shared_window(a); }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Unsupported;
  // The counts sit in the rank blocks; no slot is touched.
  s.shm_bytes = ShmWindow::slot_offset(static_cast<std::size_t>(a.size), a.shm_slot_bytes);
  pat::sync_all(s.round(), a.rank, a.size);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) { return m.sync(a.shape); }

}  // namespace

extern const AlgoInfo barrier_shared_memory = {
    .name = "shared_memory",
    .kind = CollKind::Barrier,
    .build = build,
    .supports = supports,
    .cost_us = cost,
    .cost_formula = "σ (one shared-window sync)",
    .restrictions = "all ranks on one node with a shared window (CHORUS_COLL_SHM)",
    .doc = "every rank signals its count in the node's shared window and waits for all others",
};

}  // namespace chorus::coll
