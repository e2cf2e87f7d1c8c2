// Reductions (allreduce, reduce, reduce_scatter_block, reduce_scatter, scan, exscan),
// blocking: every reduction kind x counts {0, 1, p-1, p+1} x {out of place, in place}
// (x roots {0, p-1} for reduce), checked against a local fold in rank order.
#include "coll_common.h"

namespace {

using coll::CasePtr;
using coll::RedKind;

template <class Make>
void for_all_kinds(Make make) {
  const int p = jobs::size();
  int seed = 1;
  for (const RedKind& k : coll::red_kinds()) {
    for (long n : coll::small_counts(p)) {
      for (bool ip : {false, true}) {
        std::vector<CasePtr> cases;
        make(cases, k, n, ip);
        coll::run_blocking(cases, seed++);
      }
    }
  }
}

}  // namespace

TEST_CASE("Allreduce, every kind, count and in-place", "[coll][reduction][allreduce]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reduce to the first and the last rank", "[coll][reduction][reduce]") {
  const int p = jobs::size();
  for_all_kinds([p](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, 0));
    if (p > 1) cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p - 1));
    if (p > 2) cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p / 2));
  });
}

TEST_CASE("Reduce_scatter_block", "[coll][reduction][reduce_scatter_block]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reduce_scatter with uneven recvcounts", "[coll][reduction][reduce_scatter]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_scatter_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Scan", "[coll][reduction][scan]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::scan_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Exscan", "[coll][reduction][exscan]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::exscan_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reductions with a medium count, every kind", "[coll][reduction][medium]") {
  // 1001 elements: past the small-message paths, and with 24- or 1000-byte chunks
  // (variants) many pipeline chunks that do not divide the message.
  const int p = jobs::size();
  const long n = 1001;
  int seed = 500;
  for (const RedKind& k : coll::red_kinds()) {
    for (bool ip : {false, true}) {
      std::vector<CasePtr> cs;
      cs.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, n, ip));
      cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p - 1));
      cs.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, n / p + 1, ip));
      cs.push_back(coll::reduce_scatter_case(MPI_COMM_WORLD, k, n / p + 2, ip));
      cs.push_back(coll::scan_case(MPI_COMM_WORLD, k, n, ip));
      cs.push_back(coll::exscan_case(MPI_COMM_WORLD, k, n, ip));
      coll::run_blocking(cs, seed++);
    }
  }
}
