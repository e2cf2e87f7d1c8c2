// Node maps for the simulator tests of the hierarchical algorithms (shared by
// coll_reductions_test and coll_movement_test).
#pragma once
#include <algorithm>
#include <memory>
#include <vector>

#include "coll/args.h"

namespace chorus::coll::testing {

// Node maps for the hierarchical algorithms at p ranks (CommShape::node_of, nodes
// numbered in order of first appearance): k consecutive ranks per node (k = 1, 2,
// 3, p/2), one rank alone then pairs (uneven), and ranks dealt round-robin to 3
// nodes. Only maps with more than one node.
inline std::vector<std::vector<int>> node_maps(int p) {
  std::vector<std::vector<int>> maps;
  auto add = [&](auto node_of_rank) {
    std::vector<int> m(static_cast<std::size_t>(p));
    for (int r = 0; r < p; ++r) m[static_cast<std::size_t>(r)] = node_of_rank(r);
    if (*std::max_element(m.begin(), m.end()) > 0 &&
        std::find(maps.begin(), maps.end(), m) == maps.end())
      maps.push_back(std::move(m));
  };
  for (int k : {1, 2, 3, std::max(1, p / 2)}) add([k](int r) { return r / k; });
  add([](int r) { return r == 0 ? 0 : 1 + (r - 1) / 2; });
  add([](int r) { return r % 3; });
  return maps;
}

// Gives `a` (a.size ranks) the node map `m`.
inline void set_node_map(CollArgs& a, const std::vector<int>& m) {
  std::vector<int> per(static_cast<std::size_t>(*std::max_element(m.begin(), m.end()) + 1));
  for (int n : m) ++per[static_cast<std::size_t>(n)];
  a.shape.size = a.size;
  a.shape.nodes = static_cast<int>(per.size());
  a.shape.ranks_per_node = *std::max_element(per.begin(), per.end());
  a.shape.node_of = std::make_shared<const std::vector<int>>(m);
}

}  // namespace chorus::coll::testing
