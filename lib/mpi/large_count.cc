// The large-count forms (MPI-4.1 "_c" functions: MPI_Count counts, MPI_Aint
// displacements) of point-to-point, collective, one-sided and packing calls.
//
// Each takes its counts to the int form it wraps: a count that fits in an int
// goes as it is; a larger one becomes one element of a contiguous datatype of
// `count` elements (the same bytes, the same type signature, and reductions see
// the same predefined elements), made for the call and freed after it (a pending
// operation keeps its own reference). The v-forms' arrays are converted entry by
// entry; an entry beyond INT_MAX there is MPI_ERR_COUNT naming it, since those
// forms take one datatype for every peer.
#include <climits>
#include <cstring>
#include <vector>

#include "core/op.h"
#include "mpi/api.h"

namespace chorus::mpi {
namespace {

// A count as the int forms take it (see the top of the file).
struct Big {
  int count = 0;
  MPI_Datatype type = MPI_DATATYPE_NULL;
  MPI_Datatype owned = MPI_DATATYPE_NULL;
  Big() = default;
  Big(const Big&) = delete;
  Big& operator=(const Big&) = delete;
  ~Big() {
    if (owned != MPI_DATATYPE_NULL) (void)type_free(owned);
  }
};

// `op`: a reduction's op. A user function is called with the call's datatype and
// an int count, so a user op cannot take the contiguous type in its place.
int big(const char* call, MPI_Count count, MPI_Datatype t, Big& b, MPI_Op op = MPI_OP_NULL) {
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  b.type = t;
  if (count <= INT_MAX) {
    b.count = static_cast<int>(count);
    return MPI_SUCCESS;
  }
  if (op != MPI_OP_NULL && op_valid(op) && !op_is_predefined(op))
    return fail(nullptr, MPI_ERR_COUNT,
                "{}: count {} is over INT_MAX with the user-defined op {}; its function takes the call's datatype "
                "and an int length, so split the call (predefined ops take any count)", call, count, op_name(op));
  if (!type_info(t))
    return fail(nullptr, MPI_ERR_TYPE, "{}: datatype 0x{:x} is not valid", call, static_cast<unsigned>(t));
  std::string why;
  MPI_Datatype h = MPI_DATATYPE_NULL;
  Status s = type_create({{0, count, t}}, false, MPI_COMBINER_CONTIGUOUS, &h, &why, t);
  if (!ok(s)) return fail(nullptr, to_mpi_class(s), "{}: {} elements of {}: {}", call, count, type_label(t), why);
  type_mutable(h)->committed = true;
  b.owned = b.type = h;
  b.count = 1;
  return MPI_SUCCESS;
}

// How many entries a v-form's array has: the group's size (the remote group's on
// an intercommunicator), or for the neighborhood forms the in- or out-degree.
int entries(MPI_Comm comm, bool neighbor, bool recv_side, int* n) {
  *n = 0;
  if (!neighbor) {
    int inter = 0;
    CHORUS_TRY_MPI(PMPI_Comm_test_inter(comm, &inter));
    return inter ? PMPI_Comm_remote_size(comm, n) : PMPI_Comm_size(comm, n);
  }
  int kind = MPI_UNDEFINED;
  CHORUS_TRY_MPI(PMPI_Topo_test(comm, &kind));
  if (kind == MPI_CART) {
    int nd = 0;
    CHORUS_TRY_MPI(PMPI_Cartdim_get(comm, &nd));
    *n = 2 * nd;
  } else if (kind == MPI_GRAPH) {
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    CHORUS_TRY_MPI(PMPI_Graph_neighbors_count(comm, rank, n));
  } else if (kind == MPI_DIST_GRAPH) {
    int in = 0, out = 0, weighted = 0;
    CHORUS_TRY_MPI(PMPI_Dist_graph_neighbors_count(comm, &in, &out, &weighted));
    *n = recv_side ? in : out;
  }
  return MPI_SUCCESS;  // no topology: the int form reports it
}

// A v-form's counts or displacements as ints (empty when the array is NULL or
// not significant here).
template <typename T>
int ints(const char* call, const char* arg, const T* a, MPI_Comm comm, bool neighbor, bool recv_side,
         bool significant, std::vector<int>& out) {
  if (!a || !significant) return MPI_SUCCESS;
  int n = 0;
  if (entries(comm, neighbor, recv_side, &n) != MPI_SUCCESS) return MPI_SUCCESS;  // the int form reports it
  out.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    const T v = a[i];
    if (v > INT_MAX || v < INT_MIN)
      return fail(nullptr, MPI_ERR_COUNT, "{}: {}[{}] is {}; the v-forms take entries up to {} here", call, arg, i,
                  static_cast<long long>(v), INT_MAX);
    out[static_cast<std::size_t>(i)] = static_cast<int>(v);
  }
  return MPI_SUCCESS;
}

// MPI_Reduce_scatter(_c)'s counts: one per rank of the local group, on an
// intercommunicator too.
int ints_local(const char* call, const char* arg, const MPI_Count* a, MPI_Comm comm, std::vector<int>& out) {
  if (!a) return MPI_SUCCESS;
  int n = 0;
  if (PMPI_Comm_size(comm, &n) != MPI_SUCCESS) return MPI_SUCCESS;  // the int form reports it
  out.resize(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (a[i] > INT_MAX || a[i] < 0)
      return fail(nullptr, MPI_ERR_COUNT, "{}: {}[{}] is {}; the v-forms take entries in [0, {}] here", call, arg, i,
                  a[i], INT_MAX);
    out[static_cast<std::size_t>(i)] = static_cast<int>(a[i]);
  }
  return MPI_SUCCESS;
}

const int* data_or_null(const std::vector<int>& v) { return v.empty() ? nullptr : v.data(); }

// The arrays of a rooted v-form count at its root only.
bool at_root(MPI_Comm comm, int root) {
  int inter = 0, rank = -1;
  if (PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS) return true;
  if (inter) return root == MPI_ROOT;
  PMPI_Comm_rank(comm, &rank);
  return rank == root;
}

}  // namespace

