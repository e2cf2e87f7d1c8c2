#include "p2p/local.h"

#include <fcntl.h>
#include <sys/uio.h>
#include <unistd.h>

#include <sched.h>
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/bytes.h"
#include "core/counters.h"
#include "core/events.h"
#include "core/log.h"
#include "core/params.h"
#include "core/shm_segment.h"
#include "gpu/gpu.h"
#include "p2p/internal.h"
#include "p2p/ring.h"

namespace chorus::p2p::local {

std::array<std::uint64_t, tag::kMaxContexts / 64> g_owned{};

namespace {

constexpr const char* kNameKey = "chorus.p2p.shm";
constexpr const char* kCmaKey = "chorus.p2p.cma";
// What a peer reads to find out whether it may read this process's memory.
constexpr std::uint64_t kCmaMagic = 0x63686f7275734d41ULL;
// Single copy's start where reading a peer's memory is cheap (kCapCmaCheap), and
// how many reads time it. 16 KiB: an 8 KiB message fits one ring fragment, and a
// stream of them moved 1.6-1.8x faster through the ring than single-copy (2 ranks,
// `bw` 8 KiB 9.0-10.1 GB/s against 5.5-6.3; `bibw` 1.1-1.3x, 4 ranks' `mbw_mr`
// 1.1-1.6x; 2026-12-07), its latency alike; from 16 KiB single copy keeps the lead.
// A collective's messages start higher: its rounds wait for
// their sends' completion (in place, a later round overwrites what a send reads),
// which a single copy delays until the receiver has read and acknowledged, where
// a copy into the ring completes at once (2 ranks, 16-32 KiB messages: alltoall in
// place and allreduce 15-50% slower single-copy; from 64 KiB 15-30% faster).
constexpr std::size_t kCheapCmaMin = 16384, kCheapCmaMinColl = 65536;
constexpr int kCmaTimedReads = 16;
volatile std::uint64_t g_cma_probe = kCmaMagic;
constexpr std::size_t kRingBudget = 64u << 20;

using namespace ring;  // the record format

// A message read from a ring before its receive was posted.
struct Msg {
  std::uint64_t tag = 0, token = 0;
  std::uint64_t len = 0;   // message bytes
  std::uint64_t got = 0;   // bytes arrived (< len while fragments are still coming)
  std::uint8_t kind = 0;
  int from = 0;  // the sender's local index (for the acknowledgement)
  bool dropped = false;  // its communicator is gone (State::dropped holds it)
  Bytes data;
  bool whole() const { return got == len; }
  // From a list of freed ones (all under the MPI lock, as the rest of this
  // file): each early message cost a malloc and a free before.
  static void* operator new(std::size_t n);
  static void operator delete(void* p) noexcept;
};

// Freed Msgs kept for the next early messages, up to kKept (defined before `g`,
// whose messages come back here on exit).
struct FreeMsgs {
  static constexpr std::size_t kKept = 1024;
  std::vector<void*> blocks;
  bool closed = false;
  FreeMsgs() { blocks.reserve(kKept); }
  ~FreeMsgs() {
    closed = true;
    for (void* b : blocks) ::operator delete(b);
  }
};
FreeMsgs g_free_msgs;

void* Msg::operator new(std::size_t n) {
  if (n == sizeof(Msg) && !g_free_msgs.blocks.empty()) {
    void* b = g_free_msgs.blocks.back();
    g_free_msgs.blocks.pop_back();
    return b;
  }
  return ::operator new(n);
}

void Msg::operator delete(void* p) noexcept {
  if (!g_free_msgs.closed && g_free_msgs.blocks.size() < FreeMsgs::kKept) {
    g_free_msgs.blocks.push_back(p);  // within the reserved capacity: no allocation
    return;
  }
  ::operator delete(p);
}

// A record waiting for room in its ring. Its payload is `data`, or the user's
// buffer at `user` (a fragment: the send completes, `done`, once it is written).
struct Queued {
  Header h;
  std::vector<std::byte> data;
  const std::byte* user = nullptr;
  Request* done = nullptr;
  std::uint64_t prefix = 0;  // kFirst*: the total length written before the data
  const std::byte* payload() const { return user ? user : data.data(); }
};

// The fragmented message a ring is carrying: landing in a receive, or in an
// unexpected message.
struct Partial {
  Request* r = nullptr;
  Msg* m = nullptr;
  std::uint64_t got = 0, total = 0, token = 0;
  bool sync = false;
};

struct Out {  // this rank -> a peer
  ring::Writer w;
  std::deque<Queued> queue;  // records that did not fit yet, in order
};

// Posted receives in the order they were posted: a list through
// Request::next_posted (a deque's find and erase cost ~70 instructions a message).
struct Posted {
  Request* head = nullptr;
  Request* tail = nullptr;
  void push(Request* r) {
    r->next_posted = nullptr;
    (tail ? tail->next_posted : head) = r;
    tail = r;
  }
  // Take out `r`, which follows `prev` (nullptr: `r` is the first).
  void unlink(Request* prev, Request* r) {
    (prev ? prev->next_posted : head) = r->next_posted;
    if (tail == r) tail = prev;
    r->next_posted = nullptr;
  }
};

// Matching state of one context: posted receives and unexpected messages, each
// in order.
struct Ctx {
  Posted posted;
  std::deque<std::unique_ptr<Msg>> unexpected;
};

struct State {
  bool up = false;
  bool creator = false;
  std::string name;
  std::byte* base = nullptr;
  std::size_t bytes = 0;
  std::size_t ring = 0;   // bytes per ring
  std::size_t eager = 0;  // largest message written as one record
  std::size_t frag = 0;   // bytes per record of longer messages
  std::size_t copy_max = 0;  // largest message copied through the ring
  int n = 0;              // local ranks
  int me = -1;            // this rank's local index
  std::byte* cpus = nullptr;  // a line per local rank: the CPU it last ran on, plus one
  std::vector<int> local_of;  // world rank -> local index, or -1
  std::vector<Out> out;
  std::vector<ring::Reader> in;
  std::vector<Partial> partial;  // by sender's local index
  std::vector<std::unique_ptr<Ctx>> ctx;
  // Unexpected messages of a freed communicator whose fragments still arrive:
  // kept until the last one lands (a Partial points at them), then deleted.
  std::vector<std::unique_ptr<Msg>> dropped;
  // Single-copy messages (kCma): on for this job, the sizes, and whether this rank
  // could read a peer's memory (agreed over the job: capabilities(), commit()).
  bool cma = false, cma_here = false;
  // Every rank of the job can read and write its local peers' memory (commit();
  // set on every rank alike, a rank alone on its node too, which maps no rings).
  bool cma_agreed = false;
  // The best of a few reads of a peer's word (attach()), and whether it is below
  // CHORUS_P2P_SHM_CMA_CHEAP_US (kCapCmaCheap).
  double cma_read_us = 0;
  bool cma_cheap = false;
  bool cma_min_set = false;  // CHORUS_P2P_SHM_CMA_MIN given: it binds `readable` sends too
  // This rank could not allocate its rings' pages (shm::reserve): the job agrees
  // to go without rings (capabilities(), commit()) before any of them is touched.
  bool unreserved = false;
  // Single copy's sizes; a collective's messages start at cma_min_coll (above
  // cma_min where reading is cheap: kCheapCmaMinColl).
  std::size_t cma_min = 0, cma_min_coll = 0, cma_max = 0;
  // Receives of more than cma_max bytes posted and not matched yet: this rank
  // expects large messages, so its own large sends go single-copy (single_copy()).
  std::size_t large_posted = 0;
  int cma_large = 0;  // CHORUS_P2P_SHM_CMA_LARGE: 0 busy, 1 always, 2 never
  std::size_t coll_pipe = 0;  // CHORUS_P2P_SHM_COLL_PIPELINE (0: off)
  // node_busy(): the last look at /proc/loadavg (its runnable tasks), and when it
  // was taken; foreign_load() reads the same look.
  bool busy = false;
  long runnable = 0;
  std::chrono::steady_clock::time_point busy_seen{};
  bool busy_logged = false;
  std::size_t queued = 0;     // records in the out queues
  std::uint32_t data_seq = 0; // names the UCX data of large messages
};
State g;

Ctx& ctx_of(std::uint64_t t) {
  auto& c = g.ctx[tag::context_of(t)];
  if (!c) c = std::make_unique<Ctx>();
  return *c;
}

bool matches(std::uint64_t msg_tag, std::uint64_t want, std::uint64_t mask) {
  return ((msg_tag ^ want) & mask) == 0;
}

// ---- writing --------------------------------------------------------------------

// Write a record to local rank `to`, or queue a copy (in order) when its ring is full.
void write(int to, const Header& h, const void* data) {
  Out& o = g.out[static_cast<std::size_t>(to)];
  if (o.queue.empty() && o.w.try_write(h, data)) return;
  Queued q{h, {}};
  if (has_payload(h.kind()) && h.len()) {
    const auto* b = static_cast<const std::byte*>(data);
    q.data.assign(b, b + h.len());
  }
  o.queue.push_back(std::move(q));
  ++g.queued;
}

bool try_write(Out& o, const Queued& q) {
  const bool first = q.h.kind() == kFirst || q.h.kind() == kFirstSync;
  return o.w.try_write(q.h, q.payload(), first ? &q.prefix : nullptr, first ? 8 : 0);
}

// Write a record straight from the user's buffer, or queue it by reference;
// `done` (a standard send, at its last record) completes once it is written.
void write_ref(int to, Queued&& q) {
  Out& o = g.out[static_cast<std::size_t>(to)];
  if (o.queue.empty() && try_write(o, q)) {
    if (q.done) q.done->complete = true;  // still inside the send call: no release
    return;
  }
  o.queue.push_back(std::move(q));
  ++g.queued;
}

unsigned flush() {
  unsigned n = 0;
  for (Out& o : g.out) {
    while (!o.queue.empty() && try_write(o, o.queue.front())) {
      Request* done = o.queue.front().done;
      o.queue.pop_front();
      --g.queued;
      ++n;
      if (done) detail::complete(done);
    }
  }
  return n;
}

// ---- matching ---------------------------------------------------------------------

// `n` bytes of a message at offset `off` into a receive, as far as its buffer goes.
void land(Request* r, std::uint64_t off, const std::byte* src, std::uint64_t n) {
  if (off >= r->buf_bytes || n == 0) return;
  const std::size_t k = static_cast<std::size_t>(std::min<std::uint64_t>(n, r->buf_bytes - off));
  auto* dst = static_cast<std::byte*>(r->recv_buf) + off;
  if (gpu::on_device(r->recv_buf)) {
    if (!ok(gpu::copy(dst, src, k))) r->error = MPI_ERR_OTHER;
  } else {
    std::memcpy(dst, src, k);
  }
}

// A receive has all of a `len`-byte message: length, truncation, the
// acknowledgement a synchronous send waits for, completion.
void finish_recv(Request* r, int from, std::uint64_t len, bool sync, std::uint64_t token) {
  const bool trunc = len > r->buf_bytes;
  r->bytes = trunc ? r->buf_bytes : static_cast<std::size_t>(len);
  if (trunc && r->error == MPI_SUCCESS) r->error = MPI_ERR_TRUNCATE;
  if (sync) write(from, Header{0, 0, token, 0, kAck}, nullptr);
  detail::complete(r);
}

void set_envelope(Request* r, std::uint64_t t) {
  r->sender_tag = t;
  r->source = tag::source_of(t);
  r->tag = tag::tag_of(t);
}

// How dear single copy is here: the best of kCmaTimedReads reads of a peer's
// word (one page pinned and copied: the fixed cost every single-copy message pays,
// 0.5-0.9 us on some of our VMs, 2.6 on others). Below CHORUS_P2P_SHM_CMA_CHEAP_US
// the rank reports kCapCmaCheap.
void time_peer_read(std::uint64_t pid, std::uint64_t addr) {
  double best = 1e9;
  for (int i = 0; i < kCmaTimedReads; ++i) {
    std::uint64_t got = 0;
    int err = 0;
    const auto t = std::chrono::steady_clock::now();
    if (!read_peer(pid, addr, reinterpret_cast<std::byte*>(&got), sizeof got, &err)) return;
    best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t).count());
  }
  g.cma_read_us = best;
  g.cma_cheap = best < param::P2pShmCmaCheapUs();
}

