// Unit tests of core/datatype and core/op: construction, pack/unpack, kernels.
#include <catch2/catch.hpp>

#include <complex>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "core/datatype.h"
#include "core/op.h"

using namespace chorus;

namespace {

MPI_Datatype make(const std::vector<TypeBlock>& blocks, bool is_struct = false) {
  MPI_Datatype t = MPI_DATATYPE_NULL;
  std::string why;
  REQUIRE(type_create(blocks, is_struct, MPI_COMBINER_STRUCT, &t, &why) == Status::Ok);
  return t;
}

MPI_Datatype vec(int count, int bl, int stride, MPI_Datatype old) {
  std::vector<TypeBlock> b;
  const TypeInfo* o = type_info(old);
  for (int i = 0; i < count; ++i) b.push_back({i * stride * o->extent, bl, old});
  return make(b);
}

void drop(MPI_Datatype t) { REQUIRE(type_free(t) == Status::Ok); }

// Reference pack: byte by byte over the segments.
std::vector<unsigned char> ref_pack(const TypeInfo& t, const unsigned char* user, std::size_t count) {
  std::vector<unsigned char> out;
  for (std::size_t i = 0; i < count; ++i)
    for (const Segment& s : t.segs)
      for (std::size_t k = 0; k < s.len; ++k)
        out.push_back(user[static_cast<std::ptrdiff_t>(i) * t.extent + s.off + static_cast<std::ptrdiff_t>(k)]);
  return out;
}

}  // namespace

TEST_CASE("predefined types: sizes, extents, contiguity", "[types]") {
  const TypeInfo& i = *type_info(MPI_INT);
  CHECK(i.size == 4);
  CHECK(i.extent == 4);
  CHECK(i.contiguous);
  CHECK(i.committed);
  const TypeInfo& di = *type_info(MPI_DOUBLE_INT);
  CHECK(di.size == 12);
  CHECK(di.extent == 16);
  CHECK_FALSE(di.contiguous);
  CHECK(type_is_contiguous(di, 1));  // one element: value and int are adjacent
  CHECK(di.segs.size() == 1);
  const TypeInfo& si = *type_info(MPI_SHORT_INT);
  CHECK(si.size == 6);
  CHECK(si.extent == 8);
  CHECK(si.segs.size() == 2);
  CHECK_FALSE(type_is_contiguous(si, 1));
  CHECK(type_info(MPI_2INT)->contiguous);
  CHECK(type_info(MPI_FLOAT_INT)->contiguous);
  CHECK(type_info(MPI_LONG_DOUBLE_INT)->size == sizeof(long double) + sizeof(int));
  CHECK(count_from_bytes(di, 24) == 2);
  CHECK(count_from_bytes(di, 32) == MPI_UNDEFINED);
  CHECK(elements_from_bytes(di, 24) == 4);
  CHECK(elements_from_bytes(di, 12 + 8) == 3);
  CHECK(elements_from_bytes(di, 12 + 4) == MPI_UNDEFINED);
  CHECK(type_label(MPI_INT) == "MPI_INT");
}

TEST_CASE("vector: size, extent, true extent, segments", "[types]") {
  std::size_t base = user_type_count();
  MPI_Datatype v = vec(3, 2, 4, MPI_INT);
  const TypeInfo& t = *type_info(v);
  CHECK(t.size == 24);
  CHECK(t.lb == 0);
  CHECK(t.extent == 40);
  CHECK(t.true_lb == 0);
  CHECK(t.true_extent == 40);
  CHECK(t.segs.size() == 3);
  CHECK(t.uniform_len == 8);
  CHECK_FALSE(t.contiguous);
  CHECK_FALSE(t.committed);
  CHECK(t.elements == 6);
  CHECK(t.basic == MPI_INT);
  CHECK(t.basic_count == 6);
  drop(v);
  CHECK(user_type_count() == base);
}

