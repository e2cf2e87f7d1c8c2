// Seeded random point-to-point fuzzer, checked against a model of MPI's matching
// rules.
//
// Each round every rank derives the same plan from (seed, round): which messages
// each rank sends (destination, including itself; tag; size from 0 B to ~300 KiB
// around the rings' and UCX's thresholds; send mode: Isend, Issend, persistent
// Send_init/Ssend_init + Start). Each message carries its source, sequence number
// and round, and a pattern derived from them.
//
// The receiver, knowing what it will get, runs a random script of receive
// operations: Irecv, persistent Recv_init + Start (restarted), Recv, Probe/Iprobe +
// Recv/Irecv, Mprobe/Improbe + Mrecv/Imrecv, MPI_Cancel of posted receives, and
// completions through Wait, Waitall, Waitany, Waitsome, Test, Testall, Testany,
// Testsome (the Test family also over its send requests). Patterns use
// MPI_ANY_SOURCE and MPI_ANY_TAG. A blocking call (or a posted receive) is only
// made when the model guarantees it can complete: more unreceived messages match
// its pattern than receives are outstanding (each takes at most one).
//
// After the round the receiver checks, per operation, in posting order:
//  - every message was received exactly once, and nothing else arrived;
//  - messages of one (source, tag) went to the receives that got that (source,
//    tag), in posting order (non-overtaking); that identifies each message, so a
//    received message's length and contents (source, seq, round, pattern) are
//    checked, and the buffer past it is untouched;
//  - no receive got a message while an earlier message of the same source that
//    its pattern also matches was still unreceived (i.e. that earlier message
//    went to an operation posted before it);
//  - each probe reported the next unreceived message of its (source, tag), one
//    its pattern matches, with its length, and no earlier matching message of that
//    source was left;
//  - a cancelled receive (MPI_Test_cancelled true) changed nothing; one that was
//    not is a normal receive; a receive that was never cancelled reports false.
// A failure prints the seed and round; a round can be replayed on its own with
// CHORUS_FUZZ_SEED=S CHORUS_FUZZ_FIRST_ROUND=R CHORUS_FUZZ_ROUNDS=1 (the plan is the
// same; the receive script depends on timing too).
//
// Environment: CHORUS_FUZZ_SEED (default 1), CHORUS_FUZZ_SECONDS (default 3; rank
// 0's clock decides, all ranks stop after the same round), CHORUS_FUZZ_ROUNDS (at
// most this many rounds), CHORUS_FUZZ_FIRST_ROUND (default 0), CHORUS_FUZZ_VERBOSE=1
// (trace each round on stderr).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_test.h"

