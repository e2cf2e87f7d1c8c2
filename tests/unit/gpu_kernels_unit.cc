// Host side of the CUDA kernels, without a GPU: 16-bit float conversions and CPU
// reductions (core/half.h, core/op.cc), op_check on the 16-bit types, the
// (MPI_Op, type) -> kernel table and segment tables (lib/gpu/kernels/dispatch.h),
// and, when nvcc built the fatbin, that it holds every kernel and is embedded as is.
#include <catch2/catch.hpp>
#include <mpi.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/datatype.h"
#include "core/half.h"
#include "core/op.h"
#include "gpu/kernels/dispatch.h"

using namespace chorus;
using chorus::gpu::detail::KOp;
using chorus::gpu::detail::KType;

namespace {

float bits_to_float(std::uint32_t x) {
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}
std::uint32_t float_bits(float f) {
  std::uint32_t x;
  std::memcpy(&x, &f, 4);
  return x;
}
bool f16_is_nan(std::uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
bool bf16_is_nan(std::uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

// Reference float -> 16-bit rounding, independent of core/half.h: pick the nearer
// of the two neighbours (in double), ties to the even bit pattern. `to_float` maps
// bits to value; `lo`..`lo + 1` bracket |x| when walking magnitudes upward.
template <typename ToFloat>
std::uint16_t reference_round(float x, ToFloat to_float, std::uint16_t max_finite, std::uint16_t inf) {
  const std::uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  const double a = std::fabs(static_cast<double>(x));
  // Binary search the largest magnitude pattern <= a (patterns are monotonic).
  std::uint32_t lo = 0, hi = max_finite;
  if (a >= static_cast<double>(to_float(max_finite))) {
    lo = max_finite;
  } else {
    while (lo < hi) {
      std::uint32_t mid = (lo + hi + 1) / 2;
      if (static_cast<double>(to_float(static_cast<std::uint16_t>(mid))) <= a) lo = mid;
      else hi = mid - 1;
    }
  }
  const double vlo = to_float(static_cast<std::uint16_t>(lo));
  // The next value up; past the largest finite one, the rounding boundary is the
  // value one more ulp would have (inf beyond it).
  double vhi;
  if (lo == max_finite) {
    const double ulp = vlo - static_cast<double>(to_float(static_cast<std::uint16_t>(lo - 1)));
    vhi = vlo + ulp;
  } else {
    vhi = to_float(static_cast<std::uint16_t>(lo + 1));
  }
  std::uint32_t r;
  if (a - vlo < vhi - a) r = lo;
  else if (a - vlo > vhi - a) r = lo + 1;
  else r = (lo & 1) ? lo + 1 : lo;
  if (r > max_finite) r = inf;
  return static_cast<std::uint16_t>(r | sign);
}

std::vector<float> probe_floats() {
  std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 65504.0f, 65519.0f, 65520.0f, 65536.0f,
                          FLT_MAX, -FLT_MAX, FLT_MIN, 0x1p-14f, 0x1p-24f, 0x1p-25f, 0x1.8p-25f,
                          0x1p-26f, 0x1.ffcp-15f, 0x1.ffep-15f, 1.0f + 0x1p-11f, 1.0f + 0x1p-8f,
                          1.0f + 0x1.8p-8f, 3.0e38f, 0x1p-133f, 0x1p-149f, 0x1.fep-127f};
  std::mt19937 rng(7);
  for (int i = 0; i < 200000; ++i) {
    float f = bits_to_float(static_cast<std::uint32_t>(rng()));
    if (!std::isnan(f)) v.push_back(f);
  }
  // Many values near the 16-bit formats' range, and all the ties.
  for (int i = 0; i < 200000; ++i) {
    std::uint32_t x = static_cast<std::uint32_t>(rng());
    x = (x & 0x807fffffu) | ((100u + (x >> 23) % 60u) << 23);  // exponents 2^-27 .. 2^32
    v.push_back(bits_to_float(x));
    v.push_back(bits_to_float(x & 0xffffe000u) + 0.0f);
    v.push_back(bits_to_float((x & 0xffff0000u) | 0x8000u));  // bf16 ties
    v.push_back(bits_to_float((x & 0xffffe000u) | 0x1000u));  // f16 ties (normal range)
  }
  return v;
}

template <typename H>
void apply(MPI_Op op, MPI_Datatype t, const std::vector<H>& in, std::vector<H>& inout) {
  REQUIRE(in.size() == inout.size());
  op_apply(op, t, in.data(), inout.data(), in.size());
}

}  // namespace

// ---- 16-bit floats on the CPU ----------------------------------------------------

TEST_CASE("float16 <-> float: every pattern round-trips, NaN stays NaN", "[half]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    const float f = half::f16_to_float(b);
    if (f16_is_nan(b)) {
      REQUIRE(std::isnan(f));
      REQUIRE(f16_is_nan(half::float_to_f16(f)));
      REQUIRE((half::float_to_f16(f) & 0x8000) == (b & 0x8000));
      continue;
    }
    INFO("pattern " << h);
    REQUIRE(half::float_to_f16(f) == b);
    // Against the compiler's _Float16 (exact widening).
    _Float16 ref;
    std::memcpy(&ref, &b, 2);
    REQUIRE(float_bits(static_cast<float>(ref)) == float_bits(f));
  }
}

