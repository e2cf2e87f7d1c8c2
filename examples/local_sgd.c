/* local_sgd: the asynchronous side of data-parallel training, two ways.
 *
 * Local SGD (the default): every rank takes --local-steps K steps on its own
 * copy of the parameters (params -= lr x gradient, the gradient depending on the
 * rank and step), then the ranks average their parameters with one MPI_Allreduce;
 * --rounds R such rounds. Communication happens once per K steps instead of once
 * per step, at the price of ranks drifting apart in between. After each average
 * every rank checks its parameters against the average it computes itself (it
 * knows every rank's gradients), element by element.
 *
 * Parameter server (--param-server): rank 0 holds the parameters; every other
 * rank is a worker that, for --rounds x --local-steps steps, sends its gradient
 * to the server with MPI_Isend and receives fresh parameters with MPI_Irecv,
 * computing its next gradient while both are in flight (the parameters it uses
 * may be a step stale: the asynchrony of the scheme). The server takes gradients
 * in whatever order they come (MPI_Waitany over one posted receive per worker),
 * applies each at once and sends the worker the result. At the end the server's
 * parameters must equal the initial ones minus lr x the sum of every gradient of
 * every worker (exact: every value is a multiple of 1/64 and small), and every
 * worker's last parameters must be ones the server held at some point (each
 * worker's own gradients applied, the others' anywhere from none to all).
 *
 * --device keeps the parameters and gradients in CUDA device memory (written on
 * the host and copied over, standing in for kernels); MPI takes the device
 * pointers. The CUDA driver is loaded at run time (bench_cuda.h).
 *
 *   mpirun -n 4 build/examples/local_sgd [--params N] [--local-steps K] [--rounds R]
 *       [--compute-us US] [--param-server] [--device] [--quiet]
 *
 * Exit status 0 when every check passed, 1 otherwise, 2 for a bad option (or
 * --param-server on one rank), 77 (a skip, with a SKIP line) for --device where
 * a rank has no GPU. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "example_util.h"

typedef struct {
  long params;
  int local_steps, rounds, compute_us, server, device, quiet;
} Opts;

static int g_rank, g_size;
static const float kLr = 0.5f;

static const char kUsage[] =
    "usage: local_sgd [--params N] [--local-steps K] [--rounds R] [--compute-us US] [--param-server]\n"
    "                 [--device] [--quiet]\n";

static int parse(int argc, char** argv, Opts* o) {
  o->params = 1 << 20;
  o->local_steps = 4;
  o->rounds = 5;
  o->compute_us = 1000;
  o->server = 0;
  o->device = 0;
  o->quiet = 0;
  for (int i = 1; i < argc; ++i) {
    const char* a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--param-server")) {
      o->server = 1;
    } else if (!strcmp(a, "--device")) {
      o->device = 1;
    } else if (!strcmp(a, "--quiet")) {
      o->quiet = 1;
    } else if (v && (!strcmp(a, "--params") || !strcmp(a, "--local-steps") || !strcmp(a, "--rounds") ||
                     !strcmp(a, "--compute-us"))) {
      long x;
      if (!example_int_value(v, strcmp(a, "--compute-us") ? 1 : 0, !strcmp(a, "--params") ? 1L << 28 : 1000000, &x))
        return example_bad_option("local_sgd", kUsage, a, v);
      if (!strcmp(a, "--params")) o->params = x;
      else if (!strcmp(a, "--local-steps")) o->local_steps = (int)x;
      else if (!strcmp(a, "--rounds")) o->rounds = (int)x;
      else o->compute_us = (int)x;
      ++i;
    } else {
      return example_bad_option("local_sgd", kUsage, a, NULL);
    }
  }
  if (o->server && g_size < 2) {
    if (g_rank == 0) fprintf(stderr, "local_sgd: --param-server needs a server and at least one worker (2 ranks)\n");
    return 2;
  }
  /* The checks are exact while every sum stays below 2^16 (steps x workers x lr). */
  if ((long long)o->rounds * o->local_steps * (g_size > 1 ? g_size - 1 : 1) > 100000) {
    if (g_rank == 0)
      fprintf(stderr, "local_sgd: --rounds x --local-steps x workers is %lld, more than the 100000 this checks exactly\n",
              (long long)o->rounds * o->local_steps * (g_size > 1 ? g_size - 1 : 1));
    return 2;
  }
  return 0;
}

/* Initial parameter i, and rank r's gradient at its step t for parameter i:
 * multiples of 1/64 below 1, so with lr 0.5 every sum this program forms is
 * exact in float (magnitudes stay far below 2^17). */
static float initial(long i) { return (float)(i % 64) / 64.0f; }
static float gradient(int r, int t, long i) { return (float)((i + 3 * r + 5 * t) % 64) / 64.0f; }

typedef struct {
  float* host;   /* the parameters (or their host copy with --device) */
  float* grad;   /* a gradient (host) */
  char* dparams; /* --device: the parameters */
  char* dgrad;   /* --device: two gradients, used in turn (one may be in flight) */
} Buffers;

