// Broadcast for large messages (van de Geijn): binomial scatter, then ring allgather.
// The message is cut into p blocks of whole elements, block i for vrank i (the first
// count % p blocks one element longer; blocks may be empty when count < p). A vrank
// range is then a contiguous byte range, so the scatter needs no temporary: vrank v
// receives blocks [v, v + subtree) from its parent and forwards its children's
// ranges. Then p - 1 ring steps circulate the blocks: at step t vrank v sends block
// v - t to v + 1 and receives block v - t - 1 from v - 1 (mod p).
//
//   p = 4, root 0, blocks B0..B3     scatter: 0 -> 2 (B2 B3), 0 -> 1 (B1), 2 -> 3 (B3)
//                                    ring:    3 steps, each rank passes one block on
//
// Cost: (⌈lg p⌉ + p - 1)·α + 2·(p-1)/p·n·β, n = message bytes.
// Restrictions: none (empty blocks send nothing).
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const int p = a.size;
  if (a.count == 0 || p == 1) return Status::Ok;
  const auto up = static_cast<std::size_t>(p);
  // Byte offset of vrank u's block; off(p) is the message size.
  auto off = [&](int u) {
    return pat::part_first(a.count, up, static_cast<std::size_t>(u)) * a.elem_size;
  };
  auto rank = [&](int vr) { return pat::to_rank(vr, a.root, p); };
  auto range = [&](int first, int n) { return off(first + n) - off(first); };

  const int v = pat::to_vrank(a.rank, a.root, p);
  if (v != 0) {
    const int sub = pat::binomial_subtree(v, p);
    pat::recv(s.round(), rank(pat::binomial_parent(v)), pat::at(kRecv, off(v)), range(v, sub));
  }
  const std::vector<int> children = pat::binomial_children(v, p);
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    const int sub = pat::binomial_subtree(*c, p);
    pat::send(s.round(), rank(*c), pat::at(kRecv, off(*c)), range(*c, sub));
  }
  for (int t = 0; t < p - 1; ++t) {
    Round& rd = s.round();
    const int out = pat::mod(v - t, p), in = pat::mod(v - t - 1, p);
    pat::send(rd, rank(pat::mod(v + 1, p)), pat::at(kRecv, off(out)), range(out, 1));
    pat::recv(rd, rank(pat::mod(v - 1, p)), pat::at(kRecv, off(in)), range(in, 1));
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  if (a.size == 1) return 0;
  // The scatter's messages halve from n/2; the ring's are n/p.
  const double n = pat::vector_bytes(a), lg = pat::ceil_log2(a.size);
  return lg * pat::alpha(a, m) + pat::protocol_rounds(a, m, n / 2, lg, 0.5) + (p - 1) * pat::alpha(a, m, n / p) +
         2 * (p - 1) / p * n * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo bcast_scatter_allgather = {
    .name = "scatter_allgather",
    .kind = CollKind::Bcast,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(⌈lg p⌉ + p - 1)·α + 2·(p-1)/p·n·β",
    .restrictions = "none",
    .doc = "binomial scatter of p blocks, then ring allgather; for large messages",
};

}  // namespace chorus::coll
