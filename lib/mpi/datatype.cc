// Datatype calls: constructors, commit/free, queries, names, envelopes, pack/unpack,
// counts from statuses; and the staging of non-contiguous p2p buffers.
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "core/handle.h"
#include "gpu/gpu.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {

// ---- staging for non-contiguous p2p (used by mpi/p2p.cc and mpi/requests.cc) -------
// A request whose type is not contiguous carries a packed staging buffer in
// Request::ext: sends pack into it when they start, receives land in it and are
// unpacked into the user's buffer when the request completes. The request holds a
// reference on the type, so MPI_Type_free after the call is safe.
namespace {

struct Staging {
  std::vector<std::byte> packed;
  void* device_packed = nullptr;  // device buffers: packed on the GPU, in device memory
  std::size_t bytes = 0;
  const TypeInfo* type = nullptr;
  void* user = nullptr;
  std::size_t count = 0;
};

void staging_free(void* p) {
  auto* s = static_cast<Staging*>(p);
  type_release(s->type);
  if (s->device_packed) gpu::device_free(s->device_packed);
  delete s;
}

Staging* staging_of(Request* r) {
  return r->ext_free == staging_free ? static_cast<Staging*>(r->ext) : nullptr;
}

}  // namespace

Status stage_attach(Request* r, const TypeInfo* ti, void* user, std::size_t count) {
  auto s = std::make_unique<Staging>();
  s->bytes = wire_bytes(*ti, count);
  if (count && gpu::on_device(static_cast<std::byte*>(user) + ti->true_lb)) {
    Status st = gpu::device_alloc(s->bytes ? s->bytes : 1, &s->device_packed);
    if (!ok(st)) return st;
  } else {
    s->packed.resize(s->bytes);
  }
  s->type = ti;
  s->user = user;
  s->count = count;
  type_retain(ti);
  r->buf = s->device_packed ? s->device_packed : s->packed.data();
  r->ext = s.release();
  r->ext_free = staging_free;
  return Status::Ok;
}

Status stage_pack(Request* r) {
  Staging* s = staging_of(r);
  if (!s) return Status::Ok;
  if (s->device_packed) return gpu::pack(*s->type, s->user, s->count, s->device_packed);
  type_pack(*s->type, s->user, s->count, s->packed.data());
  return Status::Ok;
}

Status stage_unpack(Request* r) {
  Staging* s = staging_of(r);
  if (!s || r->cancelled) return Status::Ok;
  std::size_t got = std::min(r->bytes, s->bytes);
  // On the device whole elements are unpacked (a truncated message's partial last
  // element is dropped; MPI leaves its contents undefined).
  if (s->device_packed)
    return s->type->size ? gpu::unpack(*s->type, s->device_packed, got / s->type->size, s->user) : Status::Ok;
  type_unpack_bytes(*s->type, s->packed.data(), got, s->user);
  return Status::Ok;
}

// Datatype check of data-moving calls: valid and committed.
int check_data_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out) {
  CHORUS_TRY_MPI(check_type(call, c, t, out));
  if (!(*out)->committed)
    return fail(c, MPI_ERR_TYPE, "{}: datatype 0x{:x} is not committed (call MPI_Type_commit first)",
                call, static_cast<unsigned>(t));
  return MPI_SUCCESS;
}

// Datatype attributes (MPI_Type_set_attr & co.), by handle: predefined types take
// them too. A derived type's go when the user frees it.
struct TypeAttrs {
  std::map<int, void*> attrs;
  std::vector<int> order;
};
std::map<MPI_Datatype, TypeAttrs>& type_attrs() {
  static std::map<MPI_Datatype, TypeAttrs> m;
  return m;
}

RaiseFn type_raiser() {
  return [](int code) { return raise(nullptr, code); };
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

namespace {

int type_status(Status s, const char* call, const std::string& why) {
  return fail(nullptr, to_mpi_class(s), "{}: {}", call, why);
}

int check_newtype(const char* call, MPI_Datatype* newtype) {
  if (!newtype) return fail(nullptr, MPI_ERR_ARG, "{}: newtype is NULL", call);
  return MPI_SUCCESS;
}

template <typename C>
int check_nonneg(const char* call, const char* arg, C v) {
  if (v < 0)
    return fail(nullptr, MPI_ERR_COUNT, "{}: {} is {}, must be non-negative", call, arg,
                static_cast<long long>(v));
  return MPI_SUCCESS;
}

template <typename P>
int check_array(const char* call, const char* arg, const P* p, long long count) {
  if (count > 0 && !p) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL with count {}", call, arg, count);
  return MPI_SUCCESS;
}

// Common tail of every constructor: build, record the envelope, return the handle.
int build(const char* call, const std::vector<TypeBlock>& blocks, MPI_Datatype old, int combiner,
          std::vector<MPI_Count> ints, std::vector<MPI_Aint> aints, bool large,
          MPI_Datatype* newtype, const std::pair<MPI_Aint, MPI_Aint>* bounds = nullptr) {
  p2p::ApiLock lock;
  std::string why;
  MPI_Datatype h;
  bool is_struct = combiner == MPI_COMBINER_STRUCT;
  Status s = type_create(blocks, is_struct, combiner, &h, &why, old, bounds);
  if (!ok(s)) return type_status(s, call, why);
  TypeInfo* t = type_mutable(h);
  t->c_ints = std::move(ints);
  t->c_aints = std::move(aints);
  t->c_large = large;
  *newtype = h;
  return MPI_SUCCESS;
}

template <typename C>
int contiguous(const char* call, C count, MPI_Datatype old, MPI_Datatype* newtype, bool large) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_nonneg(call, "count", count));
  CHORUS_TRY_MPI(check_type(call, nullptr, old, &o, "oldtype"));
  return build(call, {{0, static_cast<MPI_Count>(count), old}}, old, MPI_COMBINER_CONTIGUOUS,
               {static_cast<MPI_Count>(count)}, {}, large, newtype);
}

