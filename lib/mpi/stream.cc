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
//   errors are raised at once, named after the MPIX call. The call then enqueues on
//   the user's stream, with ticket n (one counter per stream object):
//       stream_write(start, n)      the stream has reached the operation
//       stream_wait(done, n)        later work waits until the operation is done
//   (MPIX_Isend/Irecv_enqueue enqueue only the first: the stream goes on, and
//   MPIX_Wait(all)_enqueue later enqueues a point that waits for them.) A
//   process-wide agent thread, started with the first CUDA stream, takes each
//   stream's queue in ticket order: when the stream's start word reaches an item it
//   starts the operation (MPI_Start), tests it without blocking under the API lock,
//   and when it completes writes the done word, releasing the stream. So an
//   operation starts only after the kernels enqueued before it, and an event
//   recorded after the call completes only once the operation has.
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
#include <sched.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/handle.h"
#include "core/log.h"
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

bool reached(std::uint32_t word, std::uint32_t ticket) {
  return static_cast<std::int32_t>(word - ticket) >= 0;  // wraps as CU_STREAM_WAIT_VALUE_GEQ
}

struct Stream;

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
};

// One entry of a stream's queue, in ticket order.
struct Item {
  enum class Kind { Op, Start, Wait };
  Kind kind = Kind::Op;
  std::uint32_t ticket = 0;
  const char* call = "";
  Comm* comm = nullptr;
  bool started = false;
  // Op: the persistent request and where its status goes.
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status* status = MPI_STATUS_IGNORE;
  // Start: the request it starts. Wait: the requests it waits for and their statuses.
  EnqReq* er = nullptr;
  std::vector<EnqReq*> waits;
  std::vector<MPI_Status*> statuses;
};

