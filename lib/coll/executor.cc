#include "coll/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <deque>

#include <fmt/format.h>

#include "coll/shm.h"
#include "core/counters.h"
#include "core/log.h"
#include "core/params.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::coll {
namespace {

// The agreement exchange's state: per checked value, the smallest and largest
// value seen and a rank that passed each (ties: the lowest rank). Min and max are
// idempotent, so a dissemination exchange leaves every rank with the global pair.
struct AgreeState {
  struct Slot {
    std::int64_t min, min_rank, max, max_rank;
  } slot[Agreement::kMax];
};

struct Running {
  std::unique_ptr<Job> job;
  // Agreement exchange (before round 0): distance of the next exchange (1, 2,
  // 4, ...; >= size when done), and its two messages.
  int agree_dist = 0;
  AgreeState agree, agree_out, agree_in;
  Request* agree_req[2] = {};
  bool agree_posted = false;
  Request* req = nullptr;
  std::uint32_t seq = 0;                // the messages' MPI-tag field (start())
  std::size_t round = 0;
  // P2p requests of the current round, with their steps; may_linger: a send the
  // round may leave in flight (lazy sends, and none of the round's steps writes
  // what it reads), decided once when it is posted.
  struct Pend {
    Request* req;
    const Step* step;
    bool may_linger;
  };
  std::vector<Pend> pending;
  // Sends of finished rounds still in flight (lazy sends, post_ahead()): a round
  // waits for one only when it writes what the send reads; the call, for all.
  struct Linger {
    Request* req;
    BufRef from;
    std::size_t bytes;
  };
  std::vector<Linger> lingering;
  // Sends posted ahead of their round (post_ahead()): in schedule order, the
  // sends before (ahead_round, ahead_step) that belong to rounds after `round`.
  std::deque<Request*> ahead;  // (their steps: the round's first sends)
  std::size_t ahead_round = 0, ahead_step = 0;
  std::vector<std::byte> tmp[kMaxBufs - kTmp0];
  std::byte* dtmp[kMaxBufs - kTmp0] = {};  // device jobs: temporaries in device memory
  std::vector<std::byte> scratch;       // ReduceRight staging
  // Schedules on the communicator's shared window: the window, this call's turn
  // (ShmWindow tickets) and its generation's base (kShm).
  std::shared_ptr<ShmWindow> shm;
  std::uint64_t ticket = 0;
  std::byte* shm_base = nullptr;
  bool shm_turn = false;                // the window's earlier calls are done
  // Agreement through the window instead of messages (communicators with one):
  // a sync of its own (Publish, then Waiting for every peer's values), or Folded
  // into the schedule's own first sync of every rank (round fold_round).
  enum class ShmAgree { None, Publish, Waiting, Folded };
  ShmAgree shm_agree = ShmAgree::None;
  std::size_t fold_round = 0;
  // The schedule running: the job's, or its BusyAlt's once the ranks took it.
  const Schedule* sched = nullptr;
  // The job's way out (BusyAlt) while it may still take it: the sync of round
  // fold_round carries the ranks' sync times. Rounds with a Signal are timed
  // (sync_t0) for ShmWindow::sync_us while `timed`.
  const BusyAlt* busy = nullptr;
  bool timed = false, sync_posted = false;
  std::chrono::steady_clock::time_point sync_t0;
  bool active = false;
  Running* next = nullptr;              // in the active list
};

Running* g_active = nullptr;
// Finished Running objects and Jobs kept for reuse (no allocation per collective).
std::vector<std::unique_ptr<Running>> g_spare;
std::vector<std::unique_ptr<Job>> g_spare_jobs;
// The bytes the spare Running objects' host temporaries hold (at most
// CHORUS_COLL_TMP_KEEP): a loop of large collectives reuses them instead of
// allocating and faulting in its temporaries on every call.
std::size_t g_spare_tmp_bytes = 0;
constexpr std::size_t kMaxSpare = 16;
int (*g_make_error)(int, std::string) = nullptr;
static_assert(Agreement::kMax <= ShmWindow::kAgreeMax, "the window header holds every agreed value");

std::byte* resolve(Running& r, const BufRef& ref) {
  switch (ref.buf) {
    case kSend: return r.job->send + ref.off;
    case kRecv: return r.job->recv + ref.off;
    case kShm: return r.shm_base + ref.off;
    default:
      if (r.job->device) return r.dtmp[ref.buf - kTmp0] + ref.off;
      return r.tmp[ref.buf - kTmp0].data() + ref.off;
  }
}

void device_fail(Running& r, const char* what) {
  if (r.job->local_error.empty())
    r.job->local_error = std::string(what) + ": " + r.job->device->error();
}

void free_device_tmps(Running& r) {
  for (auto& d : r.dtmp) {
    if (d) r.job->device->free(d);
    d = nullptr;
  }
}

// A device job's local step: Copy and ReduceRight through device memory.
void run_device_step(Running& r, const Step& s) {
  const DeviceOps& d = *r.job->device;
  std::byte* a = resolve(r, s.a);
  std::byte* b = resolve(r, s.b);
  if (s.kind == Step::Kind::Copy) {
    if (a == b) return;
    bool overlap = a < b + s.bytes && b < a + s.bytes;
    if (!overlap) {
      if (!d.copy(b, a, s.bytes)) device_fail(r, "device copy");
      return;
    }
  }
  // Stage `a` (an overlapping copy, or the right operand of b = b (op) a).
  auto* t = static_cast<std::byte*>(d.alloc(s.bytes));
  if (!t) return device_fail(r, "device scratch buffer");
  if (!d.copy(t, a, s.bytes)) {
    device_fail(r, "device copy");
  } else if (s.kind == Step::Kind::Copy) {
    if (!d.copy(b, t, s.bytes)) device_fail(r, "device copy");
  } else {
    r.job->reduce(b, t, s.bytes);  // t = b (op) t
    if (!d.copy(b, t, s.bytes)) device_fail(r, "device copy");
  }
  d.free(t);
}

void fail(Running& r, int mpi_error) {
  if (r.req->error == MPI_SUCCESS) r.req->error = mpi_error;
}

void agree_reset(Running& r) {
  const Agreement& a = r.job->agree;
  r.agree_posted = false;
  r.agree_dist = a.n > 0 && r.job->comm->size > 1 ? 1 : r.job->comm->size;
  for (int i = 0; i < a.n; ++i)
    r.agree.slot[i] = {a.values[i], r.job->comm->rank, a.values[i], r.job->comm->rank};
}

void agree_merge(AgreeState& into, const AgreeState& in, int n) {
  for (int i = 0; i < n; ++i) {
    auto& d = into.slot[i];
    const auto& s = in.slot[i];
    if (s.min < d.min || (s.min == d.min && s.min_rank < d.min_rank)) {
      d.min = s.min;
      d.min_rank = s.min_rank;
    }
    if (s.max > d.max || (s.max == d.max && s.max_rank < d.max_rank)) {
      d.max = s.max;
      d.max_rank = s.max_rank;
    }
  }
}

// After the exchange: every rank holds the global min and max of each value;
// if they differ, fail the call with a message naming two ranks.
void agreement_verdict(Running& r) {
  const Agreement& a = r.job->agree;
  for (int i = 0; i < a.n; ++i) {
    const auto& s = r.agree.slot[i];
    if (s.min == s.max) continue;
    auto show = [&](std::int64_t v) { return a.show[i] ? a.show[i](v) : fmt::format("{}", v); };
    std::string msg = fmt::format("{}: ranks passed different values of {}: rank {} passed {}, rank {} passed {}",
                                  a.call, a.names[i], s.min_rank, show(s.min), s.max_rank, show(s.max));
    CHORUS_LOG(INFO, COLL, "{}", msg);
    r.req->error = g_make_error ? g_make_error(a.error_class[i], std::move(msg)) : a.error_class[i];
    return;
  }
}

// Run the agreement exchange as far as it goes. False while waiting; true when
// it is over (then r.req->error says whether the ranks agreed).
bool advance_agreement(Running& r) {
  const Comm& c = *r.job->comm;
  const Agreement& a = r.job->agree;
  const int seq_tag = static_cast<int>(r.seq);
  while (r.agree_dist < c.size) {
    if (!r.agree_posted) {
      // Round k: send what we know to rank + 2^k, receive from rank - 2^k.
      int to = (c.rank + r.agree_dist) % c.size;
      int from = (c.rank - r.agree_dist % c.size + c.size) % c.size;
      r.agree_out = r.agree;
      r.agree_posted = true;
      for (int i = 0; i < 2; ++i) {
        Request* p = requests().get();
        p->comm = r.req->comm;
        Status st = i == 0 ? p2p::isend(p, &r.agree_out, sizeof(AgreeState), c.world_rank(to),
                                        tag::make(seq_tag, c.rank, c.ctx_coll), false)
                           : p2p::irecv(p, &r.agree_in, sizeof(AgreeState),
                                        tag::make(seq_tag, from, c.ctx_coll), tag::mask(false, false));
        if (st != Status::Ok) {
          requests().put(p);
          p = nullptr;
          if (r.req->error == MPI_SUCCESS) r.req->error = to_mpi_class(st);
        }
        r.agree_req[i] = p;
      }
    }
    for (Request* p : r.agree_req)
      if (p && !p->complete) return false;
    bool ok = r.req->error == MPI_SUCCESS;
    for (Request*& p : r.agree_req) {
      if (p) {
        if (p->error != MPI_SUCCESS) {
          ok = false;
          if (r.req->error == MPI_SUCCESS) r.req->error = p->error;
        }
        requests().put(p);
      }
      p = nullptr;
    }
    r.agree_posted = false;
    if (!ok) return true;
    agree_merge(r.agree, r.agree_in, a.n);
    r.agree_dist *= 2;
  }
  agreement_verdict(r);
  return true;
}

// Every rank's values from the window, once every peer has Signalled in this
// call: the verdict (r.req->error).
void read_window_values(Running& r) {
  const Agreement& a = r.job->agree;
  const int size = r.job->comm->size;
  for (int q = 0; q < size; ++q) {
    AgreeState in;
    for (int i = 0; i < a.n; ++i) {
      std::int64_t v = r.shm->published(r.shm_base, q, i);
      in.slot[i] = {v, q, v, q};
    }
    agree_merge(r.agree, in, a.n);
  }
  r.shm_agree = Running::ShmAgree::None;
  agreement_verdict(r);
}

// The same through the shared window: publish this rank's values with a Signal,
// then, once every peer has Signalled, read theirs. False while waiting.
bool advance_shm_agreement(Running& r) {
  const Agreement& a = r.job->agree;
  const int size = r.job->comm->size;
  if (r.shm_agree == Running::ShmAgree::Publish) {
    r.shm->publish(r.shm_base, a.values, a.n);
    r.shm->signal(r.shm_base);
    r.shm_agree = Running::ShmAgree::Waiting;
  }
  for (int q = 0; q < size; ++q)
    if (q != r.job->comm->rank && !r.shm->reached(r.shm_base, q)) return false;
  read_window_values(r);
  return true;
}

// What this rank tells its peers of its syncs with the first sync of a call that
// has a way out (BusyAlt), in ns: its moving average (CHORUS_COLL_BUSY_SWITCH=auto),
// as if each sync took a second (always), or nothing (off). Read at each call:
// MPI_T_cvar_write may change it.
void publish_sync_time(Running& r) {
  const int mode = param::CollBusySwitch();  // 0 auto, 1 always, 2 off
  const std::int64_t ns = mode == 1 ? std::int64_t{1'000'000'000}
                          : mode == 2 ? 0
                                      : static_cast<std::int64_t>(r.shm->sync_us * 1000);
  r.shm->publish(r.shm_base, &ns, 1, ShmWindow::kAgreeMax - 1);
}

// The first sync of a call that has a way out is done, `us` after this rank's
// Signal: every rank reads the same published sync times here and decides alike
// (executor.h, BusyAlt). Taking it, the call leaves the window (every rank has
// posted this call's one Signal, so the window's counts stay in step) and runs
// the BusyAlt's schedule from its first round; true then.
bool take_way_out(Running& r, double us) {
  const BusyAlt& b = *r.busy;
  r.busy = nullptr;
  ShmWindow& w = *r.shm;
  const Comm& c = *r.job->comm;
  std::int64_t worst = 0;
  for (int q = 0; q < c.size; ++q) worst = std::max(worst, w.published(r.shm_base, q, ShmWindow::kAgreeMax - 1));
  // Quiet, a sync's time varies with how the ranks share the cores (1-60 us at
  // 2-4 ranks on 2 cores) around the model's fit, which prices whole calls well:
  // only a sync slower than CHORUS_COLL_BUSY_SYNC_US says the node is busy.
  static const double threshold = param::CollBusySyncUs();
  const double worst_us = static_cast<double>(worst) / 1000;
  const double e = worst_us > threshold ? worst_us - b.sync_us : 0.0;
  const bool take = b.alt_us + e < b.primary_us + b.primary_syncs * e;
  if (take != w.busy_switched) {
    // Each change, on rank 0, the first 8 times per window (calls of different
    // sizes may decide differently, and a loop of them would flood the log).
    w.busy_switched = take;
    if (c.rank == 0 && w.busy_changes < 8)
      CHORUS_LOG(INFO, COLL, "{} ranks' window syncs take up to {:.0f} us (busy above {:.0f} us; the model's {:.2f} us): calls "
                 "of {} syncs {} (CHORUS_COLL_BUSY_SWITCH){}", c.size, worst_us, threshold, b.sync_us,
                 b.primary_syncs, take ? fmt::format("go over messages ({}) while it lasts", b.algo_name)
                                      : std::string("go through the window again"),
                 w.busy_changes == 7 ? "; further changes are not logged" : "");
    ++w.busy_changes;
  }
  if (!take) return false;
  if (r.job->blocking) w.sync_us += (us - w.sync_us) / 8;
  counters::add(counters::Id::CollBusySwitches);
  w.done();
  r.shm_turn = false;
  r.shm.reset();
  r.sched = b.sched.get();
  r.timed = false;
  r.active = false;
  r.round = 0;
  if (!r.job->device) {  // a device job's were sized for both at its start
    for (int t = 0; t < kMaxBufs - kTmp0; ++t) {
      const std::size_t n = r.sched->tmp_bytes[t];
      if (n > r.tmp[t].capacity()) counters::add(counters::Id::CollTmpAllocs);
      r.tmp[t].resize(n);
    }
  }
  return true;
}

// Starts the p2p operation of a Send or Recv step: the request, or null when p2p
// refused it (the status in `st`).
Request* start_step(Running& r, const Step& s, Status& st) {
  const Comm& c = *r.job->comm;
  const int seq_tag = static_cast<int>(r.seq);
  Request* p = requests().get();
  p->comm = r.req->comm;
  st = s.kind == Step::Kind::Send
           ? p2p::isend(p, resolve(r, s.a), s.bytes, c.world_rank(s.peer), tag::make(seq_tag, c.rank, c.ctx_coll),
                        false, s.settled)
           : p2p::irecv(p, resolve(r, s.b), s.bytes, tag::make(seq_tag, s.peer, c.ctx_coll), tag::mask(false, false));
  if (st == Status::Ok) return p;
  requests().put(p);
  return nullptr;
}

// Whether the schedule may post sends ahead of their rounds and leave them in flight
// after (lazy sends): not device jobs (their staging) nor shared-window schedules.
bool lazy_sends(const Running& r) {
  return param::CollSendAhead() > 0 && !r.job->device && !r.sched->shm_bytes;
}

// Reap finished lingering sends; true when none that overlaps a write of `rd` (or,
// with rd null, none at all) is still in flight.
bool lingering_clear(Running& r, const Round* rd) {
  bool clear = true;
  std::size_t keep = 0;
  for (auto& l : r.lingering) {
    if (l.req->complete) {
      if (l.req->error != MPI_SUCCESS) fail(r, l.req->error);
      requests().put(l.req);
      continue;
    }
    if (!rd || round_writes(*rd, l.from.buf, l.from.off, l.bytes)) clear = false;
    r.lingering[keep++] = l;
  }
  r.lingering.resize(keep);
  return clear;
}

// Post sends of later rounds now, in schedule order, as far as their data is
// final: no step of an unfinished round writes what they send, and they carry
// data (a token of no bytes waits for its round, below). A peer that is not
// running then still finds them posted (a single-copy read needs nothing more
// from this rank), instead of waiting a scheduler slice for every round while
// this rank is off its CPU. At most CHORUS_COLL_SEND_AHEAD sends and 64 rounds
// ahead; not for device jobs or schedules on the shared window.
void post_ahead(Running& r) {
  const auto& rounds = r.sched->rounds;
  if (!lazy_sends(r)) return;
  const auto limit = static_cast<std::size_t>(param::CollSendAhead());
  if (r.ahead_round <= r.round) {
    r.ahead_round = r.round + 1;
    r.ahead_step = 0;
  }
  while (r.ahead.size() < limit && r.ahead_round < rounds.size() && r.ahead_round <= r.round + 64) {
    const auto& steps = rounds[r.ahead_round].steps;
    if (r.ahead_step >= steps.size()) {
      ++r.ahead_round;
      r.ahead_step = 0;
      continue;
    }
    const Step& s = steps[r.ahead_step];
    if (s.kind != Step::Kind::Send) {
      ++r.ahead_step;
      continue;
    }
    // A message of no bytes is a token: what it tells its peer is that this rank
    // finished the rounds before it (a barrier's round k + 1 says that round k's
    // signal arrived). Posted early it would say so falsely: a dissemination
    // barrier's ranks all sent every round's token on entry and left once their
    // peers had entered, not once every rank had. It goes with its round.
    if (s.bytes == 0) return;
    for (std::size_t k = r.round; k < r.ahead_round; ++k)
      if (round_writes(rounds[k], s.a.buf, s.a.off, s.bytes)) return;
    Status st;
    Request* p = start_step(r, s, st);
    if (!p) return;  // posted with its round instead, where a failure is reported
    r.ahead.push_back(p);
    ++r.ahead_step;
  }
}

// Post every Send/Recv of the current round.
void post_round(Running& r) {
  const Round& round = r.sched->rounds[r.round];
  const bool lazy = lazy_sends(r);
  auto add = [&](Request* p, const Step& s) {
    const bool linger = lazy && s.kind == Step::Kind::Send && !round_writes(round, s.a.buf, s.a.off, s.bytes);
    r.pending.push_back({p, &s, linger});
  };
  auto post = [&](const Step& s) {
    Status st;
    if (Request* p = start_step(r, s, st)) add(p, s);
    else fail(r, to_mpi_class(st));
  };
  // Receives first, then sends: a message that arrives after its receive was
  // posted lands in place (UCX's expected path) instead of being buffered. The
  // order among the sends (and among the receives) stays the schedule's.
  for (const Step& s : round.steps)
    if (s.kind == Step::Kind::Recv) post(s);
  // Sends already posted ahead (post_ahead()) are the first of this round's.
  const std::size_t ahead = r.ahead_round > r.round ? round.steps.size()
                            : r.ahead_round == r.round ? r.ahead_step : 0;
  for (std::size_t i = 0; i < round.steps.size(); ++i) {
    if (round.steps[i].kind != Step::Kind::Send) continue;
    if (i < ahead) {
      add(r.ahead.front(), round.steps[i]);
      r.ahead.pop_front();
    } else {
      post(round.steps[i]);
    }
  }
  for (const Step& s : round.steps)
    if (s.kind == Step::Kind::Signal) {
      r.shm->signal(r.shm_base);
      r.sync_posted = true;
    }
}

// Every Wait of the current round is satisfied.
bool waits_done(const Running& r) {
  for (const Step& s : r.sched->rounds[r.round].steps)
    if (s.kind == Step::Kind::Wait && !r.shm->reached(r.shm_base, r.shm->index(s.peer))) return false;
  return true;
}

// Whether a step's two operands share bytes.
bool overlap(Running& r, const Step& s) {
  const std::byte* a = resolve(r, s.a);
  const std::byte* b = resolve(r, s.b);
  return a < b + s.bytes && b < a + s.bytes;
}

void run_local_steps(Running& r) {
  const Round& round = r.sched->rounds[r.round];
  for (const Step& s : round.steps) {
    Step::Kind kind = s.kind;
    if (kind == Step::Kind::ReduceRight && r.job->reduce_commutes && !overlap(r, s)) kind = Step::Kind::ReduceLeft;
    if (r.job->device && s.bytes && (kind == Step::Kind::Copy || kind == Step::Kind::ReduceRight)) {
      run_device_step(r, s);
      continue;
    }
    switch (kind) {
      case Step::Kind::Copy:
        if (s.bytes) std::memmove(resolve(r, s.b), resolve(r, s.a), s.bytes);
        break;
      case Step::Kind::ReduceLeft:
        r.job->reduce(resolve(r, s.a), resolve(r, s.b), s.bytes);
        break;
      case Step::Kind::ReduceRight: {
        // b = b (op) a with an in-place "inout = in op inout" kernel: stage a.
        std::byte* a = resolve(r, s.a);
        std::byte* b = resolve(r, s.b);
        r.scratch.assign(a, a + s.bytes);
        r.job->reduce(b, r.scratch.data(), s.bytes);
        std::memcpy(b, r.scratch.data(), s.bytes);
        break;
      }
      default:
        break;
    }
  }
}

// Advance one collective as far as it goes without waiting. True when finished.
bool advance(Running& r) {
  const auto& rounds = r.sched->rounds;
  if (r.shm && !r.shm_turn) {
    // Calls on the window run one at a time, in call order (shm.h).
    if (r.shm->running() != r.ticket) return false;
    r.shm_turn = true;
  }
  using Agree = Running::ShmAgree;
  const bool own_sync = r.shm_agree == Agree::Publish || r.shm_agree == Agree::Waiting;
  if (own_sync || (r.shm_agree == Agree::None && r.agree_dist < r.job->comm->size)) {
    if (own_sync ? !advance_shm_agreement(r) : !advance_agreement(r)) return false;
    if (r.req->error != MPI_SUCCESS) {
      r.round = rounds.size();  // the ranks disagree: run nothing
      return true;
    }
    // A persistent call's values do not change between starts: check them once.
    if (r.job->any_order) r.job->agree.n = 0;
  }
  while (r.round < rounds.size()) {
    const Round& rd = rounds[r.round];
    if (r.pending.empty() && !r.active) {
      // A round that overwrites what an earlier round's send still reads waits
      // for that send (its receives and local steps would change the message).
      if (!r.lingering.empty() && !lingering_clear(r, &rd)) return false;
      // The values ride on this round's Signal (read once its Waits are done).
      if (r.shm_agree == Agree::Folded && r.round == r.fold_round)
        r.shm->publish(r.shm_base, r.job->agree.values, r.job->agree.n);
      if (r.busy && r.round == r.fold_round) publish_sync_time(r);
      r.sync_posted = false;
      post_round(r);
      if (r.timed && r.sync_posted) r.sync_t0 = std::chrono::steady_clock::now();
      r.active = true;
      post_ahead(r);
    }
    // The round is done when its receives are, and its sends, except those that
    // may linger: they finish later.
    for (const Running::Pend& p : r.pending)
      if (!p.req->complete && !p.may_linger) return false;
    if (r.shm && !waits_done(r)) return false;
    if (r.shm_agree == Agree::Folded && r.round == r.fold_round) {
      // Every peer has Signalled: its values are in the window. On a mismatch
      // every rank stops here, before this round's copies, each having posted
      // the same one Signal in this call (the fold round has no messages).
      read_window_values(r);
      if (r.req->error != MPI_SUCCESS) {
        r.active = false;
        r.round = rounds.size();
        return true;
      }
    }
    if (r.timed && r.sync_posted) {
      const double us =
          std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - r.sync_t0).count();
      r.sync_posted = false;
      if (r.busy && r.round == r.fold_round) {
        // The call starts over on messages, or goes on through the window.
        if (take_way_out(r, us)) return advance(r);
      } else if (r.job->blocking) {
        // (A non-blocking call's time would include the caller's own work
        // between its tests.)
        r.shm->sync_us += (us - r.shm->sync_us) / 8;
      }
    }
    for (const Running::Pend& p : r.pending) {
      if (!p.req->complete) {
        r.lingering.push_back({p.req, p.step->a, p.step->bytes});
        continue;
      }
      if (p.req->error != MPI_SUCCESS) fail(r, p.req->error);
      requests().put(p.req);
    }
    r.pending.clear();
    run_local_steps(r);
    r.active = false;
    ++r.round;
  }
  // The call is done once every send is: the caller may reuse the buffers then.
  return lingering_clear(r, nullptr);
}

void finish(Running& r) {
  if (r.shm) {
    if (r.shm_turn) r.shm->done();
    r.shm.reset();
  }
  if (r.job->device) free_device_tmps(r);
  if (r.job->on_done) r.job->on_done();
  if (!r.job->local_error.empty() && r.req->error == MPI_SUCCESS)
    r.req->error = g_make_error(MPI_ERR_OTHER, r.job->local_error);
  r.req->complete = true;
}

void link(Running* r) {
  r->next = g_active;
  g_active = r;
}

void unlink(Running* r) {
  for (Running** p = &g_active; *p; p = &(*p)->next) {
    if (*p == r) {
      *p = r->next;
      r->next = nullptr;
      return;
    }
  }
}

std::size_t tmp_bytes(const Running& r) {
  std::size_t n = r.scratch.capacity();
  for (const auto& t : r.tmp) n += t.capacity();
  return n;
}

void drop_tmps(Running& r) {
  for (auto& t : r.tmp) std::vector<std::byte>().swap(t);
  std::vector<std::byte>().swap(r.scratch);
}

// `r` goes to the spares with its temporaries while they fit the budget, the
// older spares' (the last reused) giving theirs up first.
void keep_tmps(Running& r) {
  const std::size_t budget = param::CollTmpKeep(), mine = tmp_bytes(r);
  for (auto it = g_spare.begin(); it != g_spare.end() && g_spare_tmp_bytes + mine > budget; ++it) {
    g_spare_tmp_bytes -= tmp_bytes(**it);
    drop_tmps(**it);
  }
  if (g_spare_tmp_bytes + mine > budget) {
    drop_tmps(r);
    return;
  }
  g_spare_tmp_bytes += mine;
}

void free_running(void* p) {
  auto* r = static_cast<Running*>(p);
  unlink(r);
  r->shm.reset();
  if (r->job && r->job->device) free_device_tmps(*r);
  for (Request* q : r->agree_req)
    if (q) q->user_freed = true;
  // A request freed while its collective still runs: let the p2p operations
  // finish on their own (the user freed the request; MPI forbids touching the
  // buffers until then anyway).
  for (auto& p : r->pending) p.req->user_freed = true;
  for (Request* q : r->ahead) q->user_freed = true;
  for (auto& l : r->lingering) l.req->user_freed = true;
  const bool idle = r->pending.empty() && r->ahead.empty() && r->lingering.empty();
  r->pending.clear();
  r->ahead.clear();
  r->lingering.clear();
  // Keep a few for the next collectives (their temporaries keep their capacity).
  if (idle && !r->agree_req[0] && !r->agree_req[1] && g_spare.size() < kMaxSpare) {
    if (g_spare_jobs.size() < kMaxSpare) {
      r->job->reset();
      g_spare_jobs.push_back(std::move(r->job));
    }
    r->job.reset();
    keep_tmps(*r);
    r->req = nullptr;
    r->next = nullptr;
    g_spare.emplace_back(r);
    return;
  }
  delete r;
}

Status launch(Running& r) {
  r.sched = &r.job->schedule();
  r.busy = nullptr;
  r.timed = false;
  if (r.job->device) {
    r.job->local_error.clear();
    free_device_tmps(r);
    for (int t = 0; t < kMaxBufs - kTmp0; ++t) {
      std::size_t n = r.job->schedule().tmp_bytes[t];
      // A way out may run instead (BusyAlt): its temporaries are taken now, as
      // a failure after the ranks chose it would leave the others waiting.
      if (r.job->busy) n = std::max(n, r.job->busy->sched->tmp_bytes[t]);
      if (!n) continue;
      r.dtmp[t] = static_cast<std::byte*>(r.job->device->alloc(n));
      if (!r.dtmp[t]) {
        free_device_tmps(r);
        return Status::NoMem;
      }
    }
  } else {
    for (int t = 0; t < kMaxBufs - kTmp0; ++t) {
      const std::size_t n = r.job->schedule().tmp_bytes[t];
      if (n > r.tmp[t].capacity()) counters::add(counters::Id::CollTmpAllocs);
      r.tmp[t].resize(n);
    }
  }
  r.shm.reset();
  r.shm_turn = false;
  r.shm_agree = Running::ShmAgree::None;
  {
    // Rooted calls on a communicator with a window agree through it (one sync
    // instead of ceil(lg p) rounds of messages), whatever algorithm runs: the
    // choice must not depend on values the ranks may disagree on.
    const Comm& c = *r.job->comm;
    // Not any-order persistent calls: ranks may start them in any order, and the
    // window's turns go in start order (their schedules leave the window out too).
    const bool agreed = r.job->agree.n > 0 && c.size > 1 && !r.job->any_order;
    const bool agree_shm = agreed && c.shm;
    // Across nodes the ranks agree by messages, but every rank of a communicator
    // with node windows takes its turn on its node's window for every call it
    // agrees on, whatever it chose: ranks that disagree (and so chose different
    // algorithms, of which some use the window) still count the same turns, so
    // the next calls' generations match. The agreement runs in the turn and needs
    // every rank's values, so when it ends every rank has finished its earlier
    // window calls: a call that leaves the window unused (a mismatch, or an
    // algorithm without node stages) need not Signal to keep the generations safe.
    const bool agree_node = agreed && !c.shm && c.node_shm;
    if (r.job->schedule().shm_bytes || agree_shm || agree_node) {
      // A communicator on one node has a window of all its ranks; one across
      // nodes may have a window per node (the hierarchical algorithms' node stages).
      const std::shared_ptr<ShmWindow>& w = c.shm ? c.shm : c.node_shm;
      if (!w || ShmWindow::gen_bytes(w->size(), w->slot()) < r.job->schedule().shm_bytes)
        return Status::Unsupported;  // built for a window this communicator does not have
      r.shm = w;
      r.ticket = r.shm->take_ticket();
      r.shm_base = r.shm->generation(r.ticket);
      if (agree_shm) {
        // Ride on the schedule's own first sync when it is one of every rank and
        // nothing before it moves messages: one sync per call instead of two. The
        // choice is the same on every rank that agrees (same algorithm, and every
        // shared-window schedule's first sync is of every rank or of none, for
        // every role: coll_movement checks it); a rank that
        // disagrees and runs another algorithm still Signals once before its
        // verdict, as the separate agreement does.
        r.fold_round = r.job->schedule().first_sync_all(c.size);
        r.shm_agree = r.fold_round < r.job->schedule().rounds.size() ? Running::ShmAgree::Folded
                                                                      : Running::ShmAgree::Publish;
      }
      // A way out rides on the schedule's first sync of every rank, in the
      // header's last value (an agreement of every value, CHORUS_CHECK_COLL, has
      // none left over). Every rank has the same way out, window and agreement.
      // (Device jobs too: a rank's buffers may be device memory where another's
      // are not; their temporaries are sized for both schedules above.)
      if (r.job->busy && r.shm == c.shm && r.job->agree.n < ShmWindow::kAgreeMax) {
        const std::size_t fold = r.job->schedule().first_sync_all(c.size);
        if (fold < r.job->schedule().rounds.size()) {
          r.busy = r.job->busy.get();
          r.fold_round = fold;
          r.timed = true;
        }
      }
    }
  }
  r.round = 0;
  r.active = false;
  r.ahead.clear();
  r.ahead_round = r.ahead_step = 0;
  r.req->complete = false;
  r.req->active = true;
  r.req->error = MPI_SUCCESS;
  agree_reset(r);
  if (r.shm_agree != Running::ShmAgree::None) r.agree_dist = r.job->comm->size;  // not by messages
  if (r.job->on_start) r.job->on_start();
  if (advance(r)) {
    finish(r);
  } else {
    link(&r);
  }
  return Status::Ok;
}

unsigned hook() { return progress_all(); }

}  // namespace

