// Reduce through the communicator's shared window: allreduce's shared_memory
// schedule (allreduce_shared_memory.cc: copy in, sync, each rank folds a P-th of
// each chunk over all slots in rank order, sync) with only the root copying the
// result out. Every rank still takes part in both syncs of each chunk: a rank's
// slot is reused only once every peer has read it.
//
// Cost: 2·⌈n/S⌉·σ + 2·n·δ + n·γ (the root's path; σ: one shared-window sync,
// δ: copy per byte, S: slot).
// Restrictions: every rank on one node with a shared window (CHORUS_COLL_SHM); host
// buffers; keeps operand order.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) { return red::build_shm_reduce(a, s, a.root); }

}  // namespace

extern const AlgoInfo reduce_shared_memory = {
    "shared_memory", CollKind::Reduce, build, red::shm_supports, red::cost_shm_reduce,
    "2·⌈n/S⌉·σ + 2·n·δ + n·γ (σ: one shared-window sync, δ: copy per byte, S: slot)",
    "all ranks on one node with a shared window (CHORUS_COLL_SHM); host buffers; keeps operand order",
    "through the node's shared window: copy in, each rank reduces a P-th, the root copies out"};

}  // namespace chorus::coll
