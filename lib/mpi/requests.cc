// Completion calls (Wait/Test families), persistent starts, cancel, statuses.
#include <algorithm>
#include <vector>

#include "core/hang.h"
#include "core/handle.h"
#include "mpi/api.h"

namespace chorus::mpi {

int request_start(const char* call, Request* r);  // mpi/p2p.cc
Status stage_unpack(Request* r);                 // mpi/datatype.cc
void part_finish(Request* r);                    // mpi/p2p.cc

namespace {

// MPI_Status.count_lo / count_hi_and_cancelled hold the received byte count
// (63 bits) and the cancelled flag (bit 0 of the high word).
void release_finished(Request* r) {
  if (r->bsend_block) bsend_release(r);
  // A receive the user freed while active still delivers into the user's buffer.
  if (r->user_freed && r->kind == Request::Kind::Recv) (void)stage_unpack(r);  // nobody to tell
  requests().put(r);
}

// Generalized requests (MPI_Grequest_start): the user's functions ride on the
// request's extension; free_fn runs when the slot is released.
struct Greq {
  MPI_Grequest_query_function* query = nullptr;
  MPI_Grequest_free_function* free = nullptr;
  MPI_Grequest_cancel_function* cancel = nullptr;
  void* extra = nullptr;
};
void greq_free(void* p) {
  auto* g = static_cast<Greq*>(p);
  if (g->free) g->free(g->extra);
  delete g;
}
Greq* greq_of(Request* r) { return r->ext_free == greq_free ? static_cast<Greq*>(r->ext) : nullptr; }

// The status of a completed generalized request is its query function's to fill
// (called even when the caller ignores the status); returns what it returned.
int greq_query(Greq* g, MPI_Status* st) {
  MPI_Status q;
  set_empty_status(&q);
  q.MPI_SOURCE = MPI_UNDEFINED;
  q.MPI_TAG = MPI_UNDEFINED;
  const int rc = g->query ? g->query(g->extra, &q) : MPI_SUCCESS;
  if (st != MPI_STATUS_IGNORE) *st = q;
  return rc != MPI_SUCCESS ? rc : q.MPI_ERROR;
}

// A request that takes part in completion calls: active, or never started.
bool inactive(const Request* r) { return r->persistent && !r->active; }

// What a wait on `rs` shows the hang doctor: the first request still running.
hang::Site wait_site(const char* call, const Request* const* rs, std::size_t n) {
  hang::Site s{.call = call};
  for (std::size_t i = 0; i < n; ++i) {
    const Request* r = rs[i];
    if (!r || inactive(r) || r->complete) continue;
    ++s.pending;
    if (s.comm || !r->comm) continue;
    s.comm = r->comm;
    if (r->kind == Request::Kind::Coll) {
      s.call = n == 1 ? "MPI_Wait (a non-blocking collective)" : call;
    } else if (r->peer >= 0 && r->peer < r->comm->peers()) {
      s.peer = r->comm->peer_world(r->peer);
      s.tag = r->user_tag;
    } else if (r->peer == MPI_ANY_SOURCE) {
      s.peer = -1;
      s.tag = r->user_tag;
    }
  }
  return s;
}

int lookup(const char* call, MPI_Request h, Request** out) {
  Request* r = requests().lookup(h);
  if (!r || r->kind == Request::Kind::Message)
    return fail(nullptr, MPI_ERR_REQUEST, "{}: invalid request handle 0x{:x}", call,
                static_cast<unsigned>(h));
  *out = r;
  return MPI_SUCCESS;
}

// Resolve an array of handles; null handles map to nullptr.
int lookup_all(const char* call, int count, const MPI_Request* reqs, std::vector<Request*>& out) {
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  if (count > 0 && !reqs) return fail(nullptr, MPI_ERR_REQUEST, "{}: array_of_requests is NULL", call);
  out.assign(static_cast<std::size_t>(count), nullptr);
  // An active request listed twice would be completed and released twice (its
  // pool slot then handed out twice): refused, as one stamp per call shows it.
  static std::uint64_t stamp = 0;
  ++stamp;
  for (int i = 0; i < count; ++i) {
    if (reqs[i] == MPI_REQUEST_NULL) continue;
    Request* r = requests().lookup(reqs[i]);
    if (!r || r->kind == Request::Kind::Message)
      return fail(nullptr, MPI_ERR_REQUEST, "{}: array_of_requests[{}] is an invalid handle 0x{:x}",
                  call, i, static_cast<unsigned>(reqs[i]));
    if (!inactive(r)) {
      if (r->seen == stamp) {
        const int first = static_cast<int>(std::find(reqs, reqs + i, reqs[i]) - reqs);
        return fail(r->comm, MPI_ERR_REQUEST, "{}: array_of_requests[{}] is request 0x{:x} again (also at [{}])",
                    call, i, static_cast<unsigned>(reqs[i]), first);
      }
      r->seen = stamp;
    }
    out[static_cast<std::size_t>(i)] = r;
  }
  return MPI_SUCCESS;
}

int error_for(const char* call, Request* r, int err) {
  if (error_has_message(err)) return raise(r ? r->comm : nullptr, err);
  if (err == MPI_ERR_TRUNCATE)
    return fail(r ? r->comm : nullptr, err,
                "{}: message from rank {} with tag {} is longer than the receive buffer of {} bytes",
                call, r ? r->source : -1, r ? r->tag : -1, r ? r->buf_bytes : 0);
  return fail(r ? r->comm : nullptr, err, "{}: operation failed", call);
}

MPI_Status* status_at(MPI_Status* statuses, int i) {
  return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

}  // namespace

void set_status(MPI_Status* st, int source, int tag, std::size_t bytes, bool cancelled) {
  if (st == MPI_STATUS_IGNORE) return;
  st->MPI_SOURCE = source;
  st->MPI_TAG = tag;
  auto b = static_cast<std::uint64_t>(bytes);
  st->count_lo = static_cast<int>(b & 0xffffffffu);
  st->count_hi_and_cancelled = static_cast<int>(((b >> 32) << 1) | (cancelled ? 1u : 0u));
}

// MPI's empty status: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, error MPI_SUCCESS,
// count 0, not cancelled (the error field too, as MPICH sets it).
void set_empty_status(MPI_Status* st) {
  set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, false);
  if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = MPI_SUCCESS;
}

std::string partial_element_text(const char* call, int source, int tag, std::size_t bytes, std::size_t unit) {
  if (unit <= 1 || bytes % unit == 0) return {};
  return fmt::format("{}: the message from rank {} with tag {} has {} bytes, which ends inside a basic element "
                     "of the receive datatype (its elements come in multiples of {} bytes): the send and "
                     "receive datatypes do not match",
                     call, source, tag, bytes, unit);
}

std::size_t status_bytes(const MPI_Status* st) {
  auto lo = static_cast<std::uint64_t>(static_cast<std::uint32_t>(st->count_lo));
  auto hi = static_cast<std::uint64_t>(static_cast<std::uint32_t>(st->count_hi_and_cancelled)) >> 1;
  return static_cast<std::size_t>(lo | (hi << 32));
}

void requests_init() { p2p::set_release_hook(release_finished); }

int request_complete(Request* r, MPI_Request* handle, MPI_Status* st) {
  // A generalized request, a staged datatype and a partitioned receive each ride
  // on the extension; a plain receive or send has none and skips their lookups.
  if (Greq* g = r->ext ? greq_of(r) : nullptr) {
    r->error = greq_query(g, st);
  } else if (r->kind == Request::Kind::Recv) {
    if (r->ext) {
      // Non-contiguous datatype: packed staging -> user buffer.
      if (!ok(stage_unpack(r)) && r->error == MPI_SUCCESS) r->error = MPI_ERR_OTHER;
      part_finish(r);
    }
    if (r->recv_unit > 1 && r->error == MPI_SUCCESS && !r->cancelled) {
      std::string bad = partial_element_text("receive request", r->source, r->tag, r->bytes, r->recv_unit);
      if (!bad.empty()) r->error = make_error(MPI_ERR_TYPE, std::move(bad));
    }
    set_status(st, r->source, r->tag, r->bytes, r->cancelled);
  } else {
    set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
  }
  int err = r->error;
  if (r->persistent) {
    r->active = false;
    r->complete = false;
    r->cancelled = false;
    r->error = MPI_SUCCESS;
  } else {
    release_finished(r);
    *handle = MPI_REQUEST_NULL;
  }
  return err;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
  CHORUS_TRY_MPI(check_running("MPI_Wait"));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Wait: request is NULL");
  if (*request == MPI_REQUEST_NULL) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Wait", *request, &r));
  if (inactive(r)) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  hang::Site site = wait_site("MPI_Wait", &r, 1);
  hang::Scope waiting(site);
  p2p::wait_until([&] { return r->complete; });
  Request copy = *r;
  int err = request_complete(r, request, status);
  return err == MPI_SUCCESS ? err : error_for("MPI_Wait", &copy, err);
}
CHORUS_ALIAS(MPI_Wait)

int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  CHORUS_TRY_MPI(check_running("MPI_Test"));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!request || !flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Test: {} is NULL", flag ? "request" : "flag");
  if (*request == MPI_REQUEST_NULL) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Test", *request, &r));
  if (inactive(r)) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->complete) p2p::progress();
  *flag = r->complete;
  if (!r->complete) return MPI_SUCCESS;
  Request copy = *r;
  int err = request_complete(r, request, status);
  return err == MPI_SUCCESS ? err : error_for("MPI_Test", &copy, err);
}
CHORUS_ALIAS(MPI_Test)

