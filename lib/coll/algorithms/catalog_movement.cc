// The movement catalog: every algorithm of these collectives, in catalog order (the
// first is the default when no cost estimate decides). One file per algorithm.
#include "coll/registry.h"

namespace chorus::coll {

extern const AlgoInfo barrier_dissemination, barrier_shared_memory, barrier_hierarchical;
extern const AlgoInfo bcast_binomial, bcast_scatter_allgather, bcast_pipelined_chain,
    bcast_shared_memory, bcast_hierarchical;
extern const AlgoInfo allgather_ring, allgather_recursive_doubling, allgather_bruck,
    allgather_shared_memory_flat, allgather_hierarchical;
extern const AlgoInfo allgatherv_ring, allgatherv_recursive_doubling, allgatherv_bruck,
    allgatherv_shared_memory_flat;
extern const AlgoInfo gather_binomial, gather_linear, gatherv_binomial, gatherv_linear;
extern const AlgoInfo scatter_binomial, scatter_linear, scatterv_binomial, scatterv_linear;
extern const AlgoInfo alltoall_pairwise, alltoall_bruck, alltoall_shared_memory_flat, alltoallv_pairwise,
    alltoallv_bruck;
extern const AlgoInfo neighbor_allgather_linear, neighbor_allgatherv_linear, neighbor_alltoall_linear,
    neighbor_alltoallv_linear;

std::span<const AlgoInfo> movement_algorithms(CollKind kind) {
  // Function-local, so the copies are made after the entries' own initialization.
  static const AlgoInfo barrier[] = {barrier_dissemination, barrier_shared_memory, barrier_hierarchical};
  static const AlgoInfo bcast[] = {bcast_binomial, bcast_scatter_allgather, bcast_pipelined_chain,
                                   bcast_shared_memory, bcast_hierarchical};
  static const AlgoInfo allgather[] = {allgather_ring, allgather_recursive_doubling,
                                       allgather_bruck, allgather_shared_memory_flat,
                                       allgather_hierarchical};
  static const AlgoInfo allgatherv[] = {allgatherv_ring, allgatherv_recursive_doubling,
                                        allgatherv_bruck, allgatherv_shared_memory_flat};
  static const AlgoInfo gather[] = {gather_binomial, gather_linear};
  static const AlgoInfo gatherv[] = {gatherv_binomial, gatherv_linear};
  static const AlgoInfo scatter[] = {scatter_binomial, scatter_linear};
  static const AlgoInfo scatterv[] = {scatterv_binomial, scatterv_linear};
  static const AlgoInfo alltoall[] = {alltoall_pairwise, alltoall_bruck, alltoall_shared_memory_flat};
  static const AlgoInfo alltoallv[] = {alltoallv_pairwise, alltoallv_bruck};
  static const AlgoInfo neighbor_allgather[] = {neighbor_allgather_linear};
  static const AlgoInfo neighbor_allgatherv[] = {neighbor_allgatherv_linear};
  static const AlgoInfo neighbor_alltoall[] = {neighbor_alltoall_linear};
  static const AlgoInfo neighbor_alltoallv[] = {neighbor_alltoallv_linear};
  switch (kind) {
    case CollKind::Barrier:
      return barrier;
    case CollKind::Bcast:
      return bcast;
    case CollKind::Allgather:
      return allgather;
    case CollKind::Allgatherv:
      return allgatherv;
    case CollKind::Gather:
      return gather;
    case CollKind::Gatherv:
      return gatherv;
    case CollKind::Scatter:
      return scatter;
    case CollKind::Scatterv:
      return scatterv;
    case CollKind::Alltoall:
      return alltoall;
    case CollKind::Alltoallv:
      return alltoallv;
    case CollKind::NeighborAllgather:
      return neighbor_allgather;
    case CollKind::NeighborAllgatherv:
      return neighbor_allgatherv;
    case CollKind::NeighborAlltoall:
      return neighbor_alltoall;
    case CollKind::NeighborAlltoallv:
      return neighbor_alltoallv;
    default:
      return {};
  }
}

}  // namespace chorus::coll
