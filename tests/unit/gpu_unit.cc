// Unit tests for lib/gpu logic that needs no GPU: the memory-kind cache (with a
// fake driver query), chunk planning, and host-only start-up when the driver is
// missing or CHORUS_GPU=off.
#include <catch2/catch.hpp>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/params.h"
#include "gpu/driver.h"
#include "gpu/gpu.h"
#include "gpu/memkind_cache.h"

using namespace chorus;
using namespace chorus::gpu;
using detail::KindCache;
using detail::PointerAttrs;

namespace {

// A driver's view of allocations: alloc/free at chosen addresses, each
// allocation with a fresh buffer id, as the real driver hands out.
class FakeProbe final : public detail::PointerProbe {
 public:
  struct Alloc {
    std::size_t size;
    PointerAttrs attrs;
  };

  std::uint64_t alloc(std::uintptr_t base, std::size_t size, unsigned type, int device = 0,
                      bool managed = false, bool pool = false) {
    std::lock_guard<std::mutex> lock(mu);
    PointerAttrs a;
    a.memory_type = type;
    a.managed = managed;
    a.buffer_id = ++next_id;
    a.device = device;
    a.range_start = base;
    a.range_size = size;
    a.from_pool = pool;
    allocs[base] = Alloc{size, a};
    return a.buffer_id;
  }
  void free(std::uintptr_t base) {
    std::lock_guard<std::mutex> lock(mu);
    allocs.erase(base);
  }

  bool attributes(std::uintptr_t p, PointerAttrs* out) override {
    std::lock_guard<std::mutex> lock(mu);
    ++attr_calls;
    if (refuse) return false;
    const Alloc* a = find(p);
    *out = a ? a->attrs : PointerAttrs{};  // unknown (pageable) memory: type 0
    if (!a) out->device = -2;
    return true;
  }
  bool buffer_id(std::uintptr_t p, std::uint64_t* out) override {
    std::lock_guard<std::mutex> lock(mu);
    ++id_calls;
    const Alloc* a = find(p);
    if (!a) return false;  // CUDA_ERROR_INVALID_VALUE for addresses it does not know
    *out = a->attrs.buffer_id;
    return true;
  }

  std::mutex mu;
  std::map<std::uintptr_t, Alloc> allocs;
  std::uint64_t next_id = 100;
  int attr_calls = 0, id_calls = 0;
  bool refuse = false;

 private:
  const Alloc* find(std::uintptr_t p) const {
    auto it = allocs.upper_bound(p);
    if (it == allocs.begin()) return nullptr;
    --it;
    return p - it->first < it->second.size ? &it->second : nullptr;
  }
};

constexpr std::uintptr_t kBase = 0x7f0000000000;

struct EnvGuard {
  EnvGuard(const char* name, const char* value) : name_(name) {
    setenv(name, value, 1);
    params::reload();
  }
  ~EnvGuard() {
    unsetenv(name_);
    params::reload();
  }
  const char* name_;
};

}  // namespace

TEST_CASE("memkind cache: a hit costs one buffer-id query", "[memkind]") {
  FakeProbe f;
  KindCache c(f);
  std::uint64_t id = f.alloc(kBase, 4096, cu::kMemoryTypeDevice, 1);

  MemInfo m = c.query(kBase + 100);
  CHECK(m.kind == MemKind::Device);
  CHECK(m.device == 1);
  CHECK(m.base == kBase);
  CHECK(m.size == 4096);
  CHECK(m.buffer_id == id);
  CHECK(f.attr_calls == 1);
  CHECK(c.size() == 1);

  for (std::uintptr_t off : {std::uintptr_t{0}, std::uintptr_t{1}, std::uintptr_t{4095}}) {
    MemInfo h = c.query(kBase + off);
    CHECK(h.kind == MemKind::Device);
    CHECK(h.buffer_id == id);
  }
  CHECK(f.attr_calls == 1);
  CHECK(f.id_calls == 3);
  CHECK(c.stats().hits == 3);

  // One past the end is not in the range: a miss, and plain host memory.
  CHECK(c.query(kBase + 4096).kind == MemKind::Host);
  CHECK(f.attr_calls == 2);
}