// vector (stride in elements of oldtype) and hvector (stride in bytes).
template <typename C, typename S>
int vector(const char* call, C count, C blocklength, S stride, bool bytes, MPI_Datatype old,
           MPI_Datatype* newtype, bool large) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_nonneg(call, "count", count));
  CHORUS_TRY_MPI(check_nonneg(call, "blocklength", blocklength));
  CHORUS_TRY_MPI(check_type(call, nullptr, old, &o, "oldtype"));
  MPI_Aint step = bytes ? static_cast<MPI_Aint>(stride) : static_cast<MPI_Aint>(stride) * o->extent;
  std::vector<TypeBlock> blocks(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < blocks.size(); ++i)
    blocks[i] = {static_cast<MPI_Aint>(i) * step, static_cast<MPI_Count>(blocklength), old};
  if (bytes)
    return build(call, blocks, old, MPI_COMBINER_HVECTOR,
                 {static_cast<MPI_Count>(count), static_cast<MPI_Count>(blocklength)},
                 {static_cast<MPI_Aint>(stride)}, large, newtype);
  return build(call, blocks, old, MPI_COMBINER_VECTOR,
               {static_cast<MPI_Count>(count), static_cast<MPI_Count>(blocklength),
                static_cast<MPI_Count>(stride)},
               {}, large, newtype);
}

// indexed (displacements in elements) and hindexed (bytes); `bl` null: block variant.
template <typename C, typename D>
int indexed(const char* call, C count, const C* bls, C bl, const D* disps, bool bytes,
            MPI_Datatype old, MPI_Datatype* newtype, bool large) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_nonneg(call, "count", count));
  if (bls) CHORUS_TRY_MPI(check_array(call, "array_of_blocklengths", bls, count));
  else CHORUS_TRY_MPI(check_nonneg(call, "blocklength", bl));
  CHORUS_TRY_MPI(check_array(call, "array_of_displacements", disps, count));
  CHORUS_TRY_MPI(check_type(call, nullptr, old, &o, "oldtype"));
  auto n = static_cast<std::size_t>(count);
  std::vector<TypeBlock> blocks(n);
  std::vector<MPI_Count> ints{static_cast<MPI_Count>(count)};
  std::vector<MPI_Aint> aints;
  if (!bls) ints.push_back(static_cast<MPI_Count>(bl));
  for (std::size_t i = 0; i < n; ++i) {
    C b = bls ? bls[i] : bl;
    if (b < 0)
      return fail(nullptr, MPI_ERR_COUNT, "{}: array_of_blocklengths[{}] is {}, must be non-negative",
                  call, i, static_cast<long long>(b));
    MPI_Aint d = bytes ? static_cast<MPI_Aint>(disps[i]) : static_cast<MPI_Aint>(disps[i]) * o->extent;
    blocks[i] = {d, static_cast<MPI_Count>(b), old};
    if (bls) ints.push_back(static_cast<MPI_Count>(b));
  }
  for (std::size_t i = 0; i < n; ++i) {
    if (bytes) aints.push_back(static_cast<MPI_Aint>(disps[i]));
    else ints.push_back(static_cast<MPI_Count>(disps[i]));
  }
  int combiner = bls ? (bytes ? MPI_COMBINER_HINDEXED : MPI_COMBINER_INDEXED)
                     : (bytes ? MPI_COMBINER_HINDEXED_BLOCK : MPI_COMBINER_INDEXED_BLOCK);
  return build(call, blocks, old, combiner, std::move(ints), std::move(aints), large, newtype);
}

template <typename C, typename D>
int structure(const char* call, C count, const C* bls, const D* disps, const MPI_Datatype* types,
              MPI_Datatype* newtype, bool large) {
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_nonneg(call, "count", count));
  CHORUS_TRY_MPI(check_array(call, "array_of_blocklengths", bls, count));
  CHORUS_TRY_MPI(check_array(call, "array_of_displacements", disps, count));
  CHORUS_TRY_MPI(check_array(call, "array_of_types", types, count));
  auto n = static_cast<std::size_t>(count);
  std::vector<TypeBlock> blocks(n);
  std::vector<MPI_Count> ints{static_cast<MPI_Count>(count)};
  std::vector<MPI_Aint> aints;
  for (std::size_t i = 0; i < n; ++i) {
    if (bls[i] < 0)
      return fail(nullptr, MPI_ERR_COUNT, "{}: array_of_blocklengths[{}] is {}, must be non-negative",
                  call, i, static_cast<long long>(bls[i]));
    if (!type_info(types[i])) {
      return fail(nullptr, MPI_ERR_TYPE, "{}: array_of_types[{}] is {}", call, i,
                  types[i] == MPI_DATATYPE_NULL
                      ? std::string("MPI_DATATYPE_NULL")
                      : fmt::format("an invalid handle 0x{:x}", static_cast<unsigned>(types[i])));
    }
    blocks[i] = {static_cast<MPI_Aint>(disps[i]), static_cast<MPI_Count>(bls[i]), types[i]};
    ints.push_back(static_cast<MPI_Count>(bls[i]));
    aints.push_back(static_cast<MPI_Aint>(disps[i]));
  }
  return build(call, blocks, MPI_DATATYPE_NULL, MPI_COMBINER_STRUCT, std::move(ints), std::move(aints), large,
               newtype);
}

