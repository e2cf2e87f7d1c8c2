// Stream-ordered calls on a CUDA stream (device buffers): each test enqueues
// kernels and MPIX_*_enqueue calls on one user stream, synchronizes once at the
// end and checks the result, which is right only if every operation started after
// the kernels before it and finished before the kernels after it.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../gpu/gpu_harness.h"

namespace {

using namespace gpu_test;

// MPIX_Stream for a CUDA stream, built as MPICH users do (info "type" and the
// stream's bytes through MPIX_Info_set_hex).
MPIX_Stream mpix_stream(void* s) {
  MPI_Info info;
  MPI_Info_create(&info);
  MPI_Info_set(info, "type", "cudaStream_t");
  MPIX_Info_set_hex(info, "value", &s, sizeof s);
  MPIX_Stream ms = MPIX_STREAM_NULL;
  if (MPIX_Stream_create(info, &ms) != MPI_SUCCESS) fatal("MPIX_Stream_create failed");
  MPI_Info_free(&info);
  return ms;
}

// A CUDA stream, its MPIX stream and a duplicate of MPI_COMM_WORLD carrying it.
struct StreamComm {
  void* cuda = nullptr;
  MPIX_Stream mpix = MPIX_STREAM_NULL;
  MPI_Comm comm = MPI_COMM_NULL;
  StreamComm() {
    cuda = stream_create();
    mpix = mpix_stream(cuda);
    REQUIRE(MPIX_Stream_comm_create(MPI_COMM_WORLD, mpix, &comm) == MPI_SUCCESS);
  }
  ~StreamComm() {
    if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);  // waits for what was enqueued through it
    if (mpix != MPIX_STREAM_NULL) MPIX_Stream_free(&mpix);
    stream_destroy(cuda);
  }
};

// n floats of device memory (cuMemAlloc), zeroed.
struct DevBuf {
  Buffer buf;
  float* p;
  std::size_t n;
  explicit DevBuf(std::size_t count)
      : buf(Mem::Device, count * sizeof(float)), p(buf.as<float>()), n(count) {
    zero();
  }
  void zero() { buf.fill(0); }
  std::vector<float> host() const { return to_host(p, n); }
};

#define NEED_KERNELS()                                                           \
  do {                                                                           \
    if (!have_kernels()) {                                                       \
      WARN("SKIP: test kernels not loaded (no nvcc at build time)");             \
      return;                                                                    \
    }                                                                            \
  } while (0)

bool all_equal(const std::vector<float>& v, float x) {
  for (float f : v)
    if (f != x) return false;
  return true;
}

}  // namespace

TEST_CASE("stream-enqueued allreduce overlaps a kernel: starts after it, completes before the next",
          "[gpu][allreduce]") {
  NEED_KERNELS();
  const int rank = jobs::rank(), size = jobs::size();
  StreamComm sc;
  const std::size_t n = 1 << 16;
  DevBuf in(n), out(n);
  const float sum = static_cast<float>(size * (size + 1) / 2);

  for (bool in_place : {false, true}) {
    INFO("in_place " << in_place);
    float* result = in_place ? in.p : out.p;
    // The buffer is 0 until the delayed fill runs: an allreduce that started too
    // early sums zeros; one that finished too late escapes the scale.
    in.zero();
    out.zero();
    delay(sc.cuda, 20'000'000ULL);  // 20 ms
    fill_f32_on(sc.cuda, in.p, n, static_cast<float>(rank + 1));
    REQUIRE(MPIX_Allreduce_enqueue(in_place ? MPI_IN_PLACE : in.p, result, static_cast<int>(n),
                                   MPI_FLOAT, MPI_SUM, sc.comm) == MPI_SUCCESS);
    scale_f32_on(sc.cuda, result, n, 2.0f);
    event_sync(sc.cuda);
    auto v = to_host(result, n);
    CHECK(v[0] == 2 * sum);
    CHECK(v[n - 1] == 2 * sum);
    CHECK(all_equal(v, 2 * sum));
  }
}

