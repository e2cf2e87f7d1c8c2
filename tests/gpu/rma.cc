// One-sided communication with device buffers at the origin: MPI_Put, MPI_Get,
// MPI_Accumulate, MPI_Get_accumulate, MPI_Fetch_and_op, MPI_Compare_and_swap
// and MPI_Rget from and into device (and pool) memory, contiguous and strided,
// small and past the size where a put's data travels apart from its header.
// The windows hold host memory (MPI_Win_allocate); a window over device memory
// (MPI_Win_create, MPI_Win_attach) is refused with an error on every rank. Under
// the mock driver device memory is PROT_NONE to the host, so any host access of
// it by the library is a crash.
//
// Ranks form a ring: each rank targets rank+1 and is targeted by rank-1.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "gpu_harness.h"

namespace {

using gpu_test::Buffer;
using gpu_test::Mem;

int rank() { return jobs::rank(); }
int size() { return jobs::size(); }
int right() { return (rank() + 1) % size(); }
int left() { return (rank() + size() - 1) % size(); }

int value(int src, std::size_t i) { return src * 100003 + static_cast<int>(i % 50000); }

// A window of n ints of host memory (MPI_Win_allocate), filled with -1.
struct Window {
  MPI_Win win = MPI_WIN_NULL;
  int* base = nullptr;
  std::size_t n;
  explicit Window(std::size_t count) : n(count) {
    MPI_OK(MPI_Win_allocate(static_cast<MPI_Aint>(n * sizeof(int)), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                            &base, &win));
    for (std::size_t i = 0; i < n; ++i) base[i] = -1;
    MPI_OK(MPI_Win_fence(0, win));
  }
  ~Window() { MPI_Win_free(&win); }
};

std::vector<int> ints_of(const Buffer& b) {
  std::vector<unsigned char> raw = b.download();
  std::vector<int> v(raw.size() / sizeof(int));
  std::memcpy(v.data(), raw.data(), v.size() * sizeof(int));
  return v;
}

void upload_ints(Buffer& b, const std::vector<int>& v) { b.upload(v.data(), v.size() * sizeof(int)); }

}  // namespace

