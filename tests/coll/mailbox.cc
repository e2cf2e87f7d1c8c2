// Blocking MPI_Bcast and MPI_Reduce through the shared window's mailbox
// (lib/coll/mailbox.h): no sync of all ranks, so ranks that do not wait run up to
// CHORUS_COLL_MAILBOX_SMALL_DEPTH small calls (CHORUS_COLL_MAILBOX_DEPTH larger
// ones) ahead. Run with CHORUS_CHECK_COLL=0 (the call check turns the mailbox
// off), a small mailbox (CHORUS_COLL_MAILBOX=256) so calls of every mode mix, and
// shallow rings (3 entries, 2 data areas) so both are reused often.
// Without a window (one rank, or CHORUS_COLL_SHM=off) the same calls run as
// before; the data checks hold there too.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "coll_common.h"

using coll::expect_class;

namespace {

bool mailbox_expected() {
  return jobs::size() > 1 && !coll::mailbox_off() && !coll::env_is("CHORUS_COLL_SHM", "off");
}

int value(int call, int root, int i) { return call * 1000003 + root * 7919 + i; }

// Five ints, every other one, with an extent of ten (committed; the caller frees it).
MPI_Datatype every_other_type() {
  MPI_Datatype vec, t;
  REQUIRE(MPI_Type_vector(5, 1, 2, MPI_INT, &vec) == MPI_SUCCESS);
  REQUIRE(MPI_Type_create_resized(vec, 0, 10 * sizeof(int), &t) == MPI_SUCCESS);
  MPI_Type_free(&vec);
  REQUIRE(MPI_Type_commit(&t) == MPI_SUCCESS);
  return t;
}

// A bcast of `count` elements of `every_other` (every_other_type) from `root`,
// the root's ints being base + i: the even ints arrive, the gaps stay unwritten.
void bcast_every_other(MPI_Datatype every_other, int count, int root, MPI_Comm c, int base) {
  int me;
  MPI_Comm_rank(c, &me);
  const int ints = 10 * count;
  std::vector<int> v(static_cast<std::size_t>(ints), -1);
  if (me == root)
    for (int i = 0; i < ints; ++i) v[i] = base + i;
  REQUIRE(MPI_Bcast(v.data(), count, every_other, root, c) == MPI_SUCCESS);
  for (int i = 0; i < ints; ++i) {
    INFO("element " << i << " root " << root);
    if (me == root || i % 2 == 0) REQUIRE(v[i] == base + i);
    else REQUIRE(v[i] == -1);
  }
}

// A correct bcast, reduce, allreduce (small and large) and barrier: the window and
// the mailbox are still in step after whatever came before.
void still_works(MPI_Comm w, int round) {
  const int p = jobs::size(), me = jobs::rank();
  for (int root = 0; root < p; ++root) {
    for (int n : {1, 50, 200, 5000}) {
      std::vector<int> v(n, me == root ? round + root : -1);
      REQUIRE(MPI_Bcast(v.data(), n, MPI_INT, root, w) == MPI_SUCCESS);
      CHECK(v[0] == round + root);
      CHECK(v[n - 1] == round + root);
      std::vector<int> one(n, me + 1), sum(n, -1);
      REQUIRE(MPI_Reduce(one.data(), sum.data(), n, MPI_INT, MPI_SUM, root, w) == MPI_SUCCESS);
      if (me == root) CHECK(sum[n - 1] == p * (p + 1) / 2);
      REQUIRE(MPI_Allreduce(one.data(), sum.data(), n, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
      CHECK(sum[0] == p * (p + 1) / 2);
    }
  }
  REQUIRE(MPI_Barrier(w) == MPI_SUCCESS);
}

}  // namespace

TEST_CASE("Mailbox: loops of bcast and reduce with rotating roots and sizes give the right data",
          "[coll][mailbox]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  // Sizes in ints: none, a few (the entry's header line), up to the mailbox, and
  // beyond it (the algorithm) in one loop.
  const int sizes[] = {0, 1, 7, 40, 64, 65, 300, 3};
  int call = 0;
  for (int iter = 0; iter < 120; ++iter) {
    for (int n : sizes) {
      const int root = (iter + n) % p;
      ++call;
      std::vector<int> v(n + 1, -1);
      if (me == root)
        for (int i = 0; i < n; ++i) v[i] = value(call, root, i);
      REQUIRE(MPI_Bcast(v.data(), n, MPI_INT, root, w) == MPI_SUCCESS);
      for (int i = 0; i < n; ++i) REQUIRE(v[i] == value(call, root, i));
      CHECK(v[n] == -1);  // nothing past the count

      std::vector<long> in(n), out(n + 1, -5);
      for (int i = 0; i < n; ++i) in[i] = static_cast<long>(me + 1) * (i + call);
      REQUIRE(MPI_Reduce(in.data(), out.data(), n, MPI_LONG, MPI_SUM, root, w) == MPI_SUCCESS);
      if (me == root) {
        for (int i = 0; i < n; ++i) REQUIRE(out[i] == static_cast<long>(p) * (p + 1) / 2 * (i + call));
        CHECK(out[n] == -5);
      }
    }
    // Other collectives between them (the window's own turns) and a non-blocking
    // bcast left pending across a blocking one.
    if (iter % 10 == 0) {
      int x = me, sum = 0;
      REQUIRE(MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, w) == MPI_SUCCESS);
      CHECK(sum == p * (p - 1) / 2);
      int a = me == 0 ? 11 : -1, b = me == p - 1 ? 22 : -1;
      MPI_Request r;
      REQUIRE(MPI_Ibcast(&a, 1, MPI_INT, 0, w, &r) == MPI_SUCCESS);
      REQUIRE(MPI_Bcast(&b, 1, MPI_INT, p - 1, w) == MPI_SUCCESS);
      REQUIRE(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      CHECK(a == 11);
      CHECK(b == 22);
    }
  }
}

TEST_CASE("Mailbox: derived types, MPI_IN_PLACE, max and min, and a split communicator", "[coll][mailbox]") {
  const int me = jobs::rank();
  MPI_Datatype every_other = every_other_type();
  MPI_Comm half;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, me % 2, -me, &half) == MPI_SUCCESS);
  for (MPI_Comm c : {MPI_COMM_WORLD, half}) {
    int cp, cme;
    MPI_Comm_size(c, &cp);
    MPI_Comm_rank(c, &cme);
    for (int root = 0; root < cp; ++root) {
      bcast_every_other(every_other, 3, root, c, 100 * root);
      std::vector<double> d(6);
      for (int i = 0; i < 6; ++i) d[i] = (cme + 1) * (i % 2 ? -1.5 : 2.0);
      if (cme == root) {
        REQUIRE(MPI_Reduce(MPI_IN_PLACE, d.data(), 6, MPI_DOUBLE, MPI_MAX, root, c) == MPI_SUCCESS);
        CHECK(d[0] == 2.0 * cp);
        CHECK(d[1] == -1.5);
      } else {
        REQUIRE(MPI_Reduce(d.data(), nullptr, 6, MPI_DOUBLE, MPI_MAX, root, c) == MPI_SUCCESS);
      }
      short s = static_cast<short>(cme + 3), m = -1;
      REQUIRE(MPI_Reduce(&s, &m, 1, MPI_SHORT, MPI_MIN, root, c) == MPI_SUCCESS);
      if (cme == root) CHECK(m == 3);
    }
  }
  MPI_Comm_free(&half);
  MPI_Type_free(&every_other);
}

