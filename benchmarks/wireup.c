/* Wire-up probe for benchmarks/multihost: rank 0 prints the milliseconds from the
 * launcher's start (WIREUP_T0_MS in its environment: ms since the epoch, taken by
 * the caller just before it runs mpirun) to the moment the last rank is past
 * MPI_Init. Hosts made of namespaces share this machine's clock, so the ranks'
 * times compare. Written only against the MPI API (any mpicc builds it). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  double t = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6, last = 0;
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Reduce(&t, &last, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  const char* t0 = getenv("WIREUP_T0_MS");
  if (rank == 0) printf("wireup_ms %.1f ranks %d\n", t0 ? last - atof(t0) : -1.0, size);
  MPI_Finalize();
  return 0;
}
