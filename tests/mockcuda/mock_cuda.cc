// libchorus_mockcuda.so: a CPU test double of the CUDA driver, so that Chorus's
// whole device path (buffer classification, staging pipelines, stream-ordered
// calls, reduction and pack kernels) runs in CI on machines without a GPU.
// Tests point Chorus at it with CHORUS_CUDA_LIBRARY=<path of this library>.
//
// It exports, with C linkage, every entry point of CHORUS_CU_FUNCTIONS
// (lib/gpu/driver.h); the declarations are generated from that X-macro, so a
// signature that drifts from the loader's is a compile error here.
//
// Model
//  - Devices: MOCKCUDA_DEVICES (default 1), filtered by CUDA_VISIBLE_DEVICES as
//    the driver does (the list stops at the first entry that is not a valid
//    ordinal). Named "Mock GPU", sm_90, unified addressing, memory pools.
//    MOCKCUDA_INIT_ERROR=<code> makes cuInit fail with that code.
//  - Contexts: one primary context per device (retain/release counted); the
//    current context is per thread. Calls that need one fail with
//    CUDA_ERROR_INVALID_CONTEXT (201) on a thread with none current, and with
//    CUDA_ERROR_CONTEXT_IS_DESTROYED (709) once the last retain was released.
//  - Memory: every allocation is a memfd mapped twice. Device memory (cuMemAlloc,
//    cuMemAllocAsync from the device's default pool) is handed out PROT_NONE, so a
//    host dereference of a device pointer faults at once; the mock itself works on
//    a second, read-write alias. Managed (cuMemAllocManaged) and pinned host
//    memory (cuMemHostAlloc) are handed out read-write. Freed mappings are kept
//    (PROT_NONE) and handed out again to the next allocation with the same page
//    count, so addresses are reused (with a new BUFFER_ID), as real pools do;
//    MOCKCUDA_REUSE=0 turns that off. Using freed memory is reported.
//  - Streams: each stream is a worker thread running its queue in order. The
//    legacy default stream (0, CU_STREAM_LEGACY, CU_STREAM_PER_THREAD) of a
//    context synchronizes with that context's blocking streams as in CUDA;
//    CU_STREAM_NON_BLOCKING streams do not. cuMemcpy/cuMemsetD8 run on the
//    legacy stream and wait for it. cuMemFree/cuMemFreeHost first wait for the
//    work already queued on every stream (as cudaFree does in practice).
//    Streams share hardware queues as on a GPU: a context's streams take
//    CUDA_DEVICE_MAX_CONNECTIONS queues (8 when unset) in turn as they are
//    created, and work runs in the order it was queued on its hardware queue,
//    so work queued behind a parked cuStreamWaitValue32 of another stream on
//    the same queue waits for it too (the false dependency that hangs real jobs).
//  - Kernels: cuModuleLoadData accepts any image; cuModuleGetFunction knows the
//    kernels of lib/gpu/kernels.h (run on the CPU over the aliases) and the
//    test kernels of tests/gpu/test_kernels.cu; other names are
//    CUDA_ERROR_NOT_FOUND (500). Kernel arguments must be device-accessible
//    memory (device, pool, managed or pinned host) within one allocation:
//    anything else is CUDA_ERROR_ILLEGAL_ADDRESS (700), reported on stderr and
//    sticky for the process, as on a GPU; a reduction's operands must be aligned
//    to their element size (else CUDA_ERROR_MISALIGNED_ADDRESS, 716, sticky too).
//  - MOCKCUDA_STATS=1 prints the counters at exit (stderr); programs may also read
//    them with mockcuda_stat("name") (dlsym; returns ~0ULL for unknown names).
//    host_bytes_live and host_bytes_peak are the pinned host bytes held, now and
//    at most.
//    MOCKCUDA_TRACE=1 logs every allocation, free, copy and launch on stderr.
//    MOCKCUDA_ABORT=1 aborts at the first illegal-address error (for a core).
//  - MOCKCUDA_FAIL_COPY_BYTES=N: every copy of exactly N bytes fails with
//    CUDA_ERROR_INVALID_VALUE (1), to test how a failed copy is reported.
//  - MOCKCUDA_COPY_GBS=RATE[@HOST]: every copy takes at least its bytes / RATE
//    GB/s (it sleeps out the rest), on every host or only on the one whose
//    hostname is HOST, to stand in for a slow GPU or PCIe link on one node.
//  - cuMemcpy from pageable host memory to device memory, and cuMemsetD8 of device
//    memory, return before the bytes land (as CUDA documents): the write stays
//    queued on the legacy stream for MOCKCUDA_IN_FLIGHT_US (300) microseconds, so
//    a reader on a non-blocking stream that did not synchronize sees old bytes.
//  - MOCKCUDA_MODULE_LOAD_ERROR=<code>: cuModuleLoadData fails with that code
//    (222, CUDA_ERROR_UNSUPPORTED_PTX_VERSION, is what a driver older than the
//    toolkit answers), to test a process without device kernels.
//
// Pointer attribute data sizes follow the driver: CUmemorytype unsigned int,
// BUFFER_ID unsigned long long, DEVICE_ORDINAL int, IS_MANAGED / MAPPED / SYNC_MEMOPS
// one-byte bool, RANGE_* CUdeviceptr / size_t, CONTEXT / MEMPOOL_HANDLE pointers.
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gpu/driver.h"

namespace cu = chorus::gpu::cu;

// ---------------------------------------------------------------------------------
// The exported entry points: mock_<member> carries the driver's symbol name as its
// assembler label.
#define MOCK_DECLARE(member, symbol, params) \
  extern "C" __attribute__((visibility("default"))) cu::Result mock_##member params __asm__(symbol);
CHORUS_CU_FUNCTIONS(MOCK_DECLARE)
#undef MOCK_DECLARE

extern "C" __attribute__((visibility("default"))) unsigned long long mockcuda_stat(
    const char* name);

// Handle types of cuda_abi.h, defined here.
namespace chorus::gpu::cu {
struct CUctx_st;
struct CUstream_st;
struct CUevent_st;
struct CUmod_st {
  bool loaded = true;
};
struct CUmemPoolHandle_st {
  int device = 0;
};
}  // namespace chorus::gpu::cu

using cu::CUctx_st;
using cu::CUevent_st;
using cu::CUmemPoolHandle_st;
using cu::CUmod_st;
using cu::CUstream_st;