namespace {

// ---- randomness --------------------------------------------------------------

std::uint64_t splitmix(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

struct Rng {
  std::uint64_t s;
  Rng(std::uint64_t a, std::uint64_t b, std::uint64_t c) : s(a) {
    splitmix(s);
    s ^= b * 0xd1b54a32d192ed03ULL;
    splitmix(s);
    s ^= c * 0x8cb92ba72f3d8dd7ULL;
    splitmix(s);
  }
  std::uint64_t next() { return splitmix(s); }
  int below(int n) { return n <= 0 ? 0 : static_cast<int>(next() % static_cast<std::uint64_t>(n)); }
  bool chance(int percent) { return below(100) < percent; }
};

// ---- the plan ----------------------------------------------------------------

constexpr int kTags = 4;
constexpr int kHeader = 12;  // int32 source, seq, round
constexpr unsigned char kSentinel = 0xE7;

enum SendMode { kIsend, kIssend, kSendInit, kSsendInit };
const char* const kSendModeName[] = {"MPI_Isend", "MPI_Issend", "MPI_Send_init", "MPI_Ssend_init"};

struct Msg {
  int src = 0, dst = 0, tag = 0, size = 0, seq = 0;
  SendMode mode = kIsend;
};

int pick_size(Rng& r) {
  const int c = r.below(100);
  if (c < 10) return 0;
  if (c < 35) return 1 + r.below(64);
  if (c < 50) return 4096 - 8 + r.below(17);      // the rings' one-record limit
  if (c < 60) return 8192 - 8 + r.below(17);      // UCX's eager/rendezvous switch
  if (c < 72) return 200 + r.below(16000);
  if (c < 82) return 16384 + r.below(60000);
  if (c < 87) return 65536 - 8 + r.below(17);
  if (c < 91) return 131072 - 8 + r.below(17);    // where single copy starts (CHORUS_P2P_SHM_CMA_MIN)
  if (c < 96) return 262144 - 8 + r.below(17);    // the rings' copy limit (single copy off)
  return 262144 + r.below(45000);                 // up to ~300 KiB
}

// Every rank computes the same plan; messages in each sender's send order.
std::vector<Msg> make_plan(std::uint64_t seed, int round, int n) {
  Rng r(seed, static_cast<std::uint64_t>(round), 0x51a9);
  std::vector<Msg> plan;
  std::vector<int> seq(static_cast<std::size_t>(n * n), 0);
  for (int s = 0; s < n; ++s) {
    const int k = r.below(13);
    for (int j = 0; j < k; ++j) {
      Msg m;
      m.src = s;
      m.dst = r.chance(8) ? s : r.below(n);
      m.tag = r.below(kTags);
      m.size = pick_size(r);
      const int c = r.below(100);
      m.mode = c < 55 ? kIsend : c < 70 ? kIssend : c < 90 ? kSendInit : kSsendInit;
      m.seq = seq[static_cast<std::size_t>(s * n + m.dst)]++;
      plan.push_back(m);
    }
  }
  return plan;
}

unsigned char byte_at(const Msg& m, int round, int i) {
  return static_cast<unsigned char>(m.src * 37 + m.dst * 11 + m.seq * 101 + round * 7 + i * 13 +
                                    (i >> 9));
}

std::vector<unsigned char> payload(const Msg& m, int round) {
  std::vector<unsigned char> b(static_cast<std::size_t>(m.size));
  for (int i = 0; i < m.size; ++i) b[static_cast<std::size_t>(i)] = byte_at(m, round, i);
  if (m.size >= kHeader) {
    const std::int32_t h[3] = {m.src, m.seq, round};
    std::memcpy(b.data(), h, sizeof h);
  }
  return b;
}

// ---- the receiver's operations ------------------------------------------------

enum class Kind { Recv, Irecv, Persistent, Mprobe, Improbe, Probe, Iprobe };
const char* const kKindName[] = {"MPI_Recv", "MPI_Irecv", "MPI_Recv_init+MPI_Start", "MPI_Mprobe",
                                 "MPI_Improbe", "MPI_Probe", "MPI_Iprobe"};

bool consumes(Kind k) { return k != Kind::Probe && k != Kind::Iprobe; }

struct Op {
  Kind kind = Kind::Recv;
  int pat_src = MPI_ANY_SOURCE, pat_tag = MPI_ANY_TAG;
  int cap = 0;                       // receive buffer bytes
  int buf = -1;                      // index into Round::bufs_
  MPI_Request req = MPI_REQUEST_NULL;
  bool outstanding = false;          // has a request not yet completed
  bool done = false;                 // status known (probe) / data received
  bool cancel_requested = false, cancelled = false;
  int src = -1, tag = -1, count = -1;  // from the status
  std::vector<unsigned char> data;     // received bytes, and up to 4 past them
  std::string how;                     // completing call
  const Msg* msg = nullptr;            // identified at the end of the round
};

bool matches(int pat_src, int pat_tag, int src, int tag) {
  return (pat_src == MPI_ANY_SOURCE || pat_src == src) && (pat_tag == MPI_ANY_TAG || pat_tag == tag);
}

std::string pat_str(int s, int t) {
  std::string r = "(";
  r += s == MPI_ANY_SOURCE ? "ANY_SOURCE" : std::to_string(s);
  r += ", ";
  r += t == MPI_ANY_TAG ? "ANY_TAG" : std::to_string(t);
  return r + ")";
}

struct Stats {
  long long rounds = 0, msgs = 0, bytes = 0, ops = 0, wildcard = 0, probes = 0, mprobes = 0,
            cancels = 0, cancelled = 0, persistent = 0, waits = 0, tests = 0;
};

class Round {
 public:
  Round(MPI_Comm comm, std::uint64_t seed, int round, Stats& stats)
      : comm_(comm), seed_(seed), round_(round), stats_(stats),
        rng_(seed, static_cast<std::uint64_t>(round), 1000 + static_cast<std::uint64_t>(jobs::rank())) {
    MPI_Comm_rank(comm_, &me_);
    MPI_Comm_size(comm_, &n_);
    plan_ = make_plan(seed, round, n_);
    by_st_.assign(static_cast<std::size_t>(n_ * kTags), {});
    by_src_.assign(static_cast<std::size_t>(n_), {});
    taken_.assign(static_cast<std::size_t>(n_ * kTags), 0);
    for (const Msg& m : plan_) {
      if (m.dst == me_) {
        by_st_[idx(m.src, m.tag)].push_back(&m);
        by_src_[static_cast<std::size_t>(m.src)].push_back(&m);
        ++remaining_;
      }
      if (m.src == me_) mine_.push_back(&m);
    }
  }

  std::vector<std::string> errors;

  // CHORUS_FUZZ_VERBOSE=1: each rank traces its round on stderr (the plan on rank
  // 0, then its sends and each receive-side operation as it completes).
  bool verbose = false;

  void run() {
    t0_ = MPI_Wtime();
    if (verbose && me_ == 0) {
      for (const Msg& m : plan_)
        std::fprintf(stderr, "plan: %d -> %d tag %d seq %d %d B %s\n", m.src, m.dst, m.tag, m.seq, m.size,
                     kSendModeName[m.mode]);
    }
    // Before any send: nonblocking receive-side calls only (a blocking one could
    // wait for a peer that waits for this rank's sends).
    for (int k = rng_.below(6); k > 0; --k) step(false);
    const std::size_t half = mine_.size() / 2;
    for (std::size_t i = 0; i < half; ++i) send(*mine_[i]);
    for (int k = rng_.below(4); k > 0; --k) step(false);
    for (std::size_t i = half; i < mine_.size(); ++i) send(*mine_[i]);
    // Every rank has posted all its sends: blocking calls whose pattern is
    // guaranteed a message are safe now.
    long guard = 0;
    while ((remaining_ > 0 || !outstanding_.empty()) && errors.empty()) {
      step(true);
      if (++guard > 1000000) {
        err("receive loop does not finish: " + std::to_string(remaining_) + " messages left, " +
            std::to_string(outstanding_.size()) + " receives outstanding");
        return;
      }
    }
    if (!errors.empty()) return;
    // Sends: whatever the Test calls left.
    std::vector<MPI_Request> reqs;
    for (auto& s : sends_) {
      if (!s.done) reqs.push_back(s.req);
    }
    if (!reqs.empty()) {
      call(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE), "MPI_Waitall(sends)");
    }
    for (auto& s : sends_) {
      if (s.persistent) {
        MPI_Request r = s.req;
        call(MPI_Request_free(&r), "MPI_Request_free(send)");
      }
    }
    if (!errors.empty()) return;
    // Nothing else for this rank this round (no rank starts the next round before
    // all finished this one).
    int flag = 0;
    MPI_Status st;
    call(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &st), "MPI_Iprobe(final)");
    if (flag) {
      err("an extra message is waiting after the round: source " + std::to_string(st.MPI_SOURCE) +
          " tag " + std::to_string(st.MPI_TAG));
    }
    check();
  }

