// MPI_THREAD_MULTIPLE: 4 threads per rank exchange messages concurrently around a
// ring, each on its own tags. Built with mpi_main.cc and
// -DJOBS_THREAD_LEVEL=MPI_THREAD_MULTIPLE. Catch2 assertions are made on the main
// thread only (they are not thread-safe); worker threads count their errors.
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;

TEST_CASE("Concurrent Isend/Irecv/Wait from 4 threads per rank", "[thread]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) {
    WARN("MPI_THREAD_MULTIPLE not granted; provided = " << provided << ": nothing to test");
    return;
  }
  int is_main = 0;
  MPI_OK(MPI_Is_thread_main(&is_main));
  CHECK(is_main);

  constexpr int kThreads = 4, kIters = 100, kCount = 256;
  std::atomic<int> errors{0}, mpi_errors{0}, not_main{0};
  auto worker = [&](int t) {
    int main_flag = 1;
    MPI_Is_thread_main(&main_flag);
    if (main_flag) ++not_main;
    std::vector<int> out(kCount), in(kCount);
    for (int it = 0; it < kIters; ++it) {
      const int tag = 900 + t;  // distinct per thread; order per tag is kept
      for (int i = 0; i < kCount; ++i) out[i] = (rank() * kThreads + t) * 1000000 + it * 1000 + i;
      std::fill(in.begin(), in.end(), -1);
      MPI_Request reqs[2];
      int rc = MPI_Irecv(in.data(), kCount, MPI_INT, left(), tag, MPI_COMM_WORLD, &reqs[0]);
      rc |= MPI_Isend(out.data(), kCount, MPI_INT, right(), tag, MPI_COMM_WORLD, &reqs[1]);
      if (it % 2 == 0) {
        rc |= MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        rc |= MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
      } else {
        rc |= MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
      }
      if (rc != MPI_SUCCESS) ++mpi_errors;
      for (int i = 0; i < kCount; ++i) {
        if (in[i] != (left() * kThreads + t) * 1000000 + it * 1000 + i) {
          ++errors;
          break;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  CHECK(mpi_errors == 0);
  CHECK(errors == 0);
  CHECK(not_main == 0);
}
