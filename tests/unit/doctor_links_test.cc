// chorus-doctor's arithmetic (topo/links.h): rounds of disjoint pairs, and which
// links, nodes and settings it names.
#include <catch2/catch.hpp>

#include <set>

#include "topo/links.h"

using namespace chorus::topo;

TEST_CASE("pair rounds: every pair once, disjoint within a round, n-1 rounds (n for odd n)", "[doctor]") {
  for (int n = 0; n <= 41; ++n) {
    INFO("n = " << n);
    const auto rounds = pair_rounds(n);
    CHECK(rounds.size() == static_cast<std::size_t>(n < 2 ? 0 : n % 2 ? n : n - 1));
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (auto [a, b] : round) {
        CHECK(a < b);
        CHECK(b < n);
        CHECK(busy.insert(a).second);
        CHECK(busy.insert(b).second);
        CHECK(seen.insert({a, b}).second);
      }
      CHECK(round.size() == static_cast<std::size_t>(n / 2));
    }
    CHECK(seen.size() == static_cast<std::size_t>(n * (n - 1) / 2));
  }
}

TEST_CASE("slow links and nodes: one node slow in both directions, or sending only", "[doctor]") {
  auto matrix = [](int n, double fast) {
    std::vector<std::vector<double>> bw(static_cast<std::size_t>(n), std::vector<double>(static_cast<std::size_t>(n), fast));
    for (int i = 0; i < n; ++i) bw[static_cast<std::size_t>(i)][static_cast<std::size_t>(i)] = 0;
    return bw;
  };
  auto bw = matrix(4, 1.8);
  SlowReport healthy = slow_links(bw, 0.5);
  CHECK(healthy.links.empty());
  CHECK(healthy.nodes.empty());
  CHECK(healthy.link_median == 1.8);
  for (int both = 0; both < 2; ++both) {
    bw = matrix(4, 1.8);
    for (int x = 0; x < 4; ++x)
      if (x != 2) {
        bw[2][static_cast<std::size_t>(x)] = 0.025;  // h2 sends through a 200 Mbit/s filter
        if (both) bw[static_cast<std::size_t>(x)][2] = 0.025;
      }
    SlowReport r = slow_links(bw, 0.5);
    REQUIRE(r.links.size() == 3);
    for (const LinkFinding& l : r.links) {
      CHECK((l.a == 2 || l.b == 2));
      CHECK(l.worst == 0.025);
    }
    REQUIRE(r.nodes.size() == 1);
    CHECK(r.nodes[0].node == 2);
  }
  // Two nodes: one link, nothing to compare it with.
  bw = matrix(2, 1.0);
  bw[0][1] = 0.01;
  CHECK(slow_links(bw, 0.5).nodes.empty());
}

TEST_CASE("odd ones: the nodes that differ from the majority", "[doctor]") {
  CHECK(odd_ones({"a", "a", "b", "a"}) == std::vector<int>{2});
  CHECK(odd_ones({"a", "a", "a"}).empty());
  CHECK(odd_ones({"a", "b"}).empty());  // no majority
  CHECK(odd_ones({"x"}).empty());
  CHECK(odd_ones({"a", "b", "b", "c"}) == std::vector<int>{0, 3});
}

TEST_CASE("median", "[doctor]") {
  CHECK(median({}) == 0);
  CHECK(median({3, 1, 2}) == 2);
  CHECK(median({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("below the median: one value per node, unmeasured ones never named", "[doctor]") {
  CHECK(below_median({12, 11, 0.1, 12.5}, 0.5) == std::vector<int>{2});
  CHECK(below_median({12, 11, 10, 12.5}, 0.5).empty());
  CHECK(below_median({12, -1, 0, 0.1}, 0.5) == std::vector<int>{3});  // -1, 0: not measured
  CHECK(below_median({1, 3.5}, 0.5) == std::vector<int>{0});          // median 2.25
  CHECK(below_median({1, 2.5}, 0.5).empty());                         // median 1.75
  CHECK(below_median({5}, 0.5).empty());
  CHECK(below_median({}, 0.5).empty());
}
