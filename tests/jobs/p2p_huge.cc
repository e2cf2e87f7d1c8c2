// Point-to-point: a 1 GiB message between ranks 0 and 1 (registered at 2 ranks).
#include <climits>
#include <cstdint>
#include <memory>

#include "mpi_test.h"

using jobs::rank;
using jobs::size;

namespace {

constexpr std::size_t kBytes = std::size_t{1} << 30;
constexpr std::size_t kWords = kBytes / sizeof(std::uint64_t);

std::uint64_t word(std::size_t i) { return (i + 1) * 0x9E3779B97F4A7C15ull ^ (i >> 7); }

}  // namespace

TEST_CASE("A 1 GiB message from rank 0 to rank 1", "[p2p][huge]") {
  if (size() < 2) {
    WARN("SKIP: needs at least 2 ranks");
    return;
  }
  if (rank() > 1) return;
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[kWords]);
  if (rank() == 0) {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kWords; ++i) {
      buf[i] = word(i);
      sum += buf[i];
    }
    MPI_OK(MPI_Send(buf.get(), static_cast<int>(kBytes), MPI_BYTE, 1, 800, MPI_COMM_WORLD));
    MPI_OK(MPI_Send(&sum, 1, MPI_UINT64_T, 1, 801, MPI_COMM_WORLD));
  } else {
    for (std::size_t i = 0; i < kWords; i += 4096) buf[i] = 0;  // touch the pages
    MPI_Status st;
    MPI_OK(MPI_Recv(buf.get(), static_cast<int>(kBytes), MPI_BYTE, 0, 800, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == static_cast<int>(kBytes));
    std::uint64_t sent_sum = 0;
    MPI_OK(MPI_Recv(&sent_sum, 1, MPI_UINT64_T, 0, 801, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    // Samples: the ends and a stride through the middle.
    CHECK(buf[0] == word(0));
    CHECK(buf[kWords - 1] == word(kWords - 1));
    CHECK(buf[kWords / 2] == word(kWords / 2));
    int bad_samples = 0;
    for (std::size_t i = 0; i < kWords; i += 1000003) bad_samples += buf[i] != word(i);
    CHECK(bad_samples == 0);
    std::uint64_t sum = 0, expected = 0;
    for (std::size_t i = 0; i < kWords; ++i) {
      sum += buf[i];
      expected += word(i);
    }
    CHECK(sum == sent_sum);
    CHECK(sum == expected);
  }
}

TEST_CASE("MPI_Send_c / MPI_Recv_c of more than INT_MAX bytes", "[p2p][huge][large_count]") {
  if (size() < 2) {
    WARN("SKIP: needs at least 2 ranks");
    return;
  }
  if (rank() > 1) return;
  const MPI_Count n = MPI_Count{INT_MAX} + 9;  // no int count says this
  std::unique_ptr<unsigned char[]> buf(new unsigned char[static_cast<std::size_t>(n)]);
  if (rank() == 0) {
    for (MPI_Count i = 0; i < n; i += 4096) buf[static_cast<std::size_t>(i)] = static_cast<unsigned char>(i >> 12);
    buf[static_cast<std::size_t>(n - 1)] = 0xa5;
    MPI_OK(MPI_Send_c(buf.get(), n, MPI_BYTE, 1, 810, MPI_COMM_WORLD));
  } else {
    for (MPI_Count i = 0; i < n; i += 4096) buf[static_cast<std::size_t>(i)] = 0;
    buf[static_cast<std::size_t>(n - 1)] = 0;
    MPI_Status st;
    MPI_OK(MPI_Recv_c(buf.get(), n, MPI_BYTE, 0, 810, MPI_COMM_WORLD, &st));
    MPI_Count count = -1;
    MPI_OK(MPI_Get_count_c(&st, MPI_BYTE, &count));
    CHECK(count == n);
    int bad = 0;
    for (MPI_Count i = 0; i + 1 < n; i += 4096) bad += buf[static_cast<std::size_t>(i)] != static_cast<unsigned char>(i >> 12);
    CHECK(bad == 0);
    CHECK(buf[static_cast<std::size_t>(n - 1)] == 0xa5);
  }
}
