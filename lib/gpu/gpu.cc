// Start-up and teardown of the GPU layer: load the driver, pick this rank's
// device, retain its primary context, create the runtime's streams and load the
// kernel module. Any problem on the way leaves the process host-only, with the
// reason logged once at INFO; nothing here is fatal.
//
// init()/finalize() run once per process (MPI_Init / MPI_Finalize) under g_mu;
// everything else reads state written before g_enabled became true, so the MPI
// layer and helper threads (stream agents) may call in concurrently.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/log.h"
#include "core/params.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"
#include "gpu/kernels.h"
#include "topo/topo.h"

namespace chorus::gpu {

namespace detail {
bool g_enabled = false;
}  // namespace detail

namespace {

constexpr int kLaneStreams = 4;               // pipeline streams handed out round robin
constexpr std::size_t kDefaultChunk = 1u << 20;

std::mutex g_mu;                   // init/finalize and the strings below
bool g_initialized = false;
int g_device = -1;
int g_count = 0;  // devices CUDA sees (cuDeviceGetCount)
cu::Device g_dev = 0;
cu::Context g_ctx = nullptr;
bool g_ctx_retained = false;
cu::Stream g_main = nullptr;
std::array<cu::Stream, kLaneStreams> g_lanes{};
int g_nlanes = 0;
std::atomic<unsigned> g_lane_next{0};
bool g_kernels = false;
std::string g_kernel_why;  // why they did not load
std::string g_reason;              // why host-only ("" when enabled or before init)
std::string g_describe;
std::atomic<bool> g_keep_on_bare{false};  // keep_context_on_bare_threads
cu::Context g_caller = nullptr;    // current on the thread that ran init, before it
bool g_caller_known = false;

thread_local std::string t_last_error;

const Driver& D() { return driver(); }

std::string call_error(const char* call, cu::Result r) {
  return std::string(call) + ": " + error_text(r);
}

int attribute(int attr, cu::Device dev) {
  int v = 0;
  return D().DeviceGetAttribute(&v, attr, dev) == cu::kSuccess ? v : -1;
}

// The CUDA devices whose PCI address hwloc places near this rank's binding, in
// ordinal order; empty when the rank is unbound, or hwloc knows no such GPU.
std::vector<int> near_devices(int count) {
  std::vector<int> near;
  // An unbound rank is near every device: no need to read the PCI topology.
  cpu_set_t mine;
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0 || CPU_COUNT(&mine) >= online) return near;
  const topo::Node& n = topo::node();
  if (!n.bound || n.gpus.empty()) return near;
  for (int d = 0; d < count; ++d) {
    cu::Device dev = 0;
    if (D().DeviceGet(&dev, d) != cu::kSuccess) continue;
    const int domain = attribute(cu::kDevAttrPciDomainId, dev), bus = attribute(cu::kDevAttrPciBusId, dev),
              slot = attribute(cu::kDevAttrPciDeviceId, dev);
    if (domain < 0 || bus < 0 || slot < 0) continue;
    const std::string pci = fmt::format("{:04x}:{:02x}:{:02x}.0", domain, bus, slot);
    for (const topo::Device& g : n.gpus)
      if (g.pci == pci && g.near) near.push_back(d);
  }
  return near;
}

// The ordinal this rank uses, and how it was chosen (for the log).
void choose_device(int local_rank, int count, int* ordinal, std::string* how) {
  if (param::GpuBind() == 0) {  // auto
    const int lr = local_rank < 0 ? 0 : local_rank;
    const std::vector<int> near = near_devices(count);
    // Local rank modulo devices, as long as that device is near the rank's CPUs
    // (ranks bound in order across the node's packages keep a device each);
    // otherwise one of the near devices, shared in local-rank order.
    *ordinal = lr % count;
    if (!near.empty() && std::find(near.begin(), near.end(), *ordinal) == near.end()) {
      *ordinal = near[static_cast<std::size_t>(lr) % near.size()];
      *how = fmt::format("CHORUS_GPU_BIND=auto: nearest to this rank's CPUs {} (hwloc), of devices {}",
                         topo::node().binding, fmt::join(near, ","));
      return;
    }
    *how = near.empty() ? "CHORUS_GPU_BIND=auto: local rank modulo device count (no GPU known near this rank's binding)"
                        : fmt::format("CHORUS_GPU_BIND=auto: local rank modulo device count, near this rank's CPUs {}",
                                      topo::node().binding);
    if (const char* vis = std::getenv("CUDA_VISIBLE_DEVICES"))
      *how += std::string(", CUDA_VISIBLE_DEVICES=") + vis;
    return;
  }
  // none: the device of the context current at start-up, else device 0.
  cu::Context cur = nullptr;
  if (D().CtxGetCurrent(&cur) != cu::kSuccess || cur == nullptr) {
    *ordinal = 0;
    *how = "CHORUS_GPU_BIND=none, no context current: device 0";
    return;
  }
  // The driver slice has no cuCtxGetDevice: ask a one-byte allocation in the
  // current context which device it lives on.
  cu::DevicePtr probe = 0;
  cu::Result r = D().MemAlloc(&probe, 1);
  int ord = -1;
  if (r == cu::kSuccess) {
    r = D().PointerGetAttribute(&ord, cu::kPointerAttrDeviceOrdinal, probe);
    (void)D().MemFree(probe);
  }
  if (r != cu::kSuccess || ord < 0 || ord >= count) {
    *ordinal = 0;
    *how = "CHORUS_GPU_BIND=none, the current context's device is unknown (" +
           (r != cu::kSuccess ? error_text(r) : std::string("ordinal out of range")) +
           "): device 0";
    return;
  }
  *ordinal = ord;
  *how = "CHORUS_GPU_BIND=none: the current context's device";
}

void destroy_streams() {
  for (int i = 0; i < g_nlanes; ++i) {
    if (g_lanes[i]) (void)D().StreamDestroy(g_lanes[i]);
    g_lanes[i] = nullptr;
  }
  g_nlanes = 0;
  if (g_main) (void)D().StreamDestroy(g_main);
  g_main = nullptr;
}

void release_context() {
  if (g_ctx_retained) (void)D().DevicePrimaryCtxRelease(g_dev);
  g_ctx_retained = false;
  g_ctx = nullptr;
  g_device = -1;
}

// Everything init() does once the driver is loaded; false with *why on failure
// (state cleaned up by the caller through destroy_streams/release_context).
bool start(int local_rank, int local_size, std::string* why) {
  if (param::Gpu() == 1) {
    *why = "CHORUS_GPU=off";
    return false;
  }
  const std::string& lib = param::CudaLibrary();
  std::string load_why;
  if (!load_driver(lib, &load_why)) {
    *why = "CUDA driver library " + lib + " not loaded: " + load_why;
    return false;
  }
  cu::Result r = D().Init(0);
  if (r != cu::kSuccess) {
    *why = r == cu::kErrorNoDevice ? "no CUDA device (" + call_error("cuInit", r) + ")"
                                   : call_error("cuInit", r);
    return false;
  }
  g_caller_known = D().CtxGetCurrent(&g_caller) == cu::kSuccess;

  int count = 0;
  r = D().DeviceGetCount(&count);
  if (r != cu::kSuccess) {
    *why = call_error("cuDeviceGetCount", r);
    return false;
  }
  if (count <= 0) {
    const char* vis = std::getenv("CUDA_VISIBLE_DEVICES");
    *why = std::string("no CUDA device") +
           (vis ? std::string(" (CUDA_VISIBLE_DEVICES=") + vis + ")" : std::string());
    return false;
  }
  int ordinal = 0;
  std::string how;
  choose_device(local_rank, count, &ordinal, &how);
  r = D().DeviceGet(&g_dev, ordinal);
  if (r != cu::kSuccess) {
    *why = call_error("cuDeviceGet", r);
    return false;
  }
  int uva = 0;
  if (D().DeviceGetAttribute(&uva, cu::kDevAttrUnifiedAddressing, g_dev) != cu::kSuccess ||
      !uva) {
    *why = "device " + std::to_string(ordinal) + " lacks unified addressing";
    return false;
  }
  r = D().DevicePrimaryCtxRetain(&g_ctx, g_dev);
  if (r != cu::kSuccess) {
    *why = call_error("cuDevicePrimaryCtxRetain", r);
    return false;
  }
  g_ctx_retained = true;
  g_device = ordinal;
  g_count = count;
  r = D().CtxSetCurrent(g_ctx);
  if (r != cu::kSuccess) {
    *why = call_error("cuCtxSetCurrent", r);
    return false;
  }
  r = D().StreamCreate(&g_main, cu::kStreamNonBlocking);
  if (r != cu::kSuccess) {
    g_main = nullptr;
    *why = call_error("cuStreamCreate", r);
    return false;
  }
  for (int i = 0; i < kLaneStreams; ++i) {
    r = D().StreamCreate(&g_lanes[i], cu::kStreamNonBlocking);
    if (r != cu::kSuccess) {
      g_lanes[i] = nullptr;
      *why = call_error("cuStreamCreate", r);
      return false;
    }
    g_nlanes = i + 1;
  }

  // Description for logs and chorus-info.
  char name[256] = {};
  if (D().DeviceGetName(name, sizeof name - 1, g_dev) != cu::kSuccess) name[0] = '\0';
  int major = attribute(cu::kDevAttrComputeCapabilityMajor, g_dev);
  int minor = attribute(cu::kDevAttrComputeCapabilityMinor, g_dev);
  int sms = attribute(cu::kDevAttrMultiprocessorCount, g_dev);
  int bus = attribute(cu::kDevAttrPciBusId, g_dev);
  int pools = attribute(cu::kDevAttrMemoryPoolsSupported, g_dev);
  std::size_t total = 0;
  if (D().DeviceTotalMem(&total, g_dev) != cu::kSuccess) total = 0;
  int version = 0;
  if (D().DriverGetVersion(&version) != cu::kSuccess) version = 0;

  std::string kernel_why;
  g_kernels = detail::load_kernels(&kernel_why);
  g_kernel_why = g_kernels ? std::string() : kernel_why;
  // Once per node (its first local rank): what a process without kernels costs.
  if (!g_kernels && local_rank == 0)
    CHORUS_WARN(GPU, "CUDA kernels unavailable ({}): reductions on device memory are staged through "
                "host memory (each operand copied out and back) and non-contiguous datatypes on device "
                "memory are packed by one copy per block; chorus-info --gpu says whether they load",
                kernel_why);
  else if (!g_kernels)
    CHORUS_LOG(INFO, GPU, "CUDA kernels unavailable: {}", kernel_why);

  g_describe = fmt::format("{} (sm_{}{}, {} SMs, {:.1f} GiB, bus {:#x}), driver {}.{}, {}",
                           name[0] ? name : "unnamed device", major, minor, sms,
                           static_cast<double>(total) / static_cast<double>(1ULL << 30), bus,
                           version / 1000, (version % 1000) / 10,
                           g_kernels ? "kernels loaded" : "no kernels");
  CHORUS_LOG(INFO, GPU, "local rank {}/{} uses device {} of {} ({}): {}{}", local_rank,
             local_size, ordinal, count, how, g_describe,
             pools > 0 ? ", stream-ordered pools" : "");
  return true;
}

}  // namespace

