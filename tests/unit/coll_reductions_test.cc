// Reduction algorithms (allreduce, reduce, reduce_scatter(_block), scan, exscan)
// through the schedule simulator: every algorithm of the catalog at every rank count
// 1..64 plus spot checks at 1000 and 1031 (pairwise: 1031), counts {0, 1, p-1, p+1, 1000+p}, in place
// or not, with a commutative op (int64 sum) and, where the algorithm supports it, a
// non-commutative one (2x2 matrix product mod a prime), against a reference computed
// here in rank order. Also: traffic per rank against the cost formulas where they
// are exact, and the supports() / cost_us() contracts used by selection.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "coll/algorithms/hierarchy.h"
#include "coll/registry.h"
#include "coll/select.h"
#include "coll/sim.h"
#include "coll_node_maps.h"

using namespace chorus::coll;
using chorus::coll::testing::node_maps;
using chorus::coll::testing::set_node_map;

namespace {

// ---- ops and data ---------------------------------------------------------------

struct Op {
  const char* name;
  std::size_t elem_size;
  bool commutative;
  sim::ReduceFn fn;                                    // inout = in (op) inout
  void (*make)(std::uint64_t seed, std::byte* out);  // one element from a seed
};

std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

const Op kSum = {
    "int64 sum", 8, true,
    [](const std::byte* in, std::byte* inout, std::size_t bytes) {
      for (std::size_t o = 0; o < bytes; o += 8) {
        std::int64_t a, b;
        std::memcpy(&a, in + o, 8);
        std::memcpy(&b, inout + o, 8);
        b += a;
        std::memcpy(inout + o, &b, 8);
      }
    },
    [](std::uint64_t seed, std::byte* out) {
      const std::int64_t v = static_cast<std::int64_t>(mix(seed) % 2001) - 1000;
      std::memcpy(out, &v, 8);
    }};

// 2x2 matrices mod a prime, row-major as 4 x uint32: A (op) B = A·B, not commutative.
constexpr std::uint64_t kPrime = 1000003;
const Op kMatmul = {
    "2x2 matmul mod p", 16, false,
    [](const std::byte* in, std::byte* inout, std::size_t bytes) {
      for (std::size_t o = 0; o < bytes; o += 16) {
        std::uint32_t a[4], b[4], c[4];
        std::memcpy(a, in + o, 16);
        std::memcpy(b, inout + o, 16);
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 2; ++j)
            c[2 * i + j] = static_cast<std::uint32_t>(
                (std::uint64_t{a[2 * i]} * b[j] + std::uint64_t{a[2 * i + 1]} * b[2 + j]) % kPrime);
        std::memcpy(inout + o, c, 16);
      }
    },
    [](std::uint64_t seed, std::byte* out) {
      std::uint32_t m[4];
      for (int k = 0; k < 4; ++k) m[k] = static_cast<std::uint32_t>(mix(seed * 4 + k) % kPrime);
      std::memcpy(out, m, 16);
    }};

using Bytes = std::vector<std::byte>;

// Rank r's input: `elems` elements.
Bytes input_of(const Op& op, int r, std::size_t elems) {
  Bytes b(elems * op.elem_size);
  for (std::size_t i = 0; i < elems; ++i)
    op.make((static_cast<std::uint64_t>(r) << 32) ^ i, b.data() + i * op.elem_size);
  return b;
}

// acc = acc (op) x, elementwise.
void append(const Op& op, Bytes& acc, const Bytes& x) {
  Bytes t = x;
  op.fn(acc.data(), t.data(), t.size());
  acc = std::move(t);
}

Bytes sentinel(std::size_t bytes) { return Bytes(bytes, std::byte{0xA5}); }

// ---- one simulated call -----------------------------------------------------------

std::size_t total_elems(const CollArgs& a) {
  switch (a.kind) {
    case CollKind::ReduceScatterBlock: return a.count * static_cast<std::size_t>(a.size);
    case CollKind::ReduceScatter: {
      std::size_t t = 0;
      for (std::size_t c : a.counts) t += c;
      return t;
    }
    default: return a.count;
  }
}

std::string describe(const AlgoInfo& algo, const CollArgs& a, const Op& op) {
  std::string s = fmt::format("{} {}: p={} count={} root={} in_place={} chunk={} op={}",
                              kind_name(a.kind), algo.name, a.size, a.count, a.root, a.in_place,
                              a.chunk_bytes, op.name);
  if (a.kind == CollKind::ReduceScatter) {
    s += " counts=[";
    for (std::size_t i = 0; i < a.counts.size() && i < 16; ++i) s += fmt::format("{} ", a.counts[i]);
    s += a.counts.size() > 16 ? "...]" : "]";
  }
  return s;
}

