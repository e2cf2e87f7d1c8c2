// Communicator creation: dup/idup/split/split_type/create/create_group/free,
// compare, names, errors; context ids reused across thousands of cycles.
#include <dirent.h>
#include <hwloc.h>
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
    MPI_Request started = req;
    REQUIRE(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);  // d is set once it completes
    if (i == 0) {
      first_req = started;
      first = d;
    }
    if (started != first_req || d != first) ++distinct;
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

TEST_CASE("a NULL newcomm goes through the parent's error handler as MPI_ERR_ARG, on every rank, no hang",
          "[comm][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  MPI_Group g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &g));
  CHECK(jobs::error_class(MPI_Comm_dup(MPI_COMM_WORLD, nullptr)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, nullptr)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Comm_split(MPI_COMM_WORLD, 0, 0, nullptr)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, nullptr)) ==
        MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Comm_create(MPI_COMM_WORLD, g, nullptr)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Comm_create_group(MPI_COMM_WORLD, g, 5, nullptr)) == MPI_ERR_ARG);
  MPI_OK(MPI_Group_free(&g));
  // Nothing was left half-made: the next collective and a dup work.
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_OK(MPI_Barrier(c));
  MPI_OK(MPI_Comm_free(&c));
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

namespace {

// The world ranks in `c` (MPI_COMM_NULL: none).
std::vector<int> members_of(MPI_Comm c) {
  std::vector<int> out;
  if (c == MPI_COMM_NULL) return out;
  MPI_Group g, w;
  int n;
  MPI_OK(MPI_Comm_group(c, &g));
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Group_size(g, &n));
  std::vector<int> in(static_cast<std::size_t>(n));
  out.resize(in.size());
  std::iota(in.begin(), in.end(), 0);
  MPI_OK(MPI_Group_translate_ranks(g, n, in.data(), w, out.data()));
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_free(&w));
  return out;
}

MPI_Comm split_hw(int type, const char* key, const char* value) {
  MPI_Info info = MPI_INFO_NULL;
  if (key) {
    MPI_OK(MPI_Info_create(&info));
    MPI_OK(MPI_Info_set(info, key, value));
  }
  MPI_Comm out;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, type, 0, info, &out));
  if (info != MPI_INFO_NULL) MPI_OK(MPI_Info_free(&info));
  return out;
}

// Every rank's answer for `mine` (an int), gathered.
std::vector<int> everyone(int mine) {
  std::vector<int> all(static_cast<std::size_t>(jobs::size()));
  MPI_OK(MPI_Allgather(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD));
  return all;
}

// The oracle, straight from hwloc: the logical index of the `type` object this
// process's binding lies in, -1 when it spans several.
int hwloc_index(hwloc_obj_type_t type) {
  hwloc_topology_t t;
  hwloc_topology_init(&t);
  hwloc_topology_load(t);
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  hwloc_get_cpubind(t, b, HWLOC_CPUBIND_PROCESS);
  int idx = -1;
  for (hwloc_obj_t o = hwloc_get_next_obj_by_type(t, type, nullptr); o; o = hwloc_get_next_obj_by_type(t, type, o))
    if (hwloc_bitmap_isincluded(b, o->cpuset)) idx = static_cast<int>(o->logical_index);
  hwloc_bitmap_free(b);
  hwloc_topology_destroy(t);
  return idx;
}

// Checks a guided split by `name` against the oracle: the ranks with my object
// (all on one node here), or MPI_COMM_NULL where my binding spans several.
void check_guided(const char* name, hwloc_obj_type_t type) {
  INFO("mpi_hw_resource_type " << name);
  MPI_Comm c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", name);
  const std::vector<int> idx = everyone(hwloc_index(type));
  const int mine = idx[static_cast<std::size_t>(jobs::rank())];
  if (mine < 0) {
    CHECK(c == MPI_COMM_NULL);
    return;
  }
  std::vector<int> want;
  for (int r = 0; r < jobs::size(); ++r)
    if (idx[static_cast<std::size_t>(r)] == mine) want.push_back(r);
  CHECK(members_of(c) == want);
  MPI_Info got;
  MPI_OK(MPI_Comm_get_info(c, &got));
  char value[64] = "";
  int flag = 0, len = sizeof value;
  MPI_OK(MPI_Info_get_string(got, "mpi_hw_resource_type", &len, value, &flag));
  CHECK(flag == 1);
  CHECK(std::string(value).find(name + (std::string(name).rfind("hwloc://", 0) == 0 ? 8 : 0)) != std::string::npos);
  MPI_OK(MPI_Info_free(&got));
  MPI_OK(MPI_Comm_free(&c));
}

