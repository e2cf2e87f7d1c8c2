// Data-movement collective algorithms (barrier, bcast, allgather(v), gather(v),
// scatter(v), alltoall(v)) through the schedule simulator: every algorithm in the
// catalog, p = 1..64 plus spot checks at 1000 and 1031, several roots and counts,
// in place and not, uneven v-layouts with empty blocks and non-monotone
// displacements. Each rank's data encodes (source rank, destination, byte index);
// bytes outside the result blocks hold per-rank garbage that must survive untouched.
#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "coll/patterns.h"
#include "coll_node_maps.h"
#include "coll/registry.h"
#include "coll/select.h"
#include "core/params.h"
#include "coll/sim.h"

using namespace chorus;
using namespace chorus::coll;
using Bytes = std::vector<std::byte>;

namespace {

constexpr std::size_t kElem = 3;  // odd element size: catches bytes-vs-elements mixups

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
// Data from rank `from` meant for rank `to` (to = 0 where there is one destination).
std::uint32_t data_seed(int from, int to = 0) {
  return 1u + static_cast<std::uint32_t>(from) * 2048u + static_cast<std::uint32_t>(to);
}
std::uint32_t garbage_seed(int rank, int which = 0) {
  return 0x80000000u + static_cast<std::uint32_t>(rank) * 2u + static_cast<std::uint32_t>(which);
}
void put(Bytes& buf, std::size_t off, const Bytes& data) {
  std::copy(data.begin(), data.end(), buf.begin() + static_cast<std::ptrdiff_t>(off));
}
auto uz(int i) { return static_cast<std::size_t>(i); }

std::vector<int> roots_for(int p) {
  std::vector<int> r;
  if (p <= 8) {
    for (int i = 0; i < p; ++i) r.push_back(i);
  } else {
    r = {0, 1, p / 2, p - 1};
  }
  return r;
}
std::vector<std::size_t> counts_for(int p) {
  std::vector<std::size_t> c = {0, 1, uz(p - 1), uz(p + 1), uz(2 * p + 3)};
  std::sort(c.begin(), c.end());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}
std::vector<int> sizes() {
  std::vector<int> s(64);
  std::iota(s.begin(), s.end(), 1);
  return s;
}

// Uneven counts (about a quarter empty) and displacements in a shuffled rank order
// with small gaps; extent = the buffer length in elements.
struct VLayout {
  std::vector<std::size_t> counts, displs;
  std::size_t extent = 0;
};
std::vector<std::size_t> random_counts(int p, std::mt19937& rng, std::size_t max) {
  std::vector<std::size_t> c(uz(p));
  for (auto& x : c) x = rng() % 4 == 0 ? 0 : 1 + rng() % max;
  return c;
}
VLayout random_layout(std::vector<std::size_t> counts, std::mt19937& rng) {
  VLayout l;
  const std::size_t p = counts.size();
  std::vector<std::size_t> order(p);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  l.displs.resize(p);
  std::size_t pos = 0;
  for (std::size_t i : order) {
    pos += rng() % 3;
    l.displs[i] = pos;
    pos += counts[i];
  }
  l.extent = pos + rng() % 3;
  l.counts = std::move(counts);
  return l;
}

// One simulated call: arguments per rank (alltoallv's differ), buffers, expectation.
struct Setup {
  std::vector<CollArgs> args;
  std::vector<sim::RankBuffers> bufs, want;
};
Setup make_setup(const CollArgs& base) {
  Setup s;
  s.args.assign(uz(base.size), base);
  for (int r = 0; r < base.size; ++r) s.args[uz(r)].rank = r;
  s.bufs.resize(uz(base.size));
  s.want.resize(uz(base.size));
  return s;
}

std::string describe(const AlgoInfo& algo, const CollArgs& a) {
  return fmt::format("{}/{}: p={} root={} count={} elem={} chunk={} in_place={}{}",
                     kind_name(algo.kind), algo.name, a.size, a.root, a.count, a.elem_size,
                     a.chunk_bytes, a.in_place, a.counts.empty() ? "" : " (v-layout)");
}
std::string schedule_of(const AlgoInfo& algo, const CollArgs& a) {
  Schedule s;
  const Status st = algo.build(a, s);
  std::string d = fmt::format("schedule of rank {} ({}):\n{}", a.rank, to_string(st), s.dump());
  if (d.size() > 4000) d = d.substr(0, 4000) + "...\n";
  return d;
}

// Builds every rank's schedule, runs them, and compares all buffers with `want`.
sim::Result run_and_check(const AlgoInfo& algo, Setup& s) {
  const CollArgs& a0 = s.args[0];
  std::vector<Schedule> schedules(s.args.size());
  for (std::size_t r = 0; r < s.args.size(); ++r) {
    const Status st = algo.build(s.args[r], schedules[r]);
    if (st != Status::Ok)
      FAIL(describe(algo, a0) << "\nbuild failed on rank " << r << ": " << to_string(st));
  }
  // A communicator across nodes with node windows has one window per node.
  const bool node_windows = a0.shm_slot_bytes && a0.shape.nodes > 1 && a0.shape.node_of;
  sim::Result res = sim::run(schedules, s.bufs, {}, node_windows ? a0.shape.node_of.get() : nullptr);
  if (!res.ok) {
    int bad = 0;
    std::sscanf(res.error.c_str(), "rank %d", &bad);
    bad = std::clamp(bad, 0, a0.size - 1);
    FAIL(describe(algo, a0) << "\nsimulator: " << res.error << "\n"
                            << schedule_of(algo, s.args[uz(bad)]));
  }
  for (std::size_t r = 0; r < s.args.size(); ++r) {
    for (const bool recv : {true, false}) {
      const Bytes& got = recv ? s.bufs[r].recv : s.bufs[r].send;
      const Bytes& want = recv ? s.want[r].recv : s.want[r].send;
      if (got == want) continue;
      std::size_t i = 0;
      while (i < std::min(got.size(), want.size()) && got[i] == want[i]) ++i;
      FAIL(describe(algo, a0) << "\nrank " << r << (recv ? " kRecv" : " kSend")
                              << " differs at byte " << i << " of " << want.size() << "\n"
                              << schedule_of(algo, s.args[r]));
    }
  }
  return res;
}

std::vector<const AlgoInfo*> algos(CollKind kind) {
  std::vector<const AlgoInfo*> v;
  for (const AlgoInfo& a : algorithms(kind)) v.push_back(&a);
  return v;
}
bool supported(const AlgoInfo& algo, const CollArgs& a) {
  return !algo.supports || algo.supports(a);
}

// A shared-window algorithm's call with a window whose slots just hold what one
// rank puts there (a block of allgather(v), a whole send buffer of alltoall),
// rounded up to a cache line: the smallest window it runs with.
CollArgs with_window(const AlgoInfo& algo, CollArgs a) {
  if (!algo.name.starts_with("shared_memory")) return a;
  std::size_t need = a.count * a.elem_size * (a.kind == CollKind::Alltoall ? uz(a.size) : 1);
  for (std::size_t c : a.counts) need = std::max(need, c * a.elem_size);
  a.shm_slot_bytes = std::max<std::size_t>((need + 63) / 64 * 64, 64);
  return a;
}

// The node maps to run `algo` with at p ranks: one node ({}) for a flat algorithm;
// for a hierarchical one each map of testing::node_maps (the first two, one and
// two ranks per node, at the spot-check sizes), none at p = 1.
std::vector<std::vector<int>> maps_for(const AlgoInfo& algo, int p, bool spot = false) {
  if (!algo.name.starts_with("hierarchical")) return {{}};
  std::vector<std::vector<int>> maps = testing::node_maps(p);
  if (spot && maps.size() > 2) maps.resize(2);
  return maps;
}
// A hierarchical algorithm's node windows: none (node stages by messages), a slot
// of a few bytes (many chunks, not whole elements) and one that holds any block.
std::vector<std::size_t> node_slots(const AlgoInfo& algo) {
  if (!algo.name.starts_with("hierarchical")) return {0};
  return {0, 12, 1 << 16};
}
// `a` with node map `m` (none when empty); false when `algo` does not take it
// (the hierarchical allgather wants each node's ranks consecutive).
bool with_map(const AlgoInfo& algo, CollArgs& a, const std::vector<int>& m) {
  if (m.empty()) return true;
  testing::set_node_map(a, m);
  bool consecutive = true;
  for (std::size_t r = 1; r < m.size(); ++r) consecutive = consecutive && (m[r] == m[r - 1] || m[r] == m[r - 1] + 1);
  if (algo.kind == CollKind::Allgather) REQUIRE(supported(algo, a) == consecutive);
  return supported(algo, a);
}

// ---- per-kind setups ------------------------------------------------------------------

Setup bcast_setup(const CollArgs& a) {
  Setup s = make_setup(a);
  const Bytes data = filled(a.count * kElem, data_seed(a.root));
  for (int r = 0; r < a.size; ++r) {
    s.bufs[uz(r)].recv = r == a.root ? data : filled(data.size(), garbage_seed(r));
    s.want[uz(r)].recv = data;
  }
  return s;
}

// Allgather(v) and gather(v): rank i's block lands at blocks.off[i] of kRecv (every
// rank's, or the root's), a buffer of `extent` bytes with garbage in the gaps.
Setup gather_setup(const CollArgs& a, bool all, std::size_t extent) {
  Setup s = make_setup(a);
  pat::Blocks b;
  REQUIRE(pat::result_blocks(a, b) == Status::Ok);
  Bytes result = filled(extent, garbage_seed(0));
  for (int i = 0; i < a.size; ++i) put(result, b.off[uz(i)], filled(b.len[uz(i)], data_seed(i)));
  for (int r = 0; r < a.size; ++r) {
    const bool receives = all || r == a.root;
    const bool in_place = a.in_place && receives;
    const Bytes own = filled(b.len[uz(r)], data_seed(r));
    sim::RankBuffers& in = s.bufs[uz(r)];
    if (receives) {
      in.recv = filled(extent, garbage_seed(0));  // gaps: the same garbage as `result`
      if (in_place) put(in.recv, b.off[uz(r)], own);
      s.want[uz(r)].recv = result;
    }
    if (!in_place) in.send = own;
    s.want[uz(r)].send = in.send;
  }
  return s;
}

// Scatter(v): the root's kSend holds block i at blocks.off[i] (garbage in the gaps).
Setup scatter_setup(const CollArgs& a, std::size_t extent) {
  Setup s = make_setup(a);
  pat::Blocks b;
  REQUIRE(pat::result_blocks(a, b) == Status::Ok);
  for (int r = 0; r < a.size; ++r) {
    sim::RankBuffers& in = s.bufs[uz(r)];
    if (r == a.root) {
      in.send = filled(extent, garbage_seed(r, 1));
      for (int i = 0; i < a.size; ++i)
        put(in.send, b.off[uz(i)], filled(b.len[uz(i)], data_seed(i)));
    }
    if (!(a.in_place && r == a.root)) {
      in.recv = filled(b.len[uz(r)], garbage_seed(r));
      s.want[uz(r)].recv = filled(b.len[uz(r)], data_seed(r));
    }
    s.want[uz(r)].send = in.send;
  }
  return s;
}

// Alltoall(v): c[i][j] elements from i to j; layouts per rank (uniform unless given).
Setup alltoall_setup(const CollArgs& a, const std::vector<std::vector<std::size_t>>* c,
                     std::mt19937* rng) {
  Setup s = make_setup(a);
  const int p = a.size;
  for (int r = 0; r < p; ++r) {
    CollArgs& ar = s.args[uz(r)];
    std::size_t send_extent = uz(p) * a.count * kElem, recv_extent = send_extent;
    if (c) {
      std::vector<std::size_t> sc(uz(p)), rc(uz(p));
      for (int j = 0; j < p; ++j) {
        sc[uz(j)] = (*c)[uz(r)][uz(j)];
        rc[uz(j)] = (*c)[uz(j)][uz(r)];
      }
      VLayout sl = random_layout(sc, *rng), rl = random_layout(rc, *rng);
      ar.send_counts = sl.counts;
      ar.send_displs = sl.displs;
      ar.counts = rl.counts;
      ar.displs = rl.displs;
      send_extent = sl.extent * kElem;
      recv_extent = rl.extent * kElem;
    }
    pat::Blocks sb, rb;
    REQUIRE(pat::send_blocks(ar, sb) == Status::Ok);
    REQUIRE(pat::result_blocks(ar, rb) == Status::Ok);
    sim::RankBuffers& in = s.bufs[uz(r)];
    Bytes& input = a.in_place ? in.recv : in.send;
    input = filled(a.in_place ? recv_extent : send_extent, garbage_seed(r, 1));
    for (int j = 0; j < p; ++j) put(input, sb.off[uz(j)], filled(sb.len[uz(j)], data_seed(r, j)));
    if (!a.in_place) in.recv = filled(recv_extent, garbage_seed(r));
    Bytes want = in.recv;
    for (int j = 0; j < p; ++j) put(want, rb.off[uz(j)], filled(rb.len[uz(j)], data_seed(j, r)));
    s.want[uz(r)].recv = want;
    s.want[uz(r)].send = in.send;
  }
  return s;
}

CollArgs base_args(CollKind kind, int p, std::size_t count = 0, int root = 0,
                   bool in_place = false) {
  CollArgs a;
  a.kind = kind;
  a.size = p;
  a.root = root;
  a.count = count;
  a.elem_size = kElem;
  a.in_place = in_place;
  a.shape.size = p;
  a.shape.ranks_per_node = p;
  return a;
}

}  // namespace

