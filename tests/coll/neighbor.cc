// Neighbourhood collectives and MPI_Alltoallw, blocking, non-blocking and persistent.
//
// Topologies: Cartesian 1-D periodic and not, 2-D from MPI_Dims_create (periodic in
// the first dimension only), a graph (ring plus a diameter, symmetric, with repeated
// edges and self-loops at small sizes) and an asymmetric distributed graph (repeated
// edges, a self-loop, sources listed in another order than the destinations).
// The neighbour lists are read back through the topology queries; what each receive
// block must hold comes from MPI's matching rules: on a grid, receive block k holds
// the source's send block k^1 (MPI-4.1 §8.6); on a graph, the j-th edge s -> r in
// s's list feeds the j-th occurrence of s in r's list. Receive blocks of
// MPI_PROC_NULL neighbours, holes of derived types and gaps keep the sentinel.
#include <algorithm>
#include <cstring>
#include <map>
#include <sstream>

#include "coll_common.h"

namespace {

using coll::Bytes;
using coll::Case;
using coll::CasePtr;
using coll::MoveType;
using coll::TypePair;
using coll::kSentinel;

constexpr size_t kGuard = 16;

// ---- topologies -------------------------------------------------------------------

struct Nbrs {
  std::string name;
  MPI_Comm comm = MPI_COMM_NULL;
  bool cart = false;
  std::vector<int> src, dst;               // this rank's lists, from the queries
  std::vector<std::vector<int>> dst_of;    // graphs: every rank's destinations
  // For receive block k: the send block of src[k] that it holds.
  std::vector<int> from_block;
};

void finish(Nbrs& n) {
  const int me = coll::comm_rank(n.comm);
  n.from_block.assign(n.src.size(), 0);
  std::map<int, int> seen;
  for (size_t k = 0; k < n.src.size(); ++k) {
    const int s = n.src[k];
    if (s == MPI_PROC_NULL) continue;
    if (n.cart) {
      n.from_block[k] = static_cast<int>(k ^ 1u);
      continue;
    }
    int want = seen[s]++;
    const auto& d = n.dst_of[static_cast<size_t>(s)];
    bool found = false;
    for (size_t j = 0; j < d.size() && !found; ++j)
      if (d[j] == me && want-- == 0) {
        n.from_block[k] = static_cast<int>(j);
        found = true;
      }
    INFO(n.name << ": rank " << me << " source " << s);
    REQUIRE(found);
  }
}

Nbrs cart_topo(const std::vector<int>& dims, const std::vector<int>& periods) {
  Nbrs n;
  std::ostringstream s;
  s << "cart";
  for (size_t d = 0; d < dims.size(); ++d) s << " " << dims[d] << (periods[d] ? "p" : "");
  n.name = s.str();
  n.cart = true;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, static_cast<int>(dims.size()), dims.data(), periods.data(), 0,
                         &n.comm));
  REQUIRE(n.comm != MPI_COMM_NULL);
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    int lo, hi;
    MPI_OK(MPI_Cart_shift(n.comm, d, 1, &lo, &hi));
    n.src.push_back(lo);
    n.src.push_back(hi);
  }
  n.dst = n.src;
  finish(n);
  return n;
}

// Ring plus, for even p >= 4, the diameter i <-> i + p/2. At p = 1 and 2 the ring's
// two edges name the same rank (self-loops, a repeated edge).
Nbrs graph_topo() {
  const int p = jobs::size();
  Nbrs n;
  n.name = "graph";
  std::vector<int> index, edges;
  for (int i = 0; i < p; ++i) {
    n.dst_of.push_back({(i + 1) % p, (i - 1 + p) % p});
    if (p >= 4 && p % 2 == 0) n.dst_of.back().push_back((i + p / 2) % p);
    edges.insert(edges.end(), n.dst_of.back().begin(), n.dst_of.back().end());
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, p, index.data(), edges.data(), 0, &n.comm));
  int count = -1;
  MPI_OK(MPI_Graph_neighbors_count(n.comm, jobs::rank(), &count));
  n.src.assign(static_cast<size_t>(count), -1);
  MPI_OK(MPI_Graph_neighbors(n.comm, jobs::rank(), count, n.src.data()));
  CHECK(n.src == n.dst_of[static_cast<size_t>(jobs::rank())]);
  n.dst = n.src;
  finish(n);
  return n;
}