namespace {

using Result = cu::Result;

// CUresult values used here (driver_types / cuda.h).
constexpr Result kOk = 0;
constexpr Result kInvalidValue = 1;
constexpr Result kOutOfMemory = 2;
constexpr Result kNotInitialized = 3;
constexpr Result kNoDevice = 100;
constexpr Result kInvalidDevice = 101;
constexpr Result kInvalidContext = 201;
constexpr Result kInvalidHandle = 400;
constexpr Result kNotFound = 500;
constexpr Result kNotReady = 600;
constexpr Result kIllegalAddress = 700;
constexpr Result kMisalignedAddress = 716;
constexpr Result kContextIsDestroyed = 709;

struct ErrorEntry {
  Result code;
  const char* name;
  const char* text;
};

constexpr ErrorEntry kErrors[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {4, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the provided PTX was compiled with an unsupported toolchain."},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

// ---------------------------------------------------------------------------------
// Counters.

#define MOCK_STATS(X)                                                                  \
  X(init) X(alloc_device) X(alloc_pool) X(alloc_managed) X(alloc_host) X(free) X(addr_reuse) \
  X(copy_h2d) X(copy_d2h) X(copy_d2d) X(copy_h2h) X(copy_bytes) X(memset) X(launch_reduce)     \
  X(launch_pack) X(launch_test) X(stream_create) X(event_record) X(stream_wait_event)          \
  X(wait_value) X(write_value) X(pointer_query) X(sync_calls) X(context_errors)                \
  X(illegal_address) X(live_allocs_at_exit) X(host_bytes_live) X(host_bytes_peak)

struct Stats {
#define MOCK_STAT_MEMBER(name) std::atomic<unsigned long long> name{0};
  MOCK_STATS(MOCK_STAT_MEMBER)
#undef MOCK_STAT_MEMBER
};

Stats& stats() {
  static Stats* s = new Stats;  // never destroyed: worker threads may outlive exit
  return *s;
}

#define BUMP(name) stats().name.fetch_add(1, std::memory_order_relaxed)
#define ADD(name, n) stats().name.fetch_add((n), std::memory_order_relaxed)

bool env_flag(const char* name, bool dflt) {
  const char* v = std::getenv(name);
  if (!v || !*v) return dflt;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "no") == 0 || std::strcmp(v, "off") == 0);
}

const bool g_trace = env_flag("MOCKCUDA_TRACE", false);
const bool g_abort = env_flag("MOCKCUDA_ABORT", false);

void say(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
void say(const char* fmt, ...) {
  char buf[1024];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fprintf(stderr, "mockcuda[%d]: %s\n", static_cast<int>(getpid()), buf);
}

#define TRACE(...) \
  do {             \
    if (g_trace) say(__VA_ARGS__); \
  } while (0)

// ---------------------------------------------------------------------------------
// Global state. Heap-allocated and never destroyed: stream threads keep running
// until the process ends and must never see a destroyed mutex.

struct Device {
  int physical = 0;
  CUctx_st* primary = nullptr;
  CUmemPoolHandle_st* pool = nullptr;
};

struct Global {
  std::mutex mu;  // devices, contexts, streams, events, modules
  std::condition_variable cv;  // any stream progress
  bool initialized = false;
  std::vector<Device> devices;
  std::unordered_set<CUstream_st*> streams;
  std::unordered_set<CUevent_st*> events;
  std::unordered_set<CUmod_st*> modules;
  std::atomic<Result> sticky{kOk};  // CUDA_ERROR_ILLEGAL_ADDRESS and friends
};

Global& G() {
  static Global* g = new Global;
  return *g;
}

// Under G().mu: kNotInitialized before cuInit, kInvalidHandle for a handle that
// is null or not (or no longer) among the `live` ones of its kind.
template <class T>
Result check_live_locked(const std::unordered_set<T*>& live, T* h) {
  if (!G().initialized) return kNotInitialized;
  if (!h || !live.count(h)) return kInvalidHandle;
  return kOk;
}

// A new event or module: registered among the `live` ones and handed out.
template <class T>
Result publish(std::unordered_set<T*>& live, T* obj, T** out) {
  std::lock_guard<std::mutex> lk(G().mu);
  live.insert(obj);
  *out = obj;
  return kOk;
}

thread_local CUctx_st* t_current = nullptr;

}  // namespace

// ---------------------------------------------------------------------------------
// Streams, events, contexts.

namespace chorus::gpu::cu {

struct CUctx_st {
  int device = 0;
  int refs = 0;
  bool active = false;
  CUstream_st* legacy = nullptr;
  std::vector<CUstream_st*> blocking;  // live blocking streams (legacy-stream sync)
  // Hardware queues: the last op queued on each (its stream and ticket).
  std::vector<std::pair<CUstream_st*, std::uint64_t>> hw_last;
  unsigned next_hw = 0;
};

struct Dep {
  CUstream_st* stream;
  std::uint64_t ticket;  // satisfied when stream->done >= ticket
};

struct Op {
  std::vector<Dep> deps;
  std::function<Result()> run;
};

struct CUstream_st {
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;
  bool legacy = false;
  bool destroyed = false;
  std::deque<Op> queue;
  std::uint64_t enqueued = 0;  // ops ever queued
  std::uint64_t done = 0;      // ops finished
  Result error = 0;            // first asynchronous error
  const char* waiting_on = nullptr;  // what the worker is blocked on (diagnostics)
  int hw = -1;                       // its hardware queue (-1: the legacy stream)
};

struct CUevent_st {
  CUctx_st* ctx = nullptr;
  unsigned flags = 0;
  CUstream_st* stream = nullptr;  // last record; null = never recorded
  std::uint64_t ticket = 0;
  std::uint64_t generation = 0;
  bool timed = false;
  std::chrono::steady_clock::time_point when{};
  int pending = 0;  // record ops not yet run
  bool destroyed = false;
};

}  // namespace chorus::gpu::cu

namespace {

using cu::Dep;
using cu::Op;

bool dep_met(const Dep& d) { return d.stream->done >= d.ticket; }

void stream_worker(CUstream_st* s) {
  Global& g = G();
  std::unique_lock<std::mutex> lk(g.mu);
  for (;;) {
    g.cv.wait(lk, [&] { return !s->queue.empty() || s->destroyed; });
    if (s->queue.empty()) break;  // destroyed and drained
    Op op = std::move(s->queue.front());
    s->queue.pop_front();
    s->waiting_on = "an event or the legacy stream";
    g.cv.wait(lk, [&] { return std::all_of(op.deps.begin(), op.deps.end(), dep_met); });
    s->waiting_on = nullptr;
    lk.unlock();
    Result r = kOk;
    if (g.sticky.load() == kOk) r = op.run();  // after a sticky error nothing runs
    lk.lock();
    if (r != kOk && s->error == kOk) s->error = r;
    ++s->done;
    g.cv.notify_all();
  }
}

// Hardware queues a context's streams share (CUDA_DEVICE_MAX_CONNECTIONS, 1..32).
std::size_t hw_queue_count() {
  const char* v = std::getenv("CUDA_DEVICE_MAX_CONNECTIONS");
  const long n = v && *v ? std::strtol(v, nullptr, 10) : 8;
  return static_cast<std::size_t>(std::clamp(n, 1L, 32L));
}

// Requires g.mu.
CUstream_st* new_stream(CUctx_st* ctx, unsigned flags, bool legacy) {
  auto* s = new CUstream_st;
  s->ctx = ctx;
  s->flags = flags;
  s->legacy = legacy;
  G().streams.insert(s);
  if (!legacy && !(flags & cu::kStreamNonBlocking)) ctx->blocking.push_back(s);
  if (!legacy) {
    if (ctx->hw_last.empty()) ctx->hw_last.resize(hw_queue_count());
    s->hw = static_cast<int>(ctx->next_hw++ % ctx->hw_last.size());
  }
  std::thread(stream_worker, s).detach();
  BUMP(stream_create);
  return s;
}

// Queue `run` on `s` after `deps` and the legacy-stream rules; returns the ticket
// that completes with it. Requires g.mu.
std::uint64_t enqueue_locked(CUstream_st* s, std::function<Result()> run,
                             std::vector<Dep> deps = {}) {
  CUctx_st* ctx = s->ctx;
  if (s->legacy) {
    for (CUstream_st* b : ctx->blocking) {
      if (b->enqueued > b->done) deps.push_back({b, b->enqueued});
    }
  } else if (!(s->flags & cu::kStreamNonBlocking) && ctx->legacy) {
    CUstream_st* l = ctx->legacy;
    if (l->enqueued > l->done) deps.push_back({l, l->enqueued});
  }
  if (s->hw >= 0) {
    // In order on its hardware queue: after the last op another stream put there.
    auto& last = ctx->hw_last[static_cast<std::size_t>(s->hw)];
    if (last.first && last.first != s && last.first->done < last.second) deps.push_back({last.first, last.second});
  }
  s->queue.push_back(Op{std::move(deps), std::move(run)});
  ++s->enqueued;
  if (s->hw >= 0) ctx->hw_last[static_cast<std::size_t>(s->hw)] = {s, s->enqueued};
  G().cv.notify_all();
  return s->enqueued;
}

std::uint64_t enqueue(CUstream_st* s, std::function<Result()> run, std::vector<Dep> deps = {}) {
  std::lock_guard<std::mutex> lk(G().mu);
  return enqueue_locked(s, std::move(run), std::move(deps));
}

Result wait_ticket(CUstream_st* s, std::uint64_t ticket) {
  Global& g = G();
  std::unique_lock<std::mutex> lk(g.mu);
  auto start = std::chrono::steady_clock::now();
  bool warned = false;
  while (s->done < ticket) {
    g.cv.wait_for(lk, std::chrono::seconds(1));
    if (!warned && std::chrono::steady_clock::now() - start > std::chrono::seconds(20)) {
      warned = true;
      say("a host thread has waited 20 s for a stream (blocked on %s)",
          s->waiting_on ? s->waiting_on : "its queue");
    }
  }
  if (g.sticky.load() != kOk) return g.sticky.load();
  return s->error;
}

// Requires nothing. Waits for everything queued so far on every stream.
void drain_all_streams() {
  std::vector<std::pair<CUstream_st*, std::uint64_t>> snap;
  {
    std::lock_guard<std::mutex> lk(G().mu);
    for (CUstream_st* s : G().streams) snap.push_back({s, s->enqueued});
  }
  for (auto& [s, t] : snap) (void)wait_ticket(s, t);
}

// The calling thread's context, or an error.
Result current_ctx(CUctx_st** out) {
  Global& g = G();
  if (!g.initialized) return kNotInitialized;
  CUctx_st* c = t_current;
  if (!c) {
    BUMP(context_errors);
    TRACE("call with no current context (thread %lu)",
          static_cast<unsigned long>(pthread_self()));
    return kInvalidContext;
  }
  {
    std::lock_guard<std::mutex> lk(g.mu);
    if (!c->active) {
      BUMP(context_errors);
      return kContextIsDestroyed;
    }
  }
  if (g.sticky.load() != kOk) return g.sticky.load();
  *out = c;
  return kOk;
}

#define NEED_CTX(var)                       \
  CUctx_st* var = nullptr;                  \
  if (Result rc_ = current_ctx(&var); rc_ != kOk) return rc_

// Resolve a stream handle: 0, CU_STREAM_LEGACY (1) and CU_STREAM_PER_THREAD (2)
// are the current context's legacy stream.
Result resolve_stream(cu::Stream h, CUctx_st* ctx, CUstream_st** out) {
  const auto v = reinterpret_cast<std::uintptr_t>(h);
  if (v == 0 || v == 1 || v == 2) {
    *out = ctx->legacy;
    return kOk;
  }
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().streams.count(h) || h->destroyed) return kInvalidHandle;
  *out = h;
  return kOk;
}

// Like resolve_stream, but for calls that do not need a current context when the
// stream is explicit (synchronize, query).
Result resolve_stream_any(cu::Stream h, CUstream_st** out) {
  const auto v = reinterpret_cast<std::uintptr_t>(h);
  if (v == 0 || v == 1 || v == 2) {
    NEED_CTX(ctx);
    *out = ctx->legacy;
    return kOk;
  }
  if (!G().initialized) return kNotInitialized;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().streams.count(h) || h->destroyed) return kInvalidHandle;
  *out = h;
  return kOk;
}

