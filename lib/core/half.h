// 16-bit floating types: IEEE binary16 (MPIX_C_FLOAT16) and bfloat16
// (MPIX_BFLOAT16), kept as their raw bits (std::uint16_t) and computed in float.
//
// Conversions are branch-free (every case computed, one selected) so that loops
// over arrays of them vectorize. float -> 16 bits rounds to nearest, ties to even;
// overflow gives +-inf; NaN stays NaN (quiet, sign and top payload bits kept);
// subnormals are exact both ways. Rounding a float result of one + or * on two
// 16-bit values is the correctly rounded 16-bit result: float's 24-bit significand
// is at least 2p + 2 bits for both formats, so the double rounding is harmless.
// The CUDA kernels (lib/gpu/kernels/reduce.cu) give the same results.
#pragma once
#include <bit>
#include <cstdint>

namespace chorus::half {

// c ? x : y with masks rather than a branch (GCC's vectorizer does not if-convert
// the nested conditionals below).
inline std::uint32_t select(bool c, std::uint32_t x, std::uint32_t y) {
  const std::uint32_t m = 0u - static_cast<std::uint32_t>(c);
  return (x & m) | (y & ~m);
}

inline float f16_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exp = h & 0x7c00u;
  const std::uint32_t mag = static_cast<std::uint32_t>(h & 0x7fffu) << 13;
  const std::uint32_t normal = mag + 0x38000000u;           // rebias 15 -> 127
  const std::uint32_t infnan = mag | 0x7f800000u;            // exponent all ones
  // Subnormal: mantissa * 2^-24, exact in float.
  // (Through int: signed conversions vectorize on x86-64, unsigned ones do not.)
  const std::uint32_t sub =
      std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(h & 0x3ffu)) * 0x1p-24f);
  const std::uint32_t r = select(exp == 0x7c00u, infnan, select(exp == 0, sub, normal));
  return std::bit_cast<float>(r | sign);
}

inline std::uint16_t float_to_f16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t a = x & 0x7fffffffu;
  const std::uint32_t nan = 0x7e00u | ((a >> 13) & 0x3ffu);
  // |f| < 2^-14 (half subnormal or zero): adding 0.5f, whose ulp is 2^-24, makes the
  // FPU round the value to a multiple of 2^-24 (nearest even); the low bits are then
  // the half's mantissa (0x400 when it rounds up to the smallest normal).
  const std::uint32_t sub =
      std::bit_cast<std::uint32_t>(std::bit_cast<float>(a) + 0.5f) - 0x3f000000u;
  // Normal: rebias, then add just under half an ulp plus the kept lsb (ties to
  // even); a carry out of the mantissa bumps the exponent, as it should.
  const std::uint32_t normal = (a - 0x38000000u + 0xfffu + ((a >> 13) & 1u)) >> 13;
  // 65520 = 0x477ff000 and above rounds to infinity (65504 is the largest half).
  const std::uint32_t r =
      select(a > 0x7f800000u, nan, select(a >= 0x477ff000u, 0x7c00u, select(a < 0x38800000u, sub, normal)));
  return static_cast<std::uint16_t>(r | sign);
}

inline float bf16_to_float(std::uint16_t h) {
  return std::bit_cast<float>(static_cast<std::uint32_t>(h) << 16);
}

inline std::uint16_t float_to_bf16(float f) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(f);
  const std::uint32_t rounded = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
  const std::uint32_t nan = (x >> 16) | 0x40u;
  return static_cast<std::uint16_t>(select((x & 0x7fffffffu) > 0x7f800000u, nan, rounded));
}

}  // namespace chorus::half