TEST_CASE("put, get and accumulate from and into device memory", "[gpu][rma]") {
  if (!gpu_test::have_device()) return;
  // 1000 ints travel in the header's message; 300,000 (1.2 MB) past kSeparateData.
  for (Mem m : {Mem::Device, Mem::Pool}) {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(300000)}) {
      INFO(gpu_test::mem_name(m) << ", " << n << " ints");
      Window w(2 * n);
      std::vector<int> mine(n);
      for (std::size_t i = 0; i < n; ++i) mine[i] = value(rank(), i);
      Buffer origin(m, n * sizeof(int)), result(m, n * sizeof(int));
      upload_ints(origin, mine);
      result.fill(0xEE);
      gpu_test::sync();
      // Put into the right neighbour's first half, accumulate twice into its second.
      MPI_OK(MPI_Put(origin.get(), static_cast<int>(n), MPI_INT, right(), 0, static_cast<int>(n), MPI_INT, w.win));
      MPI_OK(MPI_Accumulate(origin.get(), static_cast<int>(n), MPI_INT, right(), static_cast<MPI_Aint>(n),
                            static_cast<int>(n), MPI_INT, MPI_REPLACE, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      MPI_OK(MPI_Accumulate(origin.get(), static_cast<int>(n), MPI_INT, right(), static_cast<MPI_Aint>(n),
                            static_cast<int>(n), MPI_INT, MPI_SUM, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      int bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bad += w.base[i] != value(left(), i);
        bad += w.base[n + i] != 2 * value(left(), i);
      }
      CHECK(bad == 0);
      // Get the right neighbour's first half back into device memory.
      MPI_OK(MPI_Get(result.get(), static_cast<int>(n), MPI_INT, right(), 0, static_cast<int>(n), MPI_INT, w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      std::vector<int> got = ints_of(result);
      bad = 0;
      for (std::size_t i = 0; i < n; ++i) bad += got[i] != value(rank(), i);  // what this rank put there
      CHECK(bad == 0);
      // Get_accumulate: the old second half comes back, the origin is added.
      result.fill(0);
      gpu_test::sync();
      MPI_OK(MPI_Get_accumulate(origin.get(), static_cast<int>(n), MPI_INT, result.get(), static_cast<int>(n),
                                MPI_INT, right(), static_cast<MPI_Aint>(n), static_cast<int>(n), MPI_INT, MPI_SUM,
                                w.win));
      MPI_OK(MPI_Win_fence(0, w.win));
      got = ints_of(result);
      bad = 0;
      for (std::size_t i = 0; i < n; ++i) {
        bad += got[i] != 2 * value(rank(), i);
        bad += w.base[n + i] != 3 * value(left(), i);
      }
      CHECK(bad == 0);
      MPI_OK(MPI_Win_fence(0, w.win));
    }
  }
}

TEST_CASE("strided device buffers at the origin", "[gpu][rma]") {
  if (!gpu_test::have_device()) return;
  constexpr int kBlocks = 100;
  MPI_Datatype every_other;  // ints 0, 2, 4, ...
  MPI_OK(MPI_Type_vector(kBlocks, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  Window w(kBlocks);
  std::vector<int> img(2 * kBlocks);
  for (int i = 0; i < 2 * kBlocks; ++i) img[static_cast<std::size_t>(i)] = i % 2 ? -7 : value(rank(), static_cast<std::size_t>(i / 2));
  Buffer origin(Mem::Device, img.size() * sizeof(int)), result(Mem::Device, img.size() * sizeof(int));
  upload_ints(origin, img);
  result.fill(0);
  gpu_test::sync();
  MPI_OK(MPI_Put(origin.get(), 1, every_other, right(), 0, kBlocks, MPI_INT, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  int bad = 0;
  for (int i = 0; i < kBlocks; ++i) bad += w.base[i] != value(left(), static_cast<std::size_t>(i));
  CHECK(bad == 0);
  MPI_OK(MPI_Get(result.get(), 1, every_other, right(), 0, kBlocks, MPI_INT, w.win));
  MPI_OK(MPI_Win_fence(0, w.win));
  std::vector<int> got = ints_of(result);
  bad = 0;
  for (int i = 0; i < 2 * kBlocks; ++i)
    bad += got[static_cast<std::size_t>(i)] != (i % 2 ? 0 : value(rank(), static_cast<std::size_t>(i / 2)));
  CHECK(bad == 0);  // the gaps untouched
  MPI_OK(MPI_Type_free(&every_other));
}

TEST_CASE("atomics and request-based gets with device buffers, passive target", "[gpu][rma]") {
  if (!gpu_test::have_device()) return;
  Window w(4);
  MPI_OK(MPI_Win_fence(0, w.win));
  Buffer one(Mem::Device, sizeof(int)), old(Mem::Device, sizeof(int)), cmp(Mem::Device, sizeof(int)),
      got(Mem::Device, 4 * sizeof(int));
  const int inc = 1, minus_one = -1, seven = 7;
  one.upload(&inc, sizeof inc);
  cmp.upload(&minus_one, sizeof minus_one);
  Buffer swap(Mem::Device, sizeof(int));
  swap.upload(&seven, sizeof seven);
  gpu_test::sync();
  MPI_OK(MPI_Win_lock_all(0, w.win));
  // Every rank adds 1 to word 0 of rank 0, and swaps -1 for 7 in word 1 of its right neighbour.
  MPI_OK(MPI_Fetch_and_op(one.get(), old.get(), MPI_INT, 0, 0, MPI_SUM, w.win));
  MPI_OK(MPI_Compare_and_swap(swap.get(), cmp.get(), old.get(), MPI_INT, right(), 1, w.win));
  MPI_OK(MPI_Win_flush_all(w.win));
  int prev = 0;
  std::memcpy(&prev, old.download().data(), sizeof prev);
  CHECK(prev == -1);  // word 1 of the right neighbour held -1 before the swap
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  MPI_Request r;
  MPI_OK(MPI_Rget(got.get(), 4, MPI_INT, 0, 0, 4, MPI_INT, w.win, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  std::vector<int> g = ints_of(got);
  CHECK(g[0] == -1 + size());
  CHECK(g[1] == 7);
  MPI_OK(MPI_Win_unlock_all(w.win));
}

TEST_CASE("a window over device memory is refused on every rank", "[gpu][rma][errors]") {
  if (!gpu_test::have_device()) return;
  jobs::ErrorsReturn errors_return(MPI_COMM_WORLD);
  // Only rank 0 passes device memory: the others must fail too, not wait.
  Buffer dev(Mem::Device, 64);
  std::vector<int> host(16);
  void* base = rank() == 0 ? dev.get() : static_cast<void*>(host.data());
  MPI_Win win = MPI_WIN_NULL;
  const int rc = MPI_Win_create(base, 64, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  CHECK(jobs::error_class(rc) == MPI_ERR_BASE);
  MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
  MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
  CHECK(jobs::error_class(MPI_Win_attach(win, dev.get(), 64)) == MPI_ERR_RMA_ATTACH);
  MPI_OK(MPI_Win_attach(win, host.data(), 64));
  MPI_OK(MPI_Win_detach(win, host.data()));
  MPI_OK(MPI_Win_free(&win));
}

// A result copied to device memory after its call returned, whose copy fails:
// the synchronization call that completes it reports it (before, it was only
// logged and the fence returned success over a stale buffer). The mock fails
// every copy of 3,108 bytes (MOCKCUDA_FAIL_COPY_BYTES, set for this test only).
TEST_CASE("a failed copy of a one-sided result to the device is reported by the fence", "[.gpu_rma_copy_fails]") {
  if (!gpu_test::have_device()) return;
  constexpr int n = 777;  // 3,108 bytes
  Window w(n);
  MPI_OK(MPI_Win_set_errhandler(w.win, MPI_ERRORS_RETURN));
  Buffer result(Mem::Device, n * sizeof(int));
  MPI_OK(MPI_Get(result.get(), n, MPI_INT, right(), 0, n, MPI_INT, w.win));
  const int rc = MPI_Win_fence(0, w.win);
  CHECK(rc != MPI_SUCCESS);
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  CHECK(std::string(text, static_cast<std::size_t>(len)).find("could not be copied to device memory") !=
        std::string::npos);
  MPI_OK(MPI_Win_fence(0, w.win));  // reported once
}

// On a window in shared memory an accumulate from host memory is done by the
// origin itself, one from device memory goes as a message the target applies.
// MPI orders one origin's accumulates to one target (MPI_REPLACE twice: the
// second wins), so a host accumulate waits for the message path while one of this
// origin's messages may still be queued at the target; a flush ends that.
TEST_CASE("accumulates from device and host memory to one target stay in order", "[gpu][rma]") {
  if (!gpu_test::have_device()) return;
  Window w(4);
  Buffer dev(Mem::Device, sizeof(int));
  const int from_device = 11;
  dev.upload(&from_device, sizeof from_device);
  gpu_test::sync();
  MPI_OK(MPI_Win_lock_all(0, w.win));
  for (int round = 0; round < 20; ++round) {
    int from_host = 1000 + round, old = -1;
    MPI_OK(MPI_Accumulate(dev.get(), 1, MPI_INT, right(), 2, 1, MPI_INT, MPI_REPLACE, w.win));
    MPI_OK(MPI_Accumulate(&from_host, 1, MPI_INT, right(), 2, 1, MPI_INT, MPI_REPLACE, w.win));
    MPI_OK(MPI_Fetch_and_op(nullptr, &old, MPI_INT, right(), 2, MPI_NO_OP, w.win));
    MPI_OK(MPI_Win_flush(right(), w.win));
    CHECK(old == from_host);
    MPI_OK(MPI_Fetch_and_op(&from_device, &old, MPI_INT, right(), 3, MPI_REPLACE, w.win));
    MPI_OK(MPI_Win_flush(right(), w.win));
  }
  MPI_OK(MPI_Win_unlock_all(w.win));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));
  CHECK(w.base[2] == 1019);
  CHECK(w.base[3] == 11);
}
