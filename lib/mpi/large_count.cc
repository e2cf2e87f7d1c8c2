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

int narrow(const char* call, const char* arg, MPI_Count v, int* out) {
  if (v < INT_MIN || v > INT_MAX)
    return fail(nullptr, MPI_ERR_ARG, "{}: {} is {}, more than this call takes ({})", call, arg, v, INT_MAX);
  *out = static_cast<int>(v);
  return MPI_SUCCESS;
}

}  // namespace
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
  CHORUS_TRY_MPI(narrow("MPI_Buffer_attach_c", "size", size, &n));
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

// ---- the rest: the same shape each --------------------------------------------------------

int PMPI_Accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  const char* call = "MPI_Accumulate_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Accumulate(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, op, win);
}
CHORUS_ALIAS(MPI_Accumulate_c)

int PMPI_Allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Allgather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm);
}
CHORUS_ALIAS(MPI_Allgather_c)

int PMPI_Allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Allgather_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Allgather_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, info, request);
}
CHORUS_ALIAS(MPI_Allgather_init_c)

int PMPI_Allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Allgatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, true, i_displs));
  return PMPI_Allgatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm);
}
CHORUS_ALIAS(MPI_Allgatherv_c)

int PMPI_Allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Allgatherv_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, true, i_displs));
  return PMPI_Allgatherv_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm, info, request);
}
CHORUS_ALIAS(MPI_Allgatherv_init_c)

int PMPI_Allreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Allreduce_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Allreduce(sendbuf, recvbuf, b_count.count, b_count.type, op, comm);
}
CHORUS_ALIAS(MPI_Allreduce_c)

int PMPI_Allreduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Allreduce_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Allreduce_init(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, info, request);
}
CHORUS_ALIAS(MPI_Allreduce_init_c)

int PMPI_Alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoall_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Alltoall(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm);
}
CHORUS_ALIAS(MPI_Alltoall_c)

int PMPI_Alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Alltoall_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Alltoall_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, info, request);
}
CHORUS_ALIAS(MPI_Alltoall_init_c)

int PMPI_Alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Alltoallv_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Alltoallv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm);
}
CHORUS_ALIAS(MPI_Alltoallv_c)

int PMPI_Alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Alltoallv_init_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Alltoallv_init(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm, info, request);
}
CHORUS_ALIAS(MPI_Alltoallv_init_c)

int PMPI_Alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Alltoallw_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Alltoallw(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtypes, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtypes, comm);
}
CHORUS_ALIAS(MPI_Alltoallw_c)

int PMPI_Alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Alltoallw_init_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Alltoallw_init(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtypes, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtypes, comm, info, request);
}
CHORUS_ALIAS(MPI_Alltoallw_init_c)

int PMPI_Bcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm) {
  const char* call = "MPI_Bcast_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Bcast(buffer, b_count.count, b_count.type, root, comm);
}
CHORUS_ALIAS(MPI_Bcast_c)

int PMPI_Bcast_init_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Bcast_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Bcast_init(buffer, b_count.count, b_count.type, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Bcast_init_c)

int PMPI_Bsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const char* call = "MPI_Bsend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Bsend(buf, b_count.count, b_count.type, dest, tag, comm);
}
CHORUS_ALIAS(MPI_Bsend_c)

int PMPI_Bsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Bsend_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Bsend_init(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Bsend_init_c)

int PMPI_Exscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Exscan_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Exscan(sendbuf, recvbuf, b_count.count, b_count.type, op, comm);
}
CHORUS_ALIAS(MPI_Exscan_c)

int PMPI_Exscan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Exscan_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Exscan_init(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, info, request);
}
CHORUS_ALIAS(MPI_Exscan_init_c)

int PMPI_Gather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Gather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm);
}
CHORUS_ALIAS(MPI_Gather_c)

int PMPI_Gather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Gather_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Gather_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Gather_init_c)

int PMPI_Gatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Gatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, here, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, here, i_displs));
  return PMPI_Gatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, root, comm);
}
CHORUS_ALIAS(MPI_Gatherv_c)

int PMPI_Gatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Gatherv_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, here, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, here, i_displs));
  return PMPI_Gatherv_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Gatherv_init_c)