// Blocks of an n-dimensional selection of an array of `old` elements: `owned[d]`
// lists, in increasing order, the indices taken along dimension d of an array of
// sizes[d]; the fastest-varying dimension is the last (C order) or the first
// (Fortran order). Consecutive indices along it merge into one block.
std::vector<TypeBlock> array_blocks(const std::vector<MPI_Aint>& sizes, const std::vector<std::vector<MPI_Aint>>& owned,
                                    bool c_order, MPI_Aint old_extent, MPI_Datatype old) {
  const std::size_t n = sizes.size();
  std::vector<std::size_t> dims(n);  // slowest first
  for (std::size_t i = 0; i < n; ++i) dims[i] = c_order ? i : n - 1 - i;
  std::vector<MPI_Aint> stride(n);  // in elements
  MPI_Aint st = 1;
  for (std::size_t k = n; k-- > 0;) {
    stride[dims[k]] = st;
    st *= sizes[dims[k]];
  }
  std::vector<TypeBlock> blocks;
  for (const auto& o : owned)
    if (o.empty()) return blocks;
  const std::size_t fast = dims[n - 1];
  std::vector<std::size_t> at(n, 0);  // position in owned[] of each dimension but the fastest
  for (;;) {
    MPI_Aint base = 0;
    for (std::size_t k = 0; k + 1 < n; ++k) base += owned[dims[k]][at[dims[k]]] * stride[dims[k]];
    const auto& f = owned[fast];
    for (std::size_t i = 0; i < f.size();) {
      std::size_t j = i + 1;
      while (j < f.size() && f[j] == f[j - 1] + 1) ++j;
      blocks.push_back({(base + f[i]) * old_extent, static_cast<MPI_Count>(j - i), old});
      i = j;
    }
    std::size_t k = n - 1;  // odometer over the slower dimensions
    while (k-- > 0) {
      if (++at[dims[k]] < owned[dims[k]].size()) break;
      at[dims[k]] = 0;
    }
    if (k == static_cast<std::size_t>(-1)) return blocks;
  }
}

int check_order(const char* call, int order) {
  if (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN)
    return fail(nullptr, MPI_ERR_ARG, "{}: order is {}, must be MPI_ORDER_C or MPI_ORDER_FORTRAN", call, order);
  return MPI_SUCCESS;
}

int subarray(const char* call, int ndims, const int* sizes, const int* subsizes, const int* starts, int order,
             MPI_Datatype old, MPI_Datatype* newtype) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  if (ndims <= 0) return fail(nullptr, MPI_ERR_DIMS, "{}: ndims is {}, must be positive", call, ndims);
  CHORUS_TRY_MPI(check_array(call, "array_of_sizes", sizes, ndims));
  CHORUS_TRY_MPI(check_array(call, "array_of_subsizes", subsizes, ndims));
  CHORUS_TRY_MPI(check_array(call, "array_of_starts", starts, ndims));
  CHORUS_TRY_MPI(check_order(call, order));
  CHORUS_TRY_MPI(check_type(call, nullptr, old, &o, "oldtype"));
  const auto n = static_cast<std::size_t>(ndims);
  std::vector<MPI_Aint> full(n);
  std::vector<std::vector<MPI_Aint>> owned(n);
  std::vector<MPI_Count> ints{ndims};
  MPI_Aint elements = 1;
  for (std::size_t d = 0; d < n; ++d) {
    if (sizes[d] <= 0)
      return fail(nullptr, MPI_ERR_ARG, "{}: array_of_sizes[{}] is {}, must be positive", call, d, sizes[d]);
    if (subsizes[d] < 0 || subsizes[d] > sizes[d])
      return fail(nullptr, MPI_ERR_ARG, "{}: array_of_subsizes[{}] is {}, must be in [0, {}]", call, d, subsizes[d],
                  sizes[d]);
    if (starts[d] < 0 || starts[d] > sizes[d] - subsizes[d])
      return fail(nullptr, MPI_ERR_ARG, "{}: array_of_starts[{}] is {}, must be in [0, {}] (size {}, subsize {})",
                  call, d, starts[d], sizes[d] - subsizes[d], sizes[d], subsizes[d]);
    full[d] = sizes[d];
    elements *= sizes[d];
    for (int i = 0; i < subsizes[d]; ++i) owned[d].push_back(starts[d] + i);
  }
  for (const int* a : {sizes, subsizes, starts})
    for (std::size_t d = 0; d < n; ++d) ints.push_back(a[d]);
  ints.push_back(order);
  const std::pair<MPI_Aint, MPI_Aint> bounds{0, elements * o->extent};
  return build(call, array_blocks(full, owned, order == MPI_ORDER_C, o->extent, old), old, MPI_COMBINER_SUBARRAY,
               std::move(ints), {}, false, newtype, &bounds);
}