// ---------------------------------------------------------------------------------
// Memory.

enum class Kind { Device, Pool, Managed, Host };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Device: return "device";
    case Kind::Pool: return "pool";
    case Kind::Managed: return "managed";
    case Kind::Host: return "pinned host";
  }
  return "?";
}

bool host_visible(Kind k) { return k == Kind::Managed || k == Kind::Host; }

struct Mapping {
  std::uintptr_t addr = 0;  // what the program sees
  char* alias = nullptr;    // read-write view for the mock
  std::size_t bytes = 0;    // mapped length (whole pages)
};

struct Alloc {
  Mapping map;
  std::size_t size = 0;  // requested size
  Kind kind = Kind::Device;
  unsigned long long id = 0;
  int device = 0;
  CUctx_st* ctx = nullptr;
  bool free_queued = false;  // cuMemFreeAsync issued
};

struct Memory {
  std::shared_mutex mu;
  std::map<std::uintptr_t, Alloc> live;                        // by address
  std::map<std::uintptr_t, Mapping> freed;                     // kept for reuse, by address
  std::map<std::size_t, std::vector<std::uintptr_t>> by_size;  // freed, by mapped length
  std::size_t freed_bytes = 0;
  unsigned long long next_id = 1;
};

Memory& M() {
  static Memory* m = new Memory;
  return *m;
}

const bool g_reuse = env_flag("MOCKCUDA_REUSE", true);
constexpr std::size_t kMaxFreedBytes = std::size_t(4) << 30;  // address space only

std::size_t page_size() {
  static const std::size_t p = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  return p;
}

bool map_new(std::size_t bytes, Mapping* out) {
  const int fd = memfd_create("mockcuda", MFD_CLOEXEC);
  if (fd < 0) return false;
  if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
    close(fd);
    return false;
  }
  void* user = mmap(nullptr, bytes, PROT_NONE, MAP_SHARED, fd, 0);
  void* alias = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (user == MAP_FAILED || alias == MAP_FAILED) {
    if (user != MAP_FAILED) munmap(user, bytes);
    if (alias != MAP_FAILED) munmap(alias, bytes);
    return false;
  }
  out->addr = reinterpret_cast<std::uintptr_t>(user);
  out->alias = static_cast<char*>(alias);
  out->bytes = bytes;
  return true;
}

Result mem_alloc(Kind kind, std::size_t size, CUctx_st* ctx, std::uintptr_t* out) {
  if (size == 0) return kInvalidValue;
  const std::size_t pg = page_size();
  if (size > (std::size_t(1) << 40)) return kOutOfMemory;
  const std::size_t bytes = (size + pg - 1) / pg * pg;
  Memory& m = M();
  std::unique_lock<std::shared_mutex> lk(m.mu);
  Mapping map;
  bool reused = false;
  auto it = m.by_size.find(bytes);
  if (it != m.by_size.end() && !it->second.empty()) {
    const std::uintptr_t a = it->second.back();  // the most recently freed first
    it->second.pop_back();
    auto f = m.freed.find(a);
    map = f->second;
    m.freed.erase(f);
    m.freed_bytes -= bytes;
    reused = true;
  } else if (!map_new(bytes, &map)) {
    return kOutOfMemory;
  }
  const int prot = host_visible(kind) ? PROT_READ | PROT_WRITE : PROT_NONE;
  if (host_visible(kind) || reused) {
    if (mprotect(reinterpret_cast<void*>(map.addr), bytes, prot) != 0) return kOutOfMemory;
  }
  Alloc a;
  a.map = map;
  a.size = size;
  a.kind = kind;
  a.id = m.next_id++;
  a.device = ctx->device;
  a.ctx = ctx;
  m.live[map.addr] = a;
  lk.unlock();
  if (reused) BUMP(addr_reuse);
  if (kind == Kind::Host) {  // pinned host bytes the program holds, and their peak
    const unsigned long long now = stats().host_bytes_live.fetch_add(size) + size;
    unsigned long long peak = stats().host_bytes_peak.load();
    while (now > peak && !stats().host_bytes_peak.compare_exchange_weak(peak, now)) {
    }
  }
  switch (kind) {
    case Kind::Device: BUMP(alloc_device); break;
    case Kind::Pool: BUMP(alloc_pool); break;
    case Kind::Managed: BUMP(alloc_managed); break;
    case Kind::Host: BUMP(alloc_host); break;
  }
  TRACE("alloc %s %#lx + %zu (id %llu%s)", kind_name(kind), static_cast<unsigned long>(map.addr),
        size, a.id, reused ? ", reused address" : "");
  *out = map.addr;
  return kOk;
}

// Frees the allocation starting at `p` if it is one of `kinds`.
Result mem_free(std::uintptr_t p, std::initializer_list<Kind> kinds) {
  Memory& m = M();
  std::unique_lock<std::shared_mutex> lk(m.mu);
  auto it = m.live.find(p);
  if (it == m.live.end() ||
      std::find(kinds.begin(), kinds.end(), it->second.kind) == kinds.end()) {
    return kInvalidValue;
  }
  Mapping map = it->second.map;
  if (it->second.kind == Kind::Host) stats().host_bytes_live.fetch_sub(it->second.size);
  TRACE("free %s %#lx (id %llu)", kind_name(it->second.kind), static_cast<unsigned long>(p),
        it->second.id);
  m.live.erase(it);
  BUMP(free);
  // The program's view becomes inaccessible at once, managed and pinned too.
  mprotect(reinterpret_cast<void*>(map.addr), map.bytes, PROT_NONE);
  if (g_reuse && m.freed_bytes + map.bytes <= kMaxFreedBytes) {
    // Keep the address for reuse; give large backings' pages back meanwhile.
    if (map.bytes >= (std::size_t(1) << 20)) madvise(map.alias, map.bytes, MADV_REMOVE);
    m.freed[map.addr] = map;
    m.by_size[map.bytes].push_back(map.addr);
    m.freed_bytes += map.bytes;
  } else {
    munmap(reinterpret_cast<void*>(map.addr), map.bytes);
    munmap(map.alias, map.bytes);
  }
  return kOk;
}

// The entry of `by_addr` (keyed by start address) whose [start, start + length(entry))
// contains p, or null.
template <class V, class Length>
const V* containing(const std::map<std::uintptr_t, V>& by_addr, std::uintptr_t p, Length length) {
  auto it = by_addr.upper_bound(p);
  if (it == by_addr.begin()) return nullptr;
  --it;
  if (p >= it->first && p < it->first + length(it->second)) return &it->second;
  return nullptr;
}

// Require m.mu (shared). The live allocation, or the freed mapping, containing p.
const Alloc* find_live(std::uintptr_t p) {
  return containing(M().live, p, [](const Alloc& a) { return a.size; });
}

const Mapping* find_freed(std::uintptr_t p) {
  return containing(M().freed, p, [](const Mapping& map) { return map.bytes; });
}

enum class Space { Pageable, Device, HostVisible };

struct Resolved {
  char* ptr = nullptr;  // where the mock reads/writes
  Space space = Space::Pageable;
};

// Map [p, p + n) to memory the mock can touch. `device_only`: kernel arguments
// and stream memory operations, which need device-accessible memory.
// On failure returns the error and describes it in *why.
Result resolve(std::uintptr_t p, std::size_t n, bool device_only, Resolved* out,
               std::string* why) {
  if (n == 0) {
    out->ptr = reinterpret_cast<char*>(p);
    out->space = Space::Pageable;
    return kOk;
  }
  Memory& m = M();
  std::shared_lock<std::shared_mutex> lk(m.mu);
  const Result bad = device_only ? kIllegalAddress : kInvalidValue;
  char buf[256];
  if (const Alloc* a = find_live(p)) {
    const std::size_t off = p - a->map.addr;
    if (n > a->size - off) {
      std::snprintf(buf, sizeof buf,
                    "%#lx + %zu bytes runs past the end of its %s allocation [%#lx, +%zu)",
                    static_cast<unsigned long>(p), n, kind_name(a->kind),
                    static_cast<unsigned long>(a->map.addr), a->size);
      *why = buf;
      return bad;
    }
    if (host_visible(a->kind)) {
      out->ptr = reinterpret_cast<char*>(p);
      out->space = Space::HostVisible;
    } else {
      out->ptr = a->map.alias + off;
      out->space = Space::Device;
    }
    return kOk;
  }
  if (find_freed(p)) {
    std::snprintf(buf, sizeof buf, "%#lx (+%zu bytes) lies in freed device memory",
                  static_cast<unsigned long>(p), n);
    *why = buf;
    return bad;
  }
  if (p == 0 && n > 0) {
    *why = "null pointer";
    return bad;
  }
  if (device_only && n > 0) {
    std::snprintf(buf, sizeof buf,
                  "%#lx (+%zu bytes) is pageable host memory, not accessible from the device",
                  static_cast<unsigned long>(p), n);
    *why = buf;
    return bad;
  }
  out->ptr = reinterpret_cast<char*>(p);
  out->space = Space::Pageable;
  return kOk;
}

