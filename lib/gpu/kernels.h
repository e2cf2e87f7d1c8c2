// The CUDA kernels' contract: names and parameters of the __global__ functions in
// lib/gpu/kernels/*.cu (extern "C", looked up by name in the embedded fatbin), so
// that the launcher (kernels/launch.cc) and the CPU test double of the driver
// (tests/mockcuda) agree.
//
// Reductions: chorus_reduce_<op>_<type>(const void* in, void* inout, unsigned long long n)
//   inout[i] = in[i] (op) inout[i], i < n
//   op   : sum prod min max land lor lxor band bor bxor
//   type : i8 u8 i16 u16 i32 u32 i64 u64 f16 bf16 f32 f64
//   (logical ops: result 1/0 of the element type; bitwise ops: integer types only;
//    f16 = IEEE binary16, bf16 = bfloat16, both reduced in float and rounded to
//    nearest-even on store.)
// Segment gather/scatter (non-contiguous datatypes), Segment = {off, len, packed_off}
// (three unsigned long long, device memory):
//   chorus_gather_segments(const char* user, char* packed, const Segment* segs,
//                          unsigned nsegs, unsigned long long count,
//                          long long extent, unsigned long long elem_size)
//     for e < count, s < nsegs:
//       packed[e*elem_size + segs[s].packed_off .. +len) = user[e*extent + segs[s].off .. +len)
//   chorus_scatter_segments(same parameters, const char* packed, char* user): the reverse.
// Grid: kernels are grid-stride loops; any grid size is correct.
#pragma once
#include <cstdint>
#include <string>

#include "core/status.h"

namespace chorus::gpu::detail {

struct Segment {
  unsigned long long off, len, packed_off;
};

// Load the embedded fatbin into the current context and resolve every kernel.
// False (with *why) when the build has no kernels (no CUDA toolkit) or loading fails.
bool load_kernels(std::string* why);
void unload_kernels();

}  // namespace chorus::gpu::detail
