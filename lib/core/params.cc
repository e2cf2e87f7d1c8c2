#include "core/params.h"

#include <strings.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "core/log.h"

namespace chorus::params {
namespace {

constexpr std::array<Info, count()> kTable = {{
#define CHORUS_PARAM(id, type, env, def, choices, doc) \
  Info{#id, Type::type, env, def, choices, doc},
#include "core/params.def"
#undef CHORUS_PARAM
}};

std::array<Value, count()> g_values;
std::once_flag g_once;
// Set once the table is loaded: value() then reads it without std::call_once,
// which in libstdc++ writes two thread-locals (through __tls_get_addr) on every
// call, loaded or not, and value() runs on every MPI call's hot path.
std::atomic<bool> g_loaded{false};
std::mutex g_reload_mu;

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Index of `word` among "a|b|c", or -1.
int choice_index(std::string_view choices, std::string_view word) {
  int idx = 0;
  while (true) {
    size_t bar = choices.find('|');
    if (iequals(choices.substr(0, bar), word)) return idx;
    if (bar == std::string_view::npos) return -1;
    choices.remove_prefix(bar + 1);
    ++idx;
  }
}

int choice_count(std::string_view choices) {
  int n = choices.empty() ? 0 : 1;
  for (char c : choices) n += (c == '|');
  return n;
}

bool parse_int(std::string_view s, long long& out) {
  std::string tmp(s);
  if (tmp.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(tmp.c_str(), &end, 0);
  if (errno != 0 || *end != '\0') return false;
  out = v;
  return true;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

bool unknown_env(std::string_view name) {
  for (const Info& row : kTable)
    if (row.env == name) return false;
  return true;
}

// The row's variable nearest to `name` (fewest single-character edits).
std::string_view nearest_env(std::string_view name) {
  std::string_view best;
  std::size_t best_d = SIZE_MAX;
  for (const Info& row : kTable) {
    const std::size_t d = edit_distance(name, row.env);
    if (d < best_d) {
      best_d = d;
      best = row.env;
    }
  }
  return best;
}

// CHORUS_* variables that are not parameters but belong to the project's own tools
// (build scripts, tests, benchmarks) or carry state between processes
// (CHORUS_PARENT_PORT: MPI_Comm_spawn's children connect to it): never warned about.
bool tool_variable(std::string_view name) {
  for (std::string_view prefix : {"CHORUS_TEST_", "CHORUS_FUZZ_"})
    if (name.starts_with(prefix)) return true;
  for (std::string_view tool : {"CHORUS_ROOT", "CHORUS_CC", "CHORUS_CXX", "CHORUS_BUILDTYPE", "CHORUS_BUILD_PKGS",
                                "CHORUS_TEST_PKGS", "CHORUS_WITH_TEST_PKGS", "CHORUS_GPU_BW_DEVICE",
                                "CHORUS_PARENT_PORT"})
    if (name == tool) return true;
  return false;
}

// A CHORUS_* variable that no row reads is most likely a typo: say so once, with
// the nearest name. Once per job: by mpirun, or by a process that is no rank of
// Chorus's mpirun (which sets CHORUS_HANG_DIR in every rank) and is rank 0 or alone.
bool g_launcher = false;

void warn_unknown() {
  const char* pmix_rank = std::getenv("PMIX_RANK");
  if (!g_launcher && pmix_rank && (std::getenv("CHORUS_HANG_DIR") || std::string_view(pmix_rank) != "0"))
    return;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    const std::string_view name = entry.substr(0, entry.find('='));
    if (!name.starts_with("CHORUS_") || tool_variable(name) || !unknown_env(name)) continue;
    const std::string_view near = nearest_env(name);
    std::fprintf(stderr, "chorus: WARN %.*s is no Chorus parameter and is ignored; did you mean %.*s? "
                 "(chorus-info lists them all)\n",
                 int(name.size()), name.data(), int(near.size()), near.data());
  }
}

void load_all() {
  for (int i = 0; i < count(); ++i) {
    const Info& row = kTable[i];
    Value v;
    std::string err;
    parse(row, row.def, v, err);  // defaults always parse (checked by unit tests)
    if (const char* env = std::getenv(std::string(row.env).c_str())) {
      Value ev;
      if (parse(row, env, ev, err)) {
        ev.from_env = true;
        v = ev;
      } else {
        // Logging reads params too: write this warning directly.
        std::fprintf(stderr, "chorus: WARN ignoring %.*s='%s': %s (using default '%.*s')\n",
                     int(row.env.size()), row.env.data(), env, err.c_str(),
                     int(row.def.size()), row.def.data());
      }
    }
    g_values[i] = std::move(v);
  }
}

}  // namespace

void set_launcher() { g_launcher = true; }

const Info& info(Id id) { return kTable[static_cast<int>(id)]; }

std::string_view type_name(Type t) {
  switch (t) {
    case Type::Bool: return "bool";
    case Type::Int: return "int";
    case Type::Bytes: return "bytes";
    case Type::Double: return "double";
    case Type::String: return "string";
    case Type::Enum: return "enum";
    case Type::Mask: return "mask";
  }
  return "?";
}

bool parse_bytes(std::string_view s, long long& out, std::string& err) {
  long long mult = 1;
  std::string_view num = s;
  if (!num.empty()) {
    char c = num.back();
    if (c == 'b' || c == 'B') { num.remove_suffix(1); c = num.empty() ? '\0' : num.back(); }
    switch (c) {
      case 'k': case 'K': mult = 1LL << 10; break;
      case 'm': case 'M': mult = 1LL << 20; break;
      case 'g': case 'G': mult = 1LL << 30; break;
      default: break;
    }
    if (mult != 1) num.remove_suffix(1);
  }
  long long v = 0;
  if (!parse_int(num, v) || v < 0 || v > (1LL << 50)) {
    err = "expected a byte count such as 65536, 64K, 1M or 1G";
    return false;
  }
  out = v * mult;
  return true;
}

bool parse(const Info& row, std::string_view text, Value& out, std::string& err) {
  std::string_view s = trim(text);
  out = Value{};
  out.text = std::string(s);
  switch (row.type) {
    case Type::Bool:
      if (s == "1" || iequals(s, "yes") || iequals(s, "true") || iequals(s, "on")) { out.i = 1; return true; }
      if (s == "0" || iequals(s, "no") || iequals(s, "false") || iequals(s, "off")) { out.i = 0; return true; }
      err = "expected a boolean (1/0, yes/no, true/false, on/off)";
      return false;
    case Type::Int:
      if (!parse_int(s, out.i)) { err = "expected an integer"; return false; }
      return true;
    case Type::Bytes:
      return parse_bytes(s, out.i, err);
    case Type::Double: {
      std::string tmp(s);
      char* end = nullptr;
      errno = 0;
      double d = std::strtod(tmp.c_str(), &end);
      if (tmp.empty() || errno != 0 || *end != '\0' || !std::isfinite(d)) {
        err = "expected a number";
        return false;
      }
      out.d = d;
      return true;
    }
    case Type::String:
      return true;
    case Type::Enum: {
      int idx = choice_index(row.choices, s);
      if (idx < 0) { err = "expected one of " + std::string(row.choices); return false; }
      out.i = idx;
      return true;
    }
    case Type::Mask: {
      std::uint64_t bits = 0;
      std::uint64_t all = (1ULL << choice_count(row.choices)) - 1;
      std::string_view rest = s;
      bool any = false;
      while (!rest.empty()) {
        size_t comma = rest.find(',');
        std::string_view word = trim(rest.substr(0, comma));
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        if (word.empty()) continue;
        bool exclude = word.front() == '^';
        if (exclude) word.remove_prefix(1);
        std::uint64_t b;
        if (iequals(word, "ALL")) {
          b = all;
        } else {
          int idx = choice_index(row.choices, word);
          if (idx < 0) {
            err = "unknown name '" + std::string(word) + "', expected ALL or names from " +
                  std::string(row.choices);
            return false;
          }
          b = 1ULL << idx;
        }
        if (exclude) {
          if (!any) bits = all;  // "^P2P" alone means everything but P2P
          bits &= ~b;
        } else {
          bits |= b;
        }
        any = true;
      }
      out.i = static_cast<long long>(bits);
      return true;
    }
  }
  err = "unknown type";
  return false;
}

const Value& value(Id id) {
  if (!g_loaded.load(std::memory_order_acquire))
    std::call_once(g_once, [] {
      load_all();
      warn_unknown();
      g_loaded.store(true, std::memory_order_release);
    });
  return g_values[static_cast<int>(id)];
}

void set_number(Id id, long long number) {
  (void)value(id);  // the environment first, once
  const Info& row = kTable[static_cast<int>(id)];
  Value v;
  v.i = number;
  // The text chorus-info and logs show: the choice's name, or the number.
  if (row.type == Type::Enum && number >= 0 && number < choice_count(row.choices)) {
    std::string_view c = row.choices;
    for (long long k = 0; k < number; ++k) c.remove_prefix(c.find('|') + 1);
    v.text = std::string(c.substr(0, c.find('|')));
  } else {
    v.text = std::to_string(number);
  }
  std::lock_guard<std::mutex> lk(g_reload_mu);
  g_values[static_cast<int>(id)] = std::move(v);
}

void reload() {
  std::call_once(g_once, [] {});
  std::lock_guard<std::mutex> lk(g_reload_mu);
  load_all();
  g_loaded.store(true, std::memory_order_release);
  log::reconfigure();
}

}  // namespace chorus::params
