// Gather, linear: every rank sends its block straight to the root, which receives all
// p - 1 of them at once into their places in kRecv (and copies its own, unless in
// place).
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole gathered result; all of it
// funnels through the root's link, but no rank forwards anything.
// Restrictions: none. Also builds gatherv (gatherv_linear.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_gather_linear(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  Round& rd = s.round();
  if (r != a.root) {
    pat::send(rd, a.root, pat::at(kSend, 0), b.len[ur(r)]);
  } else {
    for (int i = 0; i < p; ++i)
      if (i != r) pat::recv(rd, i, pat::at(kRecv, b.off[ur(i)]), b.len[ur(i)]);
    if (!a.in_place) pat::copy(rd, pat::at(kSend, 0), pat::at(kRecv, b.off[ur(r)]), b.len[ur(r)]);
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

extern const AlgoInfo gather_linear = {
    .name = "linear",
    .kind = CollKind::Gather,
    .build = build_gather_linear,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "every rank sends to the root directly",
};

}  // namespace chorus::coll
