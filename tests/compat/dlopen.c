/* Chorus compat test: libmpi loaded with dlopen, as Python's mpi4py and other
 * plug-in hosts load it, not linked into the program. libmpi keeps some
 * per-thread state in the initial-exec TLS model (static TLS), which a library
 * opened after start-up must find room for; this checks that it loads, and that
 * MPI calls work from the main thread and from threads started after the load.
 *   dlopen_libmpi PATH/libmpi.so.12     (alone, or under mpirun at any size)
 * Every rank prints "dlopen rank=R size=S ok" or a line saying what failed;
 * exits non-zero on any failure. */
#include <dlfcn.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static __typeof__(MPI_Init_thread) *p_init_thread;
static __typeof__(MPI_Comm_rank) *p_comm_rank;
static __typeof__(MPI_Comm_size) *p_comm_size;
static __typeof__(MPI_Allreduce) *p_allreduce;
static __typeof__(MPI_Sendrecv) *p_sendrecv;
static __typeof__(MPI_Finalize) *p_finalize;

static int rank = -1, size = -1;

static void *find(void *lib, const char *name)
{
  void *f = dlsym(lib, name);
  if (!f) {
    fprintf(stderr, "dlopen_libmpi: %s not found: %s\n", name, dlerror());
    exit(1);
  }
  return f;
}

/* A ring exchange and an allreduce; returns the number of wrong results. */
static int round_trip(int salt)
{
  int errors = 0;
  int mine = rank * 1000 + salt, got = -1, sum = -1;
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  p_sendrecv(&mine, 1, MPI_INT, right, salt, &got, 1, MPI_INT, left, salt, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (got != left * 1000 + salt) {
    fprintf(stderr, "dlopen_libmpi: rank %d got %d from rank %d, expected %d\n", rank, got, left,
            left * 1000 + salt);
    ++errors;
  }
  p_allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (sum != size * (size - 1) / 2) {
    fprintf(stderr, "dlopen_libmpi: rank %d: allreduce of ranks gave %d, expected %d\n", rank, sum,
            size * (size - 1) / 2);
    ++errors;
  }
  return errors;
}

static void *worker(void *arg)
{
  int *errors = arg;
  for (int i = 0; i < 100; ++i) *errors += round_trip(1 + i);
  return NULL;
}

int main(int argc, char **argv)
{
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (argc != 2) {
    fprintf(stderr, "usage: dlopen_libmpi PATH/libmpi.so.12\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  if (!lib) {
    fprintf(stderr, "dlopen_libmpi: dlopen %s: %s\n", argv[1], dlerror());
    return 1;
  }
  p_init_thread = find(lib, "MPI_Init_thread");
  p_comm_rank = find(lib, "MPI_Comm_rank");
  p_comm_size = find(lib, "MPI_Comm_size");
  p_allreduce = find(lib, "MPI_Allreduce");
  p_sendrecv = find(lib, "MPI_Sendrecv");
  p_finalize = find(lib, "MPI_Finalize");

  int provided = -1;
  /* MULTIPLE: the API lock and its per-thread depth are in use (one thread at a
   * time calls MPI all the same). */
  if (p_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "dlopen_libmpi: MPI_Init_thread failed\n");
    return 1;
  }
  if (provided != MPI_THREAD_MULTIPLE) {
    fprintf(stderr, "dlopen_libmpi: MPI_THREAD_MULTIPLE asked, %d provided\n", provided);
    return 1;
  }
  p_comm_rank(MPI_COMM_WORLD, &rank);
  p_comm_size(MPI_COMM_WORLD, &size);
  int errors = round_trip(0);
  /* Threads born after the load, one at a time. */
  for (int t = 0; t < 3; ++t) {
    pthread_t th;
    int terr = 0;
    if (pthread_create(&th, NULL, worker, &terr) != 0) {
      fprintf(stderr, "dlopen_libmpi: pthread_create failed\n");
      return 1;
    }
    pthread_join(th, NULL);
    errors += terr;
  }
  p_finalize();
  printf("dlopen rank=%d size=%d %s\n", rank, size, errors ? "BAD" : "ok");
  return errors ? 1 : 0;
}
