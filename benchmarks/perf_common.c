/* Driver of the nccl-tests-style collective benchmarks (allreduce_perf, ...).
 *
 * Columns and bandwidths as nccl-tests: size is the total bytes of the operation
 * (allgather/alltoall: what every rank receives; reduce_scatter: what every rank
 * sends), count the elements per rank's block (for allreduce/bcast/reduce: all of
 * them); time is the mean over iterations, averaged over ranks; algbw = size / time;
 * busbw = algbw * factor (allreduce 2(n-1)/n, reduce_scatter/allgather/alltoall
 * (n-1)/n, bcast/reduce 1). Out-of-place, then in-place (MPI_IN_PLACE).
 * -c 1 fills inputs with values exact in every type and checks every result
 * element after the timed loop; the exit status is 1 when any is wrong.
 *
 * --osu prints osu_<coll>'s latency table instead (per-call timing with a barrier
 * between calls; avg/min/max over ranks; OSU's message-size meaning).
 *
 * --background-load N: world rank 0 forks N busy-loop processes before measuring
 * (bench_common.h: killed at the end, or when rank 0 dies), every call is timed on
 * its own, and each row adds p50 and p99: each rank's median and 99th percentile
 * over the timed calls, the slowest rank's (by the point-to-point control plane).
 * N = 0 prints the same columns on a quiet node. -n defaults to 100 then, and no
 * size runs fewer than 100 calls (or -n, when smaller).
 *
 * -m cuda: both buffers in CUDA device memory (the driver loaded at run time,
 * bench_cuda.h; device = local rank modulo the devices). Inputs are written on the
 * host and copied to the device before the timed loop; -c 1 copies results back
 * and checks them on the host. No driver or no device: exit 2, "no CUDA device: ...".
 * Only the MPI API, libc and dlopen are used: any mpicc builds this file. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* before any header: bench_common.h (--background-load) needs sched_setaffinity */
#endif
#include "perf_common.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>

#include "bench_common.h"

/* ---- the per-collective table ---- */

enum { BUS_ALLREDUCE, BUS_SPLIT, BUS_ONE };

typedef struct {
  const char *name;      /* "allreduce" */
  const char *osu_title; /* as in "# OSU MPI Allreduce Latency Test" */
  const char *env;       /* Chorus's variable that forces an algorithm */
  int reduces;           /* takes -o */
  int rooted;            /* takes -r */
  int bus;               /* BUS_*: busbw factor */
} coll_desc;

static const coll_desc colls[] = {
    [PERF_ALLREDUCE] = {"allreduce", "Allreduce", "CHORUS_ALLREDUCE_ALGO", 1, 0, BUS_ALLREDUCE},
    [PERF_REDUCE_SCATTER] = {"reduce_scatter", "Reduce_scatter_block", "CHORUS_REDUCE_SCATTER_BLOCK_ALGO", 1, 0,
                             BUS_SPLIT},
    [PERF_ALLGATHER] = {"allgather", "Allgather", "CHORUS_ALLGATHER_ALGO", 0, 0, BUS_SPLIT},
    [PERF_BCAST] = {"bcast", "Broadcast", "CHORUS_BCAST_ALGO", 0, 1, BUS_ONE},
    [PERF_REDUCE] = {"reduce", "Reduce", "CHORUS_REDUCE_ALGO", 1, 1, BUS_ONE},
    [PERF_ALLTOALL] = {"alltoall", "All-to-All Personalized Exchange", "CHORUS_ALLTOALL_ALGO", 0, 0, BUS_SPLIT},
};

static double bus_factor(int bus, int n)
{
  if (bus == BUS_ALLREDUCE) return 2.0 * (n - 1) / n;
  if (bus == BUS_SPLIT) return (double)(n - 1) / n;
  return 1.0;
}

/* ---- types and ops ---- */

enum { T_INT8, T_UINT8, T_INT32, T_UINT32, T_INT64, T_UINT64, T_FLOAT, T_DOUBLE, T_COUNT };
static const struct {
  const char *name;
  int size;
  long bound; /* every value we generate, and every exact result, stays within [0, bound] */
} types[T_COUNT] = {
    {"int8", 1, 127},          {"uint8", 1, 255},         {"int32", 4, 1L << 30}, {"uint32", 4, 1L << 30},
    {"int64", 8, 1L << 30},    {"uint64", 8, 1L << 30},   {"float", 4, 1L << 24}, {"double", 8, 1L << 30},
};

static MPI_Datatype type_mpi(int t)
{
  switch (t) {
    case T_INT8: return MPI_INT8_T;
    case T_UINT8: return MPI_UINT8_T;
    case T_INT32: return MPI_INT32_T;
    case T_UINT32: return MPI_UINT32_T;
    case T_INT64: return MPI_INT64_T;
    case T_UINT64: return MPI_UINT64_T;
    case T_FLOAT: return MPI_FLOAT;
    default: return MPI_DOUBLE;
  }
}

enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_COUNT, OP_NONE = OP_COUNT };
static const char *const op_names[] = {"sum", "prod", "max", "min", "none"};

static MPI_Op op_mpi(int op)
{
  switch (op) {
    case OP_PROD: return MPI_PROD;
    case OP_MAX: return MPI_MAX;
    case OP_MIN: return MPI_MIN;
    default: return MPI_SUM;
  }
}

static void put(int t, void *buf, long i, long v)
{
  switch (t) {
    case T_INT8: ((int8_t *)buf)[i] = (int8_t)v; break;
    case T_UINT8: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case T_INT32: ((int32_t *)buf)[i] = (int32_t)v; break;
    case T_UINT32: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    case T_INT64: ((int64_t *)buf)[i] = (int64_t)v; break;
    case T_UINT64: ((uint64_t *)buf)[i] = (uint64_t)v; break;
    case T_FLOAT: ((float *)buf)[i] = (float)v; break;
    default: ((double *)buf)[i] = (double)v; break;
  }
}

