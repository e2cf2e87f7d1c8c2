// Reduce through the communicator's shared window with a single synchronisation,
// for vectors that fit one slot: every rank copies its input into its slot and
// Signals; after Waiting for every peer, the root folds all P slots into its
// output (x0 (op) (x1 (op) (... (op) x_{p-1}))). The others return at once; their
// slots are next written two calls on the window later, and the call between
// starts with a sync the root reaches only after this fold
// (allreduce_shared_memory_flat.cc).
//
// Cost: σ + 2n·δ + (p-1)·n·γ (the root's path; σ: one shared-window sync, δ: copy
// per byte).
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM), host
// buffers, and the vector fits one slot (CHORUS_COLL_SHM_SLOT); keeps operand order.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) { return red::build_shm_reduce_flat(a, s, a.root); }

}  // namespace

extern const AlgoInfo reduce_shared_memory_flat = {
    "shared_memory_flat", CollKind::Reduce, build, red::shm_flat_supports, red::cost_shm_reduce_flat,
    "σ + 2n·δ + (p-1)·n·γ (σ: one shared-window sync, δ: copy per byte)",
    "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; n <= the slot "
    "(CHORUS_COLL_SHM_SLOT); keeps operand order",
    "through the node's shared window: copy in, one sync, the root reduces the whole vector"};

}  // namespace chorus::coll