int PMPI_Get_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  const char* call = "MPI_Get_accumulate_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_result_count;
  CHORUS_TRY_MPI(big(call, result_count, result_datatype, b_result_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Get_accumulate(origin_addr, b_origin_count.count, b_origin_count.type, result_addr, b_result_count.count, b_result_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, op, win);
}
CHORUS_ALIAS(MPI_Get_accumulate_c)

int PMPI_Get_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  const char* call = "MPI_Get_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Get(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, win);
}
CHORUS_ALIAS(MPI_Get_c)

int PMPI_Iallgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iallgather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Iallgather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, request);
}
CHORUS_ALIAS(MPI_Iallgather_c)

int PMPI_Iallgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iallgatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, true, i_displs));
  return PMPI_Iallgatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm, request);
}
CHORUS_ALIAS(MPI_Iallgatherv_c)

int PMPI_Iallreduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iallreduce_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Iallreduce(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, request);
}
CHORUS_ALIAS(MPI_Iallreduce_c)

int PMPI_Ialltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ialltoall_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Ialltoall(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, request);
}
CHORUS_ALIAS(MPI_Ialltoall_c)

int PMPI_Ialltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ialltoallv_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Ialltoallv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm, request);
}
CHORUS_ALIAS(MPI_Ialltoallv_c)

int PMPI_Ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ialltoallw_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, false, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, false, true, true, i_rdispls));
  return PMPI_Ialltoallw(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtypes, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtypes, comm, request);
}
CHORUS_ALIAS(MPI_Ialltoallw_c)

int PMPI_Ibcast_c(void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ibcast_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Ibcast(buffer, b_count.count, b_count.type, root, comm, request);
}
CHORUS_ALIAS(MPI_Ibcast_c)

int PMPI_Ibsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ibsend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Ibsend(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Ibsend_c)

int PMPI_Iexscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iexscan_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Iexscan(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, request);
}
CHORUS_ALIAS(MPI_Iexscan_c)

int PMPI_Igather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Igather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Igather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, request);
}
CHORUS_ALIAS(MPI_Igather_c)

int PMPI_Igatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Igatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, false, true, here, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, true, here, i_displs));
  return PMPI_Igatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, root, comm, request);
}
CHORUS_ALIAS(MPI_Igatherv_c)

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request) {
  const char* call = "MPI_Imrecv_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Imrecv(buf, b_count.count, b_count.type, message, request);
}
CHORUS_ALIAS(MPI_Imrecv_c)

int PMPI_Ineighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ineighbor_allgather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Ineighbor_allgather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, request);
}
CHORUS_ALIAS(MPI_Ineighbor_allgather_c)

int PMPI_Ineighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ineighbor_allgatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, true, true, true, i_displs));
  return PMPI_Ineighbor_allgatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm, request);
}
CHORUS_ALIAS(MPI_Ineighbor_allgatherv_c)

int PMPI_Ineighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ineighbor_alltoall_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Ineighbor_alltoall(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, request);
}
CHORUS_ALIAS(MPI_Ineighbor_alltoall_c)

int PMPI_Ineighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ineighbor_alltoallv_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, true, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, true, true, true, i_rdispls));
  return PMPI_Ineighbor_alltoallv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm, request);
}
CHORUS_ALIAS(MPI_Ineighbor_alltoallv_c)

int PMPI_Ineighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ineighbor_alltoallw_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  return PMPI_Ineighbor_alltoallw(sendbuf, data_or_null(i_sendcounts), sdispls, sendtypes, recvbuf, data_or_null(i_recvcounts), rdispls, recvtypes, comm, request);
}
CHORUS_ALIAS(MPI_Ineighbor_alltoallw_c)

int PMPI_Irecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Irecv_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Irecv(buf, b_count.count, b_count.type, source, tag, comm, request);
}
CHORUS_ALIAS(MPI_Irecv_c)

int PMPI_Ireduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ireduce_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Ireduce(sendbuf, recvbuf, b_count.count, b_count.type, op, root, comm, request);
}
CHORUS_ALIAS(MPI_Ireduce_c)

int PMPI_Ireduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ireduce_scatter_block_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, datatype, b_recvcount, op));
  return PMPI_Ireduce_scatter_block(sendbuf, recvbuf, b_recvcount.count, b_recvcount.type, op, comm, request);
}
CHORUS_ALIAS(MPI_Ireduce_scatter_block_c)

