// Intercommunicators: MPI_Intercomm_create (+ _from_groups), MPI_Intercomm_merge,
// MPI_Comm_remote_group, MPI_Comm_split / MPI_Comm_create on an intercommunicator,
// and the collectives on one (blocking and non-blocking).
//
// An intercommunicator (core/comm.h) keeps its local group in world_of and the
// remote group in remote_of; point-to-point on it addresses the remote group and
// needs nothing more (the receiver sees the sender's local rank, which is its rank
// in the receiver's remote group). Two hidden intracommunicators come with it:
// `local` (the local group) and `bridge` (both groups, the left one first, the
// left group being the one with the lower world rank). The collectives are
// compositions over those, as MPI defines them for two groups: a rooted one moves
// data between the root and the other group's rank 0, which then runs the
// intracommunicator collective inside its group; the all-to-all kinds reduce or
// gather inside each group, swap the result between the two ranks 0 and spread it
// inside each group; the personalized ones (alltoall*, the v-forms) send straight
// to each remote rank on the bridge.
#include <mpi.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <vector>

#include "core/handle.h"
#include "core/op.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::mpi {
namespace {

// Tags on the bridge's point-to-point context (nothing else uses it).
enum BridgeTag : int {
  kBcast = 1, kReduce, kAllreduce, kAllgather, kGather, kScatter, kAlltoall, kAllgatherv, kGatherv,
  kScatterv, kAlltoallv, kAlltoallw, kReduceScatter, kCreate,
  kPersistentTags = 64,  // and above: one per persistent plan (Plan::tag)
};

// Bridge rank of remote rank r.
int remote_at(const Comm* c, int r) { return c->left ? c->size + r : r; }

// Space for n elements of t laid out as MPI does (extent per element, true bounds).
struct Scratch {
  std::vector<std::byte> mem;
  void* p = nullptr;
};
Scratch scratch(MPI_Datatype t, MPI_Aint n) {
  MPI_Aint lb, ext, tlb, text;
  PMPI_Type_get_extent(t, &lb, &ext);
  PMPI_Type_get_true_extent(t, &tlb, &text);
  Scratch s;
  MPI_Aint bytes = n > 0 ? text + (n - 1) * ext : 0;
  s.mem.resize(static_cast<std::size_t>(std::max<MPI_Aint>(bytes, 1)));
  s.p = s.mem.data() - tlb;
  return s;
}

std::byte* at(const void* base, MPI_Datatype t, MPI_Aint n) {
  MPI_Aint lb, ext;
  PMPI_Type_get_extent(t, &lb, &ext);
  return static_cast<std::byte*>(const_cast<void*>(base)) + n * ext;
}

int check_data(const char* call, Comm* c, const void* buf, MPI_Aint count, MPI_Datatype t, const char* count_arg,
               const char* type_arg, const char* buf_arg) {
  CHORUS_TRY_MPI(check_count(call, c, count, count_arg));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_type(call, c, t, &ti, type_arg));
  if (!ti->committed && !ti->predefined)
    return fail(c, MPI_ERR_TYPE, "{}: {} is not committed", call, type_arg);
  if (buf == MPI_IN_PLACE)
    return fail(c, MPI_ERR_BUFFER, "{}: {} is MPI_IN_PLACE, which an intercommunicator does not allow", call,
                buf_arg);
  return check_buffer(call, c, buf, count, buf_arg);
}

// root: MPI_ROOT (this rank is the root), MPI_PROC_NULL (another rank of the
// root's group), or the root's rank in the remote group.
int check_root(const char* call, Comm* c, int root) {
  if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->peers())) return MPI_SUCCESS;
  return fail(c, MPI_ERR_ROOT,
              "{}: root is {}; on an intercommunicator it must be MPI_ROOT, MPI_PROC_NULL or a rank of the "
              "remote group, in [0, {})", call, root, c->peers());
}

int check_op(const char* call, Comm* c, MPI_Op op, MPI_Datatype t) {
  std::string why;
  Status s = op_check(op, t, &why);
  if (s != Status::Ok) return fail(c, to_mpi_class(s), "{}: {}", call, why);
  return MPI_SUCCESS;
}

int check_counts(const char* call, Comm* c, const int counts[], const int displs[], int n, const char* carg,
                 const char* darg) {
  if (n > 0 && !counts) return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, carg);
  if (n > 0 && darg && !displs) return fail(c, MPI_ERR_ARG, "{}: {} is NULL", call, darg);
  for (int i = 0; i < n; ++i)
    if (counts[i] < 0) return fail(c, MPI_ERR_COUNT, "{}: {}[{}] is {}, must be >= 0", call, carg, i, counts[i]);
  return MPI_SUCCESS;
}

int not_inter(Comm* c, const char* call, MPI_Comm comm) {
  return fail(c, MPI_ERR_COMM, "{}: comm 0x{:x} is an intracommunicator; this call takes an intercommunicator",
              call, static_cast<unsigned>(comm));
}

}  // namespace

Comm* intercomm_of(MPI_Comm comm) {
  Comm* c = comm_lookup(comm);
  return c && c->inter ? c : nullptr;
}

// ---- building ---------------------------------------------------------------------

