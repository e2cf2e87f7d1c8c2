// Non-blocking and persistent collectives: batches holding every collective (several
// of them more than once) outstanding at the same time on one communicator, completed
// by one MPI_Waitall over the requests in a rank-dependent order; persistent batches
// started three times with new data each time; point-to-point traffic interleaved
// with non-blocking collectives.
#include <unistd.h>

#include <cstring>

#include "coll_common.h"

namespace {

using coll::CasePtr;

// One of each collective (reductions with kind `k`, movement with pair `t`), plus a
// second allreduce, reduce and bcast so that the same collective is in flight twice.
std::vector<CasePtr> batch(MPI_Comm comm, const std::string& k, const std::string& t, long n,
                           bool ip) {
  const int p = coll::comm_size(comm);
  const coll::RedKind& rk = coll::red_kind(k);
  const coll::RedKind& other = coll::red_kind("int_sum");
  const coll::TypePair& tp = coll::type_pair(t);
  std::vector<CasePtr> cs;
  cs.push_back(coll::allreduce_case(comm, rk, n, ip));
  cs.push_back(coll::barrier_case(comm));
  cs.push_back(coll::bcast_case(comm, tp, n, p - 1));
  cs.push_back(coll::reduce_case(comm, rk, n, ip, p / 2));
  cs.push_back(coll::allreduce_case(comm, other, n + 2, !ip));
  cs.push_back(coll::gather_case(comm, tp, n, ip, 0));
  cs.push_back(coll::gatherv_case(comm, tp, n, ip, p - 1));
  cs.push_back(coll::scatter_case(comm, tp, n, ip, p - 1));
  cs.push_back(coll::scatterv_case(comm, tp, n, ip, 0));
  cs.push_back(coll::allgather_case(comm, tp, n, ip));
  cs.push_back(coll::allgatherv_case(comm, tp, n, ip));
  cs.push_back(coll::alltoall_case(comm, tp, n, ip));
  cs.push_back(coll::alltoallv_case(comm, tp, n, ip));
  cs.push_back(coll::reduce_scatter_block_case(comm, rk, n, ip));
  cs.push_back(coll::reduce_scatter_case(comm, rk, n, ip));
  cs.push_back(coll::scan_case(comm, rk, n, ip));
  cs.push_back(coll::exscan_case(comm, rk, n, ip));
  cs.push_back(coll::bcast_case(comm, tp, n + 1, 0));
  cs.push_back(coll::reduce_case(comm, other, n, false, p - 1));
  return cs;
}

struct Combo {
  const char* kind;
  const char* pair;
};

const Combo kCombos[] = {
    {"int_sum", "int"},
    {"mat2x2_user_noncommutative", "vec->int"},
    {"double_int_maxloc", "int8"},
    {"int_user_commutative", "int->vec"},
    {"double_max", "double"},
    {"int8_sum", "vec"},
    {"float_sum", "int"},
    {"int64_max", "int"},
};

}  // namespace

TEST_CASE("Non-blocking: every collective outstanding at once, Waitall permuted",
          "[coll][nonblocking]") {
  const int p = jobs::size();
  int seed = 7;
  for (const Combo& c : kCombos) {
    for (long n : {0L, 1L, static_cast<long>(p + 1)}) {
      for (bool ip : {false, true}) {
        INFO("kind " << c.kind << " pair " << c.pair << " count " << n << " in_place " << ip);
        coll::run_nonblocking(batch(MPI_COMM_WORLD, c.kind, c.pair, n, ip), seed++);
      }
    }
  }
}

