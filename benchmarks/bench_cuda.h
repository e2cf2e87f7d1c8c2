/* CUDA device buffers for the benchmarks (-m cuda, -d cuda) and gpu_bw.
 *
 * The CUDA driver API is loaded at run time with dlopen: $CHORUS_CUDA_LIBRARY when
 * set (a test double, for instance), else libcuda.so.1. So the programs build with
 * any mpicc and without the CUDA toolkit, and on a machine with no driver or no
 * device they say "no CUDA device: ..." instead of failing to start.
 * Copies use cuMemcpy (unified addressing: any direction); device buffers are
 * CUdeviceptr values handed to MPI as pointers, as CUDA-aware MPIs expect.
 * Only libc and libdl: no MPI here (gpu_bw has none), no CUDA headers. */
#ifndef CHORUS_BENCH_CUDA_H
#define CHORUS_BENCH_CUDA_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int bcu_result;      /* CUresult: 0 is success */
typedef uintptr_t bcu_ptr;   /* CUdeviceptr */
typedef void *bcu_handle;    /* CUcontext, CUstream, CUevent */

/* member, symbol, required, parameters. Optional entries may be missing (a test
 * double, an old driver): callers check for NULL. */
#define BENCH_CUDA_FUNCTIONS(X)                                                         \
  X(Init, "cuInit", 1, (unsigned))                                                      \
  X(DriverGetVersion, "cuDriverGetVersion", 0, (int *))                                 \
  X(GetErrorName, "cuGetErrorName", 0, (bcu_result, const char **))                     \
  X(GetErrorString, "cuGetErrorString", 0, (bcu_result, const char **))                 \
  X(DeviceGetCount, "cuDeviceGetCount", 1, (int *))                                     \
  X(DeviceGet, "cuDeviceGet", 1, (int *, int))                                          \
  X(DeviceGetName, "cuDeviceGetName", 0, (char *, int, int))                            \
  X(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", 1, (bcu_handle *, int))         \
  X(CtxSetCurrent, "cuCtxSetCurrent", 1, (bcu_handle))                                  \
  X(MemAlloc, "cuMemAlloc_v2", 1, (bcu_ptr *, size_t))                                  \
  X(MemFree, "cuMemFree_v2", 1, (bcu_ptr))                                              \
  X(MemHostAlloc, "cuMemHostAlloc", 0, (void **, size_t, unsigned))                     \
  X(MemFreeHost, "cuMemFreeHost", 0, (void *))                                          \
  X(Memcpy, "cuMemcpy", 1, (bcu_ptr, bcu_ptr, size_t))                                  \
  X(MemsetD8, "cuMemsetD8_v2", 1, (bcu_ptr, unsigned char, size_t))                     \
  X(StreamSynchronize, "cuStreamSynchronize", 1, (bcu_handle))                          \
  X(EventCreate, "cuEventCreate", 0, (bcu_handle *, unsigned))                          \
  X(EventDestroy, "cuEventDestroy_v2", 0, (bcu_handle))                                 \
  X(EventRecord, "cuEventRecord", 0, (bcu_handle, bcu_handle))                          \
  X(EventSynchronize, "cuEventSynchronize", 0, (bcu_handle))                            \
  X(EventElapsedTime, "cuEventElapsedTime", 0, (float *, bcu_handle, bcu_handle))

typedef struct {
#define BENCH_CUDA_MEMBER(member, symbol, required, params) bcu_result(*member) params;
  BENCH_CUDA_FUNCTIONS(BENCH_CUDA_MEMBER)
#undef BENCH_CUDA_MEMBER
  void *lib;
  int ready;            /* bench_cuda_init succeeded */
  int device, ndevices; /* ordinal in use, devices visible */
  int driver_version;   /* 12040 = 12.4; 0 unknown */
  char path[256];       /* the library loaded */
  char name[128];       /* the device's name */
  char error[640];      /* the last error, for messages */
} bench_cuda_state;

static bench_cuda_state bench_cuda;

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or "CUDA error 2". */
static inline const char *bench_cuda_errstr(bcu_result r, char *buf, size_t n)
{
  const char *name = NULL, *text = NULL;
  if (bench_cuda.GetErrorName) bench_cuda.GetErrorName(r, &name);
  if (bench_cuda.GetErrorString) bench_cuda.GetErrorString(r, &text);
  if (name && text) snprintf(buf, n, "%s (%s)", name, text);
  else if (name) snprintf(buf, n, "%s", name);
  else snprintf(buf, n, "CUDA error %d", r);
  return buf;
}

/* Records "<call>: <error>" in bench_cuda.error; returns -1 when r is an error. */
static inline int bench_cuda_check(bcu_result r, const char *call)
{
  if (r == 0) return 0;
  char e[160];
  snprintf(bench_cuda.error, sizeof bench_cuda.error, "%s: %s", call, bench_cuda_errstr(r, e, sizeof e));
  return -1;
}

/* Loads the driver and makes device (local_rank modulo the visible devices)
 * current, through its primary context, as CUDA runtime programs do. Returns 0, or
 * -1 with the reason in bench_cuda.error ("libcuda.so.1: cannot open shared object
 * file...", "cuInit: CUDA_ERROR_NO_DEVICE (...)", "no device visible"). */
static inline int bench_cuda_init(int local_rank)
{
  if (bench_cuda.ready) return 0;
  const char *env = getenv("CHORUS_CUDA_LIBRARY");
  snprintf(bench_cuda.path, sizeof bench_cuda.path, "%s", env && *env ? env : "libcuda.so.1");
  if (!bench_cuda.lib) {
    bench_cuda.lib = dlopen(bench_cuda.path, RTLD_NOW | RTLD_LOCAL);
    if (!bench_cuda.lib) {
      const char *why = dlerror();
      snprintf(bench_cuda.error, sizeof bench_cuda.error, "%s", why ? why : bench_cuda.path);
      return -1;
    }
  }
  /* dlsym returns void *; copying it into the function pointer is how POSIX says. */
#define BENCH_CUDA_RESOLVE(member, symbol, required, params)                                        \
  do {                                                                                              \
    void *sym = dlsym(bench_cuda.lib, symbol);                                                      \
    memcpy(&bench_cuda.member, &sym, sizeof sym);                                                   \
    if (!sym && (required)) {                                                                       \
      snprintf(bench_cuda.error, sizeof bench_cuda.error, "%s: %s is missing", bench_cuda.path, symbol); \
      return -1;                                                                                    \
    }                                                                                               \
  } while (0);
  BENCH_CUDA_FUNCTIONS(BENCH_CUDA_RESOLVE)
#undef BENCH_CUDA_RESOLVE
  if (bench_cuda_check(bench_cuda.Init(0), "cuInit")) return -1;
  if (bench_cuda.DriverGetVersion) bench_cuda.DriverGetVersion(&bench_cuda.driver_version);
  if (bench_cuda_check(bench_cuda.DeviceGetCount(&bench_cuda.ndevices), "cuDeviceGetCount")) return -1;
  if (bench_cuda.ndevices < 1) {
    snprintf(bench_cuda.error, sizeof bench_cuda.error, "%s: no device visible (CUDA_VISIBLE_DEVICES=%s)",
             bench_cuda.path, getenv("CUDA_VISIBLE_DEVICES") ? getenv("CUDA_VISIBLE_DEVICES") : "unset");
    return -1;
  }
  int ordinal = (local_rank < 0 ? 0 : local_rank) % bench_cuda.ndevices, dev = 0;
  if (bench_cuda_check(bench_cuda.DeviceGet(&dev, ordinal), "cuDeviceGet")) return -1;
  bcu_handle ctx = NULL;
  if (bench_cuda_check(bench_cuda.DevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain")) return -1;
  if (bench_cuda_check(bench_cuda.CtxSetCurrent(ctx), "cuCtxSetCurrent")) return -1;
  bench_cuda.device = ordinal;
  snprintf(bench_cuda.name, sizeof bench_cuda.name, "device %d", ordinal);
  if (bench_cuda.DeviceGetName) bench_cuda.DeviceGetName(bench_cuda.name, (int)sizeof bench_cuda.name, dev);
  bench_cuda.ready = 1;
  return 0;
}

/* Device memory (rounded up to 4 KiB), or NULL with bench_cuda.error set. */
static inline void *bench_cuda_alloc(size_t bytes)
{
  size_t n = ((bytes > 0 ? bytes : 1) + 4095) / 4096 * 4096;
  bcu_ptr p = 0;
  char call[64];
  snprintf(call, sizeof call, "cuMemAlloc(%zu bytes)", n);
  if (bench_cuda_check(bench_cuda.MemAlloc(&p, n), call)) return NULL;
  return (void *)p;
}

static inline void bench_cuda_free(void *p)
{
  if (p && bench_cuda.ready) bench_cuda.MemFree((bcu_ptr)p);
}

/* Copies in any direction (host<->device, device<->device); 0 or -1. Waits for the
 * legacy stream after: from pageable memory to the device cuMemcpy may return
 * before the bytes land, and the MPI library reads them on streams of its own. */
static inline int bench_cuda_copy(void *dst, const void *src, size_t bytes)
{
  if (!bytes) return 0;
  if (bench_cuda_check(bench_cuda.Memcpy((bcu_ptr)dst, (bcu_ptr)src, bytes), "cuMemcpy")) return -1;
  return bench_cuda_check(bench_cuda.StreamSynchronize(NULL), "cuStreamSynchronize");
}

static inline int bench_cuda_memset(void *dst, int value, size_t bytes)
{
  if (!bytes) return 0;
  if (bench_cuda_check(bench_cuda.MemsetD8((bcu_ptr)dst, (unsigned char)value, bytes), "cuMemsetD8")) return -1;
  return bench_cuda_check(bench_cuda.StreamSynchronize(NULL), "cuStreamSynchronize");
}

/* Waits for everything queued on the default stream. */
static inline int bench_cuda_sync(void)
{
  return bench_cuda_check(bench_cuda.StreamSynchronize(NULL), "cuStreamSynchronize");
}

#endif
