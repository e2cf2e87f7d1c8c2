// Allreduce, ring: a ring reduce-scatter followed by a ring allgather. The vector is
// split into p blocks (pat::part_first); block b starts its trip at rank b+1.
//
//   reduce-scatter, step s = 0..p-2: send block (r-s) to r+1, receive block (r-s-1)
//     from r-1 and reduce it into kRecv; afterwards rank r owns block r+1.
//   allgather, step s = 0..p-2: send block (r+1-s), receive block (r-s) in place.
//
//   p = 3   step 0        step 1        allgather steps 0, 1
//     r0:   b0 ->, <- b2  b2 ->, <- b1  owns b1: sends b1, b0
//     r1:   b1 ->, <- b0  b0 ->, <- b2  owns b2: sends b2, b1
//     r2:   b2 ->, <- b1  b1 ->, <- b0  owns b0: sends b0, b2
//
// Pipelining: with args.chunk_bytes (rounded down to whole elements, at least one)
// every step moves its block as k = ⌈block/chunk⌉ chunks, one per round, so the
// receive space is one chunk and a rank reduces chunk c while its neighbour already
// sends chunk c+1.
// Cost: 2(p-1)·k·α + 2(p-1)·b·β + (p-1)·b·γ, b = ⌈count/p⌉ elements in bytes (that is
// 2(p-1)/p·n·β + (p-1)/p·n·γ when p divides the count). Bandwidth-optimal, but
// 2(p-1) latencies: for large messages.
// Out of place nothing is copied up front: the first step sends block r from the send
// buffer, and every chunk the reduce-scatter receives lands in the receive buffer and
// is reduced there with the send buffer's chunk (recv = send (op) recv), while it is
// still in cache. Block r is written only by the allgather; with p = 2 every byte of
// the receive buffer is written once. In place the input lives in the receive
// buffer, so received chunks go to a temporary first.
// Restrictions: commutative ops only (block b is reduced in the order b+1, ..., p-1,
// 0, ..., b).
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace {

// Elements per pipeline chunk (the whole block when not pipelining).
std::size_t chunk_elems(const CollArgs& a) {
  if (a.chunk_bytes == 0) return SIZE_MAX;
  return std::max<std::size_t>(1, a.chunk_bytes / a.elem_size);
}

std::size_t chunks(red::Range block, std::size_t chunk) {
  return block.len() == 0 ? 0 : (block.len() - 1) / chunk + 1;
}

// Chunk c of a block (empty past its end).
red::Range chunk_of(red::Range block, std::size_t c, std::size_t chunk) {
  const std::size_t lo = std::min(block.hi, block.lo + c * chunk);
  return {lo, std::min(block.hi, lo + chunk)};
}

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t count = a.count, es = a.elem_size;
  if (count == 0) return Status::Ok;
  const int p = a.size, r = a.rank;
  if (p == 1) {
    pat::copy(s.round(), red::input(a), red::at(kRecv, 0), count * es);
    return Status::Ok;
  }
  const auto block = [&](long b) {
    const auto i = static_cast<std::size_t>(pat::mod(b, p));
    return red::Range{pat::part_first(count, p, i), pat::part_first(count, p, i + 1)};
  };
  const std::size_t chunk = std::min(chunk_elems(a), count);
  const int right = pat::mod(r + 1, p), left = pat::mod(r - 1, p);
  if (a.in_place) s.need_tmp(kTmp0, std::min(chunk, block(0).len()) * es);

  // One step: send block `out` (from `from`) to the right, receive block `in` from
  // the left, chunk by chunk; `reduce` says whether the received chunk is reduced
  // with this rank's input or stored.
  const auto step = [&](BufId from, red::Range out, red::Range in, bool reduce) {
    const std::size_t k = std::max(chunks(out, chunk), chunks(in, chunk));
    for (std::size_t c = 0; c < k; ++c) {
      const red::Range o = chunk_of(out, c, chunk), i = chunk_of(in, c, chunk);
      const std::size_t bytes = i.len() * es;
      Round& rd = s.round();
      pat::send(rd, right, red::at(from, o.lo * es), o.len() * es);
      if (!reduce) {
        pat::recv(rd, left, red::at(kRecv, i.lo * es), bytes);
      } else if (a.in_place) {
        pat::recv(rd, left, red::at(kTmp0, 0), bytes);
        red::combine(rd, red::at(kTmp0, 0), red::at(kRecv, i.lo * es), bytes, true);
      } else {
        pat::recv(rd, left, red::at(kRecv, i.lo * es), bytes);
        red::combine(rd, red::at(kSend, i.lo * es), red::at(kRecv, i.lo * es), bytes, true);
      }
    }
  };
  for (int st = 0; st < p - 1; ++st)
    step(st == 0 && !a.in_place ? kSend : kRecv, block(r - st), block(r - st - 1), true);
  for (int st = 0; st < p - 1; ++st) step(kRecv, block(r + 1 - st), block(r - st), false);
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const red::Abg c = red::abg(a, m);
  const double p = a.size;
  const std::size_t blk = (a.count + static_cast<std::size_t>(a.size) - 1) / static_cast<std::size_t>(a.size);
  const std::size_t chunk = std::min(chunk_elems(a), std::max<std::size_t>(blk, 1));
  const double k = blk == 0 ? 1 : static_cast<double>((blk - 1) / chunk + 1);
  const double b = static_cast<double>(blk * a.elem_size);
  const double msg = std::min(b, static_cast<double>(chunk * a.elem_size));
  return 2 * (p - 1) * k * (c.alpha + m.protocol(a.shape, msg)) + 2 * (p - 1) * b * c.beta + (p - 1) * b * c.gamma;
}

}  // namespace

extern const AlgoInfo allreduce_ring = {
    "ring", CollKind::Allreduce, build, red::commutative_only, cost,
    "2(p-1)·k·α + 2(p-1)/p·n·β + (p-1)/p·n·γ, k = chunks per block",
    "commutative ops only",
    "ring reduce-scatter + ring allgather, pipelined in chunk_bytes; bandwidth-optimal"};

}  // namespace chorus::coll
