// CPU reduction kernels and the (op x basic type) table.
//
// Each kernel is one loop over `__restrict__` arrays that GCC vectorizes (this file
// is built at -O3: lib/meson.build, chorus_op_kernels). Signed integer SUM/PROD
// wrap (computed in the unsigned type) as every MPI implementation's do.
// MAXLOC/MINLOC read packed pairs (value then index, no padding) and keep the lower
// index on ties. MPIX_C_FLOAT16 and MPIX_BFLOAT16 are reduced in float and rounded
// to nearest-even on store (core/half.h); their MAX/MIN return NaN when either
// operand is NaN, so the result does not depend on the reduction order.
#include "core/op.h"

#include <climits>
#include <complex>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "core/datatype.h"
#include "core/half.h"
#include "core/handle.h"

namespace chorus {
namespace {

// ---- basic types ----------------------------------------------------------------

enum CT : int {
  kNone, kI8, kU8, kI16, kU16, kI32, kU32, kI64, kU64,
  kF32, kF64, kF80, kC32, kC64, kC80,
  kBool,     // C _Bool / C++ bool: land/lor/lxor
  kLogical,  // Fortran LOGICAL (int storage, non-zero is true)
  kFloatInt, kDoubleInt, kLongInt, kShortInt, kLongDoubleInt, kTwoInt, kTwoFloat, kTwoDouble,
  kF16,      // MPIX_C_FLOAT16 (IEEE binary16 bits)
  kBF16,     // MPIX_BFLOAT16 (bfloat16 bits)
  kNumCT
};

// What the standard allows per class (MPI-4.1 §6.9.2).
// cChar: MPI_CHAR, which MPI leaves out of every reduction; MPICH accepts it with
// every op a C integer takes (Open MPI with the logical and bitwise ones), and
// programs and MPICH's test suite use that.
enum Cls : int { cNone, cCInt, cFInt, cFloat, cComplex, cLogical, cByte, cPair, cChar };

struct Basic {
  CT ct = kNone;
  Cls cls = cNone;
};

template <typename T>
constexpr CT int_ct() {
  constexpr bool s = std::is_signed_v<T>;
  switch (sizeof(T)) {
    case 1: return s ? kI8 : kU8;
    case 2: return s ? kI16 : kU16;
    case 4: return s ? kI32 : kU32;
    default: return s ? kI64 : kU64;
  }
}

Basic basic_of(MPI_Datatype t) {
  switch (t) {
    case MPI_CHAR: return {int_ct<char>(), cChar};
    case MPI_SIGNED_CHAR: return {int_ct<signed char>(), cCInt};
    case MPI_UNSIGNED_CHAR: return {int_ct<unsigned char>(), cCInt};
    case MPI_SHORT: return {int_ct<short>(), cCInt};
    case MPI_UNSIGNED_SHORT: return {int_ct<unsigned short>(), cCInt};
    case MPI_INT: return {int_ct<int>(), cCInt};
    case MPI_UNSIGNED: return {int_ct<unsigned>(), cCInt};
    case MPI_LONG: return {int_ct<long>(), cCInt};
    case MPI_UNSIGNED_LONG: return {int_ct<unsigned long>(), cCInt};
    case MPI_LONG_LONG_INT: return {int_ct<long long>(), cCInt};
    case MPI_UNSIGNED_LONG_LONG: return {int_ct<unsigned long long>(), cCInt};
    case MPI_INT8_T: return {kI8, cCInt};
    case MPI_INT16_T: return {kI16, cCInt};
    case MPI_INT32_T: return {kI32, cCInt};
    case MPI_INT64_T: return {kI64, cCInt};
    case MPI_UINT8_T: return {kU8, cCInt};
    case MPI_UINT16_T: return {kU16, cCInt};
    case MPI_UINT32_T: return {kU32, cCInt};
    case MPI_UINT64_T: return {kU64, cCInt};
    case MPI_AINT: return {int_ct<MPI_Aint>(), cCInt};
    case MPI_OFFSET: return {int_ct<MPI_Offset>(), cCInt};
    case MPI_COUNT: return {int_ct<MPI_Count>(), cCInt};
    case MPI_INTEGER: return {kI32, cFInt};
    case MPI_INTEGER1: return {kI8, cFInt};
    case MPI_INTEGER2: return {kI16, cFInt};
    case MPI_INTEGER4: return {kI32, cFInt};
    case MPI_INTEGER8: return {kI64, cFInt};
    case MPI_FLOAT: case MPI_REAL: case MPI_REAL4: return {kF32, cFloat};
    case MPI_DOUBLE: case MPI_DOUBLE_PRECISION: case MPI_REAL8: return {kF64, cFloat};
    case MPI_LONG_DOUBLE: case MPI_REAL16: return {kF80, cFloat};
    case MPI_C_FLOAT_COMPLEX: case MPI_CXX_FLOAT_COMPLEX: case MPI_COMPLEX: case MPI_COMPLEX8:
      return {kC32, cComplex};
    case MPI_C_DOUBLE_COMPLEX: case MPI_CXX_DOUBLE_COMPLEX: case MPI_DOUBLE_COMPLEX:
    case MPI_COMPLEX16:
      return {kC64, cComplex};
    case MPI_C_LONG_DOUBLE_COMPLEX: case MPI_CXX_LONG_DOUBLE_COMPLEX: case MPI_COMPLEX32:
      return {kC80, cComplex};
    case MPI_C_BOOL: case MPI_CXX_BOOL: return {kBool, cLogical};
    case MPI_LOGICAL: return {kLogical, cLogical};
    case MPI_BYTE: return {kU8, cByte};
    case MPI_FLOAT_INT: return {kFloatInt, cPair};
    case MPI_DOUBLE_INT: return {kDoubleInt, cPair};
    case MPI_LONG_INT: return {kLongInt, cPair};
    case MPI_SHORT_INT: return {kShortInt, cPair};
    case MPI_LONG_DOUBLE_INT: return {kLongDoubleInt, cPair};
    case MPI_2INT: case MPI_2INTEGER: return {kTwoInt, cPair};
    case MPI_2REAL: return {kTwoFloat, cPair};
    case MPI_2DOUBLE_PRECISION: return {kTwoDouble, cPair};
    case MPIX_C_FLOAT16: return {kF16, cFloat};
    case MPIX_BFLOAT16: return {kBF16, cFloat};
    default: return {};  // MPI_WCHAR, MPI_CHARACTER, MPI_PACKED
  }
}

// Predefined ops are builtin handles 0x58000001 (MPI_MAX) .. 0x5800000e (MPI_NO_OP).
constexpr int kNumOps = 15;
int op_index(MPI_Op op) {
  int h = static_cast<int>(op);
  if (!handle::is(h, handle::Builtin, handle::Op)) return 0;
  int i = handle::index(h);
  return i >= 1 && i < kNumOps ? i : 0;
}

const char* const kOpNames[kNumOps] = {
    "?", "MPI_MAX", "MPI_MIN", "MPI_SUM", "MPI_PROD", "MPI_LAND", "MPI_BAND", "MPI_LOR",
    "MPI_BOR", "MPI_LXOR", "MPI_BXOR", "MPI_MINLOC", "MPI_MAXLOC", "MPI_REPLACE", "MPI_NO_OP"};

bool allowed(int op, Cls c) {
  switch (op) {
    case 1: case 2: return c == cCInt || c == cFInt || c == cFloat || c == cChar;        // max, min
    case 3: case 4: return c == cCInt || c == cFInt || c == cFloat || c == cComplex || c == cChar;  // sum, prod
    // land, lor, lxor; floating types too (non-zero is true), as MPICH allows
    case 5: case 7: case 9: return c == cCInt || c == cLogical || c == cChar || c == cFloat;
    case 6: case 8: case 10: return c == cCInt || c == cFInt || c == cByte || c == cChar;  // band, bor, bxor
    case 11: case 12: return c == cPair;                                               // minloc, maxloc
    default: return false;
  }
}

// ---- functors ---------------------------------------------------------------------

// Wrapping arithmetic for signed integers (no UB on overflow).
template <typename T>
using Wide = std::conditional_t<std::is_integral_v<T> && !std::is_same_v<T, bool>,
                                std::make_unsigned_t<T>, T>;

struct Max { template <typename T> static T f(T a, T b) { return a > b ? a : b; } };
struct Min { template <typename T> static T f(T a, T b) { return a < b ? a : b; } };
struct Sum {
  template <typename T> static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) + static_cast<Wide<T>>(b));
    else return a + b;
  }
};
struct Prod {
  template <typename T> static T f(T a, T b) {
    if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<Wide<T>>(a) * static_cast<Wide<T>>(b));
    else return a * b;
  }
};
struct Land { template <typename T> static T f(T a, T b) { return static_cast<T>((a != 0) & (b != 0)); } };
struct Lor { template <typename T> static T f(T a, T b) { return static_cast<T>((a != 0) | (b != 0)); } };
struct Lxor { template <typename T> static T f(T a, T b) { return static_cast<T>((a != 0) ^ (b != 0)); } };
struct Band { template <typename T> static T f(T a, T b) { return static_cast<T>(a & b); } };
struct Bor { template <typename T> static T f(T a, T b) { return static_cast<T>(a | b); } };
struct Bxor { template <typename T> static T f(T a, T b) { return static_cast<T>(a ^ b); } };