int intercomm_split(const char* call, Comm* c, int color, int key, Comm** out) {
  inter_drain(c);
  struct Entry {
    int color, key;
  };
  Comm* b = c->bridge;
  std::vector<Entry> all(static_cast<std::size_t>(b->size));
  Entry mine{color, key};
  CHORUS_TRY_MPI(internal_allgather(b, &mine, all.data(), sizeof mine, call));
  // Bridge ranks of each side, then each side's members of this color by key.
  const int n_left = c->left ? c->size : c->peers();
  auto side = [&](bool left_side) {
    std::vector<int> r;
    if (color == MPI_UNDEFINED) return r;
    int lo = left_side ? 0 : n_left, hi = left_side ? n_left : b->size;
    for (int i = lo; i < hi; ++i)
      if (all[static_cast<std::size_t>(i)].color == color) r.push_back(i);
    std::stable_sort(r.begin(), r.end(), [&](int x, int y) {
      return all[static_cast<std::size_t>(x)].key < all[static_cast<std::size_t>(y)].key;
    });
    for (int& i : r) i = b->world_rank(i);
    return r;
  };
  std::vector<int> local = side(c->left), remote = side(!c->left);
  if (local.empty() || remote.empty()) local.clear(), remote.clear();  // MPI_COMM_NULL
  bool left = !local.empty() && group_before(local, remote);
  const int rc = intercomm_make(b, c->local, local, remote, left, c->errhandler, call, out);
  if (rc == MPI_SUCCESS && *out) (*out)->session = c->session;  // derived from c
  return rc;
}

int intercomm_subset(const char* call, Comm* c, const std::vector<int>& group, Comm** out) {
  inter_drain(c);
  // Each rank's place in its own side's group (-1: not in it), known everywhere.
  Comm* b = c->bridge;
  std::vector<int> pos(static_cast<std::size_t>(b->size));
  int mine = static_cast<int>(std::find(group.begin(), group.end(), world().rank) - group.begin());
  if (mine == static_cast<int>(group.size())) mine = -1;
  CHORUS_TRY_MPI(internal_allgather(b, &mine, pos.data(), sizeof mine, call));
  const int n_left = c->left ? c->size : c->peers();
  auto side = [&](bool left_side) {
    int lo = left_side ? 0 : n_left, hi = left_side ? n_left : b->size;
    std::vector<std::pair<int, int>> r;
    for (int i = lo; i < hi; ++i)
      if (pos[static_cast<std::size_t>(i)] >= 0) r.emplace_back(pos[static_cast<std::size_t>(i)], b->world_rank(i));
    std::sort(r.begin(), r.end());
    std::vector<int> w;
    for (auto& [p, rank] : r) w.push_back(rank);
    return w;
  };
  std::vector<int> local = side(c->left), remote = side(!c->left);
  if (mine < 0 || local.empty() || remote.empty()) local.clear(), remote.clear();
  bool left = !local.empty() && group_before(local, remote);
  const int rc = intercomm_make(b, c->local, local, remote, left, c->errhandler, call, out);
  if (rc == MPI_SUCCESS && *out) (*out)->session = c->session;  // derived from c
  return rc;
}

// ---- collectives --------------------------------------------------------------------
// Each collective is a plan: stages that post non-blocking operations on the
// hidden `local` and `bridge` communicators; a stage starts once everything the
// previous one posted has finished. A blocking call runs its plan at once and
// waits; a non-blocking one (MPI_Ibcast & co.) queues it on the communicator and
// the progress hook runs it. Plans of one intercommunicator run one at a time in
// call order, and a blocking call first lets the queued ones finish: every rank
// of both groups then issues the same operations on `local` and `bridge` in the
// same order, whatever the timing, so fixed tags and the hidden communicators'
// own collectives match up.
//
// A persistent plan (MPI_Bcast_init & co.) may be started in a different order
// on different ranks, as MPI allows, so it cannot take a turn in that queue (two
// ranks starting A, B and B, A each waited for the other's first). At init it
// runs its stages once in Mode::Init: each operation becomes a persistent one
// (MPI_Send_init on the bridge with a tag of the plan's own, MPI_Bcast_init &
// co. on `local`, which match by init order), made in init order, the same on
// every rank. Each MPI_Start runs the stages in Mode::Start, starting those in
// turn, in a queue of the request's own.

