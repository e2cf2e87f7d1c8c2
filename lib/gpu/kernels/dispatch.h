// Host-side planning for the CUDA kernels (pure CPU, unit-tested without a GPU):
// which kernel of lib/gpu/kernels.h reduces an (MPI_Op, predefined type) pair, and
// the segment table the gather/scatter kernels walk for a datatype.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <vector>

#include "gpu/kernels.h"

namespace chorus {
struct TypeInfo;
}

namespace chorus::gpu::detail {

// The contract's ops and element types, in kernel-name order.
enum class KOp : int { Sum, Prod, Min, Max, Land, Lor, Lxor, Band, Bor, Bxor, kCount };
enum class KType : int { I8, U8, I16, U16, I32, U32, I64, U64, F16, BF16, F32, F64, kCount };
inline constexpr int kNumKOps = static_cast<int>(KOp::kCount);
inline constexpr int kNumKTypes = static_cast<int>(KType::kCount);

// "chorus_reduce_sum_f32"; nullptr for pairs the contract has no kernel for
// (bitwise ops on floating types).
const char* reduce_kernel_name(KOp op, KType type);

// The kernel for `op` on `count` elements of the predefined type `basic`: false
// when MPI does not define op on basic (core op_check), when op has no kernel
// (MINLOC, MAXLOC, MPI_REPLACE, MPI_NO_OP, user ops), or when the type has none
// (long double, complex, pair types, derived types).
bool reduce_kernel_for(MPI_Op op, MPI_Datatype basic, KOp* kop, KType* ktype);

// One element's segments of `t` for chorus_gather/scatter_segments: its segments
// in typemap order, each with its offset in the packed element (the running sum
// of the lengths before it). A negative offset is stored two's-complement.
std::vector<Segment> segment_table(const TypeInfo& t);

// Launch shape of a grid-stride kernel: `threads` per block and enough blocks for
// `work` items of `per_thread` each, at least 1, at most kMaxBlocks.
struct LaunchShape {
  unsigned blocks = 1, threads = 256;
};
inline constexpr unsigned kMaxBlocks = 4096;
LaunchShape launch_shape(unsigned long long work, unsigned long long per_thread);

}  // namespace chorus::gpu::detail
