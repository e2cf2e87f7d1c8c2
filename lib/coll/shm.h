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
//   mailbox        P done lines (rank q's last finished mailbox call, then its
//                  place in a streamed one), then per rank a ring of Ds entries
//                  of kSmallEntry bytes (a call's header and up to kInlineMax
//                  bytes of its data), then per rank a ring of D data areas of M
//                  bytes (rounded up to whole lines) for the data of larger
//                  calls: a blocking MPI_Bcast or MPI_Reduce (coll/mailbox.h)
//                  that needs no sync of all ranks
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
#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace chorus::coll {

// The shape of a window's mailbox (coll/mailbox.h): its data areas' bytes (M),
// how many data areas (D) and how many entries (Ds >= D) each rank has; depth 0:
// no mailbox.
struct MailboxShape {
  std::size_t bytes = 0;
  int depth = 0;
  int small_depth = 0;
};

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
  static std::size_t bytes_for(int size, std::size_t slot, MailboxShape mbox = {}) {
    return 2 * gen_bytes(size, slot) + mbox_region(size, mbox);
  }

  // The leader creates the segment `name` (shm_open, O_EXCL) sized for `size`
  // ranks; the others open it once the leader has. Each rank allocates its part
  // of the window's pages in /dev/shm now (shm.cc, allocate_pages), so that no
  // later access can be a SIGBUS for want of room. nullptr, *err and *code (the
  // errno: ENOSPC where /dev/shm has no room) on failure. With mbox.depth > 0 the
  // window also holds a mailbox of that shape.
  static std::unique_ptr<ShmWindow> create(const std::string& name, int size, int rank, std::size_t slot,
                                           MailboxShape mbox, std::string* err, int* code);
  static std::unique_ptr<ShmWindow> open(const std::string& name, int size, int rank, std::size_t slot,
                                         MailboxShape mbox, std::string* err, int* code);
  // Removes the name (the mappings stay until every rank unmaps).
  static void unlink(const std::string& name);

  ShmWindow(const ShmWindow&) = delete;
  ShmWindow& operator=(const ShmWindow&) = delete;
  ~ShmWindow();

  std::size_t slot() const { return slot_; }
  std::size_t bytes() const { return bytes_; }
  int size() const { return size_; }
  // A node's window of a communicator across nodes (lib/mpi/comm.cc) holds the
  // communicator's ranks of one node: `index_of` maps a communicator rank to its
  // place in the window (-1: another node's). Schedules name peers by
  // communicator rank; a window of every rank needs no map.
  void set_members(std::vector<int> index_of) { index_of_ = std::move(index_of); }
  int index(int comm_rank) const {
    return index_of_.empty() ? comm_rank : index_of_[static_cast<std::size_t>(comm_rank)];
  }
  // Who shares the window out (lib/mpi/comm.cc) names it here: the creator's pid
  // and the segment's serial, which every rank learned when it mapped it.
  std::uint64_t id = 0;
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
  void publish(std::byte* gen, const std::int64_t* v, int n, int first = 0) {
    std::memcpy(header(gen, rank_) + 8 + 8 * static_cast<std::size_t>(first), v, static_cast<std::size_t>(n) * 8);
  }
  std::int64_t published(std::byte* gen, int peer, int i) const {
    std::int64_t v;
    std::memcpy(&v, header(gen, peer) + 8 + 8 * static_cast<std::size_t>(i), 8);
    return v;
  }

  // ---- the mailbox (coll/mailbox.h) -------------------------------------------
  // One entry: its header (the call's number, the writer's root and byte count,
  // how the writer runs the call), then up to kInlineMax bytes of data (more goes
  // to the call's data area); data of up to 32 bytes shares the header's cache line.
  struct Entry {
    std::uint64_t seq;    // the call's mailbox number (1, 2, ...); written last
    std::uint64_t bytes;  // the writer's byte count
    std::int32_t root;    // the root the writer passed
    std::int32_t mode;    // mailbox.h, Mode
    std::int32_t kind;    // mailbox.h, Kind: which call wrote it
    std::int32_t chunk;   // Mode::Stream: the writer's chunk bytes (whole elements of its type)
  };
  static constexpr std::size_t kEntryHeader = sizeof(Entry);
  static_assert(kEntryHeader == 32, "entry data 32-aligned");
  static constexpr std::size_t kSmallEntry = 4 * kLine;
  static constexpr std::size_t kInlineMax = kSmallEntry - kEntryHeader;
  static std::size_t area_bytes(std::size_t mbox_bytes) { return (mbox_bytes + kLine - 1) / kLine * kLine; }
  static std::size_t mbox_region(int size, MailboxShape m) {
    if (m.depth <= 0) return 0;
    const auto p = static_cast<std::size_t>(size);
    return p * kLine + p * static_cast<std::size_t>(m.small_depth) * kSmallEntry +
           p * static_cast<std::size_t>(m.depth) * area_bytes(m.bytes);
  }
  bool has_mailbox() const { return mbox_.depth > 0; }
  std::size_t mbox_bytes() const { return mbox_.bytes; }
  // A call of up to this many bytes keeps its data in its entry.
  std::size_t mbox_inline() const { return std::min(kInlineMax, mbox_.bytes); }
  // How many calls of `bytes` each a rank may run ahead of the slowest: the
  // entries, or the data areas where the data does not fit an entry.
  int mbox_depth(std::size_t bytes) const { return bytes <= mbox_inline() ? mbox_.small_depth : mbox_.depth; }
  // The number of this rank's next mailbox call (every rank counts the same calls).
  std::uint64_t mbox_take() { return ++mbox_seq_; }
  // Rank q's entry for call `seq`.
  Entry* entry(int q, std::uint64_t seq) const {
    const auto d = static_cast<std::size_t>(mbox_.small_depth);
    return reinterpret_cast<Entry*>(mbox_base_ + static_cast<std::size_t>(size_) * kLine +
                                    (static_cast<std::size_t>(q) * d + seq % d) * kSmallEntry);
  }
  // Where rank q's call `seq` of `bytes` keeps its data: its entry, or its data area.
  std::byte* entry_data(int q, std::uint64_t seq, std::size_t bytes) const {
    if (bytes <= mbox_inline()) return reinterpret_cast<std::byte*>(entry(q, seq)) + kEntryHeader;
    const auto d = static_cast<std::size_t>(mbox_.depth);
    return entries_end() + (static_cast<std::size_t>(q) * d + seq % d) * area_bytes(mbox_.bytes);
  }
  static std::atomic_ref<std::uint64_t> entry_seq(Entry* e) { return std::atomic_ref<std::uint64_t>(e->seq); }
  // Rank q's last finished mailbox call: its entries of older calls no longer read.
  std::atomic_ref<std::uint64_t> mbox_done(int q) const {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(mbox_base_ + static_cast<std::size_t>(q) * kLine));
  }
  // This rank's copy of rank q's mbox_done as last read: a rank that writes its
  // entry reads the shared line only when the copy is too old, so in a loop of
  // small calls the line stays in the cache of the rank that writes it instead of
  // moving between the cores every call.
  std::uint64_t& mbox_seen(int q) { return mbox_seen_[static_cast<std::size_t>(q)]; }
  // Rank q's place in a streamed mailbox call (mailbox.h, Mode::Stream): the
  // call's number and the chunks q has written or read, in one word.
  std::atomic_ref<std::uint64_t> mbox_progress(int q) const {
    return std::atomic_ref<std::uint64_t>(
        *reinterpret_cast<std::uint64_t*>(mbox_base_ + static_cast<std::size_t>(q) * kLine + 8));
  }

  // This rank's recent sync time, µs (executor.h, BusyAlt): a moving average of
  // the syncs of calls that have a way out, each call's first left out while it
  // runs through the window (that one also waits for the ranks to arrive), and
  // only that one, which is all there is, while calls go over messages.
  double sync_us = 0;
  // Whether the last call with a way out took it, and how often that changed
  // (INFO lines say the first changes).
  bool busy_switched = false;
  int busy_changes = 0;

  // Calls that use the window, in call order: take a ticket at start; run while
  // running() == ticket; done() lets the next one run.
  std::uint64_t take_ticket() { return next_ticket_++; }
  std::uint64_t running() const { return running_; }
  void done() { ++running_; }
  // No window call is queued or running on this rank.
  bool quiet() const { return next_ticket_ == running_; }

 private:
  ShmWindow(std::byte* base, std::size_t bytes, int size, int rank, std::size_t slot, MailboxShape mbox)
      : base_(base), bytes_(bytes), size_(size), rank_(rank), slot_(slot), mbox_(mbox),
        mbox_base_(base + 2 * gen_bytes(size, slot)),
        mbox_seen_(static_cast<std::size_t>(size), 0) {}
  std::byte* header(std::byte* gen, int r) const {
    return gen + slot_offset(static_cast<std::size_t>(r), slot_) - kHeader;
  }
  std::atomic_ref<std::uint64_t> count(std::byte* gen, int r) const {
    return std::atomic_ref<std::uint64_t>(*reinterpret_cast<std::uint64_t*>(header(gen, r)));
  }
  // The end of the done lines and entries: the data areas start here.
  std::byte* entries_end() const {
    const auto p = static_cast<std::size_t>(size_);
    return mbox_base_ + p * kLine + p * static_cast<std::size_t>(mbox_.small_depth) * kSmallEntry;
  }
  // The start of the page that holds the mailbox's first done line.
  std::byte* entries_page() const;
  int allocate_pages(int fd) const;
  int prepare_entries() const;
  static std::unique_ptr<ShmWindow> map(const std::string& name, int size, int rank, std::size_t slot,
                                        MailboxShape mbox, bool create, std::string* err, int* code);

  std::byte* base_;
  std::size_t bytes_;
  int size_, rank_;
  std::size_t slot_;
  std::uint64_t signals_ = 0;
  std::uint64_t next_ticket_ = 0, running_ = 0;
  MailboxShape mbox_;
  std::byte* mbox_base_;
  std::uint64_t mbox_seq_ = 0;
  std::vector<std::uint64_t> mbox_seen_;
  std::vector<int> index_of_;
};

}  // namespace chorus::coll
