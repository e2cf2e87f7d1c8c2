// Broadcast through the communicator's shared window (coll/shm.h), for ranks that
// all run on one node. The root copies the message into the window in chunks of
// at most S bytes (S = the slot), alternating between the window's two result
// areas; after each full synchronisation (Signal, then Wait for every peer) the
// other ranks copy the chunk out while the root copies in the next one.
//
//   p = 3, 2 chunks:  root: [c0 -> A0] | sync | [c1 -> A1]  | sync |
//                     rest:            | sync | [A0 -> c0]  | sync | [A1 -> c1]
//
// The root writes area k % 2 again only after a sync that every rank reached
// after copying chunk k - 2 out. The call's first sync, like every call on the
// window, also tells each rank that its peers are done with the last call.
//
// Cost: ⌈n/S⌉·σ + (n + min(n, S))·δ (σ: one shared-window sync, δ: copy per byte;
// the root's copies overlap the others' but for one chunk).
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM); host
// buffers.
#include <algorithm>
#include <cmath>

#include "coll/patterns.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return pat::on_shared_window(a); }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Unsupported;
  const std::size_t n = a.count * a.elem_size, slot = a.shm_slot_bytes;
  if (n == 0) return Status::Ok;
  const auto p = static_cast<std::size_t>(a.size);
  const bool root = a.rank == a.root;
  auto area = [&](std::size_t k) { return BufRef{kShm, ShmWindow::area_offset(p, k % 2, slot)}; };
  s.shm_bytes = ShmWindow::gen_bytes(a.size, slot);
  Round& first = s.round();
  if (root) first.steps.push_back(Schedule::copy(pat::at(kRecv, 0), area(0), std::min(slot, n)));
  for (std::size_t off = 0, k = 0; off < n; off += slot, ++k) {
    Round& r = s.round();
    pat::sync_all(r, a.rank, a.size);
    if (!root) {
      r.steps.push_back(Schedule::copy(area(k), pat::at(kRecv, off), std::min(slot, n - off)));
    } else if (off + slot < n) {
      r.steps.push_back(Schedule::copy(pat::at(kRecv, off + slot), area(k + 1), std::min(slot, n - off - slot)));
    }
  }
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = pat::vector_bytes(a), slot = static_cast<double>(a.shm_slot_bytes);
  const double chunks = slot > 0 ? std::max(1.0, std::ceil(n / slot)) : 1.0;
  return chunks * m.sync(a.shape) + (n + std::min(n, slot)) * m.shm_copy(a.shape);
}

}  // namespace

extern const AlgoInfo bcast_shared_memory = {
    .name = "shared_memory",
    .kind = CollKind::Bcast,
    .build = build,
    .supports = supports,
    .cost_us = cost,
    .cost_formula = "⌈n/S⌉·σ + (n + min(n,S))·δ (σ: one shared-window sync, δ: copy per byte, S: slot)",
    .restrictions = "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers",
    .doc = "the root copies chunks into the node's shared window, the others copy them out",
};

}  // namespace chorus::coll
