#include "core/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>

#include "core/params.h"

namespace chorus::log {
namespace detail {
std::atomic<int> g_level{-1};
std::atomic<std::uint32_t> g_mask{~0u};
}  // namespace detail

namespace {

std::mutex g_mu;
FILE* g_out = nullptr;         // nullptr: stderr
std::string g_path_pattern;    // CHORUS_DEBUG_FILE as given
int g_rank = -1, g_size = -1;
char g_prefix[320] = "";
char g_host[256] = "";

constexpr const char* kLevelNames[] = {"NONE", "WARN", "INFO", "TRACE"};

const char* subsys_name(Subsys s) {
  switch (s) {
    case INIT: return "INIT";
    case BOOT: return "BOOT";
    case P2P: return "P2P";
    case COLL: return "COLL";
    case GPU: return "GPU";
    case TOPO: return "TOPO";
    case ENV: return "ENV";
    case LAUNCH: return "LAUNCH";
    case RMA: return "RMA";
  }
  return "?";
}

void update_prefix_locked() {
  if (!g_host[0]) {
    gethostname(g_host, sizeof g_host - 1);
    if (char* dot = std::strchr(g_host, '.')) *dot = '\0';
  }
  if (g_rank >= 0)
    std::snprintf(g_prefix, sizeof g_prefix, "%s:%d r%d/%d", g_host, int(getpid()), g_rank, g_size);
  else
    std::snprintf(g_prefix, sizeof g_prefix, "%s:%d", g_host, int(getpid()));
}

std::string expand_path(const std::string& pat) {
  std::string out;
  for (size_t i = 0; i < pat.size(); ++i) {
    if (pat[i] == '%' && i + 1 < pat.size()) {
      char c = pat[++i];
      if (c == 'h') out += g_host;
      else if (c == 'p') out += std::to_string(getpid());
      else if (c == 'r') out += g_rank >= 0 ? std::to_string(g_rank) : std::string("x");
      else if (c == '%') out += '%';
      else { out += '%'; out += c; }
    } else {
      out += pat[i];
    }
  }
  return out;
}

void open_output_locked() {
  if (g_out) {
    std::fclose(g_out);
    g_out = nullptr;
  }
  if (g_path_pattern.empty()) return;
  std::string path = expand_path(g_path_pattern);
  g_out = std::fopen(path.c_str(), "a");
  if (!g_out)
    std::fprintf(stderr, "chorus: WARN cannot open CHORUS_DEBUG_FILE %s: %s; logging to stderr\n",
                 path.c_str(), std::strerror(errno));
  else
    std::setvbuf(g_out, nullptr, _IOLBF, 0);
}

void configure_locked() {
  update_prefix_locked();
  detail::g_mask.store(static_cast<std::uint32_t>(param::DebugSubsys()), std::memory_order_relaxed);
  g_path_pattern = param::DebugFile();
  open_output_locked();
  detail::g_level.store(param::Debug(), std::memory_order_release);
}

}  // namespace

namespace detail {

void configure() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (g_level.load(std::memory_order_acquire) >= 0) return;
  configure_locked();
}

void vwrite(Level lvl, Subsys sub, const char* file, int line, fmt::string_view f,
            fmt::format_args args) {
  fmt::memory_buffer buf;
  {
    std::lock_guard<std::mutex> lk(g_mu);
    fmt::format_to(std::back_inserter(buf), "{} {} {} ", g_prefix, kLevelNames[lvl], subsys_name(sub));
  }
  fmt::vformat_to(std::back_inserter(buf), f, args);
  if (lvl == WARN) {
    const char* base = std::strrchr(file, '/');
    fmt::format_to(std::back_inserter(buf), " ({}:{})", base ? base + 1 : file, line);
  }
  buf.push_back('\n');
  std::lock_guard<std::mutex> lk(g_mu);
  FILE* out = g_out ? g_out : stderr;
  std::fwrite(buf.data(), 1, buf.size(), out);
  std::fflush(out);
}

}  // namespace detail

void set_rank(int rank, int size) {
  std::lock_guard<std::mutex> lk(g_mu);
  g_rank = rank;
  g_size = size;
  update_prefix_locked();
  if (g_path_pattern.find("%r") != std::string::npos) open_output_locked();
}

void reconfigure() {
  std::lock_guard<std::mutex> lk(g_mu);
  configure_locked();
}

void reapply_level() {
  std::lock_guard<std::mutex> lk(g_mu);
  detail::g_mask.store(static_cast<std::uint32_t>(param::DebugSubsys()), std::memory_order_relaxed);
  detail::g_level.store(param::Debug(), std::memory_order_release);
}

const char* prefix() {
  std::lock_guard<std::mutex> lk(g_mu);
  if (!g_prefix[0]) update_prefix_locked();
  return g_prefix;
}

}  // namespace chorus::log