TEST_CASE("memkind cache: free and reallocation at the same address", "[memkind]") {
  FakeProbe f;
  KindCache c(f);
  f.alloc(kBase, 1 << 20, cu::kMemoryTypeDevice, 0);
  REQUIRE(c.query(kBase + 10).kind == MemKind::Device);

  SECTION("freed: the address is host memory again, the entry goes") {
    f.free(kBase);
    CHECK(c.query(kBase + 10).kind == MemKind::Host);
    CHECK(c.size() == 0);
    CHECK(c.stats().stale == 1);
  }
  SECTION("reallocated as managed memory at the same base") {
    f.free(kBase);
    std::uint64_t id = f.alloc(kBase, 1 << 20, cu::kMemoryTypeDevice, 0, /*managed=*/true);
    MemInfo m = c.query(kBase + 10);
    CHECK(m.kind == MemKind::Managed);
    CHECK(m.buffer_id == id);
    CHECK(c.size() == 1);
    CHECK(c.query(kBase + 20).kind == MemKind::Managed);
    CHECK(f.attr_calls == 2);
  }
  SECTION("reallocated with the same kind but a new id and a smaller range") {
    f.free(kBase);
    std::uint64_t id = f.alloc(kBase, 4096, cu::kMemoryTypeDevice, 0);
    MemInfo m = c.query(kBase + 10);
    CHECK(m.buffer_id == id);
    CHECK(m.size == 4096);
    // Beyond the new range: no longer device memory.
    CHECK(c.query(kBase + 8192).kind == MemKind::Host);
  }
  SECTION("one larger allocation over two cached ones replaces both") {
    f.alloc(kBase + (1 << 20), 1 << 20, cu::kMemoryTypeDevice, 0);
    REQUIRE(c.query(kBase + (1 << 20) + 5).kind == MemKind::Device);
    REQUIRE(c.size() == 2);
    f.free(kBase);
    f.free(kBase + (1 << 20));
    std::uint64_t id = f.alloc(kBase, 2 << 20, cu::kMemoryTypeHost, -2);
    MemInfo m = c.query(kBase + (1 << 20) + 5);  // stale hit on the second entry
    CHECK(m.kind == MemKind::HostPinned);
    CHECK(m.buffer_id == id);
    CHECK(c.size() == 1);  // the first entry overlapped the new range and went too
    CHECK(c.query(kBase).buffer_id == id);
  }
}

TEST_CASE("memkind cache: every kind", "[memkind]") {
  FakeProbe f;
  KindCache c(f);
  f.alloc(kBase, 256, cu::kMemoryTypeDevice, 2);
  f.alloc(kBase + 0x10000, 256, cu::kMemoryTypeDevice, 3, /*managed=*/true);
  f.alloc(kBase + 0x20000, 256, cu::kMemoryTypeUnified, 0);
  f.alloc(kBase + 0x30000, 256, cu::kMemoryTypeDevice, 1, false, /*pool=*/true);
  f.alloc(kBase + 0x40000, 256, cu::kMemoryTypeHost, 0);
  f.alloc(kBase + 0x50000, 256, cu::kMemoryTypeArray, 0);

  MemInfo dev = c.query(kBase);
  CHECK(dev.kind == MemKind::Device);
  CHECK(dev.device == 2);
  MemInfo managed = c.query(kBase + 0x10000);
  CHECK(managed.kind == MemKind::Managed);
  CHECK(managed.device == 3);
  CHECK(c.query(kBase + 0x20000).kind == MemKind::Managed);
  MemInfo pool = c.query(kBase + 0x30000 + 255);
  CHECK(pool.kind == MemKind::DevicePool);
  CHECK(pool.device == 1);
  MemInfo pinned = c.query(kBase + 0x40000);
  CHECK(pinned.kind == MemKind::HostPinned);
  CHECK(pinned.device == -1);
  CHECK(c.query(kBase + 0x50000).kind == MemKind::Host);
  CHECK(c.size() == 5);

  CHECK(is_device(MemKind::Device));
  CHECK(is_device(MemKind::Managed));
  CHECK(is_device(MemKind::DevicePool));
  CHECK_FALSE(is_device(MemKind::Host));
  CHECK_FALSE(is_device(MemKind::HostPinned));
  CHECK(std::string(kind_name(MemKind::Host)) == "host");
  CHECK(std::string(kind_name(MemKind::HostPinned)) == "host-pinned");
  CHECK(std::string(kind_name(MemKind::Device)) == "device");
  CHECK(std::string(kind_name(MemKind::Managed)) == "managed");
  CHECK(std::string(kind_name(MemKind::DevicePool)) == "device-pool");
}

