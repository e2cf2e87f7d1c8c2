// Stream-ordered calls on a CUDA stream (device buffers): each test enqueues
// kernels and MPIX_*_enqueue calls on one user stream, synchronizes once at the
// end and checks the result, which is right only if every operation started after
// the kernels before it and finished before the kernels after it.
#include <algorithm>
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
  StreamComm sc;  // every rank: creating it is collective (an odd rank out has no pair)
  const int peer = rank ^ 1;
  if (peer >= size) return;
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

namespace {

// n floats of `v` into device memory (synchronous).
void fill_dev(float* p, std::size_t n, float v) {
  std::vector<float> h(n, v);
  copy(p, h.data(), n * sizeof(float));
}

}  // namespace

TEST_CASE("staging buffers of enqueued calls are freed once the stream has passed them",
          "[gpu][staging]") {
  // Device buffers of stream-ordered calls are staged through pinned host memory;
  // each call's blocks must go back to the pool once its stream has run past
  // the copies, not pile up until MPI_Finalize.
  if (!is_mock()) {
    WARN("SKIP: the count of live pinned bytes comes from the mock driver");
    return;
  }
  const int size = jobs::size();
  StreamComm sc;
  const std::size_t n = (std::size_t(1) << 20) / sizeof(float);  // 1 MiB
  DevBuf a(n), b(n);
  fill_dev(a.p, n, 1.0f);
  const unsigned long long before = mock_stat("host_bytes_live");
  unsigned long long most = before;
  for (int i = 0; i < 40; ++i) {
    REQUIRE(MPIX_Allreduce_enqueue(a.p, b.p, static_cast<int>(n), MPI_FLOAT, MPI_SUM, sc.comm) == MPI_SUCCESS);
    stream_sync(sc.cuda);
    most = std::max(most, mock_stat("host_bytes_live"));
  }
  INFO("pinned host bytes live: " << before << " before, at most " << most << " during 40 calls of 2 x 1 MiB");
  CHECK(most - before < 16ull << 20);
  CHECK(all_equal(b.host(), static_cast<float>(size)));
}

