// Communicator creation: dup/idup/split/split_type/create/create_group/free,
// compare, names, errors; context ids reused across thousands of cycles.
#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

// Ring exchange inside `comm`: every rank sends its world rank right and checks
// what it got from the left against `world_of`.
void ring_check(MPI_Comm comm, const std::vector<int>& world_of) {
  int r, n;
  MPI_OK(MPI_Comm_rank(comm, &r));
  MPI_OK(MPI_Comm_size(comm, &n));
  int out = jobs::rank(), in = -1;
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, (r + 1) % n, 7, &in, 1, MPI_INT, (r - 1 + n) % n, 7, comm,
                      MPI_STATUS_IGNORE));
  CHECK(in == world_of[static_cast<std::size_t>((r - 1 + n) % n)]);
}

}  // namespace

TEST_CASE("world and self basics", "[comm]") {
  int flag = 1;
  MPI_OK(MPI_Comm_test_inter(MPI_COMM_WORLD, &flag));
  CHECK(flag == 0);
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_OK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
  CHECK(std::string(name) == "MPI_COMM_WORLD");
  int result = -1;
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_IDENT);
  MPI_OK(MPI_Comm_compare(MPI_COMM_SELF, MPI_COMM_WORLD, &result));
  CHECK(result == (jobs::size() == 1 ? MPI_CONGRUENT : MPI_UNEQUAL));
}

TEST_CASE("dup: congruent, own context, name not copied", "[comm]") {
  MPI_Comm d;
  MPI_OK(MPI_Comm_set_name(MPI_COMM_SELF, "MPI_COMM_SELF"));
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  int result = -1, r = -1, n = -1;
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_rank(d, &r));
  MPI_OK(MPI_Comm_size(d, &n));
  CHECK(r == jobs::rank());
  CHECK(n == jobs::size());
  char name[MPI_MAX_OBJECT_NAME];
  int len = -1;
  MPI_OK(MPI_Comm_get_name(d, name, &len));
  CHECK(len == 0);
  MPI_OK(MPI_Comm_set_name(d, "my dup"));
  MPI_OK(MPI_Comm_get_name(d, name, &len));
  CHECK(std::string(name) == "my dup");
  CHECK(len == 6);

  // Same tag, same peer, different communicators: each receive gets its own message.
  int a = 100 + jobs::rank(), b = 200 + jobs::rank(), ra = -1, rb = -1;
  MPI_Request reqs[4];
  MPI_OK(MPI_Irecv(&rb, 1, MPI_INT, jobs::left(), 3, d, &reqs[0]));
  MPI_OK(MPI_Irecv(&ra, 1, MPI_INT, jobs::left(), 3, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Isend(&a, 1, MPI_INT, jobs::right(), 3, MPI_COMM_WORLD, &reqs[2]));
  MPI_OK(MPI_Isend(&b, 1, MPI_INT, jobs::right(), 3, d, &reqs[3]));
  MPI_OK(MPI_Waitall(4, reqs, MPI_STATUSES_IGNORE));
  CHECK(ra == 100 + jobs::left());
  CHECK(rb == 200 + jobs::left());

  MPI_Comm dd;
  MPI_OK(MPI_Comm_dup(d, &dd));
  MPI_OK(MPI_Comm_compare(d, dd, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_free(&dd));
  MPI_OK(MPI_Comm_free(&d));
  CHECK(d == MPI_COMM_NULL);
}

TEST_CASE("5000 dup/free cycles reuse context ids and handles", "[comm][leak]") {
  MPI_Comm first = MPI_COMM_NULL;
  int distinct = 0;
  for (int i = 0; i < 5000; ++i) {
    MPI_Comm d;
    REQUIRE(MPI_Comm_dup(MPI_COMM_WORLD, &d) == MPI_SUCCESS);
    if (i == 0) first = d;
    if (d != first) ++distinct;
    if (i % 1000 == 0) ring_check(d, [] {
        std::vector<int> w(static_cast<std::size_t>(jobs::size()));
        std::iota(w.begin(), w.end(), 0);
        return w;
      }());
    REQUIRE(MPI_Comm_free(&d) == MPI_SUCCESS);
  }
  CHECK(distinct == 0);  // the table slot (and the handle) is reused every time

  // Nested: hold 100 at once, free them, then again.
  for (int round = 0; round < 3; ++round) {
    std::vector<MPI_Comm> held(100);
    for (auto& c : held) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    std::vector<MPI_Comm> sorted = held;
    std::sort(sorted.begin(), sorted.end());
    CHECK(std::unique(sorted.begin(), sorted.end()) == sorted.end());
    ring_check(held.back(), [] {
      std::vector<int> w(static_cast<std::size_t>(jobs::size()));
      std::iota(w.begin(), w.end(), 0);
      return w;
    }());
    for (auto& c : held) MPI_OK(MPI_Comm_free(&c));
  }
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  CHECK(d == first);
  MPI_OK(MPI_Comm_free(&d));
}

TEST_CASE("idup completes and its request is recycled", "[comm][leak]") {
  MPI_Request first_req = MPI_REQUEST_NULL;
  MPI_Comm first = MPI_COMM_NULL;
  int distinct = 0;
  for (int i = 0; i < 1000; ++i) {
    MPI_Comm d;
    MPI_Request req;
    REQUIRE(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req) == MPI_SUCCESS);
    if (i == 0) {
      first_req = req;
      first = d;
    }
    if (req != first_req || d != first) ++distinct;
    REQUIRE(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
    REQUIRE(req == MPI_REQUEST_NULL);
    REQUIRE(MPI_Comm_free(&d) == MPI_SUCCESS);
  }
  CHECK(distinct == 0);
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm d;
  MPI_Request req;
  MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, info, &d, &req));
  int flag = 0;
  MPI_POLL(flag, MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
  MPI_Info used;
  MPI_OK(MPI_Comm_get_info(d, &used));
  char value[32];
  MPI_OK(MPI_Info_get(used, "mpi_assert_no_any_tag", 31, value, &flag));
  CHECK(flag == 1);
  CHECK(std::string(value) == "true");
  MPI_OK(MPI_Info_free(&used));
  MPI_OK(MPI_Info_free(&info));
  MPI_OK(MPI_Comm_free(&d));
}