int PMPI_Ireduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ireduce_scatter_c";
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints_local(call, "recvcounts", recvcounts, comm, i_recvcounts));
  return PMPI_Ireduce_scatter(sendbuf, recvbuf, data_or_null(i_recvcounts), datatype, op, comm, request);
}
CHORUS_ALIAS(MPI_Ireduce_scatter_c)

int PMPI_Irsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Irsend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Irsend(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Irsend_c)

int PMPI_Iscan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iscan_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Iscan(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, request);
}
CHORUS_ALIAS(MPI_Iscan_c)

int PMPI_Iscatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iscatter_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Iscatter(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, request);
}
CHORUS_ALIAS(MPI_Iscatter_c)

int PMPI_Iscatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Iscatterv_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, here, i_sendcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, false, here, i_displs));
  return PMPI_Iscatterv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_displs), sendtype, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, request);
}
CHORUS_ALIAS(MPI_Iscatterv_c)

int PMPI_Isend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Isend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Isend(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Isend_c)

int PMPI_Isendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Isendrecv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Isendrecv(sendbuf, b_sendcount.count, b_sendcount.type, dest, sendtag, recvbuf, b_recvcount.count, b_recvcount.type, source, recvtag, comm, request);
}
CHORUS_ALIAS(MPI_Isendrecv_c)

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Isendrecv_replace_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Isendrecv_replace(buf, b_count.count, b_count.type, dest, sendtag, source, recvtag, comm, request);
}
CHORUS_ALIAS(MPI_Isendrecv_replace_c)

int PMPI_Issend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Issend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Issend(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Issend_c)

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status) {
  const char* call = "MPI_Mrecv_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Mrecv(buf, b_count.count, b_count.type, message, status);
}
CHORUS_ALIAS(MPI_Mrecv_c)

int PMPI_Neighbor_allgather_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgather_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Neighbor_allgather(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm);
}
CHORUS_ALIAS(MPI_Neighbor_allgather_c)

int PMPI_Neighbor_allgather_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Neighbor_allgather_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Neighbor_allgather_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, info, request);
}
CHORUS_ALIAS(MPI_Neighbor_allgather_init_c)

int PMPI_Neighbor_allgatherv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_allgatherv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, true, true, true, i_displs));
  return PMPI_Neighbor_allgatherv(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm);
}
CHORUS_ALIAS(MPI_Neighbor_allgatherv_c)

int PMPI_Neighbor_allgatherv_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Neighbor_allgatherv_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, true, true, true, i_displs));
  return PMPI_Neighbor_allgatherv_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, data_or_null(i_recvcounts), data_or_null(i_displs), recvtype, comm, info, request);
}
CHORUS_ALIAS(MPI_Neighbor_allgatherv_init_c)

int PMPI_Neighbor_alltoall_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoall_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Neighbor_alltoall(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm);
}
CHORUS_ALIAS(MPI_Neighbor_alltoall_c)

int PMPI_Neighbor_alltoall_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Neighbor_alltoall_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Neighbor_alltoall_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, comm, info, request);
}
CHORUS_ALIAS(MPI_Neighbor_alltoall_init_c)

int PMPI_Neighbor_alltoallv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallv_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, true, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, true, true, true, i_rdispls));
  return PMPI_Neighbor_alltoallv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm);
}
CHORUS_ALIAS(MPI_Neighbor_alltoallv_c)

int PMPI_Neighbor_alltoallv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Neighbor_alltoallv_init_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_sdispls;
  CHORUS_TRY_MPI(ints(call, "sdispls", sdispls, comm, true, false, true, i_sdispls));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  std::vector<int> i_rdispls;
  CHORUS_TRY_MPI(ints(call, "rdispls", rdispls, comm, true, true, true, i_rdispls));
  return PMPI_Neighbor_alltoallv_init(sendbuf, data_or_null(i_sendcounts), data_or_null(i_sdispls), sendtype, recvbuf, data_or_null(i_recvcounts), data_or_null(i_rdispls), recvtype, comm, info, request);
}
CHORUS_ALIAS(MPI_Neighbor_alltoallv_init_c)

