// Binding a collective call's user buffers to the packed bytes its schedule sees
// (coll/binding.h), device data included, and the cache of built schedules.
#include "coll/binding.h"

#include <algorithm>
#include <unordered_map>

#include <fmt/format.h>

#include "coll/shm.h"
#include "core/counters.h"
#include "core/handle.h"
#include "core/hang.h"
#include "core/log.h"
#include "core/op.h"
#include "gpu/gpu.h"
#include "p2p/p2p.h"

namespace chorus::coll {
namespace {

void* dev_alloc(std::size_t n) {
  void* p = nullptr;
  return ok(gpu::device_alloc(n, &p)) ? p : nullptr;
}
void dev_free(void* p) { gpu::device_free(p); }
bool dev_copy(void* d, const void* s, std::size_t n) { return ok(gpu::copy(d, s, n)); }
std::string dev_error() { return gpu::last_error(); }
const DeviceOps kDeviceOps{dev_alloc, dev_free, dev_copy, dev_error};

void note_device_error(Job* job, const char* what) {
  if (job->local_error.empty()) job->local_error = std::string(what) + ": " + gpu::last_error();
}

// A reduction the host function defines (user ops, types without a kernel) on
// device data: both operands are staged on the host and the result copied back.
bool reduce_staged(const ReduceFn& host, const std::byte* in, std::byte* inout, std::size_t bytes) {
  std::vector<std::byte> a(bytes), b(bytes);
  if (!ok(gpu::copy(a.data(), in, bytes)) || !ok(gpu::copy(b.data(), inout, bytes))) return false;
  host(a.data(), b.data(), bytes);
  return ok(gpu::copy(inout, b.data(), bytes));
}

// A predefined op by a CUDA kernel; an operand in host memory is staged to device
// scratch first (a host send buffer with a device receive buffer, say).
bool reduce_kernel(MPI_Op op, MPI_Datatype basic, std::size_t es, const std::byte* in, std::byte* inout,
                   std::size_t bytes) {
  void* ta = nullptr;
  void* tb = nullptr;
  bool good = true;
  const void* a = in;
  void* b = inout;
  if (!gpu::on_device(in)) {
    good = (ta = dev_alloc(bytes)) && dev_copy(ta, in, bytes);
    a = ta;
  }
  if (good && !gpu::on_device(inout)) {
    good = (tb = dev_alloc(bytes)) && dev_copy(tb, inout, bytes);
    b = tb;
  }
  if (good) good = ok(gpu::reduce(op, basic, a, b, bytes / es));
  if (good && tb) good = dev_copy(inout, tb, bytes);
  if (ta) dev_free(ta);
  if (tb) dev_free(tb);
  return good;
}

// Wrap a job's host reduction so that it also serves device data: CUDA kernels for
// predefined ops on types that have one (basic != MPI_DATATYPE_NULL), else staged.
ReduceFn with_device(Job* job, ReduceFn host, MPI_Op op, MPI_Datatype basic, std::size_t es) {
  if (!gpu::enabled()) return host;
  bool kernel = basic != MPI_DATATYPE_NULL && op_is_predefined(op) && gpu::reduce_supported(op, basic);
  return [job, host = std::move(host), op, basic, es, kernel](const std::byte* in, std::byte* inout,
                                                               std::size_t bytes) {
    if (!gpu::on_device(in) && !gpu::on_device(inout)) return host(in, inout, bytes);
    bool good = kernel ? reduce_kernel(op, basic, es, in, inout, bytes) : reduce_staged(host, in, inout, bytes);
    if (!good) note_device_error(job, kernel ? "device reduction" : "staged device reduction");
  };
}

// Staging memory for non-contiguous data of a job: device memory for device
// buffers (packed on the GPU), else host memory.
std::byte* stage_buffer(Binding& b, std::size_t bytes, bool device) {
  if (!device) return b.job.owned.emplace_back(bytes).data();
  b.job.device = &kDeviceOps;
  void* p = dev_alloc(bytes ? bytes : 1);
  if (!p) {
    if (b.error.empty()) b.error = fmt::format("no device memory for {} bytes of staging: {}", bytes, gpu::last_error());
    return nullptr;
  }
  b.job.owned_device.push_back(p);
  return static_cast<std::byte*>(p);
}

// Pack / unpack closures for `n` elements of `t` between user memory and `packed`.
void add_staging(Binding& b, const TypeInfo* t, std::byte* user, std::size_t n, std::byte* packed, bool in,
                 bool out, bool device) {
  if (!packed) return;
  if (!device) {
    if (in) b.packs.push_back([t, user, n, packed] { type_pack(*t, user, n, packed); });
    if (out) b.unpacks.push_back([t, user, n, packed] { type_unpack(*t, packed, n, user); });
    return;
  }
  Job* job = &b.job;
  if (in)
    b.packs.push_back([t, user, n, packed, job] {
      if (!ok(gpu::pack(*t, user, n, packed))) note_device_error(job, "device pack");
    });
  if (out)
    b.unpacks.push_back([t, user, n, packed, job] {
      if (!ok(gpu::unpack(*t, packed, n, user))) note_device_error(job, "device unpack");
    });
}

bool device_buffer(Binding& b, const void* buf) {
  if (!buf || !gpu::on_device(buf)) return false;
  b.device = true;
  return true;
}

}  // namespace

Binding::~Binding() {
  for (const TypeInfo* t : held) type_release(t);
  if (held_op != MPI_OP_NULL) op_release(held_op);
}

const TypeInfo* held_type(Binding& b, const TypeInfo* t) {
  if (!t->predefined) {
    type_retain(t);
    b.held.push_back(t);
  }
  return t;
}

// A user region of `count` elements of `t`: the packed bytes the schedule sees.
// Contiguous data is used where it lies; other data is staged in a buffer the
// job owns (packed before every start for inputs, unpacked at the end for outputs).
std::byte* bind(Binding& b, const void* buf, std::size_t count, const TypeInfo* t, bool in, bool out) {
  auto* user = static_cast<std::byte*>(const_cast<void*>(buf));
  bool dev = count && device_buffer(b, user + type_data_offset(*t));
  if (type_is_contiguous(*t, count) || count == 0) return user + (count ? type_data_offset(*t) : 0);
  held_type(b, t);
  std::byte* p = stage_buffer(b, count * t->size, dev);
  add_staging(b, t, user, count, p, in, out, dev);
  return p;
}

// Blocks of a v-collective: block i = counts[i] elements at displs[i] (elements of
// t's extent in the user buffer; packed at displs[i]*size).
std::byte* bind_blocks(Binding& b, const void* buf, const std::vector<std::size_t>& counts,
                       const std::vector<std::size_t>& displs, const TypeInfo* t, bool in, bool out) {
  std::size_t span = 0;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i]) span = std::max(span, displs[i] + counts[i]);
  auto* base = static_cast<std::byte*>(const_cast<void*>(buf));
  bool dev = span && device_buffer(b, base + type_data_offset(*t));
  if (t->contiguous || span == 0) return base + (span ? type_data_offset(*t) : 0);
  held_type(b, t);
  std::byte* p = stage_buffer(b, span * t->size, dev);
  if (!p) return nullptr;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    if (!counts[i]) continue;
    std::byte* user = base + static_cast<std::ptrdiff_t>(displs[i]) * t->extent;
    add_staging(b, t, user, counts[i], p + displs[i] * t->size, in, out, dev);
  }
  return p;
}