using Kernel = void (*)(const void* in, void* inout, std::size_t n);

// x86-64: one clone per ISA level, picked once at load time (ifunc), so AVX2
// machines get 32-byte vectors (and int64 max/min) from a baseline build.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__)
#define CHORUS_KERNEL_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define CHORUS_KERNEL_CLONES
#endif

template <typename T, typename F>
CHORUS_KERNEL_CLONES void loop(const void* in, void* inout, std::size_t n) {
  const T* __restrict__ a = static_cast<const T*>(in);
  T* __restrict__ b = static_cast<T*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = F::template f<T>(a[i], b[i]);
}

// 16-bit floats: load to float, apply F, round back. Max/Min propagate NaN from
// either side (Max/Min above keep the right operand when the left one is NaN).
struct F16 {
  static float load(std::uint16_t h) { return half::f16_to_float(h); }
  static std::uint16_t store(float f) { return half::float_to_f16(f); }
};
struct BF16 {
  static float load(std::uint16_t h) { return half::bf16_to_float(h); }
  static std::uint16_t store(float f) { return half::float_to_bf16(f); }
};
struct NanMax { template <typename T> static T f(T a, T b) { return (a > b || a != a) ? a : b; } };
struct NanMin { template <typename T> static T f(T a, T b) { return (a < b || a != a) ? a : b; } };

