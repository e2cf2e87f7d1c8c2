/* latency: OSU-style ping-pong between ranks 0 and 1 (osu_latency).
 * Prints half the round-trip time per message size. Ranks beyond 2 stay idle.
 *   mpirun -n 2 build/benchmarks/latency [-m [min:]max] [-i iters] [-x warmup] [--csv|--json] */
#include "bench_common.h"

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  bench_opts o = {.min_size = 0, .max_size = 4L << 20, .iterations = 10000, .warmup = 1000,
                  .window = 1, .format = BENCH_TEXT};
  int rc = bench_parse(argc, argv, &o, "ping-pong latency", 0, rank);
  if (rc == 0 && size < 2) {
    if (rank == 0) fprintf(stderr, "%s: needs at least 2 ranks\n", argv[0]);
    rc = -1;
  }
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : 0;
  }

  char *sbuf = bench_alloc(o.max_size), *rbuf = bench_alloc(o.max_size);
  static const char *const cols[] = {"latency_us"};
  bench_table table = {.rows = 0};
  if (rank == 0)
    bench_table_begin(&table, o.format, "latency", "# Chorus MPI Latency Test\n# Size          Latency (us)\n", 1,
                      cols, size, "\"unit\": \"us\", \"better\": \"lower\"");
  int nsizes = bench_count_sizes(&o), done = 0;
  int peer = rank == 0 ? 1 : 0;
  for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
    if (rank > 1) break;
    int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 9) / 10 : o.iterations;
    int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 9) / 10 : o.warmup;
    double t0 = 0;
    for (int i = 0; i < iters + warmup; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
    }
    double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
    if (rank == 0) {
      bench_table_row(&table, s, &us);
      bench_progress("latency", ++done, nsizes);
    }
  }
  if (rank == 0) bench_table_end(&table);
  free(sbuf);
  free(rbuf);
  MPI_Finalize();
  return 0;
}