void Job::reset() {
  release();
  sched.rounds.clear();
  for (auto& t : sched.tmp_bytes) t = 0;
  sched.shm_bytes = 0;  // else the next call of this pooled job takes a window turn
  shared_sched.reset();
  busy.reset();
  blocking = false;
  agree = {};
  comm = nullptr;
  send = recv = nullptr;
  reduce = nullptr;
  reduce_commutes = false;
  on_start = nullptr;
  on_done = nullptr;
  owned.clear();
  device = nullptr;
  any_order = false;
  local_error.clear();
}

std::unique_ptr<Job> new_job() {
  if (g_spare_jobs.empty()) return std::make_unique<Job>();
  std::unique_ptr<Job> j = std::move(g_spare_jobs.back());
  g_spare_jobs.pop_back();
  return j;
}

Status start(std::unique_ptr<Job> job, std::uint32_t seq, Request* req, bool deferred) {
  Running* r;
  if (!g_spare.empty()) {
    r = g_spare.back().release();
    g_spare.pop_back();
    g_spare_tmp_bytes -= tmp_bytes(*r);
  } else {
    r = new Running;
  }
  r->job = std::move(job);
  r->req = req;
  r->seq = r->job->any_order ? kPersistentSeq | (seq & (kPersistentSeq - 1)) : seq & (kPersistentSeq - 1);
  req->kind = Request::Kind::Coll;
  req->ext = r;
  req->ext_free = free_running;
  if (deferred) return Status::Ok;
  return launch(*r);
}

