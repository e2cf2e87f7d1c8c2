// The mailbox: blocking MPI_Bcast and MPI_Reduce on a communicator with a shared
// window (coll/shm.h) without a sync of all ranks, so that a loop of small rooted
// calls pipelines as it does over eager messages.
//
// Every rank has a ring of Ds entries and a ring of D data areas in the window
// (ShmWindow::Mailbox). For its n-th mailbox call (every rank numbers the same
// calls: all blocking bcasts and reduces on the communicator while the mailbox is
// on) a rank writes its entry n % Ds: the root and byte count it passed, how it
// runs the call (Mode), and its data where the call has it move through the
// mailbox (a bcast's root, a reduce's other ranks): in the entry itself up to
// ShmWindow::kInlineMax bytes, else in its data area n % D (entry_data); the
// number n, stored last, publishes it. Then
//   - bcast, small: the root returns; the others wait for the root's entry, copy
//     its data out, and return;
//   - reduce, small: the others return; the root waits for every entry and
//     reduces them in rank order;
//   - larger calls (Mode::Stream, up to CHORUS_COLL_MAILBOX_STREAM bytes): the
//     data moves in chunks of a quarter entry through the entry of the rank that
//     has it (a bcast's root, a reduce's other ranks), each chunk published by
//     that rank's progress word; a reader marks each chunk it has taken in its
//     own, and a writer refills a quarter once every reader has taken what it
//     held. The non-roots never wait for each other (the root waits for them
//     all), and a writer waits only when it is four chunks ahead;
//   - the rest (Mode::Job: larger still, or a reduce with a derived type or a
//     user's op): every rank waits for every entry, which is the root/count check
//     of these calls, then runs the chosen algorithm.
// A rank marks itself done with call n once it reads no entry of n any more. It
// writes call m only once every rank is done with call m - Ds, and with call
// m - D when m keeps its data in a data area: a rank that does not wait runs at
// most Ds small calls (CHORUS_COLL_MAILBOX_SMALL_DEPTH) and D larger ones
// (CHORUS_COLL_MAILBOX_DEPTH) ahead of the slowest. Every call before m - D is
// then done, so the data area m % D (last written by call m - D or earlier) and
// the entry m % Ds are free.
//
// Mismatches. A rank that waits also reads every peer's entry of this call: a
// call kind, root, byte count or mode other than its own is MPI_ERR_OTHER /
// MPI_ERR_ROOT / MPI_ERR_COUNT / MPI_ERR_ARG on that rank, at once, so no wrong data is read and no rank waits
// forever (in a streamed call the writers wait for their readers, so they check
// too; a rank that gives up a streamed call midway marks its entry GaveUp, so the
// ranks that wait for it stop): two ranks that each name the other as root both wait, and both see the
// other's entry; a rank whose count is beyond the mailbox while a peer's is within
// it waits for every entry and sees the peer's. A rank that does not wait (a small
// bcast's root, a small reduce's other ranks) returns MPI_SUCCESS even when the
// others disagree; so do two ranks that each name themselves the root of a bcast,
// and the ranks of a reduce none of which names itself (no rank waits, no rank
// receives anything); in Mode::Stream the writers wait for their readers, so
// those calls fail on every rank. CHORUS_CHECK_COLL=1, which turns the mailbox off, makes
// every rank of a mismatched call fail. A call that fails its own argument checks
// on one rank takes no number there (nothing started), as a call over messages
// takes nothing and as in Open MPI and MPICH: the ranks that went on pair with
// that rank's next call, so a program that repeats the call on the ranks that got
// the error (MPICH's errors/coll/noalias does) gets the data of the first.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "coll/shm.h"

namespace chorus::coll::mailbox {

enum class Mode : std::int32_t {
  Data = 1,       // the data moves through the entries
  Job = 2,     // every rank checks every entry, then runs the chosen algorithm
  Failed = 3,  // the call failed on this rank reading its (device) buffer
  Stream = 4,  // the data moves through the entries in chunks (Call::chunk bytes each)
  GaveUp = 5,  // a streamed call this rank left midway (abandon): its marks say nothing more
};

// A streamed call's writer may run this many chunks ahead of its slowest reader:
// an entry holds that many chunks.
inline constexpr std::size_t kStreamAhead = 4;
// Chunks of a streamed call are counted in 24 bits of the progress word.
inline constexpr std::size_t kStreamChunksMax = (std::size_t{1} << 24) - 1;
// The chunk of a streamed call with entries of `mbox_bytes` and elements of
// `elem` bytes (whole elements, so a reduce's root reduces whole chunks); 0 when
// kStreamAhead elements do not fit an entry.
inline std::size_t stream_chunk(std::size_t mbox_bytes, std::size_t elem) {
  if (!elem || elem > mbox_bytes / kStreamAhead) return 0;
  return mbox_bytes / kStreamAhead / elem * elem;
}

enum class Kind : std::int32_t { Bcast = 1, Reduce = 2 };

// A disagreement seen in a peer's entry: the MPI error class and the message.
struct Verdict {
  int cls = 0;  // 0: none
  std::string msg;
  bool gave_up = false;  // only that the peer gave up (Mode::GaveUp): its values agree
};

// This rank's part of mailbox call `seq` (ShmWindow::mbox_take()).
struct Call {
  ShmWindow* w = nullptr;
  const char* name = "";  // "MPI_Bcast"
  int rank = 0, size = 0;
  std::uint64_t seq = 0;
  int root = 0;
  std::size_t bytes = 0;
  Mode mode = Mode::Data;
  Kind kind = Kind::Bcast;
  std::size_t chunk = 0;  // Mode::Stream: bytes per chunk (stream_chunk)
};

// Wait until this rank may write its entry of the call (every rank is done with
// call seq - depth); returns the entry's data area (mbox_bytes() bytes).
std::byte* claim(const Call& c);
// Publish this rank's entry (the data written first, where it has any).
void post(const Call& c);
// Non-root of a bcast: wait for the root's entry. Its data, or null with *v set
// when a peer disagrees.
const std::byte* await_root(const Call& c, Verdict* v);
// Root of a reduce, or any rank of a Mode::Job call: wait for every peer's entry.
// False with *v set when a peer disagrees. Peer q's data is then
// w->entry_data(q, seq, bytes).
bool await_all(const Call& c, Verdict* v);
// Done with the call: this rank reads no entry of it any more.
void finish(const Call& c);
// This rank leaves a streamed call before its part is done (a peer's entry
// disagrees, or its device buffer could not be read): its entry says GaveUp from
// now on, so the peers that wait for its marks stop. Without it they could not
// tell: once this rank marks chunks of a later call, its progress word reads as
// past every chunk of this one.
void abandon(const Call& c);

// ---- Mode::Stream (after claim and post; a reader after await_root / await_all) --
// Where chunk i of writer q's data goes: one of kStreamAhead chunk-sized areas of q's entry.
std::byte* chunk_area(const Call& c, int q, std::size_t i);
// Wait until every rank on the other side of this one (the root's readers or
// writers, or a non-root's root) has marked `chunks` chunks of this call: a
// writer before it refills an area (chunks = i + 1 - kStreamAhead), a reader
// before it takes chunk i (chunks = i + 1). False with *v set when a peer's entry
// disagrees or says Failed or GaveUp.
bool stream_wait(const Call& c, std::size_t chunks, Verdict* v);
// This rank has written (a writer) or taken (a reader) `chunks` chunks of the call.
void stream_mark(const Call& c, std::size_t chunks);

}  // namespace chorus::coll::mailbox
