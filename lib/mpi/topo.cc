// Process topologies: Cartesian grids, graphs and distributed graphs. Chorus does
// not reorder ranks (reorder is accepted and ignored, as the standard allows):
// the topology communicator keeps the first N ranks of the old one, in order.
//
// Cartesian grids are row-major: the last dimension varies fastest, so rank
// r = sum(coords[i] * prod(dims[i+1..])). Every topology also records this rank's
// in- and out-neighbour lists (Topology::sources / destinations) in the order the
// neighborhood collectives use: for a grid, for each dimension the neighbour at
// -1 then at +1 (MPI_PROC_NULL off a non-periodic edge); for a graph, the
// neighbours in MPI_Graph_neighbors order, both ways.
#include <algorithm>
#include <cmath>

#include "core/handle.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

int need_topo(const char* call, Comm* c, int kind, const char* what) {
  if (c->topo.kind != kind)
    return fail(c, MPI_ERR_TOPOLOGY, "{}: comm 0x{:x} has no {} topology", call,
                static_cast<unsigned>(c->handle), what);
  return MPI_SUCCESS;
}

long grid_size(const std::vector<int>& dims) {
  long n = 1;
  for (int d : dims) n *= d;
  return n;
}

void rank_to_coords(const std::vector<int>& dims, int rank, int* coords) {
  for (std::size_t i = dims.size(); i-- > 0;) {
    coords[i] = rank % dims[i];
    rank /= dims[i];
  }
}

// Rank of `coords` (wrapping periodic dimensions); -1 when off a non-periodic edge.
int coords_to_rank(const Topology& t, const int* coords) {
  int r = 0;
  for (std::size_t i = 0; i < t.dims.size(); ++i) {
    int c = coords[i], d = t.dims[i];
    if (c < 0 || c >= d) {
      if (!t.periods[i]) return -1;
      c = ((c % d) + d) % d;
    }
    r = r * d + c;
  }
  return r;
}

int shift(const Topology& t, int rank, int dir, int disp) {
  std::vector<int> co(t.dims.size());
  rank_to_coords(t.dims, rank, co.data());
  co[static_cast<std::size_t>(dir)] += disp;
  int r = coords_to_rank(t, co.data());
  return r < 0 ? MPI_PROC_NULL : r;
}

void cart_neighbours(Topology& t, int rank) {
  t.sources.clear();
  for (std::size_t d = 0; d < t.dims.size(); ++d) {
    t.sources.push_back(shift(t, rank, static_cast<int>(d), -1));
    t.sources.push_back(shift(t, rank, static_cast<int>(d), +1));
  }
  t.destinations = t.sources;
}

void graph_neighbours(Topology& t, int rank) {
  int lo = rank == 0 ? 0 : t.index[static_cast<std::size_t>(rank - 1)];
  int hi = t.index[static_cast<std::size_t>(rank)];
  t.sources.assign(t.edges.begin() + lo, t.edges.begin() + hi);
  t.destinations = t.sources;
}

// The first `n` ranks of `c` form the new communicator.
int build_prefix(const char* call, Comm* c, int n, Comm** out) {
  std::vector<int> members;
  if (c->rank < n) members.assign(c->world_of.begin(), c->world_of.begin() + n);
  return comm_build(c, call, members, c->errhandler, out);
}

int check_dims(const char* call, Comm* c, int ndims, const int dims[], const int periods[]) {
  if (ndims < 0) return fail(c, MPI_ERR_DIMS, "{}: ndims is {}, must be non-negative", call, ndims);
  if (ndims > 0 && (!dims || !periods))
    return fail(c, MPI_ERR_ARG, "{}: {} is NULL with ndims {}", call, dims ? "periods" : "dims", ndims);
  long n = 1;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] <= 0) return fail(c, MPI_ERR_DIMS, "{}: dims[{}] is {}, must be positive", call, i, dims[i]);
    n *= dims[i];
    if (n > c->size)
      return fail(c, MPI_ERR_TOPOLOGY, "{}: the grid has more than {} points, the size of comm", call,
                  c->size);
  }
  return MPI_SUCCESS;
}