 private:
  struct Send {
    MPI_Request req = MPI_REQUEST_NULL;
    bool persistent = false, done = false;
  };

  MPI_Comm comm_;
  std::uint64_t seed_;
  int round_;
  Stats& stats_;
  Rng rng_;
  int me_ = 0, n_ = 1;
  std::vector<Msg> plan_;
  std::vector<const Msg*> mine_;
  std::vector<std::vector<const Msg*>> by_st_;   // to me, per (source, tag), seq order
  std::vector<std::vector<const Msg*>> by_src_;  // to me, per source, seq order
  std::vector<int> taken_;                       // per (source, tag): received or matched
  int remaining_ = 0;                            // messages to me not yet taken
  std::vector<Op> ops_;                          // in posting order
  std::vector<int> outstanding_;                 // ops with a request
  std::deque<std::vector<unsigned char>> bufs_;
  std::deque<std::vector<unsigned char>> out_;
  std::deque<Send> sends_;

  double t0_ = 0;
  void trace(const std::string& what) const {
    std::fprintf(stderr, "[rank %d] %8.3f ms round %d: %s\n", me_, (MPI_Wtime() - t0_) * 1e3, round_, what.c_str());
  }

  std::size_t idx(int s, int t) const { return static_cast<std::size_t>(s * kTags + t); }

  void err(const std::string& what) {
    std::ostringstream o;
    o << "seed " << seed_ << " round " << round_ << " rank " << me_ << " of " << n_ << ": " << what;
    errors.push_back(o.str());
  }
  bool call(int rc, const char* what) {
    if (rc == MPI_SUCCESS) return true;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    err(std::string(what) + " returned " + std::to_string(rc) + ": " + std::string(text, len));
    return false;
  }
  std::string op_str(int i) const {
    const Op& o = ops_[static_cast<std::size_t>(i)];
    std::string r = "op #" + std::to_string(i) + " " + kKindName[static_cast<int>(o.kind)] +
                    pat_str(o.pat_src, o.pat_tag);
    if (!o.how.empty()) r += " completed by " + o.how;
    return r;
  }

  // ---- the model ----

  int candidates(int ps, int pt) const {
    int c = 0;
    for (int s = 0; s < n_; ++s)
      for (int t = 0; t < kTags; ++t)
        if (matches(ps, pt, s, t)) c += static_cast<int>(by_st_[idx(s, t)].size()) - taken_[idx(s, t)];
    return c;
  }
  int max_size(int ps, int pt) const {
    int m = 0;
    for (int s = 0; s < n_; ++s)
      for (int t = 0; t < kTags; ++t)
        if (matches(ps, pt, s, t)) {
          const auto& v = by_st_[idx(s, t)];
          for (std::size_t i = static_cast<std::size_t>(taken_[idx(s, t)]); i < v.size(); ++i)
            m = std::max(m, v[i]->size);
        }
    return m;
  }
  // A pattern that a new receive (or blocking probe) may use: it is guaranteed a
  // message of its own, whatever the outstanding receives take.
  bool pick_pattern(int& ps, int& pt) {
    std::vector<std::pair<int, int>> left;
    for (int s = 0; s < n_; ++s)
      for (int t = 0; t < kTags; ++t)
        if (taken_[idx(s, t)] < static_cast<int>(by_st_[idx(s, t)].size())) left.emplace_back(s, t);
    if (left.empty()) return false;
    const auto [s, t] = left[static_cast<std::size_t>(rng_.below(static_cast<int>(left.size())))];
    ps = rng_.chance(30) ? MPI_ANY_SOURCE : s;
    pt = rng_.chance(30) ? MPI_ANY_TAG : t;
    const int busy = static_cast<int>(outstanding_.size());
    if (candidates(ps, pt) > busy) return true;
    ps = MPI_ANY_SOURCE;
    pt = MPI_ANY_TAG;
    return candidates(ps, pt) > busy;
  }
  void take(int s, int t, int op) {
    if (s < 0 || s >= n_ || t < 0 || t >= kTags) {
      err(op_str(op) + " got a message with source " + std::to_string(s) + " tag " + std::to_string(t));
      return;
    }
    if (taken_[idx(s, t)] >= static_cast<int>(by_st_[idx(s, t)].size())) {
      err(op_str(op) + ": more messages from rank " + std::to_string(s) + " with tag " + std::to_string(t) +
          " than were sent (" + std::to_string(by_st_[idx(s, t)].size()) + ")");
      return;
    }
    ++taken_[idx(s, t)];
    --remaining_;
  }

  int new_buf(int cap) {
    bufs_.emplace_back(static_cast<std::size_t>(std::max(cap, 1)), kSentinel);
    return static_cast<int>(bufs_.size()) - 1;
  }
  unsigned char* buf_of(const Op& o) { return bufs_[static_cast<std::size_t>(o.buf)].data(); }
  int slack() { return rng_.chance(40) ? rng_.below(100) : 0; }

  // ---- sends ----

  void send(const Msg& m) {
    if (verbose) trace("send seq " + std::to_string(m.seq) + " to " + std::to_string(m.dst) + ", " +
                       std::to_string(m.size) + " B");
    out_.push_back(payload(m, round_));
    sends_.emplace_back();
    Send& s = sends_.back();
    void* b = out_.back().data();
    stats_.msgs++;
    stats_.bytes += m.size;
    switch (m.mode) {
      case kIsend: call(MPI_Isend(b, m.size, MPI_BYTE, m.dst, m.tag, comm_, &s.req), "MPI_Isend"); break;
      case kIssend: call(MPI_Issend(b, m.size, MPI_BYTE, m.dst, m.tag, comm_, &s.req), "MPI_Issend"); break;
      case kSendInit:
      case kSsendInit:
        s.persistent = true;
        if (m.mode == kSendInit)
          call(MPI_Send_init(b, m.size, MPI_BYTE, m.dst, m.tag, comm_, &s.req), "MPI_Send_init");
        else
          call(MPI_Ssend_init(b, m.size, MPI_BYTE, m.dst, m.tag, comm_, &s.req), "MPI_Ssend_init");
        call(MPI_Start(&s.req), "MPI_Start(send)");
        break;
    }
  }