template <typename H, typename F>
CHORUS_KERNEL_CLONES void loop16(const void* in, void* inout, std::size_t n) {
  const std::uint16_t* __restrict__ a = static_cast<const std::uint16_t*>(in);
  std::uint16_t* __restrict__ b = static_cast<std::uint16_t*>(inout);
  for (std::size_t i = 0; i < n; ++i) b[i] = H::store(F::template f<float>(H::load(a[i]), H::load(b[i])));
}

// MAXLOC / MINLOC on packed (value, index) pairs.
template <typename V, typename I, bool kMax>
void loc_loop(const void* in, void* inout, std::size_t n) {
  constexpr std::size_t kS = sizeof(V) + sizeof(I);
  const auto* a = static_cast<const unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  for (std::size_t i = 0; i < n; ++i, a += kS, b += kS) {
    V va, vb;
    I ia, ib;
    std::memcpy(&va, a, sizeof(V));
    std::memcpy(&ia, a + sizeof(V), sizeof(I));
    std::memcpy(&vb, b, sizeof(V));
    std::memcpy(&ib, b + sizeof(V), sizeof(I));
    if (kMax ? va > vb : va < vb) {
      std::memcpy(b, &va, sizeof(V));
      std::memcpy(b + sizeof(V), &ia, sizeof(I));
    } else if (va == vb && ia < ib) {
      std::memcpy(b + sizeof(V), &ia, sizeof(I));
    }
  }
}

// GCC 12 mistakes the address of a target_clones (ifunc) function for the
// address of a local variable when it is stored in the table (-Wdangling-pointer
// false positive); the table only ever holds function addresses.
#pragma GCC diagnostic push
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wdangling-pointer"
#endif
template <typename T>
void fill_int(Kernel* row_of[kNumOps], CT ct) {
  row_of[1][ct] = loop<T, Max>;
  row_of[2][ct] = loop<T, Min>;
  row_of[3][ct] = loop<T, Sum>;
  row_of[4][ct] = loop<T, Prod>;
  row_of[5][ct] = loop<T, Land>;
  row_of[6][ct] = loop<T, Band>;
  row_of[7][ct] = loop<T, Lor>;
  row_of[8][ct] = loop<T, Bor>;
  row_of[9][ct] = loop<T, Lxor>;
  row_of[10][ct] = loop<T, Bxor>;
}

