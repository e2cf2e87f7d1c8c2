// Bad arguments get the right error class with MPI_ERRORS_RETURN on the
// communicator. Most errors here are detectable locally on every rank (same
// arguments everywhere); mismatched roots and counts are found by the agreement
// exchange that rooted collectives run first, so no rank is left waiting.
#include <cstdlib>
#include <string>
#include <vector>

#include "coll_common.h"

using coll::expect_class;

TEST_CASE("Negative count gives MPI_ERR_COUNT", "[coll][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size();
  std::vector<int> a(4 * p + 4), b(4 * p + 4);
  std::vector<int> counts(p, -1), displs(p, 0);
  MPI_Request r = MPI_REQUEST_NULL;
  const MPI_Comm w = MPI_COMM_WORLD;
  expect_class(MPI_Allreduce(a.data(), b.data(), -1, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "Allreduce");
  expect_class(MPI_Reduce(a.data(), b.data(), -1, MPI_INT, MPI_SUM, 0, w), MPI_ERR_COUNT, "Reduce");
  expect_class(MPI_Bcast(a.data(), -1, MPI_INT, 0, w), MPI_ERR_COUNT, "Bcast");
  expect_class(MPI_Scan(a.data(), b.data(), -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "Scan");
  expect_class(MPI_Exscan(a.data(), b.data(), -2, MPI_INT, MPI_SUM, w), MPI_ERR_COUNT, "Exscan");
  expect_class(MPI_Reduce_scatter_block(a.data(), b.data(), -1, MPI_INT, MPI_SUM, w),
               MPI_ERR_COUNT, "Reduce_scatter_block");
  expect_class(MPI_Reduce_scatter(a.data(), b.data(), counts.data(), MPI_INT, MPI_SUM, w),
               MPI_ERR_COUNT, "Reduce_scatter");
  expect_class(MPI_Allgather(a.data(), -1, MPI_INT, b.data(), -1, MPI_INT, w), MPI_ERR_COUNT,
               "Allgather");
  expect_class(MPI_Alltoall(a.data(), -1, MPI_INT, b.data(), -1, MPI_INT, w), MPI_ERR_COUNT,
               "Alltoall");
  expect_class(MPI_Alltoallv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(),
                             counts.data(), displs.data(), MPI_INT, w),
               MPI_ERR_COUNT, "Alltoallv");
  expect_class(MPI_Allgatherv(a.data(), -1, MPI_INT, b.data(), counts.data(), displs.data(),
                              MPI_INT, w),
               MPI_ERR_COUNT, "Allgatherv");
  expect_class(MPI_Iallreduce(a.data(), b.data(), -1, MPI_INT, MPI_SUM, w, &r), MPI_ERR_COUNT,
               "Iallreduce");
  CHECK(r == MPI_REQUEST_NULL);
  expect_class(MPI_Ibcast(a.data(), -3, MPI_INT, 0, w, &r), MPI_ERR_COUNT, "Ibcast");
  expect_class(MPI_Allreduce_init(a.data(), b.data(), -1, MPI_INT, MPI_SUM, w, MPI_INFO_NULL, &r),
               MPI_ERR_COUNT, "Allreduce_init");
  expect_class(MPI_Bcast_init(a.data(), -1, MPI_INT, 0, w, MPI_INFO_NULL, &r), MPI_ERR_COUNT,
               "Bcast_init");
}

TEST_CASE("Invalid root gives MPI_ERR_ROOT", "[coll][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size();
  std::vector<int> a(4 * p + 4), b(4 * p + 4);
  std::vector<int> counts(p, 1), displs(p, 0);
  MPI_Request r = MPI_REQUEST_NULL;
  const MPI_Comm w = MPI_COMM_WORLD;
  for (int root : {p, -5, p + 7}) {
    INFO("root " << root);
    expect_class(MPI_Bcast(a.data(), 1, MPI_INT, root, w), MPI_ERR_ROOT, "Bcast");
    expect_class(MPI_Reduce(a.data(), b.data(), 1, MPI_INT, MPI_SUM, root, w), MPI_ERR_ROOT,
                 "Reduce");
    expect_class(MPI_Gather(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, root, w), MPI_ERR_ROOT,
                 "Gather");
    expect_class(MPI_Gatherv(a.data(), 1, MPI_INT, b.data(), counts.data(), displs.data(),
                             MPI_INT, root, w),
                 MPI_ERR_ROOT, "Gatherv");
    expect_class(MPI_Scatter(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, root, w), MPI_ERR_ROOT,
                 "Scatter");
    expect_class(MPI_Scatterv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(), 1,
                              MPI_INT, root, w),
                 MPI_ERR_ROOT, "Scatterv");
    expect_class(MPI_Ibcast(a.data(), 1, MPI_INT, root, w, &r), MPI_ERR_ROOT, "Ibcast");
    expect_class(MPI_Ireduce(a.data(), b.data(), 1, MPI_INT, MPI_SUM, root, w, &r), MPI_ERR_ROOT,
                 "Ireduce");
    expect_class(MPI_Gather_init(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, root, w,
                                 MPI_INFO_NULL, &r),
                 MPI_ERR_ROOT, "Gather_init");
  }
}

