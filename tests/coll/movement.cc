// Data-movement collectives, blocking: every type pair (int8, int, double, a vector
// type with holes, vector sent / ints received and the reverse) x counts
// {0, 1, p-1, p+1} x {out of place, in place where MPI allows} x roots {0, p-1}.
// Receive buffers start as a sentinel pattern and are compared byte for byte with
// the expected image, so holes, gaps between v-displacements and the bytes past the
// end must stay untouched.
#include "coll_common.h"

namespace {

using coll::CasePtr;
using coll::TypePair;

std::vector<int> roots() {
  const int p = jobs::size();
  std::vector<int> r{0};
  if (p > 1) r.push_back(p - 1);
  if (p > 3) r.push_back(p / 2);
  return r;
}

// make(cases, pair, count, in_place, root)
template <class Make>
void for_all(bool rooted, bool has_in_place, Make make) {
  const int p = jobs::size();
  int seed = 1;
  for (const TypePair& t : coll::type_pairs()) {
    for (long n : coll::small_counts(p)) {
      for (bool ip : {false, true}) {
        if (ip && !has_in_place) continue;
        std::vector<CasePtr> cases;
        if (rooted) {
          for (int root : roots()) make(cases, t, n, ip, root);
        } else {
          make(cases, t, n, ip, -1);
        }
        coll::run_blocking(cases, seed++);
      }
    }
  }
}

}  // namespace

TEST_CASE("Barrier", "[coll][movement][barrier]") {
  std::vector<CasePtr> cases;
  cases.push_back(coll::barrier_case(MPI_COMM_WORLD));
  for (int i = 0; i < 5; ++i) coll::run_blocking(cases, i);
}

TEST_CASE("Bcast, root type differing from the others'", "[coll][movement][bcast]") {
  for_all(true, false, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool, int root) {
    cs.push_back(coll::bcast_case(MPI_COMM_WORLD, t, n, root));
  });
}

TEST_CASE("Gather", "[coll][movement][gather]") {
  for_all(true, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int root) {
    cs.push_back(coll::gather_case(MPI_COMM_WORLD, t, n, ip, root));
  });
}

TEST_CASE("Gatherv", "[coll][movement][gatherv]") {
  for_all(true, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int root) {
    cs.push_back(coll::gatherv_case(MPI_COMM_WORLD, t, n, ip, root));
  });
}

TEST_CASE("Scatter", "[coll][movement][scatter]") {
  for_all(true, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int root) {
    cs.push_back(coll::scatter_case(MPI_COMM_WORLD, t, n, ip, root));
  });
}

TEST_CASE("Scatterv", "[coll][movement][scatterv]") {
  for_all(true, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int root) {
    cs.push_back(coll::scatterv_case(MPI_COMM_WORLD, t, n, ip, root));
  });
}

TEST_CASE("Allgather", "[coll][movement][allgather]") {
  for_all(false, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int) {
    cs.push_back(coll::allgather_case(MPI_COMM_WORLD, t, n, ip));
  });
}

TEST_CASE("Allgatherv", "[coll][movement][allgatherv]") {
  for_all(false, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int) {
    cs.push_back(coll::allgatherv_case(MPI_COMM_WORLD, t, n, ip));
  });
}

TEST_CASE("Alltoall", "[coll][movement][alltoall]") {
  for_all(false, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int) {
    cs.push_back(coll::alltoall_case(MPI_COMM_WORLD, t, n, ip));
  });
}

TEST_CASE("Alltoallv", "[coll][movement][alltoallv]") {
  for_all(false, true, [](std::vector<CasePtr>& cs, const TypePair& t, long n, bool ip, int) {
    cs.push_back(coll::alltoallv_case(MPI_COMM_WORLD, t, n, ip));
  });
}

TEST_CASE("Data movement with a medium count, every type pair", "[coll][movement][medium]") {
  const int p = jobs::size();
  const long n = 257;
  int seed = 500;
  for (const TypePair& t : coll::type_pairs()) {
    for (bool ip : {false, true}) {
      std::vector<CasePtr> cs;
      cs.push_back(coll::bcast_case(MPI_COMM_WORLD, t, n * (ip ? 3 : 1), ip ? 0 : p - 1));
      cs.push_back(coll::gather_case(MPI_COMM_WORLD, t, n, ip, p / 2));
      cs.push_back(coll::gatherv_case(MPI_COMM_WORLD, t, n, ip, 0));
      cs.push_back(coll::scatter_case(MPI_COMM_WORLD, t, n, ip, p - 1));
      cs.push_back(coll::scatterv_case(MPI_COMM_WORLD, t, n, ip, p / 2));
      cs.push_back(coll::allgather_case(MPI_COMM_WORLD, t, n, ip));
      cs.push_back(coll::allgatherv_case(MPI_COMM_WORLD, t, n, ip));
      cs.push_back(coll::alltoall_case(MPI_COMM_WORLD, t, n, ip));
      cs.push_back(coll::alltoallv_case(MPI_COMM_WORLD, t, n, ip));
      coll::run_blocking(cs, seed++);
    }
  }
}