template <typename T>
void fill_float(Kernel* row_of[kNumOps], CT ct) {
  row_of[1][ct] = loop<T, Max>;
  row_of[2][ct] = loop<T, Min>;
  row_of[3][ct] = loop<T, Sum>;
  row_of[4][ct] = loop<T, Prod>;
  row_of[5][ct] = loop<T, Land>;
  row_of[7][ct] = loop<T, Lor>;
  row_of[9][ct] = loop<T, Lxor>;
}

template <typename T>
void fill_logical(Kernel* row_of[kNumOps], CT ct) {
  row_of[5][ct] = loop<T, Land>;
  row_of[7][ct] = loop<T, Lor>;
  row_of[9][ct] = loop<T, Lxor>;
}

template <typename H>
void fill_float16(Kernel* row_of[kNumOps], CT ct) {
  row_of[1][ct] = loop16<H, NanMax>;
  row_of[2][ct] = loop16<H, NanMin>;
  row_of[3][ct] = loop16<H, Sum>;
  row_of[4][ct] = loop16<H, Prod>;
  row_of[5][ct] = loop16<H, Land>;
  row_of[7][ct] = loop16<H, Lor>;
  row_of[9][ct] = loop16<H, Lxor>;
}

template <typename V, typename I>
void fill_pair(Kernel* row_of[kNumOps], CT ct) {
  row_of[11][ct] = loc_loop<V, I, false>;
  row_of[12][ct] = loc_loop<V, I, true>;
}

struct KernelTable {
  Kernel k[kNumOps][kNumCT] = {};
  KernelTable() {
    Kernel* r[kNumOps];
    for (int i = 0; i < kNumOps; ++i) r[i] = k[i];
    fill_int<std::int8_t>(r, kI8);
    fill_int<std::uint8_t>(r, kU8);
    fill_int<std::int16_t>(r, kI16);
    fill_int<std::uint16_t>(r, kU16);
    fill_int<std::int32_t>(r, kI32);
    fill_int<std::uint32_t>(r, kU32);
    fill_int<std::int64_t>(r, kI64);
    fill_int<std::uint64_t>(r, kU64);
    fill_float<float>(r, kF32);
    fill_float<double>(r, kF64);
    fill_float<long double>(r, kF80);
    fill_float16<F16>(r, kF16);
    fill_float16<BF16>(r, kBF16);
    r[3][kC32] = loop<std::complex<float>, Sum>;
    r[4][kC32] = loop<std::complex<float>, Prod>;
    r[3][kC64] = loop<std::complex<double>, Sum>;
    r[4][kC64] = loop<std::complex<double>, Prod>;
    r[3][kC80] = loop<std::complex<long double>, Sum>;
    r[4][kC80] = loop<std::complex<long double>, Prod>;
    fill_logical<bool>(r, kBool);
    fill_logical<int>(r, kLogical);
    fill_pair<float, int>(r, kFloatInt);
    fill_pair<double, int>(r, kDoubleInt);
    fill_pair<long, int>(r, kLongInt);
    fill_pair<short, int>(r, kShortInt);
    fill_pair<long double, int>(r, kLongDoubleInt);
    fill_pair<int, int>(r, kTwoInt);
    fill_pair<float, float>(r, kTwoFloat);
    fill_pair<double, double>(r, kTwoDouble);
  }
};

#pragma GCC diagnostic pop

const KernelTable kKernels;

// ---- user ops -----------------------------------------------------------------------

struct UserOp {
  MPI_User_function* fn = nullptr;
  MPI_User_function_c* fn_c = nullptr;
  bool commute = true;
  bool live = false;       // slot in use
  bool user_freed = false; // MPI_Op_free called; alive while refs > 0
  int refs = 0;
};

// Fixed array of chunk pointers: lookups never race with growth.
class OpTable {
 public:
  static constexpr int kChunk = 64;
  static constexpr int kMaxChunks = 4096;
  std::mutex mu;

  int add(const UserOp& op) {
    int idx;
    if (!free_.empty()) {
      idx = free_.back();
      free_.pop_back();
    } else {
      if (next_ >= kChunk * kMaxChunks) return -1;
      idx = next_++;
      if (!chunks_[idx / kChunk]) chunks_[idx / kChunk] = std::make_unique<UserOp[]>(kChunk);
    }
    chunks_[idx / kChunk][idx % kChunk] = op;
    ++live_;
    return idx;
  }
  UserOp* get(int idx) const {
    if (idx < 0 || idx >= next_) return nullptr;
    UserOp* u = &chunks_[idx / kChunk][idx % kChunk];
    return u->live ? u : nullptr;
  }
  void remove(int idx) {
    chunks_[idx / kChunk][idx % kChunk] = UserOp{};
    free_.push_back(idx);
    --live_;
  }
  std::size_t live() const { return live_; }

