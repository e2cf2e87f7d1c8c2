// Allreduce, hierarchical with every rank a leader (hierarchy.h): each of a node's
// L ranks owns 1/L of the vector and runs the network stage for it on its own, so
// every rank (and every NIC queue) works in it, as MPICH's multi-leader and Open
// MPI's HAN allreduce do.
//   1. inside each node: rank l gets the node's sum of block l;
//   2. the ranks with local index l on every node (one per node): the cheapest flat
//      allreduce of the catalog for N ranks on block l, over the network;
//   3. inside each node: every rank gets every block.
// Blocks: block l is [part_first(n, L, l), part_first(n, L, l + 1)).
//
// By messages, stages 1 and 3 are one round each: rank l sends block j of its
// input to local rank j and reduces the blocks l it receives; then it sends block
// l to every local rank.
//
//   2 nodes x 2 ranks (node_of 0 0 1 1), blocks b0 b1:
//     1: 0 gets b0 of 1, 1 gets b1 of 0 (same on 2, 3)   2: 0 <-> 2 on b0, 1 <-> 3 on b1
//     3: 0 sends b0 to 1, 1 sends b1 to 0 (same on 2, 3)
//
// Through the node's shared window (node windows, and half a slot holds a piece of
// at least one element of each block), in rounds of one sync each, each rank's
// slot split in two halves used in turn:
//   1. round c: every rank puts piece c of each block (P1 = S/2/L bytes, whole
//      elements) into its half c % 2, then, after a sync, rank l reduces piece c of
//      block l over the L slots into its output while putting in piece c + 1;
//   3. round c: rank l puts piece c of its block (P3 = S/2 bytes) into a half,
//      and after a sync every rank copies the other ranks' pieces c out.
// A half is written again two rounds after it was filled: every peer Signalled in
// between, having read it. Stage 3 goes on alternating where stage 1 stopped,
// so its first piece goes in without a sync of its own.
//
// Cost by messages: 2·(L-1)·α_s + 2·(L-1)/L·n·β_s + (L-1)/L·n·γ + inter(N, n/L)
// (L·inter(N, n/L) where the node's ranks share cores: the stages take turns);
// through the window: (R1 + R3)·σ + (2 + 1/L)·n·δ + (L-1)/L·n·γ + inter(N, n/L),
// R1 = ⌈(n/L)/P1⌉ and R3 = ⌈(n/L)/P3⌉ syncs.
// Restrictions: ranks on several nodes, the same number on each (at least 2), the
// node map known; commutative ops only.
#include <cmath>
#include <functional>

#include "coll/algorithms/hierarchy.h"
#include "coll/select.h"
#include "coll/shm.h"

