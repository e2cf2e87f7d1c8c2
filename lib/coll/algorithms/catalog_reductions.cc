// The reduction catalog: every algorithm of these collectives, in catalog order. The
// first entry of each list runs every call (any p, any op) and is the default when
// no cost estimate is available.
#include "coll/registry.h"

namespace chorus::coll {

// lib/coll/algorithms/<kind>_<name>.cc
extern const AlgoInfo allreduce_recursive_doubling, allreduce_ring, allreduce_rabenseifner,
    allreduce_double_binary_tree, allreduce_reduce_bcast, allreduce_shared_memory,
    allreduce_shared_memory_flat, allreduce_hierarchical, allreduce_hierarchical_multi_leader;
extern const AlgoInfo reduce_binomial, reduce_rabenseifner, reduce_shared_memory,
    reduce_shared_memory_flat, reduce_hierarchical;
extern const AlgoInfo reduce_scatter_recursive_halving, reduce_scatter_ring,
    reduce_scatter_pairwise, reduce_scatter_shared_memory_flat, reduce_scatter_hierarchical;
extern const AlgoInfo reduce_scatter_block_recursive_halving, reduce_scatter_block_ring,
    reduce_scatter_block_pairwise, reduce_scatter_block_shared_memory_flat, reduce_scatter_block_hierarchical;
extern const AlgoInfo scan_recursive_doubling, exscan_recursive_doubling;

std::span<const AlgoInfo> reduction_algorithms(CollKind kind) {
  // Function-local copies: initialised on first use, after every AlgoInfo above.
  static const AlgoInfo allreduce[] = {allreduce_recursive_doubling, allreduce_ring,
                                       allreduce_rabenseifner, allreduce_double_binary_tree,
                                       allreduce_reduce_bcast, allreduce_shared_memory,
                                       allreduce_shared_memory_flat, allreduce_hierarchical,
                                       allreduce_hierarchical_multi_leader};
  static const AlgoInfo reduce[] = {reduce_binomial, reduce_rabenseifner, reduce_shared_memory,
                                    reduce_shared_memory_flat, reduce_hierarchical};
  // Pairwise before the ring: their estimates are the same, and a tie goes to the
  // first listed. Pairwise sends straight from the input, so no step waits on an
  // earlier one (2 and 4 ranks, 64 KiB-16 MiB: faster at every size, 16 MiB at 2
  // ranks 18.0 ms against 27.7).
  static const AlgoInfo reduce_scatter[] = {reduce_scatter_recursive_halving, reduce_scatter_pairwise,
                                            reduce_scatter_ring, reduce_scatter_shared_memory_flat,
                                            reduce_scatter_hierarchical};
  static const AlgoInfo reduce_scatter_block[] = {reduce_scatter_block_recursive_halving,
                                                  reduce_scatter_block_pairwise,
                                                  reduce_scatter_block_ring,
                                                  reduce_scatter_block_shared_memory_flat,
                                                  reduce_scatter_block_hierarchical};
  static const AlgoInfo scan[] = {scan_recursive_doubling};
  static const AlgoInfo exscan[] = {exscan_recursive_doubling};
  switch (kind) {
    case CollKind::Allreduce: return allreduce;
    case CollKind::Reduce: return reduce;
    case CollKind::ReduceScatter: return reduce_scatter;
    case CollKind::ReduceScatterBlock: return reduce_scatter_block;
    case CollKind::Scan: return scan;
    case CollKind::Exscan: return exscan;
    default: return {};
  }
}

}  // namespace chorus::coll
