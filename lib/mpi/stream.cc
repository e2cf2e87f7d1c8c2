// MPIX streams and stream-ordered ("enqueue") calls, the GPU capability queries
// (MPIX_Query_cuda_support, MPIX_GPU_query_support) and the MPI 4.1 memory
// allocation kinds.
//
// Streams (MPICH's MPIX stream API). MPIX_Stream_create(info) makes a host stream
// (no info, or no "type" key) or wraps a CUDA stream: "type" = "cudaStream_t",
// "value" = the cudaStream_t's bytes hex-encoded as MPIX_Info_set_hex writes them
// (two hex digits per byte in memory order; MPICH >= 4.2 also writes a run of zero
// bytes as "[n]", which is accepted too). MPIX_Stream_comm_create dups a
// communicator and attaches the stream (an attribute whose delete callback drops
// the stream's reference, so freeing the communicator releases the stream).
//
// Stream-ordered calls on a communicator with a CUDA stream
//   Every argument is checked when the call is made, by building the operation as
//   a persistent request (MPI_Send_init, MPI_Allreduce_init, ...), so argument
//   errors are raised at once, named after the MPIX call. The call then puts a task
//   on the stream's queue of the stream agent (lib/gpu/agent.h: ticket n, the
//   points stream_write(start, n) and stream_wait(done, n) on the user's stream,
//   one agent thread started with the first CUDA stream). When the stream reaches
//   the task the agent starts the operation (MPI_Start), tests it without blocking
//   under the API lock, and when it completes writes the done word, releasing the
//   stream. MPIX_Isend/Irecv_enqueue's tasks only start their operations (the
//   stream goes on), and MPIX_Wait(all)_enqueue later enqueues a task that waits
//   for them. So an operation starts only after the kernels enqueued before it, and
//   an event recorded after the call completes only once the operation has.
//   Statuses of MPIX_Recv_enqueue and MPIX_Wait(all)_enqueue are written when the
//   operation completes: the status object must stay valid until the stream has
//   passed that point. Operations of a stream run one after the other (the order
//   of the stream); ranks must enqueue collectives of a communicator in the same
//   order, and must not mix stream-ordered and ordinary collectives on it while
//   enqueued ones are pending.
// Errors inside an enqueued operation have no return path: they are logged (WARN,
// subsystem GPU), the stream is released as if the operation had completed, and
// the next MPI call on the communicator raises the error through its error handler
// (check_comm consults stream_take_error).
// Communicators with a host stream, or without a stream: the enqueue calls behave
// as the blocking calls (as in MPICH); MPIX_Isend/Irecv_enqueue then return an
// ordinary request, which MPIX_Wait(all)_enqueue (or MPI_Wait) completes.
//
// Threads: the first CUDA stream switches the library into its locked mode (the
// API lock of MPI_THREAD_MULTIPLE, p2p::ApiLock) before the agent starts, whatever
// thread level was granted: from then on every MPI call serializes with the agent.
// MPI_Comm_free of a communicator with a CUDA stream waits until the operations
// enqueued through it have completed. MPI_Finalize waits for every enqueued
// operation, then stops the agent.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "core/datatype.h"
#include "core/handle.h"
#include "core/log.h"
#include "gpu/agent.h"
#include "gpu/gpu.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "mpi/stream.h"