std::byte* bind_blocks_w(Binding& b, const void* buf, const std::vector<std::size_t>& counts,
                         const std::vector<std::ptrdiff_t>& displs,
                         const std::vector<const TypeInfo*>& types, bool in, bool out,
                         std::vector<std::size_t>& packed) {
  const std::size_t n = counts.size();
  packed.assign(n, 0);
  auto* base = static_cast<std::byte*>(const_cast<void*>(buf));
  // Where each non-empty block's data starts in the user buffer, if it is one run.
  bool direct = true;
  std::ptrdiff_t lo = 0;
  bool any = false;
  for (std::size_t i = 0; i < n; ++i) {
    if (!counts[i]) continue;
    if (!type_is_contiguous(*types[i], counts[i])) direct = false;
    std::ptrdiff_t start = displs[i] + type_data_offset(*types[i]);
    lo = any ? std::min(lo, start) : start;
    any = true;
  }
  if (!any) return base;
  bool dev = device_buffer(b, base + lo);
  if (direct) {
    for (std::size_t i = 0; i < n; ++i)
      if (counts[i]) packed[i] = static_cast<std::size_t>(displs[i] + type_data_offset(*types[i]) - lo);
    return base + lo;
  }
  std::size_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    packed[i] = total;
    total += counts[i] * (counts[i] ? types[i]->size : 0);
  }
  std::byte* p = stage_buffer(b, total, dev);
  if (!p) return nullptr;
  for (std::size_t i = 0; i < n; ++i) {
    if (!counts[i]) continue;
    const TypeInfo* t = held_type(b, types[i]);
    add_staging(b, t, base + displs[i], counts[i], p + packed[i], in, out, dev);
  }
  return p;
}

