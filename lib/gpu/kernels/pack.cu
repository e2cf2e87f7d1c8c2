// Gather / scatter of non-contiguous datatypes (lib/gpu/kernels.h):
//   chorus_gather_segments : packed[e*elem_size + seg.packed_off ..] = user[e*extent + seg.off ..]
//   chorus_scatter_segments: the reverse.
// `segs` is one element's segment table (launch.cc builds it from the TypeInfo);
// seg.off is a signed byte offset stored in 64 bits (negative for types whose
// lower bound was moved below their first byte).
//
// Shape: one warp per (element, segment) pair in a grid-stride loop; the warp's
// lanes copy the segment in the widest words (16, 8, 4 or 1 bytes) that both
// addresses and the length allow. Datatype segments are typically short and
// numerous, so a warp (not a block) per segment keeps most lanes busy without a
// second level of scheduling; a long segment still moves 512 bytes per warp step.
#include "common.cuh"

#include "gpu/kernels.h"

namespace chorus_kernels {

using chorus::gpu::detail::Segment;

template <typename W>
__device__ __forceinline__ void copy_words(char* dst, const char* src, u64 len, unsigned lane) {
  W* d = reinterpret_cast<W*>(dst);
  const W* s = reinterpret_cast<const W*>(src);
  const u64 n = len / sizeof(W);
  for (u64 i = lane; i < n; i += 32) d[i] = s[i];
}

__device__ __forceinline__ void copy_segment(char* dst, const char* src, u64 len, unsigned lane) {
  const u64 a = reinterpret_cast<std::uintptr_t>(dst) | reinterpret_cast<std::uintptr_t>(src) | len;
  if ((a & 15u) == 0)
    copy_words<uint4>(dst, src, len, lane);
  else if ((a & 7u) == 0)
    copy_words<unsigned long long>(dst, src, len, lane);
  else if ((a & 3u) == 0)
    copy_words<unsigned int>(dst, src, len, lane);
  else
    copy_words<unsigned char>(dst, src, len, lane);
}

template <bool kGather>
__device__ __forceinline__ void segments_body(const char* from, char* to, const Segment* segs,
                                              unsigned nsegs, u64 count, long long extent,
                                              u64 elem_size) {
  const unsigned lane = threadIdx.x & 31u;
  const u64 first = thread_index() / 32, stride = thread_count() / 32;
  const u64 pairs = count * nsegs;
  for (u64 p = first; p < pairs; p += stride) {
    const u64 e = p / nsegs;
    const Segment sg = segs[p % nsegs];
    const long long user_off = static_cast<long long>(e) * extent + static_cast<long long>(sg.off);
    const u64 packed_off = e * elem_size + sg.packed_off;
    if (kGather)
      copy_segment(to + packed_off, from + user_off, sg.len, lane);
    else
      copy_segment(to + user_off, from + packed_off, sg.len, lane);
  }
}

}  // namespace chorus_kernels

extern "C" __global__ void chorus_gather_segments(const char* user, char* packed,
                                                  const chorus::gpu::detail::Segment* segs,
                                                  unsigned nsegs, unsigned long long count,
                                                  long long extent, unsigned long long elem_size) {
  chorus_kernels::segments_body<true>(user, packed, segs, nsegs, count, extent, elem_size);
}

extern "C" __global__ void chorus_scatter_segments(const char* packed, char* user,
                                                   const chorus::gpu::detail::Segment* segs,
                                                   unsigned nsegs, unsigned long long count,
                                                   long long extent, unsigned long long elem_size) {
  chorus_kernels::segments_body<false>(packed, user, segs, nsegs, count, extent, elem_size);
}