TEST_CASE("Non-blocking: completed by MPI_Testany polling", "[coll][nonblocking]") {
  const int p = jobs::size();
  std::vector<CasePtr> cases = batch(MPI_COMM_WORLD, "mat2x2_user_noncommutative", "vec", p, false);
  std::vector<MPI_Request> reqs(cases.size(), MPI_REQUEST_NULL);
  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i]->fill(3);
    MPI_OK(cases[i]->start(&reqs[i]));
  }
  // Poll without an assertion per iteration; count the completions.
  size_t done = 0;
  int rc = MPI_SUCCESS;
  bool bad_index = false;
  while (done < reqs.size() && rc == MPI_SUCCESS) {
    int idx = MPI_UNDEFINED, flag = 0;
    rc = MPI_Testany(static_cast<int>(reqs.size()), reqs.data(), &idx, &flag, MPI_STATUS_IGNORE);
    if (rc == MPI_SUCCESS && flag) {
      bad_index = bad_index || idx == MPI_UNDEFINED || reqs[idx] != MPI_REQUEST_NULL;
      ++done;
    }
  }
  REQUIRE(rc == MPI_SUCCESS);
  CHECK_FALSE(bad_index);
  // All inactive now: Testany reports flag with MPI_UNDEFINED.
  int idx = 0, flag = 0;
  MPI_OK(MPI_Testany(static_cast<int>(reqs.size()), reqs.data(), &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag);
  CHECK(idx == MPI_UNDEFINED);
  for (const CasePtr& c : cases) {
    std::string why;
    const bool ok = c->check(3, &why);
    INFO(c->name() << ": " << why);
    CHECK(ok);
  }
}

TEST_CASE("Persistent: every collective, started three times with new data",
          "[coll][persistent]") {
  const int p = jobs::size();
  int seed = 11;
  for (const Combo& c : kCombos) {
    for (long n : {1L, static_cast<long>(p + 1)}) {
      for (bool ip : {false, true}) {
        INFO("kind " << c.kind << " pair " << c.pair << " count " << n << " in_place " << ip);
        coll::run_persistent(batch(MPI_COMM_WORLD, c.kind, c.pair, n, ip), seed++);
      }
    }
  }
}

TEST_CASE("Persistent: each rank starts them in an order of its own", "[coll][persistent]") {
  // MPICH's coll/p_order: a bcast and a barrier, started in opposite orders.
  const int p = jobs::size();
  int seed = 31;
  for (const Combo& c : {kCombos[0], kCombos[1], kCombos[4]}) {
    for (long n : {1L, static_cast<long>(p + 1), 3000L}) {
      INFO("kind " << c.kind << " pair " << c.pair << " count " << n);
      coll::run_persistent(batch(MPI_COMM_WORLD, c.kind, c.pair, n, false), seed++, 4, true);
    }
  }
}

TEST_CASE("Persistent: count 0 and a request freed while inactive", "[coll][persistent]") {
  coll::run_persistent(batch(MPI_COMM_WORLD, "int_sum", "int", 0, false), 5, 2);
  // Initialised and freed without ever being started.
  std::vector<CasePtr> cases = batch(MPI_COMM_WORLD, "double_sum", "double", 2, false);
  for (const CasePtr& c : cases) {
    MPI_Request r = MPI_REQUEST_NULL;
    MPI_OK(c->init(&r));
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
  }
}