void init(int local_rank, int local_size) {
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_initialized) return;
  g_initialized = true;
  std::string why;
  // start() makes the device's context current to set it up; the caller's (none,
  // or one the application made: start() notes it after cuInit) is current again
  // afterwards.
  g_caller_known = false;
  const bool started = start(local_rank, local_size, &why);
  if (g_caller_known) {
    cu::Context now = nullptr;
    if (D().CtxGetCurrent(&now) == cu::kSuccess && now != g_caller) (void)D().CtxSetCurrent(g_caller);
  }
  if (started) {
    g_reason.clear();
    detail::g_enabled = true;
    return;
  }
  destroy_streams();
  release_context();
  g_kernels = false;
  g_reason = why;
  g_describe = "host only: " + why;
  CHORUS_LOG(INFO, GPU, "host only: {}", why);
}

void finalize() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_initialized) return;
  g_initialized = false;
  if (detail::g_enabled) {
    cu::Context caller = nullptr;
    if (D().CtxGetCurrent(&caller) != cu::kSuccess) caller = nullptr;
    // Chorus's own, left on a thread that had none (keep_context_on_bare_threads):
    // that thread gets none back, not a context about to be released.
    if (caller == g_ctx && g_keep_on_bare.load() && g_caller_known && g_caller == nullptr) caller = nullptr;
    // Work still queued on the runtime's streams must not outlive its buffers.
    if (D().CtxSetCurrent(g_ctx) == cu::kSuccess) {
      (void)detail::wait_stream(g_main);
      for (int i = 0; i < g_nlanes; ++i) (void)detail::wait_stream(g_lanes[i]);
    }
    detail::pool_release_all();
    detail::memkind_reset();
    if (g_kernels) detail::unload_kernels();
    g_kernels = false;
    detail::g_enabled = false;
    destroy_streams();
    // The caller's context again (Chorus's primary context stays valid while the
    // application holds its own retain of it).
    (void)D().CtxSetCurrent(caller);
    release_context();
  }
  g_reason.clear();
  g_describe.clear();
}

