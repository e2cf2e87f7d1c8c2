/* latency: OSU-style ping-pong between ranks 0 and 1 (osu_latency).
 * Prints half the round-trip time per message size. Ranks beyond 2 stay idle.
 * Device buffers as OSU: -d cuda D D (rank 0's buffers, then rank 1's; D device,
 * H host) or -m cuda; -c checks one exchange per size in both directions.
 * --background-load N: rank 0 runs N busy-loop processes meanwhile (bench_common.h);
 * each row adds p50 and p99 of half a round trip, timed one by one on ranks 0 and 1,
 * the slower rank's.
 *   mpirun -n 2 build/benchmarks/latency [-m [min:]max] [-i iters] [-x warmup] [-d cuda [D|H D|H]] [-c]
 *                                        [--background-load N] [--csv|--json] */
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

  if (o.load_set) bench_load_start(o.load, rank, argv[0]);
  double *per = o.load_set ? malloc(sizeof(double) * (size_t)o.iterations) : NULL; /* per iteration, s */
  int mem = rank < 2 ? o.mem[rank] : BENCH_HOST;
  char *sbuf = bench_alloc_mem(o.max_size, mem), *rbuf = bench_alloc_mem(o.max_size, mem);
  static const char *const cols[] = {"latency_us", "p50_us", "p99_us"};
  bench_table table = {.rows = 0};
  if (rank == 0) {
    char extra[256], base[128];
    bench_table_begin(&table, o.format, "latency", "# Chorus MPI Latency Test\n", o.load_set ? 3 : 1, cols, size,
                      bench_mem_json(&o, bench_load_json(&o, "\"unit\": \"us\", \"better\": \"lower\"", base, sizeof base),
                                     extra, sizeof extra));
    bench_mem_header(&o, "Rank 0", "rank 1");
    bench_load_header(&o, "half a round trip, each timed");
    if (o.format == BENCH_TEXT) printf("# Size          Latency (us)%s\n", bench_load_titles(&o));
  }
  int nsizes = bench_count_sizes(&o), done = 0;
  int peer = rank == 0 ? 1 : 0;
  long long wrong = 0;
  for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
    if (rank > 1) break;
    int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 9) / 10 : o.iterations;
    int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 9) / 10 : o.warmup;
    iters = bench_load_iters(&o, iters);
    double t0 = 0, c0 = 0;
    for (int i = 0; i < iters + warmup; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      if (per && i > warmup) per[i - warmup - 1] = MPI_Wtime() - c0;
      if (per) c0 = MPI_Wtime();
      if (rank == 0) {
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      }
    }
    double us = (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
    double vals[3] = {us, 0, 0};
    if (per) { /* the last iteration's time; then p50 and p99, the slower rank's */
      per[iters - 1] = MPI_Wtime() - c0;
      bench_percentiles(per, iters, &vals[1], &vals[2]);
      bench_ctl_allreduce(MPI_COMM_WORLD, rank, 2, &vals[1], 2, BENCH_CTL_MAX);
      vals[1] *= 1e6 / 2;
      vals[2] *= 1e6 / 2;
    }
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
      bench_table_row(&table, s, vals);
      bench_progress("latency", ++done, nsizes);
    }
  }
  if (o.check) wrong = bench_check_total(wrong);
  if (rank == 0) bench_table_end(&table, o.check ? wrong : -1);
  bench_free_mem(sbuf, mem);
  bench_free_mem(rbuf, mem);
  free(per);
  bench_load_stop();
  MPI_Finalize();
  return wrong ? 1 : 0;
}
