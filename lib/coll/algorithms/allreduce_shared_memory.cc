// Allreduce through the communicator's shared window (coll/shm.h), for ranks that
// all run on one node. No messages: per chunk of at most S bytes (S = the window's
// slot), with B_r = rank r's block, a P-th of the chunk:
//
//   copy in   every rank copies its chunk of input into its own slot
//   sync      Signal, then Wait for every peer
//   reduce    rank r folds B_r over all P slots into result area k % 2, from the
//             last rank down (x0 (op) (x1 (op) (... (op) x_{p-1}))): operand order kept
//   sync      Signal, then Wait for every peer
//   copy out  every rank copies the whole reduced chunk into its output; the next
//             chunk's copy-in runs in the same round (every slot has been read once
//             every peer passed the second sync)
//
//   p = 3, one chunk:  [in->slot r] | sync | B_r = s0 (op) s1 (op) s2 | sync | [res->out]
//
// Result areas alternate between chunks, so chunk k + 1's reduction never
// overwrites chunk k's result while a slower peer still copies it out.
//
// Cost: 2·⌈n/S⌉·σ + 2·n·δ + n·γ, with σ one synchronisation (CostModel::sync) and
// δ the copy cost per byte: each rank copies n bytes in and n out and reduces
// its n/p bytes from p operands.
// Restrictions: every rank on one node and a shared window (CHORUS_COLL_SHM), so
// host buffers only; operand order is preserved.
#include <cmath>

#include "coll/algorithms/reduction_common.h"
#include "coll/shm.h"

namespace chorus::coll {

bool red::shm_supports(const CollArgs& a) {
  return pat::on_shared_window(a) && a.elem_size > 0 && a.shm_slot_bytes >= a.elem_size;
}

Status red::build_shm_reduce(const CollArgs& a, Schedule& s, int out_rank) {
  CHORUS_TRY(pat::check_args(a));
  if (!shm_supports(a)) return Status::Unsupported;
  const std::size_t n = red::vector_bytes(a);
  if (n == 0) return Status::Ok;
  // MPI_IN_PLACE: the input is in kRecv (for reduce, only the root has one).
  const bool in_recv = a.in_place && (out_rank < 0 || out_rank == a.rank);
  const std::size_t es = a.elem_size, slot = a.shm_slot_bytes;
  const std::size_t chunk = slot / es * es;
  const auto p = static_cast<std::size_t>(a.size);
  const auto me = static_cast<std::size_t>(a.rank);
  auto in_slot = [&](std::size_t q, std::size_t off) {
    return BufRef{kShm, ShmWindow::slot_offset(q, slot) + off};
  };
  auto result = [&](std::size_t k, std::size_t off) {
    return BufRef{kShm, ShmWindow::area_offset(p, k % 2, slot) + off};
  };
  s.shm_bytes = ShmWindow::gen_bytes(a.size, slot);
  std::size_t copy_round = s.rounds.size();
  s.round();
  for (std::size_t off = 0, k = 0; off < n; off += chunk, ++k) {
    const std::size_t c = std::min(chunk, n - off);
    s.rounds[copy_round].steps.push_back(Schedule::copy(red::at(in_recv ? kRecv : kSend, off), in_slot(me, 0), c));
    // This rank's block of the chunk, in whole elements.
    const std::size_t elems = c / es, base = elems / p, rem = elems % p;
    const std::size_t b_off = (me * base + std::min(me, rem)) * es;
    const std::size_t b_len = (base + (me < rem ? 1 : 0)) * es;
    Round& reduce = s.round();
    pat::sync_all(reduce, a.rank, a.size);
    if (b_len) {
      reduce.steps.push_back(Schedule::copy(in_slot(p - 1, b_off), result(k, b_off), b_len));
      for (std::size_t q = p - 1; q-- > 0;)
        reduce.steps.push_back(Schedule::reduce_left(in_slot(q, b_off), result(k, b_off), b_len));
    }
    copy_round = s.rounds.size();
    Round& out = s.round();
    pat::sync_all(out, a.rank, a.size);
    if (out_rank < 0 || out_rank == a.rank)
      out.steps.push_back(Schedule::copy(result(k, 0), red::at(kRecv, off), c));
  }
  return Status::Ok;
}

double red::cost_shm_reduce(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(red::vector_bytes(a));
  const double chunk = static_cast<double>(a.shm_slot_bytes / a.elem_size * a.elem_size);
  const double chunks = chunk > 0 ? std::ceil(n / chunk) : 1;
  const double delta = m.shm_copy(a.shape);
  return 2 * chunks * m.sync(a.shape) + 2 * n * delta + n * m.gamma(a.shape);
}

namespace {
Status build(const CollArgs& a, Schedule& s) { return red::build_shm_reduce(a, s, -1); }
}  // namespace

extern const AlgoInfo allreduce_shared_memory = {
    "shared_memory", CollKind::Allreduce, build, red::shm_supports, red::cost_shm_reduce,
    "2·⌈n/S⌉·σ + 2·n·δ + n·γ (σ: one shared-window sync, δ: copy per byte, S: slot)",
    "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; keeps operand order",
    "through the node's shared window: copy in, each rank reduces a P-th, copy out"};

}  // namespace chorus::coll