void check_hw_splits() {
  check_guided("hwloc://machine", HWLOC_OBJ_MACHINE);
  check_guided("hwloc://package", HWLOC_OBJ_PACKAGE);
  check_guided("numa", HWLOC_OBJ_NUMANODE);
  check_guided("hwloc://core", HWLOC_OBJ_CORE);
  check_guided("pu", HWLOC_OBJ_PU);
  MPI_Comm c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "hwloc://frobnicator");
  CHECK(c == MPI_COMM_NULL);
  // Unguided: strictly smaller than the parent, holding at least every rank on my
  // core (the narrowest level above the hardware thread), or MPI_COMM_NULL.
  c = split_hw(MPI_COMM_TYPE_HW_UNGUIDED, nullptr, nullptr);
  const std::vector<int> core = everyone(hwloc_index(HWLOC_OBJ_CORE));
  const int my_core = core[static_cast<std::size_t>(jobs::rank())];
  bool all_on_my_core = my_core >= 0;
  for (int x : core) all_on_my_core = all_on_my_core && x == my_core;
  if (c == MPI_COMM_NULL) {
    // Only when no level gives this rank a smaller group: it is unbound (spans
    // several cores), or every rank shares its core.
    CHECK((my_core < 0 || all_on_my_core));
  } else {
    const std::vector<int> m = members_of(c);
    CHECK(static_cast<int>(m.size()) < jobs::size());
    for (int r = 0; r < jobs::size(); ++r)
      if (my_core >= 0 && core[static_cast<std::size_t>(r)] == my_core)
        CHECK(std::find(m.begin(), m.end(), r) != m.end());
    MPI_OK(MPI_Comm_free(&c));
  }
}

}  // namespace

TEST_CASE("split_type by hardware resource: guided (hwloc names) and unguided", "[comm][split]") {
  // As launched (unbound: every binding spans the node's cores).
  check_hw_splits();
  // Bound to one CPU each, round robin over the CPUs this process may use, as
  // --bind-to would (every thread of the process: hwloc's process binding): core
  // and pu now give groups, unguided a smaller one.
  hwloc_topology_t t;
  REQUIRE(hwloc_topology_init(&t) == 0);
  REQUIRE(hwloc_topology_load(t) == 0);
  hwloc_bitmap_t saved = hwloc_bitmap_alloc(), one = hwloc_bitmap_alloc();
  REQUIRE(hwloc_get_cpubind(t, saved, HWLOC_CPUBIND_PROCESS) == 0);
  std::vector<unsigned> cpus;
  for (int c = hwloc_bitmap_first(saved); c >= 0; c = hwloc_bitmap_next(saved, c)) cpus.push_back(static_cast<unsigned>(c));
  hwloc_bitmap_only(one, cpus[static_cast<std::size_t>(jobs::rank()) % cpus.size()]);
  REQUIRE(hwloc_set_cpubind(t, one, HWLOC_CPUBIND_PROCESS) == 0);
  check_hw_splits();
  MPI_Comm pu = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", "hwloc://pu");
  CHECK(pu != MPI_COMM_NULL);  // the bound case was taken: a single CPU is inside one PU
  if (pu != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&pu));
  REQUIRE(hwloc_set_cpubind(t, saved, HWLOC_CPUBIND_PROCESS) == 0);
  hwloc_bitmap_free(one);
  hwloc_bitmap_free(saved);
  hwloc_topology_destroy(t);
}

TEST_CASE("MPI 4.1: MPI_Get_hw_resource_info names what a guided split may take", "[comm][split][hwinfo]") {
  MPI_Info hw;
  MPI_OK(MPI_Get_hw_resource_info(&hw));
  int nkeys = 0;
  MPI_OK(MPI_Info_get_nkeys(hw, &nkeys));
  CHECK(nkeys == 11);  // mpi_shared_memory and ten hwloc:// types
  std::vector<std::pair<std::string, bool>> types;
  for (int i = 0; i < nkeys; ++i) {
    char key[MPI_MAX_INFO_KEY + 1], value[16];
    int len = sizeof value, flag = 0;
    MPI_OK(MPI_Info_get_nthkey(hw, i, key));
    MPI_OK(MPI_Info_get_string(hw, key, &len, value, &flag));
    REQUIRE(flag);
    const std::string v = value;
    CHECK((v == "true" || v == "false"));
    types.emplace_back(key, v == "true");
  }
  MPI_OK(MPI_Info_free(&hw));
  REQUIRE(!types.empty());
  CHECK(types[0] == std::make_pair(std::string("mpi_shared_memory"), true));
  // Each key, the same list on every rank, split by: a communicator exactly where
  // the value said "true".
  for (const auto& [type, bound] : types) {
    INFO("mpi_hw_resource_type " << type);
    MPI_Comm c = split_hw(MPI_COMM_TYPE_HW_GUIDED, "mpi_hw_resource_type", type.c_str());
    CHECK((c != MPI_COMM_NULL) == bound);
    if (c != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&c));
  }
  // The machine and the node: every process lies within its own.
  const auto machine = std::find(types.begin(), types.end(), std::make_pair(std::string("hwloc://machine"), true));
  CHECK(machine != types.end());
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Get_hw_resource_info(nullptr)) == MPI_ERR_ARG);
}

