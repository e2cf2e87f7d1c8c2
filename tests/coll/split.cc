// Collectives on communicators from MPI_Comm_split: groups of odd and uneven sizes
// with the rank order reversed by the key (so a non-commutative op must follow the
// new ranks, not the world ranks), a communicator without world rank 0, and
// non-blocking collectives outstanding on the world and a sub-communicator at once.
#include "coll_common.h"

namespace {

using coll::CasePtr;

std::vector<CasePtr> some_of_each(MPI_Comm comm, const char* kind, const char* pair, long n,
                                  bool ip) {
  const int p = coll::comm_size(comm);
  const coll::RedKind& k = coll::red_kind(kind);
  const coll::TypePair& t = coll::type_pair(pair);
  std::vector<CasePtr> cs;
  cs.push_back(coll::barrier_case(comm));
  cs.push_back(coll::allreduce_case(comm, k, n, ip));
  cs.push_back(coll::reduce_case(comm, k, n, ip, p - 1));
  cs.push_back(coll::reduce_scatter_block_case(comm, k, n, ip));
  cs.push_back(coll::reduce_scatter_case(comm, k, n, ip));
  cs.push_back(coll::scan_case(comm, k, n, ip));
  cs.push_back(coll::exscan_case(comm, k, n, ip));
  cs.push_back(coll::bcast_case(comm, t, n, p / 2));
  cs.push_back(coll::gather_case(comm, t, n, ip, p - 1));
  cs.push_back(coll::gatherv_case(comm, t, n, ip, 0));
  cs.push_back(coll::scatter_case(comm, t, n, ip, 0));
  cs.push_back(coll::scatterv_case(comm, t, n, ip, p - 1));
  cs.push_back(coll::allgather_case(comm, t, n, ip));
  cs.push_back(coll::allgatherv_case(comm, t, n, ip));
  cs.push_back(coll::alltoall_case(comm, t, n, ip));
  cs.push_back(coll::alltoallv_case(comm, t, n, ip));
  return cs;
}

void exercise(MPI_Comm comm) {
  const int p = coll::comm_size(comm);
  int seed = 40;
  for (long n : {1L, static_cast<long>(p + 1)}) {
    for (bool ip : {false, true}) {
      coll::run_blocking(some_of_each(comm, "mat2x2_user_noncommutative", "vec->int", n, ip), seed++);
      coll::run_blocking(some_of_each(comm, "double_sum", "double", n, ip), seed++);
      coll::run_nonblocking(some_of_each(comm, "int_sum", "vec", n, ip), seed++);
      coll::run_persistent(some_of_each(comm, "double_int_maxloc", "int8", n, ip), seed++, 2);
    }
  }
}

}  // namespace

TEST_CASE("Comm_split into groups of uneven size, reversed order", "[coll][split]") {
  const int r = jobs::rank();
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, r % 3, -r, &sub));
  REQUIRE(sub != MPI_COMM_NULL);
  const int expect_size = (jobs::size() - r % 3 + 2) / 3;
  CHECK(coll::comm_size(sub) == expect_size);
  exercise(sub);
  MPI_OK(MPI_Comm_free(&sub));
}

TEST_CASE("Comm_split leaving world rank 0 out", "[coll][split]") {
  const int r = jobs::rank();
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, r == 0 ? MPI_UNDEFINED : 1, r, &sub));
  if (r == 0) {
    CHECK(sub == MPI_COMM_NULL);
    return;
  }
  REQUIRE(sub != MPI_COMM_NULL);
  CHECK(coll::comm_size(sub) == jobs::size() - 1);
  exercise(sub);
  MPI_OK(MPI_Comm_free(&sub));
}

TEST_CASE("Non-blocking collectives on the world and a split communicator at once",
          "[coll][split][nonblocking]") {
  const int r = jobs::rank();
  const int p = jobs::size();
  MPI_Comm sub = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, r % 2, -r, &sub));
  std::vector<CasePtr> all = some_of_each(sub, "mat2x2_user_noncommutative", "int", 3, false);
  std::vector<CasePtr> world = some_of_each(MPI_COMM_WORLD, "mat2x2_user_noncommutative", "vec", p, false);
  // Interleave starts: sub, world, sub, world, ...
  std::vector<CasePtr> merged;
  for (size_t i = 0; i < std::max(all.size(), world.size()); ++i) {
    if (i < all.size()) merged.push_back(std::move(all[i]));
    if (i < world.size()) merged.push_back(std::move(world[i]));
  }
  coll::run_nonblocking(merged, 77);
  MPI_OK(MPI_Comm_free(&sub));
}

