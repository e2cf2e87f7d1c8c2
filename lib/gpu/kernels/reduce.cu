// Reduction kernels: chorus_reduce_<op>_<type>(in, inout, n), inout[i] = in[i] op
// inout[i] (lib/gpu/kernels.h). One template, instantiated by the macros at the end
// for the contract's op x type list.
//
// Shape: grid-stride loop over 16-byte vectors (uint4) when both arrays have the
// same alignment modulo 16, the elements before and after it one by one; each
// thread keeps 16 bytes of each operand in registers, so every type moves at full
// width.
// Arithmetic follows the CPU kernels (lib/core/op.cc): signed integers wrap (done in
// the unsigned type), MAX/MIN on f32/f64 are `a > b ? a : b` like the CPU's, and
// f16/bf16 are computed in float, rounded to nearest-even on store, with MAX/MIN
// returning NaN when either side is NaN (lib/core/half.h).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <type_traits>

#include "common.cuh"

namespace chorus_kernels {

// Storage <-> compute value. `S` is what memory holds, `C` what ops see.
template <typename S>
struct Plain {
  using C = S;
  __device__ __forceinline__ static C load(S s) { return s; }
  __device__ __forceinline__ static S store(C c) { return c; }
};
struct Half {  // IEEE binary16 bits
  using C = float;
  __device__ __forceinline__ static float load(unsigned short s) {
    return __half2float(__ushort_as_half(s));
  }
  __device__ __forceinline__ static unsigned short store(float c) {
    return __half_as_ushort(__float2half_rn(c));
  }
};
struct BHalf {  // bfloat16 bits
  using C = float;
  __device__ __forceinline__ static float load(unsigned short s) {
    return __bfloat162float(__ushort_as_bfloat16(s));
  }
  __device__ __forceinline__ static unsigned short store(float c) {
    return __bfloat16_as_ushort(__float2bfloat16_rn(c));
  }
};

// Unsigned type of the same size, for wrapping signed arithmetic.
template <typename T> struct Unsigned { using U = T; };
template <> struct Unsigned<signed char> { using U = unsigned char; };
template <> struct Unsigned<short> { using U = unsigned short; };
template <> struct Unsigned<int> { using U = unsigned int; };
template <> struct Unsigned<long long> { using U = unsigned long long; };

template <typename T>
__device__ __forceinline__ T wrap_add(T a, T b) {
  using U = typename Unsigned<T>::U;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
}
template <typename T>
__device__ __forceinline__ T wrap_mul(T a, T b) {
  using U = typename Unsigned<T>::U;
  // Small types promote to int: multiply in unsigned int to avoid signed overflow.
  if constexpr (sizeof(U) < sizeof(unsigned int))
    return static_cast<T>(static_cast<U>(static_cast<unsigned int>(static_cast<U>(a)) *
                                         static_cast<unsigned int>(static_cast<U>(b))));
  else
    return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
}

// Op functors on compute values. `kHalf`: a 16-bit float computed in float.
struct OpSum {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>) return wrap_add(a, b);
    else return a + b;
  }
};
struct OpProd {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    if constexpr (std::is_integral_v<C>) return wrap_mul(a, b);
    else return a * b;
  }
};
struct OpMax {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    if constexpr (kHalf) return (a > b || a != a) ? a : b;
    else return a > b ? a : b;
  }
};
struct OpMin {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    if constexpr (kHalf) return (a < b || a != a) ? a : b;
    else return a < b ? a : b;
  }
};
struct OpLand {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>((a != C(0)) && (b != C(0)));
  }
};
struct OpLor {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>((a != C(0)) || (b != C(0)));
  }
};
struct OpLxor {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>((a != C(0)) != (b != C(0)));
  }
};
struct OpBand {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>(a & b);
  }
};
struct OpBor {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>(a | b);
  }
};
struct OpBxor {
  template <typename C, bool kHalf> __device__ __forceinline__ static C f(C a, C b) {
    return static_cast<C>(a ^ b);
  }
};

template <typename Op, typename T, typename S>
__device__ __forceinline__ S apply(S a, S b) {
  constexpr bool kHalf = !std::is_same_v<typename T::C, S>;
  return T::store(Op::template f<typename T::C, kHalf>(T::load(a), T::load(b)));
}

// 16 bytes of elements, as one register-resident value.
template <typename S>
union Vec {
  uint4 v;
  S s[16 / sizeof(S)];
};