TEST_CASE("contiguous of a dense type merges into one segment", "[types]") {
  MPI_Datatype c = make({{0, 1000000, MPI_DOUBLE}});
  const TypeInfo& t = *type_info(c);
  CHECK(t.segs.size() == 1);
  CHECK(t.contiguous);
  CHECK(t.size == 8000000);
  drop(c);
}

TEST_CASE("indexed with a negative displacement", "[types]") {
  // blocks: 2 doubles at element 3, 1 double at element -1
  MPI_Datatype x = make({{3 * 8, 2, MPI_DOUBLE}, {-8, 1, MPI_DOUBLE}});
  const TypeInfo& t = *type_info(x);
  CHECK(t.size == 24);
  CHECK(t.lb == -8);
  CHECK(t.ub == 40);
  CHECK(t.extent == 48);
  CHECK(t.true_lb == -8);
  CHECK(t.true_extent == 48);
  CHECK_FALSE(t.contiguous);
  drop(x);
}

TEST_CASE("struct pads its extent like the C struct", "[types]") {
  struct S {
    char c;
    double d;
  };
  MPI_Datatype s = make({{offsetof(S, c), 1, MPI_CHAR}, {offsetof(S, d), 1, MPI_DOUBLE}}, true);
  const TypeInfo& t = *type_info(s);
  CHECK(t.size == 9);
  CHECK(t.extent == static_cast<MPI_Aint>(sizeof(S)));
  CHECK(t.true_extent == 16);
  CHECK(t.basic == MPI_DATATYPE_NULL);  // mixed
  CHECK(t.elements == 2);
  // Get_elements across the mixed runs.
  CHECK(elements_from_bytes(t, 1) == 1);
  CHECK(elements_from_bytes(t, 5) == MPI_UNDEFINED);
  CHECK(elements_from_bytes(t, 9 + 1) == 3);
  CHECK(bytes_from_elements(t, 3) == 10);
  struct T {
    double d;
    char c;
  };
  MPI_Datatype s2 = make({{offsetof(T, d), 1, MPI_DOUBLE}, {offsetof(T, c), 1, MPI_CHAR}}, true);
  CHECK(type_info(s2)->extent == static_cast<MPI_Aint>(sizeof(T)));
  CHECK(type_info(s2)->true_extent == 9);
  drop(s);
  drop(s2);
}

TEST_CASE("resized: lb and extent change, true extent does not", "[types]") {
  MPI_Datatype r;
  std::string why;
  REQUIRE(type_create_resized(MPI_INT, -4, 12, &r, &why) == Status::Ok);
  const TypeInfo& t = *type_info(r);
  CHECK(t.lb == -4);
  CHECK(t.extent == 12);
  CHECK(t.true_lb == 0);
  CHECK(t.true_extent == 4);
  CHECK(t.size == 4);
  CHECK_FALSE(t.contiguous);
  CHECK(type_is_contiguous(t, 1));
  // A struct of resized types keeps the explicit extent (no padding).
  MPI_Datatype s = make({{0, 2, r}}, true);
  CHECK(type_info(s)->extent == 24);
  CHECK(type_info(s)->lb == -4);
  drop(s);
  drop(r);
}

TEST_CASE("nested: vector of structs, and lifetime through references", "[types]") {
  std::size_t base = user_type_count();
  struct P {
    int a;
    short b;
  };
  MPI_Datatype s = make({{offsetof(P, a), 1, MPI_INT}, {offsetof(P, b), 1, MPI_SHORT}}, true);
  CHECK(type_info(s)->extent == static_cast<MPI_Aint>(sizeof(P)));
  MPI_Datatype v = vec(2, 2, 3, s);  // 2 blocks of 2 structs, stride 3 structs
  drop(s);                            // v still holds s
  CHECK(type_info(s) == nullptr);
  const TypeInfo& t = *type_info(v);
  CHECK(t.size == 4 * 6);
  CHECK(t.extent == static_cast<MPI_Aint>((3 + 2) * sizeof(P)));
  CHECK(t.true_extent == static_cast<MPI_Aint>((3 + 1) * sizeof(P) + 6));
  CHECK(t.elements == 8);
  CHECK(user_type_count() == base + 2);
  drop(v);
  CHECK(user_type_count() == base);
}