// The ranks that wait in a mismatched call get the error, none waits forever, no
// rank reads wrong data, and the communicator works afterwards. Ranks that do not
// wait (a bcast's root, a reduce's others) return MPI_SUCCESS: only
// CHORUS_CHECK_COLL=1 fails every rank (see errors.cc).
TEST_CASE("Mailbox: mismatched roots and counts fail the ranks that wait, and nothing hangs",
          "[coll][mailbox][errors]") {
  const int p = jobs::size(), me = jobs::rank();
  // Its "beyond the mailbox" calls are beyond the small mailboxes of the coll_mailbox
  // jobs (CHORUS_COLL_MAILBOX set), not beyond the default one.
  if (p < 2 || !mailbox_expected() || !std::getenv("CHORUS_COLL_MAILBOX")) return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> a(1000, me), b(1000, -1);
  for (int round = 0; round < 8; ++round) {
    // Ranks 0 and 1 each name the other as root, the rest name 0: every rank waits
    // (0 for 1, the others for 0) and each sees an entry that disagrees.
    {
      const int root = me == 0 ? 1 : 0;
      expect_class(MPI_Bcast(a.data(), 3, MPI_INT, root, w), MPI_ERR_ROOT, "Bcast, crossed roots");
    }
    // Small counts that differ: the others wait for root 0 and see its count.
    {
      const int rc = MPI_Bcast(a.data(), me == 0 ? 4 : 3, MPI_INT, 0, w);
      if (me == 0) CHECK(rc == MPI_SUCCESS);
      else expect_class(rc, MPI_ERR_COUNT, "Bcast, small counts differ");
    }
    // The root's count beyond the mailbox, the others' within it, and the other
    // way round: the ranks that run the algorithm find the peers that took the
    // mailbox and give up (their window Signal withdrawn).
    {
      const int rc = MPI_Bcast(a.data(), me == 0 ? 500 : 3, MPI_INT, 0, w);
      expect_class(rc, MPI_ERR_COUNT, "Bcast, root beyond the mailbox");
      const int rc2 = MPI_Bcast(a.data(), me == 0 ? 3 : 500, MPI_INT, 0, w);
      if (me == 0) CHECK(rc2 == MPI_SUCCESS);
      else expect_class(rc2, MPI_ERR_COUNT, "Bcast, others beyond the mailbox");
    }
    // Reduce: the root waits for every entry and sees the last rank's count.
    {
      const int rc = MPI_Reduce(a.data(), b.data(), me == p - 1 ? 5 : 4, MPI_INT, MPI_SUM, 0, w);
      if (me == 0 && p - 1 != 0) expect_class(rc, MPI_ERR_COUNT, "Reduce, counts differ");
      else if (me != 0) CHECK(rc == MPI_SUCCESS);
      const int rc2 = MPI_Reduce(a.data(), b.data(), me == p - 1 ? 600 : 4, MPI_INT, MPI_SUM, 0, w);
      if (me == p - 1) expect_class(rc2, MPI_ERR_COUNT, "Reduce, one rank beyond the mailbox");
      else if (me == 0) expect_class(rc2, MPI_ERR_COUNT, "Reduce, root within it");
      else CHECK(rc2 == MPI_SUCCESS);
    }
    // The message names the call, the argument and both ranks.
    {
      const int root = me == 0 ? 1 : 0;
      const int rc = MPI_Bcast(a.data(), 1, MPI_INT, root, w);
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      INFO(msg);
      CHECK(std::string(msg).find("MPI_Bcast") != std::string::npos);
      CHECK(std::string(msg).find("root") != std::string::npos);
    }
    still_works(w, round);
  }
}

