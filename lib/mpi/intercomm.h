// The collectives on an intercommunicator (intercomm.cc). The MPI entry points of
// lib/mpi/coll.cc hand an intercommunicator to these; arguments follow MPI's
// two-group rules (root MPI_ROOT / MPI_PROC_NULL / a remote rank, counts of the
// remote group, no MPI_IN_PLACE). `request` null: blocking; else the call starts
// the collective and *request completes with it.
#pragma once
#include <mpi.h>

#include "core/comm.h"
#include "core/request.h"

namespace chorus::mpi {

// The intercommunicator behind `comm`, or nullptr (an intracommunicator, or not
// a communicator: the caller's own checks report that).
Comm* intercomm_of(MPI_Comm comm);

// Let the non-blocking collectives queued on intercommunicator `c` finish (before
// anything else uses its hidden communicators, and before it is freed).
// persistent_too: also wait for its started persistent collectives (they run
// apart from the ordered ones; MPI_Comm_free and _disconnect wait for them).
void inter_drain(Comm* c, bool persistent_too = false);

// While one lives (on this thread), the collectives below make persistent
// requests (MPI_*_init): the plan's operations are made persistent now, in init
// order; each MPI_Start starts them in a queue of the request's own.
struct InterPersistent {
  InterPersistent();
  ~InterPersistent();
  InterPersistent(const InterPersistent&) = delete;
  InterPersistent& operator=(const InterPersistent&) = delete;
};
// MPI_Start on such a request.
int inter_start(Request* r);

int inter_barrier(const char* call, Comm* c, MPI_Request* request);
int inter_bcast(const char* call, Comm* c, void* buf, int count, MPI_Datatype t, int root, MPI_Request* request);
int inter_reduce(const char* call, Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t,
                 MPI_Op op, int root, MPI_Request* request);
int inter_allreduce(const char* call, Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t,
                    MPI_Op op, MPI_Request* request);
int inter_allgather(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                    int rc, MPI_Datatype rt, MPI_Request* request);
int inter_gather(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf, int rc,
                 MPI_Datatype rt, int root, MPI_Request* request);
int inter_scatter(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf, int rc,
                  MPI_Datatype rt, int root, MPI_Request* request);
int inter_alltoall(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                   int rc, MPI_Datatype rt, MPI_Request* request);
int inter_allgatherv(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Request* request);
int inter_gatherv(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rt, int root, MPI_Request* request);
int inter_scatterv(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int displs[],
                   MPI_Datatype st, void* recvbuf, int rc, MPI_Datatype rt, int root, MPI_Request* request);
int inter_alltoallv(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int sdispls[],
                    MPI_Datatype st, void* recvbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt, MPI_Request* request);
int inter_alltoallw(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype stypes[], void* recvbuf, const int rcounts[], const int rdispls[],
                    const MPI_Datatype rtypes[], MPI_Request* request);
int inter_reduce_scatter(const char* call, Comm* c, const void* sendbuf, void* recvbuf, const int rcounts[],
                         MPI_Datatype t, MPI_Op op, MPI_Request* request);

}  // namespace chorus::mpi
