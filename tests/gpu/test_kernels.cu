// Kernels for the GPU tests (gpu_harness.cc loads them from a fatbin). The CPU
// test double tests/mockcuda implements the same names and parameters.
extern "C" __global__ void chorus_test_fill_f32(float* p, unsigned long long n, float v) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    p[i] = v;
  }
}

extern "C" __global__ void chorus_test_scale_f32(float* p, unsigned long long n, float s) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    p[i] *= s;
  }
}

// Keeps its stream busy for about `ns` nanoseconds (to prove stream ordering).
extern "C" __global__ void chorus_test_delay(unsigned long long ns) {
  if (blockIdx.x != 0 || threadIdx.x != 0) return;
  // %globaltimer counts nanoseconds; clock64 (SM cycles, >= 1 per ns below 1 GHz
  // is not assumed) only bounds the loop in case the timer does not advance.
  const unsigned long long start = clock64();
  unsigned long long t0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  for (;;) {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 >= ns) break;
    if (clock64() - start > 4 * ns + 1000000000ULL) break;  // never spin forever
  }
}
