/* A /dev/shm that fills up after MPI_Init (another job, a leaked segment,
 * Docker's 64 MiB default): collectives must still work. MPI_COMM_WORLD's shared
 * window was allocated at MPI_Init, so its pages are there; a communicator made
 * afterwards cannot get one and goes without (its collectives through
 * point-to-point). Before, world's window's pages faulted in as calls used them,
 * and its first large collective died of SIGBUS.
 *
 * Run by shm_full.sh in a mount namespace of its own with a small tmpfs on
 * /dev/shm; rank 0 fills it with a file until ENOSPC. */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int failures;
#define CHECK(c, ...)                                          \
  do {                                                         \
    if (!(c)) {                                                \
      fprintf(stderr, "shm_full: " __VA_ARGS__);               \
      fprintf(stderr, "\n");                                   \
      ++failures;                                              \
    }                                                          \
  } while (0)

/* Every collective the shared window serves, from 8 B to 8 MiB per rank. */
static void collectives(MPI_Comm comm, const char* name) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  for (size_t n = 1; n <= ((size_t)8 << 20) / sizeof(int); n *= 16) {
    int* in = malloc(n * sizeof(int) * (size_t)size);
    int* out = malloc(n * sizeof(int) * (size_t)size);
    if (!in || !out) abort();
    for (size_t i = 0; i < n * (size_t)size; ++i) in[i] = rank + 1;
    MPI_Allreduce(in, out, (int)n, MPI_INT, MPI_SUM, comm);
    CHECK(out[0] == size * (size + 1) / 2 && out[n - 1] == out[0], "%s: allreduce of %zu ints: %d", name, n, out[0]);
    for (size_t i = 0; i < n; ++i) out[i] = rank == 0 ? 7 : 0;
    MPI_Bcast(out, (int)n, MPI_INT, 0, comm);
    CHECK(out[0] == 7 && out[n - 1] == 7, "%s: bcast of %zu ints: %d", name, n, out[n - 1]);
    MPI_Reduce(in, out, (int)n, MPI_INT, MPI_MAX, size - 1, comm);
    if (rank == size - 1) CHECK(out[n - 1] == size, "%s: reduce of %zu ints: %d", name, n, out[n - 1]);
    MPI_Allgather(in, (int)n, MPI_INT, out, (int)n, MPI_INT, comm);
    CHECK(out[n * (size_t)(size - 1)] == size, "%s: allgather of %zu ints: %d", name, n, out[n * (size_t)(size - 1)]);
    MPI_Alltoall(in, (int)n, MPI_INT, out, (int)n, MPI_INT, comm);
    CHECK(out[n * (size_t)size - 1] == size, "%s: alltoall of %zu ints: %d", name, n, out[n * (size_t)size - 1]);
    MPI_Barrier(comm);
    free(in);
    free(out);
  }
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  /* "early": a communicator made before /dev/shm fills up, used after. Its window
   * is allocated as calls use it, so a large collective on it dies of a SIGBUS:
   * known and open (lib/mpi/comm.cc, comm_shm_setup), run as an expected failure. */
  const int early = argc > 1 && strcmp(argv[1], "early") == 0;
  MPI_Comm before = MPI_COMM_NULL;
  if (early) MPI_Comm_dup(MPI_COMM_WORLD, &before);
  const char* filler = "/dev/shm/chorus-test-shm-full";
  if (rank == 0) {
    int fd = open(filler, O_CREAT | O_RDWR | O_TRUNC, 0600);
    CHECK(fd >= 0, "open %s: %s", filler, strerror(errno));
    static char block[1 << 16];
    memset(block, 1, sizeof block);
    size_t bytes = 0;
    for (size_t chunk = sizeof block; fd >= 0 && chunk >= 64;) {
      ssize_t w = write(fd, block, chunk);
      if (w > 0) bytes += (size_t)w;
      else chunk /= 2;
    }
    printf("shm_full: /dev/shm filled (%zu bytes more)\n", bytes);
    if (fd >= 0) close(fd);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (early) {
    collectives(before, "a communicator made before /dev/shm filled up");
    MPI_Comm_free(&before);
  }
  collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Comm dup;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  collectives(dup, "a communicator made with /dev/shm full");
  MPI_Comm_free(&dup);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) unlink(filler);
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("shm_full: %s\n", all ? "FAILED" : "all collectives right");
  MPI_Finalize();
  return all ? 1 : 0;
}