template <typename Op, typename T, typename S>
__device__ __forceinline__ void reduce_body(const void* in_, void* inout_, u64 n) {
  const S* in = static_cast<const S*>(in_);
  S* inout = static_cast<S*>(inout_);
  constexpr u64 kV = 16 / sizeof(S);
  const u64 first = thread_index(), stride = thread_count();
  // Vector part [head, done): possible when both arrays sit at the same offset
  // within 16 bytes (e.g. the same chunk of two aligned buffers); the `head`
  // elements before it and the tail after it go one by one.
  const std::uintptr_t ai = reinterpret_cast<std::uintptr_t>(in);
  const std::uintptr_t ao = reinterpret_cast<std::uintptr_t>(inout);
  u64 head = n, done = n;
  if (((ai ^ ao) & 15u) == 0 && ao % sizeof(S) == 0) {
    head = ((16u - (ao & 15u)) & 15u) / sizeof(S);
    if (head > n) head = n;
    const u64 nv = (n - head) / kV;
    const uint4* vin = reinterpret_cast<const uint4*>(in + head);
    uint4* vio = reinterpret_cast<uint4*>(inout + head);
    for (u64 i = first; i < nv; i += stride) {
      Vec<S> a, b;
      a.v = vin[i];
      b.v = vio[i];
#pragma unroll
      for (u64 k = 0; k < kV; ++k) b.s[k] = apply<Op, T, S>(a.s[k], b.s[k]);
      vio[i] = b.v;
    }
    done = head + nv * kV;
  }
  for (u64 i = first; i < head; i += stride) inout[i] = apply<Op, T, S>(in[i], inout[i]);
  for (u64 i = done + first; i < n; i += stride) inout[i] = apply<Op, T, S>(in[i], inout[i]);
}

}  // namespace chorus_kernels

// ---- instantiation: the contract's op x type list ----------------------------------
#define CHORUS_REDUCE_KERNEL(op, Op, type, T, S)                                         \
  extern "C" __global__ void chorus_reduce_##op##_##type(const void* in, void* inout,  \
                                                         unsigned long long n) {        \
    chorus_kernels::reduce_body<chorus_kernels::Op, T, S>(in, inout, n);                \
  }

// Ops defined on every type.
#define CHORUS_REDUCE_COMMON(type, T, S)          \
  CHORUS_REDUCE_KERNEL(sum, OpSum, type, T, S)    \
  CHORUS_REDUCE_KERNEL(prod, OpProd, type, T, S)  \
  CHORUS_REDUCE_KERNEL(min, OpMin, type, T, S)    \
  CHORUS_REDUCE_KERNEL(max, OpMax, type, T, S)    \
  CHORUS_REDUCE_KERNEL(land, OpLand, type, T, S)  \
  CHORUS_REDUCE_KERNEL(lor, OpLor, type, T, S)    \
  CHORUS_REDUCE_KERNEL(lxor, OpLxor, type, T, S)

#define CHORUS_REDUCE_INTEGER(type, C)                                      \
  CHORUS_REDUCE_COMMON(type, chorus_kernels::Plain<C>, C)                   \
  CHORUS_REDUCE_KERNEL(band, OpBand, type, chorus_kernels::Plain<C>, C)     \
  CHORUS_REDUCE_KERNEL(bor, OpBor, type, chorus_kernels::Plain<C>, C)       \
  CHORUS_REDUCE_KERNEL(bxor, OpBxor, type, chorus_kernels::Plain<C>, C)

CHORUS_REDUCE_INTEGER(i8, signed char)
CHORUS_REDUCE_INTEGER(u8, unsigned char)
CHORUS_REDUCE_INTEGER(i16, short)
CHORUS_REDUCE_INTEGER(u16, unsigned short)
CHORUS_REDUCE_INTEGER(i32, int)
CHORUS_REDUCE_INTEGER(u32, unsigned int)
CHORUS_REDUCE_INTEGER(i64, long long)
CHORUS_REDUCE_INTEGER(u64, unsigned long long)
CHORUS_REDUCE_COMMON(f16, chorus_kernels::Half, unsigned short)
CHORUS_REDUCE_COMMON(bf16, chorus_kernels::BHalf, unsigned short)
CHORUS_REDUCE_COMMON(f32, chorus_kernels::Plain<float>, float)
CHORUS_REDUCE_COMMON(f64, chorus_kernels::Plain<double>, double)

#undef CHORUS_REDUCE_INTEGER
#undef CHORUS_REDUCE_COMMON
#undef CHORUS_REDUCE_KERNEL