CommShape shape_of(const Comm* c) {
  CommShape s;
  s.size = c->size;
  s.ranks_per_node = c->ranks_per_node;
  s.nodes = c->nodes;
  // The job-wide answer, not this node's: every rank must choose the same
  // algorithm, and nodes may differ (3 ranks on one, 1 on another).
  // Members of two jobs have no such answer in common: assume shared cores, on all.
  s.cores_shared = c->foreign || p2p::cores_shared_anywhere();
  s.node_of = c->node_of;
  s.layout = c->layout;
  return s;
}

bool any_order_reduction(CollKind kind, MPI_Op op) {
  const bool single_owner =
      kind == CollKind::Reduce || kind == CollKind::ReduceScatter || kind == CollKind::ReduceScatterBlock;
  return single_owner && op_is_commutative(op);
}

// The reduction a job's Reduce steps apply, on packed elements of `t`.
ReduceFn reduce_fn(Binding& b, MPI_Op op, const TypeInfo* t) {
  held_type(b, t);
  // The functions below look the op up when they run: a user op freed before
  // the non-blocking call completes must stay what it was (its handle is not
  // given to the next MPI_Op_create until the job lets go of it).
  if (!op_is_predefined(op) && b.held_op == MPI_OP_NULL) {
    op_retain(op);
    b.held_op = op;
  }
  Job* job = &b.job;
  if (t->predefined) {
    MPI_Datatype h = t->handle;
    std::size_t es = t->size;
    return with_device(job, [op, h, es](const std::byte* in, std::byte* inout, std::size_t bytes) {
      op_apply(op, h, in, inout, bytes / es);
    }, op, h, es);
  }
  std::size_t per = 0;
  MPI_Datatype basic = op_basic_type(t->handle, &per);
  const TypeInfo* bt = type_info(basic);
  if (bt && handle::kind(static_cast<int>(op)) == handle::Builtin) {
    std::size_t es = bt->size;
    return with_device(job, [op, basic, es](const std::byte* in, std::byte* inout, std::size_t bytes) {
      op_apply(op, basic, in, inout, bytes / es);
    }, op, basic, es);
  }
  // A user op on a derived type sees the data in the type's own layout.
  MPI_Datatype h = t->handle;
  return with_device(job, [op, h, t](const std::byte* in, std::byte* inout, std::size_t bytes) {
    if (bytes == 0 || t->size == 0) return;  // nothing to reduce (a type of no bytes runs as count 0)
    std::size_t n = bytes / t->size;
    std::ptrdiff_t start;
    std::size_t span;
    type_user_span(*t, n, &start, &span);
    std::vector<std::byte> a(span), b(span);
    type_unpack(*t, in, n, a.data() - start);
    type_unpack(*t, inout, n, b.data() - start);
    op_apply(op, h, a.data() - start, b.data() - start, n);
    type_pack(*t, b.data() - start, n, inout);
  }, op, MPI_DATATYPE_NULL, t->size);
}

void finish_job(Binding& b) {
  if (b.device) b.job.device = &kDeviceOps;
  if (!b.packs.empty())
    b.job.on_start = [packs = std::move(b.packs)] {
      for (auto& f : packs) f();
    };
  if (!b.unpacks.empty())
    b.job.on_done = [unpacks = std::move(b.unpacks)] {
      for (auto& f : unpacks) f();
    };
  if (!b.held.empty() || b.held_op != MPI_OP_NULL)
    b.job.on_free = [held = std::exchange(b.held, {}), op = std::exchange(b.held_op, MPI_OP_NULL)] {
      for (const TypeInfo* t : held) type_release(t);
      if (op != MPI_OP_NULL) op_release(op);
    };
}