// A receive meets a single-copy message: read it from the sender's buffer,
// acknowledge (the sender's request completes), complete.
void cma_deliver(Request* r, int from, std::uint64_t t, std::uint64_t token, const std::byte* payload) {
  CmaDesc d;
  std::memcpy(&d, payload, sizeof d);
  set_envelope(r, t);
  r->error = MPI_SUCCESS;
  const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(d.len, r->buf_bytes));
  int err = 0;
  bool ok_read = true;
  if (n && gpu::on_device(r->recv_buf)) {
    std::vector<std::byte> host(n);
    ok_read = read_peer(d.pid, d.addr, host.data(), n, &err);
    if (ok_read) land(r, 0, host.data(), n);
  } else if (n) {
    ok_read = read_peer(d.pid, d.addr, static_cast<std::byte*>(r->recv_buf), n, &err);
  }
  if (!ok_read) {
    CHORUS_WARN(P2P, "reading a {} B message from local rank {} (pid {}) failed: {}", d.len, from, d.pid,
                std::strerror(err));
    r->error = MPI_ERR_OTHER;
  }
  write(from, Header{0, 0, token, 0, kAck}, nullptr);
  finish_recv(r, from, d.len, false, 0);
}

// A receive meets its message: copy (or start the UCX data receive), acknowledge
// a synchronous one, complete.
void deliver(Request* r, int from, std::uint64_t t, std::uint64_t token, std::uint64_t len,
             std::uint8_t kind, const std::byte* payload) {
  if (kind == kCma) {
    cma_deliver(r, from, t, token, payload);
    return;
  }
  set_envelope(r, t);
  if (kind == kRts) {
    r->no_cancel = true;
    if (!ok(detail::ucx_irecv_data(r, r->recv_buf, r->buf_bytes, token))) {
      r->error = MPI_ERR_OTHER;
      detail::complete(r);
    }
    return;
  }
  r->error = MPI_SUCCESS;
  land(r, 0, payload, len);
  finish_recv(r, from, len, kind == kEagerSync || kind == kFirstSync, token);
}

