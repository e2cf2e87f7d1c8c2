// Rank and block arithmetic shared by the collective algorithms (lib/coll/algorithms/):
// logarithms, rotation around a root, binomial trees, even splits, per-rank block
// layouts, and small schedule-building helpers. Pure functions of their arguments,
// so every rank computes the same answer without talking to the others.
//
// Vocabulary:
//   vrank   a rank relative to the root: (rank - root) mod p; the root is vrank 0.
//   block   the bytes one rank contributes or receives: (offset, length) in a buffer.
//   packed  blocks laid back to back in rank order (or in a rotated order) with no
//           gaps: the layout of temporaries, independent of the user's displacements.
#pragma once
#include <algorithm>
#include <cstddef>
#include <optional>
#include <vector>

#include "coll/args.h"
#include "coll/registry.h"
#include "coll/schedule.h"
#include "core/status.h"

namespace chorus::coll::pat {

// ---- integers -------------------------------------------------------------------

inline int ceil_log2(int p) {  // rounds of any doubling pattern over p ranks
  int k = 0;
  while ((1 << k) < p) ++k;
  return k;
}
inline int floor_pow2(int p) {  // largest power of two <= p (p >= 1)
  int q = 1;
  while (q <= p / 2) q *= 2;
  return q;
}
inline int mod(long a, int p) {
  long m = a % p;
  return static_cast<int>(m < 0 ? m + p : m);
}
inline int lowbit(int v) { return v & -v; }

// ---- rotation around a root ------------------------------------------------------

inline int to_vrank(int rank, int root, int p) { return mod(static_cast<long>(rank) - root, p); }
inline int to_rank(int vrank, int root, int p) { return mod(static_cast<long>(vrank) + root, p); }

// ---- binomial tree over vranks --------------------------------------------------
//
// Vrank v's parent is v minus its lowest set bit; its children are v + 2^k for every
// 2^k below that bit (below p for the root) with v + 2^k < p. The subtree of v is the
// contiguous vrank range [v, v + binomial_subtree(v, p)). Example, p = 6:
//
//        0
//      / | \        children of 0: 1, 2, 4     subtree sizes 1, 2, 2
//     1  2  4       children of 2: 3           children of 4: 5
//        |  |
//        3  5
inline int binomial_parent(int v) { return v == 0 ? -1 : v - lowbit(v); }
inline int binomial_subtree(int v, int p) { return v == 0 ? p : std::min(lowbit(v), p - v); }
// Children in increasing distance (smallest subtree first).
inline std::vector<int> binomial_children(int v, int p) {
  std::vector<int> c;
  const int limit = v == 0 ? p : lowbit(v);
  for (int m = 1; m < limit && v + m < p; m <<= 1) c.push_back(v + m);
  return c;
}

// ---- even splits of n elements into parts ----------------------------------------

// Part i of n elements split into `parts` nearly equal parts (the first n % parts
// parts get one more): returns its first element; part_first(n, parts, parts) == n.
inline std::size_t part_first(std::size_t n, std::size_t parts, std::size_t i) {
  return i * (n / parts) + std::min(i, n % parts);
}

// ---- block layouts ---------------------------------------------------------------

struct Blocks {
  std::vector<std::size_t> off;  // bytes, per rank
  std::vector<std::size_t> len;  // bytes, per rank
  std::size_t total() const {
    std::size_t t = 0;
    for (std::size_t l : len) t += l;
    return t;
  }
  // One past the last byte any block touches.
  std::size_t extent() const {
    std::size_t e = 0;
    for (std::size_t i = 0; i < len.size(); ++i)
      if (len[i]) e = std::max(e, off[i] + len[i]);
    return e;
  }
};

inline Blocks uniform_blocks(int p, std::size_t count, std::size_t elem_size) {
  Blocks b;
  b.off.resize(static_cast<std::size_t>(p));
  b.len.assign(static_cast<std::size_t>(p), count * elem_size);
  for (std::size_t i = 0; i < b.off.size(); ++i) b.off[i] = i * count * elem_size;
  return b;
}

// From per-rank counts and displacements in elements; empty displs mean packed.
inline Status listed_blocks(int p, const std::vector<std::size_t>& counts,
                            const std::vector<std::size_t>& displs, std::size_t elem_size,
                            Blocks& out) {
  const auto n = static_cast<std::size_t>(p);
  if (counts.size() != n || (!displs.empty() && displs.size() != n)) return Status::InvalidArg;
  out.off.resize(n);
  out.len.resize(n);
  std::size_t packed = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.len[i] = counts[i] * elem_size;
    out.off[i] = displs.empty() ? packed : displs[i] * elem_size;
    packed += out.len[i];
  }
  return Status::Ok;
}