struct Stream {
  MPIX_Stream handle = MPIX_STREAM_NULL;
  bool cuda = false;
  gpu::cu::Stream cu = nullptr;
  gpu::Signal start, done;
  std::uint32_t next_ticket = 0;             // last ticket handed out (API lock)
  std::deque<std::unique_ptr<Item>> queue;   // g.mu
  int refs = 1;                              // user handle + communicators + requests (API lock)
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
  // Queues of the CUDA streams, the agent's wake-up and deferred errors.
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Stream*> active;               // CUDA streams alive (g.mu)
  std::thread agent;
  bool stop = false;                         // g.mu
  struct Deferred {
    int cls;
    std::string text;
  };
  std::map<const Comm*, Deferred> pending;   // g.mu
  // Signals of released streams: a stream may still read them until it has run past
  // the last wait, so they are freed at MPI_Finalize.
  std::vector<gpu::Signal> retired;
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
  if (s->cuda) {
    std::lock_guard<std::mutex> lk(g.mu);
    g.active.erase(std::remove(g.active.begin(), g.active.end(), s), g.active.end());
    g.retired.push_back(s->start);
    g.retired.push_back(s->done);
  }
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

// ---- the agent ---------------------------------------------------------------------

void write_done(Stream* s, std::uint32_t ticket) {
  std::atomic_thread_fence(std::memory_order_release);  // results before the release
  *s->done.host = ticket;
}

std::uint32_t start_word(const Stream* s) {
  std::uint32_t w = *s->start.host;
  std::atomic_thread_fence(std::memory_order_acquire);
  return w;
}

// Test the started MPIX_Isend/Irecv_enqueue operations. API lock held.
bool test_inflight() {
  bool moved = false;
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

// Start item `it`'s operation (the stream has reached it). Returns MPI_SUCCESS or a
// failure already renamed after the user's call (as code).
int start_op(Comm* c, const char* call, MPI_Request* req, std::string* text) {
  int rc;
  {
    ReturnErrors quiet(c);
    rc = PMPI_Start(req);
  }
  if (rc != MPI_SUCCESS) *text = renamed_text(rc, "MPI_Start", call);
  return rc;
}

// Advance the head item of `s`. True when it is finished (the caller pops it);
// `released` collects requests whose references drop after the pop. API lock held.
bool step(Stream* s, Item* it, std::vector<EnqReq*>& released) {
  if (!it->started) {
    if (!reached(start_word(s), it->ticket)) return false;
    it->started = true;
    std::string text;
    switch (it->kind) {
      case Item::Kind::Op: {
        int rc = start_op(it->comm, it->call, &it->req, &text);
        if (rc != MPI_SUCCESS) {
          defer_error(it->comm, error_class_of(rc), std::move(text));
          PMPI_Request_free(&it->req);
          write_done(s, it->ticket);
          return true;
        }
        break;
      }
      case Item::Kind::Start: {
        EnqReq* r = it->er;
        r->started = true;
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
        write_done(s, it->ticket);  // nothing waits here; keeps the done word in order
        return true;
      }
      case Item::Kind::Wait:
        break;
    }
  }
  switch (it->kind) {
    case Item::Kind::Op: {
      int flag = 0, rc;
      {
        ReturnErrors quiet(it->comm);
        rc = PMPI_Test(&it->req, &flag, it->status);
      }
      if (rc != MPI_SUCCESS) {
        defer_error(it->comm, error_class_of(rc), renamed_text(rc, "MPI_Test", it->call));
        flag = 1;
      }
      if (!flag) return false;
      if (it->req != MPI_REQUEST_NULL) PMPI_Request_free(&it->req);
      write_done(s, it->ticket);
      return true;
    }
    case Item::Kind::Wait: {
      for (EnqReq* r : it->waits)
        if (!r->done) return false;
      for (std::size_t i = 0; i < it->waits.size(); ++i) {
        EnqReq* r = it->waits[i];
        if (it->statuses[i] != MPI_STATUS_IGNORE) *it->statuses[i] = r->status;
        if (r->error_class != MPI_SUCCESS) {
          if (it->statuses[i] != MPI_STATUS_IGNORE) it->statuses[i]->MPI_ERROR = r->error_class;
          defer_error(r->comm, r->error_class, r->error_text);
        }
        released.push_back(r);
      }
      write_done(s, it->ticket);
      return true;
    }
    case Item::Kind::Start:
      break;
  }
  return true;
}

// One pass over every CUDA stream's queue: start what the streams have reached,
// test what runs, finish what completed. Returns whether anything moved and sets
// *busy when operations are in flight (the caller then polls without sleeping).
// Called by the agent, and by threads that wait for a drain (no lock held).
bool agent_pass(bool* busy) {
  std::vector<Stream*> ready;
  bool running = false;
  {
    std::lock_guard<std::mutex> lk(g.mu);
    for (Stream* s : g.active) {
      if (s->queue.empty()) continue;
      const Item* h = s->queue.front().get();
      if (h->started) running = true;
      if (h->started || reached(start_word(s), h->ticket)) ready.push_back(s);
    }
  }
  bool inflight = g.inflight_count.load(std::memory_order_relaxed) > 0;
  *busy = running || inflight;
  if (ready.empty() && !inflight) return false;
  p2p::ApiLock lock;
  bool moved = inflight && test_inflight();
  std::vector<EnqReq*> released;
  for (Stream* s : ready) {
    for (;;) {
      Item* head;
      {
        std::lock_guard<std::mutex> lk(g.mu);
        if (s->queue.empty()) break;
        head = s->queue.front().get();
      }
      bool was_started = head->started;
      if (!step(s, head, released)) {
        moved |= head->started != was_started;
        break;
      }
      moved = true;
      std::lock_guard<std::mutex> lk(g.mu);
      s->queue.pop_front();
    }
  }
  for (EnqReq* r : released) enq_release(r);
  return moved;
}

void agent_main() {
  if (!ok(gpu::bind_thread()))
    CHORUS_WARN(GPU, "stream agent: cannot make the CUDA context current: {}", gpu::last_error());
  unsigned idle = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(g.mu);
      bool queued = std::any_of(g.active.begin(), g.active.end(),
                                [](const Stream* s) { return !s->queue.empty(); });
      if (!queued && g.inflight_count.load(std::memory_order_relaxed) == 0) {
        if (g.stop) return;
        idle = 0;
        g.cv.wait(lk);
        continue;
      }
    }
    bool busy = false;
    if (agent_pass(&busy)) {
      idle = 0;
      continue;
    }
    // Operations in flight: poll again soon. Waiting for a stream to reach its next
    // operation (kernels still running): back off to short sleeps.
    if (busy || ++idle < 64) {
      sched_yield();
    } else {
      std::unique_lock<std::mutex> lk(g.mu);
      g.cv.wait_for(lk, std::chrono::microseconds(50));
    }
  }
}

