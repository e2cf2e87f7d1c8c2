// Shared pieces of the reduction algorithms (allreduce, reduce, reduce_scatter(_block),
// scan, exscan). Generic rank arithmetic (logs, rotation, binomial trees, splits, the
// skip-empty send/recv/copy helpers) comes from coll/patterns.h; this header adds
// what only reductions need:
//
//   operand order   A non-commutative op must yield x0 (op) x1 (op) ... (op) x_{p-1}.
//                   The order-preserving algorithms keep every partial a reduction
//                   over a contiguous range of ranks and combine two partials with
//                   the lower range as the left operand (`combine`).
//   folding         p' = largest power of two <= p; see `Fold`.
//   halving         windows of recursive halving with ascending distance; see
//                   `halving_windows`.
//   fragments       schedule pieces used by more than one algorithm: fold in/out,
//                   binomial reduce and bcast, recursive-halving reduce-scatter,
//                   recursive-doubling allgather, halving gather.
//   reduce_scatter  the builders shared by reduce_scatter and reduce_scatter_block,
//                   defined in reduce_scatter_<algo>.cc.
#pragma once
#include <algorithm>
#include <cstddef>
#include <vector>

#include "coll/patterns.h"

namespace chorus::coll::red {

using pat::at;

// This rank's input vector: the user's send buffer, or kRecv for MPI_IN_PLACE.
inline BufRef input(const CollArgs& a, std::size_t off = 0) {
  return at(a.in_place ? kRecv : kSend, off);
}

// Bytes of the vector of Reduce / Allreduce / Scan / Exscan.
inline std::size_t vector_bytes(const CollArgs& a) { return a.count * a.elem_size; }

// acc = in (op) acc when `in` holds the lower ranks' partial, else acc = acc (op) in.
inline void combine(Round& r, BufRef in, BufRef acc, std::size_t bytes, bool in_is_lower) {
  if (!bytes) return;
  r.steps.push_back(in_is_lower ? Schedule::reduce_left(in, acc, bytes)
                                : Schedule::reduce_right(in, acc, bytes));
}

// ---- cost model ------------------------------------------------------------------

struct Abg {
  double alpha;  // µs per message
  double beta;   // µs per byte moved
  double gamma;  // µs per byte reduced
};
inline Abg abg(const CollArgs& a, const CostModel& m) {
  return {pat::alpha(a, m), pat::beta(a, m), m.gamma(a.shape)};
}
// The same for an algorithm that moves and reduces pieces of `piece` bytes at a
// time: beyond the cache, memory traffic makes β and γ dearer (CostModel).
inline Abg abg_pieces(const CollArgs& a, const CostModel& m, double piece) {
  Abg c = abg(a, m);
  if (piece > static_cast<double>(m.cache_bytes)) {
    c.beta *= m.uncached_factor;
    c.gamma *= m.uncached_factor;
  }
  return c;
}

// ---- folding a non-power-of-two rank count -------------------------------------
//
// The first 2·rem ranks (rem = p - p') pair up as (2i, 2i+1): the even one hands its
// input to the odd one ("fold in") and sits out until the result comes back ("fold
// out"); the others are renumbered densely. Newranks keep rank order, and newrank i
// stands for the contiguous ranks {2i, 2i+1} (i < rem) or {i + rem}.
//
//   p = 6, p' = 4, rem = 2:   rank      0  1  2  3  4  5
//                             newrank   -  0  -  1  2  3
struct Fold {
  int p, pof2, rem;
  explicit Fold(int size) : p(size), pof2(pat::floor_pow2(size)), rem(size - pof2) {}
  bool sits_out(int r) const { return r < 2 * rem && r % 2 == 0; }
  bool absorbs(int r) const { return r < 2 * rem && r % 2 == 1; }  // holds r-1's input too
  int newrank(int r) const { return r < 2 * rem ? r / 2 : r - rem; }  // not for sits_out
  int oldrank(int v) const { return v < rem ? 2 * v + 1 : v + rem; }
  int first_rank(int v) const { return v < rem ? 2 * v : v + rem; }  // lowest rank v stands for
  int levels() const { return pat::ceil_log2(pof2); }
};

// Fold in: a rank that sits out sends `in` to r+1; the absorbing rank receives it
// into `tmp` and sets acc = x_{r-1} (op) acc (acc must already hold its own input).
inline void add_fold_in(Schedule& s, const Fold& f, int rank, BufRef in, BufRef acc, BufRef tmp,
                        std::size_t bytes) {
  if (f.sits_out(rank)) {
    pat::send(s.round(), rank + 1, in, bytes);
  } else if (f.absorbs(rank)) {
    Round& r = s.round();
    pat::recv(r, rank - 1, tmp, bytes);
    combine(r, tmp, acc, bytes, true);
  }
}

// Fold out: the absorbing rank returns the result in `acc` to r-1, which receives
// it into `out`.
inline void add_fold_out(Schedule& s, const Fold& f, int rank, BufRef acc, BufRef out,
                         std::size_t bytes) {
  if (f.absorbs(rank))
    pat::send(s.round(), rank - 1, acc, bytes);
  else if (f.sits_out(rank))
    pat::recv(s.round(), rank + 1, out, bytes);
}

// ---- recursive halving with ascending distance ------------------------------------
//
// Over p' newranks, step k pairs v with v ^ 2^k; both hold the same window and
// split it in half: the one with bit k clear keeps the lower half. After step k a
// window holds the reduction over the aligned group of 2^(k+1) consecutive newranks,
// so the lower partner's data is always the left operand: order is preserved.
// (The classic descending-distance variant pairs v with v + p'/2 first, which mixes
// non-adjacent ranks.) The final window of v is the bit-reversed position of v.
//
//   p' = 4, n = 8:  step 0 (v^1)         step 1 (v^2)
//     v=0 [0,8) -> [0,4)  ->  [0,2)
//     v=1 [0,8) -> [4,8)  ->  [4,6)
//     v=2 [0,8) -> [0,4)  ->  [2,4)
//     v=3 [0,8) -> [4,8)  ->  [6,8)
struct Range {
  std::size_t lo = 0, hi = 0;  // elements (or positions), [lo, hi)
  std::size_t len() const { return hi - lo; }
};

// w[0] = [0, n); w[k+1] = the window of newrank v after step k. Lower halves get
// the smaller half when the length is odd.
inline std::vector<Range> halving_windows(int v, const Fold& f, std::size_t n) {
  std::vector<Range> w{Range{0, n}};
  for (int k = 0; k < f.levels(); ++k) {
    const Range cur = w.back();
    const std::size_t mid = cur.lo + cur.len() / 2;
    w.push_back((v >> k) & 1 ? Range{mid, cur.hi} : Range{cur.lo, mid});
  }
  return w;
}

// The half of w[k] that the partner keeps at step k (the complement of w[k+1]).
inline Range other_half(const std::vector<Range>& w, int k) {
  const Range whole = w[static_cast<std::size_t>(k)], mine = w[static_cast<std::size_t>(k) + 1];
  return mine.lo == whole.lo ? Range{mine.hi, whole.hi} : Range{whole.lo, mine.lo};
}

// The fragments below take `off(i)`: the byte offset of element (or position) i in
// `acc`, so the same halving serves plain vectors (i·elem_size) and the permuted
// block layout of reduce_scatter (positions of variable size).
inline auto elements(std::size_t es) {
  return [es](std::size_t i) { return i * es; };
}

// Recursive-halving reduce-scatter among the newranks (ranks that sit out do not
// call this). On entry `acc` holds this rank's (folded) data; on return its window
// w.back() holds the reduction over all ranks. Receives into `tmp` (declared here).
template <class Off>
void add_halving_reduce_scatter(Schedule& s, const Fold& f, int v, const std::vector<Range>& w,
                                BufId acc, BufId tmp, Off off) {
  for (int k = 0; k < f.levels(); ++k) {
    const int partner = f.oldrank(v ^ (1 << k));
    const Range keep = w[static_cast<std::size_t>(k) + 1], give = other_half(w, k);
    const std::size_t keep_bytes = off(keep.hi) - off(keep.lo);
    Round& r = s.round();
    pat::send(r, partner, at(acc, off(give.lo)), off(give.hi) - off(give.lo));
    pat::recv(r, partner, at(tmp, 0), keep_bytes);
    combine(r, at(tmp, 0), at(acc, off(keep.lo)), keep_bytes, (v >> k) & 1);
    s.need_tmp(tmp, keep_bytes);
  }
}

// Recursive-doubling allgather undoing add_halving_reduce_scatter (descending
// distance): afterwards every newrank holds all of w[0] in `acc`.
template <class Off>
void add_doubling_allgather(Schedule& s, const Fold& f, int v, const std::vector<Range>& w,
                            BufId acc, Off off) {
  for (int k = f.levels() - 1; k >= 0; --k) {
    const int partner = f.oldrank(v ^ (1 << k));
    const Range mine = w[static_cast<std::size_t>(k) + 1], theirs = other_half(w, k);
    Round& r = s.round();
    pat::send(r, partner, at(acc, off(mine.lo)), off(mine.hi) - off(mine.lo));
    pat::recv(r, partner, at(acc, off(theirs.lo)), off(theirs.hi) - off(theirs.lo));
  }
}

// Gather undoing add_halving_reduce_scatter towards newrank g: at distance 2^k
// (descending) the partner whose bit k differs from g's sends its window and is done.
template <class Off>
void add_halving_gather(Schedule& s, const Fold& f, int v, int g, const std::vector<Range>& w,
                        BufId acc, Off off) {
  for (int k = f.levels() - 1; k >= 0; --k) {
    const int partner = f.oldrank(v ^ (1 << k));
    if (((v ^ g) >> k) & 1) {
      const Range mine = w[static_cast<std::size_t>(k) + 1];
      pat::send(s.round(), partner, at(acc, off(mine.lo)), off(mine.hi) - off(mine.lo));
      return;
    }
    const Range theirs = other_half(w, k);
    pat::recv(s.round(), partner, at(acc, off(theirs.lo)), off(theirs.hi) - off(theirs.lo));
  }
}

// ---- binomial trees ---------------------------------------------------------------

// Declare `ref` (if it is a temporary) large enough for `bytes` from its offset.
inline void need(Schedule& s, BufRef ref, std::size_t bytes) {
  if (ref.buf >= kTmp0) s.need_tmp(static_cast<BufId>(ref.buf), ref.off + bytes);
}

// Binomial-tree reduction of `bytes` towards `root`, over vranks (pat::binomial_*).
// Children are received smallest subtree first; each child's subtree is the vrank
// range right after the partial built so far, so with root 0 the result is in rank
// order. `in`: this rank's input; `acc`: where a rank with children (or the root)
// builds its partial; `tmp`: receive space (temporaries are declared here).
//
//   p = 6, root 0:  round 1: 1->0 3->2 5->4   round 2: 2->0   round 3: 4->0
inline void add_binomial_reduce(Schedule& s, int rank, int root, int p, BufRef in, BufRef acc,
                                BufRef tmp, std::size_t bytes) {
  if (!bytes) return;
  const int v = pat::to_vrank(rank, root, p);
  bool started = false;  // acc holds this rank's partial
  for (int c : pat::binomial_children(v, p)) {
    Round& r = s.round();
    need(s, acc, bytes);
    if (!started && in.buf != acc.buf) {
      // The first child's partial lands in acc itself and this rank's input, the
      // lower ranks, is the left operand: acc = in (op) acc, no copy of the input.
      pat::recv(r, pat::to_rank(c, root, p), acc, bytes);
      combine(r, in, acc, bytes, true);
    } else {
      pat::recv(r, pat::to_rank(c, root, p), tmp, bytes);
      if (!started) pat::copy(r, in, acc, bytes);
      need(s, tmp, bytes);
      combine(r, tmp, acc, bytes, false);
    }
    started = true;
  }
  if (v != 0)
    pat::send(s.round(), pat::to_rank(pat::binomial_parent(v), root, p), started ? acc : in, bytes);
  else if (!started)
    pat::copy(s.round(), in, acc, bytes);
}

// Binomial broadcast of `buf` from `root`: receive from the parent, then forward to
// the children, largest subtree first, one per round.
inline void add_binomial_bcast(Schedule& s, int rank, int root, int p, BufRef buf,
                               std::size_t bytes) {
  if (!bytes) return;
  const int v = pat::to_vrank(rank, root, p);
  if (v != 0) pat::recv(s.round(), pat::to_rank(pat::binomial_parent(v), root, p), buf, bytes);
  const std::vector<int> children = pat::binomial_children(v, p);
  for (auto c = children.rbegin(); c != children.rend(); ++c)
    pat::send(s.round(), pat::to_rank(*c, root, p), buf, bytes);
}

// ---- reduce_scatter and reduce_scatter_block ----------------------------------------
//
// Both kinds share one builder per algorithm; the block of rank i has `len[i]` bytes
// at `off[i]` of the input (packed in rank order), and the result goes to kRecv at 0.
inline Status input_blocks(const CollArgs& a, pat::Blocks& out) {
  if (a.kind == CollKind::ReduceScatter) return pat::listed_blocks(a.size, a.counts, {}, a.elem_size, out);
  out = pat::uniform_blocks(a.size, a.count, a.elem_size);
  return Status::Ok;
}
inline std::size_t max_block(const pat::Blocks& b) {
  std::size_t m = 0;
  for (std::size_t l : b.len) m = std::max(m, l);
  return m;
}

Status build_reduce_scatter_ring(const CollArgs& a, Schedule& s);
Status build_reduce_scatter_recursive_halving(const CollArgs& a, Schedule& s);
Status build_reduce_scatter_pairwise(const CollArgs& a, Schedule& s);
double cost_reduce_scatter_ring(const CollArgs& a, const CostModel& m);
double cost_reduce_scatter_recursive_halving(const CollArgs& a, const CostModel& m);
double cost_reduce_scatter_pairwise(const CollArgs& a, const CostModel& m);
bool hierarchical_rs_supports(const CollArgs& a);
Status build_reduce_scatter_hierarchical(const CollArgs& a, Schedule& s);
double cost_reduce_scatter_hierarchical(const CollArgs& a, const CostModel& m);

// Scan and exscan share one builder (scan_recursive_doubling.cc).
Status build_scan_recursive_doubling(const CollArgs& a, Schedule& s);
double cost_scan_recursive_doubling(const CollArgs& a, const CostModel& m);

// supports() of the algorithms that reorder operands.
inline bool commutative_only(const CollArgs& a) { return a.commutative; }

// ---- shared-window reductions (allreduce_shared_memory*.cc) ----------------------
// The result lands in kRecv of every rank (out_rank < 0: allreduce) or of out_rank
// only (reduce); the window traffic is the same.
bool shm_supports(const CollArgs& a);
bool shm_flat_supports(const CollArgs& a);  // and the vector fits one slot
Status build_shm_reduce(const CollArgs& a, Schedule& s, int out_rank);
Status build_shm_reduce_flat(const CollArgs& a, Schedule& s, int out_rank);
double cost_shm_reduce(const CollArgs& a, const CostModel& m);
double cost_shm_reduce_flat(const CollArgs& a, const CostModel& m);

}  // namespace chorus::coll::red
