#include "core/datatype.h"

#include <algorithm>
#include <cstddef>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <numeric>
#include <type_traits>

#include <fmt/format.h>

#include "core/handle.h"

namespace chorus {

detail::BuiltinSlot detail::g_builtin_slots[256];

namespace {

template <typename A, typename B>
struct Pair {
  A a;
  B b;
};

// ---- predefined types ----------------------------------------------------------

void finish(TypeInfo& t);

TypeInfo simple(MPI_Datatype h, const char* name, std::size_t size, std::size_t align) {
  TypeInfo t;
  t.handle = h;
  t.name = name;
  t.size = size;
  t.ub = t.extent = static_cast<MPI_Aint>(size);
  t.align = align;
  if (size) t.segs.push_back({0, size});
  t.elements = 1;
  t.runs.push_back({size, 1, h});
  t.basic = h;
  t.basic_count = 1;
  t.predefined = true;
  t.committed = true;
  finish(t);
  return t;
}

TypeInfo marker(MPI_Datatype h, const char* name) {
  TypeInfo t;
  t.handle = h;
  t.name = name;
  t.predefined = true;
  t.committed = true;
  finish(t);
  return t;
}

// The predefined type of a pair type's member (for its element runs).
template <typename T>
constexpr MPI_Datatype mpi_type_of() {
  if constexpr (std::is_same_v<T, int>) return MPI_INT;
  else if constexpr (std::is_same_v<T, float>) return MPI_FLOAT;
  else if constexpr (std::is_same_v<T, double>) return MPI_DOUBLE;
  else if constexpr (std::is_same_v<T, long>) return MPI_LONG;
  else if constexpr (std::is_same_v<T, short>) return MPI_SHORT;
  else return MPI_LONG_DOUBLE;
}

template <typename A, typename B>
TypeInfo pair(MPI_Datatype h, const char* name) {
  TypeInfo t;
  t.handle = h;
  t.name = name;
  t.size = sizeof(A) + sizeof(B);
  t.ub = t.extent = static_cast<MPI_Aint>(sizeof(Pair<A, B>));
  t.align = alignof(Pair<A, B>);
  t.segs.push_back({0, sizeof(A)});
  using P = Pair<A, B>;
  auto off_b = static_cast<std::ptrdiff_t>(offsetof(P, b));
  if (off_b == static_cast<std::ptrdiff_t>(sizeof(A)))
    t.segs[0].len += sizeof(B);
  else
    t.segs.push_back({off_b, sizeof(B)});
  t.elements = 2;
  if (std::is_same_v<A, B>)
    t.runs.push_back({sizeof(A), 2, mpi_type_of<A>()});
  else
    t.runs = {{sizeof(A), 1, mpi_type_of<A>()}, {sizeof(B), 1, mpi_type_of<B>()}};
  t.basic = h;
  t.basic_count = 1;
  t.predefined = true;
  t.committed = true;
  finish(t);
  return t;
}

// Derived attributes from size, lb/ub and segments.
void finish(TypeInfo& t) {
  t.extent = t.ub - t.lb;
  if (t.segs.empty()) {
    t.true_lb = t.true_ub = 0;
  } else {
    t.true_lb = t.segs[0].off;
    t.true_ub = t.segs[0].off + static_cast<MPI_Aint>(t.segs[0].len);
    for (const Segment& s : t.segs) {
      t.true_lb = std::min(t.true_lb, s.off);
      t.true_ub = std::max(t.true_ub, s.off + static_cast<MPI_Aint>(s.len));
    }
  }
  t.true_extent = t.true_ub - t.true_lb;
  t.uniform_len = t.segs.empty() ? 0 : t.segs[0].len;
  for (const Segment& s : t.segs)
    if (s.len != t.uniform_len) {
      t.uniform_len = 0;
      break;
    }
  t.contiguous = t.size == 0 || (t.segs.size() == 1 && t.segs[0].len == t.size &&
                                 t.extent == static_cast<MPI_Aint>(t.size));
  t.unit = 0;
  for (const ElementRun& r : t.runs)
    if (r.n && r.size) t.unit = std::gcd(t.unit, r.size);
  if (t.unit == 0) t.unit = 1;
}

#define SIMPLE(h, ctype) simple(h, #h, sizeof(ctype), alignof(ctype))
#define PAIR(h, A, B) pair<A, B>(h, #h)

struct Registry {
  std::vector<TypeInfo> builtins;
  TypeInfo* by_low_byte[256] = {};
  std::uint32_t handle_of[256] = {};
  TypeInfo* pairs[8] = {};