  // ---- receive-side steps ----

  void step(bool can_block) {
    if (!errors.empty()) return;
    const bool full = outstanding_.size() >= 8;
    const int c = full ? 90 + rng_.below(10) : rng_.below(100);
    if (c < 18) post(false);
    else if (c < 25) post(true);
    else if (c < 33) { if (can_block) blocking_recv(); else post(false); }
    else if (c < 40) probe_then_recv(can_block ? rng_.below(3) : 0);
    else if (c < 48) mprobe(can_block ? rng_.below(3) : 0);
    else if (c < 53) cancel_one();
    else complete(can_block);
    stats_.ops++;
  }

  int add_op(Kind k, int ps, int pt) {
    Op o;
    o.kind = k;
    o.pat_src = ps;
    o.pat_tag = pt;
    ops_.push_back(std::move(o));
    if (ps == MPI_ANY_SOURCE || pt == MPI_ANY_TAG) stats_.wildcard++;
    return static_cast<int>(ops_.size()) - 1;
  }

  void post(bool persistent) {
    int ps, pt;
    if (!pick_pattern(ps, pt)) return;
    const int i = add_op(persistent ? Kind::Persistent : Kind::Irecv, ps, pt);
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.cap = max_size(ps, pt) + slack();
    o.buf = new_buf(o.cap);
    if (persistent) {
      stats_.persistent++;
      if (!call(MPI_Recv_init(buf_of(o), o.cap, MPI_BYTE, ps, pt, comm_, &o.req), "MPI_Recv_init")) return;
      if (!call(MPI_Start(&o.req), "MPI_Start(recv)")) return;
    } else {
      if (!call(MPI_Irecv(buf_of(o), o.cap, MPI_BYTE, ps, pt, comm_, &o.req), "MPI_Irecv")) return;
    }
    o.outstanding = true;
    outstanding_.push_back(i);
  }

  // A persistent receive that completed: start it again (a new posting) when its
  // pattern and buffer still fit the model, else free it.
  void restart_or_free(int i) {
    Op& o = ops_[static_cast<std::size_t>(i)];
    const int busy = static_cast<int>(outstanding_.size());
    if (rng_.chance(60) && candidates(o.pat_src, o.pat_tag) > busy && max_size(o.pat_src, o.pat_tag) <= o.cap) {
      const int j = add_op(Kind::Persistent, o.pat_src, o.pat_tag);
      Op& p = ops_[static_cast<std::size_t>(j)];
      Op& old = ops_[static_cast<std::size_t>(i)];  // add_op may have moved it
      p.cap = old.cap;
      p.buf = old.buf;
      p.req = old.req;
      old.req = MPI_REQUEST_NULL;
      std::fill(bufs_[static_cast<std::size_t>(p.buf)].begin(), bufs_[static_cast<std::size_t>(p.buf)].end(),
                kSentinel);
      if (!call(MPI_Start(&p.req), "MPI_Start(recv, again)")) return;
      p.outstanding = true;
      outstanding_.push_back(j);
      stats_.persistent++;
    } else {
      call(MPI_Request_free(&o.req), "MPI_Request_free(recv)");
    }
  }

  void blocking_recv() {
    int ps, pt;
    if (!pick_pattern(ps, pt)) return;
    const int i = add_op(Kind::Recv, ps, pt);
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.cap = max_size(ps, pt) + slack();
    o.buf = new_buf(o.cap);
    MPI_Status st;
    if (!call(MPI_Recv(buf_of(o), o.cap, MPI_BYTE, ps, pt, comm_, &st), "MPI_Recv")) return;
    finish(i, st, "MPI_Recv");
  }

  // What a probe of `mode` looks for: mode 0 (one non-blocking probe) any
  // pattern, found or not; the others one that some unreceived message matches
  // (they wait until it comes). False: nothing to wait for.
  bool probe_pattern(int mode, int& ps, int& pt) {
    if (mode != 0) return pick_pattern(ps, pt);
    ps = rng_.chance(40) ? MPI_ANY_SOURCE : rng_.below(n_);
    pt = rng_.chance(40) ? MPI_ANY_TAG : rng_.below(kTags);
    return true;
  }

  // mode 0: one MPI_Iprobe; 1: MPI_Iprobe until found; 2: MPI_Probe. Then a
  // receive of exactly what it reported.
  void probe_then_recv(int mode) {
    int ps = MPI_ANY_SOURCE, pt = MPI_ANY_TAG;
    if (!probe_pattern(mode, ps, pt)) return;
    stats_.probes++;
    MPI_Status st;
    int flag = 0;
    if (mode == 2) {
      if (!call(MPI_Probe(ps, pt, comm_, &st), "MPI_Probe")) return;
      flag = 1;
    } else {
      do {
        if (!call(MPI_Iprobe(ps, pt, comm_, &flag, &st), "MPI_Iprobe")) return;
      } while (!flag && mode == 1);
    }
    if (!flag) return;
    const int p = add_op(mode == 2 ? Kind::Probe : Kind::Iprobe, ps, pt);
    Op& po = ops_[static_cast<std::size_t>(p)];
    po.done = true;
    po.src = st.MPI_SOURCE;
    po.tag = st.MPI_TAG;
    MPI_Get_count(&st, MPI_BYTE, &po.count);
    po.how = mode == 2 ? "MPI_Probe" : "MPI_Iprobe";
    if (po.src < 0 || po.src >= n_ || po.tag < 0 || po.tag >= kTags || po.count < 0) {
      err(op_str(p) + " reported source " + std::to_string(po.src) + " tag " + std::to_string(po.tag) +
          " count " + std::to_string(po.count));
      return;
    }
    // The probed message is the next of its (source, tag) and no receive that
    // could take it is posted: a receive for exactly that envelope gets it.
    const int src = po.src, tag = po.tag, count = po.count;
    const bool nonblocking = rng_.chance(50);
    const int i = add_op(nonblocking ? Kind::Irecv : Kind::Recv, src, tag);
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.cap = count + slack();
    o.buf = new_buf(o.cap);
    if (nonblocking) {
      if (!call(MPI_Irecv(buf_of(o), o.cap, MPI_BYTE, src, tag, comm_, &o.req), "MPI_Irecv(probed)")) return;
      o.outstanding = true;
      outstanding_.push_back(i);
    } else {
      MPI_Status rs;
      if (!call(MPI_Recv(buf_of(o), o.cap, MPI_BYTE, src, tag, comm_, &rs), "MPI_Recv(probed)")) return;
      finish(i, rs, "MPI_Recv");
    }
  }

