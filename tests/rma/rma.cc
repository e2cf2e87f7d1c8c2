// One-sided communication: every kind of window, every synchronization mode,
// the operations with predefined and derived datatypes, attributes and errors.
// Written against the MPI C API only (runs on MPICH and Open MPI as well).
#include <sys/mman.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

constexpr int kN = 16;  // ints per rank in the small windows

// A window of kN ints per rank, made by MPI_Win_create over `mem`.
struct IntWindow {
  std::vector<int> mem;
  MPI_Win win = MPI_WIN_NULL;
  explicit IntWindow(int fill = 0, int n = kN) : mem(static_cast<std::size_t>(n), fill) {
    MPI_OK(MPI_Win_create(mem.data(), static_cast<MPI_Aint>(n * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                          MPI_COMM_WORLD, &win));
  }
  ~IntWindow() {
    if (win != MPI_WIN_NULL) MPI_Win_free(&win);
  }
};

// Every rank of MPI_COMM_WORLD on this node.
bool all_on_one_node() {
  MPI_Comm node;
  int node_size = 0;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_size(node, &node_size));
  MPI_OK(MPI_Comm_free(&node));
  return node_size == jobs::size();
}

}  // namespace

TEST_CASE("fence: put to the right neighbour, get from the left, accumulate to rank 0", "[rma][fence]") {
  const int me = jobs::rank(), n = jobs::size();
  IntWindow w(-1);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
  int v[2] = {me, me * 10};
  MPI_OK(MPI_Put(v, 2, MPI_INT, jobs::right(), 0, 2, MPI_INT, w.win));
  int one = me + 1;
  MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 5, 1, MPI_INT, MPI_SUM, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  CHECK(w.mem[0] == jobs::left());
  CHECK(w.mem[1] == jobs::left() * 10);
  // Rank 0's slot 5 started at -1 and got 1 + 2 + ... + n.
  if (me == 0) CHECK(w.mem[5] == -1 + n * (n + 1) / 2);
  // Read back what the left neighbour holds now.
  int got[2] = {0, 0};
  MPI_OK(MPI_Get(got, 2, MPI_INT, jobs::left(), 0, 2, MPI_INT, w.win));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  const int ll = (me - 2 + 2 * n) % n;
  CHECK(got[0] == ll);
  CHECK(got[1] == ll * 10);
}