/* The element as a double (exact: every value we expect is an integer <= 2^30). */
static double get(int t, const void *buf, long i)
{
  switch (t) {
    case T_INT8: return ((const int8_t *)buf)[i];
    case T_UINT8: return ((const uint8_t *)buf)[i];
    case T_INT32: return ((const int32_t *)buf)[i];
    case T_UINT32: return ((const uint32_t *)buf)[i];
    case T_INT64: return (double)((const int64_t *)buf)[i];
    case T_UINT64: return (double)((const uint64_t *)buf)[i];
    case T_FLOAT: return ((const float *)buf)[i];
    default: return ((const double *)buf)[i];
  }
}

/* ---- options ---- */

typedef struct {
  long min_bytes, max_bytes, step_bytes;
  long step_factor; /* > 1: multiply; else add step_bytes */
  long list[64];    /* -S: explicit sizes */
  int nlist;
  int iters, warmup, check, root;
  int type, op;         /* -1: all */
  const char *algo;     /* -a, or NULL */
  int cuda;             /* -m cuda */
  int format, osu;      /* BENCH_TEXT/CSV/JSON; --osu */
  double budget_ms;     /* --budget-ms: cap the timed loop of each size near this */
  int load;             /* --background-load N; -1 when not given */
  int help;
  int set_b, set_e, set_n, set_w, set_d, set_f, set_i;
  char error[256];
} perf_opts;

static void usage(const char *prog, const coll_desc *c)
{
  fprintf(stderr,
          "usage: mpirun -n N %s [options]   (nccl-tests-style %s benchmark over MPI)\n"
          "  -b SIZE      smallest size in bytes, K/M/G suffixes (8)\n"
          "  -e SIZE      largest size (32M)\n"
          "  -f FACTOR    multiply the size by FACTOR per step (2)\n"
          "  -i BYTES     add BYTES per step instead (when -f is not given)\n"
          "  -S LIST      these sizes instead, comma-separated (Chorus extension)\n"
          "  -n N         timed iterations per size (20)\n"
          "  -w N         warmup iterations per size (5)\n"
          "  -c 0|1       check every result element (1); exit 1 when any is wrong\n"
          "  -d TYPE      int8|uint8|int32|uint32|int64|uint64|float|double|all (float)\n"
          "  -o OP        sum|prod|max|min|all (sum; reductions only)\n"
          "  -r ROOT      root rank (0; bcast and reduce only)\n"
          "  -a ALGO      Chorus only: force this algorithm (%s, set before MPI_Init);\n"
          "               sets CHORUS_ALGO_FALLBACK=error unless set, so an algorithm that\n"
          "               cannot run fails instead of measuring another, and\n"
          "               CHORUS_COLL_SHM_CALLS=1 unless set, so the shared-window\n"
          "               algorithms run from the first call. Ignored, with a note, by\n"
          "               other MPIs\n"
          "  -m host|cuda buffer memory: host, or CUDA device memory (exit 2 when there is\n"
          "               no CUDA driver or device); -c 1 checks results copied back\n"
          "  --osu        osu_%s latency table instead: Size, Avg/Min/Max Latency(us),\n"
          "               Iterations (OSU defaults unless given: -b 4 or 1, -e 1M, -n 1000,\n"
          "               -w 200; 1/10 of them above 8 KiB)\n"
          "  --budget-ms MS  fewer timed iterations for a size whose warmup shows -n of\n"
          "               them would take longer than MS (Chorus extension; 0 = off)\n"
          "  --background-load N  a busy node: rank 0 starts N busy-loop processes (killed\n"
          "               at the end, or when rank 0 dies) before measuring; every call is\n"
          "               timed and each row adds p50(us) and p99(us): each rank's median\n"
          "               and 99th percentile per call, the slowest rank's (CSV/JSON too).\n"
          "               N = 0: the same columns, no load. -n defaults to 100, and no size\n"
          "               runs fewer than 100 calls (or -n when smaller), --budget-ms or not\n"
          "  --csv, --json  machine-readable output\n"
          "  --progress   sizes done on stderr, a line each (default: in place when stderr\n"
          "               is a terminal, which under a launcher it is not)\n"
          "  -h           this help\n",
          prog, c->name, c->env, c->name);
}

static void set_error(perf_opts *o, const char *fmt, ...)
{
  if (o->error[0]) return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(o->error, sizeof o->error, fmt, ap);
  va_end(ap);
}

/* "64K", "1M", "2G", "4096": bytes (powers of 1024). */
static int parse_size(const char *s, long *out)
{
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || v < 0) return -1;
  long mul = 1;
  switch (toupper((unsigned char)*end)) {
    case 'K': mul = 1L << 10; ++end; break;
    case 'M': mul = 1L << 20; ++end; break;
    case 'G': mul = 1L << 30; ++end; break;
    default: break;
  }
  if (*end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  if (*end) return -1;
  *out = v * mul;
  return 0;
}

static int parse_int(const char *s, int *out)
{
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || *end || v < -1000000000L || v > 1000000000L) return -1;
  *out = (int)v;
  return 0;
}

