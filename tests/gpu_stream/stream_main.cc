// main() of the stream tests: the SKIP rule (stream_harness.h), then the Catch2
// job main of tests/jobs (mpi_main.cc, compiled with -Dmain=stream_jobs_catch_main),
// with the device bound before the first test.
#define CATCH_CONFIG_EXTERNAL_INTERFACES  // Catch::TestEventListenerBase
#include <cstdio>
#include <string>

#include "stream_harness.h"

int stream_jobs_catch_main(int argc, char** argv);

namespace {

struct StreamSetupListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;
  void testRunStarting(const Catch::TestRunInfo& info) override {
    TestEventListenerBase::testRunStarting(info);
    stream_test::setup();
  }
};
CATCH_REGISTER_LISTENER(StreamSetupListener)

}  // namespace

int main(int argc, char** argv) {
  std::string why;
  if (!stream_test::probe(&why) && !stream_test::gpu_off()) {
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
  return stream_jobs_catch_main(argc, argv);
}
