// Intercommunicators: creation (from a peer communicator and from groups),
// merge, point-to-point to the remote group, dup / split / create on one, the
// blocking collectives with MPI's two-group rules, and the errors.
#include <numeric>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

// World split in two: ranks [0, size/2) are group A, the rest group B.
struct Halves {
  MPI_Comm local = MPI_COMM_NULL, inter = MPI_COMM_NULL;
  bool in_a = false;
  int a_size = 0, b_size = 0;
  Halves() {
    const int n = jobs::size(), me = jobs::rank();
    a_size = n / 2;
    b_size = n - a_size;
    in_a = me < a_size;
    REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, in_a, me, &local) == MPI_SUCCESS);
    int remote_leader = in_a ? a_size : 0;
    REQUIRE(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 77, &inter) == MPI_SUCCESS);
  }
  ~Halves() {
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
  }
  int remote_size() const { return in_a ? b_size : a_size; }
  int local_size() const { return in_a ? a_size : b_size; }
  // World rank of remote rank r.
  int remote_world(int r) const { return in_a ? a_size + r : r; }
  int local_rank() const { return in_a ? jobs::rank() : jobs::rank() - a_size; }
};

}  // namespace

TEST_CASE("MPI_Intercomm_create: groups, sizes and point-to-point to the remote group", "[intercomm]") {
  if (jobs::size() < 2) return;
  Halves h;
  int flag = 0, size = 0, rsize = 0, rank = -1;
  REQUIRE(MPI_Comm_test_inter(h.inter, &flag) == MPI_SUCCESS);
  CHECK(flag == 1);
  MPI_Comm_size(h.inter, &size);
  MPI_Comm_rank(h.inter, &rank);
  REQUIRE(MPI_Comm_remote_size(h.inter, &rsize) == MPI_SUCCESS);
  CHECK(size == h.local_size());
  CHECK(rsize == h.remote_size());
  CHECK(rank == h.local_rank());

  MPI_Group remote, world_group;
  REQUIRE(MPI_Comm_remote_group(h.inter, &remote) == MPI_SUCCESS);
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  std::vector<int> rr(static_cast<std::size_t>(rsize)), wr(static_cast<std::size_t>(rsize));
  std::iota(rr.begin(), rr.end(), 0);
  MPI_Group_translate_ranks(remote, rsize, rr.data(), world_group, wr.data());
  for (int r = 0; r < rsize; ++r) CHECK(wr[static_cast<std::size_t>(r)] == h.remote_world(r));
  MPI_Group_free(&remote);
  MPI_Group_free(&world_group);

  // Every rank sends its world rank to remote rank (its rank mod remote size);
  // each receiver takes what it is owed from MPI_ANY_SOURCE and checks the
  // source is the sender's rank in its own group.
  int to = rank % rsize;
  int expect = 0;
  for (int r = 0; r < rsize; ++r)
    if (r % size == rank) ++expect;
  MPI_Request req;
  int mine = jobs::rank();
  MPI_Isend(&mine, 1, MPI_INT, to, 5, h.inter, &req);
  for (int i = 0; i < expect; ++i) {
    int got = -1;
    MPI_Status st;
    REQUIRE(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 5, h.inter, &st) == MPI_SUCCESS);
    CHECK(st.MPI_SOURCE % size == rank);
    CHECK(got == h.remote_world(st.MPI_SOURCE));
  }
  MPI_Wait(&req, MPI_STATUS_IGNORE);
}

TEST_CASE("MPI_Intercomm_merge orders the groups by high, then the left group first", "[intercomm]") {
  if (jobs::size() < 2) return;
  Halves h;
  for (int a_high : {0, 1}) {
    MPI_Comm merged;
    REQUIRE(MPI_Intercomm_merge(h.inter, h.in_a ? a_high : !a_high, &merged) == MPI_SUCCESS);
    int size = 0, rank = -1, flag = 1;
    MPI_Comm_size(merged, &size);
    MPI_Comm_rank(merged, &rank);
    MPI_Comm_test_inter(merged, &flag);
    CHECK(flag == 0);
    CHECK(size == jobs::size());
    // A low: world order. A high: B's ranks first.
    int expect = a_high ? (h.in_a ? h.b_size + jobs::rank() : jobs::rank() - h.a_size) : jobs::rank();
    CHECK(rank == expect);
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == jobs::size());
    MPI_Comm_free(&merged);
  }
}

