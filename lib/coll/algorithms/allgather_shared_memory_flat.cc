// Allgather and allgatherv through the communicator's shared window (coll/shm.h)
// with a single synchronisation, for blocks that fit one slot: every rank copies
// its block into its slot, Signals, Waits for every peer, then copies every
// peer's slot into its place in kRecv (its own block straight from kSend).
//
//   p = 3:  [block -> slot r] | sync | slot q -> kRecv block q, q != r
//
// One sync per call is enough, as in allreduce_shared_memory_flat.cc: the next
// call writes the other generation of the window, and the call after that starts
// only once every peer has Signalled in the call between, i.e. has finished
// reading this one's slots.
//
// Cost: σ + (b + n)·δ (σ: one shared-window sync, δ: copy per byte; b: the
// largest block, n: the whole result). Against the ring it trades p - 1 message
// steps for one sync: small blocks, and any block when ranks share cores (each
// step of the ring then waits for a peer to be scheduled).
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM),
// host buffers, every block fits one slot (CHORUS_COLL_SHM_SLOT).
#include <algorithm>

#include "coll/patterns.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) {
  if (!pat::on_shared_window(a) || !a.counts_everywhere) return false;
  pat::Blocks b;
  if (pat::result_blocks(a, b) != Status::Ok) return false;
  return std::all_of(b.len.begin(), b.len.end(), [&](std::size_t l) { return l <= a.shm_slot_bytes; });
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Unsupported;
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  if (b.total() == 0) return Status::Ok;
  const auto p = static_cast<std::size_t>(a.size), me = static_cast<std::size_t>(a.rank);
  auto slot = [&](std::size_t q) { return BufRef{kShm, ShmWindow::slot_offset(q, a.shm_slot_bytes)}; };
  s.shm_bytes = ShmWindow::slot_offset(p, a.shm_slot_bytes);
  const BufRef own = a.in_place ? pat::at(kRecv, b.off[me]) : pat::at(kSend, 0);
  // A round posts its Signal first and runs its copies after its Waits: the copy
  // in is a round of its own.
  pat::copy(s.round(), own, slot(me), b.len[me]);
  Round& out = s.round();
  pat::sync_all(out, a.rank, a.size);
  for (std::size_t q = 0; q < p; ++q)
    if (q != me) pat::copy(out, slot(q), pat::at(kRecv, b.off[q]), b.len[q]);
  if (!a.in_place) pat::copy(out, own, pat::at(kRecv, b.off[me]), b.len[me]);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (pat::result_blocks(a, b) != Status::Ok) return 0;
  // The slowest rank's: the largest block (select() costs every call as rank 0's).
  const double own = static_cast<double>(*std::max_element(b.len.begin(), b.len.end()));
  return m.sync(a.shape) + (own + static_cast<double>(b.total())) * m.shm_copy(a.shape);
}

constexpr const char* kFormula = "σ + (b + n)·δ (σ: one shared-window sync, δ: copy per byte, b: largest block)";
constexpr const char* kRestrictions = "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; "
                                      "every block <= the slot (CHORUS_COLL_SHM_SLOT)";
constexpr const char* kDoc = "through the node's shared window: own block in, one sync, every block out";

}  // namespace

extern const AlgoInfo allgather_shared_memory_flat = {
    "shared_memory_flat", CollKind::Allgather, build, supports, cost, kFormula, kRestrictions, kDoc};
extern const AlgoInfo allgatherv_shared_memory_flat = {
    "shared_memory_flat", CollKind::Allgatherv, build, supports, cost, kFormula, kRestrictions, kDoc};

}  // namespace chorus::coll