TEST_CASE("fence: derived datatypes on both sides, and a large transfer", "[rma][fence][types]") {
  const int me = jobs::rank();
  IntWindow w(0);
  // Origin: 4 contiguous ints; target: every other int (a vector), at displacement 2.
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  MPI_OK(MPI_Win_fence(0, w.win));
  int src[4] = {me + 100, me + 200, me + 300, me + 400};
  MPI_OK(MPI_Put(src, 4, MPI_INT, jobs::right(), 2, 1, every_other, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  const int l = jobs::left();
  CHECK(w.mem[2] == l + 100);
  CHECK(w.mem[3] == 0);
  CHECK(w.mem[4] == l + 200);
  CHECK(w.mem[6] == l + 300);
  CHECK(w.mem[8] == l + 400);
  // Get the vector back into contiguous ints, and accumulate through it.
  int back[4] = {};
  MPI_OK(MPI_Get(back, 4, MPI_INT, jobs::right(), 2, 1, every_other, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  CHECK(back[0] == me + 100);
  CHECK(back[3] == me + 400);
  int ones[4] = {1, 1, 1, 1};
  MPI_OK(MPI_Accumulate(ones, 4, MPI_INT, jobs::right(), 2, 1, every_other, MPI_SUM, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  CHECK(w.mem[2] == l + 101);
  CHECK(w.mem[8] == l + 401);
  CHECK(w.mem[3] == 0);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  MPI_Type_free(&every_other);

  // 4 MiB each way (past every eager threshold).
  const int big = 1 << 20;
  std::vector<int> mem(static_cast<std::size_t>(big), -1), out(static_cast<std::size_t>(big));
  std::iota(out.begin(), out.end(), me * 7);
  MPI_Win bw;
  MPI_OK(MPI_Win_create(mem.data(), static_cast<MPI_Aint>(big) * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &bw));
  MPI_OK(MPI_Win_fence(0, bw));
  MPI_OK(MPI_Put(out.data(), big, MPI_INT, jobs::right(), 0, big, MPI_INT, bw));
  MPI_OK(MPI_Win_fence(0, bw));
  CHECK(mem[0] == l * 7);
  CHECK(mem[static_cast<std::size_t>(big - 1)] == l * 7 + big - 1);
  std::vector<int> in(static_cast<std::size_t>(big), 0);
  MPI_OK(MPI_Get(in.data(), big, MPI_INT, jobs::left(), 0, big, MPI_INT, bw));
  MPI_OK(MPI_Win_fence(0, bw));
  const int ll = (me - 2 + 2 * jobs::size()) % jobs::size();
  CHECK(in[0] == ll * 7);
  CHECK(in[static_cast<std::size_t>(big - 1)] == ll * 7 + big - 1);
  MPI_OK(MPI_Win_free(&bw));
}

TEST_CASE("post/start/complete/wait: a ring of puts", "[rma][pscw]") {
  const int me = jobs::rank(), n = jobs::size();
  IntWindow w(0);
  MPI_Group world, origin, target;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int l = jobs::left(), r = jobs::right();
  MPI_Group_incl(world, 1, &l, &origin);
  MPI_Group_incl(world, 1, &r, &target);
  for (int round = 0; round < 5; ++round) {
    MPI_OK(MPI_Win_post(origin, 0, w.win));
    MPI_OK(MPI_Win_start(target, 0, w.win));
    int v = me * 100 + round;
    MPI_OK(MPI_Put(&v, 1, MPI_INT, r, round, 1, MPI_INT, w.win));
    MPI_OK(MPI_Win_complete(w.win));
    if (round % 2) {
      int flag = 0;
      MPI_POLL(flag, MPI_Win_test(w.win, &flag));
    } else {
      MPI_OK(MPI_Win_wait(w.win));
    }
    CHECK(w.mem[static_cast<std::size_t>(round)] == l * 100 + round);
  }
  (void)n;
  MPI_Group_free(&origin);
  MPI_Group_free(&target);
  MPI_Group_free(&world);
}

TEST_CASE("lock: an exclusive lock makes read-modify-write atomic; fetch_and_op and compare_and_swap",
          "[rma][lock]") {
  const int me = jobs::rank(), n = jobs::size();
  IntWindow w(0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  // Every rank adds 1 to rank 0's slot 0 ten times with get + put under an
  // exclusive lock: without mutual exclusion updates would be lost.
  for (int i = 0; i < 10; ++i) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
    int v = 0;
    MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win));
    MPI_OK(MPI_Win_flush(0, w.win));
    ++v;
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win));
    MPI_OK(MPI_Win_unlock(0, w.win));
  }
  // Fetch-and-add on slot 1 under shared locks: every fetched value is distinct.
  int fetched = -1, one = 1;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
  MPI_OK(MPI_Fetch_and_op(&one, &fetched, MPI_INT, 0, 1, MPI_SUM, w.win));
  MPI_OK(MPI_Win_unlock(0, w.win));
  std::vector<int> all(static_cast<std::size_t>(n));
  MPI_OK(MPI_Allgather(&fetched, 1, MPI_INT, all.data(), 1, MPI_INT, MPI_COMM_WORLD));
  std::vector<int> sorted = all;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < n; ++i) CHECK(sorted[static_cast<std::size_t>(i)] == i);
  // Compare-and-swap on slot 2: exactly one rank swaps 0 for its rank + 1.
  int want = me + 1, cmp = 0, old = -1;
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
  MPI_OK(MPI_Compare_and_swap(&want, &cmp, &old, MPI_INT, 0, 2, w.win));
  MPI_OK(MPI_Win_unlock(0, w.win));
  int swapped = old == 0 ? 1 : 0, total = 0;
  MPI_OK(MPI_Allreduce(&swapped, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(total == 1);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 0) {
    CHECK(w.mem[0] == 10 * n);
    CHECK(w.mem[1] == n);
    CHECK(w.mem[2] >= 1);
  }
}

TEST_CASE("lock_all: request-based operations, flush, and a target that sits in a barrier", "[rma][lock]") {
  const int me = jobs::rank(), n = jobs::size();
  IntWindow w(0, kN * 8);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me != 0) {
    // Rank 0 is in MPI_Barrier all along: its progress must serve these.
    MPI_OK(MPI_Win_lock_all(0, w.win));
    int v = me;
    MPI_Request rq[2];
    MPI_OK(MPI_Rput(&v, 1, MPI_INT, 0, me, 1, MPI_INT, w.win, &rq[0]));
    MPI_OK(MPI_Win_flush(0, w.win));
    int got = -1;
    MPI_OK(MPI_Rget(&got, 1, MPI_INT, 0, me, 1, MPI_INT, w.win, &rq[1]));
    MPI_OK(MPI_Waitall(2, rq, MPI_STATUSES_IGNORE));
    CHECK(got == me);
    int acc = 1, prev = -1;
    MPI_Request ra;
    MPI_OK(MPI_Rget_accumulate(&acc, 1, MPI_INT, &prev, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, w.win, &ra));
    MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    CHECK(prev >= 0);
    MPI_OK(MPI_Raccumulate(&acc, 1, MPI_INT, 0, kN, 1, MPI_INT, MPI_SUM, w.win, &ra));
    MPI_OK(MPI_Wait(&ra, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush_local_all(w.win));
    MPI_OK(MPI_Win_unlock_all(w.win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 0) {
    for (int r = 1; r < n; ++r) CHECK(w.mem[static_cast<std::size_t>(r)] == r);
    CHECK(w.mem[0] == n - 1);
    CHECK(w.mem[kN] == n - 1);
  }
}

TEST_CASE("MPI_Win_allocate and MPI_Win_allocate_shared: memory, shared_query, loads and stores", "[rma][shared]") {
  const int me = jobs::rank(), n = jobs::size();
  int* base = nullptr;
  MPI_Win w;
  MPI_OK(MPI_Win_allocate(kN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w));
  REQUIRE(base != nullptr);
  base[0] = -5;
  MPI_OK(MPI_Win_fence(0, w));
  int v = me;
  MPI_OK(MPI_Put(&v, 1, MPI_INT, jobs::right(), 3, 1, MPI_INT, w));
  MPI_OK(MPI_Win_fence(0, w));
  CHECK(base[3] == jobs::left());
  CHECK(base[0] == -5);
  int flavor_flag = 0, *flavor = nullptr;
  MPI_OK(MPI_Win_get_attr(w, MPI_WIN_CREATE_FLAVOR, &flavor, &flavor_flag));
  CHECK(flavor_flag == 1);
  CHECK(*flavor == MPI_WIN_FLAVOR_ALLOCATE);
  MPI_OK(MPI_Win_free(&w));

  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int nr, nn;
  MPI_Comm_rank(node, &nr);
  MPI_Comm_size(node, &nn);
  // Rank 1 of the node has no memory; the others kN ints.
  const MPI_Aint mine = nr == 1 ? 0 : kN * static_cast<MPI_Aint>(sizeof(int));
  int* sbase = nullptr;
  MPI_OK(MPI_Win_allocate_shared(mine, sizeof(int), MPI_INFO_NULL, node, &sbase, &w));
  MPI_OK(MPI_Win_lock_all(0, w));
  if (mine) for (int i = 0; i < kN; ++i) sbase[i] = nr * 1000 + i;
  MPI_OK(MPI_Win_sync(w));
  MPI_OK(MPI_Barrier(node));
  MPI_OK(MPI_Win_sync(w));
  for (int r = 0; r < nn; ++r) {
    MPI_Aint size = -1;
    int du = 0;
    int* p = nullptr;
    MPI_OK(MPI_Win_shared_query(w, r, &size, &du, &p));
    CHECK(du == static_cast<int>(sizeof(int)));
    if (r == 1) {
      CHECK(size == 0);
      continue;
    }
    CHECK(size == kN * static_cast<MPI_Aint>(sizeof(int)));
    REQUIRE(p != nullptr);
    CHECK(p[0] == r * 1000);
    CHECK(p[kN - 1] == r * 1000 + kN - 1);
  }
  // Contiguous by default: rank 2's memory follows rank 0's (rank 1 has none).
  if (nn > 2) {
    MPI_Aint s;
    int du;
    int *p0, *p2;
    MPI_OK(MPI_Win_shared_query(w, 0, &s, &du, &p0));
    MPI_OK(MPI_Win_shared_query(w, 2, &s, &du, &p2));
    CHECK(p2 == p0 + kN);
  }
  MPI_OK(MPI_Win_unlock_all(w));
  MPI_OK(MPI_Win_free(&w));
  MPI_Comm_free(&node);
  (void)n;
}

TEST_CASE("dynamic windows: attach, put and get at addresses, detach", "[rma][dynamic]") {
  const int me = jobs::rank();
  MPI_Win w;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  std::vector<long> mem(8, 0);
  MPI_OK(MPI_Win_attach(w, mem.data(), 8 * sizeof(long)));
  MPI_Aint mine, right_addr;
  MPI_OK(MPI_Get_address(mem.data(), &mine));
  MPI_OK(MPI_Sendrecv(&mine, 1, MPI_AINT, jobs::left(), 0, &right_addr, 1, MPI_AINT, jobs::right(), 0,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Win_fence(0, w));
  long v = 1000 + me;
  MPI_OK(MPI_Put(&v, 1, MPI_LONG, jobs::right(), MPI_Aint_add(right_addr, 2 * sizeof(long)), 1, MPI_LONG, w));
  MPI_OK(MPI_Win_fence(0, w));
  CHECK(mem[2] == 1000 + jobs::left());
  // Outside the attached memory: the target refuses it and the unlock says so.
  MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, jobs::right(), 0, w));
  MPI_OK(MPI_Put(&v, 1, MPI_LONG, jobs::right(), MPI_Aint_add(right_addr, 64 * sizeof(long)), 1, MPI_LONG, w));
  int rc = MPI_Win_unlock(jobs::right(), w);
  CHECK(jobs::error_class(rc) == MPI_ERR_RMA_RANGE);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_detach(w, mem.data()));
  CHECK(jobs::error_class(MPI_Win_detach(w, mem.data())) == MPI_ERR_RMA_ATTACH);
  MPI_OK(MPI_Win_free(&w));
}

namespace {
int g_win_errors = 0;
MPI_Win g_seen = MPI_WIN_NULL;
void count_win_error(MPI_Win* w, int* /*code*/, ...) {
  ++g_win_errors;
  g_seen = *w;
}
int g_deleted = 0;
int note_delete(MPI_Win, int, void*, void*) {
  ++g_deleted;
  return MPI_SUCCESS;
}
}  // namespace

TEST_CASE("windows: attributes, names, info, group, keyvals, error handlers and the errors", "[rma][errors]") {
  const int n = jobs::size();
  IntWindow w(0);
  void* base = nullptr;
  MPI_Aint* size = nullptr;
  int *du = nullptr, *model = nullptr, flag = 0;
  MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_BASE, &base, &flag));
  CHECK((flag == 1 && base == w.mem.data()));
  MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_SIZE, &size, &flag));
  CHECK(*size == static_cast<MPI_Aint>(kN * sizeof(int)));
  MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_DISP_UNIT, &du, &flag));
  CHECK(*du == static_cast<int>(sizeof(int)));
  MPI_OK(MPI_Win_get_attr(w.win, MPI_WIN_MODEL, &model, &flag));
  CHECK(*model == MPI_WIN_UNIFIED);

  MPI_OK(MPI_Win_set_name(w.win, "halo"));
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_OK(MPI_Win_get_name(w.win, name, &len));
  CHECK(std::string(name) == "halo");

  MPI_Group g;
  int gs = 0;
  MPI_OK(MPI_Win_get_group(w.win, &g));
  MPI_Group_size(g, &gs);
  CHECK(gs == n);
  MPI_Group_free(&g);

  MPI_Info info;
  MPI_OK(MPI_Win_get_info(w.win, &info));
  char value[MPI_MAX_INFO_VAL];
  int vflag = 0;
  MPI_OK(MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL - 1, value, &vflag));
  CHECK(vflag == 1);
  MPI_Info_free(&info);

  int key;
  MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, note_delete, &key, nullptr));
  static int payload = 7;
  MPI_OK(MPI_Win_set_attr(w.win, key, &payload));
  int* got = nullptr;
  MPI_OK(MPI_Win_get_attr(w.win, key, &got, &flag));
  CHECK((flag == 1 && got == &payload));

  // Errors go to the window's handler, which sees the window.
  MPI_Errhandler eh;
  MPI_OK(MPI_Win_create_errhandler(count_win_error, &eh));
  MPI_OK(MPI_Win_set_errhandler(w.win, eh));
  int v = 1;
  g_win_errors = 0;
  // No epoch is open: MPI_ERR_RMA_SYNC.
  CHECK(jobs::error_class(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win)) == MPI_ERR_RMA_SYNC);
  CHECK(g_win_errors == 1);
  CHECK(g_seen == w.win);
  MPI_OK(MPI_Win_fence(0, w.win));
  CHECK(jobs::error_class(MPI_Put(&v, 1, MPI_INT, 0, kN, 1, MPI_INT, w.win)) == MPI_ERR_RMA_RANGE);
  CHECK(jobs::error_class(MPI_Put(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, w.win)) == MPI_ERR_DISP);
  CHECK(jobs::error_class(MPI_Put(&v, 1, MPI_INT, n, 0, 1, MPI_INT, w.win)) == MPI_ERR_RANK);
  CHECK(jobs::error_class(MPI_Put(&v, 2, MPI_INT, 0, 0, 1, MPI_INT, w.win)) == MPI_ERR_TYPE);
  CHECK(jobs::error_class(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_FLOAT, MPI_SUM, w.win)) == MPI_ERR_TYPE);
  CHECK(jobs::error_class(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_NO_OP, w.win)) == MPI_ERR_OP);
  CHECK(jobs::error_class(MPI_Win_fence(12345, w.win)) == MPI_ERR_ASSERT);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  CHECK(jobs::error_class(MPI_Win_lock(99, 0, 0, w.win)) == MPI_ERR_LOCKTYPE);
  CHECK(jobs::error_class(MPI_Win_unlock(0, w.win)) == MPI_ERR_RMA_SYNC);
  CHECK(jobs::error_class(MPI_Win_complete(w.win)) == MPI_ERR_RMA_SYNC);
  CHECK(jobs::error_class(MPI_Win_wait(w.win)) == MPI_ERR_RMA_SYNC);
  CHECK(jobs::error_class(MPI_Win_shared_query(w.win, 0, size, du, &base)) == MPI_ERR_RMA_FLAVOR);
  CHECK(g_win_errors == 13);
  // A communicator's handler does not fit a window.
  MPI_Errhandler ceh;
  MPI_Comm_get_errhandler(MPI_COMM_WORLD, &ceh);
  MPI_Errhandler_free(&ceh);
  MPI_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
  MPI_Errhandler_free(&eh);
  // An invalid window goes to MPI_COMM_WORLD's handler.
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    CHECK(jobs::error_class(MPI_Win_fence(0, MPI_WIN_NULL)) == MPI_ERR_WIN);
  }
  g_deleted = 0;
  MPI_OK(MPI_Win_free(&w.win));
  CHECK(g_deleted == 1);
  CHECK(w.win == MPI_WIN_NULL);
  MPI_OK(MPI_Win_free_keyval(&key));
}

