// Neighbourhood collectives (allgather(v), alltoall(v); alltoallw as alltoallv on
// packed bytes), linear: all sends and receives in one round. Send block k goes to
// destinations[k], receive block k comes from sources[k]; an MPI_PROC_NULL
// neighbour (negative) moves nothing and leaves its receive block untouched.
// Messages to and from this rank itself (graph self-loops, periodic Cartesian
// dimensions of size 1) are local copies, paired in the order MPI matches them:
// the k-th send to a peer meets the k-th receive posted for it. On a Cartesian
// grid the receives of each (-1, +1) pair are posted swapped, so the block sent in
// one direction lands in the opposite direction's block (MPI-4.1 §8.6), also where
// both directions name one peer:
//
//   periodic ring of 2:   rank 0 sends  [to -1 = 1, to +1 = 1]
//                         rank 1 posts  [from +1 = 0 -> block 1, from -1 = 0 -> block 0]
//
// Cost: d·α + n·β, d = messages this rank sends (out-degree without MPI_PROC_NULL),
// n = bytes it sends in all.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

// Send blocks (per destination) and receive blocks (per source), in bytes.
Status neighbor_blocks(const CollArgs& a, pat::Blocks& sb, pat::Blocks& rb) {
  const std::size_t in = a.sources.size(), out = a.destinations.size();
  const std::size_t es = a.elem_size, blk = a.count * es;
  auto uniform = [](std::size_t n, std::size_t len, bool stride, pat::Blocks& b) {
    b.off.resize(n);
    b.len.assign(n, len);
    for (std::size_t k = 0; k < n; ++k) b.off[k] = stride ? k * len : 0;
  };
  switch (a.kind) {
    case CollKind::NeighborAllgather:
      uniform(out, blk, false, sb);
      uniform(in, blk, true, rb);
      return Status::Ok;
    case CollKind::NeighborAllgatherv:
      uniform(out, blk, false, sb);
      return pat::listed_blocks(static_cast<int>(in), a.counts, a.displs, es, rb);
    case CollKind::NeighborAlltoall:
      uniform(out, blk, true, sb);
      uniform(in, blk, true, rb);
      return Status::Ok;
    case CollKind::NeighborAlltoallv:
      CHORUS_TRY(pat::listed_blocks(static_cast<int>(out), a.send_counts, a.send_displs, es, sb));
      return pat::listed_blocks(static_cast<int>(in), a.counts, a.displs, es, rb);
    default:
      return Status::InvalidArg;
  }
}

// The order receives are posted in: list order, or each Cartesian pair swapped.
std::size_t recv_slot(const CollArgs& a, std::size_t i) { return a.cart_pairs ? i ^ 1u : i; }

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  if (a.in_place) return Status::InvalidArg;
  if (a.cart_pairs && (a.sources.size() % 2 != 0 || a.sources != a.destinations))
    return Status::InvalidTopology;
  pat::Blocks sb, rb;
  CHORUS_TRY(neighbor_blocks(a, sb, rb));
  for (int peer : a.sources)
    if (peer >= a.size) return Status::InvalidRank;
  for (int peer : a.destinations)
    if (peer >= a.size) return Status::InvalidRank;
  Round& rd = s.round();
  std::vector<std::size_t> self_send, self_recv;  // blocks, in matching order
  for (std::size_t k = 0; k < a.destinations.size(); ++k) {
    const int peer = a.destinations[k];
    if (peer < 0) continue;
    if (peer == a.rank) {
      self_send.push_back(k);
    } else {
      pat::send(rd, peer, pat::at(kSend, sb.off[k]), sb.len[k]);
    }
  }
  for (std::size_t i = 0; i < a.sources.size(); ++i) {
    const std::size_t k = recv_slot(a, i);
    const int peer = a.sources[k];
    if (peer < 0) continue;
    if (peer == a.rank) {
      self_recv.push_back(k);
    } else {
      pat::recv(rd, peer, pat::at(kRecv, rb.off[k]), rb.len[k]);
    }
  }
  // As many messages to itself as receives from itself, or the topology is broken.
  if (self_send.size() != self_recv.size()) return Status::InvalidTopology;
  for (std::size_t j = 0; j < self_send.size(); ++j) {
    const std::size_t from = self_send[j], to = self_recv[j];
    if (sb.len[from] > rb.len[to]) return Status::Truncate;
    pat::copy(rd, pat::at(kSend, sb.off[from]), pat::at(kRecv, rb.off[to]), sb.len[from]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  pat::Blocks sb, rb;
  if (neighbor_blocks(a, sb, rb) != Status::Ok) return 0;
  double d = 0, n = 0;
  for (std::size_t k = 0; k < a.destinations.size(); ++k) {
    if (a.destinations[k] < 0) continue;
    d += 1;
    n += static_cast<double>(sb.len[k]);
  }
  return d * pat::alpha(a, m) + n * pat::beta(a, m);
}

constexpr std::string_view kFormula = "d·α + n·β";
constexpr std::string_view kDoc = "all sends and receives in one round";

}  // namespace

extern const AlgoInfo neighbor_allgather_linear = {
    .name = "linear",
    .kind = CollKind::NeighborAllgather,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = kFormula,
    .restrictions = "none",
    .doc = kDoc,
};
extern const AlgoInfo neighbor_allgatherv_linear = {
    .name = "linear",
    .kind = CollKind::NeighborAllgatherv,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = kFormula,
    .restrictions = "none",
    .doc = kDoc,
};
extern const AlgoInfo neighbor_alltoall_linear = {
    .name = "linear",
    .kind = CollKind::NeighborAlltoall,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = kFormula,
    .restrictions = "none",
    .doc = kDoc,
};
extern const AlgoInfo neighbor_alltoallv_linear = {
    .name = "linear",
    .kind = CollKind::NeighborAlltoallv,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = kFormula,
    .restrictions = "none",
    .doc = kDoc,
};

}  // namespace chorus::coll