namespace {

using Ops = std::vector<MPI_Request>;
using Stage = std::function<int(Ops&)>;

struct Plan {
  Comm* comm = nullptr;
  const char* call = "";
  std::vector<Stage> stages;
  std::deque<Scratch> bufs;              // scratch space the stages use
  std::vector<MPI_Datatype> owned;       // datatypes duplicated for a non-blocking plan
  bool nonblocking = false;
  bool persistent = false;
  int tag = 0;                           // a persistent plan's bridge tag
  std::vector<MPI_Request> ops;          // a persistent plan's operations, in stage order
  ~Plan() {
    for (MPI_Request& r : ops)
      if (r != MPI_REQUEST_NULL) PMPI_Request_free(&r);
    for (MPI_Datatype& t : owned) PMPI_Type_free(&t);
  }
  void* space(MPI_Datatype t, MPI_Aint n) {
    bufs.push_back(scratch(t, n));
    return bufs.back().p;
  }
  // A non-blocking plan uses a datatype after the call returns, when the user
  // may have freed it: it keeps a duplicate.
  MPI_Datatype type(MPI_Datatype t) {
    const TypeInfo* ti = type_info(t);
    if (!nonblocking || !ti || ti->predefined) return t;
    MPI_Datatype d = MPI_DATATYPE_NULL;
    if (PMPI_Type_dup(t, &d) != MPI_SUCCESS) return t;
    owned.push_back(d);
    return d;
  }
};

// How a stage's operations are issued: at once (Run), made persistent at a
// persistent plan's init (Init), or those started (Start).
enum class Mode : std::uint8_t { Run, Init, Start };
thread_local Mode t_mode = Mode::Run;
thread_local Plan* t_plan = nullptr;   // Init and Start: the plan whose stage runs
thread_local std::size_t t_next = 0;   // Start: its next operation

template <class Now, class Init>
int issue(Ops& q, Now now, Init init) {
  switch (t_mode) {
    case Mode::Init: {
      MPI_Request r = MPI_REQUEST_NULL;
      const int rc = init(&r);
      t_plan->ops.push_back(r);
      return rc;
    }
    case Mode::Start: {
      if (t_next >= t_plan->ops.size())
        return fail(t_plan->comm, MPI_ERR_INTERN, "{}: the persistent plan has {} operations, asked for more",
                    t_plan->call, t_plan->ops.size());
      MPI_Request r = t_plan->ops[t_next++];
      q.push_back(r);  // a copy of the handle: Testall leaves a persistent request as it is
      return PMPI_Start(&r);
    }
    case Mode::Run: break;
  }
  q.emplace_back();
  return now(&q.back());
}

// A collective on the local group: MPI_I<nb>(args..., request), or for a
// persistent plan MPI_<init>(args..., MPI_INFO_NULL, request).
#define CHORUS_LOCAL(q, nb, init, ...)                                                    \
  issue(                                                                                   \
      q, [&](MPI_Request* r_) { return PMPI_##nb(__VA_ARGS__, r_); },                      \
      [&](MPI_Request* r_) { return PMPI_##init(__VA_ARGS__, MPI_INFO_NULL, r_); })

// Counts are a group's totals (count x group size), past INT_MAX at times: the
// large-count calls take them whole. A persistent plan's messages carry its own tag.
int post_send(Ops& q, Comm* c, const void* buf, MPI_Aint n, MPI_Datatype t, int to, int tag) {
  return issue(
      q, [&](MPI_Request* r) { return PMPI_Isend_c(buf, n, t, to, tag, c->bridge->handle, r); },
      [&](MPI_Request* r) { return PMPI_Send_init_c(buf, n, t, to, t_plan->tag, c->bridge->handle, r); });
}
int post_recv(Ops& q, Comm* c, void* buf, MPI_Aint n, MPI_Datatype t, int from, int tag) {
  return issue(
      q, [&](MPI_Request* r) { return PMPI_Irecv_c(buf, n, t, from, tag, c->bridge->handle, r); },
      [&](MPI_Request* r) { return PMPI_Recv_init_c(buf, n, t, from, t_plan->tag, c->bridge->handle, r); });
}
int wait_ops(Ops& q) {
  int rc = PMPI_Waitall(static_cast<int>(q.size()), q.data(), MPI_STATUSES_IGNORE);
  q.clear();
  return rc;
}

// A queued non-blocking plan and the user's request (a persistent request shares
// its plan with every start).
struct Running {
  std::shared_ptr<Plan> plan;
  Request* req = nullptr;
  std::size_t next = 0;  // stage to start
  Ops ops;
  int error = MPI_SUCCESS;
  std::size_t next_op = 0;  // a persistent plan's next operation
};
// Keyed by the communicator (its ordered plans) or by a persistent request.
std::map<const void*, std::deque<Running>> g_queues;
bool g_in_hook = false;
thread_local bool t_persistent = false;  // set by InterPersistent: plans become persistent requests

// Finish the head's stages that can finish now; true when the head is done.
bool advance(Running& r) {
  for (;;) {
    if (!r.ops.empty()) {
      int flag = 0;
      int rc = PMPI_Testall(static_cast<int>(r.ops.size()), r.ops.data(), &flag, MPI_STATUSES_IGNORE);
      if (rc != MPI_SUCCESS && r.error == MPI_SUCCESS) r.error = rc;
      if (!flag && rc == MPI_SUCCESS) return false;
      r.ops.clear();
    }
    if (r.error != MPI_SUCCESS || r.next == r.plan->stages.size()) return true;
    const Mode mode = t_mode;
    Plan* const plan = t_plan;
    const std::size_t next_op = t_next;
    t_mode = r.plan->persistent ? Mode::Start : Mode::Run;
    t_plan = r.plan->persistent ? r.plan.get() : nullptr;
    t_next = r.next_op;
    int rc = r.plan->stages[r.next++](r.ops);
    if (r.plan->persistent) r.next_op = t_next;
    t_mode = mode;
    t_plan = plan;
    t_next = next_op;
    if (rc != MPI_SUCCESS) r.error = rc;
  }
}

void finish(Running& r) {
  Request* u = r.req;
  u->error = r.error;
  u->complete = true;
  if (u->user_freed) requests().put(u);
}

unsigned inter_progress() {
  if (g_queues.empty() || g_in_hook) return 0;
  g_in_hook = true;
  unsigned n = 0;
  for (auto it = g_queues.begin(); it != g_queues.end();) {
    auto& q = it->second;
    while (!q.empty() && advance(q.front())) {
      finish(q.front());
      q.pop_front();
      ++n;
    }
    it = q.empty() ? g_queues.erase(it) : std::next(it);
  }
  g_in_hook = false;
  return n;
}

// Queue `p` behind the plans already running on its communicator; start it at
// once when none is.
void enqueue(std::shared_ptr<Plan> p, Request* u) {
  const void* key = p->persistent ? static_cast<const void*>(u) : p->comm;
  p2p::add_late_progress_hook(inter_progress);
  auto& q = g_queues[key];
  q.push_back(Running{std::move(p), u, 0, {}, MPI_SUCCESS, 0});
  if (q.size() == 1 && !g_in_hook) {  // nothing ahead of it: start now
    g_in_hook = true;
    if (advance(q.front())) {
      finish(q.front());
      q.pop_front();
      if (q.empty()) g_queues.erase(key);
    }
    g_in_hook = false;
  }
}

void drop_plan(void* p) { delete static_cast<std::shared_ptr<Plan>*>(p); }

int run(std::unique_ptr<Plan> p, MPI_Request* request) {
  Comm* c = p->comm;
  if (!request) {
    inter_drain(c);
    Ops ops;
    for (Stage& st : p->stages) {
      int rc = st(ops);
      int rc2 = wait_ops(ops);
      if (rc == MPI_SUCCESS) rc = rc2;
      if (rc != MPI_SUCCESS) return error_has_message(rc) ? raise(c, rc) : fail(c, rc, "{}: a transfer failed", p->call);
    }
    return MPI_SUCCESS;
  }
  Request* u = requests().get();
  u->comm = c;
  *request = requests().handle(u);
  // MPI_*_init: inactive until MPI_Start (inter_start). Made inside an
  // OrderedPersistent scope (the stream layer's enqueued calls, which stand for
  // blocking ones), it stays ordered: queued on the communicator at each start,
  // its stages posting as a non-blocking call's do.
  if (t_persistent && !OrderedPersistent::active()) {  // its operations made persistent now
    p->persistent = true;
    p->tag = kPersistentTags + static_cast<int>(c->persistent_seq++ % (tag::kTagUB - kPersistentTags));
    t_mode = Mode::Init;
    t_plan = p.get();
    const bool in_hook = g_in_hook;
    g_in_hook = true;  // no other plan's stage runs meanwhile (its mode would be Init)
    int rc = MPI_SUCCESS;
    Ops unused;
    for (Stage& st : p->stages)
      if ((rc = st(unused)) != MPI_SUCCESS) break;
    g_in_hook = in_hook;
    t_mode = Mode::Run;
    t_plan = nullptr;
    if (rc != MPI_SUCCESS) {
      requests().put(u);
      *request = MPI_REQUEST_NULL;
      return error_has_message(rc) ? raise(c, rc) : fail(c, rc, "{}: making its operations failed", p->call);
    }
  }
  if (t_persistent) {
    u->kind = Request::Kind::Coll;
    u->persistent = true;
    u->ext = new std::shared_ptr<Plan>(std::move(p));
    u->ext_free = drop_plan;
    return MPI_SUCCESS;
  }
  u->kind = Request::Kind::Done;
  u->active = true;
  enqueue(std::move(p), u);
  return MPI_SUCCESS;
}

}  // namespace

InterPersistent::InterPersistent() { t_persistent = true; }
InterPersistent::~InterPersistent() { t_persistent = false; }

int inter_start(Request* r) {
  auto* plan = static_cast<std::shared_ptr<Plan>*>(r->ext);
  Comm* c = r->comm;
  // Freeing the communicator released its hidden halves; an inactive request
  // cannot start on it any more.
  if (!c->bridge)
    return fail(nullptr, MPI_ERR_COMM, "MPI_Start: the intercommunicator of this {} request was freed",
                (*plan)->call);
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  enqueue(*plan, r);
  return MPI_SUCCESS;
}

namespace {

std::unique_ptr<Plan> plan_for(Comm* c, const char* call, MPI_Request* request) {
  auto p = std::make_unique<Plan>();
  p->comm = c;
  p->call = call;
  p->nonblocking = request != nullptr;
  return p;
}

// An empty plan (this rank takes no part: root MPI_PROC_NULL).
int nothing(Comm* c, const char* call, MPI_Request* request) { return run(plan_for(c, call, request), request); }

}  // namespace

void inter_drain(Comm* c, bool persistent_too) {
  auto busy = [c, persistent_too] {
    if (g_queues.count(c)) return true;
    if (persistent_too)
      for (const auto& [key, q] : g_queues)
        if (!q.empty() && q.front().plan->comm == c) return true;
    return false;
  };
  if (!busy()) return;
  p2p::wait_until([&busy] {
    inter_progress();
    return !busy();
  });
}

int inter_barrier(const char* call, Comm* c, MPI_Request* request) {
  // Nobody leaves before every rank of both groups has entered.
  auto p = plan_for(c, call, request);
  p->stages.push_back([c](Ops& q) {
    return CHORUS_LOCAL(q, Ibarrier, Barrier_init, c->bridge->handle);
  });
  return run(std::move(p), request);
}

int inter_bcast(const char* call, Comm* c, void* buf, int count, MPI_Datatype t, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  CHORUS_TRY_MPI(check_count(call, c, count, "count"));
  const TypeInfo* ti;
  CHORUS_TRY_MPI(check_type(call, c, t, &ti, "datatype"));
  CHORUS_TRY_MPI(check_buffer(call, c, buf, count, "buffer"));
  auto p = plan_for(c, call, request);
  t = p->type(t);
  if (root == MPI_ROOT) {
    p->stages.push_back([=](Ops& q) { return post_send(q, c, buf, count, t, remote_at(c, 0), kBcast); });
  } else {
    if (c->rank == 0)
      p->stages.push_back([=](Ops& q) { return post_recv(q, c, buf, count, t, remote_at(c, root), kBcast); });
    p->stages.push_back([=](Ops& q) {
      return CHORUS_LOCAL(q, Ibcast, Bcast_init, buf, count, t, 0, c->local->handle);
    });
  }
  return run(std::move(p), request);
}

int inter_reduce(const char* call, Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t,
                 MPI_Op op, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  CHORUS_TRY_MPI(check_op(call, c, op, t));
  auto p = plan_for(c, call, request);
  if (root == MPI_ROOT) {
    CHORUS_TRY_MPI(check_data(call, c, recvbuf, count, t, "count", "datatype", "recvbuf"));
    t = p->type(t);
    p->stages.push_back([=](Ops& q) { return post_recv(q, c, recvbuf, count, t, remote_at(c, 0), kReduce); });
    return run(std::move(p), request);
  }
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, count, t, "count", "datatype", "sendbuf"));
  t = p->type(t);
  void* s = p->space(t, c->rank == 0 ? count : 0);
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Ireduce, Reduce_init, sendbuf, s, count, t, op, 0, c->local->handle);
  });
  if (c->rank == 0)
    p->stages.push_back([=](Ops& q) { return post_send(q, c, s, count, t, remote_at(c, root), kReduce); });
  return run(std::move(p), request);
}