int PMPI_Neighbor_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  const char* call = "MPI_Neighbor_alltoallw_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  return PMPI_Neighbor_alltoallw(sendbuf, data_or_null(i_sendcounts), sdispls, sendtypes, recvbuf, data_or_null(i_recvcounts), rdispls, recvtypes, comm);
}
CHORUS_ALIAS(MPI_Neighbor_alltoallw_c)

int PMPI_Neighbor_alltoallw_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Neighbor_alltoallw_init_c";
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, true, false, true, i_sendcounts));
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints(call, "recvcounts", recvcounts, comm, true, true, true, i_recvcounts));
  return PMPI_Neighbor_alltoallw_init(sendbuf, data_or_null(i_sendcounts), sdispls, sendtypes, recvbuf, data_or_null(i_recvcounts), rdispls, recvtypes, comm, info, request);
}
CHORUS_ALIAS(MPI_Neighbor_alltoallw_init_c)

int PMPI_Put_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win) {
  const char* call = "MPI_Put_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Put(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, win);
}
CHORUS_ALIAS(MPI_Put_c)

int PMPI_Raccumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
  const char* call = "MPI_Raccumulate_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Raccumulate(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, op, win, request);
}
CHORUS_ALIAS(MPI_Raccumulate_c)

int PMPI_Recv_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status) {
  const char* call = "MPI_Recv_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Recv(buf, b_count.count, b_count.type, source, tag, comm, status);
}
CHORUS_ALIAS(MPI_Recv_c)

int PMPI_Recv_init_c(void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Recv_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Recv_init(buf, b_count.count, b_count.type, source, tag, comm, request);
}
CHORUS_ALIAS(MPI_Recv_init_c)

int PMPI_Reduce_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm) {
  const char* call = "MPI_Reduce_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Reduce(sendbuf, recvbuf, b_count.count, b_count.type, op, root, comm);
}
CHORUS_ALIAS(MPI_Reduce_c)

int PMPI_Reduce_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Reduce_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Reduce_init(sendbuf, recvbuf, b_count.count, b_count.type, op, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Reduce_init_c)

int PMPI_Reduce_scatter_block_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_block_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, datatype, b_recvcount, op));
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, b_recvcount.count, b_recvcount.type, op, comm);
}
CHORUS_ALIAS(MPI_Reduce_scatter_block_c)

int PMPI_Reduce_scatter_block_init_c(const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Reduce_scatter_block_init_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, datatype, b_recvcount, op));
  return PMPI_Reduce_scatter_block_init(sendbuf, recvbuf, b_recvcount.count, b_recvcount.type, op, comm, info, request);
}
CHORUS_ALIAS(MPI_Reduce_scatter_block_init_c)

int PMPI_Reduce_scatter_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Reduce_scatter_c";
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints_local(call, "recvcounts", recvcounts, comm, i_recvcounts));
  return PMPI_Reduce_scatter(sendbuf, recvbuf, data_or_null(i_recvcounts), datatype, op, comm);
}
CHORUS_ALIAS(MPI_Reduce_scatter_c)

int PMPI_Reduce_scatter_init_c(const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Reduce_scatter_init_c";
  std::vector<int> i_recvcounts;
  CHORUS_TRY_MPI(ints_local(call, "recvcounts", recvcounts, comm, i_recvcounts));
  return PMPI_Reduce_scatter_init(sendbuf, recvbuf, data_or_null(i_recvcounts), datatype, op, comm, info, request);
}
CHORUS_ALIAS(MPI_Reduce_scatter_init_c)

int PMPI_Rget_accumulate_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request) {
  const char* call = "MPI_Rget_accumulate_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_result_count;
  CHORUS_TRY_MPI(big(call, result_count, result_datatype, b_result_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Rget_accumulate(origin_addr, b_origin_count.count, b_origin_count.type, result_addr, b_result_count.count, b_result_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, op, win, request);
}
CHORUS_ALIAS(MPI_Rget_accumulate_c)

int PMPI_Rget_c(void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  const char* call = "MPI_Rget_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Rget(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, win, request);
}
CHORUS_ALIAS(MPI_Rget_c)

int PMPI_Rput_c(const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request) {
  const char* call = "MPI_Rput_c";
  Big b_origin_count;
  CHORUS_TRY_MPI(big(call, origin_count, origin_datatype, b_origin_count));
  Big b_target_count;
  CHORUS_TRY_MPI(big(call, target_count, target_datatype, b_target_count));
  return PMPI_Rput(origin_addr, b_origin_count.count, b_origin_count.type, target_rank, target_disp, b_target_count.count, b_target_count.type, win, request);
}
CHORUS_ALIAS(MPI_Rput_c)

int PMPI_Rsend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const char* call = "MPI_Rsend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Rsend(buf, b_count.count, b_count.type, dest, tag, comm);
}
CHORUS_ALIAS(MPI_Rsend_c)

int PMPI_Rsend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Rsend_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Rsend_init(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Rsend_init_c)

int PMPI_Scan_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm) {
  const char* call = "MPI_Scan_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Scan(sendbuf, recvbuf, b_count.count, b_count.type, op, comm);
}
CHORUS_ALIAS(MPI_Scan_c)

