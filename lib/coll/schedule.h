// Collective schedules: plain data. An algorithm turns (CollArgs, this rank) into
// a Schedule; the executor runs it over lib/p2p in a job, and the simulator
// (sim.h) runs the very same schedule for every rank in one process.
//
// A schedule is a list of rounds. Each round:
//   1. posts all its Send and Recv steps at once (non-blocking),
//   2. waits until they have all completed,
//   3. runs its local steps (Copy, Reduce) in order.
// A round with no Send/Recv only runs local steps. Messages between the same pair
// of ranks match in the order they were posted (MPI's non-overtaking rule), so a
// peer that is a round ahead is harmless. The executor keeps these semantics while
// it posts a send before its round (once no unfinished round writes its data) and
// lets it finish after (until a round would overwrite its data, or the call ends):
// CHORUS_COLL_SEND_AHEAD, executor.cc post_ahead().
//
// Shared-memory schedules (communicators whose ranks share one node and a window,
// coll/shm.h) address the window as kShm and synchronise with Signal and Wait
// instead of messages: a Signal, posted with the round, publishes that this rank
// has finished every earlier round (its writes to its part of the window are
// visible); a Wait completes once `peer` has posted as many Signals as this rank.
// Every rank of such a schedule posts the same number of Signals.
//
// Buffers are symbolic: kSend (the user's send buffer), kRecv (the user's receive
// buffer), temporaries kTmp0.. and kShm (this call's part of the communicator's
// shared window: every rank sees the same bytes); all offsets and lengths are in
// bytes of packed data (contiguous elements of args.elem_size bytes). Steps never refer to user
// pointers, so schedules can be built, cached, counted and simulated freely.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace chorus::coll {

enum BufId : std::uint8_t { kSend = 0, kRecv = 1, kTmp0 = 2, kTmp1 = 3, kTmp2 = 4, kTmp3 = 5, kShm = 6 };
constexpr int kMaxBufs = 6;  // kSend, kRecv and the temporaries (kShm is not a private buffer)

struct BufRef {
  std::uint8_t buf = kRecv;
  std::size_t off = 0;  // bytes
};

struct Step {
  enum class Kind : std::uint8_t {
    Send,         // send `bytes` from `a` to `peer`
    Recv,         // receive `bytes` from `peer` into `b`
    Copy,         // b[0..bytes) = a[0..bytes)
    ReduceLeft,   // b = a (op) b   -- a is the left operand: the MPI user-op order
    ReduceRight,  // b = b (op) a   -- b is the left operand
    Signal,       // shared window: this rank reached this round (posted with the round)
    Wait,         // shared window: wait until `peer` has posted as many Signals
  };
  Kind kind;
  int peer = -1;        // communicator rank (Send/Recv)
  BufRef a;             // source / left operand of ReduceLeft
  BufRef b;             // destination / in-out operand
  std::size_t bytes = 0;
  // Send from a user buffer: no step of its round or a later one writes what it
  // sends, so nothing waits for it before the call ends (mark_settled()).
  bool settled = false;
};

struct Round {
  std::vector<Step> steps;
};

// Whether a step of `rd` that writes (Recv, Copy, Reduce) overlaps [off, off + bytes)
// of `buf`.
bool round_writes(const Round& rd, std::uint8_t buf, std::size_t off, std::size_t bytes);

struct Schedule {
  std::vector<Round> rounds;
  std::size_t tmp_bytes[kMaxBufs - kTmp0] = {};  // size of each temporary
  std::size_t shm_bytes = 0;  // kShm bytes the schedule uses (0: no shared window)

  // Builders used by the algorithms.
  Round& round() { return rounds.emplace_back(); }
  static Step send(int peer, BufRef from, std::size_t bytes) {
    return Step{Step::Kind::Send, peer, from, {}, bytes};
  }
  static Step recv(int peer, BufRef into, std::size_t bytes) {
    return Step{Step::Kind::Recv, peer, {}, into, bytes};
  }
  static Step copy(BufRef from, BufRef to, std::size_t bytes) {
    return Step{Step::Kind::Copy, -1, from, to, bytes};
  }
  // to = from (op) to
  static Step reduce_left(BufRef from, BufRef to, std::size_t bytes) {
    return Step{Step::Kind::ReduceLeft, -1, from, to, bytes};
  }
  // to = to (op) from
  static Step reduce_right(BufRef from, BufRef to, std::size_t bytes) {
    return Step{Step::Kind::ReduceRight, -1, from, to, bytes};
  }
  static Step signal() { return Step{Step::Kind::Signal, -1, {}, {}, 0}; }
  static Step wait(int peer) { return Step{Step::Kind::Wait, peer, {}, {}, 0}; }
  void need_tmp(BufId id, std::size_t bytes) {
    std::size_t& t = tmp_bytes[id - kTmp0];
    if (bytes > t) t = bytes;
  }

  // Totals for this rank (the simulator checks them against cost formulas).
  std::size_t bytes_sent() const;
  std::size_t bytes_received() const;
  int comm_rounds() const;  // rounds with at least one Send or Recv
  int signals() const;      // Signal steps (shared-window synchronisations)
  // The first round with a Signal when it is a sync of every rank (a Wait on each
  // of the other size - 1 ranks) and no round up to it sends or receives; else
  // rounds.size(). An agreement can ride on that sync (executor.cc): the ranks'
  // values go into the window's header with its Signal and are compared once its
  // Waits are done, before the round's local steps.
  std::size_t first_sync_all(int size) const;
  // Sets Step::settled on the sends of 4 KiB and more from kSend or kRecv that no
  // step of their round or a later one overwrites (the executor lets those be read
  // single-copy from point-to-point's size, p2p::isend's `readable`, where other
  // collective messages wait for 64 KiB: their rounds would wait for the read).
  // Temporaries are left out: the next call writes them again, after the peer's
  // read pulled their lines to its core. Schedules of more than 1024 steps are
  // left unmarked (the check is quadratic); the schedule cache calls it once per
  // schedule it keeps (binding.cc, cache_schedule).
  void mark_settled();
  std::string dump() const; // human-readable, for test failures and TRACE logs
};

}  // namespace chorus::coll