// The first CUDA stream: serialize MPI calls on the API lock, then start the agent.
// Called without the API lock held.
void ensure_agent() {
  static std::mutex once;
  std::lock_guard<std::mutex> guard(once);
  if (g.agent.joinable()) return;
  if (!p2p::g_threaded) {
    p2p::g_threaded = true;
    CHORUS_LOG(INFO, GPU, "first CUDA stream: MPI calls now serialize on the API lock with the "
               "stream agent thread");
  }
  g.stop = false;
  g.agent = std::thread(agent_main);
}

void notify_agent() { g.cv.notify_all(); }

// Wait (from a user thread) until `pred` holds, doing the agent's work meanwhile.
template <typename P>
void drain_until(P&& pred) {
  while (!pred()) {
    bool busy = false;
    if (!agent_pass(&busy)) sched_yield();
  }
}

bool queue_empty(Stream* s) {
  std::lock_guard<std::mutex> lk(g.mu);
  return s->queue.empty();
}

// ---- enqueueing ------------------------------------------------------------------

// Put `it` on `s`'s queue and the start/wait points on the CUDA stream. On failure
// the item is dropped (its persistent request freed) and the error raised on `c`.
int submit(const char* call, Comm* c, Stream* s, std::unique_ptr<Item> it) {
  p2p::ApiLock lock;  // ticket order = order on the stream, also across threads
  Item* p = it.get();
  {
    std::lock_guard<std::mutex> lk(g.mu);
    p->ticket = ++s->next_ticket;
    s->queue.push_back(std::move(it));
  }
  Status st = gpu::stream_write(s->cu, s->start, p->ticket);
  bool queued = ok(st);
  if (queued && p->kind != Item::Kind::Start) st = gpu::stream_wait(s->cu, s->done, p->ticket);
  if (!queued) {
    std::unique_ptr<Item> dropped;
    {
      std::lock_guard<std::mutex> lk(g.mu);
      auto pos = std::find_if(s->queue.begin(), s->queue.end(),
                              [p](const std::unique_ptr<Item>& q) { return q.get() == p; });
      dropped = std::move(*pos);
      s->queue.erase(pos);
    }
    if (dropped->req != MPI_REQUEST_NULL) PMPI_Request_free(&dropped->req);
  }
  notify_agent();
  if (ok(st)) return MPI_SUCCESS;
  return fail(c, MPI_ERR_OTHER, "{}: cannot enqueue on CUDA stream {}{}: {}", call,
              static_cast<void*>(s->cu), queued ? " (the operation runs, but later work on the "
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

// A blocking-like operation: `init` builds it as a persistent request (named
// `inner` in its errors). On a CUDA stream it is enqueued; otherwise it runs now.
template <typename Init>
int enqueue_op(const char* call, const char* inner, MPI_Comm comm, MPI_Status* status, Init&& init) {
  Target t;
  CHORUS_TRY_MPI(target(call, comm, &t));
  MPI_Request req = MPI_REQUEST_NULL;
  CHORUS_TRY_MPI(quiet_call(call, inner, t.comm, [&] {
    OrderedPersistent ordered;  // numbered at its start, as the blocking call it stands for
    return init(&req);
  }));
  if (!t.stream) {
    int rc = PMPI_Start(&req);
    if (rc == MPI_SUCCESS) rc = PMPI_Wait(&req, status);
    PMPI_Request_free(&req);
    return rc;
  }
  auto it = std::make_unique<Item>();
  it->kind = Item::Kind::Op;
  it->call = call;
  it->comm = t.comm;
  it->req = req;
  it->status = status;
  return submit(call, t.comm, t.stream, std::move(it));
}

// MPIX_Isend/Irecv_enqueue: `init` builds the persistent request, `now` is the
// ordinary non-blocking call used without a CUDA stream.
template <typename Init, typename Now>
int enqueue_start(const char* call, const char* inner_init, const char* inner_now, MPI_Comm comm,
                  MPI_Request* request, Init&& init, Now&& now) {
  Target t;
  CHORUS_TRY_MPI(target(call, comm, &t));
  if (!request) return fail(t.comm, MPI_ERR_REQUEST, "{}: request is NULL", call);
  if (!t.stream) return quiet_call(call, inner_now, t.comm, [&] { return now(request); });
  MPI_Request req = MPI_REQUEST_NULL;
  CHORUS_TRY_MPI(quiet_call(call, inner_init, t.comm, [&] { return init(&req); }));
  p2p::ApiLock lock;
  EnqReq* r = enq_new();
  r->stream = t.stream;
  ++t.stream->refs;
  r->comm = t.comm;
  r->call = call;
  r->req = req;
  auto it = std::make_unique<Item>();
  it->kind = Item::Kind::Start;
  it->call = call;
  it->comm = t.comm;
  it->er = r;
  int rc = submit(call, t.comm, t.stream, std::move(it));
  if (rc != MPI_SUCCESS && !r->started) {  // not on the stream: nothing will start it
    if (r->req != MPI_REQUEST_NULL) PMPI_Request_free(&r->req);
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
      auto it = std::make_unique<Item>();
      it->kind = Item::Kind::Wait;
      it->call = call;
      it->comm = c;
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
        it->waits.push_back(r);
        it->statuses.push_back(status_at(statuses, i, single));
      }
      CHORUS_TRY_MPI(submit(call, c, first->stream, std::move(it)));
      for (int i = 0; i < count; ++i)
        if (ers[static_cast<std::size_t>(i)]) reqs[i] = MPI_REQUEST_NULL;
      return MPI_SUCCESS;
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
    drain_until([&] {
      if (!queue_empty(s)) return false;
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
  if (g.agent.joinable()) {
    drain_until([] {
      std::lock_guard<std::mutex> lk(g.mu);
      return std::all_of(g.active.begin(), g.active.end(),
                         [](const Stream* s) { return s->queue.empty(); });
    });
    {
      std::lock_guard<std::mutex> lk(g.mu);
      g.stop = true;
    }
    notify_agent();
    g.agent.join();
  }
  p2p::ApiLock lock;
  if (!g.inflight.empty())
    CHORUS_WARN(GPU, "MPI_Finalize: {} operation(s) of MPIX_Isend/Irecv_enqueue were never waited for "
                "with MPIX_Wait(all)_enqueue", g.inflight.size());
  for (EnqReq* r : g.inflight)
    if (r->req != MPI_REQUEST_NULL) PMPI_Request_free(&r->req);
  g.inflight.clear();
  g.inflight_count.store(0);
  for (auto& s : g.streams) {
    if (s && s->cuda) {
      g.retired.push_back(s->start);
      g.retired.push_back(s->done);
    }
  }
  for (gpu::Signal& sig : g.retired) gpu::signal_free(&sig);
  g.retired.clear();
  g.active.clear();
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
  s->cu = cs;
  if (cuda) {
    Status st = gpu::signal_alloc(&s->start);
    if (ok(st)) {
      st = gpu::signal_alloc(&s->done);
      if (!ok(st)) gpu::signal_free(&s->start);
    }
    if (!ok(st))
      return fail(nullptr, st == Status::NoMem ? MPI_ERR_NO_MEM : MPI_ERR_OTHER,
                  "{}: cannot allocate the stream's signal words: {}", call, gpu::last_error());
    *s->start.host = 0;
    *s->done.host = 0;
    ensure_agent();  // before taking the API lock: it switches the library to locked mode
  }
  p2p::ApiLock lock;
  std::size_t i = 0;
  while (i < g.streams.size() && g.streams[i]) ++i;
  if (i == g.streams.size()) g.streams.emplace_back();
  s->handle = static_cast<MPIX_Stream>(handle::make(handle::Direct, kStreamObject, static_cast<int>(i)));
  Stream* p = s.get();
  g.streams[i] = std::move(s);
  if (cuda) {
    std::lock_guard<std::mutex> lk(g.mu);
    g.active.push_back(p);
  }
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
  return enqueue_op("MPIX_Send_enqueue", "MPI_Send_init", comm, MPI_STATUS_IGNORE, [&](MPI_Request* r) {
    return PMPI_Send_init(buf, count, datatype, dest, tag, comm, r);
  });
}
CHORUS_ALIAS(MPIX_Send_enqueue)

int PMPIX_Recv_enqueue(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Status* status) {
  return enqueue_op("MPIX_Recv_enqueue", "MPI_Recv_init", comm, status, [&](MPI_Request* r) {
    return PMPI_Recv_init(buf, count, datatype, source, tag, comm, r);
  });
}
CHORUS_ALIAS(MPIX_Recv_enqueue)

int PMPIX_Isend_enqueue(const void* buf, int count, MPI_Datatype datatype, int dest, int tag,
                        MPI_Comm comm, MPI_Request* request) {
  return enqueue_start(
      "MPIX_Isend_enqueue", "MPI_Send_init", "MPI_Isend", comm, request,
      [&](MPI_Request* r) { return PMPI_Send_init(buf, count, datatype, dest, tag, comm, r); },
      [&](MPI_Request* r) { return PMPI_Isend(buf, count, datatype, dest, tag, comm, r); });
}
CHORUS_ALIAS(MPIX_Isend_enqueue)

int PMPIX_Irecv_enqueue(void* buf, int count, MPI_Datatype datatype, int source, int tag,
                        MPI_Comm comm, MPI_Request* request) {
  return enqueue_start(
      "MPIX_Irecv_enqueue", "MPI_Recv_init", "MPI_Irecv", comm, request,
      [&](MPI_Request* r) { return PMPI_Recv_init(buf, count, datatype, source, tag, comm, r); },
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
  return enqueue_op("MPIX_Allreduce_enqueue", "MPI_Allreduce_init", comm, MPI_STATUS_IGNORE,
                    [&](MPI_Request* r) {
                      return PMPI_Allreduce_init(sendbuf, recvbuf, count, datatype, op, comm,
                                                 MPI_INFO_NULL, r);
                    });
}
CHORUS_ALIAS(MPIX_Allreduce_enqueue)

int PMPIX_Bcast_enqueue(void* buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  return enqueue_op("MPIX_Bcast_enqueue", "MPI_Bcast_init", comm, MPI_STATUS_IGNORE, [&](MPI_Request* r) {
    return PMPI_Bcast_init(buffer, count, datatype, root, comm, MPI_INFO_NULL, r);
  });
}
CHORUS_ALIAS(MPIX_Bcast_enqueue)

int PMPIX_Reduce_enqueue(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm) {
  return enqueue_op("MPIX_Reduce_enqueue", "MPI_Reduce_init", comm, MPI_STATUS_IGNORE,
                    [&](MPI_Request* r) {
                      return PMPI_Reduce_init(sendbuf, recvbuf, count, datatype, op, root, comm,
                                              MPI_INFO_NULL, r);
                    });
}
CHORUS_ALIAS(MPIX_Reduce_enqueue)

int PMPIX_Allgather_enqueue(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  return enqueue_op("MPIX_Allgather_enqueue", "MPI_Allgather_init", comm, MPI_STATUS_IGNORE,
                    [&](MPI_Request* r) {
                      return PMPI_Allgather_init(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                                 recvtype, comm, MPI_INFO_NULL, r);
                    });
}
CHORUS_ALIAS(MPIX_Allgather_enqueue)

int PMPIX_Reduce_scatter_enqueue(const void* sendbuf, void* recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return enqueue_op("MPIX_Reduce_scatter_enqueue", "MPI_Reduce_scatter_init", comm, MPI_STATUS_IGNORE,
                    [&](MPI_Request* r) {
                      return PMPI_Reduce_scatter_init(sendbuf, recvbuf, recvcounts, datatype, op,
                                                      comm, MPI_INFO_NULL, r);
                    });
}
CHORUS_ALIAS(MPIX_Reduce_scatter_enqueue)

int PMPIX_Reduce_scatter_block_enqueue(const void* sendbuf, void* recvbuf, int recvcount,
                                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  return enqueue_op("MPIX_Reduce_scatter_block_enqueue", "MPI_Reduce_scatter_block_init", comm,
                    MPI_STATUS_IGNORE, [&](MPI_Request* r) {
                      return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, recvcount, datatype,
                                                            op, comm, MPI_INFO_NULL, r);
                    });
}
CHORUS_ALIAS(MPIX_Reduce_scatter_block_enqueue)

}  // extern "C"
