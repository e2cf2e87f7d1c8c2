// Exscan, recursive doubling: scan_recursive_doubling.cc without the own input in
// the result; the first partial received from a lower rank starts it. Rank 0's kRecv
// is left untouched.
// Cost: ⌈lg p⌉·(α + n·β + 2n·γ).
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {

extern const AlgoInfo exscan_recursive_doubling = {
    "recursive_doubling", CollKind::Exscan, red::build_scan_recursive_doubling, nullptr,
    red::cost_scan_recursive_doubling, "⌈lg p⌉·(α + n·β + 2n·γ)", "none (keeps operand order)",
    "partials exchanged at distance 1, 2, 4, ...; latency-optimal"};

}  // namespace chorus::coll
