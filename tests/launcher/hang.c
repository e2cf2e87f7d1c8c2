/* Jobs that hang in the ways the hang doctor must diagnose (tests/launcher/hang.sh).
 * usage: hang MODE TAG
 *   deadlock   ranks 0 and 1 each receive from the other first; the rest barrier
 *   missing    every rank but the last enters MPI_Allreduce; the last waits in
 *              MPI_Recv from rank 0 (which is in the allreduce)
 *   user       rank 1 loops in its own code; the others wait in MPI_Barrier
 *   slow       rank 0 computes for 3 s, then everyone barriers and finalizes
 * TAG is only there so the test can find leftover processes by their arguments. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, v = 0, s = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* mode = argc > 1 ? argv[1] : "";
  printf("rank %d ready\n", rank);
  fflush(stdout);
  if (!strcmp(mode, "deadlock")) {
    if (rank < 2) MPI_Recv(&v, 1, MPI_INT, 1 - rank, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(mode, "missing")) {
    if (rank < size - 1) MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    else MPI_Recv(&v, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  } else if (!strcmp(mode, "user")) {
    if (rank == 1) {
      volatile unsigned long spin = 0;
      for (;;) {
        ++spin;
        if (spin % 1000000 == 0) usleep(1000);
      }
    }
    MPI_Barrier(MPI_COMM_WORLD);
  } else if (!strcmp(mode, "slow")) {
    if (rank == 0) {
      double t0 = now();
      while (now() - t0 < 3) usleep(1000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Finalize();
  return 0;
}