// An asynchronous device fault: report it, make it sticky, maybe abort.
Result device_fault(const char* what, const std::string& why, Result code = kIllegalAddress) {
  BUMP(illegal_address);
  say("%s in %s: %s", code == kIllegalAddress ? "CUDA_ERROR_ILLEGAL_ADDRESS" : "CUDA_ERROR_MISALIGNED_ADDRESS",
      what, why.c_str());
  if (g_abort) std::abort();
  Result expected = kOk;
  G().sticky.compare_exchange_strong(expected, code);
  return code;
}

void count_copy(Space dst, Space src, std::size_t n) {
  const bool d_dev = dst == Space::Device, s_dev = src == Space::Device;
  if (d_dev && s_dev) BUMP(copy_d2d);
  else if (d_dev) BUMP(copy_h2d);
  else if (s_dev) BUMP(copy_d2h);
  else BUMP(copy_h2h);
  ADD(copy_bytes, n);
}

// MOCKCUDA_COPY_GBS=RATE[@HOST] as GB/s, or 0 (no limit) on any other host.
double copy_rate_limit() {
  static const double gbs = [] {
    const char* v = std::getenv("MOCKCUDA_COPY_GBS");
    if (!v || !*v) return 0.0;
    const std::string spec = v;
    const std::size_t at = spec.find('@');
    if (at != std::string::npos) {
      char host[256] = {};
      ::gethostname(host, sizeof host - 1);
      if (spec.substr(at + 1) != host) return 0.0;
    }
    return std::atof(spec.substr(0, at).c_str());
  }();
  return gbs;
}

// Checks a copy's operands now (as the driver does) and returns the op to queue.
Result make_copy(std::uintptr_t dst, std::uintptr_t src, std::size_t n,
                 std::function<Result()>* op) {
  static const long long fail_bytes = [] {
    const char* v = std::getenv("MOCKCUDA_FAIL_COPY_BYTES");
    return v && *v ? std::atoll(v) : -1LL;
  }();
  if (fail_bytes >= 0 && static_cast<long long>(n) == fail_bytes) {
    TRACE("copy: %zu bytes fail (MOCKCUDA_FAIL_COPY_BYTES)", n);
    return kInvalidValue;
  }
  Resolved d, s;
  std::string why;
  if (Result r = resolve(dst, n, false, &d, &why); r != kOk) {
    TRACE("copy: destination %s", why.c_str());
    return r;
  }
  if (Result r = resolve(src, n, false, &s, &why); r != kOk) {
    TRACE("copy: source %s", why.c_str());
    return r;
  }
  TRACE("copy %#lx <- %#lx, %zu bytes", static_cast<unsigned long>(dst),
        static_cast<unsigned long>(src), n);
  *op = [dst, src, n]() -> Result {
    if (n == 0) return kOk;
    Resolved d2, s2;
    std::string why2;
    if (resolve(dst, n, false, &d2, &why2) != kOk) return device_fault("memcpy (destination)", why2);
    if (resolve(src, n, false, &s2, &why2) != kOk) return device_fault("memcpy (source)", why2);
    const auto t0 = std::chrono::steady_clock::now();
    std::memmove(d2.ptr, s2.ptr, n);
    count_copy(d2.space, s2.space, n);
    if (const double gbs = copy_rate_limit(); gbs > 0)
      std::this_thread::sleep_until(t0 + std::chrono::duration<double>(static_cast<double>(n) / (gbs * 1e9)));
    return kOk;
  };
  return kOk;
}

// ---------------------------------------------------------------------------------
// Kernels (lib/gpu/kernels.h and tests/gpu/test_kernels.cu) on the CPU.

enum class OpId { Sum, Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor };

struct Half {};   // IEEE binary16 storage
struct BHalf {};  // bfloat16 storage

template <class S>
struct Elem {
  using C = S;
  static constexpr std::size_t size = sizeof(S);
  static constexpr bool integer = std::is_integral_v<S>;
  static constexpr bool half = false;
  static C load(const char* p) {
    S v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  static void store(char* p, C v) { std::memcpy(p, &v, sizeof v); }
};

// Both 16-bit floats: computed in float.
struct HalfElem {
  using C = float;
  static constexpr std::size_t size = 2;
  static constexpr bool integer = false;
  static constexpr bool half = true;
};

template <>
struct Elem<Half> : HalfElem {
  static C load(const char* p) {
    _Float16 h;
    std::memcpy(&h, p, 2);
    return static_cast<float>(h);
  }
  static void store(char* p, C v) {
    const _Float16 h = static_cast<_Float16>(v);  // round to nearest even
    std::memcpy(p, &h, 2);
  }
};

template <>
struct Elem<BHalf> : HalfElem {
  static C load(const char* p) {
    std::uint16_t b;
    std::memcpy(&b, p, 2);
    const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
    float f;
    std::memcpy(&f, &u, 4);
    return f;
  }
  static void store(char* p, C v) {
    std::uint32_t u;
    std::memcpy(&u, &v, 4);
    std::uint16_t b;
    if ((u & 0x7fffffffu) > 0x7f800000u) {
      b = static_cast<std::uint16_t>((u >> 16) | 0x40);  // NaN stays NaN (quiet)
    } else {
      u += 0x7fffu + ((u >> 16) & 1u);  // round to nearest even
      b = static_cast<std::uint16_t>(u >> 16);
    }
    std::memcpy(p, &b, 2);
  }
};

// a = in[i], b = inout[i]. MAX/MIN as lib/gpu/kernels/reduce.cu: `a > b ? a : b`,
// and for f16/bf16 (kHalf) NaN in either operand gives NaN.
template <OpId op, class C, bool kHalf>
C apply(C a, C b) {
  if constexpr (op == OpId::Sum || op == OpId::Prod) {
    if constexpr (std::is_integral_v<C>) {
      using U = std::make_unsigned_t<C>;
      const std::uint64_t x = static_cast<U>(a), y = static_cast<U>(b);
      return static_cast<C>(static_cast<U>(op == OpId::Sum ? x + y : x * y));  // wraps
    } else {
      return op == OpId::Sum ? a + b : a * b;
    }
  } else if constexpr (op == OpId::Min) {
    if constexpr (kHalf) return (a < b || a != a) ? a : b;
    return a < b ? a : b;
  } else if constexpr (op == OpId::Max) {
    if constexpr (kHalf) return (a > b || a != a) ? a : b;
    return a > b ? a : b;
  } else if constexpr (op == OpId::Land) {
    return static_cast<C>((a != C(0)) && (b != C(0)));
  } else if constexpr (op == OpId::Lor) {
    return static_cast<C>((a != C(0)) || (b != C(0)));
  } else if constexpr (op == OpId::Lxor) {
    return static_cast<C>((a != C(0)) != (b != C(0)));
  } else if constexpr (std::is_integral_v<C>) {
    if constexpr (op == OpId::Band) return static_cast<C>(a & b);
    if constexpr (op == OpId::Bor) return static_cast<C>(a | b);
    return static_cast<C>(a ^ b);
  } else {
    return a;  // never registered
  }
}

using ReduceFn = void (*)(const char* in, char* inout, std::size_t n);

template <OpId op, class S>
void reduce_kernel(const char* in, char* inout, std::size_t n) {
  using E = Elem<S>;
  for (std::size_t i = 0; i < n; ++i) {
    E::store(inout + i * E::size,
             apply<op, typename E::C, E::half>(E::load(in + i * E::size),
                                                E::load(inout + i * E::size)));
  }
}

enum class FnKind { Reduce, Gather, Scatter, TestFill, TestScale, TestDelay };

}  // namespace

namespace chorus::gpu::cu {
struct CUfunc_st {
  std::string name;
  FnKind kind = FnKind::Reduce;
  ReduceFn reduce = nullptr;
  std::size_t elem = 0;
};
}  // namespace chorus::gpu::cu

using cu::CUfunc_st;

