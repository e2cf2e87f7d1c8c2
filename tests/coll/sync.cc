// What synchronizes: no rank leaves MPI_Barrier (blocking, non-blocking,
// persistent) before the last rank entered it, and a put made just before
// MPI_Win_fence is there for its target after the fence. Run without
// CHORUS_CHECK_COLL (meson: sync_np*), as users run: the check's own exchange
// synchronizes every collective and hid a barrier whose tokens were all sent on
// entry (the executor's send-ahead), so ranks left as soon as their peers entered.
//
// Each round one rank comes late (it sleeps first: the sleep only makes a broken
// barrier show; nothing here measures time) and writes a word of a shared window
// just before it enters; every rank reads that word after the barrier. Across
// hosts ([clock], tests/multihost/sync.sh: pretend hosts on one machine) ranks
// share no memory, so the late rank reads the machine's monotonic clock just
// before it enters, every rank just after it leaves, and no rank may have left
// before the late one entered.
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

constexpr useconds_t kLateUs = 20000;

// A word per rank of the node (every test rank runs on one node), in a shared window.
struct Words {
  MPI_Comm node = MPI_COMM_NULL;
  MPI_Win win = MPI_WIN_NULL;
  int* mine = nullptr;
  Words() {
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    MPI_OK(MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &mine, &win));
    *mine = -1;
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Win_sync(win));
    MPI_OK(MPI_Barrier(node));
  }
  ~Words() {
    MPI_Win_unlock_all(win);
    MPI_Win_free(&win);
    MPI_Comm_free(&node);
  }
  std::atomic_ref<int> of(int rank) {
    MPI_Aint size;
    int disp;
    int* p = nullptr;
    MPI_Win_shared_query(win, rank, &size, &disp, &p);
    return std::atomic_ref<int>(*p);
  }
};

// Rounds in which each rank in turn is late to `barrier` on `comm`: every rank
// must see the late one's word after it.
void late_rounds(Words& w, MPI_Comm comm, const std::function<void()>& barrier) {
  const int p = jobs::size(), me = jobs::rank();
  for (int round = 0; round < 2 * p; ++round) {
    const int late = round % p;
    if (me == late) {
      usleep(kLateUs);
      w.of(me).store(round, std::memory_order_release);
      MPI_OK(MPI_Win_sync(w.win));
    }
    barrier();
    MPI_OK(MPI_Win_sync(w.win));
    const int seen = w.of(late).load(std::memory_order_acquire);
    INFO("round " << round << ": rank " << late << " came late");
    CHECK(seen == round);
    // Nobody starts the next round (a new late rank's write) before every rank read.
    MPI_OK(MPI_Barrier(comm));
  }
}

}  // namespace

TEST_CASE("no rank leaves MPI_Barrier before the last one entered", "[sync][barrier][window]") {
  Words w;
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  SECTION("blocking, MPI_COMM_WORLD") {
    late_rounds(w, MPI_COMM_WORLD, [] { MPI_OK(MPI_Barrier(MPI_COMM_WORLD)); });
  }
  SECTION("blocking, a duplicate") {
    late_rounds(w, dup, [&] { MPI_OK(MPI_Barrier(dup)); });
  }
  SECTION("MPI_Ibarrier and MPI_Wait") {
    late_rounds(w, dup, [&] {
      MPI_Request r;
      MPI_OK(MPI_Ibarrier(dup, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    });
  }
  SECTION("MPI_Barrier_init, MPI_Start and MPI_Wait") {
    MPI_Request r;
    MPI_OK(MPI_Barrier_init(dup, MPI_INFO_NULL, &r));
    late_rounds(w, dup, [&] {
      MPI_OK(MPI_Start(&r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    });
    MPI_OK(MPI_Request_free(&r));
  }
  MPI_OK(MPI_Comm_free(&dup));
}

TEST_CASE("a put just before MPI_Win_fence is in its target's window after the fence", "[sync][rma][window]") {
  const int p = jobs::size(), me = jobs::rank();
  std::vector<int> mem(static_cast<std::size_t>(p), -1);
  MPI_Win win;
  MPI_OK(MPI_Win_create(mem.data(), static_cast<MPI_Aint>(mem.size() * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                        MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_fence(0, win));
  for (int round = 0; round < 2 * p; ++round) {
    const int late = round % p;
    if (me == late) {
      usleep(kLateUs);
      for (int t = 0; t < p; ++t) MPI_OK(MPI_Put(&round, 1, MPI_INT, t, late, 1, MPI_INT, win));
    }
    MPI_OK(MPI_Win_fence(0, win));
    INFO("round " << round << ": rank " << late << " put late");
    CHECK(mem[static_cast<std::size_t>(late)] == round);
    MPI_OK(MPI_Win_fence(0, win));
  }
  MPI_OK(MPI_Win_free(&win));
}

namespace {

// Nanoseconds of CLOCK_MONOTONIC: one clock for every process of one machine,
// whatever namespaces they run in.
std::int64_t now_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<std::int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace

TEST_CASE("no rank leaves MPI_Barrier before the last one entered, by the machine's clock", "[sync][barrier][clock]") {
  const int p = jobs::size(), me = jobs::rank();
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  auto rounds = [&](MPI_Comm comm, const std::function<void()>& barrier) {
    for (int round = 0; round < 2 * p; ++round) {
      const int late = round % p;
      std::int64_t entered = 0;
      if (me == late) {
        usleep(kLateUs);
        entered = now_ns();
      }
      barrier();
      const std::int64_t left = now_ns();
      // After the round: the late rank's entry and every rank's exit, compared.
      MPI_OK(MPI_Bcast(&entered, 1, MPI_INT64_T, late, comm));
      std::vector<std::int64_t> lefts(static_cast<std::size_t>(p));
      MPI_OK(MPI_Allgather(&left, 1, MPI_INT64_T, lefts.data(), 1, MPI_INT64_T, comm));
      for (int r = 0; r < p; ++r) {
        INFO("round " << round << ": rank " << r << " left " << (entered - lefts[static_cast<std::size_t>(r)])
                      << " ns before late rank " << late << " entered");
        CHECK(lefts[static_cast<std::size_t>(r)] >= entered);
      }
    }
  };
  SECTION("blocking") { rounds(dup, [&] { MPI_OK(MPI_Barrier(dup)); }); }
  SECTION("MPI_Ibarrier and MPI_Wait") {
    rounds(dup, [&] {
      MPI_Request r;
      MPI_OK(MPI_Ibarrier(dup, &r));
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    });
  }
  MPI_OK(MPI_Comm_free(&dup));
}
