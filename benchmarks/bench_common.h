/* Shared by the OSU-style point-to-point benchmarks (latency, bw, bibw, mbw_mr) and
 * the output helpers of the collective *_perf programs. Only <mpi.h>, libc and the
 * CUDA driver loaded at run time (bench_cuda.h) for device buffers. */
#ifndef CHORUS_BENCH_COMMON_H
#define CHORUS_BENCH_COMMON_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity for --background-load (Linux) */
#endif
#include <mpi.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#include <sys/prctl.h>
#endif

#include "bench_cuda.h"

#define BENCH_LARGE_MESSAGE (8 * 1024) /* above this, iterations and warmup / 10 */

enum { BENCH_TEXT = 0, BENCH_CSV = 1, BENCH_JSON = 2 };
enum { BENCH_HOST = 0, BENCH_CUDA = 1 }; /* where a buffer lives */

typedef struct {
  long min_size, max_size;
  int iterations, warmup; /* small-message values; large sizes use fewer */
  int window;             /* bw, bibw, mbw_mr only */
  int format;             /* BENCH_TEXT, BENCH_CSV or BENCH_JSON */
  int mem[2];             /* buffers of rank 0 (senders) and rank 1 (receivers): BENCH_* */
  int check;              /* -c: after each size, one checked transfer */
  int load_set, load;     /* --background-load N given; N (bench_load_start) */
} bench_opts;

/* ---- --background-load N: a busy node ----
 *
 * World rank 0 forks N children that spin on a volatile counter until the benchmark
 * stops them (bench_load_stop: SIGKILL, waitpid; also at exit). On Linux each child
 * asks for SIGKILL when rank 0 dies (PR_SET_PDEATHSIG), so a killed or aborted job
 * leaves none behind, and may run on every CPU (rank 0 may be bound to one core: the
 * load is the node's, not rank 0's core's). The child touches nothing of MPI: it
 * resets its signal handlers, closes its descriptors and spins. */
static pid_t *bench_load_pids;
static int bench_load_count;

static inline void bench_load_stop(void)
{
  for (int i = 0; i < bench_load_count; ++i)
    if (bench_load_pids[i] > 0) kill(bench_load_pids[i], SIGKILL);
  for (int i = 0; i < bench_load_count; ++i)
    if (bench_load_pids[i] > 0)
      while (waitpid(bench_load_pids[i], NULL, 0) < 0 && errno == EINTR) {
      }
  free(bench_load_pids);
  bench_load_pids = NULL;
  bench_load_count = 0;
}

static inline void bench_load_spin(pid_t parent, long maxfd)
{
  /* Async-signal-safe calls only: the parent may have had other threads. */
#ifdef __linux__
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(0); /* the parent died before prctl */
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int c = 0; c < CPU_SETSIZE; ++c) CPU_SET(c, &all);
  sched_setaffinity(0, sizeof all, &all); /* the kernel keeps the CPUs allowed */
#else
  (void)parent;
#endif
  sigset_t none;
  sigemptyset(&none);
  for (int sig = 1; sig < 32; ++sig)
    if (sig != SIGKILL && sig != SIGSTOP) signal(sig, SIG_DFL);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int null = open("/dev/null", O_RDWR);
  for (int fd = 0; fd < 3; ++fd)
    if (null >= 0 && null != fd) dup2(null, fd);
  for (long fd = 3; fd < maxfd; ++fd) close((int)fd);
  volatile unsigned long spin = 0;
  for (;;) ++spin;
}

/* Starts n busy-loop children when rank is 0 (any rank may call it). Returns how
 * many run; prints why on stderr when fork fails. */
static inline int bench_load_start(int n, int rank, const char *prog)
{
  if (rank != 0 || n <= 0) return 0;
  if (!bench_load_pids) atexit(bench_load_stop);
  bench_load_stop();
  bench_load_pids = (pid_t *)calloc((size_t)n, sizeof(pid_t));
  if (!bench_load_pids) return 0;
  long maxfd = sysconf(_SC_OPEN_MAX);
  if (maxfd < 0 || maxfd > 65536) maxfd = 65536;
  pid_t parent = getpid();
  fflush(stdout);
  fflush(stderr);
  for (int i = 0; i < n; ++i) {
    pid_t pid = fork();
    if (pid == 0) bench_load_spin(parent, maxfd);
    if (pid < 0) {
      fprintf(stderr, "%s: --background-load: fork: %s (%d of %d started)\n", prog, strerror(errno), i, n);
      break;
    }
    bench_load_pids[bench_load_count++] = pid;
  }
  return bench_load_count;
}