// ---- barrier ------------------------------------------------------------------------

TEST_CASE("barrier: every algorithm, p = 1..64, 1000, 1031", "[coll][barrier]") {
  std::vector<int> ps = sizes();
  ps.insert(ps.end(), {1000, 1031});
  for (const AlgoInfo* algo : algos(CollKind::Barrier)) {
    for (int p : ps)
    for (const auto& map : maps_for(*algo, p, p > 64))
    for (std::size_t slot : {64, 0}) {
      // A shared window (shared_memory; hierarchical: node windows), and none.
      if (slot == 0 && !algo->name.starts_with("hierarchical")) continue;
      CollArgs a = base_args(CollKind::Barrier, p);
      if (!with_map(*algo, a, map)) continue;
      a.shm_slot_bytes = slot;
      Setup s = make_setup(a);
      // Zero-byte messages still name a buffer; the simulator maps an empty one to a
      // null pointer and then drops the send, so give each rank one (unused) byte.
      for (auto& b : s.bufs) b.recv.assign(1, std::byte{0});
      for (auto& b : s.want) b.recv.assign(1, std::byte{0});
      const sim::Result res = run_and_check(*algo, s);
      if (algo->name == "dissemination")
        for (int r = 0; r < p; ++r) {
          REQUIRE(res.rounds[uz(r)] == pat::ceil_log2(p));
          REQUIRE(res.messages_sent[uz(r)] == pat::ceil_log2(p));
        }
      if (algo->name == "shared_memory")
        for (int r = 0; r < p; ++r) REQUIRE(res.messages_sent[uz(r)] == 0);
    }
  }
}