namespace {

constexpr const char* kOpNames[] = {"sum", "prod", "min", "max", "land",
                                    "lor", "lxor", "band", "bor", "bxor"};

template <class S>
void register_type(std::unordered_map<std::string, CUfunc_st*>& t, const char* tname) {
  auto add = [&](OpId op, ReduceFn fn) {
    auto* f = new CUfunc_st;
    f->name = std::string("chorus_reduce_") + kOpNames[static_cast<int>(op)] + "_" + tname;
    f->kind = FnKind::Reduce;
    f->reduce = fn;
    f->elem = Elem<S>::size;
    t[f->name] = f;
  };
  add(OpId::Sum, &reduce_kernel<OpId::Sum, S>);
  add(OpId::Prod, &reduce_kernel<OpId::Prod, S>);
  add(OpId::Min, &reduce_kernel<OpId::Min, S>);
  add(OpId::Max, &reduce_kernel<OpId::Max, S>);
  add(OpId::Land, &reduce_kernel<OpId::Land, S>);
  add(OpId::Lor, &reduce_kernel<OpId::Lor, S>);
  add(OpId::Lxor, &reduce_kernel<OpId::Lxor, S>);
  if constexpr (Elem<S>::integer) {
    add(OpId::Band, &reduce_kernel<OpId::Band, S>);
    add(OpId::Bor, &reduce_kernel<OpId::Bor, S>);
    add(OpId::Bxor, &reduce_kernel<OpId::Bxor, S>);
  }
}

const std::unordered_map<std::string, CUfunc_st*>& functions() {
  static const auto* table = [] {
    auto* t = new std::unordered_map<std::string, CUfunc_st*>;
    register_type<std::int8_t>(*t, "i8");
    register_type<std::uint8_t>(*t, "u8");
    register_type<std::int16_t>(*t, "i16");
    register_type<std::uint16_t>(*t, "u16");
    register_type<std::int32_t>(*t, "i32");
    register_type<std::uint32_t>(*t, "u32");
    register_type<std::int64_t>(*t, "i64");
    register_type<std::uint64_t>(*t, "u64");
    register_type<Half>(*t, "f16");
    register_type<BHalf>(*t, "bf16");
    register_type<float>(*t, "f32");
    register_type<double>(*t, "f64");
    auto add = [&](const char* name, FnKind k) {
      auto* f = new CUfunc_st;
      f->name = name;
      f->kind = k;
      (*t)[name] = f;
    };
    add("chorus_gather_segments", FnKind::Gather);
    add("chorus_scatter_segments", FnKind::Scatter);
    add("chorus_test_fill_f32", FnKind::TestFill);
    add("chorus_test_scale_f32", FnKind::TestScale);
    add("chorus_test_delay", FnKind::TestDelay);
    return t;
  }();
  return *table;
}

template <class T>
T arg(void** params, int i) {
  T v;
  std::memcpy(&v, params[i], sizeof v);
  return v;
}

// Kernel argument values, copied at launch (as the driver does).
struct Launch {
  const CUfunc_st* fn = nullptr;
  std::uintptr_t p[3] = {0, 0, 0};
  unsigned long long n = 0, count = 0, elem_size = 0;
  unsigned nsegs = 0;
  long long extent = 0;
  float value = 0;
};

struct SegmentRec {
  unsigned long long off, len, packed_off;
};

Result run_kernel(const Launch& L) {
  const char* name = L.fn->name.c_str();
  std::string why;
  Resolved a, b, c;
  switch (L.fn->kind) {
    case FnKind::Reduce: {
      const std::size_t bytes = L.n * L.fn->elem;
      // A GPU loads an element only from an address aligned to its size.
      if (L.n > 0 && (L.p[0] % L.fn->elem != 0 || L.p[1] % L.fn->elem != 0))
        return device_fault(name, "misaligned address: an operand is not aligned to its element size",
                            kMisalignedAddress);
      if (resolve(L.p[0], bytes, true, &a, &why) != kOk) return device_fault(name, "in: " + why);
      if (resolve(L.p[1], bytes, true, &b, &why) != kOk) return device_fault(name, "inout: " + why);
      L.fn->reduce(a.ptr, b.ptr, L.n);
      BUMP(launch_reduce);
      return kOk;
    }
    case FnKind::Gather:
    case FnKind::Scatter: {
      BUMP(launch_pack);
      if (L.count == 0 || L.nsegs == 0) return kOk;
      // Kernel parameter order: gather (user, packed, ...), scatter (packed, user, ...).
      const bool gather = L.fn->kind == FnKind::Gather;
      const std::uintptr_t user = gather ? L.p[0] : L.p[1];
      const std::uintptr_t packed = gather ? L.p[1] : L.p[0];
      if (resolve(L.p[2], L.nsegs * sizeof(SegmentRec), true, &c, &why) != kOk) {
        return device_fault(name, "segs: " + why);
      }
      std::vector<SegmentRec> segs(L.nsegs);
      std::memcpy(segs.data(), c.ptr, segs.size() * sizeof(SegmentRec));
      long long lo = 0, hi = 0;  // user byte span relative to `user`
      bool first = true;
      const long long last = static_cast<long long>(L.count - 1) * L.extent;
      for (const SegmentRec& s : segs) {
        if (s.len == 0) continue;
        const long long s_lo = std::min(0LL, last) + static_cast<long long>(s.off);
        const long long s_hi = std::max(0LL, last) + static_cast<long long>(s.off + s.len);
        lo = first ? s_lo : std::min(lo, s_lo);
        hi = first ? s_hi : std::max(hi, s_hi);
        first = false;
        if (s.packed_off + s.len > L.elem_size) {
          return device_fault(name, "a segment ends past elem_size");
        }
      }
      if (first) return kOk;
      if (resolve(user + lo, static_cast<std::size_t>(hi - lo), true, &a, &why) != kOk) {
        return device_fault(name, "user: " + why);
      }
      if (resolve(packed, L.count * L.elem_size, true, &b, &why) != kOk) {
        return device_fault(name, "packed: " + why);
      }
      char* u = a.ptr - lo;  // user[0]
      for (unsigned long long e = 0; e < L.count; ++e) {
        for (const SegmentRec& s : segs) {
          char* up = u + static_cast<long long>(e) * L.extent + static_cast<long long>(s.off);
          char* pp = b.ptr + e * L.elem_size + s.packed_off;
          if (gather) std::memcpy(pp, up, s.len);
          else std::memcpy(up, pp, s.len);
        }
      }
      return kOk;
    }
    case FnKind::TestFill:
    case FnKind::TestScale: {
      BUMP(launch_test);
      if (resolve(L.p[0], L.n * sizeof(float), true, &a, &why) != kOk) return device_fault(name, why);
      for (unsigned long long i = 0; i < L.n; ++i) {
        float x;
        std::memcpy(&x, a.ptr + i * 4, 4);
        x = L.fn->kind == FnKind::TestFill ? L.value : x * L.value;
        std::memcpy(a.ptr + i * 4, &x, 4);
      }
      return kOk;
    }
    case FnKind::TestDelay:
      BUMP(launch_test);
      std::this_thread::sleep_for(std::chrono::nanoseconds(L.n));
      return kOk;
  }
  return kOk;
}

// Copies the kernel's arguments out of `params` per its signature.
Launch read_params(const CUfunc_st* f, void** params) {
  Launch L;
  L.fn = f;
  switch (f->kind) {
    case FnKind::Reduce:  // (const void* in, void* inout, unsigned long long n)
      L.p[0] = arg<std::uintptr_t>(params, 0);
      L.p[1] = arg<std::uintptr_t>(params, 1);
      L.n = arg<unsigned long long>(params, 2);
      break;
    case FnKind::Gather:   // (user, packed, segs, nsegs, count, extent, elem_size)
    case FnKind::Scatter:  // (packed, user, segs, nsegs, count, extent, elem_size)
      L.p[0] = arg<std::uintptr_t>(params, 0);
      L.p[1] = arg<std::uintptr_t>(params, 1);
      L.p[2] = arg<std::uintptr_t>(params, 2);
      L.nsegs = arg<unsigned>(params, 3);
      L.count = arg<unsigned long long>(params, 4);
      L.extent = arg<long long>(params, 5);
      L.elem_size = arg<unsigned long long>(params, 6);
      break;
    case FnKind::TestFill:   // (float* p, unsigned long long n, float v)
    case FnKind::TestScale:  // (float* p, unsigned long long n, float s)
      L.p[0] = arg<std::uintptr_t>(params, 0);
      L.n = arg<unsigned long long>(params, 1);
      L.value = arg<float>(params, 2);
      break;
    case FnKind::TestDelay:  // (unsigned long long ns)
      L.n = arg<unsigned long long>(params, 0);
      break;
  }
  return L;
}

// ---------------------------------------------------------------------------------
// Device attributes.

bool device_attribute(int attr, int physical, int* value) {
  switch (attr) {
    case 1: *value = 1024; return true;         // MAX_THREADS_PER_BLOCK
    case 2: case 3: *value = 1024; return true;  // MAX_BLOCK_DIM_X/Y
    case 4: *value = 64; return true;           // MAX_BLOCK_DIM_Z
    case 5: *value = 2147483647; return true;   // MAX_GRID_DIM_X
    case 6: case 7: *value = 65535; return true;  // MAX_GRID_DIM_Y/Z
    case 8: *value = 49152; return true;        // MAX_SHARED_MEMORY_PER_BLOCK
    case 10: *value = 32; return true;          // WARP_SIZE
    case cu::kDevAttrMultiprocessorCount: *value = 4; return true;
    case cu::kDevAttrPciBusId: *value = physical + 1; return true;
    case cu::kDevAttrPciDeviceId: case cu::kDevAttrPciDomainId: *value = 0; return true;
    case cu::kDevAttrUnifiedAddressing: *value = 1; return true;
    case cu::kDevAttrComputeCapabilityMajor: *value = 9; return true;
    case cu::kDevAttrComputeCapabilityMinor: *value = 0; return true;
    case 83: *value = 1; return true;           // MANAGED_MEMORY
    case 89: *value = 1; return true;           // CONCURRENT_MANAGED_ACCESS
    case cu::kDevAttrMemoryPoolsSupported: *value = 1; return true;
    default:
      if (attr > 0 && attr < 160) {
        *value = 0;
        return true;
      }
      return false;
  }
}

// ---------------------------------------------------------------------------------
// Pointer attributes.

template <class T>
void put(void* data, T v) {
  std::memcpy(data, &v, sizeof v);
}

// `a` null: memory the driver does not know. `strict`: cuPointerGetAttribute
// (errors) rather than cuPointerGetAttributes (defaults).
Result pointer_attribute(int attr, const Alloc* a, std::uintptr_t p, void* data, bool strict) {
  if (!data) return kInvalidValue;
  if (!a) {
    if (strict) return kInvalidValue;
    switch (attr) {
      case cu::kPointerAttrContext: put<void*>(data, nullptr); return kOk;
      case cu::kPointerAttrMemoryType: put<unsigned>(data, 0); return kOk;
      case cu::kPointerAttrDevicePointer: put<std::uintptr_t>(data, 0); return kOk;
      case 4: put<void*>(data, nullptr); return kOk;  // HOST_POINTER
      case 6: case cu::kPointerAttrIsManaged: case 10: case cu::kPointerAttrMapped: case 15:
        put<bool>(data, false);
        return kOk;
      case cu::kPointerAttrBufferId: put<unsigned long long>(data, 0); return kOk;
      case cu::kPointerAttrDeviceOrdinal: put<int>(data, -2); return kOk;
      case cu::kPointerAttrRangeStartAddr: put<std::uintptr_t>(data, 0); return kOk;
      case cu::kPointerAttrRangeSize: put<std::size_t>(data, 0); return kOk;
      case 16: put<unsigned>(data, 0); return kOk;  // ACCESS_FLAGS
      case cu::kPointerAttrMempoolHandle: put<void*>(data, nullptr); return kOk;
      default: return kInvalidValue;
    }
  }
  switch (attr) {
    case cu::kPointerAttrContext: put<void*>(data, a->ctx); return kOk;
    case cu::kPointerAttrMemoryType:
      put<unsigned>(data, a->kind == Kind::Host ? cu::kMemoryTypeHost : cu::kMemoryTypeDevice);
      return kOk;
    case cu::kPointerAttrDevicePointer: put<std::uintptr_t>(data, p); return kOk;
    case 4:  // HOST_POINTER
      if (!host_visible(a->kind)) {
        if (strict) return kInvalidValue;
        put<void*>(data, nullptr);
        return kOk;
      }
      put<void*>(data, reinterpret_cast<void*>(p));
      return kOk;
    case 6: put<bool>(data, true); return kOk;  // SYNC_MEMOPS
    case cu::kPointerAttrBufferId: put<unsigned long long>(data, a->id); return kOk;
    case cu::kPointerAttrIsManaged: put<bool>(data, a->kind == Kind::Managed); return kOk;
    case cu::kPointerAttrDeviceOrdinal: put<int>(data, a->device); return kOk;
    case 10: put<bool>(data, a->kind == Kind::Device); return kOk;  // LEGACY_CUDA_IPC_CAPABLE
    case cu::kPointerAttrRangeStartAddr: put<std::uintptr_t>(data, a->map.addr); return kOk;
    case cu::kPointerAttrRangeSize: put<std::size_t>(data, a->size); return kOk;
    case cu::kPointerAttrMapped: put<bool>(data, true); return kOk;
    case 15: put<bool>(data, false); return kOk;  // GPU_DIRECT_RDMA_CAPABLE
    case 16: put<unsigned>(data, 3); return kOk;  // ACCESS_FLAGS: read-write
    case cu::kPointerAttrMempoolHandle:  // devices are fixed after cuInit: no lock
      put<void*>(data, a->kind == Kind::Pool
                           ? G().devices[static_cast<std::size_t>(a->device)].pool
                           : nullptr);
      return kOk;
    default: return kInvalidValue;
  }
}

// ---------------------------------------------------------------------------------
// Exit summary.

struct ExitReport {
  ~ExitReport() {
    if (!env_flag("MOCKCUDA_STATS", false)) return;
    {
      std::shared_lock<std::shared_mutex> lk(M().mu);
      stats().live_allocs_at_exit = M().live.size();
    }
    std::string line;
#define MOCK_STAT_PRINT(name)                                        \
  if (auto v = stats().name.load()) {                                \
    line += " " #name "=" + std::to_string(v);                       \
  }
    MOCK_STATS(MOCK_STAT_PRINT)
#undef MOCK_STAT_PRINT
    say("stats:%s", line.c_str());
  }
};
ExitReport g_exit_report;

}  // namespace