int narrow(const char* call, const char* arg, MPI_Count v, int* out) {
  if (v < INT_MIN || v > INT_MAX)
    return fail(nullptr, MPI_ERR_ARG, "{}: {} is {}, more than this call takes ({})", call, arg, v, INT_MAX);
  *out = static_cast<int>(v);
  return MPI_SUCCESS;
}
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

// ---- by hand: sizes in bytes, displacement units, array arguments ---------------------

int PMPI_Pack_external_size_c(const char* datarep, MPI_Count incount, MPI_Datatype datatype, MPI_Count* size) {
  Big b;
  CHORUS_TRY_MPI(big("MPI_Pack_external_size_c", incount, datatype, b));
  MPI_Aint s = 0;
  CHORUS_TRY_MPI(PMPI_Pack_external_size(datarep, b.count, b.type, &s));
  if (size) *size = s;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_external_size_c)

int PMPI_Pack_external_c(const char* datarep, const void* inbuf, MPI_Count incount, MPI_Datatype datatype,
                         void* outbuf, MPI_Count outsize, MPI_Count* position) {
  Big b;
  CHORUS_TRY_MPI(big("MPI_Pack_external_c", incount, datatype, b));
  if (!position) return fail(nullptr, MPI_ERR_ARG, "MPI_Pack_external_c: position is NULL");
  MPI_Aint pos = *position;
  CHORUS_TRY_MPI(PMPI_Pack_external(datarep, inbuf, b.count, b.type, outbuf, outsize, &pos));
  *position = pos;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pack_external_c)

int PMPI_Unpack_external_c(const char datarep[], const void* inbuf, MPI_Count insize, MPI_Count* position,
                           void* outbuf, MPI_Count outcount, MPI_Datatype datatype) {
  Big b;
  CHORUS_TRY_MPI(big("MPI_Unpack_external_c", outcount, datatype, b));
  if (!position) return fail(nullptr, MPI_ERR_ARG, "MPI_Unpack_external_c: position is NULL");
  MPI_Aint pos = *position;
  CHORUS_TRY_MPI(PMPI_Unpack_external(datarep, inbuf, insize, &pos, outbuf, b.count, b.type));
  *position = pos;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Unpack_external_c)