/* Sorts v[0..n) and returns its median (p50) and 99th percentile (nearest rank:
 * the ceil(0.99 n)-th smallest; with 100 samples the second largest). */
static inline int bench_cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}
static inline void bench_percentiles(double *v, int n, double *p50, double *p99)
{
  *p50 = *p99 = 0;
  if (n <= 0) return;
  qsort(v, (size_t)n, sizeof(double), bench_cmp_double);
  *p50 = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  int k = (int)((99L * n + 99) / 100); /* ceil(0.99 n) */
  *p99 = v[(k < 1 ? 1 : k) - 1];
}

/* With --background-load, p99 needs samples: a size's iterations never drop below
 * 100 (or below -i / -n when that is smaller) for large messages or a budget. */
static inline int bench_load_least(int requested) { return requested < 100 ? requested : 100; }
static inline int bench_load_iters(const bench_opts *o, int iters)
{
  if (!o->load_set) return iters;
  int least = bench_load_least(o->iterations);
  return iters < least ? least : iters;
}

/* ---- control plane: reductions by point-to-point through rank 0 ----
 * Over ranks 0..n-1 of comm (the others do not call it); count values, each
 * reduced alike; every caller gets the result. No collective is involved, so a
 * forced or broken collective never touches timings and counts. */
enum { BENCH_CTL_SUM, BENCH_CTL_MIN, BENCH_CTL_MAX };
static inline void bench_ctl_allreduce(MPI_Comm comm, int rank, int n, double *v, int count, int op)
{
  const int tag = 31999;
  if (rank != 0) {
    MPI_Send(v, count, MPI_DOUBLE, 0, tag, comm);
    MPI_Recv(v, count, MPI_DOUBLE, 0, tag, comm, MPI_STATUS_IGNORE);
    return;
  }
  double w[16];
  if (count > 16) count = 16;
  for (int r = 1; r < n; ++r) {
    MPI_Recv(w, count, MPI_DOUBLE, r, tag, comm, MPI_STATUS_IGNORE);
    for (int c = 0; c < count; ++c)
      v[c] = op == BENCH_CTL_SUM ? v[c] + w[c] : op == BENCH_CTL_MIN ? (w[c] < v[c] ? w[c] : v[c])
                                                                      : (w[c] > v[c] ? w[c] : v[c]);
  }
  for (int r = 1; r < n; ++r) MPI_Send(v, count, MPI_DOUBLE, r, tag, comm);
}

/* ---- progress on stderr ---- */

/* When stderr is a terminal: "name: 3/22 sizes done" rewritten in place, cleared at
 * the end. Launchers hand ranks a pipe, not the terminal, and forward it line by
 * line, so --progress (bench_progress_force) prints one line per size instead. */
static int bench_progress_mode = -1; /* -1: not decided, 0 off, 1 tty, 2 lines */
static inline void bench_progress_force(void) { bench_progress_mode = 2; }
static inline void bench_progress(const char *name, int done, int total)
{
  if (bench_progress_mode < 0) bench_progress_mode = isatty(2) ? 1 : 0;
  if (!bench_progress_mode || total <= 1) return;
  if (bench_progress_mode == 2) fprintf(stderr, "%s: %d/%d sizes done\n", name, done, total);
  else if (done >= total) fprintf(stderr, "\r\033[K");
  else fprintf(stderr, "\r%s: %d/%d sizes done", name, done, total);
  fflush(stderr);
}