int check_graph(const char* call, Comm* c, int nnodes, const int index[], const int edges[]) {
  if (nnodes < 0 || nnodes > c->size)
    return fail(c, MPI_ERR_ARG, "{}: nnodes is {}, must be in [0, {}]", call, nnodes, c->size);
  if (nnodes > 0 && !index) return fail(c, MPI_ERR_ARG, "{}: index is NULL", call);
  int prev = 0;
  for (int i = 0; i < nnodes; ++i) {
    if (index[i] < prev)
      return fail(c, MPI_ERR_ARG, "{}: index[{}] is {}, smaller than index[{}] = {}", call, i, index[i],
                  i - 1, prev);
    prev = index[i];
  }
  if (prev > 0 && !edges) return fail(c, MPI_ERR_ARG, "{}: edges is NULL", call);
  for (int e = 0; e < prev; ++e)
    if (edges[e] < 0 || edges[e] >= nnodes)
      return fail(c, MPI_ERR_ARG, "{}: edges[{}] is {}, must be in [0, {})", call, e, edges[e], nnodes);
  return MPI_SUCCESS;
}

// Dims_create: k non-increasing factors of n with the smallest spread (max -
// min) and, among those, the largest smallest factor, then the largest next one
// (5616 in 4 dims is 13x9x8x6, not 13x12x6x6; 5040 in 3 is 21x16x15, not
// 20x18x14: what MPICH answers, checked against its topo/dims5 table).
struct DimsBest {
  std::vector<long> dims;
  long spread;
};
void factor_search(long n, int k, long maxf, const std::vector<long>& divs, std::vector<long>& cur,
                   DimsBest& best) {
  if (k == 0) {
    if (n != 1) return;
    const long spread = cur.empty() ? 0 : cur.front() - cur.back();
    // Same spread: the larger smallest factor, then the larger next one, and so on
    // (cur is descending, so compare from its end), as MPICH answers.
    bool better = spread < best.spread;
    if (spread == best.spread && best.dims.size() == cur.size())
      better = std::lexicographical_compare(best.dims.rbegin(), best.dims.rend(), cur.rbegin(), cur.rend());
    if (better) best = {cur, spread};
    return;
  }
  for (long f : divs) {  // descending
    if (f > maxf || n % f != 0) continue;
    // The largest remaining factor is at least the k-th root of n.
    if (std::pow(static_cast<double>(f), k) + 0.5 < static_cast<double>(n)) break;
    if (!cur.empty() && cur.front() - f > best.spread) break;  // spread only grows
    cur.push_back(f);
    factor_search(n / f, k - 1, f, divs, cur, best);
    cur.pop_back();
  }
}

}  // namespace

