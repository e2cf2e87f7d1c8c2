/* A /dev/shm that fills up after MPI_Init (another job, a leaked segment,
 * Docker's 64 MiB default): collectives must still work. A communicator's shared
 * window is allocated in /dev/shm, every rank its part, when it is set up
 * (MPI_COMM_WORLD's at MPI_Init, another's at the start of its
 * CHORUS_COLL_SHM_CALLS-th blocking collective), so its pages are there before
 * any call uses them; where there is no room the communicator goes without one
 * (its collectives through point-to-point). Before, windows' pages faulted in as
 * calls used them, and a call that touched one for which /dev/shm had no room
 * died of SIGBUS.
 *
 * Modes (argv[1]):
 *   (none)  rank 0 fills /dev/shm after MPI_Init; then MPI_COMM_WORLD and a
 *           communicator made with /dev/shm full run every collective.
 *   early   the same, and before the fill two communicators are made: one
 *           that runs no call until /dev/shm is full, one that runs 16 small
 *           allreduces first (its window set up then); both then run every
 *           collective.
 *   many    nothing fills /dev/shm but Chorus: 96 communicators made first,
 *           then each runs every collective, all kept until the end, so their
 *           windows take more than the tmpfs holds (each fits when made).
 *   lazy    with CHORUS_COLL_SHM_CALLS=5: a new communicator takes no /dev/shm
 *           until its fifth blocking collective (nonblocking ones do not count),
 *           then its whole window.
 *   reuse   a freed communicator's window goes to the next communicator of the
 *           same ranks in the same order: 40 times a communicator is made, set
 *           up, used (rooted calls from every root, which return before their
 *           peers are done, so the next communicator starts while they read)
 *           and freed, taking no more /dev/shm than the first; one of the ranks
 *           in reverse order gets a window of its own. Results checked
 *           throughout.
 *
 * Run by shm_full.sh in a mount namespace of its own with a small tmpfs on
 * /dev/shm (96 MiB), which nothing else uses. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
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

/* Bytes of /dev/shm in use (rank 0's view; ranks in step through a barrier). */
static double shm_used(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  struct statvfs vfs;
  if (statvfs("/dev/shm", &vfs) != 0) return -1;
  return (double)(vfs.f_blocks - vfs.f_bfree) * (double)vfs.f_frsize;
}

static void lazy(int rank) {
  int size, one = 1, sum = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  /* Whatever the first calls set up (UCX, the rings) is in place before counting. */
  collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  const double base = shm_used();
  MPI_Comm c;
  MPI_Comm_dup(MPI_COMM_WORLD, &c);
  double now = shm_used();
  if (rank == 0) CHECK(now == base, "lazy: MPI_Comm_dup took %.0f B of /dev/shm", now - base);
  for (int i = 0; i < 4; ++i) {
    MPI_Request r;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size, "lazy: allreduce %d: %d", i + 1, sum);
  }
  now = shm_used();
  if (rank == 0) CHECK(now == base, "lazy: 4 blocking collectives took %.0f B of /dev/shm", now - base);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
  CHECK(sum == size, "lazy: allreduce 5: %d", sum);
  now = shm_used();
  /* The window: 2 x (ranks + 2) slots of 256 KiB and the mailbox, all of it. */
  if (rank == 0)
    CHECK(now - base >= (double)(2 * (size + 2)) * 262144.0, "lazy: the fifth took %.0f B of /dev/shm", now - base);
  if (rank == 0) printf("shm_full: the window came with the fifth call: %.1f MiB\n", (now - base) / 1048576.0);
  collectives(c, "a communicator with its window");
  MPI_Comm_free(&c);
}

/* Rooted and other calls with results to check, from every root in turn. */
static void rooted(MPI_Comm comm, const char* name, int round) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  static int buf[65536], out[65536];
  const int counts[] = {1, 100, 16384, 65536};
  for (int root = 0; root < size; ++root)
    for (int j = 0; j < 4; ++j) {
      const int n = counts[j], v = round * 100 + root * 10 + j;
      for (int i = 0; i < n; ++i) buf[i] = rank == root ? v + i : -1;
      MPI_Bcast(buf, n, MPI_INT, root, comm);
      CHECK(buf[0] == v && buf[n - 1] == v + n - 1, "%s: bcast of %d from %d: %d", name, n, root, buf[n - 1]);
      for (int i = 0; i < n; ++i) buf[i] = rank + round;
      MPI_Reduce(buf, out, n, MPI_INT, MPI_SUM, root, comm);
      const int want = size * round + size * (size - 1) / 2;
      if (rank == root) CHECK(out[0] == want && out[n - 1] == want, "%s: reduce of %d to %d: %d", name, n, root, out[0]);
    }
  int one = rank + 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, comm);
  CHECK(sum == size * (size + 1) / 2, "%s: allreduce: %d", name, sum);
}

