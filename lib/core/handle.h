// MPICH-ABI integer handles. Bits 31-30 say how the object is found, bits 29-26
// what it is, the low 26 bits where:
//
//   31 30 29      26 25                                     0
//  +-----+----------+----------------------------------------+
//  |kind | object   | index (builtin: per-object meaning)     |
//  +-----+----------+----------------------------------------+
//  kind: 0 invalid (the *_NULL handles), 1 builtin (static objects),
//        2 direct (index into a per-kind table), 3 indirect (unused by Chorus)
//
// Built-in datatypes also carry their size in bytes in bits 15-8
// (MPI_INT = 0x4c000405: builtin, datatype, size 4, index 5).
#pragma once
#include <cstdint>

namespace chorus::handle {

enum Kind : unsigned { Invalid = 0, Builtin = 1, Direct = 2, Indirect = 3 };

enum Object : unsigned {
  Comm = 0x1,
  Group = 0x2,
  Datatype = 0x3,
  File = 0x4,
  Errhandler = 0x5,
  Op = 0x6,
  Info = 0x7,
  Win = 0x8,
  Keyval = 0x9,
  Attr = 0xa,
  Request = 0xb,
  Session = 0xe,
};

constexpr unsigned kind(int h) { return (static_cast<std::uint32_t>(h) >> 30) & 0x3u; }
constexpr unsigned object(int h) { return (static_cast<std::uint32_t>(h) >> 26) & 0xfu; }
constexpr int index(int h) { return static_cast<int>(static_cast<std::uint32_t>(h) & 0x03ffffffu); }
constexpr int make(Kind k, Object o, int idx) {
  return static_cast<int>((static_cast<std::uint32_t>(k) << 30) | (static_cast<std::uint32_t>(o) << 26) |
                          (static_cast<std::uint32_t>(idx) & 0x03ffffffu));
}
constexpr bool is(int h, Kind k, Object o) { return kind(h) == k && object(h) == o; }

static_assert(make(Builtin, Comm, 0) == 0x44000000, "MPI_COMM_WORLD encoding");
static_assert(make(Invalid, Request, 0) == 0x2c000000, "MPI_REQUEST_NULL encoding");
static_assert(make(Builtin, Datatype, 0x405) == 0x4c000405, "MPI_INT encoding");

}  // namespace chorus::handle