// Exposed for tests through MPI_Dims_create only.
int dims_fill(int nnodes, int ndims, int dims[]) {
  long fixed = 1;
  int free = 0;
  for (int i = 0; i < ndims; ++i) {
    if (dims[i] < 0) return -1;
    if (dims[i] == 0) ++free;
    else fixed *= dims[i];
  }
  if (nnodes % fixed != 0) return -2;
  long rest = nnodes / fixed;
  if (free == 0) return rest == 1 ? 0 : -2;
  std::vector<long> divs;
  for (long d = 1; d * d <= rest; ++d)
    if (rest % d == 0) {
      divs.push_back(d);
      if (d != rest / d) divs.push_back(rest / d);
    }
  std::sort(divs.rbegin(), divs.rend());
  std::vector<long> cur;
  DimsBest best{{}, rest + 1};
  factor_search(rest, free, rest, divs, cur, best);
  std::size_t j = 0;
  for (int i = 0; i < ndims; ++i)
    if (dims[i] == 0) dims[i] = static_cast<int>(best.dims[j++]);
  return 0;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

#define TOPO_ENTRY(call, comm, c)                  \
  CHORUS_TRY_MPI(check_running(call));             \
  p2p::ApiLock lock;                               \
  Comm* c;                                         \
  CHORUS_TRY_MPI(check_comm(call, comm, &c))

extern "C" {

int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
  const char* call = "MPI_Dims_create";
  CHORUS_TRY_MPI(check_running(call));
  if (nnodes <= 0) return fail(nullptr, MPI_ERR_ARG, "{}: nnodes is {}, must be positive", call, nnodes);
  if (ndims < 0) return fail(nullptr, MPI_ERR_DIMS, "{}: ndims is {}, must be non-negative", call, ndims);
  if (ndims > 0 && !dims) return fail(nullptr, MPI_ERR_ARG, "{}: dims is NULL", call);
  int rc = dims_fill(nnodes, ndims, dims);
  if (rc == -1) return fail(nullptr, MPI_ERR_DIMS, "{}: dims holds a negative entry", call);
  if (rc == -2)
    return fail(nullptr, MPI_ERR_DIMS, "{}: nnodes {} is not a multiple of the product of the "
                "non-zero dims", call, nnodes);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Dims_create)

int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int /*reorder*/,
                     MPI_Comm* comm_cart) {
  const char* call = "MPI_Cart_create";
  TOPO_ENTRY(call, comm_old, c);
  if (!comm_cart) return fail(c, MPI_ERR_ARG, "{}: comm_cart is NULL", call);
  *comm_cart = MPI_COMM_NULL;  // what the caller holds when the call fails
  CHORUS_TRY_MPI(check_dims(call, c, ndims, dims, periods));
  Topology t;
  t.kind = MPI_CART;
  t.dims.assign(dims, dims + ndims);
  for (int i = 0; i < ndims; ++i) t.periods.push_back(periods[i] ? 1 : 0);
  Comm* n;
  CHORUS_TRY_MPI(build_prefix(call, c, static_cast<int>(grid_size(t.dims)), &n));
  if (n) {
    n->topo = std::move(t);
    cart_neighbours(n->topo, n->rank);
  }
  *comm_cart = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_create)

int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
  const char* call = "MPI_Cartdim_get";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  if (!ndims) return fail(c, MPI_ERR_ARG, "{}: ndims is NULL", call);
  *ndims = static_cast<int>(c->topo.dims.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cartdim_get)

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
  const char* call = "MPI_Cart_get";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  const Topology& t = c->topo;
  int nd = static_cast<int>(t.dims.size());
  if (maxdims < nd) return fail(c, MPI_ERR_ARG, "{}: maxdims is {}, the grid has {} dimensions", call, maxdims, nd);
  if (nd > 0 && (!dims || !periods || !coords)) return fail(c, MPI_ERR_ARG, "{}: an output array is NULL", call);
  for (int i = 0; i < nd; ++i) {
    dims[i] = t.dims[static_cast<std::size_t>(i)];
    periods[i] = t.periods[static_cast<std::size_t>(i)];
  }
  rank_to_coords(t.dims, c->rank, coords);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_get)

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
  const char* call = "MPI_Cart_rank";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  if (!rank || (!coords && !c->topo.dims.empty()))
    return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, rank ? "coords" : "rank");
  int r = coords_to_rank(c->topo, coords);
  if (r < 0) {
    for (std::size_t i = 0; i < c->topo.dims.size(); ++i)
      if (coords[i] < 0 || coords[i] >= c->topo.dims[i])
        return fail(c, MPI_ERR_ARG, "{}: coords[{}] is {}, outside the non-periodic dimension [0, {})",
                    call, i, coords[i], c->topo.dims[i]);
  }
  *rank = r;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_rank)

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
  const char* call = "MPI_Cart_coords";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  int nd = static_cast<int>(c->topo.dims.size());
  if (rank < 0 || rank >= c->size)
    return fail(c, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, c->size);
  if (maxdims < nd) return fail(c, MPI_ERR_ARG, "{}: maxdims is {}, the grid has {} dimensions", call, maxdims, nd);
  if (nd > 0 && !coords) return fail(c, MPI_ERR_ARG, "{}: coords is NULL", call);
  rank_to_coords(c->topo.dims, rank, coords);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_coords)

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
  const char* call = "MPI_Cart_shift";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  int nd = static_cast<int>(c->topo.dims.size());
  if (direction < 0 || direction >= nd)
    return fail(c, MPI_ERR_ARG, "{}: direction is {}, must be in [0, {})", call, direction, nd);
  if (!rank_source || !rank_dest)
    return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, rank_source ? "rank_dest" : "rank_source");
  *rank_source = shift(c->topo, c->rank, direction, -disp);
  *rank_dest = shift(c->topo, c->rank, direction, disp);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_shift)

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
  const char* call = "MPI_Cart_sub";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_CART, "Cartesian"));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  const Topology& t = c->topo;
  std::size_t nd = t.dims.size();
  if (nd > 0 && !remain_dims) return fail(c, MPI_ERR_ARG, "{}: remain_dims is NULL", call);
  std::vector<int> co(nd);
  rank_to_coords(t.dims, c->rank, co.data());
  // Color: the coordinates in the dropped dimensions; key: those in the kept ones.
  int color = 0, key = 0;
  Topology sub;
  sub.kind = MPI_CART;
  for (std::size_t i = 0; i < nd; ++i) {
    if (remain_dims[i]) {
      key = key * t.dims[i] + co[i];
      sub.dims.push_back(t.dims[i]);
      sub.periods.push_back(t.periods[i]);
    } else {
      color = color * t.dims[i] + co[i];
    }
  }
  Comm* n;
  CHORUS_TRY_MPI(comm_split(call, c, color, key, &n));
  n->topo = std::move(sub);
  cart_neighbours(n->topo, n->rank);
  *newcomm = n->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_sub)

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
  const char* call = "MPI_Cart_map";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(check_dims(call, c, ndims, dims, periods));
  if (!newrank) return fail(c, MPI_ERR_ARG, "{}: newrank is NULL", call);
  long n = grid_size(std::vector<int>(dims, dims + ndims));
  *newrank = c->rank < n ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cart_map)