int device() { return detail::g_enabled ? g_device : -1; }
int device_count() { return detail::g_enabled ? g_count : 0; }

std::string describe() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (!g_initialized) return "not initialized";
  return g_describe;
}

std::string host_only_reason() {
  std::lock_guard<std::mutex> lock(g_mu);
  if (detail::g_enabled) return "";
  return g_initialized ? g_reason : std::string("not initialized");
}

bool kernels_loaded() { return detail::g_enabled && g_kernels; }

std::string kernels_unavailable_reason() {
  std::lock_guard<std::mutex> lock(g_mu);
  return detail::g_enabled && !g_kernels ? g_kernel_why : std::string();
}

Status bind_thread() {
  if (!detail::g_enabled) return detail::fail(Status::Other, "no CUDA device in use");
  return detail::check(D().CtxSetCurrent(g_ctx), "cuCtxSetCurrent");
}

void keep_context_on_bare_threads() {
  g_keep_on_bare.store(true);
  if (!detail::g_enabled) return;
  cu::Context cur = nullptr;
  if (D().CtxGetCurrent(&cur) == cu::kSuccess && cur == nullptr) (void)D().CtxSetCurrent(g_ctx);
}

std::string last_error() { return t_last_error; }

std::size_t chunk_bytes() {
  std::size_t c = param::GpuChunkBytes();
  return c ? c : kDefaultChunk;
}

