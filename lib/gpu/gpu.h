// lib/gpu: what the rest of Chorus knows about CUDA. Everything here works (and
// answers "host") on machines without a GPU or driver; the driver is loaded at
// run time (driver.h), the kernels are built from lib/gpu/*.cu when the toolkit is
// found (meson option cuda=auto|enabled|disabled) and loaded as an embedded
// fatbin module, so one build serves both kinds of machine.
//
// Conventions
//  - All device work of the runtime runs on Chorus's own non-blocking streams in
//    the device's primary context (the one the CUDA runtime uses), so user streams
//    are never blocked by Chorus and device pointers from cudaMalloc work as-is.
//  - As with every CUDA-aware MPI, the caller has finished writing a buffer (e.g.
//    synchronized its stream) before passing it to an MPI call; the stream-ordered
//    MPIX_*_enqueue calls are the exception and are ordered by their stream.
//  - Functions returning Status return Status::Ok, or an error (Status::Other,
//    or NoMem for allocations) whose message, last_error(), names the CUDA call
//    and the driver's error text, e.g. "cuMemcpyAsync: CUDA_ERROR_ILLEGAL_ADDRESS
//    (an illegal memory access was encountered)".
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"
#include "gpu/cuda_abi.h"

namespace chorus {
struct TypeInfo;
}

