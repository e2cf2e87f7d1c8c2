// Reduce_scatter, ring (also reduce_scatter_block_ring.cc). The partial of block b
// starts at rank b+1 and travels right around the ring, each rank adding its own
// contribution, until it reaches rank b after p-1 steps:
//
//   step s = 0..p-2: send the partial of block (r-s-1) to r+1 (at s = 0 it is just
//   the input block), receive the partial of block (r-s-2) from r-1 and add the
//   input block to it. At s = p-2 that block is r: the result, copied to kRecv.
//
//   p = 3 (x_r[b]: rank r's input block b)
//     step 0: r0 -> r1: x0[b2]         r1 -> r2: x1[b0]         r2 -> r0: x2[b1]
//     step 1: r0 -> r1: x2[b1]+x0[b1]  r1 -> r2: x0[b2]+x1[b2]  r2 -> r0: x1[b0]+x2[b0]
//     then r0 adds x0[b0], r1 adds x1[b1], r2 adds x2[b2]: each has its block.
//
// Partials alternate between kTmp0 and kTmp1 (one block each), so the input is
// never written (kSend is read-only; with MPI_IN_PLACE the result overwrites the
// front of kRecv only after the last step).
// Cost: (p-1)·(α + b·β + b·γ) + b·β_self, b = the largest block in bytes ((p-1)/p·n·(β + γ)
// for equal blocks of n bytes in all). Bandwidth-optimal, p-1 latencies: large blocks.
// Restrictions: commutative ops only (block b is reduced in the order b+1, ..., b).
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace red {

Status build_reduce_scatter_ring(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(input_blocks(a, b));
  if (b.total() == 0) return Status::Ok;
  const int p = a.size, r = a.rank;
  const BufId in = a.in_place ? kRecv : kSend;
  const auto len = [&](int i) { return b.len[static_cast<std::size_t>(pat::mod(i, p))]; };
  const auto off = [&](int i) { return b.off[static_cast<std::size_t>(pat::mod(i, p))]; };
  if (p == 1) {
    pat::copy(s.round(), at(in, off(0)), at(kRecv, 0), len(0));
    return Status::Ok;
  }
  const BufId partial[2] = {kTmp0, kTmp1};
  s.need_tmp(kTmp0, max_block(b));
  s.need_tmp(kTmp1, max_block(b));
  for (int st = 0; st < p - 1; ++st) {
    const int out = r - st - 1, into = r - st - 2;
    const BufRef acc = at(partial[st % 2], 0);
    Round& rd = s.round();
    pat::send(rd, pat::mod(r + 1, p), st == 0 ? at(in, off(out)) : at(partial[(st + 1) % 2], 0),
              len(out));
    pat::recv(rd, pat::mod(r - 1, p), acc, len(into));
    combine(rd, at(in, off(into)), acc, len(into), false);
    if (st == p - 2) pat::copy(rd, acc, at(kRecv, 0), len(into));
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_reduce_scatter_ring(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (input_blocks(a, b) != Status::Ok) return 0;
  const Abg c = abg(a, m);
  const double blk = static_cast<double>(max_block(b));
  // One block copied within the rank: the own block out of the partial's temporary.
  return (a.size - 1) * (c.alpha + m.protocol(a.shape, blk) + blk * c.beta + blk * c.gamma) +
         blk * m.self.beta_us_per_b;
}

}  // namespace red

extern const AlgoInfo reduce_scatter_ring = {
    "ring", CollKind::ReduceScatter, red::build_reduce_scatter_ring, red::commutative_only,
    red::cost_reduce_scatter_ring, "(p-1)·(α + b·β + b·γ) + b·β_self, b = largest block",
    "commutative ops only", "partials travel the ring; bandwidth-optimal, large blocks"};

}  // namespace chorus::coll