// The first failure of a multiple-completion call, whose communicator's error
// handler reports it once every request is done. request_complete releases the
// failed request, so the communicator is held by a pool slot of its own: a live
// request naming it keeps a communicator the user already freed from being reaped
// (comm.cc, reap_retired) by a callback later in the same call (a generalized
// request's free function that frees another communicator).
class FirstError {
 public:
  void note(int err, Comm* c) {
    if (err == MPI_SUCCESS || err_ != MPI_SUCCESS) return;
    err_ = err;
    hold_ = requests().get();
    hold_->comm = c;
  }
  int err() const { return err_; }
  // The communicator to report on; the hold is released.
  Comm* take() {
    Comm* c = hold_->comm;
    requests().put(hold_);
    hold_ = nullptr;
    return c;
  }

 private:
  int err_ = MPI_SUCCESS;
  Request* hold_ = nullptr;
};

// Waitall and Testall share this: complete every request (they all are) and
// report errors per status.
static int complete_all(const char* call, int count, MPI_Request reqs[], std::vector<Request*>& rs,
                        MPI_Status* statuses) {
  // The multiple-completion calls fill MPI_ERROR of every status (MPI asks it only
  // with MPI_ERR_IN_STATUS; MPICH always does, and programs read it). The single
  // ones leave it alone, as MPI says.
  FirstError first;
  for (int i = 0; i < count; ++i) {
    Request* r = rs[static_cast<std::size_t>(i)];
    MPI_Status* st = status_at(statuses, i);
    if (!r || inactive(r)) {
      set_empty_status(st);
      continue;
    }
    if (requests().is_done_send(r)) {  // nothing to free: an empty status, the handle null
      set_empty_status(st);
      reqs[i] = MPI_REQUEST_NULL;
      continue;
    }
    Comm* comm = r->comm;
    const int err = request_complete(r, &reqs[i], st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    first.note(err, comm);
  }
  if (first.err() == MPI_SUCCESS) return MPI_SUCCESS;
  const bool truncated = first.err() == MPI_ERR_TRUNCATE;
  return fail(first.take(), MPI_ERR_IN_STATUS, "{}: at least one request failed ({}); see the statuses", call,
              truncated ? "message truncated" : "error");
}

int PMPI_Waitall(int count, MPI_Request array_of_requests[], MPI_Status *array_of_statuses) {
  const char* call = "MPI_Waitall";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  hang::Site site = wait_site(call, rs.data(), rs.size());
  hang::Scope waiting(site);
  // Requests done stay done: each pass looks from the first one that was not
  // (a window of n messages completing in order took n^2/2 looks before).
  std::size_t from = 0;
  p2p::wait_until([&] {
    for (; from < rs.size(); ++from) {
      Request* r = rs[from];
      if (r && !inactive(r) && !r->complete) return false;
    }
    return true;
  });
  return complete_all(call, count, array_of_requests, rs, array_of_statuses);
}
CHORUS_ALIAS(MPI_Waitall)

int PMPI_Testall(int count, MPI_Request array_of_requests[], int* flag, MPI_Status *array_of_statuses) {
  const char* call = "MPI_Testall";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "{}: flag is NULL", call);
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  p2p::progress();
  for (Request* r : rs) {
    if (r && !inactive(r) && !r->complete) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  return complete_all(call, count, array_of_requests, rs, array_of_statuses);
}
CHORUS_ALIAS(MPI_Testall)

// First completed request's position, -2 when none is complete, MPI_UNDEFINED when
// no request is active.
static int find_complete(const std::vector<Request*>& rs) {
  bool any_active = false;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    Request* r = rs[i];
    if (!r || inactive(r)) continue;
    any_active = true;
    if (r->complete) return static_cast<int>(i);
  }
  return any_active ? -2 : MPI_UNDEFINED;
}