// A rank that does not wait runs ahead of a slow one by at most the ring's depth,
// and never overwrites an entry the slow one has not read yet.
TEST_CASE("Mailbox: ranks that run ahead of a sleeping one do not overwrite what it has not read",
          "[coll][mailbox]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  for (int sleeper = 0; sleeper < p; ++sleeper) {
    if (me == sleeper) usleep(20000);
    for (int k = 0; k < 40; ++k) {
      int v[3] = {-1, -1, -1};
      if (me == 0) v[0] = v[1] = v[2] = 1000 * sleeper + k;
      REQUIRE(MPI_Bcast(v, 3, MPI_INT, 0, w) == MPI_SUCCESS);
      CHECK(v[2] == 1000 * sleeper + k);
      long x = static_cast<long>(me + 1) * (k + 1), sum = -1;
      REQUIRE(MPI_Reduce(&x, &sum, 1, MPI_LONG, MPI_SUM, p - 1, w) == MPI_SUCCESS);
      if (me == p - 1) CHECK(sum == static_cast<long>(p) * (p + 1) / 2 * (k + 1));
    }
  }
}

// The two rings: a root runs CHORUS_COLL_MAILBOX_SMALL_DEPTH small bcasts (data
// in the entry) ahead of a sleeping rank without waiting, and CHORUS_COLL_MAILBOX_DEPTH
// larger ones (data in a data area); one more waits. The MPI_T counter
// coll_mailbox_waits counts the calls that found their entry or area taken.
TEST_CASE("Mailbox: a root runs the small depth of small calls and the data depth of larger ones ahead",
          "[coll][mailbox]") {
  const int p = jobs::size(), me = jobs::rank();
  if (p < 2 || !mailbox_expected()) return;  // no mailbox in this job
  MPI_Comm node;
  REQUIRE(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS);
  int local;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  if (local != p) return;  // ranks on several nodes: no shared window
  auto env_int = [](const char* name, int dflt) {
    const char* v = std::getenv(name);
    return v ? std::atoi(v) : dflt;
  };
  const char* mb = std::getenv("CHORUS_COLL_MAILBOX");
  auto bytes_of = [](const char* v) {  // "256", "256K", "1M"
    char* end = nullptr;
    long n = std::strtol(v, &end, 10);
    if (end && (*end == 'K' || *end == 'k')) n <<= 10;
    if (end && (*end == 'M' || *end == 'm')) n <<= 20;
    return static_cast<int>(std::min<long>(n, 1 << 30));
  };
  const int data_depth = env_int("CHORUS_COLL_MAILBOX_DEPTH", 8);
  const int small_depth = std::max(data_depth, env_int("CHORUS_COLL_MAILBOX_SMALL_DEPTH", 128));
  // Ints per call: 3 fit an entry; `large` need a data area yet fit the mailbox.
  const int mailbox_bytes = mb ? bytes_of(mb) : 256 * 1024;
  const int large = std::min(mailbox_bytes, 4096) / static_cast<int>(sizeof(int));
  REQUIRE(large * sizeof(int) > 224);
  const int sleeper = p - 1;
  coll::PvarCount waits("coll_mailbox_waits");
  for (const auto& [n, ahead] : {std::pair{3, small_depth}, std::pair{large, data_depth}}) {
    INFO(n << " ints per call, " << ahead << " calls ahead");
    // Every rank is done with every earlier call: the rings are free.
    REQUIRE(MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS);
    const unsigned long long before = waits.grew();
    if (me == sleeper) usleep(300000);
    std::vector<int> v(static_cast<std::size_t>(n));
    for (int k = 0; k <= ahead; ++k) {
      if (me == 0) {
        std::fill(v.begin(), v.end(), 100 * k + n);
        // The sleeper has not read call 1 of these: call ahead + 1 must wait.
        if (k == ahead) CHECK(waits.grew() == before);
      } else {
        std::fill(v.begin(), v.end(), -1);
      }
      REQUIRE(MPI_Bcast(v.data(), n, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(v[0] == 100 * k + n);
      CHECK(v[static_cast<std::size_t>(n) - 1] == 100 * k + n);
    }
    // One wait, unless the root was off its core for the sleeper's whole 300 ms
    // (then the sleeper was done with call 1 before the root got to call ahead + 1).
    if (me == 0) CHECK(waits.grew() <= before + 1);
  }
}

// A blocking bcast or reduce that repeats the last one's count, type, root (and
// op, and the root's in-place-ness) goes to the mailbox at once, without the
// checks that accepted them (lib/mpi/coll.cc, bcast_repeat and reduce_repeat; the
// MPI_T counter coll_repeat_calls counts them). New buffers every call; a rank
// whose arguments change, or turn bad, takes the full path and still meets, or
// fails against, the ranks that repeat.
TEST_CASE("Mailbox: repeated bcast and reduce arguments skip the checks, and changed ones still meet",
          "[coll][mailbox][errors]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Comm node;
  REQUIRE(MPI_Comm_split_type(w, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS);
  int local;
  MPI_Comm_size(node, &local);
  MPI_Comm_free(&node);
  const bool repeats = p > 1 && mailbox_expected() && local == p;
  jobs::ErrorsReturn guard(w);
  coll::PvarCount repeated("coll_repeat_calls");
  const int root = p - 1, loops = 60;
  for (int k = 0; k < loops; ++k) {
    std::vector<double> v(5, me == root ? k + 0.5 : -1.0);  // a new buffer every call
    REQUIRE(MPI_Bcast(v.data(), 5, MPI_DOUBLE, root, w) == MPI_SUCCESS);
    CHECK(v[0] == k + 0.5);
    CHECK(v[4] == k + 0.5);
    std::vector<long> in(7, static_cast<long>(me + 1) * k), out(7, -1);
    REQUIRE(MPI_Reduce(in.data(), out.data(), 7, MPI_LONG, MPI_SUM, root, w) == MPI_SUCCESS);
    if (me == root) CHECK(out[6] == static_cast<long>(p) * (p + 1) / 2 * k);
    // The root in place every other round of a second loop below.
  }
  if (repeats) CHECK(repeated.grew() >= 2 * (loops - 1));
  for (int k = 0; k < 20; ++k) {
    std::vector<long> in(7, static_cast<long>(me + 1) * k), out(7, me == root ? static_cast<long>(me + 1) * k : -1);
    const bool in_place = me == root && k % 4 >= 2;
    REQUIRE(MPI_Reduce(in_place ? MPI_IN_PLACE : in.data(), out.data(), 7, MPI_LONG, MPI_SUM, root, w) ==
            MPI_SUCCESS);
    if (me == root) CHECK(out[0] == static_cast<long>(p) * (p + 1) / 2 * k);
  }
  // The rest needs the mailbox: without it a rank that fails its own checks
  // leaves the others waiting in the call's agreement (errors.cc tests that mode).
  if (!repeats) return;
  int x[5] = {1, 2, 3, 4, 5};
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 3; ++k) REQUIRE(MPI_Bcast(x, 5, MPI_INT, 0, w) == MPI_SUCCESS);
    // A non-root's count changes after repeats: it waits, and sees the root's
    // (the other non-roots may see its entry while they wait, or not).
    const int rc = MPI_Bcast(x, me == 1 ? 4 : 5, MPI_INT, 0, w);
    if (me == 1) expect_class(rc, MPI_ERR_COUNT, "Bcast, count changed after repeats");
    else if (me == 0) CHECK(rc == MPI_SUCCESS);
    else if (rc != MPI_SUCCESS) expect_class(rc, MPI_ERR_COUNT, "Bcast, a peer's count changed");
    // Repeated arguments with a bad buffer: the full path's error; the call takes
    // nothing on the rank that failed, so the ranks that wait for it pair with its
    // repeat (as over messages, and in Open MPI and MPICH).
    for (int k = 0; k < 3; ++k) REQUIRE(MPI_Bcast(x, 5, MPI_INT, 0, w) == MPI_SUCCESS);
    int y[5] = {-1, -1, -1, -1, -1};
    if (me == 0) std::copy(x, x + 5, y);
    const int rc2 = MPI_Bcast(me == 0 ? nullptr : y, 5, MPI_INT, 0, w);
    if (me == 0) {
      expect_class(rc2, MPI_ERR_BUFFER, "Bcast, NULL buffer after repeats");
      REQUIRE(MPI_Bcast(y, 5, MPI_INT, 0, w) == MPI_SUCCESS);
    } else {
      CHECK(rc2 == MPI_SUCCESS);
      CHECK(y[4] == x[4]);
    }
    long a[3] = {1, 1, 1}, b[3] = {0, 0, 0};
    for (int k = 0; k < 3; ++k) REQUIRE(MPI_Reduce(a, b, 3, MPI_LONG, MPI_SUM, 0, w) == MPI_SUCCESS);
    b[0] = -1;
    const int rc3 = MPI_Reduce(a, me == 0 ? a : b, 3, MPI_LONG, MPI_SUM, 0, w);
    if (me == 0) {
      expect_class(rc3, MPI_ERR_BUFFER, "Reduce, recvbuf is sendbuf after repeats");
      REQUIRE(MPI_Reduce(a, b, 3, MPI_LONG, MPI_SUM, 0, w) == MPI_SUCCESS);
      CHECK(b[0] == p);  // the others' data of the call the root repeated
    } else {
      CHECK(rc3 == MPI_SUCCESS);
    }
    // A non-root's recvbuf may not be MPI_IN_PLACE either (MPI_IN_PLACE stands
    // for the root's sendbuf only): refused after repeats as on a first call; the
    // root waits for that rank's repeat.
    for (int k = 0; k < 3; ++k) REQUIRE(MPI_Reduce(a, b, 3, MPI_LONG, MPI_SUM, 0, w) == MPI_SUCCESS);
    b[0] = -1;
    const int rc4 = MPI_Reduce(a, me == p - 1 ? MPI_IN_PLACE : b, 3, MPI_LONG, MPI_SUM, 0, w);
    if (me == p - 1) {
      expect_class(rc4, MPI_ERR_BUFFER, "Reduce, a non-root's recvbuf in place after repeats");
      REQUIRE(MPI_Reduce(a, b, 3, MPI_LONG, MPI_SUM, 0, w) == MPI_SUCCESS);
    } else {
      CHECK(rc4 == MPI_SUCCESS);
    }
    if (me == 0) CHECK(b[0] == p);
    still_works(w, round);
  }
}

TEST_CASE("Mailbox: in-place reduce beyond the mailbox, and MPI_MAXLOC pairs", "[coll][mailbox]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  for (int root = 0; root < p; ++root) {
    std::vector<int> v(300, me + 1);
    if (me == root) REQUIRE(MPI_Reduce(MPI_IN_PLACE, v.data(), 300, MPI_INT, MPI_SUM, root, w) == MPI_SUCCESS);
    else REQUIRE(MPI_Reduce(v.data(), nullptr, 300, MPI_INT, MPI_SUM, root, w) == MPI_SUCCESS);
    if (me == root) CHECK(v[299] == p * (p + 1) / 2);
    for (int n : {1, 2}) {
      struct {
        double v;
        int i;
      } in[2], out[2];
      for (int j = 0; j < 2; ++j) in[j] = {j == 0 ? static_cast<double>(me % 3) : -me, me};
      REQUIRE(MPI_Reduce(in, out, n, MPI_DOUBLE_INT, MPI_MAXLOC, root, w) == MPI_SUCCESS);
      if (me == root) {
        CHECK(out[0].v == (p >= 3 ? 2.0 : p - 1.0));
        CHECK(out[0].i == (p >= 3 ? 2 : p - 1));
        if (n == 2) {
          CHECK(out[1].v == 0.0);
          CHECK(out[1].i == 0);
        }
      }
    }
  }
}