std::string dump_rank(const AlgoInfo& algo, CollArgs a, int r) {
  a.rank = r;
  Schedule s;
  if (algo.build(a, s) != chorus::Status::Ok) return "(build failed)";
  return fmt::format("schedule of rank {}:\n{}", r, s.dump());
}

// Runs the call on every rank and compares with the reference; returns "" when
// correct, else what went wrong (with the schedule of the first wrong rank).
std::string run_case(const AlgoInfo& algo, const CollArgs& a, const Op& op,
                     sim::Result* traffic = nullptr) {
  const int p = a.size;
  const std::size_t es = op.elem_size, n_el = total_elems(a);
  std::vector<Bytes> x(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) x[static_cast<std::size_t>(r)] = input_of(op, r, n_el);

  // Result blocks of reduce_scatter(_block), in elements.
  std::vector<std::size_t> blk_off(static_cast<std::size_t>(p) + 1, 0);
  if (a.kind == CollKind::ReduceScatter || a.kind == CollKind::ReduceScatterBlock)
    for (int r = 0; r < p; ++r)
      blk_off[static_cast<std::size_t>(r) + 1] =
          blk_off[static_cast<std::size_t>(r)] +
          (a.kind == CollKind::ReduceScatter ? a.counts[static_cast<std::size_t>(r)] : a.count);

  std::vector<sim::RankBuffers> bufs(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    auto& b = bufs[static_cast<std::size_t>(r)];
    const Bytes& xr = x[static_cast<std::size_t>(r)];
    const bool has_recv = a.kind != CollKind::Reduce || r == a.root;
    const bool in_place = a.in_place && has_recv;
    if (!in_place) b.send = xr;
    std::size_t recv_bytes = n_el * es;
    if (a.kind == CollKind::ReduceScatter || a.kind == CollKind::ReduceScatterBlock)
      recv_bytes = (blk_off[static_cast<std::size_t>(r) + 1] - blk_off[static_cast<std::size_t>(r)]) * es;
    if (has_recv) b.recv = in_place ? xr : sentinel(recv_bytes);
  }
  std::vector<sim::RankBuffers> before = bufs;
  CollArgs args = a;
  args.elem_size = es;
  args.commutative = op.commutative;
  sim::Result res = sim::run_algorithm(algo, args, bufs, op.fn);
  if (!res.ok) return describe(algo, args, op) + ": " + res.error;
  if (traffic) *traffic = res;

  // Reference: prefix[r] = x0 (op) ... (op) x_r.
  Bytes acc = x[0];
  std::vector<Bytes> prefix;
  const bool scans = a.kind == CollKind::Scan || a.kind == CollKind::Exscan;
  if (scans) prefix.push_back(acc);
  for (int r = 1; r < p; ++r) {
    append(op, acc, x[static_cast<std::size_t>(r)]);
    if (scans) prefix.push_back(acc);
  }
  for (int r = 0; r < p; ++r) {
    const auto ur = static_cast<std::size_t>(r);
    const Bytes& got = bufs[ur].recv;
    Bytes want;
    switch (a.kind) {
      case CollKind::Allreduce: want = acc; break;
      case CollKind::Reduce: want = r == a.root ? acc : Bytes{}; break;
      case CollKind::Scan: want = prefix[ur]; break;
      case CollKind::Exscan: want = r == 0 ? before[0].recv : prefix[ur - 1]; break;
      default:  // reduce_scatter(_block): own block, at the front of kRecv
        want.assign(acc.begin() + static_cast<long>(blk_off[ur] * es),
                    acc.begin() + static_cast<long>(blk_off[ur + 1] * es));
    }
    const bool ok = got.size() >= want.size() && std::equal(want.begin(), want.end(), got.begin());
    if (!ok)
      return fmt::format("{}: wrong result on rank {}\n{}", describe(algo, args, op), r,
                         dump_rank(algo, args, r));
    if (bufs[ur].send != before[ur].send)
      return fmt::format("{}: rank {} wrote its send buffer\n{}", describe(algo, args, op), r,
                         dump_rank(algo, args, r));
  }
  return "";
}

// ---- the sweep ----------------------------------------------------------------------

const CollKind kKinds[] = {CollKind::Allreduce,          CollKind::Reduce,
                           CollKind::ReduceScatter,      CollKind::ReduceScatterBlock,
                           CollKind::Scan,               CollKind::Exscan};

bool uses_chunks(const AlgoInfo& algo) {
  return algo.kind == CollKind::Allreduce &&
         (algo.name == "ring" || algo.name == "double_binary_tree");
}