TEST_CASE("pack and unpack round-trip", "[types][pack]") {
  std::mt19937 rng(7);
  struct S {
    char c;
    double d;
    int i[3];
  };
  MPI_Datatype st = make({{offsetof(S, c), 1, MPI_CHAR}, {offsetof(S, d), 1, MPI_DOUBLE},
                          {offsetof(S, i), 3, MPI_INT}},
                         true);
  MPI_Datatype rs;
  std::string why;
  REQUIRE(type_create_resized(MPI_DOUBLE, 0, 24, &rs, &why) == Status::Ok);
  std::vector<MPI_Datatype> types = {
      MPI_INT,           MPI_DOUBLE_INT,        MPI_SHORT_INT,        vec(5, 1, 3, MPI_DOUBLE),
      vec(4, 3, 5, MPI_INT), vec(3, 2, 2, MPI_SHORT_INT), st,            rs,
      make({{16, 2, MPI_FLOAT}, {-8, 1, MPI_CHAR}, {40, 3, MPI_SHORT}}),
  };
  for (MPI_Datatype h : types) {
    const TypeInfo& t = *type_info(h);
    INFO(type_label(h));
    for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{3}, std::size_t{17}}) {
      std::ptrdiff_t start;
      std::size_t span;
      type_user_span(t, count, &start, &span);
      std::vector<unsigned char> a(span + 1), b(span + 1, 0);
      for (auto& x : a) x = static_cast<unsigned char>(rng());
      unsigned char* ua = a.data() - start;
      unsigned char* ub = b.data() - start;
      std::vector<unsigned char> packed(wire_bytes(t, count));
      type_pack(t, ua, count, packed.data());
      CHECK(packed == ref_pack(t, ua, count));
      type_unpack(t, packed.data(), count, ub);
      CHECK(ref_pack(t, ub, count) == packed);
      // Partial unpack stops inside an element.
      if (count > 1 && t.size > 1) {
        std::vector<unsigned char> c(span + 1, 0);
        type_unpack_bytes(t, packed.data(), t.size + 1, c.data() - start);
        std::vector<unsigned char> got = ref_pack(t, c.data() - start, 2);
        CHECK(std::equal(got.begin(), got.begin() + static_cast<std::ptrdiff_t>(t.size) + 1, packed.begin()));
      }
    }
  }
  for (MPI_Datatype h : types)
    if (!type_info(h)->predefined) drop(h);
}

// ---- ops ---------------------------------------------------------------------------