TEST_CASE("MPIX_Send_enqueue / MPIX_Recv_enqueue between pairs", "[gpu][p2p]") {
  NEED_KERNELS();
  const int rank = jobs::rank(), size = jobs::size();
  if (size < 2) return;  // a blocking-like self send would wait for the receive behind it
  const int peer = rank ^ 1;
  if (peer >= size) return;
  StreamComm sc;
  const std::size_t n = 4096;
  DevBuf sbuf(n), rbuf(n);
  MPI_Status st;
  st.MPI_SOURCE = -7;
  fill_f32_on(sc.cuda, sbuf.p, n, static_cast<float>(rank + 1));
  if (rank % 2 == 0) {
    REQUIRE(MPIX_Send_enqueue(sbuf.p, static_cast<int>(n), MPI_FLOAT, peer, 5, sc.comm) == MPI_SUCCESS);
    REQUIRE(MPIX_Recv_enqueue(rbuf.p, static_cast<int>(n), MPI_FLOAT, peer, 6, sc.comm, &st) == MPI_SUCCESS);
  } else {
    REQUIRE(MPIX_Recv_enqueue(rbuf.p, static_cast<int>(n), MPI_FLOAT, peer, 5, sc.comm, &st) == MPI_SUCCESS);
    REQUIRE(MPIX_Send_enqueue(sbuf.p, static_cast<int>(n), MPI_FLOAT, peer, 6, sc.comm) == MPI_SUCCESS);
  }
  scale_f32_on(sc.cuda, rbuf.p, n, 3.0f);
  stream_sync(sc.cuda);
  CHECK(all_equal(rbuf.host(), 3.0f * static_cast<float>(peer + 1)));
  CHECK(st.MPI_SOURCE == peer);
  int count = -1;
  MPI_Get_count(&st, MPI_FLOAT, &count);
  CHECK(count == static_cast<int>(n));
}

