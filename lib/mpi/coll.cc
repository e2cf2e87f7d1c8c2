// Collective calls: argument checks, buffer binding (packing non-contiguous data),
// algorithm selection, then the schedule executor. Blocking = start + wait;
// MPI_I... = start; MPI_..._init = build now, start at every MPI_Start. The shared
// call machinery (coll_call.h) is defined here; the neighbourhood collectives use it
// from coll_neighbor.cc.
#include <algorithm>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <unordered_map>

#include "coll/binding.h"
#include "coll/executor.h"
#include "coll/mailbox.h"
#include "coll/registry.h"
#include "coll/shm.h"
#include "core/counters.h"
#include "core/events.h"
#include "core/hang.h"
#include "core/handle.h"
#include "coll/select.h"
#include "core/log.h"
#include "core/op.h"
#include "core/params.h"
#include "gpu/gpu.h"
#include "mpi/api.h"
#include "mpi/coll_call.h"
#include "mpi/comm_internal.h"
#include "mpi/intercomm.h"
#include "mpi/stream.h"

namespace chorus::mpi {
namespace {

// CHORUS_COLL_COSTS, parsed once; a bad entry is named and left out.
const std::vector<std::size_t>& cost_sizes() {
  static const std::vector<std::size_t> sizes = [] {
    std::vector<std::size_t> v;
    std::string_view text = param::CollCosts();
    while (!text.empty()) {
      const std::size_t comma = text.find(',');
      const std::string_view item = text.substr(0, comma);
      text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
      long long bytes = 0;
      std::string err;
      if (params::parse_bytes(item, bytes, err) && bytes > 0)
        v.push_back(static_cast<std::size_t>(bytes));
      else
        CHORUS_WARN(COLL, "CHORUS_COLL_COSTS: '{}' is not a size ({}); left out", item,
                    err.empty() ? "must be positive" : err);
    }
    return v;
  }();
  return sizes;
}

void log_decision_table_once(const Comm* c, const coll::CommShape& s, std::size_t shm_slot) {
  static std::set<std::tuple<int, int, int, std::size_t>> seen;
  if (c->rank != 0 || !log::enabled(log::INFO, log::COLL)) return;
  if (!seen.insert({s.size, s.ranks_per_node, s.nodes, shm_slot}).second) return;
  CHORUS_LOG(INFO, COLL, "{}", coll::decision_table(s, coll::default_cost_model(), shm_slot));
  if (const std::vector<std::size_t>& sizes = cost_sizes(); !sizes.empty())
    CHORUS_LOG(INFO, COLL, "{}", coll::cost_table(s, coll::default_cost_model(), shm_slot, sizes));
}

}  // namespace

namespace detail {

thread_local bool t_ordered_persistent = false;  // an OrderedPersistent lives on this thread

bool any_order(const Call& c) { return c.form == Form::Persistent && !t_ordered_persistent; }

// Select, build and run (or prepare) the call's schedule.
// The part of a call's CollArgs that comes from its communicator and the params.
void set_comm_args(Call& c) {
  const Comm* comm = c.comm;
  c.args.size = comm->size;
  c.args.rank = comm->rank;
  c.args.kind = c.kind;
  c.args.shape = shape_of(comm);
  c.args.chunk_bytes = param::CollChunkBytes();
  // Any-order persistent calls leave the shared window out: its calls take turns
  // in start order, and ranks may start those in different orders. Only facts
  // every rank shares decide it: a rank's buffers may be device memory where
  // another's are not, and both must choose the same algorithm (device jobs move
  // data to and from the window with device copies).
  // Across nodes, the node windows' slot: only the hierarchical algorithms read it.
  c.args.shm_slot_bytes = any_order(c) ? 0 : comm->shm ? comm->shm->slot() : comm->node_slot;
}

namespace {

bool is_rooted(coll::CollKind k) {
  using K = coll::CollKind;
  return k == K::Bcast || k == K::Reduce || k == K::Gather || k == K::Gatherv || k == K::Scatter ||
         k == K::Scatterv;
}

// CHORUS_CHECK_COLL's first value: the collective and its op, as kind << 32 | op.
std::string show_call(std::int64_t v) {
  const auto kind = static_cast<coll::CollKind>(v >> 32);
  const auto op = static_cast<MPI_Op>(static_cast<std::uint32_t>(v));
  std::string s = fmt::format("{}", coll::kind_name(kind));
  if (op != MPI_OP_NULL) s += fmt::format(" with {}", op_name(op));
  return s;
}

std::string show_sig(std::int64_t v) {
  if (v == 0) return "no data";
  const auto h = static_cast<MPI_Datatype>(v);
  if (const TypeInfo* t = type_info(h); t && t->predefined) return t->name;
  return fmt::format("a mixed signature (hash 0x{:x})", static_cast<std::uint64_t>(v));
}

// The algorithm as agreed: its collective in the high bits, its index in the
// registry below.
std::int64_t algo_value(const coll::AlgoInfo* a) {
  const auto all = coll::algorithms(a->kind);
  return static_cast<std::int64_t>(a->kind) << 16 | static_cast<std::int64_t>(a - all.data());
}
std::string show_algo(std::int64_t v) {
  const auto all = coll::algorithms(static_cast<coll::CollKind>(v >> 16));
  const std::size_t i = static_cast<std::size_t>(v & 0xffff);
  return i < all.size() ? std::string(all[i].name) : fmt::format("algorithm #{}", i);
}

std::string show_root(std::int64_t v) { return v < 0 ? "none" : fmt::format("{}", v); }

// Every collective (not the library's own) agrees on the same four values, so
// calls of different kinds still exchange the same agreement messages, and a
// mismatch stops all of them before any data moves.
// CHORUS_CHECK_COLL applies to this call (never to the library's own).
bool call_checked(const Call& c) { return !c.internal && c.comm->size >= 2 && param::CheckColl(); }

void add_call_check(Call& c) {
  if (!call_checked(c)) return;
  auto& a = c.job->agree;
  const bool rooted = a.n > 0;  // check_root added the root (and maybe a count)
  const std::int64_t root = rooted ? a.values[0] : -1;
  const int count_class = rooted && a.n > 1 ? MPI_ERR_COUNT : MPI_ERR_OTHER;
  a = coll::Agreement{};
  a.call = c.name;
  a.add("the collective", static_cast<std::int64_t>(c.kind) << 32 | static_cast<std::uint32_t>(c.check_op),
        MPI_ERR_OTHER, show_call);
  a.add("root", root, MPI_ERR_ROOT, show_root);
  a.add("the datatype signature", c.check_sig, MPI_ERR_OTHER, show_sig);
  a.add("the count of basic elements", c.check_count, count_class);
}

}  // namespace

void check_block(Call& c, const TypeInfo* t, std::size_t count) {
  if (!t) return;
  if (t->basic != MPI_DATATYPE_NULL) {
    c.check_sig = static_cast<std::int64_t>(t->basic);
  } else {
    std::uint64_t h = 0xcbf29ce484222325ULL;
    for (const auto& run : t->runs) h = (h ^ run.size) * 0x100000001b3ULL ^ run.n;
    c.check_sig = static_cast<std::int64_t>(h | 1ULL << 62);  // never a handle
  }
  c.check_count = static_cast<std::int64_t>(count) * t->elements;
}

int submit(Call& c) {
  Comm* comm = c.comm;
  if (!c.bound.error.empty()) return fail(comm, MPI_ERR_NO_MEM, "{}: {}", c.name, c.bound.error);
  add_call_check(c);
  set_comm_args(c);
  if (!c.internal) log_decision_table_once(comm, c.args.shape, c.args.shm_slot_bytes);
  coll::Choice choice;
  Status s = coll::schedule_job(c.args, c.internal, *c.job, choice);
  if (s != Status::Ok && !choice.algo)
    return fail(comm, s == Status::InvalidArg ? MPI_ERR_ARG : MPI_ERR_INTERN, "{}: {}", c.name, choice.note);
  if (s != Status::Ok)
    return fail(comm, to_mpi_class(s), "{}: algorithm {} could not build its schedule: {}", c.name,
                choice.algo->name, to_string(s));
  const coll::AlgoInfo* algo = choice.algo;
  CHORUS_LOG(TRACE, COLL, "{} on {} ({} ranks): {} elements of {} B -> {} ({}{}, est. {:.2f} us)",
             c.name, comm->name.empty() ? fmt::format("comm 0x{:x}", unsigned(comm->handle)) : comm->name,
             comm->size, c.args.count, c.args.elem_size, algo->name, choice.note,
             any_order(c) && comm->shm ? "; persistent: not on the shared window" : "",
             choice.cost_us);
  // With the call check on, the ranks also agree on the algorithm: a choice that
  // differs between ranks (an input of the cost model that is not the same
  // everywhere) is an error naming both, not wrong data or a hang.
  if (call_checked(c))
    c.job->agree.add("the algorithm", algo_value(algo), MPI_ERR_INTERN, show_algo);
  c.job->comm = comm;
  c.job->blocking = c.form == Form::Blocking;
  coll::count_use(*algo);
  if (events::armed(events::Id::CollAlgorithm))
    events::raise(events::Id::CollAlgorithm,
                  {comm->handle, static_cast<int>(c.args.kind), reinterpret_cast<std::intptr_t>(algo),
                   static_cast<std::int64_t>(c.args.count), static_cast<std::int64_t>(c.args.elem_size),
                   c.internal ? 1 : 0});
  // A blocking call whose schedule has nothing to do (no data: a count of 0, say)
  // and nothing to agree on is done: a request, the executor and a wait would
  // change nothing. Its number is counted, as every collective's.
  if (c.form == Form::Blocking && c.job->schedule().rounds.empty() && !c.job->agree.n && c.bound.packs.empty() &&
      c.bound.unpacks.empty() && !c.bound.device) {
    ++comm->coll_seq;
    counters::add(counters::Id::CollNoDataCalls);
    return MPI_SUCCESS;
  }
  finish_job(c.bound);
  p2p::ApiLock lock;
  Request* r = requests().get();
  r->comm = comm;
  r->persistent = c.form == Form::Persistent;
  c.job->any_order = any_order(c);
  // An ordered persistent call takes its number at each start (coll_start).
  std::uint32_t seq = c.job->any_order ? comm->persistent_seq++ : c.form == Form::Persistent ? 0 : comm->coll_seq++;
  s = coll::start(std::move(c.job), seq, r, c.form == Form::Persistent);
  if (s != Status::Ok) {
    requests().put(r);
    return fail_status(comm, s, c.name);
  }
  if (c.form == Form::Persistent) r->active = false;
  if (c.form != Form::Blocking) {
    *c.request = requests().handle(r);
    return MPI_SUCCESS;
  }
  hang::Site site{.call = c.name, .comm = comm, .seq = static_cast<std::int64_t>(seq),
                  .root = is_rooted(c.kind) ? comm->world_rank(c.args.root) : -1, .pending = 1};
  hang::Scope waiting(site);
  p2p::wait_until([r] { return r->complete; });
  int err = r->error;
  requests().put(r);
  if (err != MPI_SUCCESS)
    return error_has_message(err) ? raise(comm, err) : fail(comm, err, "{}: a transfer failed", c.name);
  return MPI_SUCCESS;
}

// ---- argument checks ------------------------------------------------------------

int begin(Call& c, MPI_Comm comm) {
  CHORUS_TRY_MPI(check_running(c.name));
  CHORUS_TRY_MPI(check_comm(c.name, comm, &c.comm));
  if (c.comm->inter) {
    if (c.kind == CollKind::Scan || c.kind == CollKind::Exscan)
      return fail(c.comm, MPI_ERR_COMM, "{}: comm 0x{:x} is an intercommunicator; MPI defines no scan on one",
                  c.name, static_cast<unsigned>(comm));
    return fail(c.comm, MPI_ERR_INTERN, "{}: comm 0x{:x} is an intercommunicator, which intercomm.cc serves",
                c.name, static_cast<unsigned>(comm));
  }
  if (c.form != Form::Blocking && !c.request)
    return fail(c.comm, MPI_ERR_REQUEST, "{}: request is NULL", c.name);
  // The communicator's CHORUS_COLL_SHM_CALLS-th blocking collective sets its
  // shared window up, before any check of this call's arguments: every rank
  // counts the same calls (collectives on a communicator run in the same order
  // everywhere, and a blocking one matches only blocking ones), so all set it up
  // together. Until then its calls go without the window: the fast paths
  // (mailbox, inline allreduce) see none and come here. A communicator made for
  // a few calls costs no /dev/shm and none of the set-up's time (comm_shm_setup).
  if (c.form == Form::Blocking && !c.internal && c.comm->shm_calls && --c.comm->shm_calls == 0)
    CHORUS_TRY_MPI(comm_shm_setup(c.comm, c.name));
  return MPI_SUCCESS;
}

int check_typed(Call& c, const void* buf, int count, MPI_Datatype t, const TypeInfo** ti,
                const char* cnt_arg, const char* type_arg, const char* buf_arg) {
  CHORUS_TRY_MPI(check_count(c.name, c.comm, count, cnt_arg));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, t, ti, type_arg));
  if (!(*ti)->committed && !(*ti)->predefined)
    return fail(c.comm, MPI_ERR_TYPE, "{}: {} {} is not committed", c.name, type_arg, type_label(t));
  if (buf != MPI_IN_PLACE) CHORUS_TRY_MPI(check_buffer(c.name, c.comm, buf, count, buf_arg));
  return MPI_SUCCESS;
}