// =================================================================================
// Exported entry points.

extern "C" {

unsigned long long mockcuda_stat(const char* name) {
  if (!name) return ~0ULL;
#define MOCK_STAT_GET(n) \
  if (std::strcmp(name, #n) == 0) return stats().n.load();
  MOCK_STATS(MOCK_STAT_GET)
#undef MOCK_STAT_GET
  return ~0ULL;
}

// ---- initialization, errors, devices ------------------------------------------

Result mock_Init(unsigned flags) {
  if (flags != 0) return kInvalidValue;
  if (const char* e = std::getenv("MOCKCUDA_INIT_ERROR"); e && *e) {
    return static_cast<Result>(std::atoi(e));
  }
  Global& g = G();
  std::lock_guard<std::mutex> lk(g.mu);
  BUMP(init);
  if (g.initialized) return kOk;
  int physical = 1;
  if (const char* e = std::getenv("MOCKCUDA_DEVICES"); e && *e) physical = std::atoi(e);
  if (physical < 0) physical = 0;
  std::vector<int> visible;
  if (const char* v = std::getenv("CUDA_VISIBLE_DEVICES")) {
    std::string s(v);
    std::size_t pos = 0;
    while (pos <= s.size()) {
      std::size_t end = s.find(',', pos);
      if (end == std::string::npos) end = s.size();
      const std::string item = s.substr(pos, end - pos);
      char* stop = nullptr;
      const long ord = std::strtol(item.c_str(), &stop, 10);
      if (item.empty() || *stop != '\0' || ord < 0 || ord >= physical ||
          std::find(visible.begin(), visible.end(), static_cast<int>(ord)) != visible.end()) {
        break;  // the driver ignores everything from the first invalid entry on
      }
      visible.push_back(static_cast<int>(ord));
      pos = end + 1;
    }
  } else {
    for (int i = 0; i < physical; ++i) visible.push_back(i);
  }
  if (visible.empty()) return kNoDevice;
  for (std::size_t i = 0; i < visible.size(); ++i) {
    Device d;
    d.physical = visible[i];
    d.primary = new CUctx_st;
    d.primary->device = static_cast<int>(i);
    d.pool = new CUmemPoolHandle_st;
    d.pool->device = static_cast<int>(i);
    g.devices.push_back(d);
  }
  g.initialized = true;
  return kOk;
}

Result mock_DriverGetVersion(int* version) {
  if (!version) return kInvalidValue;
  *version = 13000;
  return kOk;
}

// cuGetErrorName / cuGetErrorString: the `field` of err's kErrors entry, or
// nullptr and CUDA_ERROR_INVALID_VALUE for a code not in the table.
static Result error_lookup(cu::Result err, const char** out, const char* ErrorEntry::*field) {
  if (!out) return kInvalidValue;
  for (const ErrorEntry& e : kErrors) {
    if (e.code == err) {
      *out = e.*field;
      return kOk;
    }
  }
  *out = nullptr;
  return kInvalidValue;
}

Result mock_GetErrorName(cu::Result err, const char** name) {
  return error_lookup(err, name, &ErrorEntry::name);
}

Result mock_GetErrorString(cu::Result err, const char** str) {
  return error_lookup(err, str, &ErrorEntry::text);
}

Result mock_DeviceGetCount(int* count) {
  if (!count) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  *count = static_cast<int>(G().devices.size());
  return kOk;
}

Result mock_DeviceGet(cu::Device* dev, int ordinal) {
  if (!dev) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (ordinal < 0 || ordinal >= static_cast<int>(G().devices.size())) return kInvalidDevice;
  *dev = ordinal;
  return kOk;
}

static bool valid_device(cu::Device dev) {
  return dev >= 0 && dev < static_cast<int>(G().devices.size());
}

Result mock_DeviceGetName(char* name, int len, cu::Device dev) {
  if (!name || len <= 0) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!valid_device(dev)) return kInvalidDevice;
  std::snprintf(name, static_cast<std::size_t>(len), "Mock GPU");
  return kOk;
}

// Every mock device has 16 GiB.
Result mock_DeviceTotalMem(std::size_t* bytes, cu::Device dev) {
  if (!bytes) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!valid_device(dev)) return kInvalidDevice;
  *bytes = std::size_t{16} << 30;
  return kOk;
}

Result mock_DeviceGetAttribute(int* value, int attr, cu::Device dev) {
  if (!value) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!valid_device(dev)) return kInvalidDevice;
  if (!device_attribute(attr, G().devices[static_cast<std::size_t>(dev)].physical, value)) {
    return kInvalidValue;
  }
  return kOk;
}

// ---- contexts ------------------------------------------------------------------

Result mock_DevicePrimaryCtxRetain(cu::Context* ctx, cu::Device dev) {
  if (!ctx) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!valid_device(dev)) return kInvalidDevice;
  CUctx_st* c = G().devices[static_cast<std::size_t>(dev)].primary;
  ++c->refs;
  c->active = true;
  if (!c->legacy) c->legacy = new_stream(c, 0, true);
  *ctx = c;
  return kOk;
}

Result mock_DevicePrimaryCtxRelease(cu::Device dev) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!valid_device(dev)) return kInvalidDevice;
  CUctx_st* c = G().devices[static_cast<std::size_t>(dev)].primary;
  if (c->refs <= 0) return kInvalidContext;
  if (--c->refs == 0) c->active = false;  // "destroyed": its handle stays valid
  return kOk;
}