// The next fragment from `from` arrived: land it; the message is whole at the end.
void take_fragment(int from, const std::byte* payload, std::uint64_t n) {
  Partial& p = g.partial[static_cast<std::size_t>(from)];
  if (p.r) land(p.r, p.got, payload, n);
  else std::memcpy(p.m->data.data() + p.got, payload, static_cast<std::size_t>(n));
  p.got += n;
  if (p.m) p.m->got = p.got;
  if (p.got < p.total) return;
  if (p.r) finish_recv(p.r, from, p.total, p.sync, p.token);
  if (p.m && p.m->dropped)
    std::erase_if(g.dropped, [m = p.m](const std::unique_ptr<Msg>& d) { return d.get() == m; });
  p = Partial{};
}

// A receive takes a message off the unexpected queue (irecv, imrecv): at once if
// it is whole, else it takes over the rest of its fragments.
void take_msg(Request* r, std::unique_ptr<Msg> m) {
  if (m->whole()) {
    deliver(r, m->from, m->tag, m->token, m->len, m->kind, m->data.data());
    return;
  }
  set_envelope(r, m->tag);
  land(r, 0, m->data.data(), m->got);
  g.partial[static_cast<std::size_t>(m->from)] = Partial{r, nullptr, m->got, m->len, m->token, m->kind == kFirstSync};
}

// Take entry `it` off a matching queue. Nearly always the first one (MPI's order):
// pop_front is cheaper there than the general erase (~3% of an 8 B message-rate
// run was deque::_M_erase).
template <typename Q>
void erase_at(Q& q, typename Q::iterator it) {
  if (it == q.begin()) q.pop_front();
  else q.erase(it);
}

// A receive left the posted queues (matched or cancelled).
void unposted(const Request* r) {
  if (r->buf_bytes > g.cma_max && g.large_posted) --g.large_posted;
}

// The first posted receive a message tagged `t` matches, taken off the queue.
Request* match_posted(Ctx& c, std::uint64_t t) {
  std::uint64_t walked = 0;
  for (Request *prev = nullptr, *r = c.posted.head; r; prev = r, r = r->next_posted, ++walked) {
    if (matches(t, r->want_tag, r->want_mask)) {
      c.posted.unlink(prev, r);
      unposted(r);
      if (walked) counters::add(counters::Id::RingPostedWalked, walked);
      return r;
    }
  }
  if (walked) counters::add(counters::Id::RingPostedWalked, walked);
  return nullptr;
}

void take_unexpected(Ctx& c, int from, const Header& h, const std::byte* payload, bool first, bool cma,
                     std::uint64_t total, std::uint64_t n);

void take(int from, const Header& h, const std::byte* payload) {
  if (h.kind() == kAck) {
    detail::complete(reinterpret_cast<Request*>(h.token));
    return;
  }
  if (h.kind() == kFrag) {
    take_fragment(from, payload, h.len());
    return;
  }
  const bool first = h.kind() == kFirst || h.kind() == kFirstSync;
  const bool cma = h.kind() == kCma;  // the record holds where the bytes are, not them
  std::uint64_t total = h.len();
  if (first) {
    std::memcpy(&total, payload, 8);
    payload += 8;
  } else if (cma) {
    CmaDesc d;
    std::memcpy(&d, payload, sizeof d);
    total = d.len;
  }
  const std::uint64_t n = first ? h.len() - 8 : h.len();  // what this record carries
  Ctx& c = ctx_of(h.tag);
  if (Request* r = match_posted(c, h.tag)) {
    if (!first) {
      deliver(r, from, h.tag, h.token, h.len(), h.kind(), payload);
      return;
    }
    set_envelope(r, h.tag);
    r->error = MPI_SUCCESS;
    land(r, 0, payload, n);
    if (n == total) finish_recv(r, from, total, h.kind() == kFirstSync, h.token);  // one fragment
    else g.partial[static_cast<std::size_t>(from)] = Partial{r, nullptr, n, total, h.token, h.kind() == kFirstSync};
    return;
  }
  take_unexpected(c, from, h, payload, first, cma, total, n);
}