// The per-rank blocks of the gathered (allgather, gather) or scattered (scatter, on
// the root's kSend) buffer, and of alltoall's kRecv: count per rank or counts/displs.
inline Status result_blocks(const CollArgs& a, Blocks& out) {
  switch (a.kind) {
    case CollKind::Allgatherv:
    case CollKind::Gatherv:
    case CollKind::Scatterv:
    case CollKind::Alltoallv:
      return listed_blocks(a.size, a.counts, a.displs, a.elem_size, out);
    default:
      out = uniform_blocks(a.size, a.count, a.elem_size);
      return Status::Ok;
  }
}

// Alltoall(v)'s kSend blocks (kRecv's blocks when in place, as MPI_IN_PLACE says).
inline Status send_blocks(const CollArgs& a, Blocks& out) {
  if (a.kind == CollKind::Alltoallv && !a.in_place)
    return listed_blocks(a.size, a.send_counts, a.send_displs, a.elem_size, out);
  return result_blocks(a, out);
}

// Offsets of the blocks of ranks order(0), order(1), ... packed back to back:
// pos[k] is where the k-th starts, pos[n] the total. `order(k)` names a rank.
template <class Order>
std::vector<std::size_t> packed_positions(const Blocks& b, int n, Order order) {
  std::vector<std::size_t> pos(static_cast<std::size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k)
    pos[static_cast<std::size_t>(k) + 1] =
        pos[static_cast<std::size_t>(k)] + b.len[static_cast<std::size_t>(order(k))];
  return pos;
}

// If ranks first..first+n-1 (no wrap) sit back to back in the buffer (empty blocks
// are ignored), the offset where they start; otherwise nothing.
inline std::optional<std::size_t> contiguous_start(const Blocks& b, int first, int n) {
  if (first + n > static_cast<int>(b.len.size())) return std::nullopt;
  std::optional<std::size_t> start, end;
  for (int i = first; i < first + n; ++i) {
    const auto u = static_cast<std::size_t>(i);
    if (b.len[u] == 0) continue;
    if (end && b.off[u] != *end) return std::nullopt;
    if (!start) start = b.off[u];
    end = b.off[u] + b.len[u];
  }
  return start.value_or(0);
}

// ---- schedule building ------------------------------------------------------------
//
// These skip empty transfers: both ends of a message compute its size from the same
// arguments, so a zero-byte message is dropped on both sides.

inline BufRef at(BufId buf, std::size_t off) { return BufRef{buf, off}; }

inline void send(Round& r, int peer, BufRef from, std::size_t bytes) {
  if (bytes) r.steps.push_back(Schedule::send(peer, from, bytes));
}
inline void recv(Round& r, int peer, BufRef into, std::size_t bytes) {
  if (bytes) r.steps.push_back(Schedule::recv(peer, into, bytes));
}
inline void copy(Round& r, BufRef from, BufRef to, std::size_t bytes) {
  if (bytes && (from.buf != to.buf || from.off != to.off))
    r.steps.push_back(Schedule::copy(from, to, bytes));
}

