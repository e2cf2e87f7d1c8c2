// Broadcast along a chain, pipelined: vrank 0 (the root) -> 1 -> ... -> p-1. The
// message is cut into chunks of args.chunk_bytes (whole elements, at least one); with
// chunk_bytes = 0 into kDefaultChunks nearly equal chunks. In round k a rank
// receives chunk k from its predecessor while it forwards chunk k-1 to its successor,
// so after the pipeline fills every link carries one chunk per round.
//
//   p = 4, 3 chunks     round: 1     2       3          4       5
//                       0->1: c0    c1      c2
//                       1->2:       c0      c1         c2
//                       2->3:               c0         c1      c2
//
// Cost: (p - 2 + C)·(α + n/C·β), C = chunks, n = message bytes. Bandwidth-optimal
// for large messages; latency grows linearly with p.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

constexpr std::size_t kDefaultChunks = 8;

// Chunks of the message: how many, and the first element of each.
struct Chunking {
  std::size_t count, per_chunk, chunks;  // per_chunk = 0: kDefaultChunks even parts
  explicit Chunking(const CollArgs& a) : count(a.count) {
    per_chunk = a.chunk_bytes ? std::max<std::size_t>(1, a.chunk_bytes / a.elem_size) : 0;
    chunks = per_chunk ? (count + per_chunk - 1) / per_chunk : std::min(count, kDefaultChunks);
  }
  std::size_t first(std::size_t k) const {
    return per_chunk ? std::min(count, k * per_chunk) : pat::part_first(count, chunks, k);
  }
};

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const int p = a.size;
  const Chunking ch(a);
  if (ch.chunks == 0 || p == 1) return Status::Ok;
  const int v = pat::to_vrank(a.rank, a.root, p);
  const int prev = pat::to_rank(v - 1, a.root, p), next = pat::to_rank(v + 1, a.root, p);
  auto at = [&](std::size_t k) { return pat::at(kRecv, ch.first(k) * a.elem_size); };
  auto bytes = [&](std::size_t k) { return (ch.first(k + 1) - ch.first(k)) * a.elem_size; };
  for (std::size_t k = 0; k <= ch.chunks; ++k) {
    Round& rd = s.round();
    if (v + 1 < p && k >= 1) pat::send(rd, next, at(k - 1), bytes(k - 1));
    if (v > 0 && k < ch.chunks) pat::recv(rd, prev, at(k), bytes(k));
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  if (a.size == 1 || a.elem_size == 0) return 0;
  const Chunking ch(a);
  const double c = std::max<double>(1, static_cast<double>(ch.chunks));
  const double piece = pat::vector_bytes(a) / c;
  // The handshake by the largest chunk (the first), as sent.
  const double largest = ch.chunks ? static_cast<double>(ch.first(1) * a.elem_size) : 0.0;
  return (a.size - 2 + c) * (pat::alpha(a, m) + m.protocol(a.shape, largest) + piece * pat::beta(a, m));
}

}  // namespace

extern const AlgoInfo bcast_pipelined_chain = {
    .name = "pipelined_chain",
    .kind = CollKind::Bcast,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 2 + C)·(α + n/C·β)",
    .restrictions = "none",
    .doc = "chain from the root in chunks of chunk_bytes (8 chunks when 0)",
};

}  // namespace chorus::coll