// A message no posted receive matches: kept, in order, until one does.
[[gnu::noinline]] void take_unexpected(Ctx& c, int from, const Header& h, const std::byte* payload, bool first,
                                       bool cma, std::uint64_t total, std::uint64_t n) {
  std::unique_ptr<Msg> m(new Msg);  // not value-initialized: the inline bytes stay unwritten
  m->tag = h.tag;
  m->token = h.token;
  m->len = total;
  m->got = has_payload(h.kind()) && !cma ? n : total;  // single copy: whole, its bytes wait at the sender
  m->kind = h.kind();
  m->from = from;
  if (cma) {
    if (m->data.reset(n)) counters::add(counters::Id::RingUnexpectedAllocs);  // the CmaDesc, for deliver()
    std::memcpy(m->data.data(), payload, static_cast<std::size_t>(n));
  } else if (has_payload(h.kind())) {
    if (m->data.reset(static_cast<std::size_t>(total))) counters::add(counters::Id::RingUnexpectedAllocs);
    if (n) std::memcpy(m->data.data(), payload, static_cast<std::size_t>(n));  // none for an empty message
  }
  if (first && n < total)
    g.partial[static_cast<std::size_t>(from)] = Partial{nullptr, m.get(), n, total, h.token, h.kind() == kFirstSync};
  c.unexpected.push_back(std::move(m));
  counters::add(counters::Id::RingUnexpected);
  counters::add(counters::Id::RingUnexpectedTotal);
  if (events::armed(events::Id::P2pUnexpected))
    events::raise(events::Id::P2pUnexpected, {tag::source_of(h.tag), tag::tag_of(h.tag), tag::context_of(h.tag),
                                              static_cast<std::int64_t>(total)});
}

// Read every record waiting in the ring from local rank `from`.
unsigned drain(int from) {
  ring::Reader& in = g.in[static_cast<std::size_t>(from)];
  unsigned n = 0;
  while (const Header* r = in.peek()) {
    take(from, *r, reinterpret_cast<const std::byte*>(r + 1));
    in.pop();
    ++n;
  }
  return n;
}

Request* take_posted(Ctx& c, Request* r) {
  for (Request *prev = nullptr, *q = c.posted.head; q; prev = q, q = q->next_posted) {
    if (q == r) {
      c.posted.unlink(prev, r);
      unposted(r);
      return r;
    }
  }
  return nullptr;
}

void start_recv(Request* r, void* buf, std::size_t bytes) {
  r->kind = Request::Kind::Recv;
  r->active = true;
  r->complete = false;
  r->cancelled = false;
  r->no_cancel = false;
  r->error = MPI_SUCCESS;
  r->ucx = nullptr;
  r->buf_bytes = bytes;
  r->recv_buf = buf;
}

void unmap() {
  shm::unmap(g.base, g.bytes);
  g.base = nullptr;
  g.out.clear();
  g.in.clear();
}

}  // namespace

namespace {
// process_vm_readv or process_vm_writev: `n` bytes between `mine` here and `addr`
// in process `pid`, looping over partial transfers.
using VmCopy = ssize_t (*)(pid_t, const iovec*, unsigned long, const iovec*, unsigned long, unsigned long);
bool peer_copy(VmCopy copy, std::uint64_t pid, std::uint64_t addr, std::byte* mine, std::size_t n, int* err) {
  std::size_t done = 0;
  while (done < n) {
    iovec local{mine + done, n - done};
    iovec remote{reinterpret_cast<void*>(addr + done), n - done};
    ssize_t moved = copy(static_cast<pid_t>(pid), &local, 1, &remote, 1, 0);
    if (moved <= 0) {
      *err = moved < 0 ? errno : EIO;
      return false;
    }
    done += static_cast<std::size_t>(moved);
  }
  return true;
}
}  // namespace

bool read_peer(std::uint64_t pid, std::uint64_t addr, std::byte* dst, std::size_t n, int* err) {
  return peer_copy(process_vm_readv, pid, addr, dst, n, err);
}

bool write_peer(std::uint64_t pid, std::uint64_t addr, const std::byte* src, std::size_t n, int* err) {
  return peer_copy(process_vm_writev, pid, addr, const_cast<std::byte*>(src), n, err);
}

bool peer_memory() { return g.cma_agreed; }

// ---- set-up ------------------------------------------------------------------------

Status publish(const launcher::JobInfo& job) {
  g = State{};
  if (job.singleton || job.local_size < 2 || job.local_peers.size() != static_cast<std::size_t>(job.local_size))
    return Status::Ok;
  g.n = job.local_size;
  // Rings of CHORUS_P2P_SHM_RING bytes, smaller on nodes with so many ranks that
  // the segment (local ranks squared rings) would pass 64 MiB.
  const std::size_t nn = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.n);
  g.ring = std::min<std::size_t>(param::P2pShmRing(), std::max<std::size_t>(kRingBudget / nn, 1024));
  g.ring = std::max<std::size_t>(g.ring / kLine * kLine, 4 * kLine);
  g.frag = g.ring / 4;
  g.eager = std::min<std::size_t>(std::max<std::size_t>(param::P2pShmEager(), 64), g.frag);
  // Local ranks squared rings, then a line per local rank: the CPU it last ran on
  // (cpu_shared_with_peer()).
  g.bytes = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.n) * (kLine + g.ring) +
            static_cast<std::size_t>(g.n) * kLine;
  g.creator = job.rank == job.local_peers.front();
  if (param::P2pShm() == 0 && param::P2pShmCma() == 0) {
    // Where a peer can test reading this process's memory (attach()).
    const std::uint64_t probe[2] = {static_cast<std::uint64_t>(getpid()),
                                    reinterpret_cast<std::uint64_t>(&g_cma_probe)};
    CHORUS_TRY(launcher::put(kCmaKey, probe, sizeof probe));
  }
  if (!g.creator) return Status::Ok;
  std::string name;
  if (param::P2pShm() == 0) {
    std::string err;
    name = shm::name(getpid(), "p2p");
    g.base = shm::map(name, g.bytes, true, &err);
    if (g.base) g.name = name;
    else {
      CHORUS_LOG(INFO, P2P, "no shared-memory point-to-point rings: {}", err);
      name.clear();
    }
  }
  // Always publish (maybe empty), so the other local ranks never wait for the key.
  return launcher::put(kNameKey, name.data(), name.size());
}