// MPI_IN_PLACE stands for a send buffer only (a scatter root's receive buffer):
// `buf` named `arg` may not be it.
int check_not_in_place(Call& c, const void* buf, const char* arg) {
  if (buf != MPI_IN_PLACE) return MPI_SUCCESS;
  return fail(c.comm, MPI_ERR_BUFFER, "{}: {} may not be MPI_IN_PLACE", c.name, arg);
}

int check_root(Call& c, int root) {
  if (root < 0 || root >= c.comm->size)
    return fail(c.comm, MPI_ERR_ROOT, "{}: root is {}, must be in [0, {})", c.name, root, c.comm->size);
  c.args.root = root;
  // Every rank must pass the same root: agree on it before the schedule runs
  // (executor.h, Agreement), so a mismatch is an error on every rank, not a hang.
  if (c.comm->size > 1 && param::CheckRoots()) {
    c.job->agree.call = c.name;
    c.job->agree.add("root", root, MPI_ERR_ROOT);
  }
  return MPI_SUCCESS;
}

int check_op(Call& c, MPI_Op op, MPI_Datatype t) {
  std::string why;
  Status s = op_check(op, t, &why);
  if (s != Status::Ok) return fail(c.comm, to_mpi_class(s), "{}: {}", c.name, why);
  c.args.commutative = op_is_commutative(op);
  return MPI_SUCCESS;
}

int check_v(Call& c, const int counts[], const int displs[], const char* counts_arg,
            const char* displs_arg, std::vector<std::size_t>& out_c, std::vector<std::size_t>& out_d,
            int n) {
  if (n < 0) n = c.comm->size;
  if (!counts && n > 0) return fail(c.comm, MPI_ERR_ARG, "{}: {} is NULL", c.name, counts_arg);
  if (displs_arg && !displs && n > 0) return fail(c.comm, MPI_ERR_ARG, "{}: {} is NULL", c.name, displs_arg);
  out_c.resize(static_cast<std::size_t>(n));
  out_d.resize(static_cast<std::size_t>(n));
  std::size_t run = 0;
  for (int i = 0; i < n; ++i) {
    if (counts[i] < 0)
      return fail(c.comm, MPI_ERR_COUNT, "{}: {}[{}] is {}, must be non-negative", c.name, counts_arg, i,
                  counts[i]);
    int d = displs_arg ? displs[i] : static_cast<int>(run);
    if (d < 0)
      return fail(c.comm, MPI_ERR_ARG, "{}: {}[{}] is {}, must be non-negative", c.name, displs_arg, i, d);
    out_c[static_cast<std::size_t>(i)] = static_cast<std::size_t>(counts[i]);
    out_d[static_cast<std::size_t>(i)] = static_cast<std::size_t>(d);
    run += static_cast<std::size_t>(counts[i]);
  }
  return MPI_SUCCESS;
}

int check_types(Call& c, const MPI_Datatype types[], const std::vector<std::size_t>& counts,
                const char* types_arg, std::vector<const TypeInfo*>& out) {
  out.assign(counts.size(), nullptr);
  bool any = std::any_of(counts.begin(), counts.end(), [](std::size_t n) { return n > 0; });
  if (!types && any) return fail(c.comm, MPI_ERR_ARG, "{}: {} is NULL", c.name, types_arg);
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (!counts[i]) continue;
    std::string arg = fmt::format("{}[{}]", types_arg, i);
    CHORUS_TRY_MPI(check_type(c.name, c.comm, types[i], &out[i], arg.c_str()));
    if (!out[i]->committed && !out[i]->predefined)
      return fail(c.comm, MPI_ERR_TYPE, "{}: {} {} is not committed", c.name, arg, type_label(types[i]));
  }
  return MPI_SUCCESS;
}

int signature_mismatch(Call& c, std::size_t send_bytes, std::size_t recv_bytes) {
  return fail(c.comm, MPI_ERR_TRUNCATE,
              "{}: send signature of {} bytes does not match the {} bytes expected on receive", c.name,
              send_bytes, recv_bytes);
}

std::vector<std::size_t> scaled(const std::vector<std::size_t>& v, std::size_t k) {
  std::vector<std::size_t> out(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = v[i] * k;
  return out;
}

std::vector<std::size_t> packed_bytes(const std::vector<std::size_t>& counts,
                                      const std::vector<const TypeInfo*>& types) {
  std::vector<std::size_t> out(counts.size(), 0);
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i]) out[i] = counts[i] * types[i]->size;
  return out;
}

}  // namespace detail