// The root's sum of three ints x[i] = (rank + 1) * (round + 1) + i over p ranks.
static void check_sum(const int* sum, int p, int round, const char* what) {
  INFO(what << ", round " << round);
  for (int i = 0; i < 3; ++i) CHECK(sum[i] == p * (p + 1) / 2 * (round + 1) + p * i);
}

// A bcast against a reduce fails the ranks that wait. A call that fails its own
// checks on one rank takes no mailbox number there, as over messages and in Open
// MPI and MPICH: the others pair with that rank's next call, so a program that
// repeats the call where it failed gets the data of the first. MPICH's
// errors/coll/noalias and noalias2 do that, and hung while a failed call took a
// number (the root's repeat then met the others' next call).
TEST_CASE("Mailbox: a bcast against a reduce fails; a call one rank rejects pairs with its repeat",
          "[coll][mailbox][errors]") {
  const int p = jobs::size(), me = jobs::rank();
  // Its "beyond the mailbox" calls are beyond the small mailboxes of the coll_mailbox
  // jobs (CHORUS_COLL_MAILBOX set), not beyond the default one.
  if (p < 2 || !mailbox_expected() || !std::getenv("CHORUS_COLL_MAILBOX")) return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> a(8, me), b(8, -1);
  for (int round = 0; round < 6; ++round) {
    // Rank 0 reduces to itself while the others receive a bcast from it: all wait,
    // all see the other kind.
    const int rc = me == 0 ? MPI_Reduce(a.data(), b.data(), 3, MPI_INT, MPI_SUM, 0, w)
                           : MPI_Bcast(a.data(), 3, MPI_INT, 0, w);
    expect_class(rc, MPI_ERR_OTHER, "Reduce against Bcast");
    // Each rank's data differs per round: a repeat that met another call's
    // entries would show.
    int x[3];
    for (int i = 0; i < 3; ++i) x[i] = (me + 1) * (round + 1) + i;
    // The root rejects its receive buffer; the others' part is done and returns.
    // The root repeats the call and gets their data of the first.
    const int rc2 = MPI_Reduce(x, me == 0 ? nullptr : b.data(), 3, MPI_INT, MPI_SUM, 0, w);
    if (me == 0) {
      expect_class(rc2, MPI_ERR_BUFFER, "Reduce, the root's recvbuf NULL");
      int sum[3] = {-1, -1, -1};
      REQUIRE(MPI_Reduce(x, sum, 3, MPI_INT, MPI_SUM, 0, w) == MPI_SUCCESS);
      check_sum(sum, p, round, "the root's repeated reduce");
    } else {
      CHECK(rc2 == MPI_SUCCESS);
    }
    // A non-root passes MPI_IN_PLACE: it fails on its own and repeats the call;
    // the root waits for it and gets its data.
    int sum[3] = {-1, -1, -1};
    const int rc3 = MPI_Reduce(me == 1 ? MPI_IN_PLACE : x, sum, 3, MPI_INT, MPI_SUM, 0, w);
    if (me == 1) {
      expect_class(rc3, MPI_ERR_BUFFER, "Reduce, MPI_IN_PLACE off the root");
      REQUIRE(MPI_Reduce(x, nullptr, 3, MPI_INT, MPI_SUM, 0, w) == MPI_SUCCESS);
    } else {
      CHECK(rc3 == MPI_SUCCESS);
    }
    if (me == 0) check_sum(sum, p, round, "the reduce a non-root repeated");
    // A bcast's root rejects its count; the others wait for its repeat.
    int v = me == 0 ? 7000 + round : -1;
    const int rc4 = MPI_Bcast(&v, me == 0 ? -1 : 1, MPI_INT, 0, w);
    if (me == 0) {
      expect_class(rc4, MPI_ERR_COUNT, "Bcast, the root's count -1");
      REQUIRE(MPI_Bcast(&v, 1, MPI_INT, 0, w) == MPI_SUCCESS);
    } else {
      CHECK(rc4 == MPI_SUCCESS);
      CHECK(v == 7000 + round);
    }
    // Later calls pair up: distinct data per call, so a call paired with another's
    // entry would show.
    for (int k = 0; k < 5; ++k) {
      int u = me == 0 ? 100 * round + k : -1;
      REQUIRE(MPI_Bcast(&u, 1, MPI_INT, 0, w) == MPI_SUCCESS);
      CHECK(u == 100 * round + k);
      int y = (me + 1) * (k + 1), total = -1;
      REQUIRE(MPI_Reduce(&y, &total, 1, MPI_INT, MPI_SUM, 0, w) == MPI_SUCCESS);
      if (me == 0) CHECK(total == p * (p + 1) / 2 * (k + 1));
    }
  }
}

