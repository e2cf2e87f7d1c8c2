// Neighbourhood collectives: MPI_Neighbor_{allgather,allgatherv,alltoall,alltoallv,
// alltoallw}, blocking, non-blocking (MPI_Ineighbor_...) and persistent (..._init).
//
// The neighbours come from the communicator's topology (topo.cc keeps them for this
// rank): receive block k comes from sources[k], send block k goes to
// destinations[k]. Cartesian grids list, per dimension, the neighbour at -1 then at
// +1 (MPI_PROC_NULL off a non-periodic edge: the block is kept, nothing moves and
// the receive block stays untouched); graphs list MPI_Graph_neighbors both ways;
// distributed graphs their sources and destinations, repeats allowed. The schedule
// is built by the neighbour algorithms (lib/coll/algorithms/neighbor_linear.cc);
// alltoallw runs as alltoallv on packed bytes.
#include <algorithm>

#include "mpi/coll_call.h"

namespace chorus::mpi {
namespace {

using namespace detail;

// The communicator must carry a topology; its neighbour lists go into the args.
int neighbours(Call& c) {
  const Topology& t = c.comm->topo;
  if (t.kind != MPI_CART && t.kind != MPI_GRAPH && t.kind != MPI_DIST_GRAPH)
    return fail(c.comm, MPI_ERR_TOPOLOGY, "{}: communicator has no process topology", c.name);
  c.args.sources = t.sources;
  c.args.destinations = t.destinations;
  c.args.cart_pairs = t.kind == MPI_CART;
  return MPI_SUCCESS;
}

int begin_neighbor(Call& c, MPI_Comm comm, const void* sendbuf, const void* recvbuf) {
  CHORUS_TRY_MPI(begin(c, comm));
  CHORUS_TRY_MPI(neighbours(c));
  if (sendbuf == MPI_IN_PLACE || recvbuf == MPI_IN_PLACE)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is not valid for a neighbourhood collective",
                c.name);
  return MPI_SUCCESS;
}

int check_committed(Call& c, const TypeInfo* t, MPI_Datatype h, const char* arg) {
  if (!t->committed && !t->predefined)
    return fail(c.comm, MPI_ERR_TYPE, "{}: {} {} is not committed", c.name, arg, type_label(h));
  return MPI_SUCCESS;
}

int indegree(const Call& c) { return static_cast<int>(c.args.sources.size()); }
int outdegree(const Call& c) { return static_cast<int>(c.args.destinations.size()); }

// counts with the blocks of MPI_PROC_NULL neighbours emptied: nothing is packed or
// unpacked there, so a receive block of MPI_PROC_NULL keeps what the user had.
std::vector<std::size_t> real_blocks(std::vector<std::size_t> counts, const std::vector<int>& peers) {
  for (std::size_t k = 0; k < counts.size(); ++k)
    if (peers[k] < 0) counts[k] = 0;
  return counts;
}

// n blocks of `count` elements back to back: counts and displacements (elements).
void uniform(std::size_t n, std::size_t count, std::vector<std::size_t>& counts,
             std::vector<std::size_t>& displs) {
  counts.assign(n, count);
  displs.resize(n);
  for (std::size_t k = 0; k < n; ++k) displs[k] = k * count;
}

// Allgather (alltoall = false) and alltoall: one block size for every neighbour.
int uniform_blocks(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, MPI_Comm comm, bool alltoall) {
  CHORUS_TRY_MPI(begin_neighbor(c, comm, sendbuf, recvbuf));
  const TypeInfo *st, *rt;
  CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
  CHORUS_TRY_MPI(check_typed(c, recvbuf, recvcount, recvtype, &rt, "recvcount", "recvtype", "recvbuf"));
  const auto in = static_cast<std::size_t>(indegree(c)), out = static_cast<std::size_t>(outdegree(c));
  const std::size_t sbytes = static_cast<std::size_t>(sendcount) * st->size;
  const std::size_t rbytes = static_cast<std::size_t>(recvcount) * rt->size;
  // Every process moves blocks of one size (as in MPI_Allgather / MPI_Alltoall).
  if (in > 0 && out > 0 && sbytes != rbytes) return signature_mismatch(c, sbytes, rbytes);
  c.args.elem_size = 1;
  c.args.count = in > 0 ? rbytes : sbytes;
  std::vector<std::size_t> counts, displs;
  if (alltoall) {
    uniform(out, static_cast<std::size_t>(sendcount), counts, displs);
    c.job->send = bind_blocks(c.bound, sendbuf, real_blocks(counts, c.args.destinations), displs, st, true, false);
  } else {
    c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount), st, true, false);
  }
  uniform(in, static_cast<std::size_t>(recvcount), counts, displs);
  c.job->recv = bind_blocks(c.bound, recvbuf, real_blocks(counts, c.args.sources), displs, rt, false, true);
  return submit(c);
}