int darray(const char* call, int size, int rank, int ndims, const int* gsizes, const int* distribs,
           const int* dargs, const int* psizes, int order, MPI_Datatype old, MPI_Datatype* newtype) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  if (size <= 0) return fail(nullptr, MPI_ERR_ARG, "{}: size is {}, must be positive", call, size);
  if (rank < 0 || rank >= size)
    return fail(nullptr, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, size);
  if (ndims <= 0) return fail(nullptr, MPI_ERR_DIMS, "{}: ndims is {}, must be positive", call, ndims);
  CHORUS_TRY_MPI(check_array(call, "array_of_gsizes", gsizes, ndims));
  CHORUS_TRY_MPI(check_array(call, "array_of_distribs", distribs, ndims));
  CHORUS_TRY_MPI(check_array(call, "array_of_dargs", dargs, ndims));
  CHORUS_TRY_MPI(check_array(call, "array_of_psizes", psizes, ndims));
  CHORUS_TRY_MPI(check_order(call, order));
  CHORUS_TRY_MPI(check_type(call, nullptr, old, &o, "oldtype"));
  const auto n = static_cast<std::size_t>(ndims);
  long long grid = 1;
  for (std::size_t d = 0; d < n; ++d) {
    if (psizes[d] <= 0)
      return fail(nullptr, MPI_ERR_ARG, "{}: array_of_psizes[{}] is {}, must be positive", call, d, psizes[d]);
    grid *= psizes[d];
  }
  if (grid != size)
    return fail(nullptr, MPI_ERR_ARG, "{}: the process grid holds {} processes, size is {}", call, grid, size);
  // This rank's coordinates in the grid: row-major, whatever the array order.
  std::vector<int> coord(n);
  for (std::size_t d = n, r = static_cast<std::size_t>(rank); d-- > 0;) {
    coord[d] = static_cast<int>(r % static_cast<std::size_t>(psizes[d]));
    r /= static_cast<std::size_t>(psizes[d]);
  }
  std::vector<MPI_Aint> full(n);
  std::vector<std::vector<MPI_Aint>> owned(n);
  MPI_Aint elements = 1;
  for (std::size_t d = 0; d < n; ++d) {
    const MPI_Aint g = gsizes[d], p = psizes[d], c = coord[d];
    if (g <= 0) return fail(nullptr, MPI_ERR_ARG, "{}: array_of_gsizes[{}] is {}, must be positive", call, d, g);
    full[d] = g;
    elements *= g;
    switch (distribs[d]) {
      case MPI_DISTRIBUTE_NONE:
        if (p != 1)
          return fail(nullptr, MPI_ERR_ARG, "{}: dimension {} is MPI_DISTRIBUTE_NONE over {} processes (must be 1)",
                      call, d, p);
        for (MPI_Aint i = 0; i < g; ++i) owned[d].push_back(i);
        break;
      case MPI_DISTRIBUTE_BLOCK: {
        const MPI_Aint blk = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[d];
        if (blk <= 0 || blk * p < g)
          return fail(nullptr, MPI_ERR_ARG, "{}: array_of_dargs[{}] is {}: {} blocks of it do not cover {} elements",
                      call, d, dargs[d], p, g);
        for (MPI_Aint i = c * blk; i < std::min((c + 1) * blk, g); ++i) owned[d].push_back(i);
        break;
      }
      case MPI_DISTRIBUTE_CYCLIC: {
        const MPI_Aint blk = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
        if (blk <= 0)
          return fail(nullptr, MPI_ERR_ARG, "{}: array_of_dargs[{}] is {}, must be positive", call, d, dargs[d]);
        for (MPI_Aint k = c * blk; k < g; k += p * blk)
          for (MPI_Aint i = k; i < std::min(k + blk, g); ++i) owned[d].push_back(i);
        break;
      }
      default:
        return fail(nullptr, MPI_ERR_ARG, "{}: array_of_distribs[{}] is {}, must be MPI_DISTRIBUTE_BLOCK, _CYCLIC "
                    "or _NONE", call, d, distribs[d]);
    }
  }
  std::vector<MPI_Count> ints{size, rank, ndims};
  for (const int* a : {gsizes, distribs, dargs, psizes})
    for (std::size_t d = 0; d < n; ++d) ints.push_back(a[d]);
  ints.push_back(order);
  const std::pair<MPI_Aint, MPI_Aint> bounds{0, elements * o->extent};
  return build(call, array_blocks(full, owned, order == MPI_ORDER_C, o->extent, old), old, MPI_COMBINER_DARRAY,
               std::move(ints), {}, false, newtype, &bounds);
}

int lookup(const char* call, MPI_Datatype t, const TypeInfo** out) {
  return check_type(call, nullptr, t, out);
}

template <typename A>
int get_extent(const char* call, MPI_Datatype datatype, A* lb, A* extent, bool true_extent) {
  if (!lb || !extent) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, lb ? "extent" : "lb");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  *lb = static_cast<A>(true_extent ? ti->true_lb : ti->lb);
  *extent = static_cast<A>(true_extent ? ti->true_extent : ti->extent);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

// ---- constructors -------------------------------------------------------------------

static int resized(const char* call, MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent,
                   MPI_Datatype* newtype) {
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_type(call, nullptr, oldtype, &o, "oldtype"));
  p2p::ApiLock lock;
  std::string why;
  Status s = type_create_resized(oldtype, lb, extent, newtype, &why);
  return ok(s) ? MPI_SUCCESS : type_status(s, call, why);
}

int PMPI_Type_dup(MPI_Datatype oldtype, MPI_Datatype* newtype) {
  const char* call = "MPI_Type_dup";
  const TypeInfo* o;
  CHORUS_TRY_MPI(check_newtype(call, newtype));
  CHORUS_TRY_MPI(check_type(call, nullptr, oldtype, &o, "oldtype"));
  p2p::ApiLock lock;
  std::string why;
  Status s = type_dup(oldtype, newtype, &why);
  if (!ok(s)) return type_status(s, call, why);
  auto it = type_attrs().find(oldtype);
  if (it != type_attrs().end()) {
    TypeAttrs copy;
    int rc = attrs_copy_generic(oldtype, it->second.attrs, it->second.order, copy.attrs, copy.order, call,
                                type_raiser());
    if (rc != MPI_SUCCESS) {
      (void)type_free(*newtype);
      *newtype = MPI_DATATYPE_NULL;
      return rc;
    }
    if (!copy.order.empty()) type_attrs()[*newtype] = std::move(copy);
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_dup)

int PMPI_Type_create_keyval(MPI_Type_copy_attr_function* type_copy_attr_fn,
                            MPI_Type_delete_attr_function* type_delete_attr_fn, int* type_keyval,
                            void* extra_state) {
  return keyval_create("MPI_Type_create_keyval", KeyKind::Type,
                       reinterpret_cast<MPI_Comm_copy_attr_function*>(type_copy_attr_fn),
                       reinterpret_cast<MPI_Comm_delete_attr_function*>(type_delete_attr_fn), type_keyval,
                       extra_state);
}
CHORUS_ALIAS(MPI_Type_create_keyval)

int PMPI_Type_set_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val) {
  const char* call = "MPI_Type_set_attr";
  CHORUS_TRY_MPI(check_running(call));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  p2p::ApiLock lock;
  TypeAttrs& a = type_attrs()[datatype];
  return attr_set(call, KeyKind::Type, datatype, a.attrs, a.order, type_keyval, attribute_val, type_raiser());
}
CHORUS_ALIAS(MPI_Type_set_attr)