// Calls beyond an entry (Mode::Stream, chunks of a quarter entry: 64 B here) move
// chunk after chunk; a writer refills a quarter only once its readers took what
// it held. A sleeping rank makes the writers wait for it at every size, and the
// data, a derived type's gaps included, come out right.
TEST_CASE("Mailbox: streamed bcast and reduce give the right data while one rank lags", "[coll][mailbox]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  MPI_Datatype every_other = every_other_type();
  int call = 0;
  for (int round = 0; round < 2 * p; ++round) {
    const int lagging = round % p;
    for (int n : {65, 129, 1000, 4099}) {
      const int root = (round + n) % p;
      ++call;
      if (me == lagging) usleep(3000);
      std::vector<int> v(n + 1, -1);
      if (me == root)
        for (int i = 0; i < n; ++i) v[i] = value(call, root, i);
      REQUIRE(MPI_Bcast(v.data(), n, MPI_INT, root, w) == MPI_SUCCESS);
      for (int i = 0; i < n; ++i) REQUIRE(v[i] == value(call, root, i));
      CHECK(v[n] == -1);
      std::vector<double> in(n), out(n + 1, -5);
      for (int i = 0; i < n; ++i) in[i] = (me + 1) * 0.5 + i + call;
      if (me == lagging) usleep(3000);
      REQUIRE(MPI_Reduce(in.data(), out.data(), n, MPI_DOUBLE, MPI_MAX, root, w) == MPI_SUCCESS);
      if (me == root) {
        for (int i = 0; i < n; ++i) REQUIRE(out[i] == p * 0.5 + i + call);
        CHECK(out[n] == -5);
      }
    }
    // 20 elements of every_other: 400 packed bytes, staged through a packed copy.
    bcast_every_other(every_other, 20, round % p, w, 7 * round);
  }
  MPI_Type_free(&every_other);
}

