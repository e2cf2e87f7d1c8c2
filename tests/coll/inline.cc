// Small blocking MPI_Allgather, MPI_Alltoall and MPI_Reduce_scatter_block whose
// choice is shared_memory_flat run inline (lib/mpi/coll.cc, coll_inline): once
// the schedule is cached, a call with the same arguments runs its window steps at
// once, without a job or a request, whenever no other window call is queued on
// the rank. Run with CHORUS_CHECK_COLL=0 (the call check keeps every call on the
// job path). A rank with a non-blocking call still in the window takes the job
// path for the same schedule while its peers run inline: the two must meet.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "coll_common.h"

namespace {

// A job that forces these calls' algorithms (the coll_np*_v* jobs): whether they
// run inline then depends on the algorithm forced, so the counts say nothing.
bool algorithm_forced() {
  for (const char* coll : {"CHORUS_ALLGATHER_ALGO", "CHORUS_ALLTOALL_ALGO", "CHORUS_REDUCE_SCATTER_BLOCK_ALGO"})
    if (const char* v = std::getenv(coll); v && *v && std::string(v) != "auto") return true;
  return false;
}

// Whether this job runs calls inline: more than one rank, all on one node (a
// shared window), the call check off and no algorithm forced.
bool inline_expected() {
  if (jobs::size() < 2 || coll::env_is("CHORUS_CHECK_COLL", "1") || coll::env_is("CHORUS_COLL_SHM", "off") ||
      algorithm_forced())
    return false;
  MPI_Comm node;
  REQUIRE(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS);
  int n;
  MPI_Comm_size(node, &n);
  MPI_Comm_free(&node);
  return n == jobs::size();
}

// Loops run this many times where calls run inline, a twentieth of it elsewhere
// (where every call goes through the job path: across hosts, through TCP, slow).
int loops(int n) { return inline_expected() ? n : std::max(2, n / 20); }

// The MPI_T counter coll_inline_calls (calls that ran inline on this rank).
class InlineCount : public coll::PvarCount {
 public:
  InlineCount() : PvarCount("coll_inline_calls") {}
};

long val(int iter, int rank, int i) { return static_cast<long>(iter) * 1000003 + rank * 7919 + i; }

// One round of each of the three calls with `n` elements per block, data from
// `iter`, checked; in place every other iteration.
void round_of_three(int iter, int n, MPI_Comm w) {
  const int p = jobs::size(), me = jobs::rank();
  const bool in_place = iter % 2 == 1;
  const auto pn = static_cast<std::size_t>(p) * static_cast<std::size_t>(n);
  {
    std::vector<long> mine(static_cast<std::size_t>(n)), all(pn + 1, -7);
    for (int i = 0; i < n; ++i) mine[i] = val(iter, me, i);
    if (in_place)
      for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(me * n + i)] = mine[i];
    REQUIRE(MPI_Allgather(in_place ? MPI_IN_PLACE : mine.data(), n, MPI_LONG, all.data(), n, MPI_LONG, w) ==
            MPI_SUCCESS);
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < n; ++i) REQUIRE(all[static_cast<std::size_t>(q * n + i)] == val(iter, q, i));
    CHECK(all[pn] == -7);
  }
  {
    // Block q of rank r's send buffer: val(iter, r, q * n + i).
    std::vector<long> send(pn), recv(pn + 1, -7);
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < n; ++i) send[static_cast<std::size_t>(q * n + i)] = val(iter, me, q * n + i);
    if (in_place) std::copy(send.begin(), send.end(), recv.begin());
    REQUIRE(MPI_Alltoall(in_place ? MPI_IN_PLACE : send.data(), n, MPI_LONG, recv.data(), n, MPI_LONG, w) ==
            MPI_SUCCESS);
    for (int q = 0; q < p; ++q)
      for (int i = 0; i < n; ++i) REQUIRE(recv[static_cast<std::size_t>(q * n + i)] == val(iter, q, me * n + i));
    CHECK(recv[pn] == -7);
  }
  {
    std::vector<double> in(pn), out(pn + 1, -7.0);
    for (std::size_t k = 0; k < pn; ++k) in[k] = static_cast<double>((me + 1) * (iter + static_cast<int>(k)));
    if (in_place) std::copy(in.begin(), in.end(), out.begin());
    const MPI_Op op = iter % 3 == 0 ? MPI_MAX : MPI_SUM;
    REQUIRE(MPI_Reduce_scatter_block(in_place ? MPI_IN_PLACE : in.data(), out.data(), n, MPI_DOUBLE, op, w) ==
            MPI_SUCCESS);
    for (int i = 0; i < n; ++i) {
      const double k = iter + me * n + i;
      REQUIRE(out[static_cast<std::size_t>(i)] == (op == MPI_MAX ? p * k : p * (p + 1) / 2 * k));
    }
    if (!in_place) CHECK(out[static_cast<std::size_t>(n)] == -7.0);
  }
}

}  // namespace