namespace chorus::mpi {

std::atomic<bool> g_stream_error_pending{false};

namespace {

// MPIX_Stream handles: object 0xf of the MPICH ABI handle layout (MPIX_STREAM_NULL
// is its invalid handle). Requests of MPIX_Isend/Irecv_enqueue are request handles
// of the indirect kind, which the request pool never hands out: MPI_Wait and
// friends reject them, MPIX_Wait(all)_enqueue recognises them.
constexpr auto kStreamObject = static_cast<handle::Object>(0xf);
static_assert(handle::make(handle::Invalid, kStreamObject, 0) == MPIX_STREAM_NULL,
              "MPIX_STREAM_NULL encoding");

struct Stream;

// A device buffer of a stream-ordered call, staged through pinned host memory
// (see "staging" below): `bytes` at `dev`, copied to `host` before the call starts
// (in) and back after it is done (out).
struct Span {
  std::byte* dev = nullptr;
  std::byte* host = nullptr;
  std::size_t bytes = 0;
  bool in = false, out = false;
  // A type with gaps: only its segments are copied back (the gaps are not the
  // call's to write, and the application may write them meanwhile). `type` is
  // held (type_retain) while the span lives; elements start at `first` bytes
  // into the span, `extent` apart.
  const TypeInfo* type = nullptr;
  MPI_Count count = 0;
  MPI_Aint first = 0;
};

// An operation started by MPIX_Isend/Irecv_enqueue, completed by MPIX_Wait(all)_enqueue.
struct EnqReq {
  Stream* stream = nullptr;  // holds a reference
  Comm* comm = nullptr;
  const char* call = "";
  MPI_Request req = MPI_REQUEST_NULL;  // the persistent request while in flight
  bool started = false, done = false;
  int error_class = MPI_SUCCESS;       // failure of the operation (deferred)
  std::string error_text;
  MPI_Status status{};
  int index = -1;
  std::vector<Span> spans;  // staged device buffers: copied back at MPIX_Wait(all)_enqueue
};

struct Stream {
  MPIX_Stream handle = MPIX_STREAM_NULL;
  bool cuda = false;
  gpu::agent::Queue queue;  // a CUDA stream's: its operations in order (gpu/agent.h)
  int refs = 1;             // user handle + communicators + requests (API lock)
  bool user_freed = false;
};

struct State {
  // Handle tables (API lock).
  std::vector<std::unique_ptr<Stream>> streams;
  std::vector<std::unique_ptr<EnqReq>> reqs;
  int keyval = MPI_KEYVAL_INVALID;
  // Started, not yet complete EnqReqs (API lock); their count is read without it.
  std::vector<EnqReq*> inflight;
  std::atomic<int> inflight_count{0};
  // Deferred errors of enqueued operations, by communicator.
  std::mutex mu;
  struct Deferred {
    int cls;
    std::string text;
  };
  std::map<const Comm*, Deferred> pending;   // mu
  // Pinned staging buffers still in use by a CUDA stream: freed once the stream
  // has run past the mark that follows their last copy (API lock).
  struct Retired {
    gpu::cu::Event mark = nullptr;  // the stream has run past the last copy (null: none recorded)
    std::vector<Span> spans;
    bool until_finalize = false;  // the operation may still use them: kept until MPI_Finalize
  };
  std::vector<Retired> retired;
};
// Never destroyed: the agent may still run when a program exits without MPI_Finalize.
State& g = *new State;

// ---- errors ----------------------------------------------------------------------

std::string error_text_of(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  PMPI_Error_string(code, text, &len);
  return std::string(text, static_cast<std::size_t>(std::max(len, 0)));
}

int error_class_of(int code) {
  int cls = MPI_ERR_OTHER;
  PMPI_Error_class(code, &cls);
  return cls;
}

// The message of `code` with the inner call's name replaced by the user's call.
std::string renamed_text(int code, const char* inner, const char* call) {
  std::string msg = error_text_of(code);
  std::size_t n = std::strlen(inner);
  if (msg.compare(0, n, inner) == 0 && (msg.size() == n || msg[n] == ':'))
    return call + msg.substr(n);
  return fmt::format("{}: {}", call, msg);
}

// While alive, errors on `c` return instead of running its handler (API lock held).
class ReturnErrors {
 public:
  explicit ReturnErrors(Comm* c) : c_(c), saved_(c->errhandler) { c->errhandler = MPI_ERRORS_RETURN; }
  ~ReturnErrors() { c_->errhandler = saved_; }
  ReturnErrors(const ReturnErrors&) = delete;
  ReturnErrors& operator=(const ReturnErrors&) = delete;
 private:
  Comm* c_;
  MPI_Errhandler saved_;
};

// Run `fn` (an MPI call on `c`) under the API lock with its errors returned, and
// raise a failure on `c` named after the user's call.
template <typename F>
int quiet_call(const char* call, const char* inner, Comm* c, F&& fn) {
  p2p::ApiLock lock;
  int rc;
  {
    ReturnErrors quiet(c);
    rc = fn();
  }
  if (rc == MPI_SUCCESS) return rc;
  return raise(c, make_error(error_class_of(rc), renamed_text(rc, inner, call)));
}

// An enqueued operation failed: log it and keep it for the next call on `c`.
void defer_error(Comm* c, int cls, std::string text) {
  CHORUS_WARN(GPU, "{} (communicator 0x{:x}); the next MPI call on this communicator raises it",
              text, static_cast<unsigned>(c->handle));
  std::lock_guard<std::mutex> lk(g.mu);
  g.pending.try_emplace(c, State::Deferred{cls, std::move(text)});  // the first one wins
  g_stream_error_pending.store(true, std::memory_order_release);
}

// ---- stream objects ------------------------------------------------------------

Stream* stream_lookup(MPIX_Stream h) {
  if (!handle::is(h, handle::Direct, kStreamObject)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(h));
  if (i >= g.streams.size() || !g.streams[i] || g.streams[i]->user_freed) return nullptr;
  return g.streams[i].get();
}

// The stream attached to `c` (MPIX_Stream_comm_create), or nullptr. API lock held.
Stream* stream_of(const Comm* c) {
  if (g.keyval == MPI_KEYVAL_INVALID) return nullptr;
  auto it = c->attrs.find(g.keyval);
  return it == c->attrs.end() ? nullptr : static_cast<Stream*>(it->second);
}

// Drop a reference; the last one destroys the stream object. API lock held.
void stream_release(Stream* s) {
  if (--s->refs > 0) return;
  if (s->cuda) gpu::agent::retire(s->queue);
  auto i = static_cast<std::size_t>(handle::index(s->handle));
  g.streams[i].reset();
  while (!g.streams.empty() && !g.streams.back()) g.streams.pop_back();
}

EnqReq* enq_new() {
  std::size_t i = 0;
  while (i < g.reqs.size() && g.reqs[i]) ++i;
  if (i == g.reqs.size()) g.reqs.emplace_back();
  g.reqs[i] = std::make_unique<EnqReq>();
  g.reqs[i]->index = static_cast<int>(i);
  return g.reqs[i].get();
}

MPI_Request enq_handle(const EnqReq* r) {
  return static_cast<MPI_Request>(handle::make(handle::Indirect, handle::Request, r->index));
}

EnqReq* enq_lookup(MPI_Request h) {
  if (!handle::is(static_cast<int>(h), handle::Indirect, handle::Request)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(static_cast<int>(h)));
  return i < g.reqs.size() ? g.reqs[i].get() : nullptr;
}

// Release a finished EnqReq (its stream reference too). API lock held.
void enq_release(EnqReq* r) {
  Stream* s = r->stream;
  g.reqs[static_cast<std::size_t>(r->index)].reset();
  while (!g.reqs.empty() && !g.reqs.back()) g.reqs.pop_back();
  stream_release(s);
}

// ---- staging of device buffers ----------------------------------------------------
// Chorus's copies and kernels for a device buffer run on its own CUDA streams. A
// GPU runs a process's streams on a few hardware queues (CUDA_DEVICE_MAX_CONNECTIONS,
// 8 by default; frameworks often set 1), in the order work was queued on each. A
// stream parked on an enqueued operation (cuStreamWaitValue32 on its done word)
// therefore also holds whatever Chorus queues on a stream sharing its hardware
// queue, and the operation waiting for that work never finishes: on an H200, ten
// streams each parked on an enqueued device allreduce hung at the first one.
// So a stream-ordered call never gives device buffers to the operation: each is
// copied to pinned host memory on the application's own stream before the start
// word, the operation runs on the host copies (no GPU work of Chorus's while
// streams are parked), and results are copied back on the stream after the done
// word. The pinned buffers are freed once the stream has run past a mark recorded
// after the last copy. (MPICH's enqueue calls stage through the host likewise.)

class Stager {
 public:
  Stager(Stream* s, Comm* c) : stream_(s), comm_(c) {}
  // Stage *p (count elements of t) when it is device memory on a CUDA stream:
  // *p then points at its pinned copy. in: the call reads it. inout: the call
  // reads it or writes part of it (a receive: the message may be shorter). result:
  // a collective writes every element; copied in too when the type has gaps
  // (the copy back must not put stale pinned bytes into them).
  template <typename T>
  void in(T** p, MPI_Count count, MPI_Datatype t) { stage(p, count, t, true, false, false); }
  template <typename T>
  void inout(T** p, MPI_Count count, MPI_Datatype t) { stage(p, count, t, true, true, false); }
  template <typename T>
  void result(T** p, MPI_Count count, MPI_Datatype t) { stage(p, count, t, false, true, true); }
  // A collective that reads in_count of *sb (in_type) and writes out_count of *rb
  // (out_type); with MPI_IN_PLACE it reads and writes inplace_count of *rb.
  void collective(const void** sb, void** rb, MPI_Count in_count, MPI_Datatype in_type,
                  MPI_Count inplace_count, MPI_Count out_count, MPI_Datatype out_type) {
    if (*sb == MPI_IN_PLACE) {
      inout(rb, inplace_count, out_type);
      return;
    }
    in(sb, in_count, in_type);
    result(rb, out_count, out_type);
  }
  Stream* stream() const { return stream_; }
  // The communicator (checked by target()): this rank, the group's size, and for
  // an intercommunicator the remote group's size.
  bool inter() const { return comm_->inter; }
  int rank() const { return comm_->rank; }
  int size() const { return comm_->size; }
  int remote_size() const { return comm_->peers(); }
  // This rank's part in a rooted collective: the root, a member that sends or
  // receives, or none (MPI_PROC_NULL: the root's own group on an intercommunicator).
  enum class Role { Root, Member, None };
  Role role(int root) const {
    if (comm_->inter) return root == MPI_ROOT ? Role::Root : root == MPI_PROC_NULL ? Role::None : Role::Member;
    return comm_->rank == root ? Role::Root : Role::Member;
  }
  std::vector<Span>& spans() { return spans_; }
  const std::string& error() const { return error_; }