// The first half of the all-to-all reductions: this group's data reduced to its
// rank 0, which swaps it with the other group's rank 0 (`theirs` gets the other's).
static void reduce_and_swap(Plan& p, Comm* c, const void* sendbuf, void* mine, void* theirs, MPI_Aint count,
                            MPI_Datatype t, MPI_Op op, int tag) {
  p.stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Ireduce_c, Reduce_init_c, sendbuf, mine, count, t, op, 0, c->local->handle);
  });
  if (c->rank == 0)
    p.stages.push_back([=](Ops& q) {
      CHORUS_TRY_MPI(post_recv(q, c, theirs, count, t, remote_at(c, 0), tag));
      return post_send(q, c, mine, count, t, remote_at(c, 0), tag);
    });
}

int inter_allreduce(const char* call, Comm* c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype t,
                    MPI_Op op, MPI_Request* request) {
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, count, t, "count", "datatype", "sendbuf"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, count, t, "count", "datatype", "recvbuf"));
  CHORUS_TRY_MPI(check_op(call, c, op, t));
  // This group's reduction goes to the other group, and the other's comes here.
  auto p = plan_for(c, call, request);
  t = p->type(t);
  reduce_and_swap(*p, c, sendbuf, p->space(t, c->rank == 0 ? count : 0), recvbuf, count, t, op, kAllreduce);
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Ibcast, Bcast_init, recvbuf, count, t, 0, c->local->handle);
  });
  return run(std::move(p), request);
}

