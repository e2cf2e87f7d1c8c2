/* Chorus compat test program: rank/size, a self send/recv and a ring exchange.
 * Uses only <mpi.h>. Every rank prints
 *   hello rank=R size=S
 *   self rank=R ok|BAD
 *   exchange rank=R from=L ok|BAD
 * and rank 0 prints "library: <first line of MPI_Get_library_version>".
 * Exits non-zero when any check fails. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { BIG = 1 << 18 }; /* 256 Ki ints = 1 MiB: large enough for rendezvous */

int main(int argc, char **argv)
{
  int rank = -1, size = -1, errors = 0;
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    printf("library: %s\n", lib);
  }
  printf("hello rank=%d size=%d\n", rank, size);

  /* A message to self. */
  int out = 1000 + rank, in = -1;
  MPI_Request req;
  MPI_Status st;
  MPI_Isend(&out, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &req);
  MPI_Recv(&in, 1, MPI_INT, rank, 7, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  int self_ok = in == out && st.MPI_SOURCE == rank && st.MPI_TAG == 7;
  printf("self rank=%d %s\n", rank, self_ok ? "ok" : "BAD");
  errors += !self_ok;

  /* Ring: a small and a large message to the right, from the left. */
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  int *sbuf = malloc(sizeof(int) * BIG), *rbuf = malloc(sizeof(int) * BIG);
  for (int i = 0; i < BIG; ++i) {
    sbuf[i] = rank * 7919 + i;
    rbuf[i] = -1;
  }
  int small_out = rank * 100 + size, small_in = -1;
  MPI_Request reqs[2];
  MPI_Isend(&small_out, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &reqs[0]);
  MPI_Isend(sbuf, BIG, MPI_INT, right, 2, MPI_COMM_WORLD, &reqs[1]);
  MPI_Recv(&small_in, 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Recv(rbuf, BIG, MPI_INT, left, 2, MPI_COMM_WORLD, &st);
  MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
  int count = -1;
  MPI_Get_count(&st, MPI_INT, &count);
  int ring_ok = small_in == left * 100 + size && count == BIG && st.MPI_SOURCE == left;
  for (int i = 0; i < BIG && ring_ok; ++i)
    ring_ok = rbuf[i] == left * 7919 + i;
  printf("exchange rank=%d from=%d %s\n", rank, left, ring_ok ? "ok" : "BAD");
  errors += !ring_ok;
  free(sbuf);
  free(rbuf);

  MPI_Finalize();
  return errors ? 1 : 0;
}