TEST_CASE("bfloat16 <-> float: every pattern round-trips, NaN stays NaN", "[half]") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto b = static_cast<std::uint16_t>(h);
    const float f = half::bf16_to_float(b);
    if (bf16_is_nan(b)) {
      REQUIRE(std::isnan(f));
      REQUIRE(bf16_is_nan(half::float_to_bf16(f)));
      continue;
    }
    REQUIRE(half::float_to_bf16(f) == b);
  }
}

TEST_CASE("float -> float16 and bfloat16 round to nearest even", "[half]") {
  auto f16 = [](std::uint16_t b) { return half::f16_to_float(b); };
  auto bf16 = [](std::uint16_t b) { return half::bf16_to_float(b); };
  for (float x : probe_floats()) {
    INFO("x = " << x << " bits 0x" << std::hex << float_bits(x));
    REQUIRE(half::float_to_f16(x) == reference_round(x, f16, 0x7bff, 0x7c00));
    REQUIRE(half::float_to_bf16(x) == reference_round(x, bf16, 0x7f7f, 0x7f80));
    // The compiler's conversion agrees (GCC rounds _Float16 to nearest even).
    _Float16 c = static_cast<_Float16>(x);
    std::uint16_t cb;
    std::memcpy(&cb, &c, 2);
    REQUIRE(half::float_to_f16(x) == cb);
  }
}

TEST_CASE("16-bit float edge cases: overflow, subnormals, NaN", "[half]") {
  // float16: 65504 is the largest finite value; 65520 rounds (to even) to inf.
  REQUIRE(half::float_to_f16(65504.0f) == 0x7bff);
  REQUIRE(half::float_to_f16(65519.0f) == 0x7bff);
  REQUIRE(half::float_to_f16(65520.0f) == 0x7c00);
  REQUIRE(half::float_to_f16(-1e9f) == 0xfc00);
  REQUIRE(half::float_to_f16(INFINITY) == 0x7c00);
  // Subnormals: 2^-24 is the smallest; 2^-25 ties to 0, 1.5 * 2^-25 rounds up.
  REQUIRE(half::float_to_f16(0x1p-24f) == 0x0001);
  REQUIRE(half::float_to_f16(0x1p-25f) == 0x0000);
  REQUIRE(half::float_to_f16(-0x1p-25f) == 0x8000);
  REQUIRE(half::float_to_f16(0x1.8p-25f) == 0x0001);
  REQUIRE(half::float_to_f16(0x1.ff8p-15f) == 0x03ff);  // largest subnormal
  REQUIRE(half::float_to_f16(0x1.ffcp-15f) == 0x0400);  // tie: to the smallest normal (even)
  REQUIRE(half::float_to_f16(0x1.ff9p-15f) == 0x03ff);
  REQUIRE(half::f16_to_float(0x0001) == 0x1p-24f);
  REQUIRE(half::f16_to_float(0x8000) == 0.0f);
  REQUIRE(std::signbit(half::f16_to_float(0x8000)));
  // NaN: quiet, payload top bits kept.
  REQUIRE(half::float_to_f16(std::numeric_limits<float>::quiet_NaN()) == 0x7e00);
  REQUIRE(f16_is_nan(half::float_to_f16(bits_to_float(0x7f800001u))));  // signalling -> quiet
  // bfloat16: FLT_MAX rounds up to inf; the float subnormal range is kept.
  REQUIRE(half::float_to_bf16(FLT_MAX) == 0x7f80);
  REQUIRE(half::float_to_bf16(-FLT_MAX) == 0xff80);
  REQUIRE(half::float_to_bf16(0x1p-133f) == 0x0001);
  REQUIRE(half::float_to_bf16(1.0f + 0x1p-8f) == 0x3f80);   // tie to even: 1
  REQUIRE(half::float_to_bf16(1.0f + 0x1.8p-8f) == 0x3f81); // above the tie: up
  REQUIRE(bf16_is_nan(half::float_to_bf16(bits_to_float(0x7f800001u))));
}