namespace {

enum class K { CInt, FInt, Float, Complex, Logical, Byte, Pair, Char, None };

struct Row {
  MPI_Datatype t;
  K k;
};

const Row kRows[] = {
    {MPI_CHAR, K::Char}, {MPI_SIGNED_CHAR, K::CInt}, {MPI_UNSIGNED_CHAR, K::CInt},
    {MPI_BYTE, K::Byte}, {MPI_WCHAR, K::None}, {MPI_SHORT, K::CInt}, {MPI_UNSIGNED_SHORT, K::CInt},
    {MPI_INT, K::CInt}, {MPI_UNSIGNED, K::CInt}, {MPI_LONG, K::CInt}, {MPI_UNSIGNED_LONG, K::CInt},
    {MPI_FLOAT, K::Float}, {MPI_DOUBLE, K::Float}, {MPI_LONG_DOUBLE, K::Float},
    {MPI_LONG_LONG_INT, K::CInt}, {MPI_UNSIGNED_LONG_LONG, K::CInt}, {MPI_PACKED, K::None},
    {MPI_INT8_T, K::CInt}, {MPI_INT16_T, K::CInt}, {MPI_INT32_T, K::CInt}, {MPI_INT64_T, K::CInt},
    {MPI_UINT8_T, K::CInt}, {MPI_UINT16_T, K::CInt}, {MPI_UINT32_T, K::CInt}, {MPI_UINT64_T, K::CInt},
    {MPI_C_BOOL, K::Logical}, {MPI_C_FLOAT_COMPLEX, K::Complex}, {MPI_C_DOUBLE_COMPLEX, K::Complex},
    {MPI_C_LONG_DOUBLE_COMPLEX, K::Complex}, {MPI_AINT, K::CInt}, {MPI_OFFSET, K::CInt},
    {MPI_COUNT, K::CInt}, {MPI_CXX_BOOL, K::Logical}, {MPI_CXX_FLOAT_COMPLEX, K::Complex},
    {MPI_CXX_DOUBLE_COMPLEX, K::Complex}, {MPI_CXX_LONG_DOUBLE_COMPLEX, K::Complex},
    {MPI_CHARACTER, K::None}, {MPI_LOGICAL, K::Logical}, {MPI_INTEGER, K::FInt}, {MPI_REAL, K::Float},
    {MPI_DOUBLE_PRECISION, K::Float}, {MPI_COMPLEX, K::Complex}, {MPI_DOUBLE_COMPLEX, K::Complex},
    {MPI_INTEGER1, K::FInt}, {MPI_INTEGER2, K::FInt}, {MPI_INTEGER4, K::FInt}, {MPI_INTEGER8, K::FInt},
    {MPI_REAL4, K::Float}, {MPI_REAL8, K::Float}, {MPI_REAL16, K::Float}, {MPI_COMPLEX8, K::Complex},
    {MPI_COMPLEX16, K::Complex}, {MPI_COMPLEX32, K::Complex}, {MPI_2INT, K::Pair},
    {MPI_2INTEGER, K::Pair}, {MPI_2REAL, K::Pair}, {MPI_2DOUBLE_PRECISION, K::Pair},
    {MPI_FLOAT_INT, K::Pair}, {MPI_DOUBLE_INT, K::Pair}, {MPI_LONG_INT, K::Pair},
    {MPI_SHORT_INT, K::Pair}, {MPI_LONG_DOUBLE_INT, K::Pair},
    {MPI_LB, K::None}, {MPI_UB, K::None},  // MPI-1 bound markers: no data, no ops
    {MPIX_C_FLOAT16, K::Float}, {MPIX_BFLOAT16, K::Float},
};

const MPI_Op kOps[] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND, MPI_LOR,
                       MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC};

bool expect_ok(MPI_Op op, K k) {
  // MPI_CHAR (K::Char) with every op a C integer takes: not the standard's, but
  // MPICH's (Open MPI's with the logical and bitwise ops), and programs use it.
  if (op == MPI_MAX || op == MPI_MIN) return k == K::CInt || k == K::FInt || k == K::Float || k == K::Char;
  if (op == MPI_SUM || op == MPI_PROD)
    return k == K::CInt || k == K::FInt || k == K::Float || k == K::Complex || k == K::Char;
  // Logical ops on floating types: MPICH's too (coll/oplxor), non-zero is true.
  if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR)
    return k == K::CInt || k == K::Logical || k == K::Char || k == K::Float;
  if (op == MPI_BAND || op == MPI_BOR || op == MPI_BXOR)
    return k == K::CInt || k == K::FInt || k == K::Byte || k == K::Char;
  return k == K::Pair;
}

template <typename T>
T ref(MPI_Op op, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    if (op == MPI_LAND) return a && b;
    if (op == MPI_LOR) return a || b;
    return a != b;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_SUM) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if (op == MPI_PROD) return static_cast<T>(static_cast<U>(a) * static_cast<U>(b));
    if (op == MPI_LAND) return static_cast<T>(a && b);
    if (op == MPI_LOR) return static_cast<T>(a || b);
    if (op == MPI_LXOR) return static_cast<T>(!a != !b);
    if (op == MPI_BAND) return static_cast<T>(a & b);
    if (op == MPI_BOR) return static_cast<T>(a | b);
    return static_cast<T>(a ^ b);
  } else if constexpr (std::is_floating_point_v<T>) {
    if (op == MPI_MAX) return a > b ? a : b;
    if (op == MPI_MIN) return a < b ? a : b;
    if (op == MPI_SUM) return a + b;
    if (op == MPI_LAND) return static_cast<T>(a != 0 && b != 0);
    if (op == MPI_LOR) return static_cast<T>(a != 0 || b != 0);
    if (op == MPI_LXOR) return static_cast<T>((a != 0) != (b != 0));
    return a * b;
  } else {
    if (op == MPI_SUM) return a + b;
    return a * b;
  }
}