int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[],
                      int /*reorder*/, MPI_Comm* comm_graph) {
  const char* call = "MPI_Graph_create";
  TOPO_ENTRY(call, comm_old, c);
  if (!comm_graph) return fail(c, MPI_ERR_ARG, "{}: comm_graph is NULL", call);
  CHORUS_TRY_MPI(check_graph(call, c, nnodes, index, edges));
  Comm* n;
  CHORUS_TRY_MPI(build_prefix(call, c, nnodes, &n));
  if (n) {
    n->topo.kind = MPI_GRAPH;
    n->topo.index.assign(index, index + nnodes);
    n->topo.edges.assign(edges, edges + (nnodes > 0 ? index[nnodes - 1] : 0));
    graph_neighbours(n->topo, n->rank);
  }
  *comm_graph = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graph_create)

int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
  const char* call = "MPI_Graphdims_get";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_GRAPH, "graph"));
  if (!nnodes || !nedges) return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, nnodes ? "nedges" : "nnodes");
  *nnodes = static_cast<int>(c->topo.index.size());
  *nedges = static_cast<int>(c->topo.edges.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graphdims_get)

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
  const char* call = "MPI_Graph_get";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_GRAPH, "graph"));
  const Topology& t = c->topo;
  if (maxindex < 0 || maxedges < 0) return fail(c, MPI_ERR_ARG, "{}: maxindex or maxedges is negative", call);
  if ((maxindex > 0 && !index) || (maxedges > 0 && !edges))
    return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, index ? "edges" : "index");
  std::copy_n(t.index.begin(), std::min<std::size_t>(t.index.size(), static_cast<std::size_t>(maxindex)), index);
  std::copy_n(t.edges.begin(), std::min<std::size_t>(t.edges.size(), static_cast<std::size_t>(maxedges)), edges);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graph_get)

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
  const char* call = "MPI_Graph_neighbors_count";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_GRAPH, "graph"));
  if (rank < 0 || rank >= c->size)
    return fail(c, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, c->size);
  if (!nneighbors) return fail(c, MPI_ERR_ARG, "{}: nneighbors is NULL", call);
  const auto& ix = c->topo.index;
  *nneighbors = ix[static_cast<std::size_t>(rank)] - (rank == 0 ? 0 : ix[static_cast<std::size_t>(rank - 1)]);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graph_neighbors_count)

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
  const char* call = "MPI_Graph_neighbors";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_GRAPH, "graph"));
  if (rank < 0 || rank >= c->size)
    return fail(c, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, c->size);
  const auto& ix = c->topo.index;
  int lo = rank == 0 ? 0 : ix[static_cast<std::size_t>(rank - 1)];
  int hi = ix[static_cast<std::size_t>(rank)];
  if (maxneighbors < 0) return fail(c, MPI_ERR_ARG, "{}: maxneighbors is {}", call, maxneighbors);
  if (maxneighbors > 0 && !neighbors) return fail(c, MPI_ERR_ARG, "{}: neighbors is NULL", call);
  for (int e = lo, i = 0; e < hi && i < maxneighbors; ++e, ++i)
    neighbors[i] = c->topo.edges[static_cast<std::size_t>(e)];
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graph_neighbors)

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
  const char* call = "MPI_Graph_map";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(check_graph(call, c, nnodes, index, edges));
  if (!newrank) return fail(c, MPI_ERR_ARG, "{}: newrank is NULL", call);
  *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Graph_map)

}  // extern "C"