TEST_CASE("CPU reductions on MPIX_C_FLOAT16 and MPIX_BFLOAT16", "[half][op]") {
  using half::f16_to_float;
  using half::float_to_f16;
  // SUM rounds once, to nearest even; PROD, MAX, MIN.
  std::vector<std::uint16_t> a = {float_to_f16(1.0f), float_to_f16(0x1p-11f), float_to_f16(65504.0f),
                                  float_to_f16(-2.0f), float_to_f16(0x1p-24f)};
  std::vector<std::uint16_t> b = {float_to_f16(2.0f), float_to_f16(1.0f), float_to_f16(65504.0f),
                                  float_to_f16(3.0f), float_to_f16(0x1p-24f)};
  std::vector<std::uint16_t> s = b;
  apply(MPI_SUM, MPIX_C_FLOAT16, a, s);
  REQUIRE(f16_to_float(s[0]) == 3.0f);
  REQUIRE(f16_to_float(s[1]) == 1.0f);        // 1 + 2^-11: tie, to even
  REQUIRE(s[2] == 0x7c00);                    // overflow: +inf
  REQUIRE(f16_to_float(s[3]) == 1.0f);
  REQUIRE(f16_to_float(s[4]) == 0x1p-23f);    // subnormals add exactly
  std::vector<std::uint16_t> p = b;
  apply(MPI_PROD, MPIX_C_FLOAT16, a, p);
  REQUIRE(f16_to_float(p[0]) == 2.0f);
  REQUIRE(p[2] == 0x7c00);
  REQUIRE(f16_to_float(p[3]) == -6.0f);
  REQUIRE(p[4] == 0x0000);                    // underflow to zero
  std::vector<std::uint16_t> mx = b, mn = b;
  apply(MPI_MAX, MPIX_C_FLOAT16, a, mx);
  apply(MPI_MIN, MPIX_C_FLOAT16, a, mn);
  REQUIRE(f16_to_float(mx[0]) == 2.0f);
  REQUIRE(f16_to_float(mn[0]) == 1.0f);
  REQUIRE(f16_to_float(mx[3]) == 3.0f);
  REQUIRE(f16_to_float(mn[3]) == -2.0f);

  // NaN: SUM/PROD propagate it; MAX/MIN too, from either side.
  const std::uint16_t nan = 0x7e00, one = float_to_f16(1.0f);
  for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN}) {
    std::vector<std::uint16_t> l = {nan, one}, r = {one, nan};
    apply(op, MPIX_C_FLOAT16, l, r);
    REQUIRE(f16_is_nan(r[0]));
    REQUIRE(f16_is_nan(r[1]));
  }
  // inf + -inf = NaN.
  std::vector<std::uint16_t> pi = {0x7c00}, ni = {0xfc00};
  apply(MPI_SUM, MPIX_C_FLOAT16, pi, ni);
  REQUIRE(f16_is_nan(ni[0]));

  // bfloat16: same shape, 8-bit significand.
  using half::bf16_to_float;
  using half::float_to_bf16;
  std::vector<std::uint16_t> ba = {float_to_bf16(1.0f), float_to_bf16(0x1p-8f), float_to_bf16(FLT_MAX),
                                   float_to_bf16(-0.5f), 0x7fc0};
  std::vector<std::uint16_t> bb = {float_to_bf16(256.0f), float_to_bf16(1.0f), float_to_bf16(FLT_MAX),
                                   float_to_bf16(0.25f), float_to_bf16(1.0f)};
  std::vector<std::uint16_t> bs = bb;
  apply(MPI_SUM, MPIX_BFLOAT16, ba, bs);
  REQUIRE(bf16_to_float(bs[0]) == 256.0f);    // 257 ties to even (256)
  REQUIRE(bf16_to_float(bs[1]) == 1.0f);      // 1 + 2^-8: tie, to even
  REQUIRE(bs[2] == 0x7f80);                   // overflow: +inf
  REQUIRE(bf16_to_float(bs[3]) == -0.25f);
  REQUIRE(bf16_is_nan(bs[4]));
  std::vector<std::uint16_t> bm = bb;
  apply(MPI_MAX, MPIX_BFLOAT16, ba, bm);
  REQUIRE(bf16_to_float(bm[0]) == 256.0f);
  REQUIRE(bf16_to_float(bm[3]) == 0.25f);
  REQUIRE(bf16_is_nan(bm[4]));

  // A long array (vector loop and tail) against the scalar formula.
  std::mt19937 rng(3);
  for (MPI_Datatype t : {MPIX_C_FLOAT16, MPIX_BFLOAT16}) {
    auto load = [t](std::uint16_t h) { return t == MPIX_BFLOAT16 ? bf16_to_float(h) : f16_to_float(h); };
    auto store = [t](float f) { return t == MPIX_BFLOAT16 ? float_to_bf16(f) : float_to_f16(f); };
    for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN}) {
      std::vector<std::uint16_t> x(1037), y(1037);
      for (std::size_t i = 0; i < x.size(); ++i) {
        x[i] = store(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 37.0f);
        y[i] = store(static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 37.0f);
      }
      std::vector<std::uint16_t> z = y;
      apply(op, t, x, z);
      for (std::size_t i = 0; i < x.size(); ++i) {
        float l = load(x[i]), r = load(y[i]);
        float want = op == MPI_SUM ? l + r : op == MPI_PROD ? l * r : op == MPI_MAX ? (l > r ? l : r)
                                                                                      : (l < r ? l : r);
        REQUIRE(z[i] == store(want));
      }
    }
  }
}