// ---- bcast --------------------------------------------------------------------------

namespace {

void check_bcast(const AlgoInfo& algo, const CollArgs& a) {
  Setup s = bcast_setup(a);
  const sim::Result res = run_and_check(algo, s);
  const std::size_t n = a.count * kElem;
  for (int r = 0; r < a.size; ++r) {
    // (hierarchical with node windows: only the node roots receive messages)
    if (r != a.root && algo.name != "scatter_allgather" && algo.name != "shared_memory" &&
        !(algo.name == "hierarchical" && a.shm_slot_bytes))
      REQUIRE(res.bytes_received[uz(r)] == n);
    if (algo.name == "binomial") REQUIRE(res.messages_sent[uz(r)] <= pat::ceil_log2(a.size));
  }
  if (algo.name == "binomial")
    REQUIRE(res.messages_sent[uz(a.root)] == (n ? pat::ceil_log2(a.size) : 0));
  if (algo.name == "pipelined_chain" && a.size > 1 && n) REQUIRE(res.bytes_sent[uz(a.root)] == n);
}

}  // namespace

TEST_CASE("bcast: every algorithm, p = 1..64, roots, counts", "[coll][bcast]") {
  for (const AlgoInfo* algo : algos(CollKind::Bcast)) {
    const bool hierarchical = algo->name == "hierarchical";
    const bool chunked = algo->name == "pipelined_chain" || algo->name == "shared_memory" || hierarchical;
    for (int p : sizes())
      for (const auto& map : maps_for(*algo, p))
      for (int root : roots_for(p))
        for (std::size_t count : counts_for(p))
          for (std::size_t chunk :
               chunked ? std::vector<std::size_t>{0, 7, 64} : std::vector<std::size_t>{0}) {
            CollArgs a = base_args(CollKind::Bcast, p, count, root);
            if (!with_map(*algo, a, map)) continue;
            a.chunk_bytes = chunk;
            // shared_memory: its slot is the chunk (7 B: many chunks; 0: a large slot);
            // hierarchical: node windows of that slot, or (0) none
            a.shm_slot_bytes = chunk ? chunk : hierarchical ? 0 : 1 << 16;
            check_bcast(*algo, a);
          }
  }
}

TEST_CASE("bcast: spot checks at p = 1000 and 1031", "[coll][bcast][large]") {
  for (const AlgoInfo* algo : algos(CollKind::Bcast))
    for (int p : {1000, 1031})
      for (const auto& map : maps_for(*algo, p, true))
      for (int root : {0, 617})
        for (std::size_t count : {std::size_t{1}, uz(p + 1)}) {
          CollArgs a = base_args(CollKind::Bcast, p, count, root);
          if (!with_map(*algo, a, map)) continue;
          a.shm_slot_bytes = 64;
          check_bcast(*algo, a);
        }
}

// ---- allgather(v) ---------------------------------------------------------------------

namespace {

void check_allgather(const AlgoInfo& algo, const CollArgs& a) {
  Setup s = gather_setup(a, true, uz(a.size) * a.count * kElem);
  const sim::Result res = run_and_check(algo, s);
  const std::size_t block = a.count * kElem, p = uz(a.size);
  const bool pof2 = (p & (p - 1)) == 0;
  for (std::size_t r = 0; r < p; ++r) {
    if (algo.name == "ring" || algo.name == "bruck" || (algo.name == "recursive_doubling" && pof2))
      REQUIRE(res.bytes_sent[r] == (p - 1) * block);
    if (block && algo.name == "ring") REQUIRE(res.rounds[r] == a.size - 1);
    if (block && (algo.name == "bruck" || (algo.name == "recursive_doubling" && pof2)))
      REQUIRE(res.rounds[r] == pat::ceil_log2(a.size));
  }
}

void check_allgatherv(const AlgoInfo& algo, CollArgs a, std::mt19937& rng, std::size_t max_count) {
  VLayout l = random_layout(random_counts(a.size, rng, max_count), rng);
  a.counts = l.counts;
  a.displs = l.displs;
  a = with_window(algo, a);
  Setup s = gather_setup(a, true, l.extent * kElem);
  const sim::Result res = run_and_check(algo, s);
  if (algo.name == "ring")  // every block but the one received last: the successor's
    for (int r = 0; r < a.size; ++r)
      REQUIRE(res.bytes_sent[uz(r)] ==
              (std::accumulate(l.counts.begin(), l.counts.end(), std::size_t{0}) -
               l.counts[uz(pat::mod(r + 1, a.size))]) *
                  kElem);
}

}  // namespace

TEST_CASE("allgather: every algorithm, p = 1..64, counts, in place", "[coll][allgather]") {
  for (const AlgoInfo* algo : algos(CollKind::Allgather))
    for (int p : sizes())
      for (const auto& map : maps_for(*algo, p))
      for (std::size_t count : counts_for(p))
        for (bool in_place : {false, true})
        for (std::size_t slot : node_slots(*algo)) {
          CollArgs a = with_window(*algo, base_args(CollKind::Allgather, p, count, 0, in_place));
          if (!map.empty()) a.shm_slot_bytes = slot;
          if (with_map(*algo, a, map)) check_allgather(*algo, a);
        }
}

TEST_CASE("allgatherv: every algorithm, p = 1..64, uneven layouts", "[coll][allgatherv]") {
  std::mt19937 rng(1234);
  for (const AlgoInfo* algo : algos(CollKind::Allgatherv))
    for (int p : sizes())
      for (bool in_place : {false, true}) {
        for (int trial = 0; trial < 3; ++trial)
          check_allgatherv(*algo, base_args(CollKind::Allgatherv, p, 0, 0, in_place), rng,
                           uz(2 * p + 3));
        // Packed displacements: the in-kRecv path of recursive doubling.
        CollArgs a = base_args(CollKind::Allgatherv, p, 0, 0, in_place);
        a.counts = random_counts(p, rng, 5);
        a = with_window(*algo, a);
        Setup s = gather_setup(
            a, true, std::accumulate(a.counts.begin(), a.counts.end(), std::size_t{0}) * kElem);
        run_and_check(*algo, s);
      }
}