TEST_CASE("blocking collectives on an intercommunicator", "[intercomm]") {
  if (jobs::size() < 2) return;
  Halves h;
  const int rsize = h.remote_size(), lsize = h.local_size(), lrank = h.local_rank();
  MPI_Comm ic = h.inter;
  MPI_Barrier(ic);

  // Bcast: group A's rank 0 is the root; B receives.
  int v = h.in_a ? (lrank == 0 ? 4242 : -1) : -1;
  int root = h.in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  REQUIRE(MPI_Bcast(&v, 1, MPI_INT, root, ic) == MPI_SUCCESS);
  CHECK(v == (h.in_a ? (lrank == 0 ? 4242 : -1) : 4242));

  // Allreduce: each side gets the sum of the other side's world ranks.
  auto sum_of = [](int lo, int n) { return n * lo + n * (n - 1) / 2; };
  int mine = jobs::rank(), got = -1;
  REQUIRE(MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS);
  CHECK(got == (h.in_a ? sum_of(h.a_size, h.b_size) : sum_of(0, h.a_size)));

  // Reduce to B's last rank.
  got = -1;
  root = h.in_a ? h.b_size - 1 : (lrank == h.b_size - 1 ? MPI_ROOT : MPI_PROC_NULL);
  REQUIRE(MPI_Reduce(&mine, &got, 1, MPI_INT, MPI_MAX, root, ic) == MPI_SUCCESS);
  if (!h.in_a && lrank == h.b_size - 1) CHECK(got == h.a_size - 1);

  // Allgather: the remote group's world ranks in order.
  std::vector<int> all(static_cast<std::size_t>(rsize), -1);
  REQUIRE(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, ic) == MPI_SUCCESS);
  for (int r = 0; r < rsize; ++r) CHECK(all[static_cast<std::size_t>(r)] == h.remote_world(r));

  // Gather to A's rank 0, scatter back from it.
  std::vector<int> g(static_cast<std::size_t>(h.b_size), -1);
  root = h.in_a ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  REQUIRE(MPI_Gather(&mine, 1, MPI_INT, g.data(), 1, MPI_INT, root, ic) == MPI_SUCCESS);
  if (h.in_a && lrank == 0)
    for (int r = 0; r < h.b_size; ++r) CHECK(g[static_cast<std::size_t>(r)] == h.a_size + r);
  for (int& x : g) x *= 10;
  got = -1;
  REQUIRE(MPI_Scatter(g.data(), 1, MPI_INT, &got, 1, MPI_INT, root, ic) == MPI_SUCCESS);
  if (!h.in_a) CHECK(got == 10 * jobs::rank());

  // Alltoall: block r goes to remote rank r.
  std::vector<int> out(static_cast<std::size_t>(rsize)), in(static_cast<std::size_t>(rsize), -1);
  for (int r = 0; r < rsize; ++r) out[static_cast<std::size_t>(r)] = 1000 * jobs::rank() + r;
  REQUIRE(MPI_Alltoall(out.data(), 1, MPI_INT, in.data(), 1, MPI_INT, ic) == MPI_SUCCESS);
  for (int r = 0; r < rsize; ++r) CHECK(in[static_cast<std::size_t>(r)] == 1000 * h.remote_world(r) + lrank);

  // Allgatherv with displacements in reverse.
  std::vector<int> counts(static_cast<std::size_t>(rsize), 1), displs(static_cast<std::size_t>(rsize));
  for (int r = 0; r < rsize; ++r) displs[static_cast<std::size_t>(r)] = rsize - 1 - r;
  std::fill(in.begin(), in.end(), -1);
  REQUIRE(MPI_Allgatherv(&mine, 1, MPI_INT, in.data(), counts.data(), displs.data(), MPI_INT, ic) == MPI_SUCCESS);
  for (int r = 0; r < rsize; ++r) CHECK(in[static_cast<std::size_t>(rsize - 1 - r)] == h.remote_world(r));

  // Reduce_scatter_block: both groups hold vectors of lsize*... no: MPI wants the
  // totals equal, so use a vector of a_size*b_size elements on both sides.
  const int total = h.a_size * h.b_size, block = total / lsize;
  std::vector<int> vec(static_cast<std::size_t>(total));
  for (int i = 0; i < total; ++i) vec[static_cast<std::size_t>(i)] = i + jobs::rank();
  std::vector<int> res(static_cast<std::size_t>(block), -1);
  REQUIRE(MPI_Reduce_scatter_block(vec.data(), res.data(), block, MPI_INT, MPI_SUM, ic) == MPI_SUCCESS);
  int remote_rank_sum = h.in_a ? sum_of(h.a_size, h.b_size) : sum_of(0, h.a_size);
  for (int i = 0; i < block; ++i)
    CHECK(res[static_cast<std::size_t>(i)] == rsize * (lrank * block + i) + remote_rank_sum);
}