void attach(const launcher::JobInfo& job) {
  if (g.n < 2) return;
  // Fragments need both ranks running at once: not when ranks outnumber the CPUs
  // they may use (known after the fence; unless CHORUS_P2P_SHM_COPY_MAX is set).
  const bool set = params::value(params::Id::P2pShmCopyMax).from_env;
  g.copy_max = p2p::cores_shared() && !set ? g.eager : std::max<std::size_t>(param::P2pShmCopyMax(), g.eager);
  if (!g.creator && param::P2pShm() == 0) {
    std::vector<std::byte> v;
    if (ok(launcher::get(job.local_peers.front(), kNameKey, v)) && !v.empty()) {
      std::string name(reinterpret_cast<const char*>(v.data()), v.size());
      std::string err;
      g.base = shm::map(name, g.bytes, false, &err);
      if (!g.base) CHORUS_LOG(INFO, P2P, "no shared-memory point-to-point rings: {}", err);
    }
  }
  if (!g.base) return;
  // Single copy needs this rank to read its peers' memory (same user, and no
  // ptrace restriction or seccomp filter in the way): try it on the next local rank.
  if (param::P2pShmCma() == 0) {
    const int me_local = static_cast<int>(std::find(job.local_peers.begin(), job.local_peers.end(), job.rank) -
                                          job.local_peers.begin());
    const int peer = job.local_peers[static_cast<std::size_t>((me_local + 1) % g.n)];
    std::vector<std::byte> v;
    std::uint64_t probe[2] = {0, 0}, got = 0;
    int err = 0;
    if (ok(launcher::get(peer, kCmaKey, v)) && v.size() == sizeof probe) {
      std::memcpy(probe, v.data(), sizeof probe);
      g.cma_here = read_peer(probe[0], probe[1], reinterpret_cast<std::byte*>(&got), sizeof got, &err) &&
                   got == kCmaMagic;
    }
    if (!g.cma_here)
      CHORUS_LOG(INFO, P2P, "no single-copy point-to-point: reading rank {}'s memory failed: {}", peer,
                 err ? std::strerror(err) : "no address published, or a wrong value read");
    else
      time_peer_read(probe[0], probe[1]);
  }
  g.local_of.assign(static_cast<std::size_t>(job.size), -1);
  for (int i = 0; i < g.n; ++i) g.local_of[static_cast<std::size_t>(job.local_peers[static_cast<std::size_t>(i)])] = i;
  const int me = g.local_of[static_cast<std::size_t>(job.rank)];
  const std::size_t stride = kLine + g.ring;
  auto ring_at = [&](int from, int to) {
    return g.base + (static_cast<std::size_t>(from) * static_cast<std::size_t>(g.n) + static_cast<std::size_t>(to)) * stride;
  };
  g.me = me;
  g.cpus = g.base + static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.n) * stride;
  g.out.resize(static_cast<std::size_t>(g.n));
  g.in.resize(static_cast<std::size_t>(g.n));
  g.partial.resize(static_cast<std::size_t>(g.n));
  for (int p = 0; p < g.n; ++p) {
    std::byte* o = ring_at(me, p);
    g.out[static_cast<std::size_t>(p)].w.attach(reinterpret_cast<ring::Ctl*>(o), o + kLine, g.ring);
    std::byte* i = ring_at(p, me);
    g.in[static_cast<std::size_t>(p)].attach(reinterpret_cast<ring::Ctl*>(i), i + kLine, g.ring);
  }
  // Allocate now the pages of the rings this rank writes and reads, and its CPU
  // line (shm::reserve: on this rank's NUMA node, and where /dev/shm has no room
  // left, an error now instead of a SIGBUS at some later message). Left to the
  // first lap, the faults also made a job's first few hundred small messages two
  // to three times slower. (Contents are untouched; an old kernel without
  // MADV_POPULATE_WRITE just skips it. Each rank commits 2 x local ranks rings:
  // 2 MiB at 64 local ranks, whose rings the 64 MiB budget makes 16 KiB.)
  auto reserve = [&](std::byte* b, std::size_t n) {
    if (g.unreserved) return;
    if (const int e = shm::reserve(b, n); e != 0 && e != EINVAL) {
      CHORUS_LOG(INFO, P2P, "no shared-memory point-to-point rings: allocating their pages in /dev/shm failed: {}",
                 std::strerror(e));
      g.unreserved = true;
    }
  };
  reserve(g.cpus + static_cast<std::size_t>(me) * kLine, kLine);
  for (int p = 0; p < g.n; ++p) {
    reserve(ring_at(me, p), stride);
    reserve(ring_at(p, me), stride);
  }
  if (!g.unreserved) {
    const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
    for (int p = 0; p < g.n; ++p) {
      // And bring this rank's own rings into its cache (no peer writes them yet:
      // the engine starts at commit()).
      std::memset(ring_at(me, p) + kLine, 0, g.ring);
      // Read a byte of every page of the rings it reads, from user space: on VMs
      // that shadow the guest's page tables (PVM here), the populate above leaves
      // the first user access of each page still to fault in the hypervisor
      // (6-8 us; a 64 KiB ring of 64-byte records met one every 64 messages per
      // direction for the first 1024, and a p99 of 7 us at 8 B over the first
      // thousand round trips, 0.5 us after).
      const auto in = reinterpret_cast<std::uintptr_t>(ring_at(p, me));
      for (std::uintptr_t a = in / page * page; a < in + stride; a += page)
        static_cast<void>(*reinterpret_cast<const volatile std::byte*>(std::max(a, in)));
    }
  }
}

int capabilities() {
  const bool mapped = g.n < 2 || (g.base != nullptr && !g.unreserved);
  return (mapped ? kCapMapped : 0) | (g.n < 2 || g.cma_here ? kCapCma : 0) |
         (g.n < 2 || g.cma_cheap ? kCapCmaCheap : 0);
}

