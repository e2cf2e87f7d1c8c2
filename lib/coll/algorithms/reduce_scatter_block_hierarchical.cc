// Reduce_scatter_block, hierarchical: the hierarchical reduce_scatter
// (reduce_scatter_hierarchical.cc) with equal blocks of `count` elements.
// Cost: ⌈lg L⌉·(α_s + T·β_s + T·γ) + inter(N) + (L-1)·(α_s + b·β_s).
// Restrictions: ranks on several nodes, each node's ranks consecutive; commutative ops only.
#include "coll/algorithms/reduction_common.h"

namespace chorus::coll {

extern const AlgoInfo reduce_scatter_block_hierarchical = {
    "hierarchical", CollKind::ReduceScatterBlock, red::build_reduce_scatter_hierarchical,
    red::hierarchical_rs_supports, red::cost_reduce_scatter_hierarchical,
    "⌈lg L⌉·(α_s + T·β_s + T·γ) + inter(N) + (L-1)·(α_s + b·β_s), L ranks per node, N nodes",
    "ranks on several nodes, each node's ranks consecutive; commutative ops only",
    "reduce to each node's leader, the best flat reduce_scatter_block among leaders, blocks out"};

}  // namespace chorus::coll