TEST_CASE("op_check accepts the 16-bit types as floating types", "[half][op]") {
  for (MPI_Datatype t : {MPIX_C_FLOAT16, MPIX_BFLOAT16}) {
    const TypeInfo* ti = type_info(t);
    REQUIRE(ti);
    REQUIRE(ti->predefined);
    REQUIRE(ti->committed);
    REQUIRE(ti->size == 2);
    REQUIRE(ti->extent == 2);
    REQUIRE(elements_from_bytes(*ti, 10) == 5);
    REQUIRE(elements_from_bytes(*ti, 3) == MPI_UNDEFINED);
    // The logical ops too, as on every floating type (non-zero is true; MPICH allows them).
    for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_REPLACE, MPI_NO_OP, MPI_LAND, MPI_LOR, MPI_LXOR})
      REQUIRE(op_check(op, t, nullptr) == Status::Ok);
    for (MPI_Op op : {MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC}) {
      std::string why;
      REQUIRE(op_check(op, t, &why) == Status::InvalidOp);
      REQUIRE(why.find(ti->name) != std::string::npos);
    }
  }
  REQUIRE(type_info(MPIX_C_FLOAT16)->name == "MPIX_C_FLOAT16");
  REQUIRE(type_info(MPIX_BFLOAT16)->name == "MPIX_BFLOAT16");
  // A derived type of them reduces as its basic type.
  MPI_Datatype v;
  std::string why;
  REQUIRE(type_create({{0, 4, MPIX_BFLOAT16}}, false, MPI_COMBINER_CONTIGUOUS, &v, &why, MPIX_BFLOAT16) ==
          Status::Ok);
  REQUIRE(op_check(MPI_SUM, v, nullptr) == Status::Ok);
  std::size_t per = 0;
  REQUIRE(op_basic_type(v, &per) == MPIX_BFLOAT16);
  REQUIRE(per == 4);
  REQUIRE(type_free(v) == Status::Ok);
}

// ---- dispatch table -------------------------------------------------------------