static void compute_for(int us) {
  const double end = MPI_Wtime() + us * 1e-6;
  while (MPI_Wtime() < end) {
  }
}

/* Rank r's gradient of its step t into B->grad, and to `dev` unless NULL. */
static void make_gradient(Buffers* B, const Opts* o, int r, int t, char* dev) {
  for (long i = 0; i < o->params; ++i) B->grad[i] = gradient(r, t, i);
  if (dev && bench_cuda_copy(dev, B->grad, (size_t)o->params * sizeof(float))) MPI_Abort(MPI_COMM_WORLD, 1);
  compute_for(o->compute_us);
}

static long local_sgd(Buffers* B, const Opts* o, double* comm) {
  const size_t bytes = (size_t)o->params * sizeof(float);
  long wrong = 0;
  float* want = malloc(bytes);
  for (long i = 0; i < o->params; ++i) B->host[i] = want[i] = initial(i);
  for (int round = 0; round < o->rounds; ++round) {
    /* K local steps on this rank's own copy. */
    for (int k = 0; k < o->local_steps; ++k) {
      const int t = round * o->local_steps + k;
      make_gradient(B, o, g_rank, t, NULL);
      for (long i = 0; i < o->params; ++i) B->host[i] -= kLr * B->grad[i];
    }
    void* buf = B->host;
    if (o->device) {
      if (bench_cuda_copy(B->dparams, B->host, bytes)) MPI_Abort(MPI_COMM_WORLD, 1);
      buf = B->dparams;
    }
    const double t0 = MPI_Wtime();
    MPI_Allreduce(MPI_IN_PLACE, buf, (int)o->params, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    *comm += MPI_Wtime() - t0;
    if (o->device && bench_cuda_copy(B->host, B->dparams, bytes)) MPI_Abort(MPI_COMM_WORLD, 1);
    /* The average, and what it must be: every rank started the round from `want`
     * and took its own K steps. */
    long bad = 0;
    for (long i = 0; i < o->params; ++i) {
      double sum = 0;
      for (int r = 0; r < g_size; ++r) {
        double x = want[i];
        for (int k = 0; k < o->local_steps; ++k) x -= kLr * gradient(r, round * o->local_steps + k, i);
        sum += x;
      }
      const double avg = sum / g_size;
      B->host[i] /= (float)g_size;
      if (fabs(B->host[i] - avg) > 1e-5 * (fabs(avg) + 1)) {
        if (!bad)
          fprintf(stderr, "local_sgd: rank %d round %d: parameter %ld is %.7g, expected %.7g\n", g_rank, round, i,
                  B->host[i], avg);
        ++bad;
      }
      want[i] = (float)avg;
      B->host[i] = want[i]; /* every rank goes on from the same values */
    }
    wrong += bad;
  }
  free(want);
  return wrong;
}

static long param_server(Buffers* B, const Opts* o, double* comm) {
  const size_t bytes = (size_t)o->params * sizeof(float);
  const int workers = g_size - 1, steps = o->rounds * o->local_steps;
  long wrong = 0;
  for (long i = 0; i < o->params; ++i) B->host[i] = initial(i);
  if (g_rank == 0) {
    /* One gradient buffer per worker, a receive posted for each. */
    float* g = malloc(bytes * (size_t)workers);
    float* out = malloc(bytes * (size_t)workers); /* what each worker is sent */
    MPI_Request* rreq = malloc(sizeof(MPI_Request) * (size_t)workers);
    MPI_Request* sreq = malloc(sizeof(MPI_Request) * (size_t)workers);
    int* left = malloc(sizeof(int) * (size_t)workers);
    for (int w = 0; w < workers; ++w) {
      MPI_Irecv(g + (size_t)w * (size_t)o->params, (int)o->params, MPI_FLOAT, w + 1, 1, MPI_COMM_WORLD, &rreq[w]);
      sreq[w] = MPI_REQUEST_NULL;
      left[w] = steps;
    }
    const double t0 = MPI_Wtime();
    for (long done = 0; done < (long)workers * steps; ++done) {
      int w;
      MPI_Waitany(workers, rreq, &w, MPI_STATUS_IGNORE);
      const float* gw = g + (size_t)w * (size_t)o->params;
      for (long i = 0; i < o->params; ++i) B->host[i] -= kLr * gw[i];
      MPI_Wait(&sreq[w], MPI_STATUS_IGNORE); /* its last parameters are out */
      float* ow = out + (size_t)w * (size_t)o->params;
      memcpy(ow, B->host, bytes);
      MPI_Isend(ow, (int)o->params, MPI_FLOAT, w + 1, 2, MPI_COMM_WORLD, &sreq[w]);
      if (--left[w] > 0)
        MPI_Irecv(g + (size_t)w * (size_t)o->params, (int)o->params, MPI_FLOAT, w + 1, 1, MPI_COMM_WORLD, &rreq[w]);
    }
    MPI_Waitall(workers, sreq, MPI_STATUSES_IGNORE);
    *comm = MPI_Wtime() - t0;
    /* Every gradient of every worker applied once. */
    for (long i = 0; i < o->params; ++i) {
      double x = initial(i);
      for (int r = 1; r <= workers; ++r)
        for (int t = 0; t < steps; ++t) x -= kLr * gradient(r, t, i);
      if (B->host[i] != (float)x) {
        if (!wrong) fprintf(stderr, "local_sgd: server: parameter %ld is %.7g, expected %.7g\n", i, B->host[i], x);
        ++wrong;
      }
    }
    free(g);
    free(out);
    free(rreq);
    free(sreq);
    free(left);
  } else {
    /* A worker: gradient t goes out while gradient t + 1 is computed; the
     * parameters of step t come back meanwhile. */
    float* sendbuf = malloc(bytes);
    void* rbuf = o->device ? (void*)B->dparams : (void*)B->host;
    MPI_Request req[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    double wait = 0;
    for (int t = 0; t < steps; ++t) {
      /* On the device, gradients alternate between two buffers: the one of step
       * t - 1 may still be in flight, that of t - 2 is done (waited below). */
      char* dev = o->device ? B->dgrad + (size_t)(t % 2) * bytes : NULL;
      make_gradient(B, o, g_rank, t, dev);
      double t0 = MPI_Wtime();
      MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
      wait += MPI_Wtime() - t0;
      const void* sbuf = dev;
      if (!o->device) {
        memcpy(sendbuf, B->grad, bytes); /* the next gradient is written while this one is in flight */
        sbuf = sendbuf;
      }
      MPI_Isend(sbuf, (int)o->params, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &req[0]);
      MPI_Irecv(rbuf, (int)o->params, MPI_FLOAT, 0, 2, MPI_COMM_WORLD, &req[1]);
    }
    double t0 = MPI_Wtime();
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    wait += MPI_Wtime() - t0;
    *comm = wait;
    if (o->device && bench_cuda_copy(B->host, B->dparams, bytes)) MPI_Abort(MPI_COMM_WORLD, 1);
    /* The last parameters: the server applied every gradient of this worker by
     * then, and of each other worker some prefix (0 to all of its steps), so
     * initial - p[i] = lr x (my sum + others' partial sums), bounded. */
    for (long i = 0; i < o->params; ++i) {
      double mine = 0, others = 0;
      for (int t = 0; t < steps; ++t) mine += kLr * gradient(g_rank, t, i);
      for (int r = 1; r <= workers; ++r)
        if (r != g_rank)
          for (int t = 0; t < steps; ++t) others += kLr * gradient(r, t, i);
      const double applied = initial(i) - B->host[i];
      if (applied < mine - 1e-3 || applied > mine + others + 1e-3 || applied * 128 != floor(applied * 128)) {
        if (!wrong)
          fprintf(stderr, "local_sgd: worker %d: parameter %ld is %.7g: not a state the server had\n", g_rank, i,
                  B->host[i]);
        ++wrong;
      }
    }
    free(sendbuf);
  }
  return wrong;
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
  const size_t bytes = (size_t)o.params * sizeof(float);
  Buffers B;
  memset(&B, 0, sizeof B);
  B.host = malloc(bytes);
  B.grad = malloc(bytes);
  if (o.device) {
    const int ok = example_cuda_init() && (B.dparams = bench_cuda_alloc(bytes)) != NULL &&
                   (B.dgrad = bench_cuda_alloc(2 * bytes)) != NULL;
    if (!example_cuda_agree("local_sgd", ok)) {
      bench_cuda_free(B.dparams);
      bench_cuda_free(B.dgrad);
      MPI_Finalize();
      return 77;
    }
  }
  if (g_rank == 0 && !o.quiet)
    printf("# local_sgd: %d ranks, %ld parameters (%.2f MiB, %s), %s, %d rounds of %d steps, %d us of compute a step\n",
           g_size, o.params, bytes / 1048576.0, o.device ? "device" : "host",
           o.server ? "parameter server on rank 0" : "local SGD, averaged every round", o.rounds, o.local_steps,
           o.compute_us);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  double comm = 0;
  long wrong = o.server ? param_server(&B, &o, &comm) : local_sgd(&B, &o, &comm);
  double t[2] = {MPI_Wtime() - t0, comm};
  MPI_Allreduce(MPI_IN_PLACE, t, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) {
    const int steps = o.rounds * o.local_steps;
    if (!o.quiet) printf("%-8s %12s %12s %14s\n", "# steps", "total(ms)", "step(ms)", o.server ? "server(ms)" : "comm(ms)");
    printf("%-8d %12.3f %12.3f %14.3f\n", steps, t[0] * 1e3, t[0] * 1e3 / steps, t[1] * 1e3);
    if (wrong) fprintf(stderr, "local_sgd: %ld parameters wrong\n", wrong);
    else if (!o.quiet) printf("# every parameter checked: correct\n");
  }
  if (o.device) {
    bench_cuda_free(B.dparams);
    bench_cuda_free(B.dgrad);
  }
  free(B.host);
  free(B.grad);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
