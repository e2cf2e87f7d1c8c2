// Requests come from a per-process pool (chunked arrays + free list), never from
// `new` per call. A handle is the MPICH-ABI direct request handle of the slot, so
// handle -> object is an index computation.
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace chorus {

struct Comm;

struct Request {
  enum class Kind : std::uint8_t { Free, Send, Recv, Message, Done, Coll };
  Kind kind = Kind::Free;
  bool persistent = false;   // MPI_*_init: survives completion, restarted by MPI_Start
  bool active = false;       // an operation is in flight (or completed, not yet waited)
  bool complete = false;     // set by the UCX callback (or at once for immediate ones)
  bool user_freed = false;   // MPI_Request_free on an active request: release on completion
  bool sync = false;         // synchronous send mode
  bool cancelled = false;
  int error = MPI_SUCCESS;   // MPI error code of the completed operation
  int source = MPI_ANY_SOURCE;
  int tag = MPI_ANY_TAG;
  std::size_t bytes = 0;     // bytes received (or sent)
  void* ucx = nullptr;       // UCX request while in flight
  void* ucx_msg = nullptr;   // matched message (MPI_Mprobe)
  Comm* comm = nullptr;

  // What a persistent request starts each time (also kept for non-persistent ones).
  void* buf = nullptr;
  std::size_t buf_bytes = 0;
  std::uint32_t recv_unit = 1;  // a receive's bytes must be a multiple (TypeInfo::unit)
  int peer = MPI_PROC_NULL;  // destination or source (comm rank)
  int user_tag = 0;
  std::uint8_t send_mode = 0;   // MPI layer's send mode, for MPI_Start
  std::uint64_t sender_tag = 0; // full UCX tag of a probed message (MPI_Mprobe)
  void* bsend_block = nullptr;  // buffered send: block to return to the attached buffer
  void* gpu_xfer = nullptr;     // lib/p2p device staging of the operation in flight
  // Receives matched by lib/p2p's shared-memory rings (p2p/local.h).
  void* recv_buf = nullptr;     // where the message lands
  std::uint64_t want_tag = 0;   // what it matches: (tag ^ want_tag) & want_mask == 0
  std::uint64_t want_mask = 0;
  bool no_cancel = false;       // matched; its data is on the way through UCX
  Request* next_posted = nullptr;  // the next posted receive of its context (lib/p2p/local.cc)
  // Extension state owned by the request (a running collective), freed with it.
  void* ext = nullptr;
  void (*ext_free)(void*) = nullptr;

  // Pool bookkeeping.
  std::uint64_t seen = 0;       // the last array completion call that listed it (lib/mpi/requests.cc)
  int index = -1;
  Request* next_free = nullptr;

  // Every field but the pool's slot index back to its initial value, for a slot
  // taken again (RequestPool::get). Copied from a constant blank request, which
  // GCC turns into a few vector stores of known values; assigning `Request{}`
  // made it zero the 184 bytes with `rep stos`, whose start-up cost was ~8% of an
  // 8 B message-rate run (bw). Every field (and a new one) is covered.
  void reset() {
    static constexpr Request kBlank{};
    const int idx = index;
    std::memcpy(static_cast<void*>(this), &kBlank, sizeof(Request));
    index = idx;
  }
};
static_assert(std::is_trivially_copyable_v<Request>, "Request::reset copies a blank one byte for byte");

class RequestPool {
 public:
  static constexpr int kChunk = 1024;
  // The index of the one request every send that completed inside its call
  // (MPI_Isend of a small message written at once) shares, as MPICH's builtin
  // completed requests: such a send takes no slot, its wait frees none. The
  // handle looks up as a complete standard send, afresh each time (callers may
  // write to what they looked up).
  static constexpr int kDoneSendIndex = 0x03ffffff;
  Request* get();
  void put(Request* r);
  MPI_Request handle(const Request* r) const;
  // nullptr when `h` is not a live request of this pool.
  Request* lookup(MPI_Request h) const;
  MPI_Request done_send_handle() const;
  bool is_done_send(const Request* r) const { return r == &done_send_; }
  std::size_t live() const { return live_; }
  // True when some live request satisfies pred (a scan of the whole pool: for
  // rare events such as freeing a communicator).
  template <typename F>
  bool any_live(F&& pred) const {
    if (live_ == 0) return false;
    for (const auto& chunk : chunks_)
      for (int i = 0; i < kChunk; ++i)
        if (chunk[i].kind != Request::Kind::Free && pred(chunk[i])) return true;
    return false;
  }

 private:
  std::vector<std::unique_ptr<Request[]>> chunks_;
  Request* free_ = nullptr;
  std::size_t live_ = 0;
  mutable Request done_send_{};  // the shared complete send (kDoneSendIndex)
};

// The process's pool, constant-initialized (no guard to check): requests() is on
// every point-to-point call's path.
namespace detail {
extern constinit RequestPool g_request_pool;
}
inline RequestPool& requests() { return detail::g_request_pool; }

}  // namespace chorus