static int complete_one(const char* call, MPI_Request reqs[], std::vector<Request*>& rs, int i,
                        MPI_Status* status) {
  Request* r = rs[static_cast<std::size_t>(i)];
  Request copy = *r;
  int err = request_complete(r, &reqs[i], status);
  return err == MPI_SUCCESS ? err : error_for(call, &copy, err);
}

int PMPI_Waitany(int count, MPI_Request array_of_requests[], int* index, MPI_Status* status) {
  const char* call = "MPI_Waitany";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!index) return fail(nullptr, MPI_ERR_ARG, "{}: index is NULL", call);
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  int i = -2;
  hang::Site site = wait_site(call, rs.data(), rs.size());
  hang::Scope waiting(site);
  p2p::wait_until([&] { return (i = find_complete(rs)) != -2; });
  *index = i;
  if (i == MPI_UNDEFINED) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  return complete_one(call, array_of_requests, rs, i, status);
}
CHORUS_ALIAS(MPI_Waitany)

int PMPI_Testany(int count, MPI_Request array_of_requests[], int* index, int* flag, MPI_Status* status) {
  const char* call = "MPI_Testany";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!index || !flag) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, index ? "flag" : "index");
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  p2p::progress();
  int i = find_complete(rs);
  if (i == -2) {
    *flag = 0;
    *index = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  *flag = 1;
  *index = i;
  if (i == MPI_UNDEFINED) {
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  return complete_one(call, array_of_requests, rs, i, status);
}
CHORUS_ALIAS(MPI_Testany)

static int complete_some(const char* call, MPI_Request reqs[], std::vector<Request*>& rs,
                         int* outcount, int indices[], MPI_Status* statuses) {
  int n = 0;
  FirstError first;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    Request* r = rs[i];
    if (!r || inactive(r) || !r->complete) continue;
    Comm* c = r->comm;
    int err = request_complete(r, &reqs[i], status_at(statuses, n));
    if (statuses != MPI_STATUSES_IGNORE) statuses[n].MPI_ERROR = err;
    first.note(err, c);
    indices[n++] = static_cast<int>(i);
  }
  *outcount = n;
  if (first.err() == MPI_SUCCESS) return MPI_SUCCESS;
  return fail(first.take(), MPI_ERR_IN_STATUS, "{}: at least one request failed; see the statuses", call);
}

