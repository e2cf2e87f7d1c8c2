// The memory-kind cache behind gpu::query(), kept apart from the driver so that
// its logic is unit-tested with a fake (tests/unit/gpu_unit.cc).
//
// One entry per allocation range {base, size, kind, device, buffer id}, ordered by
// base. A lookup that lands in a cached range asks the driver for one attribute,
// the allocation's buffer id (process-unique, never reused), and trusts the entry
// only when it matches: after a free and a new allocation at the same address
// the id differs (or the driver no longer knows the address), the entry is
// dropped and the pointer classified afresh. Misses ask every attribute at once
// and insert the new range, first removing any cached range it overlaps (those
// allocations are gone). Pageable host memory is never cached: the driver knows
// nothing about it, so there is no id to prove such an entry current.
// Bounded: at capacity the least recently used entry goes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>

#include "gpu/gpu.h"

namespace chorus::gpu::detail {

// What the driver says about a pointer (cuPointerGetAttributes).
struct PointerAttrs {
  unsigned memory_type = 0;      // cu::kMemoryType*; 0: not a CUDA allocation
  bool managed = false;
  std::uint64_t buffer_id = 0;
  int device = -1;
  std::uintptr_t range_start = 0;
  std::size_t range_size = 0;
  bool from_pool = false;        // a memory pool handle (cuMemAllocAsync)
};

// The driver queries the cache needs (the driver itself in memkind.cc, a fake in tests).
class PointerProbe {
 public:
  virtual ~PointerProbe() = default;
  // Every attribute of `p`; false when the driver refuses the query.
  virtual bool attributes(std::uintptr_t p, PointerAttrs* out) = 0;
  // The buffer id of the allocation holding `p`; false when there is none.
  virtual bool buffer_id(std::uintptr_t p, std::uint64_t* out) = 0;
};

// Kind of `p` from its attributes. base/size are 0 when the answer must not be
// cached (host memory, or a range that does not hold `p`).
MemInfo classify(std::uintptr_t p, const PointerAttrs& a);

class KindCache {
 public:
  struct Stats {
    std::uint64_t hits = 0, misses = 0, stale = 0, evictions = 0;
  };

  explicit KindCache(PointerProbe& probe, std::size_t capacity = 1024)
      : probe_(probe), capacity_(capacity ? capacity : 1) {}

  MemInfo query(std::uintptr_t p);
  void clear();
  std::size_t size() const;
  Stats stats() const;

 private:
  struct Entry {
    MemInfo info;
    std::uint64_t last_use = 0;
  };
  using Map = std::map<std::uintptr_t, Entry>;

  Map::iterator find_range(std::uintptr_t p);  // the entry whose range holds p
  void insert(const MemInfo& info);

  PointerProbe& probe_;
  const std::size_t capacity_;
  mutable std::mutex mu_;
  Map entries_;
  std::uint64_t clock_ = 0;
  Stats stats_;
};

}  // namespace chorus::gpu::detail
