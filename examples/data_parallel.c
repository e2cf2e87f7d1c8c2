/* data_parallel: the gradient traffic of data-parallel training, with the overlap
 * that hides it behind the backward pass (as PyTorch DDP and Horovod do, here in
 * plain MPI).
 *
 * A model of L layers shaped like a small transformer block (hidden size H): per
 * layer two layer norms, the attention's QKV and output projections and the two
 * MLP matrices with their biases, 12 tensors of 4 B x H (4 KiB at H = 1024) to
 * 16 B x H x H (16 MiB). Each step runs a synthetic backward pass, last layer
 * first: a layer's "compute" writes its gradients (values that depend on the
 * rank, step and position, so the average is known) and then spins for
 * --compute-us microseconds, calling MPI_Testall now and then so that started
 * allreduces progress, as a framework's communication thread would.
 *
 * Gradients live in one flat buffer in the order the backward pass produces them,
 * cut into buckets of --bucket-mb MiB (25 by default, DDP's): a bucket's
 * MPI_Iallreduce starts as soon as its last tensor is written, so communication
 * overlaps the layers still to come. --bucket-mb 0 is one allreduce per tensor;
 * --no-overlap starts them only after the whole backward pass (blocking calls).
 * At the end of each step every rank waits for its buckets, averages and checks
 * every element.
 *
 * Before the steps, the same buckets are allreduced with no compute in between
 * (the communication alone); the report gives per step: step time, compute time,
 * the communication alone, the communication left exposed after the compute
 * (step - compute) and the fraction of the communication hidden.
 *
 * --device keeps the gradients in CUDA device memory (each layer's values are
 * written on the host and copied to the device, standing in for a kernel); the
 * allreduces take the device pointers. The CUDA driver is loaded at run time
 * (bench_cuda.h), so this builds with any mpicc and no CUDA toolkit.
 *
 *   mpirun -n 4 build/examples/data_parallel [--layers 12] [--hidden 1024]
 *       [--steps 5] [--bucket-mb 25] [--compute-us 2000] [--no-overlap] [--device]
 *
 * Exit status 0 when every averaged gradient was right, 1 otherwise, 2 for a bad
 * option, 77 (a skip, with a SKIP line) for --device where a rank has no GPU. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

typedef struct {
  int layers, hidden, steps, compute_us, overlap, device, quiet;
  double bucket_mb;
} Opts;

typedef struct {
  size_t offset, count; /* in the flat buffer, elements */
  int layer;
} Tensor;

typedef struct {
  size_t first_tensor, ntensors; /* tensors[first .. first + n) */
  size_t offset, count;          /* elements */
  MPI_Request req;
} Bucket;

static int g_rank, g_size;

static double now(void) { return MPI_Wtime(); }

static const char kUsage[] =
    "usage: data_parallel [--layers L] [--hidden H] [--steps S] [--bucket-mb MB] [--compute-us US]\n"
    "                     [--no-overlap] [--device] [--quiet]\n";

static int parse(int argc, char** argv, Opts* o) {
  o->layers = 12;
  o->hidden = 1024;
  o->steps = 5;
  o->bucket_mb = 25;
  o->compute_us = 2000;
  o->overlap = 1;
  o->device = 0;
  o->quiet = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    char* end = NULL;
    if (!strcmp(a, "--no-overlap")) {
      o->overlap = 0;
    } else if (!strcmp(a, "--device")) {
      o->device = 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else if (v && !strcmp(a, "--bucket-mb")) {
      o->bucket_mb = strtod(v, &end);
      if (*end || !(o->bucket_mb >= 0 && o->bucket_mb <= 4096)) return example_bad_option("data_parallel", kUsage, a, v);
      ++i;
    } else if (v && (!strcmp(a, "--layers") || !strcmp(a, "--hidden") || !strcmp(a, "--steps") ||
                     !strcmp(a, "--compute-us"))) {
      long x;
      if (!example_int_value(v, strcmp(a, "--compute-us") ? 1 : 0, 1000000, &x))
        return example_bad_option("data_parallel", kUsage, a, v);
      if (!strcmp(a, "--layers")) o->layers = (int)x;
      else if (!strcmp(a, "--hidden")) o->hidden = (int)x;
      else if (!strcmp(a, "--steps")) o->steps = (int)x;
      else o->compute_us = (int)x;
      ++i;
    } else {
      return example_bad_option("data_parallel", kUsage, a, NULL);
    }
  }
  return 0;
}

/* The gradient rank r writes at element i of step s: a multiple of 1/4, exact in
 * float, so sums over ranks are exact too. */
