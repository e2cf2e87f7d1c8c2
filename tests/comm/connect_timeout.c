/* MPI_Comm_connect to an open port whose owner does not call MPI_Comm_accept
 * times out with an error of class MPI_ERR_PORT (MPI-4.1 11.4.2: "will
 * eventually time out after an implementation-defined time"; MPICH's
 * errors/spawn/connect_timeout). The limit is CHORUS_CONNECT_TIMEOUT, or the
 * info key "timeout" of the call. A request that timed out is withdrawn: a later
 * MPI_Comm_accept on the port must not take it (it would wait for a group that
 * left) but the next, live request.
 *
 * Rank 0 opens a port; the other ranks form the connecting group. Run with
 * CHORUS_CONNECT_TIMEOUT=2 (meson does):
 *   1. connect with no accept (the limit from the environment): MPI_ERR_PORT;
 *   2. connect with info timeout=1: MPI_ERR_PORT, in well under the 2 s default;
 *   3. connect again while rank 0 accepts once: success, and the two sides swap
 *      a value over the new intercommunicator (the two withdrawn requests queued
 *      first on the port are skipped);
 *   4. a bad info value ("soon") at the connecting root: MPI_ERR_INFO on every
 *      member of the group, without waiting;
 *   5. 24 rounds of an accept that starts around the connecting root's deadline
 *      (0.2 s, accepts from 0.08 to 0.31 s): the connect either succeeds or fails
 *      with MPI_ERR_PORT and connects again without a limit, and the accept must
 *      pair with a live request (it skips one answered after its root gave up),
 *      which the two roots check by swapping the round's number;
 *   6. a connect to the closed port: MPI_ERR_PORT.
 * Before the time limit existed, step 1 waited for ever. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static int expect_class(int rank, const char *what, int rc, int want)
{
  int cls = MPI_SUCCESS;
  MPI_Error_class(rc, &cls);
  if (cls == want) return 0;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fprintf(stderr, "rank %d: %s returned class %d (%s), expected %d\n", rank, what, cls, text, want);
  return 1;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    MPI_Finalize();
    return 0;
  }
  MPI_Comm side;
  MPI_Comm_split(MPI_COMM_WORLD, rank == 0 ? 0 : 1, rank, &side);
  char port[MPI_MAX_PORT_NAME] = {0};
  if (rank == 0) MPI_Open_port(MPI_INFO_NULL, port);
  MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
  int bad = 0;
  if (rank != 0) {
    MPI_Comm_set_errhandler(side, MPI_ERRORS_RETURN);
    MPI_Comm inter = MPI_COMM_NULL;
    /* 1: the limit from the environment. */
    int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
    bad |= expect_class(rank, "MPI_Comm_connect (no accept)", rc, MPI_ERR_PORT);
    /* 2: the limit from the info key. */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "timeout", "1");
    double t0 = MPI_Wtime();
    rc = MPI_Comm_connect(port, info, 0, side, &inter);
    double took = MPI_Wtime() - t0;
    bad |= expect_class(rank, "MPI_Comm_connect (timeout 1)", rc, MPI_ERR_PORT);
    if (took > 1.9) {
      fprintf(stderr, "rank %d: the connect with info timeout=1 took %.2f s: the info key was not used\n", rank,
              took);
      bad = 1;
    }
    /* 4 (before 3, so rank 0's accept is not raced): a bad value at the root. */
    MPI_Info_set(info, "timeout", "soon");
    rc = MPI_Comm_connect(port, info, 0, side, &inter);
    bad |= expect_class(rank, "MPI_Comm_connect (timeout \"soon\")", rc, MPI_ERR_INFO);
    MPI_Info_free(&info);
  }
  /* 3: rank 0 accepts once; the withdrawn requests are queued before this one. */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm inter = MPI_COMM_NULL;
  int rc;
  if (rank == 0) {
    rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, side, &inter);
  } else {
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
  }
  bad |= expect_class(rank, rank == 0 ? "MPI_Comm_accept" : "MPI_Comm_connect (with an accept)", rc, MPI_SUCCESS);
  if (rc == MPI_SUCCESS) {
    int rsize = 0, mine = 100 + rank, got = -1;
    MPI_Comm_remote_size(inter, &rsize);
    if (rsize != (rank == 0 ? size - 1 : 1)) {
      fprintf(stderr, "rank %d: the remote group has %d processes\n", rank, rsize);
      bad = 1;
    }
    /* Remote rank 0 of each side: rank 0 here, and world rank 1 there. */
    if (rank <= 1) {
      MPI_Sendrecv(&mine, 1, MPI_INT, 0, 7, &got, 1, MPI_INT, 0, 7, inter, MPI_STATUS_IGNORE);
      if (got != (rank == 0 ? 101 : 100)) {
        fprintf(stderr, "rank %d: got %d over the new intercommunicator\n", rank, got);
        bad = 1;
      }
    }
    MPI_Comm_disconnect(&inter);
  }
  /* 5 */
  int late = 0;
  for (int round = 0; round < 24; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    inter = MPI_COMM_NULL;
    if (rank == 0) {
      usleep((useconds_t)(80000 + 10000 * round));
      rc = MPI_Comm_accept(port, MPI_INFO_NULL, 0, side, &inter);
    } else {
      MPI_Info info;
      MPI_Info_create(&info);
      MPI_Info_set(info, "timeout", "0.2");
      rc = MPI_Comm_connect(port, info, 0, side, &inter);
      MPI_Info_free(&info);
      int cls = MPI_SUCCESS;
      MPI_Error_class(rc, &cls);
      if (cls == MPI_ERR_PORT) {
        ++late;
        rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
      }
    }
    bad |= expect_class(rank, "a connection around the deadline", rc, MPI_SUCCESS);
    if (rc != MPI_SUCCESS) break;
    if (rank <= 1) {
      int got = -1;
      MPI_Sendrecv(&round, 1, MPI_INT, 0, 8, &got, 1, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
      if (got != round) {
        fprintf(stderr, "rank %d: round %d paired with the other side's round %d\n", rank, round, got);
        bad = 1;
      }
    }
    MPI_Comm_disconnect(&inter);
  }
  if (rank == 1) printf("connect_timeout: %d of 24 connects around the deadline timed out\n", late);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) MPI_Close_port(port);
  /* 6: the port is closed: MPI_ERR_PORT (UCX refuses the connection at once here;
   * elsewhere the time limit ends it). */
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank != 0) {
    rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, side, &inter);
    bad |= expect_class(rank, "MPI_Comm_connect (closed port)", rc, MPI_ERR_PORT);
  }
  MPI_Comm_free(&side);
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0 && !any) printf("connect_timeout: all checks passed\n");
  MPI_Finalize();
  return any;
}
