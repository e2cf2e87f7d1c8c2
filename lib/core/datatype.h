// Datatypes: one representation for every datatype, predefined or derived.
//
// A type is described by its MPI attributes (size, lb/ub/extent, true lb/extent)
// and by a flattened list of contiguous segments for ONE element, in typemap order
// (offsets relative to the element's start, adjacent segments merged). Element i of
// a user buffer `buf` starts at buf + i * extent.
//
// Wire format ("packed"): count * size bytes, the segments of element 0, then of
// element 1, ... with no gaps. This is what p2p puts on the wire, what MPI_Pack
// produces and what the reduction kernels (core/op.h) consume. Contiguous types
// (one segment per element, extent == size) are their own packed form starting at
// buf + true_lb, so they never need a copy. The pair types (MPI_DOUBLE_INT: size 12,
// extent 16) are NOT contiguous; their packed element is the value then the int.
//
// Handles: predefined types are the ABI's builtin handles (plus MPI_FLOAT_INT ..
// MPI_LONG_DOUBLE_INT, direct handles 0..4). Derived types are direct handles with
// index >= kFirstUserTypeIndex into a chunked table (O(1) lookup, free list).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace chorus {

struct Segment {
  std::ptrdiff_t off;  // from the element's start
  std::size_t len;
};

// `n` basic elements of `size` bytes each, in packed order (for MPI_Get_elements).
struct ElementRun {
  std::size_t size;
  std::size_t n;
  MPI_Datatype type = MPI_DATATYPE_NULL;  // the predefined type of these elements (external32)
};

struct TypeInfo {
  MPI_Datatype handle = MPI_DATATYPE_NULL;
  std::string name;             // MPI_Type_get_name ("" for unnamed derived types)
  std::size_t size = 0;         // MPI_Type_size: bytes of data in one element
  MPI_Aint lb = 0, ub = 0, extent = 0;           // ub - lb
  MPI_Aint true_lb = 0, true_ub = 0, true_extent = 0;
  std::size_t align = 1;        // alignment for MPI_Type_create_struct's padding
  bool sticky = false;          // lb/ub set by MPI_Type_create_resized (no struct padding)
  std::vector<Segment> segs;    // one element, typemap order, adjacent ones merged
  std::size_t uniform_len = 0;  // all segments this long (0: lengths differ / none)
  bool contiguous = true;       // one segment at true_lb, size bytes, extent == size
  std::int64_t elements = 0;    // basic elements per element
  std::vector<ElementRun> runs; // basic elements of one element, packed order
  std::size_t unit = 1;         // gcd of the basic sizes: whole basic elements are a multiple
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // predefined type it reduces as; NULL: mixed
  std::size_t basic_count = 0;  // how many `basic` per element
  bool predefined = false;
  bool committed = false;
  // Lifetime of derived types: the user's handle counts as one reference, as does
  // every derived type built on it and every pending operation that holds it.
  int refs = 1;
  bool user_freed = false;
  // MPI_Type_get_envelope / get_contents.
  int combiner = MPI_COMBINER_NAMED;
  std::vector<MPI_Count> c_ints;     // integer arguments (as MPI_Count)
  std::vector<MPI_Aint> c_aints;     // address arguments
  std::vector<MPI_Datatype> c_types; // datatype arguments (each holds a reference)
  bool c_large = false;              // created through a _c call
};

inline constexpr int kFirstUserTypeIndex = 8;

namespace detail {
// The builtin datatypes by the low byte of their handle, filled when the library
// is loaded (datatype.cc).
struct BuiltinSlot {
  std::uint32_t handle = 0;
  const TypeInfo* info = nullptr;
};
extern BuiltinSlot g_builtin_slots[256];
}  // namespace detail

// A builtin datatype's description (MPI_INT, MPI_DOUBLE, ...: predefined,
// contiguous, never freed) straight from its handle, for the checks on hot
// paths; nullptr for every other handle.
inline const TypeInfo* builtin_type_info(MPI_Datatype t) {
  const auto h = static_cast<std::uint32_t>(t);
  const detail::BuiltinSlot& s = detail::g_builtin_slots[h & 0xffu];
  return s.handle == h ? s.info : nullptr;
}

