// Tests that need no device ([nogpu]): capability queries, MPIX_Stream_create
// argument errors, MPIX_Info_set_hex, and the enqueue calls on communicators
// without a CUDA stream (they behave as the blocking calls).
#include <mpi-ext.h>

#include <cstdlib>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "../gpu/gpu_harness.h"

namespace {

std::string error_string(int code) {
  char s[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, s, &len);
  return std::string(s, static_cast<std::size_t>(len));
}

std::string comm_info(MPI_Comm c, const char* key) {
  MPI_Info info;
  REQUIRE(MPI_Comm_get_info(c, &info) == MPI_SUCCESS);
  char value[MPI_MAX_INFO_VAL + 1] = {};
  int flag = 0;
  MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag);
  MPI_Info_free(&info);
  return flag ? value : "(unset)";
}

// Create with an info of (key, value) pairs; returns the error code.
int create_with(std::vector<std::pair<const char*, const char*>> kv, MPIX_Stream* s) {
  MPI_Info info;
  MPI_Info_create(&info);
  for (auto& [k, v] : kv) MPI_Info_set(info, k, v);
  int rc = MPIX_Stream_create(info, s);
  MPI_Info_free(&info);
  return rc;
}

}  // namespace

TEST_CASE("capability queries: MPIX_Query_cuda_support, mpi_memory_alloc_kinds", "[nogpu][query]") {
  STATIC_REQUIRE(MPIX_CUDA_AWARE_SUPPORT == 1);
  const bool expect = gpu_test::have_device();  // the mock or a GPU, and CHORUS_GPU not off
  CHECK(MPIX_Query_cuda_support() == (expect ? 1 : 0));
  int supported = -1;
  REQUIRE(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &supported) == MPI_SUCCESS);
  CHECK(supported == (expect ? 1 : 0));
  REQUIRE(MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &supported) == MPI_SUCCESS);
  CHECK(supported == 0);
  CHECK(MPIX_Query_ze_support() == 0);
  const std::string kinds = comm_info(MPI_COMM_WORLD, "mpi_memory_alloc_kinds");
  INFO("mpi_memory_alloc_kinds = " << kinds);
  CHECK(kinds.rfind("mpi,system", 0) == 0);
  if (expect) {
    CHECK(kinds == "mpi,system,cuda:device,cuda:host,cuda:managed");
  } else {
    CHECK(kinds == "mpi,system");
  }
  CHECK(comm_info(MPI_COMM_SELF, "mpi_memory_alloc_kinds") == kinds);
  jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
  int rc = MPIX_GPU_query_support(7, &supported);
  CHECK(jobs::error_class(rc) == MPI_ERR_ARG);
  CHECK(error_string(rc).find("gpu_type is 7") != std::string::npos);
}

TEST_CASE("MPIX_Info_set_hex encodes as MPICH does", "[nogpu][info]") {
  MPI_Info info;
  MPI_Info_create(&info);
  const unsigned char bytes[] = {0x01, 0x02, 0xab, 0xff, 0x00};
  REQUIRE(MPIX_Info_set_hex(info, "value", bytes, sizeof bytes) == MPI_SUCCESS);
  char value[64] = {};
  int flag = 0;
  MPI_Info_get(info, "value", sizeof value - 1, value, &flag);
  CHECK(flag == 1);
  CHECK(std::string(value) == "0102ABFF00");
  jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPIX_Info_set_hex(info, "", bytes, 1)) == MPI_ERR_INFO_KEY);
  CHECK(jobs::error_class(MPIX_Info_set_hex(info, "k", bytes, -1)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPIX_Info_set_hex(MPI_INFO_NULL, "k", bytes, 1)) == MPI_ERR_INFO);
  MPI_Info_free(&info);
}