TEST_CASE("epochs do not mix: lock after fence, lock in post/start, CAS types", "[rma][errors]") {
  IntWindow w(0);
  MPI_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
  int v = 1, got = 0;
  // A fence opens an epoch; a lock with nothing issued in it ends it.
  MPI_OK(MPI_Win_fence(0, w.win));
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win));
  MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win));
  MPI_OK(MPI_Win_unlock(0, w.win));
  CHECK(jobs::error_class(MPI_Get(&got, 1, MPI_INT, 0, 0, 1, MPI_INT, w.win)) == MPI_ERR_RMA_SYNC);
  // Issued in a fence epoch: no lock until the next fence.
  MPI_OK(MPI_Win_fence(0, w.win));
  MPI_OK(MPI_Put(&v, 1, MPI_INT, jobs::right(), 1, 1, MPI_INT, w.win));
  CHECK(jobs::error_class(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win)) == MPI_ERR_RMA_SYNC);
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
  // In post/start: no lock.
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_OK(MPI_Win_post(world, 0, w.win));
  MPI_OK(MPI_Win_start(world, 0, w.win));
  CHECK(jobs::error_class(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w.win)) == MPI_ERR_RMA_SYNC);
  CHECK(jobs::error_class(MPI_Win_lock_all(0, w.win)) == MPI_ERR_RMA_SYNC);
  MPI_OK(MPI_Win_complete(w.win));
  MPI_OK(MPI_Win_wait(w.win));
  MPI_Group_free(&world);
  // Compare-and-swap takes integers, bytes, characters and booleans, not floating point.
  MPI_OK(MPI_Win_lock_all(0, w.win));
  float f = 1, fc = 0, fr = 0;
  CHECK(jobs::error_class(MPI_Compare_and_swap(&f, &fc, &fr, MPI_FLOAT, 0, 0, w.win)) == MPI_ERR_TYPE);
  long long l = 1, lc = 0, lr = 0;
  MPI_OK(MPI_Compare_and_swap(&l, &lc, &lr, MPI_LONG_LONG, 0, 2, w.win));
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
}

