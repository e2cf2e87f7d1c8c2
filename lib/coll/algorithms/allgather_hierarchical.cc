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
// Where the communicator has node windows (hierarchy.h, windowed), stages 1 and 3
// go through the node's window instead: each rank copies its block into its slot
// (in chunks of the slot), a sync of the node's ranks, the leader copies every
// slot to its place in the result (and a sync before the next chunk); then the
// shared-window bcast of the whole result.
//
//   2 nodes x 2 ranks:  1: 1->0 | 3->2    2: 0 <-> 2 (blocks 0-1, 2-3)
//                       3: 0->1 | 2->3 (all four blocks)
//
// Cost: (L-1)·(α_s + b·β_s) + inter(N, p·b) + ⌈lg L⌉·(α_s + p·b·β_s), b bytes per
// block, L the most ranks on one node, inter the flat allgatherv among leaders;
// with node windows shm_bcast(L, b) + inter(N, p·b) + shm_bcast(L, p·b) (the
// gather into the leader priced as a broadcast of one block).
// Restrictions: ranks on several nodes with the node map known; each node's ranks
// consecutive in rank order.
#include "coll/algorithms/hierarchy.h"
#include "coll/shm.h"
#include "coll/select.h"

namespace chorus::coll {
namespace {

bool supports(const CollArgs& a) { return hier::consecutive(a); }

// Stage 1 through the node's window: every block of the node to its place in the
// leader's kRecv, chunk by chunk (S = the slot): non-leaders copy a chunk into
// their slot | sync | the leader copies each slot out | sync | the next chunk.
void add_window_gather(const CollArgs& a, const hier::Layout& l, std::size_t b, Schedule& s) {
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const std::size_t slot = a.shm_slot_bytes, size = mine.size();
  const int local_size = static_cast<int>(size);
  const bool leader = l.local == 0;
  const BufRef mine_in = a.in_place ? pat::at(kRecv, static_cast<std::size_t>(a.rank) * b) : pat::at(kSend, 0);
  auto slot_at = [&](std::size_t q) { return BufRef{kShm, ShmWindow::slot_offset(q, slot)}; };
  Schedule sub;  // in the node's numbering (Waits), with the communicator's kRecv offsets
  sub.shm_bytes = ShmWindow::gen_bytes(local_size, slot);
  Round& first = sub.round();
  if (leader && !a.in_place) pat::copy(first, pat::at(kSend, 0), pat::at(kRecv, static_cast<std::size_t>(a.rank) * b), b);
  for (std::size_t off = 0; off < b; off += slot) {
    const std::size_t c = std::min(slot, b - off);
    Round& in = off == 0 ? first : sub.round();
    if (off != 0) pat::sync_all(in, l.local, local_size);
    if (!leader) in.steps.push_back(Schedule::copy(BufRef{mine_in.buf, mine_in.off + off}, slot_at(static_cast<std::size_t>(l.local)), c));
    Round& out = sub.round();
    pat::sync_all(out, l.local, local_size);
    if (leader)
      for (std::size_t q = 1; q < size; ++q)
        out.steps.push_back(Schedule::copy(slot_at(q), pat::at(kRecv, static_cast<std::size_t>(mine[q]) * b + off), c));
  }
  hier::append(s, sub, mine, 0);
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!supports(a)) return Status::Internal;
  const std::size_t b = a.count * a.elem_size;
  if (b == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int leader = mine[0];
  const std::size_t my_at = static_cast<std::size_t>(a.rank) * b;
  const bool window = hier::windowed(a) && mine.size() > 1;
  // 1. Blocks to the leader.
  if (window) {
    add_window_gather(a, l, b, s);
  } else if (a.rank != leader) {
    pat::send(s.round(), leader, a.in_place ? pat::at(kRecv, my_at) : pat::at(kSend, 0), b);
  } else {
    Round& r = s.round();
    if (!a.in_place) pat::copy(r, pat::at(kSend, 0), pat::at(kRecv, my_at), b);
    for (std::size_t k = 1; k < mine.size(); ++k)
      pat::recv(r, mine[k], pat::at(kRecv, static_cast<std::size_t>(mine[k]) * b), b);
  }
  if (a.rank == leader) {
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
  if (window) {
    CHORUS_TRY(hier::add_window_stage(
        s, hier::node_args(a, CollKind::Bcast, l.local, static_cast<int>(mine.size()), a.count * static_cast<std::size_t>(a.size)),
        mine));
  } else {
    Schedule out_node;
    red::add_binomial_bcast(out_node, l.local, 0, static_cast<int>(mine.size()), red::at(kRecv, 0),
                            static_cast<std::size_t>(a.size) * b);
    hier::append(s, out_node, mine, 0);
  }
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
  if (hier::windowed(a) && per_node > 1)
    return hier::window_cost(hier::node_args(a, CollKind::Bcast, 0, per_node, a.count), m) + inter +
           hier::window_cost(hier::node_args(a, CollKind::Bcast, 0, per_node, a.count * static_cast<std::size_t>(a.size)), m);
  return (per_node - 1) * (as + b * bs) + inter + pat::ceil_log2(per_node) * (as + all * bs);
}

}  // namespace

extern const AlgoInfo allgather_hierarchical = {
    "hierarchical", CollKind::Allgather, build, supports, cost,
    "(L-1)·(α_s + b·β_s) + inter(N, L·b) + ⌈lg L⌉·(α_s + p·b·β_s); node windows: shm_bcast(L, b) + inter(N, L·b) + "
    "shm_bcast(L, p·b); L ranks per node, N nodes",
    "ranks on several nodes, each node's ranks consecutive",
    "blocks to each node's leader, the best flat allgatherv among the leaders, broadcast in each node (through "
    "the node's shared window where there is one)"};

}  // namespace chorus::coll