namespace {

using namespace detail;

// ---- the calls -----------------------------------------------------------------

int barrier(Call& c, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  return submit(c);
}

// ---- the mailbox (coll/mailbox.h) ---------------------------------------------

// What a fast_rc function (lib/mpi/gen/collectives.txt) returns when it did not run the call.
constexpr int kNotFast = -1;

// Whether CHORUS_BCAST_ALGO / CHORUS_REDUCE_ALGO forces an algorithm that can run
// on this communicator. Judged on what every rank shares (the communicator's shape
// and window, one element), never on this call's arguments: every rank of a
// correct call must take the same mailbox number.
bool forced_runs(const Call& c) {
  const coll::AlgoInfo* a = coll::forced_algorithm(c.kind);
  if (!a || !a->supports) return a != nullptr;
  coll::CollArgs x;
  x.kind = c.kind;
  x.size = c.comm->size;
  x.shape = shape_of(c.comm);
  x.shm_slot_bytes = c.comm->shm ? c.comm->shm->slot() : 0;
  x.count = 1;
  return a->supports(x);
}

// A blocking MPI_Bcast or MPI_Reduce of the user's on a communicator whose window
// has a mailbox: every such call takes a mailbox number, whatever its size, so
// that the ranks' numbers agree. Not where CHORUS_BCAST_ALGO / CHORUS_REDUCE_ALGO
// forces an algorithm that can run here: forced means run (the same variable on
// every rank, as any forced algorithm needs; before, the mailbox took such calls up
// to CHORUS_COLL_MAILBOX_STREAM and the variable did nothing there). A name the
// catalog lacks, or an algorithm for several nodes, leaves the mailbox on.
bool mailbox_on(const Call& c) {
  return c.form == Form::Blocking && !c.internal && c.comm->shm && c.comm->shm->has_mailbox() &&
         c.comm->size > 1 && !forced_runs(c);
}

// `n` elements of `t` at `user` in device memory through host memory: the span
// of user memory they touch is copied to a host buffer first when `in` (as `fn`
// reads it, or writes only part of it), `fn` runs on the host address standing for
// `user`, and the span is copied back when `out`.
template <typename F>
Status via_host(const TypeInfo& t, const void* user, std::size_t n, bool in, bool out, F&& fn) {
  std::ptrdiff_t start = 0;
  std::size_t span = 0;
  type_user_span(t, n, &start, &span);
  std::vector<std::byte> tmp(span);
  auto* dev = static_cast<std::byte*>(const_cast<void*>(user)) + start;
  if (in) CHORUS_TRY(gpu::copy(tmp.data(), dev, span));
  fn(tmp.data() - start);
  return out ? gpu::copy(dev, tmp.data(), span) : Status::Ok;
}

bool user_on_device(const TypeInfo& t, const void* user) {
  return gpu::on_device(static_cast<const std::byte*>(user) + type_data_offset(t));
}

// `n` elements of `t` at `user` (host or device memory) into `out`, packed.
Status mailbox_pack(const TypeInfo& t, const void* user, std::size_t n, std::byte* out) {
  if (!n || !t.size) return Status::Ok;
  auto pack = [&](const void* u) { type_pack(t, u, n, out); };
  if (user_on_device(t, user)) return via_host(t, user, n, true, false, pack);
  pack(user);
  return Status::Ok;
}

// The reverse: packed bytes into `n` elements of `t` at `user`.
Status mailbox_unpack(const TypeInfo& t, const std::byte* in, std::size_t n, void* user) {
  if (!n || !t.size) return Status::Ok;
  auto unpack = [&](void* u) { type_unpack(t, in, n, u); };
  // On the device, the gaps between the elements stay as they are.
  if (user_on_device(t, user)) return via_host(t, user, n, !type_is_contiguous(t, n), true, unpack);
  unpack(user);
  return Status::Ok;
}

// A device copy of this rank's failed: the call fails here (its peers' part is done).
int mailbox_device_error(Comm* comm, const char* name, Status s) {
  return fail(comm, MPI_ERR_OTHER, "{}: copying between the device buffer and the window failed ({}): {}", name,
              to_string(s), gpu::last_error());
}

// This rank's next mailbox call: a bcast or reduce of `bytes` from `root`, Mode::Job.
coll::mailbox::Call mailbox_of(Comm* comm, const char* name, coll::CollKind kind, int root, std::size_t bytes) {
  coll::ShmWindow* w = comm->shm.get();
  return coll::mailbox::Call{.w = w, .name = name, .rank = comm->rank, .size = comm->size, .seq = w->mbox_take(),
                             .root = root, .bytes = bytes, .mode = coll::mailbox::Mode::Job,
                             .kind = kind == coll::CollKind::Bcast ? coll::mailbox::Kind::Bcast
                                                                   : coll::mailbox::Kind::Reduce};
}

// This rank's mailbox call for `c` (bytes: c.args.count bytes of data, or the
// element count times the element size for a reduce). elem: the bytes of the
// call's elements when its data may move through the entries (a bcast: 1), else
// 0. The mode follows from the byte count, the element size and the parameters,
// which the ranks of a correct call share (a derived type's layout, or a buffer
// on the device, does not change it: the data is staged then).
coll::mailbox::Call mailbox_call(Call& c, std::size_t bytes, std::size_t elem) {
  using coll::mailbox::Mode;
  coll::ShmWindow* w = c.comm->shm.get();
  coll::mailbox::Call m = mailbox_of(c.comm, c.name, c.kind, c.args.root, bytes);
  if (!elem) return m;
  if (bytes <= w->mbox_bytes()) {
    m.mode = Mode::Data;
  } else if (std::size_t chunk = coll::mailbox::stream_chunk(w->mbox_bytes(), elem);
             chunk && bytes <= param::CollMailboxStream() &&
             (m.kind == coll::mailbox::Kind::Reduce || m.size == 2 || bytes <= param::CollMailboxStreamBcast()) &&
             (bytes + chunk - 1) / chunk <= coll::mailbox::kStreamChunksMax) {
    m.mode = Mode::Stream;
    m.chunk = chunk;
  }
  return m;
}

int mailbox_mismatch(Comm* comm, const coll::mailbox::Call& m, coll::mailbox::Verdict& v) {
  if (m.mode == coll::mailbox::Mode::Stream) coll::mailbox::abandon(m);
  coll::mailbox::finish(m);
  CHORUS_LOG(INFO, COLL, "{}", v.msg);
  return fail(comm, v.cls, "{}", v.msg);
}

hang::Site mailbox_site(Comm* comm, const char* name, int root, std::int64_t seq) {
  return hang::Site{.call = name, .comm = comm, .seq = seq, .root = comm->world_rank(root),
                    .pending = 1};
}

// A call too large for the mailbox: every rank writes its entry and reads all the
// others' (the call's root/count check, in place of the window agreement: a rank
// whose count put it in the mailbox never Signals in the window). Then the caller
// runs the chosen algorithm and ends the mailbox call (coll::mailbox::finish).
int mailbox_check(Call& c, const coll::mailbox::Call& m) {
  hang::Site site = mailbox_site(c.comm, c.name, c.args.root, c.comm->coll_seq);
  hang::Scope waiting(site);
  coll::mailbox::claim(m);
  coll::mailbox::post(m);
  coll::mailbox::Verdict v;
  if (!coll::mailbox::await_all(m, &v)) {
    ++c.comm->coll_seq;  // as submit() would have
    return mailbox_mismatch(c.comm, m, v);
  }
  c.job->agree = coll::Agreement{};
  return MPI_SUCCESS;
}

// A rank whose data goes into its entry: published, marked Failed when reading
// its (device) buffer failed, so the ranks that wait for it fail too instead of
// taking what the entry held before.
int mailbox_post_data(Comm* comm, const coll::mailbox::Call& m, Status st) {
  coll::mailbox::Call posted = m;
  if (st != Status::Ok) posted.mode = coll::mailbox::Mode::Failed;
  coll::mailbox::post(posted);
  coll::mailbox::finish(m);
  return st == Status::Ok ? MPI_SUCCESS : mailbox_device_error(comm, m.name, st);
}

// The start of a mailbox call that moves data (Mode::Data or Mode::Stream).
void mailbox_data_begin(Comm* comm, const coll::mailbox::Call& m) {
  ++comm->coll_seq;  // counted like every collective, so the ranks' numbers agree
  counters::add(counters::Id::CollCalls);  // as coll::count_use counts the others
  if (log::enabled(log::TRACE, log::COLL))
    CHORUS_LOG(TRACE, COLL, "{} on comm 0x{:x} ({} ranks): {} B, root {} -> the window's mailbox (call {}{})",
               m.name, unsigned(comm->handle), comm->size, m.bytes, m.root, m.seq,
               m.mode == coll::mailbox::Mode::Stream ? fmt::format(", in chunks of {} B", m.chunk) : "");
}

// A streamed call this rank gives up midway (a device copy failed): its entry says
// GaveUp, so the ranks that wait for it stop.
int stream_abandon(Comm* comm, const coll::mailbox::Call& m, Status st) {
  coll::mailbox::abandon(m);
  coll::mailbox::finish(m);
  return mailbox_device_error(comm, m.name, st);
}

// The chunks of a streamed call, packed host bytes: a writer copies them from
// `from` into its entry once its readers took what the area held; a reader (of a
// bcast) copies each from the root's entry into `to` once the root wrote it.
bool stream_chunks(const coll::mailbox::Call& m, bool writer, const std::byte* from, std::byte* to,
                   coll::mailbox::Verdict* v) {
  const std::size_t chunks = (m.bytes + m.chunk - 1) / m.chunk;
  for (std::size_t i = 0; i < chunks; ++i) {
    const std::size_t off = i * m.chunk, len = std::min(m.chunk, m.bytes - off);
    if (writer) {
      if (!coll::mailbox::stream_wait(m, i >= coll::mailbox::kStreamAhead ? i + 1 - coll::mailbox::kStreamAhead : 0, v))
        return false;
      std::memcpy(coll::mailbox::chunk_area(m, m.rank, i), from + off, len);
    } else {
      if (!coll::mailbox::stream_wait(m, i + 1, v)) return false;
      std::memcpy(to + off, coll::mailbox::chunk_area(m, m.root, i), len);
    }
    coll::mailbox::stream_mark(m, i + 1);
  }
  return true;
}

// MPI_Bcast in Mode::Stream: the root writes its data chunk after chunk, the
// others take each chunk as it comes. The user's bytes move directly when they
// are host memory and contiguous, else through a packed host copy.
int bcast_stream(Comm* comm, const coll::mailbox::Call& m, void* buf, std::size_t n, const TypeInfo* t) {
  mailbox_data_begin(comm, m);
  hang::Site site = mailbox_site(comm, m.name, m.root, static_cast<std::int64_t>(comm->coll_seq) - 1);
  hang::Scope waiting(site);
  coll::mailbox::claim(m);
  coll::mailbox::post(m);
  const bool root = comm->rank == m.root;
  std::vector<std::byte> staged;
  std::byte* user = static_cast<std::byte*>(buf) + type_data_offset(*t);
  const bool direct = type_is_contiguous(*t, n) && !user_on_device(*t, buf);
  if (!direct) {
    staged.resize(m.bytes);
    user = staged.data();
    if (root)
      if (Status st = mailbox_pack(*t, buf, n, user); st != Status::Ok) return stream_abandon(comm, m, st);
  }
  coll::mailbox::Verdict v;
  if (!root && !coll::mailbox::await_root(m, &v)) return mailbox_mismatch(comm, m, v);
  if (!stream_chunks(m, root, user, user, &v)) return mailbox_mismatch(comm, m, v);
  const Status st = root || direct ? Status::Ok : mailbox_unpack(*t, user, n, buf);
  coll::mailbox::finish(m);
  return st == Status::Ok ? MPI_SUCCESS : mailbox_device_error(comm, m.name, st);
}

int bcast_mailbox(Comm* comm, const coll::mailbox::Call& m, void* buf, std::size_t n, const TypeInfo* t) {
  mailbox_data_begin(comm, m);
  hang::Site site = mailbox_site(comm, m.name, m.root, static_cast<std::int64_t>(comm->coll_seq) - 1);
  hang::Scope waiting(site);
  std::byte* mine = coll::mailbox::claim(m);
  if (comm->rank == m.root) return mailbox_post_data(comm, m, mailbox_pack(*t, buf, n, mine));
  coll::mailbox::post(m);
  coll::mailbox::Verdict v;
  const std::byte* in = coll::mailbox::await_root(m, &v);
  if (!in) return mailbox_mismatch(comm, m, v);
  const Status st = mailbox_unpack(*t, in, n, buf);
  coll::mailbox::finish(m);
  return st == Status::Ok ? MPI_SUCCESS : mailbox_device_error(comm, m.name, st);
}

// Whether a reduce may move its data through the mailbox (any rank decides the same).
bool mailbox_reducible(const TypeInfo* t, std::size_t n, MPI_Op op) {
  return t->predefined && type_is_contiguous(*t, n) && handle::kind(static_cast<int>(op)) == handle::Builtin;
}

// The root of a reduce through the mailbox: out = in_0 (op) (in_1 (op) (... in_p-1)),
// in rank order, chunk after chunk as the others write them (Mode::Stream), or
// at once from their entries (Mode::Data, after await_all).
int reduce_root(Comm* comm, const coll::mailbox::Call& m, const void* sendbuf, void* recvbuf, const TypeInfo* t,
                MPI_Op op) {
  const std::size_t bytes = m.bytes;
  const bool stream = m.mode == coll::mailbox::Mode::Stream;
  // The root's own input and the result: the user's buffers when they are host
  // memory and do not overlap, else host copies.
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const auto* in = static_cast<const std::byte*>(in_place ? recvbuf : sendbuf);
  std::vector<std::byte> own, acc;
  if (bytes && gpu::on_device(in)) {
    own.resize(bytes);
    if (Status st = gpu::copy(own.data(), in, bytes); st != Status::Ok) {
      if (stream) return stream_abandon(comm, m, st);  // the others wait for its marks
      coll::mailbox::finish(m);
      return mailbox_device_error(comm, m.name, st);
    }
    in = own.data();
  }
  const bool direct = !in_place && !gpu::on_device(recvbuf);
  std::byte* out = direct ? static_cast<std::byte*>(recvbuf) : (acc.resize(bytes), acc.data());
  const int p = comm->size, me = comm->rank;
  const std::size_t chunk = stream ? m.chunk : bytes;
  coll::mailbox::Verdict v;
  for (std::size_t i = 0, off = 0; off < bytes; ++i, off += chunk) {
    const std::size_t len = std::min(chunk, bytes - off);
    if (stream && !coll::mailbox::stream_wait(m, i + 1, &v)) return mailbox_mismatch(comm, m, v);
    auto at = [&](int q) -> const std::byte* {
      if (q == me) return in + off;
      return stream ? coll::mailbox::chunk_area(m, q, i) : m.w->entry_data(q, m.seq, m.bytes);
    };
    std::memcpy(out + off, at(p - 1), len);
    for (int q = p - 1; q-- > 0;) op_apply(op, t->handle, at(q), out + off, len / t->size);
    if (stream) coll::mailbox::stream_mark(m, i + 1);
  }
  Status st = Status::Ok;
  if (!direct && bytes)
    st = gpu::on_device(recvbuf) ? gpu::copy(recvbuf, out, bytes) : (std::memcpy(recvbuf, out, bytes), Status::Ok);
  coll::mailbox::finish(m);
  return st == Status::Ok ? MPI_SUCCESS : mailbox_device_error(comm, m.name, st);
}

// MPI_Reduce through the mailbox (Mode::Data or Mode::Stream): the others write
// their input, into their entry and return, or chunk after chunk as the root
// takes them; the root reduces (reduce_root).
int reduce_mailbox(Comm* comm, const coll::mailbox::Call& m, const void* sendbuf, void* recvbuf, const TypeInfo* t,
                   MPI_Op op) {
  const std::size_t bytes = m.bytes;
  const bool stream = m.mode == coll::mailbox::Mode::Stream;
  mailbox_data_begin(comm, m);
  hang::Site site = mailbox_site(comm, m.name, m.root, static_cast<std::int64_t>(comm->coll_seq) - 1);
  hang::Scope waiting(site);
  std::byte* mine = coll::mailbox::claim(m);
  coll::mailbox::Verdict v;
  if (comm->rank != m.root && !stream) {
    Status st = Status::Ok;
    if (bytes && gpu::on_device(sendbuf)) st = gpu::copy(mine, sendbuf, bytes);
    else if (bytes) std::memcpy(mine, sendbuf, bytes);
    return mailbox_post_data(comm, m, st);
  }
  coll::mailbox::post(m);
  if (comm->rank != m.root) {
    const auto* from = static_cast<const std::byte*>(sendbuf);
    std::vector<std::byte> own;
    if (gpu::on_device(sendbuf)) {
      own.resize(bytes);
      if (Status st = gpu::copy(own.data(), sendbuf, bytes); st != Status::Ok) return stream_abandon(comm, m, st);
      from = own.data();
    }
    if (!stream_chunks(m, true, from, nullptr, &v)) return mailbox_mismatch(comm, m, v);
    coll::mailbox::finish(m);
    return MPI_SUCCESS;
  }
  if (!coll::mailbox::await_all(m, &v)) return mailbox_mismatch(comm, m, v);
  return reduce_root(comm, m, sendbuf, recvbuf, t, op);
}

// A blocking MPI_Bcast (slot 0) or MPI_Reduce (1) whose data goes through the
// mailbox's entries: its arguments, kept for bcast_repeat and reduce_repeat when
// its type is predefined and contiguous (a type the user frees cannot come back
// under the same handle with another layout).
void remember_rooted(Comm* comm, int slot, int count, const TypeInfo* t, int root, MPI_Op op, bool in_place) {
  Comm::InlineRooted& r = comm->inline_rooted[slot];
  if (count <= 0 || !t->predefined || !type_is_contiguous(*t, static_cast<std::size_t>(count))) {
    r = {};
    return;
  }
  r = {.count = count, .type = t->handle, .root = root, .op = op, .in_place = in_place};
}

// The communicator of a blocking MPI_Bcast or MPI_Reduce that may repeat the
// last one through the mailbox (slot as in remember_rooted), its cached
// arguments matching count, type, root and op; else null.
Comm* rooted_repeat_comm(MPI_Comm handle, int slot, int count, MPI_Datatype type, int root, MPI_Op op) {
  if (g_phase != Phase::Running) return nullptr;
  Comm* comm = comm_lookup(handle);
  if (!comm || !comm->shm) return nullptr;
  const Comm::InlineRooted& r = comm->inline_rooted[slot];
  // r.count > 0: nothing is cached until a call is (arguments that match the
  // empty cache, a count of -1 say, are the full path's to refuse).
  if (r.count <= 0 || count != r.count || type != r.type || root != r.root || op != r.op ||
      !comm->shm->has_mailbox())
    return nullptr;
  if (g_stream_error_pending.load(std::memory_order_acquire)) return nullptr;
  return comm;
}

// MPI_Bcast with the arguments of the last one that went through the mailbox's
// entries on this communicator (remember_rooted): already checked, so only what
// can change per call is looked at (the buffer and its memory kind, a pending
// stream error) before the mailbox call itself. kNotFast: take the full path.
int bcast_repeat(void* buf, int count, MPI_Datatype type, int root, MPI_Comm handle) {
  p2p::ApiLock lock;
  Comm* comm = rooted_repeat_comm(handle, 0, count, type, root, MPI_OP_NULL);
  if (!comm || !buf || buf == MPI_IN_PLACE || gpu::on_device(buf)) return kNotFast;
  const TypeInfo* t = type_info(type);
  const auto n = static_cast<std::size_t>(count);
  coll::mailbox::Call m = mailbox_of(comm, "MPI_Bcast", coll::CollKind::Bcast, root, n * t->size);
  counters::add(counters::Id::CollRepeatCalls);
  m.mode = coll::mailbox::Mode::Data;
  return bcast_mailbox(comm, m, buf, n, t);
}

// MPI_Reduce the same way (the root's in-place-ness repeats too).
int reduce_repeat(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
                  MPI_Comm handle) {
  p2p::ApiLock lock;
  Comm* comm = rooted_repeat_comm(handle, 1, count, type, root, op);
  if (!comm || !sendbuf) return kNotFast;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (comm->rank == root) {
    if (in_place != comm->inline_rooted[1].in_place || !recvbuf || recvbuf == MPI_IN_PLACE || sendbuf == recvbuf ||
        gpu::on_device(recvbuf))
      return kNotFast;
  } else if (in_place || recvbuf == MPI_IN_PLACE) {
    return kNotFast;  // the full path refuses MPI_IN_PLACE there
  }
  if (!in_place && gpu::on_device(sendbuf)) return kNotFast;
  const TypeInfo* t = type_info(type);
  coll::mailbox::Call m =
      mailbox_of(comm, "MPI_Reduce", coll::CollKind::Reduce, root, static_cast<std::size_t>(count) * t->size);
  counters::add(counters::Id::CollRepeatCalls);
  m.mode = coll::mailbox::Mode::Data;
  return reduce_mailbox(comm, m, sendbuf, recvbuf, t, op);
}

int bcast(Call& c, void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  const TypeInfo* t;
  CHORUS_TRY_MPI(check_not_in_place(c, buf, "buffer"));
  CHORUS_TRY_MPI(check_typed(c, buf, count, type, &t, "count", "datatype", "buffer"));
  CHORUS_TRY_MPI(check_root(c, root));
  auto n = static_cast<std::size_t>(count);
  check_block(c, t, n);
  c.args.elem_size = 1;
  c.args.count = n * t->size;
  if (c.job->agree.n) c.job->agree.add("the byte count (count x type size)", static_cast<std::int64_t>(c.args.count), MPI_ERR_COUNT);
  bool is_root = c.comm->rank == root;
  std::optional<coll::mailbox::Call> m;
  if (mailbox_on(c)) {
    m = mailbox_call(c, c.args.count, 1);
    if (m->mode == coll::mailbox::Mode::Data) {
      remember_rooted(c.comm, 0, count, t, root, MPI_OP_NULL, false);
      return bcast_mailbox(c.comm, *m, buf, n, t);
    }
    if (m->mode == coll::mailbox::Mode::Stream) return bcast_stream(c.comm, *m, buf, n, t);
    CHORUS_TRY_MPI(mailbox_check(c, *m));
  }
  c.job->recv = bind(c.bound, buf, n, t, is_root, !is_root);
  const int rc = submit(c);
  if (m) coll::mailbox::finish(*m);
  return rc;
}

// A small blocking MPI_Allreduce on a communicator with a shared window, when the
// choice cached for these arguments is shared_memory_flat and no other window
// call is queued: run it at once (coll::run_shm_allreduce_flat) instead of through
// a job and a request. Same choice, same window steps, same result; the per-call
// bookkeeping it skips is most of an 8 B allreduce. False: take the job path.
bool allreduce_inline(Call& c, const void* sendbuf, void* recvbuf, std::size_t n, const TypeInfo* t,
                      MPI_Op op) {
  Comm* comm = c.comm;
  if (c.kind != coll::CollKind::Allreduce || c.form != Form::Blocking || c.internal || !comm->shm || n == 0 ||
      param::CheckColl())
    return false;
  coll::ShmWindow& w = *comm->shm;
  const std::size_t bytes = n * t->size;
  if (bytes > w.slot() || !t->predefined || !type_is_contiguous(*t, n) ||
      handle::kind(static_cast<int>(op)) != handle::Builtin)
    return false;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  const void* in = in_place ? recvbuf : sendbuf;
  if (gpu::on_device(in) || gpu::on_device(recvbuf)) return false;
  set_comm_args(c);
  c.args.elem_size = t->size;
  c.args.count = n;
  c.args.in_place = in_place;
  p2p::ApiLock lock;
  const CachedSchedule* e = cached_schedule(c.args);
  if (!e || e->algo != flat_allreduce() || !w.quiet()) return false;
  ++comm->coll_seq;  // counted like every collective, so the ranks' numbers agree
  if (log::enabled(log::TRACE, log::COLL))
    CHORUS_LOG(TRACE, COLL, "{} on comm 0x{:x} ({} ranks): {} elements of {} B -> {} (run inline)", c.name,
               unsigned(comm->handle), comm->size, n, t->size, e->algo->name);
  run_allreduce_inline(comm, in, recvbuf, n, t->handle, t->size, op);
  comm->inline_allreduce = {static_cast<int>(n), t->handle, op, in_place, t->size};
  return true;
}

// MPI_Allreduce with the arguments of the last one allreduce_inline ran on this
// communicator (same count, predefined type, builtin op, in-place-ness): already
// checked and chosen, so only what can change per call is looked at (the buffers'
// memory kind, a pending stream error, other window calls queued).
bool allreduce_repeat(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                      MPI_Comm handle) {
  if (g_phase != Phase::Running) return false;
  // Under the lock from the start: another thread may create or free
  // communicators (the table) or run an allreduce that rewrites the cached arguments.
  p2p::ApiLock lock;
  Comm* comm = comm_lookup(handle);
  if (!comm || !comm->shm) return false;
  const Comm::InlineAllreduce& m = comm->inline_allreduce;
  const bool in_place = sendbuf == MPI_IN_PLACE;
  // m.count > 0: nothing cached yet (a count of -1 matching the empty cache is
  // the full path's to refuse).
  if (m.count <= 0 || count != m.count || type != m.type || op != m.op || in_place != m.in_place || !recvbuf ||
      recvbuf == MPI_IN_PLACE || !sendbuf || sendbuf == recvbuf)
    return false;
  if (g_stream_error_pending.load(std::memory_order_acquire)) return false;
  const void* in = in_place ? recvbuf : sendbuf;
  if (gpu::on_device(in) || gpu::on_device(recvbuf)) return false;
  if (!comm->shm->quiet()) return false;
  ++comm->coll_seq;
  if (log::enabled(log::TRACE, log::COLL))
    CHORUS_LOG(TRACE, COLL, "MPI_Allreduce on comm 0x{:x} ({} ranks): {} elements of {} B -> "
               "shared_memory_flat (run inline, repeated arguments)", unsigned(comm->handle), comm->size,
               count, m.elem);
  counters::add(counters::Id::CollRepeatCalls);
  run_allreduce_inline(comm, in, recvbuf, static_cast<std::size_t>(count), type, m.elem, op);
  return true;
}

// The user's arguments of a call coll_inline may run (own_block: Comm::InlineRepeat).
Comm::InlineRepeat repeat_args(int scount, MPI_Datatype stype, int rcount, MPI_Datatype rtype,
                               std::ptrdiff_t own_block = -1) {
  Comm::InlineRepeat r;
  r.scount = scount;
  r.stype = stype;
  r.rcount = rcount;
  r.rtype = rtype;
  r.own_block = own_block;
  return r;
}

// A small blocking MPI_Allgather, MPI_Alltoall or MPI_Reduce_scatter_block on a
// communicator with a shared window whose cached choice for these arguments
// (c.args, set by the caller) is a window_only schedule (shared_memory_flat),
// when both sides are contiguous predefined types in host memory and no other
// window call is queued: run it at once, as allreduce_inline does, and keep the
// arguments for coll_repeat. `sn` and `rn` elements of `st` and `rt` at `send`
// (null: in place) and `recv`; `op` for a reduction; `r` the arguments as the
// user passed them. False: take the job path.
bool coll_inline(Call& c, const void* send, const TypeInfo* st, std::size_t sn, void* recv, const TypeInfo* rt,
                 std::size_t rn, MPI_Op op, Comm::InlineRepeat r) {
  Comm* comm = c.comm;
  if (c.form != Form::Blocking || c.internal || !comm->shm || comm->size < 2 || param::CheckColl()) return false;
  auto plain = [](const TypeInfo* t, std::size_t n) { return t->predefined && type_is_contiguous(*t, n); };
  if (!plain(rt, rn) || (send && !plain(st, sn))) return false;
  if ((send && gpu::on_device(send)) || gpu::on_device(recv)) return false;
  if (op != MPI_OP_NULL && handle::kind(static_cast<int>(op)) != handle::Builtin) return false;
  set_comm_args(c);
  const CachedSchedule* e = cached_schedule(c.args);
  if (!e || !e->inline_ok || !comm->shm->quiet()) return false;
  ++comm->coll_seq;  // counted like every collective, so the ranks' numbers agree
  if (log::enabled(log::TRACE, log::COLL))
    CHORUS_LOG(TRACE, COLL, "{} on comm 0x{:x} ({} ranks): {} B per rank -> {} (run inline)", c.name,
               unsigned(comm->handle), comm->size, c.args.count * c.args.elem_size, e->algo->name);
  r.op = op;
  r.in_place = !send;
  r.elem = rt->size;
  r.sched = e->sched;
  r.algo = e->algo;
  const int slot = c.kind == CollKind::Allgather ? 0 : c.kind == CollKind::Alltoall ? 1 : 2;
  comm->inline_repeat[slot] = std::move(r);
  run_schedule_inline(comm, c.name, *e->sched, *e->algo, send, recv, rt->handle, rt->size, op);
  return true;
}

// A blocking MPI_Allgather, MPI_Alltoall or MPI_Reduce_scatter_block of no data
// (a count of 0, which MPI makes the same on every rank) whose arguments all pass
// is done here, as in Open MPI and MPICH: no call record, job or algorithm (each
// cost more than the call itself). Its number is counted, as every collective's.
// Whatever this does not accept (a bad handle, CHORUS_CHECK_COLL, a window still
// counting down to its set-up, which every rank must count alike) takes the full
// way, which checks and reports it.
bool no_data_call(const char* name, Comm* comm, const void* sendbuf, int scount, MPI_Datatype stype,
                  const void* recvbuf, MPI_Datatype rtype, bool reduction, MPI_Op op) {
  if (comm->inter || comm->shm_calls || recvbuf == MPI_IN_PLACE || param::CheckColl() ||
      g_stream_error_pending.load(std::memory_order_acquire))
    return false;
  auto usable = [](MPI_Datatype h) {
    const TypeInfo* t = type_info(h);
    return t && (t->committed || t->predefined);
  };
  if (!usable(rtype) || (sendbuf != MPI_IN_PLACE && (scount != 0 || !usable(stype)))) return false;
  if (reduction) {  // (MPI_OP_NULL included: op_check refuses it)
    std::string why;
    if (op_check(op, rtype, &why) != Status::Ok) return false;
  }
  ++comm->coll_seq;
  counters::add(counters::Id::CollCalls);
  counters::add(counters::Id::CollNoDataCalls);
  CHORUS_LOG(TRACE, COLL, "{} on comm 0x{:x} ({} ranks): no data on any rank, done without an algorithm", name,
             unsigned(comm->handle), comm->size);
  return true;
}

// A blocking MPI_Allgather (slot 0), MPI_Alltoall (1) or
// MPI_Reduce_scatter_block (2) with the arguments of the last one coll_inline
// ran on this communicator: already checked and chosen, so only what can change
// per call is looked at (the buffers and their memory kind, a pending stream
// error, other window calls queued), as in allreduce_repeat.
bool coll_repeat(int slot, const char* name, const void* sendbuf, int scount, MPI_Datatype stype, void* recvbuf,
                 int rcount, MPI_Datatype rtype, MPI_Op op, MPI_Comm handle) {
  if (g_phase != Phase::Running) return false;
  p2p::ApiLock lock;
  Comm* comm = comm_lookup(handle);
  if (!comm) return false;
  if (rcount == 0 && no_data_call(name, comm, sendbuf, scount, stype, recvbuf, rtype, slot == 2, op)) return true;
  if (!comm->shm) return false;
  const Comm::InlineRepeat& m = comm->inline_repeat[slot];
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (!m.sched || rcount != m.rcount || rtype != m.rtype || op != m.op || in_place != m.in_place ||
      (!in_place && (scount != m.scount || stype != m.stype)))
    return false;
  if (!recvbuf || recvbuf == MPI_IN_PLACE || !sendbuf || sendbuf == recvbuf ||
      (m.own_block >= 0 && sendbuf == static_cast<const char*>(recvbuf) + m.own_block))
    return false;
  if (param::CheckColl() || g_stream_error_pending.load(std::memory_order_acquire)) return false;
  const void* send = in_place ? nullptr : sendbuf;
  if ((send && gpu::on_device(send)) || gpu::on_device(recvbuf)) return false;
  if (!comm->shm->quiet()) return false;
  ++comm->coll_seq;
  if (log::enabled(log::TRACE, log::COLL))
    CHORUS_LOG(TRACE, COLL, "{} on comm 0x{:x} ({} ranks): -> {} (run inline, repeated arguments)", name,
               unsigned(comm->handle), comm->size, m.algo->name);
  counters::add(counters::Id::CollRepeatCalls);
  run_schedule_inline(comm, name, *m.sched, *m.algo, send, recvbuf, rtype, m.elem, op);
  return true;
}

bool allgather_repeat(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                      MPI_Datatype recvtype, MPI_Comm comm) {
  return coll_repeat(0, "MPI_Allgather", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL,
                     comm);
}
bool alltoall_repeat(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                     MPI_Datatype recvtype, MPI_Comm comm) {
  return coll_repeat(1, "MPI_Alltoall", sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, MPI_OP_NULL,
                     comm);
}
bool reduce_scatter_block_repeat(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                                 MPI_Comm comm) {
  return coll_repeat(2, "MPI_Reduce_scatter_block", sendbuf, recvcount, type, recvbuf, recvcount, type, op, comm);
}

// MPI forbids a send buffer that is the receive buffer (MPI_IN_PLACE says that):
// caught here, before anything starts, so the call returns MPI_ERR_BUFFER
// instead of reading what it overwrites (or, for a rooted call only the root
// got wrong, running a collective the others never join). `slot` is where this
// rank's own block lies in the gathered or scattered buffer, or null.
int check_alias(Call& c, const void* sendbuf, const void* recvbuf, const void* slot, std::size_t bytes) {
  if (bytes == 0 || sendbuf == MPI_IN_PLACE || !sendbuf || !recvbuf) return MPI_SUCCESS;
  if (sendbuf != recvbuf && sendbuf != slot) return MPI_SUCCESS;
  return fail(c.comm, MPI_ERR_BUFFER,
              "{}: sendbuf and recvbuf are the same memory ({}); MPI_IN_PLACE as the send buffer says "
              "\"in place\"", c.name, sendbuf);
}
const void* at_block(const void* base, std::size_t index, std::size_t count, const TypeInfo* t) {
  return static_cast<const char*>(base) + static_cast<std::ptrdiff_t>(index * count) * t->extent;
}

int reduction(Call& c, const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
              MPI_Comm comm, int root, bool rooted) {
  CHORUS_TRY_MPI(begin(c, comm));
  const TypeInfo* t;
  CHORUS_TRY_MPI(check_typed(c, sendbuf, count, type, &t, "count", "datatype", "sendbuf"));
  bool has_recv = !rooted || c.comm->rank == root;
  if (rooted) CHORUS_TRY_MPI(check_root(c, root));
  if (has_recv && recvbuf != MPI_IN_PLACE) CHORUS_TRY_MPI(check_buffer(c.name, c.comm, recvbuf, count, "recvbuf"));
  CHORUS_TRY_MPI(check_op(c, op, type));
  if (sendbuf == MPI_IN_PLACE && !has_recv)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is only valid at the root (rank {})", c.name, root);
  CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  // Elements of a type of no bytes (MPI_Type_contiguous(0, ...)) carry nothing to
  // reduce: the call runs as one of count 0 (the algorithms divide by the size).
  auto n = t->size ? static_cast<std::size_t>(count) : 0;
  if (has_recv) CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, nullptr, n * t->size));
  check_block(c, t, n);
  c.check_op = op;
  if (!rooted && allreduce_inline(c, sendbuf, recvbuf, n, t, op)) return MPI_SUCCESS;
  c.args.elem_size = std::max<std::size_t>(t->size, 1);  // (a type of no bytes: count 0)
  c.args.count = n;
  c.args.in_place = sendbuf == MPI_IN_PLACE;
  if (rooted && c.job->agree.n) c.job->agree.add("count", count, MPI_ERR_COUNT);
  std::optional<coll::mailbox::Call> m;
  if (rooted && mailbox_on(c)) {
    m = mailbox_call(c, n * t->size, mailbox_reducible(t, n, op) ? std::max<std::size_t>(t->size, 1) : 0);
    if (m->mode == coll::mailbox::Mode::Data)
      remember_rooted(c.comm, 1, count, t, root, op, c.args.in_place);
    if (m->mode == coll::mailbox::Mode::Data || m->mode == coll::mailbox::Mode::Stream)
      return reduce_mailbox(c.comm, *m, sendbuf, recvbuf, t, op);
    CHORUS_TRY_MPI(mailbox_check(c, *m));
  }
  c.job->reduce = reduce_fn(c.bound, op, t);
  c.job->reduce_commutes = coll::any_order_reduction(c.kind, op);
  if (!c.args.in_place) c.job->send = bind(c.bound, sendbuf, n, t, true, false);
  if (has_recv) c.job->recv = bind(c.bound, recvbuf, n, t, c.args.in_place, true);
  const int rc = submit(c);
  if (m) coll::mailbox::finish(*m);
  return rc;
}