 private:
  template <typename T>
  void stage(T** p, MPI_Count count, MPI_Datatype t, bool in, bool out, bool whole) {
    void* v = const_cast<void*>(static_cast<const void*>(*p));
    stage_void(&v, count, t, in, out, whole);
    *p = static_cast<T*>(v);
  }
  void stage_void(void** p, MPI_Count count, MPI_Datatype t, bool in, bool out, bool whole);

  Stream* stream_;
  Comm* comm_;
  std::vector<Span> spans_;
  std::string error_;
};

void Stager::stage_void(void** p, MPI_Count count, MPI_Datatype t, bool in, bool out, bool whole) {
  if (!stream_ || !error_.empty() || !*p || *p == MPI_IN_PLACE || count <= 0 || !gpu::on_device(*p)) return;
  const TypeInfo* ti = type_info(t);
  if (!ti || ti->size == 0) return;  // the call itself reports a bad type
  const bool gaps = !type_is_contiguous(*ti, static_cast<std::size_t>(count));
  if (out && (!whole || gaps)) in = true;
  // The bytes the call may touch: elements 0 .. count-1, each over [true_lb, true_ub).
  const MPI_Aint last = static_cast<MPI_Aint>(count - 1) * ti->extent;
  const MPI_Aint lo = std::min(ti->true_lb, last + ti->true_lb);
  const MPI_Aint hi = std::max(ti->true_ub, last + ti->true_ub);
  if (hi <= lo) return;
  auto* start = static_cast<std::byte*>(*p) + lo;
  const auto bytes = static_cast<std::size_t>(hi - lo);
  for (Span& sp : spans_) {
    if (sp.dev == start && sp.bytes == bytes) {  // the same buffer passed twice
      sp.in |= in;
      sp.out |= out;
      *p = sp.host - lo;
      return;
    }
  }
  void* h = nullptr;
  if (!ok(gpu::pinned_alloc(bytes, &h))) {
    error_ = fmt::format("staging {} bytes of device memory at {} in pinned host memory: {}", bytes,
                         static_cast<void*>(start), gpu::last_error());
    return;
  }
  Span sp{start, static_cast<std::byte*>(h), bytes, in, out};
  if (gaps) {
    type_retain(ti);
    sp.type = ti;
    sp.count = count;
    sp.first = -lo;
  }
  spans_.push_back(sp);
  *p = static_cast<std::byte*>(h) - lo;
}

void free_spans(std::vector<Span>& spans) {
  for (Span& sp : spans) {
    gpu::pinned_free(sp.host);
    if (sp.type) type_release(sp.type);
  }
  spans.clear();
}

// Copy a span's results back: whole, or segment by segment for a type with gaps.
Status copy_back(gpu::cu::Stream stream, const Span& sp) {
  if (!sp.type) return gpu::copy_on(stream, sp.dev, sp.host, sp.bytes);
  for (MPI_Count e = 0; e < sp.count; ++e) {
    const MPI_Aint at = sp.first + static_cast<MPI_Aint>(e) * sp.type->extent;
    for (const Segment& g : sp.type->segs)
      CHORUS_TRY(gpu::copy_on(stream, sp.dev + at + g.off, sp.host + at + g.off, g.len));
  }
  return Status::Ok;
}

// Queue the copies of `spans` in one direction on `stream`.
Status copy_spans(gpu::cu::Stream stream, const std::vector<Span>& spans, bool to_host) {
  for (const Span& sp : spans) {
    if (to_host && sp.in) CHORUS_TRY(gpu::copy_on(stream, sp.host, sp.dev, sp.bytes));
    if (!to_host && sp.out) CHORUS_TRY(copy_back(stream, sp));
  }
  return Status::Ok;
}

// Free the staging buffers whose stream has run past their mark (API lock held).
// With `all`, wait for every mark first (MPI_Finalize).
bool release_retired(bool all) {
  bool moved = false;
  for (std::size_t i = 0; i < g.retired.size();) {
    State::Retired& r = g.retired[i];
    if (all) {
      while (!gpu::mark_passed(r.mark)) sched_yield();
    } else if (r.until_finalize || !r.mark || !gpu::mark_passed(r.mark)) {
      ++i;
      continue;
    }
    gpu::mark_free(r.mark);
    free_spans(r.spans);
    g.retired.erase(g.retired.begin() + static_cast<std::ptrdiff_t>(i));
    moved = true;
  }
  return moved;
}

// How a call's staging buffers are retired (retire_spans).
enum class Retire {
  CopyBack,   // the call's done point is on the stream: copy the results back first
  Drop,       // the call never starts: free once the copies in are done
  Finalize,   // the call may run without the stream waiting for it: keep until MPI_Finalize
};

// A call's staging after submit() returned `rc`, its task `queued` or not.
Retire retire_how(int rc, bool queued) {
  if (rc == MPI_SUCCESS) return Retire::CopyBack;
  return queued ? Retire::Finalize : Retire::Drop;
}

// After the call's points are on the stream: copy results back, mark, and retire
// the buffers. API lock held.
void retire_spans(gpu::cu::Stream stream, std::vector<Span> spans, Retire how, const char* call) {
  if (spans.empty()) return;
  if (how == Retire::CopyBack && !ok(copy_spans(stream, spans, false)))
    CHORUS_WARN(GPU, "{}: copying the result back to device memory on CUDA stream {}: {}", call,
                static_cast<void*>(stream), gpu::last_error());
  gpu::cu::Event m = nullptr;
  if (!ok(gpu::mark(stream, &m)))
    CHORUS_WARN(GPU, "{}: no mark on CUDA stream {} ({}): its staging buffers are kept until "
                "MPI_Finalize", call, static_cast<void*>(stream), gpu::last_error());
  g.retired.push_back(State::Retired{m, std::move(spans), how == Retire::Finalize});
}

// ---- the operations on a CUDA stream's queue (gpu/agent.h) ---------------------

// Test the started MPIX_Isend/Irecv_enqueue operations: the agent's own work on
// each pass. API lock held.
bool test_inflight() {
  bool moved = !g.retired.empty() && release_retired(false);
  for (std::size_t i = 0; i < g.inflight.size();) {
    EnqReq* r = g.inflight[i];
    int flag = 0, rc;
    {
      ReturnErrors quiet(r->comm);
      rc = PMPI_Test(&r->req, &flag, &r->status);
    }
    if (rc != MPI_SUCCESS) {
      r->error_class = error_class_of(rc);
      r->error_text = renamed_text(rc, "MPI_Test", r->call);
      flag = 1;
    }
    if (!flag) {
      ++i;
      continue;
    }
    if (r->req != MPI_REQUEST_NULL) PMPI_Request_free(&r->req);
    r->done = true;
    moved = true;
    g.inflight.erase(g.inflight.begin() + static_cast<std::ptrdiff_t>(i));
    g.inflight_count.fetch_sub(1, std::memory_order_relaxed);
  }
  return moved;
}

// Start an operation the stream has reached. Returns MPI_SUCCESS or a failure
// already renamed after the user's call (as code).
int start_op(Comm* c, const char* call, MPI_Request* req, std::string* text) {
  int rc;
  {
    ReturnErrors quiet(c);
    rc = PMPI_Start(req);
  }
  if (rc != MPI_SUCCESS) *text = renamed_text(rc, "MPI_Start", call);
  return rc;
}

// A blocking-like operation (MPIX_Send_enqueue, a collective): started when the
// stream reaches it; the stream waits until it completes. Its persistent request
// is freed when it is done, or with the task if it never ran.
struct OpTask : gpu::agent::Task {
  const char* call = "";
  Comm* comm = nullptr;
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status* status = MPI_STATUS_IGNORE;
  ~OpTask() override {
    if (req != MPI_REQUEST_NULL) PMPI_Request_free(&req);
  }
  bool begin() override {
    std::string text;
    int rc = start_op(comm, call, &req, &text);
    if (rc == MPI_SUCCESS) return false;
    defer_error(comm, error_class_of(rc), std::move(text));
    return true;
  }
  bool poll() override {
    int flag = 0, rc;
    {
      ReturnErrors quiet(comm);
      rc = PMPI_Test(&req, &flag, status);
    }
    if (rc != MPI_SUCCESS) {
      defer_error(comm, error_class_of(rc), renamed_text(rc, "MPI_Test", call));
      flag = 1;
    }
    return flag != 0;
  }
};

// MPIX_Isend/Irecv_enqueue: the operation starts when the stream reaches it; the
// stream goes on, and test_inflight completes it.
struct StartTask : gpu::agent::Task {
  EnqReq* er = nullptr;
  StartTask() { stream_waits = false; }
  bool begin() override {
    EnqReq* r = er;
    r->started = true;
    std::string text;
    int rc = start_op(r->comm, r->call, &r->req, &text);
    if (rc != MPI_SUCCESS) {
      r->error_class = error_class_of(rc);
      r->error_text = std::move(text);
      PMPI_Request_free(&r->req);
      r->done = true;
    } else {
      g.inflight.push_back(r);
      g.inflight_count.fetch_add(1, std::memory_order_relaxed);
    }
    return true;  // nothing waits here; the done word is still written, in order
  }
  bool poll() override { return true; }
};

// MPIX_Wait(all)_enqueue: done when the requests it waits for are; their statuses
// are written then, and the requests released with the task (after the agent's
// pass: a release may drop the last reference to the stream that owns the queue).
struct WaitTask : gpu::agent::Task {
  std::vector<EnqReq*> waits;
  std::vector<MPI_Status*> statuses;
  std::vector<EnqReq*> released;
  ~WaitTask() override {
    for (EnqReq* r : released) enq_release(r);
  }
  bool begin() override { return false; }
  bool poll() override {
    for (EnqReq* r : waits)
      if (!r->done) return false;
    for (std::size_t i = 0; i < waits.size(); ++i) {
      EnqReq* r = waits[i];
      if (statuses[i] != MPI_STATUS_IGNORE) *statuses[i] = r->status;
      if (r->error_class != MPI_SUCCESS) {
        if (statuses[i] != MPI_STATUS_IGNORE) statuses[i]->MPI_ERROR = r->error_class;
        defer_error(r->comm, r->error_class, r->error_text);
      }
    }
    released = std::exchange(waits, {});
    return true;
  }
};

// The first CUDA stream: serialize MPI calls on the API lock, then start the agent.
// Called without the API lock held.
void ensure_agent() {
  static std::once_flag once;
  std::call_once(once, [] {
    gpu::agent::set_host({.lock = p2p::api_lock,
                          .unlock = p2p::api_unlock,
                          .work = test_inflight,
                          .pending = [] { return g.inflight_count.load(std::memory_order_relaxed) > 0; }});
    if (!p2p::g_threaded) {
      p2p::g_threaded = true;
      CHORUS_LOG(INFO, GPU, "first CUDA stream: MPI calls now serialize on the API lock with the "
                 "stream agent thread");
    }
  });
  gpu::agent::start();
}

// ---- enqueueing ------------------------------------------------------------------

// Put `task` on `s`'s queue and its points on the CUDA stream. On failure the task
// is dropped (its persistent request freed) and the error raised on `c`.
int submit(const char* call, Comm* c, Stream* s, std::unique_ptr<gpu::agent::Task> task,
           bool* queued_out = nullptr) {
  p2p::ApiLock lock;  // ticket order = order on the stream, also across threads
  bool queued = false;
  Status st = gpu::agent::submit(s->queue, std::move(task), &queued);
  if (queued_out) *queued_out = queued;
  if (ok(st)) return MPI_SUCCESS;
  return fail(c, MPI_ERR_OTHER, "{}: cannot enqueue on CUDA stream {}{}: {}", call,
              static_cast<void*>(s->queue.stream), queued ? " (the operation runs, but later work on the "
              "stream does not wait for it)" : "", gpu::last_error());
}

struct Target {
  Comm* comm = nullptr;
  Stream* stream = nullptr;  // a CUDA stream, or nullptr: the call behaves as blocking
};

int target(const char* call, MPI_Comm comm, Target* t) {
  CHORUS_TRY_MPI(check_running(call));
  CHORUS_TRY_MPI(check_comm(call, comm, &t->comm));
  p2p::ApiLock lock;
  Stream* s = stream_of(t->comm);
  t->stream = s && s->cuda ? s : nullptr;
  return MPI_SUCCESS;
}

// Stage a call's device buffers with `stage` (on a CUDA stream only; earlier
// calls' staging goes back to the pool first). On failure nothing is kept.
template <typename Stage>
int stage_buffers(const char* call, const Target& t, Stager& st, Stage&& stage) {
  if (t.stream) {
    p2p::ApiLock lock;
    release_retired(false);
  }
  stage(st);
  if (st.error().empty()) return MPI_SUCCESS;
  free_spans(st.spans());
  return fail(t.comm, MPI_ERR_NO_MEM, "{}: {}", call, st.error());
}

// Queue the copies in on the call's CUDA stream (API lock held). On failure the
// staging is retired and the error raised.
int copy_in(const char* call, const Target& t, Stager& st) {
  const gpu::cu::Stream cs = t.stream->queue.stream;
  if (ok(copy_spans(cs, st.spans(), true))) return MPI_SUCCESS;
  std::string why = gpu::last_error();
  retire_spans(cs, std::move(st.spans()), Retire::Drop, call);
  return fail(t.comm, MPI_ERR_OTHER, "{}: copying device memory to its pinned staging buffer on "
              "CUDA stream {}: {}", call, static_cast<void*>(cs), why);
}

// A blocking-like operation: `stage` stages its device buffers (Stager), `init`
// builds it as a persistent request (named `inner` in its errors) on what `stage`
// left. On a CUDA stream it is enqueued. Otherwise it is the blocking call
// `blocking` (taking `status`): on such a communicator an enqueued call stands for
// the blocking one and must match it on the other ranks, whatever the blocking
// call chooses (a blocking MPI_Bcast may go through the node's mailbox, which a
// persistent request never does: a rank that enqueued waited for the others'
// messages while they had written to the mailbox, a hang). A collective runs as
// is, named `call` in its errors (CallNameAs), so that a call failing its checks
// takes nothing, as the blocking one does (the others pair with its repeat); a
// point-to-point call (`p2p`) has its arguments checked by `init` first.
template <typename Stage, typename Init, typename Blocking>
int enqueue_op(const char* call, const char* inner, MPI_Comm comm, MPI_Status* status, Stage&& stage,
               Init&& init, Blocking&& blocking, bool p2p = false) {
  Target t;
  CHORUS_TRY_MPI(target(call, comm, &t));
  if (!t.stream && !p2p) {
    CallNameAs as(call);
    return blocking(status);
  }
  Stager st(t.stream, t.comm);
  CHORUS_TRY_MPI(stage_buffers(call, t, st, stage));
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = quiet_call(call, inner, t.comm, [&] {
    OrderedPersistent ordered;  // numbered at its start, as the blocking call it stands for
    return init(&req);
  });
  if (rc != MPI_SUCCESS) {
    free_spans(st.spans());
    return rc;
  }
  if (!t.stream) {
    PMPI_Request_free(&req);
    return blocking(status);
  }
  auto task = std::make_unique<OpTask>();
  task->call = call;
  task->comm = t.comm;
  task->req = req;
  task->status = status;
  p2p::ApiLock lock;  // the copies in, the task's points and the copies back stay together
  CHORUS_TRY_MPI(copy_in(call, t, st));
  bool queued = false;
  rc = submit(call, t.comm, t.stream, std::move(task), &queued);
  retire_spans(t.stream->queue.stream, std::move(st.spans()), retire_how(rc, queued), call);
  return rc;
}

// MPIX_Isend/Irecv_enqueue: `stage` stages the buffer, `init` builds the persistent
// request, `now` is the ordinary non-blocking call used without a CUDA stream. A
// staged buffer is copied back, and freed, at MPIX_Wait(all)_enqueue.
template <typename Stage, typename Init, typename Now>
int enqueue_start(const char* call, const char* inner_init, const char* inner_now, MPI_Comm comm,
                  MPI_Request* request, Stage&& stage, Init&& init, Now&& now) {
  Target t;
  CHORUS_TRY_MPI(target(call, comm, &t));
  if (!request) return fail(t.comm, MPI_ERR_REQUEST, "{}: request is NULL", call);
  if (!t.stream) return quiet_call(call, inner_now, t.comm, [&] { return now(request); });
  Stager st(t.stream, t.comm);
  CHORUS_TRY_MPI(stage_buffers(call, t, st, stage));
  MPI_Request req = MPI_REQUEST_NULL;
  int rc = quiet_call(call, inner_init, t.comm, [&] { return init(&req); });
  if (rc != MPI_SUCCESS) {
    free_spans(st.spans());
    return rc;
  }
  p2p::ApiLock lock;
  if (int cr = copy_in(call, t, st); cr != MPI_SUCCESS) {
    PMPI_Request_free(&req);
    return cr;
  }
  EnqReq* r = enq_new();
  r->stream = t.stream;
  ++t.stream->refs;
  r->comm = t.comm;
  r->call = call;
  r->req = req;
  r->spans = std::move(st.spans());
  auto task = std::make_unique<StartTask>();
  task->er = r;
  rc = submit(call, t.comm, t.stream, std::move(task));
  if (rc != MPI_SUCCESS && !r->started) {  // not on the stream: nothing will start it
    if (r->req != MPI_REQUEST_NULL) PMPI_Request_free(&r->req);
    retire_spans(t.stream->queue.stream, std::move(r->spans), Retire::Drop, call);
    enq_release(r);
    return rc;
  }
  *request = enq_handle(r);
  return rc;
}

MPI_Status* status_at(MPI_Status* statuses, int i, bool single) {
  if (single) return statuses;
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

int wait_enqueue(const char* call, int count, MPI_Request* reqs, MPI_Status* statuses, bool single) {
  CHORUS_TRY_MPI(check_running(call));
  const char* arg = single ? "request" : "array_of_requests";
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  if (count > 0 && !reqs) return fail(nullptr, MPI_ERR_REQUEST, "{}: {} is NULL", call, arg);
  {
    p2p::ApiLock lock;
    std::vector<EnqReq*> ers(static_cast<std::size_t>(count), nullptr);
    EnqReq* first = nullptr;
    int plain = -1;  // index of an ordinary request
    for (int i = 0; i < count; ++i) {
      if (reqs[i] == MPI_REQUEST_NULL) continue;
      EnqReq* r = enq_lookup(reqs[i]);
      if (r) {
        ers[static_cast<std::size_t>(i)] = r;
        if (!first) first = r;
      } else if (handle::is(static_cast<int>(reqs[i]), handle::Indirect, handle::Request)) {
        return fail(nullptr, MPI_ERR_REQUEST, "{}: {}{} is an invalid request handle 0x{:x}", call,
                    arg, single ? "" : fmt::format("[{}]", i), static_cast<unsigned>(reqs[i]));
      } else if (plain < 0) {
        plain = i;
      }
    }
    if (first) {
      Comm* c = first->comm;
      if (plain >= 0)
        return fail(c, MPI_ERR_REQUEST, "{}: array_of_requests[{}] (0x{:x}) is an ordinary request, "
                    "but others come from MPIX_Isend/Irecv_enqueue on a CUDA stream: wait for it "
                    "with MPI_Wait", call, plain, static_cast<unsigned>(reqs[plain]));
      auto task = std::make_unique<WaitTask>();
      for (int i = 0; i < count; ++i) {
        EnqReq* r = ers[static_cast<std::size_t>(i)];
        if (!r) {
          set_empty_status(status_at(statuses, i, single));
          continue;
        }
        if (r->stream != first->stream)
          return fail(c, MPI_ERR_REQUEST, "{}: the requests were enqueued on different streams "
                      "(communicators 0x{:x} and 0x{:x}); wait for each on its own stream", call,
                      static_cast<unsigned>(c->handle), static_cast<unsigned>(r->comm->handle));
        task->waits.push_back(r);
        task->statuses.push_back(status_at(statuses, i, single));
      }
      release_retired(false);
      bool queued = false;
      int rc = submit(call, c, first->stream, std::move(task), &queued);
      // Staged receive (and send) buffers: copied back after the wait point. Not
      // queued at all: they stay with their requests (a later wait copies them).
      // Queued, the wait task releases the requests when it has run: their handles go.
      if (rc == MPI_SUCCESS || queued) {
        std::vector<Span> spans;
        for (int i = 0; i < count; ++i) {
          EnqReq* r = ers[static_cast<std::size_t>(i)];
          if (!r) continue;
          spans.insert(spans.end(), r->spans.begin(), r->spans.end());
          r->spans.clear();
          reqs[i] = MPI_REQUEST_NULL;
        }
        retire_spans(first->stream->queue.stream, std::move(spans), retire_how(rc, queued), call);
      }
      return rc;
    }
  }
  // Only ordinary requests (communicators without a CUDA stream): the blocking wait.
  if (single) return PMPI_Wait(reqs, statuses);
  return PMPI_Waitall(count, reqs, statuses);
}

// ---- stream attribute on communicators ---------------------------------------------

int stream_attr_delete(MPI_Comm comm, int /*keyval*/, void* value, void* /*extra*/) {
  auto* s = static_cast<Stream*>(value);
  Comm* c = comm_lookup(comm);
  if (s->cuda && c) {
    // Operations enqueued through this communicator must finish before it goes.
    // The caller (MPI_Comm_free) holds the API lock; agent_pass takes it again.
    gpu::agent::drain_until([&] {
      if (!gpu::agent::empty(s->queue)) return false;
      return std::none_of(g.inflight.begin(), g.inflight.end(),
                          [c](const EnqReq* r) { return r->comm == c; });
    });
  }
  {
    std::lock_guard<std::mutex> lk(g.mu);
    g.pending.erase(c);
  }
  stream_release(s);
  return MPI_SUCCESS;
}

// ---- MPICH's hex encoding of binary info values ----------------------------------

int hex_digit(char ch) {
  if (ch >= '0' && ch <= '9') return ch - '0';
  if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
  if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
  return -1;
}

// Two hex digits per byte, or "[n]" for n zero bytes. False on anything else.
bool hex_decode(const std::string& s, std::vector<unsigned char>& out) {
  out.clear();
  for (std::size_t i = 0; i < s.size();) {
    if (s[i] == '[') {
      std::size_t j = i + 1, n = 0;
      while (j < s.size() && s[j] >= '0' && s[j] <= '9' && n <= MPI_MAX_INFO_VAL)
        n = n * 10 + static_cast<std::size_t>(s[j++] - '0');
      if (j == i + 1 || j >= s.size() || s[j] != ']' || n > MPI_MAX_INFO_VAL) return false;
      out.insert(out.end(), n, 0);
      i = j + 1;
      continue;
    }
    if (i + 1 >= s.size()) return false;
    int hi = hex_digit(s[i]), lo = hex_digit(s[i + 1]);
    if (hi < 0 || lo < 0) return false;
    out.push_back(static_cast<unsigned char>(hi << 4 | lo));
    i += 2;
  }
  return true;
}

std::string hex_encode(const void* p, std::size_t n) {
  static const char kDigits[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(2 * n);
  for (std::size_t i = 0; i < n; ++i) {
    unsigned b = static_cast<const unsigned char*>(p)[i];
    out += kDigits[b >> 4];
    out += kDigits[b & 0xf];
  }
  return out;
}

}  // namespace

int stream_take_error(Comm* c) {
  State::Deferred d;
  {
    std::lock_guard<std::mutex> lk(g.mu);
    auto it = g.pending.find(c);
    if (it == g.pending.end()) return MPI_SUCCESS;
    d = std::move(it->second);
    g.pending.erase(it);
    if (g.pending.empty()) g_stream_error_pending.store(false, std::memory_order_relaxed);
  }
  return make_error(d.cls, d.text);
}

void streams_finalize() {
  gpu::agent::shutdown();  // every queue drained, the agent stopped, signals freed
  p2p::ApiLock lock;
  release_retired(true);  // staging buffers, once their streams have run past them
  if (!g.inflight.empty())
    CHORUS_WARN(GPU, "MPI_Finalize: {} operation(s) of MPIX_Isend/Irecv_enqueue were never waited for "
                "with MPIX_Wait(all)_enqueue", g.inflight.size());
  for (EnqReq* r : g.inflight)
    if (r->req != MPI_REQUEST_NULL) PMPI_Request_free(&r->req);
  g.inflight.clear();
  g.inflight_count.store(0);
  g.reqs.clear();
  g.streams.clear();
  g.pending.clear();
  g_stream_error_pending.store(false);
}

InfoPairs with_memory_kinds(InfoPairs pairs) {
  static const char* kKey = "mpi_memory_alloc_kinds";
  if (info_find(pairs, kKey)) return pairs;
  // Chorus moves every kind it can classify: host memory (also what MPI_Alloc_mem
  // returns) always; CUDA device, pinned host and managed memory when a device is
  // usable in this process.
  std::string kinds = "mpi,system";
  if (gpu::enabled()) kinds += ",cuda:device,cuda:host,cuda:managed";
  pairs.emplace_back(kKey, std::move(kinds));
  return pairs;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

// ---- capability queries -----------------------------------------------------------

int PMPIX_Query_cuda_support(void) { return gpu::enabled() ? 1 : 0; }
CHORUS_ALIAS(MPIX_Query_cuda_support)

int PMPIX_Query_ze_support(void) { return 0; }
CHORUS_ALIAS(MPIX_Query_ze_support)

int PMPIX_Query_hip_support(void) { return 0; }
CHORUS_ALIAS(MPIX_Query_hip_support)

int PMPIX_GPU_query_support(int gpu_type, int* is_supported) {
  const char* call = "MPIX_GPU_query_support";
  if (!is_supported) return fail(nullptr, MPI_ERR_ARG, "{}: is_supported is NULL", call);
  switch (gpu_type) {
    case MPIX_GPU_SUPPORT_CUDA: *is_supported = gpu::enabled() ? 1 : 0; return MPI_SUCCESS;
    case MPIX_GPU_SUPPORT_ZE:
    case MPIX_GPU_SUPPORT_HIP: *is_supported = 0; return MPI_SUCCESS;
  }
  return fail(nullptr, MPI_ERR_ARG, "{}: gpu_type is {}, must be MPIX_GPU_SUPPORT_CUDA ({}), "
              "MPIX_GPU_SUPPORT_ZE ({}) or MPIX_GPU_SUPPORT_HIP ({})", call, gpu_type,
              MPIX_GPU_SUPPORT_CUDA, MPIX_GPU_SUPPORT_ZE, MPIX_GPU_SUPPORT_HIP);
}
CHORUS_ALIAS(MPIX_GPU_query_support)

int PMPIX_Info_set_hex(MPI_Info info, const char* key, const void* value, int value_size) {
  const char* call = "MPIX_Info_set_hex";
  {
    p2p::ApiLock lock;
    const InfoPairs* pairs;
    CHORUS_TRY_MPI(check_info(call, nullptr, info, &pairs, false));
  }
  if (info == MPI_INFO_ENV) return fail(nullptr, MPI_ERR_INFO, "{}: info is MPI_INFO_ENV, which is read-only", call);
  if (!key) return fail(nullptr, MPI_ERR_INFO_KEY, "{}: key is NULL", call);
  std::size_t klen = strnlen(key, MPI_MAX_INFO_KEY + 1);
  if (klen == 0 || klen > MPI_MAX_INFO_KEY)
    return fail(nullptr, MPI_ERR_INFO_KEY, "{}: key is {}, must be 1 to MPI_MAX_INFO_KEY ({}) characters",
                call, klen ? "too long" : "empty", MPI_MAX_INFO_KEY);
  if (value_size < 0)
    return fail(nullptr, MPI_ERR_ARG, "{}: value_size is {}, must be non-negative", call, value_size);
  if (!value && value_size > 0) return fail(nullptr, MPI_ERR_ARG, "{}: value is NULL", call);
  if (2 * static_cast<long>(value_size) > MPI_MAX_INFO_VAL)
    return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: value_size is {}: its hex encoding exceeds "
                "MPI_MAX_INFO_VAL ({}) characters", call, value_size, MPI_MAX_INFO_VAL);
  std::string hex = hex_encode(value, static_cast<std::size_t>(value_size));
  return PMPI_Info_set(info, key, hex.c_str());
}
CHORUS_ALIAS(MPIX_Info_set_hex)

// ---- streams ------------------------------------------------------------------------

int PMPIX_Stream_create(MPI_Info info, MPIX_Stream* stream) {
  const char* call = "MPIX_Stream_create";
  CHORUS_TRY_MPI(check_running(call));
  if (!stream) return fail(nullptr, MPI_ERR_ARG, "{}: stream is NULL", call);
  InfoPairs pairs;
  {
    p2p::ApiLock lock;
    const InfoPairs* p;
    CHORUS_TRY_MPI(check_info(call, nullptr, info, &p, true));
    pairs = *p;
  }
  bool cuda = false;
  gpu::cu::Stream cs = nullptr;
  if (const std::string* type = info_find(pairs, "type")) {
    if (*type != "cudaStream_t")
      return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: info type is \"{}\": Chorus supports \"cudaStream_t\" "
                  "(or no type, for a host stream)", call, *type);
    const std::string* value = info_find(pairs, "value");
    if (!value)
      return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: info type is \"cudaStream_t\" but there is no "
                  "\"value\" key (set it with MPIX_Info_set_hex(info, \"value\", &stream, "
                  "sizeof(stream)))", call);
    std::vector<unsigned char> bytes;
    if (!hex_decode(*value, bytes))
      return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: info value \"{}\" is not hex-encoded (two hex "
                  "digits per byte, as MPIX_Info_set_hex writes)", call, *value);
    if (bytes.size() != sizeof(gpu::cu::Stream))
      return fail(nullptr, MPI_ERR_INFO_VALUE, "{}: info value \"{}\" holds {} bytes, a cudaStream_t "
                  "has {}", call, *value, bytes.size(), sizeof(gpu::cu::Stream));
    if (!gpu::enabled())
      return fail(nullptr, MPI_ERR_OTHER, "{}: info type is \"cudaStream_t\" but no CUDA device is "
                  "usable in this process ({})", call, gpu::host_only_reason());
    std::memcpy(&cs, bytes.data(), sizeof cs);
    cuda = true;
  }
  auto s = std::make_unique<Stream>();
  s->cuda = cuda;
  if (cuda) {
    Status st = gpu::agent::open(s->queue, cs);
    if (!ok(st))
      return fail(nullptr, st == Status::NoMem ? MPI_ERR_NO_MEM : MPI_ERR_OTHER,
                  "{}: cannot allocate the stream's signal words: {}", call, gpu::last_error());
    ensure_agent();  // before taking the API lock: it switches the library to locked mode
  }
  p2p::ApiLock lock;
  std::size_t i = 0;
  while (i < g.streams.size() && g.streams[i]) ++i;
  if (i == g.streams.size()) g.streams.emplace_back();
  s->handle = static_cast<MPIX_Stream>(handle::make(handle::Direct, kStreamObject, static_cast<int>(i)));
  Stream* p = s.get();
  g.streams[i] = std::move(s);
  CHORUS_LOG(TRACE, GPU, "{}: stream 0x{:x} ({})", call, static_cast<unsigned>(p->handle),
             cuda ? fmt::format("CUDA stream {}", static_cast<void*>(cs)) : std::string("host"));
  *stream = p->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPIX_Stream_create)

