#include "topo/links.h"

#include <algorithm>
#include <map>

namespace chorus::topo {

std::vector<std::vector<std::pair<int, int>>> pair_rounds(int n) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (n < 2) return rounds;
  // Node m-1 stays put, the others turn around it; with odd n, m-1 is a bye.
  const int m = n % 2 ? n + 1 : n;
  for (int r = 0; r < m - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int i = 0; i < m / 2; ++i) {
      int a = i == 0 ? m - 1 : (r + i) % (m - 1);
      int b = (r + m - 1 - i) % (m - 1);
      if (a >= n || b >= n) continue;  // the bye
      round.emplace_back(std::min(a, b), std::max(a, b));
    }
    std::sort(round.begin(), round.end());
    rounds.push_back(std::move(round));
  }
  return rounds;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

SlowReport slow_links(const std::vector<std::vector<double>>& bw, double slow) {
  SlowReport out;
  const int n = static_cast<int>(bw.size());
  auto at = [&](int a, int b) { return bw[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)]; };
  std::vector<double> all;
  for (int a = 0; a < n; ++a)
    for (int b = 0; b < n; ++b)
      if (a != b && at(a, b) > 0) all.push_back(at(a, b));
  out.link_median = median(all);
  // Each link by its slower direction: a node that sends slowly and receives at
  // full speed still shows in every one of its links.
  std::vector<std::vector<double>> per_node(static_cast<std::size_t>(n));
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      double worst = 0;
      for (double x : {at(a, b), at(b, a)})
        if (x > 0) worst = worst > 0 ? std::min(worst, x) : x;
      if (worst <= 0) continue;
      per_node[static_cast<std::size_t>(a)].push_back(worst);
      per_node[static_cast<std::size_t>(b)].push_back(worst);
      if (worst < slow * out.link_median) out.links.push_back({a, b, worst});
    }
  std::vector<double> medians;
  for (const auto& v : per_node)
    if (!v.empty()) medians.push_back(median(v));
  out.node_median = median(medians);
  for (int a = 0; a < n; ++a) {
    const auto& v = per_node[static_cast<std::size_t>(a)];
    if (!v.empty() && median(v) < slow * out.node_median) out.nodes.push_back({a, median(v)});
  }
  return out;
}

std::vector<int> below_median(const std::vector<double>& values, double slow, double* median_out) {
  std::vector<double> measured;
  for (double v : values)
    if (v > 0) measured.push_back(v);
  const double m = median(measured);
  if (median_out) *median_out = m;
  std::vector<int> out;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] > 0 && values[i] < slow * m) out.push_back(static_cast<int>(i));
  return out;
}

std::vector<int> odd_ones(const std::vector<std::string>& values) {
  std::map<std::string, int> count;
  for (const std::string& v : values) ++count[v];
  if (count.size() < 2) return {};
  auto best = std::max_element(count.begin(), count.end(),
                               [](const auto& x, const auto& y) { return x.second < y.second; });
  if (best->second < 2) return {};
  std::vector<int> out;
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] != best->first) out.push_back(static_cast<int>(i));
  return out;
}

}  // namespace chorus::topo
