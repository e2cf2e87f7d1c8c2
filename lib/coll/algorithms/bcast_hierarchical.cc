// Broadcast, hierarchical: two stages over the node map (hierarchy.h).
//   1. among the node roots, one per node (the root itself on its node, the
//      lowest rank elsewhere): the cheapest flat broadcast of the catalog for N
//      ranks over the network, from the root's node;
//   2. inside each node: from its node root through the node's shared window
//      where the communicator has node windows (the shared-window bcast), else a
//      binomial broadcast over the shared-memory link.
// Each node receives the message across the network once, however many ranks it runs.
//
//   2 nodes x 3 ranks, root 4 (node_of 0 0 0 1 1 1):
//     1: 4 -> 0        2: 0->1, 0->2 | 4->3, 4->5
//
// Cost: inter(N, n) + shm_bcast(L, n) with node windows, else
// inter(N, n) + ⌈lg L⌉·(α_s + n·β_s), L = the most ranks on one node,
// inter(N, n) the estimate of the flat broadcast stage 1 runs.
// Restrictions: ranks on several nodes with the node map known.
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::known(a); }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t bytes = a.count * a.elem_size;
  if (bytes == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const int root_node = (*a.shape.node_of)[static_cast<std::size_t>(a.root)];
  const std::vector<int> roots = hier::node_roots(l, a.root, root_node);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int my_root = roots[static_cast<std::size_t>(l.node)];
  if (a.rank == my_root) {
    CollArgs stage = hier::stage_args(a, CollKind::Bcast, l.node, static_cast<int>(roots.size()), a.count, true);
    stage.root = root_node;
    CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), roots, 0));
  }
  const int local_root = l.groups->local[static_cast<std::size_t>(my_root)];
  const int local_size = static_cast<int>(mine.size());
  if (hier::windowed(a) && local_size > 1) {
    CollArgs stage = hier::node_args(a, CollKind::Bcast, l.local, local_size, a.count);
    stage.root = local_root;
    CHORUS_TRY(hier::add_window_stage(s, stage, mine));
  } else {
    Schedule in_node;
    red::add_binomial_bcast(in_node, l.local, local_root, local_size, red::at(kRecv, 0), bytes);
    hier::append(s, in_node, mine, 0);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const int per_node = std::max(1, a.shape.ranks_per_node);
  const CollArgs in_node = hier::stage_args(a, CollKind::Bcast, 0, per_node, a.count, false);
  const double n = static_cast<double>(a.count * a.elem_size);
  double inter = 0;
  hier::best_flat(hier::stage_args(a, CollKind::Bcast, 0, a.shape.nodes, a.count, true), m, &inter);
  if (hier::windowed(a)) return hier::window_cost(hier::node_args(a, CollKind::Bcast, 0, per_node, a.count), m) + inter;
  return pat::ceil_log2(per_node) * (pat::alpha(in_node, m) + n * pat::beta(in_node, m)) + inter;
}

}  // namespace

extern const AlgoInfo bcast_hierarchical = {
    "hierarchical", CollKind::Bcast, build, supports, cost,
    "inter(N, n) + shm_bcast(L, n) with node windows, else inter(N, n) + ⌈lg L⌉·(α_s + n·β_s); L ranks per node, "
    "N nodes",
    "ranks on several nodes",
    "the best flat broadcast among one rank per node, then in each node through its shared window (else a "
    "binomial tree)"};

}  // namespace chorus::coll
