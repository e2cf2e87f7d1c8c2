// Reduce_scatter, hierarchical (also reduce_scatter_block_hierarchical.cc): three
// stages over the node map (hierarchy.h), for nodes of consecutive ranks.
//   1. inside each node: binomial reduce of the whole input to the node's leader
//      (its lowest rank), over the shared-memory link;
//   2. among the leaders, one per node: the cheapest flat reduce_scatter of the
//      catalog, node k's block being the span of its ranks' blocks;
//   3. inside each node: the leader sends each rank its block.
// Each node sends (N-1)/N of the vector across the network with the ring, however
// many ranks it runs.
//
//   2 nodes x 2 ranks:  1: 1->0 | 3->2 (whole vectors)   2: 0 <-> 2 (spans 0-1, 2-3)
//                       3: 0->1 | 2->3 (one block each)
//
// Where the communicator has node windows (hierarchy.h, windowed), stages 1 and 3
// go through the node's window: the shared-window reduce of the vector to the
// leader, and the leader's span out in chunks of the slot (area k % 2, as the
// shared-window bcast does), each rank copying its block's part of each chunk.
//
// kTmp3 holds the node's partial (the whole vector, T bytes) and after it the
// leaders' stage result (the node's span): the flat stage's kSend and kRecv map
// there (hier::append), as a leader's own kRecv holds one block only. The flat
// algorithms never use kTmp3.
// Cost: ⌈lg L⌉·(α_s + T·β_s + T·γ) + inter(N) + (L-1)·(α_s + b·β_s), T the vector's
// bytes, b a block's, L ranks per node, inter the flat stage; with node windows
// shm_reduce(L, T) + inter(N) + shm_bcast(L, L·b).
// Restrictions: ranks on several nodes with the node map known, each node's ranks
// consecutive; commutative ops only.
#include "coll/algorithms/hierarchy.h"
#include "coll/shm.h"
#include "coll/select.h"

