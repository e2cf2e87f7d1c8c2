// Alltoall, pairwise exchange. At step s = 1..p-1 rank r sends its block for r + s
// and receives the block from r - s (mod p), directly between the user buffers; its
// own block is copied locally. In place, kRecv's input is first copied to kTmp0
// (a later step would otherwise send a block an earlier step already overwrote).
//
//   p = 4     step 1          step 2          step 3
//   rank 0    -> 1, <- 3      -> 2, <- 2      -> 3, <- 1
//
// Cost: (p - 1)·α + (p-1)/p·n·β, n = bytes each rank sends in all (p blocks).
// Restrictions: none. Also builds alltoallv (alltoallv_pairwise.cc).
#include "coll/patterns.h"

namespace chorus::coll {

Status build_alltoall_pairwise(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks sb, rb;
  CHORUS_TRY(pat::send_blocks(a, sb));
  CHORUS_TRY(pat::result_blocks(a, rb));
  const int p = a.size, r = a.rank;
  auto ur = [](int i) { return static_cast<std::size_t>(i); };
  BufId src = kSend;
  if (a.in_place && p > 1) {
    src = kTmp0;
    s.need_tmp(kTmp0, sb.extent());
    pat::copy(s.round(), pat::at(kRecv, 0), pat::at(kTmp0, 0), sb.extent());
  }
  for (int k = 1; k < p; ++k) {
    Round& rd = s.round();
    const int to = pat::mod(r + k, p), from = pat::mod(r - k, p);
    pat::send(rd, to, pat::at(src, sb.off[ur(to)]), sb.len[ur(to)]);
    pat::recv(rd, from, pat::at(kRecv, rb.off[ur(from)]), rb.len[ur(from)]);
  }
  if (!a.in_place)
    pat::copy(s.rounds.empty() ? s.round() : s.rounds.front(), pat::at(kSend, sb.off[ur(r)]),
              pat::at(kRecv, rb.off[ur(r)]), rb.len[ur(r)]);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_alltoall_pairwise(const CollArgs& a, const CostModel& m) {
  const double p = a.size;
  pat::Blocks sb;
  const double n = pat::send_blocks(a, sb) == Status::Ok ? static_cast<double>(sb.total()) : 0;
  return (p - 1) * pat::alpha(a, m, n / p) + (p - 1) / p * n * pat::beta(a, m);
}

extern const AlgoInfo alltoall_pairwise = {
    .name = "pairwise",
    .kind = CollKind::Alltoall,
    .build = build_alltoall_pairwise,
    .supports = nullptr,
    .cost_us = cost_alltoall_pairwise,
    .cost_formula = "(p - 1)·α + (p-1)/p·n·β",
    .restrictions = "none",
    .doc = "p - 1 steps, step s exchanging with r + s and r - s",
};

}  // namespace chorus::coll
