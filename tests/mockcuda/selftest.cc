// Self-test of libchorus_mockcuda.so (argv[1]): the driver semantics the GPU tests
// rely on. Prints "FAIL: ..." per broken expectation and exits non-zero.
#include <dlfcn.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>

#include "gpu/driver.h"

namespace cu = chorus::gpu::cu;
static chorus::gpu::Driver d;
static int failures = 0;

#define EXPECT(cond)                                               \
  do {                                                             \
    if (!(cond)) {                                                 \
      std::printf("FAIL: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                  \
    }                                                              \
  } while (0)

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* h = dlopen(argv[1], RTLD_NOW);
  if (!h) {
    std::printf("FAIL: %s\n", dlerror());
    return 1;
  }
#define RESOLVE(member, symbol, params) \
  d.member = reinterpret_cast<decltype(d.member)>(dlsym(h, symbol)); \
  EXPECT(d.member != nullptr);
  CHORUS_CU_FUNCTIONS(RESOLVE)
  if (failures) return 1;

  cu::DevicePtr p = 0;
  EXPECT(d.MemAlloc(&p, 16) == 3);  // before cuInit
  EXPECT(d.Init(0) == 0);
  int n = 0;
  EXPECT(d.DeviceGetCount(&n) == 0 && n >= 1);
  EXPECT(d.MemAlloc(&p, 16) == 201);  // no current context
  cu::Context ctx = nullptr;
  EXPECT(d.DevicePrimaryCtxRetain(&ctx, 0) == 0);
  EXPECT(d.CtxSetCurrent(ctx) == 0);

  // Device memory: copies round-trip; the host cannot touch it.
  const std::size_t N = 3 << 20;
  EXPECT(d.MemAlloc(&p, N) == 0);
  std::vector<unsigned char> a(N), b(N);
  for (std::size_t i = 0; i < N; ++i) a[i] = static_cast<unsigned char>(i * 7 + (i >> 11));
  EXPECT(d.Memcpy(p, reinterpret_cast<cu::DevicePtr>(a.data()), N) == 0);
  EXPECT(d.Memcpy(reinterpret_cast<cu::DevicePtr>(b.data()), p, N) == 0);
  EXPECT(a == b);
  const pid_t child = fork();
  if (child == 0) {
    // The default action, not a sanitizer's handler (which would report and exit).
    signal(SIGSEGV, SIG_DFL);
    volatile unsigned char x = *reinterpret_cast<unsigned char*>(p);
    (void)x;
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);

  // Attributes, buffer ids, address reuse.
  unsigned type = 0;
  unsigned long long id1 = 0, id2 = 0;
  EXPECT(d.PointerGetAttribute(&type, cu::kPointerAttrMemoryType, p + 5) == 0 &&
         type == cu::kMemoryTypeDevice);
  EXPECT(d.PointerGetAttribute(&id1, cu::kPointerAttrBufferId, p) == 0 && id1 != 0);
  EXPECT(d.MemFree(p) == 0);
  cu::DevicePtr q = 0;
  EXPECT(d.MemAllocAsync(&q, N, nullptr) == 0);
  EXPECT(q == p);  // same size: the address comes back
  EXPECT(d.PointerGetAttribute(&id2, cu::kPointerAttrBufferId, q) == 0 && id2 != id1);
  cu::MemPool pool = nullptr;
  EXPECT(d.PointerGetAttribute(&pool, cu::kPointerAttrMempoolHandle, q) == 0 && pool != nullptr);
  int host_var = 0;
  auto hp = reinterpret_cast<cu::DevicePtr>(&host_var);
  EXPECT(d.PointerGetAttribute(&type, cu::kPointerAttrMemoryType, hp) == 1);
  int attrs[2] = {cu::kPointerAttrMemoryType, cu::kPointerAttrBufferId};
  type = 77;
  id1 = 77;
  void* data[2] = {&type, &id1};
  EXPECT(d.PointerGetAttributes(2, attrs, data, hp) == 0 && type == 0 && id1 == 0);
  cu::DevicePtr m = 0;
  EXPECT(d.MemAllocManaged(&m, 64, cu::kMemAttachGlobal) == 0);
  reinterpret_cast<int*>(m)[3] = 5;  // host-accessible
  bool managed = false;
  EXPECT(d.PointerGetAttribute(&managed, cu::kPointerAttrIsManaged, m) == 0 && managed);

  // Streams: a delay kernel, then a copy, then an event; wait value / write value.
  cu::Module mod = nullptr;
  cu::Function delay = nullptr, sum16 = nullptr, sumbf = nullptr, nf = nullptr;
  EXPECT(d.ModuleLoadData(&mod, "x") == 0);
  EXPECT(d.ModuleGetFunction(&delay, mod, "chorus_test_delay") == 0);
  EXPECT(d.ModuleGetFunction(&sum16, mod, "chorus_reduce_sum_f16") == 0);
  EXPECT(d.ModuleGetFunction(&sumbf, mod, "chorus_reduce_sum_bf16") == 0);
  EXPECT(d.ModuleGetFunction(&nf, mod, "no_such_kernel") == 500);
  cu::Stream s = nullptr;
  EXPECT(d.StreamCreate(&s, cu::kStreamNonBlocking) == 0);
  unsigned long long ns = 200000000;  // 200 ms
  void* dp[] = {&ns};
  cu::Event ev = nullptr;
  EXPECT(d.EventCreate(&ev, 0) == 0);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT(d.LaunchKernel(delay, 1, 1, 1, 1, 1, 1, 0, s, dp, nullptr) == 0);
  EXPECT(d.EventRecord(ev, s) == 0);
  EXPECT(d.EventQuery(ev) == 600);
  EXPECT(d.StreamQuery(s) == 600);
  EXPECT(d.EventSynchronize(ev) == 0);
  EXPECT(std::chrono::steady_clock::now() - t0 >= std::chrono::milliseconds(190));
  void* flag_host = nullptr;
  EXPECT(d.MemHostAlloc(&flag_host, 4, cu::kMemHostAllocDeviceMap | cu::kMemHostAllocPortable) == 0);
  auto* flag = static_cast<volatile unsigned*>(flag_host);
  *flag = 0;
  cu::DevicePtr fdev = 0;
  EXPECT(d.MemHostGetDevicePointer(&fdev, flag_host, 0) == 0);
  EXPECT(d.StreamWaitValue32(s, fdev, 2, cu::kStreamWaitValueGeq) == 0);
  EXPECT(d.StreamWriteValue32(s, fdev, 9, 0) == 0);
  usleep(50000);
  EXPECT(d.StreamQuery(s) == 600 && *flag == 0);
  *flag = 2;
  EXPECT(d.StreamSynchronize(s) == 0 && *flag == 9);

  // Half and bfloat16 sums, rounded to nearest even.
  cu::DevicePtr x = 0, y = 0;
  EXPECT(d.MemAlloc(&x, 8) == 0 && d.MemAlloc(&y, 8) == 0);
  _Float16 hx[2] = {_Float16(1.0f), _Float16(2048.0f)}, hy[2] = {_Float16(0.5f), _Float16(1.0f)};  // 2049 -> 2048 (even)
  EXPECT(d.Memcpy(x, reinterpret_cast<cu::DevicePtr>(hx), 4) == 0);
  EXPECT(d.Memcpy(y, reinterpret_cast<cu::DevicePtr>(hy), 4) == 0);
  // From pageable memory the copies may still be in flight on the legacy stream,
  // which the non-blocking stream `s` does not wait for.
  EXPECT(d.StreamSynchronize(nullptr) == 0);
  unsigned long long cnt = 2;
  void* rp[] = {&x, &y, &cnt};
  EXPECT(d.LaunchKernel(sum16, 1, 1, 1, 32, 1, 1, 0, s, rp, nullptr) == 0);
  EXPECT(d.StreamSynchronize(s) == 0);
  EXPECT(d.Memcpy(reinterpret_cast<cu::DevicePtr>(hy), y, 4) == 0);
  EXPECT(static_cast<float>(hy[0]) == 1.5f && static_cast<float>(hy[1]) == 2048.0f);
  const unsigned short bx[2] = {0x3f80, 0x4380}, by[2] = {0x3f80, 0x3f80};  // 1+1, 256+1
  EXPECT(d.Memcpy(x, reinterpret_cast<cu::DevicePtr>(bx), 4) == 0);
  EXPECT(d.Memcpy(y, reinterpret_cast<cu::DevicePtr>(by), 4) == 0);
  EXPECT(d.LaunchKernel(sumbf, 1, 1, 1, 32, 1, 1, 0, nullptr, rp, nullptr) == 0);
  unsigned short br[2] = {0, 0};
  EXPECT(d.Memcpy(reinterpret_cast<cu::DevicePtr>(br), y, 4) == 0);
  EXPECT(br[0] == 0x4000 && br[1] == 0x4380);  // 2.0; 257 -> 256 (even)

  // A kernel on pageable host memory is an illegal address (sticky).
  void* hostp[] = {&hp, &y, &cnt};
  EXPECT(d.LaunchKernel(sum16, 1, 1, 1, 32, 1, 1, 0, s, hostp, nullptr) == 0);
  EXPECT(d.StreamSynchronize(s) == 700);

  std::printf("%s (%d failure(s))\n", failures ? "FAILED" : "mockcuda selftest passed", failures);
  return failures ? 1 : 0;
}
