/* rma: OSU-style one-sided benchmarks between ranks 0 and 1 (osu_put_latency,
 * osu_get_latency, osu_acc_latency, osu_get_acc_latency, osu_fop_latency,
 * osu_cas_latency, osu_put_bw, osu_get_bw, osu_put_bibw), in one program:
 *
 *   mpirun -n 2 build/benchmarks/rma -t put_latency [-w create|allocate|dynamic]
 *          [-s lock|flush|flush_local|lock_all|fence|pscw] [-m [min:]max] [-i N] [-x N]
 *          [-W N] [-c] [--csv|--json]
 *
 * Rank 0 is the origin, rank 1 the target (ranks beyond 2 stay idle). The window
 * lives on a communicator of ranks 0 and 1; -w says how it is made (MPI_Win_create
 * on MPI_Alloc_mem memory, MPI_Win_allocate, or MPI_Win_create_dynamic with the
 * memory attached). -s is the synchronization timed with each operation (latency) or
 * each window of -W operations (bandwidth):
 *   lock         MPI_Win_lock(SHARED) ... MPI_Win_unlock around each
 *   flush        one lock for the whole size; MPI_Win_flush after each (default)
 *   flush_local  the same with MPI_Win_flush_local
 *   lock_all     MPI_Win_lock_all ... MPI_Win_unlock_all around each
 *   fence        MPI_Win_fence on both ranks after each
 *   pscw         MPI_Win_start/complete at the origin, MPI_Win_post/wait at the target
 * put_bibw: both ranks put to each other (fence or pscw). fop and cas move one 8-byte
 * integer (one row, size 8); acc and get_acc move MPI_INTs (sizes from 4 bytes).
 * The target of a passive-target run sits in MPI_Barrier, as in OSU: its progress
 * serves the operations.
 * -c: after each size, one operation of a known pattern under an exclusive lock,
 * checked where the data lands (put, acc: the target's window; get: the origin).
 * Latency rows give microseconds per operation; bandwidth rows MB/s (10^6 bytes). */
#include "bench_common.h"

enum { T_PUT_LAT, T_GET_LAT, T_ACC_LAT, T_GACC_LAT, T_FOP_LAT, T_CAS_LAT, T_PUT_BW, T_GET_BW, T_PUT_BIBW };
static const char *const kTests[] = {"put_latency", "get_latency", "acc_latency", "get_acc_latency", "fop_latency",
                                     "cas_latency", "put_bw",      "get_bw",      "put_bibw"};
enum { W_CREATE, W_ALLOCATE, W_DYNAMIC };
static const char *const kWins[] = {"create", "allocate", "dynamic"};
enum { S_LOCK, S_FLUSH, S_FLUSH_LOCAL, S_LOCK_ALL, S_FENCE, S_PSCW };
static const char *const kSyncs[] = {"lock", "flush", "flush_local", "lock_all", "fence", "pscw"};

static int pick(const char *v, const char *const *names, int n)
{
  for (int i = 0; i < n; ++i)
    if (!strcmp(v, names[i])) return i;
  return -1;
}

typedef struct {
  MPI_Comm pair;
  MPI_Win win;
  MPI_Group other; /* the peer, for post/start */
  char *base;      /* this rank's window memory */
  MPI_Aint disp;   /* where operations land at the peer (a dynamic window: its address) */
  int me, peer;
} rma_win;

static void win_open(rma_win *w, int kind, long bytes, MPI_Comm pair)
{
  w->pair = pair;
  MPI_Comm_rank(pair, &w->me);
  w->peer = 1 - w->me;
  MPI_Aint n = bytes > 0 ? bytes : 1;
  w->disp = 0;
  if (kind == W_ALLOCATE) {
    MPI_Win_allocate(n, 1, MPI_INFO_NULL, pair, &w->base, &w->win);
  } else {
    MPI_Alloc_mem(n, MPI_INFO_NULL, &w->base);
    if (kind == W_CREATE) {
      MPI_Win_create(w->base, n, 1, MPI_INFO_NULL, pair, &w->win);
    } else {
      MPI_Win_create_dynamic(MPI_INFO_NULL, pair, &w->win);
      MPI_Win_attach(w->win, w->base, n);
      MPI_Aint mine, theirs;
      MPI_Get_address(w->base, &mine);
      MPI_Sendrecv(&mine, 1, MPI_AINT, w->peer, 7, &theirs, 1, MPI_AINT, w->peer, 7, pair, MPI_STATUS_IGNORE);
      w->disp = theirs;
    }
  }
  memset(w->base, 0, (size_t)n);
  MPI_Group g;
  MPI_Comm_group(pair, &g);
  MPI_Group_incl(g, 1, &w->peer, &w->other);
  MPI_Group_free(&g);
  MPI_Barrier(pair);
}

