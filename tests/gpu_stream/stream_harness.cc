#include "stream_harness.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "gpu/driver.h"  // the CHORUS_CU_FUNCTIONS list and cuda_abi.h

namespace stream_test {
namespace {

namespace cu = chorus::gpu::cu;

chorus::gpu::Driver g_d;  // our own table, filled by probe()
bool g_probed = false, g_ready = false;
std::string g_path;
bool g_mock = false;
cu::Context g_ctx = nullptr;
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
  if (!g_d.GetErrorName || g_d.GetErrorName(r, &name) != 0 || !name) return "CUDA error " + std::to_string(r);
  return name;
}

void check(cu::Result r, const char* call) {
  if (r != 0) fatal(std::string(call) + ": " + err_text(r));
}

#define CU(fn, ...) check(g_d.fn(__VA_ARGS__), "cu" #fn)

void launch(cu::Function f, void* s, void** params) {
  if (!f) fatal("a test kernel is not loaded (check have_kernels() first)");
  CU(LaunchKernel, f, 64, 1, 1, 256, 1, 1, 0, static_cast<cu::Stream>(s), params, nullptr);
}

}  // namespace

void fatal(const std::string& what) {
  std::fprintf(stderr, "[rank %d] stream harness: %s\n", world_rank(), what.c_str());
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
  void* h = dlopen(g_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    *why = e ? e : g_path + ": cannot be loaded";
    return false;
  }
  std::string missing;
#define STREAM_TEST_RESOLVE(member, symbol, params)                       \
  g_d.member = reinterpret_cast<decltype(g_d.member)>(dlsym(h, symbol)); \
  if (!g_d.member) missing += missing.empty() ? symbol : ", " symbol;
  CHORUS_CU_FUNCTIONS(STREAM_TEST_RESOLVE)
#undef STREAM_TEST_RESOLVE
  if (!missing.empty()) {
    *why = g_path + ": " + missing + " missing";
    return false;
  }
  g_mock = dlsym(h, "mockcuda_stat") != nullptr;
  if (cu::Result r = g_d.Init(0); r != 0) {
    *why = "cuInit: " + err_text(r);
    return false;
  }
  int n = 0;
  if (cu::Result r = g_d.DeviceGetCount(&n); r != 0 || n <= 0) {
    *why = r != 0 ? "cuDeviceGetCount: " + err_text(r) : "the driver reports no device";
    return false;
  }
  g_probed = true;
  return true;
}

void setup() {
  if (!g_probed || gpu_off()) return;
  // The device Chorus binds by default: local rank modulo the device count.
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int lrank = 0, n = 0;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_free(&local);
  CU(DeviceGetCount, &n);
  cu::Device dev = 0;
  CU(DeviceGet, &dev, lrank % n);
  CU(DevicePrimaryCtxRetain, &g_ctx, dev);
  CU(CtxSetCurrent, g_ctx);
  std::vector<char> image;
#ifdef STREAM_TEST_FATBIN
  {
    std::ifstream in(STREAM_TEST_FATBIN, std::ios::binary);
    image.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
#endif
  if (image.empty() && g_mock) {
    const char kAny[] = "the mock accepts any image";
    image.assign(kAny, kAny + sizeof kAny);
  }
  cu::Module m = nullptr;
  if (!image.empty() && g_d.ModuleLoadData(&m, image.data()) == 0) {
    CU(ModuleGetFunction, &g_fill, m, "chorus_test_fill_f32");
    CU(ModuleGetFunction, &g_scale, m, "chorus_test_scale_f32");
    CU(ModuleGetFunction, &g_delay, m, "chorus_test_delay");
  }
  g_ready = true;
  if (world_rank() == 0)
    std::printf("stream harness: %s, device %d, kernels %s\n", g_mock ? "mock driver" : g_path.c_str(),
                lrank % n, g_fill ? "loaded" : "not loaded");
}

bool have_device() { return g_ready; }
bool have_kernels() { return g_ready && g_fill && g_scale && g_delay; }
bool is_mock() { return g_mock; }

void* stream_create() {
  cu::Stream s = nullptr;
  CU(StreamCreate, &s, cu::kStreamNonBlocking);
  return s;
}

void stream_destroy(void* s) { CU(StreamDestroy, static_cast<cu::Stream>(s)); }
void stream_sync(void* s) { CU(StreamSynchronize, static_cast<cu::Stream>(s)); }

void event_sync(void* s) {
  cu::Event e = nullptr;
  CU(EventCreate, &e, cu::kEventDisableTiming);
  CU(EventRecord, e, static_cast<cu::Stream>(s));
  CU(EventSynchronize, e);
  CU(EventDestroy, e);
}

float* dev_alloc(std::size_t n) {
  cu::DevicePtr p = 0;
  CU(MemAlloc, &p, n ? n * sizeof(float) : 1);
  return reinterpret_cast<float*>(p);
}

void dev_free(float* p) { CU(MemFree, reinterpret_cast<cu::DevicePtr>(p)); }

void dev_zero(float* p, std::size_t n) {
  CU(MemsetD8, reinterpret_cast<cu::DevicePtr>(p), 0, n * sizeof(float));
}

std::vector<float> to_host(const float* p, std::size_t n) {
  std::vector<float> v(n);
  if (n)
    CU(Memcpy, reinterpret_cast<cu::DevicePtr>(v.data()), reinterpret_cast<cu::DevicePtr>(p),
       n * sizeof(float));
  return v;
}

void to_device(float* p, const std::vector<float>& v) {
  if (!v.empty())
    CU(Memcpy, reinterpret_cast<cu::DevicePtr>(p), reinterpret_cast<cu::DevicePtr>(v.data()),
       v.size() * sizeof(float));
}

void fill(void* s, float* p, std::size_t n, float v) {
  unsigned long long nn = n;
  void* params[] = {&p, &nn, &v};
  launch(g_fill, s, params);
}

void scale(void* s, float* p, std::size_t n, float f) {
  unsigned long long nn = n;
  void* params[] = {&p, &nn, &f};
  launch(g_scale, s, params);
}

void delay(void* s, unsigned long long ns) {
  void* params[] = {&ns};
  if (!g_delay) fatal("chorus_test_delay is not loaded");
  CU(LaunchKernel, g_delay, 1, 1, 1, 1, 1, 1, 0, static_cast<cu::Stream>(s), params, nullptr);
}

MPIX_Stream mpix_stream(void* s) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", &s, sizeof s);
  MPIX_Stream ms = MPIX_STREAM_NULL;
  if (MPIX_Stream_create(info, &ms) != MPI_SUCCESS) fatal("MPIX_Stream_create failed");
  MPI_Info_free(&info);
  return ms;
}

}  // namespace stream_test
