// One ring of the node-local point-to-point path (p2p/local.h): records written by
// one process and read in place by another, in memory both map.
//
// A record is aligned to a 64 B line: a 32 B header, then (inline kinds) the
// payload. The writer fills the header and payload, then stores `seq` (release);
// the reader expects seq = its own count + 1 at its position (acquire). A record
// that would run past the end is preceded by a Wrap record and starts over at 0.
// The reader publishes its position (bytes consumed, ever) in its own line; the
// writer rereads it only when its cached copy says the ring is full.
//
// Stale bytes: a position the reader waits at may hold an older lap's payload,
// which could by chance equal the seq it expects. So after each record the reader
// zeroes the first word of every line but the first that the record used, before
// publishing its position: every line start the writer has not rewritten since
// reads as 0 or as an older record's seq, which is below any the reader will
// expect. (The first line is left alone, but for a wrap record's, rarely: the
// reader writing it cost a transfer of the line between the two cores per
// record, and the writer another to take it back a lap later.)
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace chorus::p2p::ring {

constexpr std::size_t kLine = 64;

enum Kind : std::uint8_t {
  kEager = 1,   // payload follows the header
  kEagerSync,   // same, and the receiver acknowledges the match (token: sender's request)
  kRts,         // the bytes come through UCX under the tag in `token`
  kAck,         // a synchronous send matched (token: the sender's request)
  kWrap,        // nothing more before the end of the ring: continue at its start
  kFirst,       // first fragment of a longer message: its total length (8 bytes), then data
  kFirstSync,   // same, acknowledged once matched and whole (token: sender's request)
  kFrag,        // the next fragment of the message this ring is carrying
  kCma,         // payload: a CmaDesc; the receiver reads the bytes from the sender's
                // memory and acknowledges (token: the sender's request)
};

// Where a kCma message's bytes are: in process `pid` at `addr`, `len` bytes.
struct CmaDesc {
  std::uint64_t addr;
  std::uint64_t len;
  std::uint64_t pid;
};

struct Header {
  std::uint64_t seq;    // the ring's record count, from 1; written last
  std::uint64_t tag;    // context, source, MPI tag (p2p/tag.h)
  std::uint64_t token;  // see Kind
  // Message bytes (low 56 bits) and Kind (top 8), one word written at once: as
  // two bit-fields, a header built on the stack was stored as a word and then a
  // byte, and the writer's 8-byte load of it could not be forwarded from the two
  // stores (a stall that took ~4% of an 8 B message-rate run).
  std::uint64_t len_kind;

  Header() = default;
  Header(std::uint64_t s, std::uint64_t t, std::uint64_t tok, std::uint64_t len, std::uint8_t kind)
      : seq(s), tag(t), token(tok), len_kind(pack(len, kind)) {}
  std::uint64_t len() const { return len_kind & kLenMask; }
  std::uint8_t kind() const { return static_cast<std::uint8_t>(len_kind >> 56); }
  void set(std::uint64_t len, std::uint8_t kind) { len_kind = pack(len, kind); }

 private:
  static constexpr std::uint64_t kLenMask = (std::uint64_t{1} << 56) - 1;
  static std::uint64_t pack(std::uint64_t len, std::uint8_t kind) {
    return (len & kLenMask) | std::uint64_t{kind} << 56;
  }
};
static_assert(sizeof(Header) == 32, "a record header is half a line");

// The reader's position, alone on its line.
struct alignas(kLine) Ctl {
  std::uint64_t head;
};

inline bool has_payload(std::uint8_t kind) {
  return kind == kEager || kind == kEagerSync || kind == kFirst || kind == kFirstSync || kind == kFrag ||
         kind == kCma;
}
inline std::size_t record_bytes(std::uint8_t kind, std::size_t len) {
  std::size_t n = sizeof(Header) + (has_payload(kind) ? len : 0);
  return (n + kLine - 1) / kLine * kLine;
}

// n bytes (sizeof(W) <= n <= 2 sizeof(W)) as two words that may overlap.
template <typename W>
inline void copy_ends(unsigned char* d, const unsigned char* s, std::size_t n) {
  W a, b;
  std::memcpy(&a, s, sizeof(W));
  std::memcpy(&b, s + n - sizeof(W), sizeof(W));
  std::memcpy(d, &a, sizeof(W));
  std::memcpy(d + n - sizeof(W), &b, sizeof(W));
}

// memcpy, with messages of up to 16 bytes (a message-rate run's) copied inline:
// two loads and two stores, no call.
inline void copy(void* dst, const void* src, std::size_t n) {
  auto* d = static_cast<unsigned char*>(dst);
  const auto* s = static_cast<const unsigned char*>(src);
  if (n > 16) std::memcpy(d, s, n);
  else if (n >= 8) copy_ends<std::uint64_t>(d, s, n);
  else if (n >= 4) copy_ends<std::uint32_t>(d, s, n);
  else
    for (std::size_t i = 0; i < n; ++i) d[i] = s[i];
}

inline std::uint64_t load_acquire(const std::uint64_t* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
inline void store_release(std::uint64_t* p, std::uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

// Where one ring lies: the reader's position line and `bytes` of records (a
// multiple of kLine, at least 4 lines; a record must fit in it).
class Mapped {
 public:
  void attach(Ctl* ctl, std::byte* data, std::size_t bytes) {
    ctl_ = ctl;
    data_ = data;
    bytes_ = bytes;
  }

 protected:
  Ctl* ctl_ = nullptr;
  std::byte* data_ = nullptr;
  std::size_t bytes_ = 0;
};

class Writer : public Mapped {
 public:
  static constexpr std::size_t kPrefetchLines = 8;
  // Write a record (header fields but seq; payload of h.len() bytes for inline
  // kinds: `prefix_bytes` from `prefix`, then the rest from `payload`); false when
  // the reader has not made room yet.
  [[gnu::always_inline]] bool try_write(const Header& h, const void* payload, const void* prefix = nullptr,
                                        std::size_t prefix_bytes = 0) {
    const std::size_t need = record_bytes(h.kind(), h.len());
    std::size_t pos = pos_;
    const std::size_t waste = pos + need > bytes_ ? bytes_ - pos : 0;
    if (tail_ + waste + need - head_seen_ > bytes_) {
      head_seen_ = load_acquire(&ctl_->head);
      if (tail_ + waste + need - head_seen_ > bytes_) return false;
    }
    if (waste) {
      auto* w = reinterpret_cast<Header*>(data_ + pos);
      w->set(0, kWrap);
      store_release(&w->seq, seq_++);
      tail_ += waste;
      pos = 0;
    }
    auto* r = reinterpret_cast<Header*>(data_ + pos);
    r->tag = h.tag;
    r->token = h.token;
    r->len_kind = h.len_kind;
    if (has_payload(h.kind()) && h.len()) {
      auto* d = reinterpret_cast<std::byte*>(r + 1);
      if (prefix_bytes) std::memcpy(d, prefix, prefix_bytes);
      if (h.len() > prefix_bytes) copy(d + prefix_bytes, payload, h.len() - prefix_bytes);
    }
    store_release(&r->seq, seq_++);
    tail_ += need;
    pos_ = pos + need == bytes_ ? 0 : pos + need;
    // Ask now for ownership of a line a few records on, which the reader last
    // had a lap ago: the write there then need not wait for it.
    std::size_t ahead = pos_ + kPrefetchLines * kLine;
    if (ahead >= bytes_) ahead %= bytes_;  // near the end of the ring only
    __builtin_prefetch(data_ + ahead, 1);
    return true;
  }

 private:
  std::uint64_t tail_ = 0, seq_ = 1, head_seen_ = 0;
  std::size_t pos_ = 0;  // tail_ % bytes_, kept as it moves (no division per record)
};

class Reader : public Mapped {
 public:
  // The next record (its payload follows it), or nullptr if none has arrived.
  const Header* peek() {
    for (;;) {
      auto* r = reinterpret_cast<Header*>(data_ + pos_);
      if (load_acquire(&r->seq) != seq_) return nullptr;
      if (r->kind() != kWrap) return r;
      r->seq = 0;
      advance(bytes_ - pos_);
    }
  }
  // Done with the record peek() returned: clear the starts of its payload's
  // lines, move on.
  void pop() {
    const std::size_t pos = pos_;
    auto* r = reinterpret_cast<const Header*>(data_ + pos);
    const std::size_t size = record_bytes(r->kind(), r->len());
    for (std::size_t off = kLine; off < size; off += kLine)
      *reinterpret_cast<std::uint64_t*>(data_ + pos + off) = 0;
    advance(size);
  }

 private:
  void advance(std::size_t n) {
    head_ += n;
    pos_ = pos_ + n == bytes_ ? 0 : pos_ + n;
    ++seq_;
    store_release(&ctl_->head, head_);
  }
  std::uint64_t head_ = 0, seq_ = 1;
  std::size_t pos_ = 0;  // head_ % bytes_, kept as it moves
};

}  // namespace chorus::p2p::ring