static inline void bench_usage(const char *prog, const char *what, const bench_opts *d, int has_window)
{
  fprintf(stderr,
          "usage: mpirun -n 2 %s [options]   (%s)\n"
          "  -m [min:]max   message sizes in bytes (K, M, G: KiB, MiB, GiB), powers of two (%ld:%ld)\n"
          "  -i N           iterations per size (%d; fewer above %d bytes)\n"
          "  -x N           warmup iterations per size (%d; fewer above %d bytes)\n"
          "%s"
          "  -d cuda|host [D|H D|H]  buffer memory; with cuda, where rank 0's and rank 1's\n"
          "                 buffers live (OSU's form; D D when not given): D device, H host\n"
          "  -m cuda|host   the same as -d cuda D D / -d host\n"
          "  -c [0|1]       check the data: after each size, one transfer of a known pattern,\n"
          "                 read back (from the device) and compared; exit 1 when wrong\n"
          "  --csv          machine-readable output: a header line, then one line per size\n"
          "  --json         machine-readable output: one JSON object\n"
          "  --progress     sizes done on stderr, a line each (default: in place, when a tty)\n"
          "  --background-load N  a busy node: rank 0 starts N busy-loop processes (killed at\n"
          "                 the end, or when rank 0 dies) before measuring, and every row\n"
          "                 adds p50(us) and p99(us): the median and 99th percentile of the\n"
          "                 time of one iteration (%s), each rank's own, the\n"
          "                 slowest rank's reported. N = 0 prints the same columns without\n"
          "                 load. At least 100 iterations per size (or -i when smaller)\n"
          "  -h             this help\n",
          prog, what, d->min_size, d->max_size, d->iterations, BENCH_LARGE_MESSAGE, d->warmup,
          BENCH_LARGE_MESSAGE, has_window ? "  -W N           sends in flight per window (64)\n" : "",
          has_window ? "one window" : "half a round trip");
}

/* A size in bytes with an optional K, M or G suffix (powers of 1024): "16M". */
static inline long bench_size_arg(const char *v, char **end)
{
  long n = strtol(v, end, 10);
  if (*end == v) return n;
  switch (**end) {
    case 'K': case 'k': n <<= 10; ++*end; break;
    case 'M': case 'm': n <<= 20; ++*end; break;
    case 'G': case 'g': n <<= 30; ++*end; break;
    default: break;
  }
  return n;
}

/* Parses argv into *o (which holds the defaults). Returns 0 to run, 1 to exit
 * cleanly (help), -1 on a bad option. Every rank parses the same argv. */
static inline int bench_parse(int argc, char **argv, bench_opts *o, const char *what, int has_window, int rank)
{
  bench_opts d = *o;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--csv")) {
      o->format = BENCH_CSV;
    } else if (!strcmp(a, "--json")) {
      o->format = BENCH_JSON;
    } else if (!strcmp(a, "--progress")) {
      bench_progress_force();
    } else if ((!strcmp(a, "--background-load") && v) || !strncmp(a, "--background-load=", 18)) {
      const char *n = a[17] == '=' ? a + 18 : argv[++i];
      char *end = NULL;
      long k = strtol(n, &end, 10);
      if (end == n || *end || k < 0 || k > 4096) {
        if (rank == 0) fprintf(stderr, "%s: bad value '%s' for --background-load (0..4096)\n", argv[0], n);
        return -1;
      }
      o->load_set = 1;
      o->load = (int)k;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (rank == 0) bench_usage(argv[0], what, &d, has_window);
      return 1;
    } else if (!strcmp(a, "-c")) { /* -c, -c 1, -c 0 */
      o->check = 1;
      if (v && (!strcmp(v, "0") || !strcmp(v, "1"))) o->check = argv[++i][0] == '1';
    } else if ((!strcmp(a, "-d") && v) || (!strcmp(a, "-m") && v && (!strcmp(v, "cuda") || !strcmp(v, "host")))) {
      ++i;
      if (!strcmp(v, "host")) {
        o->mem[0] = o->mem[1] = BENCH_HOST;
      } else if (!strcmp(v, "cuda")) {
        o->mem[0] = o->mem[1] = BENCH_CUDA;
        /* OSU: "-d cuda D H": the buffer of each side, as the next arguments. */
        for (int side = 0; a[1] == 'd' && side < 2 && i + 1 < argc; ++side) {
          const char *w = argv[i + 1];
          if (strcmp(w, "D") && strcmp(w, "H")) break;
          o->mem[side] = w[0] == 'D' ? BENCH_CUDA : BENCH_HOST;
          ++i;
        }
      } else {
        if (rank == 0) fprintf(stderr, "%s: bad value '%s' for %s (cuda or host)\n", argv[0], v, a);
        return -1;
      }
    } else if ((!strcmp(a, "-m") || !strcmp(a, "-i") || !strcmp(a, "-x") ||
                (has_window && !strcmp(a, "-W"))) && v) {
      ++i;
      char *end = NULL;
      if (a[1] == 'm') {
        const char *colon = strchr(v, ':');
        if (colon) {
          o->min_size = colon == v ? o->min_size : bench_size_arg(v, &end);
          if (colon == v || end == colon) o->max_size = bench_size_arg(colon + 1, &end);
        } else {
          o->max_size = bench_size_arg(v, &end);
        }
      } else {
        long n = strtol(v, &end, 10);
        if (a[1] == 'i') o->iterations = (int)n;
        else if (a[1] == 'x') o->warmup = (int)n;
        else o->window = (int)n;
      }
      if (!end || *end) {
        if (rank == 0) fprintf(stderr, "%s: bad value '%s' for %s\n", argv[0], v, a);
        return -1;
      }
    } else {
      if (rank == 0) {
        fprintf(stderr, "%s: unknown or incomplete option '%s'\n", argv[0], a);
        bench_usage(argv[0], what, &d, has_window);
      }
      return -1;
    }
  }
  if (o->min_size < 0 || o->max_size < o->min_size || o->iterations < 1 || o->warmup < 0 ||
      o->window < 1) {
    if (rank == 0) fprintf(stderr, "%s: bad sizes, iterations, warmup or window\n", argv[0]);
    return -1;
  }
  return 0;
}