namespace {

int check_edge_list(const char* call, Comm* c, int n, const int* ranks, const int* weights,
                    const char* what) {
  if (n < 0) return fail(c, MPI_ERR_ARG, "{}: {} degree is {}, must be non-negative", call, what, n);
  if (n > 0 && !ranks) return fail(c, MPI_ERR_ARG, "{}: the {} array is NULL", call, what);
  if (n > 0 && !weights) return fail(c, MPI_ERR_ARG, "{}: the {} weights are NULL", call, what);
  for (int i = 0; i < n; ++i)
    if (ranks[i] < 0 || ranks[i] >= c->size)
      return fail(c, MPI_ERR_RANK, "{}: {}[{}] is {}, must be in [0, {})", call, what, i, ranks[i], c->size);
  return MPI_SUCCESS;
}

bool is_weighted(const int* w) { return w != MPI_UNWEIGHTED; }

}  // namespace

extern "C" {

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm_old, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree, const int destinations[],
                                    const int destweights[], MPI_Info info, int /*reorder*/,
                                    MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create_adjacent";
  TOPO_ENTRY(call, comm_old, c);
  if (!comm_dist_graph) return fail(c, MPI_ERR_ARG, "{}: comm_dist_graph is NULL", call);
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  CHORUS_TRY_MPI(check_edge_list(call, c, indegree, sources, sourceweights, "sources"));
  CHORUS_TRY_MPI(check_edge_list(call, c, outdegree, destinations, destweights, "destinations"));
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.weighted = is_weighted(sourceweights) && is_weighted(destweights);
  t.sources.assign(sources, sources + indegree);
  t.destinations.assign(destinations, destinations + outdegree);
  if (t.weighted) {
    if (indegree > 0) t.source_weights.assign(sourceweights, sourceweights + indegree);
    if (outdegree > 0) t.dest_weights.assign(destweights, destweights + outdegree);
  }
  Comm* n;
  CHORUS_TRY_MPI(comm_build(c, call, c->world_of, c->errhandler, &n));
  n->topo = std::move(t);
  *comm_dist_graph = n->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Dist_graph_create_adjacent)

