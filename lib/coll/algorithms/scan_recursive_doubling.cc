// Scan, recursive doubling (also exscan_recursive_doubling.cc). Every rank keeps
// `partial`, the reduction over its aligned group of ranks, and its result. At
// distance 2^k it swaps partials with r ^ 2^k (if that rank exists); a partial from
// a lower rank is folded into both (on the left), one from a higher rank only into
// the partial (on the right). Groups are contiguous rank ranges, so operand order
// is preserved. Exscan starts with no result; rank 0 never receives one, as MPI
// leaves its kRecv undefined (untouched here).
//
//   p = 5          d=1            d=2            d=4
//     r0  [0]      0<->1 [0,1]    0<->2 [0,3]    0<->4
//     r1  [1]            [0,1]    1<->3 [0,3]      -
//     r2  [2]      2<->3 [2,3]          [0,3]      -
//     r3  [3]            [2,3]          [0,3]      -
//     r4  [4]        -   [4]        -   [4]      4: result x0..x4 ([k,l] = partial)
//
// Cost: ⌈lg p⌉·(α + n·β + 2n·γ). Latency-optimal.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {
namespace red {

Status build_scan_recursive_doubling(const CollArgs& a, Schedule& s) {
  CHORUS_TRY(pat::check_args(a));
  const std::size_t n = vector_bytes(a);
  if (n == 0) return Status::Ok;
  const int p = a.size, r = a.rank;
  const bool exclusive = a.kind == CollKind::Exscan;
  const BufRef in = input(a), result = at(kRecv, 0), partial = at(kTmp0, 0), tmp = at(kTmp1, 0);
  Round& init = s.round();
  if (p > 1) {
    pat::copy(init, in, partial, n);
    s.need_tmp(kTmp0, n);
    s.need_tmp(kTmp1, n);
  }
  if (!exclusive) pat::copy(init, in, result, n);
  bool have_result = !exclusive;
  for (int mask = 1; mask < p; mask <<= 1) {
    const int peer = r ^ mask;
    if (peer >= p) continue;
    const bool more = (mask << 1) < p;  // is the partial needed again?
    Round& rd = s.round();
    pat::send(rd, peer, partial, n);
    pat::recv(rd, peer, tmp, n);
    if (peer < r) {
      if (more) combine(rd, tmp, partial, n, true);
      if (have_result)
        combine(rd, tmp, result, n, true);
      else
        pat::copy(rd, tmp, result, n);
      have_result = true;
    } else if (more) {
      combine(rd, tmp, partial, n, false);
    }
  }
  pat::drop_empty_rounds(s);
  return Status::Ok;
}

double cost_scan_recursive_doubling(const CollArgs& a, const CostModel& m) {
  const Abg c = abg(a, m);
  const double n = static_cast<double>(vector_bytes(a));
  return pat::ceil_log2(a.size) * (c.alpha + n * c.beta + 2 * n * c.gamma);
}

}  // namespace red

extern const AlgoInfo scan_recursive_doubling = {
    "recursive_doubling", CollKind::Scan, red::build_scan_recursive_doubling, nullptr,
    red::cost_scan_recursive_doubling, "⌈lg p⌉·(α + n·β + 2n·γ)", "none (keeps operand order)",
    "partials exchanged at distance 1, 2, 4, ...; latency-optimal"};

}  // namespace chorus::coll