// In a streamed call the writers wait for their readers, so they check the
// entries too: a mismatched streamed call fails on every rank, and later calls
// still pair up.
TEST_CASE("Mailbox: a mismatch in a streamed call fails its writers too", "[coll][mailbox][errors]") {
  const int p = jobs::size(), me = jobs::rank();
  // Its calls stream only through the coll_mailbox jobs' small mailboxes.
  if (p < 2 || !mailbox_expected() || !std::getenv("CHORUS_COLL_MAILBOX")) return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<int> a(1000, me), b(1000, -1);
  for (int round = 0; round < 3; ++round) {
    // Ranks 0 and 1 each name themselves the root, the rest name 0: 0 and 1 wait
    // for marks from each other, whose entries name another root.
    // The readers come late: root 0 has given up and begun its next streamed call
    // by then, so its progress word reads past every chunk of this one (its entry
    // says it gave up: without that a reader took chunks root 0 never wrote).
    for (int i = 0; i < 1000; ++i) a[i] = me == 0 ? 3 * round + i : -1;
    if (me >= 2) usleep(20000);
    const int rc = MPI_Bcast(a.data(), 1000, MPI_INT, me == 1 ? 1 : 0, w);
    // Root 0 gives up at its fifth chunk (rank 1's entry names another root), so a
    // reader of it fails too: it sees rank 1's entry, or root 0 giving up.
    if (me <= 1) expect_class(rc, MPI_ERR_ROOT, "streamed Bcast, two roots");
    else expect_class(rc, jobs::error_class(rc) == MPI_ERR_OTHER ? MPI_ERR_OTHER : MPI_ERR_ROOT,
                      "streamed Bcast, two roots, a reader");
    // The root's count above the others'.
    expect_class(MPI_Bcast(a.data(), me == 0 ? 1000 : 900, MPI_INT, 0, w), MPI_ERR_COUNT,
                 "streamed Bcast, counts differ");
    // The last rank's count below the others'.
    expect_class(MPI_Reduce(a.data(), b.data(), me == p - 1 ? 900 : 1000, MPI_INT, MPI_SUM, 0, w),
                 MPI_ERR_COUNT, "streamed Reduce, counts differ");
    still_works(w, round);
  }
}

