// Private interface of lib/mpi/stream.cc (MPIX streams, stream-ordered calls, GPU
// capability queries) towards the rest of lib/mpi.
#pragma once
#include <atomic>

#include "core/comm.h"

namespace chorus::mpi {

// An operation enqueued on a CUDA stream failed after its call had returned.
// There is no return path for it, so it is logged (WARN, GPU) and kept until the
// next MPI call on its communicator, which raises it through the communicator's
// error handler (check_comm asks stream_take_error when this flag is set).
extern std::atomic<bool> g_stream_error_pending;
// The deferred error of `c` as a fresh error code (and forgets it); MPI_SUCCESS if none.
int stream_take_error(Comm* c);

// MPI_Finalize (the last user of the runtime): wait for every operation enqueued on
// a CUDA stream, stop the agent thread, release stream objects and their signals.
// Called without the API lock, before communicators and the transport go away.
void streams_finalize();

// MPI 4.1 memory allocation kinds: `pairs` plus "mpi_memory_alloc_kinds" =
// "mpi,system[,cuda:device,cuda:host,cuda:managed]" (the CUDA kinds when a device
// is usable) unless the key is already there (MPI_Comm_get_info of MPI_COMM_WORLD
// and MPI_COMM_SELF).
InfoPairs with_memory_kinds(InfoPairs pairs);

}  // namespace chorus::mpi