  Registry() {
    builtins = {
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
        // MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one handle; MPI_Type_get_name
        // gives the first name, as MPICH does.
        simple(MPI_C_FLOAT_COMPLEX, "MPI_C_COMPLEX", sizeof(std::complex<float>), alignof(std::complex<float>)),
        SIMPLE(MPI_C_DOUBLE_COMPLEX, std::complex<double>),
        SIMPLE(MPI_C_LONG_DOUBLE_COMPLEX, std::complex<long double>),
        SIMPLE(MPI_AINT, MPI_Aint),
        SIMPLE(MPI_OFFSET, MPI_Offset),
        SIMPLE(MPI_COUNT, MPI_Count),
        SIMPLE(MPI_CXX_BOOL, bool),
        SIMPLE(MPI_CXX_FLOAT_COMPLEX, std::complex<float>),
        SIMPLE(MPI_CXX_DOUBLE_COMPLEX, std::complex<double>),
        SIMPLE(MPI_CXX_LONG_DOUBLE_COMPLEX, std::complex<long double>),
        // 16-bit floating types, kept as raw bits (core/half.h; kernels in core/op.cc).
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
        // MPI-1's bound markers (removed in MPI-3, still in MPICH's ABI): only
        // MPI_Type_struct & co. read them (type_create).
        marker(MPI_LB, "MPI_LB"),
        marker(MPI_UB, "MPI_UB"),
    };
    for (TypeInfo& t : builtins) {
      int h = static_cast<int>(t.handle);
      if (handle::kind(h) == handle::Builtin) {
        by_low_byte[h & 0xff] = &t;
        handle_of[h & 0xff] = static_cast<std::uint32_t>(h);
      } else {
        pairs[handle::index(h) & 7] = &t;
      }
    }
  }
};
#undef SIMPLE
#undef PAIR

Registry& registry() {
  static Registry r;
  return r;
}

// builtin_type_info's table, filled as the library loads. A lookup before that
// (another file's static initializer) finds nothing: callers then take the
// general lookup, so the table is only ever a shortcut.
[[maybe_unused]] const bool g_builtins_filled = [] {
  const Registry& r = registry();
  for (int i = 0; i < 256; ++i)
    if (r.by_low_byte[i]) detail::g_builtin_slots[i] = {r.handle_of[i], r.by_low_byte[i]};
  return true;
}();

// ---- derived types: chunked table, O(1) from handle --------------------------------
// Chunk pointers live in a fixed array, so a lookup never races with growth.
class TypeTable {
 public:
  static constexpr int kChunk = 256;
  static constexpr int kMaxChunks = 16384;  // 4M live derived types

  std::mutex mu;  // guards add/remove and reference counts

  int add(std::unique_ptr<TypeInfo> t) {
    int slot;
    if (!free_.empty()) {
      slot = free_.back();
      free_.pop_back();
    } else {
      if (next_ >= kChunk * kMaxChunks) return -1;
      slot = next_++;
      if (!chunks_[slot / kChunk]) chunks_[slot / kChunk] = std::make_unique<Entry[]>(kChunk);
    }
    int idx = slot + kFirstUserTypeIndex;
    t->handle = static_cast<MPI_Datatype>(handle::make(handle::Direct, handle::Datatype, idx));
    chunks_[slot / kChunk][slot % kChunk].obj = std::move(t);
    ++live_;
    return idx;
  }
  TypeInfo* get(int idx) const {
    int slot = idx - kFirstUserTypeIndex;
    if (slot < 0 || slot >= next_) return nullptr;
    const auto& chunk = chunks_[slot / kChunk];
    return chunk ? chunk[slot % kChunk].obj.get() : nullptr;
  }
  // Returns the object so the caller can release what it references.
  std::unique_ptr<TypeInfo> remove(int idx) {
    int slot = idx - kFirstUserTypeIndex;
    std::unique_ptr<TypeInfo> t = std::move(chunks_[slot / kChunk][slot % kChunk].obj);
    free_.push_back(slot);
    --live_;
    return t;
  }
  std::size_t live() const { return live_; }