TEST_CASE("Point-to-point interleaved with non-blocking collectives", "[coll][nonblocking][p2p]") {
  const int p = jobs::size();
  const int r = jobs::rank();
  for (int iter = 0; iter < 4; ++iter) {
    std::vector<CasePtr> cases = batch(MPI_COMM_WORLD, iter % 2 ? "int_sum" : "mat2x2_user_noncommutative",
                                       iter % 2 ? "vec" : "int", p + iter, iter >= 2);
    std::vector<MPI_Request> reqs;
    // Ring messages before, between and after the collective starts, same tags every
    // round, on the same communicator.
    const int kMsgs = 3;
    std::vector<int> in(kMsgs * 64, -1), out(kMsgs * 64);
    for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<int>(r * 100000 + iter * 1000 + i);
    size_t next_case = 0;
    for (int m = 0; m < kMsgs; ++m) {
      reqs.emplace_back();
      MPI_OK(MPI_Irecv(in.data() + m * 64, 64, MPI_INT, jobs::left(), 5 + m, MPI_COMM_WORLD,
                       &reqs.back()));
      for (size_t j = 0; j < 4 && next_case < cases.size(); ++j, ++next_case) {
        cases[next_case]->fill(iter + 20);
        reqs.emplace_back();
        MPI_OK(cases[next_case]->start(&reqs.back()));
      }
      reqs.emplace_back();
      MPI_OK(MPI_Isend(out.data() + m * 64, 64, MPI_INT, jobs::right(), 5 + m, MPI_COMM_WORLD,
                       &reqs.back()));
    }
    // A blocking exchange while all of that is in flight.
    int a = r, b = -1;
    MPI_OK(MPI_Sendrecv(&a, 1, MPI_INT, jobs::right(), 9, &b, 1, MPI_INT, jobs::left(), 9,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(b == jobs::left());
    for (; next_case < cases.size(); ++next_case) {
      cases[next_case]->fill(iter + 20);
      reqs.emplace_back();
      MPI_OK(cases[next_case]->start(&reqs.back()));
    }
    // Complete in reverse order, one request at a time.
    for (size_t i = reqs.size(); i-- > 0;) MPI_OK(MPI_Wait(&reqs[i], MPI_STATUS_IGNORE));
    const int from = jobs::left();
    bool p2p_ok = true;
    for (size_t i = 0; i < in.size(); ++i) {
      p2p_ok = p2p_ok && in[i] == static_cast<int>(from * 100000 + iter * 1000 + i);
    }
    CHECK(p2p_ok);
    for (const CasePtr& c : cases) {
      std::string why;
      const bool ok = c->check(iter + 20, &why);
      INFO("iter " << iter << " " << c->name() << ": " << why);
      CHECK(ok);
    }
  }
}

// A repeated small MPI_Allreduce on a node's shared window runs inline, without a
// job (lib/mpi/coll.cc); with a window call of its own still queued a rank takes
// the job path instead. Both must meet, whatever mix the ranks are in.
TEST_CASE("Repeated small allreduces mixed with queued non-blocking collectives",
          "[coll][nonblocking][reduction]") {
  const int p = jobs::size(), me = jobs::rank();
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int bad = 0;
  std::vector<long long> heap(4);
  for (int i = 0; i < 300; ++i) {
    MPI_Comm comm = i % 5 == 4 ? dup : MPI_COMM_WORLD;
    const long long want = static_cast<long long>(p) * (p - 1) / 2 + static_cast<long long>(p) * i;
    long long x = me + i, y = -1;
    MPI_Request req = MPI_REQUEST_NULL;
    long long nb_in = 2 * (me + i), nb_out = -1;
    const bool queued = i % 7 == 3;
    if (queued) {
      // Every rank posts one; odd ranks keep it in flight across the blocking call.
      MPI_OK(MPI_Iallreduce(&nb_in, &nb_out, 1, MPI_LONG_LONG, MPI_SUM, comm, &req));
      if (me % 2 == 0) MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    }
    if (i % 3 == 0) {  // in place, in a buffer that moves around
      long long* b = &heap[static_cast<std::size_t>(i % 4)];
      *b = x;
      MPI_OK(MPI_Allreduce(MPI_IN_PLACE, b, 1, MPI_LONG_LONG, MPI_SUM, comm));
      y = *b;
    } else {
      MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_LONG_LONG, MPI_SUM, comm));
    }
    if (queued) {
      MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
      bad += nb_out != 2 * want;
    }
    bad += y != want;
    // Another op and type on the same communicator now and then.
    if (i % 11 == 0) {
      double d = me, dm = -1;
      MPI_OK(MPI_Allreduce(&d, &dm, 1, MPI_DOUBLE, MPI_MAX, comm));
      bad += dm != p - 1;
    }
  }
  CHECK(bad == 0);
  MPI_OK(MPI_Comm_free(&dup));
}

