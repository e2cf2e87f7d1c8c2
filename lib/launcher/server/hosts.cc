#include "launcher/server/hosts.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace chorus::launcher {

bool parse_count(std::string_view s, long& out) {
  if (s.empty()) return false;
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v < 0) return false;
  out = v;
  return true;
}

namespace {

// The most slots one host counts (far beyond any node; sums stay in range), and
// the most names a Slurm node list may expand to.
constexpr long kMaxCount = 1 << 20;


bool positive_count(std::string_view s, int& out) {
  long v = 0;
  if (!parse_count(s, v) || v < 1 || v > kMaxCount) return false;
  out = static_cast<int>(v);
  return true;
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

// Whitespace-separated words of `s`.
std::vector<std::string_view> words(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    std::size_t j = i;
    while (j < s.size() && !is_space(s[j])) ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

// Letters, digits, '-', '_' and '.': host names and IPv4 addresses.
bool valid_host_name(std::string_view s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
           c == '.';
  });
}

bool is_ipv4(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || c == '.'; });
}

std::string_view first_label(std::string_view s) { return s.substr(0, s.find('.')); }

// Splits on `sep` (an empty string gives one empty field).
std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const std::size_t at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

// Each entry of a host or rank file: a line without its '#' comment and the
// blanks around it, empty ones skipped. `fn(line, lineno)` returns why the line
// is wrong ("" when it is fine); the first such ends the walk with `err` set to
// "FILE:LINE: 'text': why" and false.
template <class Fn>
bool for_each_entry(std::string_view text, const std::string& file, std::string& err, Fn fn) {
  int lineno = 0;
  for (std::string_view raw : split(text, '\n')) {
    ++lineno;
    const std::string_view line = trim(raw.substr(0, raw.find('#')));
    if (line.empty()) continue;
    if (std::string why = fn(line, lineno); !why.empty()) {
      err = fmt::format("{}:{}: '{}': {}", file, lineno, line, why);
      return false;
    }
  }
  return true;
}

// A rankfile's slot= text: "N", "N-M", lists of those ("0,2-3"), optionally
// "SOCKETS:CORES" ("1:0-1").
bool valid_cpu_slot(std::string_view s) {
  const auto parts = split(s, ':');
  if (parts.size() > 2) return false;
  std::vector<int> ids;
  return std::all_of(parts.begin(), parts.end(), [&](std::string_view part) { return parse_index_list(part, ids); });
}

}  // namespace

bool parse_index_list(std::string_view s, std::vector<int>& out) {
  constexpr long kMax = 1 << 20;  // more CPUs than any machine has
  for (std::string_view item : split(s, ',')) {
    const std::size_t dash = item.find('-');
    long lo = 0, hi = 0;
    if (!parse_count(item.substr(0, dash), lo) || lo > kMax) return false;
    hi = lo;
    if (dash != std::string_view::npos && (!parse_count(item.substr(dash + 1), hi) || hi < lo || hi > kMax))
      return false;
    for (long i = lo; i <= hi; ++i) out.push_back(static_cast<int>(i));
  }
  return true;
}

bool same_host(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
           return lower(x) == lower(y);
         });
}

void add_host(std::vector<HostSpec>& hosts, const HostSpec& h) {
  auto it = std::find_if(hosts.begin(), hosts.end(), [&](const HostSpec& o) { return same_host(o.name, h.name); });
  if (it == hosts.end()) {
    hosts.push_back(h);
    return;
  }
  it->slots = static_cast<int>(std::min<long>(kMaxCount, long{it->slots} + h.slots));
  it->slots_given = it->slots_given || h.slots_given;
  it->max_slots = static_cast<int>(std::min<long>(kMaxCount, long{it->max_slots} + h.max_slots));
  // A line without max_slots adds slots beyond the others' max: the max rises with them.
  if (it->max_slots > 0 && it->max_slots < it->slots) it->max_slots = it->slots;
}

std::vector<HostSpec> parse_host_list(std::string_view list, std::string_view option, std::string& err) {
  err.clear();
  std::vector<HostSpec> hosts;
  for (std::string_view item : split(list, ',')) {
    const std::size_t colon = item.find(':');
    const std::string_view name = item.substr(0, colon);
    if (name.empty()) {
      err = fmt::format("{} {}: empty host name", option, list);
      return {};
    }
    if (!valid_host_name(name)) {
      err = fmt::format("{} {}: '{}' is not a host name", option, list, name);
      return {};
    }
    HostSpec h{std::string(name), 1, false, 0};
    if (colon != std::string_view::npos) {
      if (!positive_count(item.substr(colon + 1), h.slots)) {
        err = fmt::format("{} {}: '{}': the slot count after ':' must be a positive integer", option, list, item);
        return {};
      }
      h.slots_given = true;
    }
    add_host(hosts, h);
  }
  return hosts;
}

