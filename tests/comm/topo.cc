// Process topologies: Dims_create, Cartesian grids (coords, rank, shifts, sub),
// graphs, distributed graphs, Topo_test and the topology errors.
#include <algorithm>
#include <utility>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

using V = std::vector<int>;

V dims_create(int nnodes, V dims) {
  REQUIRE(MPI_Dims_create(nnodes, static_cast<int>(dims.size()), dims.data()) == MPI_SUCCESS);
  return dims;
}

int wrap(int x, int n) { return ((x % n) + n) % n; }

}  // namespace

TEST_CASE("Dims_create", "[topo]") {
  CHECK(dims_create(6, {0, 0}) == V{3, 2});
  CHECK(dims_create(7, {0, 0}) == V{7, 1});
  CHECK(dims_create(12, {0, 0, 0}) == V{3, 2, 2});
  CHECK(dims_create(16, {0, 0, 0}) == V{4, 2, 2});
  CHECK(dims_create(24, {0, 0, 0}) == V{4, 3, 2});
  CHECK(dims_create(36, {0, 0}) == V{6, 6});
  CHECK(dims_create(1, {0, 0, 0}) == V{1, 1, 1});
  CHECK(dims_create(12, {0, 3, 0}) == V{2, 3, 2});
  CHECK(dims_create(8, {2, 0}) == V{2, 4});
  CHECK(dims_create(64, {0, 0, 0}) == V{4, 4, 4});
  CHECK(dims_create(30, {0, 0, 0}) == V{5, 3, 2});
  CHECK(dims_create(5, {5}) == V{5});
  CHECK(dims_create(1, {}) == V{});
  // Equal spreads: the closer set as a whole (MPICH's answer; 13x12x6x6 before).
  CHECK(dims_create(5616, {0, 0, 0, 0}) == V{13, 9, 8, 6});
  CHECK(dims_create(5616, {0, 8, 0, 0}) == V{13, 8, 9, 6});
  // Equal spreads and the smaller sum of squares on the other side: the larger
  // smallest factor decides (MPICH's topo/dims5 table; 20x18x14 before).
  CHECK(dims_create(5040, {0, 0, 0}) == V{21, 16, 15});

  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  V bad{2, 0};
  CHECK(jobs::error_class(MPI_Dims_create(7, 2, bad.data())) == MPI_ERR_DIMS);
  V neg{-1, 0};
  CHECK(jobs::error_class(MPI_Dims_create(4, 2, neg.data())) == MPI_ERR_DIMS);
  CHECK(jobs::error_class(MPI_Dims_create(4, -1, neg.data())) == MPI_ERR_DIMS);
}

TEST_CASE("Cartesian grid: coords, rank, shifts, sub", "[topo][cart]") {
  const int n = jobs::size(), me = jobs::rank();
  V dims = dims_create(n, {0, 0});
  const int d0 = dims[0], d1 = dims[1];
  int periods[2] = {1, 0};
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims.data(), periods, 0, &cart));
  REQUIRE(cart != MPI_COMM_NULL);
  int status;
  MPI_OK(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART);
  MPI_OK(MPI_Topo_test(MPI_COMM_WORLD, &status));
  CHECK(status == MPI_UNDEFINED);
  int nd;
  MPI_OK(MPI_Cartdim_get(cart, &nd));
  CHECK(nd == 2);

  int gd[2], gp[2], gc[2];
  MPI_OK(MPI_Cart_get(cart, 2, gd, gp, gc));
  CHECK(V(gd, gd + 2) == dims);
  CHECK(V(gp, gp + 2) == V{1, 0});
  CHECK(V(gc, gc + 2) == V{me / d1, me % d1});

  for (int r = 0; r < n; ++r) {
    int co[2], back = -1;
    MPI_OK(MPI_Cart_coords(cart, r, 2, co));
    CHECK(co[0] == r / d1);
    CHECK(co[1] == r % d1);
    MPI_OK(MPI_Cart_rank(cart, co, &back));
    CHECK(back == r);
  }
  // Periodic dimension 0 wraps.
  int outside[2] = {-1, 0}, rank = -1;
  MPI_OK(MPI_Cart_rank(cart, outside, &rank));
  CHECK(rank == (d0 - 1) * d1);

  const int c0 = me / d1, c1 = me % d1;
  int src, dst;
  MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK(src == wrap(c0 - 1, d0) * d1 + c1);
  CHECK(dst == wrap(c0 + 1, d0) * d1 + c1);
  MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  CHECK(src == (c1 - 1 >= 0 ? c0 * d1 + c1 - 1 : MPI_PROC_NULL));
  CHECK(dst == (c1 + 1 < d1 ? c0 * d1 + c1 + 1 : MPI_PROC_NULL));
  MPI_OK(MPI_Cart_shift(cart, 1, -2, &src, &dst));
  CHECK(src == (c1 + 2 < d1 ? c0 * d1 + c1 + 2 : MPI_PROC_NULL));
  CHECK(dst == (c1 - 2 >= 0 ? c0 * d1 + c1 - 2 : MPI_PROC_NULL));

  // Exchange along the non-periodic dimension: edge ranks talk to MPI_PROC_NULL.
  MPI_OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  int out = me, in = -7;
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, dst, 11, &in, 1, MPI_INT, src, 11, cart, MPI_STATUS_IGNORE));
  CHECK(in == (src == MPI_PROC_NULL ? -7 : src));

  // Sub-grids: keep dimension 1 -> rows of d1 ranks.
  int keep1[2] = {0, 1};
  MPI_Comm row;
  MPI_OK(MPI_Cart_sub(cart, keep1, &row));
  int rs, rr;
  MPI_OK(MPI_Comm_size(row, &rs));
  MPI_OK(MPI_Comm_rank(row, &rr));
  CHECK(rs == d1);
  CHECK(rr == c1);
  MPI_OK(MPI_Cartdim_get(row, &nd));
  CHECK(nd == 1);
  int rd, rp, rc;
  MPI_OK(MPI_Cart_get(row, 1, &rd, &rp, &rc));
  CHECK(rd == d1);
  CHECK(rp == 0);
  CHECK(rc == c1);
  int keep0[2] = {1, 0};
  MPI_Comm col;
  MPI_OK(MPI_Cart_sub(cart, keep0, &col));
  MPI_OK(MPI_Comm_size(col, &rs));
  CHECK(rs == d0);
  MPI_OK(MPI_Cart_shift(col, 0, 1, &src, &dst));
  CHECK(src == wrap(c0 - 1, d0));
  int none[2] = {0, 0};
  MPI_Comm point;
  MPI_OK(MPI_Cart_sub(cart, none, &point));
  MPI_OK(MPI_Comm_size(point, &rs));
  CHECK(rs == 1);
  MPI_OK(MPI_Comm_free(&point));
  MPI_OK(MPI_Comm_free(&col));
  MPI_OK(MPI_Comm_free(&row));

  // Dup keeps the topology.
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup(cart, &d));
  MPI_OK(MPI_Topo_test(d, &status));
  CHECK(status == MPI_CART);
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Comm_free(&cart));
}

