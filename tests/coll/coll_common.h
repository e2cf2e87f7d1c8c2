// Shared pieces of the collective job tests (tests/coll).
//
// Every collective is wrapped in a Case object that owns its buffers (allocated once,
// so a persistent request keeps pointing at them), and can fill them for a seed, run
// the collective blocking, start it non-blocking or set it up as a persistent
// request, and check the result against values computed locally. The drivers at the
// bottom run a list of cases in each of the three modes.
//
// Written against the standard MPI C API only. Which algorithm a collective uses is
// chosen by the environment of the job (CHORUS_<COLL>_ALGO, set per meson test).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

namespace coll {

inline constexpr unsigned char kSentinel = 0xA5;

using jobs::PvarCount;

// ---------------------------------------------------------------------------------
// Reduction element types and operations.

// One (datatype, op) pair with a local model of the reduction. Elements are `bytes`
// apart; gen() writes element i of `rank`'s input for `seed`; combine(acc, later)
// sets acc = acc op later (acc holds the lower ranks), as MPI orders operands.
struct RedKind {
  std::string name;
  MPI_Datatype type;
  MPI_Op op;
  size_t bytes;
  bool commutative;
  std::function<void(void* out, int rank, long i, int seed)> gen;
  std::function<void(void* acc, const void* later)> combine;
  std::function<bool(const void* a, const void* b)> eq;
  std::function<std::string(const void*)> show;
};

// All reduction kinds: {int8, int, int64, float, double} x {SUM, MAX}, DOUBLE_INT
// MAXLOC, a commutative user op on MPI_INT and a non-commutative user op (2x2 matrix
// product mod 65521 on a contiguous type of 4 ints).
const std::vector<RedKind>& red_kinds();
const RedKind& red_kind(const std::string& name);

// ---------------------------------------------------------------------------------
// Data-movement types.

enum class Prim { I8, I32, F64 };

// A datatype seen as a list of primitive slots inside one extent.
struct MoveType {
  std::string name;
  MPI_Datatype type;
  size_t extent;
  std::vector<size_t> slots;  // byte offsets of the primitives in one element
  Prim prim;
};

// A send type and a receive type with the same primitive stream: `scount` elements
// of `send` carry the same signature as `rcount` elements of `recv` for every
// `scount`:`rcount` = smul:rmul.
struct TypePair {
  std::string name;
  const MoveType* send;
  const MoveType* recv;
  int smul;
  int rmul;
};

// int8, int, double, vec, vec->int, int->vec, padded->vec (MPI_INT resized to an
// 8-byte extent), neg_lb->double (MPI_DOUBLE resized to lb -8, extent 24).
const std::vector<TypePair>& type_pairs();
const TypePair& type_pair(const std::string& name);

using Bytes = std::vector<unsigned char>;

// Value of the k-th primitive of the block that `src` sends to `dst`.
int64_t stream_value(int src, int dst, long k, int seed);

// Writes `count` elements of `t` at byte `off` of `buf`; primitive k gets
// stream_value(src, dst, k0 + k, seed).
void put(Bytes& buf, size_t off, const MoveType& t, long count, int src, int dst, int seed,
         long k0 = 0);

// Compares two images; on a difference describes the first one in *why.
bool same_image(const Bytes& got, const Bytes& want, std::string* why);

// ---------------------------------------------------------------------------------
// Cases.

class Case {
 public:
  virtual ~Case() = default;
  virtual std::string name() const = 0;
  virtual void fill(int seed) = 0;
  virtual int run_blocking() = 0;
  virtual int start(MPI_Request* req) = 0;  // MPI_I<coll>
  virtual int init(MPI_Request* req) = 0;   // MPI_<coll>_init
  virtual bool check(int seed, std::string* why) = 0;
};

using CasePtr = std::unique_ptr<Case>;

// Reductions. `count` is the per-rank count (per-block count for reduce_scatter_block,
// the base of the varying recvcounts for reduce_scatter).
CasePtr allreduce_case(MPI_Comm comm, const RedKind& k, long count, bool in_place);
CasePtr reduce_case(MPI_Comm comm, const RedKind& k, long count, bool in_place, int root);
CasePtr reduce_scatter_block_case(MPI_Comm comm, const RedKind& k, long count, bool in_place);
CasePtr reduce_scatter_case(MPI_Comm comm, const RedKind& k, long count, bool in_place);
CasePtr scan_case(MPI_Comm comm, const RedKind& k, long count, bool in_place);
CasePtr exscan_case(MPI_Comm comm, const RedKind& k, long count, bool in_place);

// Data movement. `count` counts send-type elements per block (times smul / rmul).
CasePtr barrier_case(MPI_Comm comm);
CasePtr bcast_case(MPI_Comm comm, const TypePair& t, long count, int root);
CasePtr gather_case(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root);
CasePtr gatherv_case(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root);
CasePtr scatter_case(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root);
CasePtr scatterv_case(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root);
CasePtr allgather_case(MPI_Comm comm, const TypePair& t, long count, bool in_place);
CasePtr allgatherv_case(MPI_Comm comm, const TypePair& t, long count, bool in_place);
CasePtr alltoall_case(MPI_Comm comm, const TypePair& t, long count, bool in_place);
CasePtr alltoallv_case(MPI_Comm comm, const TypePair& t, long count, bool in_place);

// ---------------------------------------------------------------------------------
// Drivers. Each CHECKs every case's result (one assertion per case and round).

// fill(seed); blocking call; check.
void run_blocking(const std::vector<CasePtr>& cases, int seed);
// All cases started with MPI_I<coll> in list order, then completed by one MPI_Waitall
// over the requests in a rank-dependent permuted order.
void run_nonblocking(const std::vector<CasePtr>& cases, int seed);
// All cases set up with MPI_<coll>_init, then `rounds` times: fill(new seed), start
// (MPI_Startall, or MPI_Start one by one on odd rounds), Waitall in permuted order,
// check. The requests are freed at the end.
// any_order: each rank starts the requests in an order of its own (MPI matches
// persistent collectives by initialization order, not by start order).
void run_persistent(const std::vector<CasePtr>& cases, int seed, int rounds = 3, bool any_order = false);

// Counts used by most tests: {0, 1, p-1, p+1} (distinct values only).
std::vector<long> small_counts(int p);

int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

// Whether environment variable `name` is set to exactly `value`.
inline bool env_is(const char* name, const char* value) {
  const char* v = std::getenv(name);
  return v && std::strcmp(v, value) == 0;
}

// The node's mailbox is off by this job's settings: CHORUS_CHECK_COLL=1 (the
// suite's default setup) turns it off, as CHORUS_COLL_MAILBOX=0 does. With it on,
// a mismatched bcast or reduce fails only the ranks that wait.
inline bool mailbox_off() { return env_is("CHORUS_CHECK_COLL", "1") || env_is("CHORUS_COLL_MAILBOX", "0"); }

// A call that must fail with error class `want` (the communicator's handler
// returning errors); `what` names the case in the report.
inline void expect_class(int rc, int want, const char* what) {
  INFO(what << ": returned " << rc << " (class " << jobs::error_class(rc) << "), want class " << want);
  CHECK(rc != MPI_SUCCESS);
  CHECK(jobs::error_class(rc) == want);
}

}  // namespace coll