static void win_close(rma_win *w, int kind)
{
  if (kind == W_DYNAMIC) MPI_Win_detach(w->win, w->base);
  MPI_Win_free(&w->win);
  if (kind != W_ALLOCATE) MPI_Free_mem(w->base);
  MPI_Group_free(&w->other);
}

/* One operation of test t from sbuf (rbuf: get results) of s bytes to the peer. */
static void op(int t, rma_win *w, char *sbuf, char *rbuf, long s)
{
  const int ints = (int)(s / (long)sizeof(int));
  switch (t) {
    case T_PUT_LAT: case T_PUT_BW: case T_PUT_BIBW:
      MPI_Put(sbuf, (int)s, MPI_CHAR, w->peer, w->disp, (int)s, MPI_CHAR, w->win);
      break;
    case T_GET_LAT: case T_GET_BW:
      MPI_Get(rbuf, (int)s, MPI_CHAR, w->peer, w->disp, (int)s, MPI_CHAR, w->win);
      break;
    case T_ACC_LAT:
      MPI_Accumulate(sbuf, ints, MPI_INT, w->peer, w->disp, ints, MPI_INT, MPI_SUM, w->win);
      break;
    case T_GACC_LAT:
      MPI_Get_accumulate(sbuf, ints, MPI_INT, rbuf, ints, MPI_INT, w->peer, w->disp, ints, MPI_INT, MPI_SUM, w->win);
      break;
    case T_FOP_LAT:
      MPI_Fetch_and_op(sbuf, rbuf, MPI_INT64_T, w->peer, w->disp, MPI_SUM, w->win);
      break;
    default: /* T_CAS_LAT */
      MPI_Compare_and_swap(sbuf, sbuf + 8, rbuf, MPI_INT64_T, w->peer, w->disp, w->win);
      break;
  }
}

/* `n` operations and the synchronization that completes them, as one timed unit.
 * Both ranks call it; only the origin(s) issue operations. */
static void unit(int t, int sync, rma_win *w, int origin, int target, int n, char *sbuf, char *rbuf, long s)
{
  switch (sync) {
    case S_LOCK:
      if (!origin) return;
      MPI_Win_lock(MPI_LOCK_SHARED, w->peer, 0, w->win);
      for (int k = 0; k < n; ++k) op(t, w, sbuf, rbuf, s);
      MPI_Win_unlock(w->peer, w->win);
      return;
    case S_FLUSH: case S_FLUSH_LOCAL: /* inside one lock (sync_begin) */
      if (!origin) return;
      for (int k = 0; k < n; ++k) op(t, w, sbuf, rbuf, s);
      if (sync == S_FLUSH) MPI_Win_flush(w->peer, w->win);
      else MPI_Win_flush_local(w->peer, w->win);
      return;
    case S_LOCK_ALL:
      if (!origin) return;
      MPI_Win_lock_all(0, w->win);
      for (int k = 0; k < n; ++k) op(t, w, sbuf, rbuf, s);
      MPI_Win_unlock_all(w->win);
      return;
    case S_FENCE:
      if (origin)
        for (int k = 0; k < n; ++k) op(t, w, sbuf, rbuf, s);
      MPI_Win_fence(0, w->win);
      return;
    default: /* S_PSCW: post before start, so a bibw's two epochs pair up */
      if (target) MPI_Win_post(w->other, 0, w->win);
      if (origin) {
        MPI_Win_start(w->other, 0, w->win);
        for (int k = 0; k < n; ++k) op(t, w, sbuf, rbuf, s);
        MPI_Win_complete(w->win);
      }
      if (target) MPI_Win_wait(w->win);
      return;
  }
}

static void sync_begin(int sync, rma_win *w, int origin)
{
  if (sync == S_FENCE) MPI_Win_fence(MPI_MODE_NOPRECEDE, w->win);
  if ((sync == S_FLUSH || sync == S_FLUSH_LOCAL) && origin) MPI_Win_lock(MPI_LOCK_SHARED, w->peer, 0, w->win);
}