TEST_CASE("MPI_Comm_dup, _split and _create on an intercommunicator", "[intercomm]") {
  if (jobs::size() < 2) return;
  Halves h;
  MPI_Comm d;
  REQUIRE(MPI_Comm_dup(h.inter, &d) == MPI_SUCCESS);
  int flag = 0, result = -1, rsize = 0;
  MPI_Comm_test_inter(d, &flag);
  CHECK(flag == 1);
  MPI_Comm_compare(h.inter, d, &result);
  CHECK(result == MPI_CONGRUENT);
  int mine = jobs::rank(), got = -1;
  MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_MIN, d);
  CHECK(got == (h.in_a ? h.a_size : 0));
  MPI_Comm_free(&d);

  // Split by parity of the local rank: each side's even ranks meet the other's.
  MPI_Comm s;
  int lrank = h.local_rank();
  REQUIRE(MPI_Comm_split(h.inter, lrank % 2, lrank, &s) == MPI_SUCCESS);
  int other_has = lrank % 2 == 0 ? 1 : h.remote_size() > 1;
  if (!other_has) {
    CHECK(s == MPI_COMM_NULL);
  } else {
    REQUIRE(s != MPI_COMM_NULL);
    MPI_Comm_remote_size(s, &rsize);
    CHECK(rsize == (h.remote_size() + (lrank % 2 == 0 ? 1 : 0)) / 2);
    MPI_Comm_free(&s);
  }

  // Create: drop each side's rank 0.
  MPI_Group g, sub;
  MPI_Comm_group(h.inter, &g);
  int zero = 0;
  MPI_Group_excl(g, 1, &zero, &sub);
  MPI_Comm c;
  REQUIRE(MPI_Comm_create(h.inter, sub, &c) == MPI_SUCCESS);
  if (lrank == 0 || h.a_size < 2) {
    CHECK(c == MPI_COMM_NULL);
  } else {
    REQUIRE(c != MPI_COMM_NULL);
    MPI_Comm_remote_size(c, &rsize);
    CHECK(rsize == h.remote_size() - 1);
    MPI_Comm_free(&c);
  }
  MPI_Group_free(&sub);
  MPI_Group_free(&g);
}

TEST_CASE("MPI_Intercomm_create_from_groups", "[intercomm]") {
  if (jobs::size() < 2) return;
  const int n = jobs::size(), a = n / 2;
  MPI_Group world, ga, gb;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int ra[3] = {0, a - 1, 1}, rb[3] = {a, n - 1, 1};
  MPI_Group_range_incl(world, 1, &ra, &ga);
  MPI_Group_range_incl(world, 1, &rb, &gb);
  bool in_a = jobs::rank() < a;
  MPI_Comm ic;
  REQUIRE(MPI_Intercomm_create_from_groups(in_a ? ga : gb, 0, in_a ? gb : ga, 0, "chorus-test", MPI_INFO_NULL,
                                           MPI_ERRORS_RETURN, &ic) == MPI_SUCCESS);
  int rsize = 0;
  MPI_Comm_remote_size(ic, &rsize);
  CHECK(rsize == (in_a ? n - a : a));
  int mine = 1, got = 0;
  MPI_Allreduce(&mine, &got, 1, MPI_INT, MPI_SUM, ic);
  CHECK(got == rsize);
  MPI_Comm_free(&ic);
  MPI_Group_free(&ga);
  MPI_Group_free(&gb);
  MPI_Group_free(&world);
}

