// Scatter, linear: the root sends every other rank its block straight from kSend, all
// p - 1 messages at once, and copies its own (unless in place); the others receive
// into kRecv.
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole scattered buffer.
// Restrictions: none. Also builds scatterv (scatterv_linear.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_scatter_linear(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  Round& rd = s.round();
  if (r != a.root) {
    pat::recv(rd, a.root, pat::at(kRecv, 0), b.len[ur(r)]);
  } else {
    for (int i = 0; i < p; ++i)
      if (i != r) pat::send(rd, i, pat::at(kSend, b.off[ur(i)]), b.len[ur(i)]);
    if (!a.in_place) pat::copy(rd, pat::at(kSend, b.off[ur(r)]), pat::at(kRecv, 0), b.len[ur(r)]);
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

namespace {

double cost(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  return (p - 1) * pat::alpha(a, m) + (p - 1) / p * pat::result_bytes(a) * pat::beta(a, m);
}

}  // namespace

extern const AlgoInfo scatter_linear = {
    .name = "linear",
    .kind = CollKind::Scatter,
    .build = build_scatter_linear,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "the root sends every rank its block directly",
};

}  // namespace chorus::coll
