// Broadcast, binomial tree rooted at `root` (see pat::binomial_children). A rank
// receives the whole message from its parent, then forwards it to its children,
// largest subtree first, one child per round.
//
//   p = 6, root 0     step 1: 0 -> 4      step 2: 0 -> 2, 4 -> 5
//                     step 3: 0 -> 1, 2 -> 3
//   (other roots: the same tree over vranks (rank - root) mod p)
//
// Cost: ⌈lg p⌉·(α + n·β), n = message bytes. Latency-optimal; the root and upper
// ranks send n bytes up to ⌈lg p⌉ times, so large messages prefer scatter_allgather.
// Restrictions: none.
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const int p = a.size;
  const std::size_t n = a.count * a.elem_size;
  if (n == 0) return Status::Ok;
  const int v = pat::to_vrank(a.rank, a.root, p);
  if (v != 0)
    pat::recv(s.round(), pat::to_rank(pat::binomial_parent(v), a.root, p), pat::at(kRecv, 0), n);
  const std::vector<int> children = pat::binomial_children(v, p);
  for (auto c = children.rbegin(); c != children.rend(); ++c)
    pat::send(s.round(), pat::to_rank(*c, a.root, p), pat::at(kRecv, 0), n);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = pat::vector_bytes(a);
  return pat::ceil_log2(a.size) * (pat::alpha(a, m, n) + n * pat::beta(a, m));
}

}  // namespace

extern const AlgoInfo bcast_binomial = {
    .name = "binomial",
    .kind = CollKind::Bcast,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·(α + n·β)",
    .restrictions = "none",
    .doc = "binomial tree from the root; best for small messages",
};

}  // namespace chorus::coll