TEST_CASE("intercommunicator errors name the call and the argument", "[intercomm][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  MPI_Comm out = MPI_COMM_NULL;
  int cls = 0;
  // MPI_COMM_WORLD as both groups: the remote leader is in the local group.
  if (jobs::size() >= 2) {
    int rc = MPI_Intercomm_create(MPI_COMM_WORLD, 0, MPI_COMM_WORLD, 1, 9, &out);
    MPI_Error_class(rc, &cls);
    CHECK((jobs::rank() == 0 ? cls == MPI_ERR_RANK : cls == MPI_ERR_OTHER));
  }
  int rc = MPI_Intercomm_merge(MPI_COMM_WORLD, 0, &out);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM);
  MPI_Group g;
  rc = MPI_Comm_remote_group(MPI_COMM_WORLD, &g);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM);
  if (jobs::size() < 2) return;
  Halves h;
  jobs::ErrorsReturn er2(h.inter);
  int v = 0;
  rc = MPI_Bcast(&v, 1, MPI_INT, h.remote_size(), h.inter);  // one past the remote group
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_ROOT);
  rc = MPI_Scan(&v, &v, 1, MPI_INT, MPI_SUM, h.inter);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_COMM);
  rc = MPI_Send(&v, 1, MPI_INT, h.remote_size(), 0, h.inter);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK);
}

TEST_CASE("non-blocking collectives on an intercommunicator: overlapping, mixed with blocking ones, freed early",
          "[intercomm]") {
  if (jobs::size() < 2) return;
  Halves h;
  const int rs = h.remote_size(), lr = h.local_rank();
  // Sum over the remote group of (world rank + 1).
  int remote_sum = 0;
  for (int r = 0; r < rs; ++r) remote_sum += h.remote_world(r) + 1;
  const int me = jobs::rank() + 1;
  int ar = -1, bc = -1, gathered_ok = 1;
  std::vector<int> g(static_cast<std::size_t>(rs), -1);
  std::vector<MPI_Request> rq(4, MPI_REQUEST_NULL);
  MPI_OK(MPI_Iallreduce(&me, &ar, 1, MPI_INT, MPI_SUM, h.inter, &rq[0]));
  // Group A's rank 0 broadcasts to group B.
  int root = h.in_a ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  int value = 4242;
  MPI_OK(MPI_Ibcast(h.in_a && lr == 0 ? &value : &bc, 1, MPI_INT, root, h.inter, &rq[1]));
  // Group B's rank 0 gathers every rank of group A.
  int groot = h.in_a ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
  MPI_OK(MPI_Igather(&me, 1, MPI_INT, g.data(), 1, MPI_INT, groot, h.inter, &rq[2]));
  MPI_OK(MPI_Ibarrier(h.inter, &rq[3]));
  // A blocking collective in between: it lets the queued ones finish first.
  int blocking = 0;
  MPI_OK(MPI_Allreduce(&me, &blocking, 1, MPI_INT, MPI_SUM, h.inter));
  CHECK(blocking == remote_sum);
  MPI_OK(MPI_Waitall(4, rq.data(), MPI_STATUSES_IGNORE));
  CHECK(ar == remote_sum);
  if (!h.in_a) CHECK(bc == 4242);
  if (!h.in_a && lr == 0)
    for (int r = 0; r < rs; ++r) gathered_ok &= g[static_cast<std::size_t>(r)] == h.remote_world(r) + 1;
  CHECK(gathered_ok == 1);
  // Many in flight at once, completed in reverse order.
  std::vector<int> ins(16), outs(16, -1);  // send buffers stay untouched until completion
  std::vector<MPI_Request> many(16);
  for (int i = 0; i < 16; ++i) {
    ins[static_cast<std::size_t>(i)] = me * 100 + i;
    MPI_OK(MPI_Iallreduce(&ins[static_cast<std::size_t>(i)], &outs[static_cast<std::size_t>(i)], 1, MPI_INT, MPI_MAX,
                          h.inter, &many[static_cast<std::size_t>(i)]));
  }
  for (int i = 15; i >= 0; --i) MPI_OK(MPI_Wait(&many[static_cast<std::size_t>(i)], MPI_STATUS_IGNORE));
  const int remote_max = (h.in_a ? jobs::size() : h.a_size) * 100;  // the remote group's highest world rank + 1
  for (int i = 0; i < 16; ++i) CHECK(outs[static_cast<std::size_t>(i)] == remote_max + i);
  // Freed while one is pending: it still completes.
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(h.inter, &dup));
  MPI_Request late;
  int late_out = -1;
  MPI_OK(MPI_Iallreduce(&me, &late_out, 1, MPI_INT, MPI_SUM, dup, &late));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Wait(&late, MPI_STATUS_IGNORE));
  CHECK(late_out == remote_sum);
}