TEST_CASE("split into odd groups with p2p inside each", "[comm][split]") {
  const int n = jobs::size(), me = jobs::rank();
  for (int colors : {1, 2, 3, 5}) {
    // Key reverses the order inside each color.
    MPI_Comm s;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % colors, n - me, &s));
    std::vector<int> members;
    for (int r = n - 1; r >= 0; --r)
      if (r % colors == me % colors) members.push_back(r);
    int sr, sn;
    MPI_OK(MPI_Comm_rank(s, &sr));
    MPI_OK(MPI_Comm_size(s, &sn));
    CHECK(sn == static_cast<int>(members.size()));
    CHECK(members[static_cast<std::size_t>(sr)] == me);
    ring_check(s, members);
    int result;
    MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, s, &result));
    if (sn == n) CHECK(result == (n == 1 ? MPI_CONGRUENT : MPI_SIMILAR));
    else CHECK(result == MPI_UNEQUAL);
    MPI_OK(MPI_Comm_free(&s));
  }
  // MPI_UNDEFINED: rank 0 gets no communicator but still takes part.
  MPI_Comm s;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me == 0 ? MPI_UNDEFINED : 1, 0, &s));
  if (me == 0) {
    CHECK(s == MPI_COMM_NULL);
  } else {
    int sn;
    MPI_OK(MPI_Comm_size(s, &sn));
    CHECK(sn == n - 1);
    std::vector<int> members(static_cast<std::size_t>(n - 1));
    std::iota(members.begin(), members.end(), 1);
    ring_check(s, members);
    MPI_OK(MPI_Comm_free(&s));
  }
  // Split of a split.
  MPI_Comm half, quarter;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, me % 2, me, &half));
  MPI_OK(MPI_Comm_split(half, 0, 0, &quarter));
  int result;
  MPI_OK(MPI_Comm_compare(half, quarter, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_free(&quarter));
  MPI_OK(MPI_Comm_free(&half));
}