TEST_CASE("allgather(v): spot checks at p = 1000 and 1031",
          "[coll][allgather][allgatherv][large]") {
  std::mt19937 rng(99);
  for (int p : {1000, 1031}) {
    for (const AlgoInfo* algo : algos(CollKind::Allgather))
      for (const auto& map : maps_for(*algo, p, true))
      for (std::size_t slot : node_slots(*algo)) {
        CollArgs a = with_window(*algo, base_args(CollKind::Allgather, p, 1));
        if (!map.empty()) a.shm_slot_bytes = slot;
        if (with_map(*algo, a, map)) check_allgather(*algo, a);
      }
    for (const AlgoInfo* algo : algos(CollKind::Allgatherv))
      check_allgatherv(*algo, base_args(CollKind::Allgatherv, p, 0, 0, true), rng, 3);
  }
}

// ---- gather(v) and scatter(v) ------------------------------------------------------------

namespace {

void check_rooted(const AlgoInfo& algo, const CollArgs& a, std::size_t extent) {
  const bool gather = a.kind == CollKind::Gather || a.kind == CollKind::Gatherv;
  Setup s = gather ? gather_setup(a, false, extent) : scatter_setup(a, extent);
  const sim::Result res = run_and_check(algo, s);
  pat::Blocks b;
  REQUIRE(pat::result_blocks(a, b) == Status::Ok);
  const std::size_t others = b.total() - b.len[uz(a.root)];
  // The root moves every other rank's block exactly once, whatever the tree.
  REQUIRE((gather ? res.bytes_received : res.bytes_sent)[uz(a.root)] == others);
  if (algo.name == "linear" && a.count && a.size > 1) REQUIRE(res.rounds[uz(a.root)] == 1);
}

void rooted_sweep(CollKind kind, CollKind vkind, const std::vector<int>& ps, bool few) {
  std::mt19937 rng(4321);
  for (int p : ps)
    for (int root : few ? std::vector<int>{0, p / 3} : roots_for(p))
      for (bool in_place : {false, true}) {
        for (const AlgoInfo* algo : algos(kind))
          for (std::size_t count : few ? std::vector<std::size_t>{1} : counts_for(p))
            check_rooted(*algo, base_args(kind, p, count, root, in_place), uz(p) * count * kElem);
        for (const AlgoInfo* algo : algos(vkind))
          for (int trial = 0; trial < (few ? 1 : 2); ++trial) {
            CollArgs a = base_args(vkind, p, 0, root, in_place);
            VLayout l = random_layout(random_counts(p, rng, few ? 3 : uz(2 * p + 3)), rng);
            a.counts = l.counts;
            a.displs = l.displs;
            check_rooted(*algo, a, l.extent * kElem);
          }
      }
}

}  // namespace

TEST_CASE("gather(v): every algorithm, p = 1..64, roots, counts, in place",
          "[coll][gather][gatherv]") {
  rooted_sweep(CollKind::Gather, CollKind::Gatherv, sizes(), false);
}

TEST_CASE("scatter(v): every algorithm, p = 1..64, roots, counts, in place",
          "[coll][scatter][scatterv]") {
  rooted_sweep(CollKind::Scatter, CollKind::Scatterv, sizes(), false);
}

TEST_CASE("gather(v), scatter(v): spot checks at p = 1000 and 1031",
          "[coll][gather][scatter][large]") {
  rooted_sweep(CollKind::Gather, CollKind::Gatherv, {1000, 1031}, true);
  rooted_sweep(CollKind::Scatter, CollKind::Scatterv, {1000, 1031}, true);
}

// ---- alltoall(v) ------------------------------------------------------------------------

TEST_CASE("alltoall: every algorithm, p = 1..64, counts, in place", "[coll][alltoall]") {
  for (const AlgoInfo* algo : algos(CollKind::Alltoall))
    for (int p : sizes())
      for (std::size_t count : counts_for(p))
        for (bool in_place : {false, true}) {
          Setup s = alltoall_setup(with_window(*algo, base_args(CollKind::Alltoall, p, count, 0, in_place)),
                                   nullptr, nullptr);
          const sim::Result res = run_and_check(*algo, s);
          if (algo->name == "pairwise")
            for (int r = 0; r < p; ++r) REQUIRE(res.bytes_sent[uz(r)] == uz(p - 1) * count * kElem);
          if (algo->name == "bruck" && count)
            for (int r = 0; r < p; ++r) REQUIRE(res.rounds[uz(r)] == pat::ceil_log2(p));
        }
}

TEST_CASE("alltoallv: every supported algorithm, p = 1..64, uneven layouts", "[coll][alltoallv]") {
  std::mt19937 rng(777);
  for (const AlgoInfo* algo : algos(CollKind::Alltoallv))
    for (int p : sizes())
      for (bool in_place : {false, true}) {
        std::vector<std::vector<std::size_t>> c(uz(p), std::vector<std::size_t>(uz(p)));
        for (int i = 0; i < p; ++i)
          for (int j = in_place ? i : 0; j < p; ++j)  // in place: symmetric, as MPI requires
            c[uz(i)][uz(j)] = c[uz(j)][uz(i)] = rng() % 4 == 0 ? 0 : rng() % 9;
        Setup s = alltoall_setup(base_args(CollKind::Alltoallv, p, 0, 0, in_place), &c, &rng);
        if (!supported(*algo, s.args[0])) continue;
        run_and_check(*algo, s);
      }
}

// Pairwise moves p² messages over p² simulated channels: one large size is enough.
TEST_CASE("alltoall: spot checks at p = 1000 and 1031", "[coll][alltoall][large]") {
  for (int p : {1000, 1031})
    for (const AlgoInfo* algo : algos(CollKind::Alltoall)) {
      if (algo->name == "pairwise" && p != 1031) continue;
      Setup s = alltoall_setup(with_window(*algo, base_args(CollKind::Alltoall, p, 1)), nullptr, nullptr);
      run_and_check(*algo, s);
    }
}

// The flat shared-window algorithms: one sync of every rank, no message, and
// only while what a rank puts in its slot fits there.
TEST_CASE("shared_memory_flat allgather(v) and alltoall: one sync, within a slot", "[coll][shm]") {
  for (CollKind kind : {CollKind::Allgather, CollKind::Allgatherv, CollKind::Alltoall}) {
    const AlgoInfo* algo = find_algorithm(kind, "shared_memory_flat");
    REQUIRE(algo);
    for (int p : {2, 3, 8}) {
      CollArgs a = base_args(kind, p, 5);
      if (kind == CollKind::Allgatherv) {
        a.counts.assign(uz(p), 5);
        for (int r = 0; r < p; ++r) a.displs.push_back(uz(r) * 5);
      }
      INFO(kind_name(kind) << " p=" << p);
      CHECK_FALSE(algo->supports(a));  // no window
      // Exactly what a rank puts in its slot: a block, or all p of alltoall.
      a.shm_slot_bytes = 5 * a.elem_size * (kind == CollKind::Alltoall ? uz(p) : 1);
      for (int r = 0; r < p; ++r) {
        a.rank = r;
        REQUIRE(algo->supports(a));
        Schedule s;
        REQUIRE(algo->build(a, s) == Status::Ok);
        CHECK(s.signals() == 1);
        CHECK(s.comm_rounds() == 0);
        CHECK(s.first_sync_all(p) < s.rounds.size());
      }
      a.shm_slot_bytes -= 1;  // a byte short
      CHECK_FALSE(algo->supports(a));
    }
  }
}

