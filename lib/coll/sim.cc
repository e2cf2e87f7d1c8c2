#include "coll/sim.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

namespace chorus::coll::sim {
namespace {

// Messages from one rank to another, oldest first (a vector and a read index:
// no allocation until the first message, unlike std::deque, which matters with
// a million channels at P = 1000).
struct Fifo {
  std::vector<std::vector<std::byte>> q;
  std::size_t head = 0;
  std::size_t size() const { return q.size() - head; }
  std::vector<std::byte> pop() {
    std::vector<std::byte> m = std::move(q[head++]);
    if (head == q.size()) {
      q.clear();
      head = 0;
    }
    return m;
  }
};

struct RankState {
  std::vector<std::byte> tmp[kMaxBufs - kTmp0];
  std::size_t round = 0;
  bool posted = false;  // current round's sends are out
  std::size_t wait_at = 0;  // current round: steps before this are satisfied Waits
  // Current round: messages it needs per peer, and how many of those peers were
  // already seen ready (messages only accumulate until the round takes them, so
  // a revisit goes on from there: a round of k receives costs O(k), not O(k^2)).
  std::vector<std::pair<int, std::size_t>> need;
  std::size_t need_at = 0;
  bool need_known = false;
};

}  // namespace

Result run(const std::vector<Schedule>& schedules, std::vector<RankBuffers>& bufs,
           const ReduceFn& op, const std::vector<int>* window_of) {
  const int p = static_cast<int>(schedules.size());
  Result res;
  res.bytes_sent.assign(static_cast<std::size_t>(p), 0);
  res.bytes_received.assign(static_cast<std::size_t>(p), 0);
  res.rounds.assign(static_cast<std::size_t>(p), 0);
  res.messages_sent.assign(static_cast<std::size_t>(p), 0);
  std::vector<RankState> st(static_cast<std::size_t>(p));
  for (int r = 0; r < p; ++r) {
    for (int t = 0; t < kMaxBufs - kTmp0; ++t)
      st[static_cast<std::size_t>(r)].tmp[t].assign(schedules[static_cast<std::size_t>(r)].tmp_bytes[t],
                                                   std::byte{0});
    res.rounds[static_cast<std::size_t>(r)] = schedules[static_cast<std::size_t>(r)].comm_rounds();
  }
  // The shared windows (kShm): one for all ranks, or one per window_of value;
  // each rank's Signal count, and the ranks waiting for a rank's next Signal.
  std::size_t shm_bytes = 0;
  for (const Schedule& sch : schedules) shm_bytes = std::max(shm_bytes, sch.shm_bytes);
  if (window_of && window_of->size() != schedules.size()) window_of = nullptr;
  auto window = [&](int r) { return window_of ? static_cast<std::size_t>((*window_of)[static_cast<std::size_t>(r)]) : 0; };
  std::size_t windows = 1;
  for (int r = 0; r < p; ++r) windows = std::max(windows, window(r) + 1);
  std::vector<std::vector<std::byte>> shm(windows, std::vector<std::byte>(shm_bytes, std::byte{0}));
  std::vector<std::uint64_t> signals(static_cast<std::size_t>(p), 0);
  std::vector<std::vector<int>> waiters(static_cast<std::size_t>(p));
  // Channel (src, dst) -> FIFO of messages, keyed src * p + dst.
  std::unordered_map<std::int64_t, Fifo> chan;
  {
    // At most one channel per send: no rehashing while millions fill in.
    std::size_t sends = 0;
    for (const Schedule& sch : schedules)
      for (const Round& rd : sch.rounds)
        for (const Step& s : rd.steps) sends += s.kind == Step::Kind::Send;
    chan.reserve(std::min<std::size_t>(sends, static_cast<std::size_t>(p) * static_cast<std::size_t>(p)));
  }
  auto key = [p](int src, int dst) { return static_cast<std::int64_t>(src) * p + dst; };
  auto pending = [&](int src, int dst) -> std::size_t {
    auto it = chan.find(key(src, dst));
    return it == chan.end() ? 0 : it->second.size();
  };

  auto fail = [&](std::string msg) {
    if (res.ok) {
      res.ok = false;
      res.error = std::move(msg);
    }
  };
  auto region = [&](int r, const BufRef& ref, std::size_t bytes, std::size_t round,
                    const char* what) -> std::byte* {
    std::vector<std::byte>* v;
    switch (ref.buf) {
      case kSend: v = &bufs[static_cast<std::size_t>(r)].send; break;
      case kRecv: v = &bufs[static_cast<std::size_t>(r)].recv; break;
      case kShm: v = &shm[window(r)]; break;
      default:
        if (ref.buf >= kMaxBufs) {
          fail(fmt::format("rank {} round {}: {} names buffer {}", r, round, what, ref.buf));
          return nullptr;
        }
        v = &st[static_cast<std::size_t>(r)].tmp[ref.buf - kTmp0];
    }
    if (bytes == 0) {
      static std::byte none;
      return &none;  // zero-byte steps touch nothing, whatever the buffer
    }
    if (ref.off + bytes > v->size()) {
      fail(fmt::format("rank {} round {}: {} of {} B at offset {} overruns buffer {} of {} B", r,
                       round, what, bytes, ref.off, ref.buf, v->size()));
      return nullptr;
    }
    return v->data() + ref.off;
  };

  std::vector<std::byte> scratch;
  // Event-driven progress: a rank is (re)visited when it starts or when a
  // message arrives for it, and then runs as many rounds as it can. The work is
  // proportional to the steps, not to rounds x ranks.
  std::vector<int> work;
  std::vector<char> queued(static_cast<std::size_t>(p), 1);
  for (int r = p - 1; r >= 0; --r) work.push_back(r);
  std::map<int, std::size_t> need;
  while (!work.empty() && res.ok) {
    const int r = work.back();
    work.pop_back();
    queued[static_cast<std::size_t>(r)] = 0;
    {
      RankState& rs = st[static_cast<std::size_t>(r)];
      const Schedule& sch = schedules[static_cast<std::size_t>(r)];
      while (rs.round < sch.rounds.size() && res.ok) {
        const Round& round = sch.rounds[rs.round];
        if (!rs.posted) {
          for (const Step& s : round.steps) {
            if (s.kind != Step::Kind::Send) continue;
            if (s.peer < 0 || s.peer >= p || s.peer == r) {
              fail(fmt::format("rank {} round {}: send to invalid peer {}", r, rs.round, s.peer));
              break;
            }
            std::byte* src = region(r, s.a, s.bytes, rs.round, "send");
            if (!src) break;
            chan[key(r, s.peer)].q.emplace_back(src, src + s.bytes);
            res.bytes_sent[static_cast<std::size_t>(r)] += s.bytes;
            res.messages_sent[static_cast<std::size_t>(r)]++;
            if (!queued[static_cast<std::size_t>(s.peer)]) {
              queued[static_cast<std::size_t>(s.peer)] = 1;
              work.push_back(s.peer);
            }
          }
          for (const Step& s : round.steps) {
            if (s.kind != Step::Kind::Signal) continue;
            ++signals[static_cast<std::size_t>(r)];
            for (int w : waiters[static_cast<std::size_t>(r)]) {
              if (!queued[static_cast<std::size_t>(w)]) {
                queued[static_cast<std::size_t>(w)] = 1;
                work.push_back(w);
              }
            }
            waiters[static_cast<std::size_t>(r)].clear();
          }
          rs.posted = true;
        }
        // Waits, in order: a rank waits for one peer at a time and is woken by its Signal.
        bool waiting = false;
        for (; rs.wait_at < round.steps.size(); ++rs.wait_at) {
          const Step& s = round.steps[rs.wait_at];
          if (s.kind != Step::Kind::Wait) continue;
          if (s.peer < 0 || s.peer >= p || s.peer == r || window(s.peer) != window(r)) {
            fail(fmt::format("rank {} round {}: wait for invalid peer {}{}", r, rs.round, s.peer,
                             s.peer >= 0 && s.peer < p && window(s.peer) != window(r) ? " (another node's window)" : ""));
            waiting = true;
            break;
          }
          if (signals[static_cast<std::size_t>(s.peer)] < signals[static_cast<std::size_t>(r)]) {
            waiters[static_cast<std::size_t>(s.peer)].push_back(r);
            waiting = true;
            break;
          }
        }
        if (waiting) break;
        // Every receive of the round must find its message (in FIFO order per peer).
        if (!rs.need_known) {
          need.clear();
          for (const Step& s : round.steps)
            if (s.kind == Step::Kind::Recv) need[s.peer]++;
          rs.need.assign(need.begin(), need.end());
          rs.need_at = 0;
          rs.need_known = true;
        }
        bool ready = true;
        for (; rs.need_at < rs.need.size(); ++rs.need_at) {
          const auto [peer, n] = rs.need[rs.need_at];
          if (peer < 0 || peer >= p || peer == r) {
            fail(fmt::format("rank {} round {}: receive from invalid peer {}", r, rs.round, peer));
            ready = false;
            break;
          }
          if (pending(peer, r) < n) {
            ready = false;
            break;
          }
        }
        if (!ready) break;
        for (const Step& s : round.steps) {
          if (s.kind != Step::Kind::Recv) continue;
          std::vector<std::byte> msg = chan[key(s.peer, r)].pop();
          if (msg.size() != s.bytes) {
            fail(fmt::format("rank {} round {}: receive of {} B from rank {} matched a {} B message",
                             r, rs.round, s.bytes, s.peer, msg.size()));
            break;
          }
          std::byte* dst = region(r, s.b, s.bytes, rs.round, "recv");
          if (!dst) break;
          if (s.bytes) std::memcpy(dst, msg.data(), s.bytes);
          res.bytes_received[static_cast<std::size_t>(r)] += s.bytes;
        }
        for (const Step& s : round.steps) {
          if (!res.ok) break;
          if (s.kind == Step::Kind::Copy) {
            std::byte* src = region(r, s.a, s.bytes, rs.round, "copy source");
            std::byte* dst = region(r, s.b, s.bytes, rs.round, "copy destination");
            if (src && dst && s.bytes) std::memmove(dst, src, s.bytes);
          } else if (s.kind == Step::Kind::ReduceLeft || s.kind == Step::Kind::ReduceRight) {
            if (!op) {
              fail(fmt::format("rank {} round {}: reduce step without an op", r, rs.round));
              break;
            }
            std::byte* a = region(r, s.a, s.bytes, rs.round, "reduce input");
            std::byte* b = region(r, s.b, s.bytes, rs.round, "reduce in-out");
            if (!a || !b) break;
            if (s.kind == Step::Kind::ReduceLeft) {
              op(a, b, s.bytes);
            } else {  // b = b (op) a: compute into a copy of a, then move back
              scratch.assign(a, a + s.bytes);
              op(b, scratch.data(), s.bytes);
              std::memcpy(b, scratch.data(), s.bytes);
            }
          }
        }
        rs.round++;
        rs.posted = false;
        rs.wait_at = 0;
        rs.need_known = false;
      }
    }
  }
  if (res.ok) {
    std::string who;
    for (int r = 0; r < p; ++r)
      if (st[static_cast<std::size_t>(r)].round < schedules[static_cast<std::size_t>(r)].rounds.size())
        who += fmt::format(" r{}@{}", r, st[static_cast<std::size_t>(r)].round);
    if (!who.empty()) fail("deadlock: ranks stuck at rounds" + who);
  }
  if (res.ok) {
    for (const auto& [k, q] : chan) {
      if (q.size()) {
        fail(fmt::format("{} message(s) from rank {} to rank {} were never received", q.size(),
                         k / p, k % p));
        break;
      }
    }
  }
  return res;
}

Result run_algorithm(const AlgoInfo& algo, const CollArgs& args, std::vector<RankBuffers>& bufs,
                     const ReduceFn& op) {
  std::vector<Schedule> schedules(static_cast<std::size_t>(args.size));
  for (int r = 0; r < args.size; ++r) {
    CollArgs a = args;
    a.rank = r;
    Status s = algo.build(a, schedules[static_cast<std::size_t>(r)]);
    if (s != Status::Ok) {
      Result res;
      res.ok = false;
      res.error = fmt::format("{}: build failed on rank {}: {}", algo.name, r, to_string(s));
      return res;
    }
  }
  const bool node_windows = args.shm_slot_bytes > 0 && args.shape.nodes > 1 && args.shape.node_of &&
                            args.shape.node_of->size() == schedules.size();
  Result res = run(schedules, bufs, op, node_windows ? args.shape.node_of.get() : nullptr);
  // Bytes per link class: a message between ranks of different nodes crosses
  // the network.
  if (args.shape.node_of && args.shape.node_of->size() == schedules.size()) {
    const std::vector<int>& node = *args.shape.node_of;
    res.bytes_sent_between_nodes.assign(schedules.size(), 0);
    for (std::size_t r = 0; r < schedules.size(); ++r)
      for (const Round& rd : schedules[r].rounds)
        for (const Step& st : rd.steps)
          if (st.kind == Step::Kind::Send && node[static_cast<std::size_t>(st.peer)] != node[r])
            res.bytes_sent_between_nodes[r] += st.bytes;
  }
  return res;
}

}  // namespace chorus::coll::sim