TEST_CASE("memkind cache: pageable host memory is never cached", "[memkind]") {
  FakeProbe f;
  KindCache c(f);
  int x = 0;
  auto p = reinterpret_cast<std::uintptr_t>(&x);
  for (int i = 0; i < 3; ++i) {
    MemInfo m = c.query(p);
    CHECK(m.kind == MemKind::Host);
    CHECK(m.device == -1);
    CHECK(m.size == 0);
  }
  CHECK(c.size() == 0);
  CHECK(f.attr_calls == 3);
  CHECK(f.id_calls == 0);

  // The driver refusing the query also means host.
  f.alloc(kBase, 64, cu::kMemoryTypeDevice);
  f.refuse = true;
  CHECK(c.query(kBase).kind == MemKind::Host);
  CHECK(c.size() == 0);
}

TEST_CASE("memkind cache: a range that does not hold the pointer is not cached", "[memkind]") {
  PointerAttrs a;
  a.memory_type = cu::kMemoryTypeDevice;
  a.range_start = kBase;
  a.range_size = 64;
  a.device = 0;
  MemInfo in = detail::classify(kBase + 63, a);
  CHECK(in.kind == MemKind::Device);
  CHECK(in.size == 64);
  MemInfo out = detail::classify(kBase + 64, a);
  CHECK(out.kind == MemKind::Device);
  CHECK(out.size == 0);
  a.range_size = 0;
  CHECK(detail::classify(kBase, a).size == 0);
}

TEST_CASE("memkind cache: bounded, least recently used goes first", "[memkind]") {
  FakeProbe f;
  KindCache c(f, 4);
  for (int i = 0; i < 4; ++i) f.alloc(kBase + i * 0x1000, 0x100, cu::kMemoryTypeDevice);
  for (int i = 0; i < 4; ++i) c.query(kBase + i * 0x1000);
  REQUIRE(c.size() == 4);
  c.query(kBase);  // entry 0 is now the most recent; entry 1 the oldest
  f.alloc(kBase + 0x10000, 0x100, cu::kMemoryTypeDevice);
  c.query(kBase + 0x10000);
  CHECK(c.size() == 4);
  CHECK(c.stats().evictions == 1);
  int before = f.attr_calls;
  c.query(kBase);  // still cached
  CHECK(f.attr_calls == before);
  c.query(kBase + 0x1000);  // evicted: asks the driver again
  CHECK(f.attr_calls == before + 1);
  c.clear();
  CHECK(c.size() == 0);
}

TEST_CASE("memkind cache: concurrent lookups with frees and reallocations", "[memkind]") {
  FakeProbe f;
  KindCache c(f, 16);
  constexpr int kRanges = 32;
  for (int i = 0; i < kRanges; ++i) f.alloc(kBase + i * 0x1000, 0x1000, cu::kMemoryTypeDevice);
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 3; ++t)
    readers.emplace_back([&, t] {
      unsigned i = t;
      while (!stop.load()) {
        i = i * 1103515245u + 12345u;
        std::uintptr_t p = kBase + (i % kRanges) * 0x1000 + (i >> 20) % 0x1000;
        MemInfo m = c.query(p);
        // Every range is device or managed memory at all times in this test.
        if (m.kind != MemKind::Device && m.kind != MemKind::Managed) ++wrong;
      }
    });
  for (int round = 0; round < 2000; ++round) {
    int r = round % kRanges;
    // Reallocate in place, switching kind, under the readers' feet. The swap is
    // atomic in the fake (one lock), as a free+alloc pair seen from another
    // thread is either before or after.
    std::lock_guard<std::mutex> lock(f.mu);
    auto& a = f.allocs[kBase + r * 0x1000];
    a.attrs.buffer_id = ++f.next_id;
    a.attrs.managed = !a.attrs.managed;
  }
  stop = true;
  for (auto& th : readers) th.join();
  CHECK(wrong == 0);
  // After the churn every answer is current.
  for (int i = 0; i < kRanges; ++i) {
    MemInfo m = c.query(kBase + i * 0x1000);
    std::lock_guard<std::mutex> lock(f.mu);
    CHECK(m.buffer_id == f.allocs[kBase + i * 0x1000].attrs.buffer_id);
    CHECK((m.kind == MemKind::Managed) == f.allocs[kBase + i * 0x1000].attrs.managed);
  }
}