int PMPIX_Stream_free(MPIX_Stream* stream) {
  const char* call = "MPIX_Stream_free";
  CHORUS_TRY_MPI(check_running(call));
  if (!stream) return fail(nullptr, MPI_ERR_ARG, "{}: stream is NULL", call);
  p2p::ApiLock lock;
  Stream* s = stream_lookup(*stream);
  if (!s) {
    if (*stream == MPIX_STREAM_NULL) return fail(nullptr, MPI_ERR_ARG, "{}: stream is MPIX_STREAM_NULL", call);
    return fail(nullptr, MPI_ERR_ARG, "{}: invalid stream handle 0x{:x}", call, static_cast<unsigned>(*stream));
  }
  // Communicators using it keep it alive until they are freed.
  s->user_freed = true;
  stream_release(s);
  *stream = MPIX_STREAM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPIX_Stream_free)

int PMPIX_Stream_comm_create(MPI_Comm comm, MPIX_Stream stream, MPI_Comm* newcomm) {
  const char* call = "MPIX_Stream_comm_create";
  CHORUS_TRY_MPI(check_running(call));
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  Stream* s = nullptr;
  if (stream != MPIX_STREAM_NULL) {
    p2p::ApiLock lock;
    s = stream_lookup(stream);
    if (!s) return fail(c, MPI_ERR_ARG, "{}: invalid stream handle 0x{:x}", call, static_cast<unsigned>(stream));
    ++s->refs;  // held across the dup, which may let other threads in
  }
  // Collective over comm (each rank may attach its own kind of stream).
  int rc = PMPI_Comm_dup(comm, newcomm);
  p2p::ApiLock lock;
  if (!s) return rc;
  if (rc != MPI_SUCCESS) {
    stream_release(s);
    return rc;
  }
  if (g.keyval == MPI_KEYVAL_INVALID) {
    rc = PMPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, stream_attr_delete, &g.keyval, nullptr);
    if (rc != MPI_SUCCESS) {
      stream_release(s);
      return rc;
    }
  }
  rc = PMPI_Comm_set_attr(*newcomm, g.keyval, s);  // the reference taken above goes with it
  if (rc != MPI_SUCCESS) stream_release(s);
  return rc;
}
CHORUS_ALIAS(MPIX_Stream_comm_create)