TEST_CASE("every contract kernel has a unique name; bitwise ops skip floats", "[gpu][dispatch]") {
  std::set<std::string> names;
  int n = 0;
  for (int o = 0; o < gpu::detail::kNumKOps; ++o)
    for (int t = 0; t < gpu::detail::kNumKTypes; ++t) {
      const char* name = gpu::detail::reduce_kernel_name(static_cast<KOp>(o), static_cast<KType>(t));
      const bool bitwise = o >= static_cast<int>(KOp::Band);
      const bool fp = t >= static_cast<int>(KType::F16);
      REQUIRE((name != nullptr) == !(bitwise && fp));
      if (name) {
        REQUIRE(std::string(name).rfind("chorus_reduce_", 0) == 0);
        names.insert(name);
        ++n;
      }
    }
  REQUIRE(n == 108);
  REQUIRE(names.size() == 108u);
  REQUIRE(std::string(gpu::detail::reduce_kernel_name(KOp::Sum, KType::BF16)) == "chorus_reduce_sum_bf16");
  REQUIRE(std::string(gpu::detail::reduce_kernel_name(KOp::Bxor, KType::U64)) == "chorus_reduce_bxor_u64");
  REQUIRE(gpu::detail::reduce_kernel_name(KOp::kCount, KType::I8) == nullptr);
}

TEST_CASE("MPI (op, type) pairs map to kernels as op_check allows", "[gpu][dispatch]") {
  struct Row {
    MPI_Datatype t;
    bool has;  // a kernel element type exists
    KType k;
  };
  const Row rows[] = {
      {MPI_SIGNED_CHAR, true, KType::I8},   {MPI_UNSIGNED_CHAR, true, KType::U8},
      {MPI_SHORT, true, KType::I16},        {MPI_UNSIGNED_SHORT, true, KType::U16},
      {MPI_INT, true, KType::I32},          {MPI_UNSIGNED, true, KType::U32},
      {MPI_LONG, true, KType::I64},         {MPI_UNSIGNED_LONG, true, KType::U64},
      {MPI_LONG_LONG, true, KType::I64},    {MPI_UNSIGNED_LONG_LONG, true, KType::U64},
      {MPI_INT8_T, true, KType::I8},        {MPI_UINT8_T, true, KType::U8},
      {MPI_INT16_T, true, KType::I16},      {MPI_UINT16_T, true, KType::U16},
      {MPI_INT32_T, true, KType::I32},      {MPI_UINT32_T, true, KType::U32},
      {MPI_INT64_T, true, KType::I64},      {MPI_UINT64_T, true, KType::U64},
      {MPI_AINT, true, KType::I64},         {MPI_OFFSET, true, KType::I64},
      {MPI_COUNT, true, KType::I64},        {MPI_INTEGER, true, KType::I32},
      {MPI_INTEGER1, true, KType::I8},      {MPI_INTEGER8, true, KType::I64},
      {MPI_C_BOOL, true, KType::U8},        {MPI_CXX_BOOL, true, KType::U8},
      {MPI_LOGICAL, true, KType::I32},      {MPI_BYTE, true, KType::U8},
      {MPIX_C_FLOAT16, true, KType::F16},   {MPIX_BFLOAT16, true, KType::BF16},
      {MPI_FLOAT, true, KType::F32},        {MPI_REAL, true, KType::F32},
      {MPI_DOUBLE, true, KType::F64},       {MPI_DOUBLE_PRECISION, true, KType::F64},
      {MPI_LONG_DOUBLE, false, KType::F64}, {MPI_C_DOUBLE_COMPLEX, false, KType::F64},
      {MPI_C_FLOAT_COMPLEX, false, KType::F32}, {MPI_DOUBLE_INT, false, KType::F64},
      {MPI_2INT, false, KType::I32},        {MPI_CHAR, false, KType::I8},
      {MPI_WCHAR, false, KType::I32},       {MPI_PACKED, false, KType::U8},
      {MPI_CHARACTER, false, KType::I8},
  };
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MIN, MPI_MAX, MPI_LAND, MPI_LOR, MPI_LXOR,
                        MPI_BAND, MPI_BOR, MPI_BXOR};
  int mapped = 0;
  for (const Row& r : rows) {
    for (int i = 0; i < 10; ++i) {
      INFO(type_label(r.t) << " " << op_name(ops[i]));
      KOp ko{};
      KType kt{};
      const bool got = gpu::detail::reduce_kernel_for(ops[i], r.t, &ko, &kt);
      const bool want = r.has && op_check(ops[i], r.t, nullptr) == Status::Ok;
      REQUIRE(got == want);
      if (got) {
        ++mapped;
        REQUIRE(static_cast<int>(ko) == i);
        REQUIRE(kt == r.k);
        REQUIRE(gpu::detail::reduce_kernel_name(ko, kt) != nullptr);
      }
    }
    // No kernel for the other ops, whatever the type.
    KOp ko;
    KType kt;
    for (MPI_Op op : {MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP, MPI_OP_NULL})
      REQUIRE_FALSE(gpu::detail::reduce_kernel_for(op, r.t, &ko, &kt));
  }
  REQUIRE(mapped > 200);
  // Spot checks of what op_check refuses.
  KOp ko;
  KType kt;
  REQUIRE_FALSE(gpu::detail::reduce_kernel_for(MPI_SUM, MPI_BYTE, &ko, &kt));
  REQUIRE(gpu::detail::reduce_kernel_for(MPI_BXOR, MPI_BYTE, &ko, &kt));
  REQUIRE_FALSE(gpu::detail::reduce_kernel_for(MPI_SUM, MPI_C_BOOL, &ko, &kt));
  REQUIRE(gpu::detail::reduce_kernel_for(MPI_LXOR, MPI_C_BOOL, &ko, &kt));
  REQUIRE_FALSE(gpu::detail::reduce_kernel_for(MPI_BAND, MPI_FLOAT, &ko, &kt));
  REQUIRE(gpu::detail::reduce_kernel_for(MPI_LAND, MPIX_C_FLOAT16, &ko, &kt));
  REQUIRE_FALSE(gpu::detail::reduce_kernel_for(MPI_BOR, MPIX_C_FLOAT16, &ko, &kt));
  // Derived types are reduced through their basic type by the caller, not here.
  MPI_Datatype v;
  std::string why;
  REQUIRE(type_create({{0, 2, MPI_INT}}, false, MPI_COMBINER_CONTIGUOUS, &v, &why, MPI_INT) == Status::Ok);
  REQUIRE_FALSE(gpu::detail::reduce_kernel_for(MPI_SUM, v, &ko, &kt));
  REQUIRE(type_free(v) == Status::Ok);
}

