/* Duplicating and freeing communicators in batches of 200, as MPICH's
 * comm/ctxalloc does: 200,000 dups at 2 ranks, with a shared window for every
 * new communicator and point-to-point through the node's rings. This once hung
 * within 20,000-35,000 dups (a message of a new communicator's window setup
 * never arrived) and was kept as a known bug; it has passed since (7 of 7 runs
 * at the start of the session that moved it into the default suite).
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm base, batch[200];
  MPI_Comm_dup(MPI_COMM_WORLD, &base);
  for (int i = 0; i < 1000; ++i) {
    for (int j = 0; j < 200; ++j) MPI_Comm_dup(base, &batch[j]);
    for (int j = 0; j < 200; ++j) MPI_Comm_free(&batch[j]);
  }
  MPI_Comm_free(&base);
  if (rank == 0) printf("200000 dups and frees\n");
  MPI_Finalize();
  return 0;
}
