/* MPI ranks that end, or wait, in ways the launcher must notice.
 *
 * usage: unfinalized MODE RANK
 *   return  rank RANK returns 0 from main without MPI_Finalize
 *   exit    rank RANK calls exit(0) without MPI_Finalize
 *   hang    rank RANK sleeps forever
 *   term    as hang, and every rank answers SIGTERM as a program that saves
 *           its state would: 0.5 s of work, "rank N saved", exit 0
 * Every rank prints "rank N ready" once MPI_Init has returned; the others then
 * wait in MPI_Barrier for RANK, which never comes (see unfinalized.sh,
 * killed.sh, signals.sh). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char saved_line[64];

/* Async-signal-safe calls only. */
static void on_term(int sig) {
  (void)sig;
  struct timespec work = {0, 500 * 1000 * 1000};
  nanosleep(&work, NULL);
  ssize_t n = write(1, saved_line, strlen(saved_line));
  (void)n;
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: unfinalized return|exit|hang RANK\n");
    return 2;
  }
  const char* mode = argv[1];
  int target = atoi(argv[2]);
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (strcmp(mode, "term") == 0) {
    snprintf(saved_line, sizeof saved_line, "rank %d saved\n", rank);
    signal(SIGTERM, on_term);
  }
  printf("rank %d ready\n", rank);
  fflush(stdout);
  if (rank == target) {
    if (strcmp(mode, "return") == 0) return 0;
    if (strcmp(mode, "exit") == 0) exit(0);
    for (;;) pause();
  }
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: the barrier completed without rank %d\n", rank, target);
  MPI_Finalize();
  return 1;
}
