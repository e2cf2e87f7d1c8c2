// Reduction operations: every predefined MPI_Op on every type the standard allows,
// plus user ops (MPI_Op_create). Kernels follow the MPI user-op convention:
//   inout[i] = in[i] (op) inout[i]      (in is the left operand)
//
// Data layout of op_apply's `in` and `inout` (they must not overlap):
//  - predefined types: PACKED elements (core/datatype.h), count * type_size bytes.
//    Same as the user's array for all but the pair types with padding
//    (MPI_DOUBLE_INT: 12 packed bytes per element, 16 in C), which is what the
//    wire carries.
//  - derived types: the type's own (user) layout: element i at ptr + i * extent,
//    its segments at their offsets, exactly like the user's buffer.
//
// How the collective executor reduces a chunk of `bytes` packed bytes of type t:
//  - predefined op: op_apply(op, basic, in, inout, bytes / type_size(basic)) with
//    basic = op_basic_type(t, &per) (t itself when predefined);
//  - user op on a predefined type: op_apply(op, t, in, inout, bytes / t->size)
//    (pair types are unpacked to their C layout around the user's function);
//  - user op on a derived type: unpack both chunks with type_unpack into
//    temporaries spanning type_user_span(t, n), call op_apply(op, t, a - start,
//    b - start, n), and type_pack the result back. The user's function is then
//    called as fn(in, inout, &len, &dtype) with len = n and dtype = the derived handle.
// Pack/unpack user buffers with type_pack / type_unpack; type_is_contiguous(t, n)
// says when buf + true_lb already is the packed form.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <string>

#include "core/status.h"

namespace chorus {

// Checks that `op` is a valid op handle and may be applied to `type` (a predefined
// type, or a derived type built from one predefined type). On failure returns
// InvalidOp (or InvalidType) and sets *why to a sentence naming op and type, e.g.
// "MPI_SUM is not defined for MPI_2INT". MPI_REPLACE and MPI_NO_OP accept any type.
Status op_check(MPI_Op op, MPI_Datatype type, std::string* why);

// True for predefined ops and user ops created as commutative. `op` must be valid.
bool op_is_commutative(MPI_Op op);

// inout = in (op) inout over `count` elements of `type` (layouts above).
// op_check must have accepted (op, type). Derived types with a predefined op are
// also accepted here (reduced through packed copies unless contiguous).
void op_apply(MPI_Op op, MPI_Datatype type, const void* in, void* inout, std::size_t count);

// The predefined type a (possibly derived) type reduces as, and how many of them
// one element of `type` holds; MPI_DATATYPE_NULL when `type` mixes types.
MPI_Datatype op_basic_type(MPI_Datatype type, std::size_t* basics_per_element);

// Names for messages: "MPI_SUM", "user op 0x98000001".
std::string op_name(MPI_Op op);

// ---- user ops -------------------------------------------------------------------
// Exactly one of fn / fn_c is set (MPI_Op_create / MPI_Op_create_c).
Status op_create(MPI_User_function* fn, MPI_User_function_c* fn_c, bool commute, MPI_Op* out);
// MPI_Op_free: predefined ops and invalid handles give InvalidOp. A pending
// operation that holds a reference (op_retain) keeps the function usable.
Status op_free(MPI_Op op);
void op_retain(MPI_Op op);
void op_release(MPI_Op op);
bool op_is_predefined(MPI_Op op);
// Valid op handle (predefined, or a user op not yet freed).
bool op_valid(MPI_Op op);
std::size_t user_op_count();

}  // namespace chorus