TEST_CASE("persistent collectives on an intercommunicator: started again with new data, mixed with others",
          "[intercomm][persistent]") {
  if (jobs::size() < 2) return;
  Halves h;
  const int rs = h.remote_size(), lr = h.local_rank();
  int in = 0, sum = -1, bc = -1, value = 0;
  std::vector<int> g(static_cast<std::size_t>(rs), -1);
  MPI_Request rq[4];
  MPI_OK(MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, h.inter, MPI_INFO_NULL, &rq[0]));
  // Group A's rank 0 broadcasts to group B; group B's rank 0 gathers group A.
  const int root = h.in_a ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
  MPI_OK(MPI_Bcast_init(h.in_a ? &value : &bc, 1, MPI_INT, root, h.inter, MPI_INFO_NULL, &rq[1]));
  const int groot = h.in_a ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
  MPI_OK(MPI_Gather_init(&in, 1, MPI_INT, g.data(), 1, MPI_INT, groot, h.inter, MPI_INFO_NULL, &rq[2]));
  MPI_OK(MPI_Barrier_init(h.inter, MPI_INFO_NULL, &rq[3]));
  int bad = 0;
  for (int round = 0; round < 5; ++round) {
    in = (jobs::rank() + 1) * 10 + round;
    value = 1000 + round;
    // Round 2 runs a blocking and a non-blocking collective between the starts.
    MPI_OK(MPI_Startall(2, rq));
    if (round == 2) {
      int x = 1, y = 0;
      MPI_Request nb;
      MPI_OK(MPI_Iallreduce(&x, &y, 1, MPI_INT, MPI_SUM, h.inter, &nb));
      MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, h.inter));
      bad += y != rs;
      MPI_OK(MPI_Wait(&nb, MPI_STATUS_IGNORE));
    }
    MPI_OK(MPI_Startall(2, rq + 2));
    // Completed in reverse order; each stays allocated and inactive after.
    for (int i = 3; i >= 0; --i) {
      MPI_OK(MPI_Wait(&rq[i], MPI_STATUS_IGNORE));
      bad += rq[i] == MPI_REQUEST_NULL;
    }
    int want = 0;
    for (int r = 0; r < rs; ++r) want += (h.remote_world(r) + 1) * 10 + round;
    bad += sum != want;
    if (!h.in_a) bad += bc != 1000 + round;
    if (!h.in_a && lr == 0)
      for (int r = 0; r < rs; ++r) bad += g[static_cast<std::size_t>(r)] != (h.remote_world(r) + 1) * 10 + round;
  }
  CHECK(bad == 0);
  // An inactive request tests as complete with an empty status.
  int flag = 0;
  MPI_OK(MPI_Test(&rq[0], &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1);
  for (MPI_Request& r : rq) MPI_OK(MPI_Request_free(&r));
  // Freed while active: it still completes, and the communicator still works.
  MPI_Request act;
  MPI_OK(MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, h.inter, MPI_INFO_NULL, &act));
  in = 7;
  MPI_OK(MPI_Start(&act));
  MPI_OK(MPI_Request_free(&act));
  int after = 0;
  MPI_OK(MPI_Allreduce(&in, &after, 1, MPI_INT, MPI_SUM, h.inter));
  CHECK(after == 7 * rs);
  // The freed one runs apart from the ordered collectives: progress until it lands.
  const double give_up = MPI_Wtime() + 60;
  for (int flag = 0; sum != 7 * rs && MPI_Wtime() < give_up;)
    MPI_OK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, h.inter, &flag, MPI_STATUS_IGNORE));
  CHECK(sum == 7 * rs);
}

