// main() of the GPU job tests (tests/gpu) and of the stream tests
// (tests/gpu_stream): the SKIP rule (gpu_harness.h), then the Catch2 job main of
// tests/jobs (mpi_main.cc, compiled with -Dmain=gpu_jobs_catch_main), with the
// device bound on every rank before the first test.
// With GPU_MAIN_RUN_WHEN_OFF defined, CHORUS_GPU=off does not SKIP: the tests run
// in a host-only process (the [nogpu] tests of tests/gpu_stream).
// Listener base classes without a second copy of Catch2's implementation.
#define CATCH_CONFIG_EXTERNAL_INTERFACES
#include <cstdio>
#include <string>

#include "gpu_harness.h"

int gpu_jobs_catch_main(int argc, char** argv);

namespace {

// After MPI_Init (inside the Catch2 session) and before any test: bind the device.
struct GpuSetupListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(const Catch::TestRunInfo& info) override {
    TestEventListenerBase::testRunStarting(info);
    gpu_test::setup();
  }
};
CATCH_REGISTER_LISTENER(GpuSetupListener)

}  // namespace

int main(int argc, char** argv) {
#ifdef GPU_MAIN_RUN_WHEN_OFF
  const bool run_when_off = true;
#else
  const bool run_when_off = false;
#endif
  std::string why;
  if (!gpu_test::probe(&why) && !(run_when_off && gpu_test::gpu_off())) {
    // Every rank decides alike (same machine, same environment); rank 0 says so.
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
      std::printf("SKIP: no CUDA device (%s)\n", why.c_str());
      std::fflush(stdout);
    }
    MPI_Finalize();
    return 0;
  }
  return gpu_jobs_catch_main(argc, argv);
}
