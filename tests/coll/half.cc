// MPIX_C_FLOAT16 and MPIX_BFLOAT16 reductions on host buffers (Chorus extensions):
// Allreduce and Reduce with SUM, PROD, MAX and MIN, out of place and in place, on
// the predefined types and on a contiguous type built from them. Values are small
// multiples of 1/2 (sums) or powers of two (products), exact in both formats, so
// the result does not depend on the order the algorithm combines ranks in.
#include <cstdint>
#include <cstring>
#include <vector>

#include "coll_common.h"

namespace {

// float <-> 16-bit bits, for exactly representable values only.
std::uint16_t to_bits(MPI_Datatype t, float v) {
  if (t == MPIX_BFLOAT16) {
    std::uint32_t x;
    std::memcpy(&x, &v, 4);
    return static_cast<std::uint16_t>(x >> 16);  // exact values: no rounding needed
  }
  _Float16 h = static_cast<_Float16>(v);
  std::uint16_t b;
  std::memcpy(&b, &h, 2);
  return b;
}

float from_bits(MPI_Datatype t, std::uint16_t b) {
  if (t == MPIX_BFLOAT16) {
    std::uint32_t x = static_cast<std::uint32_t>(b) << 16;
    float v;
    std::memcpy(&v, &x, 4);
    return v;
  }
  _Float16 h;
  std::memcpy(&h, &b, 2);
  return static_cast<float>(h);
}

// Rank r's element i.
float input(MPI_Op op, int r, long i) {
  if (op == MPI_PROD) return (i + r) % 3 == 0 ? 2.0f : ((i + r) % 3 == 1 ? 1.0f : 0.5f);
  if (op == MPI_SUM) return static_cast<float>(i % 7) + 0.5f * static_cast<float>(r % 4);
  return static_cast<float>((i * 5 + r * 3) % 11) - 5.0f;  // max, min: negatives too
}

float expected(MPI_Op op, int p, long i) {
  float acc = input(op, 0, i);
  for (int r = 1; r < p; ++r) {
    float v = input(op, r, i);
    if (op == MPI_SUM) acc += v;
    else if (op == MPI_PROD) acc *= v;
    else if (op == MPI_MAX) acc = v > acc ? v : acc;
    else acc = v < acc ? v : acc;
  }
  return acc;
}

bool is_chorus() { return !jobs::quirk_mpich() && !jobs::quirk_openmpi(); }

}  // namespace

TEST_CASE("Allreduce and Reduce on float16 and bfloat16", "[coll][reduction][half]") {
  if (!is_chorus()) return;  // MPIX_BFLOAT16 is Chorus's own
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Datatype types[] = {MPIX_C_FLOAT16, MPIX_BFLOAT16};
  const MPI_Op ops[] = {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN};
  for (MPI_Datatype t : types) {
    int size = 0;
    MPI_OK(MPI_Type_size(t, &size));
    REQUIRE(size == 2);
    // Also through a derived type of 3 elements (counts are in those units).
    MPI_Datatype triple;
    MPI_OK(MPI_Type_contiguous(3, t, &triple));
    MPI_OK(MPI_Type_commit(&triple));
    for (MPI_Op op : ops) {
      for (long n : {0L, 1L, static_cast<long>(p) + 1, 1001L}) {
        for (bool derived : {false, true}) {
          for (bool in_place : {false, true}) {
            const long elems = derived ? 3 * n : n;
            const int count = static_cast<int>(n);
            const MPI_Datatype dt = derived ? triple : t;
            std::vector<std::uint16_t> in(elems + 1), out(elems + 1, 0x7777);
            for (long i = 0; i < elems; ++i) in[i] = to_bits(t, input(op, me, i));
            if (in_place) {
              out = in;
              MPI_OK(MPI_Allreduce(MPI_IN_PLACE, out.data(), count, dt, op, MPI_COMM_WORLD));
            } else {
              MPI_OK(MPI_Allreduce(in.data(), out.data(), count, dt, op, MPI_COMM_WORLD));
            }
            INFO("type " << (t == MPIX_BFLOAT16 ? "bf16" : "f16") << " n " << n << " derived "
                         << derived << " in_place " << in_place);
            for (long i = 0; i < elems; ++i) {
              INFO("element " << i);
              REQUIRE(from_bits(t, out[i]) == expected(op, p, i));
            }
            REQUIRE(out[elems] == (in_place ? in[elems] : 0x7777));  // past the end untouched

            // Reduce to the last rank.
            std::vector<std::uint16_t> red(elems + 1, 0x7777);
            MPI_OK(MPI_Reduce(in.data(), red.data(), count, dt, op, p - 1, MPI_COMM_WORLD));
            if (me == p - 1)
              for (long i = 0; i < elems; ++i) REQUIRE(from_bits(t, red[i]) == expected(op, p, i));
          }
        }
      }
    }
    MPI_OK(MPI_Type_free(&triple));
  }
}

TEST_CASE("float16 reductions round to nearest even", "[coll][reduction][half]") {
  if (!is_chorus()) return;
  // 1 + 2^-11 is half-way between two float16 values: SUM of 1 and 2^-11 gives 1.
  // With 1 + 3 * 2^-11 it rounds up to 1 + 2^-9. Each rank checks locally.
  std::uint16_t in[2] = {to_bits(MPIX_C_FLOAT16, 0x1p-11f), to_bits(MPIX_C_FLOAT16, 0x1p-11f)};
  std::uint16_t io[2] = {to_bits(MPIX_C_FLOAT16, 1.0f), to_bits(MPIX_C_FLOAT16, 1.0f + 0x1p-10f)};
  MPI_OK(MPI_Reduce_local(in, io, 2, MPIX_C_FLOAT16, MPI_SUM));
  REQUIRE(from_bits(MPIX_C_FLOAT16, io[0]) == 1.0f);
  REQUIRE(from_bits(MPIX_C_FLOAT16, io[1]) == 1.0f + 0x1p-9f);
  // bfloat16: 1 + 2^-8 is half-way (7 mantissa bits): ties to even gives 1.
  std::uint16_t bin = to_bits(MPIX_BFLOAT16, 0x1p-8f), bio = to_bits(MPIX_BFLOAT16, 1.0f);
  MPI_OK(MPI_Reduce_local(&bin, &bio, 1, MPIX_BFLOAT16, MPI_SUM));
  REQUIRE(from_bits(MPIX_BFLOAT16, bio) == 1.0f);
}