Result mock_CtxSetCurrent(cu::Context ctx) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (ctx) {
    bool known = false;
    for (const Device& d : G().devices) known = known || d.primary == ctx;
    if (!known) return kInvalidContext;
  }
  t_current = ctx;
  return kOk;
}

Result mock_CtxGetCurrent(cu::Context* ctx) {
  if (!ctx) return kInvalidValue;
  if (!G().initialized) return kNotInitialized;
  *ctx = t_current;
  return kOk;
}

// ---- pointer attributes ---------------------------------------------------------

Result mock_PointerGetAttribute(void* data, int attr, cu::DevicePtr ptr) {
  if (!G().initialized) return kNotInitialized;
  BUMP(pointer_query);
  std::shared_lock<std::shared_mutex> lk(M().mu);
  const Alloc* a = find_live(ptr);
  if (!a) return kInvalidValue;
  return pointer_attribute(attr, a, ptr, data, true);
}

Result mock_PointerGetAttributes(unsigned num, int* attrs, void** data, cu::DevicePtr ptr) {
  if (!G().initialized) return kNotInitialized;
  if (num > 0 && (!attrs || !data)) return kInvalidValue;
  BUMP(pointer_query);
  std::shared_lock<std::shared_mutex> lk(M().mu);
  const Alloc* a = find_live(ptr);
  for (unsigned i = 0; i < num; ++i) {
    if (Result r = pointer_attribute(attrs[i], a, ptr, data[i], false); r != kOk) return r;
  }
  return kOk;
}

// ---- memory -------------------------------------------------------------------

Result mock_MemAlloc(cu::DevicePtr* ptr, std::size_t bytes) {
  if (!ptr) return kInvalidValue;
  NEED_CTX(ctx);
  return mem_alloc(Kind::Device, bytes, ctx, ptr);
}

Result mock_MemFree(cu::DevicePtr ptr) {
  NEED_CTX(ctx);
  (void)ctx;
  if (ptr == 0) return kOk;
  drain_all_streams();
  return mem_free(ptr, {Kind::Device, Kind::Pool, Kind::Managed});
}

Result mock_MemAllocManaged(cu::DevicePtr* ptr, std::size_t bytes, unsigned flags) {
  if (!ptr || (flags != 1 && flags != 2)) return kInvalidValue;  // ATTACH_GLOBAL / HOST
  NEED_CTX(ctx);
  return mem_alloc(Kind::Managed, bytes, ctx, ptr);
}

Result mock_MemAllocAsync(cu::DevicePtr* ptr, std::size_t bytes, cu::Stream s) {
  if (!ptr) return kInvalidValue;
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  return mem_alloc(Kind::Pool, bytes, ctx, ptr);
}

Result mock_MemFreeAsync(cu::DevicePtr ptr, cu::Stream s) {
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  {
    std::unique_lock<std::shared_mutex> lk(M().mu);
    auto it = M().live.find(ptr);
    if (it == M().live.end() || host_visible(it->second.kind) || it->second.free_queued) {
      return kInvalidValue;
    }
    it->second.free_queued = true;
  }
  enqueue(st, [ptr]() -> Result {
    mem_free(ptr, {Kind::Device, Kind::Pool});
    return kOk;
  });
  return kOk;
}

Result mock_MemHostAlloc(void** ptr, std::size_t bytes, unsigned flags) {
  if (!ptr || (flags & ~0x7u)) return kInvalidValue;
  NEED_CTX(ctx);
  std::uintptr_t p = 0;
  Result r = mem_alloc(Kind::Host, bytes, ctx, &p);
  if (r == kOk) *ptr = reinterpret_cast<void*>(p);
  return r;
}

Result mock_MemFreeHost(void* ptr) {
  NEED_CTX(ctx);
  (void)ctx;
  drain_all_streams();
  return mem_free(reinterpret_cast<std::uintptr_t>(ptr), {Kind::Host});
}

Result mock_MemHostGetDevicePointer(cu::DevicePtr* dptr, void* host, unsigned flags) {
  if (!dptr || flags != 0) return kInvalidValue;
  NEED_CTX(ctx);
  (void)ctx;
  std::shared_lock<std::shared_mutex> lk(M().mu);
  const Alloc* a = find_live(reinterpret_cast<std::uintptr_t>(host));
  if (!a || a->kind != Kind::Host) return kInvalidValue;
  *dptr = reinterpret_cast<std::uintptr_t>(host);
  return kOk;
}

// How long a transfer the host call no longer waits for (pageable host to device
// cuMemcpy, cuMemsetD8 of device memory) stays in flight on the legacy stream:
// long enough that a reader on another stream that did not synchronize sees the
// old bytes.
void in_flight_lag() {
  static const long us = [] {
    const char* v = std::getenv("MOCKCUDA_IN_FLIGHT_US");
    return v && *v ? std::atol(v) : 300L;
  }();
  if (us > 0) std::this_thread::sleep_for(std::chrono::microseconds(us));
}

Result mock_Memcpy(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes) {
  NEED_CTX(ctx);
  std::function<Result()> op;
  if (Result r = make_copy(dst, src, bytes, &op); r != kOk) return r;
  BUMP(sync_calls);
  Resolved d, s;
  std::string why;
  if (bytes > 0 && resolve(dst, bytes, false, &d, &why) == kOk && resolve(src, bytes, false, &s, &why) == kOk &&
      s.space == Space::Pageable && d.space == Space::Device) {
    // As CUDA documents it: from pageable host memory to device memory the call
    // synchronizes the legacy stream, stages the source and returns; the transfer
    // may still be in flight (a later call on the legacy stream, or a
    // synchronization with it, sees it done).
    if (Result r = wait_ticket(ctx->legacy, enqueue(ctx->legacy, [] { return kOk; })); r != kOk) return r;
    auto staged = std::make_shared<std::vector<char>>(s.ptr, s.ptr + bytes);
    enqueue(ctx->legacy, [dst, bytes, staged]() -> Result {
      in_flight_lag();
      Resolved d2;
      std::string why2;
      if (resolve(dst, bytes, false, &d2, &why2) != kOk) return device_fault("memcpy (destination)", why2);
      std::memcpy(d2.ptr, staged->data(), bytes);
      count_copy(d2.space, Space::Pageable, bytes);
      return kOk;
    });
    return kOk;
  }
  return wait_ticket(ctx->legacy, enqueue(ctx->legacy, std::move(op)));
}

Result mock_MemcpyAsync(cu::DevicePtr dst, cu::DevicePtr src, std::size_t bytes, cu::Stream s) {
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  std::function<Result()> op;
  if (Result r = make_copy(dst, src, bytes, &op); r != kOk) return r;
  enqueue(st, std::move(op));
  return kOk;
}

Result mock_MemsetD8(cu::DevicePtr dst, unsigned char value, std::size_t n) {
  NEED_CTX(ctx);
  Resolved d;
  std::string why;
  if (n > 0) {
    if (resolve(dst, n, false, &d, &why) != kOk || d.space == Space::Pageable) {
      TRACE("memset: %s", why.empty() ? "pageable host memory" : why.c_str());
      return kInvalidValue;
    }
  }
  BUMP(sync_calls);
  // Of device memory, as CUDA documents it, asynchronous with respect to the host:
  // queued on the legacy stream, and the call returns.
  const bool in_flight = n > 0 && d.space == Space::Device;
  auto op = [dst, value, n, in_flight]() -> Result {
    if (n == 0) return kOk;
    if (in_flight) in_flight_lag();
    Resolved d2;
    std::string why2;
    if (resolve(dst, n, false, &d2, &why2) != kOk) return device_fault("memset", why2);
    std::memset(d2.ptr, value, n);
    BUMP(memset);
    return kOk;
  };
  std::uint64_t ticket = enqueue(ctx->legacy, op);
  if (in_flight) return kOk;
  return wait_ticket(ctx->legacy, ticket);
}

// ---- streams ------------------------------------------------------------------

Result mock_StreamCreate(cu::Stream* s, unsigned flags) {
  if (!s || (flags & ~cu::kStreamNonBlocking)) return kInvalidValue;
  NEED_CTX(ctx);
  std::lock_guard<std::mutex> lk(G().mu);
  *s = new_stream(ctx, flags, false);
  return kOk;
}

Result mock_StreamDestroy(cu::Stream s) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!s || !G().streams.count(s) || s->legacy || s->destroyed) return kInvalidHandle;
  // Queued work still runs; the worker ends once drained. The object itself is
  // never freed: events recorded on it may still be queried.
  s->destroyed = true;
  auto& b = s->ctx->blocking;
  b.erase(std::remove(b.begin(), b.end(), s), b.end());
  G().cv.notify_all();
  return kOk;
}

Result mock_StreamSynchronize(cu::Stream s) {
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream_any(s, &st); r != kOk) return r;
  BUMP(sync_calls);
  std::uint64_t t;
  {
    std::lock_guard<std::mutex> lk(G().mu);
    t = st->enqueued;
  }
  return wait_ticket(st, t);
}

Result mock_StreamQuery(cu::Stream s) {
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream_any(s, &st); r != kOk) return r;
  if (G().sticky.load() != kOk) return G().sticky.load();
  std::lock_guard<std::mutex> lk(G().mu);
  if (st->done < st->enqueued) return kNotReady;
  return st->error;
}

