// The hang doctor, launcher side: the ranks' reports (core/hang.h) made into one
// table and a diagnosis. Pure functions over text, so the unit tests feed them
// reports directly.
#pragma once
#include <map>
#include <string>
#include <vector>

namespace chorus::launcher {

// One rank's report: `key=value` fields separated by tabs (core/hang.h).
struct HangReport {
  int rank = -1;
  std::map<std::string, std::string> f;
  std::string get(const std::string& k, const std::string& dflt = "") const {
    auto it = f.find(k);
    return it == f.end() ? dflt : it->second;
  }
  long long num(const std::string& k, long long dflt) const;
};

// Parses one report line; rank -1 when it has no rank field.
HangReport parse_hang_report(const std::string& line);

// The table and what it shows, one line each (no trailing newlines). `size` is
// the job's rank count: ranks with no report appear as "no report". `why` says
// what asked for it (a hang timeout, --timeout, SIGQUIT).
std::vector<std::string> hang_table(const std::vector<HangReport>& reports, int size, const std::string& why);

}  // namespace chorus::launcher