// ---- stream-ordered point-to-point ---------------------------------------------------

int PMPIX_Send_enqueue(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm) {
  const void* b = buf;
  return enqueue_op(
      "MPIX_Send_enqueue", "MPI_Send_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) { s.in(&b, count, datatype); },
      [&](MPI_Request* r) { return PMPI_Send_init(b, count, datatype, dest, tag, comm, r); },
      [&](MPI_Status*) { return PMPI_Send(buf, count, datatype, dest, tag, comm); }, true);
}
CHORUS_ALIAS(MPIX_Send_enqueue)

int PMPIX_Recv_enqueue(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status* status) {
  void* b = buf;
  return enqueue_op(
      "MPIX_Recv_enqueue", "MPI_Recv_init", comm, status, [&](Stager& s) { s.inout(&b, count, datatype); },
      [&](MPI_Request* r) { return PMPI_Recv_init(b, count, datatype, source, tag, comm, r); },
      [&](MPI_Status* st) { return PMPI_Recv(buf, count, datatype, source, tag, comm, st); }, true);
}
CHORUS_ALIAS(MPIX_Recv_enqueue)

int PMPIX_Isend_enqueue(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request* request) {
  const void* b = buf;
  return enqueue_start(
      "MPIX_Isend_enqueue", "MPI_Send_init", "MPI_Isend", comm, request,
      [&](Stager& s) { s.in(&b, count, datatype); },
      [&](MPI_Request* r) { return PMPI_Send_init(b, count, datatype, dest, tag, comm, r); },
      [&](MPI_Request* r) { return PMPI_Isend(buf, count, datatype, dest, tag, comm, r); });
}
CHORUS_ALIAS(MPIX_Isend_enqueue)