static void parse(int argc, char **argv, const coll_desc *c, perf_opts *o)
{
  memset(o, 0, sizeof *o);
  o->min_bytes = 8;
  o->max_bytes = 32L << 20;
  o->step_bytes = 1L << 20;
  o->step_factor = 2;
  o->iters = 20;
  o->warmup = 5;
  o->check = 1;
  o->type = T_FLOAT;
  o->op = c->reduces ? OP_SUM : OP_NONE;
  o->format = BENCH_TEXT;
  o->load = -1;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i];
    const char *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
      o->help = 1;
      continue;
    }
    if (!strcmp(a, "--csv")) { o->format = BENCH_CSV; continue; }
    if (!strcmp(a, "--json")) { o->format = BENCH_JSON; continue; }
    if (!strcmp(a, "--osu")) { o->osu = 1; continue; }
    if (!strcmp(a, "--progress")) { bench_progress_force(); continue; }
    if (!strncmp(a, "--background-load=", 18) || (!strcmp(a, "--background-load") && v)) {
      const char *n = a[17] == '=' ? a + 18 : argv[++i];
      int k = -1;
      if (parse_int(n, &k) || k < 0 || k > 4096) {
        set_error(o, "bad value '%s' for --background-load (0..4096)", n);
        return;
      }
      o->load = k;
      continue;
    }
    int known = a[0] == '-' && a[1] && !a[2] && strchr("befiSnwcdorami", a[1]);
    if (!strcmp(a, "--budget-ms") || !strcmp(a, "--background-load")) known = 1;
    if (!known) {
      set_error(o, "unknown option '%s' (-h for help)", a);
      return;
    }
    if (!v) {
      set_error(o, "option %s needs a value", a);
      return;
    }
    ++i;
    int bad = 0;
    if (!strcmp(a, "--budget-ms")) {
      char *end = NULL;
      o->budget_ms = strtod(v, &end);
      bad = end == v || *end || o->budget_ms < 0;
      continue;
    }
    switch (a[1]) {
      case 'b': bad = parse_size(v, &o->min_bytes); o->set_b = 1; break;
      case 'e': bad = parse_size(v, &o->max_bytes); o->set_e = 1; break;
      case 'i': bad = parse_size(v, &o->step_bytes) || o->step_bytes < 1; o->set_i = 1; break;
      case 'f': {
        int f = 0;
        bad = parse_int(v, &f) || f < 1;
        o->step_factor = f;
        o->set_f = 1;
        break;
      }
      case 'S': {
        char tmp[1024];
        snprintf(tmp, sizeof tmp, "%s", v);
        o->nlist = 0;
        for (char *save = NULL, *tok = strtok_r(tmp, ",", &save); tok && !bad; tok = strtok_r(NULL, ",", &save)) {
          if (o->nlist == (int)(sizeof o->list / sizeof o->list[0])) bad = 1;
          else bad = parse_size(tok, &o->list[o->nlist++]);
        }
        bad = bad || o->nlist == 0;
        break;
      }
      case 'n': bad = parse_int(v, &o->iters) || o->iters < 1; o->set_n = 1; break;
      case 'w': bad = parse_int(v, &o->warmup) || o->warmup < 0; o->set_w = 1; break;
      case 'c': bad = parse_int(v, &o->check) || o->check < 0; break;
      case 'r': bad = parse_int(v, &o->root) || o->root < 0; break;
      case 'a': o->algo = v; break;
      case 'm':
        if (!strcmp(v, "cuda")) o->cuda = 1;
        else bad = strcmp(v, "host") != 0;
        break;
      case 'd': {
        o->set_d = 1;
        o->type = -2;
        if (!strcmp(v, "all")) o->type = -1;
        else if (!strcmp(v, "char")) o->type = T_INT8;
        else if (!strcmp(v, "int")) o->type = T_INT32;
        for (int t = 0; t < T_COUNT; ++t)
          if (!strcmp(v, types[t].name)) o->type = t;
        if (o->type == -2) {
          if (!strcmp(v, "half") || !strcmp(v, "bfloat16") || !strncmp(v, "fp8", 3))
            set_error(o, "-d %s: MPI has no such type (types: int8 uint8 int32 uint32 int64 uint64 float double all)", v);
          bad = 1;
        }
        break;
      }
      case 'o': /* accepted and ignored by the data-movement collectives, as nccl-tests does */
        o->op = -2;
        if (!strcmp(v, "all")) o->op = -1;
        for (int k = 0; k < OP_COUNT; ++k)
          if (!strcmp(v, op_names[k])) o->op = k;
        if (o->op == -2) {
          if (!strcmp(v, "avg") || !strcmp(v, "premulsum"))
            set_error(o, "-o %s: NCCL-only operation; MPI has sum|prod|max|min", v);
          bad = 1;
        }
        if (!c->reduces) o->op = OP_NONE;
        break;
      default: bad = 1; break;
    }
    if (bad) {
      set_error(o, "bad value '%s' for %s (-h for help)", v, a);
      return;
    }
  }
  if (o->osu) { /* OSU's defaults for what was not given */
    if (!o->set_d && !c->reduces) o->type = T_INT8;
    if (!o->set_b) o->min_bytes = o->type >= 0 ? types[o->type].size : 1;
    if (!o->set_e) o->max_bytes = 1L << 20;
    if (!o->set_n) o->iters = 1000;
    if (!o->set_w) o->warmup = 200;
  }
  if (o->load >= 0 && !o->set_n && !o->osu) o->iters = 100; /* enough calls for a p99 */
  if (o->set_i && !o->set_f) o->step_factor = 1; /* -i alone: additive steps */
  if (o->max_bytes < o->min_bytes) set_error(o, "-e %ld is below -b %ld", o->max_bytes, o->min_bytes);
  if (o->step_factor <= 1 && o->step_bytes < 1) set_error(o, "bad step");
}

/* ---- one collective at one size ---- */

typedef struct {
  perf_coll which;
  const coll_desc *c;
  MPI_Comm comm;
  int rank, n, type, op, root;
  long count; /* allreduce/bcast/reduce: all elements; else one rank's (peer's) block */
  long bound; /* values generated are < bound */
  void *sbuf, *rbuf;   /* what MPI is given: host or device memory */
  void *hsbuf, *hrbuf; /* host views: sbuf/rbuf themselves, or host copies of device buffers */
  int cuda;            /* sbuf/rbuf are device memory */
} run_ctx;

