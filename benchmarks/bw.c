/* bw: OSU-style unidirectional bandwidth between ranks 0 and 1 (osu_bw).
 * Rank 0 posts a window of Isends (64 by default) and waits for all of them, rank 1
 * posts as many Irecvs; then rank 1 answers with a 4-byte ack. MB/s = 10^6 bytes/s.
 * Ranks beyond 2 stay idle. Device buffers as OSU: -d cuda D D (the sender's, then
 * the receiver's; D device, H host) or -m cuda; -c checks one message per size.
 *   mpirun -n 2 build/benchmarks/bw [-m [min:]max] [-i iters] [-x warmup] [-W window] [-d cuda [D|H D|H]]
 *                                   [-c] [--csv|--json] */
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

  int mem = rank < 2 ? o.mem[rank] : BENCH_HOST;
  char *sbuf = bench_alloc_mem(o.max_size, mem), *rbuf = bench_alloc_mem(o.max_size, mem);
  MPI_Request *reqs = malloc(sizeof(MPI_Request) * (size_t)o.window);
  MPI_Status *stats = malloc(sizeof(MPI_Status) * (size_t)o.window);  /* as OSU does */
  int ack = 0;
  static const char *const cols[] = {"bandwidth_MBps"};
  bench_table table = {.rows = 0};
  if (rank == 0) {
    char extra[256];
    bench_table_begin(&table, o.format, "bw", "# Chorus MPI Bandwidth Test\n", 1, cols, size,
                      bench_mem_json(&o, "\"unit\": \"MB/s\", \"better\": \"higher\"", extra, sizeof extra));
    bench_mem_header(&o, "Sender (rank 0)", "receiver (rank 1)");
    if (o.format == BENCH_TEXT) printf("# Size      Bandwidth (MB/s)\n");
  }
  long long wrong = 0;
  int nsizes = bench_count_sizes(&o), done = 0;
  for (long s = bench_first_size(&o); s <= o.max_size; s = bench_next_size(s)) {
    if (rank > 1) break;
    int iters = s > BENCH_LARGE_MESSAGE ? (o.iterations + 4) / 5 : o.iterations;
    int warmup = s > BENCH_LARGE_MESSAGE ? (o.warmup + 4) / 5 : o.warmup;
    double t0 = 0;
    for (int i = 0; i < iters + warmup; ++i) {
      if (i == warmup) t0 = MPI_Wtime();
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
      double mbps = (double)s / 1e6 * iters * o.window / t;
      bench_table_row(&table, s, &mbps);
      bench_progress("bw", ++done, nsizes);
    }
  }
  if (o.check) wrong = bench_check_total(wrong);
  if (rank == 0) bench_table_end(&table, o.check ? wrong : -1);
  free(reqs);
  free(stats);
  bench_free_mem(sbuf, mem);
  bench_free_mem(rbuf, mem);
  MPI_Finalize();
  return wrong ? 1 : 0;
}