// Run with CHORUS_COLL_MAILBOX=320 (tests/coll/meson.build): chunks of 80 B for
// 8-byte elements, 64 B for 32-byte ones. A reduce whose ranks pass the same byte
// count in elements of different sizes would reduce chunks at shifted offsets:
// the entries carry the chunk size, so the root fails instead (MPI_ERR_TYPE).
TEST_CASE("Mailbox: a streamed reduce over types of different sizes fails", "[.mailbox_chunks]") {
  const int p = jobs::size(), me = jobs::rank();
  // Other entry sizes can give both element sizes one chunk size: nothing to see.
  const char* mb = std::getenv("CHORUS_COLL_MAILBOX");
  if (p < 2 || !mailbox_expected() || !mb || std::string(mb) != "320") return;
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  const MPI_Comm w = MPI_COMM_WORLD;
  std::vector<double> d(200, 1.0), out(200, -1.0);
  for (int round = 0; round < 3; ++round) {
    const int rc = me == p - 1 ? MPI_Reduce(d.data(), out.data(), 50, MPI_C_LONG_DOUBLE_COMPLEX, MPI_SUM, 0, w)
                               : MPI_Reduce(d.data(), out.data(), 200, MPI_DOUBLE, MPI_SUM, 0, w);
    if (me == 0) expect_class(rc, MPI_ERR_TYPE, "streamed Reduce, element sizes differ");
    else CHECK(rc != MPI_SUCCESS);  // the writers wait for the root, which gave up
    std::vector<double> one(200, me + 1.0), sum(200, -1.0);
    REQUIRE(MPI_Reduce(one.data(), sum.data(), 200, MPI_DOUBLE, MPI_SUM, round % p, w) == MPI_SUCCESS);
    if (me == round % p) CHECK(sum[199] == p * (p + 1) / 2.0);
  }
}