// Rank r sends to r+1 twice and to r+3; rank 0 also to itself. Each rank lists its
// sources in reverse order of the edges that reach it.
Nbrs dist_graph_topo() {
  const int p = jobs::size(), me = jobs::rank();
  Nbrs n;
  n.name = "dist graph";
  n.dst_of.resize(static_cast<size_t>(p));
  std::vector<std::vector<int>> src_of(static_cast<size_t>(p));
  for (int r = 0; r < p; ++r) {
    std::vector<int> out = {(r + 1) % p, (r + 3) % p, (r + 1) % p};
    if (r == 0) out.insert(out.begin() + 1, 0);
    for (int d : out) {
      n.dst_of[static_cast<size_t>(r)].push_back(d);
      src_of[static_cast<size_t>(d)].push_back(r);
    }
  }
  std::vector<int> src = src_of[static_cast<size_t>(me)];
  std::reverse(src.begin(), src.end());
  const std::vector<int>& dst = n.dst_of[static_cast<size_t>(me)];
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, static_cast<int>(src.size()), src.data(),
                                        MPI_UNWEIGHTED, static_cast<int>(dst.size()), dst.data(),
                                        MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &n.comm));
  int in = -1, out = -1, weighted = -1;
  MPI_OK(MPI_Dist_graph_neighbors_count(n.comm, &in, &out, &weighted));
  n.src.assign(static_cast<size_t>(in), -1);
  n.dst.assign(static_cast<size_t>(out), -1);
  MPI_OK(MPI_Dist_graph_neighbors(n.comm, in, n.src.data(), MPI_UNWEIGHTED, out, n.dst.data(),
                                  MPI_UNWEIGHTED));
  CHECK(n.src == src);
  CHECK(n.dst == dst);
  finish(n);
  return n;
}

// ---- cases --------------------------------------------------------------------------

enum class Op { Allgather, Allgatherv, Alltoall, Alltoallv, Alltoallw };
const char* op_name(Op o) {
  switch (o) {
    case Op::Allgather: return "neighbor_allgather";
    case Op::Allgatherv: return "neighbor_allgatherv";
    case Op::Alltoall: return "neighbor_alltoall";
    case Op::Alltoallv: return "neighbor_alltoallv";
    case Op::Alltoallw: return "neighbor_alltoallw";
  }
  return "?";
}

// Type pairs alltoallw mixes per block: all carry ints.
const TypePair& w_pair(int i) {
  static const char* names[] = {"int", "vec->int", "int->vec", "padded->vec", "vec"};
  return coll::type_pair(names[i % 5]);
}