static float grad_value(int r, int s, size_t i) { return (float)((r + 1) * 0.25 + (double)((i + (size_t)s) % 16)); }

/* The average over every rank of grad_value at (s, i). */
static double expected_avg(int s, size_t i) {
  double sum = 0;
  for (int r = 0; r < g_size; ++r) sum += grad_value(r, s, i);
  return sum / g_size;
}

/* The layers' tensors, last layer first (the order the backward pass produces
 * them), each layer's in reverse too. */
static size_t build_tensors(const Opts* o, Tensor** out) {
  const size_t h = (size_t)o->hidden;
  const size_t per_layer[12] = {h, h, 3 * h * h, 3 * h, h * h, h, h, h, 4 * h * h, 4 * h, 4 * h * h, h};
  size_t n = (size_t)o->layers * 12, at = 0, k = 0;
  Tensor* t = malloc(n * sizeof *t);
  for (int l = o->layers - 1; l >= 0; --l)
    for (int j = 11; j >= 0; --j) {
      t[k].offset = at;
      t[k].count = per_layer[j];
      t[k].layer = l;
      at += per_layer[j];
      ++k;
    }
  *out = t;
  return n;
}

/* Buckets of whole tensors, each at least `bytes` (the last may be smaller);
 * bytes 0 makes one bucket per tensor. */
static size_t build_buckets(const Tensor* t, size_t nt, double bytes, Bucket** out) {
  Bucket* b = malloc(nt * sizeof *b);
  size_t nb = 0;
  for (size_t i = 0; i < nt; ++i) {
    if (nb == 0 || (double)(b[nb - 1].count * sizeof(float)) >= bytes) {
      b[nb].first_tensor = i;
      b[nb].ntensors = 0;
      b[nb].offset = t[i].offset;
      b[nb].count = 0;
      b[nb].req = MPI_REQUEST_NULL;
      ++nb;
    }
    b[nb - 1].ntensors++;
    b[nb - 1].count += t[i].count;
  }
  *out = b;
  return nb;
}

typedef struct {
  float* host;  /* the gradients, or their host staging with --device */
  char* dev;    /* --device: the gradients (device memory) */
  float* check; /* --device: the averaged result, copied back */
} Buffers;

static char* grads(Buffers* B, const Opts* o) { return o->device ? B->dev : (char*)B->host; }