int PMPIX_Irecv_enqueue(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request* request) {
  void* b = buf;
  return enqueue_start(
      "MPIX_Irecv_enqueue", "MPI_Recv_init", "MPI_Irecv", comm, request,
      [&](Stager& s) { s.inout(&b, count, datatype); },
      [&](MPI_Request* r) { return PMPI_Recv_init(b, count, datatype, source, tag, comm, r); },
      [&](MPI_Request* r) { return PMPI_Irecv(buf, count, datatype, source, tag, comm, r); });
}
CHORUS_ALIAS(MPIX_Irecv_enqueue)

int PMPIX_Wait_enqueue(MPI_Request* request, MPI_Status* status) {
  return wait_enqueue("MPIX_Wait_enqueue", 1, request, status, true);
}
CHORUS_ALIAS(MPIX_Wait_enqueue)

int PMPIX_Waitall_enqueue(int count, MPI_Request array_of_requests[], MPI_Status* array_of_statuses) {
  return wait_enqueue("MPIX_Waitall_enqueue", count, array_of_requests, array_of_statuses, false);
}
CHORUS_ALIAS(MPIX_Waitall_enqueue)

// ---- stream-ordered collectives --------------------------------------------------------

int PMPIX_Allreduce_enqueue(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, MPI_Comm comm) {
  const void* sb = sendbuf;
  void* rb = recvbuf;
  return enqueue_op(
      "MPIX_Allreduce_enqueue", "MPI_Allreduce_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) { s.collective(&sb, &rb, count, datatype, count, count, datatype); },
      [&](MPI_Request* r) {
        return PMPI_Allreduce_init(sb, rb, count, datatype, op, comm, MPI_INFO_NULL, r);
      },
      [&](MPI_Status*) { return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm); });
}
CHORUS_ALIAS(MPIX_Allreduce_enqueue)