class NeighborCase : public Case {
 public:
  NeighborCase(const Nbrs& n, Op op, const TypePair& t, long count)
      : n_(n), op_(op), t_(t), count_(count), me_(coll::comm_rank(n.comm)) {
    const bool a2a = op != Op::Allgather && op != Op::Allgatherv;
    const size_t sblocks = a2a ? n.dst.size() : 1;
    // Send side: block j, forward order, a gap of one element (w: 8 bytes) after each.
    size_t pos = 0;
    for (size_t j = 0; j < sblocks; ++j) {
      const TypePair& p = pair(me_, static_cast<int>(j));
      const long u = units(me_, static_cast<int>(j));
      sc_.push_back(static_cast<int>(u * p.smul));
      stype_.push_back(p.send->type);
      sdisp_.push_back(static_cast<MPI_Aint>(pos));
      pos += static_cast<size_t>(u * p.smul) * p.send->extent + (op == Op::Alltoallw ? 8 : p.send->extent);
    }
    send_.assign(pos + kGuard, kSentinel);
    // Receive side: reverse order, gaps as well; MPI_PROC_NULL blocks keep a place.
    pos = 0;
    rc_.resize(n.src.size());
    rtype_.resize(n.src.size());
    rdisp_.resize(n.src.size());
    for (size_t k = n.src.size(); k-- > 0;) {
      const int s = n.src[k];
      const int j = s == MPI_PROC_NULL ? 0 : n.from_block[k];
      const TypePair& p = pair(s == MPI_PROC_NULL ? 0 : s, j);
      const long u = s == MPI_PROC_NULL ? count : units(s, a2a ? j : 0);
      rc_[k] = static_cast<int>(u * p.rmul);
      rtype_[k] = p.recv->type;
      pos += op == Op::Alltoallw ? 8 : p.recv->extent;
      rdisp_[k] = static_cast<MPI_Aint>(pos);
      pos += static_cast<size_t>(rc_[k]) * p.recv->extent;
    }
    recv_.assign(pos + kGuard, kSentinel);
    // Allgather / alltoall: the layout MPI prescribes, block k at k * rc elements of
    // the receive type (alltoall: send block j at j * sc of the send type).
    if (!v()) {
      const size_t rc = static_cast<size_t>(count_ * t.rmul), sc = static_cast<size_t>(count_ * t.smul);
      for (size_t k = 0; k < rdisp_.size(); ++k) rdisp_[k] = static_cast<MPI_Aint>(k * rc * t.recv->extent);
      for (size_t j = 0; j < sdisp_.size(); ++j) sdisp_[j] = static_cast<MPI_Aint>(j * sc * t.send->extent);
      send_.assign(std::max<size_t>(sdisp_.size(), 1) * sc * t.send->extent + kGuard, kSentinel);
      recv_.assign(rdisp_.size() * rc * t.recv->extent + kGuard, kSentinel);
    }
    // Element displacements for the v-variants (blocks sit at multiples of the extent).
    for (size_t j = 0; j < sdisp_.size(); ++j)
      sdisp_el_.push_back(static_cast<int>(sdisp_[j] / static_cast<MPI_Aint>(t.send->extent)));
    for (size_t k = 0; k < rdisp_.size(); ++k)
      rdisp_el_.push_back(static_cast<int>(rdisp_[k] / static_cast<MPI_Aint>(t.recv->extent)));
  }

  std::string name() const override {
    std::ostringstream s;
    s << op_name(op_) << " on " << n_.name << " " << (op_ == Op::Alltoallw ? "mixed types" : t_.name)
      << " count=" << count_ << " (rank " << me_ << ")";
    return s.str();
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    for (size_t j = 0; j < sc_.size(); ++j)
      coll::put(send_, static_cast<size_t>(sdisp_[j]), *pair(me_, static_cast<int>(j)).send, sc_[j], me_,
                static_cast<int>(j), seed);
  }
  int run_blocking() override { return call(nullptr, false); }
  int start(MPI_Request* r) override { return call(r, false); }
  int init(MPI_Request* r) override { return call(r, true); }
  bool check(int seed, std::string* why) override {
    Bytes want_send(send_.size(), kSentinel), want(recv_.size(), kSentinel);
    for (size_t j = 0; j < sc_.size(); ++j)
      coll::put(want_send, static_cast<size_t>(sdisp_[j]), *pair(me_, static_cast<int>(j)).send, sc_[j],
                me_, static_cast<int>(j), seed);
    const bool a2a = op_ != Op::Allgather && op_ != Op::Allgatherv;
    for (size_t k = 0; k < n_.src.size(); ++k) {
      const int s = n_.src[k];
      if (s == MPI_PROC_NULL) continue;
      const int j = a2a ? n_.from_block[k] : 0;
      coll::put(want, static_cast<size_t>(rdisp_[k]), *pair(s, j).recv, rc_[k], s, j, seed);
    }
    if (!coll::same_image(send_, want_send, why)) {
      *why = "send buffer: " + *why;
      return false;
    }
    if (!coll::same_image(recv_, want, why)) {
      *why = "receive buffer: " + *why;
      return false;
    }
    return true;
  }

 private:
  // Elements (in pair units) of send block j of rank s: varying for v / w.
  long units(int s, int j) const {
    if (op_ == Op::Allgather || op_ == Op::Alltoall || count_ == 0) return count_;
    return count_ + (s + 2 * j) % 3 - 1;
  }
  const TypePair& pair(int s, int j) const { return op_ == Op::Alltoallw ? w_pair(s + j) : t_; }
  bool v() const { return op_ != Op::Allgather && op_ != Op::Alltoall; }