int PMPI_Win_create_c(void* base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  int du = 0;
  CHORUS_TRY_MPI(narrow("MPI_Win_create_c", "disp_unit", disp_unit, &du));
  return PMPI_Win_create(base, size, du, info, comm, win);
}
CHORUS_ALIAS(MPI_Win_create_c)

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                        MPI_Win* win) {
  int du = 0;
  CHORUS_TRY_MPI(narrow("MPI_Win_allocate_c", "disp_unit", disp_unit, &du));
  return PMPI_Win_allocate(size, du, info, comm, baseptr, win);
}
CHORUS_ALIAS(MPI_Win_allocate_c)

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                               MPI_Win* win) {
  int du = 0;
  CHORUS_TRY_MPI(narrow("MPI_Win_allocate_shared_c", "disp_unit", disp_unit, &du));
  return PMPI_Win_allocate_shared(size, du, info, comm, baseptr, win);
}
CHORUS_ALIAS(MPI_Win_allocate_shared_c)

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint* size, MPI_Aint* disp_unit, void* baseptr) {
  int du = 0;
  CHORUS_TRY_MPI(PMPI_Win_shared_query(win, rank, size, disp_unit ? &du : nullptr, baseptr));
  *disp_unit = du;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_shared_query_c)

int PMPI_Buffer_attach_c(void* buffer, MPI_Count size) {
  int n = 0;
  if (buffer != MPI_BUFFER_AUTOMATIC) CHORUS_TRY_MPI(narrow("MPI_Buffer_attach_c", "size", size, &n));
  return PMPI_Buffer_attach(buffer, n);
}
CHORUS_ALIAS(MPI_Buffer_attach_c)

int PMPI_Buffer_detach_c(void* buffer_addr, MPI_Count* size) {
  int n = 0;
  CHORUS_TRY_MPI(PMPI_Buffer_detach(buffer_addr, size ? &n : nullptr));
  *size = n;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Buffer_detach_c)

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[],
                                const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype,
                                MPI_Datatype* newtype) {
  const char* call = "MPI_Type_create_subarray_c";
  if (ndims < 0 || (ndims > 0 && (!array_of_sizes || !array_of_subsizes || !array_of_starts)))
    return PMPI_Type_create_subarray(ndims, nullptr, nullptr, nullptr, order, oldtype, newtype);  // reports it
  std::vector<int> sizes(static_cast<std::size_t>(ndims)), subs(sizes.size()), starts(sizes.size());
  for (int i = 0; i < ndims; ++i) {
    const auto k = static_cast<std::size_t>(i);
    CHORUS_TRY_MPI(narrow(call, "array_of_sizes[]", array_of_sizes[i], &sizes[k]));
    CHORUS_TRY_MPI(narrow(call, "array_of_subsizes[]", array_of_subsizes[i], &subs[k]));
    CHORUS_TRY_MPI(narrow(call, "array_of_starts[]", array_of_starts[i], &starts[k]));
  }
  return PMPI_Type_create_subarray(ndims, sizes.data(), subs.data(), starts.data(), order, oldtype, newtype);
}
CHORUS_ALIAS(MPI_Type_create_subarray_c)

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count array_of_gsizes[],
                              const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[],
                              int order, MPI_Datatype oldtype, MPI_Datatype* newtype) {
  if (ndims < 0 || (ndims > 0 && !array_of_gsizes))
    return PMPI_Type_create_darray(size, rank, ndims, nullptr, array_of_distribs, array_of_dargs, array_of_psizes,
                                   order, oldtype, newtype);  // reports it
  std::vector<int> g(static_cast<std::size_t>(ndims));
  for (int i = 0; i < ndims; ++i)
    CHORUS_TRY_MPI(narrow("MPI_Type_create_darray_c", "array_of_gsizes[]", array_of_gsizes[i],
                          &g[static_cast<std::size_t>(i)]));
  return PMPI_Type_create_darray(size, rank, ndims, g.data(), array_of_distribs, array_of_dargs, array_of_psizes,
                                 order, oldtype, newtype);
}
CHORUS_ALIAS(MPI_Type_create_darray_c)

// ---- the rest: the same shape each, written at build time ---------------------------
// lib/mpi/gen/large_count.py writes them from their prototypes in mpi.h (the
// functions listed in lib/mpi/gen/large_count.txt).
#include "large_count_gen.inc"
}  // extern "C"
