// Reduce_scatter_block, pairwise exchange: reduce_scatter_pairwise.cc with equal
// blocks of `count` elements.
// Cost: (p-1)·(α + b·β + b·γ) + b·β_self, b = count·elem_size.
// Restrictions: none; operand order is preserved.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {

extern const AlgoInfo reduce_scatter_block_pairwise = {
    "pairwise", CollKind::ReduceScatterBlock, red::build_reduce_scatter_pairwise, nullptr,
    red::cost_reduce_scatter_pairwise, "(p-1)·(α + b·β + b·γ) + b·β_self, b = block bytes",
    "none (keeps operand order)", "each rank sends each peer its block directly, one peer per step"};

}  // namespace chorus::coll