TEST_CASE("MPIX_Stream_create rejects bad info with a message naming the value", "[nogpu][errors]") {
  jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
  MPIX_Stream s = MPIX_STREAM_NULL;
  int rc = create_with({{"type", "hipStream_t"}, {"value", "0000000000000000"}}, &s);
  CHECK(jobs::error_class(rc) == MPI_ERR_INFO_VALUE);
  CHECK(error_string(rc).find("MPIX_Stream_create") != std::string::npos);
  CHECK(error_string(rc).find("hipStream_t") != std::string::npos);

  rc = create_with({{"type", "cudaStream_t"}, {"value", "zz00000000000000"}}, &s);
  CHECK(jobs::error_class(rc) == MPI_ERR_INFO_VALUE);
  CHECK(error_string(rc).find("zz00000000000000") != std::string::npos);

  rc = create_with({{"type", "cudaStream_t"}, {"value", "1234"}}, &s);
  CHECK(jobs::error_class(rc) == MPI_ERR_INFO_VALUE);
  CHECK(error_string(rc).find("holds 2 bytes") != std::string::npos);

  rc = create_with({{"type", "cudaStream_t"}}, &s);
  CHECK(jobs::error_class(rc) == MPI_ERR_INFO_VALUE);
  CHECK(error_string(rc).find("no \"value\"") != std::string::npos);

  // A well-formed cudaStream_t (the legacy default stream, MPICH's "[n]" zero run)
  // needs a usable device.
  rc = create_with({{"type", "cudaStream_t"}, {"value", "[8]"}}, &s);
  if (gpu_test::have_device()) {
    REQUIRE(rc == MPI_SUCCESS);
    CHECK(MPIX_Stream_free(&s) == MPI_SUCCESS);
    CHECK(s == MPIX_STREAM_NULL);
  } else {
    CHECK(jobs::error_class(rc) == MPI_ERR_OTHER);
    CHECK(error_string(rc).find("no CUDA device is usable") != std::string::npos);
  }

  CHECK(jobs::error_class(MPIX_Stream_free(&s)) == MPI_ERR_ARG);  // MPIX_STREAM_NULL
  MPIX_Stream bogus = static_cast<MPIX_Stream>(0xbc000123);
  rc = MPIX_Stream_comm_create(MPI_COMM_WORLD, bogus, nullptr);
  CHECK(jobs::error_class(rc) == MPI_ERR_ARG);
}

TEST_CASE("enqueue calls on a host stream or without a stream behave as blocking", "[nogpu][host]") {
  MPIX_Stream hs = MPIX_STREAM_NULL;
  REQUIRE(MPIX_Stream_create(MPI_INFO_NULL, &hs) == MPI_SUCCESS);
  MPI_Comm sc;
  REQUIRE(MPIX_Stream_comm_create(MPI_COMM_WORLD, hs, &sc) == MPI_SUCCESS);
  // The communicator keeps the stream alive after MPIX_Stream_free.
  REQUIRE(MPIX_Stream_free(&hs) == MPI_SUCCESS);
  const int rank = jobs::rank(), size = jobs::size();
  for (MPI_Comm c : {sc, MPI_COMM_WORLD}) {
    std::vector<int> v(100, rank + 1);
    REQUIRE(MPIX_Allreduce_enqueue(MPI_IN_PLACE, v.data(), 100, MPI_INT, MPI_SUM, c) == MPI_SUCCESS);
    CHECK(v[0] == size * (size + 1) / 2);  // done on return
    CHECK(v[99] == size * (size + 1) / 2);

    int b = rank == 0 ? 42 : 0;
    REQUIRE(MPIX_Bcast_enqueue(&b, 1, MPI_INT, 0, c) == MPI_SUCCESS);
    CHECK(b == 42);

    std::vector<int> all(static_cast<std::size_t>(size));
    int mine = rank * 10;
    REQUIRE(MPIX_Allgather_enqueue(&mine, 1, MPI_INT, all.data(), 1, MPI_INT, c) == MPI_SUCCESS);
    for (int r = 0; r < size; ++r) CHECK(all[static_cast<std::size_t>(r)] == r * 10);

    // Ring through ordinary requests: MPIX_Waitall_enqueue completes them.
    int out = rank, in = -1;
    MPI_Request reqs[2];
    REQUIRE(MPIX_Irecv_enqueue(&in, 1, MPI_INT, jobs::left(), 3, c, &reqs[0]) == MPI_SUCCESS);
    REQUIRE(MPIX_Isend_enqueue(&out, 1, MPI_INT, jobs::right(), 3, c, &reqs[1]) == MPI_SUCCESS);
    MPI_Status st[2];
    REQUIRE(MPIX_Waitall_enqueue(2, reqs, st) == MPI_SUCCESS);
    CHECK(in == jobs::left());
    CHECK(st[0].MPI_SOURCE == jobs::left());
    CHECK(reqs[0] == MPI_REQUEST_NULL);
    CHECK(reqs[1] == MPI_REQUEST_NULL);
  }
  // Argument errors are raised at once, named after the MPIX call.
  {
    jobs::ErrorsReturn quiet(sc);
    int x = 0;
    int rc = MPIX_Allreduce_enqueue(MPI_IN_PLACE, &x, -1, MPI_INT, MPI_SUM, sc);
    CHECK(jobs::error_class(rc) == MPI_ERR_COUNT);
    CHECK(error_string(rc).rfind("MPIX_Allreduce_enqueue: count is -1", 0) == 0);
    rc = MPIX_Send_enqueue(&x, 1, MPI_INT, size, 0, sc);
    CHECK(jobs::error_class(rc) == MPI_ERR_RANK);
    CHECK(error_string(rc).rfind("MPIX_Send_enqueue", 0) == 0);
  }
  REQUIRE(MPI_Comm_free(&sc) == MPI_SUCCESS);
}