/* Sizes: 0 (when min is 0), then powers of two from max(min, 1) up to max. */
static inline long bench_first_size(const bench_opts *o) { return o->min_size; }
static inline long bench_next_size(long s) { return s == 0 ? 1 : s * 2; }
static inline int bench_count_sizes(const bench_opts *o)
{
  int n = 0;
  for (long s = bench_first_size(o); s <= o->max_size; s = bench_next_size(s)) ++n;
  return n;
}

static inline int bench_uses_cuda(const bench_opts *o) { return o->mem[0] == BENCH_CUDA || o->mem[1] == BENCH_CUDA; }

/* This rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED), the CUDA
 * device choice of every multi-GPU MPI program. Collective over MPI_COMM_WORLD. */
static inline int bench_local_rank(void)
{
  int rank = 0, local = 0;
  MPI_Comm node;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node) != MPI_SUCCESS)
    return rank;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

/* With device buffers: every rank loads the driver and picks its device (local rank
 * modulo the devices). Collective over MPI_COMM_WORLD. Returns 0; or 2, after the
 * first rank that failed printed "<prog>: no CUDA device: <why>". */
static inline int bench_cuda_setup(const bench_opts *o, const char *prog)
{
  if (!bench_uses_cuda(o)) return 0;
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int failed = bench_cuda_init(bench_local_rank()) != 0;
  int mine = failed ? rank : size, first = size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (first == size) return 0;
  if (rank == first) {
    fflush(stdout);
    fprintf(stderr, "%s: no CUDA device: %s (rank %d; device buffers need a GPU and its driver)\n", prog,
            bench_cuda.error, rank);
  }
  return 2;
}

static inline void bench_cuda_fail(const char *what)
{
  fflush(stdout);
  fprintf(stderr, "%s: %s\n", what, bench_cuda.error);
  MPI_Abort(MPI_COMM_WORLD, 1);
}

static inline void *bench_alloc(long bytes);

/* A buffer in the given memory: host (bench_alloc) or device (filled alike). */
static inline void *bench_alloc_mem(long bytes, int mem)
{
  if (mem == BENCH_HOST) return bench_alloc(bytes);
  void *p = bench_cuda_alloc((size_t)(bytes > 0 ? bytes : 1));
  if (!p) bench_cuda_fail("device buffer");
  if (bench_cuda_memset(p, 'a', (size_t)(bytes > 0 ? bytes : 1))) bench_cuda_fail("device buffer");
  return p;
}

static inline void bench_free_mem(void *p, int mem)
{
  if (mem == BENCH_HOST) free(p);
  else bench_cuda_free(p);
}