// Per-rank counts of reduce_scatter for pattern `k`.
std::vector<std::size_t> rs_counts(int p, int k) {
  std::vector<std::size_t> c(static_cast<std::size_t>(p));
  for (int i = 0; i < p; ++i) {
    const auto u = static_cast<std::size_t>(i);
    switch (k) {
      case 0: c[u] = static_cast<std::size_t>(i * 7 + 3) % 5; break;  // irregular, with zeros
      case 1: c[u] = i == p / 2 ? static_cast<std::size_t>(2 * p + 1) : 0; break;  // one rank
      case 2: c[u] = 1; break;
      default: c[u] = static_cast<std::size_t>(p + 1 + i % 3); break;  // large-ish
    }
  }
  return c;
}

// The flat algorithm a hierarchical allreduce runs among `nodes` ranks on `count`
// elements (its network stage).
const AlgoInfo* hier_best_flat(const CollArgs& a, int nodes, std::size_t count) {
  return hier::best_flat(hier::stage_args(a, CollKind::Allreduce, 0, nodes, count, true), default_cost_model());
}


// Every (args) variant to run for one algorithm at one rank count. `spot`: the
// large-p spot check, with fewer variants.
std::vector<CollArgs> variants(const AlgoInfo& algo, int p, bool spot) {
  std::vector<CollArgs> out;
  CollArgs base;
  base.kind = algo.kind;
  base.size = p;
  std::vector<std::size_t> counts;
  const auto up = static_cast<std::size_t>(p);
  if (algo.kind == CollKind::ReduceScatterBlock)
    counts = spot ? std::vector<std::size_t>{1} : std::vector<std::size_t>{0, 1, 2, up + 1};
  else if (algo.kind != CollKind::ReduceScatter)
    counts = spot ? std::vector<std::size_t>{up + 1} : std::vector<std::size_t>{0, 1, up - 1, up + 1, 1000 + up};
  else
    counts = {0};  // counts come from rs_counts
  std::sort(counts.begin(), counts.end());
  counts.erase(std::unique(counts.begin(), counts.end()), counts.end());
  std::vector<int> roots{0};
  if (algo.kind == CollKind::Reduce) roots = {0, p / 2, p - 1};
  std::sort(roots.begin(), roots.end());
  roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
  const int rs_patterns = algo.kind == CollKind::ReduceScatter ? (spot ? 1 : 4) : 1;
  std::vector<std::size_t> chunks{0};
  if (uses_chunks(algo)) chunks.push_back(spot ? 1000 : 3 * 8 + 5);  // not a whole element
  // Shared-window algorithms: a slot of a few elements (many chunks; 44 and 1000 B
  // are not whole int64 matrices) and one that holds every message whole. Above 8
  // ranks the small slot is larger: the simulator visits every chunk's P waits.
  std::vector<std::size_t> slots{0};
  if (algo.name.starts_with("shared_memory"))
    slots = spot ? std::vector<std::size_t>{1 << 14}
                 : std::vector<std::size_t>{p <= 8 ? std::size_t{44} : std::size_t{1000}, 1 << 16};
  std::vector<std::vector<int>> maps{{}};
  if (algo.name.starts_with("hierarchical")) {
    // Without node windows (messages in each node) and with them, their slot small
    // (many chunks) or holding every message whole.
    slots = spot ? std::vector<std::size_t>{0, 1 << 14}
                 : std::vector<std::size_t>{0, p <= 8 ? std::size_t{44} : std::size_t{1000}, 1 << 16};
    maps = node_maps(p);
    if (spot) maps.resize(std::min<std::size_t>(maps.size(), 2));  // one rank and two ranks per node
  }
  for (const std::vector<int>& map : maps)
  for (std::size_t count : counts)
    for (int root : roots)
      for (int pat = 0; pat < rs_patterns; ++pat)
        for (std::size_t chunk : chunks)
          for (std::size_t slot : slots)
          for (bool in_place : {false, true}) {
            if (spot && in_place && chunk != 0) continue;
            CollArgs a = base;
            if (!map.empty()) set_node_map(a, map);
            a.shm_slot_bytes = slot;
            a.count = count;
            a.root = root;
            a.chunk_bytes = chunk;
            a.in_place = in_place;
            if (algo.kind == CollKind::ReduceScatter) a.counts = rs_counts(p, spot ? 0 : pat);
            out.push_back(a);
          }
  return out;
}