int PMPI_Type_get_attr(MPI_Datatype datatype, int type_keyval, void* attribute_val, int* flag) {
  const char* call = "MPI_Type_get_attr";
  CHORUS_TRY_MPI(check_running(call));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  p2p::ApiLock lock;
  static const std::map<int, void*> none;
  auto it = type_attrs().find(datatype);
  return attr_get(call, KeyKind::Type, it == type_attrs().end() ? none : it->second.attrs, type_keyval,
                  attribute_val, flag, type_raiser());
}
CHORUS_ALIAS(MPI_Type_get_attr)

int PMPI_Type_delete_attr(MPI_Datatype datatype, int type_keyval) {
  const char* call = "MPI_Type_delete_attr";
  CHORUS_TRY_MPI(check_running(call));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  p2p::ApiLock lock;
  TypeAttrs& a = type_attrs()[datatype];
  int rc = attr_delete(call, KeyKind::Type, datatype, a.attrs, a.order, type_keyval, type_raiser());
  if (a.order.empty()) type_attrs().erase(datatype);
  return rc;
}
CHORUS_ALIAS(MPI_Type_delete_attr)

// The predefined type of a Fortran type class and size (MPI-4.1 19.3.6).
int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype* datatype) {
  const char* call = "MPI_Type_match_size";
  CHORUS_TRY_MPI(check_running(call));
  if (!datatype) return fail(nullptr, MPI_ERR_ARG, "{}: datatype is NULL", call);
  struct Match {
    int cls;
    MPI_Datatype t;
  };
  static const Match kTypes[] = {
      {MPI_TYPECLASS_INTEGER, MPI_INTEGER1}, {MPI_TYPECLASS_INTEGER, MPI_INTEGER2},
      {MPI_TYPECLASS_INTEGER, MPI_INTEGER4}, {MPI_TYPECLASS_INTEGER, MPI_INTEGER8},
      {MPI_TYPECLASS_REAL, MPI_REAL4},       {MPI_TYPECLASS_REAL, MPI_REAL8},
      {MPI_TYPECLASS_REAL, MPI_REAL16},      {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX8},
      {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX16}, {MPI_TYPECLASS_COMPLEX, MPI_COMPLEX32}};
  if (typeclass != MPI_TYPECLASS_INTEGER && typeclass != MPI_TYPECLASS_REAL && typeclass != MPI_TYPECLASS_COMPLEX)
    return fail(nullptr, MPI_ERR_ARG, "{}: typeclass is {}, must be MPI_TYPECLASS_INTEGER, _REAL or _COMPLEX", call,
                typeclass);
  for (const Match& m : kTypes)
    if (m.cls == typeclass && type_info(m.t)->size == static_cast<std::size_t>(size)) {
      *datatype = m.t;
      return MPI_SUCCESS;
    }
  return fail(nullptr, MPI_ERR_ARG, "{}: no {} type is {} bytes long", call,
              typeclass == MPI_TYPECLASS_INTEGER ? "integer" : typeclass == MPI_TYPECLASS_REAL ? "real" : "complex",
              size);
}
CHORUS_ALIAS(MPI_Type_match_size)