/* -c: byte i of the pattern for `seed` (never the fill byte 'a' in a whole row). */
static inline unsigned char bench_pattern(long i, long seed) { return (unsigned char)(i * 31 + seed * 7 + 1); }

/* Fills bytes of buf (in memory mem) with the pattern for seed. */
static inline void bench_fill(void *buf, int mem, long bytes, long seed)
{
  unsigned char *h = mem == BENCH_HOST ? (unsigned char *)buf : (unsigned char *)malloc((size_t)bytes + 1);
  if (!h) bench_cuda_fail("out of memory");
  for (long i = 0; i < bytes; ++i) h[i] = bench_pattern(i, seed);
  if (mem != BENCH_HOST) {
    if (bench_cuda_copy(buf, h, (size_t)bytes)) bench_cuda_fail("-c: copy to the device");
    free(h);
  }
}

/* Sets bytes of buf to a value the pattern of no row has (before a checked receive). */
static inline void bench_clear(void *buf, int mem, long bytes)
{
  if (mem == BENCH_HOST) memset(buf, 0xee, (size_t)bytes);
  else if (bench_cuda_memset(buf, 0xee, (size_t)bytes)) bench_cuda_fail("-c: clearing the device buffer");
}

/* Bytes of buf that differ from the pattern for seed (read back from the device). */
static inline long bench_verify(const void *buf, int mem, long bytes, long seed)
{
  const unsigned char *h = (const unsigned char *)buf;
  unsigned char *copy = NULL;
  if (mem != BENCH_HOST) {
    copy = (unsigned char *)malloc((size_t)bytes + 1);
    if (!copy) bench_cuda_fail("out of memory");
    if (bench_cuda_copy(copy, buf, (size_t)bytes)) bench_cuda_fail("-c: copy from the device");
    h = copy;
  }
  long wrong = 0;
  for (long i = 0; i < bytes; ++i) wrong += h[i] != bench_pattern(i, seed);
  free(copy);
  return wrong;
}

/* JSON fields and the OSU-style header line that say where the buffers are. */
static inline const char *bench_mem_json(const bench_opts *o, const char *base, char *buf, size_t n)
{
  snprintf(buf, n, "%s%s\"memory\": \"%s\", \"buffers\": \"%c %c\", \"check\": %d", base ? base : "",
           base && *base ? ", " : "", bench_uses_cuda(o) ? "cuda" : "host", o->mem[0] == BENCH_CUDA ? 'D' : 'H',
           o->mem[1] == BENCH_CUDA ? 'D' : 'H', o->check ? 1 : 0);
  return buf;
}

static inline void bench_mem_header(const bench_opts *o, const char *first, const char *second)
{
  if (o->format != BENCH_TEXT || !bench_uses_cuda(o)) return;
  printf("# %s buffers on %s (%c), %s buffers on %s (%c); device %d: %s\n", first,
         o->mem[0] == BENCH_CUDA ? "DEVICE" : "HOST", o->mem[0] == BENCH_CUDA ? 'D' : 'H', second,
         o->mem[1] == BENCH_CUDA ? "DEVICE" : "HOST", o->mem[1] == BENCH_CUDA ? 'D' : 'H', bench_cuda.device,
         bench_cuda.name);
}

/* --background-load: the text title of the two added columns (aligned to the rows'
 * %18.2f), a "# background load" line (text only), and the JSON field. */
static inline const char *bench_load_titles(const bench_opts *o)
{
  return o->load_set ? "           p50(us)           p99(us)" : "";
}
static inline void bench_load_header(const bench_opts *o, const char *what)
{
  if (!o->load_set || o->format != BENCH_TEXT) return;
  printf("# background load: %d busy-loop process%s on rank 0's node; p50/p99: %s, the slowest rank's\n", o->load,
         o->load == 1 ? "" : "es", what);
}
static inline const char *bench_load_json(const bench_opts *o, const char *base, char *buf, size_t n)
{
  if (!o->load_set) return base;
  snprintf(buf, n, "%s%s\"background_load\": %d", base, *base ? ", " : "", o->load);
  return buf;
}

