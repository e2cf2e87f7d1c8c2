// Allreduce, double binary tree (as in NCCL): two binary trees, each reducing one
// half of the vector up to its root and broadcasting it back down, pipelined in
// chunks. The trees are complementary: the leaves of one (odd ranks) are the inner
// nodes of the other, so every rank forwards about one half's worth of data.
//
// Tree 1 is the in-order binary tree over ranks: node v with lowest set bit b has
// children v - b/2 and v + b/2 (the latter shrunk to v + b/4, ... while it is ≥ p);
// rank 0 is the root, its one child is the largest power of two below p. Tree 2 is
// tree 1 mirrored (r -> p-1-r) for even p, shifted (r -> r+1 mod p) for odd p.
//
//   p = 8, tree 1:   0 ─ 4 ┬ 2 ┬ 1      tree 2 (mirror):  7 ─ 3 ┬ 5 ┬ 6
//                          │   └ 3                             │   └ 4
//                          └ 6 ┬ 5                             └ 1 ┬ 2
//                              └ 7                                 └ 0
//
// Pipelining: each half is cut into k chunks of args.chunk_bytes (whole elements;
// one chunk per half when 0). A node at depth d sends chunk c up at clock c - d and
// down at clock c + d, and receives from children (parent) one clock before, so
// chunks flow up and down the tree back to back; all steps of one clock form a round.
// In-order subtrees are contiguous rank ranges (mirrored ones too), so putting the
// lower child on the left keeps operand order; for non-commutative ops tree 2 is
// always the mirror (with odd p the trees then share their inner nodes).
//
// Cost: (2d + k - 1)·α + (2n + 4d·c)·β + n·γ, d = ⌈lg p⌉, c = chunk bytes: every
// rank moves about 2n bytes and the pipeline fills in 2d rounds. Logarithmic latency
// with near-ring bandwidth when pipelined: large messages on many ranks.
// Restrictions: none; operand order is preserved.
#include <map>

#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

int inorder_parent(int v, int p) {
  if (v == 0) return -1;
  const int b = pat::lowbit(v), up = (v ^ b) | (b << 1);
  return up < p ? up : v ^ b;
}

// A node of one tree, in communicator ranks.
struct Node {
  int parent = -1;
  int child[2] = {-1, -1};
  int depth = 0;
};

// Node of rank r in the in-order tree over tree ranks t = to_tree(r).
template <class To, class From>
Node tree_node(int r, int p, To to_tree, From from_tree) {
  const int v = to_tree(r);
  Node n;
  const int up = inorder_parent(v, p);
  n.parent = up < 0 ? -1 : from_tree(up);
  for (int u = up; u >= 0; u = inorder_parent(u, p)) ++n.depth;
  const int b = v == 0 ? 2 * pat::floor_pow2(p) : pat::lowbit(v);
  if (v > 0 && b > 1) n.child[0] = from_tree(v - b / 2);
  for (int d = b / 2; d >= 1; d /= 2) {
    if (v + d < p) {
      n.child[1] = from_tree(v + d);
      break;
    }
  }
  return n;
}

std::size_t chunk_elems(const CollArgs& a, std::size_t half) {
  if (a.chunk_bytes == 0) return std::max<std::size_t>(half, 1);
  return std::max<std::size_t>(1, a.chunk_bytes / a.elem_size);
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t count = a.count, es = a.elem_size;
  if (count == 0) return Status::Ok;
  const int p = a.size, r = a.rank;
  pat::copy(s.round(), red::input(a), red::at(kRecv, 0), count * es);
  if (p == 1) return Status::Ok;

  const bool mirror = p % 2 == 0 || !a.commutative;
  const Node nodes[2] = {
      tree_node(r, p, [](int x) { return x; }, [](int x) { return x; }),
      mirror ? tree_node(r, p, [p](int x) { return p - 1 - x; }, [p](int x) { return p - 1 - x; })
             : tree_node(r, p, [p](int x) { return pat::mod(x - 1, p); },
                         [p](int x) { return pat::mod(x + 1, p); })};
  const red::Range halves[2] = {{0, count / 2}, {count / 2, count}};
  const std::size_t chunk = chunk_elems(a, halves[1].len());

  // Rounds by clock; steps are added tree by tree, so two ranks that are linked in
  // both trees post their messages to each other in the same order.
  std::map<long, Round> clock;
  for (int t = 0; t < 2; ++t) {
    const Node& nd = nodes[t];
    const red::Range h = halves[t];
    const long d = nd.depth;
    for (std::size_t lo = h.lo, c = 0; lo < h.hi; lo += chunk, ++c) {
      const std::size_t bytes = (std::min(h.hi, lo + chunk) - lo) * es;
      const BufRef part = red::at(kRecv, lo * es);
      const long tc = static_cast<long>(c);
      for (int side = 0; side < 2; ++side) {
        if (nd.child[side] < 0) continue;
        const BufRef tmp = red::at(static_cast<BufId>(kTmp0 + 2 * t + side), 0);
        s.need_tmp(static_cast<BufId>(tmp.buf), bytes);
        Round& up = clock[tc - d - 1];
        pat::recv(up, nd.child[side], tmp, bytes);
        red::combine(up, tmp, part, bytes, nd.child[side] < r);
      }
      if (nd.parent >= 0) {
        pat::send(clock[tc - d], nd.parent, part, bytes);
        pat::recv(clock[tc + d - 1], nd.parent, part, bytes);
      }
      for (int side = 0; side < 2; ++side)
        if (nd.child[side] >= 0) pat::send(clock[tc + d], nd.child[side], part, bytes);
    }
  }
  for (auto& [t, round] : clock) s.rounds.push_back(std::move(round));
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const red::Abg c = red::abg(a, m);
  const double n = static_cast<double>(red::vector_bytes(a)), d = pat::ceil_log2(a.size);
  const std::size_t half = (a.count + 1) / 2, chunk = std::min(chunk_elems(a, half), std::max<std::size_t>(half, 1));
  const double k = half == 0 ? 1 : static_cast<double>((half - 1) / chunk + 1);
  const double cb = static_cast<double>(chunk * a.elem_size);
  return (2 * d + k - 1) * (c.alpha + m.protocol(a.shape, cb)) + (2 * n + 4 * d * cb) * c.beta + n * c.gamma;
}

}  // namespace

extern const AlgoInfo allreduce_double_binary_tree = {
    "double_binary_tree", CollKind::Allreduce, build, nullptr, cost,
    "(2d + k - 1)·α + (2n + 4d·c)·β + n·γ, d = ⌈lg p⌉, k chunks of c bytes per half",
    "none (keeps operand order; non-commutative ops with odd p use the mirror tree twice)",
    "two complementary binary trees, each reducing and broadcasting half, pipelined"};

}  // namespace chorus::coll