TEST_CASE("Cartesian grid smaller than the communicator; Cart_map", "[topo][cart]") {
  const int n = jobs::size(), me = jobs::rank();
  int dims[1] = {n > 1 ? n - 1 : 1}, periods[1] = {1};
  MPI_Comm cart;
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &cart));
  if (me < dims[0]) {
    REQUIRE(cart != MPI_COMM_NULL);
    int src, dst;
    MPI_OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
    CHECK(src == wrap(me - 1, dims[0]));
    CHECK(dst == wrap(me + 1, dims[0]));
    MPI_OK(MPI_Comm_free(&cart));
  } else {
    CHECK(cart == MPI_COMM_NULL);
  }
  int newrank;
  MPI_OK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &newrank));
  CHECK(newrank == (me < dims[0] ? me : MPI_UNDEFINED));
}

TEST_CASE("graph topology", "[topo][graph]") {
  const int n = jobs::size(), me = jobs::rank();
  V index, edges;
  for (int i = 0; i < n; ++i) {
    edges.push_back(wrap(i - 1, n));
    edges.push_back(wrap(i + 1, n));
    index.push_back(static_cast<int>(edges.size()));
  }
  MPI_Comm g;
  MPI_OK(MPI_Graph_create(MPI_COMM_WORLD, n, index.data(), edges.data(), 0, &g));
  int status;
  MPI_OK(MPI_Topo_test(g, &status));
  CHECK(status == MPI_GRAPH);
  int nnodes, nedges;
  MPI_OK(MPI_Graphdims_get(g, &nnodes, &nedges));
  CHECK(nnodes == n);
  CHECK(nedges == 2 * n);
  V gi(static_cast<std::size_t>(n)), ge(static_cast<std::size_t>(2 * n));
  MPI_OK(MPI_Graph_get(g, n, 2 * n, gi.data(), ge.data()));
  CHECK(gi == index);
  CHECK(ge == edges);
  int count;
  MPI_OK(MPI_Graph_neighbors_count(g, me, &count));
  CHECK(count == 2);
  int nb[2];
  MPI_OK(MPI_Graph_neighbors(g, me, 2, nb));
  CHECK(nb[0] == wrap(me - 1, n));
  CHECK(nb[1] == wrap(me + 1, n));
  int newrank;
  MPI_OK(MPI_Graph_map(MPI_COMM_WORLD, n, index.data(), edges.data(), &newrank));
  CHECK(newrank == me);
  MPI_OK(MPI_Comm_free(&g));

  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  int bad_edges[2] = {n, 0};
  int bad_index[1] = {2};
  CHECK(jobs::error_class(MPI_Graph_create(MPI_COMM_WORLD, 1, bad_index, bad_edges, 0, &g)) == MPI_ERR_ARG);
}