int PMPI_Dist_graph_create(MPI_Comm comm_old, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info, int /*reorder*/,
                           MPI_Comm* comm_dist_graph) {
  const char* call = "MPI_Dist_graph_create";
  TOPO_ENTRY(call, comm_old, c);
  if (!comm_dist_graph) return fail(c, MPI_ERR_ARG, "{}: comm_dist_graph is NULL", call);
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  if (n < 0) return fail(c, MPI_ERR_ARG, "{}: n is {}, must be non-negative", call, n);
  if (n > 0 && (!sources || !degrees)) return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, sources ? "degrees" : "sources");
  // Edges this rank contributes: (source, destination, weight) triples.
  std::vector<int> mine;
  int e = 0;
  bool weighted = is_weighted(weights);
  for (int i = 0; i < n; ++i) {
    if (sources[i] < 0 || sources[i] >= c->size)
      return fail(c, MPI_ERR_RANK, "{}: sources[{}] is {}, must be in [0, {})", call, i, sources[i], c->size);
    if (degrees[i] < 0) return fail(c, MPI_ERR_ARG, "{}: degrees[{}] is {}, must be non-negative", call, i, degrees[i]);
    for (int j = 0; j < degrees[i]; ++j, ++e) {
      if (!destinations || destinations[e] < 0 || destinations[e] >= c->size)
        return fail(c, MPI_ERR_RANK, "{}: destinations[{}] is {}, must be in [0, {})", call, e,
                    destinations ? destinations[e] : -1, c->size);
      mine.insert(mine.end(), {sources[i], destinations[e], weighted && weights ? weights[e] : 1});
    }
  }
  // Everyone learns every edge: allgather the counts, then the padded edge lists.
  int count = e;
  std::vector<int> counts(static_cast<std::size_t>(c->size));
  CHORUS_TRY_MPI(internal_allgather(c, &count, counts.data(), sizeof(int), call));
  int most = *std::max_element(counts.begin(), counts.end());
  std::size_t stride = static_cast<std::size_t>(most) * 3;
  mine.resize(stride);
  std::vector<int> all(stride * static_cast<std::size_t>(c->size));
  if (most > 0) CHORUS_TRY_MPI(internal_allgather(c, mine.data(), all.data(), stride * sizeof(int), call));
  Topology t;
  t.kind = MPI_DIST_GRAPH;
  t.weighted = weighted;
  for (int r = 0; r < c->size; ++r) {
    const int* p = all.data() + static_cast<std::size_t>(r) * stride;
    for (int k = 0; k < counts[static_cast<std::size_t>(r)]; ++k, p += 3) {
      if (p[0] == c->rank) {
        t.destinations.push_back(p[1]);
        if (weighted) t.dest_weights.push_back(p[2]);
      }
      if (p[1] == c->rank) {
        t.sources.push_back(p[0]);
        if (weighted) t.source_weights.push_back(p[2]);
      }
    }
  }
  Comm* nc;
  CHORUS_TRY_MPI(comm_build(c, call, c->world_of, c->errhandler, &nc));
  nc->topo = std::move(t);
  *comm_dist_graph = nc->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Dist_graph_create)

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int* indegree, int* outdegree, int* weighted) {
  const char* call = "MPI_Dist_graph_neighbors_count";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_DIST_GRAPH, "distributed graph"));
  if (!indegree || !outdegree || !weighted) return fail(c, MPI_ERR_ARG, "{}: an output argument is NULL", call);
  *indegree = static_cast<int>(c->topo.sources.size());
  *outdegree = static_cast<int>(c->topo.destinations.size());
  *weighted = c->topo.weighted;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Dist_graph_neighbors_count)

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxindegree, int sources[], int sourceweights[],
                              int maxoutdegree, int destinations[], int destweights[]) {
  const char* call = "MPI_Dist_graph_neighbors";
  TOPO_ENTRY(call, comm, c);
  CHORUS_TRY_MPI(need_topo(call, c, MPI_DIST_GRAPH, "distributed graph"));
  const Topology& t = c->topo;
  if (maxindegree < 0 || maxoutdegree < 0)
    return fail(c, MPI_ERR_ARG, "{}: maxindegree or maxoutdegree is negative", call);
  auto in = std::min<std::size_t>(t.sources.size(), static_cast<std::size_t>(maxindegree));
  auto out = std::min<std::size_t>(t.destinations.size(), static_cast<std::size_t>(maxoutdegree));
  if ((in > 0 && !sources) || (out > 0 && !destinations))
    return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, sources ? "destinations" : "sources");
  std::copy_n(t.sources.begin(), in, sources);
  std::copy_n(t.destinations.begin(), out, destinations);
  if (t.weighted) {
    if (sourceweights && sourceweights != MPI_UNWEIGHTED) std::copy_n(t.source_weights.begin(), in, sourceweights);
    if (destweights && destweights != MPI_UNWEIGHTED) std::copy_n(t.dest_weights.begin(), out, destweights);
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Dist_graph_neighbors)

int PMPI_Topo_test(MPI_Comm comm, int* status) {
  const char* call = "MPI_Topo_test";
  TOPO_ENTRY(call, comm, c);
  if (!status) return fail(c, MPI_ERR_ARG, "{}: status is NULL", call);
  *status = c->topo.kind;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Topo_test)

}  // extern "C"