namespace {
// Signal generation `gen` of `w` and wait until every other member did.
void sync_members(ShmWindow& w, std::byte* gen, int rank, int size) {
  w.signal(gen);
  p2p::wait_polling([&] {
    for (int q = 0; q < size; ++q)
      if (q != rank && !w.reached(gen, q)) return false;
    return true;
  });
}
}  // namespace

void run_shm_allreduce_flat(ShmWindow& w, int rank, int size, const void* in, void* out,
                            std::size_t bytes, const ReduceFn& reduce) {
  const std::uint64_t ticket = w.take_ticket();
  std::byte* gen = w.generation(ticket);
  const std::size_t slot = w.slot();
  auto at = [&](int q) { return gen + ShmWindow::slot_offset(static_cast<std::size_t>(q), slot); };
  std::memcpy(at(rank), in, bytes);
  sync_members(w, gen, rank, size);
  auto* o = static_cast<std::byte*>(out);
  std::memcpy(o, at(size - 1), bytes);
  for (int q = size - 1; q-- > 0;) reduce(at(q), o, bytes);
  w.done();
}

double time_window_syncs(ShmWindow& w, int rank, int syncs, int warm) {
  std::vector<double> t;
  t.reserve(static_cast<std::size_t>(syncs));
  std::byte* gen = w.generation(w.take_ticket());
  for (int i = 0; i < syncs; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    sync_members(w, gen, rank, w.size());
    t.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  w.done();
  const auto mid = t.begin() + warm + (syncs - warm) / 2;
  std::nth_element(t.begin() + warm, mid, t.end());
  return *mid;
}

bool window_only(const Schedule& s) {
  for (std::size_t t : s.tmp_bytes)
    if (t) return false;
  for (const Round& r : s.rounds)
    for (const Step& st : r.steps)
      if (st.kind != Step::Kind::Copy && st.kind != Step::Kind::ReduceLeft && st.kind != Step::Kind::Signal &&
          st.kind != Step::Kind::Wait)
        return false;
  return true;
}

void run_window_schedule(ShmWindow& w, const Schedule& s, const void* send, void* recv, const ReduceFn& reduce) {
  const std::uint64_t ticket = w.take_ticket();
  std::byte* gen = w.generation(ticket);
  auto at = [&](BufRef b) {
    std::byte* base = b.buf == kShm ? gen : b.buf == kSend ? static_cast<std::byte*>(const_cast<void*>(send))
                                                            : static_cast<std::byte*>(recv);
    return base + b.off;
  };
  for (const Round& r : s.rounds) {
    bool waits = false;
    for (const Step& st : r.steps) {
      if (st.kind == Step::Kind::Signal) w.signal(gen);
      waits |= st.kind == Step::Kind::Wait;
    }
    if (waits)
      p2p::wait_polling([&] {
        for (const Step& st : r.steps)
          if (st.kind == Step::Kind::Wait && !w.reached(gen, st.peer)) return false;
        return true;
      });
    for (const Step& st : r.steps) {
      if (st.kind == Step::Kind::Copy) std::memmove(at(st.b), at(st.a), st.bytes);
      else if (st.kind == Step::Kind::ReduceLeft) reduce(at(st.a), at(st.b), st.bytes);
    }
  }
  w.done();
}

Status restart(Request* req, std::uint32_t& coll_seq) {
  auto* r = static_cast<Running*>(req->ext);
  if (!r->job->any_order) r->seq = coll_seq++ & (kPersistentSeq - 1);
  return launch(*r);
}

unsigned progress_all() {
  unsigned n = 0;
  Running** p = &g_active;
  while (*p) {
    Running* r = *p;
    if (advance(*r)) {
      *p = r->next;
      r->next = nullptr;
      finish(*r);
      ++n;
      if (r->req->user_freed) requests().put(r->req);  // frees r
    } else {
      p = &r->next;
    }
  }
  return n;
}

void executor_init(int (*make_error)(int, std::string)) {
  g_make_error = make_error;
  p2p::set_progress_hook(hook);
}

}  // namespace chorus::coll