TEST_CASE("Predefined op on a type it does not support gives MPI_ERR_OP", "[coll][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  struct DI {
    double d;
    int i;
  };
  std::vector<DI> a(4), b(4);
  MPI_Request r = MPI_REQUEST_NULL;
  const MPI_Comm w = MPI_COMM_WORLD;
  expect_class(MPI_Allreduce(a.data(), b.data(), 2, MPI_DOUBLE_INT, MPI_SUM, w), MPI_ERR_OP,
               "Allreduce SUM on DOUBLE_INT");
  expect_class(MPI_Reduce(a.data(), b.data(), 2, MPI_DOUBLE_INT, MPI_SUM, 0, w), MPI_ERR_OP,
               "Reduce SUM on DOUBLE_INT");
  expect_class(MPI_Scan(a.data(), b.data(), 2, MPI_DOUBLE_INT, MPI_SUM, w), MPI_ERR_OP,
               "Scan SUM on DOUBLE_INT");
  expect_class(MPI_Iallreduce(a.data(), b.data(), 2, MPI_DOUBLE_INT, MPI_SUM, w, &r), MPI_ERR_OP,
               "Iallreduce SUM on DOUBLE_INT");
  expect_class(MPI_Allreduce_init(a.data(), b.data(), 2, MPI_DOUBLE_INT, MPI_PROD, w,
                                  MPI_INFO_NULL, &r),
               MPI_ERR_OP, "Allreduce_init PROD on DOUBLE_INT");
  int x[4] = {0}, y[4] = {0};
  expect_class(MPI_Allreduce(x, y, 2, MPI_INT, MPI_MAXLOC, w), MPI_ERR_OP, "Allreduce MAXLOC on INT");
  expect_class(MPI_Allreduce(x, y, 2, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP, "Allreduce OP_NULL");
}

