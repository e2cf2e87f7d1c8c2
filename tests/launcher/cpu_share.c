// Two ranks that wait on each other a lot: ping-pongs of 8 B, then allreduces of
// 1 MiB. Used by cpu_share.sh with both ranks confined to one CPU.
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  char b[8] = {0};
  for (int i = 0; i < 200 && size > 1; ++i) {
    if (rank == 0) {
      MPI_Send(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(b, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(b, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  const int n = 1 << 18;
  float* x = malloc(sizeof(float) * n);
  float* y = malloc(sizeof(float) * n);
  for (int i = 0; i < n; ++i) x[i] = (float)(rank + 1);
  int bad = 0;
  for (int it = 0; it < 10; ++it) {
    MPI_Allreduce(x, y, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    for (int i = 0; i < n; ++i) bad += y[i] != (float)(size * (size + 1) / 2);
  }
  if (bad) printf("rank %d: %d wrong elements\n", rank, bad);
  free(x);
  free(y);
  MPI_Finalize();
  return bad != 0;
}