  int call(MPI_Request* r, bool persistent) {
    void* rb = recv_.data();
    const void* sb = send_.data();
    const MPI_Comm c = n_.comm;
    const MPI_Datatype st = t_.send->type, rt = t_.recv->type;
    const int sc = static_cast<int>(count_ * t_.smul);
    const int rc = static_cast<int>(count_ * t_.rmul);
    const MPI_Info i = MPI_INFO_NULL;
    switch (op_) {
      case Op::Allgather:
        return !r ? MPI_Neighbor_allgather(sb, sc, st, rb, rc, rt, c)
               : persistent ? MPI_Neighbor_allgather_init(sb, sc, st, rb, rc, rt, c, i, r)
                            : MPI_Ineighbor_allgather(sb, sc, st, rb, rc, rt, c, r);
      case Op::Alltoall:
        return !r ? MPI_Neighbor_alltoall(sb, sc, st, rb, rc, rt, c)
               : persistent ? MPI_Neighbor_alltoall_init(sb, sc, st, rb, rc, rt, c, i, r)
                            : MPI_Ineighbor_alltoall(sb, sc, st, rb, rc, rt, c, r);
      case Op::Allgatherv:
        return !r ? MPI_Neighbor_allgatherv(sb, sc_[0], st, rb, rc_.data(), rdisp_el_.data(), rt, c)
               : persistent
                   ? MPI_Neighbor_allgatherv_init(sb, sc_[0], st, rb, rc_.data(), rdisp_el_.data(), rt, c, i, r)
                   : MPI_Ineighbor_allgatherv(sb, sc_[0], st, rb, rc_.data(), rdisp_el_.data(), rt, c, r);
      case Op::Alltoallv:
        return !r ? MPI_Neighbor_alltoallv(sb, sc_.data(), sdisp_el_.data(), st, rb, rc_.data(),
                                           rdisp_el_.data(), rt, c)
               : persistent ? MPI_Neighbor_alltoallv_init(sb, sc_.data(), sdisp_el_.data(), st, rb, rc_.data(),
                                                          rdisp_el_.data(), rt, c, i, r)
                            : MPI_Ineighbor_alltoallv(sb, sc_.data(), sdisp_el_.data(), st, rb, rc_.data(),
                                                      rdisp_el_.data(), rt, c, r);
      case Op::Alltoallw:
        return !r ? MPI_Neighbor_alltoallw(sb, sc_.data(), sdisp_.data(), stype_.data(), rb, rc_.data(),
                                           rdisp_.data(), rtype_.data(), c)
               : persistent
                   ? MPI_Neighbor_alltoallw_init(sb, sc_.data(), sdisp_.data(), stype_.data(), rb, rc_.data(),
                                                 rdisp_.data(), rtype_.data(), c, i, r)
                   : MPI_Ineighbor_alltoallw(sb, sc_.data(), sdisp_.data(), stype_.data(), rb, rc_.data(),
                                             rdisp_.data(), rtype_.data(), c, r);
    }
    return MPI_ERR_INTERN;
  }

  const Nbrs& n_;
  Op op_;
  const TypePair& t_;
  long count_;
  int me_;
  std::vector<int> sc_, rc_, sdisp_el_, rdisp_el_;
  std::vector<MPI_Aint> sdisp_, rdisp_;
  std::vector<MPI_Datatype> stype_, rtype_;
  Bytes send_, recv_;
};

// Every op x {int, vec, vec->int, int->vec, neg_lb->double} x counts {0, 1, 3}:
// blocking, then all started at once non-blocking, then persistent.
void run_all(const Nbrs& n, int seed) {
  std::vector<CasePtr> cases;
  for (Op op : {Op::Allgather, Op::Allgatherv, Op::Alltoall, Op::Alltoallv, Op::Alltoallw}) {
    for (const char* t : {"int", "vec", "vec->int", "int->vec", "neg_lb->double"}) {
      if (op == Op::Alltoallw && std::strcmp(t, "int") != 0) continue;  // types chosen per block
      for (long count : {0L, 1L, 3L}) {
        cases.push_back(std::make_unique<NeighborCase>(n, op, coll::type_pair(t), count));
      }
    }
  }
  coll::run_blocking(cases, seed);
  coll::run_nonblocking(cases, seed + 1);
  coll::run_persistent(cases, seed + 2, 2);
}