TEST_CASE("Collectives on MPI_COMM_SELF", "[coll][self]") {
  int seed = 90;
  for (bool ip : {false, true}) {
    coll::run_blocking(some_of_each(MPI_COMM_SELF, "mat2x2_user_noncommutative", "padded->vec", 3, ip), seed++);
    coll::run_nonblocking(some_of_each(MPI_COMM_SELF, "int64_sum", "neg_lb->double", 2, ip), seed++);
    coll::run_persistent(some_of_each(MPI_COMM_SELF, "float_max", "int8", 5, ip), seed++, 2);
  }
}

// Jobs are pooled: a job that ran a schedule of its own (a v-collective's, which
// the schedule cache does not keep) through the shared window used to keep that
// schedule's window size into its next call. A call without the window then took
// a turn in it (a rank's turns out of step with its peers': a hang) or, on a
// communicator without a window, failed with "unsupported operation".
TEST_CASE("A call after a v-collective through the window leaves the window alone", "[coll][self]") {
  const int p = jobs::size(), me = jobs::rank();
  for (int iter = 0; iter < 3; ++iter) {
    // Small blocks: the shared-window allgatherv where the choice is automatic.
    std::vector<int> counts(static_cast<std::size_t>(p), 2), displs(static_cast<std::size_t>(p));
    for (int q = 0; q < p; ++q) displs[static_cast<std::size_t>(q)] = 2 * q;
    int mine[2] = {me, iter};
    std::vector<int> all(static_cast<std::size_t>(2 * p), -1);
    MPI_OK(MPI_Allgatherv(mine, 2, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD));
    for (int q = 0; q < p; ++q) CHECK(all[static_cast<std::size_t>(2 * q)] == q);
    // Then one on MPI_COMM_SELF (no window), and one on the world through messages.
    int sc = 1, sd = 0, in = 40 + iter, out = -1;
    MPI_OK(MPI_Alltoallv(&in, &sc, &sd, MPI_INT, &out, &sc, &sd, MPI_INT, MPI_COMM_SELF));
    CHECK(out == 40 + iter);
    MPI_OK(MPI_Allgatherv(mine, 2, MPI_INT, all.data(), counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD));
    std::vector<int> c1(static_cast<std::size_t>(p), 1), d1(static_cast<std::size_t>(p)), s1(static_cast<std::size_t>(p)),
        r1(static_cast<std::size_t>(p), -1);
    for (int q = 0; q < p; ++q) {
      d1[static_cast<std::size_t>(q)] = q;
      s1[static_cast<std::size_t>(q)] = me * 100 + q;
    }
    MPI_OK(MPI_Alltoallv(s1.data(), c1.data(), d1.data(), MPI_INT, r1.data(), c1.data(), d1.data(), MPI_INT,
                         MPI_COMM_WORLD));
    for (int q = 0; q < p; ++q) CHECK(r1[static_cast<std::size_t>(q)] == q * 100 + me);
  }
}

TEST_CASE("Same collectives outstanding on a communicator and its duplicate",
          "[coll][split][nonblocking]") {
  const int p = jobs::size();
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  // The same collectives in the same order on both, with different data: only the
  // communicator tells the messages apart.
  std::vector<CasePtr> a = some_of_each(dup, "int_sum", "int", p + 1, false);
  std::vector<CasePtr> b = some_of_each(MPI_COMM_WORLD, "int_user_commutative", "double", p + 1, false);
  std::vector<CasePtr> merged;
  for (size_t i = 0; i < a.size(); ++i) {
    merged.push_back(std::move(a[i]));
    merged.push_back(std::move(b[i]));
  }
  coll::run_nonblocking(merged, 91);
  MPI_OK(MPI_Comm_free(&dup));
}