int allgather_like(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, bool rooted) {
  CHORUS_TRY_MPI(begin(c, comm));
  if (rooted) CHORUS_TRY_MPI(check_root(c, root));
  bool is_root = !rooted || c.comm->rank == root;
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is only valid at the root (rank {})", c.name, root);
  const TypeInfo *st = nullptr, *rt = nullptr;
  if (!in_place) CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
  if (is_root) CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  if (is_root) CHORUS_TRY_MPI(check_typed(c, recvbuf, recvcount, recvtype, &rt, "recvcount", "recvtype", "recvbuf"));
  std::size_t block = is_root ? static_cast<std::size_t>(recvcount) * rt->size
                              : static_cast<std::size_t>(sendcount) * st->size;
  if (!in_place && is_root && static_cast<std::size_t>(sendcount) * st->size != block)
    return signature_mismatch(c, static_cast<std::size_t>(sendcount) * st->size, block);
  if (is_root && !in_place)
    CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf,
                               at_block(recvbuf, static_cast<std::size_t>(c.comm->rank),
                                        static_cast<std::size_t>(recvcount), rt),
                               block));
  if (in_place) check_block(c, rt, static_cast<std::size_t>(recvcount));
  else check_block(c, st, static_cast<std::size_t>(sendcount));
  c.args.elem_size = 1;
  c.args.count = block;
  c.args.in_place = in_place;
  auto p = static_cast<std::size_t>(c.comm->size);
  if (!rooted && coll_inline(c, in_place ? nullptr : sendbuf, st, static_cast<std::size_t>(sendcount), recvbuf, rt,
                             static_cast<std::size_t>(recvcount) * p, MPI_OP_NULL,
                             repeat_args(sendcount, sendtype, recvcount, recvtype,
                                         static_cast<std::ptrdiff_t>(c.comm->rank) * recvcount *
                                             static_cast<std::ptrdiff_t>(rt->extent))))
    return MPI_SUCCESS;
  if (!in_place) c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount), st, true, false);
  if (is_root) c.job->recv = bind(c.bound, recvbuf, static_cast<std::size_t>(recvcount) * p, rt, in_place, true);
  return submit(c);
}