TEST_CASE("an enqueued receive of a short message leaves the rest of the device buffer as it was",
          "[gpu][staging]") {
  // The staged receive buffer is copied back whole: the bytes the message did
  // not reach must come back as they were, not as stale pinned memory.
  const int rank = jobs::rank(), size = jobs::size();
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  StreamComm sc;
  const std::size_t n = 1024, len = 10;
  DevBuf r(n);
  fill_dev(r.p, n, 7.0f);
  std::vector<float> msg(len, static_cast<float>(rank + 1));
  MPI_Request sreq;
  REQUIRE(MPI_Isend(msg.data(), static_cast<int>(len), MPI_FLOAT, to, 5, sc.comm, &sreq) == MPI_SUCCESS);
  MPI_Status st;
  REQUIRE(MPIX_Recv_enqueue(r.p, static_cast<int>(n), MPI_FLOAT, from, 5, sc.comm, &st) == MPI_SUCCESS);
  stream_sync(sc.cuda);
  REQUIRE(MPI_Wait(&sreq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const std::vector<float> h = r.host();
  std::size_t bad_msg = 0, bad_rest = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (i < len)
      bad_msg += h[i] != static_cast<float>(from + 1);
    else
      bad_rest += h[i] != 7.0f;
  }
  CHECK(bad_msg == 0);
  CHECK(bad_rest == 0);
}

TEST_CASE("enqueued broadcast and allgather on an intercommunicator", "[gpu][staging][inter]") {
  // MPI_ROOT sends and MPI_PROC_NULL takes no part in a broadcast between groups;
  // an allgather receives one block per rank of the other group, whose size may
  // differ from this group's (3 ranks: groups of 2 and 1).
  const int rank = jobs::rank(), size = jobs::size();
  if (size < 2) {
    WARN("SKIP: an intercommunicator needs 2 ranks");
    return;
  }
  const int color = rank % 2;
  MPI_Comm local, inter;
  REQUIRE(MPI_Comm_split(MPI_COMM_WORLD, color, rank, &local) == MPI_SUCCESS);
  REQUIRE(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - color, 77, &inter) == MPI_SUCCESS);
  int lrank = 0, rsize = 0;
  MPI_Comm_rank(local, &lrank);
  MPI_Comm_remote_size(inter, &rsize);
  void* cuda = stream_create();
  MPIX_Stream ms = mpix_stream(cuda);
  MPI_Comm sc;
  REQUIRE(MPIX_Stream_comm_create(inter, ms, &sc) == MPI_SUCCESS);

  const std::size_t n = 256;
  DevBuf b(n);
  fill_dev(b.p, n, color == 0 && lrank == 0 ? 3.0f : 0.0f);
  const int root = color == 1 ? 0 : (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL);
  REQUIRE(MPIX_Bcast_enqueue(b.p, static_cast<int>(n), MPI_FLOAT, root, sc) == MPI_SUCCESS);

  const std::size_t blk = 4;
  DevBuf mine(blk), all(blk * static_cast<std::size_t>(rsize) + 8);
  fill_dev(mine.p, blk, static_cast<float>(rank + 1));
  fill_dev(all.p, all.n, -1.0f);
  REQUIRE(MPIX_Allgather_enqueue(mine.p, static_cast<int>(blk), MPI_FLOAT, all.p, static_cast<int>(blk), MPI_FLOAT,
                                 sc) == MPI_SUCCESS);
  stream_sync(cuda);

  const std::vector<float> hb = b.host();
  const float want_b = (color == 1 || lrank == 0) ? 3.0f : 0.0f;  // PROC_NULL ranks keep their zeros
  CHECK(all_equal(hb, want_b));
  const std::vector<float> ha = all.host();
  std::size_t bad = 0;
  for (int j = 0; j < rsize; ++j) {
    const int w = 2 * j + (1 - color);  // world rank of remote rank j
    for (std::size_t k = 0; k < blk; ++k) bad += ha[static_cast<std::size_t>(j) * blk + k] != static_cast<float>(w + 1);
  }
  for (std::size_t k = blk * static_cast<std::size_t>(rsize); k < all.n; ++k) bad += ha[k] != -1.0f;
  CHECK(bad == 0);

  MPI_Comm_free(&sc);
  MPIX_Stream_free(&ms);
  stream_destroy(cuda);
  MPI_Comm_free(&inter);
  MPI_Comm_free(&local);
}

TEST_CASE("an enqueued receive with a strided type leaves the gaps to the application", "[gpu][staging]") {
  // The gaps of a strided receive type are not the call's to write: a kernel may
  // write them while the receive is in flight, and the copy back of the staged
  // buffer must not put the old bytes back over them.
  NEED_KERNELS();
  const int rank = jobs::rank(), size = jobs::size();
  const int to = (rank + 1) % size, from = (rank + size - 1) % size;
  StreamComm sc;
  constexpr int m = 32;
  DevBuf r(2 * m);
  fill_dev(r.p, r.n, 7.0f);
  MPI_Datatype every_other;
  REQUIRE(MPI_Type_vector(m, 1, 2, MPI_FLOAT, &every_other) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&every_other) == MPI_SUCCESS);
  std::vector<float> msg(m, static_cast<float>(rank + 1));
  MPI_Request sreq, rreq;
  REQUIRE(MPI_Isend(msg.data(), m, MPI_FLOAT, to, 9, sc.comm, &sreq) == MPI_SUCCESS);
  REQUIRE(MPIX_Irecv_enqueue(r.p, 1, every_other, from, 9, sc.comm, &rreq) == MPI_SUCCESS);
  for (int k = 0; k < m; ++k) fill_f32_on(sc.cuda, r.p + 2 * k + 1, 1, 5.0f);  // the gaps, meanwhile
  REQUIRE(MPIX_Wait_enqueue(&rreq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  stream_sync(sc.cuda);
  REQUIRE(MPI_Wait(&sreq, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  const std::vector<float> h = r.host();
  std::size_t bad_data = 0, bad_gaps = 0;
  for (int k = 0; k < m; ++k) {
    bad_data += h[static_cast<std::size_t>(2 * k)] != static_cast<float>(from + 1);
    bad_gaps += h[static_cast<std::size_t>(2 * k + 1)] != 5.0f;
  }
  CHECK(bad_data == 0);
  CHECK(bad_gaps == 0);
  MPI_Type_free(&every_other);
}
