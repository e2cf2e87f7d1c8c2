// Shared pieces of the MPI C API layer: entry checks, error raising, handle
// lookups, status filling. lib/mpi translates; algorithms and transports live below.
#pragma once
#include <atomic>
#include <mpi.h>

#include <string>

#include <fmt/format.h>

#include "core/comm.h"
#include "core/datatype.h"
#include "core/request.h"
#include "core/status.h"
#include "p2p/p2p.h"

// Every MPI_X is defined as PMPI_X, and MPI_X is a weak alias of it (profiling
// interface: a tool may define MPI_X and call PMPI_X).
#define CHORUS_API __attribute__((visibility("default")))
#define CHORUS_ALIAS(name) \
  extern "C" CHORUS_API __typeof__(P##name) name __attribute__((weak, alias("P" #name)));

#define CHORUS_TRY_MPI(expr)                 \
  do {                                       \
    int chorus_rc_ = (expr);                 \
    if (chorus_rc_ != MPI_SUCCESS) return chorus_rc_; \
  } while (0)

namespace chorus::mpi {

constexpr int kMaxErrorClass = MPI_ERR_VALUE_TOO_LARGE;

// ---- library state -----------------------------------------------------------
enum class Phase { Before, Running, After };
extern Phase g_phase;
extern int g_thread_level;

// ---- MPI_T -------------------------------------------------------------------
// Hand the event instances kept for MPI_T_CB_REQUIRE_NONE callbacks to them:
// at the start of MPI_Wait*, MPI_Test*, the probes and MPI_Finalize, before they
// take any lock or do anything, where a callback may make any MPI call.
extern std::atomic<bool> g_mpit_pending;
void mpit_deliver_pending();
inline void mpit_deliver_events() {
  if (g_mpit_pending.load(std::memory_order_relaxed)) [[unlikely]] mpit_deliver_pending();
}

// ---- communicators -----------------------------------------------------------
Comm* comm_lookup(MPI_Comm c);
Comm& world();
void comms_init(const launcher::JobInfo& job);
void comms_finalize();
// ---- windows (mpi/win.cc) ---------------------------------------------------------
// MPI_Finalize, first: windows the program never freed give back their UCX
// registrations and remote keys (UCX's cleanup aborts on a region still
// registered); the windows themselves stay, as MPI leaves them, and their
// operations go as messages from then on (MPI_COMM_SELF's delete callbacks run
// after this and may still use them).
void wins_finalize();

// ---- errors -------------------------------------------------------------------
// Make an error code carrying `cls` and a message that names the call, the
// argument and the bad value; MPI_Error_string returns the message.
int make_error(int cls, std::string message);
// True when `code` came from make_error (it carries its own message).
bool error_has_message(int code);
// True for a class or code the program added (MPI_Add_error_class/_code).
bool is_added_error(int code);
// True for a code make_error could have made (a class and a message slot).
bool is_made_error(int code);
// Raise `code` on `comm`'s error handler (MPI_COMM_WORLD's when comm is null):
// fatal handlers end the job, MPI_ERRORS_RETURN returns the code, user handlers run.
int raise(Comm* comm, int code);
// The same on any object's handler (a window's): user handlers get &object.
// `eh` is the object's handler field, read under the lock (another thread may
// set it meanwhile).
int raise_on(const MPI_Errhandler& eh, int object, int code);
// Both at once: raise(comm, make_error(cls, fmt(...))).
template <typename... Args>
int fail(Comm* comm, int cls, fmt::format_string<Args...> f, Args&&... args) {
  return raise(comm, make_error(cls, fmt::format(f, std::forward<Args>(args)...)));
}
int fail_status(Comm* comm, Status s, const char* call);
// The handler that runs for `eh`: MPI_COMM_WORLD's for kErrhandlerWorlds (comm.h).
// Under the API lock.
MPI_Errhandler errhandler_in_effect(MPI_Errhandler eh);
// Error handler handles: validity, and the reference counts of user handlers
// (builtin handlers are not counted).
bool errhandler_valid(MPI_Errhandler eh);
enum class ErrhandlerKind { Comm, Win, File };
// Valid, and predefined or created for objects of `kind`.
bool errhandler_fits(MPI_Errhandler eh, ErrhandlerKind kind);
MPI_Errhandler errhandler_new(MPI_Comm_errhandler_function* fn, ErrhandlerKind kind);
void errhandler_ref(MPI_Errhandler eh, int delta);
void errors_init();
[[noreturn]] void abort_job(int errorcode, const std::string& why);

// ---- argument checks (return MPI_SUCCESS or the raised code) -----------------
// Checks that MPI is running; on failure the error goes to the fatal handler.
int check_running(const char* call);
int check_comm(const char* call, MPI_Comm c, Comm** out);
int check_count(const char* call, Comm* c, MPI_Count count, const char* arg = "count");
int check_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out,
               const char* arg = "datatype");
int check_buffer(const char* call, Comm* c, const void* buf, MPI_Count count, const char* arg = "buf");
// dest may be MPI_PROC_NULL; src also MPI_ANY_SOURCE when `any_ok`.
int check_rank(const char* call, Comm* c, int rank, const char* arg, bool any_ok);
int check_tag(const char* call, Comm* c, int tag, bool any_ok);

// ---- statuses -------------------------------------------------------------------
void set_status(MPI_Status* st, int source, int tag, std::size_t bytes, bool cancelled);
// A received message of `bytes` that ends inside a basic element of the receive
// datatype (bytes not a multiple of TypeInfo::unit): the send and receive type
// signatures differ (3 MPI_CHARs into MPI_INTs), which MPI_ERR_TYPE reports, as
// MPICH does. Empty when the bytes are whole elements.
std::string partial_element_text(const char* call, int source, int tag, std::size_t bytes, std::size_t unit);
void set_empty_status(MPI_Status* st);
std::size_t status_bytes(const MPI_Status* st);

// ---- requests -------------------------------------------------------------------
void requests_init();
// Complete bookkeeping of a finished request: fill *st, release or deactivate it,
// set *handle to MPI_REQUEST_NULL when released. Returns the request's error code.
int request_complete(Request* r, MPI_Request* handle, MPI_Status* st);

// ---- collectives (mpi/coll.cc) ---------------------------------------------------
void coll_init();
int coll_start(Request* r);  // MPI_Start on a persistent collective
// While one lives (on this thread), MPI_*_init makes a persistent collective that
// is ordered with the communicator's other collectives: it takes its number at
// each MPI_Start, as a call does, and may use the shared window. The stream layer's
// enqueued collectives, which behave as the blocking calls, are made so.
struct OrderedPersistent {
  OrderedPersistent();
  ~OrderedPersistent();
  OrderedPersistent(const OrderedPersistent&) = delete;
  OrderedPersistent& operator=(const OrderedPersistent&) = delete;
  static bool active();  // one lives on this thread
};
// While one lives (on this thread), the next collective call made there names
// itself `name` in its errors: an MPIX_*_enqueue call that runs as the blocking
// call it stands for (no CUDA stream) reports its argument errors as its own.
struct CallNameAs {
  explicit CallNameAs(const char* name);
  ~CallNameAs();
  CallNameAs(const CallNameAs&) = delete;
  CallNameAs& operator=(const CallNameAs&) = delete;
  static const char* take(const char* dflt);  // the name for a call named `dflt`; used once
};

// ---- buffered sends -------------------------------------------------------------
int bsend_start(const char* call, Comm* c, const void* buf, std::size_t bytes, int dest, int tag,
                Request** out);
void bsend_release(Request* r);
// The communicator's own buffer (MPI_Comm_attach_buffer) goes with it.
void bsend_forget(const Comm* c);
// A session's buffer (MPI_Session_attach_buffer and the like; session.cc checks
// the session). Attach reads *size; Forget, at MPI_Session_finalize, waits for
// the buffer's sends and drops it.
enum class BufferOp { Attach, Detach, Flush, Iflush, Forget };
int session_buffer(const char* call, Comm* errc, std::uint64_t session, BufferOp op, void* buffer, int* size,
                   MPI_Request* request);
// `v` as an int for the int form a large-count (_c) call shares, or MPI_ERR_ARG
// naming `arg` (large_count.cc).
int narrow(const char* call, const char* arg, MPI_Count v, int* out);
// The large-count forms of attaching and detaching a buffer (a communicator's,
// a session's): the size as an int, MPI_BUFFER_AUTOMATIC's ignored.
template <typename H>
int attach_buffer_c(const char* call, int (*attach)(H, void*, int), H h, void* buffer, MPI_Count size) {
  int n = 0;
  if (buffer != MPI_BUFFER_AUTOMATIC) CHORUS_TRY_MPI(narrow(call, "size", size, &n));
  return attach(h, buffer, n);
}
template <typename H>
int detach_buffer_c(int (*detach)(H, void*, int*), H h, void* buffer_addr, MPI_Count* size) {
  int n = 0;
  CHORUS_TRY_MPI(detach(h, buffer_addr, size ? &n : nullptr));
  *size = n;
  return MPI_SUCCESS;
}

// ---- internal collectives (lib/mpi/coll.cc) -----------------------------------------
// Blocking collectives over all ranks of `c` on its collective context, for the
// library's own agreements (context ids, splits). `call` names the MPI call for errors.
int internal_allreduce(Comm* c, void* buf, int count, MPI_Datatype type, MPI_Op op, const char* call); // in place, blocking
int internal_allgather(Comm* c, const void* sendbuf, void* recvbuf, std::size_t bytes_per_rank, const char* call); // blocking
int internal_bcast(Comm* c, void* buf, std::size_t bytes, int root, const char* call); // blocking
// Non-blocking, in place: *out is the running request (complete once it is done;
// hand it to request_complete).
int internal_iallreduce(Comm* c, void* buf, int count, MPI_Datatype type, MPI_Op op, const char* call,
                        Request** out);

}  // namespace chorus::mpi