int scatter(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  CHORUS_TRY_MPI(check_root(c, root));
  bool is_root = c.comm->rank == root;
  bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is only valid at the root (rank {})", c.name, root);
  const TypeInfo *st = nullptr, *rt = nullptr;
  if (is_root) CHORUS_TRY_MPI(check_not_in_place(c, sendbuf, "sendbuf"));
  if (is_root) CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
  if (!in_place) CHORUS_TRY_MPI(check_typed(c, recvbuf, recvcount, recvtype, &rt, "recvcount", "recvtype", "recvbuf"));
  std::size_t block = !in_place ? static_cast<std::size_t>(recvcount) * rt->size
                                : static_cast<std::size_t>(sendcount) * st->size;
  if (is_root && static_cast<std::size_t>(sendcount) * st->size != block)
    return signature_mismatch(c, static_cast<std::size_t>(sendcount) * st->size, block);
  if (is_root && !in_place)  // (the receive buffer against the root's send buffer)
    CHORUS_TRY_MPI(check_alias(c, recvbuf, sendbuf,
                               at_block(sendbuf, static_cast<std::size_t>(c.comm->rank),
                                        static_cast<std::size_t>(sendcount), st),
                               block));
  if (in_place) check_block(c, st, static_cast<std::size_t>(sendcount));
  else check_block(c, rt, static_cast<std::size_t>(recvcount));
  c.args.elem_size = 1;
  c.args.count = block;
  c.args.in_place = in_place;
  auto p = static_cast<std::size_t>(c.comm->size);
  if (is_root) c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount) * p, st, true, false);
  if (!in_place) c.job->recv = bind(c.bound, recvbuf, static_cast<std::size_t>(recvcount), rt, false, true);
  return submit(c);
}