TEST_CASE("launch shapes cover the work and stay bounded", "[gpu][dispatch]") {
  using gpu::detail::launch_shape;
  REQUIRE(launch_shape(0, 4).blocks == 1);
  REQUIRE(launch_shape(1, 4).blocks == 1);
  REQUIRE(launch_shape(1024, 4).blocks == 1);
  REQUIRE(launch_shape(1025, 4).blocks == 2);
  REQUIRE(launch_shape(1ull << 40, 1).blocks == gpu::detail::kMaxBlocks);
  REQUIRE(launch_shape(100, 0).blocks == 1);
  REQUIRE(launch_shape(100, 0).threads == 256);
}

// ---- segment tables ---------------------------------------------------------------

namespace {

// The gather kernel's contract, run on the CPU over a segment table.
void gather_ref(const std::vector<gpu::detail::Segment>& segs, const char* user, char* packed,
                std::size_t count, long long extent, std::size_t elem_size) {
  for (std::size_t e = 0; e < count; ++e)
    for (const auto& s : segs)
      std::memcpy(packed + e * elem_size + s.packed_off,
                  user + static_cast<long long>(e) * extent + static_cast<long long>(s.off), s.len);
}
void scatter_ref(const std::vector<gpu::detail::Segment>& segs, const char* packed, char* user,
                 std::size_t count, long long extent, std::size_t elem_size) {
  for (std::size_t e = 0; e < count; ++e)
    for (const auto& s : segs)
      std::memcpy(user + static_cast<long long>(e) * extent + static_cast<long long>(s.off),
                  packed + e * elem_size + s.packed_off, s.len);
}

// Segment table of `h` gathers and scatters exactly as type_pack / type_unpack.
void check_against_core(MPI_Datatype h) {
  const TypeInfo* t = type_info(h);
  REQUIRE(t);
  const auto segs = gpu::detail::segment_table(*t);
  REQUIRE(segs.size() == t->segs.size());
  unsigned long long sum = 0;
  for (std::size_t i = 0; i < segs.size(); ++i) {
    REQUIRE(static_cast<long long>(segs[i].off) == t->segs[i].off);
    REQUIRE(segs[i].len == t->segs[i].len);
    REQUIRE(segs[i].packed_off == sum);
    sum += segs[i].len;
  }
  REQUIRE(sum == t->size);
  const std::size_t count = 5;
  std::ptrdiff_t start;
  std::size_t span;
  type_user_span(*t, count, &start, &span);
  std::vector<char> user(span), back(span, 0), want(count * t->size), got(count * t->size);
  for (std::size_t i = 0; i < span; ++i) user[i] = static_cast<char>(i * 7 + 1);
  char* ubase = user.data() - start;
  type_pack(*t, ubase, count, want.data());
  gather_ref(segs, ubase, got.data(), count, t->extent, t->size);
  REQUIRE(got == want);
  std::vector<char> want_back(span, 0);
  type_unpack(*t, want.data(), count, want_back.data() - start);
  scatter_ref(segs, got.data(), back.data() - start, count, t->extent, t->size);
  REQUIRE(back == want_back);
}

}  // namespace