TEST_CASE("split_type resource guided: process sets", "[comm][split]") {
  MPI_Comm c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://WORLD");
  std::vector<int> all(static_cast<std::size_t>(jobs::size()));
  std::iota(all.begin(), all.end(), 0);
  CHECK(members_of(c) == all);
  if (c != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&c));
  c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "mpi://SELF");
  CHECK(members_of(c) == std::vector<int>{jobs::rank()});
  if (c != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&c));
  c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, "mpi_pset_name", "app://nothing");
  CHECK(c == MPI_COMM_NULL);
  c = split_hw(MPI_COMM_TYPE_RESOURCE_GUIDED, nullptr, nullptr);
  CHECK(c == MPI_COMM_NULL);
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

namespace {
int g_file_calls = 0, g_file_code = 0;
MPI_File g_file_seen = reinterpret_cast<MPI_File>(1);
void file_handler(MPI_File* file, int* code, ...) {
  ++g_file_calls;
  g_file_seen = *file;
  g_file_code = *code;
}
}  // namespace

// Without MPI-IO, MPI_FILE_NULL's handler is still there to set and call: it is
// the handler files get at open (MPI_ERRORS_RETURN to begin with).
TEST_CASE("file error handlers on MPI_FILE_NULL", "[comm][errors][file]") {
  MPI_Errhandler got;
  MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  CHECK(got == MPI_ERRORS_RETURN);
  MPI_OK(MPI_Errhandler_free(&got));

  MPI_Errhandler eh;
  MPI_OK(MPI_File_create_errhandler(file_handler, &eh));
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, eh));
  MPI_OK(MPI_Errhandler_free(&eh));  // the file default keeps it alive
  g_file_calls = 0;
  int code;
  MPI_OK(MPI_Add_error_code(MPI_ERR_OTHER, &code));
  MPI_OK(MPI_File_call_errhandler(MPI_FILE_NULL, code));
  CHECK(g_file_calls == 1);
  CHECK(g_file_seen == MPI_FILE_NULL);
  CHECK(g_file_code == code);
  MPI_OK(MPI_File_get_errhandler(MPI_FILE_NULL, &got));
  int calls = g_file_calls;
  MPI_OK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO));  // the handle got runs the same handler
  CHECK(g_file_calls == calls + 1);

  // Errors of the file calls go through that handler too, and name the call.
  g_file_calls = 0;
  CHECK(jobs::error_class(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRHANDLER_NULL)) == MPI_ERR_ARG);
  CHECK(g_file_calls == 1);
  MPI_Errhandler comm_eh;
  MPI_OK(MPI_Comm_create_errhandler(count_handler, &comm_eh));
  CHECK(jobs::error_class(MPI_File_set_errhandler(MPI_FILE_NULL, comm_eh)) == MPI_ERR_ARG);
  CHECK(g_file_calls == 2);
  MPI_File bogus = reinterpret_cast<MPI_File>(&calls);
  int rc = MPI_File_get_errhandler(bogus, &eh);
  CHECK(jobs::error_class(rc) == MPI_ERR_FILE);
  CHECK(g_file_calls == 3);
  char msg[MPI_MAX_ERROR_STRING];
  int len;
  MPI_OK(MPI_Error_string(rc, msg, &len));
  CHECK(std::string(msg).find("MPI_File_get_errhandler: invalid file handle") != std::string::npos);
  CHECK(jobs::error_class(MPI_File_create_errhandler(nullptr, &eh)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_File_create_errhandler(file_handler, nullptr)) == MPI_ERR_ARG);
  CHECK(g_file_calls == 5);

  // A file's handler is not a communicator's, nor the other way round.
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    CHECK(jobs::error_class(MPI_Comm_set_errhandler(MPI_COMM_WORLD, got)) == MPI_ERR_ARG);
  }
  MPI_OK(MPI_Errhandler_free(&comm_eh));
  MPI_OK(MPI_Errhandler_free(&got));

  // Back to the default: errors return.
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  g_file_calls = 0;
  CHECK(MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_IO) == MPI_SUCCESS);
  CHECK(g_file_calls == 0);
}

