#include "core/bytes.h"

#include <bit>
#include <vector>

#include "core/params.h"

namespace chorus {
namespace {

// Buffers given back, by size class (class c holds buffers of 2^c bytes), kept for
// the next ones while they add up to at most CHORUS_BUFFER_KEEP bytes: a buffer
// is taken and given back in O(1) whatever the pool holds. Never destroyed:
// buffers die at exit in any order (a rank's pending messages among them), and
// each may hand its bytes back here.
struct Spare {
  static constexpr int kClasses = 48;
  std::vector<std::unique_ptr<std::byte[]>> free[kClasses];
  std::size_t bytes = 0;
  std::size_t limit = param::BufferKeep();
};
Spare& spare() {
  static Spare* s = new Spare;
  return *s;
}

// The smallest class that holds n bytes (n > Bytes::kInline).
int class_of(std::size_t n) { return std::bit_width(n - 1); }

}  // namespace

bool Bytes::reset(std::size_t n) {
  size_ = n;
  if (cap_ >= n || (!p_ && n <= kInline)) return false;
  release();
  size_ = n;
  Spare& s = spare();
  // A size the pool may keep is taken from its class, or allocated rounded up to
  // it (pages past n that are never written cost nothing); a larger one as it is.
  const int c = class_of(n);
  const std::size_t round = c < Spare::kClasses ? std::size_t{1} << c : 0;
  const bool keepable = round && round <= s.limit;
  const bool fresh = !keepable || s.free[c].empty();
  if (fresh) {
    p_ = std::make_unique_for_overwrite<std::byte[]>(keepable ? round : n);
  } else {
    p_ = std::move(s.free[c].back());
    s.free[c].pop_back();
    s.bytes -= round;
  }
  cap_ = keepable ? round : n;
  point();
  return fresh;
}

void Bytes::release() {
  size_ = 0;
  if (!p_) return;
  Spare& s = spare();
  if (std::has_single_bit(cap_) && std::countr_zero(cap_) < Spare::kClasses && s.bytes + cap_ <= s.limit) {
    s.bytes += cap_;
    s.free[std::countr_zero(cap_)].push_back(std::move(p_));
  }
  p_.reset();
  cap_ = 0;
  point();
}

}  // namespace chorus