TEST_CASE("alltoallv bruck is listed but never supported", "[coll][alltoallv]") {
  const AlgoInfo* b = find_algorithm(CollKind::Alltoallv, "bruck");
  REQUIRE(b);
  REQUIRE(b->supports);
  REQUIRE_FALSE(b->supports(base_args(CollKind::Alltoallv, 4)));
}

// ---- hierarchical: what crosses the network ---------------------------------------------------

TEST_CASE("hierarchical bcast, allgather, barrier: what each node sends across the network",
          "[coll][hierarchical]") {
  // N nodes x L ranks, node_of = rank / L.
  for (int nodes : {2, 3, 4, 8})
    for (int per : {1, 2, 3, 4}) {
      const int p = nodes * per;
      std::vector<int> map(uz(p));
      for (int r = 0; r < p; ++r) map[uz(r)] = r / per;
      INFO(nodes << " nodes x " << per);
      auto between = [&](const sim::Result& res, int node) {
        std::size_t sent = 0;
        for (int l = 0; l < per; ++l) sent += res.bytes_sent_between_nodes[uz(node * per + l)];
        return sent;
      };
      // Bcast of a small message (a binomial tree among the node roots): every node
      // but the root's receives it across the network exactly once.
      for (int root : {0, p - 1}) {
        CollArgs a = base_args(CollKind::Bcast, p, 10, root);
        testing::set_node_map(a, map);
        Setup s = bcast_setup(a);
        const sim::Result res = sim::run_algorithm(*find_algorithm(CollKind::Bcast, "hierarchical"), a, s.bufs, {});
        REQUIRE(res.ok);
        REQUIRE(s.bufs[uz(p - 1)].recv == s.want[uz(p - 1)].recv);
        std::size_t total = 0;
        for (int node = 0; node < nodes; ++node) total += between(res, node);
        CHECK(total == uz(nodes - 1) * 10 * kElem);
      }
      // Allgather: each node sends the other nodes' share of the result once, as a
      // bandwidth-optimal allgatherv among the leaders does: (N-1)·L·b.
      CollArgs a = base_args(CollKind::Allgather, p, 1000);
      testing::set_node_map(a, map);
      Setup s = gather_setup(a, true, uz(p) * a.count * kElem);
      const sim::Result res = sim::run_algorithm(*find_algorithm(CollKind::Allgather, "hierarchical"), a, s.bufs, {});
      REQUIRE(res.ok);
      for (int r = 0; r < p; ++r) REQUIRE(s.bufs[uz(r)].recv == s.want[uz(r)].recv);
      for (int node = 0; node < nodes; ++node) CHECK(between(res, node) == uz(nodes - 1) * uz(per) * 1000 * kElem);
      // Barrier: only the leaders talk across the network, ⌈lg N⌉ rounds of it.
      CollArgs b = base_args(CollKind::Barrier, p);
      testing::set_node_map(b, map);
      std::vector<sim::RankBuffers> bufs(uz(p));
      for (auto& x : bufs) x.recv.assign(1, std::byte{0});
      const sim::Result bar = sim::run_algorithm(*find_algorithm(CollKind::Barrier, "hierarchical"), b, bufs, {});
      REQUIRE(bar.ok);
      for (int r = 0; r < p; ++r)
        CHECK(bar.rounds[uz(r)] <= pat::ceil_log2(nodes) + (per > 1 ? 2 : 0));
    }
}

// ---- barriers: every rank leaves knowing that every rank entered ---------------------------

namespace {

// Runs every rank's schedule of `algo` with knowledge instead of data: a rank
// starts knowing it entered, a message carries what its sender knew when its
// round began (sends are posted at the start of their round, after the rounds
// before it completed, as the executor does for messages of no bytes), and a
// receive adds it to the receiver's. A Signal in a shared window (posted with its
// round, like a send) publishes what its rank knew then; a Wait, once the peer has
// Signalled as often as the waiter, adds what the peer knew at that Signal.
// Per rank, what it knew at the end; empty when the schedules do not all complete.
std::vector<std::vector<char>> heard(const AlgoInfo& algo, const CollArgs& base) {
  const int p = base.size;
  std::vector<Schedule> sch(uz(p));
  for (int r = 0; r < p; ++r) {
    CollArgs a = base;
    a.rank = r;
    REQUIRE(algo.build(a, sch[uz(r)]) == Status::Ok);
  }
  std::vector<std::vector<char>> know(uz(p), std::vector<char>(uz(p), 0));
  for (int r = 0; r < p; ++r) know[uz(r)][uz(r)] = 1;
  std::vector<std::vector<std::vector<std::vector<char>>>> chan(uz(p), std::vector<std::vector<std::vector<char>>>(uz(p)));
  std::vector<std::size_t> round(uz(p), 0);
  std::vector<char> posted(uz(p), 0);
  std::vector<std::vector<std::vector<char>>> signalled(uz(p));  // per rank: what it knew at each Signal
  for (bool moved = true; moved;) {
    moved = false;
    for (int r = 0; r < p; ++r) {
      const auto& rounds = sch[uz(r)].rounds;
      while (round[uz(r)] < rounds.size()) {
        const Round& rd = rounds[round[uz(r)]];
        if (!posted[uz(r)]) {
          for (const Step& st : rd.steps) {
            if (st.kind == Step::Kind::Send) chan[uz(r)][uz(st.peer)].push_back(know[uz(r)]);
            if (st.kind == Step::Kind::Signal) signalled[uz(r)].push_back(know[uz(r)]);
          }
          posted[uz(r)] = 1;
          moved = true;
        }
        std::vector<std::size_t> need(uz(p), 0);
        const std::size_t mine = signalled[uz(r)].size();
        bool ready = true;
        for (const Step& st : rd.steps) {
          if (st.kind == Step::Kind::Recv) ++need[uz(st.peer)];
          if (st.kind == Step::Kind::Wait) ready = ready && signalled[uz(st.peer)].size() >= mine;
        }
        if (!ready) break;
        for (const Step& st : rd.steps)
          if (st.kind == Step::Kind::Wait)
            for (int x = 0; x < p; ++x) know[uz(r)][uz(x)] |= signalled[uz(st.peer)][mine - 1][uz(x)];
        for (int q = 0; q < p; ++q) ready = ready && chan[uz(q)][uz(r)].size() >= need[uz(q)];
        if (!ready) break;
        for (int q = 0; q < p; ++q)
          for (std::size_t k = 0; k < need[uz(q)]; ++k) {
            auto& c = chan[uz(q)][uz(r)];
            for (int x = 0; x < p; ++x) know[uz(r)][uz(x)] |= c.front()[uz(x)];
            c.erase(c.begin());
          }
        ++round[uz(r)];
        posted[uz(r)] = 0;
        moved = true;
      }
    }
  }
  for (int r = 0; r < p; ++r)
    if (round[uz(r)] < sch[uz(r)].rounds.size()) return {};
  return know;
}

}  // namespace

