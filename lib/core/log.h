// Logging: CHORUS_LOG(LEVEL, SUBSYS, fmt, args...) with fmt-style formatting.
//
//   CHORUS_LOG(INFO, COLL, "allreduce {} B -> {}", n, algo);
//   CHORUS_WARN(P2P, "endpoint to rank {} failed: {}", peer, why);
//
// Levels: NONE < WARN < INFO < TRACE (CHORUS_DEBUG); subsystems filter with
// CHORUS_DEBUG_SUBSYS; CHORUS_DEBUG_FILE redirects (%h host, %p pid, %r rank).
// The level and subsystem are checked before any formatting happens. Lines read
//   host:pid r<rank>/<size> LEVEL SUBSYS message
// and WARN lines add (file:line).
#pragma once
#include <atomic>
#include <cstdint>

#include <fmt/format.h>

namespace chorus::log {

enum Level : int { NONE = 0, WARN = 1, INFO = 2, TRACE = 3 };

// Bit order matches the choices of CHORUS_DEBUG_SUBSYS in params.def.
enum Subsys : std::uint32_t {
  INIT = 1u << 0,
  BOOT = 1u << 1,
  P2P = 1u << 2,
  COLL = 1u << 3,
  GPU = 1u << 4,
  TOPO = 1u << 5,
  ENV = 1u << 6,
  LAUNCH = 1u << 7,
  RMA = 1u << 8,
};

namespace detail {
extern std::atomic<int> g_level;           // -1 until configured
extern std::atomic<std::uint32_t> g_mask;
void configure();
void vwrite(Level lvl, Subsys sub, const char* file, int line, fmt::string_view f,
            fmt::format_args args);
}  // namespace detail

inline bool enabled(Level lvl, Subsys sub) {
  int cur = detail::g_level.load(std::memory_order_relaxed);
  if (cur < 0) {
    detail::configure();
    cur = detail::g_level.load(std::memory_order_relaxed);
  }
  // WARN is always shown unless CHORUS_DEBUG=NONE, whatever the subsystem mask.
  return lvl <= cur && (lvl == WARN || (detail::g_mask.load(std::memory_order_relaxed) & sub));
}

template <typename... Args>
void write(Level lvl, Subsys sub, const char* file, int line, fmt::format_string<Args...> f,
           Args&&... args) {
  detail::vwrite(lvl, sub, file, line, f, fmt::make_format_args(args...));
}

// Rank and size appear in every line once known; a %r in CHORUS_DEBUG_FILE is
// resolved then.
void set_rank(int rank, int size);
// Re-read CHORUS_DEBUG* (after params::reload()).
void reconfigure();
// Re-read only the level and the subsystem mask (after params::set_number of either);
// the output stays as it is.
void reapply_level();
// "host:pid r<rank>/<size>", also used by error messages.
const char* prefix();

}  // namespace chorus::log

#define CHORUS_LOG(LEVEL, SUBSYS, ...)                                                   \
  do {                                                                                   \
    if (::chorus::log::enabled(::chorus::log::LEVEL, ::chorus::log::SUBSYS))             \
      ::chorus::log::write(::chorus::log::LEVEL, ::chorus::log::SUBSYS, __FILE__, __LINE__, \
                           __VA_ARGS__);                                                 \
  } while (0)

#define CHORUS_WARN(SUBSYS, ...) CHORUS_LOG(WARN, SUBSYS, __VA_ARGS__)
