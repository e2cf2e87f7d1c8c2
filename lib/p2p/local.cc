#include "p2p/local.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

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

using namespace ring;  // the record format

// A message read from a ring before its receive was posted.
struct Msg {
  std::uint64_t tag = 0, token = 0;
  std::uint64_t len = 0;
  std::uint8_t kind = 0;
  int from = 0;  // the sender's local index (for the acknowledgement)
  std::vector<std::byte> data;
};

struct Queued {
  Header h;
  std::vector<std::byte> data;
};

struct Out {  // this rank -> a peer
  ring::Writer w;
  std::deque<Queued> queue;  // records that did not fit yet, in order
};

// Matching state of one context: posted receives and unexpected messages, each
// in order.
struct Ctx {
  std::deque<Request*> posted;
  std::deque<std::unique_ptr<Msg>> unexpected;
};

struct State {
  bool up = false;
  bool creator = false;
  std::string name;
  std::byte* base = nullptr;
  std::size_t bytes = 0;
  std::size_t ring = 0;   // bytes per ring
  std::size_t eager = 0;  // largest inline message
  int me = -1, n = 0;     // this rank's local index, local ranks
  std::vector<int> local_of;  // world rank -> local index, or -1
  std::vector<Out> out;
  std::vector<ring::Reader> in;
  std::vector<std::unique_ptr<Ctx>> ctx;
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

// Write a record to local rank `to`, or queue it (in order) when its ring is full.
void write(int to, const Header& h, const void* data) {
  Out& o = g.out[static_cast<std::size_t>(to)];
  if (o.queue.empty() && o.w.try_write(h, data)) return;
  Queued q{h, {}};
  if (has_payload(h.kind) && h.len) {
    const auto* b = static_cast<const std::byte*>(data);
    q.data.assign(b, b + h.len);
  }
  o.queue.push_back(std::move(q));
  ++g.queued;
}

unsigned flush() {
  unsigned n = 0;
  for (Out& o : g.out) {
    while (!o.queue.empty() && o.w.try_write(o.queue.front().h, o.queue.front().data.data())) {
      o.queue.pop_front();
      --g.queued;
      ++n;
    }
  }
  return n;
}

// ---- matching ---------------------------------------------------------------------

// A receive meets its message: copy (or start the UCX data receive), acknowledge
// a synchronous one, complete.
void deliver(Request* r, int from, std::uint64_t t, std::uint64_t token, std::uint64_t len,
             std::uint8_t kind, const std::byte* payload) {
  r->sender_tag = t;
  r->source = tag::source_of(t);
  r->tag = tag::tag_of(t);
  if (kind == kRts) {
    r->no_cancel = true;
    if (!ok(detail::ucx_irecv_data(r, r->recv_buf, r->buf_bytes, token))) {
      r->error = MPI_ERR_OTHER;
      detail::complete(r);
    }
    return;
  }
  const bool trunc = len > r->buf_bytes;
  const std::size_t n = trunc ? r->buf_bytes : len;
  r->error = MPI_SUCCESS;
  if (n) {
    if (gpu::on_device(r->recv_buf)) {
      if (!ok(gpu::copy(r->recv_buf, payload, n))) r->error = MPI_ERR_OTHER;
    } else {
      std::memcpy(r->recv_buf, payload, n);
    }
  }
  r->bytes = n;
  if (trunc) r->error = MPI_ERR_TRUNCATE;
  if (kind == kEagerSync) write(from, Header{0, 0, token, 0, kAck}, nullptr);
  detail::complete(r);
}

void take(int from, const Header& h, const std::byte* payload) {
  if (h.kind == kAck) {
    detail::complete(reinterpret_cast<Request*>(h.token));
    return;
  }
  Ctx& c = ctx_of(h.tag);
  for (auto it = c.posted.begin(); it != c.posted.end(); ++it) {
    Request* r = *it;
    if (matches(h.tag, r->want_tag, r->want_mask)) {
      if (it == c.posted.begin()) c.posted.pop_front();
      else c.posted.erase(it);
      deliver(r, from, h.tag, h.token, h.len, h.kind, payload);
      return;
    }
  }
  auto m = std::make_unique<Msg>();
  m->tag = h.tag;
  m->token = h.token;
  m->len = h.len;
  m->kind = h.kind;
  m->from = from;
  if (has_payload(h.kind)) m->data.assign(payload, payload + h.len);
  c.unexpected.push_back(std::move(m));
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
  auto it = std::find(c.posted.begin(), c.posted.end(), r);
  if (it == c.posted.end()) return nullptr;
  c.posted.erase(it);
  return r;
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

// ---- set-up ------------------------------------------------------------------------

Status publish(const launcher::JobInfo& job) {
  g = State{};
  if (job.singleton || job.local_size < 2 || job.local_peers.size() != static_cast<std::size_t>(job.local_size))
    return Status::Ok;
  g.n = job.local_size;
  g.ring = std::max<std::size_t>(param::P2pShmRing() / kLine * kLine, 4 * kLine);
  g.eager = std::min<std::size_t>(param::P2pShmEager(), g.ring / 4);
  g.bytes = static_cast<std::size_t>(g.n) * static_cast<std::size_t>(g.n) * (kLine + g.ring);
  g.creator = job.rank == job.local_peers.front();
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
  g.local_of.assign(static_cast<std::size_t>(job.size), -1);
  for (int i = 0; i < g.n; ++i) g.local_of[static_cast<std::size_t>(job.local_peers[static_cast<std::size_t>(i)])] = i;
  g.me = g.local_of[static_cast<std::size_t>(job.rank)];
  const std::size_t stride = kLine + g.ring;
  auto ring_at = [&](int from, int to) {
    return g.base + (static_cast<std::size_t>(from) * static_cast<std::size_t>(g.n) + static_cast<std::size_t>(to)) * stride;
  };
  g.out.resize(static_cast<std::size_t>(g.n));
  g.in.resize(static_cast<std::size_t>(g.n));
  for (int p = 0; p < g.n; ++p) {
    std::byte* o = ring_at(g.me, p);
    g.out[static_cast<std::size_t>(p)].w.attach(reinterpret_cast<ring::Ctl*>(o), o + kLine, g.ring);
    std::byte* i = ring_at(p, g.me);
    g.in[static_cast<std::size_t>(p)].attach(reinterpret_cast<ring::Ctl*>(i), i + kLine, g.ring);
  }
}

bool mapped() { return g.n < 2 || g.base != nullptr; }

void commit(bool everyone) {
  if (g.creator && !g.name.empty()) shm::unlink(g.name);
  if (!everyone || !g.base) {
    unmap();
    return;
  }
  g.ctx.resize(tag::kMaxContexts);
  g.up = true;
  CHORUS_LOG(INFO, P2P, "point-to-point among the {} ranks of this node through shared-memory rings "
             "({} B per pair, messages up to {} B inline, larger ones announced there and carried by UCX)",
             g.n, g.ring, g.eager);
}

bool up() { return g.up; }

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

Status isend(Request* r, const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync) {
  r->kind = Request::Kind::Send;
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->bytes = bytes;
  r->ucx = nullptr;
  const int to = g.local_of[static_cast<std::size_t>(world_dest)];
  if (bytes <= g.eager && !gpu::on_device(buf)) {
    write(to, Header{0, t, sync ? reinterpret_cast<std::uint64_t>(r) : 0, bytes,
                     sync ? kEagerSync : kEager}, buf);
    // The bytes are in the ring (or queued): a standard send is done.
    if (!sync) r->complete = true;
    return Status::Ok;
  }
  // Large or device data: UCX carries it under a tag of this context that no user
  // receive can post (user traffic on it goes through the rings), naming the
  // sender by its rank in the communicator and the announcement by a count.
  const std::uint64_t data_tag =
      tag::make(static_cast<int>(g.data_seq++ & tag::kTagUB), tag::source_of(t), tag::context_of(t));
  CHORUS_TRY(detail::ucx_isend(r, buf, bytes, world_dest, data_tag, sync));
  write(to, Header{0, t, data_tag, bytes, kRts}, nullptr);
  return Status::Ok;
}

Status send(const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync) {
  if (!sync && bytes <= g.eager && !gpu::on_device(buf)) {
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
      c.unexpected.erase(it);
      deliver(r, m->from, m->tag, m->token, m->len, m->kind, m->data.data());
      return Status::Ok;
    }
  }
  c.posted.push_back(r);
  return Status::Ok;
}

Status recv(void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask, RecvInfo& out) {
  Request r;
  poll();
  CHORUS_TRY(irecv(&r, buf, bytes, t, mask));
  wait_polling([&] { return r.complete; }, poll);
  out.sender_tag = r.sender_tag;
  out.length = r.bytes;
  out.status = r.error == MPI_SUCCESS       ? Status::Ok
               : r.error == MPI_ERR_TRUNCATE ? Status::Truncate
                                             : Status::Other;
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
      c.unexpected.erase(it);
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
  deliver(r, m->from, m->tag, m->token, m->len, m->kind, m->data.data());
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