// CHORUS_BCAST_ALGO / CHORUS_REDUCE_ALGO force an algorithm: blocking calls on a
// communicator with a mailbox run it, and the mailbox takes none of them (before,
// it took every call up to CHORUS_COLL_MAILBOX_STREAM and the variables did
// nothing there). Run with the mailbox on and both variables set (meson.build).
// An algorithm that cannot run on one node (hierarchical) leaves the mailbox on:
// with CHORUS_ALGO_FALLBACK=error the calls still succeed, none through it.
TEST_CASE("Mailbox: a forced bcast or reduce algorithm runs instead of the mailbox", "[.mailbox_forced]") {
  const int p = jobs::size(), me = jobs::rank();
  const char* b = std::getenv("CHORUS_BCAST_ALGO");
  const char* r = std::getenv("CHORUS_REDUCE_ALGO");
  if (p < 2 || !mailbox_expected() || !b || !r) return;
  const bool runs = std::string(b) != "hierarchical";
  REQUIRE(runs == (std::string(r) != "hierarchical"));
  const MPI_Comm w = MPI_COMM_WORLD;
  // MPI_COMM_WORLD has its window (and mailbox) from MPI_Init.
  jobs::PvarCount bcasts(("coll_bcast_" + std::string(b)).c_str());
  jobs::PvarCount reduces(("coll_reduce_" + std::string(r)).c_str());
  jobs::PvarCount waits("coll_mailbox_waits");
  constexpr int kCalls = 20;
  for (int call = 0; call < kCalls; ++call) {
    const int root = call % p;
    std::vector<int> v(call % 2 ? 8 : 3000, me == root ? call : -1);  // in an entry, and in a data area
    REQUIRE(MPI_Bcast(v.data(), static_cast<int>(v.size()), MPI_INT, root, w) == MPI_SUCCESS);
    CHECK(v.front() == call);
    CHECK(v.back() == call);
    std::vector<int> sum(v.size(), -1);
    REQUIRE(MPI_Reduce(v.data(), sum.data(), static_cast<int>(v.size()), MPI_INT, MPI_SUM, root, w) == MPI_SUCCESS);
    if (me == root) CHECK(sum.back() == p * call);
  }
  CHECK(bcasts.grew() == (runs ? kCalls : 0));
  CHECK(reduces.grew() == (runs ? kCalls : 0));
  if (runs) CHECK(waits.grew() == 0);
}
