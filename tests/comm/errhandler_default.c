/* Communicators and windows nobody set an error handler on raise their errors
 * through MPI_COMM_WORLD's handler as it is when the error happens, as MPICH
 * does (its tests errors/comm/..._nullarg and errors/attr/keyvalmis make such
 * objects, then set MPI_ERRORS_RETURN on MPI_COMM_WORLD and expect error codes
 * back). Before, they kept MPI_ERRORS_ARE_FATAL and the first error below
 * ended the job. One given a handler of its own keeps it. A program of its own:
 * MPI_COMM_WORLD's handler must never have been set before it starts. Exits 1
 * with a line naming what went wrong. */
#include <mpi.h>
#include <stdio.h>

static int bad = 0, calls = 0;
static MPI_Comm seen = MPI_COMM_NULL;

static void counting_fn(MPI_Comm *comm, int *code, ...) {
  (void)code;
  ++calls;
  seen = *comm;
}

#define EXPECT(cond, what)                                                     \
  do {                                                                         \
    if (!(cond)) {                                                             \
      printf("errhandler_default: %s\n", what);                                \
      bad = 1;                                                                 \
    }                                                                          \
  } while (0)

static int error_class(int rc) {
  int cls = -1;
  MPI_Error_class(rc, &cls);
  return cls;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm d, own, dd;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_dup(MPI_COMM_WORLD, &own);
  MPI_Errhandler counting, got;
  MPI_Comm_create_errhandler(counting_fn, &counting);
  MPI_Comm_set_errhandler(own, counting);
  int word = 0, keyval;
  MPI_Win win;
  MPI_Win_create(&word, sizeof word, sizeof word, MPI_INFO_NULL, d, &win);
  MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                         &keyval, NULL);
  MPI_Group g;
  MPI_Comm_group(d, &g);
  MPI_Comm_get_errhandler(d, &got);
  EXPECT(got == MPI_ERRORS_ARE_FATAL,
         "a new communicator's handler is not MPI_ERRORS_ARE_FATAL");

  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  /* Made before the change, both return their errors now. */
  EXPECT(error_class(MPI_Comm_create(d, g, NULL)) == MPI_ERR_ARG,
         "MPI_Comm_create with newcomm NULL did not return MPI_ERR_ARG");
  EXPECT(MPI_Win_set_attr(win, keyval, &word) != MPI_SUCCESS,
         "MPI_Win_set_attr with a communicator's keyval did not fail");
  MPI_Comm_get_errhandler(d, &got);
  EXPECT(got == MPI_ERRORS_RETURN,
         "MPI_Comm_get_errhandler does not answer MPI_COMM_WORLD's handler");
  MPI_Win_get_errhandler(win, &got);
  EXPECT(got == MPI_ERRORS_RETURN,
         "MPI_Win_get_errhandler does not answer MPI_COMM_WORLD's handler");
  /* What is made from them meanwhile too; one with a handler of its own keeps
   * it. */
  MPI_Comm_dup(d, &dd);
  EXPECT(error_class(MPI_Comm_split(dd, 0, 0, NULL)) == MPI_ERR_ARG,
         "MPI_Comm_split with newcomm NULL on a duplicate did not return "
         "MPI_ERR_ARG");
  MPI_Comm_free(&dd);
  EXPECT(error_class(MPI_Send(NULL, 0, MPI_INT, size + 5, 0, own)) ==
             MPI_ERR_RANK,
         "MPI_Send to a bad rank did not return MPI_ERR_RANK");
  EXPECT(calls == 1 && seen == own,
         "the handler set on a communicator did not run on it");
  /* A handler of the program's on MPI_COMM_WORLD runs for them, on
   * MPI_COMM_WORLD. */
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, counting);
  calls = 0;
  seen = MPI_COMM_NULL;
  EXPECT(error_class(MPI_Send(NULL, 0, MPI_INT, size + 5, 0, d)) ==
             MPI_ERR_RANK,
         "MPI_Send to a bad rank did not return MPI_ERR_RANK");
  if (!(calls == 1 && seen == MPI_COMM_WORLD)) {
    printf("errhandler_default: MPI_COMM_WORLD's handler ran %d times, on 0x%x "
           "(MPI_COMM_WORLD 0x%x)\n",
           calls, (unsigned)seen, (unsigned)MPI_COMM_WORLD);
    bad = 1;
  }
  MPI_Comm_get_errhandler(d, &got);
  EXPECT(
      got == counting,
      "MPI_Comm_get_errhandler does not answer MPI_COMM_WORLD's own handler");
  MPI_Errhandler_free(&got);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

  MPI_Group_free(&g);
  MPI_Comm_free_keyval(&keyval);
  MPI_Win_free(&win);
  MPI_Errhandler_free(&counting);
  MPI_Comm_free(&own);
  MPI_Comm_free(&d);
  MPI_Finalize();
  if (!bad)
    printf("errhandler_default: PASS\n");
  return bad;
}
