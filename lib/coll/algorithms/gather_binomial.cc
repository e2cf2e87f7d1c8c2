// Gather, binomial tree rooted at `root` (pat::binomial_children). Every rank
// collects its subtree's blocks, vranks [v, v + subtree), packed in vrank order in
// kTmp0 (own block first), receiving all children at once, then sends them to its
// parent in one message. Leaves send straight from kSend. The root receives a child's
// subtree directly into kRecv when those ranks' blocks are back to back there (no
// wrap past rank p-1), otherwise into kTmp0 and copies the blocks out.
//
//   p = 6, root 0:   5 -> 4, 3 -> 2, 1 -> 0      then   4 -> 0 (B4 B5), 2 -> 0 (B2 B3)
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β, n = bytes of the whole gathered result.
// Restrictions: none; gatherv needs counts[] of every rank on every rank (subtree
// sizes), not only at the root. Also builds gatherv (gatherv_binomial.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_gather_binomial(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank, root = a.root;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  auto rank = [&](int vr) { return pat::to_rank(vr, root, p); };
  const int v = pat::to_vrank(r, root, p);
  const int sub = pat::binomial_subtree(v, p);
  // pos[k]: offset in kTmp0 of vrank v + k's block.
  const std::vector<std::size_t> pos =
      pat::packed_positions(b, sub, [&](int k) { return rank(v + k); });
  const std::vector<int> children = pat::binomial_children(v, p);
  const std::size_t own_len = b.len[ur(r)];

  if (v != 0 && children.empty()) {  // leaf
    pat::send(s.round(), rank(pat::binomial_parent(v)), pat::at(kSend, 0), own_len);
    pat::drop_empty_rounds(s);
    return Status::Ok;
  }
  Round& in = s.round();
  std::vector<int> unpack;  // the root's children received into kTmp0
  for (const int c : children) {
    const int n = pat::binomial_subtree(c, p);
    const std::size_t bytes = pos[ur(c - v + n)] - pos[ur(c - v)];
    std::optional<std::size_t> direct;
    if (v == 0) direct = pat::contiguous_start(b, rank(c), n);
    if (direct) {
      pat::recv(in, rank(c), pat::at(kRecv, *direct), bytes);
    } else {
      pat::recv(in, rank(c), pat::at(kTmp0, pos[ur(c - v)]), bytes);
      s.need_tmp(kTmp0, pos[ur(c - v + n)]);
      if (v == 0) unpack.push_back(c);
    }
  }
  if (v == 0) {
    if (!a.in_place) pat::copy(in, pat::at(kSend, 0), pat::at(kRecv, b.off[ur(r)]), own_len);
    for (const int c : unpack)
      for (int u = c; u < c + pat::binomial_subtree(c, p); ++u)
        pat::copy(in, pat::at(kTmp0, pos[ur(u)]), pat::at(kRecv, b.off[ur(rank(u))]),
                  b.len[ur(rank(u))]);
  } else {
    pat::copy(in, pat::at(kSend, 0), pat::at(kTmp0, 0), own_len);
    pat::send(s.round(), rank(pat::binomial_parent(v)), pat::at(kTmp0, 0), pos[ur(sub)]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  return pat::ceil_log2(a.size) * pat::alpha(a, m) +
         (p - 1) / p * pat::result_bytes(a) * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo gather_binomial = {
    .name = "binomial",
    .kind = CollKind::Gather,
    .build = build_gather_binomial,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "binomial tree to the root, subtrees packed in a temporary",
};

}  // namespace chorus::coll
