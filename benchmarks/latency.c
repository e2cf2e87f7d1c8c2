/* latency: OSU-style ping-pong between ranks 0 and 1 (osu_latency).
 * Prints half the round-trip time per message size. Ranks beyond 2 stay idle.
 * Device buffers as OSU: -d cuda D D (rank 0's buffers, then rank 1's; D device,
 * H host) or -m cuda; -c checks one exchange per size in both directions.
 *   mpirun -n 2 build/benchmarks/latency [-m [min:]max] [-i iters] [-x warmup] [-d cuda [D|H D|H]] [-c]
 *                                        [--csv|--json] */
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
  if (rc == 0) rc = bench_cuda_setup(&o, argv[0]);
  if (rc != 0) {
    MPI_Finalize();
    return rc < 0 ? 1 : rc == 2 ? 2 : 0;
  }

  int mem = rank < 2 ? o.mem[rank] : BENCH_HOST;
  char *sbuf = bench_alloc_mem(o.max_size, mem), *rbuf = bench_alloc_mem(o.max_size, mem);
  static const char *const cols[] = {"latency_us"};
  bench_table table = {.rows = 0};
  if (rank == 0) {
    char extra[256];
    bench_table_begin(&table, o.format, "latency", "# Chorus MPI Latency Test\n", 1, cols, size,
                      bench_mem_json(&o, "\"unit\": \"us\", \"better\": \"lower\"", extra, sizeof extra));
    bench_mem_header(&o, "Rank 0", "rank 1");
    if (o.format == BENCH_TEXT) printf("# Size          Latency (us)\n");
  }
  int nsizes = bench_count_sizes(&o), done = 0;
  int peer = rank == 0 ? 1 : 0;
  long long wrong = 0;
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
    if (o.check) { /* rank 0 -> 1 with one pattern, then 1 -> 0 with another */
      bench_fill(sbuf, mem, s, 2 * s + rank);
      bench_clear(rbuf, mem, s);
      if (rank == 0) {
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 2, MPI_COMM_WORLD);
      }
      wrong += bench_verify(rbuf, mem, s, 2 * s + peer);
    }
    if (rank == 0) {
      bench_table_row(&table, s, &us);
      bench_progress("latency", ++done, nsizes);
    }
  }
  if (o.check) wrong = bench_check_total(wrong);
  if (rank == 0) bench_table_end(&table, o.check ? wrong : -1);
  bench_free_mem(sbuf, mem);
  bench_free_mem(rbuf, mem);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