// A barrier whose schedule lets a rank finish without having heard, directly or
// through others, from every rank lets it leave MPI_Barrier before the last rank
// entered. The hierarchical barrier built its node stages with helpers that drop
// messages of no bytes: its ranks other than the leaders left at once.
TEST_CASE("barriers: every rank finishes having heard from every rank", "[coll][barrier]") {
  for (const char* name : {"dissemination", "hierarchical"}) {
    const AlgoInfo* algo = find_algorithm(CollKind::Barrier, name);
    REQUIRE(algo);
    for (int p : {1, 2, 3, 4, 5, 7, 8, 12, 16}) {
      CollArgs a = base_args(CollKind::Barrier, p);
      for (const std::vector<int>& m : maps_for(*algo, p))
      for (std::size_t slot : {0, 64}) {  // hierarchical: node stages by messages, or in node windows
        if (slot && m.empty()) continue;
        a.shm_slot_bytes = slot;
        if (!with_map(*algo, a, m)) continue;
        if (algo->supports && !algo->supports(a)) continue;
        INFO(name << " at " << p << " ranks, node map " << fmt::format("{}", fmt::join(m, ","))
                  << (slot ? ", node windows" : ""));
        const auto know = heard(*algo, a);
        REQUIRE(know.size() == uz(p));
        for (int r = 0; r < p; ++r)
          CHECK(std::count(know[uz(r)].begin(), know[uz(r)].end(), 1) == p);
      }
    }
  }
}

// ---- catalog and cost model ----------------------------------------------------------------

TEST_CASE("movement catalog: names, kinds, formulas", "[coll][catalog]") {
  const std::pair<CollKind, std::vector<std::string_view>> expected[] = {
      {CollKind::Barrier, {"dissemination", "shared_memory", "hierarchical"}},
      {CollKind::Bcast, {"binomial", "scatter_allgather", "pipelined_chain", "shared_memory", "hierarchical"}},
      {CollKind::Allgather, {"ring", "recursive_doubling", "bruck", "shared_memory_flat", "hierarchical"}},
      {CollKind::Allgatherv, {"ring", "recursive_doubling", "bruck", "shared_memory_flat"}},
      {CollKind::Gather, {"binomial", "linear"}},
      {CollKind::Gatherv, {"binomial", "linear"}},
      {CollKind::Scatter, {"binomial", "linear"}},
      {CollKind::Scatterv, {"binomial", "linear"}},
      {CollKind::Alltoall, {"pairwise", "bruck", "shared_memory_flat"}},
      {CollKind::Alltoallv, {"pairwise", "bruck"}},
  };
  for (const auto& [kind, names] : expected) {
    std::vector<std::string_view> got;
    for (const AlgoInfo& a : algorithms(kind)) {
      got.push_back(a.name);
      CHECK(a.kind == kind);
      CHECK(a.build);
      CHECK(a.cost_us);
      CHECK(!a.cost_formula.empty());
      CHECK(!a.restrictions.empty());
      CHECK(!a.doc.empty());
    }
    CHECK(got == names);
  }
}

TEST_CASE("movement cost model: monotone in n, small vs large bcast", "[coll][cost]") {
  const CostModel m;
  for (CollKind kind : {CollKind::Bcast, CollKind::Allgather, CollKind::Gather, CollKind::Scatter,
                        CollKind::Alltoall, CollKind::Barrier})
    for (const AlgoInfo& algo : algorithms(kind))
      for (int p : {1, 2, 7, 8, 64, 1031}) {
        double prev = -1;
        for (std::size_t count : {0, 1, 10, 1000, 100000, 10000000}) {
          const double c = algo.cost_us(base_args(kind, p, count), m);
          INFO(kind_name(kind) << "/" << algo.name << " p=" << p << " count=" << count
                               << " cost=" << c);
          REQUIRE(c >= 0);
          REQUIRE(c >= prev);
          prev = c;
        }
      }
  auto bcast_cost = [&](std::string_view name, std::size_t bytes) {
    CollArgs a = base_args(CollKind::Bcast, 8, bytes);
    a.elem_size = 1;
    return find_algorithm(CollKind::Bcast, name)->cost_us(a, m);
  };
  CHECK(bcast_cost("binomial", 8) < bcast_cost("scatter_allgather", 8));
  CHECK(bcast_cost("binomial", 16u << 20) > bcast_cost("scatter_allgather", 16u << 20));
  CHECK(bcast_cost("binomial", 8) < bcast_cost("pipelined_chain", 8));
  CHECK(bcast_cost("binomial", 16u << 20) > bcast_cost("pipelined_chain", 16u << 20));
}

// A rooted call's root/count agreement rides on its shared-window schedule's first
// sync when that sync is one of every rank (Schedule::first_sync_all, executor.cc).
// The executor decides it per rank from the rank's own schedule, so for ranks that
// agree the decision must not depend on the role: root or not, every rank of an
// algorithm's schedule has such a first sync, or none has. (Were it otherwise,
// one rank would Signal once before its verdict and another twice.)
TEST_CASE("shared-window schedules: the first sync is of every rank for every role, or for none",
          "[coll][shm][agree]") {
  int folded = 0;
  for (CollKind kind : {CollKind::Barrier, CollKind::Bcast, CollKind::Reduce, CollKind::Allreduce})
    for (const AlgoInfo& algo : algorithms(kind))
      for (int p = 2; p <= 9; ++p)
        for (int root : {0, 1, p - 1})
          for (std::size_t count : {std::size_t{1}, std::size_t{3}, std::size_t{1000}, std::size_t{40000}})
            for (bool in_place : {false, true}) {
              int with = 0, without = 0, shm = 0;
              for (int rank = 0; rank < p; ++rank) {
                CollArgs a = base_args(kind, p, kind == CollKind::Barrier ? 0 : count, root,
                                       in_place && kind != CollKind::Barrier);
                a.rank = rank;
                a.commutative = true;
                a.shm_slot_bytes = 4096;
                if (algo.supports && !algo.supports(a)) continue;
                Schedule s;
                if (algo.build(a, s) != Status::Ok) continue;
                if (!s.shm_bytes) continue;
                ++shm;
                (s.first_sync_all(p) < s.rounds.size() ? with : without)++;
              }
              INFO(kind_name(kind) << "/" << algo.name << " p=" << p << " root=" << root
                                   << " count=" << count << " in_place=" << in_place);
              REQUIRE((with == 0 || without == 0));
              if (shm) REQUIRE(shm == p);
              if (with) ++folded;
            }
  // The shared-window algorithms of rooted calls do fold (one sync, not two).
  CHECK(folded > 0);
  for (CollKind kind : {CollKind::Bcast, CollKind::Reduce}) {
    CollArgs a = base_args(kind, 4, 3, 1);
    a.commutative = true;
    a.shm_slot_bytes = 4096;
    for (int rank = 0; rank < 4; ++rank) {
      a.rank = rank;
      Schedule s;
      REQUIRE(find_algorithm(kind, "shared_memory")->build(a, s) == Status::Ok);
      INFO(kind_name(kind) << " rank " << rank << "\n" << s.dump());
      CHECK(s.first_sync_all(4) < s.rounds.size());
    }
  }
}

