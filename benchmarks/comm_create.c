/* Communicator creation: microseconds per MPI_Comm_dup (or MPI_Comm_split) and
 * MPI_Comm_free, alone and with K blocking 8 B allreduces on the new
 * communicator in between (K = 1, 4, 5, 16, 64), so the cost of whatever a
 * runtime sets up for a communicator's first collectives shows (Chorus: its
 * shared window, at the CHORUS_COLL_SHM_CALLS-th). The slowest rank's mean over
 * -i iterations (default 200). Written only against the MPI API (any mpicc
 * builds it):  mpirun -n 2 build/benchmarks/comm_create [-i N] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double run(int split, int calls, int iters) {
  int rank, one = 1, sum = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < iters; ++i) {
    MPI_Comm c;
    if (split) MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    else MPI_Comm_dup(MPI_COMM_WORLD, &c);
    for (int k = 0; k < calls; ++k) MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    MPI_Comm_free(&c);
  }
  double t = (MPI_Wtime() - t0) / iters * 1e6, worst = 0;
  MPI_Allreduce(&t, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return worst;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, iters = 200;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i + 1 < argc; ++i)
    if (strcmp(argv[i], "-i") == 0) iters = atoi(argv[++i]);
  if (iters < 1) iters = 1;
  static const int calls[] = {0, 1, 4, 5, 16, 64};
  if (rank == 0) printf("# comm_create: %d ranks, %d iterations, us per iteration (slowest rank)\n", size, iters);
  if (rank == 0) printf("# %-6s %14s %14s\n", "calls", "dup+free", "split+free");
  run(0, 0, 10); /* warm-up */
  for (size_t j = 0; j < sizeof calls / sizeof calls[0]; ++j) {
    double d = run(0, calls[j], iters), s = run(1, calls[j], iters);
    if (rank == 0) printf("  %-6d %14.1f %14.1f\n", calls[j], d, s);
  }
  MPI_Finalize();
  return 0;
}
