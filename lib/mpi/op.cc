// Reduction op calls: MPI_Op_create/free/commutative and MPI_Reduce_local. The
// kernels and the (op, type) table live in core/op.cc.
#include <vector>

#include "core/op.h"
#include "gpu/gpu.h"
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

// MPI_Reduce_local on host memory.
int reduce_local_host(MPI_Op op, const TypeInfo* ti, const void* inbuf, void* inoutbuf, std::size_t n) {
  if (!ti->predefined || type_is_contiguous(*ti, n)) {
    // Derived types are reduced in their own layout; contiguous predefined ones are packed.
    op_apply(op, ti->handle, inbuf, inoutbuf, n);
    return MPI_SUCCESS;
  }
  // Pair types with padding (MPI_DOUBLE_INT...): reduce their packed form.
  std::vector<std::byte> a(wire_bytes(*ti, n)), b(a.size());
  type_pack(*ti, inbuf, n, a.data());
  type_pack(*ti, inoutbuf, n, b.data());
  op_apply(op, ti->handle, a.data(), b.data(), n);
  type_unpack(*ti, b.data(), n, inoutbuf);
  return MPI_SUCCESS;
}

// MPI_Reduce_local on device memory: a CUDA kernel for predefined ops on contiguous
// types that have one (an operand in host memory is staged to the device first);
// otherwise both operands' spans are staged on the host, reduced there, copied back.
int reduce_local_device(const char* call, const void* inbuf, void* inoutbuf, std::size_t n,
                        const TypeInfo* ti, MPI_Op op) {
  auto gpu_fail = [&](const char* what) {
    return fail(nullptr, MPI_ERR_OTHER, "{}: {} failed: {}", call, what, gpu::last_error());
  };
  std::ptrdiff_t start = 0;
  std::size_t span = 0;
  type_user_span(*ti, n, &start, &span);
  auto* in = static_cast<const std::byte*>(inbuf) + start;
  auto* io = static_cast<std::byte*>(inoutbuf) + start;
  if (ti->predefined && type_is_contiguous(*ti, n) && op_is_predefined(op) &&
      gpu::reduce_supported(op, ti->handle)) {
    void* ta = nullptr;
    void* tb = nullptr;
    auto release = [&] {
      if (ta) gpu::device_free(ta);
      if (tb) gpu::device_free(tb);
    };
    const void* a = in;
    void* b = io;
    if (!gpu::on_device(in)) {
      if (!ok(gpu::device_alloc(span, &ta)) || !ok(gpu::copy(ta, in, span))) return release(), gpu_fail("staging inbuf");
      a = ta;
    }
    if (!gpu::on_device(io)) {
      if (!ok(gpu::device_alloc(span, &tb)) || !ok(gpu::copy(tb, io, span))) return release(), gpu_fail("staging inoutbuf");
      b = tb;
    }
    bool good = ok(gpu::reduce(op, ti->handle, a, b, n)) && (!tb || ok(gpu::copy(io, tb, span)));
    release();
    return good ? MPI_SUCCESS : gpu_fail("the device reduction");
  }
  std::vector<std::byte> a(span), b(span);
  if (!ok(gpu::copy(a.data(), in, span)) || !ok(gpu::copy(b.data(), io, span)))
    return gpu_fail("staging the operands on the host");
  int rc = reduce_local_host(op, ti, a.data() - start, b.data() - start, n);
  if (rc == MPI_SUCCESS && !ok(gpu::copy(io, b.data(), span))) return gpu_fail("copying the result back");
  return rc;
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
  if (inbuf == inoutbuf)
    return fail(nullptr, MPI_ERR_BUFFER, "{}: inbuf and inoutbuf are the same buffer {}; MPI forbids aliased arguments",
                call, inbuf);
  if (ti->predefined && (!inbuf || !inoutbuf))
    return fail(nullptr, MPI_ERR_BUFFER, "{}: {} is NULL with count {}", call,
                inbuf ? "inoutbuf" : "inbuf", count);
  auto n = static_cast<std::size_t>(count);
  p2p::ApiLock lock;
  if (gpu::on_device(inbuf) || gpu::on_device(inoutbuf)) return reduce_local_device(call, inbuf, inoutbuf, n, ti, op);
  return reduce_local_host(op, ti, inbuf, inoutbuf, n);
}

}  // namespace

extern "C" {

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

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "op_forward.inc"

}  // extern "C"