  // mode 0: one MPI_Improbe; 1: MPI_Improbe until found; 2: MPI_Mprobe. Then
  // MPI_Mrecv or MPI_Imrecv.
  void mprobe(int mode) {
    int ps = MPI_ANY_SOURCE, pt = MPI_ANY_TAG;
    if (!probe_pattern(mode, ps, pt)) return;
    MPI_Status st;
    MPI_Message msg = MPI_MESSAGE_NULL;
    int flag = 0;
    if (mode == 2) {
      if (!call(MPI_Mprobe(ps, pt, comm_, &msg, &st), "MPI_Mprobe")) return;
      flag = 1;
    } else {
      do {
        if (!call(MPI_Improbe(ps, pt, comm_, &flag, &msg, &st), "MPI_Improbe")) return;
      } while (!flag && mode == 1);
    }
    if (!flag) return;
    stats_.mprobes++;
    const int i = add_op(mode == 2 ? Kind::Mprobe : Kind::Improbe, ps, pt);
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.src = st.MPI_SOURCE;
    o.tag = st.MPI_TAG;
    MPI_Get_count(&st, MPI_BYTE, &o.count);
    o.how = mode == 2 ? "MPI_Mprobe" : "MPI_Improbe";
    if (msg == MPI_MESSAGE_NULL || msg == MPI_MESSAGE_NO_PROC || o.count < 0) {
      err(op_str(i) + " found a message but returned no message handle or a bad count");
      return;
    }
    take(o.src, o.tag, i);
    if (!errors.empty()) return;
    o.cap = o.count + slack();
    o.buf = new_buf(o.cap);
    if (rng_.chance(50)) {
      MPI_Status rs;
      if (!call(MPI_Mrecv(buf_of(o), o.cap, MPI_BYTE, &msg, &rs), "MPI_Mrecv")) return;
      if (msg != MPI_MESSAGE_NULL) err(op_str(i) + ": MPI_Mrecv left the message handle set");
      finish(i, rs, "MPI_Mrecv");
    } else {
      if (!call(MPI_Imrecv(buf_of(o), o.cap, MPI_BYTE, &msg, &o.req), "MPI_Imrecv")) return;
      if (msg != MPI_MESSAGE_NULL) err(op_str(i) + ": MPI_Imrecv left the message handle set");
      o.outstanding = true;
      outstanding_.push_back(i);
    }
  }

  void cancel_one() {
    std::vector<int> can;
    for (int i : outstanding_) {
      const Op& o = ops_[static_cast<std::size_t>(i)];
      if (!o.cancel_requested && (o.kind == Kind::Irecv || o.kind == Kind::Persistent)) can.push_back(i);
    }
    if (can.empty()) return;
    const int i = can[static_cast<std::size_t>(rng_.below(static_cast<int>(can.size())))];
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.cancel_requested = true;
    stats_.cancels++;
    call(MPI_Cancel(&o.req), "MPI_Cancel");
  }

  // A receive-side operation completed with status st.
  void finish(int i, const MPI_Status& st, const char* how) {
    Op& o = ops_[static_cast<std::size_t>(i)];
    o.how = how;
    o.done = true;
    if (verbose) trace(op_str(i) + ": source " + std::to_string(st.MPI_SOURCE) + " tag " + std::to_string(st.MPI_TAG));
    if (o.outstanding) {
      o.outstanding = false;
      outstanding_.erase(std::find(outstanding_.begin(), outstanding_.end(), i));
    }
    int cancelled = 0;
    MPI_Test_cancelled(&st, &cancelled);
    if (cancelled) {
      if (!o.cancel_requested) err(op_str(i) + ": MPI_Test_cancelled is true but it was never cancelled");
      if (o.kind == Kind::Mprobe || o.kind == Kind::Improbe)
        err(op_str(i) + ": a matched receive (MPI_Imrecv) reports cancelled");
      o.cancelled = true;
      stats_.cancelled++;
      const auto& b = bufs_[static_cast<std::size_t>(o.buf)];
      if (std::any_of(b.begin(), b.end(), [](unsigned char x) { return x != kSentinel; }))
        err(op_str(i) + ": cancelled, yet its buffer was written");
    } else {
      int count = -1;
      MPI_Get_count(&st, MPI_BYTE, &count);
      if (o.kind == Kind::Mprobe || o.kind == Kind::Improbe) {
        if (st.MPI_SOURCE != o.src || st.MPI_TAG != o.tag || count != o.count) {
          err(op_str(i) + ": the receive's status (" + std::to_string(st.MPI_SOURCE) + ", " +
              std::to_string(st.MPI_TAG) + ", " + std::to_string(count) + ") differs from the probe's (" +
              std::to_string(o.src) + ", " + std::to_string(o.tag) + ", " + std::to_string(o.count) + ")");
        }
      } else {
        o.src = st.MPI_SOURCE;
        o.tag = st.MPI_TAG;
        o.count = count;
        take(o.src, o.tag, i);
      }
      if (o.count >= 0 && o.count <= o.cap) {
        const unsigned char* b = buf_of(o);
        o.data.assign(b, b + std::min(o.cap, o.count + 4));
      } else {
        err(op_str(i) + ": count " + std::to_string(o.count) + " with a buffer of " + std::to_string(o.cap));
      }
    }
    if (o.kind == Kind::Persistent) restart_or_free(i);
  }

