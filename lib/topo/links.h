// The cluster check's arithmetic (chorus-doctor): which nodes measure their link
// in which round, and which nodes, links and settings stand out. Pure functions,
// so the unit tests run them on made-up matrices.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace chorus::topo {

// Rounds of disjoint pairs covering every pair of n nodes exactly once (the
// circle method): n-1 rounds for even n, n for odd n (each node sits out one).
// Each pair is (a, b) with a < b.
std::vector<std::vector<std::pair<int, int>>> pair_rounds(int n);

double median(std::vector<double> v);  // 0 for an empty vector

// Bandwidths bw[a][b] (a to b, GB/s; the diagonal and unmeasured entries <= 0).
struct LinkFinding {
  int a = 0, b = 0;   // a < b
  double worst = 0;   // the slower direction
};
struct NodeFinding {
  int node = 0;
  double median = 0;  // of its links' bandwidths (both directions)
};
struct SlowReport {
  double link_median = 0;  // of every measured direction
  double node_median = 0;  // of the nodes' medians
  std::vector<LinkFinding> links;
  std::vector<NodeFinding> nodes;
};
// A link is slow when a direction of it is below slow x the median of all
// directions; a node when the median of its links (each by its slower direction)
// is below slow x the median of the nodes' medians (so with one bad node, its
// links are named and so is it).
SlowReport slow_links(const std::vector<std::vector<double>>& bw, double slow);

// The indices of the values below slow x the median of the measured ones (those
// > 0; the others were not measured and are never named): one per node, say a
// node's GPU copy bandwidth. The median goes to *median_out if given.
std::vector<int> below_median(const std::vector<double>& values, double slow, double* median_out = nullptr);

// The nodes whose value differs from the most common one ({} when all agree or
// when there is no majority to speak of: every value held by one node).
std::vector<int> odd_ones(const std::vector<std::string>& values);

}  // namespace chorus::topo
