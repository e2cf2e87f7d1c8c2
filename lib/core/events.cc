#include "core/events.h"

namespace chorus::events {

std::atomic<int> g_armed[static_cast<int>(Id::Count)];

namespace {
std::atomic<Sink> g_sink{nullptr};
}  // namespace

void set_sink(Sink sink) { g_sink.store(sink, std::memory_order_release); }

void raise(Id id, std::initializer_list<std::int64_t> values) {
  if (Sink s = g_sink.load(std::memory_order_acquire))
    s(id, values.begin(), static_cast<int>(values.size() < kMaxValues ? values.size() : kMaxValues));
}

}  // namespace chorus::events
