// Predefined datatypes: sizes match the C types, and each one round-trips.
#include <complex>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;

namespace {

template <typename A, typename B>
struct Pair {
  A a;
  B b;
  bool operator==(const Pair& o) const { return a == o.a && b == o.b; }
};

template <typename T>
T make(int k) {
  if constexpr (std::is_same_v<T, bool>) {
    return k % 2 == 1;
  } else if constexpr (std::is_arithmetic_v<T>) {
    return static_cast<T>(k % 100 + 1);
  } else if constexpr (requires { T().real(); }) {
    using R = typename T::value_type;
    return T(static_cast<R>(k % 50), static_cast<R>(-(k % 30)));
  } else {
    T t;
    std::memset(&t, 0, sizeof t);
    t.a = make<decltype(t.a)>(k);
    t.b = make<decltype(t.b)>(k + 7);
    return t;
  }
}

template <typename T>
void check_type(MPI_Datatype dt, const char* name, int expected_size) {
  INFO("datatype " << name);
  int type_size = -1;
  MPI_OK(MPI_Type_size(dt, &type_size));
  CHECK(type_size == expected_size);
  MPI_Aint lb = -1, extent = -1;
  MPI_OK(MPI_Type_get_extent(dt, &lb, &extent));
  CHECK(lb == 0);
  CHECK(extent == static_cast<MPI_Aint>(sizeof(T)));

  const int n = 5;
  T out[n], in[n];
  for (int i = 0; i < n; ++i) out[i] = make<T>(rank() * 13 + i);
  std::memset(static_cast<void*>(in), 0, sizeof in);
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(out, n, dt, right(), 600, in, n, dt, left(), 600,
                      MPI_COMM_WORLD, &st));
  int count = -1;
  MPI_OK(MPI_Get_count(&st, dt, &count));
  CHECK(count == n);
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += !(in[i] == make<T>(left() * 13 + i));
  CHECK(bad == 0);
}

}  // namespace

#define SIMPLE(dt, T) check_type<T>(dt, #dt, sizeof(T))
#define PAIR(dt, A, B) check_type<Pair<A, B>>(dt, #dt, sizeof(A) + sizeof(B))

TEST_CASE("Predefined C datatypes have the C type's size and round-trip", "[datatype]") {
  SIMPLE(MPI_CHAR, char);
  SIMPLE(MPI_SIGNED_CHAR, signed char);
  SIMPLE(MPI_UNSIGNED_CHAR, unsigned char);
  SIMPLE(MPI_BYTE, unsigned char);
  SIMPLE(MPI_WCHAR, wchar_t);
  SIMPLE(MPI_SHORT, short);
  SIMPLE(MPI_UNSIGNED_SHORT, unsigned short);
  SIMPLE(MPI_INT, int);
  SIMPLE(MPI_UNSIGNED, unsigned);
  SIMPLE(MPI_LONG, long);
  SIMPLE(MPI_UNSIGNED_LONG, unsigned long);
  SIMPLE(MPI_LONG_LONG_INT, long long);
  SIMPLE(MPI_LONG_LONG, long long);
  SIMPLE(MPI_UNSIGNED_LONG_LONG, unsigned long long);
  SIMPLE(MPI_FLOAT, float);
  SIMPLE(MPI_DOUBLE, double);
  SIMPLE(MPI_LONG_DOUBLE, long double);
  SIMPLE(MPI_C_BOOL, bool);
  SIMPLE(MPI_AINT, MPI_Aint);
  SIMPLE(MPI_OFFSET, MPI_Offset);
  SIMPLE(MPI_COUNT, MPI_Count);
}

TEST_CASE("Fixed-width datatypes have the right size and round-trip", "[datatype]") {
  SIMPLE(MPI_INT8_T, int8_t);
  SIMPLE(MPI_INT16_T, int16_t);
  SIMPLE(MPI_INT32_T, int32_t);
  SIMPLE(MPI_INT64_T, int64_t);
  SIMPLE(MPI_UINT8_T, uint8_t);
  SIMPLE(MPI_UINT16_T, uint16_t);
  SIMPLE(MPI_UINT32_T, uint32_t);
  SIMPLE(MPI_UINT64_T, uint64_t);
}

TEST_CASE("Complex datatypes have the right size and round-trip", "[datatype]") {
  SIMPLE(MPI_C_COMPLEX, std::complex<float>);
  SIMPLE(MPI_C_FLOAT_COMPLEX, std::complex<float>);
  SIMPLE(MPI_C_DOUBLE_COMPLEX, std::complex<double>);
  SIMPLE(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>);
}

TEST_CASE("Pair datatypes have the members' size, the struct's extent and round-trip",
          "[datatype]") {
  PAIR(MPI_FLOAT_INT, float, int);
  PAIR(MPI_DOUBLE_INT, double, int);
  PAIR(MPI_LONG_INT, long, int);
  PAIR(MPI_2INT, int, int);
  PAIR(MPI_SHORT_INT, short, int);
  PAIR(MPI_LONG_DOUBLE_INT, long double, int);
}

TEST_CASE("MPI_PACKED and MPI_DATATYPE_NULL basics", "[datatype]") {
  int type_size = -1;
  MPI_OK(MPI_Type_size(MPI_PACKED, &type_size));
  CHECK(type_size == 1);
  CHECK(MPI_DATATYPE_NULL != MPI_INT);
  CHECK(MPI_INT != MPI_FLOAT);
}
