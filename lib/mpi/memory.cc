// MPI_Alloc_mem / MPI_Free_mem, and small calls programs built against MPICH
// expect to link: MPI_Pcontrol and the status conversions (MPI_Status_c2f,
// _f2c, _c2f08, _f082c, _f082f, _f2f08).
//
// MPI_Alloc_mem hands out memory aligned to a page (large enough for any type,
// and what a later registration with the network wants); its info hints are
// checked as a handle and otherwise not used. Every block is remembered, so
// MPI_Free_mem of a pointer that did not come from MPI_Alloc_mem, or of one
// freed already, is an error that names it instead of a crash in free().
#include <unistd.h>

#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

std::unordered_map<void*, std::size_t>& blocks() {
  static std::unordered_map<void*, std::size_t> b;
  return b;
}

}  // namespace
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void* baseptr) {
  const char* call = "MPI_Alloc_mem";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (size < 0) return fail(nullptr, MPI_ERR_SIZE, "{}: size is {}, must be non-negative", call, size);
  if (!baseptr) return fail(nullptr, MPI_ERR_ARG, "{}: baseptr is NULL", call);
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  static const std::size_t page = [] {
    long p = ::sysconf(_SC_PAGESIZE);
    return p > 0 ? static_cast<std::size_t>(p) : std::size_t{4096};
  }();
  // A block of 0 bytes is still a distinct pointer that MPI_Free_mem takes back.
  const std::size_t bytes = (static_cast<std::size_t>(size) + page - 1) / page * page;
  void* p = std::aligned_alloc(page, bytes == 0 ? page : bytes);
  if (!p)
    return fail(nullptr, MPI_ERR_NO_MEM, "{}: cannot allocate {} bytes: {}", call, size, std::strerror(errno));
  blocks()[p] = static_cast<std::size_t>(size);
  std::memcpy(baseptr, &p, sizeof p);  // baseptr is a void** passed as void*
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Alloc_mem)

int PMPI_Free_mem(void* base) {
  const char* call = "MPI_Free_mem";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  auto it = blocks().find(base);
  if (it == blocks().end())
    return fail(nullptr, MPI_ERR_BASE, "{}: base {} did not come from MPI_Alloc_mem (or was freed already)", call,
                base);
  blocks().erase(it);
  std::free(base);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Free_mem)

// Profiling control: MPI defines no effect of its own; a profiling layer that
// intercepts MPI_Pcontrol gives the levels a meaning.
int PMPI_Pcontrol(const int level, ...) {
  (void)level;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Pcontrol)

// A Fortran status is MPI_F_STATUS_SIZE integers in the C status's own order.
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
  const char* call = "MPI_Status_c2f";
  if (!c_status || c_status == MPI_STATUS_IGNORE)
    return fail(nullptr, MPI_ERR_ARG, "{}: c_status is {}", call, c_status ? "MPI_STATUS_IGNORE" : "NULL");
  if (!f_status) return fail(nullptr, MPI_ERR_ARG, "{}: f_status is NULL", call);
  static_assert(sizeof(MPI_Status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
  std::memcpy(f_status, c_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Status_c2f)

int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
  const char* call = "MPI_Status_f2c";
  if (!f_status) return fail(nullptr, MPI_ERR_ARG, "{}: f_status is NULL (or MPI_F_STATUS_IGNORE)", call);
  if (!c_status || c_status == MPI_STATUS_IGNORE)
    return fail(nullptr, MPI_ERR_ARG, "{}: c_status is {}", call, c_status ? "MPI_STATUS_IGNORE" : "NULL");
  std::memcpy(c_status, f_status, sizeof(MPI_Status));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Status_f2c)

// The Fortran 2008 status holds the same five words in the same order.
static int status_words(const char* call, const void* from, const char* from_name, void* to, const char* to_name) {
  static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status));
  if (!from) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL (or an IGNORE constant)", call, from_name);
  if (!to || to == MPI_STATUS_IGNORE) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, to_name);
  std::memcpy(to, from, sizeof(MPI_Status));
  return MPI_SUCCESS;
}

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "memory_forward.inc"

}  // extern "C"