static void reuse(int rank) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
  MPI_Comm a;
  MPI_Comm_dup(MPI_COMM_WORLD, &a);
  rooted(a, "the first communicator", 0);
  MPI_Comm_free(&a);
  const double base = shm_used();
  char name[64];
  for (int round = 1; round <= 40; ++round) {
    MPI_Comm c;
    if (round % 2) MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &c);
    snprintf(name, sizeof name, "communicator %d", round);
    rooted(c, name, round);
    const double now = shm_used();
    if (rank == 0) CHECK(now <= base, "%s: its window took %.0f B more of /dev/shm", name, now - base);
    if (round % 8 == 0) collectives(c, name);
    MPI_Comm_free(&c);
  }
  MPI_Comm rev;
  MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
  rooted(rev, "the ranks in reverse order", 41);
  collectives(rev, "the ranks in reverse order");
  MPI_Comm_free(&rev);
}

/* Chorus's segments in /dev/shm, the filler left out (ranks in step through a barrier). */
static int chorus_segments(void) {
  MPI_Barrier(MPI_COMM_WORLD);
  int n = 0;
  DIR* d = opendir("/dev/shm");
  for (struct dirent* e; d && (e = readdir(d));)
    n += strncmp(e->d_name, "chorus-", 7) == 0 && strcmp(e->d_name, "chorus-test-shm-full") != 0;
  if (d) closedir(d);
  MPI_Barrier(MPI_COMM_WORLD);
  return n;
}

static void fill_dev_shm(int rank) {
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
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char* mode = argc > 1 ? argv[1] : "";
  if (strcmp(mode, "lazy") == 0) {
    lazy(rank);
  } else if (strcmp(mode, "reuse") == 0) {
    reuse(rank);
  } else if (strcmp(mode, "many") == 0) {
    enum { kComms = 96 };
    MPI_Comm comms[kComms];
    char name[64];
    for (int i = 0; i < kComms; ++i) MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]);
    for (int i = 0; i < kComms; ++i) {
      snprintf(name, sizeof name, "communicator %d of %d", i + 1, (int)kComms);
      collectives(comms[i], name);
    }
    collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    struct statvfs vfs;
    if (rank == 0 && statvfs("/dev/shm", &vfs) == 0)
      printf("shm_full: %d communicators' windows: /dev/shm %.1f of %.1f MiB used\n", (int)kComms,
             (double)(vfs.f_blocks - vfs.f_bfree) * vfs.f_frsize / 1048576.0,
             (double)vfs.f_blocks * vfs.f_frsize / 1048576.0);
    for (int i = 0; i < kComms; ++i) MPI_Comm_free(&comms[i]);
  } else {
    MPI_Comm unused = MPI_COMM_NULL, used = MPI_COMM_NULL;
    const int early = strcmp(mode, "early") == 0;
    if (early) {
      MPI_Comm_dup(MPI_COMM_WORLD, &unused);
      MPI_Comm_dup(MPI_COMM_WORLD, &used);
      int one = 1, sum = 0;
      for (int i = 0; i < 16; ++i) MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, used);
    }
    fill_dev_shm(rank);
    if (early) {
      collectives(unused, "a communicator made before /dev/shm filled up, first used after");
      collectives(used, "a communicator made and used before /dev/shm filled up");
      MPI_Comm_free(&unused);
      MPI_Comm_free(&used);
    }
    collectives(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    const int segments = chorus_segments();
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    collectives(dup, "a communicator made with /dev/shm full");
    MPI_Comm_free(&dup);
    /* Its window could not get its pages: the segment its creator made for it
     * must be gone too (it stayed, one more with each such communicator). */
    const int after = chorus_segments();
    if (rank == 0) CHECK(after == segments, "%d segments in /dev/shm before the communicator, %d after", segments, after);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) unlink("/dev/shm/chorus-test-shm-full");
  }
  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("shm_full: %s\n", all ? "FAILED" : "all collectives right");
  MPI_Finalize();
  return all ? 1 : 0;
}