int inter_allgather(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                    int rc, MPI_Datatype rt, MPI_Request* request) {
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, rc, rt, "recvcount", "recvtype", "recvbuf"));
  const MPI_Aint mine = static_cast<MPI_Aint>(sc) * c->size, theirs = static_cast<MPI_Aint>(rc) * c->peers();
  auto p = plan_for(c, call, request);
  st = p->type(st);
  rt = p->type(rt);
  void* s = p->space(st, c->rank == 0 ? mine : 0);
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Igather, Gather_init, sendbuf, sc, st, s, sc, st, 0, c->local->handle);
  });
  if (c->rank == 0)
    p->stages.push_back([=](Ops& q) {
      CHORUS_TRY_MPI(post_recv(q, c, recvbuf, theirs, rt, remote_at(c, 0), kAllgather));
      return post_send(q, c, s, mine, st, remote_at(c, 0), kAllgather);
    });
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Ibcast_c, Bcast_init_c, recvbuf, theirs, rt, 0, c->local->handle);
  });
  return run(std::move(p), request);
}

int inter_gather(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf, int rc,
                 MPI_Datatype rt, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  auto p = plan_for(c, call, request);
  if (root == MPI_ROOT) {
    CHORUS_TRY_MPI(check_data(call, c, recvbuf, rc, rt, "recvcount", "recvtype", "recvbuf"));
    rt = p->type(rt);
    const MPI_Aint n = static_cast<MPI_Aint>(rc) * c->peers();
    p->stages.push_back([=](Ops& q) { return post_recv(q, c, recvbuf, n, rt, remote_at(c, 0), kGather); });
    return run(std::move(p), request);
  }
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
  st = p->type(st);
  const MPI_Aint n = static_cast<MPI_Aint>(sc) * c->size;
  void* s = p->space(st, c->rank == 0 ? n : 0);
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Igather, Gather_init, sendbuf, sc, st, s, sc, st, 0, c->local->handle);
  });
  if (c->rank == 0)
    p->stages.push_back([=](Ops& q) { return post_send(q, c, s, n, st, remote_at(c, root), kGather); });
  return run(std::move(p), request);
}

int inter_scatter(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf, int rc,
                  MPI_Datatype rt, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  auto p = plan_for(c, call, request);
  if (root == MPI_ROOT) {
    CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
    st = p->type(st);
    const MPI_Aint n = static_cast<MPI_Aint>(sc) * c->peers();
    p->stages.push_back([=](Ops& q) { return post_send(q, c, sendbuf, n, st, remote_at(c, 0), kScatter); });
    return run(std::move(p), request);
  }
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, rc, rt, "recvcount", "recvtype", "recvbuf"));
  rt = p->type(rt);
  const MPI_Aint n = static_cast<MPI_Aint>(rc) * c->size;
  void* s = p->space(rt, c->rank == 0 ? n : 0);
  if (c->rank == 0)
    p->stages.push_back([=](Ops& q) { return post_recv(q, c, s, n, rt, remote_at(c, root), kScatter); });
  p->stages.push_back([=](Ops& q) {
    return CHORUS_LOCAL(q, Iscatter, Scatter_init, s, rc, rt, recvbuf, rc, rt, 0, c->local->handle);
  });
  return run(std::move(p), request);
}

// The personalized exchanges: every rank posts to and from each remote rank.
int inter_alltoall(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                   int rc, MPI_Datatype rt, MPI_Request* request) {
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, rc, rt, "recvcount", "recvtype", "recvbuf"));
  auto p = plan_for(c, call, request);
  st = p->type(st);
  rt = p->type(rt);
  p->stages.push_back([=](Ops& q) {
    for (int j = 0; j < c->peers(); ++j) {
      CHORUS_TRY_MPI(post_recv(q, c, at(recvbuf, rt, static_cast<MPI_Aint>(j) * rc), rc, rt, remote_at(c, j),
                               kAlltoall));
      CHORUS_TRY_MPI(post_send(q, c, at(sendbuf, st, static_cast<MPI_Aint>(j) * sc), sc, st, remote_at(c, j),
                               kAlltoall));
    }
    return MPI_SUCCESS;
  });
  return run(std::move(p), request);
}

int inter_allgatherv(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Request* request) {
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
  CHORUS_TRY_MPI(check_counts(call, c, rcounts, displs, c->peers(), "recvcounts", "displs"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, 0, rt, "recvcount", "recvtype", "recvbuf"));
  auto p = plan_for(c, call, request);
  st = p->type(st);
  rt = p->type(rt);
  p->stages.push_back([=](Ops& q) {
    for (int j = 0; j < c->peers(); ++j) {
      CHORUS_TRY_MPI(post_recv(q, c, at(recvbuf, rt, displs[j]), rcounts[j], rt, remote_at(c, j), kAllgatherv));
      CHORUS_TRY_MPI(post_send(q, c, sendbuf, sc, st, remote_at(c, j), kAllgatherv));
    }
    return MPI_SUCCESS;
  });
  return run(std::move(p), request);
}

