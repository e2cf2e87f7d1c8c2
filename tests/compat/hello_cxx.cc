// Chorus compat test program for mpicxx: the C API from C++.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank = -1, size = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<double> out(16, rank + 0.5), in(16, -1.0);
  MPI_Sendrecv(out.data(), 16, MPI_DOUBLE, (rank + 1) % size, 3, in.data(), 16, MPI_DOUBLE,
               (rank + size - 1) % size, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  bool ok = in[15] == (rank + size - 1) % size + 0.5;
  std::printf("c++ rank=%d size=%d %s\n", rank, size, ok ? "ok" : "BAD");
  MPI_Finalize();
  return ok ? 0 : 1;
}