TEST_CASE("split_type shared: one node holds the whole job", "[comm][split]") {
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, jobs::rank(), MPI_INFO_NULL, &node));
  int r, n;
  MPI_OK(MPI_Comm_rank(node, &r));
  MPI_OK(MPI_Comm_size(node, &n));
  CHECK(n == jobs::size());
  CHECK(r == jobs::rank());
  MPI_OK(MPI_Comm_free(&node));

  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_UNDEFINED, 0, MPI_INFO_NULL, &node));
  CHECK(node == MPI_COMM_NULL);

  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory"));
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_HW_GUIDED, 0, info, &node));
  REQUIRE(node != MPI_COMM_NULL);
  MPI_OK(MPI_Comm_size(node, &n));
  CHECK(n == jobs::size());
  MPI_OK(MPI_Comm_free(&node));
  MPI_OK(MPI_Info_free(&info));
}

TEST_CASE("create and create_group", "[comm][create]") {
  const int n = jobs::size(), me = jobs::rank();
  MPI_Group world, evens;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int range[1][3] = {{0, n - 1, 2}};
  MPI_OK(MPI_Group_range_incl(world, 1, range, &evens));
  std::vector<int> even_members;
  for (int r = 0; r < n; r += 2) even_members.push_back(r);

  MPI_Comm c;
  MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, evens, &c));
  if (me % 2 == 0) {
    REQUIRE(c != MPI_COMM_NULL);
    ring_check(c, even_members);
    MPI_OK(MPI_Comm_free(&c));
  } else {
    CHECK(c == MPI_COMM_NULL);
  }

  // Only the members call create_group.
  if (me % 2 == 0) {
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, evens, 42, &c));
    REQUIRE(c != MPI_COMM_NULL);
    ring_check(c, even_members);
    MPI_OK(MPI_Comm_free(&c));
  }

  // A sequence of create_group calls with one tag over overlapping, shifting
  // pairs: {0,1}, {1,2}, ... Each rank takes part in two of them.
  for (int k = 0; k < n; ++k) {
    int pair[2] = {k, (k + 1) % n};
    if (me != pair[0] && me != pair[1]) continue;
    MPI_Group g;
    MPI_OK(MPI_Group_incl(world, n == 1 ? 1 : 2, pair, &g));
    MPI_Comm pc;
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, &pc));
    std::vector<int> members(pair, pair + (n == 1 ? 1 : 2));
    ring_check(pc, members);
    MPI_OK(MPI_Comm_free(&pc));
    MPI_OK(MPI_Group_free(&g));
  }

  // Create from a reversed group: ranks come in group order.
  std::vector<int> rev(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) rev[static_cast<std::size_t>(i)] = n - 1 - i;
  MPI_Group rg;
  MPI_OK(MPI_Group_incl(world, n, rev.data(), &rg));
  MPI_OK(MPI_Comm_create(MPI_COMM_WORLD, rg, &c));
  int r;
  MPI_OK(MPI_Comm_rank(c, &r));
  CHECK(r == n - 1 - me);
  ring_check(c, rev);
  MPI_OK(MPI_Comm_free(&c));
  MPI_OK(MPI_Group_free(&rg));
  MPI_OK(MPI_Group_free(&evens));
  MPI_OK(MPI_Group_free(&world));
}

