#include "core/datatype.h"

#include <complex>
#include <cstdint>

#include "core/handle.h"

namespace chorus {
namespace {

struct Row {
  MPI_Datatype handle;
  TypeInfo info;
};

template <typename A, typename B>
struct Pair {
  A a;
  B b;
};

#define SIMPLE(h, ctype) Row{h, TypeInfo{#h, sizeof(ctype), sizeof(ctype), 1, sizeof(ctype)}}
// Pair types: size counts the data only; the extent includes the struct padding.
#define PAIR(h, A, B) \
  Row{h, TypeInfo{#h, sizeof(A) + sizeof(B), sizeof(Pair<A, B>), 2, sizeof(A)}}

const Row kBuiltins[] = {
    SIMPLE(MPI_CHAR, char),
    SIMPLE(MPI_SIGNED_CHAR, signed char),
    SIMPLE(MPI_UNSIGNED_CHAR, unsigned char),
    SIMPLE(MPI_BYTE, unsigned char),
    SIMPLE(MPI_WCHAR, wchar_t),
    SIMPLE(MPI_SHORT, short),
    SIMPLE(MPI_UNSIGNED_SHORT, unsigned short),
    SIMPLE(MPI_INT, int),
    SIMPLE(MPI_UNSIGNED, unsigned),
    SIMPLE(MPI_LONG, long),
    SIMPLE(MPI_UNSIGNED_LONG, unsigned long),
    SIMPLE(MPI_FLOAT, float),
    SIMPLE(MPI_DOUBLE, double),
    SIMPLE(MPI_LONG_DOUBLE, long double),
    SIMPLE(MPI_LONG_LONG_INT, long long),
    SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long),
    SIMPLE(MPI_PACKED, unsigned char),
    SIMPLE(MPI_INT8_T, std::int8_t),
    SIMPLE(MPI_INT16_T, std::int16_t),
    SIMPLE(MPI_INT32_T, std::int32_t),
    SIMPLE(MPI_INT64_T, std::int64_t),
    SIMPLE(MPI_UINT8_T, std::uint8_t),
    SIMPLE(MPI_UINT16_T, std::uint16_t),
    SIMPLE(MPI_UINT32_T, std::uint32_t),
    SIMPLE(MPI_UINT64_T, std::uint64_t),
    SIMPLE(MPI_C_BOOL, bool),
    SIMPLE(MPI_C_FLOAT_COMPLEX, std::complex<float>),
    SIMPLE(MPI_C_DOUBLE_COMPLEX, std::complex<double>),
    SIMPLE(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>),
    SIMPLE(MPI_AINT, MPI_Aint),
    SIMPLE(MPI_OFFSET, MPI_Offset),
    SIMPLE(MPI_COUNT, MPI_Count),
    SIMPLE(MPI_CXX_BOOL, bool),
    SIMPLE(MPI_CXX_FLOAT_COMPLEX, std::complex<float>),
    SIMPLE(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>),
    SIMPLE(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>),
    SIMPLE(MPIX_C_FLOAT16, std::uint16_t),
    SIMPLE(MPIX_BFLOAT16, std::uint16_t),
    // Fortran types: plain storage of the same sizes.
    SIMPLE(MPI_CHARACTER, char),
    SIMPLE(MPI_LOGICAL, int),
    SIMPLE(MPI_INTEGER, int),
    SIMPLE(MPI_REAL, float),
    SIMPLE(MPI_DOUBLE_PRECISION, double),
    SIMPLE(MPI_COMPLEX, std::complex<float>),
    SIMPLE(MPI_DOUBLE_COMPLEX, std::complex<double>),
    SIMPLE(MPI_INTEGER1, std::int8_t),
    SIMPLE(MPI_INTEGER2, std::int16_t),
    SIMPLE(MPI_INTEGER4, std::int32_t),
    SIMPLE(MPI_INTEGER8, std::int64_t),
    SIMPLE(MPI_REAL4, float),
    SIMPLE(MPI_REAL8, double),
    SIMPLE(MPI_REAL16, long double),
    SIMPLE(MPI_COMPLEX8, std::complex<float>),
    SIMPLE(MPI_COMPLEX16, std::complex<double>),
    SIMPLE(MPI_COMPLEX32, std::complex<long double>),
    PAIR(MPI_2INT, int, int),
    PAIR(MPI_2INTEGER, int, int),
    PAIR(MPI_2REAL, float, float),
    PAIR(MPI_2DOUBLE_PRECISION, double, double),
    PAIR(MPI_FLOAT_INT, float, int),
    PAIR(MPI_DOUBLE_INT, double, int),
    PAIR(MPI_LONG_INT, long, int),
    PAIR(MPI_SHORT_INT, short, int),
    PAIR(MPI_LONG_DOUBLE_INT, long double, int),
};
#undef SIMPLE
#undef PAIR

constexpr int kNumBuiltins = sizeof(kBuiltins) / sizeof(kBuiltins[0]);

// Builtin handles index a 256-entry table by their low byte; the pair types that
// are "direct" handles in the ABI (MPI_FLOAT_INT...) by their index.
struct Lookup {
  const TypeInfo* by_low_byte[256] = {};
  std::uint32_t handle_of[256] = {};
  const TypeInfo* pairs[8] = {};
  Lookup() {
    for (const Row& r : kBuiltins) {
      int h = static_cast<int>(r.handle);
      if (handle::kind(h) == handle::Builtin) {
        by_low_byte[h & 0xff] = &r.info;
        handle_of[h & 0xff] = static_cast<std::uint32_t>(h);
      } else {
        pairs[handle::index(h) & 7] = &r.info;
      }
    }
  }
};
const Lookup kLookup;

}  // namespace

const TypeInfo* type_info(MPI_Datatype t) {
  int h = static_cast<int>(t);
  if (handle::object(h) != handle::Datatype) return nullptr;
  if (handle::kind(h) == handle::Builtin) {
    // Exact handle match: a builtin-looking value with a wrong size byte is invalid.
    if (kLookup.handle_of[h & 0xff] != static_cast<std::uint32_t>(h)) return nullptr;
    return kLookup.by_low_byte[h & 0xff];
  }
  if (handle::kind(h) == handle::Direct && handle::index(h) < 5) return kLookup.pairs[handle::index(h)];
  return nullptr;
}

long long count_from_bytes(const TypeInfo& t, std::size_t bytes) {
  if (t.extent == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % static_cast<std::size_t>(t.extent) != 0) return MPI_UNDEFINED;
  return static_cast<long long>(bytes / static_cast<std::size_t>(t.extent));
}

long long elements_from_bytes(const TypeInfo& t, std::size_t bytes) {
  if (t.extent == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  std::size_t ext = static_cast<std::size_t>(t.extent);
  long long whole = static_cast<long long>(bytes / ext);
  std::size_t rest = bytes % ext;
  long long elems = whole * t.elements;
  if (rest == 0) return elems;
  // A partial pair counts its first element when that element fully arrived.
  if (t.elements == 2 && rest >= t.first_size && rest < t.size) return elems + 1;
  return MPI_UNDEFINED;
}

int builtin_type_count() { return kNumBuiltins; }
MPI_Datatype builtin_type_at(int i) { return kBuiltins[i].handle; }

}  // namespace chorus
