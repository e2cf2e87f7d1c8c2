/* Known bug: MPI_Comm_connect to an open port whose owner never calls
 * MPI_Comm_accept waits forever. MPI says the attempt "will eventually time out
 * after an implementation-defined time" with an error of class MPI_ERR_PORT
 * (MPI-4.1 11.4.2; MPICH's errors/spawn/connect_timeout). Chorus has no such
 * time yet: the connecting root waits for an answer that never comes, and this
 * program ends by mpirun's --timeout. Fixing it needs a limit (a CHORUS_* row)
 * and a withdrawal the accepting side honours, so that a later MPI_Comm_accept
 * does not take the abandoned request and wait for a peer that left.
 * Rank 0 opens a port and never accepts; the other ranks connect to it. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    return 0;
  }
  MPI_Comm side;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : 1, rank, &side);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (rank == 0) MPI_Open_port(MPI_INFO_NULL, port);
  MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (rank != 0) {
    MPI_Comm_set_errhandler(side, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_NULL;
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_PORT) {
      fprintf(stderr, "rank %d: MPI_Comm_connect returned class %d, expected MPI_ERR_PORT\n", rank, cls);
      bad = 1;
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_Close_port(port);
  MPI_Comm_free(&side);
  MPI_Finalize();
  return bad;
}
