#include "launcher/server/hang_table.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <sstream>

#include <fmt/format.h>

namespace chorus::launcher {
namespace {

std::string ranks_text(const std::vector<int>& rs) {
  std::string out;
  // Runs of consecutive ranks as a-b.
  for (std::size_t i = 0; i < rs.size();) {
    std::size_t j = i;
    while (j + 1 < rs.size() && rs[j + 1] == rs[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += j > i + 1 ? fmt::format("{}-{}", rs[i], rs[j]) : j == i + 1 ? fmt::format("{},{}", rs[i], rs[j])
                                                                        : fmt::format("{}", rs[i]);
    i = j + 1;
  }
  return out;
}

// "rank 2 is", "ranks 0,1 are".
std::string who(const std::vector<int>& rs) {
  return fmt::format("{} {} {}", rs.size() == 1 ? "rank" : "ranks", ranks_text(rs), rs.size() == 1 ? "is" : "are");
}

std::string comm_text(const HangReport& r) {
  std::string c = r.get("comm");
  if (c.empty()) return "-";
  return fmt::format("{} ({} ranks)", c, r.get("size", "?"));
}

// "rank 2 (tag 5)", "any rank (tag 5)", "root 0", or "-".
std::string waits_on(const HangReport& r) {
  const long long peer = r.num("peer", -2), tag = r.num("tag", -1), root = r.num("root", -1);
  if (r.num("seq", -1) >= 0) return root >= 0 ? fmt::format("root {}", root) : "all members";
  std::string t = tag >= 0 ? fmt::format(" tag {}", tag) : tag == -1 ? "" : " any tag";
  if (peer >= 0) return fmt::format("rank {}{}", peer, t);
  if (peer == -1) return fmt::format("any rank{}", t);
  return "-";
}

// What a rank is doing, in a few words (for the diagnosis lines).
std::string doing(const HangReport* r) {
  if (!r) return "sent no report (gone, or not an MPI program)";
  const std::string st = r->get("state");
  if (st == "user") return "is outside MPI (in the program's own code)";
  if (st == "finalized") return "has called MPI_Finalize";
  if (st != "wait") return "is in state " + st;
  std::string s = "is in " + r->get("call", "?");
  if (r->num("seq", -1) >= 0) s += fmt::format(" #{}", r->num("seq", -1));
  if (r->get("comm") != "" && r->get("comm") != "MPI_COMM_WORLD") s += " on " + r->get("comm");
  return s;
}

}  // namespace

long long HangReport::num(const std::string& k, long long dflt) const {
  auto it = f.find(k);
  if (it == f.end() || it->second.empty()) return dflt;
  char* end = nullptr;
  long long v = std::strtoll(it->second.c_str(), &end, 10);
  return end && *end == '\0' ? v : dflt;
}

HangReport parse_hang_report(const std::string& line) {
  HangReport r;
  std::stringstream ss(line);
  std::string field;
  while (std::getline(ss, field, '\t')) {
    while (!field.empty() && (field.back() == '\n' || field.back() == '\r')) field.pop_back();
    auto eq = field.find('=');
    if (eq == std::string::npos) continue;
    r.f[field.substr(0, eq)] = field.substr(eq + 1);
  }
  r.rank = static_cast<int>(r.num("rank", -1));
  return r;
}

std::vector<std::string> hang_table(const std::vector<HangReport>& reports, int size, const std::string& why) {
  std::vector<std::string> out;
  std::map<int, const HangReport*> by_rank;
  for (const auto& r : reports)
    if (r.rank >= 0 && r.rank < size) by_rank[r.rank] = &r;
  auto at = [&](int rank) -> const HangReport* {
    auto it = by_rank.find(rank);
    return it == by_rank.end() ? nullptr : it->second;
  };

  out.push_back(fmt::format("hang doctor ({}): where each of the {} ranks is", why, size));
  out.push_back(fmt::format("  {:>5}  {:<12} {:<9} {:<26} {:<28} {:>5}  {:<18} {:>7} {:>7}", "rank", "host",
                            "state", "call", "communicator", "coll#", "waits on", "pending", "secs"));
  for (int rank = 0; rank < size; ++rank) {
    const HangReport* r = at(rank);
    if (!r) {
      out.push_back(fmt::format("  {:>5}  {:<12} {:<9}", rank, "?", "no report"));
      continue;
    }
    const bool wait = r->get("state") == "wait";
    const long long seq = r->num("seq", -1);
    out.push_back(fmt::format("  {:>5}  {:<12} {:<9} {:<26} {:<28} {:>5}  {:<18} {:>7} {:>7}", rank,
                              r->get("host", "?"), r->get("state", "?"), wait ? r->get("call", "?") : "-",
                              wait ? comm_text(*r) : "-", wait && seq >= 0 ? fmt::format("{}", seq) : "-",
                              wait ? waits_on(*r) : "-", wait ? r->get("pending", "-") : "-",
                              wait ? r->get("secs", "-") : "-"));
  }

  // Collectives some members are in and others never entered.
  std::map<std::pair<long long, long long>, std::vector<int>> in_coll;  // (ctx, seq) -> ranks
  for (const auto& [rank, r] : by_rank)
    if (r->get("state") == "wait" && r->num("seq", -1) >= 0)
      in_coll[{r->num("ctx", -1), r->num("seq", -1)}].push_back(rank);
  for (const auto& [key, ranks] : in_coll) {
    const HangReport* first = at(ranks.front());
    std::vector<int> members;
    std::stringstream ms(first->get("members"));
    for (std::string m; std::getline(ms, m, ',');)
      if (!m.empty()) members.push_back(std::atoi(m.c_str()));
    std::vector<int> missing;
    for (int m : members)
      if (!std::binary_search(ranks.begin(), ranks.end(), m)) missing.push_back(m);
    std::string what = fmt::format("{} #{} on {}", first->get("call", "?"), key.second, comm_text(*first));
    if (missing.empty()) {
      if (members.empty())
        out.push_back(fmt::format("hang doctor: {} in {}", who(ranks), what));
      else
        out.push_back(fmt::format("hang doctor: every member is in {}: a member's data never arrived "
                                  "(see the peers' states above)", what));
      continue;
    }
    out.push_back(fmt::format("hang doctor: {} in {}; rank{} {} never entered it:", who(ranks), what,
                              missing.size() > 1 ? "s" : "", ranks_text(missing)));
    for (int m : missing) out.push_back(fmt::format("  rank {} {}", m, doing(at(m))));
  }

  // Point-to-point waits: each waiting rank names at most one peer; follow them.
  std::map<int, int> next;
  for (const auto& [rank, r] : by_rank)
    if (r->get("state") == "wait" && r->num("seq", -1) < 0 && r->num("peer", -2) >= 0)
      next[rank] = static_cast<int>(r->num("peer", -2));
  std::set<int> seen_cycle;
  for (const auto& [start, _] : next) {
    std::vector<int> path;
    std::set<int> on_path;
    int cur = start;
    while (next.count(cur) && !on_path.count(cur) && !seen_cycle.count(cur)) {
      on_path.insert(cur);
      path.push_back(cur);
      cur = next[cur];
    }
    if (!on_path.count(cur)) continue;  // ends outside a cycle (or in one already named)
    auto from = std::find(path.begin(), path.end(), cur);
    std::string cyc;
    for (auto it = from; it != path.end(); ++it) {
      seen_cycle.insert(*it);
      const HangReport* r = at(*it);
      cyc += fmt::format("{}rank {} ({}) waits for rank {}", cyc.empty() ? "" : ", ", *it, r->get("call", "?"),
                         next[*it]);
    }
    out.push_back("hang doctor: deadlock, point-to-point waits form a cycle: " + cyc);
  }
  // Waits on a rank that cannot answer.
  for (const auto& [rank, peer] : next) {
    if (seen_cycle.count(rank)) continue;
    const HangReport* p = at(peer);
    const std::string st = p ? p->get("state") : "";
    if (!p || st == "finalized" || st == "user")
      out.push_back(fmt::format("hang doctor: rank {} waits in {} for rank {}, which {}", rank,
                                at(rank)->get("call", "?"), peer, doing(p)));
  }
  return out;
}

}  // namespace chorus::launcher
