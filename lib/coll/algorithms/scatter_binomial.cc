// Scatter, binomial tree rooted at `root` (pat::binomial_children): the mirror of
// gather_binomial. The root sends each child its subtree's blocks, vranks
// [c, c + subtree), largest subtree first: straight from kSend when those ranks'
// blocks are back to back there (no wrap past rank p-1), otherwise packed first into
// kTmp0 in vrank order. An inner rank receives its subtree packed in kTmp0 (own block
// first), forwards its children's ranges and keeps its own; a leaf receives into kRecv.
//
//   p = 6, root 0:   0 -> 4 (B4 B5), 0 -> 2 (B2 B3), 4 -> 5, 0 -> 1, 2 -> 3
//
// Cost: ⌈lg p⌉·α + (p-1)/p·n·β, n = bytes of the whole scattered buffer.
// Restrictions: none; scatterv needs counts[] of every rank on every rank (subtree
// sizes), not only at the root. Also builds scatterv (scatterv_binomial.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_scatter_binomial(const CollArgs& a, Schedule& s) {
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

  if (v != 0) {
    if (children.empty()) {
      pat::recv(s.round(), rank(pat::binomial_parent(v)), pat::at(kRecv, 0), own_len);
    } else {
      s.need_tmp(kTmp0, pos[ur(sub)]);
      Round& in = s.round();
      pat::recv(in, rank(pat::binomial_parent(v)), pat::at(kTmp0, 0), pos[ur(sub)]);
      pat::copy(in, pat::at(kTmp0, 0), pat::at(kRecv, 0), own_len);
    }
  } else {
    Round& local = s.round();  // the root: its own block, and packing where needed
    if (!a.in_place) pat::copy(local, pat::at(kSend, b.off[ur(r)]), pat::at(kRecv, 0), own_len);
    for (const int c : children) {
      const int n = pat::binomial_subtree(c, p);
      if (pat::contiguous_start(b, rank(c), n)) continue;
      s.need_tmp(kTmp0, pos[ur(c + n)]);
      for (int u = c; u < c + n; ++u)
        pat::copy(local, pat::at(kSend, b.off[ur(rank(u))]), pat::at(kTmp0, pos[ur(u)]),
                  b.len[ur(rank(u))]);
    }
  }
  for (auto c = children.rbegin(); c != children.rend(); ++c) {
    const int n = pat::binomial_subtree(*c, p);
    const std::size_t bytes = pos[ur(*c - v + n)] - pos[ur(*c - v)];
    std::optional<std::size_t> direct;
    if (v == 0) direct = pat::contiguous_start(b, rank(*c), n);
    pat::send(s.round(), rank(*c),
              direct ? pat::at(kSend, *direct) : pat::at(kTmp0, pos[ur(*c - v)]), bytes);
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

extern const AlgoInfo scatter_binomial = {
    .name = "binomial",
    .kind = CollKind::Scatter,
    .build = build_scatter_binomial,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "binomial tree from the root, subtrees packed in a temporary",
};

}  // namespace chorus::coll
