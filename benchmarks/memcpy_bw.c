/* memcpy_bw: one core's memcpy bandwidth, the physical limit a one-copy
 * intra-node transfer can reach (benchmarks/compare sets MPI bandwidth against it).
 * No MPI. GB/s = bytes copied (each read once, written once) / 10^9 / s; the best
 * of several timed batches per size.
 *   memcpy_bw [-S size,size,...] [-t seconds per size] [--csv|--json] */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"

int main(int argc, char **argv)
{
  long sizes[32] = {8, 4096, 65536, 1L << 20, 4L << 20, 16L << 20, 64L << 20};
  int nsizes = 7, format = 0;
  double per_size = 0.3;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--csv")) format = 1;
    else if (!strcmp(argv[i], "--json")) format = 2;
    else if (!strcmp(argv[i], "-t") && i + 1 < argc) per_size = atof(argv[++i]);
    else if (!strcmp(argv[i], "-S") && i + 1 < argc) {
      if ((nsizes = bench_parse_sizes(argv[++i], sizes, 32, "memcpy_bw")) < 0) return 1;
    } else {
      fprintf(stderr, "usage: %s [-S size,size,...] [-t seconds per size (0.3)] [--csv|--json]\n", argv[0]);
      return !strcmp(argv[i], "-h") ? 0 : 1;
    }
  }
  long max = bench_max_size(sizes, nsizes);
  size_t alloc = ((size_t)max + 4095) / 4096 * 4096;
  char *src = aligned_alloc(4096, alloc), *dst = aligned_alloc(4096, alloc);
  if (!src || !dst) {
    fprintf(stderr, "memcpy_bw: out of memory\n");
    return 1;
  }
  memset(src, 1, alloc);
  memset(dst, 2, alloc);
  if (format == 0) printf("# memcpy bandwidth, one core\n# Size        Bandwidth (GB/s)\n");
  else if (format == 1) printf("size,bandwidth_GBps\n");
  else printf("{\"benchmark\": \"memcpy_bw\", \"unit\": \"GB/s\", \"results\": [");
  for (int k = 0; k < nsizes; ++k) {
    long s = sizes[k];
    /* A batch of copies long enough to time (>= ~1 ms). */
    long reps = 1;
    for (;;) {
      double t0 = bench_now();
      for (long r = 0; r < reps; ++r) {
        memcpy(dst, src, (size_t)s);
        __asm__ __volatile__("" ::: "memory"); /* keep every copy */
      }
      if (bench_now() - t0 > 1e-3 || reps > (1L << 30)) break;
      reps *= 2;
    }
    double best = 0, start = bench_now();
    do {
      double t0 = bench_now();
      for (long r = 0; r < reps; ++r) {
        memcpy(dst, src, (size_t)s);
        __asm__ __volatile__("" ::: "memory");
      }
      double gbs = (double)s * reps / 1e9 / (bench_now() - t0);
      best = gbs > best ? gbs : best;
    } while (bench_now() - start < per_size);
    if (format == 0) printf("%-12ld%18.2f\n", s, best);
    else if (format == 1) printf("%ld,%.4f\n", s, best);
    else printf("%s\n  {\"size\": %ld, \"bandwidth_GBps\": %.4f}", k ? "," : "", s, best);
    fflush(stdout);
  }
  if (format == 2) printf("\n]}\n");
  free(src);
  free(dst);
  return 0;
}
