// Alltoall, Bruck. Three phases, blocks of b bytes:
//   1. rotate: slot k of kTmp0 takes the block for rank r + k (mod p);
//   2. for each bit d = 1, 2, 4, .. < p: send every slot whose index has bit d set to
//      r + d, receive the same slots from r - d. The slots with bit d form runs of d
//      slots; they are packed into kTmp1, sent as one message, received into kRecv
//      (unused until phase 3) and unpacked into the same slots;
//   3. slot k now holds the block from rank r - k: copy it to its place in kRecv.
//
//   p = 4, rank 0      d = 1: slots 1, 3 -> rank 1      d = 2: slots 2, 3 -> rank 2
//
// Cost: ⌈lg p⌉·α + ⌈lg p⌉·n/2·β + (2 + ⌈lg p⌉)·n·β_self, n = p·b (the bytes each rank
// sends; the copies: the rotations, and each step's pack and unpack).
// Few messages (small blocks, large p); forwards each byte ~lg p / 2 times.
// Restrictions: alltoall only. Alltoallv would forward blocks whose sizes only their
// source and destination know (see alltoallv_bruck.cc).
#include "coll/patterns.h"

namespace chorus::coll {
namespace {

Status build(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const int p = a.size, r = a.rank;
  const std::size_t b = a.count * a.elem_size;
  const auto up = static_cast<std::size_t>(p), ur = static_cast<std::size_t>(r);
  const BufId src = a.in_place ? kRecv : kSend;
  if (b == 0) return Status::Ok;
  if (p == 1) {
    pat::copy(s.round(), pat::at(src, 0), pat::at(kRecv, 0), b);
    pat::drop_empty_rounds(s);
    return Status::Ok;
  }
  s.need_tmp(kTmp0, up * b);
  s.need_tmp(kTmp1, (up / 2 + 1) * b);
  // The runs of slots with bit d set: [d, 2d), [3d, 4d), .. clipped to p.
  auto for_runs = [&](int d, auto&& fn) {
    std::size_t packed = 0;
    for (int first = d; first < p; first += 2 * d) {
      const auto n = static_cast<std::size_t>(std::min(d, p - first));
      fn(static_cast<std::size_t>(first) * b, packed, n * b);
      packed += n * b;
    }
    return packed;
  };
  auto pack = [&](Round& rd, int d) {
    return for_runs(d, [&](std::size_t slot, std::size_t packed, std::size_t bytes) {
      pat::copy(rd, pat::at(kTmp0, slot), pat::at(kTmp1, packed), bytes);
    });
  };

  Round& rotate = s.round();
  pat::copy(rotate, pat::at(src, ur * b), pat::at(kTmp0, 0), (up - ur) * b);
  pat::copy(rotate, pat::at(src, 0), pat::at(kTmp0, (up - ur) * b), ur * b);
  std::size_t bytes = pack(rotate, 1);
  for (int d = 1; d < p; d <<= 1) {
    Round& rd = s.round();
    pat::send(rd, pat::mod(r + d, p), pat::at(kTmp1, 0), bytes);
    pat::recv(rd, pat::mod(r - d, p), pat::at(kRecv, 0), bytes);
    for_runs(d, [&](std::size_t slot, std::size_t packed, std::size_t n) {
      pat::copy(rd, pat::at(kRecv, packed), pat::at(kTmp0, slot), n);
    });
    if (2 * d < p) bytes = pack(rd, 2 * d);
  }
  Round& out = s.round();
  for (int k = 0; k < p; ++k)
    pat::copy(out, pat::at(kTmp0, static_cast<std::size_t>(k) * b),
              pat::at(kRecv, static_cast<std::size_t>(pat::mod(r - k, p)) * b), b);
  return Status::Ok;
}

double cost(const CollArgs& a, const CostModel& m) {
  const double n = static_cast<double>(a.count * a.elem_size) * a.size;
  const int lg = pat::ceil_log2(a.size);
  // Copies within the rank: the rotation in and out (2n), and each step's pack
  // and unpack of the n/2 bytes it forwards (lg·n).
  return lg * pat::alpha(a, m, n / 2) + lg * n / 2 * pat::beta(a, m) + (2 + lg) * n * m.self.beta_us_per_b;
}

}  // namespace

extern const AlgoInfo alltoall_bruck = {
    .name = "bruck",
    .kind = CollKind::Alltoall,
    .build = build,
    .supports = nullptr,
    .cost_us = cost,
    .cost_formula = "⌈lg p⌉·α + ⌈lg p⌉·n/2·β + (2 + ⌈lg p⌉)·n·β_self",
    .restrictions = "alltoall only",
    .doc = "⌈lg p⌉ rounds through a rotated temporary; for small blocks",
};

}  // namespace chorus::coll
