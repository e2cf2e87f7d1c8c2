// Runtime memory: device buffers and pinned, device-mapped host buffers for
// staging and collective temporaries. Blocks are rounded up to a power of two
// (256 B at least) and kept on a free list per size class when released, so the
// steady state of a pipeline never calls the driver (cuMemFree synchronizes the
// device). Cached bytes per kind stay within CHORUS_GPU_POOL_BYTES; beyond that a
// released block goes back to the driver. When the driver is out of memory, the
// cache of that kind is returned and the allocation tried once more. While a
// CUDA stream may be parked on a stream-ordered MPI call (agent.h), blocks are not
// returned to the driver (its free would wait for that stream): they wait on a
// list, returned at the next pool call after the streams have moved on.
#include <array>
#include <bit>
#include <mutex>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"
#include "core/params.h"
#include "gpu/agent.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"

namespace chorus::gpu {
namespace {

constexpr unsigned kMinShift = 8;   // smallest block: 256 B
constexpr unsigned kMaxShift = 48;  // largest block: 256 TiB (beyond: NoMem)

class Pool {
 public:
  using RawAlloc = cu::Result (*)(std::size_t bytes, void** out);
  using RawFree = cu::Result (*)(void* p);

  Pool(const char* what, const char* alloc_call, const char* free_call, RawAlloc a, RawFree f)
      : what_(what), alloc_call_(alloc_call), free_call_(free_call), raw_alloc_(a), raw_free_(f) {}

  Status alloc(std::size_t bytes, void** out) {
    *out = nullptr;
    give_back_deferred();
    if (!detail::g_enabled)
      return detail::fail(Status::Other, std::string(what_) + " memory: no CUDA device in use");
    unsigned shift = kMinShift;
    if (bytes > (std::size_t{1} << kMinShift)) shift = std::bit_width(bytes - 1);
    if (shift > kMaxShift)
      return detail::fail(Status::NoMem,
                          fmt::format("{} memory: {} bytes is more than any device holds", what_,
                                      bytes));
    std::size_t size = std::size_t{1} << shift;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& list = free_[shift];
      if (!list.empty()) {
        void* p = list.back();
        list.pop_back();
        cached_ -= size;
        live_[p] = shift;
        *out = p;
        return Status::Ok;
      }
    }
    detail::ContextScope ctx;
    CHORUS_TRY(ctx.status());
    void* p = nullptr;
    cu::Result r = raw_alloc_(size, &p);
    if (r != cu::kSuccess) {
      // Out of memory with blocks parked here: give them back and try again (not
      // while a stream may be parked: the frees would wait for it).
      if (!agent::streams_parked() && release_cached() > 0) r = raw_alloc_(size, &p);
      if (r != cu::kSuccess)
        return detail::fail(Status::NoMem, fmt::format("{} ({} bytes): {}", alloc_call_, size,
                                                       error_text(r)));
    }
    std::lock_guard<std::mutex> lock(mu_);
    live_[p] = shift;
    *out = p;
    return Status::Ok;
  }

  void free(void* p) {
    if (!p) return;
    give_back_deferred();
    std::size_t size = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = live_.find(p);
      if (it == live_.end()) {
        // After finalize the context, and every block lent out, is gone.
        if (detail::g_enabled)
          CHORUS_WARN(GPU, "{} memory: {} was not allocated by the pool (or freed twice)",
                      what_, p);
        return;
      }
      unsigned shift = it->second;
      live_.erase(it);
      size = std::size_t{1} << shift;
      if (cached_ + size <= limit()) {
        free_[shift].push_back(p);
        cached_ += size;
        return;
      }
    }
    give_back(p);
  }

  // Return every cached block to the driver; the number of blocks returned.
  std::size_t release_cached() {
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      for (auto& list : free_) {
        blocks.insert(blocks.end(), list.begin(), list.end());
        list.clear();
      }
      cached_ = 0;
    }
    for (void* p : blocks) give_back(p);
    return blocks.size();
  }

  // Finalize: cached blocks go back; blocks still lent out die with the context
  // (and are forgotten, so that freeing one later is harmless).
  void release_all() {
    release_cached();
    give_back_deferred();
    std::lock_guard<std::mutex> lock(mu_);
    if (!live_.empty())
      CHORUS_LOG(TRACE, GPU, "{} memory: {} block(s) still in use at finalize", what_,
                 live_.size());
    live_.clear();
  }

 private:
  static std::size_t limit() { return param::GpuPoolBytes(); }

  void give_back(void* p) {
    if (agent::streams_parked()) {
      std::lock_guard<std::mutex> lock(mu_);
      deferred_.push_back(p);
      return;
    }
    detail::ContextScope ctx;
    Status s = ctx.status();
    if (ok(s)) s = detail::check(raw_free_(p), free_call_);
    if (!ok(s)) CHORUS_LOG(INFO, GPU, "{} memory: releasing {} failed: {}", what_, p, last_error());
  }

  const char* what_;
  const char* alloc_call_;
  const char* free_call_;
  RawAlloc raw_alloc_;
  RawFree raw_free_;
  std::mutex mu_;
  std::array<std::vector<void*>, kMaxShift + 1> free_;
  std::unordered_map<void*, unsigned> live_;  // lent-out block -> size class
  std::size_t cached_ = 0;
  std::vector<void*> deferred_;  // blocks to return once no stream is parked

  // The blocks whose return waited for parked streams, if none is parked now.
  void give_back_deferred() {
    if (agent::streams_parked()) return;
    std::vector<void*> blocks;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (deferred_.empty()) return;
      blocks.swap(deferred_);
    }
    for (void* p : blocks) give_back(p);  // parked again: back on the list
  }
};

cu::Result device_raw_alloc(std::size_t bytes, void** out) {
  cu::DevicePtr d = 0;
  cu::Result r = driver().MemAlloc(&d, bytes);
  *out = reinterpret_cast<void*>(d);
  return r;
}
cu::Result device_raw_free(void* p) {
  return driver().MemFree(reinterpret_cast<cu::DevicePtr>(p));
}
cu::Result pinned_raw_alloc(std::size_t bytes, void** out) {
  return driver().MemHostAlloc(out, bytes, cu::kMemHostAllocPortable | cu::kMemHostAllocDeviceMap);
}
cu::Result pinned_raw_free(void* p) { return driver().MemFreeHost(p); }

Pool& device_pool() {
  static Pool pool("device", "cuMemAlloc", "cuMemFree", device_raw_alloc, device_raw_free);
  return pool;
}
Pool& pinned_pool() {
  static Pool pool("pinned host", "cuMemHostAlloc", "cuMemFreeHost", pinned_raw_alloc, pinned_raw_free);
  return pool;
}

}  // namespace

Status device_alloc(std::size_t bytes, void** out) { return device_pool().alloc(bytes, out); }
void device_free(void* p) { device_pool().free(p); }
Status pinned_alloc(std::size_t bytes, void** out) { return pinned_pool().alloc(bytes, out); }
void pinned_free(void* p) { pinned_pool().free(p); }

namespace detail {
void pool_release_all() {
  device_pool().release_all();
  pinned_pool().release_all();
}
}  // namespace detail

}  // namespace chorus::gpu