int allgatherv(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin_neighbor(c, comm, sendbuf, recvbuf));
  const TypeInfo *st, *rt;
  CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
  std::vector<std::size_t> rc, rd;
  CHORUS_TRY_MPI(check_v(c, recvcounts, displs, "recvcounts", "displs", rc, rd, indegree(c)));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, recvtype, &rt, "recvtype"));
  CHORUS_TRY_MPI(check_committed(c, rt, recvtype, "recvtype"));
  c.args.elem_size = 1;
  c.args.count = static_cast<std::size_t>(sendcount) * st->size;
  c.args.counts = scaled(rc, rt->size);
  c.args.displs = scaled(rd, rt->size);
  c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount), st, true, false);
  c.job->recv = bind_blocks(c.bound, recvbuf, real_blocks(rc, c.args.sources), rd, rt, false, true);
  return submit(c);
}

int alltoallv(Call& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin_neighbor(c, comm, sendbuf, recvbuf));
  const TypeInfo *st, *rt;
  std::vector<std::size_t> sc, sd, rc, rd;
  CHORUS_TRY_MPI(check_v(c, sendcounts, sdispls, "sendcounts", "sdispls", sc, sd, outdegree(c)));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, sendtype, &st, "sendtype"));
  CHORUS_TRY_MPI(check_v(c, recvcounts, rdispls, "recvcounts", "rdispls", rc, rd, indegree(c)));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, recvtype, &rt, "recvtype"));
  CHORUS_TRY_MPI(check_committed(c, st, sendtype, "sendtype"));
  CHORUS_TRY_MPI(check_committed(c, rt, recvtype, "recvtype"));
  c.args.elem_size = 1;
  c.args.counts = scaled(rc, rt->size);
  c.args.displs = scaled(rd, rt->size);
  c.args.send_counts = scaled(sc, st->size);
  c.args.send_displs = scaled(sd, st->size);
  c.job->send = bind_blocks(c.bound, sendbuf, real_blocks(sc, c.args.destinations), sd, st, true, false);
  c.job->recv = bind_blocks(c.bound, recvbuf, real_blocks(rc, c.args.sources), rd, rt, false, true);
  return submit(c);
}

// A type and a byte displacement per neighbour: alltoallv on packed bytes.
int alltoallw(Call& c, const void* sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  CHORUS_TRY_MPI(begin_neighbor(c, comm, sendbuf, recvbuf));
  std::vector<std::size_t> sc, rc, sp, rp;
  std::vector<std::ptrdiff_t> sd, rd;
  std::vector<const TypeInfo*> st, rt;
  CHORUS_TRY_MPI(check_w(c, outdegree(c), sendcounts, sdispls, sendtypes, "sendcounts", "sdispls",
                         "sendtypes", sc, sd, st));
  CHORUS_TRY_MPI(check_w(c, indegree(c), recvcounts, rdispls, recvtypes, "recvcounts", "rdispls",
                         "recvtypes", rc, rd, rt));
  sc = real_blocks(sc, c.args.destinations);
  rc = real_blocks(rc, c.args.sources);
  c.args.elem_size = 1;
  c.job->send = bind_blocks_w(c.bound, sendbuf, sc, sd, st, true, false, sp);
  c.job->recv = bind_blocks_w(c.bound, recvbuf, rc, rd, rt, false, true, rp);
  c.args.send_counts = packed_bytes(sc, st);
  c.args.send_displs = sp;
  c.args.counts = packed_bytes(rc, rt);
  c.args.displs = rp;
  return submit(c);
}

}  // namespace
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;
using namespace chorus::mpi::detail;

// The entry points (lib/mpi/gen/collectives.txt, written at build time).
extern "C" {
#include "coll_neighbor_gen.inc"
}  // extern "C"