int alltoall(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
             int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  bool in_place = sendbuf == MPI_IN_PLACE;
  const TypeInfo *st = nullptr, *rt = nullptr;
  CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  CHORUS_TRY_MPI(check_typed(c, recvbuf, recvcount, recvtype, &rt, "recvcount", "recvtype", "recvbuf"));
  std::size_t block = static_cast<std::size_t>(recvcount) * rt->size;
  if (!in_place) {
    CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
    if (static_cast<std::size_t>(sendcount) * st->size != block)
      return signature_mismatch(c, static_cast<std::size_t>(sendcount) * st->size, block);
  }
  if (!in_place) CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, nullptr, block));
  if (in_place) check_block(c, rt, static_cast<std::size_t>(recvcount));
  else check_block(c, st, static_cast<std::size_t>(sendcount));
  c.args.elem_size = 1;
  c.args.count = block;
  c.args.in_place = in_place;
  auto p = static_cast<std::size_t>(c.comm->size);
  if (coll_inline(c, in_place ? nullptr : sendbuf, st, static_cast<std::size_t>(sendcount) * p, recvbuf, rt,
                  static_cast<std::size_t>(recvcount) * p, MPI_OP_NULL,
                  repeat_args(sendcount, sendtype, recvcount, recvtype)))
    return MPI_SUCCESS;
  if (!in_place) c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount) * p, st, true, false);
  c.job->recv = bind(c.bound, recvbuf, static_cast<std::size_t>(recvcount) * p, rt, in_place, true);
  return submit(c);
}

