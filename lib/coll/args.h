// What a collective call asks for, in the terms algorithms need (no MPI handles).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace chorus::coll {

enum class CollKind {
  Barrier,
  Bcast,
  Reduce,
  Allreduce,
  Allgather,
  Allgatherv,
  Gather,
  Gatherv,
  Scatter,
  Scatterv,
  Alltoall,
  Alltoallv,
  ReduceScatter,       // MPI_Reduce_scatter (per-rank counts)
  ReduceScatterBlock,  // MPI_Reduce_scatter_block
  Scan,
  Exscan,
  // Neighbourhood collectives (process topologies); MPI_Neighbor_alltoallw runs as
  // NeighborAlltoallv on packed bytes.
  NeighborAllgather,
  NeighborAllgatherv,
  NeighborAlltoall,
  NeighborAlltoallv,
  Count
};
std::string_view kind_name(CollKind k);  // "allreduce", "reduce_scatter_block", ...
inline bool is_neighbor(CollKind k) {
  return k == CollKind::NeighborAllgather || k == CollKind::NeighborAllgatherv ||
         k == CollKind::NeighborAlltoall || k == CollKind::NeighborAlltoallv;
}

// Shape of the communicator, for the cost model.
struct CommShape {
  int size = 1;
  int ranks_per_node = 1;  // max ranks on one node
  int nodes = 1;
  // The node's ranks outnumber its cores: a rank often waits for a peer to get a
  // time slice, and ranks share the cores' copy and reduction throughput.
  bool cores_shared = false;
  // With ranks on several nodes: each rank's node, numbered 0.. in order of first
  // appearance (rank 0's node is 0), so hierarchical algorithms know who shares
  // a node; null when unknown. `layout` hashes it (schedule caches key on it).
  std::shared_ptr<const std::vector<int>> node_of;
  std::uint64_t layout = 0;
};

// Buffers per kind (kSend / kRecv in schedule.h; sizes in elements):
//   Barrier            none
//   Bcast              kRecv: count (the user buffer on every rank; kSend unused)
//   Reduce             kSend: count; root's kRecv: count (non-roots have no kRecv)
//                      in_place (root only): root's input is in kRecv
//   Allreduce          kSend: count -> kRecv: count; in_place: input in kRecv
//   Allgather          kSend: count -> kRecv: size*count (block i at i*count);
//                      in_place: own block already in kRecv
//   Allgatherv         kSend: counts[rank] -> kRecv: block i at displs[i]; in_place as above
//   Gather(v)          kSend: count (counts[rank]) -> root's kRecv (blocks as allgather(v));
//                      in_place (root only): root's block already in kRecv
//   Scatter(v)         root's kSend: blocks (i*count or displs[i]) -> kRecv: count (counts[rank]);
//                      in_place (root only): root keeps its block in kSend, no kRecv copy
//   Alltoall           kSend: block to j at j*count -> kRecv: block from j at j*count;
//                      in_place: input in kRecv
//   Alltoallv          kSend: send_counts[j] at send_displs[j] -> kRecv: counts[j] at displs[j]
//   ReduceScatterBlock kSend: size*count -> kRecv: count; in_place: input in kRecv (size*count)
//   ReduceScatter      kSend: sum(counts), block i at prefix sum -> kRecv: counts[rank];
//                      in_place: input in kRecv
//   Scan/Exscan        kSend: count -> kRecv: count; in_place: input in kRecv
//                      (Exscan leaves rank 0's kRecv untouched)
//   Neighbor*          blocks indexed by position k in sources (kRecv) and
//                      destinations (kSend), never by rank; no in_place:
//     NeighborAllgather   kSend: count (to every destination) -> kRecv: block k at k*count
//     NeighborAllgatherv  kSend: count -> kRecv: counts[k] at displs[k]
//     NeighborAlltoall    kSend: block k at k*count -> kRecv: block k at k*count
//     NeighborAlltoallv   kSend: send_counts[k] at send_displs[k] -> kRecv: counts[k] at displs[k]
// Algorithms that need scratch space declare temporaries (Schedule::need_tmp).
struct CollArgs {
  CollKind kind = CollKind::Allreduce;
  int rank = 0;               // this rank in the communicator
  int size = 1;               // communicator size
  int root = 0;               // rooted collectives
  std::size_t elem_size = 1;  // bytes per (packed) element
  // Element counts. Meaning per kind (all in elements of elem_size bytes):
  //   Bcast/Reduce/Allreduce/Scan/Exscan: count = the vector length
  //   Allgather/Gather/Scatter/Alltoall/ReduceScatterBlock: count = per-rank block
  //   *v variants and ReduceScatter: counts[i] (and displs[i], in elements) per rank
  //   Barrier: unused
  std::size_t count = 0;
  std::vector<std::size_t> counts;
  std::vector<std::size_t> displs;       // receive-side (or root-side) displacements
  std::vector<std::size_t> send_counts;  // Alltoallv: per-destination send counts
  std::vector<std::size_t> send_displs;  // Alltoallv: send displacements
  // Gatherv/Scatterv: MPI gives every count to the root only; non-roots know just
  // their own. Algorithms that need all counts everywhere must not run then.
  bool counts_everywhere = true;
  bool commutative = true;  // the op may be applied in any order
  // Pipelining: algorithms that split messages into chunks use this size (bytes,
  // rounded down to whole elements; 0 = do not pipeline).
  std::size_t chunk_bytes = 0;
  bool in_place = false;    // MPI_IN_PLACE: the data already sits in kRecv
  // Shared-memory algorithms: the per-rank slot of the communicator's shared window
  // (coll/shm.h) in bytes; with ranks on several nodes, the slot of the node
  // windows the hierarchical algorithms' node stages use (one per node of 2+ ranks).
  // 0 when the communicator has no window (CHORUS_COLL_SHM=off, /dev/shm full) or
  // the call may not use it (a persistent call ranks may start in any order). The
  // same on every rank: never this rank's buffer kind.
  std::size_t shm_slot_bytes = 0;
  CommShape shape;
  // Neighbourhood collectives: this rank's in-neighbours (receive blocks, in order)
  // and out-neighbours (send blocks). A negative entry (MPI_PROC_NULL) keeps its
  // block but moves nothing. Repeated peers are allowed: the k-th message to a
  // peer matches the k-th receive from this rank posted there.
  std::vector<int> sources;
  std::vector<int> destinations;
  // Cartesian: sources == destinations, a (-1, +1) pair per dimension. The block
  // sent in one direction lands in the peer's block of the opposite direction
  // (MPI-4.1 §8.6: block s -> block s^1), which matters where both directions name
  // one peer (a periodic dimension of size 1 or 2): receives post pairwise swapped.
  bool cart_pairs = false;
};

}  // namespace chorus::coll