int PMPI_Waitsome(int incount, MPI_Request array_of_requests[], int* outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses) {
  const char* call = "MPI_Waitsome";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!outcount || (incount > 0 && !array_of_indices))
    return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, outcount ? "array_of_indices" : "outcount");
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, incount, array_of_requests, rs));
  int i = -2;
  hang::Site site = wait_site(call, rs.data(), rs.size());
  hang::Scope waiting(site);
  p2p::wait_until([&] { return (i = find_complete(rs)) != -2; });
  if (i == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  return complete_some(call, array_of_requests, rs, outcount, array_of_indices, array_of_statuses);
}
CHORUS_ALIAS(MPI_Waitsome)

int PMPI_Testsome(int incount, MPI_Request array_of_requests[], int* outcount,
                  int array_of_indices[], MPI_Status *array_of_statuses) {
  const char* call = "MPI_Testsome";
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  if (!outcount || (incount > 0 && !array_of_indices))
    return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, outcount ? "array_of_indices" : "outcount");
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, incount, array_of_requests, rs));
  p2p::progress();
  int i = find_complete(rs);
  if (i == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  if (i == -2) {
    *outcount = 0;
    return MPI_SUCCESS;
  }
  return complete_some(call, array_of_requests, rs, outcount, array_of_indices, array_of_statuses);
}
CHORUS_ALIAS(MPI_Testsome)