int inter_gatherv(const char* call, Comm* c, const void* sendbuf, int sc, MPI_Datatype st, void* recvbuf,
                  const int rcounts[], const int displs[], MPI_Datatype rt, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  auto p = plan_for(c, call, request);
  if (root == MPI_ROOT) {
    CHORUS_TRY_MPI(check_counts(call, c, rcounts, displs, c->peers(), "recvcounts", "displs"));
    CHORUS_TRY_MPI(check_data(call, c, recvbuf, 0, rt, "recvcount", "recvtype", "recvbuf"));
    rt = p->type(rt);
    p->stages.push_back([=](Ops& q) {
      for (int j = 0; j < c->peers(); ++j)
        CHORUS_TRY_MPI(post_recv(q, c, at(recvbuf, rt, displs[j]), rcounts[j], rt, remote_at(c, j), kGatherv));
      return MPI_SUCCESS;
    });
  } else {
    CHORUS_TRY_MPI(check_data(call, c, sendbuf, sc, st, "sendcount", "sendtype", "sendbuf"));
    st = p->type(st);
    p->stages.push_back([=](Ops& q) { return post_send(q, c, sendbuf, sc, st, remote_at(c, root), kGatherv); });
  }
  return run(std::move(p), request);
}

int inter_scatterv(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int displs[],
                   MPI_Datatype st, void* recvbuf, int rc, MPI_Datatype rt, int root, MPI_Request* request) {
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (root == MPI_PROC_NULL) return nothing(c, call, request);
  auto p = plan_for(c, call, request);
  if (root == MPI_ROOT) {
    CHORUS_TRY_MPI(check_counts(call, c, scounts, displs, c->peers(), "sendcounts", "displs"));
    CHORUS_TRY_MPI(check_data(call, c, sendbuf, 0, st, "sendcount", "sendtype", "sendbuf"));
    st = p->type(st);
    p->stages.push_back([=](Ops& q) {
      for (int j = 0; j < c->peers(); ++j)
        CHORUS_TRY_MPI(post_send(q, c, at(sendbuf, st, displs[j]), scounts[j], st, remote_at(c, j), kScatterv));
      return MPI_SUCCESS;
    });
  } else {
    CHORUS_TRY_MPI(check_data(call, c, recvbuf, rc, rt, "recvcount", "recvtype", "recvbuf"));
    rt = p->type(rt);
    p->stages.push_back([=](Ops& q) { return post_recv(q, c, recvbuf, rc, rt, remote_at(c, root), kScatterv); });
  }
  return run(std::move(p), request);
}

int inter_alltoallv(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int sdispls[],
                    MPI_Datatype st, void* recvbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                    MPI_Request* request) {
  CHORUS_TRY_MPI(check_counts(call, c, scounts, sdispls, c->peers(), "sendcounts", "sdispls"));
  CHORUS_TRY_MPI(check_counts(call, c, rcounts, rdispls, c->peers(), "recvcounts", "rdispls"));
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, 0, st, "sendcount", "sendtype", "sendbuf"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, 0, rt, "recvcount", "recvtype", "recvbuf"));
  auto p = plan_for(c, call, request);
  st = p->type(st);
  rt = p->type(rt);
  p->stages.push_back([=](Ops& q) {
    for (int j = 0; j < c->peers(); ++j) {
      CHORUS_TRY_MPI(post_recv(q, c, at(recvbuf, rt, rdispls[j]), rcounts[j], rt, remote_at(c, j), kAlltoallv));
      CHORUS_TRY_MPI(post_send(q, c, at(sendbuf, st, sdispls[j]), scounts[j], st, remote_at(c, j), kAlltoallv));
    }
    return MPI_SUCCESS;
  });
  return run(std::move(p), request);
}

int inter_alltoallw(const char* call, Comm* c, const void* sendbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype stypes[], void* recvbuf, const int rcounts[], const int rdispls[],
                    const MPI_Datatype rtypes[], MPI_Request* request) {
  const int n = c->peers();
  CHORUS_TRY_MPI(check_counts(call, c, scounts, sdispls, n, "sendcounts", "sdispls"));
  CHORUS_TRY_MPI(check_counts(call, c, rcounts, rdispls, n, "recvcounts", "rdispls"));
  if (n > 0 && (!stypes || !rtypes)) return fail(c, MPI_ERR_ARG, "{}: sendtypes or recvtypes is NULL", call);
  auto* sb = static_cast<const std::byte*>(sendbuf);
  auto* rb = static_cast<std::byte*>(recvbuf);
  auto p = plan_for(c, call, request);
  std::vector<MPI_Datatype> sts, rts;
  for (int j = 0; j < n; ++j) {
    CHORUS_TRY_MPI(check_data(call, c, rb, rcounts[j], rtypes[j], "recvcounts", "recvtypes", "recvbuf"));
    CHORUS_TRY_MPI(check_data(call, c, sb, scounts[j], stypes[j], "sendcounts", "sendtypes", "sendbuf"));
    sts.push_back(p->type(stypes[j]));
    rts.push_back(p->type(rtypes[j]));
  }
  p->stages.push_back([=](Ops& q) {
    for (int j = 0; j < n; ++j) {
      const auto k = static_cast<std::size_t>(j);
      CHORUS_TRY_MPI(post_recv(q, c, rb + rdispls[j], rcounts[j], rts[k], remote_at(c, j), kAlltoallw));
      CHORUS_TRY_MPI(post_send(q, c, sb + sdispls[j], scounts[j], sts[k], remote_at(c, j), kAlltoallw));
    }
    return MPI_SUCCESS;
  });
  return run(std::move(p), request);
}

