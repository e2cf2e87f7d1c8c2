// GPU test harness: the driver loaded as Chorus loads it, device selection,
// buffers of every kind, streams and events, test kernels. See gpu_harness.h.
#include "gpu_harness.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <utility>

#include "gpu/driver.h"  // the CHORUS_CU_FUNCTIONS table and cuda_abi.h

namespace gpu_test {
namespace {

namespace cu = chorus::gpu::cu;

chorus::gpu::Driver g_d;  // plain function table, filled here (not Chorus's)
bool g_loaded = false, g_ready = false;
std::string g_path;
unsigned long long (*g_mock_stat)(const char*) = nullptr;
int g_device = -1;
cu::Context g_ctx = nullptr;
cu::Module g_module = nullptr;
cu::Function g_fill = nullptr, g_scale = nullptr, g_delay = nullptr;

int world_rank() {
  int init = 0, fin = 0, r = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

std::string err_text(cu::Result r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (g_d.GetErrorName && g_d.GetErrorName(r, &name) != 0) name = nullptr;
  if (g_d.GetErrorString && g_d.GetErrorString(r, &text) != 0) text = nullptr;
  std::string s = name ? name : "CUDA error " + std::to_string(r);
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void check(cu::Result r, const char* call) {
  if (r != 0) fatal(std::string(call) + ": " + err_text(r));
}

#define CU(call, ...) check(g_d.call(__VA_ARGS__), #call)

}  // namespace

const char* mem_name(Mem m) {
  switch (m) {
    case Mem::Device: return "device";
    case Mem::Managed: return "managed";
    case Mem::Pool: return "pool";
    case Mem::Pinned: return "pinned";
    case Mem::Host: return "host";
  }
  return "?";
}

void fatal(const std::string& what) {
  std::fprintf(stderr, "[rank %d] gpu harness: %s\n", world_rank(), what.c_str());
  std::fflush(stderr);
  int init = 0, fin = 0;
  MPI_Initialized(&init);
  MPI_Finalized(&fin);
  if (init && !fin) MPI_Abort(MPI_COMM_WORLD, 1);
  std::exit(1);
}

bool gpu_off() {
  const char* v = std::getenv("CHORUS_GPU");
  return v && std::strcmp(v, "off") == 0;
}

bool probe(std::string* why) {
  const char* env = std::getenv("CHORUS_CUDA_LIBRARY");
  g_path = env && *env ? env : "libcuda.so.1";
  if (gpu_off()) {
    *why = "CHORUS_GPU=off";
    return false;
  }
  void* h = dlopen(g_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *why = e ? e : g_path + ": cannot be loaded";
    return false;
  }
  std::string missing;
#define GPU_TEST_RESOLVE(member, symbol, params)                            \
  g_d.member = reinterpret_cast<decltype(g_d.member)>(dlsym(h, symbol));  \
  if (!g_d.member) missing += missing.empty() ? symbol : ", " symbol;
  CHORUS_CU_FUNCTIONS(GPU_TEST_RESOLVE)
#undef GPU_TEST_RESOLVE
  if (!missing.empty()) {
    *why = g_path + ": " + missing + " missing";
    return false;
  }
  g_mock_stat = reinterpret_cast<unsigned long long (*)(const char*)>(dlsym(h, "mockcuda_stat"));
  if (cu::Result r = g_d.Init(0); r != 0) {
    *why = "cuInit: " + err_text(r);
    return false;
  }
  int n = 0;
  if (cu::Result r = g_d.DeviceGetCount(&n); r != 0) {
    *why = "cuDeviceGetCount: " + err_text(r);
    return false;
  }
  if (n <= 0) {
    *why = "the driver reports no device";
    return false;
  }
  g_loaded = true;
  return true;
}

void setup() {
  if (gpu_off()) return;  // a host-only process (GPU_MAIN_RUN_WHEN_OFF)
  if (!g_loaded) fatal("setup() without a successful probe()");
  // Same rule as Chorus's CHORUS_GPU_BIND=auto: local rank modulo device count.
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int lrank = 0;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_free(&local);
  int n = 0;
  CU(DeviceGetCount, &n);
  g_device = lrank % n;
  cu::Device dev = 0;
  CU(DeviceGet, &dev, g_device);
  CU(DevicePrimaryCtxRetain, &g_ctx, dev);
  CU(CtxSetCurrent, g_ctx);

  std::vector<char> image;
#ifdef GPU_TEST_FATBIN
  {
    std::ifstream in(GPU_TEST_FATBIN, std::ios::binary);
    image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
#endif
  if (image.empty() && is_mock()) {
    const char kAny[] = "mockcuda accepts any image";
    image.assign(kAny, kAny + sizeof kAny);
  }
  if (!image.empty()) {
    cu::Result r = g_d.ModuleLoadData(&g_module, image.data());
    if (r == 0) {
      CU(ModuleGetFunction, &g_fill, g_module, "chorus_test_fill_f32");
      CU(ModuleGetFunction, &g_scale, g_module, "chorus_test_scale_f32");
      CU(ModuleGetFunction, &g_delay, g_module, "chorus_test_delay");
    } else if (world_rank() == 0) {
      std::printf("gpu harness: test kernels not loaded (cuModuleLoadData: %s)\n",
                  err_text(r).c_str());
    }
  }
  g_ready = true;
  if (world_rank() == 0) {
    char name[128] = "?";
    (void)g_d.DeviceGetName(name, sizeof name, dev);
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    // Looked up, not linked: the tests build before Chorus has the extension.
    auto query = reinterpret_cast<int (*)()>(dlsym(RTLD_DEFAULT, "MPIX_Query_cuda_support"));
    std::printf("gpu harness: %s%s, %d device(s), rank 0 on device %d (%s), %d rank(s), "
                "test kernels %s, MPIX_Query_cuda_support() = %d\n",
                g_path.c_str(), is_mock() ? " (mock)" : "", n, g_device, name, size,
                have_kernels() ? "loaded" : "absent (host fallback)", query ? query() : -1);
    std::fflush(stdout);
  }
}

bool is_mock() { return g_mock_stat != nullptr; }
bool have_device() { return g_ready; }
bool have_kernels() { return g_fill && g_scale && g_delay; }
int device() { return g_device; }
std::string driver_path() { return g_path; }

unsigned long long mock_stat(const char* name) {
  return g_mock_stat ? g_mock_stat(name) : ~0ULL;
}

void* alloc(Mem m, std::size_t bytes) {
  const std::size_t n = bytes ? bytes : 1;
  cu::DevicePtr d = 0;
  void* h = nullptr;
  switch (m) {
    case Mem::Device:
      CU(MemAlloc, &d, n);
      return reinterpret_cast<void*>(d);
    case Mem::Managed:
      CU(MemAllocManaged, &d, n, cu::kMemAttachGlobal);
      return reinterpret_cast<void*>(d);
    case Mem::Pool:
      CU(MemAllocAsync, &d, n, nullptr);
      CU(StreamSynchronize, nullptr);
      return reinterpret_cast<void*>(d);
    case Mem::Pinned:
      CU(MemHostAlloc, &h, n, cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap);
      return h;
    case Mem::Host:
      return ::operator new(n);
  }
  return nullptr;
}

void release(Mem m, void* p) {
  if (!p) return;
  const auto d = reinterpret_cast<cu::DevicePtr>(p);
  switch (m) {
    case Mem::Device:
    case Mem::Managed:
      CU(MemFree, d);
      return;
    case Mem::Pool:
      CU(MemFreeAsync, d, nullptr);
      CU(StreamSynchronize, nullptr);
      return;
    case Mem::Pinned:
      CU(MemFreeHost, p);
      return;
    case Mem::Host:
      ::operator delete(p);
      return;
  }
}

// cuMemcpy from pageable memory to the device, and cuMemsetD8 of device memory,
// may return before the bytes land; Chorus reads them on its own non-blocking
// streams, which do not wait for the legacy stream: wait for it here.
void copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return;
  CU(Memcpy, reinterpret_cast<cu::DevicePtr>(dst), reinterpret_cast<cu::DevicePtr>(src), bytes);
  CU(StreamSynchronize, nullptr);
}

void memset8(void* dst, unsigned char v, std::size_t bytes) {
  if (bytes == 0) return;
  CU(MemsetD8, reinterpret_cast<cu::DevicePtr>(dst), v, bytes);
  CU(StreamSynchronize, nullptr);
}

void sync() { stream_sync(nullptr); }

void* current_context() {
  cu::Context c = nullptr;
  CU(CtxGetCurrent, &c);
  return c;
}

void set_current_context(void* ctx) { CU(CtxSetCurrent, static_cast<cu::Context>(ctx)); }

std::vector<float> to_host(const float* p, std::size_t n) {
  std::vector<float> v(n);
  copy(v.data(), p, n * sizeof(float));
  return v;
}

void* stream_create() {
  cu::Stream s = nullptr;
  CU(StreamCreate, &s, cu::kStreamNonBlocking);
  return s;
}

void stream_destroy(void* stream) { CU(StreamDestroy, static_cast<cu::Stream>(stream)); }

void stream_sync(void* stream) { CU(StreamSynchronize, static_cast<cu::Stream>(stream)); }

void event_sync(void* stream) {
  cu::Event e = nullptr;
  CU(EventCreate, &e, cu::kEventDisableTiming);
  CU(EventRecord, e, static_cast<cu::Stream>(stream));
  CU(EventSynchronize, e);
  CU(EventDestroy, e);
}

namespace {

void launch(cu::Function f, void* stream, void** params, std::size_t n) {
  if (!f) fatal("a test kernel is not loaded (check have_kernels() first)");
  const unsigned block = 256;
  std::size_t blocks = (n + block - 1) / block;
  if (blocks == 0) blocks = 1;
  if (blocks > 65535) blocks = 65535;  // grid-stride loops
  CU(LaunchKernel, f, static_cast<unsigned>(blocks), 1, 1, block, 1, 1, 0,
     static_cast<cu::Stream>(stream), params, nullptr);
}

// One element-wise float kernel (p, n, x) enqueued on `stream`.
void launch_f32(cu::Function f, void* stream, float* p, std::size_t n, float x) {
  if (n == 0) return;
  auto ptr = reinterpret_cast<cu::DevicePtr>(p);
  unsigned long long count = n;
  void* params[] = {&ptr, &count, &x};
  launch(f, stream, params, n);
}

}  // namespace

void fill_f32_on(void* stream, float* p, std::size_t n, float v) {
  launch_f32(g_fill, stream, p, n, v);
}

void scale_f32_on(void* stream, float* p, std::size_t n, float s) {
  launch_f32(g_scale, stream, p, n, s);
}

void fill_f32(float* p, std::size_t n, float v) {
  if (n == 0) return;
  if (!have_kernels()) {
    std::vector<float> h(n, v);
    copy(p, h.data(), n * sizeof(float));
    return;
  }
  fill_f32_on(nullptr, p, n, v);
  sync();
}

void scale_f32(float* p, std::size_t n, float s) {
  if (n == 0) return;
  if (!have_kernels()) {
    std::vector<float> h(n);
    copy(h.data(), p, n * sizeof(float));
    for (float& x : h) x *= s;
    copy(p, h.data(), n * sizeof(float));
    return;
  }
  scale_f32_on(nullptr, p, n, s);
  sync();
}

void delay(void* stream, unsigned long long ns) {
  if (!g_delay) fatal("delay(): no test kernels loaded");
  void* params[] = {&ns};
  CU(LaunchKernel, g_delay, 1, 1, 1, 1, 1, 1, 0, static_cast<cu::Stream>(stream), params,
     nullptr);
}

// ---- Buffer ----------------------------------------------------------------------

Buffer::Buffer(Mem m, std::size_t bytes) : kind_(m), p_(alloc(m, bytes)), bytes_(bytes) {}

Buffer::~Buffer() { release(kind_, p_); }

Buffer::Buffer(Buffer&& o) noexcept
    : kind_(o.kind_), p_(std::exchange(o.p_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}

Buffer& Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    release(kind_, p_);
    kind_ = o.kind_;
    p_ = std::exchange(o.p_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void Buffer::upload(const void* host, std::size_t n) {
  if (n != bytes_) fatal("Buffer::upload: size mismatch");
  if (kind_ == Mem::Host) {
    if (n) std::memcpy(p_, host, n);
    return;
  }
  copy(p_, host, n);
}

std::vector<unsigned char> Buffer::download() const {
  std::vector<unsigned char> out(bytes_);
  if (kind_ == Mem::Host) {
    if (bytes_) std::memcpy(out.data(), p_, bytes_);
  } else {
    copy(out.data(), p_, bytes_);
  }
  return out;
}

void Buffer::fill(unsigned char v) {
  if (kind_ == Mem::Host) {
    std::memset(p_, v, bytes_);
  } else {
    memset8(p_, v, bytes_);
  }
}

}  // namespace gpu_test