void sweep(CollKind kind, const std::vector<int>& sizes, bool spot) {
  for (const AlgoInfo& algo : algorithms(kind)) {
    int cases = 0;
    std::vector<int> ps = sizes;
    // Pairwise moves p - 1 messages per rank per case: one spot size is enough.
    if (spot && algo.name == "pairwise") ps = {sizes.back()};
    for (int p : ps) {
      for (const CollArgs& a : variants(algo, p, spot)) {
        for (const Op* op : {&kSum, &kMatmul}) {
          CollArgs probe = a;
          probe.commutative = op->commutative;
          probe.elem_size = op->elem_size;
          if (algo.supports && !algo.supports(probe)) continue;
          if (spot && op == &kMatmul && !a.in_place) continue;  // one op per layout at scale
          const std::string err = run_case(algo, a, *op);
          ++cases;
          if (!err.empty()) FAIL(err);
        }
      }
    }
    INFO(fmt::format("{} {}: {} cases", kind_name(kind), algo.name, cases));
    CHECK(cases > 0);
  }
}

std::vector<int> one_to(int n) {
  std::vector<int> v;
  for (int p = 1; p <= n; ++p) v.push_back(p);
  return v;
}

}  // namespace

TEST_CASE("catalog lists every reduction algorithm once, defaults first", "[reductions][catalog]") {
  for (CollKind kind : kKinds) {
    auto algos = algorithms(kind);
    REQUIRE(!algos.empty());
    for (const AlgoInfo& a : algos) {
      CHECK(a.kind == kind);
      CHECK(a.build != nullptr);
      CHECK(a.cost_us != nullptr);
      CHECK(!a.cost_formula.empty());
      CHECK(!a.restrictions.empty());
      CHECK(!a.doc.empty());
      CHECK(find_algorithm(kind, a.name) == &a);
    }
    // The default (first) runs every call, non-commutative ops included.
    CollArgs nc;
    nc.kind = kind;
    nc.commutative = false;
    CHECK((algos[0].supports == nullptr || algos[0].supports(nc)));
  }
  const char* names[][6] = {
      {"recursive_doubling", "ring", "rabenseifner", "double_binary_tree", "reduce_bcast", nullptr},
      {"binomial", "rabenseifner", nullptr},
      {"ring", "recursive_halving", "pairwise", "shared_memory_flat", nullptr},
      {"ring", "recursive_halving", "pairwise", "shared_memory_flat", nullptr},
      {"recursive_doubling", nullptr},
      {"recursive_doubling", nullptr}};
  for (int k = 0; k < 6; ++k)
    for (int i = 0; names[k][i]; ++i) {
      INFO(kind_name(kKinds[k]) << " " << names[k][i]);
      CHECK(find_algorithm(kKinds[k], names[k][i]) != nullptr);
    }
}

// One test case per collective (tags name it), so the suite can run them in parallel.
TEST_CASE("allreduce algorithms are correct at every p in 1..64", "[sim][allreduce]") {
  sweep(CollKind::Allreduce, one_to(64), false);
}
TEST_CASE("reduce algorithms are correct at every p in 1..64", "[sim][reduce]") {
  sweep(CollKind::Reduce, one_to(64), false);
}
TEST_CASE("reduce_scatter algorithms are correct at every p in 1..64", "[sim][reduce_scatter]") {
  sweep(CollKind::ReduceScatter, one_to(64), false);
}
TEST_CASE("reduce_scatter_block algorithms are correct at every p in 1..64",
          "[sim][reduce_scatter_block]") {
  sweep(CollKind::ReduceScatterBlock, one_to(64), false);
}
TEST_CASE("scan and exscan algorithms are correct at every p in 1..64", "[sim][scan]") {
  sweep(CollKind::Scan, one_to(64), false);
  sweep(CollKind::Exscan, one_to(64), false);
}

// Spot checks at scale (every algorithm; pairwise, with its p - 1 rounds per rank,
// at 1031 only: the simulator's progress is event-driven, O(p^2) in all for it).
TEST_CASE("reduction algorithms are correct at p = 1000 and 1031", "[sim][large]") {
  for (CollKind kind : kKinds) sweep(kind, {1000, 1031}, true);
}

// ---- traffic against the cost formulas ----------------------------------------------

namespace {

sim::Result traffic_of(CollKind kind, std::string_view name, int p, std::size_t count,
                       const Op& op = kSum, int root = 0) {
  const AlgoInfo* algo = find_algorithm(kind, name);
  REQUIRE(algo);
  CollArgs a;
  a.kind = kind;
  a.size = p;
  a.count = count;
  a.root = root;
  if (kind == CollKind::ReduceScatter) a.counts.assign(static_cast<std::size_t>(p), count);
  sim::Result res;
  const std::string err = run_case(*algo, a, op, &res);
  if (!err.empty()) FAIL(err);
  return res;
}

std::size_t sum(const std::vector<std::size_t>& v) {
  std::size_t t = 0;
  for (std::size_t x : v) t += x;
  return t;
}

}  // namespace

