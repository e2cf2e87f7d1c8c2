// Prints one line: "<tag> rank R of S appnum A argv1 X", for mpmd.sh.
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, flag = 0;
  int* appnum = NULL;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &appnum, &flag);
  // Every rank of every program is in one world: a sum over it counts them.
  int one = 1, total = 0;
  MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  printf("mpmd rank %d of %d appnum %d total %d arg %s\n", rank, size, flag ? *appnum : -1, total,
         argc > 1 ? argv[1] : "-");
  MPI_Finalize();
  return 0;
}