TEST_CASE("segment tables of vector, indexed and struct types", "[gpu][segments]") {
  std::string why;
  MPI_Datatype vec, idx, st, neg;
  // vector(3 blocks of 2 ints, stride 4 ints)
  REQUIRE(type_create({{0, 2, MPI_INT}, {16, 2, MPI_INT}, {32, 2, MPI_INT}}, false, MPI_COMBINER_VECTOR,
                      &vec, &why, MPI_INT) == Status::Ok);
  // indexed: blocks of different lengths, out of order
  REQUIRE(type_create({{24, 3, MPI_SHORT}, {0, 1, MPI_SHORT}, {8, 2, MPI_SHORT}}, false,
                      MPI_COMBINER_INDEXED, &idx, &why, MPI_SHORT) == Status::Ok);
  // struct { char c; double d; int i[2]; } (padding between c and d)
  REQUIRE(type_create({{0, 1, MPI_CHAR}, {8, 1, MPI_DOUBLE}, {16, 2, MPI_INT}}, true,
                      MPI_COMBINER_STRUCT, &st, &why) == Status::Ok);
  // a negative displacement
  REQUIRE(type_create({{-8, 1, MPI_INT}, {4, 1, MPI_INT}}, false, MPI_COMBINER_HINDEXED, &neg, &why,
                      MPI_INT) == Status::Ok);

  const auto v = gpu::detail::segment_table(*type_info(vec));
  REQUIRE(v.size() == 3);
  REQUIRE((v[1].off == 16 && v[1].len == 8 && v[1].packed_off == 8));
  REQUIRE((v[2].off == 32 && v[2].packed_off == 16));
  const auto s = gpu::detail::segment_table(*type_info(st));
  REQUIRE(s.size() == 2);  // char, then double + ints merged
  REQUIRE((s[0].off == 0 && s[0].len == 1 && s[0].packed_off == 0));
  REQUIRE((s[1].off == 8 && s[1].len == 16 && s[1].packed_off == 1));
  const auto n = gpu::detail::segment_table(*type_info(neg));
  REQUIRE(static_cast<long long>(n[0].off) == -8);

  for (MPI_Datatype h : {vec, idx, st, neg, MPI_INT, MPI_DOUBLE_INT}) {
    INFO(type_label(h));
    check_against_core(h);
  }
  for (MPI_Datatype h : {vec, idx, st, neg}) REQUIRE(type_free(h) == Status::Ok);
}

// ---- the fatbin -----------------------------------------------------------------

#if CHORUS_TEST_FATBIN
extern const unsigned char chorus_fatbin[];
extern const std::size_t chorus_fatbin_size;

TEST_CASE("the fatbin holds every kernel and is embedded byte for byte", "[gpu][fatbin]") {
  const char* path = std::getenv("CHORUS_TEST_FATBIN");
  REQUIRE(path);
  std::ifstream f(path, std::ios::binary);
  REQUIRE(f.good());
  const std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  REQUIRE(bytes.size() == chorus_fatbin_size);
  REQUIRE(std::memcmp(bytes.data(), chorus_fatbin, chorus_fatbin_size) == 0);
  REQUIRE(reinterpret_cast<std::uintptr_t>(chorus_fatbin) % 16 == 0);
  // Symbol names sit NUL-terminated in the ELF string tables of the cubins.
  std::vector<std::string> names = {"chorus_gather_segments", "chorus_scatter_segments"};
  for (int o = 0; o < gpu::detail::kNumKOps; ++o)
    for (int t = 0; t < gpu::detail::kNumKTypes; ++t)
      if (const char* n = gpu::detail::reduce_kernel_name(static_cast<KOp>(o), static_cast<KType>(t)))
        names.push_back(n);
  for (const std::string& n : names) {
    INFO(n);
    REQUIRE(bytes.find(std::string(1, '\0') + n + std::string(1, '\0')) != std::string::npos);
  }
}
#endif