namespace {

// Built schedules, keyed by the scalar arguments they depend on. Calls whose
// arguments carry vectors (v-variants, neighbourhoods) are not cached. Repeated
// calls (a training loop's allreduce) then skip selection and build entirely.
struct ScheduleKey {
  CollKind kind;
  int rank, size, root, ranks_per_node, nodes;
  std::uint64_t layout;
  std::size_t elem_size, count, chunk_bytes, shm_slot_bytes;
  bool commutative, in_place;
  bool internal;  // the library's own calls choose by cost, the user's may be forced
  bool operator==(const ScheduleKey&) const = default;
};
struct ScheduleKeyHash {
  std::size_t operator()(const ScheduleKey& k) const {
    std::size_t h = static_cast<std::size_t>(k.kind);
    for (std::size_t v : {std::size_t(k.rank), std::size_t(k.size), std::size_t(k.root),
                          std::size_t(k.ranks_per_node), std::size_t(k.nodes), std::size_t(k.layout), k.elem_size, k.count,
                          k.chunk_bytes, k.shm_slot_bytes, std::size_t(k.commutative) * 4 + std::size_t(k.in_place) * 2 + k.internal})
      h = (h ^ v) * 0x100000001b3ull;
    return h;
  }
};
std::unordered_map<ScheduleKey, CachedSchedule, ScheduleKeyHash> g_schedules;
constexpr std::size_t kMaxCachedSchedules = 256;

// Calls whose schedules the cache keeps: none with vector arguments.
bool cacheable(const CollArgs& a) {
  return a.counts.empty() && a.displs.empty() && a.send_counts.empty() && a.send_displs.empty() &&
         a.sources.empty() && a.destinations.empty() && !a.cart_pairs;
}

bool cache_key(const CollArgs& a, bool internal, ScheduleKey& k) {
  if (!cacheable(a)) return false;
  k = ScheduleKey{a.kind, a.rank, a.size, a.root, a.shape.ranks_per_node, a.shape.nodes, a.shape.layout,
                  a.elem_size, a.count, a.chunk_bytes, a.shm_slot_bytes, a.commutative, a.in_place, internal};
  return true;
}

}  // namespace

const CachedSchedule* cached_schedule(const CollArgs& a, bool internal) {
  ScheduleKey k;
  if (!cache_key(a, internal, k)) return nullptr;
  auto it = g_schedules.find(k);
  return it == g_schedules.end() ? nullptr : &it->second;
}

const CachedSchedule* cache_schedule(const CollArgs& a, bool internal, const Choice& choice, Schedule&& sched,
                                     std::shared_ptr<const BusyAlt> busy) {
  ScheduleKey k;
  if (!cache_key(a, internal, k)) return nullptr;
  // Once per cached schedule (the check is quadratic in its steps): a schedule
  // built anew for every call (v-variants) keeps its sends unmarked.
  sched.mark_settled();
  if (g_schedules.size() >= kMaxCachedSchedules) g_schedules.clear();
  // An empty schedule (no data: a count of 0) runs inline as nothing at all.
  const bool inline_ok = !busy && ((sched.shm_bytes > 0 && window_only(sched)) || sched.rounds.empty());
  CachedSchedule e{std::make_shared<const Schedule>(std::move(sched)), choice.algo, choice.note,
                   choice.cost_us, inline_ok, std::move(busy)};
  return &g_schedules.insert_or_assign(k, std::move(e)).first->second;
}