void free_topo(Nbrs& n) {
  if (n.comm != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&n.comm));
}

}  // namespace

TEST_CASE("Neighborhood collectives on a periodic ring", "[coll][neighbor]") {
  Nbrs n = cart_topo({jobs::size()}, {1});
  run_all(n, 11);
  free_topo(n);
}

TEST_CASE("Neighborhood collectives on a non-periodic line", "[coll][neighbor]") {
  Nbrs n = cart_topo({jobs::size()}, {0});
  run_all(n, 21);
  free_topo(n);
}

TEST_CASE("Neighborhood collectives on a 2-D grid from MPI_Dims_create", "[coll][neighbor]") {
  std::vector<int> dims(2, 0);
  MPI_OK(MPI_Dims_create(jobs::size(), 2, dims.data()));
  Nbrs n = cart_topo(dims, {1, 0});
  run_all(n, 31);
  free_topo(n);
}

TEST_CASE("Neighborhood collectives on a graph", "[coll][neighbor]") {
  Nbrs n = graph_topo();
  run_all(n, 41);
  free_topo(n);
}

TEST_CASE("Neighborhood collectives on an asymmetric distributed graph", "[coll][neighbor]") {
  Nbrs n = dist_graph_topo();
  run_all(n, 51);
  free_topo(n);
}

// ---- MPI_Alltoallw on MPI_COMM_WORLD -------------------------------------------------

