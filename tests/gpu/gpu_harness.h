// Harness for the GPU job tests (tests/gpu) and the stream-ordered call tests
// (tests/gpu_stream): plain MPI programs that use device memory as a user would,
// with the CUDA driver loaded the way Chorus loads it (dlopen of
// CHORUS_CUDA_LIBRARY, default libcuda.so.1), so the same binary runs against a
// GPU or against the CPU test double tests/mockcuda.
//
//  - gpu_main.cc probes the driver before MPI_Init. Without a driver or a device
//    every rank exits 0 after rank 0 prints one line
//        SKIP: no CUDA device (<reason>)
//    Built with GPU_MAIN_RUN_WHEN_OFF (tests/gpu_stream), CHORUS_GPU=off is the
//    exception: the tests run in a host-only process (have_device() is false) so
//    that those tagged [nogpu] can check it.
//    Otherwise the Catch2 job main of tests/jobs runs (mpi_main.cc), and before
//    the first test every rank binds the device Chorus binds by default (local
//    rank modulo the device count) through its primary context.
//  - Any driver error in a helper fails the job with a message naming the call
//    (MPI_Abort), as a test cannot continue without its buffers.
//  - Test kernels (test_kernels.cu) come from a fatbin built with the toolkit;
//    under the mock any image works. Without kernels fill_f32/scale_f32 fall
//    back to host arithmetic plus copies; delay() and the *_on stream variants
//    are unavailable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

namespace gpu_test {

// Memory kinds a test can ask for.
enum class Mem {
  Device,   // cuMemAlloc (cudaMalloc)
  Managed,  // cuMemAllocManaged (cudaMallocManaged)
  Pool,     // cuMemAllocAsync on the default stream (cudaMallocAsync)
  Pinned,   // cuMemHostAlloc, portable + device-mapped (cudaMallocHost)
  Host,     // operator new (pageable)
};
const char* mem_name(Mem m);  // "device", "managed", "pool", "pinned", "host"
// Memory the host must not dereference (use copy / to_host instead).
inline bool host_unsafe(Mem m) { return m == Mem::Device || m == Mem::Pool; }

// Before MPI_Init: load the driver, cuInit, count devices. False with *why when
// there is no usable device (CHORUS_GPU=off included).
bool probe(std::string* why);
// After MPI_Init (collective over MPI_COMM_WORLD): bind the device and context,
// load the test kernels, print one line on rank 0 describing the setup. Does
// nothing under CHORUS_GPU=off.
void setup();

bool gpu_off();           // CHORUS_GPU=off in the environment
bool have_device();       // probe() and setup() bound a device
bool is_mock();           // the driver is tests/mockcuda
bool have_kernels();      // fill/scale/delay run as kernels
int device();             // ordinal bound by this rank
std::string driver_path();
// A mock counter (mockcuda_stat), or ~0ULL when not under the mock.
unsigned long long mock_stat(const char* name);

// Raw helpers. alloc(…, 0) returns a valid 1-byte allocation.
void* alloc(Mem m, std::size_t bytes);
void release(Mem m, void* p);
void copy(void* dst, const void* src, std::size_t bytes);  // cuMemcpy: synchronous
void memset8(void* dst, unsigned char v, std::size_t bytes);
void sync();  // the legacy default stream (cudaDeviceSynchronize-like for tests)
// n floats of device (or host-visible) memory copied to the host.
std::vector<float> to_host(const float* p, std::size_t n);

// The calling thread's current CUDA context (cuCtxGetCurrent; null: none), and
// making one current (cuCtxSetCurrent; null unbinds the thread).
void* current_context();
void set_current_context(void* ctx);

// A non-blocking CUDA stream of the test (cuStreamCreate), as a cudaStream_t value.
void* stream_create();
void stream_destroy(void* stream);
void stream_sync(void* stream);
// Record an event on `stream` and wait for it (the host sees what the stream did
// up to here).
void event_sync(void* stream);

// Kernels on the default stream, synchronized before returning.
void fill_f32(float* p, std::size_t n, float v);
void scale_f32(float* p, std::size_t n, float s);
// The same kernels enqueued on `stream` (not synchronized). Need kernels.
void fill_f32_on(void* stream, float* p, std::size_t n, float v);
void scale_f32_on(void* stream, float* p, std::size_t n, float s);
// Enqueue a kernel that sleeps `ns` on `stream` (not synchronized). Needs kernels.
void delay(void* stream, unsigned long long ns);

// A buffer of one kind, freed by the destructor. Not copyable.
class Buffer {
 public:
  Buffer(Mem m, std::size_t bytes);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  Buffer(Buffer&& o) noexcept;
  Buffer& operator=(Buffer&& o) noexcept;

  Mem kind() const { return kind_; }
  std::size_t bytes() const { return bytes_; }
  void* get() const { return p_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(p_);
  }
  // Copy a host image in / out (sizes must match bytes()).
  void upload(const void* host, std::size_t n);
  void upload(const std::vector<unsigned char>& img) { upload(img.data(), img.size()); }
  std::vector<unsigned char> download() const;
  void fill(unsigned char v);

 private:
  Mem kind_;
  void* p_ = nullptr;
  std::size_t bytes_ = 0;
};

// Fails the job: "[rank r] gpu harness: <what>" on stderr and MPI_Abort.
[[noreturn]] void fatal(const std::string& what);

}  // namespace gpu_test