// Communicators on one node map a shared window (README, "Shared memory") at
// their CHORUS_COLL_SHM_CALLS-th blocking collective (5 unless set: 16 barriers
// cover it); its /dev/shm name is removed as soon as every member has mapped it,
// so nothing is left behind even if the job dies later.
TEST_CASE("shared windows leave no /dev/shm names behind", "[comm][shm]") {
  std::vector<MPI_Comm> comms(8);
  for (auto& c : comms) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  MPI_Comm half;
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, jobs::rank() % 2, 0, &half));
  for (int i = 0; i < 16; ++i) {
    for (auto& c : comms) MPI_OK(MPI_Barrier(c));
    MPI_OK(MPI_Barrier(half));
  }
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

// MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD: ranks that see the same files in the
// directory named by nbhd_common_dirname share a communicator (one node: all);
// differing or unknown hints give MPI_COMM_NULL everywhere, as in MPICH.
TEST_CASE("split_type MPIX_COMM_TYPE_NEIGHBORHOOD by a common directory", "[comm][split]") {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "nbhd_common_dirname", ".");
  MPI_Comm c = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, info, &c));
  REQUIRE(c != MPI_COMM_NULL);
  int n = 0;
  MPI_Comm_size(c, &n);
  CHECK(n == jobs::size());
  MPI_Comm_free(&c);
  if (jobs::size() > 1) {
    MPI_Info_set(info, "nbhd_common_dirname", jobs::rank() == 1 ? "/tmp" : ".");
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, info, &c));
    CHECK(c == MPI_COMM_NULL);
  }
  MPI_Info_delete(info, "nbhd_common_dirname");
  MPI_Info_set(info, "network_topo", "switch_level:1");
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPIX_COMM_TYPE_NEIGHBORHOOD, 0, info, &c));
  CHECK(c == MPI_COMM_NULL);
  MPI_Info_free(&info);
}

// MPI_Comm_idup must not wait for the other ranks (MPICH's comm_idup,
// comm_idup_overlap, comm_create_group_idup): all three hung when idup agreed
// at the call.
TEST_CASE("idup does not block: late ranks, overlapping idups, blocking creation between", "[comm][idup]") {
  const int n = jobs::size(), me = jobs::rank();
  if (n < 2) return;
  // Rank 0 joins only after every other rank has started its idup and sent.
  MPI_Comm d;
  MPI_Request req;
  if (me == 0) {
    for (int i = 1; i < n; ++i) MPI_Recv(nullptr, 0, MPI_INT, i, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
  } else {
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    MPI_Ssend(nullptr, 0, MPI_INT, 0, 3, MPI_COMM_WORLD);
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int sum = 0;
  MPI_OK(MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, d));
  CHECK(sum == n * (n - 1) / 2);
  MPI_OK(MPI_Comm_free(&d));

  // A ring of pair communicators {i, i+1}: each rank idups both of its pairs
  // at once; with blocking dups this deadlocks.
  MPI_Comm mine = MPI_COMM_NULL, prev = MPI_COMM_NULL;
  for (int i = 0; i < n; ++i) {
    MPI_Comm t;
    bool in = me == i || me == (i + 1) % n;
    MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, me == i ? 0 : 1, &t));
    if (me == i) mine = t;
    else if (me == (i + 1) % n) prev = t;
  }
  if (n == 2) {  // both pairs are {0, 1}: the second split made prev for rank 0 too
    REQUIRE(mine != MPI_COMM_NULL);
    REQUIRE(prev != MPI_COMM_NULL);
  }
  MPI_Comm dups[2];
  MPI_Request reqs[2];
  MPI_OK(MPI_Comm_idup(mine, &dups[0], &reqs[0]));
  MPI_OK(MPI_Comm_idup(prev, &dups[1], &reqs[1]));
  MPI_OK(MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE));
  int result = MPI_UNEQUAL;
  MPI_Comm_compare(dups[0], mine, &result);
  CHECK(result == MPI_CONGRUENT);
  MPI_Comm_compare(dups[1], prev, &result);
  CHECK(result == MPI_CONGRUENT);
  for (MPI_Comm* c : {&dups[0], &dups[1], &mine, &prev}) MPI_OK(MPI_Comm_free(c));

  // Even ranks create a communicator (blocking) before their idup, odd ranks
  // after it.
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Comm g;
  if (me % 2 == 0) {
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &g));
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
  } else {
    MPI_OK(MPI_Comm_idup(MPI_COMM_WORLD, &d, &req));
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, world, 0, &g));
  }
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Barrier(d));
  MPI_OK(MPI_Barrier(g));
  MPI_Group_free(&world);
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Comm_free(&g));
}
