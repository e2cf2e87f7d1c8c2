// Allgather, ring. At step t (t = 0..p-2) rank r sends block r - t to r + 1 and
// receives block r - t - 1 from r - 1 (mod p), straight into its place in kRecv; the
// first send goes out of kSend (or kRecv when in place), and the own block is copied
// into kRecv after the first step.
//
//   p = 4     step 0     step 1     step 2        (block index sent by each rank)
//   rank 0    B0 -> 1    B3 -> 1    B2 -> 1
//   rank 1    B1 -> 2    B0 -> 2    B3 -> 2
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes of the whole result (p blocks).
// Every rank sends exactly the p - 1 blocks other than the one it receives last.
// Restrictions: none. Also builds allgatherv (allgatherv_ring.cc): any counts and
// displacements, empty blocks send nothing.
#include "coll/patterns.h"

namespace chorus::coll {

Status build_allgather_ring(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(pat::result_blocks(a, b));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  const BufRef own = a.in_place ? pat::at(kRecv, b.off[ur(r)]) : pat::at(kSend, 0);
  for (int t = 0; t < p - 1; ++t) {
    Round& rd = s.round();
    const int out = pat::mod(r - t, p), in = pat::mod(r - t - 1, p);
    pat::send(rd, pat::mod(r + 1, p), t == 0 ? own : pat::at(kRecv, b.off[ur(out)]),
              b.len[ur(out)]);
    pat::recv(rd, pat::mod(r - 1, p), pat::at(kRecv, b.off[ur(in)]), b.len[ur(in)]);
  }
  if (!a.in_place)
    pat::copy(s.rounds.empty() ? s.round() : s.rounds.front(), own, pat::at(kRecv, b.off[ur(r)]),
              b.len[ur(r)]);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_allgather_ring(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  const double n = pat::result_bytes(a);
  return (p - 1) * pat::alpha(a, m, n / p) + (p - 1) / p * n * pat::beta(a, m);
}

extern const AlgoInfo allgather_ring = {
    .name = "ring",
    .kind = CollKind::Allgather,
    .build = build_allgather_ring,
    .supports = nullptr,
    .cost_us = cost_allgather_ring,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 neighbour steps; bandwidth-optimal, for large blocks",
};

}  // namespace chorus::coll