 private:
  struct Entry {
    std::unique_ptr<TypeInfo> obj;
  };
  std::unique_ptr<Entry[]> chunks_[kMaxChunks];
  std::vector<int> free_;
  int next_ = 0;
  std::size_t live_ = 0;
};

TypeTable& table() {
  static TypeTable* t = new TypeTable;  // never destroyed: types may outlive main's statics
  return *t;
}

TypeInfo* lookup_any(MPI_Datatype t) {
  int h = static_cast<int>(t);
  if (handle::object(h) != handle::Datatype) return nullptr;
  if (handle::kind(h) == handle::Builtin) {
    Registry& r = registry();
    if (r.handle_of[h & 0xff] != static_cast<std::uint32_t>(h)) return nullptr;
    return r.by_low_byte[h & 0xff];
  }
  if (handle::kind(h) != handle::Direct) return nullptr;
  int idx = handle::index(h);
  if (idx < 5) return registry().pairs[idx];
  return table().get(idx);
}

constexpr std::size_t kMaxSegments = std::size_t{64} << 20;

// Appends a segment, merging with the previous one when adjacent.
inline void add_seg(std::vector<Segment>& segs, std::ptrdiff_t off, std::size_t len) {
  if (len == 0) return;
  if (!segs.empty() && segs.back().off + static_cast<std::ptrdiff_t>(segs.back().len) == off) {
    segs.back().len += len;
    return;
  }
  segs.push_back({off, len});
}

inline void add_run(std::vector<ElementRun>& runs, const ElementRun& r, std::size_t n) {
  if (n == 0) return;
  if (!runs.empty() && runs.back().size == r.size && runs.back().type == r.type) {
    runs.back().n += n;
    return;
  }
  runs.push_back({r.size, n, r.type});
}

void release_locked(TypeInfo* t, std::vector<std::unique_ptr<TypeInfo>>& dead);

// Drop one reference with the table lock held; collect objects to destroy.
void unref_locked(TypeInfo* t, std::vector<std::unique_ptr<TypeInfo>>& dead) {
  if (!t || t->predefined) return;
  if (--t->refs > 0) return;
  release_locked(t, dead);
}

void release_locked(TypeInfo* t, std::vector<std::unique_ptr<TypeInfo>>& dead) {
  std::unique_ptr<TypeInfo> obj = table().remove(handle::index(static_cast<int>(t->handle)));
  for (MPI_Datatype inner : obj->c_types) unref_locked(lookup_any(inner), dead);
  dead.push_back(std::move(obj));
}

Status add_to_table(std::unique_ptr<TypeInfo> t, MPI_Datatype* out, std::string* why) {
  TypeTable& tab = table();
  std::lock_guard<std::mutex> lock(tab.mu);
  for (MPI_Datatype inner : t->c_types) {
    TypeInfo* ti = lookup_any(inner);
    if (ti && !ti->predefined) ++ti->refs;
  }
  std::vector<MPI_Datatype> held = t->c_types;
  int idx = tab.add(std::move(t));
  if (idx < 0) {
    std::vector<std::unique_ptr<TypeInfo>> dead;
    for (MPI_Datatype inner : held) unref_locked(lookup_any(inner), dead);
    if (why) *why = "too many derived datatypes are alive";
    return Status::NoMem;
  }
  *out = static_cast<MPI_Datatype>(handle::make(handle::Direct, handle::Datatype, idx));
  return Status::Ok;
}

bool mul_overflows(MPI_Count a, MPI_Aint b, MPI_Aint* out) {
  return __builtin_mul_overflow(a, b, out);
}

// ---- pack / unpack walkers ---------------------------------------------------------

template <bool kPack, std::size_t L>
void walk_segs(const TypeInfo& t, std::byte* user, std::byte* packed, std::size_t count) {
  const Segment* s = t.segs.data();
  const std::size_t ns = t.segs.size();
  const std::ptrdiff_t ext = t.extent;
  for (std::size_t i = 0; i < count; ++i) {
    std::byte* base = user + static_cast<std::ptrdiff_t>(i) * ext;
    for (std::size_t k = 0; k < ns; ++k) {
      const std::size_t len = L ? L : s[k].len;
      if constexpr (kPack)
        std::memcpy(packed, base + s[k].off, len);
      else
        std::memcpy(base + s[k].off, packed, len);
      packed += len;
    }
  }
}

template <bool kPack>
void walk(const TypeInfo& t, std::byte* user, std::byte* packed, std::size_t count) {
  if (t.size == 0 || count == 0) return;
  if (type_is_contiguous(t, count)) {
    if constexpr (kPack)
      std::memcpy(packed, user + t.true_lb, count * t.size);
    else
      std::memcpy(user + t.true_lb, packed, count * t.size);
    return;
  }
  // Fixed-length copies compile to plain loads and stores.
  switch (t.uniform_len) {
    case 1: return walk_segs<kPack, 1>(t, user, packed, count);
    case 2: return walk_segs<kPack, 2>(t, user, packed, count);
    case 4: return walk_segs<kPack, 4>(t, user, packed, count);
    case 8: return walk_segs<kPack, 8>(t, user, packed, count);
    case 16: return walk_segs<kPack, 16>(t, user, packed, count);
    default: return walk_segs<kPack, 0>(t, user, packed, count);
  }
}

}  // namespace

// ---- lookup -------------------------------------------------------------------------

const TypeInfo* type_info(MPI_Datatype t) {
  if (const TypeInfo* b = builtin_type_info(t)) return b;  // the hot case, without the registry's guard
  const TypeInfo* ti = lookup_any(t);
  return ti && !ti->user_freed ? ti : nullptr;
}

const TypeInfo* type_lookup_held(MPI_Datatype t) {
  if (const TypeInfo* b = builtin_type_info(t)) return b;
  return lookup_any(t);
}

TypeInfo* type_mutable(MPI_Datatype t) {
  TypeInfo* ti = lookup_any(t);
  return ti && !ti->user_freed ? ti : nullptr;
}

std::string type_label(MPI_Datatype t) {
  const TypeInfo* ti = lookup_any(t);
  if (t == MPI_DATATYPE_NULL) return "MPI_DATATYPE_NULL";
  if (ti && ti->predefined) return ti->name;
  if (ti && !ti->name.empty())
    return fmt::format("derived datatype 0x{:x} ({})", static_cast<unsigned>(t), ti->name);
  return fmt::format("derived datatype 0x{:x}", static_cast<unsigned>(t));
}

// ---- counts ---------------------------------------------------------------------------

long long count_from_bytes(const TypeInfo& t, std::size_t bytes) {
  if (t.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  if (bytes % t.size != 0) return MPI_UNDEFINED;
  return static_cast<long long>(bytes / t.size);
}

long long elements_from_bytes(const TypeInfo& t, std::size_t bytes) {
  if (t.size == 0) return bytes == 0 ? 0 : MPI_UNDEFINED;
  long long elems = static_cast<long long>(bytes / t.size) * t.elements;
  std::size_t rest = bytes % t.size;
  for (const ElementRun& r : t.runs) {
    if (rest == 0) break;
    if (rest >= r.size * r.n) {
      elems += static_cast<long long>(r.n);
      rest -= r.size * r.n;
    } else {
      elems += static_cast<long long>(rest / r.size);
      rest %= r.size;
      break;
    }
  }
  return rest == 0 ? elems : MPI_UNDEFINED;
}

std::size_t bytes_from_elements(const TypeInfo& t, std::size_t elements) {
  if (t.elements <= 0) return 0;
  auto per = static_cast<std::size_t>(t.elements);
  std::size_t bytes = (elements / per) * t.size;
  std::size_t rest = elements % per;
  for (const ElementRun& r : t.runs) {
    if (rest == 0) break;
    std::size_t n = std::min(rest, r.n);
    bytes += n * r.size;
    rest -= n;
  }
  return bytes;
}

// ---- pack / unpack -------------------------------------------------------------------

void type_pack(const TypeInfo& t, const void* user, std::size_t count, void* packed) {
  walk<true>(t, static_cast<std::byte*>(const_cast<void*>(user)), static_cast<std::byte*>(packed),
             count);
}

void type_unpack(const TypeInfo& t, const void* packed, std::size_t count, void* user) {
  walk<false>(t, static_cast<std::byte*>(user),
              static_cast<std::byte*>(const_cast<void*>(packed)), count);
}

void type_unpack_bytes(const TypeInfo& t, const void* packed, std::size_t bytes, void* user) {
  if (t.size == 0) return;
  std::size_t full = bytes / t.size, rest = bytes % t.size;
  type_unpack(t, packed, full, user);
  if (rest == 0) return;
  auto* base = static_cast<std::byte*>(user) + static_cast<std::ptrdiff_t>(full) * t.extent;
  auto* src = static_cast<const std::byte*>(packed) + full * t.size;
  for (const Segment& s : t.segs) {
    std::size_t n = std::min(rest, s.len);
    std::memcpy(base + s.off, src, n);
    src += n;
    rest -= n;
    if (rest == 0) break;
  }
}

void type_user_span(const TypeInfo& t, std::size_t count, std::ptrdiff_t* start, std::size_t* bytes) {
  if (count == 0 || t.size == 0) {
    *start = 0;
    *bytes = 0;
    return;
  }
  std::ptrdiff_t reach = static_cast<std::ptrdiff_t>(count - 1) * t.extent;
  std::ptrdiff_t lo = t.true_lb + std::min<std::ptrdiff_t>(0, reach);
  std::ptrdiff_t hi = t.true_ub + std::max<std::ptrdiff_t>(0, reach);
  *start = lo;
  *bytes = static_cast<std::size_t>(hi - lo);
}

// ---- construction --------------------------------------------------------------------

Status type_create(const std::vector<TypeBlock>& blocks, bool is_struct, int combiner,
                   MPI_Datatype* out, std::string* why, MPI_Datatype old,
                   const std::pair<MPI_Aint, MPI_Aint>* bounds) {
  auto t = std::make_unique<TypeInfo>();
  t->combiner = combiner;
  t->refs = 1;
  bool any = false, basic_set = false, mixed = false;
  MPI_Aint lb = 0, ub = 0;
  // MPI_LB / MPI_UB blocks: explicit bounds (the lowest MPI_LB, the highest MPI_UB).
  bool has_lbm = false, has_ubm = false;
  MPI_Aint lbm = 0, ubm = 0;
  for (std::size_t b = 0; b < blocks.size(); ++b) {
    const TypeBlock& blk = blocks[b];
    if (blk.type == MPI_LB || blk.type == MPI_UB) {
      if (blk.type == MPI_LB) {
        lbm = has_lbm ? std::min(lbm, blk.disp) : blk.disp;
        has_lbm = true;
      } else {
        ubm = has_ubm ? std::max(ubm, blk.disp) : blk.disp;
        has_ubm = true;
      }
      t->sticky = true;
      continue;
    }
    const TypeInfo* o = type_info(blk.type);
    if (!o) {
      if (why) *why = fmt::format("type {} is not a valid datatype", type_label(blk.type));
      return Status::InvalidType;
    }
    if (blk.count < 0) {
      if (why) *why = fmt::format("block {} has a negative count {}", b, blk.count);
      return Status::InvalidCount;
    }
    t->align = std::max(t->align, o->align);
    t->sticky |= o->sticky;
    if (o->basic == MPI_DATATYPE_NULL || (basic_set && o->basic != t->basic)) mixed = true;
    if (!basic_set) {
      t->basic = o->basic;
      basic_set = true;
    }
    if (blk.count == 0) continue;
    MPI_Aint span, bytes;
    if (mul_overflows(blk.count - 1, o->extent, &span) ||
        mul_overflows(blk.count, static_cast<MPI_Aint>(o->size), &bytes)) {
      if (why) *why = fmt::format("block {} ({} elements) overflows the address range", b, blk.count);
      return Status::InvalidArg;
    }
    MPI_Aint blo = blk.disp + o->lb + std::min<MPI_Aint>(0, span);
    MPI_Aint bhi = blk.disp + o->ub + std::max<MPI_Aint>(0, span);
    if (!any) {
      lb = blo;
      ub = bhi;
      any = true;
    } else {
      lb = std::min(lb, blo);
      ub = std::max(ub, bhi);
    }
    auto n = static_cast<std::size_t>(blk.count);
    t->size += static_cast<std::size_t>(bytes);
    t->elements += static_cast<std::int64_t>(n) * o->elements;
    t->basic_count += n * o->basic_count;
    // Segments: one merged run when the old type is dense, else one copy per element.
    if (o->segs.size() == 1 && static_cast<MPI_Aint>(o->segs[0].len) == o->extent) {
      add_seg(t->segs, blk.disp + o->segs[0].off, n * o->segs[0].len);
    } else if (!o->segs.empty()) {
      if (t->segs.size() + n * o->segs.size() > kMaxSegments) {
        if (why) *why = fmt::format("the type would have more than {} non-contiguous pieces", kMaxSegments);
        return Status::NoMem;
      }
      for (std::size_t j = 0; j < n; ++j) {
        std::ptrdiff_t base = blk.disp + static_cast<std::ptrdiff_t>(j) * o->extent;
        for (const Segment& s : o->segs) add_seg(t->segs, base + s.off, s.len);
      }
    }
    // (A type of no elements adds none, whatever the count: MPI_Send_c of 3 x INT_MAX
    // empty elements walked 6 billion of them, 40 s.)
    if (o->runs.size() == 1) {
      add_run(t->runs, o->runs[0], n * o->runs[0].n);
    } else if (!o->runs.empty()) {
      for (std::size_t j = 0; j < n; ++j)
        for (const ElementRun& r : o->runs) add_run(t->runs, r, r.n);
    }
  }
  if (mixed) {
    t->basic = MPI_DATATYPE_NULL;
    t->basic_count = 0;
  }
  t->lb = has_lbm ? lbm : lb;
  t->ub = has_ubm ? ubm : ub;
  // C struct padding: the extent rounds up to the strictest member alignment.
  if (is_struct && !t->sticky && t->align > 1) {
    auto a = static_cast<MPI_Aint>(t->align);
    MPI_Aint ext = t->ub - t->lb;
    if (ext % a) t->ub += a - ext % a;
  }
  if (bounds) {
    t->lb = bounds->first;
    t->ub = bounds->first + bounds->second;
    t->sticky = true;
  }
  finish(*t);
  if (old != MPI_DATATYPE_NULL)
    t->c_types = {old};
  else
    for (const TypeBlock& blk : blocks) t->c_types.push_back(blk.type);
  return add_to_table(std::move(t), out, why);
}

Status type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent, MPI_Datatype* out,
                           std::string* why) {
  const TypeInfo* o = type_info(old);
  if (!o) {
    if (why) *why = fmt::format("{} is not a valid datatype", type_label(old));
    return Status::InvalidType;
  }
  auto t = std::make_unique<TypeInfo>(*o);
  t->name.clear();
  t->predefined = false;
  t->committed = false;
  t->user_freed = false;
  t->refs = 1;
  t->lb = lb;
  t->ub = lb + extent;
  t->sticky = true;
  t->combiner = MPI_COMBINER_RESIZED;
  t->c_ints.clear();
  t->c_aints = {lb, extent};
  t->c_types = {old};
  t->c_large = false;
  finish(*t);
  return add_to_table(std::move(t), out, why);
}

Status type_dup(MPI_Datatype old, MPI_Datatype* out, std::string* why, bool clone) {
  const TypeInfo* o = type_info(old);
  if (!o) {
    if (why) *why = fmt::format("{} is not a valid datatype", type_label(old));
    return Status::InvalidType;
  }
  auto t = std::make_unique<TypeInfo>(*o);
  t->name.clear();
  t->predefined = false;
  t->committed = o->committed;
  t->user_freed = false;
  t->refs = 1;
  if (!clone) {
    t->combiner = MPI_COMBINER_DUP;
    t->c_ints.clear();
    t->c_aints.clear();
    t->c_types = {old};
    t->c_large = false;
  }
  return add_to_table(std::move(t), out, why);
}

// ---- lifetime -----------------------------------------------------------------------

void type_retain(const TypeInfo* t) {
  if (!t || t->predefined) return;
  std::lock_guard<std::mutex> lock(table().mu);
  ++const_cast<TypeInfo*>(t)->refs;
}

void type_release(const TypeInfo* t) {
  if (!t || t->predefined) return;
  std::vector<std::unique_ptr<TypeInfo>> dead;
  {
    std::lock_guard<std::mutex> lock(table().mu);
    unref_locked(const_cast<TypeInfo*>(t), dead);
  }
}

Status type_free(MPI_Datatype h) {
  TypeInfo* t = type_mutable(h);
  if (!t) return Status::InvalidType;
  if (t->predefined) return Status::InvalidType;
  t->user_freed = true;
  type_release(t);
  return Status::Ok;
}

std::size_t user_type_count() {
  std::lock_guard<std::mutex> lock(table().mu);
  return table().live();
}

int builtin_type_count() { return static_cast<int>(registry().builtins.size()); }
MPI_Datatype builtin_type_at(int i) { return registry().builtins[static_cast<std::size_t>(i)].handle; }

}  // namespace chorus
