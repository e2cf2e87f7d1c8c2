/* One-sided operations across pretend hosts (rma.sh runs it). Puts and gets of
 * contiguous data to a rank of another node go through UCX's remote memory
 * access with CHORUS_RMA_RDMA=on (the MPI_T counter rma_rdma_ops counts each
 * one), or as messages (it stays 0), and the data lands right in every
 * synchronization mode: fence, post/start/complete/wait, lock/unlock with flush,
 * lock_all with MPI_Rput/MPI_Rget, a 4 MiB put, on MPI_Win_allocate and
 * MPI_Win_create windows; each of them to a rank of another node is counted. Each rank puts to its right neighbour and gets from its
 * left one. argv[1]: "rdma" or "messages", what the counter must show. Last, a
 * window the program never frees, which MPI_Finalize must cope with.
 * Rank 0 prints "No Errors" when every rank's checks passed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs = 0, rank = 0;

#define CHECK(cond, ...)                                     \
  do {                                                       \
    if (!(cond)) {                                           \
      if (errs++ < 10) {                                     \
        printf("rma_rdma r%d line %d: %s: ", rank, __LINE__, #cond); \
        printf(__VA_ARGS__);                                 \
        printf("\n");                                        \
      }                                                      \
    }                                                        \
  } while (0)

enum { kWords = 1 << 20, kBig = 1 << 19, kGetAt = 100000 };

/* The MPI_T counter rma_rdma_ops, through a handle that counts from its allocation. */
static MPI_T_pvar_session g_session;
static MPI_T_pvar_handle g_handle = MPI_T_PVAR_HANDLE_NULL;

static int start_counting(void) {
  int idx = -1, count = 0;
  if (MPI_T_pvar_get_index("rma_rdma_ops", MPI_T_PVAR_CLASS_COUNTER, &idx) != MPI_SUCCESS) return 0;
  MPI_T_pvar_session_create(&g_session);
  return MPI_T_pvar_handle_alloc(g_session, idx, NULL, &g_handle, &count) == MPI_SUCCESS;
}

static unsigned long long rdma_ops(void) {
  unsigned long long v = 0;
  MPI_T_pvar_read(g_session, g_handle, &v);
  return v;
}