namespace {

// A shared-window schedule's way out on a busy node (executor.h, BusyAlt): the
// algorithm the cost model picks among those that do not use the window, built.
// Only for the window of a communicator on one node (every rank reads the same
// sync times), a schedule of at least kMinSyncs syncs whose first sync is one of
// every rank, and an algorithm the user did not force. Null: none.
constexpr int kMinSyncs = 4;
std::shared_ptr<const BusyAlt> way_out(const CollArgs& a, const Choice& choice, const Schedule& sched) {
  if (choice.forced || a.shape.nodes != 1 || !a.shm_slot_bytes || !sched.shm_bytes || a.size < 2 ||
      sched.signals() < kMinSyncs || sched.first_sync_all(a.size) >= sched.rounds.size() || !cacheable(a))
    return nullptr;
  CollArgs b = a;
  b.shm_slot_bytes = 0;
  Choice other;
  if (select(b, default_cost_model(), other, true) != Status::Ok || !other.algo) return nullptr;
  Schedule s;
  if (other.algo->build(b, s) != Status::Ok || s.shm_bytes) return nullptr;
  s.mark_settled();
  auto out = std::make_shared<BusyAlt>();
  out->sched = std::make_shared<const Schedule>(std::move(s));
  out->algo_name = other.algo->name;
  out->primary_us = choice.cost_us;
  out->alt_us = other.cost_us;
  out->sync_us = default_cost_model().sync(a.shape);
  out->primary_syncs = sched.signals();
  return out;
}

}  // namespace

Status schedule_job(const CollArgs& a, bool internal, Job& job, Choice& choice) {
  {
    // Copy what the job needs while holding the lock: another thread may
    // replace the cache's entries once it is released.
    p2p::ApiLock lock;
    if (const CachedSchedule* e = cached_schedule(a, internal)) {
      choice.algo = e->algo;
      job.shared_sched = e->sched;
      job.busy = e->busy;
      if (log::enabled(log::TRACE, log::COLL)) {
        choice.note = e->note;
        choice.cost_us = e->cost_us;
      }
      return Status::Ok;
    }
  }
  Status s = select(a, default_cost_model(), choice, internal);
  if (s != Status::Ok) {
    choice.algo = nullptr;
    return s;
  }
  s = choice.algo->build(a, job.sched);
  if (s != Status::Ok) return s;
  std::shared_ptr<const BusyAlt> busy = way_out(a, choice, job.sched);
  p2p::ApiLock lock;
  if (auto* e = cache_schedule(a, internal, choice, std::move(job.sched), std::move(busy))) {
    job.shared_sched = e->sched;
    job.busy = e->busy;
    job.sched = {};
  }
  return Status::Ok;
}

namespace {
// An inline run's reduction: passed to the ReduceFn by reference, so making the
// std::function allocates nothing.
struct InlineOp {
  MPI_Op op;
  MPI_Datatype h;
  std::size_t es;
  void operator()(const std::byte* a, std::byte* b, std::size_t nb) const { op_apply(op, h, a, b, nb / es); }
};
}  // namespace

const AlgoInfo* flat_allreduce() {
  static const AlgoInfo* const flat = find_algorithm(CollKind::Allreduce, "shared_memory_flat");
  return flat;
}

void run_allreduce_inline(Comm* comm, const void* in, void* out, std::size_t n, MPI_Datatype h,
                          std::size_t es, MPI_Op op) {
  // The sequence number was counted by the caller.
  hang::Site site{.call = "MPI_Allreduce", .comm = comm, .seq = static_cast<std::int64_t>(comm->coll_seq) - 1,
                  .pending = 1};
  hang::Scope waiting(site);
  count_use(*flat_allreduce());
  counters::add(counters::Id::CollInlineCalls);
  const InlineOp f{op, h, es};
  run_shm_allreduce_flat(*comm->shm, comm->rank, comm->size, in, out, n * es, std::cref(f));
}

void run_schedule_inline(Comm* comm, const char* call, const Schedule& s, const AlgoInfo& algo, const void* send,
                         void* recv, MPI_Datatype h, std::size_t es, MPI_Op op) {
  count_use(algo);
  counters::add(counters::Id::CollInlineCalls);
  // Nothing to do: no turn in the window either (the job path takes none for an
  // empty schedule, and the ranks' turns must stay in step).
  if (s.rounds.empty()) return;
  hang::Site site{.call = call, .comm = comm, .seq = static_cast<std::int64_t>(comm->coll_seq) - 1, .pending = 1};
  hang::Scope waiting(site);
  const InlineOp f{op, h, es};
  run_window_schedule(*comm->shm, s, send, recv, std::cref(f));
}

}  // namespace chorus::coll