template <typename T>
T value(std::mt19937& rng) {
  if constexpr (std::is_same_v<T, bool>) return rng() & 1;
  else if constexpr (std::is_integral_v<T>) return static_cast<T>(static_cast<int>(rng() % 7) - (std::is_signed_v<T> ? 3 : 0)) ;
  else if constexpr (std::is_floating_point_v<T>) return static_cast<T>(static_cast<int>(rng() % 1000) - 500) / 8;
  else return T(value<typename T::value_type>(rng), value<typename T::value_type>(rng));
}

// Checks op_apply against the scalar reference on n elements (odd n: vector tails).
template <typename T>
void check_kernel(MPI_Datatype t, MPI_Op op, bool logical_int = false) {
  std::mt19937 rng(11);
  const std::size_t n = 1037;
  std::unique_ptr<T[]> a(new T[n]), b(new T[n]), want(new T[n]);  // not vector<bool>
  for (std::size_t i = 0; i < n; ++i) {
    a[i] = value<T>(rng);
    b[i] = value<T>(rng);
    if constexpr (std::is_integral_v<T>) {
      if (logical_int) a[i] = static_cast<T>(a[i] % 2), b[i] = static_cast<T>(b[i] % 2);
    }
    want[i] = ref<T>(op, a[i], b[i]);
  }
  op_apply(op, t, a.get(), b.get(), n);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) bad += !(b[i] == want[i]);
  INFO(type_label(t) << " " << op_name(op));
  CHECK(bad == 0);
}

template <typename V, typename I>
void check_loc(MPI_Datatype t) {
  std::mt19937 rng(5);
  const std::size_t n = 301, S = sizeof(V) + sizeof(I);
  for (MPI_Op op : {MPI_MINLOC, MPI_MAXLOC}) {
    std::vector<unsigned char> a(n * S), b(n * S);
    std::vector<V> va(n), vb(n);
    std::vector<I> ia(n), ib(n);
    for (std::size_t i = 0; i < n; ++i) {
      va[i] = static_cast<V>(rng() % 5);
      vb[i] = static_cast<V>(rng() % 5);
      ia[i] = static_cast<I>(rng() % 9);
      ib[i] = static_cast<I>(rng() % 9);
      std::memcpy(&a[i * S], &va[i], sizeof(V));
      std::memcpy(&a[i * S + sizeof(V)], &ia[i], sizeof(I));
      std::memcpy(&b[i * S], &vb[i], sizeof(V));
      std::memcpy(&b[i * S + sizeof(V)], &ib[i], sizeof(I));
    }
    op_apply(op, t, a.data(), b.data(), n);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < n; ++i) {
      bool take = op == MPI_MAXLOC ? va[i] > vb[i] : va[i] < vb[i];
      V wv = take ? va[i] : vb[i];
      I wi = take ? ia[i] : (va[i] == vb[i] ? std::min(ia[i], ib[i]) : ib[i]);
      V gv;
      I gi;
      std::memcpy(&gv, &b[i * S], sizeof(V));
      std::memcpy(&gi, &b[i * S + sizeof(V)], sizeof(I));
      bad += !(gv == wv && gi == wi);
    }
    INFO(type_label(t) << " " << op_name(op));
    CHECK(bad == 0);
  }
}

template <typename T>
void check_all_ops(MPI_Datatype t, bool logical_int = false) {
  for (MPI_Op op : kOps)
    if (op_check(op, t, nullptr) == Status::Ok && op != MPI_MINLOC && op != MPI_MAXLOC)
      check_kernel<T>(t, op, logical_int);
}

}  // namespace