  // One call of the Wait/Test families over some outstanding requests (the Test
  // family over send requests too; a Wait only over receives, which are
  // guaranteed to complete).
  void complete(bool can_block) {
    struct Entry {
      int op;  // receive op, or -1 - index into sends_
    };
    std::vector<Entry> e;
    std::vector<int> recvs = outstanding_;
    for (std::size_t k = recvs.size(); k > 1; --k)
      std::swap(recvs[k - 1], recvs[static_cast<std::size_t>(rng_.below(static_cast<int>(k)))]);
    const int nrecv = recvs.empty() ? 0 : 1 + rng_.below(static_cast<int>(std::min<std::size_t>(recvs.size(), 6)));
    for (int k = 0; k < nrecv; ++k) e.push_back({recvs[static_cast<std::size_t>(k)]});
    const bool wait = can_block && !e.empty() && rng_.chance(50);
    if (!wait) {
      std::vector<int> open;
      for (std::size_t k = 0; k < sends_.size(); ++k)
        if (!sends_[k].done) open.push_back(static_cast<int>(k));
      for (int k = rng_.below(4); k > 0 && !open.empty(); --k) {
        const std::size_t at = static_cast<std::size_t>(rng_.below(static_cast<int>(open.size())));
        e.push_back({-1 - open[at]});
        open.erase(open.begin() + static_cast<long>(at));
      }
    }
    if (e.empty()) return;
    std::vector<MPI_Request> reqs(e.size());
    for (std::size_t k = 0; k < e.size(); ++k)
      reqs[k] = e[k].op >= 0 ? ops_[static_cast<std::size_t>(e[k].op)].req : sends_[static_cast<std::size_t>(-1 - e[k].op)].req;
    const int n = static_cast<int>(e.size());
    std::vector<MPI_Status> sts(e.size());
    std::vector<int> idx(e.size());
    std::vector<int> completed;  // positions in e
    const int which = rng_.below(4);
    const char* name = "";
    if (wait) {
      stats_.waits++;
      switch (which) {
        case 0:
          name = "MPI_Wait";
          if (!call(MPI_Wait(&reqs[0], &sts[0]), name)) return;
          completed.push_back(0);
          break;
        case 1:
          name = "MPI_Waitall";
          if (!call(MPI_Waitall(n, reqs.data(), sts.data()), name)) return;
          for (int k = 0; k < n; ++k) completed.push_back(k);
          break;
        case 2: {
          name = "MPI_Waitany";
          int at = -1;
          if (!call(MPI_Waitany(n, reqs.data(), &at, &sts[0]), name)) return;
          if (at < 0 || at >= n) { err(std::string(name) + " returned index " + std::to_string(at)); return; }
          sts[static_cast<std::size_t>(at)] = sts[0];
          completed.push_back(at);
          break;
        }
        default: {
          name = "MPI_Waitsome";
          int out = -1;
          if (!call(MPI_Waitsome(n, reqs.data(), &out, idx.data(), sts.data()), name)) return;
          if (out < 1 || out > n) { err(std::string(name) + " returned outcount " + std::to_string(out)); return; }
          std::vector<MPI_Status> by(e.size());
          for (int k = 0; k < out; ++k) by[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])] = sts[static_cast<std::size_t>(k)];
          sts = by;
          for (int k = 0; k < out; ++k) completed.push_back(idx[static_cast<std::size_t>(k)]);
          break;
        }
      }
    } else {
      stats_.tests++;
      int flag = 0;
      switch (which) {
        case 0:
          name = "MPI_Test";
          if (!call(MPI_Test(&reqs[0], &flag, &sts[0]), name)) return;
          if (flag) completed.push_back(0);
          break;
        case 1:
          name = "MPI_Testall";
          if (!call(MPI_Testall(n, reqs.data(), &flag, sts.data()), name)) return;
          if (flag) for (int k = 0; k < n; ++k) completed.push_back(k);
          break;
        case 2: {
          name = "MPI_Testany";
          int at = -1;
          if (!call(MPI_Testany(n, reqs.data(), &at, &flag, &sts[0]), name)) return;
          if (flag) {
            if (at < 0 || at >= n) { err(std::string(name) + " returned index " + std::to_string(at)); return; }
            sts[static_cast<std::size_t>(at)] = sts[0];
            completed.push_back(at);
          } else if (at != MPI_UNDEFINED) {
            err(std::string(name) + ": no completion but index " + std::to_string(at));
          }
          break;
        }
        default: {
          name = "MPI_Testsome";
          int out = -1;
          if (!call(MPI_Testsome(n, reqs.data(), &out, idx.data(), sts.data()), name)) return;
          if (out < 0 || out > n) { err(std::string(name) + " returned outcount " + std::to_string(out)); return; }
          std::vector<MPI_Status> by(e.size());
          for (int k = 0; k < out; ++k) by[static_cast<std::size_t>(idx[static_cast<std::size_t>(k)])] = sts[static_cast<std::size_t>(k)];
          sts = by;
          for (int k = 0; k < out; ++k) completed.push_back(idx[static_cast<std::size_t>(k)]);
          break;
        }
      }
    }
    for (int at : completed) {
      const Entry& x = e[static_cast<std::size_t>(at)];
      if (x.op < 0) {
        Send& s = sends_[static_cast<std::size_t>(-1 - x.op)];
        s.done = true;
        if (!s.persistent && reqs[static_cast<std::size_t>(at)] != MPI_REQUEST_NULL)
          err(std::string(name) + " completed a send but left its request set");
        if (s.persistent) s.req = reqs[static_cast<std::size_t>(at)];
      } else {
        Op& o = ops_[static_cast<std::size_t>(x.op)];
        const bool persistent = o.kind == Kind::Persistent;
        if (!persistent && reqs[static_cast<std::size_t>(at)] != MPI_REQUEST_NULL)
          err(op_str(x.op) + ": " + name + " completed it but left its request set");
        if (persistent && reqs[static_cast<std::size_t>(at)] != o.req)
          err(op_str(x.op) + ": " + name + " changed a persistent request's handle");
        if (!persistent) o.req = MPI_REQUEST_NULL;
        finish(x.op, sts[static_cast<std::size_t>(at)], name);
      }
    }
  }

  // ---- the checks at the end of the round ----

  void check() {
    // Identify: the ops that got a (source, tag) took its messages in posting order.
    std::vector<std::vector<int>> owners(static_cast<std::size_t>(n_ * kTags));
    for (std::size_t i = 0; i < ops_.size(); ++i) {
      const Op& o = ops_[i];
      if (!consumes(o.kind) || o.cancelled) continue;
      if (!o.done) {
        err(op_str(static_cast<int>(i)) + " never completed");
        continue;
      }
      if (o.src < 0 || o.src >= n_ || o.tag < 0 || o.tag >= kTags) continue;  // reported already
      owners[idx(o.src, o.tag)].push_back(static_cast<int>(i));
    }
    std::vector<std::vector<int>> owner_of(static_cast<std::size_t>(n_));  // [src][seq] -> op
    for (int s = 0; s < n_; ++s) owner_of[static_cast<std::size_t>(s)].assign(by_src_[static_cast<std::size_t>(s)].size(), -1);
    for (int s = 0; s < n_; ++s) {
      for (int t = 0; t < kTags; ++t) {
        const auto& msgs = by_st_[idx(s, t)];
        const auto& own = owners[idx(s, t)];
        if (own.size() != msgs.size()) {
          err("received " + std::to_string(own.size()) + " message(s) from rank " + std::to_string(s) +
              " with tag " + std::to_string(t) + ", " + std::to_string(msgs.size()) + " were sent");
        }
        for (std::size_t k = 0; k < std::min(own.size(), msgs.size()); ++k) {
          ops_[static_cast<std::size_t>(own[k])].msg = msgs[k];
          owner_of[static_cast<std::size_t>(s)][static_cast<std::size_t>(msgs[k]->seq)] = own[k];
        }
      }
    }
    for (std::size_t i = 0; i < ops_.size() && errors.size() < 20; ++i) {
      const Op& o = ops_[i];
      const int oi = static_cast<int>(i);
      if (!o.done || o.cancelled) continue;
      if (o.src < 0 || o.src >= n_ || o.tag < 0 || o.tag >= kTags) continue;  // reported already
      if (!matches(o.pat_src, o.pat_tag, o.src, o.tag)) {
        err(op_str(oi) + " got a message from rank " + std::to_string(o.src) + " with tag " +
            std::to_string(o.tag) + ", which its pattern does not match");
        continue;
      }
      if (!consumes(o.kind)) {
        check_probe(oi, owner_of);
        continue;
      }
      if (!o.msg) continue;
      const Msg& m = *o.msg;
      check_data(oi, m);
      // Non-overtaking: an earlier message of the same source that this pattern
      // matches went to an operation posted before this one.
      for (const Msg* e : by_src_[static_cast<std::size_t>(m.src)]) {
        if (e->seq >= m.seq) break;
        if (!matches(o.pat_src, o.pat_tag, e->src, e->tag)) continue;
        const int w = owner_of[static_cast<std::size_t>(m.src)][static_cast<std::size_t>(e->seq)];
        if (w > oi) {
          err(op_str(oi) + " got message " + std::to_string(m.seq) + " from rank " + std::to_string(m.src) +
              " (tag " + std::to_string(m.tag) + ") while the earlier message " + std::to_string(e->seq) +
              " (tag " + std::to_string(e->tag) + "), which it also matches, went to the later " + op_str(w));
        }
      }
    }
  }

  void check_data(int oi, const Msg& m) {
    const Op& o = ops_[static_cast<std::size_t>(oi)];
    std::ostringstream what;
    what << op_str(oi) << " got message " << m.seq << " from rank " << m.src << " (tag " << m.tag << ", "
         << m.size << " B, " << kSendModeName[m.mode] << ")";
    if (o.count != m.size) {
      what << " but its count is " << o.count;
      if (o.count >= kHeader && static_cast<int>(o.data.size()) >= kHeader) {
        std::int32_t h[3];
        std::memcpy(h, o.data.data(), sizeof h);
        what << " and it carries source " << h[0] << " message " << h[1] << " of round " << h[2];
      }
      err(what.str());
      return;
    }
    const auto want = payload(m, round_);
    for (int k = 0; k < m.size; ++k) {
      if (o.data[static_cast<std::size_t>(k)] != want[static_cast<std::size_t>(k)]) {
        what << ": byte " << k << " is " << int(o.data[static_cast<std::size_t>(k)]) << ", expected "
             << int(want[static_cast<std::size_t>(k)]);
        if (m.size >= kHeader) {
          std::int32_t h[3];
          std::memcpy(h, o.data.data(), sizeof h);
          what << " (it carries source " << h[0] << " message " << h[1] << " of round " << h[2] << ")";
        }
        err(what.str());
        return;
      }
    }
    for (std::size_t k = static_cast<std::size_t>(m.size); k < o.data.size(); ++k) {
      if (o.data[k] != kSentinel) {
        what << ": the buffer past the message was written (byte " << k << ")";
        err(what.str());
        return;
      }
    }
  }

  void check_probe(int pi, const std::vector<std::vector<int>>& owner_of) {
    const Op& p = ops_[static_cast<std::size_t>(pi)];
    const auto& msgs = by_st_[idx(p.src, p.tag)];
    // The probe saw the first (source, tag) message not taken by an earlier op.
    std::size_t before = 0;
    for (const Msg* m : msgs) {
      const int w = owner_of[static_cast<std::size_t>(p.src)][static_cast<std::size_t>(m->seq)];
      if (w >= 0 && w < pi) ++before;
    }
    if (before >= msgs.size()) {
      err(op_str(pi) + " reported a message from rank " + std::to_string(p.src) + " with tag " +
          std::to_string(p.tag) + " when all had been received");
      return;
    }
    const Msg& m = *msgs[before];
    if (p.count != m.size) {
      err(op_str(pi) + " reported " + std::to_string(p.count) + " B from rank " + std::to_string(p.src) +
          " tag " + std::to_string(p.tag) + "; the next such message (" + std::to_string(m.seq) + ") has " +
          std::to_string(m.size) + " B");
    }
    for (const Msg* e : by_src_[static_cast<std::size_t>(m.src)]) {
      if (e->seq >= m.seq) break;
      if (!matches(p.pat_src, p.pat_tag, e->src, e->tag)) continue;
      const int w = owner_of[static_cast<std::size_t>(m.src)][static_cast<std::size_t>(e->seq)];
      if (w > pi) {
        err(op_str(pi) + " reported message " + std::to_string(m.seq) + " from rank " + std::to_string(m.src) +
            " while the earlier message " + std::to_string(e->seq) + " (tag " + std::to_string(e->tag) +
            "), which it also matches, was not yet received (it went to " + op_str(w) + ")");
      }
    }
  }
};