// For cuStreamWaitEvent and cuEventRecord: stream s of the current context and a
// live event e, with G().mu held through *lk on success.
static Result stream_and_event(cu::Stream s, cu::Event e, CUstream_st** st,
                               std::unique_lock<std::mutex>* lk) {
  NEED_CTX(ctx);
  if (Result r = resolve_stream(s, ctx, st); r != kOk) return r;
  std::unique_lock<std::mutex> held(G().mu);
  if (!e || !G().events.count(e)) return kInvalidHandle;
  *lk = std::move(held);
  return kOk;
}

Result mock_StreamWaitEvent(cu::Stream s, cu::Event e, unsigned flags) {
  if (flags != 0) return kInvalidValue;
  CUstream_st* st = nullptr;
  std::unique_lock<std::mutex> lk;
  if (Result r = stream_and_event(s, e, &st, &lk); r != kOk) return r;
  BUMP(stream_wait_event);
  std::vector<Dep> deps;
  if (e->stream) deps.push_back({e->stream, e->ticket});
  enqueue_locked(st, [] { return kOk; }, std::move(deps));
  return kOk;
}

static bool wait_value_met(std::uint32_t cur, std::uint32_t value, unsigned flags) {
  switch (flags & 0xf) {
    case 0: return static_cast<std::int32_t>(cur - value) >= 0;  // GEQ (cyclic)
    case 1: return cur == value;                                  // EQ
    case 2: return (cur & value) != 0;                            // AND
    case 3: return ~(cur | value) != 0;                           // NOR
    default: return true;
  }
}

Result mock_StreamWriteValue32(cu::Stream s, cu::DevicePtr addr, unsigned value, unsigned flags) {
  if (flags & ~1u) return kInvalidValue;  // CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  Resolved d;
  std::string why;
  if (resolve(addr, 4, true, &d, &why) != kOk || (addr & 3)) return kInvalidValue;
  enqueue(st, [addr, value]() -> Result {
    Resolved d2;
    std::string why2;
    if (resolve(addr, 4, true, &d2, &why2) != kOk) return device_fault("cuStreamWriteValue32", why2);
    __atomic_store_n(reinterpret_cast<std::uint32_t*>(d2.ptr), value, __ATOMIC_RELEASE);
    BUMP(write_value);
    return kOk;
  });
  return kOk;
}

Result mock_StreamWaitValue32(cu::Stream s, cu::DevicePtr addr, unsigned value, unsigned flags) {
  if ((flags & 0xf) > 3 || (flags & ~(0xfu | (1u << 30)))) return kInvalidValue;
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  Resolved d;
  std::string why;
  if (resolve(addr, 4, true, &d, &why) != kOk || (addr & 3)) return kInvalidValue;
  enqueue(st, [st, addr, value, flags]() -> Result {
    Resolved d2;
    std::string why2;
    if (resolve(addr, 4, true, &d2, &why2) != kOk) return device_fault("cuStreamWaitValue32", why2);
    BUMP(wait_value);
    auto* p = reinterpret_cast<std::uint32_t*>(d2.ptr);
    {
      std::lock_guard<std::mutex> lk(G().mu);
      st->waiting_on = "cuStreamWaitValue32";
    }
    // Host writes do not notify: poll, backing off to 50 us sleeps.
    for (int spin = 0; !wait_value_met(__atomic_load_n(p, __ATOMIC_ACQUIRE), value, flags); ++spin) {
      if (spin < 100) std::this_thread::yield();
      else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    std::lock_guard<std::mutex> lk(G().mu);
    st->waiting_on = nullptr;
    return kOk;
  });
  return kOk;
}

// ---- events ---------------------------------------------------------------------

Result mock_EventCreate(cu::Event* e, unsigned flags) {
  if (!e || (flags & ~0x7u)) return kInvalidValue;
  NEED_CTX(ctx);
  auto* ev = new CUevent_st;
  ev->ctx = ctx;
  ev->flags = flags;
  return publish(G().events, ev, e);
}

Result mock_EventDestroy(cu::Event e) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (Result r = check_live_locked(G().events, e); r != kOk) return r;
  G().events.erase(e);
  e->destroyed = true;
  if (e->pending == 0) delete e;  // else the last record op deletes it
  return kOk;
}

Result mock_EventRecord(cu::Event e, cu::Stream s) {
  CUstream_st* st = nullptr;
  std::unique_lock<std::mutex> lk;
  if (Result r = stream_and_event(s, e, &st, &lk); r != kOk) return r;
  BUMP(event_record);
  const std::uint64_t gen = ++e->generation;
  e->timed = false;
  ++e->pending;
  e->stream = st;
  e->ticket = enqueue_locked(st, [e, gen]() -> Result {
    std::lock_guard<std::mutex> lk2(G().mu);
    if (e->generation == gen) {
      e->when = std::chrono::steady_clock::now();
      e->timed = true;
    }
    if (--e->pending == 0 && e->destroyed) delete e;
    return kOk;
  });
  return kOk;
}

Result mock_EventQuery(cu::Event e) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (Result r = check_live_locked(G().events, e); r != kOk) return r;
  if (G().sticky.load() != kOk) return G().sticky.load();
  if (e->stream && e->stream->done < e->ticket) return kNotReady;
  return kOk;
}

Result mock_EventSynchronize(cu::Event e) {
  CUstream_st* st = nullptr;
  std::uint64_t t = 0;
  {
    std::lock_guard<std::mutex> lk(G().mu);
    if (Result r = check_live_locked(G().events, e); r != kOk) return r;
    st = e->stream;
    t = e->ticket;
  }
  BUMP(sync_calls);
  if (!st) return kOk;
  return wait_ticket(st, t);
}

Result mock_EventElapsedTime(float* ms, cu::Event start, cu::Event end) {
  if (!ms) return kInvalidValue;
  std::lock_guard<std::mutex> lk(G().mu);
  if (!G().initialized) return kNotInitialized;
  if (!start || !end || !G().events.count(start) || !G().events.count(end)) return kInvalidHandle;
  if ((start->flags | end->flags) & cu::kEventDisableTiming) return kInvalidHandle;
  if (!start->stream || !end->stream) return kInvalidHandle;
  if (start->stream->done < start->ticket || end->stream->done < end->ticket) return kNotReady;
  if (!start->timed || !end->timed) return kNotReady;
  *ms = std::chrono::duration<float, std::milli>(end->when - start->when).count();
  return kOk;
}

// ---- modules and kernels -------------------------------------------------------

Result mock_ModuleLoadData(cu::Module* m, const void* image) {
  if (!m || !image) return kInvalidValue;
  NEED_CTX(ctx);
  (void)ctx;
  if (const char* e = std::getenv("MOCKCUDA_MODULE_LOAD_ERROR"); e && *e) return std::atoi(e);
  return publish(G().modules, new CUmod_st, m);
}

Result mock_ModuleUnload(cu::Module m) {
  std::lock_guard<std::mutex> lk(G().mu);
  if (Result r = check_live_locked(G().modules, m); r != kOk) return r;
  G().modules.erase(m);
  m->loaded = false;  // leaked on purpose: functions from it must fail, not crash
  return kOk;
}

Result mock_ModuleGetFunction(cu::Function* f, cu::Module m, const char* name) {
  if (!f || !name) return kInvalidValue;
  NEED_CTX(ctx);
  (void)ctx;
  {
    std::lock_guard<std::mutex> lk(G().mu);
    if (!m || !G().modules.count(m)) return kInvalidHandle;
  }
  auto it = functions().find(name);
  if (it == functions().end()) return kNotFound;
  *f = it->second;
  return kOk;
}

Result mock_LaunchKernel(cu::Function f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                         unsigned by, unsigned bz, unsigned shared_bytes, cu::Stream s,
                         void** params, void** extra) {
  NEED_CTX(ctx);
  CUstream_st* st = nullptr;
  if (Result r = resolve_stream(s, ctx, &st); r != kOk) return r;
  bool known = false;
  for (const auto& kv : functions()) known = known || kv.second == f;
  if (!known) return kInvalidHandle;
  if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || gx > 2147483647u ||
      gy > 65535 || gz > 65535 || bx > 1024 || by > 1024 || bz > 64 ||
      static_cast<unsigned long long>(bx) * by * bz > 1024 || shared_bytes > 49152) {
    TRACE("launch %s: bad configuration grid (%u,%u,%u) block (%u,%u,%u) shared %u",
          f->name.c_str(), gx, gy, gz, bx, by, bz, shared_bytes);
    return kInvalidValue;
  }
  if (!params || extra) return kInvalidValue;  // only kernelParams is supported
  Launch L = read_params(f, params);
  TRACE("launch %s", f->name.c_str());
  enqueue(st, [L]() { return run_kernel(L); });
  return kOk;
}

}  // extern "C"

// Every entry point of the X-macro must be defined: taking each address turns a
// missing one into a link error.
#define MOCK_ADDRESS(member, symbol, params) reinterpret_cast<const void*>(&mock_##member),
[[maybe_unused]] __attribute__((used)) static const void* const kAllEntryPoints[] = {
    CHORUS_CU_FUNCTIONS(MOCK_ADDRESS)};
#undef MOCK_ADDRESS