void commit(int everyone) {
  g.cma_agreed = (everyone & kCapCma) && param::P2pShmCma() == 0;
  if (g.creator && !g.name.empty()) shm::unlink(g.name);
  if (!(everyone & kCapMapped) || !g.base) {
    unmap();
    return;
  }
  g.ctx.resize(tag::kMaxContexts);
  g.up = true;
  g.cma = (everyone & kCapCma) && param::P2pShmCma() == 0;
  // Unless set: from 16 KiB where every rank of the job read its peer's word in
  // under CHORUS_P2P_SHM_CMA_CHEAP_US (kCapCmaCheap). And what the ring does not
  // copy (above copy_max; when ranks outnumber their CPUs, all above the eager
  // size) is read single-copy from 16 KiB up, as before the default rose to
  // 256 KiB, rather than left to UCX's pipelined copy, which needs both ranks
  // running.
  g.cma_min = std::max<std::size_t>(param::P2pShmCmaMin(), g.eager + 1);
  g.cma_min_set = params::value(params::Id::P2pShmCmaMin).from_env;
  const bool cheap = g.cma && (everyone & kCapCmaCheap);
  g.cma_min_coll = g.cma_min;
  if (!g.cma_min_set) {
    if (cheap) {
      g.cma_min = std::max<std::size_t>(kCheapCmaMin, g.eager + 1);
      g.cma_min_coll = std::max<std::size_t>(kCheapCmaMinColl, g.eager + 1);
    }
    const std::size_t copied = std::max<std::size_t>(g.copy_max + 1, std::max<std::size_t>(16384, g.eager + 1));
    g.cma_min = std::min(g.cma_min, copied);
    g.cma_min_coll = std::min(g.cma_min_coll, copied);
  }
  if (g.cma && !g.cma_min_set)
    CHORUS_LOG(INFO, P2P, "reading a local peer's memory took {:.2f} us here (best of {}; "
               "CHORUS_P2P_SHM_CMA_CHEAP_US {}): {}", g.cma_read_us, kCmaTimedReads, param::P2pShmCmaCheapUs(),
               cheap ? fmt::format("single copy starts at {} B (a collective's messages: {} B), where it beats "
                                   "two copies through the ring", g.cma_min, g.cma_min_coll)
               : g.cma_cheap ? "cheap here, but not on every rank of the job: single copy keeps its default start"
               : "single copy keeps its default start (CHORUS_P2P_SHM_CMA_MIN)");
  g.cma_max = param::P2pShmCmaMax();
  g.cma_large = param::P2pShmCmaLarge();
  // Only where UCX itself copies through its FIFO (p2p.cc, shm_settings): with its
  // default rendezvous it would read with process_vm_readv too, after a handshake
  // more. That profile is also what says every rank has a core of its own.
  g.coll_pipe = p2p::ucx_profile().starts_with("copy") && !p2p::cores_shared() ? param::P2pShmCollPipe() : 0;
  if (g.coll_pipe && g.cma_large != 1)
    CHORUS_LOG(INFO, P2P, "collectives' messages of {} B and up go through UCX's pipelined copy while the node "
               "is not busy (CHORUS_P2P_SHM_COLL_PIPELINE)", g.coll_pipe);
  if (g.cma)
    CHORUS_LOG(INFO, P2P, "point-to-point messages of {} to {} B (a collective's: from {} B) are read "
               "single-copy from the sender's buffer; larger ones {}", g.cma_min, g.cma_max, g.cma_min_coll,
               g.cma_large == 1 ? "too" : g.cma_large == 2 ? "never" : "too while the node is busy");
  CHORUS_LOG(INFO, P2P, "point-to-point among the {} ranks of this node through shared-memory rings "
             "({} B per pair): messages up to {} B as one record, up to {} B in {} B fragments, larger "
             "ones announced there and carried by UCX", g.n, g.ring, g.eager, g.copy_max, g.frag);
}

bool up() { return g.up; }

bool cpu_shared_with_peer() {
  if (!g.up) return false;
  auto slot = [](int i) {
    return std::atomic_ref<int>(*reinterpret_cast<int*>(g.cpus + static_cast<std::size_t>(i) * kLine));
  };
  const int mine = sched_getcpu() + 1;  // 0: not known yet
  if (mine <= 0) return false;
  slot(g.me).store(mine, std::memory_order_relaxed);
  for (int i = 0; i < g.n; ++i) {
    if (i == g.me || slot(i).load(std::memory_order_relaxed) != mine) continue;
    static std::atomic<bool> said{false};
    if (!said.exchange(true))
      CHORUS_LOG(INFO, P2P, "local rank {} last ran on this rank's CPU {}: spinning waits give it the CPU "
                 "(sched_yield) while that lasts", i, mine - 1);
    return true;
  }
  return false;
}

void finalize() {
  if (!g.up) return;
  // Queued records reach their peers, which drain rings while they wait in the
  // final fence.
  unsigned empty = 0;
  while (g.queued) {
    if (poll() == 0) idle(empty);
  }
}

void release() {
  if (g.base) unmap();
  g_owned.fill(0);
  g = State{};
}

void set_context(unsigned ctx, bool on) {
  if (on && !g.up) return;
  std::uint64_t bit = 1ULL << (ctx % 64);
  if (on) g_owned[ctx / 64] |= bit;
  else g_owned[ctx / 64] &= ~bit;
}

void drop_context(unsigned ctx) {
  if (!g.up || ctx >= g.ctx.size() || !g.ctx[ctx]) return;
  counters::sub(counters::Id::RingUnexpected, g.ctx[ctx]->unexpected.size());
  for (auto& m : g.ctx[ctx]->unexpected) {
    if (m->whole()) continue;
    m->dropped = true;
    g.dropped.push_back(std::move(m));
  }
  g.ctx[ctx].reset();
}

bool is_local(int world_rank) {
  return g.up && world_rank >= 0 && static_cast<std::size_t>(world_rank) < g.local_of.size() &&
         g.local_of[static_cast<std::size_t>(world_rank)] >= 0;
}

unsigned poll() {
  if (!g.up) return 0;
  unsigned n = 0;
  for (int p = 0; p < g.n; ++p) n += drain(p);
  if (g.queued) n += flush();
  return n;
}

// ---- operations ----------------------------------------------------------------------

// Whether this node has more runnable tasks than CPUs (the fourth field of
// /proc/loadavg, "runnable/total", counts every CPU's run queue), looked at no more
// than every 5 ms. A pipelined copy needs both ranks on a core at once and stalls
// for a scheduler slice whenever one of them waits for one; a single copy does not.
namespace {
const long g_cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
}