/* The epochs, on window `win` over `mem` (kWords doubles per rank). */
static void run(MPI_Win win, double* mem, int left, int right) {
  double* got = malloc(sizeof(double) * kBig);
  MPI_Group world_group, lg, rg;
  MPI_Comm_group(MPI_COMM_WORLD, &world_group);
  MPI_Group_incl(world_group, 1, &left, &lg);
  MPI_Group_incl(world_group, 1, &right, &rg);
  double src[1000];

  /* Fence: a put to the right, a get from the left's own values. */
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, win);
  for (int i = 0; i < kWords; ++i) mem[i] = -1;
  for (int i = 0; i < 1000; ++i) mem[kGetAt + i] = rank * 7 + i;
  MPI_Win_unlock(rank, win);
  for (int i = 0; i < 1000; ++i) src[i] = rank * 1e6 + i;
  MPI_Win_fence(0, win);
  MPI_Put(src, 1000, MPI_DOUBLE, right, 0, 1000, MPI_DOUBLE, win);
  MPI_Get(got, 1000, MPI_DOUBLE, left, kGetAt, 1000, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < 1000; ++i) {
    CHECK(mem[i] == left * 1e6 + i, "fence: word %d is %g, want %g", i, mem[i], left * 1e6 + i);
    CHECK(got[i] == left * 7 + i, "fence: got word %d = %g, want %d", i, got[i], left * 7 + i);
  }

  /* Post/start/complete/wait: a ring of puts. */
  for (int i = 0; i < 500; ++i) src[i] = rank * 10 + i;
  MPI_Win_post(lg, 0, win);
  MPI_Win_start(rg, 0, win);
  MPI_Put(src, 500, MPI_DOUBLE, right, 2000, 500, MPI_DOUBLE, win);
  MPI_Win_complete(win);
  MPI_Win_wait(win);
  for (int i = 0; i < 500; ++i) CHECK(mem[2000 + i] == left * 10 + i, "pscw: word %d is %g", i, mem[2000 + i]);

  /* Lock: a put, a flush, the same words read back (2400 B: over what goes as a
     message before the lock is granted, see below). */
  for (int i = 0; i < 300; ++i) src[i] = rank * 100 + i + 0.5;
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, right, 0, win);
  MPI_Put(src, 300, MPI_DOUBLE, right, 3000, 300, MPI_DOUBLE, win);
  MPI_Win_flush(right, win);
  MPI_Get(got, 300, MPI_DOUBLE, right, 3000, 300, MPI_DOUBLE, win);
  MPI_Win_unlock(right, win);
  for (int i = 0; i < 300; ++i) CHECK(got[i] == src[i], "lock: read back %g at %d, want %g", got[i], i, src[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  for (int i = 0; i < 300; ++i)
    CHECK(mem[3000 + i] == left * 100 + i + 0.5, "lock: word %d is %g", i, mem[3000 + i]);

  /* Lock_all: request-based, completed by MPI_Waitall. More than 2 KiB each: an
     operation up to that size issued before its lock is granted goes as a
     message, queued behind the lock request (lib/mpi/win.cc, issue()). */
  for (int i = 0; i < 400; ++i) src[i] = rank * 1000 + i;
  MPI_Request reqs[2];
  MPI_Win_lock_all(0, win);
  MPI_Rput(src, 400, MPI_DOUBLE, right, 4000, 400, MPI_DOUBLE, win, &reqs[0]);
  MPI_Rget(got, 400, MPI_DOUBLE, left, kGetAt, 400, MPI_DOUBLE, win, &reqs[1]);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  MPI_Win_unlock_all(win);
  for (int i = 0; i < 400; ++i) CHECK(got[i] == left * 7 + i, "rget: word %d is %g", i, got[i]);
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Win_sync(win);
  for (int i = 0; i < 400; ++i) CHECK(mem[4000 + i] == left * 1000 + i, "rput: word %d is %g", i, mem[4000 + i]);

  /* 4 MiB in one put. */
  for (int i = 0; i < kBig; ++i) got[i] = rank + i * 0.25;
  MPI_Win_fence(0, win);
  MPI_Put(got, kBig, MPI_DOUBLE, right, kBig, kBig, MPI_DOUBLE, win);
  MPI_Win_fence(0, win);
  for (int i = 0; i < kBig; ++i)
    if (mem[kBig + i] != left + i * 0.25) {
      CHECK(0, "big put: word %d is %g, want %g", i, mem[kBig + i], left + i * 0.25);
      break;
    }
  MPI_Group_free(&lg);
  MPI_Group_free(&rg);
  MPI_Group_free(&world_group);
  free(got);
}

int main(int argc, char** argv) {
  int provided, size;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int want_rdma = argc > 1 && strcmp(argv[1], "rdma") == 0;
  const int left = (rank + size - 1) % size, right = (rank + 1) % size;
  /* Which neighbours are on another node: their node's lowest world rank. */
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  int leader = rank;
  MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, node);
  int* leaders = malloc(sizeof(int) * size);
  MPI_Allgather(&leader, 1, MPI_INT, leaders, 1, MPI_INT, MPI_COMM_WORLD);
  const int remote = leaders[left] != leader || leaders[right] != leader;

  const int counting = start_counting();
  CHECK(counting, "no MPI_T counter rma_rdma_ops");
  double* mem;
  MPI_Win win;
  MPI_Win_allocate(sizeof(double) * kWords, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
  run(win, mem, left, right);
  MPI_Win_free(&win);
  double* own = malloc(sizeof(double) * kWords);
  MPI_Win_create(own, sizeof(double) * kWords, sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  run(win, own, left, right);
  MPI_Win_free(&win);
  free(own);
  const unsigned long long ops = counting ? rdma_ops() : 0;
  /* A window the program never frees: MPI_Finalize gives back its UCX
     registration and keys (UCX's cleanup aborted the job on them before). */
  int* kept;
  MPI_Win unfreed;
  MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &kept, &unfreed);
  MPI_Win_fence(0, unfreed);
  MPI_Put(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, unfreed);
  MPI_Win_fence(0, unfreed);
  CHECK(*kept == left, "the unfreed window holds %d, want %d", *kept, left);
  /* Per window: to the right 5 puts and a get, from the left 2 gets. */
  const unsigned long long want = 2 * ((leaders[right] != leader ? 6 : 0) + (leaders[left] != leader ? 2 : 0));
  if (want_rdma && remote)
    CHECK(ops == want, "%llu puts and gets through UCX, want %llu (a neighbour on another node)", ops, want);
  else
    CHECK(ops == 0, "%llu puts and gets through UCX (%s, %s)", ops, want_rdma ? "wanted" : "messages wanted",
          remote ? "a neighbour on another node" : "both neighbours on this node");
  int all = errs;
  MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  free(leaders);
  MPI_Comm_free(&node);
  if (counting) {
    MPI_T_pvar_handle_free(g_session, &g_handle);
    MPI_T_pvar_session_free(&g_session);
  }
  MPI_Finalize();
  MPI_T_finalize();
  if (rank == 0 && all == 0) printf("No Errors\n");
  return errs ? 1 : 0;
}