TEST_CASE("MPIX_Isend/Irecv_enqueue with MPIX_Waitall_enqueue around a ring", "[gpu][p2p]") {
  NEED_KERNELS();
  const int rank = jobs::rank();
  StreamComm sc;
  const std::size_t n = 1 << 15;
  DevBuf sbuf(n), rbuf(n);
  delay(sc.cuda, 5'000'000ULL);
  fill_f32_on(sc.cuda, sbuf.p, n, static_cast<float>(rank + 1));
  MPI_Request reqs[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  REQUIRE(MPIX_Irecv_enqueue(rbuf.p, static_cast<int>(n), MPI_FLOAT, jobs::left(), 9, sc.comm, &reqs[0]) ==
          MPI_SUCCESS);
  REQUIRE(MPIX_Isend_enqueue(sbuf.p, static_cast<int>(n), MPI_FLOAT, jobs::right(), 9, sc.comm,
                             &reqs[1]) == MPI_SUCCESS);
  {
    // These requests belong to the stream: MPI_Wait does not take them.
    jobs::ErrorsReturn quiet(MPI_COMM_WORLD);
    MPI_Request copy = reqs[0];
    CHECK(jobs::error_class(MPI_Wait(&copy, MPI_STATUS_IGNORE)) == MPI_ERR_REQUEST);
  }
  MPI_Status st[2];
  REQUIRE(MPIX_Waitall_enqueue(2, reqs, st) == MPI_SUCCESS);
  CHECK(reqs[0] == MPI_REQUEST_NULL);
  CHECK(reqs[1] == MPI_REQUEST_NULL);
  scale_f32_on(sc.cuda, rbuf.p, n, 0.5f);
  event_sync(sc.cuda);
  CHECK(all_equal(rbuf.host(), 0.5f * static_cast<float>(jobs::left() + 1)));
  CHECK(st[0].MPI_SOURCE == jobs::left());
  CHECK(st[0].MPI_TAG == 9);

  // MPIX_Wait_enqueue, one request at a time.
  MPI_Request r = MPI_REQUEST_NULL, s = MPI_REQUEST_NULL;
  fill_f32_on(sc.cuda, sbuf.p, n, 7.0f);
  REQUIRE(MPIX_Irecv_enqueue(rbuf.p, static_cast<int>(n), MPI_FLOAT, jobs::left(), 10, sc.comm, &r) ==
          MPI_SUCCESS);
  REQUIRE(MPIX_Isend_enqueue(sbuf.p, static_cast<int>(n), MPI_FLOAT, jobs::right(), 10, sc.comm, &s) ==
          MPI_SUCCESS);
  REQUIRE(MPIX_Wait_enqueue(&s, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  MPI_Status rst;
  REQUIRE(MPIX_Wait_enqueue(&r, &rst) == MPI_SUCCESS);
  scale_f32_on(sc.cuda, rbuf.p, n, 2.0f);
  stream_sync(sc.cuda);
  CHECK(all_equal(rbuf.host(), 14.0f));
  CHECK(rst.MPI_SOURCE == jobs::left());
}

TEST_CASE("bcast, reduce, allgather, reduce_scatter(_block) enqueue", "[gpu][coll]") {
  NEED_KERNELS();
  const int rank = jobs::rank(), size = jobs::size();
  const auto usize = static_cast<std::size_t>(size);
  const float sum = static_cast<float>(size * (size + 1) / 2);
  StreamComm sc;
  const std::size_t n = 1000;
  DevBuf a(n * usize), b(n * usize);

  SECTION("bcast") {
    const int root = size - 1;
    fill_f32_on(sc.cuda, a.p, n, rank == root ? 11.0f : -1.0f);
    REQUIRE(MPIX_Bcast_enqueue(a.p, static_cast<int>(n), MPI_FLOAT, root, sc.comm) == MPI_SUCCESS);
    scale_f32_on(sc.cuda, a.p, n, 2.0f);
    stream_sync(sc.cuda);
    CHECK(all_equal(to_host(a.p, n), 22.0f));
  }
  SECTION("reduce") {
    fill_f32_on(sc.cuda, a.p, n, static_cast<float>(rank + 1));
    REQUIRE(MPIX_Reduce_enqueue(a.p, b.p, static_cast<int>(n), MPI_FLOAT, MPI_SUM, 0, sc.comm) ==
            MPI_SUCCESS);
    scale_f32_on(sc.cuda, b.p, n, 2.0f);
    stream_sync(sc.cuda);
    if (rank == 0) CHECK(all_equal(to_host(b.p, n), 2 * sum));
  }
  SECTION("allgather") {
    fill_f32_on(sc.cuda, a.p, n, static_cast<float>(rank + 1));
    REQUIRE(MPIX_Allgather_enqueue(a.p, static_cast<int>(n), MPI_FLOAT, b.p, static_cast<int>(n),
                                   MPI_FLOAT, sc.comm) == MPI_SUCCESS);
    scale_f32_on(sc.cuda, b.p, n * usize, 2.0f);
    stream_sync(sc.cuda);
    auto v = b.host();
    for (int r = 0; r < size; ++r)
      CHECK(v[static_cast<std::size_t>(r) * n + n / 2] == 2.0f * static_cast<float>(r + 1));
  }
  SECTION("reduce_scatter_block") {
    fill_f32_on(sc.cuda, a.p, n * usize, static_cast<float>(rank + 1));
    REQUIRE(MPIX_Reduce_scatter_block_enqueue(a.p, b.p, static_cast<int>(n), MPI_FLOAT, MPI_SUM,
                                              sc.comm) == MPI_SUCCESS);
    scale_f32_on(sc.cuda, b.p, n, 2.0f);
    stream_sync(sc.cuda);
    CHECK(all_equal(to_host(b.p, n), 2 * sum));
  }
  SECTION("reduce_scatter") {
    std::vector<int> counts(usize);
    for (int r = 0; r < size; ++r) counts[static_cast<std::size_t>(r)] = static_cast<int>(n) - r;
    fill_f32_on(sc.cuda, a.p, n * usize, static_cast<float>(rank + 1));
    REQUIRE(MPIX_Reduce_scatter_enqueue(a.p, b.p, counts.data(), MPI_FLOAT, MPI_SUM, sc.comm) ==
            MPI_SUCCESS);
    scale_f32_on(sc.cuda, b.p, n, 2.0f);
    stream_sync(sc.cuda);
    auto v = to_host(b.p, static_cast<std::size_t>(counts[static_cast<std::size_t>(rank)]));
    CHECK(all_equal(v, 2 * sum));
  }
}

TEST_CASE("a failure inside an enqueued operation is raised by the next call on its communicator",
          "[gpu][errors]") {
  StreamComm sc;
  jobs::ErrorsReturn quiet(sc.comm);
  // Host buffers on a CUDA stream: a 16-int message into a 4-int receive truncates.
  std::vector<int> big(16, 1), small(4, 0);
  MPI_Request sreq;
  REQUIRE(MPI_Isend(big.data(), 16, MPI_INT, jobs::rank(), 4, sc.comm, &sreq) == MPI_SUCCESS);
  REQUIRE(MPIX_Recv_enqueue(small.data(), 4, MPI_INT, jobs::rank(), 4, sc.comm, MPI_STATUS_IGNORE) ==
          MPI_SUCCESS);
  stream_sync(sc.cuda);  // the stream is released although the receive failed
  MPI_Wait(&sreq, MPI_STATUS_IGNORE);
  int rc = MPI_Barrier(sc.comm);
  CHECK(jobs::error_class(rc) == MPI_ERR_TRUNCATE);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(std::string(text, static_cast<std::size_t>(len)).rfind("MPIX_Recv_enqueue", 0) == 0);
  CHECK(MPI_Barrier(sc.comm) == MPI_SUCCESS);  // raised once
}

TEST_CASE("more CUDA streams than hardware queues, each parked on an enqueued allreduce",
          "[gpu][allreduce][streams]") {
  // Ten streams (CUDA_DEVICE_MAX_CONNECTIONS is 8 by default), each with its own
  // communicator and an allreduce waiting behind a delayed fill. While a stream is
  // parked on its allreduce, nothing may call a driver function that waits for
  // every stream (cuMemFree, cuMemFreeHost): with a pool that keeps nothing
  // (gpu_stream_np2_tinypool_mock: CHORUS_GPU_POOL_BYTES=0) every released block
  // would go back to the driver at once, and the job hung.
  NEED_KERNELS();
  const int rank = jobs::rank(), size = jobs::size();
  constexpr int kStreams = 10;
  const std::size_t n = 4096;
  std::vector<std::unique_ptr<StreamComm>> scs;
  std::vector<std::unique_ptr<DevBuf>> bufs;
  for (int i = 0; i < kStreams; ++i) {
    scs.push_back(std::make_unique<StreamComm>());
    bufs.push_back(std::make_unique<DevBuf>(n));
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kStreams; ++i) {
      StreamComm& sc = *scs[static_cast<std::size_t>(i)];
      DevBuf& b = *bufs[static_cast<std::size_t>(i)];
      delay(sc.cuda, 2'000'000ULL);  // 2 ms
      fill_f32_on(sc.cuda, b.p, n, static_cast<float>(rank + i + round));
      REQUIRE(MPIX_Allreduce_enqueue(MPI_IN_PLACE, b.p, static_cast<int>(n), MPI_FLOAT, MPI_SUM, sc.comm) ==
              MPI_SUCCESS);
    }
    for (int i = 0; i < kStreams; ++i) {
      INFO("round " << round << ", stream " << i);
      event_sync(scs[static_cast<std::size_t>(i)]->cuda);
      const float want = static_cast<float>(size * (size - 1) / 2 + size * (i + round));
      CHECK(all_equal(bufs[static_cast<std::size_t>(i)]->host(), want));
    }
  }
}

TEST_CASE("streams freed while the agent works on them", "[gpu][allreduce][streams]") {
  // Each round: a new CUDA stream and communicator, an allreduce enqueued behind a
  // short delay, the MPIX stream freed at once and the communicator right after
  // (which waits for the allreduce and drops the stream's last reference) while
  // the agent thread is in its passes. The agent must never touch a queue whose
  // stream is gone (run under ASan by scripts/test --asan).
  NEED_KERNELS();
  const int size = jobs::size();
  const std::size_t n = 256;
  for (int round = 0; round < 40; ++round) {
    INFO("round " << round);
    auto sc = std::make_unique<StreamComm>();
    DevBuf b(n);
    delay(sc->cuda, 200'000ULL);  // 0.2 ms
    fill_f32_on(sc->cuda, b.p, n, 1.0f);
    REQUIRE(MPIX_Allreduce_enqueue(MPI_IN_PLACE, b.p, static_cast<int>(n), MPI_FLOAT, MPI_SUM, sc->comm) ==
            MPI_SUCCESS);
    REQUIRE(MPIX_Stream_free(&sc->mpix) == MPI_SUCCESS);
    REQUIRE(MPI_Comm_free(&sc->comm) == MPI_SUCCESS);
    event_sync(sc->cuda);
    CHECK(all_equal(b.host(), static_cast<float>(size)));
    sc.reset();  // its destructor frees what is left (the CUDA stream)
  }
}