TEST_CASE("large operations: their data travels on its own, into the window when it can", "[rma][large]") {
  const int me = jobs::rank();
  const int big = 1 << 18;  // 1 MiB of ints, past the size that sends the data separately
  std::vector<int> mem(static_cast<std::size_t>(big), 0), src(static_cast<std::size_t>(big));
  MPI_Win w;
  MPI_OK(MPI_Win_create(mem.data(), static_cast<MPI_Aint>(big) * 4, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  // Accumulate into the right neighbour three times, reusing the origin buffer after
  // each flush_local, then a put from a request that completes locally.
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, jobs::right(), 0, w));
  for (int round = 1; round <= 3; ++round) {
    for (int i = 0; i < big; ++i) src[static_cast<std::size_t>(i)] = round * (me + 1);
    MPI_OK(MPI_Accumulate(src.data(), big, MPI_INT, jobs::right(), 0, big, MPI_INT, MPI_SUM, w));
    MPI_OK(MPI_Win_flush_local(jobs::right(), w));
  }
  MPI_OK(MPI_Win_unlock(jobs::right(), w));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  const int l = jobs::left() + 1;
  CHECK(mem[0] == 6 * l);
  CHECK(mem[static_cast<std::size_t>(big - 1)] == 6 * l);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, jobs::right(), 0, w));
  for (int i = 0; i < big; ++i) src[static_cast<std::size_t>(i)] = me * 7 + i;
  MPI_Request rq;
  MPI_OK(MPI_Rput(src.data(), big - 1, MPI_INT, jobs::right(), 1, big - 1, MPI_INT, w, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  std::fill(src.begin(), src.end(), -1);  // complete locally: the buffer is free again
  MPI_OK(MPI_Win_unlock(jobs::right(), w));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(mem[0] == 6 * l);
  CHECK(mem[1] == jobs::left() * 7);
  CHECK(mem[static_cast<std::size_t>(big - 1)] == jobs::left() * 7 + big - 2);
  MPI_OK(MPI_Win_free(&w));
}

TEST_CASE("dynamic windows: a refused operation is told to its own origin only; types starting past their base",
          "[rma][dynamic]") {
  const int me = jobs::rank(), n = jobs::size();
  MPI_Win w;
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Win_set_errhandler(w, MPI_ERRORS_RETURN));
  std::vector<int> mem(8, 0);
  MPI_OK(MPI_Win_attach(w, mem.data(), 8 * sizeof(int)));
  MPI_Aint base = 0;
  MPI_OK(MPI_Get_address(mem.data(), &base));
  MPI_OK(MPI_Bcast(&base, 1, MPI_AINT, 0, MPI_COMM_WORLD));  // rank 0's memory
  // A type whose only data sits 8 bytes past its start: aimed 8 bytes before the
  // attached memory, it touches only attached bytes.
  int bl = 1;
  MPI_Aint disp = 8;
  MPI_Datatype past;
  MPI_OK(MPI_Type_create_hindexed(1, &bl, &disp, MPI_INT, &past));
  MPI_OK(MPI_Type_commit(&past));
  int v = 100 + me;
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 1 || n == 1) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, base - 8, 1, past, w));
    MPI_OK(MPI_Win_unlock(0, w));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 0) CHECK(mem[0] == 100 + (n == 1 ? 0 : 1));
  // Rank 1 puts out of range; rank 2's own flush must still succeed, and rank 1's
  // unlock reports the refusal.
  int rc2 = MPI_SUCCESS;
  if (me == 1) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, base + 64 * static_cast<MPI_Aint>(sizeof(int)), 1, MPI_INT, w));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 2) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, base + 4, 1, MPI_INT, w));
    rc2 = MPI_Win_flush(0, w);
    MPI_OK(MPI_Win_unlock(0, w));
    CHECK(rc2 == MPI_SUCCESS);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 1) CHECK(jobs::error_class(MPI_Win_unlock(0, w)) == MPI_ERR_RMA_RANGE);  // told to its origin
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Type_free(&past);
  MPI_OK(MPI_Win_detach(w, mem.data()));
  MPI_OK(MPI_Win_free(&w));
}

// MPICH's rma/at_complete. A target that stores into its window right after its
// MPI_Win_fence or MPI_Win_wait returns must not change what an origin's get of
// that epoch reads, though the origin may not have taken the answer yet: the get
// is done at the target once the fence or wait returns. Gets under a lock answer
// straight from the window (the origin's unlock or flush waits for them), so this
// also checks that only those do. 64 KiB and more, so the answer is read from
// the target's memory after the target's call returned.
TEST_CASE("a get in a fence or post/wait epoch reads the window as it was, however late it lands",
          "[rma][fence][pscw]") {
  const int me = jobs::rank(), n = jobs::size();
  if (n < 2) return;
  constexpr int kInts = 100000;
  IntWindow w(1, kInts);
  std::vector<int> got(kInts, 0);
  MPI_Group world, origin, target;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  const int zero = 0, one = 1;
  MPI_OK(MPI_Group_incl(world, 1, &zero, &origin));
  MPI_OK(MPI_Group_incl(world, 1, &one, &target));
  int wrong = 0;
  for (int round = 0; round < 20; ++round) {
    for (int pscw = 0; pscw < 2; ++pscw) {
      std::fill(got.begin(), got.end(), 0);
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
      std::fill(w.mem.begin(), w.mem.end(), 1);
      MPI_OK(MPI_Win_unlock(me, w.win));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      if (me == 0) {
        if (pscw) MPI_OK(MPI_Win_start(target, 0, w.win));
        else MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
        MPI_OK(MPI_Get(got.data(), kInts, MPI_INT, 1, 0, kInts, MPI_INT, w.win));
        if (pscw) MPI_OK(MPI_Win_complete(w.win));
        else MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
        wrong += static_cast<int>(std::count_if(got.begin(), got.end(), [](int v) { return v != 1; }));
      } else {
        if (pscw && me == 1) {
          MPI_OK(MPI_Win_post(origin, 0, w.win));
          MPI_OK(MPI_Win_wait(w.win));
        } else if (!pscw) {
          MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, w.win));
          MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w.win));
        }
        if (me == 1) {  // at once, under a lock of its own
          MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, me, 0, w.win));
          std::fill(w.mem.begin(), w.mem.end(), 2);
          MPI_OK(MPI_Win_unlock(me, w.win));
        }
      }
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
  }
  CHECK(wrong == 0);
  MPI_Group_free(&origin);
  MPI_Group_free(&target);
  MPI_Group_free(&world);
}