namespace chorus::coll {
namespace {

// Stages 1 and 3 go through the node window: there is one, and half a slot holds
// a piece of at least one element of each of the L blocks.
bool window_stages(const CollArgs& a, std::size_t L) {
  return hier::windowed_reduction(a) && a.shm_slot_bytes / 2 / L >= a.elem_size;
}

// Stages 1 and 3 through the window (see the top), appended to `s` for this
// rank's node (`mine`, L ranks; this one local `me`) around the network stage,
// which `network` appends.
Status build_windowed(const CollArgs& a, const std::vector<int>& mine, std::size_t me, Schedule& s,
                      const std::function<Status(Schedule&)>& network) {
  const std::size_t es = a.elem_size, count = a.count, L = mine.size(), slot = a.shm_slot_bytes;
  const std::size_t half = slot / 2;
  const auto first = [&](std::size_t b) { return pat::part_first(count, L, b) * es; };  // bytes
  const std::size_t largest = first(1) - first(0);
  // Piece c of block b in pieces of `p` bytes: its offset in the vector and length.
  const auto piece = [&](std::size_t b, std::size_t c, std::size_t p) {
    const std::size_t lo = std::min(first(b) + c * p, first(b + 1));
    return std::pair<std::size_t, std::size_t>{lo, std::min(p, first(b + 1) - lo)};
  };
  const auto in_half = [&](std::size_t q, std::size_t h, std::size_t off) {
    return BufRef{kShm, ShmWindow::slot_offset(q, slot) + (h % 2) * half + off};
  };
  const std::size_t p1 = half / L / es * es, r1 = (largest + p1 - 1) / p1;
  const std::size_t p3 = half / es * es, r3 = (largest + p3 - 1) / p3;
  Schedule in_node;  // stage 1, in the node's numbering (Waits)
  in_node.shm_bytes = ShmWindow::gen_bytes(static_cast<int>(L), slot);
  const auto put_pieces = [&](Round& r, std::size_t c) {
    for (std::size_t b = 0; b < L; ++b)
      if (auto [off, len] = piece(b, c, p1); len)
        r.steps.push_back(Schedule::copy(red::input(a, off), in_half(me, c, b * p1), len));
  };
  put_pieces(in_node.round(), 0);
  for (std::size_t c = 0; c < r1; ++c) {
    Round& r = in_node.round();
    pat::sync_all(r, static_cast<int>(me), static_cast<int>(L));
    if (auto [off, len] = piece(me, c, p1); len) {
      r.steps.push_back(Schedule::copy(in_half(L - 1, c, me * p1), red::at(kRecv, off), len));
      for (std::size_t q = L - 1; q-- > 0;)
        r.steps.push_back(Schedule::reduce_left(in_half(q, c, me * p1), red::at(kRecv, off), len));
    }
    if (c + 1 < r1) put_pieces(r, c + 1);
  }
  hier::append(s, in_node, mine, 0);
  CHORUS_TRY(network(s));
  Schedule out;  // stage 3; its round c uses half r1 + c
  out.shm_bytes = in_node.shm_bytes;
  const auto put_mine = [&](Round& r, std::size_t c) {
    if (auto [off, len] = piece(me, c, p3); len)
      r.steps.push_back(Schedule::copy(red::at(kRecv, off), in_half(me, r1 + c, 0), len));
  };
  put_mine(out.round(), 0);
  for (std::size_t c = 0; c < r3; ++c) {
    Round& r = out.round();
    pat::sync_all(r, static_cast<int>(me), static_cast<int>(L));
    for (std::size_t q = 0; q < L; ++q)
      if (auto [off, len] = piece(q, c, p3); q != me && len)
        r.steps.push_back(Schedule::copy(in_half(q, r1 + c, 0), red::at(kRecv, off), len));
    if (c + 1 < r3) put_mine(r, c + 1);
  }
  hier::append(s, out, mine, 0);
  return Status::Ok;
}

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
  const CollArgs stage =
      hier::stage_args(a, CollKind::Allreduce, l.node, static_cast<int>(l.members().size()), my_len, true);
  const auto network = [&](Schedule& into) {
    return hier::add_stage(into, stage, default_cost_model(), hier::column(l, l.local), my_lo * es);
  };
  if (window_stages(a, L)) {
    CHORUS_TRY(build_windowed(a, mine, me, s, network));
    pat::drop_empty_rounds(s);
    return Status::Ok;
  }

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
  CHORUS_TRY(network(s));

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
  // The L stages run at once on a node's cores; where its ranks share cores they
  // take turns, and the node's stages cost L times one.
  if (a.shape.cores_shared) inter *= L;
  if (window_stages(a, static_cast<std::size_t>(per_node))) {
    const CollArgs node = hier::node_args(a, CollKind::Allreduce, 0, per_node, a.count);
    const double es = static_cast<double>(a.elem_size), half = static_cast<double>(a.shm_slot_bytes / 2);
    const double p1 = std::floor(half / L / es) * es, p3 = std::floor(half / es) * es;
    const double b = static_cast<double>(block) * es;
    const double syncs = std::ceil(b / p1) + std::ceil(b / p3);
    return syncs * m.sync(node.shape) + (2 + 1 / L) * n * m.shm_copy(node.shape) + (L - 1) / L * n * c.gamma + inter;
  }
  return 2 * (L - 1) * c.alpha + 2 * (L - 1) / L * n * c.beta + (L - 1) / L * n * c.gamma + inter;
}

}  // namespace

extern const AlgoInfo allreduce_hierarchical_multi_leader = {
    "hierarchical_multi_leader", CollKind::Allreduce, build, supports, cost,
    "2·(L-1)·α_s + 2(L-1)/L·n·β_s + (L-1)/L·n·γ + inter(N, n/L); with node windows (R1 + R3)·σ + (2 + 1/L)·n·δ + "
    "(L-1)/L·n·γ + inter(N, n/L), R1 = ⌈(n/L)/(S/2L)⌉, R3 = ⌈(n/L)/(S/2)⌉; L ranks per node, N nodes; "
    "L·inter(N, n/L) where they share cores",
    "ranks on several nodes, as many on each (at least 2); commutative ops only",
    "each local rank reduces 1/L of the vector in its node (through the node's shared window where there is "
    "one), allreduces it among its peers of the other nodes, and shares it in its node"};

}  // namespace chorus::coll
