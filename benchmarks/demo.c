/* demo: the README's demo job (mpirun -n 4 build/benchmarks/demo).
 *  1. ping-pong between pairs (0<->1, 2<->3, ...): latency at 8 B, bandwidth at
 *     1 MiB and 4 MiB (a window of sends then an ack), every message checked;
 *  2. a ring: each rank sends to its right and receives from its left, N times,
 *     checking the data, and reports the time per hop.
 * Only point-to-point calls: results travel to rank 0 as messages. Rank 0 prints
 * a table; any wrong byte makes every rank exit non-zero. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TAG_PING = 10, TAG_BW = 11, TAG_ACK = 12, TAG_RING = 13, TAG_RESULT = 14, TAG_VERDICT = 15 };
enum { LAT_ITERS = 2000, LAT_WARMUP = 200, BW_WINDOW = 8, BW_ITERS = 10, RING_ITERS = 200 };
#define MIB (1024L * 1024L)

static int rank, size;
static long errors;

static unsigned char pattern(long i, int seed) { return (unsigned char)(i * 131 + seed * 17 + 1); }

static void fill(unsigned char *b, long n, int seed)
{
  for (long i = 0; i < n; ++i) b[i] = pattern(i, seed);
}

static void check(const unsigned char *b, long n, int seed, const char *what)
{
  for (long i = 0; i < n; ++i) {
    if (b[i] != pattern(i, seed)) {
      fprintf(stderr, "rank %d: %s: byte %ld is %d, expected %d\n", rank, what, i, b[i],
              pattern(i, seed));
      ++errors;
      return;
    }
  }
}

/* Half round-trip time in microseconds for n-byte messages with peer. */
static double pingpong(int peer, int leader, unsigned char *sbuf, unsigned char *rbuf, long n)
{
  double t0 = 0;
  fill(sbuf, n, rank);
  for (int i = 0; i < LAT_WARMUP + LAT_ITERS; ++i) {
    if (i == LAT_WARMUP) t0 = MPI_Wtime();
    if (leader) {
      MPI_Send(sbuf, (int)n, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
      MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(sbuf, (int)n, MPI_BYTE, peer, TAG_PING, MPI_COMM_WORLD);
    }
  }
  double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * LAT_ITERS);
  check(rbuf, n, peer, "ping-pong data");
  return us;
}

