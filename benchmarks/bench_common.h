/* Shared by the OSU-style point-to-point benchmarks (latency, bw, bibw, mbw_mr) and
 * the output helpers of the collective *_perf programs. Only <mpi.h> and libc. */
#ifndef CHORUS_BENCH_COMMON_H
#define CHORUS_BENCH_COMMON_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BENCH_LARGE_MESSAGE (8 * 1024) /* above this, iterations and warmup / 10 */

enum { BENCH_TEXT = 0, BENCH_CSV = 1, BENCH_JSON = 2 };

typedef struct {
  long min_size, max_size;
  int iterations, warmup; /* small-message values; large sizes use fewer */
  int window;             /* bw, bibw, mbw_mr only */
  int format;             /* BENCH_TEXT, BENCH_CSV or BENCH_JSON */
} bench_opts;

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
          "  -m [min:]max   message sizes in bytes, powers of two (%ld:%ld)\n"
          "  -i N           iterations per size (%d; fewer above %d bytes)\n"
          "  -x N           warmup iterations per size (%d; fewer above %d bytes)\n"
          "%s"
          "  --csv          machine-readable output: a header line, then one line per size\n"
          "  --json         machine-readable output: one JSON object\n"
          "  --progress     sizes done on stderr, a line each (default: in place, when a tty)\n"
          "  -h             this help\n",
          prog, what, d->min_size, d->max_size, d->iterations, BENCH_LARGE_MESSAGE, d->warmup,
          BENCH_LARGE_MESSAGE, has_window ? "  -W N           sends in flight per window (64)\n" : "");
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
static inline long bench_first_size(const bench_opts *o) { return o->min_size; }
static inline long bench_next_size(long s) { return s == 0 ? 1 : s * 2; }
static inline int bench_count_sizes(const bench_opts *o)
{
  int n = 0;
  for (long s = bench_first_size(o); s <= o->max_size; s = bench_next_size(s)) ++n;
  return n;
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

static inline void bench_table_end(bench_table *t)
{
  if (t->format == BENCH_JSON) printf("\n]}\n");
  fflush(stdout);
}

#endif
