// Symbols the MPICH ABI references from the header (include/ABI_NOTES.md): a
// program compiled against MPICH's mpi.h resolves them in our library.
#include "mpi/api.h"

namespace {
int g_unweighted_sentinel;
int g_weights_empty_sentinel;
}  // namespace

#pragma GCC visibility push(default)
extern "C" {

// MPI_COMM_DUP_FN and friends: copy the attribute value as is.
int MPIR_Dup_fn(MPI_Comm /*oldcomm*/, int /*keyval*/, void* /*extra_state*/,
                           void* attribute_val_in, void* attribute_val_out, int* flag) {
  *static_cast<void**>(attribute_val_out) = attribute_val_in;
  *flag = 1;
  return MPI_SUCCESS;
}

int* const MPI_UNWEIGHTED = &g_unweighted_sentinel;
int* const MPI_WEIGHTS_EMPTY = &g_weights_empty_sentinel;
MPI_Fint* MPI_F_STATUS_IGNORE = nullptr;
MPI_Fint* MPI_F_STATUSES_IGNORE = nullptr;
MPI_F08_status* MPI_F08_STATUS_IGNORE = nullptr;
MPI_F08_status* MPI_F08_STATUSES_IGNORE = nullptr;
struct MPIR_T_pvar_handle_s* const MPI_T_PVAR_ALL_HANDLES =
    reinterpret_cast<struct MPIR_T_pvar_handle_s*>(-1L);

}  // extern "C"
#pragma GCC visibility pop