bool node_busy() {
  const auto now = std::chrono::steady_clock::now();
  if (now - g.busy_seen < std::chrono::milliseconds(5)) return g.busy;
  g.busy_seen = now;
  const long cpus = g_cpus;
  char text[128] = {};
  const int fd = ::open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return g.busy = false;
  const ssize_t got = ::read(fd, text, sizeof text - 1);
  ::close(fd);
  long runnable = 0, total = 0;
  double l1 = 0, l5 = 0, l15 = 0;
  g.busy = got > 0 && std::sscanf(text, "%lf %lf %lf %ld/%ld", &l1, &l5, &l15, &runnable, &total) == 5 &&
           runnable > cpus;
  g.runnable = g.busy ? runnable : 0;
  if (g.busy && !g.busy_logged) {
    g.busy_logged = true;
    CHORUS_LOG(INFO, P2P, "node busy ({} runnable tasks, {} CPUs): messages above {} B are read single-copy "
               "while it lasts (CHORUS_P2P_SHM_CMA_LARGE)", runnable, cpus, g.cma_max);
  }
  return g.busy;
}

// More tasks runnable than this node's ranks and its CPUs (node_busy()'s look at
// /proc/loadavg): a process that is not a rank of this job wants a CPU. A rank
// that waits yielding (more ranks than CPUs) would hand it the CPU for the rest of
// a slice at every wait, where a rank of this job would take it only until its
// own wait (p2p.cc, idle()).
bool foreign_load() {
  if (!g.up || !node_busy() || g.runnable <= std::max<long>(g.n, g_cpus)) return false;
  static std::atomic<bool> said{false};
  if (!said.exchange(true))
    CHORUS_LOG(INFO, P2P, "{} runnable tasks on {} CPUs for {} ranks of this job on the node: another process "
               "wants a CPU, so waits spin (yielding only to this job's ranks) while that lasts", g.runnable,
               g_cpus, g.n);
  return true;
}

// A message of a collective: an odd context (tag.h). Partitioned communication
// (lib/mpi/p2p.cc) sends on that context too, with the top bit of the source set:
// user point-to-point, not a collective.
bool of_collective(std::uint64_t t) {
  constexpr int kPartitioned = 1 << (tag::kSourceBits - 1);
  return (tag::context_of(t) & 1u) && !(tag::source_of(t) & kPartitioned);
}

std::pair<std::size_t, std::size_t> coll_single_copy() {
  // Only what the job agreed (commit()) and the parameters: every rank must price
  // alike. So CHORUS_P2P_SHM_COLL_PIPELINE (off by default), whose use depends on
  // this node's cores, and the busy-node exceptions above cma_max are left out.
  if (!g.up || !g.cma || g.cma_min_coll > g.cma_max) return {0, 0};
  return {g.cma_min_coll, g.cma_max};
}

// A message of a collective that CHORUS_P2P_SHM_COLL_PIPELINE (off by default)
// sends through UCX's pipelined copy rather than a single copy or ring fragments:
// large, on a node with a CPU for each rank and no more runnable tasks than CPUs.
// A collective keeps both ranks of a transfer busy, so the sender's half of a
// pipelined copy costs it nothing it would not wait for anyway, while a single copy
// pins the sender's pages one by one (2026-12-04, 2-rank allreduce of 2 MiB on 2
// cores: 410-480 us single-copy, 258-268 us pipelined). Since then the collectives
// send from the user's buffers where nothing waits for the read, and both ranks of
// an exchange copy every byte twice through the pipeline against once single-copy:
// on 2026-12-05 and 2026-12-07 single copy was ahead at every size from 256 KiB in
// allgather, alltoall, allreduce and reduce_scatter, so the default is off. On a
// busy node the pipelined copy's many hand-offs
// between the two ranks each wait for a descheduled peer (beside two busy
// processes, 16 MiB allreduce p99 110-123 ms pipelined, 20-21 ms single-copy), so
// there, and where ranks outnumber their CPUs, the single copy stays.
// CHORUS_P2P_SHM_CMA_LARGE decides as for large point-to-point messages: busy (by
// node_busy()), always single copy, or never.
bool pipelined(const void* buf, std::size_t bytes, std::uint64_t t) {
  if (!g.coll_pipe || bytes < g.coll_pipe || !of_collective(t) || gpu::on_device(buf)) return false;
  return g.cma_large == 2 || (g.cma_large == 0 && !node_busy());
}

bool single_copy(const void* buf, std::size_t bytes, std::uint64_t t, bool readable) {
  // A collective's `readable` message is one whose read nothing waits for before
  // the call ends (coll::Schedule::mark_settled): it starts where point-to-point does.
  const std::size_t start = of_collective(t) ? (readable ? g.cma_min : g.cma_min_coll)
                            : readable && !g.cma_min_set ? g.eager + 1 : g.cma_min;
  if (!g.cma || bytes < start || gpu::on_device(buf)) return false;
  if (bytes <= g.cma_max) return true;
  // Above cma_max UCX's pipelined copy moves one stream faster (sender and receiver
  // copy at once), but it takes both ranks' CPUs: not while the node is busy, nor
  // while this rank waits for large messages itself (an exchange, both ways at
  // once: each rank's CPU then copies what it receives, and single copy halves the
  // work; 2 ranks, 2-16 MiB: 16-18 GB/s both ways single-copy against 9.5-11).
  return g.cma_large == 1 || (g.cma_large == 0 && (g.large_posted || node_busy()));
}

