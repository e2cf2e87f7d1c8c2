/* gpu_bw: the copy limits a device-buffer MPI transfer is measured against, on one
 * GPU, through the CUDA driver loaded at run time (bench_cuda.h; no MPI, no toolkit):
 *   d2d         cuMemcpy device -> device (cudaMemcpy D2D)
 *   h2d, d2h    cuMemcpy between pinned host memory (cuMemHostAlloc) and the device:
 *               the ceiling of a staging pipeline through pinned host chunks
 * GB/s = bytes copied / 10^9 / s (a D2D copy reads and writes each byte: the
 * memory traffic is twice that). Each size: a warmup copy, then batches of copies
 * timed with CUDA events (wall clock around a stream synchronize where the driver
 * has no events); the best batch is reported.
 *   gpu_bw [-S size,size,...] [-t seconds per size and direction] [-g device] [--csv|--json]
 * Default sizes 4K,64K,1M,16M,64M,256M. No driver or no device: exit 2 and
 * "no CUDA device: ...". */
#define _POSIX_C_SOURCE 200809L
#include "bench_cuda.h"
#include "bench_util.h"

enum { DIR_D2D, DIR_H2D, DIR_D2H, DIR_COUNT };
static const char *const dir_names[DIR_COUNT] = {"d2d", "h2d", "d2h"};

static void die(const char *what)
{
  fflush(stdout);
  fprintf(stderr, "gpu_bw: %s: %s\n", what, bench_cuda.error);
  exit(1);
}

/* One cuMemcpy, not waited for (the timing below waits for all of them). */
static int raw_copy(void *dst, const void *src, size_t bytes)
{
  return bench_cuda_check(bench_cuda.Memcpy((bcu_ptr)dst, (bcu_ptr)src, bytes), "cuMemcpy");
}

/* Seconds for `n` copies of `bytes` from src to dst: events when the driver has
 * them, else the wall clock around a synchronize. */
static double time_copies(void *dst, const void *src, size_t bytes, int n, bcu_handle ev[2])
{
  if (ev[0]) {
    if (bench_cuda_check(bench_cuda.EventRecord(ev[0], NULL), "cuEventRecord")) die("timing");
    for (int i = 0; i < n; ++i)
      if (raw_copy(dst, src, bytes)) die("copy");
    if (bench_cuda_check(bench_cuda.EventRecord(ev[1], NULL), "cuEventRecord") ||
        bench_cuda_check(bench_cuda.EventSynchronize(ev[1]), "cuEventSynchronize"))
      die("timing");
    float ms = 0;
    if (bench_cuda_check(bench_cuda.EventElapsedTime(&ms, ev[0], ev[1]), "cuEventElapsedTime")) die("timing");
    return ms * 1e-3;
  }
  if (bench_cuda_sync()) die("synchronize");
  double t0 = bench_now();
  for (int i = 0; i < n; ++i)
    if (raw_copy(dst, src, bytes)) die("copy");
  if (bench_cuda_sync()) die("synchronize");
  return bench_now() - t0;
}

/* Best GB/s over batches that together take about `budget` seconds. */
static double measure(void *dst, const void *src, size_t bytes, double budget, bcu_handle ev[2], int *copies)
{
  time_copies(dst, src, bytes, 1, ev); /* warmup: first touch, clocks */
  double one = time_copies(dst, src, bytes, 1, ev);
  if (one <= 0) one = 1e-7;
  int per_batch = (int)(budget / 5 / one);
  if (per_batch < 1) per_batch = 1;
  if (per_batch > 10000) per_batch = 10000;
  double best = 0, spent = 0;
  int batches = 0;
  *copies = 0;
  while (batches < 3 || (spent < budget && batches < 50)) {
    double t = time_copies(dst, src, bytes, per_batch, ev);
    spent += t;
    ++batches;
    *copies += per_batch;
    double gbps = t > 0 ? (double)bytes * per_batch / 1e9 / t : 0;
    if (gbps > best) best = gbps;
  }
  return best;
}

