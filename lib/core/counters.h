// The runtime's performance counters (core/counters.def): what MPI_T's
// performance variables read. Counts are updated under the MPI lock (or by the
// only thread), so `add` is a relaxed load and store (one add, no locked
// instruction); readers on other threads see a value that is at most a little
// old, never a torn one.
#pragma once
#include <atomic>
#include <cstdint>
#include <string_view>

namespace chorus::counters {

enum class Id : int {
#define CHORUS_COUNTER(id, cls, sub, name, doc) id,
#include "core/counters.def"
#undef CHORUS_COUNTER
  Count
};

enum class Class { Counter, Level };

struct Info {
  std::string_view name;
  Class cls;
  std::string_view subsystem;
  std::string_view doc;
};

constexpr int count() { return static_cast<int>(Id::Count); }
const Info& info(Id id);

extern std::atomic<std::uint64_t> g_values[static_cast<int>(Id::Count)];

inline void add(Id id, std::uint64_t n = 1) {
  auto& v = g_values[static_cast<int>(id)];
  v.store(v.load(std::memory_order_relaxed) + n, std::memory_order_relaxed);
}
inline void sub(Id id, std::uint64_t n = 1) {
  auto& v = g_values[static_cast<int>(id)];
  v.store(v.load(std::memory_order_relaxed) - n, std::memory_order_relaxed);
}
// A message of `bytes` on the path counted by `messages` and the id after it.
inline void message(Id messages, std::uint64_t bytes) {
  add(messages);
  add(static_cast<Id>(static_cast<int>(messages) + 1), bytes);
}
inline std::uint64_t read(Id id) { return g_values[static_cast<int>(id)].load(std::memory_order_relaxed); }

// Time spent in progress (p2p polls), in nanoseconds: measured only while some
// reader asked for it (timing(true)), so that it costs one branch otherwise.
extern std::atomic<int> g_timing;
inline bool timing() { return g_timing.load(std::memory_order_relaxed) > 0; }
void timing(bool on);  // nests: each on needs an off
extern std::atomic<std::uint64_t> g_progress_ns;

}  // namespace chorus::counters
