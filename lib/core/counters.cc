#include "core/counters.h"

namespace chorus::counters {

std::atomic<std::uint64_t> g_values[static_cast<int>(Id::Count)];
std::atomic<int> g_timing{0};
std::atomic<std::uint64_t> g_progress_ns{0};

namespace {
constexpr Info kInfo[] = {
#define CHORUS_COUNTER(id, cls, sub, name, doc) {name, Class::cls, sub, doc},
#include "core/counters.def"
#undef CHORUS_COUNTER
};
static_assert(sizeof kInfo / sizeof kInfo[0] == static_cast<std::size_t>(Id::Count));
}  // namespace

const Info& info(Id id) { return kInfo[static_cast<int>(id)]; }

void timing(bool on) { g_timing.fetch_add(on ? 1 : -1, std::memory_order_relaxed); }

}  // namespace chorus::counters
