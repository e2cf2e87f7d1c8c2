/* stalls: the slow calls of a run, one by one. Every rank times each MPI_Allreduce of
 * SIZE bytes (floats, sum); a call above T ms is a stall, printed with what the rank
 * did meanwhile: its involuntary context switches and its CPU time (getrusage), so
 * a stall where the rank ran half the time and was switched out often (the ranks
 * took turns on a CPU) reads differently from one where it never ran. At the end,
 * per rank: the worst call and how many stalled. This is how the busy-node stalls of
 * docs/PERFORMANCE.md were found.
 *
 *   mpirun -n 2 build/benchmarks/stalls [-s SIZE] [-n CALLS] [-t MS] [--background-load N]
 *
 * SIZE 16M, CALLS 150, T 30 by default; --background-load N: world rank 0 forks N
 * busy-loop processes first (bench_common.h). Plain C over MPI: any mpicc builds it. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench_common.h"

static double ms_of(struct timeval t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; }

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long bytes = 16L << 20, calls = 150, load = 0;
  double limit_ms = 30;
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    char *end = NULL;
    if (!strcmp(a, "-s") && v) {
      bytes = bench_size_arg(argv[++i], &end);
      if (*end) bytes = -1;
    } else if (!strcmp(a, "-n") && v) calls = strtol(argv[++i], NULL, 10);
    else if (!strcmp(a, "-t") && v) limit_ms = strtod(argv[++i], NULL);
    else if (!strcmp(a, "--background-load") && v) load = strtol(argv[++i], NULL, 10);
    else {
      if (rank == 0)
        fprintf(stderr, "usage: mpirun -n N %s [-s SIZE] [-n CALLS] [-t MS] [--background-load N]\n", argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (bytes < 4 || calls < 1 || load < 0) {
    if (rank == 0) fprintf(stderr, "%s: bad size, count or load\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const int n = (int)(bytes / 4);
  float *in = malloc((size_t)n * 4), *out = malloc((size_t)n * 4);
  if (!in || !out) MPI_Abort(MPI_COMM_WORLD, 1);
  for (int i = 0; i < n; ++i) in[i] = 1.0f;
  bench_load_start((int)load, rank, argv[0]);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0)
    printf("# stalls: %d ranks, %ld B allreduce, %ld calls, stall above %.1f ms, background load %ld\n", size,
           bytes, calls, limit_ms, load);
  double worst = 0;
  long stalls = 0;
  for (long c = 0; c < calls; ++c) {
    struct rusage u0, u1;
    getrusage(RUSAGE_SELF, &u0);
    const double t0 = MPI_Wtime();
    MPI_Allreduce(in, out, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    const double ms = (MPI_Wtime() - t0) * 1e3;
    getrusage(RUSAGE_SELF, &u1);
    if (ms > worst) worst = ms;
    if (ms <= limit_ms) continue;
    ++stalls;
    printf("rank %d call %ld: %.1f ms, %ld involuntary switches, %.1f ms on a CPU\n", rank, c, ms,
           u1.ru_nivcsw - u0.ru_nivcsw,
           ms_of(u1.ru_utime) - ms_of(u0.ru_utime) + ms_of(u1.ru_stime) - ms_of(u0.ru_stime));
  }
  bench_load_stop();
  printf("rank %d: worst call %.1f ms, %ld of %ld calls above %.1f ms\n", rank, worst, stalls, calls, limit_ms);
  const int bad = out[0] != (float)size;
  if (bad) printf("rank %d: wrong sum %g, expected %d\n", rank, out[0], size);
  free(in);
  free(out);
  MPI_Finalize();
  return bad;
}
