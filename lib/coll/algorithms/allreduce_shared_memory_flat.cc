// Allreduce through the communicator's shared window (coll/shm.h) with a single
// synchronisation, for vectors that fit one slot: every rank copies its input into
// its slot, Signals, Waits for every peer, then reduces the whole vector over all
// P slots itself (x0 (op) (x1 (op) (... (op) x_{p-1})), the same on every rank).
//
//   p = 3:  [in -> slot r] | sync | out = s0 (op) s1 (op) s2   (on every rank)
//
// No second synchronisation is needed: the next call writes the other generation
// of the window, and the call after that starts only once every peer has
// Signalled in the call between, i.e. has finished reading this one's slots.
// Against shared_memory it trades (p - 1)·n of extra reduction for one sync:
// cheaper for small vectors.
//
// Cost: σ + 2n·δ + (p - 1)·n·γ (σ: one shared-window sync, δ: copy per byte).
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM), host
// buffers, and the vector fits one slot (CHORUS_COLL_SHM_SLOT); keeps operand order.
#include "coll/algorithms/reduction_common.h"
#include "coll/shm.h"

namespace chorus::coll {

bool red::shm_flat_supports(const CollArgs& a) {
  return red::shm_supports(a) && red::vector_bytes(a) <= a.shm_slot_bytes;
}

Status red::build_shm_reduce_flat(const CollArgs& a, Schedule& s, int out_rank) {
  CHORUS_TRY(pat::check_args(a));
  if (!shm_flat_supports(a)) return Status::Unsupported;
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  // MPI_IN_PLACE: the input is in kRecv (for reduce, only the root has one).
  const bool in_recv = a.in_place && (out_rank < 0 || out_rank == a.rank);
  const std::size_t slot = a.shm_slot_bytes;
  const auto p = static_cast<std::size_t>(a.size);
  auto in_slot = [&](std::size_t q) { return BufRef{kShm, ShmWindow::slot_offset(q, slot)}; };
  s.shm_bytes = ShmWindow::slot_offset(p, slot);
  s.round().steps.push_back(Schedule::copy(red::at(in_recv ? kRecv : kSend, 0), in_slot(static_cast<std::size_t>(a.rank)), n));
  Round& r = s.round();
  pat::sync_all(r, a.rank, a.size);
  if (out_rank >= 0 && out_rank != a.rank) return Status::Ok;
  const BufRef out = red::at(kRecv, 0);
  r.steps.push_back(Schedule::copy(in_slot(p - 1), out, n));
  for (std::size_t q = p - 1; q-- > 0;) r.steps.push_back(Schedule::reduce_left(in_slot(q), out, n));
  return Status::Ok;
}

double red::cost_shm_reduce_flat(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(red::vector_bytes(a));
  const double delta = m.shm_copy(a.shape);
  // In, and out of the last slot into the result (the root's, for reduce: every
  // call is costed as rank 0's, and the slowest rank sets the time).
  return m.sync(a.shape) + 2 * n * delta + (a.size - 1) * n * m.gamma(a.shape);
}

namespace {
Status build(const CollArgs& a, Schedule& s) { return red::build_shm_reduce_flat(a, s, -1); }
}  // namespace

extern const AlgoInfo allreduce_shared_memory_flat = {
    "shared_memory_flat", CollKind::Allreduce, build, red::shm_flat_supports, red::cost_shm_reduce_flat,
    "σ + 2n·δ + (p-1)·n·γ (σ: one shared-window sync, δ: copy per byte)",
    "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; n <= the slot "
    "(CHORUS_COLL_SHM_SLOT); keeps operand order",
    "through the node's shared window: copy in, one sync, every rank reduces the whole vector"};

}  // namespace chorus::coll
