// Allreduce, hierarchical with every rank a leader (hierarchy.h): each of a node's
// L ranks owns 1/L of the vector and runs the network stage for it on its own, so
// every rank (and every NIC queue) works in it, as MPICH's multi-leader and Open
// MPI's HAN allreduce do.
//   1. inside each node, one round: rank l sends block j of its input to local rank
//      j and reduces the blocks l it receives: it holds the node's sum of block l;
//   2. the ranks with local index l on every node (one per node): the cheapest flat
//      allreduce of the catalog for N ranks on block l, over the network;
//   3. inside each node, one round: rank l sends block l to every local rank.
// Blocks: block l is [part_first(n, L, l), part_first(n, L, l + 1)).
//
//   2 nodes x 2 ranks (node_of 0 0 1 1), blocks b0 b1:
//     1: 0 gets b0 of 1, 1 gets b1 of 0 (same on 2, 3)   2: 0 <-> 2 on b0, 1 <-> 3 on b1
//     3: 0 sends b0 to 1, 1 sends b1 to 0 (same on 2, 3)
//
// Cost: 2·(L-1)·α_s + 2·(L-1)/L·n·β_s + (L-1)/L·n·γ + inter(N, n/L).
// Restrictions: ranks on several nodes, the same number on each (at least 2), the
// node map known; commutative ops only.
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) {
  if (!hier::known(a) || !a.commutative) return false;
  const hier::Layout l = hier::layout(a);
  return l.even() && l.members()[0].size() >= 2;
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t es = a.elem_size, count = a.count;
  if (count == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const auto L = mine.size();
  const auto me = static_cast<std::size_t>(l.local);
  const auto first = [&](std::size_t b) { return pat::part_first(count, L, b); };
  const std::size_t my_lo = first(me), my_len = first(me + 1) - my_lo;
  const std::size_t slot = first(1) - first(0);  // the largest block

  Round& rs = s.round();
  for (std::size_t k = 1; k < L; ++k) {
    const std::size_t to = (me + k) % L, from = (me + L - k) % L;
    pat::send(rs, mine[to], red::input(a, first(to) * es), (first(to + 1) - first(to)) * es);
    pat::recv(rs, mine[from], red::at(kTmp0, (k - 1) * slot * es), my_len * es);
  }
  pat::copy(rs, red::input(a, my_lo * es), red::at(kRecv, my_lo * es), my_len * es);
  for (std::size_t k = 1; k < L; ++k)
    red::combine(rs, red::at(kTmp0, (k - 1) * slot * es), red::at(kRecv, my_lo * es), my_len * es, false);
  s.need_tmp(kTmp0, (L - 1) * slot * es);

  const CollArgs stage =
      hier::stage_args(a, CollKind::Allreduce, l.node, static_cast<int>(l.members().size()), my_len, true);
  CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, l.local), my_lo * es));

  Round& ag = s.round();
  for (std::size_t k = 1; k < L; ++k) {
    const std::size_t to = (me + k) % L, from = (me + L - k) % L;
    pat::send(ag, mine[to], red::at(kRecv, my_lo * es), my_len * es);
    pat::recv(ag, mine[from], red::at(kRecv, first(from) * es), (first(from + 1) - first(from)) * es);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const int per_node = std::max(1, a.shape.ranks_per_node);
  const red::Abg c = red::abg(hier::stage_args(a, CollKind::Allreduce, 0, per_node, a.count, false), m);
  const double n = static_cast<double>(a.count * a.elem_size), L = per_node;
  double inter = 0;
  const std::size_t block = (a.count + static_cast<std::size_t>(per_node) - 1) / static_cast<std::size_t>(per_node);
  hier::best_flat(hier::stage_args(a, CollKind::Allreduce, 0, a.shape.nodes, block, true), m, &inter);
  return 2 * (L - 1) * c.alpha + 2 * (L - 1) / L * n * c.beta + (L - 1) / L * n * c.gamma + inter;
}

}  // namespace

extern const AlgoInfo allreduce_hierarchical_multi_leader = {
    "hierarchical_multi_leader", CollKind::Allreduce, build, supports, cost,
    "2·(L-1)·α_s + 2(L-1)/L·n·β_s + (L-1)/L·n·γ + inter(N, n/L), L ranks per node, N nodes",
    "ranks on several nodes, as many on each (at least 2); commutative ops only",
    "each local rank reduces 1/L of the vector in its node, allreduces it among its peers of the other nodes, "
    "and shares it in its node"};

}  // namespace chorus::coll
