/* Rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7); the others wait in a receive that
 * never completes. The launcher must report the abort, end the waiting ranks
 * and exit 7 (see mpi_abort.sh). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 1) MPI_Abort(MPI_COMM_WORLD, 7);
  int buf = 0;
  MPI_Recv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  printf("rank %d: unexpected message\n", rank);
  MPI_Finalize();
  return 1;
}