int main(int argc, char **argv)
{
  long sizes[32] = {4096, 65536, 1L << 20, 16L << 20, 64L << 20, 256L << 20};
  int nsizes = 6, format = 0, device = 0;
  double per_size = 0.2;
  const char *gpu_env = getenv("CHORUS_GPU_BW_DEVICE");
  if (gpu_env && *gpu_env) device = atoi(gpu_env);
  for (int i = 1; i < argc; ++i) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--csv")) format = 1;
    else if (!strcmp(a, "--json")) format = 2;
    else if (!strcmp(a, "-t") && v) per_size = atof(argv[++i]);
    else if (!strcmp(a, "-g") && v) device = atoi(argv[++i]);
    else if (!strcmp(a, "-S") && v) {
      if ((nsizes = bench_parse_sizes(argv[++i], sizes, 32, "gpu_bw")) < 0) return 1;
      if (!nsizes) {
        fprintf(stderr, "gpu_bw: -S needs sizes\n");
        return 1;
      }
    } else {
      fprintf(stderr,
              "usage: gpu_bw [-S size,size,...] [-t seconds] [-g device] [--csv|--json]\n"
              "  device<->device and pinned host<->device copy bandwidth through the CUDA driver\n"
              "  ($CHORUS_CUDA_LIBRARY, else libcuda.so.1); GB/s = bytes copied / 10^9 / s\n"
              "  -S sizes (4K,64K,1M,16M,64M,256M)  -t seconds per size and direction (0.2)\n"
              "  -g device ordinal, taken modulo the devices ($CHORUS_GPU_BW_DEVICE, else 0)\n");
      return strcmp(a, "-h") && strcmp(a, "--help") ? 1 : 0;
    }
  }
  if (per_size <= 0) per_size = 0.01;

  if (bench_cuda_init(device)) {
    fprintf(stderr, "gpu_bw: no CUDA device: %s\n", bench_cuda.error);
    return 2;
  }
  if (!bench_cuda.MemHostAlloc || !bench_cuda.MemFreeHost) {
    fprintf(stderr, "gpu_bw: %s has no cuMemHostAlloc/cuMemFreeHost\n", bench_cuda.path);
    return 2;
  }
  long max = bench_max_size(sizes, nsizes);
  void *d0 = bench_cuda_alloc((size_t)max), *d1 = bench_cuda_alloc((size_t)max), *h = NULL;
  if (!d0 || !d1) die("device buffers");
  if (bench_cuda_check(bench_cuda.MemHostAlloc(&h, (size_t)max, 0), "cuMemHostAlloc")) die("pinned host buffer");
  memset(h, 1, (size_t)max);
  if (bench_cuda_memset(d0, 2, (size_t)max) || bench_cuda_memset(d1, 3, (size_t)max)) die("device buffers");
  bcu_handle ev[2] = {NULL, NULL};
  int events = bench_cuda.EventCreate && bench_cuda.EventRecord && bench_cuda.EventSynchronize &&
               bench_cuda.EventElapsedTime && bench_cuda.EventCreate(&ev[0], 0) == 0 &&
               bench_cuda.EventCreate(&ev[1], 0) == 0;
  if (!events) ev[0] = ev[1] = NULL;

  const char *timer = events ? "cuda events" : "wall clock";
  if (format == 2) {
    printf("{\"benchmark\": \"gpu_bw\", \"device\": %d, \"name\": ", bench_cuda.device);
    printf("\"");
    for (const char *c = bench_cuda.name; *c; ++c)
      if (*c != '"' && *c != '\\' && (unsigned char)*c >= 0x20) putchar(*c);
    printf("\", \"driver_version\": %d, \"timer\": \"%s\", \"unit\": \"GB/s\", \"results\": [", bench_cuda.driver_version,
           timer);
  } else if (format == 1) {
    printf("size,d2d_GBps,h2d_pinned_GBps,d2h_pinned_GBps\n");
  } else {
    printf("# gpu_bw: device %d of %d: %s, driver %d.%d (%s), timer: %s\n", bench_cuda.device, bench_cuda.ndevices,
           bench_cuda.name, bench_cuda.driver_version / 1000, bench_cuda.driver_version % 1000 / 10, bench_cuda.path,
           timer);
    printf("# GB/s = bytes copied / 10^9 / s, best batch; d2d memory traffic is twice that\n");
    printf("# %12s  %12s  %12s  %12s\n", "size (B)", "d2d", "h2d pinned", "d2h pinned");
  }
  fflush(stdout);
  for (int k = 0; k < nsizes; ++k) {
    size_t n = (size_t)sizes[k];
    double gbps[DIR_COUNT];
    int copies[DIR_COUNT];
    gbps[DIR_D2D] = measure(d1, d0, n, per_size, ev, &copies[DIR_D2D]);
    gbps[DIR_H2D] = measure(d0, h, n, per_size, ev, &copies[DIR_H2D]);
    gbps[DIR_D2H] = measure(h, d0, n, per_size, ev, &copies[DIR_D2H]);
    if (format == 2) {
      printf("%s\n  {\"size\": %zu", k ? "," : "", n);
      for (int d = 0; d < DIR_COUNT; ++d) printf(", \"%s_GBps\": %.4f", dir_names[d], gbps[d]);
      printf(", \"copies\": [%d, %d, %d]}", copies[0], copies[1], copies[2]);
    } else if (format == 1) {
      printf("%zu,%.4f,%.4f,%.4f\n", n, gbps[0], gbps[1], gbps[2]);
    } else {
      printf("  %12zu  %12.2f  %12.2f  %12.2f\n", n, gbps[0], gbps[1], gbps[2]);
    }
    fflush(stdout);
  }
  if (format == 2) printf("\n]}\n");
  if (events && bench_cuda.EventDestroy) {
    bench_cuda.EventDestroy(ev[0]);
    bench_cuda.EventDestroy(ev[1]);
  }
  bench_cuda.MemFreeHost(h);
  bench_cuda_free(d0);
  bench_cuda_free(d1);
  return 0;
}
