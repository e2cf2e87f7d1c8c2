// Events the runtime raises for MPI_T tools (MPI-4.1 15.3.8).
//
// A site that can raise an event asks armed() first: one relaxed load of a count
// that is zero unless a tool holds a registration with a callback for that event,
// so an unused event costs a predictable branch and nothing else. raise() hands
// the event's values to the sink MPI_T installs (lib/mpi/mpit.cc), which lays
// them out as the event type describes, timestamps them and calls the tools'
// callbacks. The types themselves (names, elements, descriptions) live there.
#pragma once
#include <atomic>
#include <cstdint>
#include <initializer_list>

namespace chorus::events {

enum class Id : int {
  CollAlgorithm,   // a collective call chose its algorithm (lib/mpi/coll.cc)
  P2pUnexpected,   // a message came through the node's rings before its receive (lib/p2p/local.cc)
  HangWait,        // a wait passed CHORUS_HANG_TIMEOUT (lib/core/hang.cc)
  Count
};

// At most this many values per event.
inline constexpr int kMaxValues = 8;

extern std::atomic<int> g_armed[static_cast<int>(Id::Count)];

inline bool armed(Id id) { return g_armed[static_cast<int>(id)].load(std::memory_order_relaxed) > 0; }

// The sink gets the values in the order the event type lists its elements (a
// double travels as its bit pattern: std::bit_cast).
using Sink = void (*)(Id id, const std::int64_t* values, int n);
void set_sink(Sink sink);

[[gnu::cold]] void raise(Id id, std::initializer_list<std::int64_t> values);

}  // namespace chorus::events