int PMPIX_Bcast_enqueue(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  void* b = buffer;
  return enqueue_op(
      "MPIX_Bcast_enqueue", "MPI_Bcast_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) {
        const Stager::Role r = s.role(root);
        if (r == Stager::Role::Root)
          s.in(&b, count, datatype);
        else if (r == Stager::Role::Member)
          s.result(&b, count, datatype);
      },
      [&](MPI_Request* r) { return PMPI_Bcast_init(b, count, datatype, root, comm, MPI_INFO_NULL, r); },
      [&](MPI_Status*) { return PMPI_Bcast(buffer, count, datatype, root, comm); });
}
CHORUS_ALIAS(MPIX_Bcast_enqueue)

int PMPIX_Reduce_enqueue(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm) {
  const void* sb = sendbuf;
  void* rb = recvbuf;
  return enqueue_op(
      "MPIX_Reduce_enqueue", "MPI_Reduce_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) {
        const Stager::Role r = s.role(root);
        if (r == Stager::Role::Member) {
          s.in(&sb, count, datatype);
        } else if (r == Stager::Role::Root) {
          // The root of an intercommunicator sends nothing; within one it may reduce in place.
          if (!s.inter() && sb == MPI_IN_PLACE) {
            s.inout(&rb, count, datatype);
            return;
          }
          if (!s.inter()) s.in(&sb, count, datatype);
          s.result(&rb, count, datatype);
        }
      },
      [&](MPI_Request* r) {
        return PMPI_Reduce_init(sb, rb, count, datatype, op, root, comm, MPI_INFO_NULL, r);
      },
      [&](MPI_Status*) { return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm); });
}
CHORUS_ALIAS(MPIX_Reduce_enqueue)

