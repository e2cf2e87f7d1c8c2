// Barrier, hierarchical: three stages over the node map (hierarchy.h).
//   1. inside each node: every rank signals the node's leader (its lowest rank);
//   2. among the leaders, one per node: the cheapest flat barrier of the catalog
//      (dissemination: ⌈lg N⌉ rounds across the network instead of ⌈lg p⌉);
//   3. inside each node: the leader signals every rank.
// With node windows (hierarchy.h, windowed), stages 1 and 3 are each a sync of
// the node's ranks in its shared window instead (the shared-window barrier): the
// second one holds every rank until its leader has passed stage 2.
// Messages carry no bytes: they are built with Schedule::send/recv directly (the
// pat:: helpers drop empty transfers, which left the node stages empty: every rank
// but the leaders left at once, and a leader waited only for the other leaders).
//
// Cost: 2·σ + inter(N) with node windows, else 2·α_s + inter(N); inter the flat
// barrier among the leaders.
// Restrictions: ranks on several nodes with the node map known.
#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::known(a); }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int leader = mine[0];
  const CollArgs stage = hier::stage_args(a, CollKind::Barrier, l.node, static_cast<int>(l.members().size()), 0, true);
  if (hier::windowed(a) && mine.size() > 1) {
    const CollArgs node = hier::node_args(a, CollKind::Barrier, l.local, static_cast<int>(mine.size()), 0);
    CHORUS_TRY(hier::add_window_stage(s, node, mine));
    if (a.rank == leader) CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, 0), 0));
    return hier::add_window_stage(s, node, mine);
  }
  auto token_to = [](Round& r, int peer) { r.steps.push_back(Schedule::send(peer, pat::at(kRecv, 0), 0)); };
  auto token_from = [](Round& r, int peer) { r.steps.push_back(Schedule::recv(peer, pat::at(kRecv, 0), 0)); };
  if (a.rank != leader) {
    token_to(s.round(), leader);
    token_from(s.round(), leader);
    return Status::Ok;
  }
  Round& in = s.round();
  for (std::size_t k = 1; k < mine.size(); ++k) token_from(in, mine[k]);
  CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, 0), 0));
  Round& out = s.round();
  for (std::size_t k = 1; k < mine.size(); ++k) token_to(out, mine[k]);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const CollArgs in_node = hier::stage_args(a, CollKind::Barrier, 0, std::max(1, a.shape.ranks_per_node), 0, false);
  double inter = 0;
  hier::best_flat(hier::stage_args(a, CollKind::Barrier, 0, a.shape.nodes, 0, true), m, &inter);
  if (hier::windowed(a))
    return 2 * hier::window_cost(hier::node_args(a, CollKind::Barrier, 0, std::max(1, a.shape.ranks_per_node), 0), m) +
           inter;
  return (a.shape.ranks_per_node > 1 ? 2 * pat::alpha(in_node, m) : 0.0) + inter;
}

}  // namespace

extern const AlgoInfo barrier_hierarchical = {
    "hierarchical", CollKind::Barrier, build, supports, cost,
    "2·σ + inter(N) with node windows, else 2·α_s + inter(N); N nodes",
    "ranks on several nodes",
    "signal each node's leader (a sync in the node's shared window where there is one), the best flat barrier "
    "among the leaders, the leaders signal back"};

}  // namespace chorus::coll
