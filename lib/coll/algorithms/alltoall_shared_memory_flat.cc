// Alltoall through the communicator's shared window (coll/shm.h) with a single
// synchronisation, for a rank's whole send buffer that fits one slot: every rank
// copies its p blocks into its slot, Signals, Waits for every peer, then copies
// block r of every peer's slot into its place in kRecv (its own block straight
// from kSend; in place, the other blocks of kRecv went into the slot before any
// is overwritten).
//
//   p = 3, rank r:  [B0 B1 B2 -> slot r] | sync | slot q block r -> kRecv block q
//
// One sync per call is enough (allreduce_shared_memory_flat.cc says why).
//
// Cost: σ + (2n - b)·δ (σ: one shared-window sync, δ: copy per byte, n: one
// rank's send buffer, b = n/p a block: it is copied once, the others twice).
// Against pairwise it trades p - 1 message steps for one sync and a second copy
// of every byte: small buffers, and larger ones when ranks share cores.
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM),
// host buffers, p blocks fit one slot (CHORUS_COLL_SHM_SLOT). Not alltoallv: a rank
// does not know where in a peer's buffer its block lies.
#include "coll/patterns.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

std::size_t block_bytes(const CollArgs& a) { return a.count * a.elem_size; }

bool supports(const CollArgs& a) {
  return pat::on_shared_window(a) && block_bytes(a) * static_cast<std::size_t>(a.size) <= a.shm_slot_bytes;
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Unsupported;
  const std::size_t b = block_bytes(a), p = static_cast<std::size_t>(a.size), me = static_cast<std::size_t>(a.rank);
  if (b == 0) return Status::Ok;
  auto slot = [&](std::size_t q, std::size_t blk) {
    return BufRef{kShm, ShmWindow::slot_offset(q, a.shm_slot_bytes) + blk * b};
  };
  s.shm_bytes = ShmWindow::slot_offset(p, a.shm_slot_bytes);
  const BufId in = a.in_place ? kRecv : kSend;
  // The own block stays out of the slot: it goes straight to kRecv (in place it
  // is there already).
  Round& first = s.round();
  if (me > 0) pat::copy(first, pat::at(in, 0), slot(me, 0), me * b);
  if (me + 1 < p) pat::copy(first, pat::at(in, (me + 1) * b), slot(me, me + 1), (p - me - 1) * b);
  Round& out = s.round();
  pat::sync_all(out, a.rank, a.size);
  for (std::size_t q = 0; q < p; ++q)
    if (q != me) pat::copy(out, slot(q, me), pat::at(kRecv, q * b), b);
  if (!a.in_place) pat::copy(out, pat::at(kSend, me * b), pat::at(kRecv, me * b), b);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double b = static_cast<double>(block_bytes(a)), n = b * a.size;
  return m.sync(a.shape) + (2 * n - b) * m.shm_copy(a.shape);
}

}  // namespace

extern const AlgoInfo alltoall_shared_memory_flat = {
    .name = "shared_memory_flat",
    .kind = CollKind::Alltoall,
    .build = build,
    .supports = supports,
    .cost_us = cost,
    .cost_formula = "σ + (2n - b)·δ (σ: one shared-window sync, δ: copy per byte, n: send buffer, b: block)",
    .restrictions = "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; p blocks <= "
                    "the slot (CHORUS_COLL_SHM_SLOT)",
    .doc = "through the node's shared window: all blocks in, one sync, each rank's block out",
};

}  // namespace chorus::coll
