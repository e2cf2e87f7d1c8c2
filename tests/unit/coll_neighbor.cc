// Neighbourhood collective algorithms (neighbor_allgather(v), neighbor_alltoall(v))
// through the schedule simulator, on rings, 2-D Cartesian grids with and without
// periods (incl. dimensions of size 1 and 2, where both directions name one peer),
// graphs and distributed graphs with repeated edges and self-loops. The expected
// result comes from a model of MPI's matching rules, not from the algorithm:
// on a grid, receive block k of rank r holds its source's send block k^1; on a
// graph, the j-th edge s -> r in s's destination list feeds the j-th occurrence of
// s in r's source list. MPI_PROC_NULL blocks and the gaps between blocks keep
// their garbage.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "coll/patterns.h"
#include "coll/registry.h"
#include "coll/sim.h"

using namespace chorus;
using namespace chorus::coll;
using Bytes = std::vector<std::byte>;

namespace {

constexpr std::size_t kElem = 3;  // odd element size: catches bytes-vs-elements mixups
constexpr int kNull = -1;         // MPI_PROC_NULL

auto uz(int i) { return static_cast<std::size_t>(i); }

std::byte pattern(std::uint32_t seed, std::size_t i) {
  std::uint32_t x = seed * 2654435761u + static_cast<std::uint32_t>(i) * 40503u + 0x9e3779b9u;
  x ^= x >> 15;
  x *= 0x2c1b3c6du;
  x ^= x >> 12;
  return static_cast<std::byte>(x);
}
Bytes filled(std::size_t n, std::uint32_t seed) {
  Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = pattern(seed, i);
  return b;
}
// Send block `block` of rank `from` (block 0 for allgather).
std::uint32_t data_seed(int from, std::size_t block) {
  return 1u + static_cast<std::uint32_t>(from) * 4096u + static_cast<std::uint32_t>(block);
}
std::uint32_t garbage_seed(int rank, int which) {
  return 0x80000000u + static_cast<std::uint32_t>(rank) * 2u + static_cast<std::uint32_t>(which);
}
void put(Bytes& buf, std::size_t off, const Bytes& data) {
  std::copy(data.begin(), data.end(), buf.begin() + static_cast<std::ptrdiff_t>(off));
}

// ---- topologies (what lib/mpi/topo.cc records per rank) ---------------------------

struct Topo {
  std::string name;
  int size = 1;
  bool cart = false;
  std::vector<std::vector<int>> sources, destinations;  // per rank
};

// Row-major grid, the last dimension fastest; per dimension the -1 then the +1
// neighbour, kNull off a non-periodic edge.
Topo cart(const std::vector<int>& dims, const std::vector<int>& periods) {
  Topo t;
  t.name = "cart";
  for (std::size_t d = 0; d < dims.size(); ++d) t.name += fmt::format(" {}{}", dims[d], periods[d] ? "p" : "");
  t.cart = true;
  t.size = std::accumulate(dims.begin(), dims.end(), 1, std::multiplies<>());
  t.sources.resize(uz(t.size));
  for (int r = 0; r < t.size; ++r) {
    std::vector<int> co(dims.size());
    for (std::size_t i = dims.size(), x = uz(r); i-- > 0;) {
      co[i] = static_cast<int>(x % uz(dims[i]));
      x /= uz(dims[i]);
    }
    for (std::size_t d = 0; d < dims.size(); ++d) {
      for (int dir : {-1, +1}) {
        std::vector<int> c = co;
        c[d] += dir;
        int peer = 0;
        bool off = false;
        for (std::size_t i = 0; i < dims.size(); ++i) {
          int v = c[i];
          if (v < 0 || v >= dims[i]) {
            if (!periods[i]) off = true;
            v = ((v % dims[i]) + dims[i]) % dims[i];
          }
          peer = peer * dims[i] + v;
        }
        t.sources[uz(r)].push_back(off ? kNull : peer);
      }
    }
  }
  t.destinations = t.sources;
  return t;
}

// A distributed graph from its edge list (in order): destinations in edge order,
// sources in the order the edges are listed too (as MPI_Dist_graph_create does).
Topo graph(std::string name, int p, const std::vector<std::pair<int, int>>& edges) {
  Topo t;
  t.name = std::move(name);
  t.size = p;
  t.sources.resize(uz(p));
  t.destinations.resize(uz(p));
  for (auto [s, d] : edges) {
    t.destinations[uz(s)].push_back(d);
    t.sources[uz(d)].push_back(s);
  }
  return t;
}

// Shuffles each rank's source list (MPI_Dist_graph_create_adjacent lets every rank
// order its own lists): the matching must follow the order per peer only.
Topo shuffled_sources(Topo t, std::mt19937& rng) {
  t.name += " (sources shuffled)";
  for (auto& s : t.sources) std::shuffle(s.begin(), s.end(), rng);
  return t;
}

// For rank r's receive block k: the source's send block it holds (model of MPI).
std::vector<std::vector<std::size_t>> matching(const Topo& t) {
  std::vector<std::vector<std::size_t>> m(uz(t.size));
  for (int r = 0; r < t.size; ++r) {
    const auto& src = t.sources[uz(r)];
    m[uz(r)].assign(src.size(), 0);
    std::map<int, int> seen;  // occurrences of each source so far
    for (std::size_t k = 0; k < src.size(); ++k) {
      const int s = src[k];
      if (s < 0) continue;
      if (t.cart) {
        m[uz(r)][k] = k ^ 1u;
        continue;
      }
      int want = seen[s]++;
      const auto& dst = t.destinations[uz(s)];
      for (std::size_t j = 0; j < dst.size(); ++j)
        if (dst[j] == r && want-- == 0) m[uz(r)][k] = j;
    }
  }
  return m;
}

// ---- one simulated call -------------------------------------------------------------

// Packed blocks in a shuffled order with small gaps; returns the displacements and
// sets *extent (all in elements).
std::vector<std::size_t> layout(const std::vector<std::size_t>& counts, std::mt19937& rng,
                                std::size_t* extent) {
  std::vector<std::size_t> order(counts.size()), displs(counts.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  std::size_t pos = 0;
  for (std::size_t i : order) {
    pos += rng() % 3;
    displs[i] = pos;
    pos += counts[i];
  }
  *extent = pos + rng() % 3;
  return displs;
}

struct Run {
  std::vector<CollArgs> args;
  std::vector<sim::RankBuffers> bufs, want;
};

// Builds per-rank arguments and buffers for `kind` on `t` with block `count`
// (v-kinds: random counts around it, consistent at both ends of every edge).
Run setup(CollKind kind, const Topo& t, std::size_t count, std::mt19937& rng) {
  const int p = t.size;
  const auto m = matching(t);
  const bool v = kind == CollKind::NeighborAllgatherv || kind == CollKind::NeighborAlltoallv;
  const bool a2a = kind == CollKind::NeighborAlltoall || kind == CollKind::NeighborAlltoallv;
  // Elements of rank s's send block j (allgather: one block, j = 0).
  std::vector<std::vector<std::size_t>> scount(uz(p));
  for (int s = 0; s < p; ++s) {
    const std::size_t blocks = a2a ? t.destinations[uz(s)].size() : 1;
    for (std::size_t j = 0; j < blocks; ++j)
      scount[uz(s)].push_back(v ? (rng() % 4 == 0 ? 0 : count + rng() % 3) : count);
  }
  Run run;
  run.args.resize(uz(p));
  run.bufs.resize(uz(p));
  run.want.resize(uz(p));
  for (int r = 0; r < p; ++r) {
    CollArgs& a = run.args[uz(r)];
    a.kind = kind;
    a.size = p;
    a.rank = r;
    a.elem_size = kElem;
    a.count = count;
    a.shape.size = p;
    a.shape.ranks_per_node = p;
    a.sources = t.sources[uz(r)];
    a.destinations = t.destinations[uz(r)];
    a.cart_pairs = t.cart;
    const auto& src = a.sources;
    // Receive block k: what it will hold, and how large it is.
    std::vector<std::size_t> rc(src.size(), count);
    for (std::size_t k = 0; k < src.size(); ++k)
      if (src[k] >= 0) rc[k] = scount[uz(src[k])][a2a ? m[uz(r)][k] : 0];
    std::size_t rext = rc.size() * count, sext = a2a ? a.destinations.size() * count : count;
    if (v) {
      a.counts = rc;
      a.displs = layout(rc, rng, &rext);
      if (a2a) {
        a.send_counts = scount[uz(r)];
        a.send_displs = layout(a.send_counts, rng, &sext);
      } else {
        a.count = scount[uz(r)][0];
        sext = a.count;
      }
    }
    pat::Blocks rb;
    REQUIRE(pat::listed_blocks(static_cast<int>(src.size()), v ? a.counts : rc,
                               v ? a.displs : std::vector<std::size_t>{}, kElem, rb) == Status::Ok);
    Bytes& send = run.bufs[uz(r)].send;
    send = filled(sext * kElem, garbage_seed(r, 1));
    for (std::size_t j = 0; j < scount[uz(r)].size(); ++j) {
      const std::size_t off = v && a2a ? a.send_displs[j] : (a2a ? j * count : 0);
      put(send, off * kElem, filled(scount[uz(r)][j] * kElem, data_seed(r, j)));
    }
    run.bufs[uz(r)].recv = filled(rext * kElem, garbage_seed(r, 0));
    run.want[uz(r)].send = send;
    Bytes want = run.bufs[uz(r)].recv;
    for (std::size_t k = 0; k < src.size(); ++k)
      if (src[k] >= 0) put(want, rb.off[k], filled(rb.len[k], data_seed(src[k], a2a ? m[uz(r)][k] : 0)));
    run.want[uz(r)].recv = want;
  }
  return run;
}

std::string describe(const CollArgs& a, const Topo& t) {
  return fmt::format("{} on {} (p={}) count={}", kind_name(a.kind), t.name, t.size, a.count);
}

void check(CollKind kind, const Topo& t, std::size_t count, std::mt19937& rng) {
  const AlgoInfo* algo = find_algorithm(kind, "linear");
  REQUIRE(algo);
  Run run = setup(kind, t, count, rng);
  INFO(describe(run.args[0], t));
  std::vector<Schedule> schedules(uz(t.size));
  for (int r = 0; r < t.size; ++r) {
    const Status st = algo->build(run.args[uz(r)], schedules[uz(r)]);
    INFO("rank " << r);
    REQUIRE(st == Status::Ok);
    CHECK(schedules[uz(r)].comm_rounds() <= 1);
  }
  sim::Result res = sim::run(schedules, run.bufs, {});
  INFO("simulator: " << res.error);
  REQUIRE(res.ok);
  for (int r = 0; r < t.size; ++r) {
    INFO("rank " << r << "\n" << schedules[uz(r)].dump());
    CHECK(run.bufs[uz(r)].send == run.want[uz(r)].send);
    CHECK(run.bufs[uz(r)].recv == run.want[uz(r)].recv);
  }
}

const CollKind kKinds[] = {CollKind::NeighborAllgather, CollKind::NeighborAllgatherv,
                           CollKind::NeighborAlltoall, CollKind::NeighborAlltoallv};

void check_all(const Topo& t, std::mt19937& rng) {
  for (CollKind kind : kKinds)
    for (std::size_t count : {0, 1, 5}) check(kind, t, count, rng);
}

}  // namespace

TEST_CASE("neighbor linear: rings (1-D periodic and not), p = 1..9, 16", "[coll][neighbor]") {
  std::mt19937 rng(1);
  for (int p : {1, 2, 3, 4, 5, 7, 8, 9, 16})
    for (int periodic : {1, 0}) check_all(cart({p}, {periodic}), rng);
}

TEST_CASE("neighbor linear: 2-D grids with and without periods", "[coll][neighbor]") {
  std::mt19937 rng(2);
  for (auto dims : std::vector<std::vector<int>>{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {2, 3}, {3, 4}, {1, 5}, {4, 2}})
    for (auto periods : std::vector<std::vector<int>>{{0, 0}, {1, 0}, {0, 1}, {1, 1}})
      check_all(cart(dims, periods), rng);
}

TEST_CASE("neighbor linear: a 3-D grid with periodic dimensions of size 1", "[coll][neighbor]") {
  std::mt19937 rng(3);
  check_all(cart({1, 3, 1}, {1, 1, 1}), rng);
  check_all(cart({2, 1, 2}, {1, 1, 0}), rng);
}

TEST_CASE("neighbor linear: distributed graphs with repeated edges and self-loops",
          "[coll][neighbor]") {
  std::mt19937 rng(4);
  // Asymmetric, a repeated edge 0 -> 1, self-loops (one on 2, two on 3), a rank with
  // no in-edges (4) and one with no out-edges (5).
  const Topo g = graph("dist graph", 6,
                       {{0, 1}, {0, 1}, {1, 2}, {2, 0}, {2, 2}, {3, 3}, {0, 3}, {3, 3}, {4, 0},
                        {4, 5}, {1, 5}, {3, 1}, {0, 1}});
  check_all(g, rng);
  check_all(shuffled_sources(g, rng), rng);
  // A graph topology: symmetric neighbour lists, sources == destinations.
  const Topo star = graph("star", 5, {{0, 1}, {1, 0}, {0, 2}, {2, 0}, {0, 3}, {3, 0}, {0, 4}, {4, 0}});
  check_all(star, rng);
  // One rank, edges to itself only; no edges at all.
  check_all(graph("self", 1, {{0, 0}, {0, 0}, {0, 0}}), rng);
  check_all(graph("empty", 3, {}), rng);
}

TEST_CASE("neighbor linear: a Cartesian pair sends -1 to the peer's +1 block", "[coll][neighbor]") {
  // Periodic ring of 2: rank 0's block for -1 (block 0) must land in rank 1's
  // block for +1 (block 1), although both directions name the same peer.
  CollArgs a;
  a.kind = CollKind::NeighborAlltoall;
  a.size = 2;
  a.elem_size = 1;
  a.count = 1;
  a.cart_pairs = true;
  std::vector<Schedule> s(2);
  for (int r = 0; r < 2; ++r) {
    a.rank = r;
    a.sources = a.destinations = {1 - r, 1 - r};
    REQUIRE(find_algorithm(a.kind, "linear")->build(a, s[uz(r)]) == Status::Ok);
  }
  std::vector<sim::RankBuffers> b(2);
  b[0].send = {std::byte{10}, std::byte{11}};
  b[1].send = {std::byte{20}, std::byte{21}};
  b[0].recv = b[1].recv = {std::byte{0}, std::byte{0}};
  REQUIRE(sim::run(s, b, {}).ok);
  CHECK(b[1].recv == Bytes{std::byte{11}, std::byte{10}});
  CHECK(b[0].recv == Bytes{std::byte{21}, std::byte{20}});
}

TEST_CASE("neighbor linear: bad arguments", "[coll][neighbor]") {
  const AlgoInfo* algo = find_algorithm(CollKind::NeighborAlltoallv, "linear");
  REQUIRE(algo);
  CollArgs a;
  a.kind = CollKind::NeighborAlltoallv;
  a.size = 3;
  a.rank = 0;
  a.sources = {1, 2};
  a.destinations = {1};
  a.counts = {1};  // two sources, one count
  a.displs = {0};
  a.send_counts = {1};
  a.send_displs = {0};
  Schedule s;
  CHECK(algo->build(a, s) != Status::Ok);
  a.counts = {1, 1};
  a.displs = {0, 1};
  a.destinations = {3};  // outside the communicator
  CHECK(algo->build(a, s) == Status::InvalidRank);
  a.destinations = {0};  // a self message without a matching self receive
  s = {};
  CHECK(algo->build(a, s) == Status::InvalidTopology);
  a.sources = {0, 2};
  a.send_counts = {2};  // more to itself than it receives from itself
  s = {};
  CHECK(algo->build(a, s) == Status::Truncate);
}

TEST_CASE("neighbor catalog: one linear algorithm per kind, cost", "[coll][neighbor][catalog]") {
  const CostModel m;
  for (CollKind kind : kKinds) {
    const auto list = algorithms(kind);
    REQUIRE(list.size() == 1);
    const AlgoInfo& algo = list[0];
    CHECK(algo.name == "linear");
    CHECK(algo.kind == kind);
    CHECK(!algo.cost_formula.empty());
    CHECK(!algo.doc.empty());
    CollArgs a;
    a.kind = kind;
    a.size = 8;
    a.elem_size = 1;
    a.sources = a.destinations = {1, kNull, 2, 3};
    a.counts = a.displs = a.send_counts = a.send_displs = {0, 0, 0, 0};
    double prev = -1;
    for (std::size_t n : {0, 1, 1000, 1000000}) {
      a.count = n;
      for (auto& c : a.counts) c = n;
      for (auto& c : a.send_counts) c = n;
      for (std::size_t k = 0; k < 4; ++k) a.displs[k] = a.send_displs[k] = k * n;
      const double c = algo.cost_us(a, m);
      CHECK(c > prev);  // 3 messages: alpha even for empty ones
      prev = c;
    }
  }
}