// What a request's status reads without completing it (the MPI_Request_get_status
// family): an empty status for a null or inactive request, else the status that
// completing it would give. Returns the request's error (a generalized request's
// query function's), MPI_SUCCESS for none.
static int peek_status(Request* r, MPI_Status* st) {
  if (!r || inactive(r)) {
    set_empty_status(st);
    return MPI_SUCCESS;
  }
  if (Greq* g = greq_of(r)) return greq_query(g, st);
  if (r->kind == Request::Kind::Recv)
    set_status(st, r->source, r->tag, r->bytes, r->cancelled);
  else
    set_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, 0, r->cancelled);
  return r->error;
}

int PMPI_Request_get_status(MPI_Request request, int* flag, MPI_Status* status) {
  CHORUS_TRY_MPI(check_running("MPI_Request_get_status"));
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Request_get_status: flag is NULL");
  if (request == MPI_REQUEST_NULL) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Request_get_status", request, &r));
  if (inactive(r)) {
    *flag = 1;
    set_empty_status(status);
    return MPI_SUCCESS;
  }
  if (!r->complete) p2p::progress();
  *flag = r->complete;
  if (r->complete && greq_of(r)) {
    // A generalized request's status comes from its query function, as at its completion.
    const int rc = peek_status(r, status);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : error_for("MPI_Request_get_status", r, rc);
  }
  if (r->complete) peek_status(r, status);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Request_get_status)

// MPI 4.1: MPI_Testany, MPI_Testall and MPI_Testsome without freeing or
// deactivating anything. As the multiple-completion calls do, _all and _some
// fill MPI_ERROR of every status they return and answer MPI_ERR_IN_STATUS when a
// request failed; _any reports the failed request's error itself.
int PMPI_Request_get_status_any(int count, MPI_Request array_of_requests[], int* index, int* flag,
                                MPI_Status* status) {
  const char* call = "MPI_Request_get_status_any";
  CHORUS_TRY_MPI(check_running(call));
  if (!index || !flag) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, index ? "flag" : "index");
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  p2p::progress();
  const int i = find_complete(rs);
  *flag = i != -2;
  *index = i >= 0 ? i : MPI_UNDEFINED;
  if (i == MPI_UNDEFINED) set_empty_status(status);
  if (i < 0) return MPI_SUCCESS;
  Request* r = rs[static_cast<std::size_t>(i)];
  const int err = peek_status(r, status);
  return err == MPI_SUCCESS ? MPI_SUCCESS : error_for(call, r, err);
}
CHORUS_ALIAS(MPI_Request_get_status_any)

