// Reduction op calls: MPI_Op_create/free/commutative and MPI_Reduce_local. The
// kernels and the (op, type) table live in core/op.cc.
#include <vector>

#include "core/op.h"
#include "mpi/api.h"

namespace chorus::mpi {
int check_data_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out);  // mpi/datatype.cc
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

namespace {

int op_create_any(const char* call, MPI_User_function* fn, MPI_User_function_c* fn_c, int commute,
                  MPI_Op* op) {
  if (!fn && !fn_c) return fail(nullptr, MPI_ERR_ARG, "{}: user_fn is NULL", call);
  if (!op) return fail(nullptr, MPI_ERR_ARG, "{}: op is NULL", call);
  p2p::ApiLock lock;
  Status s = op_create(fn, fn_c, commute != 0, op);
  if (!ok(s)) return fail(nullptr, to_mpi_class(s), "{}: too many user ops are alive", call);
  return MPI_SUCCESS;
}

int reduce_local(const char* call, const void* inbuf, void* inoutbuf, MPI_Count count,
                 MPI_Datatype datatype, MPI_Op op) {
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_data_type(call, nullptr, datatype, &ti));
  std::string why;
  Status s = op_check(op, datatype, &why);
  if (!ok(s)) return fail(nullptr, to_mpi_class(s), "{}: {}", call, why);
  if (count == 0) return MPI_SUCCESS;
  if (inbuf == MPI_IN_PLACE || inoutbuf == MPI_IN_PLACE)
    return fail(nullptr, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is not allowed", call);
  if (ti->predefined && (!inbuf || !inoutbuf))
    return fail(nullptr, MPI_ERR_BUFFER, "{}: {} is NULL with count {}", call,
                inbuf ? "inoutbuf" : "inbuf", count);
  auto n = static_cast<std::size_t>(count);
  p2p::ApiLock lock;
  if (!ti->predefined || type_is_contiguous(*ti, n)) {
    // Derived types are reduced in their own layout; contiguous predefined ones are packed.
    op_apply(op, datatype, inbuf, inoutbuf, n);
    return MPI_SUCCESS;
  }
  // Pair types with padding (MPI_DOUBLE_INT...): reduce their packed form.
  std::vector<std::byte> a(wire_bytes(*ti, n)), b(a.size());
  type_pack(*ti, inbuf, n, a.data());
  type_pack(*ti, inoutbuf, n, b.data());
  op_apply(op, datatype, a.data(), b.data(), n);
  type_unpack(*ti, b.data(), n, inoutbuf);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Op_create(MPI_User_function* user_fn, int commute, MPI_Op* op) {
  return op_create_any("MPI_Op_create", user_fn, nullptr, commute, op);
}
CHORUS_ALIAS(MPI_Op_create)

int PMPI_Op_create_c(MPI_User_function_c* user_fn, int commute, MPI_Op* op) {
  return op_create_any("MPI_Op_create_c", nullptr, user_fn, commute, op);
}
CHORUS_ALIAS(MPI_Op_create_c)

int PMPI_Op_free(MPI_Op* op) {
  if (!op) return fail(nullptr, MPI_ERR_ARG, "MPI_Op_free: op is NULL");
  if (op_is_predefined(*op))
    return fail(nullptr, MPI_ERR_OP, "MPI_Op_free: op {} is predefined and cannot be freed", op_name(*op));
  p2p::ApiLock lock;
  if (!ok(op_free(*op)))
    return fail(nullptr, MPI_ERR_OP, "MPI_Op_free: op is {}, not a valid user op", op_name(*op));
  *op = MPI_OP_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Op_free)

int PMPI_Op_commutative(MPI_Op op, int* commute) {
  if (!commute) return fail(nullptr, MPI_ERR_ARG, "MPI_Op_commutative: commute is NULL");
  if (!op_valid(op)) return fail(nullptr, MPI_ERR_OP, "MPI_Op_commutative: op is {}, not a valid op", op_name(op));
  *commute = op_is_commutative(op) ? 1 : 0;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Op_commutative)

int PMPI_Reduce_local(const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
  return reduce_local("MPI_Reduce_local", inbuf, inoutbuf, count, datatype, op);
}
CHORUS_ALIAS(MPI_Reduce_local)

int PMPI_Reduce_local_c(const void* inbuf, void* inoutbuf, MPI_Count count, MPI_Datatype datatype,
                        MPI_Op op) {
  return reduce_local("MPI_Reduce_local_c", inbuf, inoutbuf, count, datatype, op);
}
CHORUS_ALIAS(MPI_Reduce_local_c)

}  // extern "C"
