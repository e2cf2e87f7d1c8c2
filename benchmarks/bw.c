/* bw: OSU-style unidirectional bandwidth between ranks 0 and 1 (osu_bw).
 * Rank 0 posts a window of Isends (64 by default) and waits for all of them, rank 1
 * posts as many Irecvs; then rank 1 answers with a 4-byte ack. MB/s = 10^6 bytes/s.
 * Ranks beyond 2 stay idle. Device buffers as OSU: -d cuda D D (the sender's, then
 * the receiver's; D device, H host) or -m cuda; -c checks one message per size.
 * --background-load N: rank 0 runs N busy-loop processes meanwhile (bench_common.h);
 * each row adds p50 and p99 of the time of one window and its ack, the slower rank's.
 *   mpirun -n 2 build/benchmarks/bw [-m [min:]max] [-i iters] [-x warmup] [-W window] [-d cuda [D|H D|H]]
 *                                   [-c] [--background-load N] [--csv|--json] */
#include "bench_common.h"

int main(int argc, char **argv)
{
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  bench_opts o = {.min_size = 1, .max_size = 4L << 20, .iterations = 100, .warmup = 10,
                  .window = 64, .format = BENCH_TEXT};
  int rc = bench_parse(argc, argv, &o, "streaming bandwidth", 1, rank);
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
  int mem = rank < 2 ? o.mem[rank] : BENCH_HOST;
  char *sbuf = bench_alloc_mem(o.max_size, mem), *rbuf = bench_alloc_mem(o.max_size, mem);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  MPI_Status *stats = malloc(sizeof(MPI_Status) * (size_t)o.window);  /* as OSU does */
  int ack = 0;
  static const char *const cols[] = {"bandwidth_MBps", "p50_us", "p99_us"};
  bench_table table = {.rows = 0};
  if (rank == 0) {
    char extra[256], base[128];
    bench_table_begin(&table, o.format, "bw", "# Chorus MPI Bandwidth Test\n", o.load_set ? 3 : 1, cols, size,
                      bench_mem_json(&o, bench_load_json(&o, "\"unit\": \"MB/s\", \"better\": \"higher\"", base,
                                                         sizeof base), extra, sizeof extra));
    bench_mem_header(&o, "Sender (rank 0)", "receiver (rank 1)");
    bench_load_header(&o, "time of one window and its ack");
    if (o.format == BENCH_TEXT) printf("# Size      Bandwidth (MB/s)%s\n", bench_load_titles(&o));
  }
  long long wrong = 0;
  int nsizes = bench_count_sizes(&o), done = 0;
  for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
    if (rank > 1) break;
    int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 4) / 5 : o.iterations;
    int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 4) / 5 : o.warmup;
    iters = bench_load_iters(&o, iters);
    double t0 = 0, c0 = 0;
    for (int i = 0; i < iters + warmup; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
      if (per && i > warmup) per[i - warmup - 1] = MPI_Wtime() - c0;
      if (per) c0 = MPI_Wtime();
      if (rank == 0) {
        for (int w = 0; w < o.window; ++w)
          MPI_Isend(sbuf, (int)s, MPI_CHAR, 1, 100, MPI_COMM_WORLD, &reqs[w]);
        MPI_Waitall(o.window, reqs, stats);
        MPI_Recv(&ack, 1, MPI_INT, 1, 101, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      } else {
        for (int w = 0; w < o.window; ++w)
          MPI_Irecv(rbuf, (int)s, MPI_CHAR, 0, 100, MPI_COMM_WORLD, &reqs[w]);
        MPI_Waitall(o.window, reqs, stats);
        MPI_Send(&ack, 1, MPI_INT, 0, 101, MPI_COMM_WORLD);
      }
    }
    double t = MPI_Wtime() - t0;
    double q[2] = {0, 0};
    if (per) { /* the last window's time; then p50 and p99, the slower rank's */
      per[iters - 1] = MPI_Wtime() - c0;
      bench_percentiles(per, iters, &q[0], &q[1]);
      bench_ctl_allreduce(MPI_COMM_WORLD, rank, 2, q, 2, BENCH_CTL_MAX);
    }
    if (o.check) { /* one message of a known pattern */
      if (rank == 0) {
        bench_fill(sbuf, mem, s, s);
        MPI_Send(sbuf, (int)s, MPI_CHAR, 1, 102, MPI_COMM_WORLD);
      } else {
        bench_clear(rbuf, mem, s);
        MPI_Recv(rbuf, (int)s, MPI_CHAR, 0, 102, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        wrong += bench_verify(rbuf, mem, s, s);
      }
    }
    if (rank == 0) {
      double vals[3] = {(double)s / 1e6 * iters * o.window / t, q[0] * 1e6, q[1] * 1e6};
      bench_table_row(&table, s, vals);
      bench_progress("bw", ++done, nsizes);
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