int PMPI_Request_get_status_all(int count, MPI_Request array_of_requests[], int* flag,
                                MPI_Status array_of_statuses[]) {
  const char* call = "MPI_Request_get_status_all";
  CHORUS_TRY_MPI(check_running(call));
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "{}: flag is NULL", call);
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, count, array_of_requests, rs));
  p2p::progress();
  for (Request* r : rs) {
    if (r && !inactive(r) && !r->complete) {
      *flag = 0;
      return MPI_SUCCESS;
    }
  }
  *flag = 1;
  FirstError first;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    MPI_Status* st = status_at(array_of_statuses, static_cast<int>(i));
    const int err = peek_status(rs[i], st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    if (rs[i]) first.note(err, rs[i]->comm);
  }
  if (first.err() == MPI_SUCCESS) return MPI_SUCCESS;
  return fail(first.take(), MPI_ERR_IN_STATUS, "{}: at least one request failed; see the statuses", call);
}
CHORUS_ALIAS(MPI_Request_get_status_all)

int PMPI_Request_get_status_some(int incount, MPI_Request array_of_requests[], int* outcount,
                                 int array_of_indices[], MPI_Status array_of_statuses[]) {
  const char* call = "MPI_Request_get_status_some";
  CHORUS_TRY_MPI(check_running(call));
  if (!outcount || (incount > 0 && !array_of_indices))
    return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, outcount ? "array_of_indices" : "outcount");
  p2p::ApiLock lock;
  std::vector<Request*> rs;
  CHORUS_TRY_MPI(lookup_all(call, incount, array_of_requests, rs));
  p2p::progress();
  if (find_complete(rs) == MPI_UNDEFINED) {
    *outcount = MPI_UNDEFINED;
    return MPI_SUCCESS;
  }
  int n = 0;
  FirstError first;
  for (std::size_t i = 0; i < rs.size(); ++i) {
    Request* r = rs[i];
    if (!r || inactive(r) || !r->complete) continue;
    MPI_Status* st = status_at(array_of_statuses, n);
    const int err = peek_status(r, st);
    if (st != MPI_STATUS_IGNORE) st->MPI_ERROR = err;
    first.note(err, r->comm);
    array_of_indices[n++] = static_cast<int>(i);
  }
  *outcount = n;
  if (first.err() == MPI_SUCCESS) return MPI_SUCCESS;
  return fail(first.take(), MPI_ERR_IN_STATUS, "{}: at least one request failed; see the statuses", call);
}
CHORUS_ALIAS(MPI_Request_get_status_some)

int PMPI_Request_free(MPI_Request* request) {
  CHORUS_TRY_MPI(check_running("MPI_Request_free"));
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Request_free: request is NULL");
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Request_free", *request, &r));
  if (r->active && !r->complete) {
    // Still in flight: the operation goes on and the slot is released when done.
    r->user_freed = true;
    r->persistent = false;
  } else {
    release_finished(r);
  }
  *request = MPI_REQUEST_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Request_free)

int PMPI_Cancel(MPI_Request* request) {
  CHORUS_TRY_MPI(check_running("MPI_Cancel"));
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Cancel: request is NULL");
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Cancel", *request, &r));
  // Receives that have not matched are cancelled; sends are not cancellable here
  // (MPI-4 deprecates it): they complete normally and Test_cancelled says false.
  if (Greq* g = greq_of(r)) {
    const int rc = g->cancel ? g->cancel(g->extra, r->complete ? 1 : 0) : MPI_SUCCESS;
    if (rc != MPI_SUCCESS)
      return fail(nullptr, MPI_ERR_OTHER, "MPI_Cancel: the generalized request's cancel function returned {}", rc);
    return MPI_SUCCESS;
  }
  if (r->active && !r->complete) p2p::cancel(r);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Cancel)

