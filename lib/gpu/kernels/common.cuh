// Shared by the kernels of lib/gpu/kernels (compiled together: kernels.cu).
#pragma once
#include <cstdint>

namespace chorus_kernels {

using u64 = unsigned long long;

// Grid-stride loop bounds of the calling thread.
__device__ __forceinline__ u64 thread_index() {
  return static_cast<u64>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ u64 thread_count() {
  return static_cast<u64>(gridDim.x) * blockDim.x;
}

}  // namespace chorus_kernels
