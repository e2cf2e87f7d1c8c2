// Allreduce, hierarchical: three stages over the node map (hierarchy.h).
//   1. inside each node: the vector reduced to the node's leader (its lowest
//      rank), through the node's shared window where the communicator has node
//      windows (the shared-window reduce: every local rank reduces a L-th of each
//      chunk from every slot, the leader copies the result out), else a binomial
//      reduce over the shared-memory link;
//   2. among the leaders, one per node: the cheapest flat allreduce of the catalog
//      for N ranks over the network (the ring for large vectors: each node then
//      sends 2(N-1)/N·n bytes across the network, however many ranks it runs);
//   3. inside each node: the leader's result to every local rank, through the
//      window (the shared-window bcast) or a binomial broadcast.
//
//   2 nodes x 3 ranks (node_of 0 0 0 1 1 1), without node windows:
//     1: 1->0, 2->0 | 4->3, 5->3     2: 0 <-> 3     3: 0->1, 0->2 | 3->4, 3->5
//   with them, stage 1 and 3 are syncs of each node's ranks and copies:
//     1: [in->slot] sync [reduce a third] sync [leader: result out]
//     3: [leader: result->area] sync [area->out]
//
// Cost: with node windows, shm_reduce(L, n) + shm_bcast(L, n) + inter(N, n) (the
// shared-window algorithms' estimates among L ranks), else
// 2·⌈lg L⌉·(α_s + n·β_s) + ⌈lg L⌉·n·γ + inter(N, n), L = the most ranks on
// one node, α_s/β_s the shared-memory link, inter(N, n) the estimate of the flat
// algorithm stage 2 runs.
// Restrictions: ranks on several nodes with the node map known; commutative ops
// only (the node partials are combined in node order, not rank order).
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::known(a) && a.commutative; }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t bytes = a.count * a.elem_size;
  if (bytes == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int local_size = static_cast<int>(mine.size());
  const bool window = hier::windowed_reduction(a) && local_size > 1;
  if (window) {
    Schedule in_node;
    CHORUS_TRY(red::build_shm_reduce(hier::node_args(a, CollKind::Allreduce, l.local, local_size, a.count), in_node, 0));
    hier::append(s, in_node, mine, 0, a.in_place ? kRecv : kSend);
  } else {
    Schedule in_node;
    red::add_binomial_reduce(in_node, l.local, 0, local_size, red::input(a), red::at(kRecv, 0), red::at(kTmp0, 0),
                             bytes);
    hier::append(s, in_node, mine, 0);
  }
  if (l.local == 0) {
    const int nodes = static_cast<int>(l.members().size());
    const CollArgs stage = hier::stage_args(a, CollKind::Allreduce, l.node, nodes, a.count, true);
    CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, 0), 0));
  }
  if (window) {
    CHORUS_TRY(hier::add_window_stage(s, hier::node_args(a, CollKind::Bcast, l.local, local_size, a.count), mine));
  } else {
    Schedule out_node;
    red::add_binomial_bcast(out_node, l.local, 0, local_size, red::at(kRecv, 0), bytes);
    hier::append(s, out_node, mine, 0);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const int per_node = std::max(1, a.shape.ranks_per_node);
  double inter = 0;
  hier::best_flat(hier::stage_args(a, CollKind::Allreduce, 0, a.shape.nodes, a.count, true), m, &inter);
  if (hier::windowed_reduction(a) && per_node > 1)
    return red::cost_shm_reduce(hier::node_args(a, CollKind::Allreduce, 0, per_node, a.count), m) +
           hier::window_cost(hier::node_args(a, CollKind::Bcast, 0, per_node, a.count), m) + inter;
  const red::Abg c = red::abg(hier::stage_args(a, CollKind::Allreduce, 0, per_node, a.count, false), m);
  const double n = static_cast<double>(a.count * a.elem_size), lg = pat::ceil_log2(per_node);
  return 2 * lg * (c.alpha + n * c.beta) + lg * n * c.gamma + inter;
}

}  // namespace

extern const AlgoInfo allreduce_hierarchical = {
    "hierarchical", CollKind::Allreduce, build, supports, cost,
    "node windows: shm_reduce(L, n) + shm_bcast(L, n) + inter(N, n); else 2·⌈lg L⌉·(α_s + n·β_s) + ⌈lg L⌉·n·γ + "
    "inter(N, n); L ranks per node, N nodes",
    "ranks on several nodes; commutative ops only",
    "reduce to each node's leader (through the node's shared window where there is one), the best flat allreduce "
    "among the leaders, broadcast in each node"};

}  // namespace chorus::coll
