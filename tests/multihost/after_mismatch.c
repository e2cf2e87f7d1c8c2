/* Collectives after one the ranks disagreed on. Run with CHORUS_CHECK_COLL=1 and
 * rank 1 forced to another MPI_Bcast algorithm than the rest (coll_uneven.sh):
 * every MPI_Bcast then fails on every rank with MPI_ERRORS_RETURN, and the
 * collectives after it, whose node stages go through each node's shared window,
 * must still run and be right. Blocking calls first, then the same with the
 * failing MPI_Ibcast overlapping MPI_Iallreduce calls.
 * Prints "rank R: ok" or what went wrong; exits non-zero when anything did. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
enum { N = 3000 };
static int bad = 0;
static void expect_fail(int rc, int r, const char* what) {
  if (rc == MPI_SUCCESS) {
    printf("rank %d: %s succeeded; the ranks ran different algorithms\n", r, what);
    ++bad;
  }
}
static void check_sum(const int* v, int p, int k, int r, const char* what) {
  for (int i = 0; i < N; ++i) {
    int want = p * (i + k) + p * (p - 1) / 2;
    if (v[i] != want) {
      printf("rank %d: %s round %d: element %d is %d, want %d\n", r, what, k, i, v[i], want);
      ++bad;
      return;
    }
  }
}
int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  int r, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int* b = malloc(sizeof(int) * N);
  int* in = malloc(sizeof(int) * N);
  int* out = malloc(sizeof(int) * N);
  int* all = malloc(sizeof(int) * (size_t)p);
  for (int k = 0; k < 3; ++k) {
    for (int i = 0; i < N; ++i) b[i] = r == 0 ? i : -1;
    expect_fail(MPI_Bcast(b, N, MPI_INT, 0, MPI_COMM_WORLD), r, "MPI_Bcast");
    for (int i = 0; i < N; ++i) in[i] = r + i + k;
    if (MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS) {
      printf("rank %d: MPI_Allreduce after the failed MPI_Bcast failed\n", r);
      ++bad;
    }
    check_sum(out, p, k, r, "MPI_Allreduce");
    if (MPI_Barrier(MPI_COMM_WORLD) != MPI_SUCCESS) ++bad;
    int mine = 10 * r + k;
    if (MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD) != MPI_SUCCESS) ++bad;
    for (int q = 0; q < p; ++q)
      if (all[q] != 10 * q + k) {
        printf("rank %d: MPI_Allgather round %d: block %d is %d, want %d\n", r, k, q, all[q], 10 * q + k);
        ++bad;
        break;
      }
  }
  for (int k = 0; k < 3; ++k) {
    MPI_Request q[3];
    MPI_Status st[3];
    int* out2 = malloc(sizeof(int) * N);
    for (int i = 0; i < N; ++i) in[i] = r + i + k;
    MPI_Iallreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[0]);
    MPI_Ibcast(b, N, MPI_INT, 0, MPI_COMM_WORLD, &q[1]);
    MPI_Iallreduce(in, out2, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &q[2]);
    int rc = MPI_Waitall(3, q, st);
    if (rc != MPI_ERR_IN_STATUS || st[0].MPI_ERROR != MPI_SUCCESS || st[2].MPI_ERROR != MPI_SUCCESS) {
      printf("rank %d: round %d: MPI_Waitall returned %d, statuses %d %d %d (want MPI_ERR_IN_STATUS, the Ibcast's alone)\n",
             r, k, rc, st[0].MPI_ERROR, st[1].MPI_ERROR, st[2].MPI_ERROR);
      ++bad;
    }
    expect_fail(st[1].MPI_ERROR, r, "MPI_Ibcast");
    check_sum(out, p, k, r, "MPI_Iallreduce before the MPI_Ibcast");
    check_sum(out2, p, k, r, "MPI_Iallreduce after the MPI_Ibcast");
    free(out2);
  }
  if (bad) printf("rank %d: %d wrong\n", r, bad);
  else printf("rank %d: ok\n", r);
  free(b);
  free(in);
  free(out);
  free(all);
  MPI_Finalize();
  return bad ? 1 : 0;
}
