/* mbw_mr: OSU-style multi-pair bandwidth and message rate (osu_mbw_mr).
 * Rank i < n/2 streams windows of Isends (64 by default) to rank i + n/2, which
 * answers each window with a 4-byte ack. MB/s and messages/s are the totals over
 * all pairs (each pair's rate, summed). With an odd count the last rank stays idle.
 * Device buffers as OSU: -d cuda D D (the senders', then the receivers'; D device, H
 * host) or -m cuda; -c checks one message per pair and size.
 * --background-load N: rank 0 runs N busy-loop processes meanwhile (bench_common.h);
 * each row adds p50 and p99 of the time of one window and its ack, the slowest rank's.
 *   mpirun -n 4 build/benchmarks/mbw_mr [-m [min:]max] [-i iters] [-x warmup] [-W window] [-d cuda [D|H D|H]]
 *                                       [-c] [--background-load N] [--csv|--json] */
#include "bench_common.h"

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  bench_opts o = {.min_size = 1, .max_size = 4L << 20, .iterations = 100, .warmup = 10,
                  .window = 64, .format = BENCH_TEXT};
  int rc = bench_parse(argc, argv, &o, "multi-pair bandwidth and message rate", 1, rank);
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
  double *per = o.load_set ? malloc(sizeof(double) * (size_t)o.iterations) : NULL; /* per window, s */
  int pairs = size / 2;
  int sender = rank < pairs, active = rank < 2 * pairs;
  int peer = sender ? rank + pairs : rank - pairs;
  int mem = !active ? BENCH_HOST : o.mem[sender ? 0 : 1];
  char *sbuf = bench_alloc_mem(o.max_size, mem), *rbuf = bench_alloc_mem(o.max_size, mem);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  MPI_Status *stats = malloc(sizeof(MPI_Status) * (size_t)o.window);  /* as OSU does */
  int ack = 0;
  static const char *const cols[] = {"bandwidth_MBps", "messages_per_s", "p50_us", "p99_us"};
  bench_table table = {.rows = 0};
  if (rank == 0) {
    char head[256], extra[128], base[160];
    snprintf(head, sizeof head,
             "# Chorus MPI Multiple Bandwidth / Message Rate Test\n# [ pairs: %d ] [ window size: %d ]\n",
             pairs, o.window);
    snprintf(extra, sizeof extra, "\"pairs\": %d, \"window\": %d, \"unit\": \"MB/s\", \"better\": \"higher\"",
             pairs, o.window);
    char json[384];
    bench_table_begin(&table, o.format, "mbw_mr", head, o.load_set ? 4 : 2, cols, size,
                      bench_mem_json(&o, bench_load_json(&o, extra, base, sizeof base), json, sizeof json));
    bench_mem_header(&o, "Senders'", "receivers'");
    bench_load_header(&o, "time of one window and its ack");
    if (o.format == BENCH_TEXT) printf("# Size                  MB/s        Messages/s%s\n", bench_load_titles(&o));
  }
  long long wrong = 0;
  int nsizes = bench_count_sizes(&o), done = 0;
  for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
    int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 4) / 5 : o.iterations;
    int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 4) / 5 : o.warmup;
    iters = bench_load_iters(&o, iters);
    double t0 = 0, c0 = 0, rate = 0, q[2] = {0, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
      for (int i = 0; i < iters + warmup; ++i) {
        if (i == warmup) t0 = MPI_Wtime();
        if (per && i > warmup) per[i - warmup - 1] = MPI_Wtime() - c0;
        if (per) c0 = MPI_Wtime();
        if (sender) {
          for (int w = 0; w < o.window; ++w)
            MPI_Isend(sbuf, (int)s, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[w]);
          MPI_Waitall(o.window, reqs, stats);
          MPI_Recv(&ack, 1, MPI_INT, peer, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
          for (int w = 0; w < o.window; ++w)
            MPI_Irecv(rbuf, (int)s, MPI_CHAR, peer, 100, MPI_COMM_WORLD, &reqs[w]);
          MPI_Waitall(o.window, reqs, stats);
          MPI_Send(&ack, 1, MPI_INT, peer, 101, MPI_COMM_WORLD);
        }
      }
      if (sender) rate = (double)iters * o.window / (MPI_Wtime() - t0); /* messages/s of this pair */
      if (per) { /* the last window's time; then p50 and p99, the slowest active rank's */
        per[iters - 1] = MPI_Wtime() - c0;
        bench_percentiles(per, iters, &q[0], &q[1]);
        bench_ctl_allreduce(MPI_COMM_WORLD, rank, 2 * pairs, q, 2, BENCH_CTL_MAX);
      }
      if (o.check) { /* one message of a known pattern per pair */
        if (sender) {
          bench_fill(sbuf, mem, s, s + rank);
          MPI_Send(sbuf, (int)s, MPI_CHAR, peer, 102, MPI_COMM_WORLD);
        } else {
          bench_clear(rbuf, mem, s);
          MPI_Recv(rbuf, (int)s, MPI_CHAR, peer, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
          wrong += bench_verify(rbuf, mem, s, s + peer);
        }
      }
    }
    double total = 0;
    MPI_Reduce(&rate, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
      double vals[4] = {total * (double)s / 1e6, total, q[0] * 1e6, q[1] * 1e6};
      bench_table_row(&table, s, vals);
      bench_progress("mbw_mr", ++done, nsizes);
    }
  }
  if (o.check) wrong = bench_check_total(wrong);
  if (rank == 0) bench_table_end(&table, o.check ? wrong : -1);
  free(reqs);
  free(stats);
  bench_free_mem(sbuf, mem);
  bench_free_mem(rbuf, mem);
  free(per);
  bench_load_stop();
  MPI_Finalize();
  return wrong ? 1 : 0;
}