// Sends a collective lets point-to-point read single-copy from its smallest start
// (Step::settled): from a user buffer, 4 KiB or more, and never overwritten by a
// step of their round or a later one (else a round would wait for the read).
TEST_CASE("settled sends: from user buffers that no later step overwrites", "[coll][settled]") {
  auto settled_sends = [](const Schedule& s, int& sends) {
    int n = 0;
    sends = 0;
    for (std::size_t i = 0; i < s.rounds.size(); ++i)
      for (const Step& st : s.rounds[i].steps) {
        if (st.kind != Step::Kind::Send) continue;
        ++sends;
        if (!st.settled) continue;
        ++n;
        // The definition, checked step by step.
        CHECK(st.a.buf < kTmp0);
        CHECK(st.bytes >= 4096);
        for (std::size_t k = i; k < s.rounds.size(); ++k)
          for (const Step& w : s.rounds[k].steps)
            if (w.kind != Step::Kind::Send && w.kind != Step::Kind::Signal && w.kind != Step::Kind::Wait)
              CHECK_FALSE((w.b.buf == st.a.buf && w.b.off < st.a.off + st.bytes && st.a.off < w.b.off + w.bytes));
      }
    return n;
  };
  // The schedule of `name` for `a`, marked.
  auto marked = [](CollKind kind, const char* name, const CollArgs& a) {
    Schedule s;
    REQUIRE(find_algorithm(kind, name)->build(a, s) == Status::Ok);
    s.mark_settled();
    return s;
  };
  constexpr std::size_t kBlock = (4096 + kElem - 1) / kElem;  // elements: just over 4 KiB
  int sends = 0;
  for (int p : {2, 3, 8}) {
    for (bool in_place : {false, true}) {
      // Alltoall pairwise: out of place every block leaves the send buffer, which
      // nothing writes; in place the blocks leave a temporary. Allgather ring: each
      // block, once received into the receive buffer, is passed on from there and
      // never written again.
      CollArgs a = base_args(CollKind::Alltoall, p, kBlock * static_cast<std::size_t>(p), 0, in_place);
      CollArgs g = base_args(CollKind::Allgather, p, kBlock, 0, in_place);
      for (int r = 0; r < p; ++r) {
        a.rank = g.rank = r;
        INFO("p=" << p << " rank " << r << " in_place=" << in_place);
        const Schedule pairwise = marked(CollKind::Alltoall, "pairwise", a);
        INFO("alltoall pairwise\n" << pairwise.dump());
        CHECK(settled_sends(pairwise, sends) == (in_place ? 0 : p - 1));
        CHECK(sends == p - 1);
        const Schedule ring = marked(CollKind::Allgather, "ring", g);
        INFO("allgather ring\n" << ring.dump());
        const int n = settled_sends(ring, sends);
        CHECK(n == sends);
      }
    }
    // Allreduce ring, out of place: the first send leaves the send buffer, and so
    // is settled. The reduce-scatter's later sends leave blocks of the receive
    // buffer that the allgather half overwrites; those are not. With p = 2 there
    // are none, and the allgather's one send is settled too.
    CollArgs r = base_args(CollKind::Allreduce, p, kBlock * static_cast<std::size_t>(p));
    r.commutative = true;
    const Schedule ring = marked(CollKind::Allreduce, "ring", r);
    INFO("allreduce ring p=" << p << "\n" << ring.dump());
    const int n = settled_sends(ring, sends);
    CHECK(n >= 1);
    if (p == 2)
      CHECK(n == sends);
    else
      CHECK(n < sends);
  }
  // Below 4 KiB nothing is marked.
  CHECK(settled_sends(marked(CollKind::Alltoall, "pairwise", base_args(CollKind::Alltoall, 2, 2)), sends) == 0);
  CHECK(sends == 1);
}

// Between nodes, a message from UCX's rendezvous threshold up waits for a
// handshake (CostModel::protocol, measured at MPI_Init). Every algorithm a
// communicator across nodes chooses among prices it per message: never less than
// without it, the same where no message reaches the threshold, monotone in n.
TEST_CASE("cost model: messages across nodes from the rendezvous threshold pay its handshake", "[coll][cost][rndv]") {
  CostModel plain;
  plain.net = {5.5, 1.0 / 3000.0};
  plain.node_sync_us = 3.9;
  CostModel m = plain;
  m.net_rndv_bytes = 19522;  // UCX 1.13 over TCP between two of our pretend hosts
  m.net_rndv_us = 24.0;
  CommShape one_node;
  one_node.size = 4;
  one_node.ranks_per_node = 4;
  CommShape nodes = one_node;
  nodes.nodes = 2;
  nodes.ranks_per_node = 2;
  CHECK(m.protocol(one_node, 1 << 20) == 0);
  CHECK(m.protocol(nodes, 19521) == 0);
  CHECK(m.protocol(nodes, 19522) == 24.0);
  CHECK(plain.protocol(nodes, 1 << 20) == 0);
  nodes.cores_shared = true;  // the handshake's two extra messages each wait for a time slice
  CHECK(m.protocol(nodes, 19522) == 24.0 + 2 * 3.9);
  CommShape leaders = nodes;  // one busy rank per node: no waits
  leaders.ranks_per_node = 1;
  CHECK(m.protocol(leaders, 19522) == 24.0);

  for (CollKind kind : {CollKind::Bcast, CollKind::Reduce, CollKind::Allreduce, CollKind::Allgather,
                        CollKind::Allgatherv, CollKind::ReduceScatter, CollKind::ReduceScatterBlock})
    for (const AlgoInfo& algo : algorithms(kind))
      for (int p : {4, 7, 8}) {
        CollArgs a = base_args(kind, p);
        a.elem_size = 4;
        a.shm_slot_bytes = 256 << 10;
        a.commutative = true;
        std::vector<int> map(static_cast<std::size_t>(p));
        for (int r = 0; r < p; ++r) map[static_cast<std::size_t>(r)] = r / 2;
        testing::set_node_map(a, map);
        a.shape.cores_shared = true;
        if (algo.supports && !algo.supports(a)) continue;
        double prev = -1;
        for (std::size_t count : {1, 10, 1000, 4000, 100000, 10000000}) {
          a.count = count;
          if (kind == CollKind::Allgatherv || kind == CollKind::ReduceScatter) {
            a.counts.assign(static_cast<std::size_t>(p), count);
            a.displs.resize(static_cast<std::size_t>(p));
            for (int i = 0; i < p; ++i) a.displs[static_cast<std::size_t>(i)] = count * static_cast<std::size_t>(i);
            a.counts_everywhere = true;
          }
          const double with = algo.cost_us(a, m), without = algo.cost_us(a, plain);
          INFO(kind_name(kind) << "/" << algo.name << " p=" << p << " count=" << count << " with=" << with
                               << " without=" << without);
          CHECK(with >= without);
          CHECK(with >= prev);
          // No message is larger than count·elem·p (a whole result or input).
          if (count * a.elem_size * static_cast<std::size_t>(p) < 19522) CHECK(with == without);
          prev = with;
        }
      }

  // A chain whose chunks straddle the threshold: a vector one byte over a chunk
  // sends a whole chunk and a byte, not two halves, so it costs no less.
  {
    CollArgs c = base_args(CollKind::Bcast, 8);
    c.elem_size = 1;
    c.chunk_bytes = 20000;
    std::vector<int> map(8);
    for (int r = 0; r < 8; ++r) map[static_cast<std::size_t>(r)] = r / 2;
    testing::set_node_map(c, map);
    const AlgoInfo* chain = find_algorithm(CollKind::Bcast, "pipelined_chain");
    REQUIRE(chain);
    c.count = 20000;
    const double one_chunk = chain->cost_us(c, m);
    c.count = 20001;
    CHECK(chain->cost_us(c, m) >= one_chunk);
  }

  // 2 nodes x 2 ranks, 16 KiB per rank: the ring's messages (16 KiB) stay eager,
  // recursive doubling's second round (32 KiB) takes the handshake. Measured on
  // pinned pretend hosts (benchmarks/multihost): ring 59-107 us, recursive
  // doubling 118-502.
  CollArgs a = base_args(CollKind::Allgather, 4, 16384);
  a.elem_size = 1;
  testing::set_node_map(a, {0, 0, 1, 1});
  a.shape.cores_shared = true;
  const AlgoInfo* ring = find_algorithm(CollKind::Allgather, "ring");
  const AlgoInfo* rd = find_algorithm(CollKind::Allgather, "recursive_doubling");
  REQUIRE((ring && rd));
  CHECK(ring->cost_us(a, m) == ring->cost_us(a, plain));
  CHECK(rd->cost_us(a, m) == Approx(rd->cost_us(a, plain) + m.protocol(a.shape, 32768)));
  CHECK(rd->cost_us(a, plain) < ring->cost_us(a, plain));
  CHECK(ring->cost_us(a, m) < rd->cost_us(a, m));
}