 private:
  std::unique_ptr<UserOp[]> chunks_[kMaxChunks];
  std::vector<int> free_;
  int next_ = 0;
  std::size_t live_ = 0;
};

OpTable& ops() {
  static OpTable* t = new OpTable;
  return *t;
}

// User op behind a handle, also when freed but still referenced.
UserOp* user_op(MPI_Op op) {
  int h = static_cast<int>(op);
  if (!handle::is(h, handle::Direct, handle::Op)) return nullptr;
  return ops().get(handle::index(h));
}

// Calls the user's function on `count` elements in the user's layout, in pieces
// of at most INT_MAX elements for the int-count signature.
void call_user(const UserOp& u, MPI_Datatype type, std::ptrdiff_t extent, void* in, void* inout,
               std::size_t count) {
  MPI_Datatype dt = type;
  if (u.fn_c) {
    auto len = static_cast<MPI_Count>(count);
    u.fn_c(in, inout, &len, &dt);
    return;
  }
  auto* a = static_cast<unsigned char*>(in);
  auto* b = static_cast<unsigned char*>(inout);
  while (count > 0) {
    std::size_t n = count < static_cast<std::size_t>(INT_MAX) ? count : static_cast<std::size_t>(INT_MAX);
    int len = static_cast<int>(n);
    u.fn(a, b, &len, &dt);
    a += static_cast<std::ptrdiff_t>(n) * extent;
    b += static_cast<std::ptrdiff_t>(n) * extent;
    count -= n;
  }
}

// Predefined types: `in`/`inout` are packed; the pair types' packed elements are
// unpacked into their C struct layout for the user's function.
void apply_user_packed(const UserOp& u, const TypeInfo& t, const void* in, void* inout,
                       std::size_t count) {
  if (type_is_contiguous(t, count)) {
    call_user(u, t.handle, t.extent, const_cast<void*>(in), inout, count);
    return;
  }
  std::ptrdiff_t start;
  std::size_t span;
  type_user_span(t, count, &start, &span);
  // The user's function sees C structs and may store them whole, trailing padding
  // included (MPI_DOUBLE_INT: 12 bytes of data in a 16-byte struct): cover `count`
  // whole extents, not only the data's span.
  const std::ptrdiff_t lo = std::min<std::ptrdiff_t>(start, t.lb);
  const std::ptrdiff_t hi = std::max<std::ptrdiff_t>(start + static_cast<std::ptrdiff_t>(span),
                                                     t.lb + static_cast<std::ptrdiff_t>(count) * t.extent);
  std::vector<unsigned char> ta(static_cast<std::size_t>(hi - lo)), tb(ta.size());
  unsigned char* ua = ta.data() - lo;
  unsigned char* ub = tb.data() - lo;
  type_unpack(t, in, count, ua);
  type_unpack(t, inout, count, ub);
  call_user(u, t.handle, t.extent, ua, ub, count);
  type_pack(t, ub, count, inout);
}

}  // namespace

// ---- public interface ----------------------------------------------------------------

bool op_is_predefined(MPI_Op op) { return op_index(op) != 0; }

bool op_valid(MPI_Op op) {
  if (op_is_predefined(op)) return true;
  UserOp* u = user_op(op);
  return u && !u->user_freed;
}

std::string op_name(MPI_Op op) {
  if (int i = op_index(op)) return kOpNames[i];
  if (op == MPI_OP_NULL) return "MPI_OP_NULL";
  if (handle::is(static_cast<int>(op), handle::Direct, handle::Op))
    return fmt::format("user op 0x{:x}", static_cast<unsigned>(op));
  return fmt::format("op 0x{:x}", static_cast<unsigned>(op));
}

Status op_check(MPI_Op op, MPI_Datatype type, std::string* why) {
  if (!op_valid(op)) {
    if (why) *why = fmt::format("{} is not a valid op", op_name(op));
    return Status::InvalidOp;
  }
  const TypeInfo* t = type_lookup_held(type);
  if (!t) {
    if (why) *why = fmt::format("{} is not a valid datatype", type_label(type));
    return Status::InvalidType;
  }
  int i = op_index(op);
  if (i == 0 || i == 13 || i == 14) return Status::Ok;  // user op, MPI_REPLACE, MPI_NO_OP
  if (t->basic == MPI_DATATYPE_NULL) {
    if (why)
      *why = fmt::format("{} is not defined for {}: it mixes basic types", kOpNames[i], type_label(type));
    return Status::InvalidOp;
  }
  if (!allowed(i, basic_of(t->basic).cls)) {
    if (why) {
      if (t->predefined)
        *why = fmt::format("{} is not defined for {}", kOpNames[i], t->name);
      else
        *why = fmt::format("{} is not defined for {} (built from {})", kOpNames[i], type_label(type),
                           type_label(t->basic));
    }
    return Status::InvalidOp;
  }
  return Status::Ok;
}