// A get under a shared lock is answered straight from the window. The target must
// not pass the lock on (here to its own exclusive lock, queued behind the
// origin's) before the origin has read the answer: the target stores into the
// window as soon as it holds the lock. The origin's lock comes first, so it must
// read only old values. Large gets (16 MiB) take long enough to read for new
// values to show.
TEST_CASE("a lock is passed on only after the gets of its holder have been read", "[rma][lock]") {
  const int me = jobs::rank(), n = jobs::size();
  if (n < 2) return;
  constexpr int kInts = 4 << 20;
  IntWindow w(1, me == 1 ? kInts : 1);
  std::vector<int> got(me == 0 ? kInts : 0);
  int mixed = 0;
  for (int round = 0; round < 8; ++round) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
    std::fill(w.mem.begin(), w.mem.end(), 1);
    MPI_OK(MPI_Win_unlock(me, w.win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
      // The shared lock is held before the target asks for its exclusive one:
      // MPI_Win_lock may return before it is granted, a get and its flush not.
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, w.win));
      MPI_OK(MPI_Get(got.data(), 1, MPI_INT, 1, 0, 1, MPI_INT, w.win));
      MPI_OK(MPI_Win_flush(1, w.win));
      int token = round;
      MPI_OK(MPI_Send(&token, 1, MPI_INT, 1, 77, MPI_COMM_WORLD));
      MPI_OK(MPI_Get(got.data(), kInts, MPI_INT, 1, 0, kInts, MPI_INT, w.win));
      MPI_OK(MPI_Win_unlock(1, w.win));
      const auto ones = std::count(got.begin(), got.end(), 1);
      if (ones != kInts) ++mixed;  // the exclusive lock waits for this one: all old values
    } else if (me == 1) {
      int token = -1;
      MPI_OK(MPI_Recv(&token, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
      std::fill(w.mem.begin(), w.mem.end(), 2);
      MPI_OK(MPI_Win_unlock(me, w.win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
  CHECK(mixed == 0);
}

#ifdef CHORUS
// MPI_Win_lock of another rank's created window returns before the lock is
// granted: the operations sent as messages after it wait at the target, behind
// the request, until the lock is theirs (lock, put, unlock: one round trip). Here
// rank 0 holds its own window's exclusive lock while rank 1 locks it too, puts,
// gets and says so; the put must not land before rank 0 lets go, and the get
// (small: a message too, though it could read rank 0's memory directly once the
// lock is granted) reads what rank 0 stored while it held the lock. Ranks 0 and 1 on one
// node: a small put to another node may go through UCX's remote memory access
// (CHORUS_RMA_RDMA), which waits for the grant.
TEST_CASE("a lock granted lazily: operations wait at the target until it is granted", "[rma][lock]") {
  const int me = jobs::rank(), n = jobs::size();
  if (n < 2) return;
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int leader = me;  // the lowest world rank of this rank's node
  MPI_OK(MPI_Bcast(&leader, 1, MPI_INT, 0, node));
  MPI_OK(MPI_Comm_free(&node));
  std::vector<int> leaders(static_cast<std::size_t>(n));
  MPI_OK(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, MPI_COMM_WORLD));
  if (leaders[0] != leaders[1]) {
    if (me == 0) WARN("SKIP: ranks 0 and 1 are on different nodes");
    return;
  }
  IntWindow w(1, 4);
  std::fill(w.mem.begin(), w.mem.end(), 0);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  for (int round = 1; round <= 4; ++round) {
    if (me == 0) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));  // on its own window: granted on return
      const int go = round;
      MPI_OK(MPI_Send(&go, 1, MPI_INT, 1, 78, MPI_COMM_WORLD));
      // Rank 1's MPI_Win_lock and MPI_Put return though this rank holds the lock.
      int said = 0, flag = 0;
      const double until = MPI_Wtime() + 20.0;
      while (!flag && MPI_Wtime() < until) MPI_OK(MPI_Iprobe(1, 79, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
      CHECK(flag == 1);
      if (flag) {
        MPI_OK(MPI_Recv(&said, 1, MPI_INT, 1, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        // Serve the window a while: the put is here and waits for the lock.
        const double t = MPI_Wtime() + 0.02;
        while (MPI_Wtime() < t) MPI_OK(MPI_Iprobe(1, 80, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        CHECK(said == round);
        CHECK(w.mem[1] == round - 1);  // not yet
      }
      w.mem[2] = 10 * round;  // under its own exclusive lock
      MPI_OK(MPI_Win_unlock(0, w.win));
    } else if (me == 1) {
      int go = 0;
      MPI_OK(MPI_Recv(&go, 1, MPI_INT, 0, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      int got = -1;
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
      MPI_OK(MPI_Put(&go, 1, MPI_INT, 0, 1, 1, MPI_INT, w.win));
      MPI_OK(MPI_Get(&got, 1, MPI_INT, 0, 2, 1, MPI_INT, w.win));
      MPI_OK(MPI_Send(&go, 1, MPI_INT, 0, 79, MPI_COMM_WORLD));
      MPI_OK(MPI_Win_unlock(0, w.win));  // waits for rank 0's unlock, then the put lands
      CHECK(got == 10 * round);
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) CHECK(w.mem[1] == round);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  }
}
#endif

// MPI_Win_allocate and MPI_Win_allocate_shared windows whose ranks share a node
// take puts and gets as the origin's own copies into the target's memory (no
// message): every synchronization mode must still order them as MPI says. The
// same checks on an MPI_Win_create window, whose operations are messages.
TEST_CASE("every window flavor: puts and gets in every synchronization mode, with derived types",
          "[rma][shared][flavors]") {
  const int me = jobs::rank(), n = jobs::size();
  constexpr int kInts = 64;
  MPI_Datatype every_other;  // kInts / 2 ints, every other one
  MPI_OK(MPI_Type_vector(kInts / 2, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  std::vector<int> own(kInts);
  for (const char* flavor : {"create", "allocate", "allocate_shared"}) {
    INFO("window flavor " << flavor);
    MPI_Win win;
    int* mem = nullptr;
    const MPI_Aint bytes = kInts * sizeof(int);
    if (flavor[0] == 'c') {
      mem = own.data();
      MPI_OK(MPI_Win_create(mem, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else if (std::strcmp(flavor, "allocate") == 0) {
      MPI_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else {
      MPI_Comm node;
      MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
      int node_size = 0;
      MPI_OK(MPI_Comm_size(node, &node_size));
      MPI_OK(MPI_Comm_free(&node));
      if (node_size != n) continue;  // ranks on several nodes: no shared window of them all
      MPI_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    }
    auto fill_own = [&](int v) {  // this rank's window, under its own exclusive lock
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
      for (int i = 0; i < kInts; ++i) mem[i] = v;
      MPI_OK(MPI_Win_unlock(me, win));
    };
    auto expect_from_left = [&](int base) {  // what the left neighbour put: base + its rank * 100 + i
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
      int wrong = 0;
      for (int i = 0; i < kInts; ++i) wrong += mem[i] != base + jobs::left() * 100 + i;
      MPI_OK(MPI_Win_unlock(me, win));
      CHECK(wrong == 0);
    };
    std::vector<int> src(kInts), got(kInts, -1);
    auto make_src = [&](int base) {
      for (int i = 0; i < kInts; ++i) src[static_cast<std::size_t>(i)] = base + me * 100 + i;
    };
    // fence: contiguous put to the right, then in the next epoch a strided get back.
    fill_own(-1);
    make_src(1000);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Put(src.data(), kInts, MPI_INT, jobs::right(), 0, kInts, MPI_INT, win));
    MPI_OK(MPI_Win_fence(0, win));
    expect_from_left(1000);
    MPI_OK(MPI_Win_fence(0, win));
    MPI_OK(MPI_Get(got.data(), 1, every_other, jobs::right(), 0, 1, every_other, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, win));
    for (int i = 0; i < kInts; ++i)
      CHECK(got[static_cast<std::size_t>(i)] == (i % 2 == 0 ? 1000 + me * 100 + i : -1));
    // post/start/complete/wait: a strided put into every other int.
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_own(7);
    make_src(2000);
    MPI_Group world, to, from;
    MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    int r = jobs::right(), l = jobs::left();
    MPI_OK(MPI_Group_incl(world, 1, &r, &to));
    MPI_OK(MPI_Group_incl(world, 1, &l, &from));
    MPI_OK(MPI_Win_post(from, 0, win));
    MPI_OK(MPI_Win_start(to, 0, win));
    MPI_OK(MPI_Put(src.data(), 1, every_other, jobs::right(), 0, 1, every_other, win));
    MPI_OK(MPI_Win_complete(win));
    MPI_OK(MPI_Win_wait(win));
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
    for (int i = 0; i < kInts; ++i) CHECK(mem[i] == (i % 2 == 0 ? 2000 + jobs::left() * 100 + i : 7));
    MPI_OK(MPI_Win_unlock(me, win));
    MPI_OK(MPI_Group_free(&to));
    MPI_OK(MPI_Group_free(&from));
    MPI_OK(MPI_Group_free(&world));
    // lock_all: request-based put to the right, flush, request-based get back.
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_own(0);
    make_src(3000);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    MPI_OK(MPI_Win_lock_all(0, win));
    MPI_Request rq;
    MPI_OK(MPI_Rput(src.data(), kInts, MPI_INT, jobs::right(), 0, kInts, MPI_INT, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_flush(jobs::right(), win));
    std::fill(got.begin(), got.end(), -1);
    MPI_OK(MPI_Rget(got.data(), kInts, MPI_INT, jobs::right(), 0, kInts, MPI_INT, win, &rq));
    MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_unlock_all(win));
    int wrong = 0;
    for (int i = 0; i < kInts; ++i) wrong += got[static_cast<std::size_t>(i)] != 3000 + me * 100 + i;
    CHECK(wrong == 0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    expect_from_left(3000);
    // An exclusive lock makes get + put a read-modify-write: no update is lost.
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_own(0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    for (int k = 0; k < 20; ++k) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      int v = -1;
      MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 5, 1, MPI_INT, win));
      MPI_OK(MPI_Win_flush(0, win));
      ++v;
      MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 5, 1, MPI_INT, win));
      MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK(mem[5] == 20 * n);
      MPI_OK(MPI_Win_unlock(0, win));
    }
    // Accumulates under shared locks stay atomic: fetch-and-add hands out every
    // value once, strided accumulates and get_accumulates add up, one
    // compare-and-swap wins.
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    fill_own(0);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    constexpr int kAdds = 50;
    std::vector<int> fetched;
    std::vector<int> twos(kInts, 2), old(kInts, -1);
    MPI_OK(MPI_Win_lock_all(0, win));
    for (int k = 0; k < kAdds; ++k) {
      int one = 1, f = -1;
      MPI_OK(MPI_Fetch_and_op(&one, &f, MPI_INT, 0, 0, MPI_SUM, win));
      MPI_OK(MPI_Win_flush(0, win));
      fetched.push_back(f);
      MPI_OK(MPI_Accumulate(twos.data(), 1, every_other, 0, 0, 1, every_other, MPI_SUM, win));
      MPI_OK(MPI_Get_accumulate(twos.data(), 2, MPI_INT, old.data(), 2, MPI_INT, 0, 1, 2, MPI_INT, MPI_SUM, win));
    }
    int want = me + 1, cmp = 0, was = -1;
    MPI_OK(MPI_Compare_and_swap(&want, &cmp, &was, MPI_INT, 0, 3, win));
    MPI_OK(MPI_Win_unlock_all(win));
    std::vector<int> all(static_cast<std::size_t>(n * kAdds));
    MPI_OK(MPI_Allgather(fetched.data(), kAdds, MPI_INT, all.data(), kAdds, MPI_INT, MPI_COMM_WORLD));
    std::sort(all.begin(), all.end());
    int repeated = 0;  // a fetch-and-add that saw the value another one saw: an update lost
    for (std::size_t i = 1; i < all.size(); ++i) repeated += all[i] == all[i - 1];
    CHECK(repeated == 0);
    int swapped = was == 0 ? 1 : 0, winners = 0;
    MPI_OK(MPI_Allreduce(&swapped, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    CHECK(winners == 1);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (me == 0) {
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
      CHECK(mem[0] == 3 * kAdds * n);                 // fetch-and-add 1 and accumulate 2, each call
      CHECK(mem[1] == 2 * kAdds * n);                 // get_accumulate's first int
      CHECK(mem[2] == 4 * kAdds * n);  // the accumulate's second int, and get_accumulate's second
      CHECK(mem[3] >= 1);
      CHECK(mem[4] == 2 * kAdds * n);
      CHECK(mem[5] == 0);
      MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_OK(MPI_Win_free(&win));
  }
  MPI_OK(MPI_Type_free(&every_other));
}

// Operations on a window in shared memory complete at once, with no wait; a rank
// that polls a flag in another rank's window must still serve what others ask of
// it (here: a lock on its own part) or both wait forever. Without progress on that
// path this hung on MPI_Win_allocate windows (gets + flushes, fetch_and_op +
// flushes, Rget + Wait).
TEST_CASE("a rank polling another's window still serves the locks asked of it", "[rma][lock][flavors]") {
  const int me = jobs::rank(), n = jobs::size();
  if (n < 2) return;
  for (int flavor = 0; flavor < 2; ++flavor) {
    for (int how = 0; how < 3; ++how) {
      INFO((flavor == 0 ? "MPI_Win_create" : "MPI_Win_allocate") << ", polling with "
           << (how == 0 ? "MPI_Get + MPI_Win_flush" : how == 1 ? "MPI_Fetch_and_op + flush" : "MPI_Rget + MPI_Wait"));
      MPI_Win win;
      int* mem = nullptr;
      std::vector<int> own(4, 0);
      if (flavor == 0) {
        mem = own.data();
        MPI_OK(MPI_Win_create(mem, 4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      } else {
        MPI_OK(MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, win));
        std::fill(mem, mem + 4, 0);
        MPI_OK(MPI_Win_unlock(me, win));
      }
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      if (me == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int flag = 0;
        while (!flag) {
          if (how == 0) {
            MPI_OK(MPI_Get(&flag, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
            MPI_OK(MPI_Win_flush(1, win));
          } else if (how == 1) {
            MPI_OK(MPI_Fetch_and_op(nullptr, &flag, MPI_INT, 1, 0, MPI_NO_OP, win));
            MPI_OK(MPI_Win_flush(1, win));
          } else {
            MPI_Request r;
            MPI_OK(MPI_Rget(&flag, 1, MPI_INT, 1, 0, 1, MPI_INT, win, &r));
            MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
          }
        }
        MPI_OK(MPI_Win_unlock(1, win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        CHECK(mem[1] == 42);  // what rank 1 left here under its lock
        MPI_OK(MPI_Win_unlock(0, win));
      } else if (me == 1) {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
        int v = 42, one = 1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));  // granted by rank 0, which is polling
        MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 1, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win));
        MPI_OK(MPI_Put(&one, 1, MPI_INT, 1, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(1, win));
      } else {
        MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
      }
      MPI_OK(MPI_Win_free(&win));
    }
  }
}

#ifdef CHORUS
using jobs::PvarCount;

// Each operation used to get a zero-filled std::vector at the origin and another
// at the target: a window of 64 puts of 16-128 KiB made the target's heap grow
// and shrink every window (brk, a page fault per page), and such puts ran at
// 0.6-1.5 GB/s where 4 KiB ones ran at 5. Buffers are now kept and reused.
TEST_CASE("windows of puts reuse their message buffers, and every put lands", "[rma][large]") {
  const int me = jobs::rank(), n = jobs::size();
  constexpr int kOps = 64;
  for (const int bytes : {16 << 10, 128 << 10}) {
    const int ints = bytes / 4;
    IntWindow w(0, kOps * ints);
    std::vector<int> src(static_cast<std::size_t>(kOps) * ints);
    std::unique_ptr<PvarCount> allocs;
    constexpr int kWarm = 2, kRounds = 12;
    for (int round = 0; round < kWarm + kRounds; ++round) {
      if (round == kWarm) allocs = std::make_unique<PvarCount>("rma_buffer_allocs");
      for (std::size_t i = 0; i < src.size(); ++i) src[i] = round * 1000003 + me * 7919 + static_cast<int>(i);
      MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, jobs::right(), 0, w.win));
      for (int k = 0; k < kOps; ++k)
        MPI_OK(MPI_Put(src.data() + static_cast<std::size_t>(k) * ints, ints, MPI_INT, jobs::right(),
                       static_cast<MPI_Aint>(k) * ints, ints, MPI_INT, w.win));
      MPI_OK(MPI_Win_unlock(jobs::right(), w.win));
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  // every put into this rank's window is applied
      MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
      long wrong = 0;
      for (std::size_t i = 0; i < w.mem.size(); ++i)
        wrong += w.mem[i] != round * 1000003 + jobs::left() * 7919 + static_cast<int>(i);
      MPI_OK(MPI_Win_unlock(me, w.win));
      CHECK(wrong == 0);
      MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    }
    // The warm-up windows took what the later ones need. A later window still
    // takes a few when more operations are in flight at once than before (a
    // rank off its CPU while 64 arrive: 64 at 8 ranks on 2 cores), but nothing
    // like one per operation: 12 x 64 x 2 (origin and target) and more with none
    // kept (CHORUS_BUFFER_KEEP=0).
    const unsigned long long grew = allocs->grew();
    INFO(bytes << " B puts, " << n << " ranks: " << grew << " buffers allocated in " << kRounds << " windows");
    CHECK(grew <= static_cast<unsigned long long>(kRounds * kOps / 4));
  }
}
#endif

#ifdef CHORUS
// Which path the flavors' puts and gets take: copies for windows in shared memory
// (every rank on one node), messages for MPI_Win_create's.
TEST_CASE("puts and gets on a node's allocated windows are copies, on created ones messages", "[rma][shared]") {
  const int me = jobs::rank();
  const bool one_node = all_on_one_node();
  std::vector<int> own(8, 0);
  for (int flavor = 0; flavor < 3; ++flavor) {
    MPI_Win win;
    int* mem = own.data();
    if (flavor == 0) MPI_OK(MPI_Win_create(mem, 8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    else if (flavor == 1) MPI_OK(MPI_Win_allocate(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    else if (one_node) MPI_OK(MPI_Win_allocate_shared(8 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    else continue;
    PvarCount direct("rma_direct_ops");
    int v = me, back = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, jobs::right(), 0, win));
    MPI_OK(MPI_Put(&v, 1, MPI_INT, jobs::right(), 1, 1, MPI_INT, win));
    MPI_OK(MPI_Win_flush(jobs::right(), win));
    MPI_OK(MPI_Get(&back, 1, MPI_INT, jobs::right(), 1, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(jobs::right(), win));
    CHECK(back == me);
    INFO("flavor " << (flavor == 0 ? "create" : flavor == 1 ? "allocate" : "allocate_shared"));
    CHECK(direct.grew() == (flavor > 0 && one_node ? 2u : 0u));
    MPI_OK(MPI_Win_free(&win));
  }
}
// An origin posts a receive for each answer it awaits. They were on the context
// the operations arrive on, so with thousands of fetch-and-ops in one fence epoch
// (MPICH's errors/rma/cas_type_check: 10,000 per rank, 20 types) every arriving
// operation walked past thousands of them: quadratic, 63 s where 1 s does. The
// answers travel on a context of their own; what the arriving messages walk
// stays a few receives each (MPI_T counter p2p_ring_posted_walked).
TEST_CASE("thousands of answers awaited in one fence epoch stay out of the operations' way", "[rma][fence]") {
  const int n = jobs::size();
  if (n < 2) return;
  constexpr int kOps = 3000;
  std::vector<std::int64_t> mem(1, 0);
  MPI_Win win;
  MPI_OK(MPI_Win_create(mem.data(), sizeof(std::int64_t), sizeof(std::int64_t), MPI_INFO_NULL, MPI_COMM_WORLD,
                        &win));
  std::vector<std::int64_t> old(kOps, -1);
  const std::int64_t one = 1;
  MPI_OK(MPI_Win_fence(0, win));
  PvarCount walked("p2p_ring_posted_walked");
  for (int i = 0; i < kOps; ++i)
    MPI_OK(MPI_Fetch_and_op(&one, &old[static_cast<std::size_t>(i)], MPI_INT64_T, jobs::right(), 0, MPI_SUM, win));
  MPI_OK(MPI_Win_fence(0, win));
  const unsigned long long w = walked.grew();
  CHECK(mem[0] == kOps);
  std::vector<std::int64_t> sorted(old);
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < kOps; ++i) CHECK(sorted[static_cast<std::size_t>(i)] == i);  // each old value once
  INFO("posted receives walked: " << w << " for " << kOps << " operations");
  CHECK(w < 10ull * kOps);  // each arriving operation walked past the awaited answers: about kOps^2 / 2
  MPI_OK(MPI_Win_free(&win));
}

// A flush to a target whose every operation since the last flush came back with an
// answer (fetch_and_op, compare_and_swap, get_accumulate, get) waits for the
// answers only: each was sent after the target applied its operation. A put or an
// accumulate among them, or a dynamic window (whose target may refuse an
// operation and says so in the acknowledgement), still asks the target.
TEST_CASE("a flush after operations that all came back with answers asks the target nothing", "[rma][lock]") {
  const int n = jobs::size();
  const int right = jobs::right();
  for (int flavor = 0; flavor < 2; ++flavor) {
    INFO("flavor " << (flavor == 0 ? "create" : "create_dynamic"));
    std::vector<std::int64_t> mem(4, 0);
    MPI_Win win;
    MPI_Aint base = 0;
    if (flavor == 0) {
      MPI_OK(MPI_Win_create(mem.data(), 4 * sizeof(std::int64_t), sizeof(std::int64_t), MPI_INFO_NULL,
                            MPI_COMM_WORLD, &win));
    } else {
      MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
      MPI_OK(MPI_Win_attach(win, mem.data(), 4 * sizeof(std::int64_t)));
      MPI_OK(MPI_Get_address(mem.data(), &base));
    }
    std::vector<MPI_Aint> bases(static_cast<std::size_t>(n));
    MPI_OK(MPI_Allgather(&base, 1, MPI_AINT, bases.data(), 1, MPI_AINT, MPI_COMM_WORLD));
    // Element k of the right neighbour's window.
    auto at = [&](int k) {
      return flavor == 0 ? MPI_Aint{k} : bases[static_cast<std::size_t>(right)] + k * MPI_Aint{sizeof(std::int64_t)};
    };
    const std::uint64_t per_flush = flavor == 0 ? 0u : 1u;
    const std::int64_t one = 1, ten = 10, zero = 0;
    std::int64_t old = -1, seen = -1;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    {
      PvarCount acks("rma_flush_acks");
      MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, at(0), MPI_SUM, win));
      MPI_OK(MPI_Win_flush(right, win));
      CHECK(old == 0);
      MPI_OK(MPI_Compare_and_swap(&ten, &zero, &old, MPI_INT64_T, right, at(1), win));
      MPI_OK(MPI_Get_accumulate(&one, 1, MPI_INT64_T, &seen, 1, MPI_INT64_T, right, at(2), 1, MPI_INT64_T,
                                MPI_SUM, win));
      MPI_OK(MPI_Win_flush_all(win));
      CHECK(old == 0);
      CHECK(seen == 0);
      CHECK(acks.grew() == 2 * per_flush);
    }
    {  // what the flushes completed is in the target's memory
      std::int64_t got[3] = {-1, -1, -1};
      MPI_OK(MPI_Get(got, 3, MPI_INT64_T, right, at(0), 3, MPI_INT64_T, win));
      MPI_OK(MPI_Win_flush(right, win));
      CHECK(got[0] == 1);
      CHECK(got[1] == 10);
      CHECK(got[2] == 1);
    }
    {
      PvarCount acks("rma_flush_acks");
      MPI_OK(MPI_Accumulate(&one, 1, MPI_INT64_T, right, at(3), 1, MPI_INT64_T, MPI_SUM, win));
      MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_INT64_T, right, at(0), MPI_SUM, win));
      MPI_OK(MPI_Win_flush(right, win));
      CHECK(acks.grew() == 1u);  // the accumulate has no answer of its own
      CHECK(old == 1);
    }
    MPI_OK(MPI_Win_unlock(right, win));
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    CHECK(mem[0] == 2);
    CHECK(mem[1] == 10);
    CHECK(mem[2] == 1);
    CHECK(mem[3] == 1);
    MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
    if (flavor == 1) MPI_OK(MPI_Win_detach(win, mem.data()));
    MPI_OK(MPI_Win_free(&win));
  }
}
#endif

#ifdef CHORUS
namespace {
// Whether every rank here reads messages single-copy (CHORUS_P2P_SHM_CMA): a
// 1 MiB message is read so whenever it can be. Collective; a SKIP line when not.
bool node_reads_single_copy() {
  std::vector<char> big(1 << 20, static_cast<char>(jobs::rank())), got(1 << 20);
  unsigned long long p2p_single = 0;
  {
    jobs::PvarCount single("p2p_ring_single_copy_messages");
    MPI_OK(MPI_Sendrecv(big.data(), 1 << 20, MPI_CHAR, jobs::right(), 5, got.data(), 1 << 20, MPI_CHAR,
                        jobs::left(), 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    p2p_single = single.grew();
  }
  int all_single = 0;
  const int mine = p2p_single > 0;
  MPI_OK(MPI_Allreduce(&mine, &all_single, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  if (!all_single && jobs::rank() == 0) WARN("SKIP: this node does not read messages single-copy (CHORUS_P2P_SHM_CMA)");
  return all_single != 0;
}
}  // namespace

// Whether this rank's contiguous puts and gets to ranks of its node on a created
// window write and read their memory directly (CHORUS_RMA_PEER, default auto; the
// suite also runs these cases with it off, rma_np*_peer_off, for the message path).
bool peer_direct() {
  const char* v = std::getenv("CHORUS_RMA_PEER");
  return !v || std::strcmp(v, "off") != 0;
}

// A created window's puts of 16 KiB and more that follow others to the same target
// (since its last synchronization) send their data as a message of its own, which
// a target on this node reads straight from the origin's buffer (single copy)
// whenever point-to-point could: through the ring in fragments, each waited for
// the target's progress hook (bidirectional 16-128 KiB puts: 3-10 GB/s instead of
// 5-25). The first of them goes inline, through the ring: a lone put's latency.
// With CHORUS_RMA_PEER (the default) the origin writes them itself: no message.
TEST_CASE("a created window's streams of large puts on one node are read once, from the origin's buffer",
          "[rma][shared]") {
  const int me = jobs::rank(), n = jobs::size();
  if (n < 2 || !all_on_one_node()) return;
  if (!node_reads_single_copy()) return;
  PvarCount direct("rma_peer_ops");
  constexpr int kOps = 8, kInts = 4096;  // 16 KiB each
  IntWindow w(0, kOps * kInts);
  std::vector<int> src(static_cast<std::size_t>(kOps) * kInts);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = me * 1000003 + static_cast<int>(i);
  PvarCount single("p2p_ring_single_copy_messages");
  MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, jobs::right(), 0, w.win));
  for (int k = 0; k < kOps; ++k)
    MPI_OK(MPI_Put(src.data() + static_cast<std::size_t>(k) * kInts, kInts, MPI_INT, jobs::right(),
                   static_cast<MPI_Aint>(k) * kInts, kInts, MPI_INT, w.win));
  MPI_OK(MPI_Win_unlock(jobs::right(), w.win));
  if (peer_direct())
    CHECK(direct.grew() == static_cast<unsigned long long>(kOps));
  else
    CHECK(single.grew() >= static_cast<unsigned long long>(kOps - 1));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, me, 0, w.win));
  long wrong = 0;
  for (std::size_t i = 0; i < w.mem.size(); ++i) wrong += w.mem[i] != jobs::left() * 1000003 + static_cast<int>(i);
  MPI_OK(MPI_Win_unlock(me, w.win));
  CHECK(wrong == 0);
}
#endif

#ifdef CHORUS
// The target of a put whose data it reads from the origin's memory cannot read it
// (here: the origin unmapped its buffer before the operation completed, which MPI
// forbids): the operation is refused and the origin's unlock says so, instead of
// the target applying whatever it got.
TEST_CASE("a put whose data the target cannot read fails at the origin's unlock", "[rma][shared]") {
  const int me = jobs::rank();
  if (jobs::size() < 2 || !all_on_one_node()) return;
  if (!node_reads_single_copy() || peer_direct()) return;  // the origin writes directly: the next case
  constexpr int kInts = 16384;  // 64 KiB
  IntWindow w(0, 2 * kInts);
  MPI_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 0) {
    // Stay out of MPI (no progress) while rank 1 puts and unmaps its buffer.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  } else if (me == 1) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, w.win));
    std::vector<int> first(kInts, 7);
    MPI_OK(MPI_Put(first.data(), kInts, MPI_INT, 0, 0, kInts, MPI_INT, w.win));
    // The second operation to rank 0 in this epoch: its data is read from here.
    void* p = mmap(nullptr, kInts * sizeof(int), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(p != MAP_FAILED);
    std::fill_n(static_cast<int*>(p), kInts, 9);
    MPI_OK(MPI_Put(p, kInts, MPI_INT, 0, kInts, kInts, MPI_INT, w.win));
    munmap(p, kInts * sizeof(int));
    const int rc = MPI_Win_unlock(0, w.win);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER);
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 0) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w.win));
    long nines = 0;
    for (int i = kInts; i < 2 * kInts; ++i) nines += w.mem[static_cast<std::size_t>(i)] == 9;
    MPI_OK(MPI_Win_unlock(0, w.win));
    CHECK(nines == 0);
  }
}

// An origin that writes or reads a created window's memory directly (CHORUS_RMA_PEER)
// and finds it gone (its owner unmapped it before MPI_Win_free, which MPI forbids)
// gets MPI_ERR_OTHER from the call, naming the rank, instead of the target faulting
// on a message it would apply there.
TEST_CASE("a direct put or get to window memory its owner unmapped fails at the origin", "[rma][shared]") {
  const int me = jobs::rank();
  if (jobs::size() < 2 || !all_on_one_node()) return;
  if (!node_reads_single_copy() || !peer_direct()) return;
  constexpr std::size_t kBytes = 65536;
  void* mem = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  REQUIRE(mem != MAP_FAILED);
  MPI_Win win;
  MPI_OK(MPI_Win_create(mem, kBytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  if (me == 0) munmap(mem, kBytes);
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  if (me == 1) {
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, MPI_MODE_NOCHECK, win));
    std::vector<int> v(4096, 5);  // 16 KiB: puts from 8 KiB go direct (smaller ones as messages)
    int got = 0;
    for (bool put : {true, false}) {
      const int rc = put ? MPI_Put(v.data(), 4096, MPI_INT, 0, 0, 4096, MPI_INT, win)
                         : MPI_Get(&got, 1, MPI_INT, 0, 8, 1, MPI_INT, win);
      int cls = MPI_SUCCESS;
      MPI_Error_class(rc, &cls);
      INFO((put ? "MPI_Put" : "MPI_Get") << " to rank 0's unmapped window");
      CHECK(cls == MPI_ERR_OTHER);
    }
    MPI_OK(MPI_Win_unlock(0, win));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_OK(MPI_Win_free(&win));
  if (me != 0) munmap(mem, kBytes);
}
#endif