TEST_CASE("chunk plan arithmetic", "[chunk]") {
  ChunkPlan p{10, 4};
  CHECK(p.count() == 3);
  CHECK(p.offset(0) == 0);
  CHECK(p.offset(2) == 8);
  CHECK(p.length(0) == 4);
  CHECK(p.length(1) == 4);
  CHECK(p.length(2) == 2);
  CHECK(p.length(3) == 0);
  CHECK(p.chunk_of(0) == 0);
  CHECK(p.chunk_of(3) == 0);
  CHECK(p.chunk_of(4) == 1);
  CHECK(p.chunk_of(9) == 2);

  ChunkPlan exact{8, 4};
  CHECK(exact.count() == 2);
  CHECK(exact.length(1) == 4);
  CHECK(exact.length(2) == 0);

  ChunkPlan empty{0, 4};
  CHECK(empty.count() == 0);
  CHECK(empty.length(0) == 0);

  ChunkPlan whole{10, 0};  // no chunking: one piece
  CHECK(whole.count() == 1);
  CHECK(whole.length(0) == 10);
  CHECK(whole.length(1) == 0);
  CHECK(whole.chunk_of(7) == 0);

  ChunkPlan big{(std::size_t{1} << 30) + 1, std::size_t{1} << 20};
  CHECK(big.count() == 1025);
  CHECK(big.length(1024) == 1);
  std::size_t sum = 0;
  for (std::size_t i = 0; i < big.count(); ++i) {
    CHECK(big.offset(i) == sum);
    sum += big.length(i);
  }
  CHECK(sum == big.bytes);
}

TEST_CASE("chunk size comes from CHORUS_GPU_CHUNK_BYTES", "[chunk]") {
  CHECK(chunk_bytes() == (std::size_t{1} << 20));
  EnvGuard env("CHORUS_GPU_CHUNK_BYTES", "64K");
  CHECK(chunk_bytes() == 65536);
}

namespace {
// What every call must do in a host-only process.
void check_host_only() {
  CHECK_FALSE(enabled());
  CHECK(device() == -1);
  CHECK_FALSE(kernels_loaded());
  int x = 5;
  CHECK(kind_of(&x) == MemKind::Host);
  CHECK(query(&x).kind == MemKind::Host);
  CHECK_FALSE(on_device(&x));
  CHECK(describe().find("host only") != std::string::npos);

  int y = 0;
  CHECK(copy(&y, &x, sizeof x) == Status::Ok);
  CHECK(y == 5);

  void* p = reinterpret_cast<void*>(1);
  CHECK(device_alloc(64, &p) == Status::Other);
  CHECK(p == nullptr);
  CHECK(pinned_alloc(64, &p) == Status::Other);
  CHECK_FALSE(last_error().empty());
  CHECK(bind_thread() == Status::Other);

  Lane lane;
  CHECK(lane.stream() == nullptr);
  std::uint32_t t = 0;
  CHECK(lane.copy_async(&y, &x, sizeof x, &t) == Status::Other);
  CHECK(lane.wait_all() == Status::Ok);

  Signal s;
  CHECK(signal_alloc(&s) == Status::Other);
  CHECK(s.host == nullptr);
}
}  // namespace

TEST_CASE("host only: CHORUS_GPU=off", "[host-only]") {
  EnvGuard env("CHORUS_GPU", "off");
  init(0, 1);
  CHECK(host_only_reason() == "CHORUS_GPU=off");
  check_host_only();
  finalize();
  CHECK(host_only_reason() == "not initialized");
}

TEST_CASE("host only: the driver library does not exist", "[host-only]") {
  EnvGuard env("CHORUS_CUDA_LIBRARY", "/nonexistent/libcuda-chorus-test.so.1");
  init(1, 2);
  std::string why = host_only_reason();
  INFO(why);
  CHECK(why.find("libcuda-chorus-test.so.1") != std::string::npos);
  CHECK_FALSE(driver_loaded());
  check_host_only();
  init(1, 2);  // once per process: a second call changes nothing
  CHECK(host_only_reason() == why);
  finalize();
}

