/* MPI_T event chorus_hang_wait: a receive that waits longer than
 * CHORUS_HANG_TIMEOUT (1 s, set by meson) raises it once, with what the hang
 * doctor reports: seconds waited, communicator, sequence (-1: point-to-point),
 * peer, tag, root and pending requests. Started alone (a world of one: under
 * mpirun a hang report ends the job), with a second thread that sends the
 * message to this rank after 2.5 s. Prints "No Errors" when its checks pass. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int errs = 0;
static int calls = 0, bad_reads = 0, safety_seen = -1;
static double seconds = 0;
static int comm = -1, peer = -3, tag = -2, root = -3, pending = -1;
static MPI_Count seq = -2;

#define CHECK(cond, ...)                                  \
  do {                                                    \
    if (!(cond)) {                                        \
      ++errs;                                             \
      printf("hang_event line %d: %s: ", __LINE__, #cond); \
      printf(__VA_ARGS__);                                \
      printf("\n");                                       \
    }                                                     \
  } while (0)

static void* late_send(void* arg) {
  (void)arg;
  int v = 42;
  usleep(2500 * 1000);
  MPI_Send(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD);
  return NULL;
}

static void on_hang(MPI_T_event_instance ev, MPI_T_event_registration reg, MPI_T_cb_safety safety, void* ud) {
  (void)reg;
  (void)ud;
  ++calls;
  safety_seen = (int)safety;
  /* seconds, comm, sequence, peer, tag, root, pending */
  if (MPI_T_event_read(ev, 0, &seconds) != MPI_SUCCESS || MPI_T_event_read(ev, 1, &comm) != MPI_SUCCESS ||
      MPI_T_event_read(ev, 2, &seq) != MPI_SUCCESS || MPI_T_event_read(ev, 3, &peer) != MPI_SUCCESS ||
      MPI_T_event_read(ev, 4, &tag) != MPI_SUCCESS || MPI_T_event_read(ev, 5, &root) != MPI_SUCCESS ||
      MPI_T_event_read(ev, 6, &pending) != MPI_SUCCESS)
    ++bad_reads;
}

int main(int argc, char** argv) {
  int provided, rank, idx = -1;
  MPI_T_init_thread(MPI_THREAD_SINGLE, &provided);
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (provided < MPI_THREAD_MULTIPLE) {
    printf("SKIP: MPI_THREAD_MULTIPLE not provided\n");
    MPI_Finalize();
    MPI_T_finalize();
    return 77;
  }
  CHECK(MPI_T_event_get_index("chorus_hang_wait", &idx) == MPI_SUCCESS, "no event chorus_hang_wait");
  MPI_T_event_registration reg = NULL;
  if (idx >= 0) {
    CHECK(MPI_T_event_handle_alloc(idx, NULL, MPI_INFO_NULL, &reg) == MPI_SUCCESS, "handle_alloc failed");
    CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, NULL, on_hang) ==
              MPI_SUCCESS,
          "register_callback failed");
  }
  pthread_t sender;
  pthread_create(&sender, NULL, late_send, NULL);
  int v = 0;
  MPI_Recv(&v, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  pthread_join(sender, NULL);
  CHECK(v == 42, "received %d", v);
  CHECK(calls == 1, "%d chorus_hang_wait events for one long receive", calls);
  CHECK(bad_reads == 0, "MPI_T_event_read failed in the callback");
  CHECK(safety_seen == MPI_T_CB_REQUIRE_MPI_RESTRICTED, "called with cb_safety %d", safety_seen);
  CHECK(seconds >= 1.0 && seconds < 60, "waited %.2f s", seconds);
  CHECK(comm == (int)MPI_COMM_WORLD, "communicator %d", comm);
  CHECK(seq == -1, "sequence %lld for a receive", (long long)seq);
  CHECK(peer == 0 && tag == 5 && root == -1, "peer %d, tag %d, root %d", peer, tag, root);
  CHECK(pending == 1, "%d requests pending", pending);
  if (reg) MPI_T_event_handle_free(reg, NULL, NULL);
  MPI_Finalize();
  MPI_T_finalize();
  if (errs) return 1;
  if (rank == 0) printf("No Errors\n");
  return 0;
}