TEST_CASE("MPI_DATATYPE_NULL gives MPI_ERR_TYPE", "[coll][errors]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size();
  std::vector<int> a(4 * p + 4), b(4 * p + 4);
  MPI_Request r = MPI_REQUEST_NULL;
  const MPI_Comm w = MPI_COMM_WORLD;
  const MPI_Datatype n = MPI_DATATYPE_NULL;
  expect_class(MPI_Allreduce(a.data(), b.data(), 1, n, MPI_SUM, w), MPI_ERR_TYPE, "Allreduce");
  expect_class(MPI_Reduce(a.data(), b.data(), 1, n, MPI_SUM, 0, w), MPI_ERR_TYPE, "Reduce");
  expect_class(MPI_Bcast(a.data(), 1, n, 0, w), MPI_ERR_TYPE, "Bcast");
  expect_class(MPI_Allgather(a.data(), 1, n, b.data(), 1, n, w), MPI_ERR_TYPE, "Allgather");
  expect_class(MPI_Alltoall(a.data(), 1, n, b.data(), 1, n, w), MPI_ERR_TYPE, "Alltoall");
  expect_class(MPI_Reduce_scatter_block(a.data(), b.data(), 1, n, MPI_SUM, w), MPI_ERR_TYPE,
               "Reduce_scatter_block");
  expect_class(MPI_Iallreduce(a.data(), b.data(), 1, n, MPI_SUM, w, &r), MPI_ERR_TYPE,
               "Iallreduce");
  expect_class(MPI_Ialltoall(a.data(), 1, n, b.data(), 1, n, w, &r), MPI_ERR_TYPE, "Ialltoall");
  expect_class(MPI_Bcast_init(a.data(), 1, n, 0, w, MPI_INFO_NULL, &r), MPI_ERR_TYPE,
               "Bcast_init");
}