std::vector<HostSpec> parse_hostfile(std::string_view text, const std::string& file, std::string& err) {
  err.clear();
  std::vector<HostSpec> hosts;
  const bool good = for_each_entry(text, file, err, [&](std::string_view line, int) -> std::string {
    auto bad = [](std::string_view why) { return std::string(why); };
    const auto w = words(line);
    // MPICH: "host:N"; Open MPI: "host" then key=value words.
    const std::size_t colon = w[0].find(':');
    HostSpec h{std::string(w[0].substr(0, colon)), 1, false, 0};
    if (!valid_host_name(h.name)) return bad(fmt::format("'{}' is not a host name", w[0].substr(0, colon)));
    if (colon != std::string_view::npos) {
      if (!positive_count(w[0].substr(colon + 1), h.slots))
        return bad("the slot count after ':' must be a positive integer");
      h.slots_given = true;
    }
    bool max_given = false;
    for (std::size_t k = 1; k < w.size(); ++k) {
      const std::size_t eq = w[k].find('=');
      const std::string_view key = w[k].substr(0, eq);
      const std::string_view val = eq == std::string_view::npos ? std::string_view() : w[k].substr(eq + 1);
      if (key == "slots") {
        if (h.slots_given) return bad("the slots are given twice");
        if (!positive_count(val, h.slots)) return bad("slots= needs a positive integer");
        h.slots_given = true;
      } else if (key == "max_slots" || key == "max-slots") {
        if (max_given) return bad("max_slots is given twice");
        if (!positive_count(val, h.max_slots)) return bad("max_slots= needs a positive integer");
        max_given = true;
      } else {
        return bad(fmt::format("unknown '{}' (expected slots=N or max_slots=N)", w[k]));
      }
    }
    if (max_given && !h.slots_given) {
      h.slots = h.max_slots;  // as many slots as it may ever take
      h.slots_given = true;
    }
    if (max_given && h.max_slots < h.slots)
      return bad(fmt::format("max_slots={} is below slots={}", h.max_slots, h.slots));
    add_host(hosts, h);
    return {};
  });
  if (!good) return {};
  if (hosts.empty()) err = fmt::format("{}: no hosts in it", file);
  return hosts;
}

bool read_text_file(const std::string& path, std::string& text, std::string& err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = fmt::format("{}: {}", path, std::strerror(errno));
    return false;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) {
    err = fmt::format("{}: read error", path);
    return false;
  }
  text = ss.str();
  return true;
}

