// Reduce_scatter and reduce_scatter_block through the communicator's shared window
// (coll/shm.h) with a single synchronisation, for an input that fits one slot:
// every rank copies its whole input into its slot, Signals, Waits for every peer,
// then reduces its own block over all p slots itself, in rank order
// (s0 (op) (s1 (op) (... (op) s_{p-1})), as allreduce_shared_memory_flat.cc does
// for the whole vector.
//
//   p = 3, rank r:  [input -> slot r] | sync | out = s0[r] (op) s1[r] (op) s2[r]
//
// One sync per call is enough (allreduce_shared_memory_flat.cc says why).
//
// Cost: σ + (n + b)·δ + (p - 1)·b·γ (σ: one shared-window sync, δ: copy per
// byte, n: the input, b: the largest block). Against pairwise it trades p - 1
// message steps for one sync: small vectors, and larger ones when ranks share
// cores.
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM), host
// buffers, the input fits one slot (CHORUS_COLL_SHM_SLOT); keeps operand order.
#include "coll/algorithms/reduction_common.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) {
  pat::Blocks b;
  return red::shm_supports(a) && red::input_blocks(a, b) == Status::Ok && b.total() <= a.shm_slot_bytes;
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Unsupported;
  pat::Blocks b;
  CHORUS_TRY(red::input_blocks(a, b));
  const std::size_t n = b.total();
  if (n == 0) return Status::Ok;
  const auto p = static_cast<std::size_t>(a.size), me = static_cast<std::size_t>(a.rank);
  const std::size_t off = b.off[me], mine = b.len[me];
  auto slot = [&](std::size_t q) { return BufRef{kShm, ShmWindow::slot_offset(q, a.shm_slot_bytes) + off}; };
  s.shm_bytes = ShmWindow::slot_offset(p, a.shm_slot_bytes);
  // In place the input is kRecv, whose front the result overwrites: all of it
  // goes into the slot first.
  s.round().steps.push_back(Schedule::copy(red::at(a.in_place ? kRecv : kSend, 0),
                                           BufRef{kShm, ShmWindow::slot_offset(me, a.shm_slot_bytes)}, n));
  Round& r = s.round();
  pat::sync_all(r, a.rank, a.size);
  if (mine == 0) return Status::Ok;
  const BufRef out = red::at(kRecv, 0);
  r.steps.push_back(Schedule::copy(slot(p - 1), out, mine));
  for (std::size_t q = p - 1; q-- > 0;) r.steps.push_back(Schedule::reduce_left(slot(q), out, mine));
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (red::input_blocks(a, b) != Status::Ok) return 0;
  // The slowest rank's: the largest block (select() costs every call as rank 0's).
  const double n = static_cast<double>(b.total()), mine = static_cast<double>(red::max_block(b));
  return m.sync(a.shape) + (n + mine) * m.shm_copy(a.shape) + (a.size - 1) * mine * m.gamma(a.shape);
}

constexpr const char* kFormula = "σ + (n + b)·δ + (p-1)·b·γ (σ: one shared-window sync, δ: copy per byte, "
                                 "b: largest block)";
constexpr const char* kRestrictions = "all ranks on one node with a shared window (CHORUS_COLL_SHM); host "
                                      "buffers; the input <= the slot (CHORUS_COLL_SHM_SLOT); keeps operand order";
constexpr const char* kDoc = "through the node's shared window: input in, one sync, every rank reduces its "
                             "block over all slots";

}  // namespace

extern const AlgoInfo reduce_scatter_shared_memory_flat = {
    "shared_memory_flat", CollKind::ReduceScatter, build, supports, cost, kFormula, kRestrictions, kDoc};
extern const AlgoInfo reduce_scatter_block_shared_memory_flat = {
    "shared_memory_flat", CollKind::ReduceScatterBlock, build, supports, cost, kFormula, kRestrictions, kDoc};

}  // namespace chorus::coll
