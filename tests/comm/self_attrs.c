/* MPI_COMM_SELF's attributes at MPI_Finalize: their delete callbacks run first,
 * while MPI still works and MPI_Finalized says false, the last set first. Before,
 * they ran in keyval order after MPI_Finalized had turned true. Three keyvals
 * whose attributes are set in the order 2, 1, 3 (one of them set twice: setting
 * again keeps its place), deleted 3, 1, 2; each callback also does a small
 * MPI call. Exits 1 with a line naming what went wrong. */
#include <mpi.h>
#include <stdio.h>

static int order[8], n = 0, bad = 0;

static int delete_fn(MPI_Comm comm, int keyval, void* value, void* extra) {
  (void)keyval;
  (void)extra;
  int finalized = -1, rank = -1;
  MPI_Finalized(&finalized);
  if (finalized) {
    printf("self_attrs: delete callback of attribute %ld ran with MPI_Finalized true\n", (long)value);
    bad = 1;
  }
  if (MPI_Comm_rank(comm, &rank) != MPI_SUCCESS || rank != 0) {
    printf("self_attrs: MPI_Comm_rank on MPI_COMM_SELF in a delete callback failed\n");
    bad = 1;
  }
  if (n < 8) order[n++] = (int)(long)value;
  return MPI_SUCCESS;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int k[3];
  for (int i = 0; i < 3; ++i) MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, delete_fn, &k[i], NULL);
  MPI_Comm_set_attr(MPI_COMM_SELF, k[1], (void*)2L);
  MPI_Comm_set_attr(MPI_COMM_SELF, k[0], (void*)1L);
  MPI_Comm_set_attr(MPI_COMM_SELF, k[2], (void*)3L);
  /* Setting again runs the delete callback for the old value (recorded) and
   * keeps the attribute's place. */
  MPI_Comm_set_attr(MPI_COMM_SELF, k[1], (void*)2L);
  n = 0;
  for (int i = 0; i < 3; ++i) MPI_Comm_free_keyval(&k[i]); /* the attributes keep them alive */
  MPI_Finalize();
  const int want[3] = {3, 1, 2};
  if (n != 3 || order[0] != want[0] || order[1] != want[1] || order[2] != want[2]) {
    printf("self_attrs: delete callbacks ran %d times, in the order", n);
    for (int i = 0; i < n; ++i) printf(" %d", order[i]);
    printf(" (want 3 1 2: the reverse of setting)\n");
    bad = 1;
  }
  if (!bad) printf("self_attrs ok\n");
  return bad;
}