// Allgatherv (rooted = false) and Gatherv (rooted = true).
int gatherv(Call& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm,
            bool rooted) {
  CHORUS_TRY_MPI(begin(c, comm));
  if (rooted) CHORUS_TRY_MPI(check_root(c, root));
  bool is_root = !rooted || c.comm->rank == root;
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is only valid at the root (rank {})", c.name, root);
  const TypeInfo *st = nullptr, *rt = nullptr;
  if (!in_place) CHORUS_TRY_MPI(check_typed(c, sendbuf, sendcount, sendtype, &st, "sendcount", "sendtype", "sendbuf"));
  std::vector<std::size_t> counts, disp;
  auto me = static_cast<std::size_t>(c.comm->rank);
  if (is_root) {
    CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
    CHORUS_TRY_MPI(check_v(c, recvcounts, displs, "recvcounts", "displs", counts, disp));
    CHORUS_TRY_MPI(check_type(c.name, c.comm, recvtype, &rt, "recvtype"));
    if (!in_place && static_cast<std::size_t>(sendcount) * st->size != counts[me] * rt->size)
      return signature_mismatch(c, static_cast<std::size_t>(sendcount) * st->size, counts[me] * rt->size);
    if (!in_place)
      CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, at_block(recvbuf, disp[me], 1, rt), counts[me] * rt->size));
  } else if (rooted) {
    // Non-roots know only their own block; the algorithm needs every count, which
    // MPI gives to the root alone: the schedule moves per-rank blocks the root sizes.
    counts.assign(static_cast<std::size_t>(c.comm->size), 0);
    disp.assign(static_cast<std::size_t>(c.comm->size), 0);
  }
  check_block(c, in_place ? rt : st, 0);
  c.check_count = -1;  // blocks differ per rank
  c.args.elem_size = 1;
  c.args.in_place = in_place;
  c.args.counts_everywhere = !rooted;
  std::size_t es = is_root ? rt->size : st->size;
  c.args.counts = scaled(counts, es);
  c.args.displs = scaled(disp, es);
  if (rooted && !is_root) c.args.counts[me] = static_cast<std::size_t>(sendcount) * st->size;
  if (!in_place) c.job->send = bind(c.bound, sendbuf, static_cast<std::size_t>(sendcount), st, true, false);
  if (is_root) c.job->recv = bind_blocks(c.bound, recvbuf, counts, disp, rt, in_place, true);
  return submit(c);
}

int scatterv(Call& c, const void* sendbuf, const int sendcounts[], const int displs[],
             MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root,
             MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  CHORUS_TRY_MPI(check_root(c, root));
  bool is_root = c.comm->rank == root;
  bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !is_root)
    return fail(c.comm, MPI_ERR_BUFFER, "{}: MPI_IN_PLACE is only valid at the root (rank {})", c.name, root);
  const TypeInfo *st = nullptr, *rt = nullptr;
  if (!in_place) CHORUS_TRY_MPI(check_typed(c, recvbuf, recvcount, recvtype, &rt, "recvcount", "recvtype", "recvbuf"));
  std::vector<std::size_t> counts(static_cast<std::size_t>(c.comm->size), 0), disp(counts.size(), 0);
  auto me = static_cast<std::size_t>(c.comm->rank);
  if (is_root) {
    CHORUS_TRY_MPI(check_not_in_place(c, sendbuf, "sendbuf"));
    CHORUS_TRY_MPI(check_v(c, sendcounts, displs, "sendcounts", "displs", counts, disp));
    CHORUS_TRY_MPI(check_type(c.name, c.comm, sendtype, &st, "sendtype"));
    if (!in_place && counts[me] * st->size != static_cast<std::size_t>(recvcount) * rt->size)
      return signature_mismatch(c, counts[me] * st->size, static_cast<std::size_t>(recvcount) * rt->size);
    if (!in_place)
      CHORUS_TRY_MPI(check_alias(c, recvbuf, sendbuf, at_block(sendbuf, disp[me], 1, st), counts[me] * st->size));
  }
  check_block(c, in_place ? st : rt, 0);
  c.check_count = -1;  // blocks differ per rank
  c.args.elem_size = 1;
  c.args.in_place = in_place;
  c.args.counts_everywhere = false;
  std::size_t es = is_root ? st->size : rt->size;
  c.args.counts = scaled(counts, es);
  c.args.displs = scaled(disp, es);
  if (!is_root) c.args.counts[me] = static_cast<std::size_t>(recvcount) * rt->size;
  if (is_root) c.job->send = bind_blocks(c.bound, sendbuf, counts, disp, st, true, false);
  if (!in_place) c.job->recv = bind(c.bound, recvbuf, static_cast<std::size_t>(recvcount), rt, false, true);
  return submit(c);
}