// MPI lets ranks start persistent collectives in different orders (they match by
// init order). Plans of an intercommunicator ran one at a time in start order, so
// a rank starting A then B waited for B's partner to finish B first: a hang at 2
// ranks, every run.
TEST_CASE("persistent collectives on an intercommunicator started in different orders",
          "[intercomm][persistent]") {
  if (jobs::size() < 2) return;
  Halves h;
  const int rs = h.remote_size(), lr = h.local_rank();
  constexpr int kReqs = 5;
  int in = 0, sum = -1, bc1 = -1, bc2 = -1, v1 = 0, v2 = 0;
  std::vector<int> g(static_cast<std::size_t>(rs), -1), ag(static_cast<std::size_t>(rs), -1);
  MPI_Request rq[kReqs];
  const int a_root = h.in_a ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;  // group A's rank 0
  const int b_root = h.in_a ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);  // group B's rank 0
  MPI_OK(MPI_Bcast_init(h.in_a ? &v1 : &bc1, 1, MPI_INT, a_root, h.inter, MPI_INFO_NULL, &rq[0]));
  MPI_OK(MPI_Bcast_init(h.in_a ? &v2 : &bc2, 1, MPI_INT, a_root, h.inter, MPI_INFO_NULL, &rq[1]));
  MPI_OK(MPI_Allreduce_init(&in, &sum, 1, MPI_INT, MPI_SUM, h.inter, MPI_INFO_NULL, &rq[2]));
  MPI_OK(MPI_Gather_init(&in, 1, MPI_INT, g.data(), 1, MPI_INT, b_root, h.inter, MPI_INFO_NULL, &rq[3]));
  MPI_OK(MPI_Allgather_init(&in, 1, MPI_INT, ag.data(), 1, MPI_INT, h.inter, MPI_INFO_NULL, &rq[4]));
  int bad = 0;
  for (int round = 0; round < 20; ++round) {
    in = (jobs::rank() + 1) * 10 + round;
    v1 = 1000 + round;
    v2 = 2000 + round;
    // Each rank its own order: a rotation by rank and round, reversed on odd ranks.
    for (int i = 0; i < kReqs; ++i) {
      const int k = (i + jobs::rank() + round) % kReqs;
      MPI_OK(MPI_Start(&rq[jobs::rank() % 2 ? kReqs - 1 - k : k]));
    }
    if (round % 4 == 1) {  // an ordered collective among them
      int x = 1, y = 0;
      MPI_OK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, h.inter));
      bad += y != rs;
    }
    MPI_OK(MPI_Waitall(kReqs, rq, MPI_STATUSES_IGNORE));
    int want = 0;
    for (int r = 0; r < rs; ++r) want += (h.remote_world(r) + 1) * 10 + round;
    bad += sum != want;
    for (int r = 0; r < rs; ++r) bad += ag[static_cast<std::size_t>(r)] != (h.remote_world(r) + 1) * 10 + round;
    if (!h.in_a) bad += bc1 != 1000 + round || bc2 != 2000 + round;
    if (!h.in_a && lr == 0)
      for (int r = 0; r < rs; ++r) bad += g[static_cast<std::size_t>(r)] != (h.remote_world(r) + 1) * 10 + round;
  }
  CHECK(bad == 0);
  for (MPI_Request& r : rq) MPI_OK(MPI_Request_free(&r));
}

