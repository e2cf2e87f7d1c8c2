// Shared-window calls that leave the window for messages when the node is busy
// (CHORUS_COLL_BUSY_SWITCH, lib/coll/executor.h BusyAlt). A call of several slots
// carries each rank's recent sync time on its first sync of every rank, and every
// rank decides from the same values: when one rank says its syncs are slow, all
// of them must go over messages, or the others would wait in the window for it
// forever. Rank 0 says so here through MPI_T (CHORUS_COLL_BUSY_SWITCH=always on it
// alone; the others keep auto), which no timing decides, so the test can count.
// Run without CHORUS_CHECK_COLL (meson: coll_np*_busy), whose agreement of five
// values leaves none for the sync time (such calls keep to the window).
#include <cstdlib>
#include <string>
#include <vector>

#include "coll_common.h"

namespace {

using namespace coll;

// CHORUS_COLL_BUSY_SWITCH on this rank, through MPI_T, for a scope.
class BusySwitch {
 public:
  explicit BusySwitch(int mode) {  // 0 auto, 1 always, 2 off
    int provided, idx, n;
    REQUIRE(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    REQUIRE(MPI_T_cvar_get_index("CHORUS_COLL_BUSY_SWITCH", &idx) == MPI_SUCCESS);
    REQUIRE(MPI_T_cvar_handle_alloc(idx, nullptr, &h_, &n) == MPI_SUCCESS);
    REQUIRE(MPI_T_cvar_read(h_, &old_) == MPI_SUCCESS);
    REQUIRE(MPI_T_cvar_write(h_, &mode) == MPI_SUCCESS);
  }
  ~BusySwitch() {
    MPI_T_cvar_write(h_, &old_);
    MPI_T_cvar_handle_free(&h_);
    MPI_T_finalize();
  }
  BusySwitch(const BusySwitch&) = delete;
  BusySwitch& operator=(const BusySwitch&) = delete;

 private:
  MPI_T_cvar_handle h_;
  int old_ = 0;
};

bool allreduce_forced() {
  const char* v = std::getenv("CHORUS_ALLREDUCE_ALGO");
  return v && *v && std::string(v) != "auto";
}

// Allreduces of 1 MiB and more (several slots of the default 256 KiB), in place
// and not, with commutative and non-commutative ops.
std::vector<CasePtr> large_allreduces(MPI_Comm w) {
  std::vector<CasePtr> cases;
  for (const char* kind : {"int64_sum", "double_max", "mat2x2_user_noncommutative", "double_int_maxloc"}) {
    const RedKind& k = red_kind(kind);
    const long count = static_cast<long>((1u << 20) / k.bytes) + 3;
    cases.push_back(allreduce_case(w, k, count, false));
    cases.push_back(allreduce_case(w, k, 2 * count + 1, true));
  }
  return cases;
}

}  // namespace

TEST_CASE("Once any rank says the node is busy, every rank leaves the window", "[busy]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Comm w = MPI_COMM_WORLD;
  BusySwitch mode(me == 0 ? 1 : 0);
  std::vector<CasePtr> cases = large_allreduces(w);
  {
    PvarCount switched("coll_busy_switches"), window("coll_allreduce_shared_memory");
    run_blocking(cases, 1);
    run_nonblocking(cases, 2);  // queued window calls behind one that left it
    const unsigned long long s = switched.grew(), n = window.grew();
    // Every call that chose the window went over messages, on every rank; none
    // under the call check.
    CHECK(s == (env_is("CHORUS_CHECK_COLL", "1") ? 0 : n));
    // From 3 ranks of one node on, the model takes the window for these sizes (2
    // ranks: the ring; ranks on several hosts have node windows, and no way out).
    if (p >= 3 && jobs::one_node() && !allreduce_forced() && !env_is("CHORUS_COLL_SHM", "off"))
      CHECK(n == 2 * cases.size());
  }
  // Small calls (one slot: no way out) between large ones, each kind of call that
  // may have one, and a root that is not rank 0 (its agreement shares the sync).
  std::vector<CasePtr> mixed;
  for (CasePtr& c : large_allreduces(w)) mixed.push_back(std::move(c));
  mixed.push_back(allreduce_case(w, red_kind("int_sum"), 5, false));
  mixed.push_back(reduce_case(w, red_kind("int64_sum"), (1 << 18) + 5, false, p - 1));
  mixed.push_back(reduce_case(w, red_kind("mat2x2_user_noncommutative"), (1 << 16) + 1, true, 0));
  mixed.push_back(reduce_scatter_block_case(w, red_kind("double_max"), (1 << 17) + 1, false));
  mixed.push_back(allgather_case(w, type_pair("double"), (1 << 16) + 7, false));
  mixed.push_back(allgather_case(w, type_pair("int"), (1 << 17) + 7, true));
  mixed.push_back(alltoall_case(w, type_pair("double"), (1 << 15) + 3, false));
  mixed.push_back(bcast_case(w, type_pair("int"), (1 << 19) + 1, p / 2));
  for (int seed = 3; seed < 6; ++seed) run_blocking(mixed, seed);
  run_nonblocking(mixed, 6);
}

TEST_CASE("With every rank off, calls keep to the window", "[busy]") {
  const MPI_Comm w = MPI_COMM_WORLD;
  BusySwitch mode(2);
  std::vector<CasePtr> cases = large_allreduces(w);
  PvarCount switched("coll_busy_switches");
  run_blocking(cases, 7);
  CHECK(switched.grew() == 0);
}
