// Shared helpers for the multi-rank job tests (tests/jobs).
//
// The tests are written against the standard MPI C API only, so that they can be
// validated against MPICH and Open MPI (tests/jobs/run_with_peer.sh) as well as run
// on Chorus. The harness (mpi_main.cc) runs every TEST_CASE on all ranks in
// declaration order and calls sync_all() after each one.
//
// Rules for test authors:
//  - Every message a test sends must be received inside the same test.
//  - Tags >= kSyncTagBase are reserved for sync_all(); tests use tags below it.
//  - A receive or probe with BOTH MPI_ANY_SOURCE and MPI_ANY_TAG on MPI_COMM_WORLD
//    can match a peer's sync_all() message once that peer has finished the test.
//    Only use it when no peer can have left the test yet (e.g. the peers wait
//    for an acknowledgement first). A wildcard on one field with the other fixed
//    is safe: sync messages use their own tags, and per-sender order keeps a
//    sender's test messages ahead of its sync messages.
#pragma once

// C API only: keep the MPI C++ bindings of peer MPIs out.
#ifndef OMPI_SKIP_MPICXX
#define OMPI_SKIP_MPICXX 1
#endif
#ifndef MPICH_SKIP_MPICXX
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include <catch2/catch.hpp>

namespace jobs {

inline constexpr int kSyncTagBase = 32000;  // MPI guarantees MPI_TAG_UB >= 32767.

int rank();  // rank in MPI_COMM_WORLD
int size();  // size of MPI_COMM_WORLD
int right(); // (rank + 1) % size
int left();  // (rank - 1 + size) % size

// Barrier over MPI_COMM_WORLD built from MPI_Sendrecv only (dissemination).
void sync_all();

// Sets MPI_ERRORS_RETURN on a communicator for the lifetime of the object and
// restores the previous handler afterwards.
class ErrorsReturn {
 public:
  explicit ErrorsReturn(MPI_Comm comm);
  ~ErrorsReturn();
  ErrorsReturn(const ErrorsReturn&) = delete;
  ErrorsReturn& operator=(const ErrorsReturn&) = delete;

 private:
  MPI_Comm comm_;
  MPI_Errhandler saved_ = MPI_ERRHANDLER_NULL;
};

// True when running on MPICH (MPI_Get_library_version starts with "MPICH"). Used
// only to skip checks of behaviour where that peer is known to be wrong; each use
// names the quirk. Never true on Chorus.
bool quirk_mpich();
// Same for Open MPI ("Open MPI" prefix).
bool quirk_openmpi();
// Whether every rank of MPI_COMM_WORLD runs on this node (collective over it).
bool one_node();

// Error class of an MPI return code.
int error_class(int code);

// An MPI_T counter (a performance variable of class COUNTER) from this object's
// creation on: an MPI_T handle counts from its allocation.
class PvarCount {
 public:
  explicit PvarCount(const char* name) {
    int provided, idx, n;
    REQUIRE(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
    REQUIRE(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_COUNTER, &idx) == MPI_SUCCESS);
    REQUIRE(MPI_T_pvar_session_create(&session_) == MPI_SUCCESS);
    REQUIRE(MPI_T_pvar_handle_alloc(session_, idx, nullptr, &h_, &n) == MPI_SUCCESS);
  }
  ~PvarCount() {
    MPI_T_pvar_handle_free(session_, &h_);
    MPI_T_pvar_session_free(&session_);
    MPI_T_finalize();
  }
  PvarCount(const PvarCount&) = delete;
  PvarCount& operator=(const PvarCount&) = delete;
  unsigned long long grew() {
    unsigned long long v = 0;
    REQUIRE(MPI_T_pvar_read(session_, h_, &v) == MPI_SUCCESS);
    return v;
  }

 private:
  MPI_T_pvar_session session_;
  MPI_T_pvar_handle h_;
};

}  // namespace jobs

// An MPI call that must succeed; a failure ends the test case (and the job).
#define MPI_OK(call) REQUIRE((call) == MPI_SUCCESS)

// Repeats an MPI call that sets `flag` (Test, Iprobe, ...) until the flag is set,
// without one Catch2 assertion per iteration; fails if a call returns an error.
#define MPI_POLL(flag, call)                                                  \
  do {                                                                        \
    (flag) = 0;                                                               \
    int jobs_poll_rc_ = MPI_SUCCESS;                                          \
    while (!(flag) && (jobs_poll_rc_ = (call)) == MPI_SUCCESS) {              \
    }                                                                         \
    REQUIRE(jobs_poll_rc_ == MPI_SUCCESS);                                    \
  } while (0)