static void start_bucket(Buffers* B, const Opts* o, Bucket* b, int blocking) {
  char* base = grads(B, o) + b->offset * sizeof(float);
  if (blocking) MPI_Allreduce(MPI_IN_PLACE, base, (int)b->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  else MPI_Iallreduce(MPI_IN_PLACE, base, (int)b->count, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &b->req);
}

/* Spin for `us` microseconds, testing the started buckets every 20 us. */
static void compute_spin(int us, Bucket* b, size_t nb) {
  const double end = now() + us * 1e-6;
  double next = 0;
  while (now() < end) {
    if (now() >= next) {
      for (size_t i = 0; i < nb; ++i)
        if (b[i].req != MPI_REQUEST_NULL) {
          int done;
          MPI_Test(&b[i].req, &done, MPI_STATUS_IGNORE);
        }
      next = now() + 20e-6;
    }
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  Opts o;
  int rc = parse(argc, argv, &o);
  if (rc) {
    MPI_Finalize();
    return rc;
  }
  Tensor* tensors;
  Bucket* buckets;
  const size_t nt = build_tensors(&o, &tensors);
  const size_t total = tensors[nt - 1].offset + tensors[nt - 1].count;
  const size_t nb = build_buckets(tensors, nt, o.bucket_mb * 1048576.0, &buckets);
  if (total > (size_t)1 << 30) {
    if (g_rank == 0) fprintf(stderr, "data_parallel: %zu parameters is more than this example handles\n", total);
    MPI_Finalize();
    return 2;
  }

  Buffers B;
  memset(&B, 0, sizeof B);
  B.host = calloc(total, sizeof(float)); /* the communication alone moves zeros */
  if (o.device) {
    const int ok = example_cuda_init() && (B.dev = bench_cuda_alloc(total * sizeof(float))) != NULL &&
                   bench_cuda_memset(B.dev, 0, total * sizeof(float)) == 0;
    if (!example_cuda_agree("data_parallel", ok)) {
      bench_cuda_free(B.dev);
      MPI_Finalize();
      return 77; /* the tests read this as a skip */
    }
    B.check = malloc(total * sizeof(float));
  }

  if (g_rank == 0 && !o.quiet) {
    printf("# data_parallel: %d ranks, %d layers of hidden size %d: %zu tensors, %.1f MiB of gradients (%s)\n",
           g_size, o.layers, o.hidden, nt, total * 4.0 / 1048576, o.device ? "device" : "host");
    printf("# %zu buckets (%s), %s, %d us of compute per layer, %d steps\n", nb,
           o.bucket_mb > 0 ? "--bucket-mb" : "one per tensor", o.overlap ? "overlapped" : "after the backward pass",
           o.compute_us, o.steps);
  }

  /* The communication alone: every bucket, blocking, no compute (best of 3). */
  double comm_alone = 1e30;
  for (int rep = 0; rep < 3; ++rep) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = now();
    for (size_t i = 0; i < nb; ++i) start_bucket(&B, &o, &buckets[i], 1);
    double t = now() - t0;
    MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (t < comm_alone) comm_alone = t;
  }

  long wrong = 0;
  double sum_step = 0, sum_compute = 0;
  for (int s = 0; s < o.steps; ++s) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = now();
    double compute = 0;
    size_t next_bucket = 0;
    for (size_t i = 0; i < nt;) {
      /* One layer: its tensors' gradients, then its compute time. */
      const int layer = tensors[i].layer;
      const double c0 = now();
      size_t j = i;
      for (; j < nt && tensors[j].layer == layer; ++j)
        for (size_t e = 0; e < tensors[j].count; ++e)
          B.host[tensors[j].offset + e] = grad_value(g_rank, s, tensors[j].offset + e);
      if (o.device) {  /* waits for the copy: MPI reads the bytes on streams of its own */
        const size_t off = tensors[i].offset, n = tensors[j - 1].offset + tensors[j - 1].count - off;
        if (bench_cuda_copy(B.dev + off * sizeof(float), B.host + off, n * sizeof(float)))
          MPI_Abort(MPI_COMM_WORLD, 1);
      }
      compute_spin(o.compute_us, buckets, next_bucket);
      compute += now() - c0;
      i = j;
      /* Every bucket whose tensors are all written now starts. */
      while (o.overlap && next_bucket < nb && buckets[next_bucket].first_tensor + buckets[next_bucket].ntensors <= i)
        start_bucket(&B, &o, &buckets[next_bucket++], 0);
    }
    if (o.overlap) {
      for (size_t k = 0; k < nb; ++k) MPI_Wait(&buckets[k].req, MPI_STATUS_IGNORE);
    } else {
      for (size_t k = 0; k < nb; ++k) start_bucket(&B, &o, &buckets[k], 1);
    }
    const double step = now() - t0;
    sum_step += step;
    sum_compute += compute;

    /* Average and check every element. */
    float* got = B.host;
    if (o.device) {
      if (bench_cuda_copy(B.check, B.dev, total * sizeof(float))) MPI_Abort(MPI_COMM_WORLD, 1);
      got = B.check;
    }
    long bad = 0;
    for (size_t e = 0; e < total; ++e) {
      const double avg = got[e] / (double)g_size, want = expected_avg(s, e);
      if (fabs(avg - want) > 1e-5 * fabs(want) + 1e-6) {
        if (bad == 0)
          fprintf(stderr, "data_parallel: rank %d step %d: element %zu averaged %.6g, expected %.6g\n", g_rank, s, e,
                  avg, want);
        ++bad;
      }
    }
    wrong += bad;
  }

  double t[2] = {sum_step / o.steps, sum_compute / o.steps};
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) {
    const double exposed = t[0] > t[1] ? t[0] - t[1] : 0;
    double hidden = comm_alone > 0 ? 1 - exposed / comm_alone : 1;
    if (hidden < 0) hidden = 0;
    if (!o.quiet)
      printf("%-10s %10s %12s %12s %12s %8s\n", "# buckets", "step(ms)", "compute(ms)", "comm(ms)", "exposed(ms)",
             "hidden");
    printf("%-10zu %10.3f %12.3f %12.3f %12.3f %7.0f%%\n", nb, t[0] * 1e3, t[1] * 1e3, comm_alone * 1e3,
           exposed * 1e3, hidden * 100);
    if (wrong) fprintf(stderr, "data_parallel: %ld averaged gradients wrong\n", wrong);
    else if (!o.quiet) printf("# every averaged gradient checked: correct\n");
  }
  if (o.device) {
    bench_cuda_free(B.dev);
    free(B.check);
  }
  free(B.host);
  free(tensors);
  free(buckets);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