TEST_CASE("op_check accepts exactly the standard's (op, type) pairs, and MPI_CHAR with logical and bitwise ops", "[op]") {
  int checked = 0;
  for (const Row& r : kRows) {
    for (MPI_Op op : kOps) {
      std::string why;
      Status s = op_check(op, r.t, &why);
      INFO(op_name(op) << " on " << type_label(r.t) << ": " << why);
      CHECK((s == Status::Ok) == expect_ok(op, r.k));
      if (s != Status::Ok) CHECK(s == Status::InvalidOp);
      ++checked;
    }
    CHECK(op_check(MPI_REPLACE, r.t, nullptr) == Status::Ok);
    CHECK(op_check(MPI_NO_OP, r.t, nullptr) == Status::Ok);
  }
  CHECK(checked == static_cast<int>(std::size(kRows) * std::size(kOps)));
  CHECK(static_cast<int>(std::size(kRows)) == builtin_type_count());
  std::string why;
  CHECK(op_check(MPI_SUM, MPI_2INT, &why) == Status::InvalidOp);
  CHECK(why == "MPI_SUM is not defined for MPI_2INT");
  CHECK(op_check(MPI_OP_NULL, MPI_INT, &why) == Status::InvalidOp);
  CHECK(op_check(MPI_SUM, MPI_DATATYPE_NULL, &why) == Status::InvalidType);
}

TEST_CASE("every valid (op, type) kernel matches a scalar reference", "[op]") {
  check_all_ops<signed char>(MPI_SIGNED_CHAR);
  check_all_ops<unsigned char>(MPI_UNSIGNED_CHAR);
  check_all_ops<unsigned char>(MPI_BYTE);
  check_all_ops<short>(MPI_SHORT);
  check_all_ops<unsigned short>(MPI_UNSIGNED_SHORT);
  check_all_ops<int>(MPI_INT);
  check_all_ops<unsigned>(MPI_UNSIGNED);
  check_all_ops<long>(MPI_LONG);
  check_all_ops<unsigned long>(MPI_UNSIGNED_LONG);
  check_all_ops<long long>(MPI_LONG_LONG_INT);
  check_all_ops<unsigned long long>(MPI_UNSIGNED_LONG_LONG);
  check_all_ops<std::int8_t>(MPI_INT8_T);
  check_all_ops<std::int16_t>(MPI_INT16_T);
  check_all_ops<std::int32_t>(MPI_INT32_T);
  check_all_ops<std::int64_t>(MPI_INT64_T);
  check_all_ops<std::uint8_t>(MPI_UINT8_T);
  check_all_ops<std::uint16_t>(MPI_UINT16_T);
  check_all_ops<std::uint32_t>(MPI_UINT32_T);
  check_all_ops<std::uint64_t>(MPI_UINT64_T);
  check_all_ops<MPI_Aint>(MPI_AINT);
  check_all_ops<MPI_Offset>(MPI_OFFSET);
  check_all_ops<MPI_Count>(MPI_COUNT);
  check_all_ops<int>(MPI_INTEGER);
  check_all_ops<std::int8_t>(MPI_INTEGER1);
  check_all_ops<std::int16_t>(MPI_INTEGER2);
  check_all_ops<std::int32_t>(MPI_INTEGER4);
  check_all_ops<std::int64_t>(MPI_INTEGER8);
  check_all_ops<float>(MPI_FLOAT);
  check_all_ops<double>(MPI_DOUBLE);
  check_all_ops<long double>(MPI_LONG_DOUBLE);
  check_all_ops<float>(MPI_REAL);
  check_all_ops<double>(MPI_DOUBLE_PRECISION);
  check_all_ops<float>(MPI_REAL4);
  check_all_ops<double>(MPI_REAL8);
  check_all_ops<long double>(MPI_REAL16);
  check_all_ops<std::complex<float>>(MPI_C_FLOAT_COMPLEX);
  check_all_ops<std::complex<double>>(MPI_C_DOUBLE_COMPLEX);
  check_all_ops<std::complex<long double>>(MPI_C_LONG_DOUBLE_COMPLEX);
  check_all_ops<std::complex<float>>(MPI_CXX_FLOAT_COMPLEX);
  check_all_ops<std::complex<double>>(MPI_CXX_DOUBLE_COMPLEX);
  check_all_ops<std::complex<long double>>(MPI_CXX_LONG_DOUBLE_COMPLEX);
  check_all_ops<std::complex<float>>(MPI_COMPLEX);
  check_all_ops<std::complex<double>>(MPI_DOUBLE_COMPLEX);
  check_all_ops<std::complex<float>>(MPI_COMPLEX8);
  check_all_ops<std::complex<double>>(MPI_COMPLEX16);
  check_all_ops<std::complex<long double>>(MPI_COMPLEX32);
  check_all_ops<bool>(MPI_C_BOOL);
  check_all_ops<bool>(MPI_CXX_BOOL);
  check_all_ops<int>(MPI_LOGICAL, true);
  check_loc<float, int>(MPI_FLOAT_INT);
  check_loc<double, int>(MPI_DOUBLE_INT);
  check_loc<long, int>(MPI_LONG_INT);
  check_loc<short, int>(MPI_SHORT_INT);
  check_loc<long double, int>(MPI_LONG_DOUBLE_INT);
  check_loc<int, int>(MPI_2INT);
  check_loc<int, int>(MPI_2INTEGER);
  check_loc<float, float>(MPI_2REAL);
  check_loc<double, double>(MPI_2DOUBLE_PRECISION);
}