namespace chorus::coll {
namespace red {

bool hierarchical_rs_supports(const CollArgs& a) { return a.commutative && hier::consecutive(a); }

namespace {

// Stage 3 through the node's window: the leader's span (kTmp3 from `total` on)
// in chunks of the slot S into result area k % 2, a sync of the node's ranks, each
// rank copies what of its block the chunk holds while the leader puts in the next.
void add_window_blocks_out(const CollArgs& a, const pat::Blocks& b, const hier::Layout& l, std::size_t total,
                           Schedule& s) {
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const auto size = mine.size();
  const std::size_t slot = a.shm_slot_bytes, base = b.off[static_cast<std::size_t>(mine[0])];
  std::size_t span = 0;
  for (int m : mine) span += b.len[static_cast<std::size_t>(m)];
  const bool leader = l.local == 0;
  const std::size_t lo = b.off[static_cast<std::size_t>(a.rank)] - base, len = b.len[static_cast<std::size_t>(a.rank)];
  auto area = [&](std::size_t k) { return BufRef{kShm, ShmWindow::area_offset(size, k % 2, slot)}; };
  Schedule sub;  // in the node's numbering (Waits)
  sub.shm_bytes = ShmWindow::gen_bytes(static_cast<int>(size), slot);
  Round& first = sub.round();
  if (leader) {
    if (len) first.steps.push_back(Schedule::copy(at(kTmp3, total + lo), at(kRecv, 0), len));
    if (span) first.steps.push_back(Schedule::copy(at(kTmp3, total), area(0), std::min(slot, span)));
  }
  for (std::size_t off = 0, k = 0; off < span; off += slot, ++k) {
    Round& r = sub.round();
    pat::sync_all(r, l.local, static_cast<int>(size));
    const std::size_t c = std::min(slot, span - off);
    if (!leader) {
      const std::size_t from = std::max(lo, off), to = std::min(lo + len, off + c);
      if (from < to)
        r.steps.push_back(Schedule::copy(BufRef{kShm, area(k).off + (from - off)}, at(kRecv, from - lo), to - from));
    } else if (off + slot < span) {
      r.steps.push_back(Schedule::copy(at(kTmp3, total + off + slot), area(k + 1), std::min(slot, span - off - slot)));
    }
  }
  hier::append(s, sub, mine, 0);
}

}  // namespace

Status build_reduce_scatter_hierarchical(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (!hierarchical_rs_supports(a)) return Status::Internal;
  pat::Blocks b;
  CHORUS_TRY(input_blocks(a, b));
  const std::size_t total = b.total();
  if (total == 0) return Status::Ok;
  const hier::Layout l = hier::layout(a);
  const std::vector<int>& mine = l.members()[static_cast<std::size_t>(l.node)];
  const int leader = mine[0];
  const BufRef in = at(a.in_place ? kRecv : kSend, 0);
  const int local_size = static_cast<int>(mine.size());
  const bool window = hier::windowed_reduction(a) && local_size > 1;
  // 1. The node's partial at its leader.
  Schedule in_node;
  if (window) {
    CHORUS_TRY(build_shm_reduce(hier::node_args(a, CollKind::Reduce, l.local, local_size, total / a.elem_size),
                                in_node, 0));
    hier::append(s, in_node, mine, 0, in.buf == kRecv ? kRecv : kSend, kTmp3);  // the partial: kTmp3 at 0
  } else {
    add_binomial_reduce(in_node, l.local, 0, local_size, in, at(kTmp3, 0), at(kTmp1, 0), total);
    need(in_node, at(kTmp3, 0), total);
    hier::append(s, in_node, mine, 0);
  }
  const auto span_of = [&](const std::vector<int>& m) {  // elements of a node's blocks, and where they start
    std::size_t n = 0;
    for (int r : m) n += b.len[static_cast<std::size_t>(r)];
    return std::pair<std::size_t, std::size_t>{n / a.elem_size, b.off[static_cast<std::size_t>(m[0])]};
  };
  if (a.rank == leader) {
    // 2. Node spans among the leaders: input kTmp3 at 0, result kTmp3 after the vector.
    const int nodes = static_cast<int>(l.members().size());
    // (count: the vector's elements, so the stage is not taken for an empty one.)
    CollArgs stage = hier::stage_args(a, CollKind::ReduceScatter, l.node, nodes, total / a.elem_size, true);
    stage.in_place = false;
    std::size_t span_bytes = 0;
    for (const std::vector<int>& m : l.members()) {
      stage.counts.push_back(span_of(m).first);
      if (m[0] == leader) span_bytes = span_of(m).first * a.elem_size;
    }
    s.need_tmp(kTmp3, total + span_bytes);
    CHORUS_TRY(hier::add_stage(s, stage, default_cost_model(), hier::column(l, 0), total, kTmp3, kTmp3));
  }
  if (window) {
    add_window_blocks_out(a, b, l, total, s);
  } else if (a.rank == leader) {
    // 3. Each rank's block out of the span.
    Round& r = s.round();
    const std::size_t base = b.off[static_cast<std::size_t>(leader)];
    for (int m : mine) {
      const auto k = static_cast<std::size_t>(m);
      if (b.len[k] == 0) continue;
      const BufRef from = at(kTmp3, total + b.off[k] - base);
      if (m == leader) pat::copy(r, from, at(kRecv, 0), b.len[k]);
      else pat::send(r, m, from, b.len[k]);
    }
  } else if (b.len[static_cast<std::size_t>(a.rank)] > 0) {
    pat::recv(s.round(), leader, at(kRecv, 0), b.len[static_cast<std::size_t>(a.rank)]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_reduce_scatter_hierarchical(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (input_blocks(a, b) != Status::Ok) return 0;
  const int per_node = std::max(1, a.shape.ranks_per_node);
  const Abg c = abg(hier::stage_args(a, CollKind::Allreduce, 0, per_node, a.count, false), m);
  const double t = static_cast<double>(b.total()), blk = static_cast<double>(max_block(b));
  // The leaders' stage as an even reduce_scatter_block of a node's share.
  double inter = 0;
  const std::size_t share = static_cast<std::size_t>(blk) / std::max<std::size_t>(a.elem_size, 1) *
                            static_cast<std::size_t>(per_node);
  hier::best_flat(hier::stage_args(a, CollKind::ReduceScatterBlock, 0, a.shape.nodes, share, true), m, &inter);
  if (hier::windowed_reduction(a) && per_node > 1)
    return cost_shm_reduce(hier::node_args(a, CollKind::Reduce, 0, per_node, b.total() / a.elem_size), m) + inter +
           hier::window_cost(hier::node_args(a, CollKind::Bcast, 0, per_node, share), m);
  return pat::ceil_log2(per_node) * (c.alpha + t * c.beta + t * c.gamma) + inter +
         (per_node - 1) * (c.alpha + blk * c.beta);
}

}  // namespace red

extern const AlgoInfo reduce_scatter_hierarchical = {
    "hierarchical", CollKind::ReduceScatter, red::build_reduce_scatter_hierarchical,
    red::hierarchical_rs_supports, red::cost_reduce_scatter_hierarchical,
    "⌈lg L⌉·(α_s + T·β_s + T·γ) + inter(N) + (L-1)·(α_s + b·β_s); node windows: shm_reduce(L, T) + inter(N) + "
    "shm_bcast(L, L·b); L ranks per node, N nodes",
    "ranks on several nodes, each node's ranks consecutive; commutative ops only",
    "reduce to each node's leader, the best flat reduce_scatter of node spans among leaders, blocks out (through "
    "the node's shared window where there is one)"};

}  // namespace chorus::coll