TEST_CASE("Inline: loops of small allgather, alltoall and reduce_scatter_block give the right data",
          "[coll][inline]") {
  const int iters = loops(200);
  InlineCount count;
  for (int iter = 0; iter < iters; ++iter)
    for (int n : {1, 3, 64}) round_of_three(iter, n, MPI_COMM_WORLD);
  // Each shape after its first call (which chose and cached the schedule) ran inline.
  if (inline_expected()) CHECK(count.grew() >= 3 * 3 * 190);
  else if (!algorithm_forced()) CHECK(count.grew() == 0);
}

TEST_CASE("Inline: repeated arguments (the checks skipped) still give the right data, and errors stay errors",
          "[coll][inline]") {
  const int p = jobs::size(), me = jobs::rank();
  {
    const int iters = loops(100);
    InlineCount count;
    for (bool in_place : {false, true})
      for (int n : {1, 5})
        for (int iter = 0; iter < iters; ++iter) round_of_three(2 * iter + (in_place ? 1 : 0), n, MPI_COMM_WORLD);
    if (inline_expected()) CHECK(count.grew() >= 2 * 2 * 3 * 95);
  }
  // After repeats, buffers MPI forbids are still refused on every rank (each
  // rank passes the same bad arguments, so none waits for the others).
  MPI_Comm w;
  REQUIRE(MPI_Comm_dup(MPI_COMM_WORLD, &w) == MPI_SUCCESS);
  REQUIRE(MPI_Comm_set_errhandler(w, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  std::vector<int> all(static_cast<std::size_t>(p), -1), send(static_cast<std::size_t>(p), me);
  for (int iter = 0; iter < 5; ++iter) {
    int mine = me;
    REQUIRE(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, w) == MPI_SUCCESS);
    REQUIRE(MPI_Alltoall(send.data(), 1, MPI_INT, all.data(), 1, MPI_INT, w) == MPI_SUCCESS);
    REQUIRE(MPI_Reduce_scatter_block(send.data(), all.data(), 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
  }
  int cls = -1;
  MPI_Error_class(MPI_Allgather(all.data() + me, 1, MPI_INT, all.data(), 1, MPI_INT, w), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  MPI_Error_class(MPI_Alltoall(all.data(), 1, MPI_INT, all.data(), 1, MPI_INT, w), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  MPI_Error_class(MPI_Allgather(all.data(), 1, MPI_INT, nullptr, 1, MPI_INT, w), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  MPI_Error_class(MPI_Reduce_scatter_block(send.data(), send.data(), 1, MPI_INT, MPI_SUM, w), &cls);
  CHECK(cls == MPI_ERR_BUFFER);
  // And the window is still in step.
  int mine = me + 7;
  REQUIRE(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, w) == MPI_SUCCESS);
  for (int q = 0; q < p; ++q) CHECK(all[static_cast<std::size_t>(q)] == q + 7);
  MPI_Comm_free(&w);
}

TEST_CASE("Inline: a rank with a pending non-blocking call takes the job path while its peers run inline",
          "[coll][inline]") {
  const int p = jobs::size(), me = jobs::rank();
  const int iters = loops(60);
  for (int iter = 0; iter < iters; ++iter) {
    // Rank `late` starts the non-blocking allreduce last, so the others' copies of
    // it wait in their windows (their next call goes through a job) while its own
    // may already be done (its next call runs inline); then the roles turn.
    const int late = iter % p;
    if (me == late && iter % 4 == 0) usleep(2000);
    int x = me + iter, sum = -1;
    MPI_Request r;
    REQUIRE(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r) == MPI_SUCCESS);
    round_of_three(iter, 2, MPI_COMM_WORLD);
    REQUIRE(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(sum == p * (p - 1) / 2 + p * iter);
  }
}

TEST_CASE("Inline: a split communicator and a rank that lags", "[coll][inline]") {
  const int me = jobs::rank();
  MPI_Comm half;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half) == MPI_SUCCESS);
  int hp, hme;
  MPI_Comm_size(half, &hp);
  MPI_Comm_rank(half, &hme);
  const int iters = loops(40);
  for (int iter = 0; iter < iters; ++iter) {
    if (hme == iter % hp && iter % 5 == 0) usleep(3000);
    std::vector<int> all(static_cast<std::size_t>(hp), -1);
    int mine = iter * 100 + hme;
    REQUIRE(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, half) == MPI_SUCCESS);
    for (int q = 0; q < hp; ++q) REQUIRE(all[static_cast<std::size_t>(q)] == iter * 100 + q);
  }
  MPI_Comm_free(&half);
}

// Calls of no data (a count of 0) do nothing once their arguments pass, before
// any window, job or inline step (no_data_call in lib/mpi/coll.cc), and take no
// turn in the window, as the job path takes none, so ranks whose window is busy
// (a non-blocking call in it) and ranks that are not stay in step for the calls
// with data after them. CHORUS_CHECK_COLL (the suite's default) sends them the
// full way, to agree on the call.
TEST_CASE("Inline: calls of no data run as nothing and leave the window in step", "[coll][inline]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<long> a(static_cast<std::size_t>(p) + 1, -7), b(static_cast<std::size_t>(p) + 1, -7);
  {
    const int iters = loops(50);
    coll::PvarCount nodata("coll_no_data_calls");
    for (int iter = 0; iter < iters; ++iter) {
      REQUIRE(MPI_Allgather(a.data(), 0, MPI_LONG, b.data(), 0, MPI_LONG, w) == MPI_SUCCESS);
      REQUIRE(MPI_Alltoall(a.data(), 0, MPI_LONG, b.data(), 0, MPI_LONG, w) == MPI_SUCCESS);
      REQUIRE(MPI_Reduce_scatter_block(a.data(), b.data(), 0, MPI_LONG, MPI_SUM, w) == MPI_SUCCESS);
      REQUIRE(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b.data(), 0, MPI_LONG, w) == MPI_SUCCESS);
    }
    CHECK(b[0] == -7);
    if (!coll::env_is("CHORUS_CHECK_COLL", "1")) CHECK(nodata.grew() == 4 * static_cast<unsigned long long>(iters));
  }
  for (int iter = 0; iter < loops(60); ++iter) {
    // As in the test above: the others' copies of the non-blocking allreduce wait
    // in their windows while the late rank's may be done.
    if (me == iter % p && iter % 4 == 0) usleep(2000);
    int x = me + iter, sum = -1;
    MPI_Request r;
    REQUIRE(MPI_Iallreduce(&x, &sum, 1, MPI_INT, MPI_SUM, w, &r) == MPI_SUCCESS);
    REQUIRE(MPI_Allgather(a.data(), 0, MPI_LONG, b.data(), 0, MPI_LONG, w) == MPI_SUCCESS);
    long mine = val(iter, me, 0);
    REQUIRE(MPI_Allgather(&mine, 1, MPI_LONG, b.data(), 1, MPI_LONG, w) == MPI_SUCCESS);
    for (int q = 0; q < p; ++q) REQUIRE(b[static_cast<std::size_t>(q)] == val(iter, q, 0));
    REQUIRE(MPI_Reduce_scatter_block(a.data(), b.data(), 0, MPI_LONG, MPI_SUM, w) == MPI_SUCCESS);
    REQUIRE(MPI_Alltoall(a.data(), 0, MPI_LONG, b.data(), 0, MPI_LONG, w) == MPI_SUCCESS);
    mine = val(iter, me, 1);
    REQUIRE(MPI_Allgather(&mine, 1, MPI_LONG, b.data(), 1, MPI_LONG, w) == MPI_SUCCESS);
    for (int q = 0; q < p; ++q) REQUIRE(b[static_cast<std::size_t>(q)] == val(iter, q, 1));
    REQUIRE(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    CHECK(sum == p * (p - 1) / 2 + p * iter);
  }
}
