/* Shared by the OSU-style point-to-point benchmarks (latency, bw). Only <mpi.h>. */
#ifndef CHORUS_BENCH_COMMON_H
#define CHORUS_BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_LARGE_MESSAGE (8 * 1024) /* above this, iterations and warmup / 10 */

typedef struct {
  long min_size, max_size;
  int iterations, warmup; /* small-message values; large sizes use fewer */
  int window;             /* bw only */
  int csv;
} bench_opts;

static void bench_usage(const char *prog, const char *what, const bench_opts *d, int has_window)
{
  fprintf(stderr,
          "usage: mpirun -n 2 %s [options]   (%s; ranks beyond 2 stay idle)\n"
          "  -m [min:]max   message sizes in bytes, powers of two (%ld:%ld)\n"
          "  -i N           iterations per size (%d; fewer above %d bytes)\n"
          "  -x N           warmup iterations per size (%d; fewer above %d bytes)\n"
          "%s"
          "  --csv          machine-readable output: size,value\n"
          "  -h             this help\n",
          prog, what, d->min_size, d->max_size, d->iterations, BENCH_LARGE_MESSAGE, d->warmup,
          BENCH_LARGE_MESSAGE, has_window ? "  -W N           sends in flight per window (64)\n" : "");
}

/* Parses argv into *o (which holds the defaults). Returns 0 to run, 1 to exit
 * cleanly (help), -1 on a bad option. Every rank parses the same argv. */
static int bench_parse(int argc, char **argv, bench_opts *o, const char *what, int has_window, int rank)
{
  bench_opts d = *o;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--csv")) {
      o->csv = 1;
    } else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      if (rank == 0) bench_usage(argv[0], what, &d, has_window);
      return 1;
    } else if ((!strcmp(a, "-m") || !strcmp(a, "-i") || !strcmp(a, "-x") ||
                (has_window && !strcmp(a, "-W"))) && v) {
      ++i;
      char *end = NULL;
      if (a[1] == 'm') {
        const char *colon = strchr(v, ':');
        if (colon) {
          o->min_size = colon == v ? o->min_size : strtol(v, &end, 10);
          o->max_size = strtol(colon + 1, &end, 10);
        } else {
          o->max_size = strtol(v, &end, 10);
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
static long bench_first_size(const bench_opts *o) { return o->min_size; }
static long bench_next_size(long s) { return s == 0 ? 1 : s * 2; }

static void *bench_alloc(long bytes)
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

#endif
