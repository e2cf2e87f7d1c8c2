// Reduce_scatter, recursive halving (also reduce_scatter_block_recursive_halving.cc).
// Non-power-of-two p folds first (red::Fold): rank 2i < 2·rem sends its whole input
// to 2i+1, and newrank v then stands for the blocks of the ranks it represents
// ("newblock" v: blocks 2v, 2v+1 or block v + rem), contiguous in the input.
//
// The halving runs over positions of a permuted copy of the input in kTmp0: newblock
// v sits at position bitrev(v) (lg p' bits). With ascending distance (red::halving
// _windows) newrank v ends with the window of position bitrev(v), i.e. its own
// newblock; partials always cover aligned groups of consecutive newranks, so
// operand order is preserved. At the end rank 2i+1 returns block 2i to rank 2i.
//
//   p = 4: positions hold newblocks 0 2 1 3
//     step 1 (d=1): 0,2 keep positions [0,2) = blocks 0,2; 1,3 keep [2,4) = 1,3
//     step 2 (d=2): 0 keeps block 0, 2 keeps block 2, 1 keeps 1, 3 keeps 3
//
// The permuted copy replaces the copy that an out-of-place call needs anyway (kSend
// is read-only), so the permutation is free.
// Cost: lg p'·α + (p'-1)/p'·n·(β + γ) + (n + b)·β_self + f·(2α + n·β + n·γ + b·β), n = all blocks in
// bytes, b = the largest block, f = [p not a power of two]. Logarithmic latency:
// small and medium blocks.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace red {
namespace {

int bit_reverse(int v, int bits) {
  int out = 0;
  for (int i = 0; i < bits; ++i) out |= ((v >> i) & 1) << (bits - 1 - i);
  return out;
}

}  // namespace

Status build_reduce_scatter_recursive_halving(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  pat::Blocks b;
  CHORUS_TRY(input_blocks(a, b));
  const std::size_t total = b.total();
  if (total == 0) return Status::Ok;
  const int r = a.rank;
  const auto ur = static_cast<std::size_t>(r);
  const BufId in = a.in_place ? kRecv : kSend;
  const Fold f(a.size);
  if (f.sits_out(r)) {
    pat::send(s.round(), r + 1, at(in, 0), total);
    pat::recv(s.round(), r + 1, at(kRecv, 0), b.len[ur]);
    return Status::Ok;
  }
  // Newblock v in the input: from the first block of first_rank(v) to the end of
  // oldrank(v)'s; pos[j] = where position j starts in kTmp0.
  const int q = f.pof2, bits = f.levels();
  const auto start = [&](int v) { return b.off[static_cast<std::size_t>(f.first_rank(v))]; };
  const auto size = [&](int v) {
    const auto last = static_cast<std::size_t>(f.oldrank(v));
    return b.off[last] + b.len[last] - start(v);
  };
  std::vector<std::size_t> pos(static_cast<std::size_t>(q) + 1, 0);
  for (int j = 0; j < q; ++j)
    pos[static_cast<std::size_t>(j) + 1] = pos[static_cast<std::size_t>(j)] + size(bit_reverse(j, bits));

  // Permuted copy (folding in the partner's input on the left).
  s.need_tmp(kTmp0, total);
  Round& first = s.round();
  if (f.absorbs(r)) {
    pat::recv(first, r - 1, at(kTmp1, 0), total);
    s.need_tmp(kTmp1, total);
  }
  for (int j = 0; j < q; ++j) {
    const int v = bit_reverse(j, bits);
    const BufRef dst = at(kTmp0, pos[static_cast<std::size_t>(j)]);
    pat::copy(first, at(in, start(v)), dst, size(v));
    if (f.absorbs(r)) combine(first, at(kTmp1, start(v)), dst, size(v), true);
  }

  const int v = f.newrank(r);
  const std::vector<Range> w = halving_windows(v, f, static_cast<std::size_t>(q));
  const auto off = [&](std::size_t j) { return pos[j]; };
  add_halving_reduce_scatter(s, f, v, w, kTmp0, kTmp1, off);

  // Own newblock: [pos[j], pos[j+1]) with j = bitrev(v): block r, after block r-1
  // when this rank absorbed r-1.
  const std::size_t at_pos = pos[w.back().lo];
  Round& last = s.round();
  if (f.absorbs(r)) pat::send(last, r - 1, at(kTmp0, at_pos), b.len[ur - 1]);
  pat::copy(last, at(kTmp0, at_pos + (f.absorbs(r) ? b.len[ur - 1] : 0)), at(kRecv, 0), b.len[ur]);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_reduce_scatter_recursive_halving(const CollArgs& a, const CostModel& m) {
  pat::Blocks b;
  if (input_blocks(a, b) != Status::Ok) return 0;
  const Abg c = abg(a, m);
  const Fold f(a.size);
  const double n = static_cast<double>(b.total()), blk = static_cast<double>(max_block(b));
  const double q = f.pof2, fold = f.rem > 0 ? 1 : 0;
  // The permuted copy of the whole input and the copy of the own block out of it.
  const double copies = (n + blk) * m.self.beta_us_per_b;
  return f.levels() * c.alpha + pat::protocol_rounds(a, m, n / 2, f.levels(), 0.5) +
         (q - 1) / q * n * (c.beta + c.gamma) + copies +
         fold * (2 * c.alpha + m.protocol(a.shape, n) + m.protocol(a.shape, blk) + n * c.beta + n * c.gamma +
                 blk * c.beta);
}

}  // namespace red

extern const AlgoInfo reduce_scatter_recursive_halving = {
    "recursive_halving", CollKind::ReduceScatter, red::build_reduce_scatter_recursive_halving,
    nullptr, red::cost_reduce_scatter_recursive_halving,
    "lg p'·α + (p'-1)/p'·n·(β + γ) + (n + b)·β_self + f·(2α + n·β + n·γ + b·β)", "none (keeps operand order)",
    "halving with ascending distance over bit-reversed blocks; logarithmic latency"};

}  // namespace chorus::coll
