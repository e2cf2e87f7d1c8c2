// The mailbox: blocking MPI_Bcast and MPI_Reduce on a communicator with a shared
// window (coll/shm.h) without a sync of all ranks, so that a loop of small rooted
// calls pipelines as it does over eager messages.
//
// Every rank has a ring of D entries in the window. For its n-th mailbox call
// (every rank numbers the same calls: all blocking bcasts and reduces on the
// communicator while the mailbox is on) a rank writes its entry n % D: the root
// and byte count it passed, how it runs the call (Mode), and its data where the
// call has it move through the entry (a bcast's root, a reduce's other ranks);
// the number n, stored last, publishes it. Then
//   - bcast, small: the root returns; the others wait for the root's entry, copy
//     its data out, and return;
//   - reduce, small: the others return; the root waits for every entry and
//     reduces them in rank order;
//   - larger calls (Mode::Job): every rank waits for every entry, which is the
//     root/count check of these calls, then runs the chosen algorithm.
// A rank marks itself done with call n once it reads no entry of n any more, and
// writes entry n again (call n + D) only once every rank is done with call n: a
// rank that does not wait runs at most D calls ahead of the slowest.
//
// Mismatches. A rank that waits also reads every peer's entry of this call: a
// call kind, root, byte count or mode other than its own is MPI_ERR_OTHER /
// MPI_ERR_ROOT / MPI_ERR_COUNT / MPI_ERR_ARG on that rank, at once, so no wrong data is read and no rank waits
// forever: two ranks that each name the other as root both wait, and both see the
// other's entry; a rank whose count is beyond the mailbox while a peer's is within
// it waits for every entry and sees the peer's. A rank that does not wait (a small
// bcast's root, a small reduce's other ranks) returns MPI_SUCCESS even when the
// others disagree; so do two ranks that each name themselves the root of a bcast,
// and the ranks of a reduce none of which names itself (no rank waits, no rank
// receives anything). CHORUS_CHECK_COLL=1, which turns the mailbox off, makes
// every rank of a mismatched call fail. A call that fails its own argument checks
// on one rank still takes its number there, with a Failed entry (lib/mpi/coll.cc,
// MailboxSkip): the ranks' numbers stay in step and a peer that waits for it fails.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "coll/shm.h"

namespace chorus::coll::mailbox {

enum class Mode : std::int32_t {
  Data = 1,       // the data moves through the entries
  Job = 2,     // every rank checks every entry, then runs the chosen algorithm
  Failed = 3,  // the call failed on this rank: its own checks, or reading its (device) buffer
};

enum class Kind : std::int32_t { Bcast = 1, Reduce = 2 };

// A disagreement seen in a peer's entry: the MPI error class and the message.
struct Verdict {
  int cls = 0;  // 0: none
  std::string msg;
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
// ShmWindow::data(w->entry(q, seq)).
bool await_all(const Call& c, Verdict* v);
// Done with the call: this rank reads no entry of it any more.
void finish(const Call& c);

}  // namespace chorus::coll::mailbox