TEST_CASE("REPLACE and NO_OP; derived types reduce as their basic type", "[op]") {
  std::vector<int> a{1, 2, 3, 4}, b{9, 9, 9, 9};
  op_apply(MPI_NO_OP, MPI_INT, a.data(), b.data(), 4);
  CHECK(b == std::vector<int>{9, 9, 9, 9});
  op_apply(MPI_REPLACE, MPI_INT, a.data(), b.data(), 4);
  CHECK(b == a);
  MPI_Datatype v = vec(2, 1, 3, MPI_INT);  // 2 ints per element
  std::size_t per = 0;
  CHECK(op_basic_type(v, &per) == MPI_INT);
  CHECK(per == 2);
  CHECK(op_check(MPI_SUM, v, nullptr) == Status::Ok);
  // Derived types are in their own layout: ints at 0 and 3 of each 4-int element
  // (extent 16 bytes), 2 elements.
  std::vector<int> ua{1, -1, -1, 2, 3, -1, -1, 4}, ub{10, 0, 0, 20, 30, 0, 0, 40};
  op_apply(MPI_SUM, v, ua.data(), ub.data(), 2);
  CHECK(ub == std::vector<int>{11, 0, 0, 22, 33, 0, 0, 44});
  op_apply(MPI_REPLACE, v, ua.data(), ub.data(), 2);
  CHECK(ub == std::vector<int>{1, 0, 0, 2, 3, 0, 0, 4});
  std::vector<int> pa{1, 2, 3, 4}, pb{10, 20, 30, 40};  // the executor's packed form
  std::size_t per2 = 0;
  MPI_Datatype basic = op_basic_type(v, &per2);
  op_apply(MPI_SUM, basic, pa.data(), pb.data(), 2 * per2);
  CHECK(pb == std::vector<int>{11, 22, 33, 44});
  std::string why;
  MPI_Datatype p = vec(2, 1, 2, MPI_2INT);
  CHECK(op_check(MPI_SUM, p, &why) == Status::InvalidOp);
  CHECK(why.find("MPI_SUM is not defined for derived datatype") == 0);
  CHECK(op_check(MPI_MAXLOC, p, nullptr) == Status::Ok);
  MPI_Datatype m = make({{0, 1, MPI_INT}, {8, 1, MPI_DOUBLE}}, true);
  CHECK(op_check(MPI_SUM, m, &why) == Status::InvalidOp);
  CHECK(op_check(MPI_REPLACE, m, nullptr) == Status::Ok);
  drop(v);
  drop(p);
  drop(m);
}

