// From a collective call to a job (lib/mpi checks the call's arguments and
// translates its handles; this maps what it names onto what the executor runs):
// the user buffers bound to the packed bytes a schedule sees, staging
// non-contiguous data through pack / unpack closures (on the GPU for device
// buffers), the reduction a job's Reduce steps apply (CUDA kernels or host
// staging for device data), the communicator's shape, and the cache of built
// schedules. Compiled into libmpi with the executor (it reaches lib/gpu).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "coll/executor.h"
#include "coll/registry.h"
#include "coll/select.h"
#include "core/comm.h"
#include "core/datatype.h"

namespace chorus::coll {

// The buffers of one call being bound to `job`. What the call holds (derived
// types and a user op kept alive, pack and unpack closures) goes over to the job
// at finish_job; a call that fails before that releases it here.
struct Binding {
  explicit Binding(Job& j) : job(j) {}
  ~Binding();
  Binding(const Binding&) = delete;
  Binding& operator=(const Binding&) = delete;
  Job& job;
  std::vector<std::function<void()>> packs, unpacks;
  std::vector<const TypeInfo*> held;  // derived types kept alive until done
  MPI_Op held_op = MPI_OP_NULL;       // a user op kept alive until done (MPI_Op_free may come first)
  bool device = false;                // a user buffer lives in device memory (a device job)
  std::string error;                  // a binding failed (no device staging memory)
};

// Keeps a derived type alive until the job is freed; returns it.
const TypeInfo* held_type(Binding& b, const TypeInfo* t);

// A user region of `count` elements of `t`: the packed bytes the schedule sees.
// Contiguous data is used where it lies; other data is staged in a buffer the
// job owns (packed before every start for inputs, unpacked at the end for outputs).
std::byte* bind(Binding& b, const void* buf, std::size_t count, const TypeInfo* t, bool in, bool out);

// Blocks of a v-collective: block i = counts[i] elements at displs[i] (elements of
// t's extent in the user buffer; packed at displs[i]*size).
std::byte* bind_blocks(Binding& b, const void* buf, const std::vector<std::size_t>& counts,
                       const std::vector<std::size_t>& displs, const TypeInfo* t, bool in, bool out);

// Blocks of a w-collective: block i = counts[i] elements of types[i] at byte
// displacement displs[i]. Returns the packed base and sets packed[i] to block i's
// packed byte offset. When every non-empty block is one contiguous run, the user's
// memory is used as it is (the base is the lowest block start); otherwise all
// blocks are staged back to back in one buffer the job owns.
std::byte* bind_blocks_w(Binding& b, const void* buf, const std::vector<std::size_t>& counts,
                         const std::vector<std::ptrdiff_t>& displs,
                         const std::vector<const TypeInfo*>& types, bool in, bool out,
                         std::vector<std::size_t>& packed);

// The reduction a job's Reduce steps apply, on packed elements of `t`.
ReduceFn reduce_fn(Binding& b, MPI_Op op, const TypeInfo* t);
// Whether a job of `kind` with `op` may apply its op in either operand order
// (Job::reduce_commutes): the op is commutative (MPI then allows any order) and
// no two ranks compute the same result element, so no two can differ by the order
// each chose: reduce and reduce_scatter(_block). Not allreduce (recursive
// doubling has both partners compute each element, and two NaNs summed, or
// signed zeros under max, give bits that depend on order), scan or exscan.
bool any_order_reduction(CollKind kind, MPI_Op op);

// Hands the binding's packs, unpacks and held objects over to its job.
void finish_job(Binding& b);

// The communicator as the cost model sees it (the same on every rank).
CommShape shape_of(const Comm* c);

// Built schedules, kept for calls without vector arguments (a training loop's
// allreduce then skips selection and build). Callers hold the API lock.
struct CachedSchedule {
  std::shared_ptr<const Schedule> sched;
  const AlgoInfo* algo;
  std::string note;
  double cost_us;
  // The schedule uses the shared window and nothing but it and the user's
  // buffers (executor.h, window_only), or is empty: lib/mpi may run it inline.
  // Not when it has a way out: every rank must run it as a job, whose first sync
  // decides.
  bool inline_ok = false;
  std::shared_ptr<const BusyAlt> busy;  // executor.h; null: none
};
// `internal`: the library's own call, which has entries of its own (its choice
// ignores CHORUS_<COLL>_ALGO, coll::select).
const CachedSchedule* cached_schedule(const CollArgs& a, bool internal = false);
const CachedSchedule* cache_schedule(const CollArgs& a, bool internal, const Choice& choice, Schedule&& sched,
                                     std::shared_ptr<const BusyAlt> busy = nullptr);


// The schedule of a call with arguments `a` into `job`: shared from the cache, or
// selected (coll::select; `internal`: the library's own call) and built, then
// cached. On success choice.algo is the algorithm (choice.note and cost_us are set
// unless the schedule came from the cache and TRACE logging is off). On failure
// choice.algo is null when selection failed (choice.note says why), else the
// algorithm whose build failed.
Status schedule_job(const CollArgs& a, bool internal, Job& job, Choice& choice);


// The inline allreduce (lib/mpi: a small blocking MPI_Allreduce whose cached
// choice is shared_memory_flat runs at once, without a job or a request):
// the algorithm it stands for, and the run on comm's shared window of `n`
// elements of the predefined type `h` (`es` bytes each). The caller has counted
// the call in comm->coll_seq.
const AlgoInfo* flat_allreduce();
void run_allreduce_inline(Comm* comm, const void* in, void* out, std::size_t n, MPI_Datatype h, std::size_t es,
                          MPI_Op op);

// Other small blocking collectives whose cached schedule is window_only (the
// shared_memory_flat allgather, alltoall and reduce_scatter_block): schedule `s`
// of `algo` run at once on comm's shared window (run_window_schedule), kSend and
// kRecv being `send` and `recv`; reductions of elements of the predefined type
// `h` (`es` bytes each) with `op`. The caller has counted the call in
// comm->coll_seq.
void run_schedule_inline(Comm* comm, const char* call, const Schedule& s, const AlgoInfo& algo, const void* send,
                         void* recv, MPI_Datatype h, std::size_t es, MPI_Op op);

}  // namespace chorus::coll