// MPI 4.1: the predefined value-index pair type (for MPI_MINLOC and MPI_MAXLOC) of
// a value type and an index type; MPI_DATATYPE_NULL where MPI predefines none.
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type, MPI_Datatype* pair_type) {
  const char* call = "MPI_Type_get_value_index";
  CHORUS_TRY_MPI(check_running(call));
  if (!pair_type) return fail(nullptr, MPI_ERR_ARG, "{}: pair_type is NULL", call);
  const TypeInfo* ti;
  if (value_type == MPI_DATATYPE_NULL)
    return fail(nullptr, MPI_ERR_TYPE, "{}: value_type is MPI_DATATYPE_NULL", call);
  if (index_type == MPI_DATATYPE_NULL)
    return fail(nullptr, MPI_ERR_TYPE, "{}: index_type is MPI_DATATYPE_NULL", call);
  CHORUS_TRY_MPI(lookup(call, value_type, &ti));
  CHORUS_TRY_MPI(lookup(call, index_type, &ti));
  struct Pair {
    MPI_Datatype value, index, pair;
  };
  static const Pair kPairs[] = {
      {MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
      {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
      {MPI_LONG, MPI_INT, MPI_LONG_INT},
      {MPI_INT, MPI_INT, MPI_2INT},
      {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
      {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
      {MPI_REAL, MPI_REAL, MPI_2REAL},
      {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
      {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER}};
  *pair_type = MPI_DATATYPE_NULL;
  for (const Pair& p : kPairs)
    if (p.value == value_type && p.index == index_type) *pair_type = p.pair;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_get_value_index)

// Fortran 90 parameterized types: the smallest predefined type with at least the
// decimal range r (and precision p) asked for; MPI_UNDEFINED leaves one open.
static int f90_type(const char* call, bool integer, bool complex, int p, int r, MPI_Datatype* newtype) {
  CHORUS_TRY_MPI(check_running(call));
  if (!newtype) return fail(nullptr, MPI_ERR_ARG, "{}: newtype is NULL", call);
  struct Kind {
    int precision, range;
    MPI_Datatype real, cplx;
  };
  if (integer) {
    static const std::pair<int, MPI_Datatype> kInts[] = {
        {2, MPI_INTEGER1}, {4, MPI_INTEGER2}, {9, MPI_INTEGER4}, {18, MPI_INTEGER8}};
    for (const auto& [range, t] : kInts)
      if (r == MPI_UNDEFINED || r <= range) {
        *newtype = t;
        return MPI_SUCCESS;
      }
    return fail(nullptr, MPI_ERR_ARG, "{}: no integer type has a decimal range of {} (18 at most)", call, r);
  }
  if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
    return fail(nullptr, MPI_ERR_ARG, "{}: p and r are both MPI_UNDEFINED", call);
  static const Kind kReals[] = {{6, 37, MPI_REAL4, MPI_COMPLEX8},
                                {15, 307, MPI_REAL8, MPI_COMPLEX16},
                                {18, 4931, MPI_REAL16, MPI_COMPLEX32}};
  for (const Kind& k : kReals)
    if ((p == MPI_UNDEFINED || p <= k.precision) && (r == MPI_UNDEFINED || r <= k.range)) {
      *newtype = complex ? k.cplx : k.real;
      return MPI_SUCCESS;
    }
  return fail(nullptr, MPI_ERR_ARG, "{}: no {} type has precision {} and range {} (18 and 4931 at most)", call,
              complex ? "complex" : "real", p, r);
}

// ---- commit / free ---------------------------------------------------------------------

int PMPI_Type_commit(MPI_Datatype* datatype) {
  if (!datatype) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_commit: datatype is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_commit", *datatype, &ti));
  p2p::ApiLock lock;
  type_mutable(*datatype)->committed = true;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_commit)

int PMPI_Type_free(MPI_Datatype* datatype) {
  if (!datatype) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_free: datatype is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_free", *datatype, &ti));
  if (ti->predefined)
    return fail(nullptr, MPI_ERR_TYPE, "MPI_Type_free: datatype {} is predefined and cannot be freed",
                ti->name);
  p2p::ApiLock lock;
  if (auto it = type_attrs().find(*datatype); it != type_attrs().end()) {
    CHORUS_TRY_MPI(attrs_delete_generic(*datatype, it->second.attrs, it->second.order, "MPI_Type_free",
                                        type_raiser()));
    type_attrs().erase(*datatype);
  }
  if (!ok(type_free(*datatype)))
    return fail(nullptr, MPI_ERR_TYPE, "MPI_Type_free: invalid datatype handle 0x{:x}",
                static_cast<unsigned>(*datatype));
  *datatype = MPI_DATATYPE_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_free)

// ---- queries ----------------------------------------------------------------------------

int PMPI_Type_size(MPI_Datatype datatype, int* size) {
  if (!size) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_size: size is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_size", datatype, &ti));
  *size = ti->size > INT_MAX ? MPI_UNDEFINED : static_cast<int>(ti->size);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_size)

int PMPI_Type_size_x(MPI_Datatype datatype, MPI_Count* size) {
  if (!size) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_size_x: size is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_size_x", datatype, &ti));
  *size = static_cast<MPI_Count>(ti->size);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_size_x)

int PMPI_Type_size_c(MPI_Datatype datatype, MPI_Count* size) {
  if (!size) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_size_c: size is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_size_c", datatype, &ti));
  *size = static_cast<MPI_Count>(ti->size);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_size_c)

int PMPI_Type_extent(MPI_Datatype datatype, MPI_Aint* extent) {
  MPI_Aint lb;
  return get_extent("MPI_Type_extent", datatype, &lb, extent, false);
}
CHORUS_ALIAS(MPI_Type_extent)

int PMPI_Type_lb(MPI_Datatype datatype, MPI_Aint* displacement) {
  if (!displacement) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_lb: displacement is NULL");
  MPI_Aint extent;
  return get_extent("MPI_Type_lb", datatype, displacement, &extent, false);
}
CHORUS_ALIAS(MPI_Type_lb)

int PMPI_Type_ub(MPI_Datatype datatype, MPI_Aint* displacement) {
  if (!displacement) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_ub: displacement is NULL");
  MPI_Aint lb, extent;
  CHORUS_TRY_MPI(get_extent("MPI_Type_ub", datatype, &lb, &extent, false));
  *displacement = lb + extent;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_ub)

// ---- names ---------------------------------------------------------------------------

int PMPI_Type_set_name(MPI_Datatype datatype, const char* type_name) {
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_set_name", datatype, &ti));
  if (!type_name) return fail(nullptr, MPI_ERR_ARG, "MPI_Type_set_name: type_name is NULL");
  p2p::ApiLock lock;
  std::string name(type_name, strnlen(type_name, MPI_MAX_OBJECT_NAME - 1));
  type_mutable(datatype)->name = std::move(name);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_set_name)

int PMPI_Type_get_name(MPI_Datatype datatype, char* type_name, int* resultlen) {
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_get_name", datatype, &ti));
  if (!type_name || !resultlen)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Type_get_name: {} is NULL", type_name ? "resultlen" : "type_name");
  p2p::ApiLock lock;
  std::size_t n = std::min<std::size_t>(ti->name.size(), MPI_MAX_OBJECT_NAME - 1);
  std::memcpy(type_name, ti->name.data(), n);
  type_name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_get_name)

// ---- envelope / contents ----------------------------------------------------------------

int PMPI_Type_get_envelope(MPI_Datatype datatype, int* num_integers, int* num_addresses,
                           int* num_datatypes, int* combiner) {
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_get_envelope", datatype, &ti));
  if (!num_integers || !num_addresses || !num_datatypes || !combiner)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Type_get_envelope: an output argument is NULL");
  *num_integers = static_cast<int>(ti->c_ints.size());
  *num_addresses = static_cast<int>(ti->c_aints.size());
  *num_datatypes = static_cast<int>(ti->c_types.size());
  *combiner = ti->combiner;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_get_envelope)

int PMPI_Type_get_envelope_c(MPI_Datatype datatype, MPI_Count* num_integers, MPI_Count* num_addresses,
                             MPI_Count* num_large_counts, MPI_Count* num_datatypes, int* combiner) {
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Type_get_envelope_c", datatype, &ti));
  if (!num_integers || !num_addresses || !num_large_counts || !num_datatypes || !combiner)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Type_get_envelope_c: an output argument is NULL");
  // Types built by _c constructors report their counts and displacements as large counts.
  *num_integers = ti->c_large ? 0 : static_cast<MPI_Count>(ti->c_ints.size());
  *num_addresses = ti->c_large ? 0 : static_cast<MPI_Count>(ti->c_aints.size());
  *num_large_counts = ti->c_large ? static_cast<MPI_Count>(ti->c_ints.size() + ti->c_aints.size()) : 0;
  *num_datatypes = static_cast<MPI_Count>(ti->c_types.size());
  *combiner = ti->combiner;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Type_get_envelope_c)

// Datatypes returned by get_contents: predefined ones as they are, derived ones as
// new equal objects the caller frees.
static int contents_types(const char* call, const TypeInfo* ti, MPI_Datatype out[]) {
  for (std::size_t i = 0; i < ti->c_types.size(); ++i) {
    MPI_Datatype t = ti->c_types[i];
    const TypeInfo* inner = type_lookup_held(t);
    if (inner && inner->predefined) {
      out[i] = t;
      continue;
    }
    std::string why;
    Status s = type_dup(t, &out[i], &why, true);
    if (!ok(s)) {
      // The inner type was freed by the user but is still held: copy it directly.
      return type_status(s, call, why);
    }
  }
  return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype datatype, int max_integers, int max_addresses,
                           int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[],
                           MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents";
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  if (ti->combiner == MPI_COMBINER_NAMED)
    return fail(nullptr, MPI_ERR_TYPE, "{}: datatype {} is predefined (MPI_COMBINER_NAMED)", call, ti->name);
  if (max_integers < static_cast<int>(ti->c_ints.size()) ||
      max_addresses < static_cast<int>(ti->c_aints.size()) ||
      max_datatypes < static_cast<int>(ti->c_types.size()))
    return fail(nullptr, MPI_ERR_ARG, "{}: the arrays are too small (need {} integers, {} addresses, {} datatypes)",
                call, ti->c_ints.size(), ti->c_aints.size(), ti->c_types.size());
  p2p::ApiLock lock;
  for (std::size_t i = 0; i < ti->c_ints.size(); ++i) array_of_integers[i] = static_cast<int>(ti->c_ints[i]);
  for (std::size_t i = 0; i < ti->c_aints.size(); ++i) array_of_addresses[i] = ti->c_aints[i];
  return contents_types(call, ti, array_of_datatypes);
}
CHORUS_ALIAS(MPI_Type_get_contents)

int PMPI_Type_get_contents_c(MPI_Datatype datatype, MPI_Count max_integers, MPI_Count max_addresses,
                             MPI_Count max_large_counts, MPI_Count max_datatypes, int array_of_integers[],
                             MPI_Aint array_of_addresses[], MPI_Count array_of_large_counts[],
                             MPI_Datatype array_of_datatypes[]) {
  const char* call = "MPI_Type_get_contents_c";
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  if (ti->combiner == MPI_COMBINER_NAMED)
    return fail(nullptr, MPI_ERR_TYPE, "{}: datatype {} is predefined (MPI_COMBINER_NAMED)", call, ti->name);
  auto ni = static_cast<MPI_Count>(ti->c_large ? 0 : ti->c_ints.size());
  auto na = static_cast<MPI_Count>(ti->c_large ? 0 : ti->c_aints.size());
  auto nl = static_cast<MPI_Count>(ti->c_large ? ti->c_ints.size() + ti->c_aints.size() : 0);
  if (max_integers < ni || max_addresses < na || max_large_counts < nl ||
      max_datatypes < static_cast<MPI_Count>(ti->c_types.size()))
    return fail(nullptr, MPI_ERR_ARG, "{}: the arrays are too small", call);
  p2p::ApiLock lock;
  if (ti->c_large) {
    std::size_t k = 0;
    for (MPI_Count v : ti->c_ints) array_of_large_counts[k++] = v;
    for (MPI_Aint v : ti->c_aints) array_of_large_counts[k++] = v;
  } else {
    for (std::size_t i = 0; i < ti->c_ints.size(); ++i) array_of_integers[i] = static_cast<int>(ti->c_ints[i]);
    for (std::size_t i = 0; i < ti->c_aints.size(); ++i) array_of_addresses[i] = ti->c_aints[i];
  }
  return contents_types(call, ti, array_of_datatypes);
}
CHORUS_ALIAS(MPI_Type_get_contents_c)

// ---- addresses -------------------------------------------------------------------------

int PMPI_Get_address(const void* location, MPI_Aint* address) {
  if (!address) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_address: address is NULL");
  *address = reinterpret_cast<MPI_Aint>(location);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_address)

int PMPI_Address(void* location, MPI_Aint* address) { return PMPI_Get_address(location, address); }
CHORUS_ALIAS(MPI_Address)

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(base) + static_cast<std::uintptr_t>(disp));
}
CHORUS_ALIAS(MPI_Aint_add)

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
  return static_cast<MPI_Aint>(static_cast<std::uintptr_t>(addr1) - static_cast<std::uintptr_t>(addr2));
}
CHORUS_ALIAS(MPI_Aint_diff)

// ---- counts from statuses ------------------------------------------------------------

int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  if (!status || !count) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_count: {} is NULL", status ? "count" : "status");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Get_count", datatype, &ti));
  long long n = count_from_bytes(*ti, status_bytes(status));
  *count = (n == MPI_UNDEFINED || n > INT_MAX) ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_count)