// On one node, a core per rank: a collective's messages from the node's single-copy
// threshold up are read once (CostModel::protocol takes a quarter of their β off), and the
// shared window's copies cost what the flat algorithms measured. The choices below
// are those scripts/coll-algos found fastest at 2 ranks (2026-12-07, medians of 7);
// before, the model chose the ring or pairwise exchange at 8-64 KiB, where the
// flat shared-window algorithms were ahead by up to 1.7x (allreduce 32 KiB:
// flat 5.7 us, ring 9.3), and the flat reduce_scatter at 128-256 KiB, where the
// pairwise exchange's single copies were ahead (256 KiB: 16.9 us against 26.2).
TEST_CASE("cost model: two ranks of one node, single copies and the shared window", "[coll][cost]") {
  CostModel m;
  m.local_single_min = 65536;  // what MPI_Init sets where reading a peer is cheap
  m.local_single_max = 1 << 20;
  CommShape two;
  two.size = 2;
  two.ranks_per_node = 2;
  CHECK(m.protocol(two, 65535) == 0);
  CHECK(m.protocol(two, 65536) == -m.local_single_saving * 65536 * m.shm.beta_us_per_b);
  CHECK(m.local_single_saving > 0);
  CHECK(m.protocol(two, (1 << 20) + 1) == 0);
  CommShape shared = two;
  shared.cores_shared = true;  // the fitted shared link already prices what runs there
  CHECK(m.protocol(shared, 65536) == 0);
  CHECK(CostModel{}.protocol(two, 65536) == 0);  // no single copy: nothing off

  auto choice = [&](CollKind kind, std::size_t bytes) {
    CollArgs a = base_args(kind, 2);
    a.elem_size = 4;
    a.shm_slot_bytes = 256 << 10;
    a.commutative = true;
    // Benchmark sizes: the vector (allreduce), or the whole result or input
    // (allgather, alltoall, reduce_scatter_block: a block per rank).
    a.count = kind == CollKind::Allreduce ? bytes / 4 : bytes / 4 / 2;
    Choice c;
    REQUIRE(select(a, m, c) == chorus::Status::Ok);
    UNSCOPED_INFO(kind_name(kind) << " " << bytes << " B: " << c.algo->name << " " << c.cost_us << " us");
    return std::string(c.algo->name);
  };
  for (std::size_t n : {8192, 16384, 32768, 65536}) CHECK(choice(CollKind::Allreduce, n) == "shared_memory_flat");
  CHECK(choice(CollKind::Allreduce, 1 << 20) == "ring");
  for (std::size_t n : {8192, 16384, 32768}) {
    CHECK(choice(CollKind::Allgather, n) == "shared_memory_flat");
    CHECK(choice(CollKind::Alltoall, n) == "shared_memory_flat");
    CHECK(choice(CollKind::ReduceScatterBlock, n) == "shared_memory_flat");
  }
  for (std::size_t n : {131072, 262144}) {
    CHECK(choice(CollKind::Allgather, n) == "ring");
    CHECK(choice(CollKind::Alltoall, n) == "pairwise");
    CHECK(choice(CollKind::ReduceScatterBlock, n) == "pairwise");
  }
}

// CHORUS_COLL_COSTS's table: every algorithm's estimate at each size, the model's
// choice marked, "-" where an algorithm cannot run; the figures the docs quote
// from the model come from it.
TEST_CASE("cost table: every algorithm's estimate, the choice marked", "[coll][cost]") {
  CostModel m;
  m.local_single_min = 65536;
  m.local_single_max = 1 << 20;
  CommShape two;
  two.size = 2;
  two.ranks_per_node = 2;
  const std::vector<std::size_t> sizes = {32768, 131072};
  const std::string t = cost_table(two, m, 256 << 10, sizes);
  INFO(t);
  CHECK(t.find("cost estimates for 2 ranks (2 per node, 1 nodes, shared window)") == 0);
  CHECK(t.find("32K") != std::string::npos);
  CHECK(t.find("128K") != std::string::npos);
  // The allgather block: its algorithms' rows, in catalog order, the chosen one starred.
  const std::size_t at = t.find("\n  allgather ");
  REQUIRE(at != std::string::npos);
  const std::string block = t.substr(at, t.find("\n  allgatherv", at) - at);
  for (const AlgoInfo& algo : algorithms(CollKind::Allgather)) {
    const std::size_t row = block.find(fmt::format("\n    {:<25}", algo.name));
    REQUIRE(row != std::string::npos);
    const std::string line = block.substr(row + 1, block.find('\n', row + 1) - row - 1);
    INFO(line);
    for (std::size_t bytes : sizes) {
      CollArgs a;
      a.kind = CollKind::Allgather;
      a.size = 2;
      a.shape = two;
      a.elem_size = 1;
      a.count = bytes;
      a.chunk_bytes = param::CollChunkBytes();
      a.shm_slot_bytes = 256 << 10;
      Choice c;
      REQUIRE(select(a, m, c, true) == chorus::Status::Ok);
      if (algo.supports && !algo.supports(a)) {
        CHECK(line.find(" - ") != std::string::npos);
        continue;
      }
      const std::string cell = fmt::format("{}{:.2f}", c.algo == &algo ? "*" : "", algo.cost_us(a, m));
      CHECK(line.find(" " + cell) != std::string::npos);
    }
  }
  CHECK(block.find("\n    hierarchical ") != std::string::npos);  // one node: cannot run
}
