// The machinery every collective call shares (lib/mpi/coll.cc, coll_neighbor.cc):
// a Call gathers the arguments of one call, the check_* functions raise argument
// errors that name the call, the argument and the bad value, the bind* functions
// of lib/coll/binding.h map its user buffers to the packed bytes a schedule sees,
// and submit() selects an algorithm, builds its schedule and runs it (blocking) or
// hands back a request. Definitions: coll.cc.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <memory>
#include <vector>

#include "coll/binding.h"
#include "coll/executor.h"
#include "coll/registry.h"
#include "coll/select.h"
#include "mpi/api.h"
#include "p2p/p2p.h"

namespace chorus::mpi::detail {

using coll::CollArgs;
using coll::CollKind;
using coll::Job;

enum class Form { Blocking, Nonblocking, Persistent };

// One collective call being assembled.
struct Call {
  Call(const char* n, CollKind k, Form f, MPI_Request* r)
      : name(CallNameAs::take(n)), kind(k), form(f), request(r) {}
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;
  // First, so the whole call (argument checks that read the communicator table,
  // the job pool, and releasing what a failed call held) runs under the API lock
  // of MPI_THREAD_MULTIPLE.
  p2p::ApiLock lock;
  const char* name;
  CollKind kind;
  Comm* comm = nullptr;
  Form form;
  MPI_Request* request;  // Nonblocking / Persistent
  CollArgs args;
  std::unique_ptr<Job> job = coll::new_job();
  coll::Binding bound{*job};  // the user buffers bound to the job (coll/binding.h)
  bool internal = false;    // the library's own call (internal_*): see coll::select
  // What CHORUS_CHECK_COLL agrees on besides the kind and root: the op (reductions),
  // and this rank's block of data as a datatype signature and a count of basic
  // elements (-1: not compared, the v- and w-collectives' blocks may differ).
  MPI_Op check_op = MPI_OP_NULL;
  std::int64_t check_sig = 0;
  std::int64_t check_count = -1;
};

using coll::bind;
using coll::bind_blocks;
using coll::bind_blocks_w;
using coll::finish_job;
using coll::held_type;
using coll::reduce_fn;
using coll::shape_of;
using coll::flat_allreduce;
using coll::run_allreduce_inline;
using coll::run_schedule_inline;
using coll::CachedSchedule;
using coll::cached_schedule;
using coll::cache_schedule;

// This rank's data block for CHORUS_CHECK_COLL: `count` elements of `t`.
void check_block(Call& c, const TypeInfo* t, std::size_t count);

// Select, build and run (or prepare) the call's schedule.
int submit(Call& c);

// ---- argument checks (MPI_SUCCESS or the raised error) -------------------------

// MPI is running, the communicator is valid, a request pointer where one is needed.
int begin(Call& c, MPI_Comm comm);
// A persistent call (MPI_*_init) that ranks may start in any order: not made
// inside an OrderedPersistent scope (coll::Job::any_order).
bool any_order(const Call& c);
int check_typed(Call& c, const void* buf, int count, MPI_Datatype t, const TypeInfo** ti,
                const char* cnt_arg, const char* type_arg, const char* buf_arg);
int check_root(Call& c, int root);
int check_not_in_place(Call& c, const void* buf, const char* arg);
int check_op(Call& c, MPI_Op op, MPI_Datatype t);
// counts[] and (unless displs_arg is null: packed) displs[] of `n` blocks (n < 0:
// one per rank of the communicator), non-negative, into out_c / out_d.
int check_v(Call& c, const int counts[], const int displs[], const char* counts_arg,
            const char* displs_arg, std::vector<std::size_t>& out_c, std::vector<std::size_t>& out_d,
            int n = -1);
// types[] of `n` blocks: valid and committed wherever counts[i] > 0 (others are
// not looked at); out[i] is null for empty blocks.
int check_types(Call& c, const MPI_Datatype types[], const std::vector<std::size_t>& counts,
                const char* types_arg, std::vector<const TypeInfo*>& out);
// counts[] (non-negative), byte displacements and types[] of a w-collective's `n`
// blocks (displs[] is int for MPI_Alltoallw, MPI_Aint for MPI_Neighbor_alltoallw).
template <class Disp>
int check_w(Call& c, int n, const int counts[], const Disp displs[], const MPI_Datatype types[],
            const char* counts_arg, const char* displs_arg, const char* types_arg,
            std::vector<std::size_t>& out_c, std::vector<std::ptrdiff_t>& out_d,
            std::vector<const TypeInfo*>& out_t) {
  std::vector<std::size_t> unused;
  CHORUS_TRY_MPI(check_v(c, counts, nullptr, counts_arg, nullptr, out_c, unused, n));
  if (!displs && n > 0) return fail(c.comm, MPI_ERR_ARG, "{}: {} is NULL", c.name, displs_arg);
  out_d.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) out_d[static_cast<std::size_t>(i)] = static_cast<std::ptrdiff_t>(displs[i]);
  return check_types(c, types, out_c, types_arg, out_t);
}

int signature_mismatch(Call& c, std::size_t send_bytes, std::size_t recv_bytes);

std::vector<std::size_t> scaled(const std::vector<std::size_t>& v, std::size_t k);
// Packed bytes of each block: counts[i] * types[i]->size (0 for empty blocks).
std::vector<std::size_t> packed_bytes(const std::vector<std::size_t>& counts,
                                      const std::vector<const TypeInfo*>& types);

}  // namespace chorus::mpi::detail