// Enqueued collectives stand for the blocking calls: a rank may make one where
// its peers make the blocking call, in between other collectives, and they match
// (MPICH's behaviour). They are built as persistent requests inside, and those
// otherwise take a number at init in a tag space of their own (so that ranks may
// start them in any order): before, the enqueued allreduce of the odd ranks waited
// for a message the even ranks' MPI_Allreduce never sent.
TEST_CASE("an enqueued collective on some ranks matches the blocking call on others", "[nogpu][host]") {
  const int rank = jobs::rank(), size = jobs::size();
  for (int round = 0; round < 3; ++round) {
    std::vector<int> v(64, rank + round);
    const int rc = rank % 2 ? MPIX_Allreduce_enqueue(MPI_IN_PLACE, v.data(), 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                            : MPI_Allreduce(MPI_IN_PLACE, v.data(), 64, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    REQUIRE(rc == MPI_SUCCESS);
    CHECK(v[63] == size * (size - 1) / 2 + size * round);
    int b = rank == 0 ? 7 + round : 0;
    REQUIRE((rank % 2 ? MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD)
                      : MPIX_Bcast_enqueue(&b, 1, MPI_INT, 0, MPI_COMM_WORLD)) == MPI_SUCCESS);
    CHECK(b == 7 + round);
  }
}

// The same when the enqueued call fails its own checks: the root's enqueued bcast
// of MPI_IN_PLACE is MPI_ERR_BUFFER there, named after the MPIX call, and takes
// nothing there, as the blocking call does (with the node's mailbox too: no
// CHORUS_CHECK_COLL, as users run). The others' blocking bcast pairs with the
// root's repeat and gets its data. Before the enqueued call ran as the blocking
// one, it checked its arguments with the persistent init and returned, and the
// others waited for ever.
TEST_CASE("an enqueued call that fails its checks leaves the blocking call on the other ranks to its repeat",
          "[nogpu][host][mailbox]") {
  const int rank = jobs::rank(), size = jobs::size();
  if (size < 2) return;
  jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
  for (int round = 0; round < 3; ++round) {
    int b[2] = {rank == 0 ? 40 + round : -1, rank == 0 ? 50 + round : -1};
    if (rank == 0) {
      const int rc = MPIX_Bcast_enqueue(MPI_IN_PLACE, 2, MPI_INT, 0, MPI_COMM_WORLD);
      CHECK(jobs::error_class(rc) == MPI_ERR_BUFFER);
      CHECK(error_string(rc).rfind("MPIX_Bcast_enqueue", 0) == 0);
      REQUIRE(MPIX_Bcast_enqueue(b, 2, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
    } else {
      REQUIRE(MPI_Bcast(b, 2, MPI_INT, 0, MPI_COMM_WORLD) == MPI_SUCCESS);
      CHECK(b[0] == 40 + round);
      CHECK(b[1] == 50 + round);
    }
    // The communicator still works, both ways round.
    int x = 1;
    REQUIRE((rank % 2 ? MPIX_Allreduce_enqueue(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)
                      : MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD)) == MPI_SUCCESS);
    CHECK(x == size);
  }
}

TEST_CASE("MPIX_Stream_create with cudaStream_t when the GPU is off", "[nogpu][off]") {
  if (!gpu_test::gpu_off()) return;  // covered by the device tests otherwise
  jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
  MPIX_Stream s = MPIX_STREAM_NULL;
  int rc = create_with({{"type", "cudaStream_t"}, {"value", "0100000000000000"}}, &s);
  CHECK(jobs::error_class(rc) == MPI_ERR_OTHER);
  CHECK(error_string(rc).find("CHORUS_GPU") != std::string::npos);
}
