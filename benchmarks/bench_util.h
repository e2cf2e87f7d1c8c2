/* Helpers of the single-process benchmarks (memcpy_bw, gpu_bw): a monotonic clock
 * and the -S size list. Plain C, header only, so that `cc -O2 memcpy_bw.c` (as
 * benchmarks/compare builds it) still needs nothing else. Define _POSIX_C_SOURCE
 * (200809L) before including it. */
#ifndef CHORUS_BENCH_UTIL_H
#define CHORUS_BENCH_UTIL_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Seconds on CLOCK_MONOTONIC. */
static inline double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "4096", "64K", "1MiB", "2GB": bytes, or -1 when malformed or not positive. */
static inline long bench_parse_size(const char *s)
{
  char *end = NULL;
  long v = strtol(s, &end, 10);
  if (end == s || v <= 0) return -1;
  switch (toupper((unsigned char)*end)) {
    case 'K': v <<= 10; ++end; break;
    case 'M': v <<= 20; ++end; break;
    case 'G': v <<= 30; ++end; break;
    default: break;
  }
  if (*end == 'i') ++end;
  if (*end == 'B' || *end == 'b') ++end;
  return *end ? -1 : v;
}

/* A comma-separated size list into sizes[0..cap): how many, or -1 after
 * "<prog>: bad size '<tok>'" on stderr. */
static inline int bench_parse_sizes(const char *list, long *sizes, int cap, const char *prog)
{
  char *buf = strdup(list), *save = NULL;
  int n = 0;
  if (!buf) {
    fprintf(stderr, "%s: out of memory\n", prog);
    return -1;
  }
  for (char *tok = strtok_r(buf, ",", &save); tok && n < cap; tok = strtok_r(NULL, ",", &save))
    if ((sizes[n++] = bench_parse_size(tok)) < 0) {
      fprintf(stderr, "%s: bad size '%s'\n", prog, tok);
      n = -1;
      break;
    }
  free(buf);
  return n;
}

/* The largest of sizes[0..n) (0 when n is 0). */
static inline long bench_max_size(const long *sizes, int n)
{
  long max = 0;
  for (int k = 0; k < n; ++k) max = sizes[k] > max ? sizes[k] : max;
  return max;
}

#endif