/* Bandwidth in GB/s (10^9 bytes/s) from leader to peer: windows of Isends + ack. */
static double bandwidth(int peer, int leader, unsigned char *sbuf, unsigned char **rbufs, long n)
{
  MPI_Request reqs[BW_WINDOW];
  int ack = 0;
  double t0 = 0;
  if (leader) fill(sbuf, n, rank + 100);
  for (int i = 0; i < 1 + BW_ITERS; ++i) { /* one warmup window */
    if (i == 1) t0 = MPI_Wtime();
    if (leader) {
      for (int w = 0; w < BW_WINDOW; ++w)
        MPI_Isend(sbuf, (int)n, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD, &reqs[w]);
      MPI_Waitall(BW_WINDOW, reqs, MPI_STATUSES_IGNORE);
      MPI_Recv(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      for (int w = 0; w < BW_WINDOW; ++w)
        MPI_Irecv(rbufs[w], (int)n, MPI_BYTE, peer, TAG_BW, MPI_COMM_WORLD, &reqs[w]);
      MPI_Waitall(BW_WINDOW, reqs, MPI_STATUSES_IGNORE);
      if (i == BW_ITERS)
        for (int w = 0; w < BW_WINDOW; ++w) check(rbufs[w], n, peer + 100, "bandwidth data");
      MPI_Send(&ack, 1, MPI_INT, peer, TAG_ACK, MPI_COMM_WORLD);
    }
  }
  double t = MPI_Wtime() - t0;
  return (double)n * BW_WINDOW * BW_ITERS / t / 1e9;
}

/* Microseconds per hop of a ring exchange with n-byte messages. */
static double ring(unsigned char *sbuf, unsigned char *rbuf, long n)
{
  int right = (rank + 1) % size, left = (rank + size - 1) % size;
  double t0 = MPI_Wtime();
  for (int it = 0; it < RING_ITERS; ++it) {
    MPI_Request req;
    fill(sbuf, n < 64 ? n : 64, rank * 1000 + it); /* the checked head changes each time */
    MPI_Irecv(rbuf, (int)n, MPI_BYTE, left, TAG_RING, MPI_COMM_WORLD, &req);
    MPI_Send(sbuf, (int)n, MPI_BYTE, right, TAG_RING, MPI_COMM_WORLD);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    check(rbuf, n < 64 ? n : 64, left * 1000 + it, "ring data");
  }
  return (MPI_Wtime() - t0) * 1e6 / RING_ITERS;
}

int main(int argc, char **argv)
{
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  setvbuf(stdout, NULL, _IOLBF, 0);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "demo: run it with at least 2 ranks: mpirun -n 4 %s\n", argv[0]);
    MPI_Finalize();
    return 1;
  }

  const long big = 4 * MIB;
  unsigned char *sbuf = malloc(big), *rbufs[BW_WINDOW];
  for (int w = 0; w < BW_WINDOW; ++w) rbufs[w] = malloc(big);
  memset(sbuf, 0, big);
  for (int w = 0; w < BW_WINDOW; ++w) memset(rbufs[w], 0, big);

  /* Results per rank: lat 8 B, bw 1 MiB, bw 4 MiB, ring 8 B, ring 1 MiB, errors. */
  double res[6] = {0, 0, 0, 0, 0, 0};
  int peer = rank ^ 1, leader = (rank % 2) == 0;
  if (peer < size) { /* with an odd rank count the last rank sits the pairs out */
    res[0] = pingpong(peer, leader, sbuf, rbufs[0], 8);
    res[1] = bandwidth(peer, leader, sbuf, rbufs, MIB);
    res[2] = bandwidth(peer, leader, sbuf, rbufs, big);
  }
  res[3] = ring(sbuf, rbufs[0], 8);
  res[4] = ring(sbuf, rbufs[0], MIB);
  res[5] = (double)errors;

  long total_errors = 0;
  if (rank == 0) {
    char host[MPI_MAX_PROCESSOR_NAME];
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    MPI_Get_processor_name(host, &len);
    MPI_Get_library_version(lib, &len);
    lib[strcspn(lib, "\n")] = '\0';
    printf("Chorus demo: %d ranks (rank 0 on %s)\n%s\n\n", size, host, lib);
    printf("%-11s %-9s %-8s %12s\n", "test", "ranks", "size", "result");
    printf("%-11s %-9s %-8s %12s\n", "-----------", "---------", "--------", "------------");
    double all[6];
    double ring8 = res[3], ring1m = res[4];
    total_errors += (long)res[5];
    for (int r = 0; r < size; ++r) {
      if (r > 0) {
        MPI_Recv(all, 6, MPI_DOUBLE, r, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        total_errors += (long)all[5];
        if (all[3] > ring8) ring8 = all[3];
        if (all[4] > ring1m) ring1m = all[4];
      } else {
        memcpy(all, res, sizeof all);
      }
      if (r % 2 == 0 && r + 1 < size) {
        char pair[32];
        snprintf(pair, sizeof pair, "%d<->%d", r, r + 1);
        printf("%-11s %-9s %-8s %9.2f us\n", "latency", pair, "8 B", all[0]);
        printf("%-11s %-9s %-8s %7.2f GB/s\n", "bandwidth", pair, "1 MiB", all[1]);
        printf("%-11s %-9s %-8s %7.2f GB/s\n", "bandwidth", pair, "4 MiB", all[2]);
      }
    }
    char ringname[32];
    snprintf(ringname, sizeof ringname, "0..%d", size - 1);
    printf("%-11s %-9s %-8s %6.2f us/hop\n", "ring", ringname, "8 B", ring8);
    printf("%-11s %-9s %-8s %6.2f us/hop\n", "ring", ringname, "1 MiB", ring1m);
    printf("\n%s: %ld wrong messages\n", total_errors ? "FAILED" : "verified", total_errors);
    for (int r = 1; r < size; ++r)
      MPI_Send(&total_errors, 1, MPI_LONG, r, TAG_VERDICT, MPI_COMM_WORLD);
  } else {
    MPI_Send(res, 6, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    MPI_Recv(&total_errors, 1, MPI_LONG, 0, TAG_VERDICT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  free(sbuf);
  for (int w = 0; w < BW_WINDOW; ++w) free(rbufs[w]);
  MPI_Finalize();
  return total_errors ? 1 : 0;
}