TEST_CASE("allreduce traffic matches the cost formulas", "[reductions][traffic]") {
  const std::size_t es = 8;
  for (int p = 2; p <= 24; ++p) {
    INFO("p = " << p);
    const std::size_t count = static_cast<std::size_t>(p) * 6, n = count * es;
    const int pof2 = [&] { int q = 1; while (q * 2 <= p) q *= 2; return q; }();
    const int rem = p - pof2;
    int lg = 0;
    while ((1 << lg) < pof2) ++lg;

    // ring: 2(p-1)/p·n per rank, 2(p-1) rounds
    sim::Result ring = traffic_of(CollKind::Allreduce, "ring", p, count);
    for (int r = 0; r < p; ++r) {
      CHECK(ring.bytes_sent[static_cast<std::size_t>(r)] == 2 * static_cast<std::size_t>(p - 1) * n / static_cast<std::size_t>(p));
      CHECK(ring.rounds[static_cast<std::size_t>(r)] == 2 * (p - 1));
    }

    // recursive doubling: lg p' whole vectors, plus one more to fold in or out
    sim::Result rd = traffic_of(CollKind::Allreduce, "recursive_doubling", p, count);
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      const bool out = r < 2 * rem && r % 2 == 0, absorbs = r < 2 * rem && r % 2 == 1;
      CHECK(rd.bytes_sent[ur] == (out ? n : (static_cast<std::size_t>(lg) + (absorbs ? 1 : 0)) * n));
      CHECK(rd.rounds[ur] == (out ? 2 : lg + (absorbs ? 2 : 0)));
    }

    // rabenseifner: 2(p'-1)/p'·n per newrank (p' divides count here), folding adds n
    sim::Result rab = traffic_of(CollKind::Allreduce, "rabenseifner", p, static_cast<std::size_t>(pof2) * 6);
    const std::size_t nr = static_cast<std::size_t>(pof2) * 6 * es;
    for (int r = 0; r < p; ++r) {
      const auto ur = static_cast<std::size_t>(r);
      const bool out = r < 2 * rem && r % 2 == 0, absorbs = r < 2 * rem && r % 2 == 1;
      const std::size_t core = 2 * static_cast<std::size_t>(pof2 - 1) * nr / static_cast<std::size_t>(pof2);
      CHECK(rab.bytes_sent[ur] == (out ? nr : core + (absorbs ? nr : 0)));
    }

    // trees: each of the p-1 edges carries the vector up and down once
    sim::Result rb = traffic_of(CollKind::Allreduce, "reduce_bcast", p, count);
    CHECK(sum(rb.bytes_sent) == 2 * static_cast<std::size_t>(p - 1) * n);
    sim::Result dbt = traffic_of(CollKind::Allreduce, "double_binary_tree", p, count);
    CHECK(sum(dbt.bytes_sent) == 2 * static_cast<std::size_t>(p - 1) * n);
    CHECK(*std::max_element(dbt.bytes_sent.begin(), dbt.bytes_sent.end()) <= 2 * n);
  }
}

TEST_CASE("reduce, reduce_scatter and scan traffic match the cost formulas", "[reductions][traffic]") {
  const std::size_t es = 8;
  for (int p = 2; p <= 24; ++p) {
    INFO("p = " << p);
    const auto up = static_cast<std::size_t>(p);
    const std::size_t count = 5, n = count * es;
    // binomial reduce: every non-root sends the vector once; rank 0 forwards it to a
    // root ≠ 0 when the op is not commutative
    CHECK(sum(traffic_of(CollKind::Reduce, "binomial", p, count).bytes_sent) == (up - 1) * n);
    CHECK(sum(traffic_of(CollKind::Reduce, "binomial", p, count, kMatmul, p - 1).bytes_sent) ==
          (up - 1) * 2 * n + 2 * n);
    int lg = 0;
    while ((1 << lg) < p) ++lg;
    CHECK(traffic_of(CollKind::Reduce, "binomial", p, count).rounds[0] == lg);

    // reduce_scatter_block: (p-1) blocks out of every rank (ring, pairwise; halving
    // when p is a power of two)
    for (const char* name : {"ring", "pairwise", "recursive_halving"}) {
      if (std::string_view(name) == "recursive_halving" && (p & (p - 1))) continue;
      INFO(name);
      for (CollKind kind : {CollKind::ReduceScatterBlock, CollKind::ReduceScatter}) {
        sim::Result rs = traffic_of(kind, name, p, count);
        for (std::size_t b : rs.bytes_sent) CHECK(b == (up - 1) * n);
      }
    }
    // scan: one vector per existing partner at distance 1, 2, 4, ...
    for (CollKind kind : {CollKind::Scan, CollKind::Exscan}) {
      sim::Result sc = traffic_of(kind, "recursive_doubling", p, count);
      for (int r = 0; r < p; ++r) {
        std::size_t steps = 0;
        for (int m = 1; m < p; m <<= 1) steps += (r ^ m) < p;
        CHECK(sc.bytes_sent[static_cast<std::size_t>(r)] == steps * n);
      }
    }
  }
}