static long send_elems(const run_ctx *x)
{
  return x->which == PERF_REDUCE_SCATTER || x->which == PERF_ALLTOALL ? x->count * x->n : x->count;
}
static long recv_elems(const run_ctx *x)
{
  return x->which == PERF_ALLGATHER || x->which == PERF_ALLTOALL ? x->count * x->n : x->count;
}
/* Total bytes of the operation (nccl-tests' size column). */
static long op_bytes(const run_ctx *x)
{
  long e = send_elems(x) > recv_elems(x) ? send_elems(x) : recv_elems(x);
  return e * types[x->type].size;
}

/* Element idx of rank r's input: small non-negative integers, exact in every type,
 * with results (sum over ranks, product) that stay exact too. */
static long gen(const run_ctx *x, long idx, int r)
{
  if (x->op == OP_PROD) return idx % x->n == r ? 2 + (idx / x->n) % 2 : 1;
  return (idx * 7 + (long)r * 13 + 1) % x->bound;
}

static long reduced(const run_ctx *x, long idx)
{
  long acc = gen(x, idx, 0);
  for (int r = 1; r < x->n; ++r) {
    long v = gen(x, idx, r);
    switch (x->op) {
      case OP_PROD: acc *= v; break;
      case OP_MAX: acc = v > acc ? v : acc; break;
      case OP_MIN: acc = v < acc ? v : acc; break;
      default: acc += v; break;
    }
  }
  return acc;
}

/* This rank's input element j (its send buffer, or what MPI_IN_PLACE reads). */
static long input(const run_ctx *x, long j)
{
  switch (x->which) {
    case PERF_BCAST: return gen(x, j, x->root);
    case PERF_ALLGATHER: return gen(x, (long)x->rank * x->count + j, x->rank);
    case PERF_ALLTOALL: return gen(x, (long)x->rank * x->n * x->count + j, x->rank);
    default: return gen(x, j, x->rank);
  }
}

static void fill(const run_ctx *x, int in_place)
{
  long s = send_elems(x), r = recv_elems(x), big = s > r ? s : r;
  memset(x->hrbuf, 0xff, (size_t)(big * types[x->type].size)); /* never a value we expect */
  void *dst = in_place ? x->hrbuf : x->hsbuf;
  int wrote_send = 0;
  if (in_place && x->which == PERF_ALLGATHER) {
    for (long j = 0; j < x->count; ++j) put(x->type, x->hrbuf, (long)x->rank * x->count + j, input(x, j));
  } else if (!(x->which == PERF_BCAST && in_place && x->rank != x->root)) {
    for (long j = 0; j < s; ++j) put(x->type, dst, j, input(x, j));
    wrote_send = !in_place;
  }
  if (x->cuda) { /* the inputs to the device, where MPI reads them */
    if (bench_cuda_copy(x->rbuf, x->hrbuf, (size_t)(big * types[x->type].size)) ||
        (wrote_send && bench_cuda_copy(x->sbuf, x->hsbuf, (size_t)(s * types[x->type].size))))
      bench_cuda_fail("-m cuda: copying inputs to the device");
  }
}

static int call(const run_ctx *x, int in_place)
{
  MPI_Datatype dt = type_mpi(x->type);
  MPI_Op op = op_mpi(x->op);
  int cnt = (int)x->count;
  void *ip = in_place ? MPI_IN_PLACE : x->sbuf;
  switch (x->which) {
    case PERF_ALLREDUCE: return MPI_Allreduce(ip, x->rbuf, cnt, dt, op, x->comm);
    case PERF_REDUCE_SCATTER: return MPI_Reduce_scatter_block(ip, x->rbuf, cnt, dt, op, x->comm);
    case PERF_ALLGATHER:
      return in_place ? MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->rbuf, cnt, dt, x->comm)
                      : MPI_Allgather(x->sbuf, cnt, dt, x->rbuf, cnt, dt, x->comm);
    case PERF_ALLTOALL:
      return in_place ? MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, x->rbuf, cnt, dt, x->comm)
                      : MPI_Alltoall(x->sbuf, cnt, dt, x->rbuf, cnt, dt, x->comm);
    case PERF_BCAST:
      return MPI_Bcast(x->rank == x->root && !in_place ? x->sbuf : x->rbuf, cnt, dt, x->root, x->comm);
    case PERF_REDUCE:
      if (!in_place) return MPI_Reduce(x->sbuf, x->rbuf, cnt, dt, op, x->root, x->comm);
      if (x->rank == x->root) return MPI_Reduce(MPI_IN_PLACE, x->rbuf, cnt, dt, op, x->root, x->comm);
      return MPI_Reduce(x->rbuf, NULL, cnt, dt, op, x->root, x->comm);
  }
  return MPI_ERR_OTHER;
}

/* Wrong elements in this rank's result (copied back from the device first). */
static long long check(const run_ctx *x, int in_place)
{
  long long wrong = 0;
  int t = x->type;
  if (x->cuda) {
    long big = send_elems(x) > recv_elems(x) ? send_elems(x) : recv_elems(x);
    size_t bytes = (size_t)(big * types[t].size);
    if (bench_cuda_copy(x->hrbuf, x->rbuf, bytes) ||
        (x->which == PERF_BCAST && bench_cuda_copy(x->hsbuf, x->sbuf, (size_t)(x->count * types[t].size))))
      bench_cuda_fail("-m cuda: copying results from the device");
  }
  switch (x->which) {
    case PERF_ALLREDUCE:
      for (long i = 0; i < x->count; ++i) wrong += get(t, x->hrbuf, i) != (double)reduced(x, i);
      break;
    case PERF_REDUCE:
      if (x->rank == x->root)
        for (long i = 0; i < x->count; ++i) wrong += get(t, x->hrbuf, i) != (double)reduced(x, i);
      break;
    case PERF_REDUCE_SCATTER:
      for (long i = 0; i < x->count; ++i)
        wrong += get(t, x->hrbuf, i) != (double)reduced(x, (long)x->rank * x->count + i);
      break;
    case PERF_BCAST: {
      const void *b = x->rank == x->root && !in_place ? x->hsbuf : x->hrbuf;
      for (long i = 0; i < x->count; ++i) wrong += get(t, b, i) != (double)gen(x, i, x->root);
      break;
    }
    case PERF_ALLGATHER:
      for (long j = 0; j < x->count * x->n; ++j) wrong += get(t, x->hrbuf, j) != (double)gen(x, j, (int)(j / x->count));
      break;
    case PERF_ALLTOALL:
      for (int p = 0; p < x->n; ++p)
        for (long i = 0; i < x->count; ++i)
          wrong += get(t, x->hrbuf, p * x->count + i) !=
                   (double)gen(x, (long)p * x->n * x->count + (long)x->rank * x->count + i, p);
      break;
  }
  return wrong;
}