// nullptr for MPI_DATATYPE_NULL, unknown handles, handles that are not datatypes,
// and derived types the user already freed.
const TypeInfo* type_info(MPI_Datatype t);
// Same, but also finds a derived type the user freed while a reference is held
// (a pending operation that retained it: type_retain).
const TypeInfo* type_lookup_held(MPI_Datatype t);

// True when `count` elements are one contiguous run of count*size bytes starting
// at buf + true_lb (always for contiguous types; also count <= 1 of any type with
// at most one segment).
inline bool type_is_contiguous(const TypeInfo& t, std::size_t count = 2) {
  return t.contiguous || (count <= 1 && t.segs.size() <= 1);
}
// Byte offset from the user's buffer to the data of a contiguous type.
inline std::ptrdiff_t type_data_offset(const TypeInfo& t) { return t.true_lb; }

// Bytes on the wire for `count` elements (the packed size).
inline std::size_t wire_bytes(const TypeInfo& t, std::size_t count) { return count * t.size; }

// MPI_Get_count from received (packed) bytes: MPI_UNDEFINED unless whole elements.
long long count_from_bytes(const TypeInfo& t, std::size_t bytes);
// MPI_Get_elements from received bytes: basic elements, MPI_UNDEFINED when the
// bytes end inside a basic element.
long long elements_from_bytes(const TypeInfo& t, std::size_t bytes);
// Packed bytes that hold `elements` basic elements (MPI_Status_set_elements).
std::size_t bytes_from_elements(const TypeInfo& t, std::size_t elements);

// ---- pack / unpack ---------------------------------------------------------------
// packed: count*size bytes. user: the user's buffer pointer (element i at
// user + i*extent, segment offsets relative to it).
void type_pack(const TypeInfo& t, const void* user, std::size_t count, void* packed);
void type_unpack(const TypeInfo& t, const void* packed, std::size_t count, void* user);
// Unpack the first `bytes` packed bytes (may end inside an element: a truncated or
// short message); the rest of the user buffer is untouched.
void type_unpack_bytes(const TypeInfo& t, const void* packed, std::size_t bytes, void* user);
// Bytes of user memory that `count` elements touch, and where that span starts
// relative to the user's buffer pointer (for staging copies in user layout).
void type_user_span(const TypeInfo& t, std::size_t count, std::ptrdiff_t* start, std::size_t* bytes);

// ---- derived type construction (no commit; refs = 1) -----------------------------
// One block of a constructor: `count` elements of `type`, the first at byte `disp`.
struct TypeBlock {
  MPI_Aint disp;
  MPI_Count count;
  MPI_Datatype type;
};
// Build a derived type from blocks (every constructor reduces to this). `is_struct`
// pads the extent to the largest alignment of the member types, as C does.
// `old`: the constructor's oldtype (every block's type, MPI_DATATYPE_NULL for
// struct, whose envelope lists each block's type). Fails with InvalidType if a
// member type is invalid, InvalidArg on overflow.
// `bounds` (lb, extent), when given, replaces the computed ones, as MPI_Type_create_resized
// does (subarray and darray types span the whole array).
Status type_create(const std::vector<TypeBlock>& blocks, bool is_struct, int combiner,
                   MPI_Datatype* out, std::string* why, MPI_Datatype old = MPI_DATATYPE_NULL,
                   const std::pair<MPI_Aint, MPI_Aint>* bounds = nullptr);
Status type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out,
                           std::string* why);
// MPI_Type_dup (combiner MPI_COMBINER_DUP); with `clone`, an equal new object that
// keeps old's envelope (MPI_Type_get_contents returns such copies).
Status type_dup(MPI_Datatype old, MPI_Datatype* out, std::string* why, bool clone = false);
// Mutable access for the MPI layer (commit, names, envelope); nullptr as type_info.
TypeInfo* type_mutable(MPI_Datatype t);

// Reference counting for derived types (no-ops on predefined ones). A pending
// operation that needs the type after the call returns holds a reference.
void type_retain(const TypeInfo* t);
void type_release(const TypeInfo* t);
// MPI_Type_free: drop the user's reference; the handle becomes invalid at once.
Status type_free(MPI_Datatype t);
// Live derived types (tests: leak checks).
std::size_t user_type_count();

// Name of a datatype for messages: "MPI_INT", or "derived datatype 0x8c000008".
std::string type_label(MPI_Datatype t);

// For iteration in tests and chorus-info.
int builtin_type_count();
MPI_Datatype builtin_type_at(int i);

}  // namespace chorus