int PMPIX_Allgather_enqueue(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const void* sb = sendbuf;
  void* rb = recvbuf;
  return enqueue_op(
      "MPIX_Allgather_enqueue", "MPI_Allgather_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) {
        // One block from each rank of the remote group (of the group, within one).
        const MPI_Count all = static_cast<MPI_Count>(recvcount) * s.remote_size();
        s.collective(&sb, &rb, sendcount, sendtype, all, all, recvtype);
      },
      [&](MPI_Request* r) {
        return PMPI_Allgather_init(sb, sendcount, sendtype, rb, recvcount, recvtype, comm, MPI_INFO_NULL, r);
      },
      [&](MPI_Status*) { return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm); });
}
CHORUS_ALIAS(MPIX_Allgather_enqueue)

int PMPIX_Reduce_scatter_enqueue(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const void* sb = sendbuf;
  void* rb = recvbuf;
  return enqueue_op(
      "MPIX_Reduce_scatter_enqueue", "MPI_Reduce_scatter_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) {
        if (!s.stream() || !recvcounts) return;  // the call reports a NULL recvcounts
        const int n = s.size();
        MPI_Count total = 0;
        for (int i = 0; i < n; ++i) total += recvcounts[i] > 0 ? recvcounts[i] : 0;
        s.collective(&sb, &rb, total, datatype, total, recvcounts[s.rank()], datatype);
      },
      [&](MPI_Request* r) {
        return PMPI_Reduce_scatter_init(sb, rb, recvcounts, datatype, op, comm, MPI_INFO_NULL, r);
      },
      [&](MPI_Status*) { return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm); });
}
CHORUS_ALIAS(MPIX_Reduce_scatter_enqueue)

int PMPIX_Reduce_scatter_block_enqueue(const void* sendbuf, void* recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const void* sb = sendbuf;
  void* rb = recvbuf;
  return enqueue_op(
      "MPIX_Reduce_scatter_block_enqueue", "MPI_Reduce_scatter_block_init", comm, MPI_STATUS_IGNORE,
      [&](Stager& s) {
        const MPI_Count all = static_cast<MPI_Count>(recvcount) * s.size();
        s.collective(&sb, &rb, all, datatype, all, recvcount, datatype);
      },
      [&](MPI_Request* r) {
        return PMPI_Reduce_scatter_block_init(sb, rb, recvcount, datatype, op, comm, MPI_INFO_NULL, r);
      },
      [&](MPI_Status*) { return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm); });
}
CHORUS_ALIAS(MPIX_Reduce_scatter_block_enqueue)

}  // extern "C"
