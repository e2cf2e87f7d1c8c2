// Reduce, hierarchical: two stages over the node map (hierarchy.h).
//   1. inside each node: reduce towards the node root (the root itself on its
//      node, the lowest rank elsewhere), through the node's shared window where
//      the communicator has node windows (the shared-window reduce), else a
//      binomial reduce over the shared-memory link;
//   2. among the node roots, one per node: the cheapest flat reduce of the
//      catalog towards the root, each node root's input its node's partial.
// Each node sends one vector across the network (the root's node none, with a
// binomial tree among the node roots), however many ranks it runs.
//
//   2 nodes x 3 ranks, root 4 (node_of 0 0 0 1 1 1):
//     1: 1->0, 2->0 | 3->4, 5->4     2: 0 -> 4
//
// Node partials live in kTmp3 (the flat reduce algorithms never use it); the
// stage's kSend is that partial on every node root but the root, whose input is
// its kRecv (in place).
// Cost: shm_reduce(L, n) + inter(N, n) with node windows, else
// ⌈lg L⌉·(α_s + n·β_s + n·γ) + inter(N, n), L ranks per node, inter the flat
// reduce among the node roots.
// Restrictions: ranks on several nodes with the node map known; commutative ops
// only (partials are combined in node order, not rank order).
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::known(a) && a.commutative; }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t n = a.count * a.elem_size;
  if (n == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const int root_node = (*a.shape.node_of)[static_cast<std::size_t>(a.root)];
  const std::vector<int> roots = hier::node_roots(l, a.root, root_node);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int my_root = roots[static_cast<std::size_t>(l.node)];
  const bool is_root = a.rank == a.root;
  // 1. The node's partial at its node root (kRecv at the root, kTmp3 elsewhere).
  const BufRef in = red::at(a.in_place && is_root ? kRecv : kSend, 0);
  const BufRef acc = red::at(is_root ? kRecv : kTmp3, 0);
  const int local_root = l.groups->local[static_cast<std::size_t>(my_root)];
  const int local_size = static_cast<int>(mine.size());
  if (hier::windowed_reduction(a) && local_size > 1) {
    CollArgs stage = hier::node_args(a, CollKind::Reduce, l.local, local_size, a.count);
    stage.root = local_root;
    stage.in_place = a.in_place && is_root;  // the root's input in its kRecv
    Schedule in_node;
    CHORUS_TRY(red::build_shm_reduce(stage, in_node, local_root));
    hier::append(s, in_node, mine, 0, kSend, is_root ? kRecv : kTmp3);  // the result: acc, at the node root
    if (a.rank == my_root && !is_root) s.need_tmp(kTmp3, n);
  } else {
    Schedule in_node;
    red::add_binomial_reduce(in_node, l.local, local_root, local_size, in, acc, red::at(kTmp1, 0), n);
    red::need(in_node, acc, n);  // a node root without children only copies its input there
    hier::append(s, in_node, mine, 0);
  }
  // 2. The partials to the root.
  if (a.rank == my_root) {
    CollArgs stage = hier::stage_args(a, CollKind::Reduce, l.node, static_cast<int>(roots.size()), a.count, true);
    stage.root = root_node;
    stage.in_place = is_root;
    CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), roots, 0, kTmp3));
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const int per_node = std::max(1, a.shape.ranks_per_node);
  const red::Abg c = red::abg(hier::stage_args(a, CollKind::Reduce, 0, per_node, a.count, false), m);
  const double n = static_cast<double>(a.count * a.elem_size), lg = pat::ceil_log2(per_node);
  double inter = 0;
  hier::best_flat(hier::stage_args(a, CollKind::Reduce, 0, a.shape.nodes, a.count, true), m, &inter);
  if (hier::windowed_reduction(a) && per_node > 1)
    return red::cost_shm_reduce(hier::node_args(a, CollKind::Reduce, 0, per_node, a.count), m) + inter;
  return lg * (c.alpha + n * c.beta + n * c.gamma) + inter;
}

}  // namespace

extern const AlgoInfo reduce_hierarchical = {
    "hierarchical", CollKind::Reduce, build, supports, cost,
    "shm_reduce(L, n) + inter(N, n) with node windows, else ⌈lg L⌉·(α_s + n·β_s + n·γ) + inter(N, n); L ranks "
    "per node, N nodes",
    "ranks on several nodes; commutative ops only",
    "reduce to a root in each node (through the node's shared window where there is one), then the best flat "
    "reduce among them to the root"};

}  // namespace chorus::coll