TEST_CASE("ring allreduce pipelines in whole-element chunks", "[reductions][traffic]") {
  const AlgoInfo* ring = find_algorithm(CollKind::Allreduce, "ring");
  REQUIRE(ring);
  CollArgs a;
  a.kind = CollKind::Allreduce;
  a.size = 4;
  a.count = 4 * 10;  // blocks of 10 elements
  a.elem_size = 8;
  a.chunk_bytes = 3 * 8 + 5;  // 3 elements: 4 chunks per block
  Schedule s;
  REQUIRE(ring->build(a, s) == chorus::Status::Ok);
  INFO(s.dump());
  CHECK(s.comm_rounds() == 2 * 3 * 4);
  for (const Round& r : s.rounds)
    for (const Step& st : r.steps)
      if (st.kind == Step::Kind::Send) CHECK((st.bytes == 24 || st.bytes == 8));
  // Out of place the chunks are received and reduced in the receive buffer; in
  // place a temporary of one chunk holds them.
  CHECK(s.tmp_bytes[0] == 0);
  a.in_place = true;
  Schedule in_place;
  REQUIRE(ring->build(a, in_place) == chorus::Status::Ok);
  CHECK(in_place.comm_rounds() == 2 * 3 * 4);
  CHECK(in_place.tmp_bytes[0] == 24);
}

TEST_CASE("ring allreduce out of place copies nothing up front", "[reductions][traffic]") {
  // The first send leaves the send buffer; every received chunk of the
  // reduce-scatter lands in the receive buffer and is reduced there with the send
  // buffer's chunk. An up-front copy of the input into the receive buffer (as
  // before) cost a pass over the whole vector at every size.
  const AlgoInfo* ring = find_algorithm(CollKind::Allreduce, "ring");
  REQUIRE(ring);
  for (int p : {2, 3, 7}) {
    CollArgs a;
    a.kind = CollKind::Allreduce;
    a.size = p;
    a.count = 1000;
    a.elem_size = 4;
    a.commutative = true;
    for (int r = 0; r < p; ++r) {
      a.rank = r;
      Schedule s;
      REQUIRE(ring->build(a, s) == chorus::Status::Ok);
      INFO("p=" << p << " rank " << r << "\n" << s.dump());
      CHECK(s.tmp_bytes[0] == 0);
      int reduces = 0;
      for (const Round& rd : s.rounds)
        for (const Step& st : rd.steps) {
          CHECK(st.kind != Step::Kind::Copy);
          if (st.kind == Step::Kind::ReduceLeft || st.kind == Step::Kind::ReduceRight) {
            ++reduces;
            CHECK(st.a.buf == kSend);
            CHECK(st.b.buf == kRecv);
          }
        }
      CHECK(reduces == p - 1);
      REQUIRE(!s.rounds.empty());
      const Step& first = s.rounds[0].steps[0];
      CHECK(first.kind == Step::Kind::Send);
      CHECK(first.a.buf == kSend);
    }
  }
}

// ---- supports() and cost_us() ---------------------------------------------------------

TEST_CASE("supports() and cost estimates behave", "[reductions][cost]") {
  const CostModel m;
  for (CollKind kind : kKinds) {
    for (const AlgoInfo& algo : algorithms(kind)) {
      INFO(kind_name(kind) << " " << algo.name);
      for (int p : {1, 2, 7, 8, 64, 1000, 1031}) {
        CollArgs a;
        a.kind = kind;
        a.size = p;
        a.elem_size = 4;
        // Shared-window algorithms need a window; reduce_scatter's shared_memory_flat
        // holds a rank's whole input (p elements at count 1) in one slot.
        a.shm_slot_bytes = 8192;
        const bool hierarchical = algo.name.starts_with("hierarchical");
        if (hierarchical) {  // they need ranks on several nodes: two per node here
          if (p < 4 || (algo.name.ends_with("multi_leader") && p % 2)) continue;  // multi-leader: even nodes
          std::vector<int> map(static_cast<std::size_t>(p));
          for (int r = 0; r < p; ++r) map[static_cast<std::size_t>(r)] = r / 2;
          set_node_map(a, map);
        }
        double last = -1;
        for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{100}, std::size_t{10000},
                                  std::size_t{1} << 22}) {
          a.count = count;
          if (kind == CollKind::ReduceScatter) a.counts.assign(static_cast<std::size_t>(p), count);
          const double c = algo.cost_us(a, m);
          CHECK(c >= 0);
          CHECK(c >= last);  // monotone in n
          last = c;
        }
        a.count = 1;  // within one shared-window slot (shared_memory_flat)
        if (kind == CollKind::ReduceScatter) a.counts.assign(static_cast<std::size_t>(p), 1);
        a.commutative = false;
        const bool nc = algo.supports == nullptr || algo.supports(a);
        CHECK(nc == (algo.name != "ring" && !hierarchical));  // only these reorder operands
        a.commutative = true;
        CHECK((algo.supports == nullptr || algo.supports(a)));
      }
    }
  }
}