Status isend(Request* r, const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync,
             bool readable) {
  r->kind = Request::Kind::Send;
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->bytes = bytes;
  r->ucx = nullptr;
  const int to = g.local_of[static_cast<std::size_t>(world_dest)];
  if (bytes <= g.eager && !gpu::on_device(buf)) {
    counters::message(counters::Id::RingEagerMessages, bytes);
    // One record: into the ring now (a standard send is then done), or queued by
    // reference until there is room (and done once written). The first case
    // without building a queue entry: a message-rate run spends most of its sends
    // there.
    const Header h{0, t, sync ? reinterpret_cast<std::uint64_t>(r) : 0, bytes, sync ? kEagerSync : kEager};
    Out& o = g.out[static_cast<std::size_t>(to)];
    if (o.queue.empty() && o.w.try_write(h, buf)) {
      if (!sync) r->complete = true;  // still inside the send call: no release
      return Status::Ok;
    }
    write_ref(to, Queued{h, {}, static_cast<const std::byte*>(buf), sync ? nullptr : r, 0});
    return Status::Ok;
  }
  const bool pipe = pipelined(buf, bytes, t);
  if (!pipe && single_copy(buf, bytes, t, readable)) {
    counters::message(counters::Id::RingCmaMessages, bytes);
    // Announced with where its bytes are; the receiver reads them once it matches
    // and acknowledges, which completes this send (standard and synchronous alike).
    const CmaDesc d{reinterpret_cast<std::uint64_t>(buf), bytes, static_cast<std::uint64_t>(getpid())};
    write(to, Header{0, t, reinterpret_cast<std::uint64_t>(r), sizeof d, kCma}, &d);
    return Status::Ok;
  }
  if (!pipe && bytes <= g.copy_max && !gpu::on_device(buf)) {
    counters::message(counters::Id::RingCopyMessages, bytes);
    // Through the ring in fragments of `frag` bytes, straight from the user's
    // buffer; whatever does not fit yet is queued by reference, and a standard
    // send completes once its last fragment is written (a synchronous one when
    // the receiver, having it all, acknowledges).
    const auto* b = static_cast<const std::byte*>(buf);
    const std::size_t first = std::min(bytes, g.frag - 8);
    Queued q{Header{0, t, sync ? reinterpret_cast<std::uint64_t>(r) : 0, 8 + first, sync ? kFirstSync : kFirst},
             {}, b, nullptr, bytes};
    for (std::size_t off = first;; ) {
      const bool last = off >= bytes;
      if (last && !sync) q.done = r;
      write_ref(to, std::move(q));
      if (last) break;
      const std::size_t n = std::min(g.frag, bytes - off);
      q = Queued{Header{0, t, 0, n, kFrag}, {}, b + off, nullptr, 0};
      off += n;
    }
    return Status::Ok;
  }
  // Large or device data: UCX carries it under a tag of this context that no user
  // receive can post (user traffic on it goes through the rings), naming the
  // sender by its rank in the communicator and the announcement by a count.
  const std::uint64_t data_tag =
      tag::make(static_cast<int>(g.data_seq++ & tag::kTagUB), tag::source_of(t), tag::context_of(t));
  CHORUS_TRY(detail::ucx_isend(r, buf, bytes, world_dest, data_tag, sync));
  // A send UCX refused at once completes with its error: announcing it would leave
  // the receiver waiting for bytes that never come.
  if (r->complete && r->error != MPI_SUCCESS) return Status::Ok;
  counters::message(counters::Id::UcxLocalMessages, bytes);
  write(to, Header{0, t, data_tag, bytes, kRts}, nullptr);
  return Status::Ok;
}

bool send_now(const void* buf, std::size_t bytes, int world_dest, std::uint64_t t) {
  if (bytes > g.eager || gpu::on_device(buf)) return false;
  Out& o = g.out[static_cast<std::size_t>(g.local_of[static_cast<std::size_t>(world_dest)])];
  if (!o.queue.empty() || !o.w.try_write(Header{0, t, 0, bytes, kEager}, buf)) return false;
  counters::message(counters::Id::RingEagerMessages, bytes);
  return true;
}

Status send(const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync) {
  if (!sync && bytes <= g.eager && !gpu::on_device(buf)) {
    counters::message(counters::Id::RingEagerMessages, bytes);
    write(g.local_of[static_cast<std::size_t>(world_dest)],
          Header{0, t, 0, bytes, kEager}, buf);
    return Status::Ok;
  }
  Request r;
  CHORUS_TRY(isend(&r, buf, bytes, world_dest, t, sync));
  wait_polling([&] { return r.complete; }, poll);
  return r.error == MPI_SUCCESS ? Status::Ok : Status::Other;
}

Status irecv(Request* r, void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask) {
  start_recv(r, buf, bytes);
  r->want_tag = t;
  r->want_mask = mask;
  Ctx& c = ctx_of(t);
  for (auto it = c.unexpected.begin(); it != c.unexpected.end(); ++it) {
    if (matches((*it)->tag, t, mask)) {
      std::unique_ptr<Msg> m = std::move(*it);
      erase_at(c.unexpected, it);
      counters::sub(counters::Id::RingUnexpected);
      take_msg(r, std::move(m));
      return Status::Ok;
    }
  }
  c.posted.push(r);
  if (bytes > g.cma_max) ++g.large_posted;
  return Status::Ok;
}

Status recv(void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask, RecvInfo& out) {
  Request r;
  poll();
  CHORUS_TRY(irecv(&r, buf, bytes, t, mask));
  wait_polling([&] { return r.complete; }, poll);
  out = detail::info_of(r);
  return Status::Ok;
}

bool probe(std::uint64_t t, std::uint64_t mask, bool remove, RecvInfo& out, void** msg) {
  poll();
  Ctx& c = ctx_of(t);
  for (auto it = c.unexpected.begin(); it != c.unexpected.end(); ++it) {
    if (!matches((*it)->tag, t, mask)) continue;
    out.sender_tag = (*it)->tag;
    out.length = (*it)->len;
    out.status = Status::Ok;
    if (remove) {
      if (msg) *msg = it->release();
      erase_at(c.unexpected, it);
      counters::sub(counters::Id::RingUnexpected);
    }
    return true;
  }
  return false;
}

Status imrecv(Request* r, void* buf, std::size_t bytes, void* msg) {
  std::unique_ptr<Msg> m(static_cast<Msg*>(msg));
  start_recv(r, buf, bytes);
  r->want_tag = m->tag;
  r->want_mask = ~0ULL;
  take_msg(r, std::move(m));
  return Status::Ok;
}

bool cancel(Request* r) {
  if (!g.up || r->no_cancel || r->complete) return false;
  if (!take_posted(ctx_of(r->want_tag), r)) return false;
  r->cancelled = true;
  r->bytes = 0;
  r->error = MPI_SUCCESS;
  detail::complete(r);
  return true;
}

}  // namespace chorus::p2p::local
