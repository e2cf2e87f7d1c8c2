// Byte buffers for messages: the bytes of a message that arrived before its
// receive (p2p/local.cc), a one-sided operation's message and its answer
// (mpi/win.cc). The bytes are left uninitialised (a std::vector zero-fills them
// first) and come from a few kept from earlier buffers. Freeing each at once cost
// more than its copies: a buffer above malloc's trim threshold went back to the
// kernel at every free (brk, a TLB flush) and came back at the next message with
// a page fault per page. Up to kInline bytes live in the object itself: a small
// message costs no allocation at all.
//
// Not thread-safe: every user holds the MPI lock (the engine's progress runs
// under it).
#pragma once
#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

namespace chorus {

class Bytes {
 public:
  static constexpr std::size_t kInline = 64;
  Bytes() = default;
  explicit Bytes(std::size_t n) { reset(n); }  // n bytes, uninitialised
  Bytes(Bytes&& o) noexcept : p_(std::move(o.p_)), cap_(std::exchange(o.cap_, 0)), size_(std::exchange(o.size_, 0)) {
    if (!p_) std::memcpy(small_, o.small_, kInline);
    point();
    o.point();
  }
  Bytes& operator=(Bytes&& o) noexcept {
    if (this == &o) return *this;
    release();
    p_ = std::move(o.p_);
    cap_ = std::exchange(o.cap_, 0);
    size_ = std::exchange(o.size_, 0);
    if (!p_) std::memcpy(small_, o.small_, kInline);
    point();
    o.point();
    return *this;
  }
  Bytes(const Bytes&) = delete;
  Bytes& operator=(const Bytes&) = delete;
  ~Bytes() { release(); }
  // n bytes, uninitialised: what the buffer held before is not kept. True when
  // that took new memory (for the callers' MPI_T counters), false when the
  // buffer or a kept one was large enough.
  bool reset(std::size_t n);
  static Bytes copy_of(const void* p, std::size_t n) {
    Bytes b(n);
    if (n) std::memcpy(b.data(), p, n);
    return b;
  }
  std::byte* data() { return at_; }
  const std::byte* data() const { return at_; }
  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

 private:
  void release();
  // Where the bytes are, kept rather than computed (p_ or small_): a computed
  // one made GCC warn of writes past small_ wherever a caller wrote more.
  void point() { at_ = p_ ? p_.get() : small_; }
  std::unique_ptr<std::byte[]> p_;
  std::size_t cap_ = 0;
  std::size_t size_ = 0;
  std::byte small_[kInline];
  std::byte* at_ = small_;
};

}  // namespace chorus