int PMPI_Scan_init_c(const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Scan_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count, op));
  return PMPI_Scan_init(sendbuf, recvbuf, b_count.count, b_count.type, op, comm, info, request);
}
CHORUS_ALIAS(MPI_Scan_init_c)

int PMPI_Scatter_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatter_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Scatter(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm);
}
CHORUS_ALIAS(MPI_Scatter_c)

int PMPI_Scatter_init_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Scatter_init_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Scatter_init(sendbuf, b_sendcount.count, b_sendcount.type, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Scatter_init_c)

int PMPI_Scatterv_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const char* call = "MPI_Scatterv_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, here, i_sendcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, false, here, i_displs));
  return PMPI_Scatterv(sendbuf, data_or_null(i_sendcounts), data_or_null(i_displs), sendtype, recvbuf, b_recvcount.count, b_recvcount.type, root, comm);
}
CHORUS_ALIAS(MPI_Scatterv_c)

int PMPI_Scatterv_init_c(const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request) {
  const char* call = "MPI_Scatterv_init_c";
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  const bool here = at_root(comm, root);  // the arrays count at the root only
  std::vector<int> i_sendcounts;
  CHORUS_TRY_MPI(ints(call, "sendcounts", sendcounts, comm, false, false, here, i_sendcounts));
  std::vector<int> i_displs;
  CHORUS_TRY_MPI(ints(call, "displs", displs, comm, false, false, here, i_displs));
  return PMPI_Scatterv_init(sendbuf, data_or_null(i_sendcounts), data_or_null(i_displs), sendtype, recvbuf, b_recvcount.count, b_recvcount.type, root, comm, info, request);
}
CHORUS_ALIAS(MPI_Scatterv_init_c)

int PMPI_Send_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const char* call = "MPI_Send_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Send(buf, b_count.count, b_count.type, dest, tag, comm);
}
CHORUS_ALIAS(MPI_Send_c)

int PMPI_Send_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Send_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Send_init(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Send_init_c)

int PMPI_Sendrecv_c(const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  const char* call = "MPI_Sendrecv_c";
  Big b_sendcount;
  CHORUS_TRY_MPI(big(call, sendcount, sendtype, b_sendcount));
  Big b_recvcount;
  CHORUS_TRY_MPI(big(call, recvcount, recvtype, b_recvcount));
  return PMPI_Sendrecv(sendbuf, b_sendcount.count, b_sendcount.type, dest, sendtag, recvbuf, b_recvcount.count, b_recvcount.type, source, recvtag, comm, status);
}
CHORUS_ALIAS(MPI_Sendrecv_c)

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status) {
  const char* call = "MPI_Sendrecv_replace_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Sendrecv_replace(buf, b_count.count, b_count.type, dest, sendtag, source, recvtag, comm, status);
}
CHORUS_ALIAS(MPI_Sendrecv_replace_c)

int PMPI_Ssend_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
  const char* call = "MPI_Ssend_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Ssend(buf, b_count.count, b_count.type, dest, tag, comm);
}
CHORUS_ALIAS(MPI_Ssend_c)

int PMPI_Ssend_init_c(const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request) {
  const char* call = "MPI_Ssend_init_c";
  Big b_count;
  CHORUS_TRY_MPI(big(call, count, datatype, b_count));
  return PMPI_Ssend_init(buf, b_count.count, b_count.type, dest, tag, comm, request);
}
CHORUS_ALIAS(MPI_Ssend_init_c)
}  // extern "C"
