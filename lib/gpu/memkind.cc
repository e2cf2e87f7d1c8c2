// Memory kinds: gpu::query() over a per-allocation cache (memkind_cache.h) fed
// by cuPointerGetAttributes.
#include <iterator>

#include "gpu/gpu.h"
#include "gpu/internal.h"
#include "gpu/memkind_cache.h"

namespace chorus::gpu {
namespace detail {

MemInfo classify(std::uintptr_t p, const PointerAttrs& a) {
  MemInfo m;
  if (a.managed || a.memory_type == cu::kMemoryTypeUnified)
    m.kind = MemKind::Managed;
  else if (a.memory_type == cu::kMemoryTypeDevice)
    m.kind = a.from_pool ? MemKind::DevicePool : MemKind::Device;
  else if (a.memory_type == cu::kMemoryTypeHost)
    m.kind = MemKind::HostPinned;
  else
    return m;  // pageable host (type 0) or arrays (no address host code can use)
  m.device = is_device(m.kind) ? a.device : -1;
  m.buffer_id = a.buffer_id;
  if (a.range_size != 0 && p >= a.range_start && p - a.range_start < a.range_size) {
    m.base = a.range_start;
    m.size = a.range_size;
  }
  return m;
}

KindCache::Map::iterator KindCache::find_range(std::uintptr_t p) {
  auto it = entries_.upper_bound(p);
  if (it == entries_.begin()) return entries_.end();
  --it;
  const MemInfo& m = it->second.info;
  return p - m.base < m.size ? it : entries_.end();
}

void KindCache::insert(const MemInfo& info) {
  // Ranges overlapping the new one belong to freed allocations.
  std::uintptr_t end = info.base + info.size;
  auto it = entries_.upper_bound(info.base);
  if (it != entries_.begin()) {
    auto prev = std::prev(it);
    if (info.base - prev->first < prev->second.info.size) it = prev;
  }
  while (it != entries_.end() && it->first < end) it = entries_.erase(it);

  if (entries_.size() >= capacity_) {
    auto oldest = entries_.begin();
    for (auto e = entries_.begin(); e != entries_.end(); ++e)
      if (e->second.last_use < oldest->second.last_use) oldest = e;
    entries_.erase(oldest);
    ++stats_.evictions;
  }
  entries_[info.base] = Entry{info, ++clock_};
}

MemInfo KindCache::query(std::uintptr_t p) {
  MemInfo cached;
  bool found = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = find_range(p);
    if (it != entries_.end()) {
      cached = it->second.info;
      found = true;
    }
  }
  if (found) {
    // The driver call runs outside the lock; the entry is re-found afterwards.
    std::uint64_t id = 0;
    bool current = probe_.buffer_id(p, &id) && id == cached.buffer_id;
    std::lock_guard<std::mutex> lock(mu_);
    auto it = entries_.find(cached.base);
    if (current) {
      if (it != entries_.end() && it->second.info.buffer_id == cached.buffer_id)
        it->second.last_use = ++clock_;
      ++stats_.hits;
      return cached;
    }
    if (it != entries_.end() && it->second.info.buffer_id == cached.buffer_id)
      entries_.erase(it);
    ++stats_.stale;
  }

  PointerAttrs a;
  MemInfo info = probe_.attributes(p, &a) ? classify(p, a) : MemInfo{};
  std::lock_guard<std::mutex> lock(mu_);
  ++stats_.misses;
  if (info.size != 0) insert(info);
  return info;
}

void KindCache::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  entries_.clear();
}

std::size_t KindCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

KindCache::Stats KindCache::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  return stats_;
}

namespace {

class DriverProbe final : public PointerProbe {
 public:
  bool attributes(std::uintptr_t p, PointerAttrs* out) override {
    unsigned memory_type = 0;
    unsigned managed = 0;  // the driver writes a bool here; zeroed, either width reads right
    unsigned long long id = 0;
    int ordinal = -1;
    cu::DevicePtr start = 0;
    std::size_t size = 0;
    void* pool = nullptr;
    int attrs[] = {cu::kPointerAttrMemoryType,     cu::kPointerAttrIsManaged,
                   cu::kPointerAttrBufferId,       cu::kPointerAttrDeviceOrdinal,
                   cu::kPointerAttrRangeStartAddr, cu::kPointerAttrRangeSize,
                   cu::kPointerAttrMempoolHandle};
    void* data[] = {&memory_type, &managed, &id, &ordinal, &start, &size, &pool};
    const Driver& d = driver();
    cu::Result r = d.PointerGetAttributes(7, attrs, data, p);
    // Drivers without memory pools refuse the last attribute: ask the rest.
    if (r != cu::kSuccess) r = d.PointerGetAttributes(6, attrs, data, p);
    if (r != cu::kSuccess) return false;
    out->memory_type = memory_type;
    out->managed = managed != 0;
    out->buffer_id = id;
    out->device = ordinal;
    out->range_start = start;
    out->range_size = size;
    out->from_pool = pool != nullptr;
    return true;
  }

  bool buffer_id(std::uintptr_t p, std::uint64_t* out) override {
    unsigned long long id = 0;
    if (driver().PointerGetAttribute(&id, cu::kPointerAttrBufferId, p) != cu::kSuccess)
      return false;
    *out = id;
    return true;
  }
};

KindCache& cache() {
  static DriverProbe probe;
  static KindCache c(probe, 1024);
  return c;
}

}  // namespace

void memkind_reset() { cache().clear(); }

}  // namespace detail

MemInfo query(const void* p) {
  if (!detail::g_enabled || p == nullptr) return MemInfo{};
  return detail::cache().query(reinterpret_cast<std::uintptr_t>(p));
}

const char* kind_name(MemKind k) {
  switch (k) {
    case MemKind::Host: return "host";
    case MemKind::HostPinned: return "host-pinned";
    case MemKind::Device: return "device";
    case MemKind::Managed: return "managed";
    case MemKind::DevicePool: return "device-pool";
  }
  return "unknown";
}

}  // namespace chorus::gpu
