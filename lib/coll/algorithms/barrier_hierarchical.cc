// Barrier, hierarchical: three stages over the node map (hierarchy.h).
//   1. inside each node: every rank signals the node's leader (its lowest rank);
//   2. among the leaders, one per node: the cheapest flat barrier of the catalog
//      (dissemination: ⌈lg N⌉ rounds across the network instead of ⌈lg p⌉);
//   3. inside each node: the leader signals every rank.
// Messages carry no bytes: they are built with Schedule::send/recv directly (the
// pat:: helpers drop empty transfers, which left the node stages empty: every rank
// but the leaders left at once, and a leader waited only for the other leaders).
//
// Cost: 2·α_s + inter(N), inter the flat barrier among the leaders.
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
  auto token_to = [](Round& r, int peer) { r.steps.push_back(Schedule::send(peer, pat::at(kRecv, 0), 0)); };
  auto token_from = [](Round& r, int peer) { r.steps.push_back(Schedule::recv(peer, pat::at(kRecv, 0), 0)); };
  if (a.rank != leader) {
    token_to(s.round(), leader);
    token_from(s.round(), leader);
    return Status::Ok;
  }
  Round& in = s.round();
  for (std::size_t k = 1; k < mine.size(); ++k) token_from(in, mine[k]);
  const CollArgs stage = hier::stage_args(a, CollKind::Barrier, l.node, static_cast<int>(l.members().size()), 0, true);
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
  return (a.shape.ranks_per_node > 1 ? 2 * pat::alpha(in_node, m) : 0.0) + inter;
}

}  // namespace

extern const AlgoInfo barrier_hierarchical = {
    "hierarchical", CollKind::Barrier, build, supports, cost,
    "2·α_s + inter(N), N nodes",
    "ranks on several nodes",
    "signal each node's leader, the best flat barrier among the leaders, the leaders signal back"};

}  // namespace chorus::coll
