// Reduce_scatter_block, ring: the reduce_scatter ring (reduce_scatter_ring.cc) with
// equal blocks of `count` elements.
// Cost: (p-1)·(α + b·β + b·γ) + b·β_self, b = count·elem_size.
// Restrictions: commutative ops only.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {

extern const AlgoInfo reduce_scatter_block_ring = {
    "ring", CollKind::ReduceScatterBlock, red::build_reduce_scatter_ring, red::commutative_only,
    red::cost_reduce_scatter_ring, "(p-1)·(α + b·β + b·γ) + b·β_self, b = block bytes",
    "commutative ops only", "partials travel the ring; bandwidth-optimal, large blocks"};

}  // namespace chorus::coll
