/* A known bug, kept as a reproducer (suite known_bugs, not in the default run):
 * duplicating and freeing communicators in batches of 200, as MPICH's
 * comm/ctxalloc does, hangs on this machine within 20,000-35,000 dups at 2 ranks
 * when every new communicator gets a shared window (CHORUS_COLL_SHM on) and
 * point-to-point goes through the node's rings (CHORUS_P2P_SHM on): a message of
 * the new communicator's window setup never arrives. With either switch off it
 * runs to the end (200,000 dups in about 10 s).
 *
 *   meson test -C build --setup known --suite known_bugs
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