long long env_ll(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long long x = std::strtoll(v, &end, 10);
  return end && *end == '\0' ? x : fallback;
}

}  // namespace

TEST_CASE("Random point-to-point traffic follows MPI's matching rules", "[p2p][fuzz]") {
  MPI_Comm comm;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
  MPI_OK(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN));
  // Rank 0's settings for all.
  long long cfg[4] = {env_ll("CHORUS_FUZZ_SEED", 1), env_ll("CHORUS_FUZZ_SECONDS", 3),
                      env_ll("CHORUS_FUZZ_ROUNDS", 1000000000LL), env_ll("CHORUS_FUZZ_FIRST_ROUND", 0)};
  MPI_OK(MPI_Bcast(cfg, 4, MPI_LONG_LONG, 0, comm));
  const auto seed = static_cast<std::uint64_t>(cfg[0]);
  const double seconds = static_cast<double>(cfg[1]);
  const long long max_rounds = cfg[2];
  const int first = static_cast<int>(cfg[3]);
  const bool verbose = env_ll("CHORUS_FUZZ_VERBOSE", 0) != 0;
  if (jobs::rank() == 0) {
    std::printf("p2p fuzz: seed %llu, %d ranks, up to %.0f s, up to %lld rounds from round %d\n",
                static_cast<unsigned long long>(seed), jobs::size(), seconds, max_rounds, first);
    std::fflush(stdout);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Stats stats;
  int round = first;
  for (;;) {
    // In scope while the round runs: a rank that hangs and is ended by mpirun's
    // --timeout reports the round too.
    INFO("p2p fuzz: in round " << round << " (replay: CHORUS_FUZZ_SEED=" << seed
                               << " CHORUS_FUZZ_FIRST_ROUND=" << round << " CHORUS_FUZZ_ROUNDS=1)");
    Round r(comm, seed, round, stats);
    r.verbose = verbose;
    r.run();
    std::string all;
    for (std::size_t i = 0; i < r.errors.size() && i < 12; ++i) all += "\n  " + r.errors[i];
    INFO("p2p fuzz: " << r.errors.size() << " error(s); replay: CHORUS_FUZZ_SEED=" << seed
                      << " CHORUS_FUZZ_FIRST_ROUND=" << round << " CHORUS_FUZZ_ROUNDS=1, at "
                      << jobs::size() << " ranks:" << all);
    REQUIRE(r.errors.empty());
    ++stats.rounds;
    ++round;
    // Everyone finishes the round before anyone starts the next (its wildcard
    // receives must not see the next round's messages); rank 0 decides when to stop.
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    int go = jobs::rank() != 0 || (elapsed < seconds && stats.rounds < max_rounds);
    MPI_OK(MPI_Allreduce(MPI_IN_PLACE, &go, 1, MPI_INT, MPI_MIN, comm));
    if (!go) break;
  }
  long long local[12] = {stats.rounds, stats.msgs, stats.bytes, stats.ops, stats.wildcard, stats.probes,
                         stats.mprobes, stats.cancels, stats.cancelled, stats.persistent, stats.waits, stats.tests};
  long long sum[12] = {};
  MPI_OK(MPI_Reduce(local, sum, 12, MPI_LONG_LONG, MPI_SUM, 0, comm));
  if (jobs::rank() == 0) {
    std::printf("p2p fuzz: %lld rounds, %lld messages (%lld bytes), %lld receive-side steps: %lld wildcard "
                "patterns, %lld probes, %lld matched probes, %lld cancels (%lld took effect), %lld persistent "
                "receive starts, %lld Wait-family and %lld Test-family calls\n",
                local[0], sum[1], sum[2], sum[3], sum[4], sum[5], sum[6], sum[7], sum[8], sum[9], sum[10],
                sum[11]);
    std::fflush(stdout);
  }
  MPI_OK(MPI_Comm_free(&comm));
}