// Collectives post sends before their round and leave them in flight after it
// (CHORUS_COLL_SEND_AHEAD): a round may overwrite a send's data only once the peer
// has taken it. Here the last rank starts every collective and then sleeps without
// calling MPI, so nobody reads its messages for a while, and the messages are large
// enough (tens of KiB) that their sends finish only when read: a rank that
// overwrote a send still in flight (the reduction into the buffer it sends in
// recursive doubling, a receive into a block it still sends) would hand the
// sleeper wrong data.
TEST_CASE("Non-blocking: a rank that sleeps before it waits gets what was sent",
          "[coll][nonblocking]") {
  const int p = jobs::size();
  int seed = 3;
  for (const char* kind : {"int_sum", "mat2x2_user_noncommutative", "double_max"}) {
    for (bool ip : {false, true}) {
      const long n = 20000;
      INFO("kind " << kind << " in_place " << ip);
      std::vector<CasePtr> cases = batch(MPI_COMM_WORLD, kind, "int", n, ip);
      std::vector<MPI_Request> reqs(cases.size(), MPI_REQUEST_NULL);
      for (size_t i = 0; i < cases.size(); ++i) {
        cases[i]->fill(seed);
        MPI_OK(cases[i]->start(&reqs[i]));
      }
      if (jobs::rank() == p - 1) usleep(150 * 1000);
      MPI_OK(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE));
      for (const CasePtr& c : cases) {
        std::string why;
        const bool ok = c->check(seed, &why);
        INFO(c->name() << ": " << why);
        CHECK(ok);
      }
      ++seed;
    }
  }
}

namespace {
void user_sum(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] += static_cast<const int*>(in)[i];
}
void user_prod(void* in, void* inout, int* len, MPI_Datatype*) {
  for (int i = 0; i < *len; ++i) static_cast<int*>(inout)[i] *= static_cast<const int*>(in)[i];
}
}  // namespace

// MPI_Op_free right after the non-blocking call, with more started before the
// wait (MPICH's coll/nonblocking2 and 3): the job looked the op up by handle
// when it ran, so a freed op reduced nothing, and a new op that got the freed
// handle ran in its place ("recvbuf[0] expect 6, got 3").
TEST_CASE("Non-blocking reductions keep a user op freed before they complete", "[coll][nonblocking][userop]") {
  const int p = jobs::size(), me = jobs::rank();
  constexpr int kWindow = 12, kCount = 6;
  for (int round = 0; round < 20; ++round) {
    MPI_Request req[kWindow];
    int in[kWindow][kCount], out[kWindow][kCount];
    bool prod[kWindow];
    for (int w = 0; w < kWindow; ++w) {
      prod[w] = (round + w) % 2 == 1;
      for (int i = 0; i < kCount; ++i) {
        in[w][i] = prod[w] ? 1 + (me + i) % 2 : me + i;
        out[w][i] = -7;
      }
      MPI_Op op;
      MPI_OK(MPI_Op_create(prod[w] ? user_prod : user_sum, 1, &op));
      if (w % 3 == 2)
        MPI_OK(MPI_Iallreduce(in[w], out[w], kCount, MPI_INT, op, MPI_COMM_WORLD, &req[w]));
      else
        MPI_OK(MPI_Ireduce(in[w], out[w], kCount, MPI_INT, op, (w + round) % p, MPI_COMM_WORLD, &req[w]));
      MPI_OK(MPI_Op_free(&op));
      CHECK(op == MPI_OP_NULL);
    }
    MPI_OK(MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE));
    for (int w = 0; w < kWindow; ++w) {
      if (w % 3 != 2 && me != (w + round) % p) continue;
      for (int i = 0; i < kCount; ++i) {
        int want = prod[w] ? 1 : 0;
        for (int r = 0; r < p; ++r) want = prod[w] ? want * (1 + (r + i) % 2) : want + r + i;
        INFO("round " << round << " request " << w << (prod[w] ? " (product)" : " (sum)") << " element " << i);
        CHECK(out[w][i] == want);
      }
    }
  }
}
