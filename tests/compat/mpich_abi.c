/* Built with MPICH's mpicc (MPICH's mpi.h), run on Chorus: the MPICH ABI.
 * Needs at least 2 ranks. Rank 0 prints "library: ..." and every rank prints
 * "rank R: OK" or "rank R: N errors". Exits non-zero when any check fails. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int rank = -1, errors = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "rank %d: check failed at line %d: %s\n", rank,          \
              __LINE__, #cond);                                                \
      ++errors;                                                                \
    }                                                                          \
  } while (0)

int main(int argc, char **argv)
{
  int size = -1, count = -1;
  MPI_Status st;
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    fprintf(stderr, "mpich_abi: needs at least 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  if (rank == 0) {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0, major = 0, minor = 0;
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    MPI_Get_version(&major, &minor);
    printf("library: %s\n", lib);
    printf("mpi version: %d.%d\n", major, minor);
    CHECK(major >= 3);
  }

  int tsize = 0;
  MPI_Type_size(MPI_INT, &tsize);
  CHECK(tsize == (int)sizeof(int));
  MPI_Type_size(MPI_DOUBLE, &tsize);
  CHECK(tsize == (int)sizeof(double));
  MPI_Type_size(MPI_2INT, &tsize);
  CHECK(tsize == 2 * (int)sizeof(int));

  /* 1. Rank 0 sends ints, doubles and an MPI_2INT pair to every other rank. */
  if (rank == 0) {
    for (int r = 1; r < size; ++r) {
      int ints[10];
      double dbl[5];
      int pair[2] = {r, -r};
      for (int i = 0; i < 10; ++i) ints[i] = r * 1000 + i;
      for (int i = 0; i < 5; ++i) dbl[i] = r + i * 0.25;
      MPI_Send(ints, 10, MPI_INT, r, 100 + r, MPI_COMM_WORLD);
      MPI_Send(dbl, 5, MPI_DOUBLE, r, 200, MPI_COMM_WORLD);
      MPI_Send(pair, 1, MPI_2INT, r, 300, MPI_COMM_WORLD);
    }
  } else {
    int ints[16];
    double dbl[8];
    int pair[2] = {0, 0};
    memset(&st, 0xff, sizeof st);
    MPI_Recv(ints, 16, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == 0);
    CHECK(st.MPI_TAG == 100 + rank);
    MPI_Get_count(&st, MPI_INT, &count);
    CHECK(count == 10);
    for (int i = 0; i < 10; ++i) CHECK(ints[i] == rank * 1000 + i);

    MPI_Recv(dbl, 8, MPI_DOUBLE, 0, 200, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_SOURCE == 0 && st.MPI_TAG == 200);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    CHECK(count == 5);
    for (int i = 0; i < 5; ++i) CHECK(dbl[i] == rank + i * 0.25);

    MPI_Recv(pair, 1, MPI_2INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    CHECK(st.MPI_TAG == 300);
    MPI_Get_count(&st, MPI_2INT, &count);
    CHECK(count == 1);
    CHECK(pair[0] == rank && pair[1] == -rank);
  }

  /* 2. Every other rank answers; rank 0 receives from MPI_ANY_SOURCE. */
  if (rank == 0) {
    int seen[64] = {0};
    for (int i = 1; i < size; ++i) {
      double v = -1;
      MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 400, MPI_COMM_WORLD, &st);
      CHECK(st.MPI_SOURCE > 0 && st.MPI_SOURCE < size);
      if (st.MPI_SOURCE > 0 && st.MPI_SOURCE < size && st.MPI_SOURCE < 64) {
        CHECK(seen[st.MPI_SOURCE] == 0);
        seen[st.MPI_SOURCE] = 1;
        CHECK(v == st.MPI_SOURCE + 0.5);
      }
    }
  } else {
    double v = rank + 0.5;
    MPI_Send(&v, 1, MPI_DOUBLE, 0, 400, MPI_COMM_WORLD);
  }

  /* 3. MPI_ERRORS_RETURN: a send to a rank that does not exist. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int dummy = 0, cls = -1;
  int rc = MPI_Send(&dummy, 1, MPI_INT, size, 0, MPI_COMM_WORLD);
  CHECK(rc != MPI_SUCCESS);
  MPI_Error_class(rc, &cls);
  CHECK(cls == MPI_ERR_RANK);
  if (rank == 0) {
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    printf("invalid rank: class %d (MPI_ERR_RANK is %d): %s\n", cls, MPI_ERR_RANK, msg);
  }

  if (errors)
    printf("rank %d: %d errors\n", rank, errors);
  else
    printf("rank %d: OK\n", rank);
  MPI_Finalize();
  return errors ? 1 : 0;
}