namespace chorus::gpu {

// ---- start-up ----------------------------------------------------------------
// Load the driver (CHORUS_CUDA_LIBRARY), count devices, pick this rank's device
// (CHORUS_GPU_BIND=auto: local_rank modulo the visible devices, CUDA_VISIBLE_DEVICES
// being applied by the driver itself; none: leave the current context alone and
// use device 0 only if the caller already made a context current... see driver.cc),
// retain its primary context and make it current, create the runtime's streams and
// load the kernel module. Never fails: any problem means host-only, logged once at
// INFO with the reason. Called by MPI_Init (and MPI_Session_init) once per process.
void init(int local_rank, int local_size);
void finalize();

namespace detail { extern bool g_enabled; }
// A device is usable (the driver loaded, a device selected, a context current).
inline bool enabled() { return detail::g_enabled; }
int device();                   // CUDA ordinal in use, -1 when host-only
int device_count();             // devices CUDA sees, 0 when host-only
std::string describe();         // "H200 (sm_90, 132 SMs, 139.8 GiB, bus 0x1b), driver 13.0, kernels loaded"
std::string host_only_reason(); // why enabled() is false ("" when it is true)
bool kernels_loaded();          // the fatbin module loaded (reductions on device)
// Why they did not load ("" when they did, or without a device).
std::string kernels_unavailable_reason();

// Make the runtime's context current on the calling thread (helper threads).
Status bind_thread();
// Chorus's context stays current on threads that had none once Chorus needed it
// (and on this one now): for a UCX that moves device memory itself, whose CUDA
// transports need a current context while they progress. Otherwise every driver
// call of Chorus's leaves the thread's context as it found it.
void keep_context_on_bare_threads();
// Message of the last failing lib/gpu call on this thread.
std::string last_error();

// ---- memory kinds ------------------------------------------------------------
enum class MemKind : std::uint8_t {
  Host,        // pageable host memory (or any pointer the driver does not know)
  HostPinned,  // cuMemHostAlloc / cudaMallocHost / registered host memory
  Device,      // cuMemAlloc / cudaMalloc
  Managed,     // cuMemAllocManaged / cudaMallocManaged
  DevicePool,  // cuMemAllocAsync / cudaMallocAsync (stream-ordered pools)
};
const char* kind_name(MemKind k);  // "host", "host-pinned", "device", "managed", "device-pool"
// Memory that host code must not touch directly (Chorus copies it with the driver).
inline bool is_device(MemKind k) {
  return k == MemKind::Device || k == MemKind::Managed || k == MemKind::DevicePool;
}

struct MemInfo {
  MemKind kind = MemKind::Host;
  int device = -1;              // ordinal of the owning device (device kinds)
  std::uintptr_t base = 0;      // allocation start and size (0 for Host)
  std::size_t size = 0;
  std::uint64_t buffer_id = 0;  // the driver's process-unique allocation id
};

// Classify a pointer. Cached per allocation: a hit costs one cheap driver query
// (the allocation's buffer id) to prove the entry is not stale after a free and a
// new allocation at the same address; host-only processes pay one branch.
MemInfo query(const void* p);
inline MemKind kind_of(const void* p) { return enabled() ? query(p).kind : MemKind::Host; }
inline bool on_device(const void* p) { return enabled() && is_device(query(p).kind); }

// ---- runtime memory (pooled; sizes are rounded up internally) ------------------
// Device memory for staging and collective temporaries.
Status device_alloc(std::size_t bytes, void** out);
void device_free(void* p);
// Pinned host memory (portable, device-mapped) for staging pipelines.
Status pinned_alloc(std::size_t bytes, void** out);
void pinned_free(void* p);

// ---- copies and events ---------------------------------------------------------
// Copy between any two kinds (unified addressing); returns when done.
Status copy(void* dst, const void* src, std::size_t bytes);

// One of the runtime's streams with events, for pipelines. Chunks issued on a
// Lane run in order; done(i) polls chunk i's event.
class Lane {
 public:
  Lane();  // takes a stream from the runtime's set (round robin)
  ~Lane();
  Lane(const Lane&) = delete;
  Lane& operator=(const Lane&) = delete;
  // Queue an asynchronous copy and record an event after it; returns its ticket.
  Status copy_async(void* dst, const void* src, std::size_t bytes, std::uint32_t* ticket);
  // Event reached (polls, never blocks). Also true once the lane has failed, so
  // that no poll loop spins forever: wait() and copy_async() then return the error.
  bool done(std::uint32_t ticket);
  Status wait(std::uint32_t ticket);      // block until reached
  Status wait_all();
  cu::Stream stream() const { return stream_; }
 private:
  cu::Stream stream_ = nullptr;
  struct Impl;
  Impl* impl_ = nullptr;
};

// Chunk plan of a staged transfer: [0, bytes) in chunks of `chunk` bytes (the
// last one shorter). Pure arithmetic, unit-tested.
struct ChunkPlan {
  std::size_t bytes = 0, chunk = 0;
  std::size_t count() const { return chunk ? (bytes + chunk - 1) / chunk : (bytes ? 1 : 0); }
  std::size_t offset(std::size_t i) const { return i * chunk; }
  std::size_t length(std::size_t i) const {
    if (!chunk) return i == 0 ? bytes : 0;  // chunk 0: the whole transfer at once
    std::size_t off = offset(i);
    return off >= bytes ? 0 : (bytes - off < chunk ? bytes - off : chunk);
  }
  std::size_t chunk_of(std::size_t off) const { return chunk ? off / chunk : 0; }
};
std::size_t chunk_bytes();  // CHORUS_GPU_CHUNK_BYTES

// ---- reductions on device data ---------------------------------------------------
// inout[i] = in[i] (op) inout[i] over `count` elements of the predefined type
// `basic`, by a CUDA kernel on the runtime's stream; returns when done. Both
// pointers are device (or managed) memory.
bool reduce_supported(MPI_Op op, MPI_Datatype basic);  // a kernel exists
Status reduce(MPI_Op op, MPI_Datatype basic, const void* in, void* inout, std::size_t count);

// ---- non-contiguous datatypes on the device --------------------------------------
// type_pack / type_unpack for device buffers, run by a gather/scatter kernel over
// the type's segments (user and packed are both device memory).
Status pack(const TypeInfo& t, const void* user, std::size_t count, void* packed);
Status unpack(const TypeInfo& t, const void* packed, std::size_t count, void* user);

// ---- stream-ordered signalling (MPIX_*_enqueue) ---------------------------------
// A 32-bit flag in pinned, device-mapped host memory: a user stream can write it
// when it reaches a point, and wait on it until the host writes it.
struct Signal {
  volatile std::uint32_t* host = nullptr;
  cu::DevicePtr dev = 0;
};
Status signal_alloc(Signal* s);
void signal_free(Signal* s);
// Enqueue on `stream`: set *flag = value when the stream reaches this point.
Status stream_write(cu::Stream stream, const Signal& s, std::uint32_t value);
// Enqueue on `stream`: wait until (int32)(*flag - value) >= 0 before going on.
Status stream_wait(cu::Stream stream, const Signal& s, std::uint32_t value);

// Work on an application's CUDA stream, for stream-ordered calls that stage device
// buffers through pinned host memory (lib/mpi/stream.cc): a copy queued on the
// stream, and a mark (an event recorded on it) that says when the stream has run
// past that point. mark_passed never blocks; it is also true when the stream
// failed (nothing more will touch the buffers).
Status copy_on(cu::Stream stream, void* dst, const void* src, std::size_t bytes);
Status mark(cu::Stream stream, cu::Event* out);
bool mark_passed(cu::Event e);
void mark_free(cu::Event e);

}  // namespace chorus::gpu