int PMPI_Get_count_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (!status || !count) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_count_c: {} is NULL", status ? "count" : "status");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Get_count_c", datatype, &ti));
  *count = count_from_bytes(*ti, status_bytes(status));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_count_c)

static int get_elements(const char* call, const MPI_Status* status, MPI_Datatype datatype, long long* n) {
  if (!status) return fail(nullptr, MPI_ERR_ARG, "{}: status is NULL", call);
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup(call, datatype, &ti));
  *n = elements_from_bytes(*ti, status_bytes(status));
  return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status* status, MPI_Datatype datatype, int* count) {
  if (!count) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_elements: count is NULL");
  long long n;
  CHORUS_TRY_MPI(get_elements("MPI_Get_elements", status, datatype, &n));
  *count = (n == MPI_UNDEFINED || n > INT_MAX) ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_elements)

int PMPI_Get_elements_x(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (!count) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_elements_x: count is NULL");
  long long n;
  CHORUS_TRY_MPI(get_elements("MPI_Get_elements_x", status, datatype, &n));
  *count = n;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_elements_x)

int PMPI_Get_elements_c(const MPI_Status* status, MPI_Datatype datatype, MPI_Count* count) {
  if (!count) return fail(nullptr, MPI_ERR_ARG, "MPI_Get_elements_c: count is NULL");
  long long n;
  CHORUS_TRY_MPI(get_elements("MPI_Get_elements_c", status, datatype, &n));
  *count = n;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_elements_c)