std::vector<std::string> expand_slurm_nodelist(std::string_view s, std::string& err) {
  err.clear();
  // Names split at commas outside brackets.
  std::vector<std::string_view> items;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    const char c = i < s.size() ? s[i] : ',';
    if (c == '[') {
      if (depth++ > 0) {
        err = "a '[' inside brackets";
        return {};
      }
    } else if (c == ']') {
      if (depth-- == 0) {
        err = "a ']' without its '['";
        return {};
      }
    } else if (c == ',' && depth == 0) {
      items.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  if (depth != 0) {
    err = "a '[' without its ']'";
    return {};
  }

  std::vector<std::string> out;
  for (std::string_view item : items) {
    if (item.empty()) {
      err = "an empty name";
      return {};
    }
    // The name's pieces: literal text (one choice) and bracket groups (their values).
    std::vector<std::vector<std::string>> pieces;
    long combos = 1;
    std::size_t i = 0;
    while (i < item.size()) {
      if (item[i] != '[') {
        const std::size_t j = std::min(item.find('[', i), item.size());
        const std::string_view lit = item.substr(i, j - i);
        if (!valid_host_name(lit)) {
          err = fmt::format("'{}' is not part of a host name", lit);
          return {};
        }
        pieces.push_back({std::string(lit)});
        i = j;
        continue;
      }
      const std::size_t close = item.find(']', i);
      const std::string_view group = item.substr(i + 1, close - i - 1);
      std::vector<std::string> values;
      for (std::string_view range : split(group, ',')) {
        const std::size_t dash = range.find('-');
        const std::string_view lo_s = range.substr(0, dash);
        const std::string_view hi_s = dash == std::string_view::npos ? lo_s : range.substr(dash + 1);
        long lo = 0, hi = 0;
        if (lo_s.size() > 9 || hi_s.size() > 9 || !parse_count(lo_s, lo) || !parse_count(hi_s, hi) || hi < lo) {
          err = fmt::format("'[{}]': expected numbers and ranges like [01-04,07]", group);
          return {};
        }
        if (hi - lo >= kMaxCount - static_cast<long>(values.size())) {
          err = fmt::format("'[{}]': more than {} names", group, kMaxCount);
          return {};
        }
        // The width of the first number: [01-10] gives 01..10, [8-10] gives 8..10.
        for (long v = lo; v <= hi; ++v) values.push_back(fmt::format("{:0{}}", v, lo_s.size()));
      }
      combos *= static_cast<long>(values.size());
      if (combos > kMaxCount) {
        err = fmt::format("'{}': more than {} names", item, kMaxCount);
        return {};
      }
      pieces.push_back(std::move(values));
      i = close + 1;
    }
    if (static_cast<long>(out.size()) + combos > kMaxCount) {
      err = fmt::format("more than {} names", kMaxCount);
      return {};
    }
    // Every combination, the last piece varying fastest.
    std::vector<std::size_t> at(pieces.size(), 0);
    while (true) {
      std::string name;
      for (std::size_t p = 0; p < pieces.size(); ++p) name += pieces[p][at[p]];
      out.push_back(std::move(name));
      std::size_t p = pieces.size();
      while (p > 0 && ++at[p - 1] == pieces[p - 1].size()) at[--p] = 0;
      if (p == 0) break;
    }
  }
  return out;
}

std::vector<int> parse_slurm_tasks_per_node(std::string_view s) {
  std::vector<int> out;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    long count = 0, times = 1;
    const std::size_t paren = item.find('(');
    if (!parse_count(item.substr(0, paren), count) || count < 1 || count > kMaxCount) return {};
    if (paren != std::string_view::npos) {
      std::string_view rep = item.substr(paren);
      if (rep.size() < 4 || rep.substr(0, 2) != "(x" || rep.back() != ')' ||
          !parse_count(rep.substr(2, rep.size() - 3), times) || times < 1 || times > kMaxCount)
        return {};
    }
    if (static_cast<long>(out.size()) + times > kMaxCount) return {};
    for (long k = 0; k < times; ++k) out.push_back(static_cast<int>(count));
    if (comma != std::string_view::npos && s.empty()) return {};  // a trailing comma
  }
  return out;
}

std::vector<HostSpec> parse_pbs_nodefile(std::string_view text) {
  std::vector<HostSpec> hosts;
  for (std::string_view raw : split(text, '\n')) {
    const std::string_view line = trim(raw);
    if (!line.empty()) add_host(hosts, HostSpec{std::string(line), 1, true, 0});
  }
  return hosts;
}