// A communicator's repeat caches (lib/mpi/coll.cc: allreduce_repeat,
// bcast_repeat, reduce_repeat) start empty, as a count of -1, no type, no op and
// root -1: arguments that look like that empty cache are refused by the full
// checks, not taken for a repeat (they were: a crash in the inline allreduce, or a
// null datatype read).
TEST_CASE("Arguments that look like an empty repeat cache are still refused", "[coll][errors]") {
  MPI_Comm w;
  REQUIRE(MPI_Comm_dup(MPI_COMM_WORLD, &w) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  int a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
  const MPI_Datatype n = MPI_DATATYPE_NULL;
  expect_class(MPI_Allreduce(a, b, -1, n, MPI_OP_NULL, w), MPI_ERR_COUNT, "Allreduce, the empty cache");
  expect_class(MPI_Bcast(a, -1, n, -1, w), MPI_ERR_COUNT, "Bcast, the empty cache");
  expect_class(MPI_Reduce(a, b, -1, n, MPI_OP_NULL, -1, w), MPI_ERR_COUNT, "Reduce, the empty cache");
  int v = jobs::rank() + 1, sum = 0;
  REQUIRE(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
  CHECK(sum == jobs::size() * (jobs::size() + 1) / 2);
  MPI_Comm_free(&w);
}

// Calls of no data (a count of 0) are done at their checks, without an algorithm
// (no_data_call in lib/mpi/coll.cc), and still refuse what the full way refuses:
// a bad datatype, communicator or op, an uncommitted type, MPI_IN_PLACE as the
// receive buffer, on a communicator whose window is set up and one still
// counting down to it.
TEST_CASE("Calls of no data still check their arguments", "[coll][errors]") {
  MPI_Comm fresh;
  REQUIRE(MPI_Comm_dup(MPI_COMM_WORLD, &fresh) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_set_errhandler(fresh, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  jobs::ErrorsReturn guard_self(MPI_COMM_SELF);
  const int p = jobs::size();
  std::vector<int> a(4 * p + 4), b(4 * p + 4);
  MPI_Datatype loose;  // never committed
  REQUIRE(MPI_Type_contiguous(2, MPI_INT, &loose) == MPI_SUCCESS);
  const MPI_Datatype n = MPI_DATATYPE_NULL;
  for (MPI_Comm w : {MPI_COMM_WORLD, fresh}) {
    for (int round = 0; round < 2; ++round) {
      expect_class(MPI_Allgather(a.data(), 0, n, b.data(), 0, MPI_INT, w), MPI_ERR_TYPE, "Allgather, null sendtype");
      expect_class(MPI_Allgather(a.data(), 0, MPI_INT, b.data(), 0, n, w), MPI_ERR_TYPE, "Allgather, null recvtype");
      expect_class(MPI_Allgather(a.data(), 0, MPI_INT, b.data(), 0, loose, w), MPI_ERR_TYPE,
                   "Allgather, uncommitted recvtype");
      expect_class(MPI_Alltoall(a.data(), 0, loose, b.data(), 0, MPI_INT, w), MPI_ERR_TYPE,
                   "Alltoall, uncommitted sendtype");
      expect_class(MPI_Alltoall(a.data(), 0, MPI_INT, MPI_IN_PLACE, 0, MPI_INT, w), MPI_ERR_BUFFER,
                   "Alltoall, recvbuf MPI_IN_PLACE");
      expect_class(MPI_Reduce_scatter_block(a.data(), b.data(), 0, MPI_INT, MPI_OP_NULL, w), MPI_ERR_OP,
                   "Reduce_scatter_block, MPI_OP_NULL");
      expect_class(MPI_Reduce_scatter_block(a.data(), b.data(), 0, MPI_FLOAT, MPI_BAND, w), MPI_ERR_OP,
                   "Reduce_scatter_block, MPI_BAND on MPI_FLOAT");
      expect_class(MPI_Reduce_scatter_block(a.data(), b.data(), 0, n, MPI_SUM, w), MPI_ERR_TYPE,
                   "Reduce_scatter_block, null type");
      // What passes is done, on every rank alike.
      REQUIRE(MPI_Allgather(a.data(), 0, MPI_INT, b.data(), 0, MPI_INT, w) == MPI_SUCCESS);
      REQUIRE(MPI_Alltoall(MPI_IN_PLACE, 0, n, b.data(), 0, MPI_INT, w) == MPI_SUCCESS);
      REQUIRE(MPI_Reduce_scatter_block(MPI_IN_PLACE, b.data(), 0, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
    }
  }
  expect_class(MPI_Allgather(a.data(), 0, MPI_INT, b.data(), 0, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM,
               "Allgather, MPI_COMM_NULL");
  MPI_Type_free(&loose);
  // The calls with data after them pair as before.
  int v = jobs::rank() + 1, sum = 0;
  REQUIRE(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, fresh) == MPI_SUCCESS);
  CHECK(sum == p * (p + 1) / 2);
  std::vector<int> all(static_cast<std::size_t>(p), -1);
  REQUIRE(MPI_Allgather(&v, 1, MPI_INT, all.data(), 1, MPI_INT, fresh) == MPI_SUCCESS);
  for (int q = 0; q < p; ++q) CHECK(all[static_cast<std::size_t>(q)] == q + 1);
  MPI_Comm_free(&fresh);
}

TEST_CASE("The communicator still works after the errors", "[coll][errors]") {
  int v = jobs::rank() + 1, s = 0;
  MPI_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  const int p = jobs::size();
  CHECK(s == p * (p + 1) / 2);
}

// Ranks that pass different roots (or a bcast/reduce with different byte counts)
// all get the error, instead of hanging or moving the wrong data, and the
// communicator still works afterwards (CHORUS_CHECK_ROOTS, on by default; the
// suite runs it under CHORUS_CHECK_COLL=1, which also turns the window's mailbox
// off: with the mailbox only the ranks that wait fail, see mailbox.cc).
TEST_CASE("Mismatched roots and counts are detected on every rank", "[coll][errors]") {
  const int p = jobs::size();
  if (p < 2) return;  // one rank always agrees with itself
  // Every rank learns of it only without the mailbox (meson test --setup unchecked
  // runs with it).
  if (!coll::mailbox_off()) return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  const int me = jobs::rank();
  const int root = me == p - 1 ? 1 : 0;  // the last rank disagrees
  std::vector<int> a(4 * p + 4, me), b(4 * p + 4, -1);
  std::vector<int> counts(p, 1), displs(p);
  for (int i = 0; i < p; ++i) displs[i] = i;
  MPI_Request r = MPI_REQUEST_NULL;

  expect_class(MPI_Bcast(a.data(), 3, MPI_INT, root, w), MPI_ERR_ROOT, "Bcast");
  expect_class(MPI_Reduce(a.data(), b.data(), 3, MPI_INT, MPI_SUM, root, w), MPI_ERR_ROOT, "Reduce");
  expect_class(MPI_Gather(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, root, w), MPI_ERR_ROOT, "Gather");
  expect_class(MPI_Scatter(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, root, w), MPI_ERR_ROOT, "Scatter");
  expect_class(MPI_Gatherv(a.data(), 1, MPI_INT, b.data(), counts.data(), displs.data(), MPI_INT, root, w),
               MPI_ERR_ROOT, "Gatherv");
  expect_class(MPI_Scatterv(a.data(), counts.data(), displs.data(), MPI_INT, b.data(), 1, MPI_INT, root, w),
               MPI_ERR_ROOT, "Scatterv");
  // Non-blocking and persistent: the error arrives at completion.
  REQUIRE(MPI_Ibcast(a.data(), 2, MPI_INT, root, w, &r) == MPI_SUCCESS);
  expect_class(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_ROOT, "Ibcast/Wait");
  REQUIRE(MPI_Bcast_init(a.data(), 2, MPI_INT, root, w, MPI_INFO_NULL, &r) == MPI_SUCCESS);
  REQUIRE(MPI_Start(&r) == MPI_SUCCESS);
  expect_class(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_ROOT, "Bcast_init/Start/Wait");
  MPI_Request_free(&r);

  // The message names the call, the argument and two ranks' values.
  int rc = MPI_Bcast(a.data(), 1, MPI_INT, root, w);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  INFO(msg);
  CHECK(std::string(msg).find("MPI_Bcast") != std::string::npos);
  CHECK(std::string(msg).find("root") != std::string::npos);
  CHECK(std::string(msg).find("rank " + std::to_string(p - 1) + " passed 1") != std::string::npos);

  // Same root, different counts: MPI_ERR_COUNT.
  const int count = me == 0 ? 4 : 3;
  expect_class(MPI_Bcast(a.data(), count, MPI_INT, 0, w), MPI_ERR_COUNT, "Bcast count");
  expect_class(MPI_Reduce(a.data(), b.data(), count, MPI_INT, MPI_SUM, 0, w), MPI_ERR_COUNT,
               "Reduce count");

  // Nothing is left behind: a correct bcast and reduce still work.
  int v = me == 0 ? 42 : -1;
  REQUIRE(MPI_Bcast(&v, 1, MPI_INT, 0, w) == MPI_SUCCESS);
  CHECK(v == 42);
  int one = 1, sum = 0;
  REQUIRE(MPI_Reduce(&one, &sum, 1, MPI_INT, MPI_SUM, p - 1, w) == MPI_SUCCESS);
  if (me == p - 1) CHECK(sum == p);
}

// CHORUS_CHECK_COLL=1 (the test suite sets it): calls that differ in kind, count,
// op or datatype are an error on every rank, not wrong data. Without the check an
// allreduce of 10 against 20 ints succeeded with garbage in elements 10-19, and a
// bcast against an allreduce succeeded with a wrong sum.
TEST_CASE("CHORUS_CHECK_COLL: mismatched collectives fail on every rank", "[coll][errors][check]") {
  const char* on = std::getenv("CHORUS_CHECK_COLL");
  const int p = jobs::size();
  if (p < 2 || !on || std::string(on) != "1") return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  const int me = jobs::rank();
  const bool odd = me == p - 1;  // the last rank disagrees
  std::vector<int> a(20, 1), b(20, -1);
  auto message = [](int rc) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    return std::string(msg, static_cast<std::size_t>(len));
  };

  int rc = MPI_Allreduce(a.data(), b.data(), odd ? 20 : 10, MPI_INT, MPI_SUM, w);
  expect_class(rc, MPI_ERR_OTHER, "Allreduce 10 vs 20");
  INFO(message(rc));
  CHECK(message(rc).find("count") != std::string::npos);
  CHECK(message(rc).find("rank " + std::to_string(p - 1) + " passed 20") != std::string::npos);

  if (odd) rc = MPI_Bcast(a.data(), 10, MPI_INT, 0, w);
  else rc = MPI_Allreduce(a.data(), b.data(), 10, MPI_INT, MPI_SUM, w);
  expect_class(rc, MPI_ERR_OTHER, "Bcast against Allreduce");
  INFO(message(rc));
  CHECK(message(rc).find("bcast") != std::string::npos);
  CHECK(message(rc).find("allreduce") != std::string::npos);

  expect_class(MPI_Allreduce(a.data(), b.data(), 10, MPI_INT, odd ? MPI_MAX : MPI_SUM, w), MPI_ERR_OTHER,
               "Allreduce SUM vs MAX");
  expect_class(MPI_Allreduce(a.data(), b.data(), 5, odd ? MPI_LONG_LONG : MPI_DOUBLE, MPI_SUM, w),
               MPI_ERR_OTHER, "Allreduce double vs long long");
  expect_class(MPI_Allgather(a.data(), odd ? 2 : 1, MPI_INT, b.data(), odd ? 2 : 1, MPI_INT, w),
               MPI_ERR_OTHER, "Allgather counts");
  MPI_Request r = MPI_REQUEST_NULL;
  REQUIRE(MPI_Iallreduce(a.data(), b.data(), odd ? 3 : 4, MPI_INT, MPI_SUM, w, &r) == MPI_SUCCESS);
  expect_class(MPI_Wait(&r, MPI_STATUS_IGNORE), MPI_ERR_OTHER, "Iallreduce counts");
  if (odd) rc = MPI_Barrier(w);
  else rc = MPI_Allreduce(a.data(), b.data(), 1, MPI_INT, MPI_SUM, w);
  expect_class(rc, MPI_ERR_OTHER, "Barrier against Allreduce");

  // Equal signatures in other types agree: 4 ints as 2 x (contiguous 2 ints).
  MPI_Datatype two;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  MPI_OK(MPI_Type_commit(&two));
  std::fill(a.begin(), a.end(), me);
  if (odd) rc = MPI_Bcast(a.data(), 2, two, 0, w);
  else rc = MPI_Bcast(a.data(), 4, MPI_INT, 0, w);
  CHECK(rc == MPI_SUCCESS);
  CHECK(a[3] == 0);
  MPI_Type_free(&two);

  // The communicator still works.
  int v = 1, s = 0;
  MPI_OK(MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, w));
  CHECK(s == p);
}

// A send buffer that is the receive buffer (or this rank's block of it) is an
// error MPI_IN_PLACE exists to avoid: MPI_ERR_BUFFER before anything starts. The
// rooted ones are called on the root alone, as MPICH's errors/coll/noalias3 does:
// had the call started a collective, the barrier after would mismatch or hang.
TEST_CASE("Aliased send and receive buffers give MPI_ERR_BUFFER", "[coll][errors][alias]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> buf(2 * static_cast<std::size_t>(p) + 2, me);
  std::vector<int> counts(static_cast<std::size_t>(p), 2), displs(static_cast<std::size_t>(p));
  std::vector<int> bdispls(static_cast<std::size_t>(p));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(p), MPI_INT);
  for (int i = 0; i < p; ++i) {
    displs[static_cast<std::size_t>(i)] = 2 * i;
    bdispls[static_cast<std::size_t>(i)] = 2 * i * static_cast<int>(sizeof(int));
  }
  int* b = buf.data();
  int* mine = b + 2 * me;  // this rank's block of a gathered buffer
  MPI_Request r = MPI_REQUEST_NULL;
  if (me == 0) {
    expect_class(MPI_Gather(b, 2, MPI_INT, b, 2, MPI_INT, 0, w), MPI_ERR_BUFFER, "Gather");
    expect_class(MPI_Igather(b, 2, MPI_INT, b, 2, MPI_INT, 0, w, &r), MPI_ERR_BUFFER, "Igather");
    expect_class(MPI_Gatherv(b, 2, MPI_INT, b, counts.data(), displs.data(), MPI_INT, 0, w), MPI_ERR_BUFFER,
                 "Gatherv");
    expect_class(MPI_Scatter(b, 2, MPI_INT, b, 2, MPI_INT, 0, w), MPI_ERR_BUFFER, "Scatter");
    expect_class(MPI_Iscatterv(b, counts.data(), displs.data(), MPI_INT, b, 2, MPI_INT, 0, w, &r),
                 MPI_ERR_BUFFER, "Iscatterv");
    // A blocking reduce that fails its checks takes nothing, mailbox or not: made on
    // this rank alone, it leaves the ranks' calls in step.
    expect_class(MPI_Reduce(b, b, 2, MPI_INT, MPI_SUM, 0, w), MPI_ERR_BUFFER, "Reduce");
    expect_class(MPI_Ireduce(b, b, 2, MPI_INT, MPI_SUM, 0, w, &r), MPI_ERR_BUFFER, "Ireduce");
  }
  expect_class(MPI_Allgather(mine, 2, MPI_INT, b, 2, MPI_INT, w), MPI_ERR_BUFFER, "Allgather (own block)");
  expect_class(MPI_Iallgatherv(mine, 2, MPI_INT, b, counts.data(), displs.data(), MPI_INT, w, &r),
               MPI_ERR_BUFFER, "Iallgatherv (own block)");
  expect_class(MPI_Alltoall(b, 2, MPI_INT, b, 2, MPI_INT, w), MPI_ERR_BUFFER, "Alltoall");
  expect_class(MPI_Alltoallv(b, counts.data(), displs.data(), MPI_INT, b, counts.data(), displs.data(), MPI_INT, w),
               MPI_ERR_BUFFER, "Alltoallv");
  expect_class(MPI_Ialltoallw(b, counts.data(), bdispls.data(), types.data(), b, counts.data(), bdispls.data(),
                              types.data(), w, &r),
               MPI_ERR_BUFFER, "Ialltoallw");
  expect_class(MPI_Allreduce(b, b, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Allreduce");
  expect_class(MPI_Iallreduce(b, b, 2, MPI_INT, MPI_SUM, w, &r), MPI_ERR_BUFFER, "Iallreduce");
  expect_class(MPI_Reduce_scatter(b, b, counts.data(), MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Reduce_scatter");
  expect_class(MPI_Reduce_scatter_block(b, b, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Reduce_scatter_block");
  expect_class(MPI_Scan(b, b, 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Scan");
  expect_class(MPI_Iexscan(b, b, 2, MPI_INT, MPI_SUM, w, &r), MPI_ERR_BUFFER, "Iexscan");
  CHECK(r == MPI_REQUEST_NULL);
  // Nothing was started: the communicator still works, and the same calls in
  // place or with separate buffers run.
  MPI_OK(MPI_Barrier(w));
  std::vector<int> out(buf.size());
  MPI_OK(MPI_Allreduce(b, out.data(), 2, MPI_INT, MPI_SUM, w));
  CHECK(out[0] == p * (p - 1) / 2);
  MPI_OK(MPI_Allreduce(MPI_IN_PLACE, b, 2, MPI_INT, MPI_SUM, w));
  CHECK(b[0] == p * (p - 1) / 2);
  // A repeat of an allreduce that ran on the fast path must not skip the check.
  for (int k = 0; k < 3; ++k) MPI_OK(MPI_Allreduce(out.data(), out.data() + 2, 2, MPI_INT, MPI_SUM, w));
  expect_class(MPI_Allreduce(out.data(), out.data(), 2, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER, "Allreduce repeat");
}

// MPI_IN_PLACE stands for a send buffer (or, for a scatter's root, the receive
// buffer) only. Where MPI allows no such thing (a receive buffer, a bcast's
// buffer, a scatter root's send buffer) the call fails with MPI_ERR_BUFFER
// before anything starts, instead of reading or writing through the constant.
TEST_CASE("MPI_IN_PLACE where MPI allows none gives MPI_ERR_BUFFER", "[coll][errors][alias]") {
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> buf(2 * static_cast<std::size_t>(p) + 2, me);
  std::vector<int> counts(static_cast<std::size_t>(p), 2), displs(static_cast<std::size_t>(p));
  std::vector<MPI_Datatype> types(static_cast<std::size_t>(p), MPI_INT);
  for (int i = 0; i < p; ++i) displs[static_cast<std::size_t>(i)] = 2 * i;
  int* b = buf.data();
  void* const ip = MPI_IN_PLACE;
  MPI_Request r = MPI_REQUEST_NULL;
  if (me == 0) {
    expect_class(MPI_Gather(b, 2, MPI_INT, ip, 2, MPI_INT, 0, w), MPI_ERR_BUFFER, "Gather recvbuf");
    expect_class(MPI_Igatherv(b, 2, MPI_INT, ip, counts.data(), displs.data(), MPI_INT, 0, w, &r), MPI_ERR_BUFFER,
                 "Igatherv recvbuf");
    expect_class(MPI_Scatter(ip, 2, MPI_INT, b, 2, MPI_INT, 0, w), MPI_ERR_BUFFER, "Scatter sendbuf");
    expect_class(MPI_Scatterv(ip, counts.data(), displs.data(), MPI_INT, b, 2, MPI_INT, 0, w), MPI_ERR_BUFFER,
                 "Scatterv sendbuf");
  }
  expect_class(MPI_Bcast(ip, 2, MPI_INT, 0, w), MPI_ERR_BUFFER, "Bcast buffer");
  for (int k = 0; k < 3; ++k) {  // also after repeats that may have run inline
    std::vector<int> out(buf.size());
    MPI_OK(MPI_Allgather(b, 1, MPI_INT, out.data(), 1, MPI_INT, w));
    MPI_OK(MPI_Alltoall(b, 1, MPI_INT, out.data(), 1, MPI_INT, w));
    MPI_OK(MPI_Reduce_scatter_block(b, out.data(), 1, MPI_INT, MPI_SUM, w));
  }
  expect_class(MPI_Allgather(b, 1, MPI_INT, ip, 1, MPI_INT, w), MPI_ERR_BUFFER, "Allgather recvbuf");
  expect_class(MPI_Iallgatherv(b, 2, MPI_INT, ip, counts.data(), displs.data(), MPI_INT, w, &r), MPI_ERR_BUFFER,
               "Iallgatherv recvbuf");
  expect_class(MPI_Alltoall(b, 1, MPI_INT, ip, 1, MPI_INT, w), MPI_ERR_BUFFER, "Alltoall recvbuf");
  expect_class(MPI_Alltoallv(b, counts.data(), displs.data(), MPI_INT, ip, counts.data(), displs.data(), MPI_INT, w),
               MPI_ERR_BUFFER, "Alltoallv recvbuf");
  expect_class(MPI_Alltoallw(b, counts.data(), displs.data(), types.data(), ip, counts.data(), displs.data(),
                             types.data(), w),
               MPI_ERR_BUFFER, "Alltoallw recvbuf");
  expect_class(MPI_Reduce_scatter_block(b, ip, 1, MPI_INT, MPI_SUM, w), MPI_ERR_BUFFER,
               "Reduce_scatter_block recvbuf");
  expect_class(MPI_Ireduce_scatter(b, ip, counts.data(), MPI_INT, MPI_SUM, w, &r), MPI_ERR_BUFFER,
               "Ireduce_scatter recvbuf");
  CHECK(r == MPI_REQUEST_NULL);
  // Nothing was started: the communicator still works.
  MPI_OK(MPI_Barrier(w));
  int v = 1, sum = 0;
  MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, w));
  CHECK(sum == p);
}