TEST_CASE("communicator errors", "[comm][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  jobs::ErrorsReturn er_self(MPI_COMM_SELF);
  MPI_Comm w = MPI_COMM_WORLD;
  CHECK(jobs::error_class(MPI_Comm_free(&w)) == MPI_ERR_COMM);
  CHECK(w == MPI_COMM_WORLD);
  MPI_Comm s = MPI_COMM_SELF;
  CHECK(jobs::error_class(MPI_Comm_free(&s)) == MPI_ERR_COMM);
  MPI_Comm null = MPI_COMM_NULL;
  CHECK(jobs::error_class(MPI_Comm_free(&null)) == MPI_ERR_COMM);
  MPI_Comm out;
  CHECK(jobs::error_class(MPI_Comm_dup(MPI_COMM_NULL, &out)) == MPI_ERR_COMM);
  CHECK(jobs::error_class(MPI_Comm_split(MPI_COMM_WORLD, -5, 0, &out)) == MPI_ERR_ARG);
  int size;
  CHECK(jobs::error_class(MPI_Comm_remote_size(MPI_COMM_WORLD, &size)) == MPI_ERR_COMM);
  CHECK(jobs::error_class(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_NULL, &out)) == MPI_ERR_GROUP);
  CHECK(jobs::error_class(MPI_Comm_split_type(MPI_COMM_WORLD, 99, 0, MPI_INFO_NULL, &out)) == MPI_ERR_ARG);

  // A freed communicator handle is no longer valid.
  MPI_Comm d, saved;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  saved = d;
  MPI_OK(MPI_Comm_free(&d));
  CHECK(jobs::error_class(MPI_Comm_size(saved, &size)) == MPI_ERR_COMM);

  // Error message names the call.
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  int rc = MPI_Comm_free(&w);
  MPI_OK(MPI_Error_string(rc, msg, &len));
  CHECK(std::string(msg).find("MPI_Comm_free") != std::string::npos);
}

namespace {
int g_handler_calls = 0;
MPI_Comm g_handler_comm = MPI_COMM_NULL;
void count_handler(MPI_Comm* comm, int* /*code*/, ...) {
  ++g_handler_calls;
  g_handler_comm = *comm;
}
}  // namespace

TEST_CASE("errhandlers are inherited by new communicators", "[comm][errors]") {
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_create_errhandler(count_handler, &eh));
  MPI_Comm parent, child;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &parent));
  MPI_OK(MPI_Comm_set_errhandler(parent, eh));
  MPI_OK(MPI_Errhandler_free(&eh));  // the communicator keeps it alive
  MPI_OK(MPI_Comm_split(parent, 0, jobs::rank(), &child));
  MPI_OK(MPI_Comm_free(&parent));
  g_handler_calls = 0;
  int rc = MPI_Send(nullptr, 0, MPI_INT, jobs::size() + 5, 0, child);
  CHECK(jobs::error_class(rc) == MPI_ERR_RANK);
  CHECK(g_handler_calls == 1);
  CHECK(g_handler_comm == child);
  MPI_Errhandler got;
  MPI_OK(MPI_Comm_get_errhandler(child, &got));
  MPI_OK(MPI_Errhandler_free(&got));
  MPI_OK(MPI_Comm_free(&child));
}

// Communicators on one node map a shared window (README, "Shared memory"); its
// /dev/shm name is removed as soon as every member has mapped it, so nothing is
// left behind even if the job dies later.
TEST_CASE("shared windows leave no /dev/shm names behind", "[comm][shm]") {
  std::vector<MPI_Comm> comms(8);
  for (auto& c : comms) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_Comm half;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, jobs::rank() % 2, 0, &half));
  // Rank 0 of each communicator created its window as /chorus-<pid>-<n>.
  std::string prefix = "chorus-" + std::to_string(getpid()) + "-";
  int left = 0;
  if (DIR* d = opendir("/dev/shm")) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).rfind(prefix, 0) == 0) ++left;
    closedir(d);
  }
  CHECK(left == 0);
  // The windows work: an allreduce and a bcast on each.
  for (auto& c : comms) {
    int v = jobs::rank(), sum = -1, root_val = jobs::rank() == 0 ? 42 : -1;
    MPI_OK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
    CHECK(sum == jobs::size() * (jobs::size() - 1) / 2);
    MPI_OK(MPI_Bcast(&root_val, 1, MPI_INT, 0, c));
    CHECK(root_val == 42);
    MPI_OK(MPI_Comm_free(&c));
  }
  MPI_OK(MPI_Barrier(half));
  MPI_OK(MPI_Comm_free(&half));
}
