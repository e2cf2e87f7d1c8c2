// Reduce_scatter_block, recursive halving: reduce_scatter_recursive_halving.cc with
// equal blocks of `count` elements.
// Cost: lg p'·α + (p'-1)/p'·n·(β + γ) + (n + b)·β_self + f·(2α + n·β + n·γ + b·β),
// n = p·count·elem_size.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {

extern const AlgoInfo reduce_scatter_block_recursive_halving = {
    "recursive_halving", CollKind::ReduceScatterBlock,
    red::build_reduce_scatter_recursive_halving, nullptr,
    red::cost_reduce_scatter_recursive_halving,
    "lg p'·α + (p'-1)/p'·n·(β + γ) + (n + b)·β_self + f·(2α + n·β + n·γ + b·β)", "none (keeps operand order)",
    "halving with ascending distance over bit-reversed blocks; logarithmic latency"};

}  // namespace chorus::coll