TEST_CASE("host only: a library without the driver's entry points", "[host-only]") {
  // libm is on every Linux machine and exports none of cuInit & co.
  EnvGuard env("CHORUS_CUDA_LIBRARY", "libm.so.6");
  init(0, 1);
  std::string why = host_only_reason();
  INFO(why);
  CHECK(why.find("libm.so.6") != std::string::npos);
  CHECK(why.find("not a CUDA driver") != std::string::npos);
  check_host_only();
  finalize();
}

TEST_CASE("error text without a driver", "[driver]") {
  if (driver_loaded()) return;  // error_text then names the error
  CHECK(error_text(2) == "CUDA error 2");
  std::string why;
  CHECK_FALSE(load_driver("", &why));
  CHECK_FALSE(why.empty());
}

// ---- with a driver ------------------------------------------------------------------
// Hidden tests ([.driver]): run by `gpu_unit_driver` against the CPU test double of
// the driver (tests/mockcuda, CHORUS_CUDA_LIBRARY), and by hand on a GPU machine
// (`gpu_unit "[.driver]"`). The real driver is not bound to reuse freed addresses,
// so checks that depend on reuse only run when it happened.
namespace {

// init() leaves the thread's context as it found it (none here): the tests below
// call the driver directly too, so they make Chorus's current, as an application
// that uses the device would have its own.
struct Started {
  explicit Started(int local_rank = 0, int local_size = 1) {
    init(local_rank, local_size);
    if (enabled()) (void)bind_thread();
  }
  ~Started() { finalize(); }
};

// False (with a SKIP line) when the driver named by CHORUS_CUDA_LIBRARY was not built.
bool driver_present() {
  const char* lib = std::getenv("CHORUS_CUDA_LIBRARY");
  if (lib && lib[0] == '/' && access(lib, R_OK) != 0) {
    WARN("SKIP: " << lib << " does not exist");
    return false;
  }
  return true;
}

std::uintptr_t addr(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
void* ptr(cu::DevicePtr d) { return reinterpret_cast<void*>(d); }

}  // namespace

TEST_CASE("driver: start-up selects a device", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  INFO(host_only_reason());
  REQUIRE(enabled());
  CHECK(device() == 0);
  CHECK(host_only_reason().empty());
  CHECK(describe().find("driver") != std::string::npos);
  CHECK(bind_thread() == Status::Ok);
  finalize();
  CHECK_FALSE(enabled());
  init(0, 1);  // again after finalize
  CHECK(enabled());
}

TEST_CASE("driver: CHORUS_GPU_BIND", "[.driver]") {
  if (!driver_present()) return;
  int count = 0;
  {
    Started g;
    REQUIRE(enabled());
    REQUIRE(driver().DeviceGetCount(&count) == cu::kSuccess);
  }
  {
    Started g(count + 1, count + 2);  // auto: local rank modulo the device count
    CHECK(device() == (count + 1) % count);
  }
  if (count < 2) return;
  // none: the device of the context current at start-up.
  EnvGuard env("CHORUS_GPU_BIND", "none");
  cu::Device d1 = 0;
  cu::Context c1 = nullptr;
  REQUIRE(driver().DeviceGet(&d1, 1) == cu::kSuccess);
  REQUIRE(driver().DevicePrimaryCtxRetain(&c1, d1) == cu::kSuccess);
  REQUIRE(driver().CtxSetCurrent(c1) == cu::kSuccess);
  {
    Started g(0, 1);
    CHECK(device() == 1);
  }
  // none, nothing current on this thread: device 0.
  std::thread([] {
    Started g(1, 2);
    CHECK(device() == 0);
  }).join();
  (void)driver().DevicePrimaryCtxRelease(d1);
}

TEST_CASE("driver: memory kinds of every allocation", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  REQUIRE(enabled());
  const Driver& d = driver();

  int stack = 0;
  std::vector<char> heap(1 << 16);
  CHECK(kind_of(&stack) == MemKind::Host);
  CHECK(kind_of(heap.data() + 100) == MemKind::Host);
  CHECK(kind_of(nullptr) == MemKind::Host);

  void* dev = nullptr;
  REQUIRE(device_alloc(1000, &dev) == Status::Ok);
  MemInfo m = query(static_cast<char*>(dev) + 999);
  CHECK(m.kind == MemKind::Device);
  CHECK(m.device == 0);
  CHECK(m.base == addr(dev));
  CHECK(m.size >= 1000);
  CHECK(on_device(dev));

  void* pinned = nullptr;
  REQUIRE(pinned_alloc(100, &pinned) == Status::Ok);
  CHECK(kind_of(pinned) == MemKind::HostPinned);
  CHECK(query(pinned).device == -1);

  cu::DevicePtr managed = 0;
  REQUIRE(d.MemAllocManaged(&managed, 4096, cu::kMemAttachGlobal) == cu::kSuccess);
  CHECK(kind_of(ptr(managed)) == MemKind::Managed);

  Lane lane;
  cu::DevicePtr pool = 0;
  REQUIRE(d.MemAllocAsync(&pool, 4096, lane.stream()) == cu::kSuccess);
  REQUIRE(d.StreamSynchronize(lane.stream()) == cu::kSuccess);
  CHECK(kind_of(ptr(pool)) == MemKind::DevicePool);
  CHECK(d.MemFreeAsync(pool, lane.stream()) == cu::kSuccess);
  CHECK(d.StreamSynchronize(lane.stream()) == cu::kSuccess);

  CHECK(d.MemFree(managed) == cu::kSuccess);
  device_free(dev);
  pinned_free(pinned);
}

TEST_CASE("driver: no stale kind after free and reallocation", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  REQUIRE(enabled());
  const Driver& d = driver();
  cu::DevicePtr a = 0;
  REQUIRE(d.MemAlloc(&a, 1 << 16) == cu::kSuccess);
  std::uint64_t id = query(ptr(a)).buffer_id;
  CHECK(kind_of(ptr(a + 100)) == MemKind::Device);
  REQUIRE(d.MemFree(a) == cu::kSuccess);
  CHECK(kind_of(ptr(a + 100)) == MemKind::Host);

  cu::DevicePtr b = 0;
  REQUIRE(d.MemAllocManaged(&b, 1 << 16, cu::kMemAttachGlobal) == cu::kSuccess);
  if (b == a) {
    MemInfo m = query(ptr(a + 100));
    CHECK(m.kind == MemKind::Managed);
    CHECK(m.buffer_id != id);
  }
  CHECK(kind_of(ptr(b)) == MemKind::Managed);
  REQUIRE(d.MemFree(b) == cu::kSuccess);
  cu::DevicePtr c = 0;
  REQUIRE(d.MemAlloc(&c, 1 << 16) == cu::kSuccess);
  CHECK(kind_of(ptr(c + 5)) == MemKind::Device);
  REQUIRE(d.MemFree(c) == cu::kSuccess);
}

TEST_CASE("driver: pools reuse blocks of a size class", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  REQUIRE(enabled());
  void* a = nullptr;
  void* b = nullptr;
  REQUIRE(device_alloc(5000, &a) == Status::Ok);
  device_free(a);
  REQUIRE(device_alloc(8192, &b) == Status::Ok);  // same class (8 KiB)
  CHECK(b == a);
  device_free(b);
  REQUIRE(pinned_alloc(300, &a) == Status::Ok);
  pinned_free(a);
  REQUIRE(pinned_alloc(512, &b) == Status::Ok);
  CHECK(b == a);
  pinned_free(b);
  void* zero = nullptr;
  CHECK(device_alloc(0, &zero) == Status::Ok);
  CHECK(zero != nullptr);
  device_free(zero);
  void* huge = reinterpret_cast<void*>(1);
  CHECK(device_alloc(std::size_t{1} << 60, &huge) == Status::NoMem);
  CHECK(huge == nullptr);
  CHECK_FALSE(last_error().empty());

  // Blocks still lent out at finalize die with the context; freeing one later is harmless.
  void* kept = nullptr;
  REQUIRE(device_alloc(100, &kept) == Status::Ok);
  finalize();
  device_free(kept);
  CHECK_FALSE(enabled());
}

TEST_CASE("driver: copies and lanes", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  REQUIRE(enabled());
  constexpr std::size_t n = 1 << 20;
  std::vector<unsigned char> src(n), dst(n, 0);
  for (std::size_t i = 0; i < n; ++i) src[i] = static_cast<unsigned char>(i * 7 + 3);
  void* dev = nullptr;
  void* dev2 = nullptr;
  REQUIRE(device_alloc(n, &dev) == Status::Ok);
  REQUIRE(device_alloc(n, &dev2) == Status::Ok);

  // Staged in chunks through a lane, back with plain copies.
  ChunkPlan plan{n, 100000};
  Lane lane;
  std::vector<std::uint32_t> tickets;
  for (std::size_t i = 0; i < plan.count(); ++i) {
    std::uint32_t t = 0;
    REQUIRE(lane.copy_async(static_cast<char*>(dev) + plan.offset(i), src.data() + plan.offset(i),
                            plan.length(i), &t) == Status::Ok);
    CHECK(t == i);
    tickets.push_back(t);
  }
  CHECK(lane.wait(tickets[3]) == Status::Ok);
  CHECK(lane.done(tickets[2]));
  while (!lane.done(tickets.back())) std::this_thread::yield();
  CHECK(lane.wait_all() == Status::Ok);
  CHECK(lane.wait(tickets.back() + 5) == Status::InvalidArg);
  // Events are recycled: a second round reuses them.
  std::uint32_t t = 0;
  REQUIRE(lane.copy_async(dev2, dev, n, &t) == Status::Ok);
  CHECK(t == plan.count());
  CHECK(lane.wait(t) == Status::Ok);

  // A thread that never bound a context copies too.
  Status s = Status::Other;
  std::thread([&] { s = copy(dst.data(), dev2, n); }).join();
  CHECK(s == Status::Ok);
  CHECK(dst == src);
  device_free(dev);
  device_free(dev2);
}

TEST_CASE("driver: stream-ordered signals", "[.driver]") {
  if (!driver_present()) return;
  Started g;
  REQUIRE(enabled());
  Signal s;
  REQUIRE(signal_alloc(&s) == Status::Ok);
  REQUIRE(s.host != nullptr);
  CHECK(*s.host == 0);
  CHECK(s.dev != 0);

  Lane lane;
  int x = 42, y = 0;
  void* dev = nullptr;
  REQUIRE(device_alloc(sizeof x, &dev) == Status::Ok);
  REQUIRE(copy(dev, &x, sizeof x) == Status::Ok);
  // The stream waits for the host to raise the flag before the copy runs.
  REQUIRE(stream_wait(lane.stream(), s, 1) == Status::Ok);
  std::uint32_t t = 0;
  REQUIRE(lane.copy_async(&y, dev, sizeof y, &t) == Status::Ok);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  CHECK_FALSE(lane.done(t));
  *s.host = 1;
  CHECK(lane.wait(t) == Status::Ok);
  CHECK(y == 42);

  // The stream raises the flag when it gets there.
  REQUIRE(stream_write(lane.stream(), s, 7) == Status::Ok);
  REQUIRE(lane.copy_async(&y, dev, 0, &t) == Status::Ok);
  CHECK(lane.wait(t) == Status::Ok);
  CHECK(*s.host == 7);
  device_free(dev);
  signal_free(&s);
  CHECK(s.host == nullptr);
}

TEST_CASE("driver: init, calls and finalize leave the thread's context as they found it", "[.driver]") {
  if (!driver_present()) return;
  const Driver& d = driver();
  {
    Started loaded;  // the driver loaded and initialized; earlier tests bound contexts
  }
  REQUIRE(d.CtxSetCurrent(nullptr) == cu::kSuccess);
  init(0, 1);
  REQUIRE(enabled());
  cu::Context c = reinterpret_cast<cu::Context>(1);
  REQUIRE(d.CtxGetCurrent(&c) == cu::kSuccess);
  CHECK(c == nullptr);  // the thread had none before init
  void* dev = nullptr;
  REQUIRE(device_alloc(256, &dev) == Status::Ok);
  int x = 42, y = 0;
  CHECK(copy(dev, &x, sizeof x) == Status::Ok);
  CHECK(copy(&y, dev, sizeof y) == Status::Ok);
  CHECK(y == 42);
  REQUIRE(d.CtxGetCurrent(&c) == cu::kSuccess);
  CHECK(c == nullptr);
  device_free(dev);
  finalize();
  REQUIRE(d.CtxGetCurrent(&c) == cu::kSuccess);
  CHECK(c == nullptr);
}