TEST_CASE("selection shape: recursive doubling for small, ring for large", "[reductions][cost]") {
  const CostModel m;
  const AlgoInfo* rd = find_algorithm(CollKind::Allreduce, "recursive_doubling");
  const AlgoInfo* ring = find_algorithm(CollKind::Allreduce, "ring");
  const AlgoInfo* rab = find_algorithm(CollKind::Allreduce, "rabenseifner");
  REQUIRE((rd && ring && rab));
  for (int nodes : {1, 8}) {
    CollArgs a;
    a.kind = CollKind::Allreduce;
    a.size = 8;
    a.shape.size = 8;
    a.shape.ranks_per_node = 8 / nodes;
    a.shape.nodes = nodes;
    a.elem_size = 1;
    a.count = 8;
    CHECK(rd->cost_us(a, m) < ring->cost_us(a, m));
    CHECK(rd->cost_us(a, m) < rab->cost_us(a, m));
    a.count = 16u << 20;
    CHECK(ring->cost_us(a, m) < rd->cost_us(a, m));
    CHECK(rab->cost_us(a, m) < rd->cost_us(a, m));
  }
  // Folding is not free: at the same n, p = 9 costs more than p = 8.
  CollArgs a;
  a.kind = CollKind::Allreduce;
  a.elem_size = 4;
  a.count = 1000;
  a.size = 8;
  const double c8 = rd->cost_us(a, m);
  a.size = 9;
  CHECK(rd->cost_us(a, m) > c8);
}

TEST_CASE("across nodes whose ranks share cores, busy ranks pay a node sync per message", "[reductions][cost]") {
  CostModel m;
  m.net = {4.0, 1.0 / 4000.0};
  CommShape flat;
  flat.size = 8;
  flat.nodes = 4;
  flat.ranks_per_node = 2;
  CommShape stage = flat;  // one rank per node busy: a hierarchical network stage
  stage.size = 4;
  stage.ranks_per_node = 1;
  for (bool shared : {false, true}) {
    flat.cores_shared = stage.cores_shared = shared;
    for (double measured : {0.0, 2.5}) {
      m.node_sync_us = measured;
      INFO((shared ? "cores shared" : "a core per rank") << ", node sync " << (measured ? "measured" : "fitted"));
      CHECK(m.sync(flat) == (measured ? 2.5 : shared ? m.shm_sync_shared_us : m.shm_sync_us));
      CHECK(m.link(stage).alpha_us == m.net.alpha_us);
      CHECK(m.link(stage).beta_us_per_b == m.net.beta_us_per_b);
      CHECK(m.link(flat).alpha_us == m.net.alpha_us + (shared ? m.sync(flat) : 0.0));
      CHECK(m.link(flat).beta_us_per_b == m.net.beta_us_per_b * (shared ? 2 : 1));
    }
  }
  // With that, the hierarchical allreduce wins small vectors on such nodes (its
  // network stage among the leaders alone), as measured on pinned pretend hosts.
  m.node_sync_us = 2.5;
  CollArgs a;
  a.kind = CollKind::Allreduce;
  a.size = 8;
  a.elem_size = 8;
  a.count = 1;
  a.shm_slot_bytes = 256 << 10;
  std::vector<int> map(8);
  for (int r = 0; r < 8; ++r) map[static_cast<std::size_t>(r)] = r / 2;
  set_node_map(a, map);
  a.shape.cores_shared = true;
  Choice c;
  REQUIRE(select(a, m, c) == chorus::Status::Ok);
  CHECK(c.algo->name.starts_with("hierarchical"));
}