namespace detail {

cu::Stream main_stream() { return g_main; }

cu::Stream next_lane_stream() {
  if (g_nlanes == 0) return g_main;
  unsigned i = g_lane_next.fetch_add(1, std::memory_order_relaxed);
  return g_lanes[i % static_cast<unsigned>(g_nlanes)];
}

Status fail(Status s, std::string msg) {
  CHORUS_LOG(TRACE, GPU, "{}", msg);
  t_last_error = std::move(msg);
  return s;
}

Status check(cu::Result r, const char* call) {
  if (r == cu::kSuccess) return Status::Ok;
  return fail(Status::Other, call_error(call, r));
}

ContextScope::ContextScope() {
  if (!g_enabled) {
    status_ = fail(Status::Other, "no CUDA device in use");
    return;
  }
  status_ = check(D().CtxGetCurrent(&saved_), "cuCtxGetCurrent");
  if (!ok(status_) || saved_ == g_ctx) return;
  status_ = check(D().CtxSetCurrent(g_ctx), "cuCtxSetCurrent");
  // A thread without a context keeps Chorus's when UCX moves device memory itself
  // (keep_context_on_bare_threads): its CUDA transports need one during progress.
  switched_ = ok(status_) && !(saved_ == nullptr && g_keep_on_bare);
}

ContextScope::~ContextScope() {
  if (switched_) (void)D().CtxSetCurrent(saved_);
}

}  // namespace detail
}  // namespace chorus::gpu