int PMPI_Status_set_elements_x(MPI_Status* status, MPI_Datatype datatype, MPI_Count count) {
  if (!status) return fail(nullptr, MPI_ERR_ARG, "MPI_Status_set_elements_x: status is NULL");
  const TypeInfo* ti;
  CHORUS_TRY_MPI(lookup("MPI_Status_set_elements_x", datatype, &ti));
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "MPI_Status_set_elements_x: count is {}, must be non-negative", count);
  bool cancelled = status->count_hi_and_cancelled & 1;
  set_status(status, status->MPI_SOURCE, status->MPI_TAG,
             bytes_from_elements(*ti, static_cast<std::size_t>(count)), cancelled);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Status_set_elements_x)

// ---- pack / unpack -----------------------------------------------------------------------

static int pack_any(const char* call, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                    void* outbuf, MPI_Count outsize, MPI_Count* position, MPI_Comm comm) {
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (incount < 0) return fail(c, MPI_ERR_COUNT, "{}: incount is {}, must be non-negative", call, incount);
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_data_type(call, c, datatype, &ti));
  if (!position) return fail(c, MPI_ERR_ARG, "{}: position is NULL", call);
  std::size_t need = wire_bytes(*ti, static_cast<std::size_t>(incount));
  if (*position < 0 || outsize < *position || static_cast<std::size_t>(outsize - *position) < need)
    return fail(c, MPI_ERR_TRUNCATE, "{}: {} bytes do not fit in outbuf of outsize {} at position {}", call,
                need, outsize, *position);
  if (need && !outbuf) return fail(c, MPI_ERR_BUFFER, "{}: outbuf is NULL", call);
  type_pack(*ti, inbuf, static_cast<std::size_t>(incount), static_cast<std::byte*>(outbuf) + *position);
  *position += static_cast<MPI_Count>(need);
  return MPI_SUCCESS;
}

static int unpack_any(const char* call, const void* inbuf, MPI_Count insize, MPI_Count* position,
                      void* outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm) {
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (outcount < 0) return fail(c, MPI_ERR_COUNT, "{}: outcount is {}, must be non-negative", call, outcount);
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_data_type(call, c, datatype, &ti));
  if (!position) return fail(c, MPI_ERR_ARG, "{}: position is NULL", call);
  std::size_t need = wire_bytes(*ti, static_cast<std::size_t>(outcount));
  if (*position < 0 || insize < *position || static_cast<std::size_t>(insize - *position) < need)
    return fail(c, MPI_ERR_TRUNCATE, "{}: {} bytes wanted but inbuf of insize {} has {} left at position {}",
                call, need, insize, insize - *position, *position);
  if (need && !inbuf) return fail(c, MPI_ERR_BUFFER, "{}: inbuf is NULL", call);
  type_unpack(*ti, static_cast<const std::byte*>(inbuf) + *position, static_cast<std::size_t>(outcount), outbuf);
  *position += static_cast<MPI_Count>(need);
  return MPI_SUCCESS;
}

int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize,
              int* position, MPI_Comm comm) {
  if (!position) return fail(nullptr, MPI_ERR_ARG, "MPI_Pack: position is NULL");
  MPI_Count pos = *position;
  CHORUS_TRY_MPI(pack_any("MPI_Pack", inbuf, incount, datatype, outbuf, outsize, &pos, comm));
  *position = static_cast<int>(pos);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack)

int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount,
                MPI_Datatype datatype, MPI_Comm comm) {
  if (!position) return fail(nullptr, MPI_ERR_ARG, "MPI_Unpack: position is NULL");
  MPI_Count pos = *position;
  CHORUS_TRY_MPI(unpack_any("MPI_Unpack", inbuf, insize, &pos, outbuf, outcount, datatype, comm));
  *position = static_cast<int>(pos);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Unpack)

int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Pack_size", comm, &c));
  CHORUS_TRY_MPI(check_count("MPI_Pack_size", c, incount, "incount"));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_type("MPI_Pack_size", c, datatype, &ti));
  if (!size) return fail(c, MPI_ERR_ARG, "MPI_Pack_size: size is NULL");
  std::size_t n = wire_bytes(*ti, static_cast<std::size_t>(incount));
  *size = n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_size)

int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count* size) {
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Pack_size_c", comm, &c));
  if (incount < 0) return fail(c, MPI_ERR_COUNT, "MPI_Pack_size_c: incount is {}, must be non-negative", incount);
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_type("MPI_Pack_size_c", c, datatype, &ti));
  if (!size) return fail(c, MPI_ERR_ARG, "MPI_Pack_size_c: size is NULL");
  *size = static_cast<MPI_Count>(wire_bytes(*ti, static_cast<std::size_t>(incount)));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_size_c)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "datatype_forward.inc"

}  // extern "C"