/* ---- the driver ---- */

typedef struct {
  double time_us, algbw, busbw;
  double min_us, max_us; /* --osu */
  double p50_us, p99_us; /* --background-load: per call, the slowest rank's */
  int iters;
  long long wrong; /* -1: not checked */
} result;

static void fail_mpi(const run_ctx *x, int rc, long bytes, const char *prog)
{
  if (x->rank == 0) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fflush(stdout);
    fprintf(stderr, "%s: MPI %s failed at %ld bytes: %s\n", prog, x->c->name, bytes, msg);
  }
}

/* Control-plane reductions (timings, wrong counts, the iteration budget) go by
 * point-to-point through rank 0: a forced or broken collective never touches them. */
enum { CTL_SUM, CTL_MIN, CTL_MAX };
static double ctl_allreduce(const run_ctx *x, double v, int op)
{
  bench_ctl_allreduce(x->comm, x->rank, x->n, &v, 1,
                      op == CTL_SUM ? BENCH_CTL_SUM : op == CTL_MIN ? BENCH_CTL_MIN : BENCH_CTL_MAX);
  return v;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Returns the MPI error of the first failing call, else MPI_SUCCESS. */
static int measure(run_ctx *x, const perf_opts *o, int in_place, int large, result *res)
{
  int rc = MPI_SUCCESS;
  int iters = o->iters, warmup = o->warmup;
  if (o->osu && large) {
    iters = iters / 10 > 0 ? iters / 10 : 1;
    warmup /= 20;
  }
  fill(x, in_place);
  double t0 = 0, *wt = malloc(sizeof(double) * (size_t)(warmup > 0 ? warmup : 1));
  for (int i = 0; i < warmup && rc == MPI_SUCCESS; ++i) {
    t0 = MPI_Wtime();
    rc = call(x, in_place);
    wt[i] = MPI_Wtime() - t0;
  }
  if (rc == MPI_SUCCESS && o->budget_ms > 0 && warmup > 0) {
    /* The median warmup call (the first one may set things up), the slowest rank's:
     * every rank must agree on the count. */
    qsort(wt, (size_t)warmup, sizeof(double), cmp_double);
    double slowest = ctl_allreduce(x, wt[warmup / 2], CTL_MAX);
    double fit = o->budget_ms * 1e-3 / (slowest > 0 ? slowest : 1e-9);
    int least = iters < 3 ? iters : 3; /* one descheduled call must not be the whole sample */
    if (fit < iters) iters = fit < least ? least : (int)fit;
  }
  free(wt);
  if (rc != MPI_SUCCESS) return rc;
  if (o->load >= 0 && iters < bench_load_least(o->iters)) iters = bench_load_least(o->iters); /* a p99 */
  res->iters = iters;
  double *per = o->load >= 0 ? malloc(sizeof(double) * (size_t)iters) : NULL; /* each call, s */
  if (!o->osu) {
    MPI_Barrier(x->comm);
    t0 = MPI_Wtime();
    if (per) {
      double c0 = t0, c1 = 0;
      for (int i = 0; i < iters && rc == MPI_SUCCESS; ++i) {
        rc = call(x, in_place);
        c1 = MPI_Wtime();
        per[i] = c1 - c0;
        c0 = c1;
      }
    } else {
      for (int i = 0; i < iters && rc == MPI_SUCCESS; ++i) rc = call(x, in_place);
    }
    double sec = (MPI_Wtime() - t0) / iters;
    if (rc != MPI_SUCCESS) {
      free(per);
      return rc;
    }
    sec = ctl_allreduce(x, sec, CTL_SUM) / x->n;
    res->time_us = sec * 1e6;
    res->algbw = (double)op_bytes(x) / 1e9 / sec;
    res->busbw = res->algbw * bus_factor(x->c->bus, x->n);
  } else { /* osu_<coll>: time each call, barrier between calls */
    double total = 0;
    MPI_Barrier(x->comm);
    for (int i = 0; i < iters && rc == MPI_SUCCESS; ++i) {
      t0 = MPI_Wtime();
      rc = call(x, in_place);
      double t = MPI_Wtime() - t0;
      total += t;
      if (per) per[i] = t;
      MPI_Barrier(x->comm);
    }
    if (rc != MPI_SUCCESS) {
      free(per);
      return rc;
    }
    double lat = total * 1e6 / iters;
    res->min_us = ctl_allreduce(x, lat, CTL_MIN);
    res->max_us = ctl_allreduce(x, lat, CTL_MAX);
    res->time_us = ctl_allreduce(x, lat, CTL_SUM) / x->n;
  }
  if (per) { /* each rank's own p50 and p99; the slowest rank's of each */
    double q[2];
    bench_percentiles(per, iters, &q[0], &q[1]);
    bench_ctl_allreduce(x->comm, x->rank, x->n, q, 2, BENCH_CTL_MAX);
    res->p50_us = q[0] * 1e6;
    res->p99_us = q[1] * 1e6;
    free(per);
  }
  res->wrong = -1;
  if (o->check) {
    fill(x, in_place);
    rc = call(x, in_place);
    if (rc != MPI_SUCCESS) return rc;
    res->wrong = (long long)ctl_allreduce(x, (double)check(x, in_place), CTL_SUM);
  }
  return MPI_SUCCESS;
}

static const char *time_str(double us, char *buf, size_t n)
{
  if (us >= 10000) snprintf(buf, n, "%7.0f", us);
  else if (us >= 100) snprintf(buf, n, "%7.1f", us);
  else snprintf(buf, n, "%7.2f", us);
  return buf;
}

static void print_header(const perf_opts *o, const run_ctx *x, const char *prog, const char *note)
{
  const coll_desc *c = x->c;
  if (o->format == BENCH_JSON) {
    printf("{\"benchmark\": ");
    bench_json_string(stdout, prog);
    printf(", \"collective\": \"%s\", \"mode\": \"%s\", \"mpi\": ", c->name, o->osu ? "osu" : "nccl");
    bench_json_string(stdout, bench_library());
    printf(", \"nranks\": %d, \"algo\": ", x->n);
    bench_json_string(stdout, o->algo ? (note ? "ignored" : o->algo) : "auto");
    printf(", \"memory\": \"%s\", \"iters\": %d, \"warmup\": %d, \"check\": %d", o->cuda ? "cuda" : "host",
           o->iters, o->warmup, o->check ? 1 : 0);
    if (o->load >= 0) printf(", \"background_load\": %d", o->load);
    printf(", \"results\": [");
  } else if (o->format == BENCH_CSV) {
    if (o->osu) printf("size,avg_us,min_us,max_us,iterations,type,redop,wrong%s\n", o->load >= 0 ? ",p50_us,p99_us" : "");
    else
      printf("size,count,type,redop,root,oop_time_us,oop_algbw_GBps,oop_busbw_GBps,oop_wrong,"
             "ip_time_us,ip_algbw_GBps,ip_busbw_GBps,ip_wrong%s\n",
             o->load >= 0 ? ",oop_p50_us,oop_p99_us,ip_p50_us,ip_p99_us" : "");
  } else if (o->osu) {
    printf("# OSU MPI %s Latency Test (%s --osu; %s)\n", c->osu_title, prog, bench_library());
    if (note) printf("# %s\n", note);
    if (o->load >= 0)
      printf("# background load: %d busy-loop process%s on rank 0's node; p50/p99: per call, the slowest rank's\n",
             o->load, o->load == 1 ? "" : "es");
    printf("# Size       Avg Latency(us)   Min Latency(us)   Max Latency(us)  Iterations%s\n",
           o->load >= 0 ? "   P50 Latency(us)   P99 Latency(us)" : "");
  } else {
    printf("# %s: %s, %d ranks\n", prog, bench_library(), x->n);
    printf("# minBytes %ld maxBytes %ld step: %ld(%s) warmup iters: %d iters: %d validation: %d algo: %s memory: %s\n",
           o->nlist ? o->list[0] : o->min_bytes, o->nlist ? o->list[o->nlist - 1] : o->max_bytes,
           o->step_factor > 1 ? o->step_factor : o->step_bytes, o->step_factor > 1 ? "factor" : "bytes", o->warmup,
           o->iters, o->check ? 1 : 0, o->algo && !note ? o->algo : "auto", o->cuda ? "cuda" : "host");
    if (o->cuda) printf("# CUDA device %d of %d: %s (rank 0)\n", bench_cuda.device, bench_cuda.ndevices, bench_cuda.name);
    if (note) printf("# %s\n", note);
    int load = o->load >= 0;
    if (load)
      printf("# background load: %d busy-loop process%s on rank 0's node; p50/p99: per call, the slowest rank's\n",
             o->load, o->load == 1 ? "" : "es");
    printf("#\n");
    if (load) printf("#%51s  %51s  %49s\n", "", "out-of-place", "in-place");
    else printf("#%51s  %33s  %31s\n", "", "out-of-place", "in-place");
    printf("# %10s  %12s  %8s  %6s  %6s", "size", "count", "type", "redop", "root");
    for (int k = 0; k < 2; ++k) {
      if (load) printf("  %7s  %7s  %7s  %6s  %6s  %6s", "time", "p50", "p99", "algbw", "busbw", "#wrong");
      else printf("  %7s  %6s  %6s  %6s", "time", "algbw", "busbw", "#wrong");
    }
    printf("\n# %10s  %12s  %8s  %6s  %6s", "(B)", "(elements)", "", "", "");
    for (int k = 0; k < 2; ++k) {
      if (load) printf("  %7s  %7s  %7s  %6s  %6s  %6s", "(us)", "(us)", "(us)", "(GB/s)", "(GB/s)", "");
      else printf("  %7s  %6s  %6s  %6s", "(us)", "(GB/s)", "(GB/s)", "");
    }
    printf("\n");
  }
  fflush(stdout);
}

static void print_row(const perf_opts *o, const run_ctx *x, int rows, const result *r /* [2] */)
{
  long bytes = op_bytes(x);
  if (o->osu && (x->which == PERF_ALLGATHER || x->which == PERF_ALLTOALL)) /* OSU: per rank / per peer */
    bytes = x->count * types[x->type].size;
  const char *tn = types[x->type].name, *on = op_names[x->op];
  int root = x->c->rooted ? x->root : -1;
  char w[2][32], tb[2][32];
  for (int k = 0; k < 2; ++k) {
    if (r[k].wrong < 0) snprintf(w[k], sizeof w[k], "%s", o->format == BENCH_CSV ? "" : "N/A");
    else snprintf(w[k], sizeof w[k], "%lld", r[k].wrong);
  }
  if (o->format == BENCH_JSON) {
    printf("%s\n  {\"size\": %ld, \"count\": %ld, \"type\": \"%s\", \"redop\": \"%s\", \"root\": %d", rows ? "," : "",
           bytes, x->count, tn, on, root);
    if (o->osu) {
      printf(", \"avg_us\": %.4f, \"min_us\": %.4f, \"max_us\": %.4f, \"iterations\": %d, \"wrong\": %s",
             r[0].time_us, r[0].min_us, r[0].max_us, r[0].iters, r[0].wrong < 0 ? "null" : w[0]);
      if (o->load >= 0) printf(", \"p50_us\": %.4f, \"p99_us\": %.4f", r[0].p50_us, r[0].p99_us);
      printf("}");
    } else {
      for (int k = 0; k < 2; ++k) {
        printf(", \"%s\": {\"time_us\": %.4f, \"algbw\": %.6f, \"busbw\": %.6f, \"iters\": %d, \"wrong\": %s",
               k ? "in_place" : "out_of_place", r[k].time_us, r[k].algbw, r[k].busbw, r[k].iters,
               r[k].wrong < 0 ? "null" : w[k]);
        if (o->load >= 0) printf(", \"p50_us\": %.4f, \"p99_us\": %.4f", r[k].p50_us, r[k].p99_us);
        printf("}");
      }
      printf("}");
    }
  } else if (o->format == BENCH_CSV) {
    if (o->osu)
      printf("%ld,%.4f,%.4f,%.4f,%d,%s,%s,%s", bytes, r[0].time_us, r[0].min_us, r[0].max_us, r[0].iters, tn, on,
             w[0]);
    else
      printf("%ld,%ld,%s,%s,%d,%.4f,%.6f,%.6f,%s,%.4f,%.6f,%.6f,%s", bytes, x->count, tn, on, root, r[0].time_us,
             r[0].algbw, r[0].busbw, w[0], r[1].time_us, r[1].algbw, r[1].busbw, w[1]);
    if (o->load >= 0) {
      printf(",%.4f,%.4f", r[0].p50_us, r[0].p99_us);
      if (!o->osu) printf(",%.4f,%.4f", r[1].p50_us, r[1].p99_us);
    }
    printf("\n");
  } else if (o->osu) {
    printf("%-10ld%18.2f%18.2f%18.2f%12d", bytes, r[0].time_us, r[0].min_us, r[0].max_us, r[0].iters);
    if (o->load >= 0) printf("%18.2f%18.2f", r[0].p50_us, r[0].p99_us);
    printf("\n");
  } else {
    printf("%12ld  %12ld  %8s  %6s  %6d", bytes, x->count, tn, on, root);
    for (int k = 0; k < 2; ++k) {
      char p50[32], p99[32];
      if (o->load >= 0)
        printf("  %7s  %7s  %7s  %6.2f  %6.2f  %6s", time_str(r[k].time_us, tb[k], sizeof tb[k]),
               time_str(r[k].p50_us, p50, sizeof p50), time_str(r[k].p99_us, p99, sizeof p99), r[k].algbw, r[k].busbw,
               w[k]);
      else
        printf("  %7s  %6.2f  %6.2f  %6s", time_str(r[k].time_us, tb[k], sizeof tb[k]), r[k].algbw, r[k].busbw, w[k]);
    }
    printf("\n");
  }
  fflush(stdout);
}

/* Elements per rank's block for a requested size (OSU: the per-rank message). */
static long count_for(const run_ctx *x, const perf_opts *o, long bytes)
{
  long e = bytes / types[x->type].size;
  if (x->which == PERF_ALLREDUCE || x->which == PERF_BCAST || x->which == PERF_REDUCE) return e;
  if (o->osu && x->which != PERF_REDUCE_SCATTER) return e; /* osu_allgather/alltoall: per rank/peer */
  return e / x->n;
}

static int nsizes(const perf_opts *o)
{
  if (o->nlist) return o->nlist;
  int k = 0;
  for (long s = o->min_bytes; s <= o->max_bytes; s = o->step_factor > 1 ? (s ? s * o->step_factor : 1) : s + o->step_bytes)
    ++k;
  return k;
}

static long size_at(const perf_opts *o, int k)
{
  if (o->nlist) return o->list[k];
  long s = o->min_bytes;
  while (k-- > 0) s = o->step_factor > 1 ? (s ? s * o->step_factor : 1) : s + o->step_bytes;
  return s;
}

int perf_main(int argc, char **argv, perf_coll which)
{
  const coll_desc *c = &colls[which];
  const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
  perf_opts o;
  parse(argc, argv, c, &o);

  /* -a acts through the environment, so it must be set before MPI_Init (callable
   * before it: MPI_Get_library_version). */
  char lib[MPI_MAX_LIBRARY_VERSION_STRING];
  int liblen = 0;
  MPI_Get_library_version(lib, &liblen);
  int chorus = strstr(lib, "Chorus") != NULL;
  char note[160] = "";
  if (o.algo && !o.error[0] && !o.help) {
    if (chorus) {
      setenv(c->env, o.algo, 1);
      setenv("CHORUS_ALGO_FALLBACK", "error", 0);
      /* The calls run on a duplicate of MPI_COMM_WORLD, which gets its shared
       * window with its CHORUS_COLL_SHM_CALLS-th blocking collective: a forced
       * shared-window algorithm could not run the calls before that. */
      setenv("CHORUS_COLL_SHM_CALLS", "1", 0);
    } else {
      snprintf(note, sizeof note, "note: -a %s ignored: algorithm selection is Chorus-only (%s=...)", o.algo, c->env);
    }
  }

  MPI_Init(&argc, &argv);
  run_ctx x;
  memset(&x, 0, sizeof x);
  x.which = which;
  x.c = c;
  MPI_Comm_rank(MPI_COMM_WORLD, &x.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &x.n);
  if (!o.error[0] && !o.help && o.root >= x.n) set_error(&o, "-r %d: only %d ranks", o.root, x.n);
  if (o.help || o.error[0]) {
    if (x.rank == 0) {
      if (o.help) usage(argv[0], c);
      else fprintf(stderr, "%s: %s\n", prog, o.error);
    }
    MPI_Finalize();
    return o.help ? 0 : 1;
  }
  if (note[0] && x.rank == 0 && o.format != BENCH_TEXT) fprintf(stderr, "%s: %s\n", prog, note);

  /* The benchmark's own communicator returns errors, so a forced algorithm that
   * cannot run is reported (every rank selects alike, so every rank sees it). */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &x.comm); /* Chorus: may run the forced allreduce */
  if (rc != MPI_SUCCESS) {
    if (x.rank == 0) {
      char msg[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_Error_string(rc, msg, &len);
      fprintf(stderr, "%s: %s%s: %s\n", prog, o.algo ? "-a " : "MPI_Comm_dup", o.algo ? o.algo : "", msg);
    }
    MPI_Finalize();
    return 1;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  x.root = o.root;

  /* -m cuda: every rank loads the driver and takes its device; all agree (by p2p,
   * like the other control-plane steps) before any buffer is allocated. */
  if (o.cuda) {
    int local = 0;
    MPI_Comm node;
    if (MPI_Comm_split_type(x.comm, MPI_COMM_TYPE_SHARED, x.rank, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
      MPI_Comm_rank(node, &local);
      MPI_Comm_free(&node);
    } else {
      local = x.rank;
    }
    int failed = bench_cuda_init(local) != 0;
    int first = (int)ctl_allreduce(&x, failed ? x.rank : x.n, CTL_MIN);
    if (first < x.n) {
      if (x.rank == first)
        fprintf(stderr, "%s: -m cuda: no CUDA device: %s (rank %d; device buffers need a GPU and its driver)\n", prog,
                bench_cuda.error, x.rank);
      MPI_Comm_free(&x.comm);
      MPI_Finalize();
      return 2;
    }
    x.cuda = 1;
  }

  int t_lo = o.type < 0 ? 0 : o.type, t_hi = o.type < 0 ? T_COUNT - 1 : o.type;
  int o_lo = o.op < 0 ? 0 : o.op, o_hi = o.op < 0 ? OP_COUNT - 1 : o.op;
  int ns = nsizes(&o);
  int total = ns * (t_hi - t_lo + 1) * (o_hi - o_lo + 1), done = 0;

  if (o.load >= 0) bench_load_start(o.load, x.rank, prog); /* before the buffers: a small fork */

  /* Buffers for the largest size of the largest type. */
  long max_req = 0;
  for (int k = 0; k < ns; ++k) max_req = size_at(&o, k) > max_req ? size_at(&o, k) : max_req;
  long max_elems_bytes = max_req * (o.osu && (which == PERF_ALLGATHER || which == PERF_ALLTOALL) ? x.n : 1) + 64;
  x.hsbuf = bench_alloc(max_elems_bytes);
  x.hrbuf = bench_alloc(max_elems_bytes);
  x.sbuf = x.cuda ? bench_alloc_mem(max_elems_bytes, BENCH_CUDA) : x.hsbuf;
  x.rbuf = x.cuda ? bench_alloc_mem(max_elems_bytes, BENCH_CUDA) : x.hrbuf;

  if (x.rank == 0) print_header(&o, &x, prog, note[0] ? note : NULL);
  long long wrong = 0;
  double bw_sum = 0;
  int bw_count = 0, rows = 0;
  for (int t = t_lo; t <= t_hi && rc == MPI_SUCCESS; ++t) {
    for (int op = o_lo; op <= o_hi && rc == MPI_SUCCESS; ++op) {
      x.type = t;
      x.op = op;
      long bound = types[t].bound;
      if (op == OP_SUM) bound /= x.n;
      x.bound = bound > 1021 ? 1021 : bound < 1 ? 1 : bound;
      long prev = -1;
      for (int k = 0; k < ns && rc == MPI_SUCCESS; ++k) {
        long req = size_at(&o, k);
        x.count = count_for(&x, &o, req);
        if (op_bytes(&x) == prev) { /* rounded to the same size as the last row */
          if (x.rank == 0) bench_progress(prog, ++done, total);
          continue;
        }
        prev = op_bytes(&x);
        result r[2];
        memset(r, 0, sizeof r);
        int large = req > BENCH_LARGE_MESSAGE;
        for (int ip = 0; ip < (o.osu ? 1 : 2) && rc == MPI_SUCCESS; ++ip) {
          rc = measure(&x, &o, ip, large, &r[ip]);
          if (rc != MPI_SUCCESS) fail_mpi(&x, rc, op_bytes(&x), prog);
          if (r[ip].wrong > 0) wrong += r[ip].wrong;
          bw_sum += r[ip].busbw;
          ++bw_count;
        }
        if (rc != MPI_SUCCESS) break;
        if (x.rank == 0) {
          print_row(&o, &x, rows, r);
          bench_progress(prog, ++done, total);
        }
        ++rows;
      }
    }
  }
  if (x.rank == 0 && rc == MPI_SUCCESS) {
    double avg = bw_count ? bw_sum / bw_count : 0;
    if (o.format == BENCH_JSON) {
      printf("\n], \"avg_busbw\": %.6f, \"wrong\": %lld}\n", o.osu ? 0.0 : avg, wrong);
    } else if (o.format == BENCH_TEXT) {
      if (o.check) printf("# Wrong elements       : %lld %s\n", wrong, wrong ? "FAILED" : "OK");
      if (!o.osu) printf("# Avg bus bandwidth    : %g\n#\n", avg);
    }
    fflush(stdout);
  }
  if (x.cuda) {
    bench_cuda_free(x.sbuf);
    bench_cuda_free(x.rbuf);
  }
  free(x.hsbuf);
  free(x.hrbuf);
  bench_load_stop();
  MPI_Comm_free(&x.comm);
  MPI_Finalize();
  return rc != MPI_SUCCESS || wrong ? 1 : 0;
}