// Remove rounds left without steps (e.g. all their messages were empty).
inline void drop_empty_rounds(Schedule& s) {
  std::erase_if(s.rounds, [](const Round& r) { return r.steps.empty(); });
}

// Common argument checks of the movement collectives.
// Every rank on one node, with the communicator's shared window (coll/shm.h).
inline bool on_shared_window(const CollArgs& a) { return a.shape.nodes == 1 && a.shm_slot_bytes > 0; }

inline Status check_args(const CollArgs& a) {
  if (a.size < 1 || a.rank < 0 || a.rank >= a.size) return Status::InvalidRank;
  if (a.root < 0 || a.root >= a.size) return Status::InvalidRoot;
  if (a.elem_size == 0) return Status::InvalidType;
  return Status::Ok;
}

// Shared-window algorithms (coll/shm.h): a full synchronisation in round `r`:
// Signal, then Wait for every other rank.
inline void sync_all(Round& r, int rank, int size) {
  r.steps.push_back(Schedule::signal());
  for (int q = 0; q < size; ++q)
    if (q != rank) r.steps.push_back(Schedule::wait(q));
}

// Cost-model helpers: p = ranks, n = bytes.
inline double alpha(const CollArgs& a, const CostModel& m) { return m.link(a.shape).alpha_us; }
inline double beta(const CollArgs& a, const CostModel& m) { return m.link(a.shape).beta_us_per_b; }
// α of one message of `bytes`, with what its protocol adds (CostModel::protocol:
// the network's rendezvous handshake, or a node's single copy, which saves).
inline double alpha(const CollArgs& a, const CostModel& m, double bytes) {
  return alpha(a, m) + m.protocol(a.shape, bytes);
}
// The protocol terms of `rounds` messages of first, first·f, first·f², ... bytes
// (f = 2: recursive doubling; f = 0.5: recursive halving).
inline double protocol_rounds(const CollArgs& a, const CostModel& m, double first, double rounds, double f) {
  double c = 0, bytes = first;
  for (int k = 0; k < static_cast<int>(rounds); ++k, bytes *= f) c += m.protocol(a.shape, bytes);
  return c;
}
inline double vector_bytes(const CollArgs& a) {  // Bcast: the whole message
  return static_cast<double>(a.count * a.elem_size);
}
// Bytes of the whole gathered / scattered result (count per rank, or sum of counts).
inline double result_bytes(const CollArgs& a) {
  Blocks b;
  if (result_blocks(a, b) != Status::Ok) return 0;
  return static_cast<double>(b.total());
}

}  // namespace chorus::coll::pat

namespace chorus::coll {

// Builders shared by a collective and its v-variant: each handles both kinds (the
// layouts come from pat::result_blocks / pat::send_blocks) and is defined in the
// file of the plain collective, e.g. allgather_ring.cc.
Status build_allgather_ring(const CollArgs& a, Schedule& s);
Status build_allgather_recursive_doubling(const CollArgs& a, Schedule& s);
Status build_allgather_bruck(const CollArgs& a, Schedule& s);
Status build_gather_binomial(const CollArgs& a, Schedule& s);
Status build_gather_linear(const CollArgs& a, Schedule& s);
Status build_scatter_binomial(const CollArgs& a, Schedule& s);
Status build_scatter_linear(const CollArgs& a, Schedule& s);
Status build_alltoall_pairwise(const CollArgs& a, Schedule& s);
// Their cost estimates, shared the same way (the block layouts come from
// pat::result_blocks / pat::send_blocks).
double cost_allgather_ring(const CollArgs& a, const CostModel& m);
double cost_allgather_recursive_doubling(const CollArgs& a, const CostModel& m);
double cost_allgather_bruck(const CollArgs& a, const CostModel& m);
double cost_alltoall_pairwise(const CollArgs& a, const CostModel& m);

}  // namespace chorus::coll