bool op_is_commutative(MPI_Op op) {
  if (op_is_predefined(op)) return true;
  UserOp* u = user_op(op);
  return !u || u->commute;
}

void op_apply(MPI_Op op, MPI_Datatype type, const void* in, void* inout, std::size_t count) {
  int i = op_index(op);
  if (i == 14 || count == 0) return;  // MPI_NO_OP
  const TypeInfo* t = type_lookup_held(type);
  if (!t) return;
  if (i == 0) {
    UserOp* u = user_op(op);
    if (!u) return;
    if (t->predefined)
      apply_user_packed(*u, *t, in, inout, count);
    else
      call_user(*u, type, t->extent, const_cast<void*>(in), inout, count);  // user layout
    return;
  }
  // Derived types arrive in their own layout: reduce straight at true_lb when
  // contiguous, else through packed copies.
  if (!t->predefined && !type_is_contiguous(*t, count)) {
    std::vector<unsigned char> a(wire_bytes(*t, count));
    type_pack(*t, in, count, a.data());
    if (i != 13) {  // MPI_REPLACE: the packed left operand is the result
      std::vector<unsigned char> b(a.size());
      type_pack(*t, inout, count, b.data());
      if (Kernel k = kKernels.k[i][basic_of(t->basic).ct]) k(a.data(), b.data(), count * t->basic_count);
      a.swap(b);
    }
    type_unpack(*t, a.data(), count, inout);
    return;
  }
  const auto* pin = static_cast<const unsigned char*>(in) + (t->predefined ? 0 : t->true_lb);
  auto* pio = static_cast<unsigned char*>(inout) + (t->predefined ? 0 : t->true_lb);
  if (i == 13) {  // MPI_REPLACE: the result is the left operand
    std::memmove(pio, pin, count * t->size);
    return;
  }
  Kernel k = kKernels.k[i][basic_of(t->basic).ct];
  if (k) k(pin, pio, count * t->basic_count);
}

MPI_Datatype op_basic_type(MPI_Datatype type, std::size_t* basics_per_element) {
  const TypeInfo* t = type_lookup_held(type);
  if (!t || t->basic == MPI_DATATYPE_NULL) {
    if (basics_per_element) *basics_per_element = 0;
    return MPI_DATATYPE_NULL;
  }
  if (basics_per_element) *basics_per_element = t->basic_count;
  return t->basic;
}

Status op_create(MPI_User_function* fn, MPI_User_function_c* fn_c, bool commute, MPI_Op* out) {
  OpTable& tab = ops();
  std::lock_guard<std::mutex> lock(tab.mu);
  UserOp u;
  u.fn = fn;
  u.fn_c = fn_c;
  u.commute = commute;
  u.live = true;
  u.refs = 1;
  int idx = tab.add(u);
  if (idx < 0) return Status::NoMem;
  *out = static_cast<MPI_Op>(handle::make(handle::Direct, handle::Op, idx));
  return Status::Ok;
}

void op_retain(MPI_Op op) {
  std::lock_guard<std::mutex> lock(ops().mu);
  if (UserOp* u = user_op(op)) ++u->refs;
}

void op_release(MPI_Op op) {
  std::lock_guard<std::mutex> lock(ops().mu);
  UserOp* u = user_op(op);
  if (u && --u->refs == 0) ops().remove(handle::index(static_cast<int>(op)));
}

Status op_free(MPI_Op op) {
  if (op_is_predefined(op)) return Status::InvalidOp;
  {
    std::lock_guard<std::mutex> lock(ops().mu);
    UserOp* u = user_op(op);
    if (!u || u->user_freed) return Status::InvalidOp;
    u->user_freed = true;
  }
  op_release(op);
  return Status::Ok;
}

std::size_t user_op_count() {
  std::lock_guard<std::mutex> lock(ops().mu);
  return ops().live();
}

}  // namespace chorus
