#include "coll/executor.h"

#include <cstring>

#include "core/log.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::coll {
namespace {

struct Running {
  std::unique_ptr<Job> job;
  Request* req = nullptr;
  std::uint32_t seq = 0;
  std::size_t round = 0;
  std::vector<Request*> pending;        // p2p requests of the current round
  std::vector<std::byte> tmp[kMaxBufs - kTmp0];
  std::vector<std::byte> scratch;       // ReduceRight staging
  bool active = false;
  Running* next = nullptr;              // in the active list
};

Running* g_active = nullptr;

std::byte* resolve(Running& r, const BufRef& ref) {
  switch (ref.buf) {
    case kSend: return r.job->send + ref.off;
    case kRecv: return r.job->recv + ref.off;
    default: return r.tmp[ref.buf - kTmp0].data() + ref.off;
  }
}

void fail(Running& r, int mpi_error) {
  if (r.req->error == MPI_SUCCESS) r.req->error = mpi_error;
}

// Post every Send/Recv of the current round.
void post_round(Running& r) {
  const Round& round = r.job->sched.rounds[r.round];
  const Comm& c = *r.job->comm;
  int seq_tag = static_cast<int>(r.seq & static_cast<std::uint32_t>(tag::kTagUB));
  for (const Step& s : round.steps) {
    if (s.kind != Step::Kind::Send && s.kind != Step::Kind::Recv) continue;
    Request* p = requests().get();
    p->comm = r.req->comm;
    Status st;
    if (s.kind == Step::Kind::Send) {
      st = p2p::isend(p, resolve(r, s.a), s.bytes, c.world_rank(s.peer),
                      tag::make(seq_tag, c.rank, c.ctx_coll), false);
    } else {
      st = p2p::irecv(p, resolve(r, s.b), s.bytes, tag::make(seq_tag, s.peer, c.ctx_coll),
                      tag::mask(false, false));
    }
    if (st != Status::Ok) {
      fail(r, to_mpi_class(st));
      requests().put(p);
      continue;
    }
    r.pending.push_back(p);
  }
}

void run_local_steps(Running& r) {
  const Round& round = r.job->sched.rounds[r.round];
  for (const Step& s : round.steps) {
    switch (s.kind) {
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
  const auto& rounds = r.job->sched.rounds;
  while (r.round < rounds.size()) {
    if (r.pending.empty() && !r.active) {
      post_round(r);
      r.active = true;
    }
    for (Request* p : r.pending)
      if (!p->complete) return false;
    for (Request* p : r.pending) {
      if (p->error != MPI_SUCCESS) fail(r, p->error);
      requests().put(p);
    }
    r.pending.clear();
    run_local_steps(r);
    r.active = false;
    ++r.round;
  }
  return true;
}

void finish(Running& r) {
  if (r.job->on_done) r.job->on_done();
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

void free_running(void* p) {
  auto* r = static_cast<Running*>(p);
  unlink(r);
  for (Request* q : r->pending) {
    // A request freed while its collective still runs: let the p2p operations
    // finish on their own (the user freed the request; MPI forbids touching the
    // buffers until then anyway).
    q->user_freed = true;
  }
  delete r;
}

Status launch(Running& r) {
  for (int t = 0; t < kMaxBufs - kTmp0; ++t) r.tmp[t].resize(r.job->sched.tmp_bytes[t]);
  r.round = 0;
  r.active = false;
  r.req->complete = false;
  r.req->active = true;
  r.req->error = MPI_SUCCESS;
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

Status start(std::unique_ptr<Job> job, std::uint32_t seq, Request* req, bool deferred) {
  auto* r = new Running;
  r->job = std::move(job);
  r->req = req;
  r->seq = seq;
  req->kind = Request::Kind::Coll;
  req->ext = r;
  req->ext_free = free_running;
  if (deferred) return Status::Ok;
  return launch(*r);
}

Status restart(Request* req, std::uint32_t seq) {
  auto* r = static_cast<Running*>(req->ext);
  r->seq = seq;
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

void executor_init() { p2p::set_progress_hook(hook); }

}  // namespace chorus::coll