static void sync_end(int sync, rma_win *w, int origin)
{
  if ((sync == S_FLUSH || sync == S_FLUSH_LOCAL) && origin) MPI_Win_unlock(w->peer, w->win);
  if (sync == S_FENCE) MPI_Win_fence(MPI_MODE_NOSUCCEED, w->win);
  MPI_Barrier(w->pair); /* a passive target serves the operations from here */
}

/* -c: one operation of a known pattern under an exclusive lock; wrong bytes (put
 * and acc: counted at the target; get: at the origin). */
static long check(int t, rma_win *w, char *sbuf, char *rbuf, long s, int origin)
{
  long wrong = 0;
  int is_get = t == T_GET_LAT || t == T_GET_BW;
  int is_acc = t == T_ACC_LAT || t == T_GACC_LAT;
  MPI_Barrier(w->pair);
  if (origin) {
    if (is_acc) { /* the target starts from zero; acc of 1..n gives 1..n */
      for (long i = 0; i < s / (long)sizeof(int); ++i) ((int *)sbuf)[i] = (int)(i + 1);
    } else if (!is_get) {
      bench_fill(sbuf, BENCH_HOST, s, s);
    }
  } else {
    if (is_acc) memset(w->base, 0, (size_t)s);
    else if (is_get) bench_fill(w->base, BENCH_HOST, s, s);
    else memset(w->base, 0xee, (size_t)s);
  }
  MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->me, 0, w->win); /* the target's own stores, then visible */
  MPI_Win_unlock(w->me, w->win);
  MPI_Barrier(w->pair);
  if (origin) {
    if (is_get) bench_clear(rbuf, BENCH_HOST, s);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->peer, 0, w->win);
    if (is_get) MPI_Get(rbuf, (int)s, MPI_CHAR, w->peer, w->disp, (int)s, MPI_CHAR, w->win);
    else if (is_acc)
      MPI_Accumulate(sbuf, (int)(s / (long)sizeof(int)), MPI_INT, w->peer, w->disp, (int)(s / (long)sizeof(int)),
                     MPI_INT, MPI_SUM, w->win);
    else MPI_Put(sbuf, (int)s, MPI_CHAR, w->peer, w->disp, (int)s, MPI_CHAR, w->win);
    MPI_Win_unlock(w->peer, w->win);
    if (is_get) wrong = bench_verify(rbuf, BENCH_HOST, s, s);
  }
  MPI_Barrier(w->pair);
  if (!origin && !is_get) {
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, w->me, 0, w->win); /* see what the origin wrote */
    if (is_acc) {
      for (long i = 0; i < s / (long)sizeof(int); ++i) wrong += ((int *)w->base)[i] != (int)(i + 1);
    } else {
      wrong = bench_verify(w->base, BENCH_HOST, s, s);
    }
    MPI_Win_unlock(w->me, w->win);
  }
  MPI_Barrier(w->pair); /* the next size's operations wait for the reading */
  return wrong;
}

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  /* Our options first; bench_parse takes the rest. */
  int t = T_PUT_LAT, wkind = W_CREATE, sync = -1, rc = 0;
  char **rest = malloc(sizeof(char *) * (size_t)(argc + 1));
  int nrest = 0;
  rest[nrest++] = argv[0];
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    if ((!strcmp(a, "-t") || !strcmp(a, "-w") || !strcmp(a, "-s")) && i + 1 < argc) {
      const char *v = argv[++i];
      int k = a[1] == 't' ? pick(v, kTests, 9) : a[1] == 'w' ? pick(v, kWins, 3) : pick(v, kSyncs, 6);
      if (k < 0) {
        if (rank == 0) fprintf(stderr, "%s: bad value '%s' for %s\n", argv[0], v, a);
        rc = -1;
      }
      if (a[1] == 't') t = k;
      else if (a[1] == 'w') wkind = k;
      else sync = k;
    } else {
      rest[nrest++] = argv[i];
    }
  }
  const int bw = t == T_PUT_BW || t == T_GET_BW || t == T_PUT_BIBW;
  const int atomic = t == T_FOP_LAT || t == T_CAS_LAT;
  const int ints = t == T_ACC_LAT || t == T_GACC_LAT;
  bench_opts o = {.min_size = ints ? 4 : 1, .max_size = 4L << 20, .iterations = bw ? 100 : 1000,
                  .warmup = bw ? 10 : 100, .window = 32, .format = BENCH_TEXT};
  if (rc == 0) {
    rc = bench_parse(nrest, rest, &o, "one-sided: -t put_latency|get_latency|acc_latency|get_acc_latency|"
                                      "fop_latency|cas_latency|put_bw|get_bw|put_bibw, -w create|allocate|dynamic, "
                                      "-s lock|flush|flush_local|lock_all|fence|pscw", bw, rank);
    if (rc == 1 && rank == 0) fprintf(stderr, "  -t, -w, -s      see the top of benchmarks/rma.c\n");
  }
  if (sync < 0) sync = t == T_PUT_BIBW ? S_FENCE : S_FLUSH;
  if (rc == 0 && t == T_PUT_BIBW && sync != S_FENCE && sync != S_PSCW) {
    if (rank == 0) fprintf(stderr, "%s: put_bibw takes -s fence or -s pscw\n", argv[0]);
    rc = -1;
  }
  if (rc == 0 && o.load_set) {
    if (rank == 0) fprintf(stderr, "%s: --background-load is not measured here\n", argv[0]);
    rc = -1;
  }
  if (rc == 0 && bench_uses_cuda(&o)) {
    if (rank == 0) fprintf(stderr, "%s: device buffers in one-sided calls are not measured here\n", argv[0]);
    rc = -1;
  }
  if (rc == 0 && size < 2) {
    if (rank == 0) fprintf(stderr, "%s: needs at least 2 ranks\n", argv[0]);
    rc = -1;
  }
  free(rest);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }
  if (atomic) o.min_size = o.max_size = 8;
  if (ints && o.min_size < 4) o.min_size = 4;

  MPI_Comm pair;
  MPI_Comm_split(MPI_COMM_WORLD, rank < 2 ? 0 : MPI_UNDEFINED, rank, &pair);
  long long wrong = 0;
  if (rank < 2) {
    const long max = o.max_size;
    char *sbuf = bench_alloc(max + 16), *rbuf = bench_alloc(max + 16);
    memset(sbuf, 0, (size_t)max + 16); /* fop adds 0: the window stays as it is */
    rma_win w;
    win_open(&w, wkind, max + 16, pair);
    const int origin = w.me == 0 || t == T_PUT_BIBW, target = w.me == 1 || t == T_PUT_BIBW;
    static const char *const lat_cols[] = {"latency_us"}, *const bw_cols[] = {"bandwidth_MBps"};
    bench_table table = {.rows = 0};
    if (rank == 0) {
      char title[256], extra[256];
      snprintf(title, sizeof title, "# Chorus MPI One Sided %s Test\n# Window creation: %s\n# Synchronization: %s\n",
               kTests[t], kWins[wkind], kSyncs[sync]);
      snprintf(extra, sizeof extra, "\"unit\": \"%s\", \"better\": \"%s\", \"window\": \"%s\", \"sync\": \"%s\"%s",
               bw ? "MB/s" : "us", bw ? "higher" : "lower", kWins[wkind], kSyncs[sync], o.check ? ", \"check\": 1" : "");
      bench_table_begin(&table, o.format, kTests[t], title, 1, bw ? bw_cols : lat_cols, size, extra);
      if (o.format == BENCH_TEXT) printf(bw ? "# Size      Bandwidth (MB/s)\n" : "# Size          Latency (us)\n");
    }
    int nsizes = bench_count_sizes(&o), done = 0;
    for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
      if (s == 0 || (ints && s % (long)sizeof(int))) continue;
      int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 9) / 10 : o.iterations;
      int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 9) / 10 : o.warmup;
      const int n = bw ? o.window : 1;
      sync_begin(sync, &w, origin);
      double t0 = 0;
      for (int i = 0; i < iters + warmup; ++i) {
        if (i == warmup) t0 = MPI_Wtime();
        unit(t, sync, &w, origin, target, n, sbuf, rbuf, s);
      }
      double el = MPI_Wtime() - t0;
      sync_end(sync, &w, origin);
      if (o.check && !atomic) wrong += check(t, &w, sbuf, rbuf, s, w.me == 0);
      if (rank == 0) {
        double v = bw ? (double)s / 1e6 * iters * n * (t == T_PUT_BIBW ? 2 : 1) / el : el * 1e6 / iters;
        bench_table_row(&table, s, &v);
        bench_progress(kTests[t], ++done, nsizes);
      }
    }
    win_close(&w, wkind);
    MPI_Comm_free(&pair);
    if (o.check) MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) bench_table_end(&table, o.check ? wrong : -1);
    free(sbuf);
    free(rbuf);
  } else if (o.check) {
    MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return wrong ? 1 : 0;
}