TEST_CASE("hierarchical allreduce: each node sends 2(N-1)/N·n across the network", "[reductions][hierarchical]") {
  // N nodes x L ranks, node_of = rank / L; n divisible by every N·L here, so the
  // ring among the leaders (or among each local index) splits it exactly.
  const std::size_t count = 64 * 9 * 256;  // int64: 1.125 MiB
  const double n = static_cast<double>(count * kSum.elem_size);
  for (const char* name : {"hierarchical", "hierarchical_multi_leader"}) {
    const AlgoInfo* algo = find_algorithm(CollKind::Allreduce, name);
    REQUIRE(algo);
    for (int nodes : {2, 3, 4, 8, 16})
      for (int per : {1, 2, 3, 4})
      for (std::size_t slot : {std::size_t{0}, std::size_t{1} << 16}) {  // node stages: messages, node windows
        CollArgs a;
        a.kind = CollKind::Allreduce;
        a.shm_slot_bytes = slot;
        a.size = nodes * per;
        a.count = count;
        a.elem_size = kSum.elem_size;
        std::vector<int> map(static_cast<std::size_t>(a.size));
        for (int r = 0; r < a.size; ++r) map[static_cast<std::size_t>(r)] = r / per;
        set_node_map(a, map);
        if (!algo->supports(a)) continue;  // multi-leader: at least 2 per node
        INFO(name << " at " << nodes << " nodes x " << per << (slot ? ", node windows" : ""));
        // The network stage runs a bandwidth-optimal algorithm: the ring, or
        // Rabenseifner's where N is a power of two (at 2 nodes any sends n per node).
        const std::size_t stage_count = algo->name == "hierarchical" ? count : count / static_cast<std::size_t>(per);
        const AlgoInfo* inner = hier_best_flat(a, nodes, stage_count);
        REQUIRE(inner);
        INFO("network stage: " << inner->name);
        CHECK((inner->name == "ring" || (nodes & (nodes - 1)) == 0));
        sim::Result res;
        const std::string err = run_case(*algo, a, kSum, &res);
        REQUIRE(err.empty());
        REQUIRE(res.bytes_sent_between_nodes.size() == static_cast<std::size_t>(a.size));
        for (int node = 0; node < nodes; ++node) {
          std::size_t sent = 0;
          for (int l = 0; l < per; ++l) sent += res.bytes_sent_between_nodes[static_cast<std::size_t>(node * per + l)];
          CHECK(static_cast<double>(sent) == 2.0 * (nodes - 1) / nodes * n);
        }
        // With node windows nothing moves inside a node by message.
        if (slot)
          for (int r = 0; r < a.size; ++r)
            CHECK(res.bytes_sent[static_cast<std::size_t>(r)] ==
                  res.bytes_sent_between_nodes[static_cast<std::size_t>(r)]);
      }
  }
}

TEST_CASE("hierarchical reduce_scatter_block: each node sends (N-1)/N of the vector across the network",
          "[reductions][hierarchical]") {
  const AlgoInfo* algo = find_algorithm(CollKind::ReduceScatterBlock, "hierarchical");
  REQUIRE(algo);
  for (int nodes : {2, 3, 4, 8})
    for (int per : {1, 2, 3})
    for (std::size_t slot : {std::size_t{0}, std::size_t{100}}) {  // node stages: messages, node windows
      CollArgs a;
      a.kind = CollKind::ReduceScatterBlock;
      a.shm_slot_bytes = slot;
      a.size = nodes * per;
      a.count = 64 * 9;  // per rank: a node's span divides evenly among any N here
      a.elem_size = kSum.elem_size;
      std::vector<int> map(static_cast<std::size_t>(a.size));
      for (int r = 0; r < a.size; ++r) map[static_cast<std::size_t>(r)] = r / per;
      set_node_map(a, map);
      INFO(nodes << " nodes x " << per << (slot ? ", node windows" : ""));
      sim::Result res;
      const std::string err = run_case(*algo, a, kSum, &res);
      REQUIRE(err.empty());
      const double vector = static_cast<double>(a.count * a.elem_size) * a.size;
      for (int node = 0; node < nodes; ++node) {
        std::size_t sent = 0;
        for (int l = 0; l < per; ++l) sent += res.bytes_sent_between_nodes[static_cast<std::size_t>(node * per + l)];
        CHECK(static_cast<double>(sent) == static_cast<double>(nodes - 1) / nodes * vector);
      }
    }
}

TEST_CASE("hierarchical allreduce at 65,536 ranks (1,024 nodes x 64)", "[reductions][hierscale][large]") {
  for (const char* name : {"hierarchical", "hierarchical_multi_leader"}) {
    const AlgoInfo* algo = find_algorithm(CollKind::Allreduce, name);
    REQUIRE(algo);
    CollArgs a;
    a.kind = CollKind::Allreduce;
    a.size = 1024 * 64;
    a.count = 128;
    std::vector<int> map(static_cast<std::size_t>(a.size));
    for (int r = 0; r < a.size; ++r) map[static_cast<std::size_t>(r)] = r / 64;
    set_node_map(a, map);
    for (std::size_t slot : {std::size_t{0}, std::size_t{1} << 16}) {
      a.shm_slot_bytes = slot;
      INFO(name << (slot ? ", node windows" : ""));
      CHECK(run_case(*algo, a, kSum).empty());
    }
  }
}