namespace {

// Per-peer type pairs and counts (including empty blocks), byte displacements in a
// shuffled order with gaps. In place: symmetric counts and one type per pair of ranks.
class AlltoallwCase : public Case {
 public:
  AlltoallwCase(long count, bool in_place, bool contiguous)
      : count_(count), ip_(in_place), contig_(contiguous), p_(jobs::size()), me_(jobs::rank()) {
    size_t spos = 4, rpos = 8;
    for (int j = 0; j < p_; ++j) {
      // Send side: forward order with a 4-byte gap; receive side: reverse order.
      const TypePair& sp = pair(me_, j);
      sc_.push_back(static_cast<int>(units(me_, j) * sp.smul));
      st_.push_back(sp.send->type);
      sd_.push_back(static_cast<int>(spos));
      spos += static_cast<size_t>(sc_.back()) * sp.send->extent + 4;
    }
    rc_.resize(static_cast<size_t>(p_));
    rt_.resize(static_cast<size_t>(p_));
    rd_.resize(static_cast<size_t>(p_));
    for (int j = p_; j-- > 0;) {
      const TypePair& rp = pair(j, me_);
      rc_[static_cast<size_t>(j)] = static_cast<int>(units(j, me_) * rp.rmul);
      rt_[static_cast<size_t>(j)] = rp.recv->type;
      rd_[static_cast<size_t>(j)] = static_cast<int>(rpos);
      rpos += static_cast<size_t>(rc_[static_cast<size_t>(j)]) * rp.recv->extent + 8;
    }
    send_.assign(spos + kGuard, kSentinel);
    recv_.assign(rpos + kGuard, kSentinel);
  }
  std::string name() const override {
    std::ostringstream s;
    s << "alltoallw count=" << count_ << (ip_ ? " in_place" : "") << (contig_ ? " contiguous" : " mixed")
      << " (rank " << me_ << ")";
    return s.str();
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    for (int j = 0; j < p_; ++j) {
      if (ip_) {
        // In place the input sits in the receive buffer, laid out by the receive side.
        coll::put(recv_, static_cast<size_t>(rd_[j]), *pair(j, me_).recv, rc_[j], me_, j, seed);
      } else {
        coll::put(send_, static_cast<size_t>(sd_[j]), *pair(me_, j).send, sc_[j], me_, j, seed);
      }
    }
  }
  int run_blocking() override {
    return MPI_Alltoallw(sb(), sc_.data(), sd_.data(), st_.data(), recv_.data(), rc_.data(), rd_.data(),
                         rt_.data(), MPI_COMM_WORLD);
  }
  int start(MPI_Request* r) override {
    return MPI_Ialltoallw(sb(), sc_.data(), sd_.data(), st_.data(), recv_.data(), rc_.data(), rd_.data(),
                          rt_.data(), MPI_COMM_WORLD, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Alltoallw_init(sb(), sc_.data(), sd_.data(), st_.data(), recv_.data(), rc_.data(),
                              rd_.data(), rt_.data(), MPI_COMM_WORLD, MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    Bytes want_send(send_.size(), kSentinel), want(recv_.size(), kSentinel);
    for (int j = 0; j < p_; ++j) {
      if (!ip_) coll::put(want_send, static_cast<size_t>(sd_[j]), *pair(me_, j).send, sc_[j], me_, j, seed);
      coll::put(want, static_cast<size_t>(rd_[j]), *pair(j, me_).recv, rc_[j], j, me_, seed);
    }
    if (!coll::same_image(send_, want_send, why)) {
      *why = "send buffer: " + *why;
      return false;
    }
    if (!coll::same_image(recv_, want, why)) {
      *why = "receive buffer: " + *why;
      return false;
    }
    return true;
  }

 private:
  // In place the pair must be the same both ways (MPI_IN_PLACE: the receive side's
  // arguments describe the data sent as well).
  const TypePair& pair(int s, int d) const {
    if (contig_) return coll::type_pair("int");
    if (ip_) return coll::type_pair((s + d) % 2 ? "vec" : "int");
    return w_pair(s + 2 * d);
  }
  long units(int s, int d) const { return count_ == 0 ? 0 : count_ + (s + d) % 3 - 1; }
  const void* sb() const { return ip_ ? MPI_IN_PLACE : send_.data(); }

  long count_;
  bool ip_, contig_;
  int p_, me_;
  std::vector<int> sc_, sd_, rc_, rd_;
  std::vector<MPI_Datatype> st_, rt_;
  Bytes send_, recv_;
};

}  // namespace

TEST_CASE("Alltoallw: per-peer types, empty blocks, in place", "[coll][alltoallw]") {
  std::vector<CasePtr> cases;
  for (long count : {0L, 1L, 4L})
    for (bool ip : {false, true})
      for (bool contig : {false, true}) cases.push_back(std::make_unique<AlltoallwCase>(count, ip, contig));
  coll::run_blocking(cases, 61);
  coll::run_nonblocking(cases, 62);
  coll::run_persistent(cases, 63, 2);
}

// ---- errors -----------------------------------------------------------------------------

using coll::expect_class;

TEST_CASE("Neighborhood collective on a communicator without topology: MPI_ERR_TOPOLOGY",
          "[coll][neighbor][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> a(64), b(64), counts(8, 1), displs(8, 0);
  std::vector<MPI_Aint> adispls(8, 0);
  std::vector<MPI_Datatype> types(8, MPI_INT);
  MPI_Request r = MPI_REQUEST_NULL;
  expect_class(MPI_Neighbor_allgather(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, w), MPI_ERR_TOPOLOGY,
               "Neighbor_allgather");
  expect_class(MPI_Neighbor_allgatherv(a.data(), 1, MPI_INT, b.data(), counts.data(), displs.data(), MPI_INT, w),
               MPI_ERR_TOPOLOGY, "Neighbor_allgatherv");
  expect_class(MPI_Neighbor_alltoall(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, w), MPI_ERR_TOPOLOGY,
               "Neighbor_alltoall");
  expect_class(MPI_Neighbor_alltoallv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(), counts.data(),
                                      displs.data(), MPI_INT, w),
               MPI_ERR_TOPOLOGY, "Neighbor_alltoallv");
  expect_class(MPI_Neighbor_alltoallw(a.data(), counts.data(), adispls.data(), types.data(), b.data(),
                                      counts.data(), adispls.data(), types.data(), w),
               MPI_ERR_TOPOLOGY, "Neighbor_alltoallw");
  expect_class(MPI_Ineighbor_alltoall(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, w, &r), MPI_ERR_TOPOLOGY,
               "Ineighbor_alltoall");
  CHECK(r == MPI_REQUEST_NULL);
  expect_class(MPI_Neighbor_allgather_init(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, w, MPI_INFO_NULL, &r),
               MPI_ERR_TOPOLOGY, "Neighbor_allgather_init");
  CHECK(r == MPI_REQUEST_NULL);
  // The message names the call and the reason.
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  const int rc = MPI_Neighbor_allgather(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, w);
  MPI_OK(MPI_Error_string(rc, msg, &len));
  CHECK(std::string(msg, static_cast<size_t>(len)).find("MPI_Neighbor_allgather") != std::string::npos);
  CHECK(std::string(msg, static_cast<size_t>(len)).find("topology") != std::string::npos);
}

TEST_CASE("Alltoallw and neighborhood argument errors", "[coll][alltoallw][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size();
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> a(4 * p + 4), b(4 * p + 4), counts(p, 1), displs(p, 0);
  std::vector<MPI_Datatype> types(p, MPI_INT);
  std::vector<int> neg = counts;
  neg[p - 1] = -1;
  expect_class(MPI_Alltoallw(a.data(), neg.data(), displs.data(), types.data(), b.data(), counts.data(),
                             displs.data(), types.data(), w),
               MPI_ERR_COUNT, "Alltoallw negative sendcounts");
  expect_class(MPI_Alltoallw(a.data(), counts.data(), displs.data(), types.data(), b.data(), neg.data(),
                             displs.data(), types.data(), w),
               MPI_ERR_COUNT, "Alltoallw negative recvcounts");
  expect_class(MPI_Alltoallw(a.data(), counts.data(), displs.data(), nullptr, b.data(), counts.data(),
                             displs.data(), types.data(), w),
               MPI_ERR_ARG, "Alltoallw NULL sendtypes");
  expect_class(MPI_Alltoallw(a.data(), counts.data(), nullptr, types.data(), b.data(), counts.data(),
                             displs.data(), types.data(), w),
               MPI_ERR_ARG, "Alltoallw NULL sdispls");
  MPI_Datatype loose = MPI_DATATYPE_NULL;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &loose));  // never committed
  std::vector<MPI_Datatype> bad = types;
  bad[0] = loose;
  expect_class(MPI_Alltoallw(a.data(), counts.data(), displs.data(), types.data(), b.data(), counts.data(),
                             displs.data(), bad.data(), w),
               MPI_ERR_TYPE, "Alltoallw uncommitted recvtypes[0]");
  bad[0] = MPI_DATATYPE_NULL;
  expect_class(MPI_Alltoallw(a.data(), counts.data(), displs.data(), bad.data(), b.data(), counts.data(),
                             displs.data(), types.data(), w),
               MPI_ERR_TYPE, "Alltoallw MPI_DATATYPE_NULL in sendtypes");
  // A zero count needs no valid type.
  std::vector<int> zero(p, 0);
  MPI_OK(MPI_Alltoallw(a.data(), zero.data(), displs.data(), bad.data(), b.data(), zero.data(),
                       displs.data(), bad.data(), w));
  MPI_OK(MPI_Type_free(&loose));
  MPI_Request r = MPI_REQUEST_NULL;
  expect_class(MPI_Ialltoallw(a.data(), neg.data(), displs.data(), types.data(), b.data(), counts.data(),
                              displs.data(), types.data(), w, &r),
               MPI_ERR_COUNT, "Ialltoallw negative sendcounts");
  CHECK(r == MPI_REQUEST_NULL);
  // Neighbourhood: MPI_IN_PLACE is not allowed.
  MPI_Comm ring = MPI_COMM_NULL;
  const int periods = 1;
  MPI_OK(MPI_Cart_create(w, 1, &p, &periods, 0, &ring));
  {
    jobs::ErrorsReturn guard2(ring);
    expect_class(MPI_Neighbor_alltoall(MPI_IN_PLACE, 1, MPI_INT, b.data(), 1, MPI_INT, ring),
                 MPI_ERR_BUFFER, "Neighbor_alltoall MPI_IN_PLACE");
    expect_class(MPI_Neighbor_allgather(a.data(), -1, MPI_INT, b.data(), 1, MPI_INT, ring), MPI_ERR_COUNT,
                 "Neighbor_allgather negative sendcount");
  }
  MPI_OK(MPI_Comm_free(&ring));
}