/* -c: wrong bytes summed over every rank, known to all. Collective. */
static inline long long bench_check_total(long long wrong_here)
{
  long long wrong = 0;
  MPI_Allreduce(&wrong_here, &wrong, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  return wrong;
}

static inline void *bench_alloc(long bytes)
{
  size_t n = (size_t)(bytes > 0 ? bytes : 1);
  n = (n + 4095) / 4096 * 4096;
  void *p = aligned_alloc(4096, n);
  if (!p) {
    fprintf(stderr, "out of memory (%zu bytes)\n", n);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  memset(p, 'a', n);
  return p;
}

/* ---- output: text (OSU columns), CSV or JSON ---- */

static inline void bench_json_string(FILE *f, const char *s)
{
  fputc('"', f);
  for (; *s; ++s) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\') fprintf(f, "\\%c", c);
    else if (c == '\n') fputs("\\n", f);
    else if (c == '\t') fputs("\\t", f);
    else if (c < 0x20) fprintf(f, "\\u%04x", c);
    else fputc(c, f);
  }
  fputc('"', f);
}

/* The MPI library's name: the first line of MPI_Get_library_version. */
static inline const char *bench_library(void)
{
  static char buf[MPI_MAX_LIBRARY_VERSION_STRING + 1];
  int len = 0;
  if (!buf[0]) {
    MPI_Get_library_version(buf, &len);
    buf[len < MPI_MAX_LIBRARY_VERSION_STRING ? len : MPI_MAX_LIBRARY_VERSION_STRING] = 0;
    char *nl = strchr(buf, '\n');
    if (nl) *nl = 0;
    for (long i = (long)strlen(buf) - 1; i >= 0 && (buf[i] == ' ' || buf[i] == ','); --i) buf[i] = 0;
  }
  return buf;
}

typedef struct {
  int format;
  int rows;
  int ncols;
  const char *const *cols; /* value column names (CSV header, JSON keys) */
} bench_table;

/* Text: the title lines as given (OSU style, each starting with '#').
 * CSV: "size,<cols>". JSON: {"benchmark", "mpi", "nranks", <extra>, "results": [ */
static inline void bench_table_begin(bench_table *t, int format, const char *bench, const char *text_header,
                                     int ncols, const char *const *cols, int nranks, const char *json_extra)
{
  t->format = format;
  t->rows = 0;
  t->ncols = ncols;
  t->cols = cols;
  if (format == BENCH_TEXT) {
    fputs(text_header, stdout);
  } else if (format == BENCH_CSV) {
    printf("size");
    for (int c = 0; c < ncols; ++c) printf(",%s", cols[c]);
    printf("\n");
  } else {
    printf("{\"benchmark\": ");
    bench_json_string(stdout, bench);
    printf(", \"mpi\": ");
    bench_json_string(stdout, bench_library());
    printf(", \"nranks\": %d%s%s, \"results\": [", nranks, json_extra ? ", " : "", json_extra ? json_extra : "");
  }
  fflush(stdout);
}

/* One line: text "%-10ld" then each value as "%18.2f" (osu_latency's layout). */
static inline void bench_table_row(bench_table *t, long size, const double *vals)
{
  if (t->format == BENCH_TEXT) {
    printf("%-10ld", size);
    for (int c = 0; c < t->ncols; ++c) printf("%18.2f", vals[c]);
    printf("\n");
  } else if (t->format == BENCH_CSV) {
    printf("%ld", size);
    for (int c = 0; c < t->ncols; ++c) printf(",%.4f", vals[c]);
    printf("\n");
  } else {
    printf("%s\n  {\"size\": %ld", t->rows ? "," : "", size);
    for (int c = 0; c < t->ncols; ++c) printf(", \"%s\": %.4f", t->cols[c], vals[c]);
    printf("}");
  }
  t->rows++;
  fflush(stdout);
}

/* wrong: bytes that -c found wrong, or -1 when not checked. */
static inline void bench_table_end(bench_table *t, long long wrong)
{
  if (t->format == BENCH_JSON) {
    if (wrong >= 0) printf("\n], \"wrong\": %lld}\n", wrong);
    else printf("\n]}\n");
  } else if (wrong >= 0) {
    if (t->format == BENCH_TEXT) printf("# Validation: %lld wrong bytes %s\n", wrong, wrong ? "FAILED" : "OK");
    else if (wrong) fprintf(stderr, "validation: %lld wrong bytes\n", wrong);
  }
  fflush(stdout);
}

#endif