int inter_reduce_scatter(const char* call, Comm* c, const void* sendbuf, void* recvbuf, const int rcounts[],
                         MPI_Datatype t, MPI_Op op, MPI_Request* request) {
  CHORUS_TRY_MPI(check_counts(call, c, rcounts, nullptr, c->size, "recvcounts", nullptr));
  CHORUS_TRY_MPI(check_op(call, c, op, t));
  const MPI_Aint total = std::accumulate(rcounts, rcounts + c->size, MPI_Aint{0});  // may pass INT_MAX
  CHORUS_TRY_MPI(check_data(call, c, sendbuf, total, t, "recvcounts", "datatype", "sendbuf"));
  CHORUS_TRY_MPI(check_data(call, c, recvbuf, rcounts[c->rank], t, "recvcounts", "datatype", "recvbuf"));
  // This group's vectors reduced go to the other group; the other's come here
  // and are scattered by this group's counts (MPI wants both totals equal).
  auto p = plan_for(c, call, request);
  t = p->type(t);
  void* mine = p->space(t, c->rank == 0 ? total : 0);
  void* theirs = p->space(t, c->rank == 0 ? total : 0);
  std::vector<MPI_Count> counts(rcounts, rcounts + c->size);
  std::vector<MPI_Aint> displs(static_cast<std::size_t>(c->size));
  std::partial_sum(counts.begin(), counts.end() - 1, displs.begin() + 1);
  reduce_and_swap(*p, c, sendbuf, mine, theirs, total, t, op, kReduceScatter);
  const int mine_count = rcounts[c->rank];
  // The counts live in the plan (the stage holds them), as the user's array may go.
  p->stages.push_back([=, counts = std::move(counts), displs = std::move(displs)](Ops& q) {
    return CHORUS_LOCAL(q, Iscatterv_c, Scatterv_init_c, theirs, counts.data(), displs.data(), t, recvbuf,
                        mine_count, t, 0, c->local->handle);
  });
  return run(std::move(p), request);
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

namespace chorus::mpi {

int create_between(const char* call, Comm* local_over, const std::vector<int>& local,
                   const std::vector<int>& remote, std::uint64_t key, MPI_Errhandler eh, MPI_Comm* out,
                   int left_given) {
  for (int w : remote)
    if (std::find(local.begin(), local.end(), w) != local.end())
      return fail(local_over, MPI_ERR_GROUP, "{}: world rank {} is in both the local and the remote group",
                  call, w);
  const bool left = left_given >= 0 ? left_given == 1 : group_before(local, remote);
  std::vector<int> both = left ? local : remote;
  const auto& second = left ? remote : local;
  both.insert(both.end(), second.begin(), second.end());
  Comm* x = exchange_open(both, key, MPI_ERRORS_ARE_FATAL);
  Comm* n = nullptr;
  int rc = intercomm_make(x, local_over, local, remote, left, eh, call, &n);
  exchange_close(x);
  if (rc == MPI_SUCCESS) {
    n->session = local_over->session;  // MPI_Intercomm_create: derived from local_comm
    *out = n->handle;
  }
  return rc;
}

}  // namespace chorus::mpi

extern "C" {

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* lc;
  CHORUS_TRY_MPI(check_comm(call, local_comm, &lc));
  if (lc->inter)
    return fail(lc, MPI_ERR_COMM, "{}: local_comm 0x{:x} is an intercommunicator", call,
                static_cast<unsigned>(local_comm));
  if (!newintercomm) return fail(lc, MPI_ERR_ARG, "{}: newintercomm is NULL", call);
  if (local_leader < 0 || local_leader >= lc->size)
    return fail(lc, MPI_ERR_RANK, "{}: local_leader is {}, must be in [0, {})", call, local_leader, lc->size);
  CHORUS_TRY_MPI(check_tag(call, lc, tag, false));
  // The two leaders swap their groups over peer_comm (with the user's tag, as
  // MPI says), then each tells its group. A leader that finds a bad argument
  // sends -1 instead, so its group fails with it instead of waiting. With the
  // size goes local_comm's context: the exchange context of the new
  // intercommunicator is chosen from both (and the tag), so concurrent creations
  // over the same processes (threads, each with its own local_comm and
  // peer_comm, the same tag: MPICH's threads/comm/idup_comm_gen) never share one.
  std::vector<std::byte> theirs;
  long long head[2] = {-1, 0};  // the remote group's description size, its local_comm's context
  int rc = MPI_SUCCESS;
  if (lc->rank == local_leader) {
    Comm* pc = nullptr;
    rc = check_comm(call, peer_comm, &pc);
    if (rc == MPI_SUCCESS && remote_leader == MPI_PROC_NULL)
      rc = fail(pc, MPI_ERR_RANK, "{}: remote_leader is MPI_PROC_NULL", call);
    if (rc == MPI_SUCCESS) rc = check_rank(call, pc, remote_leader, "remote_leader", false);
    if (rc == MPI_SUCCESS) {
      int w = pc->peer_world(remote_leader);
      if (std::find(lc->world_of.begin(), lc->world_of.end(), w) != lc->world_of.end())
        rc = fail(lc, MPI_ERR_RANK, "{}: remote_leader {} of peer_comm is world rank {}, a member of local_comm",
                  call, remote_leader, w);
    }
    // Descriptions (global ids and addresses), not process numbers: the groups
    // may belong to different jobs (connected, spawned), which number each other
    // differently.
    std::vector<std::byte> mine;
    if (rc == MPI_SUCCESS) rc = describe_group(call, lc, lc->world_of, mine);
    if (rc == MPI_SUCCESS) {
      long long my_head[2] = {static_cast<long long>(mine.size()), static_cast<long long>(lc->ctx_p2p)};
      rc = PMPI_Sendrecv(my_head, 2, MPI_LONG_LONG, remote_leader, tag, head, 2, MPI_LONG_LONG, remote_leader, tag,
                         peer_comm, MPI_STATUS_IGNORE);
    }
    if (rc == MPI_SUCCESS) {
      theirs.resize(static_cast<std::size_t>(std::max(head[0], 0LL)));
      rc = PMPI_Sendrecv(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, remote_leader, tag, theirs.data(),
                         static_cast<int>(theirs.size()), MPI_BYTE, remote_leader, tag, peer_comm, MPI_STATUS_IGNORE);
    }
    if (rc != MPI_SUCCESS) head[0] = -1;
  }
  CHORUS_TRY_MPI(internal_bcast(lc, head, sizeof head, local_leader, call));
  if (head[0] < 0)
    return rc != MPI_SUCCESS ? rc
                             : fail(lc, MPI_ERR_OTHER, "{}: the local leader (rank {} of local_comm) failed", call,
                                    local_leader);
  theirs.resize(static_cast<std::size_t>(head[0]));
  CHORUS_TRY_MPI(internal_bcast(lc, theirs.data(), theirs.size(), local_leader, call));
  std::vector<int> remote;
  CHORUS_TRY_MPI(learn_group(call, lc, theirs, remote));
  const auto ctx_mine = static_cast<std::uint64_t>(lc->ctx_p2p), ctx_theirs = static_cast<std::uint64_t>(head[1]);
  std::uint64_t key = fnv(0x1c7e4c0000000000ULL, static_cast<unsigned>(tag));
  key = fnv(fnv(key, std::min(ctx_mine, ctx_theirs)), std::max(ctx_mine, ctx_theirs));
  return create_between(call, lc, lc->world_of, remote, key, lc->errhandler, newintercomm);
}
CHORUS_ALIAS(MPI_Intercomm_create)

int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
  const char* call = "MPI_Intercomm_merge";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, intercomm, &c));
  if (!c->inter) return not_inter(c, call, intercomm);
  if (!newintracomm) return fail(c, MPI_ERR_ARG, "{}: newintracomm is NULL", call);
  inter_drain(c);
  // The group that passed high = false comes first; with the same value on both
  // sides, the left group does.
  Comm* b = c->bridge;
  std::vector<int> highs(static_cast<std::size_t>(b->size));
  int mine = high ? 1 : 0;
  CHORUS_TRY_MPI(internal_allgather(b, &mine, highs.data(), sizeof mine, call));
  const std::size_t n_left = static_cast<std::size_t>(c->left ? c->size : c->peers());
  bool left_first = highs.front() <= highs[n_left];
  std::vector<int> members(b->world_of.begin() + static_cast<std::ptrdiff_t>(left_first ? 0 : n_left),
                           left_first ? b->world_of.begin() + static_cast<std::ptrdiff_t>(n_left) : b->world_of.end());
  members.insert(members.end(),
                 b->world_of.begin() + static_cast<std::ptrdiff_t>(left_first ? n_left : 0),
                 left_first ? b->world_of.end() : b->world_of.begin() + static_cast<std::ptrdiff_t>(n_left));
  Comm* n;
  CHORUS_TRY_MPI(comm_build(b, call, members, c->errhandler, &n));
  n->session = c->session;
  *newintracomm = n->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Intercomm_merge)

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader, MPI_Group remote_group,
                                      int remote_leader, const char* stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm* newintercomm) {
  const char* call = "MPI_Intercomm_create_from_groups";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Group *lg, *rg;
  CHORUS_TRY_MPI(check_group(call, nullptr, local_group, &lg, "local_group"));
  CHORUS_TRY_MPI(check_group(call, nullptr, remote_group, &rg, "remote_group"));
  if (!newintercomm) return fail(nullptr, MPI_ERR_ARG, "{}: newintercomm is NULL", call);
  if (!stringtag) return fail(nullptr, MPI_ERR_ARG, "{}: stringtag is NULL", call);
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  if (!errhandler_valid(errhandler))
    return fail(nullptr, MPI_ERR_ARG, "{}: errhandler 0x{:x} is not a valid error handler", call,
                static_cast<unsigned>(errhandler));
  if (group_rank_of(*lg, world().rank) == MPI_UNDEFINED)
    return fail(nullptr, MPI_ERR_GROUP, "{}: this process is not in local_group", call);
  if (rg->world.empty())
    return fail(nullptr, MPI_ERR_GROUP, "{}: remote_group is empty", call);
  if (local_leader < 0 || local_leader >= static_cast<int>(lg->world.size()))
    return fail(nullptr, MPI_ERR_RANK, "{}: local_leader is {}, must be in [0, {})", call, local_leader,
                lg->world.size());
  if (remote_leader < 0 || remote_leader >= static_cast<int>(rg->world.size()))
    return fail(nullptr, MPI_ERR_RANK, "{}: remote_leader is {}, must be in [0, {})", call, remote_leader,
                rg->world.size());
  // Both groups are known to every member: no leader exchange is needed. The
  // local group agrees on an exchange context of its own first.
  std::uint64_t key = 0xcbf29ce484222325ULL;
  for (const char* p = stringtag; *p; ++p) key = (key ^ static_cast<unsigned char>(*p)) * 0x100000001b3ULL;
  Comm* lx = exchange_open(lg->world, key ^ 0x10ca1, MPI_ERRORS_ARE_FATAL);
  MPI_Comm out = MPI_COMM_NULL;
  int rc = create_between(call, lx, lg->world, rg->world, key, errhandler, &out);
  exchange_close(lx);
  CHORUS_TRY_MPI(rc);
  comm_lookup(out)->info = *hints;
  comm_lookup(out)->session = lg->session ? lg->session : rg->session;
  *newintercomm = out;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Intercomm_create_from_groups)

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
  const char* call = "MPI_Comm_remote_group";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!c->inter) return not_inter(c, call, comm);
  if (!group) return fail(c, MPI_ERR_ARG, "{}: group is NULL", call);
  *group = group_new(c->remote_of, c->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_remote_group)

}  // extern "C"