TEST_CASE("distributed graph topology", "[topo][dist_graph]") {
  const int n = jobs::size(), me = jobs::rank();
  // Adjacent: in from the left, out to the right, weighted.
  int src = jobs::left(), dst = jobs::right(), sw = jobs::left() + 1, dw = me + 1;
  MPI_Comm g;
  MPI_OK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &sw, 1, &dst, &dw, MPI_INFO_NULL, 0, &g));
  int status;
  MPI_OK(MPI_Topo_test(g, &status));
  CHECK(status == MPI_DIST_GRAPH);
  int indeg, outdeg, weighted;
  MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
  CHECK(indeg == 1);
  CHECK(outdeg == 1);
  CHECK(weighted == 1);
  int s[1], sws[1], d[1], dws[1];
  MPI_OK(MPI_Dist_graph_neighbors(g, 1, s, sws, 1, d, dws));
  CHECK(s[0] == jobs::left());
  CHECK(sws[0] == jobs::left() + 1);
  CHECK(d[0] == jobs::right());
  CHECK(dws[0] == me + 1);
  MPI_OK(MPI_Comm_free(&g));

  // General: every rank declares its own edges me -> me+1 and me -> me+2.
  int sources[1] = {me}, degrees[1] = {2};
  int dests[2] = {wrap(me + 1, n), wrap(me + 2, n)};
  int weights[2] = {10 * me + 1, 10 * me + 2};
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, 1, sources, degrees, dests, weights, MPI_INFO_NULL, 0, &g));
  MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
  CHECK(indeg == 2);
  CHECK(outdeg == 2);
  CHECK(weighted == 1);
  V ins(2), inw(2), outs(2), outw(2);
  MPI_OK(MPI_Dist_graph_neighbors(g, 2, ins.data(), inw.data(), 2, outs.data(), outw.data()));
  V want_out{wrap(me + 1, n), wrap(me + 2, n)};
  CHECK(outs == want_out);
  CHECK(outw == V{10 * me + 1, 10 * me + 2});
  V want_in{wrap(me - 1, n), wrap(me - 2, n)};
  std::sort(want_in.begin(), want_in.end());
  std::vector<std::pair<int, int>> got;
  for (int i = 0; i < 2; ++i) got.emplace_back(ins[static_cast<std::size_t>(i)], inw[static_cast<std::size_t>(i)]);
  std::sort(got.begin(), got.end());
  for (int i = 0; i < 2; ++i) {
    CHECK(got[static_cast<std::size_t>(i)].first == want_in[static_cast<std::size_t>(i)]);
    CHECK(got[static_cast<std::size_t>(i)].second / 10 == got[static_cast<std::size_t>(i)].first);
  }
  MPI_OK(MPI_Comm_free(&g));

  // Unweighted, and a rank with no edges at all.
  int none = 0;
  MPI_OK(MPI_Dist_graph_create(MPI_COMM_WORLD, me == 0 ? 1 : 0, sources, me == 0 ? degrees : &none, dests,
                               MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &g));
  MPI_OK(MPI_Dist_graph_neighbors_count(g, &indeg, &outdeg, &weighted));
  CHECK(weighted == 0);
  CHECK(outdeg == (me == 0 ? 2 : 0));
  int expect_in = (me == wrap(1, n) ? 1 : 0) + (me == wrap(2, n) ? 1 : 0);
  CHECK(indeg == expect_in);
  MPI_OK(MPI_Comm_free(&g));
}

TEST_CASE("topology errors", "[topo][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  const int n = jobs::size();
  int src, dst;
  CHECK(jobs::error_class(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst)) == MPI_ERR_TOPOLOGY);
  int nd;
  CHECK(jobs::error_class(MPI_Cartdim_get(MPI_COMM_WORLD, &nd)) == MPI_ERR_TOPOLOGY);
  int nn, ne;
  CHECK(jobs::error_class(MPI_Graphdims_get(MPI_COMM_WORLD, &nn, &ne)) == MPI_ERR_TOPOLOGY);
  int dims[1] = {n + 1}, periods[1] = {0};
  MPI_Comm c = MPI_COMM_WORLD;
  CHECK(jobs::error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &c)) == MPI_ERR_TOPOLOGY);
  CHECK(c == MPI_COMM_NULL);  // a failed call leaves no stale handle behind
  int zero[1] = {0};
  CHECK(jobs::error_class(MPI_Cart_create(MPI_COMM_WORLD, 1, zero, periods, 0, &c)) == MPI_ERR_DIMS);

  int line[1] = {n};
  MPI_OK(MPI_Cart_create(MPI_COMM_WORLD, 1, line, periods, 0, &c));
  CHECK(jobs::error_class(MPI_Cart_shift(c, 1, 1, &src, &dst)) == MPI_ERR_ARG);
  int coords[1] = {n};
  int rank;
  CHECK(jobs::error_class(MPI_Cart_rank(c, coords, &rank)) == MPI_ERR_ARG);
  int co[1];
  CHECK(jobs::error_class(MPI_Cart_coords(c, n, 1, co)) == MPI_ERR_RANK);
  MPI_OK(MPI_Comm_free(&c));
}