int PMPI_Grequest_start(MPI_Grequest_query_function* query_fn, MPI_Grequest_free_function* free_fn,
                        MPI_Grequest_cancel_function* cancel_fn, void* extra_state, MPI_Request* request) {
  const char* call = "MPI_Grequest_start";
  CHORUS_TRY_MPI(check_running(call));
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "{}: request is NULL", call);
  p2p::ApiLock lock;
  Request* r = requests().get();
  r->kind = Request::Kind::Done;
  r->active = true;
  r->ext = new Greq{query_fn, free_fn, cancel_fn, extra_state};
  r->ext_free = greq_free;
  *request = requests().handle(r);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Grequest_start)

int PMPI_Grequest_complete(MPI_Request request) {
  const char* call = "MPI_Grequest_complete";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup(call, request, &r));
  if (!greq_of(r))
    return fail(nullptr, MPI_ERR_REQUEST, "{}: request 0x{:x} is not a generalized request", call,
                static_cast<unsigned>(request));
  if (r->complete)
    return fail(nullptr, MPI_ERR_REQUEST, "{}: request 0x{:x} is complete already", call,
                static_cast<unsigned>(request));
  r->complete = true;
  if (r->user_freed) release_finished(r);  // MPI_Request_free came first
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Grequest_complete)

int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
  if (!status || !flag)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Test_cancelled: {} is NULL", status ? "flag" : "status");
  *flag = status->count_hi_and_cancelled & 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Test_cancelled)

int PMPI_Start(MPI_Request* request) {
  CHORUS_TRY_MPI(check_running("MPI_Start"));
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Start: request is NULL");
  p2p::ApiLock lock;
  Request* r;
  CHORUS_TRY_MPI(lookup("MPI_Start", *request, &r));
  if (!r->persistent)
    return fail(r->comm, MPI_ERR_REQUEST, "MPI_Start: request 0x{:x} is not persistent",
                static_cast<unsigned>(*request));
  if (r->active)
    return fail(r->comm, MPI_ERR_REQUEST, "MPI_Start: request 0x{:x} is already active",
                static_cast<unsigned>(*request));
  if (r->kind == Request::Kind::Coll) return coll_start(r);
  return request_start("MPI_Start", r);
}
CHORUS_ALIAS(MPI_Start)

int PMPI_Startall(int count, MPI_Request array_of_requests[]) {
  CHORUS_TRY_MPI(check_running("MPI_Startall"));
  if (count < 0) return fail(nullptr, MPI_ERR_COUNT, "MPI_Startall: count is {}, must be non-negative", count);
  for (int i = 0; i < count; ++i) CHORUS_TRY_MPI(PMPI_Start(&array_of_requests[i]));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Startall)

// ---- status queries (counts and elements: mpi/datatype.cc) --------------------

int PMPI_Status_set_cancelled(MPI_Status* status, int flag) {
  if (!status) return fail(nullptr, MPI_ERR_ARG, "MPI_Status_set_cancelled: status is NULL");
  status->count_hi_and_cancelled = (status->count_hi_and_cancelled & ~1) | (flag ? 1 : 0);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Status_set_cancelled)

// MPI 4.1: the status fields through calls (for languages that cannot reach them).
static int status_get(const char* call, const char* what, const MPI_Status* status, int MPI_Status::*field,
                      int* out) {
  if (!status || !out) return fail(nullptr, MPI_ERR_ARG, "{}: {} is NULL", call, status ? what : "status");
  *out = status->*field;
  return MPI_SUCCESS;
}
static int status_set(const char* call, MPI_Status* status, int MPI_Status::*field, int value) {
  if (!status) return fail(nullptr, MPI_ERR_ARG, "{}: status is NULL", call);
  status->*field = value;
  return MPI_SUCCESS;
}

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "requests_forward.inc"

}  // extern "C"
