// Allgather, hierarchical: three stages over the node map (hierarchy.h), for
// communicators whose nodes hold consecutive ranks (the usual block placement).
//   1. inside each node: every rank sends its block to the node's leader (its
//      lowest rank), which lays them out at their places in the result;
//   2. among the leaders, one per node: the cheapest flat allgatherv of the
//      catalog, each leader contributing its node's blocks (one span, as the
//      node's ranks are consecutive);
//   3. inside each node: binomial broadcast of the whole result from the leader.
// Each node sends its own blocks across the network and receives the others',
// (N-1)/N of the result with the ring, however many ranks it runs.
//
//   2 nodes x 2 ranks:  1: 1->0 | 3->2    2: 0 <-> 2 (blocks 0-1, 2-3)
//                       3: 0->1 | 2->3 (all four blocks)
//
// Cost: (L-1)·(α_s + b·β_s) + inter(N, p·b) + ⌈lg L⌉·(α_s + p·b·β_s), b bytes per
// block, L the most ranks on one node, inter the flat allgatherv among leaders.
// Restrictions: ranks on several nodes with the node map known; each node's ranks
// consecutive in rank order.
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::consecutive(a); }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t b = a.count * a.elem_size;
  if (b == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int leader = mine[0];
  const std::size_t my_at = static_cast<std::size_t>(a.rank) * b;
  // 1. Blocks to the leader.
  if (a.rank != leader) {
    pat::send(s.round(), leader, a.in_place ? pat::at(kRecv, my_at) : pat::at(kSend, 0), b);
  } else {
    Round& r = s.round();
    if (!a.in_place) pat::copy(r, pat::at(kSend, 0), pat::at(kRecv, my_at), b);
    for (std::size_t k = 1; k < mine.size(); ++k)
      pat::recv(r, mine[k], pat::at(kRecv, static_cast<std::size_t>(mine[k]) * b), b);
    // 2. Each node's span among the leaders.
    const int nodes = static_cast<int>(l.members().size());
    CollArgs stage = hier::stage_args(a, CollKind::Allgatherv, l.node, nodes, a.count, true);
    for (const std::vector<int>& m : l.members()) {
      stage.counts.push_back(m.size() * a.count);
      stage.displs.push_back(static_cast<std::size_t>(m[0]) * a.count);
    }
    CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, 0), 0));
  }
  // 3. The whole result in the node.
  Schedule out_node;
  red::add_binomial_bcast(out_node, l.local, 0, static_cast<int>(mine.size()), red::at(kRecv, 0),
                          static_cast<std::size_t>(a.size) * b);
  hier::append(s, out_node, mine, 0);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const int per_node = std::max(1, a.shape.ranks_per_node);
  const CollArgs in_node = hier::stage_args(a, CollKind::Bcast, 0, per_node, a.count, false);
  const double b = static_cast<double>(a.count * a.elem_size), all = b * a.size;
  const double as = pat::alpha(in_node, m), bs = pat::beta(in_node, m);
  // The leaders' stage as an even allgather of a node's share (the estimate the
  // catalog's allgatherv algorithms would give an even layout).
  double inter = 0;
  const std::size_t share = a.count * static_cast<std::size_t>(per_node);
  hier::best_flat(hier::stage_args(a, CollKind::Allgather, 0, a.shape.nodes, share, true), m, &inter);
  return (per_node - 1) * (as + b * bs) + inter + pat::ceil_log2(per_node) * (as + all * bs);
}

}  // namespace

extern const AlgoInfo allgather_hierarchical = {
    "hierarchical", CollKind::Allgather, build, supports, cost,
    "(L-1)·(α_s + b·β_s) + inter(N, L·b) + ⌈lg L⌉·(α_s + p·b·β_s), L ranks per node, N nodes",
    "ranks on several nodes, each node's ranks consecutive",
    "blocks to each node's leader, the best flat allgatherv among the leaders, broadcast in each node"};

}  // namespace chorus::coll
