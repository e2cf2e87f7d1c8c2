// The shared window of a communicator whose ranks all run on one node: one
// POSIX shared-memory segment that every member maps, so shared-memory
// algorithms (kShm in schedule.h) move data with plain loads and stores and
// synchronise with one counter per rank instead of messages.
//
// Layout (offsets in bytes; P ranks, S = slot bytes, a multiple of kLine):
//
//   generation 0   P rank blocks of S + kLine bytes: rank q's Signal count in the
//                  first 8 bytes, then the values a rooted call's ranks must agree
//                  on (kAgreeMax x 8 bytes), its slot from kHeader on (a small
//                  slot's data shares the count's cache line: a peer that sees the
//                  count has the data too), then 2 result areas of S bytes
//   generation 1   the same
//
// Calls alternate generations (ticket % 2), so a rank that starts the next
// call while a slower peer still reads the last call's results does not
// overwrite them. A rank Signals in the generation of its current call and a
// Wait reads the peer's count there: the count is the rank's running total of
// Signals, so a peer still in an earlier call (which Signalled in the other
// generation, or in this one two calls ago) shows a smaller count, and a peer
// already past this call shows at least this call's total. Calls using the
// window run one at a time per rank, in call order (tickets), which keeps every
// rank's Signal count in step.
#pragma once
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>

namespace chorus::coll {

class ShmWindow {
 public:
  static constexpr std::size_t kLine = 64;    // a cache line
  static constexpr std::size_t kHeader = 48;  // count, agreement values, pad (slot data 16-aligned)
  static constexpr int kAgreeMax = 5;  // 8 + 5 x 8 bytes: the whole header
  static_assert(8 + 8 * kAgreeMax <= kHeader, "the count and the agreed values fit the header");
  // Offsets within a generation (the kShm offsets schedules use).
  static std::size_t slot_offset(std::size_t q, std::size_t slot) { return q * (slot + kLine) + kHeader; }
  static std::size_t area_offset(std::size_t size, std::size_t k, std::size_t slot) {
    return size * (slot + kLine) + k * slot;
  }
  static std::size_t gen_bytes(int size, std::size_t slot) {
    return area_offset(static_cast<std::size_t>(size), 2, slot);
  }
  static std::size_t bytes_for(int size, std::size_t slot) { return 2 * gen_bytes(size, slot); }

  // The leader creates the segment `name` (shm_open, O_EXCL) sized for `size`
  // ranks; the others open it once the leader has. nullptr and *err on failure.
  static std::unique_ptr<ShmWindow> create(const std::string& name, int size, int rank,
                                           std::size_t slot, std::string* err);
  static std::unique_ptr<ShmWindow> open(const std::string& name, int size, int rank,
                                         std::size_t slot, std::string* err);
  // Removes the name (the mappings stay until every rank unmaps).
  static void unlink(const std::string& name);

  ShmWindow(const ShmWindow&) = delete;
  ShmWindow& operator=(const ShmWindow&) = delete;
  ~ShmWindow();

  std::size_t slot() const { return slot_; }
  // The kShm base of the call holding `ticket`.
  std::byte* generation(std::uint64_t ticket) const {
    return base_ + (ticket % 2) * gen_bytes(size_, slot_);
  }

  // Signal in generation `gen`: this rank finished its earlier rounds (release:
  // its writes are seen by whoever observes the new count).
  void signal(std::byte* gen) { count(gen, rank_).store(++signals_, std::memory_order_release); }
  // True once `peer` has posted as many Signals as this rank (seen in `gen`).
  bool reached(std::byte* gen, int peer) const {
    return count(gen, peer).load(std::memory_order_acquire) >= signals_;
  }

  // Agreement values (executor.h, Agreement) in this rank's header of `gen`,
  // written before a Signal and read by peers once they see it.
  void publish(std::byte* gen, const std::int64_t* v, int n) {
    std::memcpy(header(gen, rank_) + 8, v, static_cast<std::size_t>(n) * 8);
  }
  std::int64_t published(std::byte* gen, int peer, int i) const {
    std::int64_t v;
    std::memcpy(&v, header(gen, peer) + 8 + 8 * static_cast<std::size_t>(i), 8);
    return v;
  }

  // Calls that use the window, in call order: take a ticket at start; run while
  // running() == ticket; done() lets the next one run.
  std::uint64_t take_ticket() { return next_ticket_++; }
  std::uint64_t running() const { return running_; }
  void done() { ++running_; }
  // No window call is queued or running on this rank.
  bool quiet() const { return next_ticket_ == running_; }

 private:
  ShmWindow(std::byte* base, std::size_t bytes, int size, int rank, std::size_t slot)
      : base_(base), bytes_(bytes), size_(size), rank_(rank), slot_(slot) {}
  std::byte* header(std::byte* gen, int r) const {
    return gen + slot_offset(static_cast<std::size_t>(r), slot_) - kHeader;
  }
  std::atomic_ref<std::uint64_t> count(std::byte* gen, int r) const {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(header(gen, r)));
  }
  static std::unique_ptr<ShmWindow> map(const std::string& name, int size, int rank,
                                        std::size_t slot, bool create, std::string* err);

  std::byte* base_;
  std::size_t bytes_;
  int size_, rank_;
  std::size_t slot_;
  std::uint64_t signals_ = 0;
  std::uint64_t next_ticket_ = 0, running_ = 0;
};

}  // namespace chorus::coll
