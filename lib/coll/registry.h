// The catalog of collective algorithms: one AlgoInfo per algorithm, listed per
// collective. Selection takes the lowest cost estimate among those that support
// the call, unless CHORUS_<COLL>_ALGO forces one.
#pragma once
#include <span>
#include <string_view>

#include "coll/args.h"
#include "coll/schedule.h"
#include "core/status.h"

namespace chorus::coll {

// alpha-beta-gamma per link class, in microseconds and microseconds per byte.
struct LinkCost {
  double alpha_us;        // per message
  double beta_us_per_b;   // per byte moved
};
struct CostModel {
  LinkCost self{0.05, 1.0 / 20000.0};
  // Same node, a core per rank. α is a round of a schedule, not a ping-pong's half
  // (0.2 us at 8 B here): posting, the peer's message, completion. One-round
  // algorithms forced at 8 B on 2 ranks took 1.0-1.4 us (scripts/coll-algos), and
  // a ring allgather of 4-32 KiB messages ~1.2 us plus β (2026-12-07).
  LinkCost shm{1.0, 1.0 / 8000.0};
  // Same node with more ranks than cores (CommShape::cores_shared): a message
  // often waits for its peer's time slice, and two ranks share a core's bandwidth.
  // Fitted to 4 ranks on 2 cores (scripts/allreduce-algos, medians of 5): 8 B
  // recursive doubling ~21 us for 2 rounds, 64 KiB recursive doubling beating
  // Rabenseifner's 4 rounds, ring at 1-16 MiB moving ~1-1.5 GB/s per rank.
  LinkCost shm_shared{15.0, 1.0 / 2500.0};
  double shared_gamma_factor = 2.0;      // reductions share the cores too
  LinkCost net{3.0, 1.0 / 10000.0};     // between nodes
  double gamma_us_per_b = 1.0 / 16000.0;  // reduction compute
  // Algorithms that move and reduce whole vectors (not pipelined chunks) stream
  // pieces larger than the cache through memory: their β and γ cost this much
  // more once a piece exceeds cache_bytes (measured: ring and double binary tree,
  // chunked, beat Rabenseifner by ~1.3-1.4x at 1-16 MiB on 2 and 4 ranks).
  std::size_t cache_bytes = 256 << 10;
  double uncached_factor = 1.4;
  // Shared-window algorithms (coll/shm.h): one synchronisation (a Signal, then a
  // Wait on every peer) costs about a cache-line transfer between cores, or a time
  // slice when ranks share cores; δ is the cost per byte of a copy into or out of
  // the window, half of whose lines another core last wrote. Fitted to
  // scripts/coll-algos at 2 ranks, 8-256 KiB (2026-12-07: allgather's and
  // reduce_scatter's flat algorithms copy ~18-22 GB/s, allreduce's two copies and a
  // reduction 32 KiB in ~5.7 us) and to 4 ranks on 2 cores (flat 8 B ~13 us,
  // shared_memory 16 MiB ~9.4 ms).
  double shm_sync_us = 0.15;
  double shm_sync_shared_us = 12.0;
  double shm_copy_us_per_b = 1.0 / 18000.0;
  double shm_copy_shared_us_per_b = 1.4 / 8000.0;
  // A sync of a node's shared window as measured at MPI_Init on a job across
  // nodes (lib/mpi/init.cc, CHORUS_COLL_NET_PROBE), which then replaces the fitted
  // values above: how long ranks that share cores wait for each other's time
  // slices depends on how they share them. 0: not measured.
  double node_sync_us = 0;
  double sync(const CommShape& s) const {
    if (node_sync_us > 0) return node_sync_us;
    return s.cores_shared ? shm_sync_shared_us : shm_sync_us;
  }
  double shm_copy(const CommShape& s) const {
    return s.cores_shared ? shm_copy_shared_us_per_b : shm_copy_us_per_b;
  }
  // The link class a message between ranks of this shape mostly uses. Across
  // nodes whose ranks share cores, when several ranks of a node are busy at once
  // (a flat algorithm's every round; CommShape::ranks_per_node), a message also
  // waits for its receiver's time slice, as a node sync does, and the node's
  // ranks move their bytes through the same cores (TCP's copies are the CPU's
  // work): β times the ranks per node. A stage among one rank per node (the
  // hierarchical algorithms' network stage, the others waiting on their node's
  // window) pays neither.
  LinkCost link(const CommShape& s) const {
    if (s.nodes > 1) {
      LinkCost l = net;
      if (s.cores_shared && s.ranks_per_node > 1) {
        l.alpha_us += sync(s);
        l.beta_us_per_b *= s.ranks_per_node;
      }
      return l;
    }
    return s.cores_shared ? shm_shared : shm;
  }
  // What the protocol that carries a message of `bytes` adds to α + bytes·β.
  //
  // Between nodes a message of at least net_rndv_bytes goes by rendezvous: the
  // sender announces it and the data follows the receiver's answer, a handshake an
  // eager message does not wait for. MPI_Init reads the threshold from UCX's
  // endpoint and times the handshake (net_rndv_us, one way: the difference
  // between ping-pongs just above and just below it); 0: not known, not priced.
  // Where a node's busy ranks share cores, each of the handshake's two extra
  // messages also waits for its receiver's time slice, as link() prices a message.
  //
  // On one node, a core per rank, a collective's message of local_single_min to
  // local_single_max bytes is read single-copy from the sender's buffer
  // (p2p/local.h) where smaller ones are copied through the ring twice: a quarter
  // of its β comes off (local_single_saving; the read and its acknowledgement
  // keep the rest). MPI_Init sets the range from what the node's point-to-point
  // agreed (0: no single copy). Fitted at 2 ranks, 2026-12-07 (scripts/coll-algos,
  // medians of 7): a ring allgather and a pairwise alltoall of 64, 128 and 256 KiB
  // (one message of half that) took 5.4, 7.7-8.1 and 13.3-14.1 us, and the model
  // with a quarter off says 5.1, 7.1 and 13.3 (CHORUS_COLL_COSTS=32K,64K,128K
  // prints them, per rank); without it, reduce_scatter's
  // pairwise exchange priced above the flat shared-window algorithm at 128-256 KiB,
  // where it was 1.3-1.5x faster.
  std::size_t net_rndv_bytes = 0;
  double net_rndv_us = 0;
  std::size_t local_single_min = 0, local_single_max = 0;
  double local_single_saving = 0.25;  // of β
  double protocol(const CommShape& s, double bytes) const {
    if (s.nodes > 1) {
      if (net_rndv_bytes == 0 || net_rndv_us <= 0 || bytes < static_cast<double>(net_rndv_bytes)) return 0;
      return net_rndv_us + (s.cores_shared && s.ranks_per_node > 1 ? 2 * sync(s) : 0.0);
    }
    if (s.cores_shared || local_single_min == 0 || bytes < static_cast<double>(local_single_min) ||
        bytes > static_cast<double>(local_single_max))
      return 0;
    return -local_single_saving * bytes * shm.beta_us_per_b;
  }
  double gamma(const CommShape& s) const {
    return s.cores_shared ? gamma_us_per_b * shared_gamma_factor : gamma_us_per_b;
  }
};

using BuildFn = Status (*)(const CollArgs& args, Schedule& out);
using SupportsFn = bool (*)(const CollArgs& args);
using CostFn = double (*)(const CollArgs& args, const CostModel& m);

struct AlgoInfo {
  std::string_view name;          // stable id: env value, logs, tests, file suffix
  CollKind kind;
  BuildFn build;
  SupportsFn supports;            // restrictions (nullptr: always)
  CostFn cost_us;                 // alpha-beta-gamma estimate
  std::string_view cost_formula;  // e.g. "lg p·α + n·lg p·β + n·lg p·γ"
  std::string_view restrictions;  // e.g. "commutative ops only", "none"
  std::string_view doc;           // one line
};

// All algorithms of one collective, in catalog order.
std::span<const AlgoInfo> algorithms(CollKind kind);
const AlgoInfo* find_algorithm(CollKind kind, std::string_view name);

// Collective calls that ran `a` (MPI_T's performance variables coll_<kind>_<name>):
// count_use also counts the call in counters::Id::CollCalls.
void count_use(const AlgoInfo& a);
std::uint64_t uses(const AlgoInfo& a);

}  // namespace chorus::coll
