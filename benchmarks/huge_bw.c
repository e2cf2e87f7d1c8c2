/* huge_bw: one message of several GiB from rank 0 to rank 1, GB/s per size, to see
 * whether the cost per byte stays flat past INT_MAX bytes (counts above INT_MAX bytes
 * go as a count of a contiguous type of 1 MiB blocks, as applications do).
 *
 *   mpirun -n 2 build/benchmarks/huge_bw [-S 1G,2G,3G,4G,6G] [-r REPEATS] [--untouched]
 *
 * Both ranks allocate the largest size once and, unless --untouched, write every
 * page first (so first-touch page faults are not part of the timing; with
 * --untouched the receive buffer is fresh memory each size, as a program that
 * receives into a new allocation sees it). Each size runs REPEATS (3) times; the
 * row shows the best and median time and their GB/s (10^9 bytes per second), and
 * checks the first and last byte of every 1 MiB block. Needs 2 x the largest size
 * of memory per rank pair. Plain C over MPI: any mpicc builds it. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_util.h"

#define BLOCK (1L << 20)

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long sizes[16];
  int n = bench_parse_sizes("1G,2G,3G,4G,6G", sizes, 16, argv[0]);
  int repeats = 3, untouched = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "-S") && i + 1 < argc) n = bench_parse_sizes(argv[++i], sizes, 16, argv[0]);
    else if (!strcmp(argv[i], "-r") && i + 1 < argc) repeats = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--untouched")) untouched = 1;
    else {
      if (rank == 0) fprintf(stderr, "usage: mpirun -n 2 %s [-S 1G,2G,...] [-r REPEATS] [--untouched]\n", argv[0]);
      MPI_Finalize();
      return 2;
    }
  }
  if (n <= 0 || repeats < 1 || size != 2) {
    if (rank == 0 && size != 2) fprintf(stderr, "%s: needs exactly 2 ranks\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  const long max = bench_max_size(sizes, n);
  MPI_Datatype block;
  MPI_Type_contiguous((int)BLOCK, MPI_BYTE, &block);
  MPI_Type_commit(&block);
  char *buf = NULL;
  if (!untouched || rank == 0) {
    buf = malloc((size_t)max);
    if (!buf) {
      fprintf(stderr, "%s: rank %d cannot allocate %ld bytes\n", argv[0], rank, max);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    memset(buf, rank == 0 ? 0x5a : 0, (size_t)max);
    if (rank == 0)
      for (long b = 0; b < max / BLOCK; ++b) buf[b * BLOCK] = (char)b, buf[b * BLOCK + BLOCK - 1] = (char)~b;
  }
  if (rank == 0) {
    printf("# huge_bw: one message rank 0 -> rank 1, %d repeats, receive buffer %s\n", repeats,
           untouched ? "fresh memory each time" : "touched first");
    printf("# %10s %10s %10s %10s %10s %8s\n", "size(MiB)", "best(s)", "GB/s", "median(s)", "GB/s", "wrong");
  }
  int bad_total = 0;
  for (int k = 0; k < n; ++k) {
    const long blocks = sizes[k] / BLOCK;
    double t[64];
    long wrong = 0;
    const int reps = repeats < 64 ? repeats : 64;
    for (int r = 0; r < reps; ++r) {
      char *rbuf = buf;
      if (untouched && rank == 1) {
        rbuf = mmap(NULL, (size_t)(blocks * BLOCK), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (rbuf == MAP_FAILED) MPI_Abort(MPI_COMM_WORLD, 1);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      if (rank == 0) MPI_Send(buf, (int)blocks, block, 1, 7, MPI_COMM_WORLD);
      else MPI_Recv(rbuf, (int)blocks, block, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      double dt = MPI_Wtime() - t0;
      if (rank == 1) {
        for (long b = 0; b < blocks; ++b)
          if (rbuf[b * BLOCK] != (char)b || rbuf[b * BLOCK + BLOCK - 1] != (char)~b) ++wrong;
        if (untouched) munmap(rbuf, (size_t)(blocks * BLOCK));
      }
      /* Time as the receiver saw it (the sender may finish early). */
      MPI_Bcast(&dt, 1, MPI_DOUBLE, 1, MPI_COMM_WORLD);
      t[r] = dt;
    }
    MPI_Bcast(&wrong, 1, MPI_LONG, 1, MPI_COMM_WORLD);
    bad_total += wrong != 0;
    qsort(t, (size_t)reps, sizeof(double), cmp);
    const double bytes = (double)(blocks * BLOCK), med = t[reps / 2];
    if (rank == 0)
      printf("  %10ld %10.3f %10.2f %10.3f %10.2f %8ld\n", blocks, t[0], bytes / t[0] / 1e9, med,
             bytes / med / 1e9, wrong);
    fflush(stdout);
  }
  MPI_Type_free(&block);
  free(buf);
  MPI_Finalize();
  return bad_total ? 1 : 0;
}