TEST_CASE("MPI_Reduce_scatter_c on an intercommunicator: counts of the local group", "[intercomm][large_count]") {
  if (jobs::size() < 3) return;  // groups of different sizes
  Halves h;
  const int ls = h.local_size(), rs = h.remote_size();
  // Both groups reduce vectors of 2 * ls * rs elements (MPI wants the totals equal);
  // each rank here gets 2 * rs of the other group's sum. The counts array has one
  // entry per rank of the local group (the remote group is another size).
  std::vector<MPI_Count> rc(static_cast<std::size_t>(ls), 2 * rs);
  std::vector<int> send(static_cast<std::size_t>(2 * ls * rs), jobs::rank() + 1), recv(static_cast<std::size_t>(2 * rs), -1);
  MPI_OK(MPI_Reduce_scatter_c(send.data(), recv.data(), rc.data(), MPI_INT, MPI_SUM, h.inter));
  int remote_sum = 0;
  for (int r = 0; r < rs; ++r) remote_sum += h.remote_world(r) + 1;
  for (int x : recv) CHECK(x == remote_sum);
}

// Totals over the remote or local group can pass INT_MAX elements while every
// count argument fits in an int: gathering 1.5e9 elements from each of 2 remote
// ranks. The intercommunicator paths posted them with the int calls (a cast of
// 3e9 to int, negative: MPI_ERR_COUNT; past 2^32 it would wrap to a small count).
// A type of no bytes keeps the test free of memory.
TEST_CASE("intercommunicator collectives whose group totals pass INT_MAX", "[intercomm][large_count]") {
  if (jobs::size() < 3) return;  // a group of 2 or more on one side
  Halves h;
  MPI_Datatype empty;
  MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
  MPI_OK(MPI_Type_commit(&empty));
  const int n = 1500000000;
  char buf[1] = {0};
  for (int root_side = 0; root_side < 2; ++root_side) {
    const bool rooted = h.in_a == (root_side == 0);
    const int root = rooted ? (h.local_rank() == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    MPI_OK(MPI_Gather(buf, n, empty, buf, n, empty, root, h.inter));
    MPI_OK(MPI_Scatter(buf, n, empty, buf, n, empty, root, h.inter));
    MPI_Request r;
    MPI_OK(MPI_Igather(buf, n, empty, buf, n, empty, root, h.inter, &r));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  }
  MPI_OK(MPI_Allgather(buf, n, empty, buf, n, empty, h.inter));
  MPI_Request r;
  MPI_OK(MPI_Iallgather(buf, n, empty, buf, n, empty, h.inter, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  // Reduce_scatter's total is the sum of the local group's counts (3e9 with two
  // ranks; MPI wants both groups' totals equal, so both have 2 ranks: with more,
  // the displacements of the scatter pass INT_MAX, which the v-forms refuse).
  if (h.a_size == 2 && h.b_size == 2) {
    std::vector<int> counts(static_cast<std::size_t>(h.local_size()), 3000000000LL / h.local_size() + 1);
    MPI_OK(MPI_Reduce_scatter(buf, buf, counts.data(), empty, MPI_SUM, h.inter));
  }
  MPI_OK(MPI_Type_free(&empty));
}

// The stream layer's enqueued calls (MPIX_*_enqueue) stand for blocking ones:
// made as persistent requests, they must still take their turn among the
// communicator's non-blocking collectives. Made to run in any order instead, an
// enqueued allreduce's local reduction could take the place of an earlier
// MPI_Ibcast's local broadcast on some ranks (wrong data or a hang at 2+2 ranks).
TEST_CASE("enqueued collectives on an intercommunicator keep their place among non-blocking ones",
          "[intercomm][persistent]") {
  if (jobs::size() < 2) return;
  Halves h;
  const int rs = h.remote_size(), lr = h.local_rank();
  int bad = 0;
  for (int round = 0; round < 20; ++round) {
    // Group B's rank 0 broadcasts to group A; then every rank allreduces.
    const int root = h.in_a ? 0 : (lr == 0 ? MPI_ROOT : MPI_PROC_NULL);
    int v = h.in_a ? -1 : 500 + round, in = jobs::rank() + round, sum = -1;
    MPI_Request r;
    MPI_OK(MPI_Ibcast(&v, 1, MPI_INT, root, h.inter, &r));
    MPI_OK(MPIX_Allreduce_enqueue(&in, &sum, 1, MPI_INT, MPI_SUM, h.inter));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    if (h.in_a) bad += v != 500 + round;
    int want = 0;
    for (int k = 0; k < rs; ++k) want += h.remote_world(k) + round;
    bad += sum != want;
  }
  CHECK(bad == 0);
}