std::vector<HostSpec> allocation_hosts(std::string& from, std::string& err) {
  err.clear();
  from.clear();
  auto env = [](const char* name) -> std::string_view {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (std::string_view job = env("SLURM_JOB_ID"); !job.empty()) {
    from = fmt::format("Slurm allocation {}", job);
    std::string_view list = env("SLURM_JOB_NODELIST");
    const char* list_var = "SLURM_JOB_NODELIST";
    if (list.empty()) {
      list = env("SLURM_NODELIST");
      list_var = "SLURM_NODELIST";
    }
    const std::string_view tpn = env("SLURM_TASKS_PER_NODE");
    const std::vector<int> per = parse_slurm_tasks_per_node(tpn);
    if (!tpn.empty() && per.empty()) {
      err = fmt::format("{}: SLURM_TASKS_PER_NODE {}: expected counts like 2(x3),1", from, tpn);
      return {};
    }
    if (list.empty()) {
      // No node list: an allocation of this node alone, its tasks from SLURM_NTASKS.
      std::string_view nodes = env("SLURM_JOB_NUM_NODES");
      if (nodes.empty()) nodes = env("SLURM_NNODES");
      long n = 1;
      if (parse_count(nodes, n) && n > 1) {
        err = fmt::format("{} has {} nodes but SLURM_JOB_NODELIST is not set: give --host or --hostfile", from, n);
        return {};
      }
      int tasks = 0;
      if (!positive_count(env("SLURM_NTASKS"), tasks) && per.size() == 1) tasks = per[0];
      if (tasks == 0) return {};
      return {HostSpec{local_host_names()[0], tasks, true, 0}};
    }
    const std::vector<std::string> names = expand_slurm_nodelist(list, err);
    if (!err.empty()) {
      err = fmt::format("{}: {} {}: {}", from, list_var, list, err);
      return {};
    }
    if (per.empty()) {
      err = fmt::format("{}: SLURM_TASKS_PER_NODE is not set (the tasks of each node in {})", from, list);
      return {};
    }
    if (per.size() != names.size()) {
      err = fmt::format("{}: SLURM_TASKS_PER_NODE {} counts {} node{}, {} {} names {}", from, tpn, per.size(),
                        per.size() == 1 ? "" : "s", list_var, list, names.size());
      return {};
    }
    std::vector<HostSpec> hosts;
    for (std::size_t k = 0; k < names.size(); ++k) add_host(hosts, HostSpec{names[k], per[k], true, 0});
    return hosts;
  }
  if (std::string_view file = env("PBS_NODEFILE"); !file.empty()) {
    from = fmt::format("PBS_NODEFILE {}", file);
    std::string text;
    if (!read_text_file(std::string(file), text, err)) {
      err = fmt::format("PBS_NODEFILE {}", err);
      return {};
    }
    std::vector<HostSpec> hosts = parse_pbs_nodefile(text);
    for (const HostSpec& h : hosts) {
      if (!valid_host_name(h.name)) {
        err = fmt::format("{}: '{}' is not a host name", from, h.name);
        return {};
      }
    }
    if (hosts.empty()) err = fmt::format("{}: no hosts in it", from);
    return hosts;
  }
  return {};
}

std::vector<RankfileLine> parse_rankfile(std::string_view text, const std::string& file, std::string& err) {
  err.clear();
  std::vector<RankfileLine> out;
  const bool good = for_each_entry(text, file, err, [&](std::string_view line, int lineno) -> std::string {
    auto bad = [](std::string_view why) { return std::string(why); };
    constexpr std::string_view kUsage = "expected 'rank N=host slot=S'";
    // "rank N=host slot=S", spaces allowed around '='.
    if (!line.starts_with("rank") || line.size() < 5 || !is_space(line[4])) return bad(kUsage);
    std::string_view rest = trim(line.substr(4));
    const std::size_t eq = rest.find('=');
    if (eq == std::string_view::npos) return bad(kUsage);
    RankfileLine r;
    r.line = lineno;
    long rank = 0;
    if (!parse_count(trim(rest.substr(0, eq)), rank) || rank >= kMaxCount)
      return bad(fmt::format("'{}' is not a rank number", trim(rest.substr(0, eq))));
    r.rank = static_cast<int>(rank);
    const auto w = words(rest.substr(eq + 1));
    if (w.empty()) return bad(kUsage);
    if (!valid_host_name(w[0])) return bad(fmt::format("'{}' is not a host name", w[0]));
    r.host = std::string(w[0]);
    for (std::size_t k = 1; k < w.size(); ++k) {
      if (!w[k].starts_with("slot=") || !r.cpu_slot.empty()) return bad(kUsage);
      r.cpu_slot = std::string(w[k].substr(5));
      if (!valid_cpu_slot(r.cpu_slot))
        return bad(fmt::format("slot={}: expected a CPU number, a range (0-1), a list (0,2) or SOCKET:CORE (1:0)",
                               r.cpu_slot));
    }
    out.push_back(std::move(r));
    return {};
  });
  if (!good) return {};
  if (out.empty()) err = fmt::format("{}: no ranks in it", file);
  return out;
}

std::vector<std::string> local_host_names() {
  std::vector<std::string> names;
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0') {
    names.emplace_back(host);
    if (!is_ipv4(host) && std::strchr(host, '.')) names.emplace_back(first_label(host));
  }
  names.emplace_back("localhost");
  return names;
}

bool is_local_host(std::string_view name, const std::vector<std::string>& local_names) {
  if (name == "127.0.0.1") return true;
  for (std::string_view l : local_names) {
    if (same_host(name, l)) return true;
    // "node1" and "node1.cluster" name one host; addresses have no short form.
    if (is_ipv4(name) || is_ipv4(l)) continue;
    if (name.find('.') == std::string_view::npos && same_host(name, first_label(l))) return true;
    if (l.find('.') == std::string_view::npos && same_host(first_label(name), l)) return true;
  }
  return false;
}

}  // namespace chorus::launcher