namespace {
int g_calls = 0;
MPI_Datatype g_seen = MPI_DATATYPE_NULL;
// User layout: vector(2, 1, 3, MPI_INT): ints at 0 and 12 bytes of each element.
void user_minus(void* in, void* inout, int* len, MPI_Datatype* dt) {
  ++g_calls;
  g_seen = *dt;
  const TypeInfo& t = *type_info(*dt);
  for (int i = 0; i < *len; ++i)
    for (const Segment& s : t.segs) {
      auto* a = reinterpret_cast<int*>(static_cast<char*>(in) + i * t.extent + s.off);
      auto* b = reinterpret_cast<int*>(static_cast<char*>(inout) + i * t.extent + s.off);
      *b = *a - *b;  // non-commutative: in - inout
    }
}
}  // namespace

TEST_CASE("user ops: create, apply in the user's layout, free", "[op]") {
  std::size_t base = user_op_count();
  MPI_Op op;
  REQUIRE(op_create(user_minus, nullptr, false, &op) == Status::Ok);
  CHECK_FALSE(op_is_commutative(op));
  CHECK(op_is_commutative(MPI_SUM));
  CHECK(op_check(op, MPI_DOUBLE_INT, nullptr) == Status::Ok);
  MPI_Datatype v = vec(2, 1, 3, MPI_INT);
  // Derived type: the user's layout (ints at 0 and 3 of each 4-int element).
  std::vector<int> pa{10, 0, 0, 20, 30, 0, 0, 40}, pb{1, 7, 7, 2, 3, 7, 7, 4};
  op_apply(op, v, pa.data(), pb.data(), 2);
  CHECK(pb == std::vector<int>{9, 7, 7, 18, 27, 7, 7, 36});
  CHECK(g_seen == v);
  // Predefined pair type: packed in, the user's function sees C structs.
  struct DI {
    double v;
    int i;
  };
  g_seen = MPI_DATATYPE_NULL;
  MPI_Op swap_op;
  REQUIRE(op_create(
              [](void* in, void* inout, int* len, MPI_Datatype*) {
                auto* a = static_cast<DI*>(in);
                auto* b = static_cast<DI*>(inout);
                for (int k = 0; k < *len; ++k) b[k] = {a[k].v + b[k].v, a[k].i};
              },
              nullptr, true, &swap_op) == Status::Ok);
  unsigned char xa[24], xb[24];
  for (int k = 0; k < 2; ++k) {
    double dv = k + 1.5;
    int iv = 7 + k;
    std::memcpy(xa + 12 * k, &dv, 8);
    std::memcpy(xa + 12 * k + 8, &iv, 4);
    dv = 10;
    iv = 0;
    std::memcpy(xb + 12 * k, &dv, 8);
    std::memcpy(xb + 12 * k + 8, &iv, 4);
  }
  op_apply(swap_op, MPI_DOUBLE_INT, xa, xb, 2);
  double d1;
  int i1;
  std::memcpy(&d1, xb + 12, 8);
  std::memcpy(&i1, xb + 20, 4);
  CHECK(d1 == 12.5);
  CHECK(i1 == 8);
  CHECK(op_free(swap_op) == Status::Ok);
  std::vector<int> ca{5, 5}, cb{1, 2};
  op_apply(op, MPI_INT, ca.data(), cb.data(), 2);
  CHECK(cb == std::vector<int>{4, 3});
  CHECK(op_free(MPI_SUM) == Status::InvalidOp);
  op_retain(op);  // a pending collective
  CHECK(op_free(op) == Status::Ok);
  CHECK_FALSE(op_valid(op));
  op_apply(op, MPI_INT, ca.data(), cb.data(), 2);  // still callable while held
  CHECK(cb == std::vector<int>{1, 2});
  op_release(op);
  CHECK(user_op_count() == base);
  CHECK(op_free(op) == Status::InvalidOp);
  drop(v);
}