int alltoallv(Call& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
              MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
              MPI_Datatype recvtype, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  bool in_place = sendbuf == MPI_IN_PLACE;
  const TypeInfo *st = nullptr, *rt = nullptr;
  std::vector<std::size_t> sc, sd, rc, rd;
  CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  CHORUS_TRY_MPI(check_v(c, recvcounts, rdispls, "recvcounts", "rdispls", rc, rd));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, recvtype, &rt, "recvtype"));
  if (in_place) {
    sc = rc;
    sd = rd;
    st = rt;
  } else {
    CHORUS_TRY_MPI(check_v(c, sendcounts, sdispls, "sendcounts", "sdispls", sc, sd));
    CHORUS_TRY_MPI(check_type(c.name, c.comm, sendtype, &st, "sendtype"));
  }
  if (!in_place) {
    std::size_t any = 0;
    for (std::size_t k = 0; k < sc.size(); ++k) any += sc[k] + rc[k];
    CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, nullptr, any));
  }
  check_block(c, st, 0);
  c.check_count = -1;  // blocks differ per rank
  c.args.elem_size = 1;
  c.args.in_place = in_place;
  c.args.counts = scaled(rc, rt->size);
  c.args.displs = scaled(rd, rt->size);
  c.args.send_counts = scaled(sc, st->size);
  c.args.send_displs = scaled(sd, st->size);
  if (!in_place) c.job->send = bind_blocks(c.bound, sendbuf, sc, sd, st, true, false);
  c.job->recv = bind_blocks(c.bound, recvbuf, rc, rd, rt, in_place, true);
  return submit(c);
}

// MPI_Alltoallw: a type and a byte displacement per peer. Runs as Alltoallv on packed
// bytes (elem_size 1): each side's blocks are bound with their own types, in the
// user's memory when all are contiguous, else staged back to back. In place, the
// receive side's counts, displacements and types describe both.
int alltoallw(Call& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
              const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[],
              const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  bool in_place = sendbuf == MPI_IN_PLACE;
  const int p = c.comm->size;
  std::vector<std::size_t> sc, rc, sp, rp;
  std::vector<std::ptrdiff_t> sd, rd;
  std::vector<const TypeInfo*> st, rt;
  CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  CHORUS_TRY_MPI(check_w(c, p, recvcounts, rdispls, recvtypes, "recvcounts", "rdispls", "recvtypes", rc, rd, rt));
  if (!in_place) {
    CHORUS_TRY_MPI(check_w(c, p, sendcounts, sdispls, sendtypes, "sendcounts", "sdispls", "sendtypes", sc, sd, st));
    std::size_t any = 0;
    for (std::size_t k = 0; k < sc.size(); ++k) any += sc[k] + rc[k];
    CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, nullptr, any));
  }
  c.args.elem_size = 1;
  c.args.in_place = in_place;
  c.job->recv = bind_blocks_w(c.bound, recvbuf, rc, rd, rt, in_place, true, rp);
  c.args.counts = packed_bytes(rc, rt);
  c.args.displs = rp;
  if (in_place) {
    c.args.send_counts = c.args.counts;
    c.args.send_displs = c.args.displs;
  } else {
    c.job->send = bind_blocks_w(c.bound, sendbuf, sc, sd, st, true, false, sp);
    c.args.send_counts = packed_bytes(sc, st);
    c.args.send_displs = sp;
  }
  return submit(c);
}

int reduce_scatter(Call& c, const void* sendbuf, void* recvbuf, const int recvcounts[], int block,
                   MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  CHORUS_TRY_MPI(begin(c, comm));
  const TypeInfo* t;
  CHORUS_TRY_MPI(check_not_in_place(c, recvbuf, "recvbuf"));
  CHORUS_TRY_MPI(check_type(c.name, c.comm, type, &t, "datatype"));
  CHORUS_TRY_MPI(check_op(c, op, type));
  auto p = static_cast<std::size_t>(c.comm->size);
  auto me = static_cast<std::size_t>(c.comm->rank);
  std::size_t total, mine;
  if (recvcounts) {
    std::vector<std::size_t> rc, rd;
    CHORUS_TRY_MPI(check_v(c, recvcounts, nullptr, "recvcounts", nullptr, rc, rd));
    c.args.counts = rc;
    c.args.displs = rd;
    total = std::accumulate(rc.begin(), rc.end(), std::size_t{0});
    mine = rc[me];
  } else {
    CHORUS_TRY_MPI(check_count(c.name, c.comm, block, "recvcount"));
    c.args.count = static_cast<std::size_t>(block);
    total = c.args.count * p;
    mine = c.args.count;
  }
  if (t->size == 0) {  // nothing to reduce (see reduction)
    std::fill(c.args.counts.begin(), c.args.counts.end(), 0);
    std::fill(c.args.displs.begin(), c.args.displs.end(), 0);
    c.args.count = total = mine = 0;
  }
  bool in_place = sendbuf == MPI_IN_PLACE;
  if (!in_place) CHORUS_TRY_MPI(check_buffer(c.name, c.comm, sendbuf, static_cast<int>(std::min<std::size_t>(total, 1)), "sendbuf"));
  CHORUS_TRY_MPI(check_buffer(c.name, c.comm, recvbuf, static_cast<int>(std::min<std::size_t>(in_place ? total : mine, 1)), "recvbuf"));
  if (!in_place) CHORUS_TRY_MPI(check_alias(c, sendbuf, recvbuf, nullptr, total * t->size));
  check_block(c, t, total);
  c.check_op = op;
  c.args.elem_size = std::max<std::size_t>(t->size, 1);
  c.args.in_place = in_place;
  if (!recvcounts && t->size &&
      coll_inline(c, in_place ? nullptr : sendbuf, t, total, recvbuf, t, in_place ? total : mine, op,
                  repeat_args(block, type, block, type)))
    return MPI_SUCCESS;
  c.job->reduce = reduce_fn(c.bound, op, t);
  c.job->reduce_commutes = coll::any_order_reduction(c.kind, op);
  if (!in_place) c.job->send = bind(c.bound, sendbuf, total, t, true, false);
  c.job->recv = bind(c.bound, recvbuf, in_place ? total : mine, t, in_place, true);
  return submit(c);
}

}  // namespace

// ---- collectives for the library's own use ------------------------------------

int internal_allreduce(Comm* c, void* buf, int count, MPI_Datatype type, MPI_Op op, const char* call) {
  Call k(call, CollKind::Allreduce, Form::Blocking, nullptr);
  k.internal = true;
  return reduction(k, MPI_IN_PLACE, buf, count, type, op, c->handle, 0, false);
}

int internal_iallreduce(Comm* c, void* buf, int count, MPI_Datatype type, MPI_Op op, const char* call,
                        Request** out) {
  MPI_Request h = MPI_REQUEST_NULL;
  Call k(call, CollKind::Allreduce, Form::Nonblocking, &h);
  k.internal = true;
  CHORUS_TRY_MPI(reduction(k, MPI_IN_PLACE, buf, count, type, op, c->handle, 0, false));
  *out = requests().lookup(h);
  return MPI_SUCCESS;
}

int internal_allgather(Comm* c, const void* sendbuf, void* recvbuf, std::size_t bytes_per_rank,
                       const char* call) {
  Call k(call, CollKind::Allgather, Form::Blocking, nullptr);
  k.internal = true;
  return allgather_like(k, sendbuf, static_cast<int>(bytes_per_rank), MPI_BYTE, recvbuf,
                        static_cast<int>(bytes_per_rank), MPI_BYTE, 0, c->handle, false);
}

int internal_bcast(Comm* c, void* buf, std::size_t bytes, int root, const char* call) {
  Call k(call, CollKind::Bcast, Form::Blocking, nullptr);
  k.internal = true;
  return bcast(k, buf, static_cast<int>(bytes), MPI_BYTE, root, c->handle);
}

void coll_init() { coll::executor_init(make_error); }

OrderedPersistent::OrderedPersistent() { t_ordered_persistent = true; }
OrderedPersistent::~OrderedPersistent() { t_ordered_persistent = false; }
bool OrderedPersistent::active() { return t_ordered_persistent; }

namespace {
thread_local const char* t_call_name_as = nullptr;
}  // namespace
CallNameAs::CallNameAs(const char* name) { t_call_name_as = name; }
CallNameAs::~CallNameAs() { t_call_name_as = nullptr; }
const char* CallNameAs::take(const char* dflt) {
  const char* n = t_call_name_as;
  if (!n) return dflt;  // every collective call asks: no write then
  t_call_name_as = nullptr;
  return n;
}

// MPI_Start on a persistent collective.
int coll_start(Request* r) {
  if (r->comm->inter) return inter_start(r);
  r->active = true;
  Status s = coll::restart(r, r->comm->coll_seq);
  return s == Status::Ok ? MPI_SUCCESS : fail_status(r->comm, s, "MPI_Start");
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;
using namespace chorus::mpi::detail;

namespace {

// MPI_Reduce_scatter_block on an intercommunicator: MPI_Reduce_scatter with
// recvcount for every rank of the local group.
int inter_reduce_scatter_block(const char* call, Comm* ic, const void* sendbuf, void* recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Request* request) {
  return inter_reduce_scatter(call, ic, sendbuf, recvbuf,
                              std::vector<int>(static_cast<std::size_t>(ic->size), recvcount).data(), datatype, op,
                              request);
}

}  // namespace

// The entry points (lib/mpi/gen/collectives.txt, written at build time).
extern "C" {
#include "coll_gen.inc"
}  // extern "C"
