// One-sided communication (MPI-4.1 chapter 12): windows, MPI_Put / MPI_Get /
// the accumulates and their request forms, and every synchronization mode.
//
// How it works. Each window owns a hidden duplicate of its communicator. On a
// window in shared memory (MPI_Win_allocate_shared, and MPI_Win_allocate when its
// ranks share a node) the origin does puts, gets and accumulates itself (direct()
// has the rules that keep that within MPI's). Every other
// operation becomes one message on that duplicate's point-to-point context to the
// target (tag kTagOp): a header, the target datatype's segments, then the origin
// data packed. The target applies the messages in the order they arrive, from
// its progress hook (run from any wait of any MPI call, so a target that only sits
// in MPI_Barrier or MPI_Win_free still serves locks and gets). Answers (get data,
// lock grants, acknowledgements) come back on kTagReply, matched by receives the
// origin posted before it sent the request (on a second hidden duplicate's
// context: Win::answers); point-to-point order then pairs each answer with its
// request. Hence:
//  - operations from one origin to one target are applied in the order issued
//    (MPI's default accumulate ordering, rar,raw,war,waw, holds for every op);
//  - accumulates are atomic per element: the target applies one message at a time
//    (on a window in shared memory, under the part's lock the origins take too);
//  - an operation is complete at the origin as soon as it is issued (its data is
//    already packed into the message), except those that return data, which are
//    complete when the answer has arrived (MPI_Win_flush_local waits for those).
// Synchronization:
//  - fence: each rank counts the operations it issued to each target in the
//    epoch; a reduce-scatter tells every target how many to expect; it waits
//    until it applied that many, then a barrier opens the next epoch;
//  - post/start/complete/wait: post sends a note to each origin of the group,
//    start waits for them, complete sends a "complete" message after the
//    operations, wait waits for one from every origin;
//  - lock/unlock: the target grants locks (exclusive, shared, FIFO) by message;
//    unlock and flush are acknowledged once everything before them was applied.
// Across nodes (CHORUS_RMA_RDMA), MPI_Win_create and MPI_Win_allocate register
// each rank's memory with UCX and hand its key to the others (rdma_setup()): a
// put or get of contiguous host data to a rank of another node is then UCX's
// remote memory access (p2p::rdma), not a message, and what ends an epoch (the
// fence's reduce-scatter, complete, unlock, flush) first waits for those
// transfers and flushes each target's (rdma_complete()).
// MPI_Win_allocate_shared maps one shared-memory segment for the ranks (which
// must share a node); loads and stores work across it. Dynamic windows take
// absolute addresses as target displacements; the target checks them against what
// it attached.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <list>
#include <memory>
#include <tuple>
#include <vector>

#include "core/bytes.h"
#include "core/counters.h"
#include "core/handle.h"
#include "core/log.h"
#include "core/op.h"
#include "core/params.h"
#include "core/shm_segment.h"
#include "gpu/gpu.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "p2p/local.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::mpi {

int check_data_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out);  // mpi/datatype.cc

namespace {

constexpr int kTagOp = 1;     // origin -> target: operations and synchronization requests
constexpr int kTagReply = 2;  // target -> origin: data, grants, acknowledgements
constexpr int kTagPost = 3;   // target -> origin: MPI_Win_post's note
constexpr int kTagData = 4;   // origin -> target: the data of the operation before it (Hdr::follows)
// Contiguous origin data of at least this many bytes travels as its own message,
// straight from the user's buffer (and, for a put to a contiguous target, straight
// into the window): no packing copy at either end.
constexpr std::size_t kSeparateData = 64 * 1024;
// The same from this size, when the operation follows others to its target since
// the last synchronization (a stream of them). A target on this node then reads
// the data from the origin's buffer itself where it can (send_user_data, as
// point-to-point's CHORUS_P2P_SHM_CMA allows): in a stream, the
// rings' fragments hold up both ranks (bidirectional puts, rma -t put_bibw -s
// fence -w create: 16 KiB 2.7-3.1 -> 4.4-4.8 GB/s, 64 KiB 9.2-11 -> 12.2-15.2). A lone operation's
// latency is better through the ring: process_vm_readv's fixed cost and the extra
// message double it (put and flush, 16 KiB: 3.4-3.8 us inline, 6.9-7.3 read).
constexpr std::size_t kStreamSeparateData = 16 * 1024;
// Win::grant of a target whose lock request is not answered yet (an answer is an
// MPI error class, never negative).
constexpr std::int64_t kGrantAwaited = -1;
// Operations up to this many bytes that would go without a message go as one
// while their target's lock is not granted yet (issue()). 2 ranks, lock, get and
// unlock on a created window (rma -t get_latency -s lock -w create), waiting for
// the grant against a message, three runs each: 8 B 2.0-2.7 against 1.3-1.4 us,
// 1 KiB 2.0-2.2 against 1.3-1.4, 4 KiB 1.9-2.2 against 1.9-2.1, 8 KiB 2.2-3.0
// against 2.6-3.0.
constexpr std::size_t kAwaitedGrantMessage = 2048;
// A window's shared segment ends with one line per rank holding its part's
// accumulate lock (PartLock), after the ranks' memory; 128 bytes apart, so no two
// share a line or a pair of lines fetched together.
constexpr std::size_t kLockLine = 128;

enum class OpKind : std::uint8_t { Put, Get, Acc, GetAcc, Cas, Lock, Unlock, Flush, Complete };

// The header of every kTagOp message; `nsegs` Segments and `data` bytes follow.
struct Hdr {
  OpKind kind = OpKind::Put;
  std::uint8_t fence = 0;     // issued in a fence epoch: counted by the target's fence
  std::uint8_t has_lock = 0;  // Unlock: the origin holds a lock (not MPI_MODE_NOCHECK)
  std::uint8_t passive = 0;   // issued in a passive-target epoch (see apply(), Get)
  int lock_type = 0;
  MPI_Op op = MPI_OP_NULL;
  MPI_Datatype basic = MPI_DATATYPE_NULL;  // accumulates: the predefined element type
  std::uint64_t offset = 0;   // from the window base; an address in a dynamic window
  std::uint64_t count = 0;    // target datatype elements
  std::int64_t extent = 0;    // target datatype
  std::uint64_t size = 0;
  std::uint32_t nsegs = 0;
  std::uint32_t pad1 = 0;
  std::uint64_t data = 0;
  std::uint64_t follows = 0;  // origin data sent as its own kTagData message instead (large, contiguous)
};
static_assert(sizeof(Hdr) % alignof(Segment) == 0, "segments follow the header aligned");

struct Incoming {
  Request* r = nullptr;
  Bytes buf;
  int src = 0;
  Request* data_req = nullptr;  // the kTagData receive of Hdr::follows bytes
  Bytes data;  // where it lands, unless straight into the window
  bool landed_in_place = false;
  bool data_lost = false;  // the data receive failed (the origin's memory could not be read)
};

// An origin's operation waiting for its answer, or a message still being sent.
struct Pending {
  Request* r = nullptr;            // the internal receive or send
  Bytes buf;                       // staging (answer to unpack, or the message)
  int peer = 0;
  const TypeInfo* type = nullptr;  // answer: unpack buf into user (nullptr: landed in place)
  void* user = nullptr;
  bool device = false;             // user is device memory: buf goes there through the GPU layer
  std::size_t count = 0;
  Request* user_req = nullptr;     // MPI_Rget & co.: completed with it
  bool origin_data = false;        // a send from the user's buffer (Hdr::follows)
  bool from_window = false;        // a get's answer sent straight from the window (apply())
  std::int64_t* ack = nullptr;     // an acknowledgement word: where the target's error lands
};

// A transfer through p2p::rdma not yet complete here (a list keeps it in place
// while UCX holds its address).
struct RdmaOp {
  p2p::rdma::Op op;
  int target = 0;
  Request* user_req = nullptr;  // MPI_Rput / MPI_Rget: completed with it
};

struct Win {
  MPI_Win handle = MPI_WIN_NULL;
  Comm* comm = nullptr;  // hidden duplicate (MPI_ERRORS_RETURN): traffic and synchronization
  // A second one, whose point-to-point context carries the answers (kTagReply).
  // Every message that arrives walks the receives posted on its context, and an
  // origin posts one per answer it awaits: 10,000 compare-and-swaps in one fence
  // epoch had each arriving operation walk up to 10,000 of them (MPICH's
  // errors/rma/cas_type_check: 63 s for 400,000 operations).
  Comm* answers = nullptr;
  MPI_Errhandler errhandler = kErrhandlerWorlds;
  int deferred_error = MPI_SUCCESS;  // see deferred()
  int flavor = MPI_WIN_FLAVOR_CREATE;
  int model = MPI_WIN_UNIFIED;
  void* base = nullptr;
  MPI_Aint size = 0;
  int disp_unit = 1;
  std::vector<MPI_Aint> sizes;   // every rank's size and disp_unit (not for dynamic windows)
  std::vector<int> disp_units;
  bool owns_base = false;        // MPI_Win_allocate: freed with the window
  std::byte* shm = nullptr;      // MPI_Win_allocate_shared (MPI_Win_allocate on one node): the mapping
  std::size_t lock_off = 0;      // where in it the parts' accumulate locks are (PartLock)
  std::size_t shm_bytes = 0;
  std::vector<MPI_Aint> shm_off; // each rank's offset in it
  std::vector<std::pair<std::uintptr_t, std::size_t>> attached;  // dynamic windows
  std::string name;
  InfoPairs info;
  std::map<int, void*> attrs;
  std::vector<int> attr_order;

  // Origin side.
  bool fence_epoch = false;             // a fence opened an epoch (not MPI_MODE_NOSUCCEED)
  std::vector<unsigned> fence_ops;      // operations issued to each target in it
  std::vector<std::uint8_t> locks;      // per target: 0, or MPI_LOCK_* - 233 (1 excl, 2 shared)
  std::vector<std::uint8_t> lock_checked;  // the lock was granted by message (not NOCHECK)
  // Per target: kGrantAwaited while a lock asked for is not granted yet (lock_one;
  // MPI_Win_lock need not wait for it), else 0.
  std::vector<std::int64_t> grant;
  // Per target: operations sent as messages that may not be applied there yet
  // (zeroed when a flush or unlock is sent, and when a fence or a post shows the
  // target applied everything before it).
  std::vector<std::uint64_t> unflushed;
  // Per target: those of them whose being applied no answer shows, so a flush
  // asks the target (puts, accumulates, data sent apart, anything on a dynamic
  // window, which its target may refuse: the refusal comes with the flush's
  // acknowledgement). A flush to a target with none waits for the answers only.
  std::vector<std::uint64_t> unacked;
  bool fence_direct = false;            // direct() operations in this fence epoch (end_idle_fence)
  bool lock_all = false;
  bool lock_all_checked = false;
  bool access = false;                  // MPI_Win_start .. MPI_Win_complete
  std::vector<int> access_group;        // window ranks
  std::vector<std::uint8_t> in_access;
  std::deque<Pending> pend;             // answers awaited
  std::deque<Pending> sends;            // messages still being sent (either side)
  // Remote memory access to ranks of other nodes (rdma_setup): this rank's
  // registration, and per target its key (nullptr: by message) and base address,
  // and whether puts went to it since its last flush.
  void* rdma_region = nullptr;
  std::vector<void*> rkeys;
  std::vector<std::uint64_t> remote_base;
  std::vector<std::uint8_t> rdma_dirty;
  std::list<RdmaOp> rdma_ops;           // transfers not yet complete here
  // A window of user memory (MPI_Win_create) and ranks of this node (peer_setup):
  // per target its process and base address (pid 0: by message).
  std::vector<std::uint64_t> peer_pid, peer_base;

  // Target side.
  std::deque<Incoming> in;
  unsigned fence_done = 0;       // fence-epoch operations applied
  bool exposure = false;         // MPI_Win_post .. MPI_Win_wait
  unsigned completes = 0;        // "complete" messages received
  unsigned completes_expected = 0;
  int excl = -1;                 // holder of the exclusive lock
  int shared = 0;                // holders of shared locks
  std::deque<std::pair<int, int>> lock_queue;  // (origin, lock type)
  // Per origin: its lock request waits in lock_queue, and what it sent after the
  // request waits in `held`, in order, until the lock is granted.
  std::vector<std::uint8_t> lock_waiting;
  std::deque<Incoming> held;
  std::map<int, std::int64_t> deferred;  // per origin: an operation refused, told in its next ack
};

std::vector<std::unique_ptr<Win>> g_wins;
std::size_t g_live = 0;
bool g_in_progress = false;

std::uint64_t op_tag(const Win& w, int tag) {
  const Comm* c = tag == kTagReply ? w.answers : w.comm;
  return tag::make(tag, c->rank, c->ctx_p2p);
}

// Raise `code` on the window's handler.
int wraise(Win* w, int code) { return raise_on(w->errhandler, w->handle, code); }
// A failure found after its call returned (a result that could not be copied
// to device memory), reported by the synchronization call that completes it.
int deferred(Win* w) {
  const int e = w->deferred_error;
  w->deferred_error = MPI_SUCCESS;
  return e == MPI_SUCCESS ? e : wraise(w, e);
}
template <typename... Args>
int wfail(Win* w, int cls, fmt::format_string<Args...> f, Args&&... args) {
  return wraise(w, make_error(cls, fmt::format(f, std::forward<Args>(args)...)));
}
// An error a communicator-level check returned (the hidden communicator returns
// errors) goes on to the window's handler.
#define CHORUS_TRY_WIN(w, expr)                                    \
  do {                                                             \
    int chorus_rc_ = (expr);                                       \
    if (chorus_rc_ != MPI_SUCCESS) return wraise((w), chorus_rc_); \
  } while (0)

// The entry of every call on a window: MPI running, the lock, the window.
#define WIN_ENTRY(CALL, WIN, W)            \
  CHORUS_TRY_MPI(check_running(CALL));     \
  p2p::ApiLock lock;                       \
  Win* W;                                  \
  CHORUS_TRY_MPI(check_win(CALL, WIN, &W))

int check_win(const char* call, MPI_Win win, Win** out) {
  Win* w = nullptr;
  if (handle::is(win, handle::Direct, handle::Win)) {
    auto i = static_cast<std::size_t>(handle::index(win));
    if (i < g_wins.size()) w = g_wins[i].get();
  }
  if (!w) return fail(nullptr, MPI_ERR_WIN, "{}: invalid window 0x{:x}", call, static_cast<unsigned>(win));
  *out = w;
  return MPI_SUCCESS;
}

// ---- sending ----------------------------------------------------------------------

// Room for n bytes in b (uninitialised). Operations and answers are buffered in
// Bytes, which keeps freed buffers for the next ones: a std::vector per operation
// zero-filled its bytes, and a window of 16 KiB puts made the target's heap grow
// and shrink at every window (a page fault per page; 0.5-1.7 GB/s against 5 at
// 4 KiB).
void take(Bytes& b, std::size_t n) {
  if (b.reset(n)) counters::add(counters::Id::RmaBufferAllocs);
}
Bytes take(std::size_t n) {
  Bytes b;
  take(b, n);
  return b;
}

// Send `n` bytes at `p` to `dst`; `keep` (the bytes, when they are a staging copy)
// lives until the send completes, and the send reads them where they then are
// (`p` is ignored): a small Bytes holds its bytes inline, so they move with it.
// Without one, `p` must stay as it is until then.
void send_from(Win& w, int dst, int tag, const void* p, std::size_t n, Bytes keep,
               bool from_window = false) {
  if (!keep.empty()) p = keep.data();
  // A small message to a rank of this node is written into its ring here, after
  // whatever waits for room there: nothing to keep or wait for.
  if (p2p::send_now(p, n, w.comm->world_of[static_cast<std::size_t>(dst)], op_tag(w, tag))) return;
  Request* r = requests().get();
  r->kind = Request::Kind::Send;
  r->comm = w.comm;
  Pending& q = w.sends.emplace_back();  // a deque's elements stay where they are
  q.r = r;
  q.buf = std::move(keep);
  q.peer = dst;
  q.from_window = from_window;
  if (!q.buf.empty()) p = q.buf.data();
  Status s = p2p::isend(r, p, n, w.comm->world_of[static_cast<std::size_t>(dst)], op_tag(w, tag), false);
  if (!ok(s))
    CHORUS_WARN(RMA, "window 0x{:x}: sending to rank {} failed: {}", static_cast<unsigned>(w.handle), dst,
                to_string(s));
  if (!ok(s) || r->complete) {  // isend runs no progress: q is still the last
    requests().put(r);
    w.sends.pop_back();
  }
}

void send_bytes(Win& w, int dst, int tag, Bytes bytes) {
  const std::size_t n = bytes.size();
  send_from(w, dst, tag, nullptr, n, std::move(bytes));
}

// Send the user's own buffer (Hdr::follows data): it must stay as it is until the
// send completes, which completes `user` (MPI_Rput & co.) too. `streaming`: a
// target on this node reads it from there (single copy, where point-to-point may:
// p2p::isend's `readable`), from kStreamSeparateData up.
void send_user_data(Win& w, int dst, const void* p, std::size_t n, Request* user, bool streaming) {
  Request* r = requests().get();
  r->kind = Request::Kind::Send;
  r->comm = w.comm;
  Status s = p2p::isend(r, p, n, w.comm->world_of[static_cast<std::size_t>(dst)], op_tag(w, kTagData), false,
                        streaming);
  if (!ok(s)) {
    CHORUS_WARN(RMA, "window 0x{:x}: sending data to rank {} failed: {}", static_cast<unsigned>(w.handle), dst,
                to_string(s));
    r->complete = true;
  }
  Pending q;
  q.r = r;
  q.peer = dst;
  q.user_req = user;
  q.origin_data = true;
  w.sends.push_back(std::move(q));
}

// Post the receive of an answer from `target` into `dst` (bytes long).
Pending& expect_answer(Win& w, int target, void* dst, std::size_t bytes) {
  Request* r = requests().get();
  r->kind = Request::Kind::Recv;
  r->comm = w.comm;
  Pending p;
  p.r = r;
  p.peer = target;
  w.pend.push_back(std::move(p));
  Pending& q = w.pend.back();
  void* into = dst;
  if (!into) {
    take(q.buf, bytes);
    into = q.buf.data();
  }
  Status s = p2p::irecv(r, into, bytes, tag::make(kTagReply, target, w.answers->ctx_p2p), tag::mask(false, false));
  if (!ok(s)) {
    r->complete = true;
    r->error = to_mpi_class(s);
  }
  return q;
}

// Send a control request (lock, unlock, flush, complete) to `target`.
void send_control(Win& w, int target, OpKind kind, int lock_type, bool has_lock) {
  Hdr h;
  h.kind = kind;
  h.lock_type = lock_type;
  h.has_lock = has_lock ? 1 : 0;
  send_bytes(w, target, kTagOp, Bytes::copy_of(&h, sizeof h));
}

// ---- target side ------------------------------------------------------------------

Bytes word(std::int64_t v) { return Bytes::copy_of(&v, sizeof v); }

// The first error refused operations of `origin` left, once (MPI_SUCCESS if none).
std::int64_t take_deferred(Win& w, int origin) {
  auto it = w.deferred.find(origin);
  if (it == w.deferred.end()) return MPI_SUCCESS;
  const std::int64_t e = it->second;
  w.deferred.erase(it);
  return e;
}

bool grantable(const Win& w, int type) {
  return type == MPI_LOCK_EXCLUSIVE ? (w.excl < 0 && w.shared == 0) : w.excl < 0;
}

void grant(Win& w, int origin, int type) {
  if (type == MPI_LOCK_EXCLUSIVE) w.excl = origin;
  else ++w.shared;
  w.lock_waiting[static_cast<std::size_t>(origin)] = 0;
  send_bytes(w, origin, kTagReply, word(MPI_SUCCESS));
}

void grant_waiting(Win& w) {
  while (!w.lock_queue.empty() && grantable(w, w.lock_queue.front().second)) {
    auto [o, t] = w.lock_queue.front();
    w.lock_queue.pop_front();
    grant(w, o, t);
  }
}

// Where the operation's target data starts, or nullptr (and the reason) when it
// lies outside the window: the origin checked all but dynamic windows.
std::byte* target_base(Win& w, const Hdr& h, const Segment* segs, std::string* why) {
  if (w.flavor != MPI_WIN_FLAVOR_DYNAMIC) return static_cast<std::byte*>(w.base) + h.offset;
  // Span of the access: the segments of `count` elements from the address.
  std::ptrdiff_t lo = h.nsegs ? segs[0].off : 0, hi = lo;
  for (std::uint32_t k = 0; k < h.nsegs; ++k) {
    lo = std::min(lo, segs[k].off);
    hi = std::max(hi, segs[k].off + static_cast<std::ptrdiff_t>(segs[k].len));
  }
  if (h.count > 0) {  // the last element (or the first, with a negative extent)
    const std::ptrdiff_t step = static_cast<std::ptrdiff_t>(h.count - 1) * h.extent;
    if (step > 0) hi += step;
    else lo += step;
  }
  const std::uintptr_t a = static_cast<std::uintptr_t>(h.offset) + static_cast<std::uintptr_t>(lo);
  const std::uintptr_t b = static_cast<std::uintptr_t>(h.offset) + static_cast<std::uintptr_t>(hi);
  if (h.count == 0 || h.size == 0) return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(h.offset));
  // Covered by attached regions, maybe several adjacent ones.
  std::uintptr_t covered = a;
  for (bool grew = true; grew && covered < b;) {
    grew = false;
    for (const auto& [base, len] : w.attached)
      if (base <= covered && covered < base + len) {
        covered = base + len;
        grew = true;
      }
  }
  if (covered >= b) return reinterpret_cast<std::byte*>(static_cast<std::uintptr_t>(h.offset));
  *why = fmt::format("bytes 0x{:x}..0x{:x} are not in memory attached to the window", a, b);
  return nullptr;
}

TypeInfo target_type(const Hdr& h, const Segment* segs) {
  TypeInfo t;
  t.size = h.size;
  t.extent = h.extent;
  t.segs.assign(segs, segs + h.nsegs);
  t.true_lb = h.nsegs ? segs[0].off : 0;
  t.contiguous = h.nsegs == 1 && segs[0].len == h.size && h.extent == static_cast<std::int64_t>(h.size);
  t.uniform_len = 0;
  return t;
}

// Accumulates to a rank's part of a window in shared memory are applied by their
// origins (direct()) and, for those that came as messages, by the target: each
// holds the part's lock, a word in the segment's last lines (one line per rank),
// so they stay atomic with respect to each other. A window with no segment has
// nothing to lock: its target applies every accumulate, one at a time.
class PartLock {
 public:
  PartLock(const Win& w, int rank)
      : word_(w.shm ? reinterpret_cast<std::uint32_t*>(w.shm + w.lock_off +
                                                        static_cast<std::size_t>(rank) * kLockLine)
                    : nullptr) {
    if (!word_) return;
    std::atomic_ref<std::uint32_t> a(*word_);
    for (unsigned spins = 0;; ++spins) {
      std::uint32_t free = 0;
      if (a.load(std::memory_order_relaxed) == 0 &&
          a.compare_exchange_weak(free, 1, std::memory_order_acquire, std::memory_order_relaxed))
        return;
      if (spins >= 64) sched_yield();  // its holder may be off its CPU
    }
  }
  ~PartLock() {
    if (word_) std::atomic_ref<std::uint32_t>(*word_).store(0, std::memory_order_release);
  }
  PartLock(const PartLock&) = delete;
  PartLock& operator=(const PartLock&) = delete;

 private:
  std::uint32_t* word_;
};

// Apply an accumulate (Acc, GetAcc, Cas) of `count` elements of t at `at` (where
// the target displacement points) from the packed origin data (Cas: the origin
// value, then the compare value); *result gets the old values (GetAcc: packed as
// t; Cas: one element). The caller holds the part's lock (PartLock).
void accumulate_at(OpKind kind, const TypeInfo& t, std::byte* at, std::size_t count, MPI_Op op,
                   MPI_Datatype basic, const std::byte* data, Bytes* result) {
  const std::size_t bytes = count * t.size;
  if (kind == OpKind::Cas) {
    take(*result, t.size);
    std::memcpy(result->data(), at + t.true_lb, t.size);
    if (std::memcmp(result->data(), data + t.size, t.size) == 0) std::memcpy(at + t.true_lb, data, t.size);
    return;
  }
  if (bytes == 0) return;  // its types may have no element type at all
  const TypeInfo* bt = type_info(basic);
  const std::size_t n = bt && bt->size ? bytes / bt->size : 0;
  if (kind == OpKind::Acc && op != MPI_REPLACE && type_is_contiguous(t, count) && bt && bt->contiguous) {
    op_apply(op, basic, data, at + t.true_lb, n);  // in place: the packed form is the memory
    return;
  }
  Bytes cur = take(bytes);
  type_pack(t, at, count, cur.data());
  if (kind == OpKind::GetAcc) *result = Bytes::copy_of(cur.data(), cur.size());
  if (op == MPI_NO_OP) return;
  if (op == MPI_REPLACE) {
    type_unpack(t, data, count, at);
    return;
  }
  op_apply(op, basic, data, cur.data(), n);
  type_unpack(t, cur.data(), count, at);
}

void apply(Win& w, int src, Incoming& in) {
  Hdr h;
  std::memcpy(&h, in.buf.data(), sizeof h);
  const auto* segs = reinterpret_cast<const Segment*>(in.buf.data() + sizeof h);
  const std::byte* data = h.follows ? in.data.data() : in.buf.data() + sizeof h + h.nsegs * sizeof(Segment);
  switch (h.kind) {
    case OpKind::Lock:
      if (grantable(w, h.lock_type) && w.lock_queue.empty()) {
        grant(w, src, h.lock_type);
      } else {
        w.lock_queue.emplace_back(src, h.lock_type);
        w.lock_waiting[static_cast<std::size_t>(src)] = 1;
      }
      return;
    case OpKind::Unlock:
      if (h.has_lock) {
        if (w.excl == src) w.excl = -1;
        else if (w.shared > 0) --w.shared;
      }
      send_bytes(w, src, kTagReply, word(take_deferred(w, src)));
      grant_waiting(w);
      return;
    case OpKind::Flush:
      send_bytes(w, src, kTagReply, word(take_deferred(w, src)));
      return;
    case OpKind::Complete:
      ++w.completes;
      return;
    default:
      break;
  }
  if (h.fence) ++w.fence_done;
  const std::size_t bytes = h.count * h.size;
  std::string why;
  std::byte* at = in.data_lost ? nullptr : target_base(w, h, segs, &why);
  if (!at) {
    if (in.data_lost) {  // a put landed in place may have changed part of its target bytes
      CHORUS_WARN(RMA, "window 0x{:x}: the data of an operation from rank {} could not be received; the "
                  "operation is refused (its next unlock or flush says so)", static_cast<unsigned>(w.handle), src);
      w.deferred.emplace(src, make_error(MPI_ERR_OTHER, fmt::format("an RMA operation on rank {}'s window: its "
                                                                    "data could not be received", w.comm->rank)));
    } else {
      CHORUS_LOG(INFO, RMA, "window 0x{:x}: refused an operation from rank {} (its next unlock or flush says so): "
                 "{}", static_cast<unsigned>(w.handle), src, why);
      w.deferred.emplace(src, make_error(MPI_ERR_RMA_RANGE, fmt::format("an RMA operation on rank {}'s dynamic "
                                                                        "window: {}", w.comm->rank, why)));
    }
    if (h.kind == OpKind::Get || h.kind == OpKind::GetAcc || h.kind == OpKind::Cas) {
      Bytes zeros = take(h.kind == OpKind::Cas ? h.size : bytes);
      std::memset(zeros.data(), 0, zeros.size());
      send_bytes(w, src, kTagReply, std::move(zeros));
    }
    return;
  }
  const TypeInfo t = target_type(h, segs);
  switch (h.kind) {
    case OpKind::Put:
      if (!in.landed_in_place) type_unpack(t, data, h.count, at);
      return;
    case OpKind::Get: {
      // In a passive-target epoch a contiguous target answers straight from the
      // window, with no staging copy: nothing may change those bytes until the
      // origin's flush or unlock, which wait for this answer (the origin's Unlock
      // is not applied, so its lock not passed on, before the answer is read:
      // drive()), or a conflicting access it is erroneous. A fence or MPI_Win_wait here counts the get as done
      // once applied, after which the target may store into its window at once
      // (MPICH's rma/at_complete): those answer from a copy taken now.
      if (h.passive && type_is_contiguous(t, h.count)) {
        send_from(w, src, kTagReply, at + t.true_lb, bytes, {}, true);
        return;
      }
      Bytes out = take(bytes);
      type_pack(t, at, h.count, out.data());
      send_bytes(w, src, kTagReply, std::move(out));
      return;
    }
    case OpKind::Acc:
    case OpKind::GetAcc:
    case OpKind::Cas: {
      Bytes result;
      {
        PartLock guard(w, w.comm->rank);
        accumulate_at(h.kind, t, at, h.count, h.op, h.basic, data, &result);
      }
      if (h.kind != OpKind::Acc) send_bytes(w, src, kTagReply, std::move(result));
      return;
    }
    default:
      return;
  }
}

// Device buffers at the origin (MPI_Put from, MPI_Get into device memory): the
// data moves through host memory, as the messages carry it anyway. `packed`
// holds count elements of t packed; `user` is the device buffer.
Status to_device(const TypeInfo& t, const void* packed, std::size_t count, void* user) {
  const std::size_t bytes = count * t.size;
  if (bytes == 0) return Status::Ok;
  if (type_is_contiguous(t, count)) return gpu::copy(static_cast<std::byte*>(user) + t.true_lb, packed, bytes);
  void* tmp = nullptr;
  CHORUS_TRY(gpu::device_alloc(bytes, &tmp));
  Status st = gpu::copy(tmp, packed, bytes);
  if (ok(st)) st = gpu::unpack(t, tmp, count, user);
  gpu::device_free(tmp);
  return st;
}
Status from_device(const TypeInfo& t, const void* user, std::size_t count, void* packed) {
  const std::size_t bytes = count * t.size;
  if (bytes == 0) return Status::Ok;
  if (type_is_contiguous(t, count)) return gpu::copy(packed, static_cast<const std::byte*>(user) + t.true_lb, bytes);
  void* tmp = nullptr;
  CHORUS_TRY(gpu::device_alloc(bytes, &tmp));
  Status st = gpu::pack(t, user, count, tmp);
  if (ok(st)) st = gpu::copy(packed, tmp, bytes);
  gpu::device_free(tmp);
  return st;
}
bool device_buffer(const void* buf, int count, const TypeInfo* t) {
  return buf && count > 0 && t && t->size > 0 && gpu::on_device(static_cast<const std::byte*>(buf) + t->true_lb);
}

// Complete what finished among the origin's awaited answers and the messages in
// flight, oldest first. Answers come back in the order they were asked for; a
// large one still moving holds back the later ones until it is done, so a pass
// costs O(finished), not O(waiting) (100,000 gets in one epoch stay linear).
unsigned reap(Win& w) {
  unsigned n = 0;
  for (auto it = w.pend.begin(); it != w.pend.end();) {
    if (!it->r->complete) break;
    if (it->type) {
      if (!it->device) {
        type_unpack(*it->type, it->buf.data(), it->count, it->user);
      } else if (Status st = to_device(*it->type, it->buf.data(), it->count, it->user); !ok(st)) {
        const int e = make_error(to_mpi_class(st), fmt::format("a one-sided result of {} B could not be copied to "
                                                               "device memory at {}: {}", it->buf.size(), it->user,
                                                               gpu::last_error()));
        if (it->user_req)
          it->user_req->error = e;
        else if (w.deferred_error == MPI_SUCCESS)
          w.deferred_error = e;
      }
      type_release(it->type);
    }
    if (it->ack) std::memcpy(it->ack, it->buf.data(), sizeof(std::int64_t));
    if (Request* u = it->user_req) {
      u->complete = true;
      if (u->user_freed) requests().put(u);
    }
    requests().put(it->r);
    it = w.pend.erase(it);
    ++n;
  }
  for (auto it = w.rdma_ops.begin(); it != w.rdma_ops.end();) {
    if (!it->op.done) {
      ++it;
      continue;
    }
    if (!ok(it->op.status)) {
      const int e = make_error(to_mpi_class(it->op.status),
                               fmt::format("a one-sided transfer to rank {} through UCX failed: {}", it->target,
                                           to_string(it->op.status)));
      if (it->user_req) it->user_req->error = e;
      else if (w.deferred_error == MPI_SUCCESS) w.deferred_error = e;
    }
    if (Request* u = it->user_req) {
      u->complete = true;
      if (u->user_freed) requests().put(u);
    }
    it = w.rdma_ops.erase(it);
    ++n;
  }
  while (!w.sends.empty() && w.sends.front().r->complete) {
    if (Request* u = w.sends.front().user_req) {
      u->complete = true;
      if (u->user_freed) requests().put(u);
    }
    requests().put(w.sends.front().r);
    w.sends.pop_front();
    ++n;
  }
  return n;
}

// Answers sent straight from the window to `origin` that are still being read.
bool window_answers_to(const Win& w, int origin) {
  for (const Pending& p : w.sends)
    if (p.from_window && p.peer == origin && !p.r->complete) return true;
  return false;
}

// Post the receive of an operation's data (Hdr::follows), once every operation
// ahead of it is applied: the next kTagData message from its origin, as they come
// in order. A put to a contiguous part of the window receives it in place.
void post_data(Win& w, Incoming& f, const Hdr& h) {
  void* into = nullptr;
  std::string why;
  const auto* segs = reinterpret_cast<const Segment*>(f.buf.data() + sizeof h);
  if (h.kind == OpKind::Put) {
    const TypeInfo t = target_type(h, segs);
    std::byte* at = type_is_contiguous(t, h.count) ? target_base(w, h, segs, &why) : nullptr;
    if (at) {
      into = at + t.true_lb;
      f.landed_in_place = true;
    }
  }
  if (!into) {
    take(f.data, h.follows);
    into = f.data.data();
  }
  f.data_req = requests().get();
  f.data_req->kind = Request::Kind::Recv;
  f.data_req->comm = w.comm;
  Status st = p2p::irecv(f.data_req, into, h.follows, tag::make(kTagData, f.src, w.comm->ctx_p2p),
                         tag::mask(false, false));
  if (!ok(st)) {
    f.data_req->complete = true;
    CHORUS_WARN(RMA, "window 0x{:x}: receiving the data of an operation from rank {} failed: {}",
                static_cast<unsigned>(w.handle), f.src, to_string(st));
  }
}

// Put what origins whose locks were granted since sent after their requests back
// at the head of the queue, in the order it came.
void release_held(Win& w) {
  std::deque<Incoming> wait, go;
  for (Incoming& i : w.held) (w.lock_waiting[static_cast<std::size_t>(i.src)] ? wait : go).push_back(std::move(i));
  w.held = std::move(wait);
  for (auto it = go.rbegin(); it != go.rend(); ++it) w.in.push_front(std::move(*it));
}

unsigned drive(Win& w) {
  unsigned n = 0;
  for (;;) {  // take every operation that arrived off the queue, in order
    p2p::RecvInfo info;
    void* msg = nullptr;
    if (!p2p::probe(tag::make(kTagOp, 0, w.comm->ctx_p2p), tag::mask(true, false), true, info, &msg)) break;
    Incoming& in = w.in.emplace_back();  // received in place: a small Bytes holds its bytes inline
    in.src = tag::source_of(info.sender_tag);
    take(in.buf, info.length);
    in.r = requests().get();
    in.r->kind = Request::Kind::Recv;
    in.r->comm = w.comm;
    Status s = p2p::imrecv(in.r, in.buf.data(), info.length, msg, info);
    if (!ok(s)) {
      CHORUS_WARN(RMA, "window 0x{:x}: receiving an operation from rank {} failed: {}",
                  static_cast<unsigned>(w.handle), in.src, to_string(s));
      requests().put(in.r);
      w.in.pop_back();
      continue;
    }
    ++n;
  }
  while (!w.in.empty() && w.in.front().r->complete) {
    Incoming& f = w.in.front();
    if (w.lock_waiting[static_cast<std::size_t>(f.src)]) {  // sent after a lock request not granted yet
      w.held.push_back(std::move(f));
      w.in.pop_front();
      continue;
    }
    Hdr h;
    std::memcpy(&h, f.buf.data(), sizeof h);
    if (h.follows && !f.data_req) post_data(w, f, h);
    if (f.data_req && !f.data_req->complete) break;
    // An Unlock releases the lock (and may grant the next one, whose holder may
    // store into the window) only once the answers sent straight from the window
    // to that origin have been read.
    if (h.kind == OpKind::Unlock && window_answers_to(w, f.src)) break;
    Incoming in = std::move(f);
    w.in.pop_front();
    requests().put(in.r);
    if (in.data_req) {
      in.data_lost = in.data_req->error != MPI_SUCCESS;
      requests().put(in.data_req);
    }
    apply(w, in.src, in);
    ++n;
    if (!w.held.empty()) release_held(w);
  }
  return n + reap(w);
}

unsigned win_progress() {
  if (g_live == 0 || g_in_progress) return 0;
  g_in_progress = true;
  unsigned n = 0;
  for (auto& w : g_wins)
    if (w) n += drive(*w);
  g_in_progress = false;
  return n;
}

// Progress until pred() holds.
template <typename F>
void wait_for(F&& pred) {
  p2p::wait_until([&] {
    win_progress();
    return pred();
  });
}

// Until the lock asked of `target` is granted (lock_one).
void await_grant(Win& w, std::size_t target) {
  if (w.grant[target] == kGrantAwaited) wait_for([&] { return w.grant[target] != kGrantAwaited; });
}

// Something of this origin's to or from `target` is still moving: an answer, or
// data sent from the user's buffer.
bool answers_from(const Win& w, int target) {
  for (const Pending& p : w.pend)
    if (p.peer == target) return true;
  for (const RdmaOp& o : w.rdma_ops)
    if (o.target == target) return true;
  for (const Pending& p : w.sends)
    if (p.peer == target && p.origin_data) return true;
  return false;
}

// Everything this origin issued is complete here (answers in, user buffers sent).
bool locally_done(const Win& w) {
  if (!w.pend.empty() || !w.rdma_ops.empty()) return false;
  for (const Pending& p : w.sends)
    if (p.origin_data) return false;
  return true;
}

// The transfers through UCX to `targets` (every rank when null) are complete
// here, and with `remote` at the targets too: each target that took puts since
// its last flush is flushed. A failed flush is returned; a failed transfer is
// the window's deferred error or its request's (reap()).
int rdma_complete(Win& w, const std::vector<int>* targets, bool remote, const char* call) {
  if (w.rkeys.empty()) return MPI_SUCCESS;
  auto wanted = [&](int t) { return !targets || std::find(targets->begin(), targets->end(), t) != targets->end(); };
  wait_for([&] {
    for (const RdmaOp& o : w.rdma_ops)
      if (wanted(o.target)) return false;
    return true;
  });
  if (!remote) return MPI_SUCCESS;
  std::list<std::pair<int, p2p::rdma::Op>> flushes;
  for (std::size_t t = 0; t < w.rdma_dirty.size(); ++t) {
    if (!w.rdma_dirty[t] || !wanted(static_cast<int>(t))) continue;
    w.rdma_dirty[t] = 0;
    auto& f = flushes.emplace_back(static_cast<int>(t), p2p::rdma::Op{});
    (void)p2p::rdma::flush(w.comm->world_of[t], &f.second);  // a failure is in f.second
  }
  wait_for([&] {
    for (const auto& f : flushes)
      if (!f.second.done) return false;
    return true;
  });
  for (const auto& [t, op] : flushes)
    if (!ok(op.status))
      return make_error(to_mpi_class(op.status), fmt::format("{}: completing the transfers to rank {} through UCX "
                                                             "failed: {}", call, t, to_string(op.status)));
  return MPI_SUCCESS;
}

// Send `kind` (unlock or flush) to each target and wait for the acknowledgements
// and every answer still awaited from them; the first error a target reported.
int acknowledged(Win& w, const std::vector<int>& targets, OpKind kind, const std::vector<bool>& has_lock) {
  // The words live here until every answer is in (this call waits for them all,
  // so no other thread's call can take them away).
  std::vector<std::int64_t> words(targets.size(), MPI_SUCCESS);
  for (std::size_t i = 0; i < targets.size(); ++i) {
    Pending& p = expect_answer(w, targets[i], nullptr, sizeof(std::int64_t));
    p.ack = &words[i];
    send_control(w, targets[i], kind, 0, has_lock.empty() ? false : has_lock[i]);
  }
  wait_for([&] {
    for (int t : targets)
      if (answers_from(w, t)) return false;
    return true;
  });
  std::int64_t err = MPI_SUCCESS;
  for (std::int64_t e : words)
    if (err == MPI_SUCCESS) err = e;
  return static_cast<int>(err);
}

// ---- creation and release -----------------------------------------------------------

// The info keys windows know (MPI-4.1 12.2.1 and MPICH's); others are ignored, as
// MPI allows, and MPI_Win_get_info does not return them.
const char* const kWinKeys[] = {"no_locks", "accumulate_ordering", "accumulate_ops", "same_size",
                                "same_disp_unit", "alloc_shared_noncontig", "mpi_accumulate_granularity",
                                "coll_attach"};

void set_hints(Win& w, const InfoPairs& hints) {
  for (const auto& [k, v] : hints) {
    if (std::find_if(std::begin(kWinKeys), std::end(kWinKeys), [&](const char* x) { return k == x; }) ==
        std::end(kWinKeys))
      continue;
    auto it = std::find_if(w.info.begin(), w.info.end(), [&](const auto& p) { return p.first == k; });
    if (it != w.info.end()) it->second = v;
    else w.info.emplace_back(k, v);
  }
}

int new_window(const char* call, Comm* c, const InfoPairs* hints, int flavor, void* base, MPI_Aint size,
               int disp_unit, Win** out) {
  Comm* wc = nullptr;
  CHORUS_TRY_MPI(comm_build(c, call, c->world_of, MPI_ERRORS_RETURN, &wc));
  auto w = std::make_unique<Win>();
  w->comm = wc;
  w->flavor = flavor;
  w->base = base;
  w->size = size;
  w->disp_unit = disp_unit;
  if (hints) set_hints(*w, *hints);
  const auto n = static_cast<std::size_t>(wc->size);
  if (flavor != MPI_WIN_FLAVOR_DYNAMIC) {
    // A window over device memory (MPI_Win_create of a cudaMalloc pointer) would
    // have the target's host code write into it: every rank says whether its
    // base is, so all of them fail alike instead of the others waiting.
    const bool device = flavor == MPI_WIN_FLAVOR_CREATE && size > 0 && gpu::on_device(base);
    std::int64_t mine[3] = {size, disp_unit, device ? 1 : 0};
    std::vector<std::int64_t> all(3 * n);
    int rc = internal_allgather(wc, mine, all.data(), sizeof mine, call);
    if (rc != MPI_SUCCESS) {
      comm_release(wc, call);
      return raise(c, rc);
    }
    for (std::size_t r = 0; r < n; ++r) {
      w->sizes.push_back(static_cast<MPI_Aint>(all[3 * r]));
      w->disp_units.push_back(static_cast<int>(all[3 * r + 1]));
    }
    for (std::size_t r = 0; r < n; ++r)
      if (all[3 * r + 2]) {
        comm_release(wc, call);
        return fail(c, MPI_ERR_BASE,
                    "{}: rank {}'s base is device memory; a window holds host memory here (MPI_Win_allocate or "
                    "MPI_Alloc_mem give some; device buffers may be the origin or result of any one-sided call)",
                    call, r);
      }
  }
  w->fence_ops.assign(n, 0);
  w->locks.assign(n, 0);
  w->lock_checked.assign(n, 0);
  w->unflushed.assign(n, 0);
  w->unacked.assign(n, 0);
  w->grant.assign(n, 0);
  w->lock_waiting.assign(n, 0);
  w->in_access.assign(n, 0);
  if (int rc = comm_build(c, call, c->world_of, MPI_ERRORS_RETURN, &w->answers); rc != MPI_SUCCESS) {
    comm_release(wc, call);
    return raise(c, rc);
  }
  errhandler_ref(w->errhandler, +1);
  std::size_t i = 0;
  while (i < g_wins.size() && g_wins[i]) ++i;
  if (i == g_wins.size()) g_wins.emplace_back();
  w->handle = static_cast<MPI_Win>(handle::make(handle::Direct, handle::Win, static_cast<int>(i)));
  g_wins[i] = std::move(w);
  ++g_live;
  p2p::add_late_progress_hook(win_progress);
  *out = g_wins[i].get();
  CHORUS_LOG(TRACE, RMA, "{}: window 0x{:x} over {} ranks, {} B here, context {}", call,
             static_cast<unsigned>((*out)->handle), n, size, wc->ctx_p2p);
  return MPI_SUCCESS;
}

// The arguments every creation call checks; *c is the communicator.
int creation_args(const char* call, MPI_Comm comm, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Win* win,
                  Comm** c, const InfoPairs** hints) {
  CHORUS_TRY_MPI(check_comm(call, comm, c));
  if ((*c)->inter) return fail(*c, MPI_ERR_COMM, "{}: comm is an intercommunicator; windows need an intracommunicator", call);
  if (size < 0) return fail(*c, MPI_ERR_SIZE, "{}: size is {}, must be non-negative", call, size);
  if (disp_unit <= 0) return fail(*c, MPI_ERR_DISP, "{}: disp_unit is {}, must be positive", call, disp_unit);
  CHORUS_TRY_MPI(check_info(call, *c, info, hints, true));
  if (!win) return fail(*c, MPI_ERR_ARG, "{}: win is NULL", call);
  return MPI_SUCCESS;
}

bool info_true(const InfoPairs* hints, const char* key) {
  if (!hints) return false;
  const std::string* v = info_find(*hints, key);
  return v && *v == "true";
}

// The shared segment of MPI_Win_allocate_shared (and of MPI_Win_allocate on one
// node): rank 0 creates it, the others map it. Every rank returns the same: a
// failure is MPI_ERR_RMA_SHARED with *why set, not raised.
int map_shared(const char* call, Win& w, bool noncontig, std::string* why) {
  Comm* wc = w.comm;
  const std::size_t align = noncontig ? static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) : 1;
  std::size_t total = 0;
  for (MPI_Aint s : w.sizes) {
    total = (total + align - 1) / align * align;
    w.shm_off.push_back(static_cast<MPI_Aint>(total));
    total += static_cast<std::size_t>(s);
  }
  if (total == 0) return MPI_SUCCESS;
  // After the ranks' memory (rank 0's stays page-aligned): the parts' accumulate
  // locks (PartLock), a line each.
  w.lock_off = (total + kLockLine - 1) / kLockLine * kLockLine;
  total = w.lock_off + w.sizes.size() * kLockLine;
  char name[128] = {};
  std::string err;
  int bad = 0;
  // A collective that fails (this rank's view: others may differ) leaves no
  // mapping and no name behind.
  auto undo = [&](int rc) {
    if (w.shm) shm::unmap(w.shm, total);
    w.shm = nullptr;
    if (wc->rank == 0 && name[0]) shm::unlink(name);
    return rc;
  };
  if (wc->rank == 0) {
    const std::string n = shm::name(::getpid(), fmt::format("win-{}", wc->ctx_p2p));
    std::snprintf(name, sizeof name, "%s", n.c_str());
    w.shm = shm::map(n, total, true, &err);
    if (!w.shm) name[0] = '\0';
  }
  if (int rc = internal_bcast(wc, name, sizeof name, 0, call); rc != MPI_SUCCESS) return undo(rc);
  if (!name[0]) {
    *why = fmt::format("rank 0 could not create the shared segment{}{}", err.empty() ? "" : ": ", err);
    return MPI_ERR_RMA_SHARED;
  }
  if (wc->rank != 0) w.shm = shm::map(name, total, false, &err);
  bad = w.shm ? 0 : 1;
  if (w.shm) {
    // Each rank's part, and its lock line, allocated by that rank now: on its
    // own NUMA node, and never a SIGBUS later should /dev/shm fill up.
    const auto me = static_cast<std::size_t>(wc->rank);
    int e = shm::reserve(w.shm + w.shm_off[me], static_cast<std::size_t>(w.sizes[me]));
    if (e == 0) e = shm::reserve(w.shm + w.lock_off + me * kLockLine, kLockLine);
    if (e != 0 && e != EINVAL) {
      bad = 1;
      err = fmt::format("reserving rank {}'s {} B: {}", wc->rank, w.sizes[me], std::strerror(e));
    }
  }
  if (int rc = internal_allreduce(wc, &bad, 1, MPI_INT, MPI_MAX, call); rc != MPI_SUCCESS) return undo(rc);
  if (wc->rank == 0) shm::unlink(name);
  if (bad) {
    if (w.shm) shm::unmap(w.shm, total);
    w.shm = nullptr;
    *why = fmt::format("a rank could not map or reserve its part of the shared segment{}{}", err.empty() ? "" : ": ",
                       err);
    return MPI_ERR_RMA_SHARED;
  }
  w.shm_bytes = total;
  w.base = w.sizes[static_cast<std::size_t>(wc->rank)] ? w.shm + w.shm_off[static_cast<std::size_t>(wc->rank)]
                                                       : nullptr;
  return MPI_SUCCESS;
}

void destroy(Win* w, const char* call) {
  for (Pending& p : w->sends) requests().put(p.r);
  for (Pending& p : w->pend) requests().put(p.r);
  for (Incoming& i : w->held) requests().put(i.r);
  for (void* k : w->rkeys) p2p::rdma::release(k);
  p2p::rdma::unmap(w->rdma_region);
  if (w->owns_base) std::free(w->base);
  if (w->shm) shm::unmap(w->shm, w->shm_bytes);
  comm_release(w->comm, call);
  comm_release(w->answers, call);
  errhandler_ref(w->errhandler, -1);
  g_wins[static_cast<std::size_t>(handle::index(w->handle))].reset();
  while (!g_wins.empty() && !g_wins.back()) g_wins.pop_back();
  --g_live;
}

// With ranks on several nodes: register this rank's memory with UCX and learn
// every rank's key and base address, so that puts and gets to ranks of other
// nodes need no message (CHORUS_RMA_RDMA). Collective over the window's ranks,
// after the window's memory is in place. A rank whose memory UCX cannot register
// is reached by messages, as is every rank of this node.
int rdma_setup(Win& w, const char* call) {
  Comm* c = w.comm;
  if (c->nodes <= 1 || w.shm || !c->node_of) return MPI_SUCCESS;  // the same on every rank
  std::vector<std::byte> key;
  if (p2p::rdma::enabled() && w.size > 0) {
    if (Status st = p2p::rdma::map(w.base, static_cast<std::size_t>(w.size), &w.rdma_region, key); !ok(st)) {
      CHORUS_LOG(INFO, RMA, "{}: UCX cannot register this rank's {} B for remote access ({}); other nodes' "
                 "ranks reach them by messages", call, w.size, to_string(st));
      key.clear();
      w.rdma_region = nullptr;
    }
  }
  const auto n = static_cast<std::size_t>(c->size);
  std::int64_t mine[2] = {static_cast<std::int64_t>(key.size()),
                          static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(w.base))};
  std::vector<std::int64_t> meta(2 * n);
  CHORUS_TRY_MPI(internal_allgather(c, mine, meta.data(), sizeof mine, call));
  std::size_t longest = 0;
  for (std::size_t r = 0; r < n; ++r) longest = std::max(longest, static_cast<std::size_t>(meta[2 * r]));
  if (longest == 0) return MPI_SUCCESS;  // nobody registered: messages, as before
  key.resize(longest);
  std::vector<std::byte> keys(longest * n);
  CHORUS_TRY_MPI(internal_allgather(c, key.data(), keys.data(), longest, call));
  w.rkeys.assign(n, nullptr);
  w.remote_base.assign(n, 0);
  w.rdma_dirty.assign(n, 0);
  const std::vector<int>& node_of = *c->node_of;
  const bool forced = param::RmaRdma() == p2p::rdma::kOn;
  int by_rdma = 0, by_msgs = 0;
  std::string rdma_lanes, msg_lanes;
  for (std::size_t r = 0; r < n; ++r) {
    if (meta[2 * r] == 0 || node_of[r] == node_of[static_cast<std::size_t>(c->rank)]) continue;
    // auto: remote memory access only where the network does it natively.
    std::string lanes;
    if (!p2p::rdma::native(c->world_of[r], &lanes) && !forced) {
      ++by_msgs;
      msg_lanes = lanes;
      continue;
    }
    ++by_rdma;
    rdma_lanes = lanes;
    w.remote_base[r] = static_cast<std::uint64_t>(meta[2 * r + 1]);
    if (Status st = p2p::rdma::unpack(c->world_of[r], keys.data() + r * longest,
                                      static_cast<std::size_t>(meta[2 * r]), &w.rkeys[r]);
        !ok(st)) {
      CHORUS_LOG(INFO, RMA, "{}: rank {}'s key for remote access does not unpack here ({}); it is reached by "
                 "messages", call, r, to_string(st));
      w.rkeys[r] = nullptr;
    }
  }
  if (c->rank == 0 && by_rdma)
    CHORUS_LOG(INFO, RMA, "{}: puts and gets from rank 0 to {} rank(s) of other nodes go through UCX's remote memory "
               "access ({}){}", call, by_rdma, rdma_lanes, forced ? ", CHORUS_RMA_RDMA=on" : "");
  if (c->rank == 0 && by_msgs)
    CHORUS_LOG(INFO, RMA, "{}: puts and gets from rank 0 to {} rank(s) of other nodes go as messages: UCX's remote "
               "memory lanes to them ({}) are TCP's, slower than messages (CHORUS_RMA_RDMA=on takes them anyway)",
               call, by_msgs, msg_lanes);
  return MPI_SUCCESS;
}

// Puts below kPeerPutMin stay messages: a stream of them packs into the ring for
// less than a system call each (2 ranks, `rma -t put_bw -s flush -w create`:
// 1 KiB 1550-1810 MB/s as messages, 750-800 direct; even at 8 KiB, from 16 KiB
// direct 8460-8560 against 5670-6090). A get is a round trip as a message, so it
// always goes direct (8 B get and flush 1.2-1.7 us -> 0.7-1.3).
constexpr std::size_t kPeerPutMin = 8192;

// A window of user memory (MPI_Win_create) whose ranks share a node with this one,
// where the job can read and write its local peers' memory (p2p::local::peer_memory,
// agreed at MPI_Init): each rank tells the others its process and base address, and
// an origin does its contiguous puts and gets to them itself (process_vm_writev,
// readv: peer_to()), as an origin does on a window in shared memory (direct()).
// Every rank takes part alike: the flavor, the job's agreement and the communicator
// are the same everywhere (one allgather more at creation); CHORUS_RMA_PEER=off
// then keeps this rank's own operations as messages.
int peer_setup(Win& w, const char* call) {
  Comm* c = w.comm;
  if (w.flavor != MPI_WIN_FLAVOR_CREATE || w.shm || c->size < 2 || !p2p::local::peer_memory()) return MPI_SUCCESS;
  if (c->nodes > 1 && !c->node_of) return MPI_SUCCESS;
  const auto n = static_cast<std::size_t>(c->size), me = static_cast<std::size_t>(c->rank);
  auto node = [&](std::size_t r) { return c->nodes > 1 ? (*c->node_of)[r] : 0; };
  // A window in device memory keeps the message path, which stages it: 0 says so.
  const bool host = w.size > 0 && w.base && !gpu::on_device(w.base);
  const std::uint64_t mine[2] = {host ? static_cast<std::uint64_t>(::getpid()) : 0,
                                 static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(w.base))};
  std::vector<std::uint64_t> all(2 * n);
  CHORUS_TRY_MPI(internal_allgather(c, mine, all.data(), sizeof mine, call));
  if (param::RmaPeer() != 0) return MPI_SUCCESS;
  w.peer_pid.assign(n, 0);
  w.peer_base.assign(n, 0);
  int peers = 0;
  for (std::size_t r = 0; r < n; ++r) {
    if (r == me || node(r) != node(me) || !all[2 * r]) continue;
    w.peer_pid[r] = all[2 * r];
    w.peer_base[r] = all[2 * r + 1];
    ++peers;
  }
  if (c->rank == 0 && peers)
    CHORUS_LOG(INFO, RMA, "{}: contiguous gets, and puts of {} B and more, from rank 0 to the {} other rank(s) of "
               "its node read and write their memory directly (process_vm_readv/writev), with no message", call,
               kPeerPutMin, peers);
  return MPI_SUCCESS;
}

// ---- origin side ------------------------------------------------------------------------

int epoch_error(Win* w, const char* call, int target) {
  return wfail(w, MPI_ERR_RMA_SYNC,
               "{}: no access epoch to rank {} is open on window 0x{:x} (call MPI_Win_fence, MPI_Win_start, "
               "MPI_Win_lock or MPI_Win_lock_all first)",
               call, target, static_cast<unsigned>(w->handle));
}

bool passive_to(const Win& w, int target) { return w.lock_all || w.locks[static_cast<std::size_t>(target)]; }

struct OpArgs {
  OpKind kind;
  const void* origin = nullptr;
  int ocount = 0;
  MPI_Datatype otype = MPI_DATATYPE_NULL;
  void* result = nullptr;
  int rcount = 0;
  MPI_Datatype rtype = MPI_DATATYPE_NULL;
  const void* compare = nullptr;
  int target = 0;
  MPI_Aint disp = 0;
  int tcount = 0;
  MPI_Datatype ttype = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
};

int check_op_type(Win* w, const char* call, const char* arg, int count, MPI_Datatype t, const TypeInfo** ti) {
  if (count < 0) return wfail(w, MPI_ERR_COUNT, "{}: {} count is {}, must be non-negative", call, arg, count);
  CHORUS_TRY_WIN(w, check_data_type(call, w->comm, t, ti));
  return MPI_SUCCESS;
}

// Operations done by this rank itself and the flushes that follow them complete
// with no wait, so a loop of them (polling a flag in another rank's window) would
// never serve what other ranks ask of this one: lock requests, unlocks, flushes,
// operations that came as messages. Every 64th such call runs the progress engine
// (a few µs of such calls; every 16th cost a get and flush 10% more, 8 B on a
// shared window: 0.044 µs against 0.039 with every 256th, the best of 5 runs).
void progress_now_and_then() {
  static unsigned calls = 0;
  if ((++calls & 63u) == 0) p2p::progress();
}

// A window in shared memory (MPI_Win_allocate_shared, and MPI_Win_allocate when
// its ranks share a node) takes puts, gets and accumulates as the origin's own
// work on the target's memory, complete when the call returns: no message, and
// nothing for the target's progress to do. The epoch rules hold as they do for
// messages: an operation is issued only after its lock was granted, its target's
// post seen or the fence passed (a barrier), and what ends the epoch (unlock,
// flush, complete, the fence's reduce-scatter) is a message this rank sends after
// its work, through rings whose writes release and reads acquire. Accumulates
// hold the target part's lock (PartLock), as the target does for those that come
// as messages, so they stay atomic. They stay in order with this origin's earlier
// ones: an accumulate goes as a message while operations this rank sent to the
// target as messages may still be waiting there (until a flush or unlock).
// Device buffers take the message path, which stages them.
bool direct(const Win& w, const OpArgs& a, const TypeInfo* ot, const TypeInfo* rt, std::size_t t) {
  if (!w.shm) return false;
  switch (a.kind) {
    case OpKind::Put:
      return !device_buffer(a.origin, a.ocount, ot);
    case OpKind::Get:
      return !device_buffer(a.result, a.rcount, rt);
    case OpKind::Acc:
    case OpKind::GetAcc:
    case OpKind::Cas:
      return w.unflushed[t] == 0 && !device_buffer(a.origin, a.ocount, ot) &&
             !device_buffer(a.result, a.rcount, rt) && !device_buffer(a.compare, 1, ot);
    default:
      return false;
  }
}

// A put or get that moves contiguous host data: its target data, and its origin
// (put) or result (get) buffer, each one block of host memory.
bool contiguous_put_or_get(const OpArgs& a, const TypeInfo* ot, const TypeInfo* rt, const TypeInfo* tt) {
  if (a.kind != OpKind::Put && a.kind != OpKind::Get) return false;
  const auto tc = static_cast<std::size_t>(a.tcount);
  if (tc * tt->size == 0 || !type_is_contiguous(*tt, tc)) return false;
  if (a.kind == OpKind::Put)
    return type_is_contiguous(*ot, static_cast<std::size_t>(a.ocount)) && !device_buffer(a.origin, a.ocount, ot);
  return type_is_contiguous(*rt, static_cast<std::size_t>(a.rcount)) && !device_buffer(a.result, a.rcount, rt);
}

// A put or get of contiguous host data to a rank of another node whose window
// memory UCX registered (rdma_setup): UCX's remote memory access, no message.
bool rdma_to(const Win& w, const OpArgs& a, const TypeInfo* ot, const TypeInfo* rt, const TypeInfo* tt,
             std::size_t t) {
  return !w.rkeys.empty() && w.rkeys[t] && contiguous_put_or_get(a, ot, rt, tt);
}

// A put or get of contiguous host data to a rank of this node whose window is user
// memory (peer_setup): this rank writes or reads it itself, complete on return. The
// epoch rules hold as for direct(): the lock was granted, the post seen or the fence
// passed before any operation is issued, and what ends the epoch is a message sent
// after the transfer. Accumulates stay messages (the target applies them under its
// part's lock, atomic and in order); puts and gets have no ordering to keep.
// Small puts stay messages (kPeerPutMin).
bool peer_to(const Win& w, const OpArgs& a, const TypeInfo* ot, const TypeInfo* rt, const TypeInfo* tt,
             std::size_t t) {
  if (w.peer_pid.empty() || !w.peer_pid[t]) return false;
  if (a.kind == OpKind::Put && static_cast<std::size_t>(a.tcount) * tt->size < kPeerPutMin) return false;
  return contiguous_put_or_get(a, ot, rt, tt);
}

// Copy count elements of s at src into d (dcount elements) at dst, the same bytes.
void copy_typed(const TypeInfo& s, const void* src, std::size_t count, const TypeInfo& d, void* dst,
                std::size_t dcount) {
  const std::size_t bytes = count * s.size;
  if (bytes == 0) return;
  if (type_is_contiguous(s, count) && type_is_contiguous(d, dcount)) {
    std::memmove(static_cast<std::byte*>(dst) + d.true_lb, static_cast<const std::byte*>(src) + s.true_lb, bytes);
    return;
  }
  Bytes packed = take(bytes);
  type_pack(s, src, count, packed.data());
  type_unpack(d, packed.data(), dcount, dst);
}

int issue(const char* call, MPI_Win win, const OpArgs& a, MPI_Request* request) {
  WIN_ENTRY(call, win, w);
  const bool with_result = a.kind == OpKind::Get || a.kind == OpKind::GetAcc || a.kind == OpKind::Cas;
  if (request) *request = MPI_REQUEST_NULL;
  const int n = w->comm->size;
  if (a.target != MPI_PROC_NULL && (a.target < 0 || a.target >= n))
    return wfail(w, MPI_ERR_RANK, "{}: target_rank is {}, must be in [0, {}) or MPI_PROC_NULL", call, a.target, n);
  const TypeInfo *ot = nullptr, *rt = nullptr, *tt = nullptr;
  const bool uses_origin = a.kind != OpKind::Get && !(a.kind == OpKind::GetAcc && a.op == MPI_NO_OP);
  if (uses_origin) CHORUS_TRY_MPI(check_op_type(w, call, "origin", a.ocount, a.otype, &ot));
  if (with_result) CHORUS_TRY_MPI(check_op_type(w, call, "result", a.rcount, a.rtype, &rt));
  CHORUS_TRY_MPI(check_op_type(w, call, "target", a.tcount, a.ttype, &tt));
  const bool accumulate = a.kind == OpKind::Acc || a.kind == OpKind::GetAcc;
  const std::size_t tbytes = static_cast<std::size_t>(a.tcount) * tt->size;
  MPI_Datatype basic = MPI_DATATYPE_NULL;
  if (accumulate) {
    const bool predefined_op = a.op == MPI_REPLACE || a.op == MPI_NO_OP || (op_valid(a.op) && op_is_predefined(a.op));
    if (!predefined_op)
      return wfail(w, MPI_ERR_OP, "{}: op 0x{:x} is not a predefined operation (accumulates take those, "
                   "MPI_REPLACE and MPI_NO_OP)", call, static_cast<unsigned>(a.op));
    if (a.op == MPI_NO_OP && a.kind == OpKind::Acc)
      return wfail(w, MPI_ERR_OP, "{}: MPI_NO_OP is for MPI_Get_accumulate and MPI_Fetch_and_op", call);
  }
  if (accumulate && tbytes > 0) {  // an empty one moves nothing, whatever its types
    std::size_t per = 0;
    basic = op_basic_type(a.ttype, &per);
    if (basic == MPI_DATATYPE_NULL)
      return wfail(w, MPI_ERR_TYPE, "{}: target datatype {} mixes predefined types; an accumulate needs one",
                   call, type_label(a.ttype));
    if (ot && op_basic_type(a.otype, &per) != basic)
      return wfail(w, MPI_ERR_TYPE, "{}: origin datatype {} and target datatype {} are not of the same predefined "
                   "type", call, type_label(a.otype), type_label(a.ttype));
    if (a.op != MPI_REPLACE && a.op != MPI_NO_OP) {
      std::string why;
      if (Status s = op_check(a.op, basic, &why); !ok(s))
        return wfail(w, to_mpi_class(s), "{}: {}", call, why);
    }
  }
  if (a.kind == OpKind::Cas) {
    // Integers, bytes, characters and booleans (MPI-4.1 12.3.6): what MPI_BOR takes, and the logicals.
    const bool cas_type = tt->predefined && (op_check(MPI_BOR, a.ttype, nullptr) == Status::Ok ||
                                             a.ttype == MPI_C_BOOL || a.ttype == MPI_CXX_BOOL ||
                                             a.ttype == MPI_LOGICAL);
    if (!cas_type)
      return wfail(w, MPI_ERR_TYPE, "{}: datatype {} is not an integer, byte, character or boolean type", call,
                   type_label(a.ttype));
    if (a.otype != a.ttype || a.rtype != a.ttype)
      return wfail(w, MPI_ERR_TYPE, "{}: origin, result and target datatypes must be one predefined type (got {}, "
                   "{}, {})", call, type_label(a.otype), type_label(a.rtype), type_label(a.ttype));
  }
  if (ot && static_cast<std::size_t>(a.ocount) * ot->size != tbytes)
    return wfail(w, MPI_ERR_TYPE, "{}: the origin holds {} bytes ({} x {}) and the target {} ({} x {}); they must "
                 "match", call, static_cast<std::size_t>(a.ocount) * ot->size, a.ocount, type_label(a.otype),
                 tbytes, a.tcount, type_label(a.ttype));
  if (rt && static_cast<std::size_t>(a.rcount) * rt->size != tbytes)
    return wfail(w, MPI_ERR_TYPE, "{}: the result buffer holds {} bytes ({} x {}) and the target {} ({} x {}); "
                 "they must match", call, static_cast<std::size_t>(a.rcount) * rt->size, a.rcount,
                 type_label(a.rtype), tbytes, a.tcount, type_label(a.ttype));
  if (request && a.target != MPI_PROC_NULL && !passive_to(*w, a.target))
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: request-based operations need a passive-target epoch (MPI_Win_lock or "
                 "MPI_Win_lock_all) to rank {}", call, a.target);
  Request* u = nullptr;
  if (request) {
    u = requests().get();
    u->kind = Request::Kind::Done;
    u->active = true;
    u->comm = w->comm;
    *request = requests().handle(u);
  }
  if (a.target == MPI_PROC_NULL) {
    if (u) u->complete = true;
    return MPI_SUCCESS;
  }
  const auto t = static_cast<std::size_t>(a.target);
  const bool via_fence = !passive_to(*w, a.target) && !(w->access && w->in_access[t]);
  if (via_fence && !w->fence_epoch) {
    if (u) requests().put(u);
    if (request) *request = MPI_REQUEST_NULL;
    return epoch_error(w, call, a.target);
  }
  // Where the data lands at the target.
  std::uint64_t offset = 0;
  if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
    offset = static_cast<std::uint64_t>(a.disp);
  } else {
    auto fail_range = [&](int cls, std::string why) {
      if (u) requests().put(u);
      if (request) *request = MPI_REQUEST_NULL;
      return wraise(w, make_error(cls, std::move(why)));
    };
    if (a.disp < 0)
      return fail_range(MPI_ERR_DISP, fmt::format("{}: target_disp is {}, must be non-negative", call, a.disp));
    offset = static_cast<std::uint64_t>(a.disp) * static_cast<std::uint64_t>(w->disp_units[t]);
    std::ptrdiff_t start = 0;
    std::size_t span = 0;
    type_user_span(*tt, static_cast<std::size_t>(a.tcount), &start, &span);
    const std::int64_t lo = static_cast<std::int64_t>(offset) + start;
    if (span > 0 && (lo < 0 || lo + static_cast<std::int64_t>(span) > w->sizes[t]))
      return fail_range(MPI_ERR_RMA_RANGE,
                        fmt::format("{}: target bytes [{}, {}) lie outside rank {}'s window of {} bytes", call, lo,
                                    lo + static_cast<std::int64_t>(span), a.target, w->sizes[t]));
  }
  // A lock not granted yet (MPI_Win_lock): a message queues behind the request at
  // the target, so an operation of up to kAwaitedGrantMessage bytes that could
  // touch the target's memory itself goes as one (lock, get and unlock: one round
  // trip; waiting for the grant first made it two and a system call); a larger
  // one waits for the grant.
  bool by_message = false;
  if (w->grant[t] == kGrantAwaited &&
      (direct(*w, a, ot, rt, t) || peer_to(*w, a, ot, rt, tt, t) || rdma_to(*w, a, ot, rt, tt, t))) {
    if (tbytes <= kAwaitedGrantMessage && !w->shm) by_message = true;
    else await_grant(*w, t);
  }
  if (!by_message && direct(*w, a, ot, rt, t)) {
    std::byte* at = w->shm + w->shm_off[t] + offset;
    const auto oc = static_cast<std::size_t>(a.ocount), tc = static_cast<std::size_t>(a.tcount),
               rc = static_cast<std::size_t>(a.rcount);
    if (a.kind == OpKind::Put) {
      copy_typed(*ot, a.origin, oc, *tt, at, tc);
    } else if (a.kind == OpKind::Get) {
      copy_typed(*tt, at, tc, *rt, a.result, rc);
    } else {
      // The origin data packed (Cas: the value, then the compare value).
      Bytes packed;
      const std::byte* data = nullptr;
      if (a.kind == OpKind::Cas) {
        take(packed, 2 * tt->size);
        std::memcpy(packed.data(), static_cast<const std::byte*>(a.origin) + tt->true_lb, tt->size);
        std::memcpy(packed.data() + tt->size, static_cast<const std::byte*>(a.compare) + tt->true_lb, tt->size);
        data = packed.data();
      } else if (ot && type_is_contiguous(*ot, oc)) {
        data = static_cast<const std::byte*>(a.origin) + ot->true_lb;
      } else if (ot) {
        take(packed, tbytes);
        type_pack(*ot, a.origin, oc, packed.data());
        data = packed.data();
      }
      Bytes old;
      {
        PartLock guard(*w, a.target);
        accumulate_at(a.kind, *tt, at, tc, a.op, basic, data, &old);
      }
      if (a.kind == OpKind::Cas) std::memcpy(static_cast<std::byte*>(a.result) + rt->true_lb, old.data(), tt->size);
      else if (a.kind == OpKind::GetAcc && tbytes) type_unpack(*rt, old.data(), rc, a.result);
    }
    counters::add(counters::Id::RmaDirectOps);
    if (via_fence) w->fence_direct = true;
    if (u) u->complete = true;
    progress_now_and_then();
    return MPI_SUCCESS;
  }
  if (!by_message && peer_to(*w, a, ot, rt, tt, t)) {
    const std::uint64_t at = w->peer_base[t] + offset + static_cast<std::uint64_t>(tt->true_lb);
    int err = 0;
    const bool moved =
        a.kind == OpKind::Put
            ? p2p::local::write_peer(w->peer_pid[t], at, static_cast<const std::byte*>(a.origin) + ot->true_lb,
                                     tbytes, &err)
            : p2p::local::read_peer(w->peer_pid[t], at, static_cast<std::byte*>(a.result) + rt->true_lb, tbytes,
                                    &err);
    if (moved) {
      counters::add(counters::Id::RmaPeerOps);
      if (via_fence) w->fence_direct = true;
      if (u) u->complete = true;
      progress_now_and_then();
      return MPI_SUCCESS;
    }
    if (err == EFAULT) {
      // The target's window memory is not mapped there any more (freed before
      // MPI_Win_free, which MPI forbids), or this rank's buffer is not readable or
      // writable. A message would fault the target instead.
      if (u) requests().put(u);
      if (request) *request = MPI_REQUEST_NULL;
      return wfail(w, MPI_ERR_OTHER, "{}: {} {} B {} rank {}'s window memory (pid {}, address 0x{:x}) failed: {}",
                   call, a.kind == OpKind::Put ? "writing" : "reading", tbytes,
                   a.kind == OpKind::Put ? "to" : "from", a.target, w->peer_pid[t], at, std::strerror(err));
    }
    // Not allowed to (a process whose memory this one may not touch, or a security
    // rule): the target applies it as a message, this one and those after it.
    CHORUS_WARN(RMA, "{}: {} rank {}'s window memory directly was refused ({}); operations to it go as messages",
                call, a.kind == OpKind::Put ? "writing" : "reading", a.target, std::strerror(err));
    w->peer_pid[t] = 0;
  }
  if (!by_message && rdma_to(*w, a, ot, rt, tt, t)) {
    const std::uint64_t remote = w->remote_base[t] + offset + static_cast<std::uint64_t>(tt->true_lb);
    RdmaOp& o = w->rdma_ops.emplace_back();
    o.target = a.target;
    o.user_req = u;
    const int proc = w->comm->world_of[t];
    const Status st =
        a.kind == OpKind::Put
            ? p2p::rdma::put(proc, static_cast<const std::byte*>(a.origin) + ot->true_lb, tbytes, remote, w->rkeys[t],
                             &o.op)
            : p2p::rdma::get(proc, static_cast<std::byte*>(a.result) + rt->true_lb, tbytes, remote, w->rkeys[t],
                             &o.op);
    if (!ok(st)) {
      w->rdma_ops.pop_back();
      if (u) requests().put(u);
      if (request) *request = MPI_REQUEST_NULL;
      return wfail(w, to_mpi_class(st), "{}: the transfer of {} B {} rank {} through UCX failed: {}", call, tbytes,
                   a.kind == OpKind::Put ? "to" : "from", a.target, to_string(st));
    }
    if (a.kind == OpKind::Put) w->rdma_dirty[t] = 1;
    if (via_fence) w->fence_direct = true;  // ends with the epoch's fence (rdma_complete), not counted by the target
    counters::add(counters::Id::RmaRdmaOps);
    if (o.op.done) reap(*w);  // done at once: its request too
    return MPI_SUCCESS;
  }
  // The message: header, target segments, origin data (and the compare value).
  Hdr h;
  h.kind = a.kind;
  h.fence = via_fence ? 1 : 0;
  h.passive = passive_to(*w, a.target) ? 1 : 0;
  h.op = a.op;
  h.basic = basic;
  h.offset = offset;
  h.count = static_cast<std::uint64_t>(a.tcount);
  h.extent = tt->extent;
  h.size = tt->size;
  h.nsegs = static_cast<std::uint32_t>(tt->segs.size());
  const std::size_t obytes = ot ? static_cast<std::size_t>(a.ocount) * ot->size : 0;
  const bool origin_dev = device_buffer(a.origin, a.ocount, ot);
  const bool streaming = w->unflushed[t] > 0;
  const bool separate = ot && a.kind != OpKind::Cas && obytes >= (streaming ? kStreamSeparateData : kSeparateData) &&
                        !origin_dev && type_is_contiguous(*ot, static_cast<std::size_t>(a.ocount));
  h.data = a.kind == OpKind::Cas ? 2 * tt->size : (a.kind == OpKind::Get || separate ? 0 : obytes);
  h.follows = separate ? obytes : 0;
  Bytes msg = take(sizeof h + h.nsegs * sizeof(Segment) + h.data);
  std::memcpy(msg.data(), &h, sizeof h);
  if (h.nsegs) std::memcpy(msg.data() + sizeof h, tt->segs.data(), h.nsegs * sizeof(Segment));
  std::byte* data = msg.data() + sizeof h + h.nsegs * sizeof(Segment);
  auto staged = [&](Status st, const char* what) {
    if (u) requests().put(u);
    if (request) *request = MPI_REQUEST_NULL;
    return wfail(w, to_mpi_class(st), "{}: copying the {} buffer from device memory failed: {}", call, what,
                 gpu::last_error());
  };
  if (a.kind == OpKind::Cas) {
    for (auto [src, at, what] : {std::tuple{a.origin, data, "origin"}, std::tuple{a.compare, data + tt->size, "compare"}}) {
      if (!device_buffer(src, 1, tt))
        std::memcpy(at, static_cast<const std::byte*>(src) + tt->true_lb, tt->size);
      else if (Status st = from_device(*tt, src, 1, at); !ok(st))
        return staged(st, what);
    }
  } else if (ot && obytes && origin_dev) {
    if (Status st = from_device(*ot, a.origin, static_cast<std::size_t>(a.ocount), data); !ok(st))
      return staged(st, "origin");
  } else if (ot && obytes && !separate) {
    type_pack(*ot, a.origin, static_cast<std::size_t>(a.ocount), data);
  }
  if (with_result) {
    const std::size_t rbytes = a.kind == OpKind::Cas ? tt->size : tbytes;
    const bool result_dev = device_buffer(a.result, a.rcount, rt);
    const bool in_place = !result_dev && type_is_contiguous(*rt, static_cast<std::size_t>(a.rcount));
    Pending& p = expect_answer(*w, a.target, in_place ? static_cast<std::byte*>(a.result) + rt->true_lb : nullptr,
                               rbytes);
    if (!in_place) {  // into a staging buffer, unpacked (or copied to the device) when it lands
      p.type = rt;
      type_retain(rt);
      p.user = a.result;
      p.count = static_cast<std::size_t>(a.rcount);
      p.device = result_dev;
    }
    p.user_req = u;
  } else if (u && !separate) {
    u->complete = true;  // the data is in the message already
  }
  if (via_fence) ++w->fence_ops[t];
  ++w->unflushed[t];
  if (!with_result || separate || w->flavor == MPI_WIN_FLAVOR_DYNAMIC) ++w->unacked[t];
  send_bytes(*w, a.target, kTagOp, std::move(msg));
  if (separate)  // complete here once sent (MPI_Win_flush_local & co. wait for it)
    send_user_data(*w, a.target, static_cast<const std::byte*>(a.origin) + ot->true_lb, obytes, with_result ? nullptr : u,
                   streaming);
  return MPI_SUCCESS;
}

int check_assert(Win* w, const char* call, int assert_, int allowed) {
  if (assert_ & ~allowed)
    return wfail(w, MPI_ERR_ASSERT, "{}: assert 0x{:x} has bits this call does not take (it takes 0x{:x})", call,
                 static_cast<unsigned>(assert_), static_cast<unsigned>(allowed));
  return MPI_SUCCESS;
}

// Window ranks of a group's members; MPI_ERR_GROUP when one is not in the window.
int group_ranks(Win* w, const char* call, MPI_Group group, std::vector<int>& out) {
  Group* g;
  CHORUS_TRY_WIN(w, check_group(call, w->comm, group, &g));
  out.clear();
  for (int world_rank : g->world) {
    auto it = std::find(w->comm->world_of.begin(), w->comm->world_of.end(), world_rank);
    if (it == w->comm->world_of.end())
      return wfail(w, MPI_ERR_GROUP, "{}: the group holds world rank {}, which is not in the window's group", call,
                   world_rank);
    out.push_back(static_cast<int>(it - w->comm->world_of.begin()));
  }
  return MPI_SUCCESS;
}

// Some lock epoch (MPI_Win_lock or MPI_Win_lock_all) is open.
bool any_lock(const Win& w) {
  return w.lock_all || std::any_of(w.locks.begin(), w.locks.end(), [](std::uint8_t l) { return l != 0; });
}

// A fence that opened an epoch in which nothing was issued counts as closed when
// another kind of epoch starts; one with operations in flight must be fenced first.
int end_idle_fence(Win* w, const char* call) {
  const bool issued = w->fence_direct ||
                      std::any_of(w->fence_ops.begin(), w->fence_ops.end(), [](unsigned k) { return k != 0; });
  if (w->fence_epoch && issued)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} has operations of a fence epoch in flight (end it with "
                 "MPI_Win_fence first)", call, static_cast<unsigned>(w->handle));
  w->fence_epoch = false;
  return MPI_SUCCESS;
}

// A passive-target epoch may not overlap an active-target one; an idle fence
// epoch ends (MPI_Win_lock is the usual start of a passive phase after a fence).
int passive_allowed(Win* w, const char* call) {
  if (w->access || w->exposure)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is in a post/start epoch (MPI_Win_complete / "
                 "MPI_Win_wait end it first)", call, static_cast<unsigned>(w->handle));
  return end_idle_fence(w, call);
}

int lock_one(Win* w, int type, int rank, int assert_, const char* call) {
  const auto r = static_cast<std::size_t>(rank);
  w->locks[r] = type == MPI_LOCK_EXCLUSIVE ? 1 : 2;
  w->lock_checked[r] = (assert_ & MPI_MODE_NOCHECK) ? 0 : 1;
  if (!w->lock_checked[r]) return MPI_SUCCESS;
  Pending& p = expect_answer(*w, rank, nullptr, sizeof(std::int64_t));
  w->grant[r] = kGrantAwaited;
  p.ack = &w->grant[r];
  send_control(*w, rank, OpKind::Lock, type, false);
  (void)call;
  return MPI_SUCCESS;
}

// Predefined attribute values handed out by MPI_Win_get_attr point into the window.
int get_attr(const char* call, Win* w, int keyval, void* value, int* flag) {
  if (!value || !flag) return wfail(w, MPI_ERR_ARG, "{}: {} is NULL", call, flag ? "attribute_val" : "flag");
  switch (keyval) {
    case MPI_WIN_BASE: *static_cast<void**>(value) = w->base; break;
    case MPI_WIN_SIZE: *static_cast<MPI_Aint**>(value) = &w->size; break;
    case MPI_WIN_DISP_UNIT: *static_cast<int**>(value) = &w->disp_unit; break;
    case MPI_WIN_CREATE_FLAVOR: *static_cast<int**>(value) = &w->flavor; break;
    case MPI_WIN_MODEL: *static_cast<int**>(value) = &w->model; break;
    default:
      return attr_get(call, KeyKind::Win, w->attrs, keyval, value, flag,
                      [w](int code) { return wraise(w, code); });
  }
  *flag = 1;
  return MPI_SUCCESS;
}

}  // namespace

void wins_finalize() {
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  for (const std::unique_ptr<Win>& slot : g_wins) {
    Win* w = slot.get();
    if (!w || (w->rkeys.empty() && !w->rdma_region)) continue;
    // An epoch never ended: its transfers get a moment to finish first.
    while (!w->rdma_ops.empty() && std::chrono::steady_clock::now() < until) {
      p2p::progress();
      reap(*w);
    }
    p2p::rdma::unmap(w->rdma_region);  // this rank's memory: nothing of this rank's own uses it
    w->rdma_region = nullptr;
    if (!w->rdma_ops.empty()) {
      // UCX may still use the remote keys for them: those stay (UCX warns of them).
      CHORUS_WARN(RMA, "MPI_Finalize: window {:#x} still has {} transfer(s) through UCX in flight (an epoch that no "
                  "synchronization ended); its remote keys are left to UCX", static_cast<unsigned>(w->handle),
                  w->rdma_ops.size());
      continue;
    }
    CHORUS_LOG(INFO, RMA, "MPI_Finalize: window {:#x} was never freed; its UCX registration and remote keys go now",
               static_cast<unsigned>(w->handle));
    for (void* k : w->rkeys) p2p::rdma::release(k);
    w->rkeys.clear();
  }
}
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

// ---- creation ---------------------------------------------------------------------------

int PMPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const char* call = "MPI_Win_create";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(creation_args(call, comm, size, disp_unit, info, win, &c, &hints));
  if (size > 0 && !base) return fail(c, MPI_ERR_BASE, "{}: base is NULL but size is {}", call, size);
  Win* w;
  CHORUS_TRY_MPI(new_window(call, c, hints, MPI_WIN_FLAVOR_CREATE, base, size, disp_unit, &w));
  int rc = rdma_setup(*w, call);
  if (rc == MPI_SUCCESS) rc = peer_setup(*w, call);
  if (rc != MPI_SUCCESS) {
    destroy(w, call);
    return raise(c, rc);
  }
  *win = w->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_create)

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  const char* call = "MPI_Win_allocate";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(creation_args(call, comm, size, disp_unit, info, win, &c, &hints));
  if (!baseptr) return fail(c, MPI_ERR_ARG, "{}: baseptr is NULL", call);
  Win* w;
  CHORUS_TRY_MPI(new_window(call, c, hints, MPI_WIN_FLAVOR_ALLOCATE, nullptr, size, disp_unit, &w));
  if (c->nodes == 1) {
    // Every rank on this node: the memory is one shared segment, each rank's part
    // page-aligned and zero-filled, so origins do their operations themselves
    // (see direct()).
    // All ranks see the same outcome; failing, they take memory of their own.
    std::string why;
    if (int rc = map_shared(call, *w, true, &why); rc == MPI_ERR_RMA_SHARED) {
      CHORUS_LOG(INFO, RMA, "{}: {}; the window's memory is each process's own, reached by messages", call, why);
    } else if (rc != MPI_SUCCESS) {
      destroy(w, call);
      return raise(c, rc);
    }
  }
  if (!w->shm) {
    // Page-aligned (what a later registration with the network wants), zero-filled.
    const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const std::size_t bytes = (static_cast<std::size_t>(size) + page - 1) / page * page;
    void* mem = std::aligned_alloc(page, bytes ? bytes : page);
    if (!mem) {
      destroy(w, call);
      return fail(c, MPI_ERR_NO_MEM, "{}: cannot allocate {} bytes", call, size);
    }
    std::memset(mem, 0, bytes ? bytes : page);
    w->base = mem;
    w->owns_base = true;
  }
  if (int rc = rdma_setup(*w, call); rc != MPI_SUCCESS) {
    destroy(w, call);
    return raise(c, rc);
  }
  std::memcpy(baseptr, &w->base, sizeof w->base);
  *win = w->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_allocate)

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr,
                             MPI_Win* win) {
  const char* call = "MPI_Win_allocate_shared";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(creation_args(call, comm, size, disp_unit, info, win, &c, &hints));
  if (!baseptr) return fail(c, MPI_ERR_ARG, "{}: baseptr is NULL", call);
  if (c->nodes > 1)
    return fail(c, MPI_ERR_RMA_SHARED, "{}: comm's {} ranks run on {} nodes; a shared window needs them on one "
                "(split with MPI_COMM_TYPE_SHARED first)", call, c->size, c->nodes);
  Win* w;
  CHORUS_TRY_MPI(new_window(call, c, hints, MPI_WIN_FLAVOR_SHARED, nullptr, size, disp_unit, &w));
  std::string why;
  if (int rc = map_shared(call, *w, info_true(hints, "alloc_shared_noncontig"), &why); rc != MPI_SUCCESS) {
    destroy(w, call);
    return rc == MPI_ERR_RMA_SHARED ? fail(c, rc, "{}: {}", call, why) : raise(c, rc);
  }
  std::memcpy(baseptr, &w->base, sizeof w->base);
  *win = w->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_allocate_shared)

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint* size, int* disp_unit, void* baseptr) {
  const char* call = "MPI_Win_shared_query";
  WIN_ENTRY(call, win, w);
  if (w->flavor != MPI_WIN_FLAVOR_SHARED)
    return wfail(w, MPI_ERR_RMA_FLAVOR, "{}: window 0x{:x} was not made by MPI_Win_allocate_shared", call,
                 static_cast<unsigned>(win));
  const int n = w->comm->size;
  if (rank != MPI_PROC_NULL && (rank < 0 || rank >= n))
    return wfail(w, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {}) or MPI_PROC_NULL", call, rank, n);
  if (!size || !disp_unit || !baseptr)
    return wfail(w, MPI_ERR_ARG, "{}: {} is NULL", call, !size ? "size" : !disp_unit ? "disp_unit" : "baseptr");
  int r = rank;
  if (r == MPI_PROC_NULL) {  // the lowest rank with memory
    r = 0;
    while (r < n && w->sizes[static_cast<std::size_t>(r)] == 0) ++r;
  }
  void* p = nullptr;
  if (r < n) {
    const auto k = static_cast<std::size_t>(r);
    *size = w->sizes[k];
    *disp_unit = w->disp_units[k];
    if (w->shm && w->sizes[k]) p = w->shm + w->shm_off[k];
  } else {
    *size = 0;
    *disp_unit = w->disp_unit;
  }
  std::memcpy(baseptr, &p, sizeof p);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_shared_query)

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  const char* call = "MPI_Win_create_dynamic";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(creation_args(call, comm, 0, 1, info, win, &c, &hints));
  Win* w;
  CHORUS_TRY_MPI(new_window(call, c, hints, MPI_WIN_FLAVOR_DYNAMIC, MPI_BOTTOM, 0, 1, &w));
  *win = w->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_create_dynamic)

int PMPI_Win_attach(MPI_Win win, void* base, MPI_Aint size) {
  const char* call = "MPI_Win_attach";
  WIN_ENTRY(call, win, w);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return wfail(w, MPI_ERR_RMA_FLAVOR, "{}: window 0x{:x} is not dynamic (MPI_Win_create_dynamic)", call,
                 static_cast<unsigned>(win));
  if (size < 0) return wfail(w, MPI_ERR_SIZE, "{}: size is {}, must be non-negative", call, size);
  if (!base && size > 0) return wfail(w, MPI_ERR_BASE, "{}: base is NULL", call);
  if (size > 0 && gpu::on_device(base))
    return wfail(w, MPI_ERR_RMA_ATTACH,
                 "{}: base {} is device memory; a window holds host memory here (device buffers may be the origin "
                 "or result of any one-sided call)", call, base);
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  for (const auto& [b, len] : w->attached)
    if (a < b + len && b < a + static_cast<std::uintptr_t>(size))
      return wfail(w, MPI_ERR_RMA_ATTACH, "{}: [{}, +{}) overlaps memory attached already at 0x{:x}", call, base,
                   size, b);
  w->attached.emplace_back(a, static_cast<std::size_t>(size));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_attach)

int PMPI_Win_detach(MPI_Win win, const void* base) {
  const char* call = "MPI_Win_detach";
  WIN_ENTRY(call, win, w);
  if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
    return wfail(w, MPI_ERR_RMA_FLAVOR, "{}: window 0x{:x} is not dynamic (MPI_Win_create_dynamic)", call,
                 static_cast<unsigned>(win));
  const auto a = reinterpret_cast<std::uintptr_t>(base);
  auto it = std::find_if(w->attached.begin(), w->attached.end(), [a](const auto& r) { return r.first == a; });
  if (it == w->attached.end())
    return wfail(w, MPI_ERR_RMA_ATTACH, "{}: nothing is attached at {}", call, base);
  w->attached.erase(it);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_detach)

int PMPI_Win_free(MPI_Win* win) {
  const char* call = "MPI_Win_free";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!win) return fail(nullptr, MPI_ERR_ARG, "{}: win is NULL", call);
  Win* w;
  CHORUS_TRY_MPI(check_win(call, *win, &w));
  const bool locked = any_lock(*w);
  if (locked || w->access || w->exposure)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} still has an open {} epoch", call,
                 static_cast<unsigned>(*win), locked ? "lock" : w->access ? "access (MPI_Win_start)"
                                                                          : "exposure (MPI_Win_post)");
  // Everyone's epochs are closed; serve the others until all got here.
  // A failed transfer is reported after the others were met (they wait in the barrier).
  const int rdma_rc = rdma_complete(*w, nullptr, true, call);
  wait_for([&] { return w->pend.empty(); });
  CHORUS_TRY_WIN(w, PMPI_Barrier(w->comm->handle));
  wait_for([&] { return w->sends.empty() && w->in.empty() && w->held.empty(); });
  // The window goes all the same: the others freed theirs.
  const int rc = rdma_rc == MPI_SUCCESS ? MPI_SUCCESS : wraise(w, rdma_rc);
  CHORUS_TRY_MPI(attrs_delete_generic(w->handle, w->attrs, w->attr_order, call,
                                      [w](int code) { return wraise(w, code); }));
  destroy(w, call);
  *win = MPI_WIN_NULL;
  return rc;
}
CHORUS_ALIAS(MPI_Win_free)

// ---- data movement ------------------------------------------------------------------------

int PMPI_Put(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  OpArgs a{.kind = OpKind::Put, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype};
  return issue("MPI_Put", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Put)

int PMPI_Get(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win) {
  OpArgs a{.kind = OpKind::Get, .result = origin_addr, .rcount = origin_count, .rtype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype};
  return issue("MPI_Get", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Get)

int PMPI_Accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                    MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win) {
  OpArgs a{.kind = OpKind::Acc, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype, .op = op};
  return issue("MPI_Accumulate", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Accumulate)

int PMPI_Get_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                        MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                        MPI_Win win) {
  OpArgs a{.kind = OpKind::GetAcc, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .result = result_addr, .rcount = result_count, .rtype = result_datatype, .target = target_rank,
           .disp = target_disp, .tcount = target_count, .ttype = target_datatype, .op = op};
  return issue("MPI_Get_accumulate", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Get_accumulate)

int PMPI_Fetch_and_op(const void* origin_addr, void* result_addr, MPI_Datatype datatype, int target_rank,
                      MPI_Aint target_disp, MPI_Op op, MPI_Win win) {
  OpArgs a{.kind = OpKind::GetAcc, .origin = origin_addr, .ocount = 1, .otype = datatype, .result = result_addr,
           .rcount = 1, .rtype = datatype, .target = target_rank, .disp = target_disp, .tcount = 1,
           .ttype = datatype, .op = op};
  return issue("MPI_Fetch_and_op", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Fetch_and_op)

int PMPI_Compare_and_swap(const void* origin_addr, const void* compare_addr, void* result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win) {
  OpArgs a{.kind = OpKind::Cas, .origin = origin_addr, .ocount = 1, .otype = datatype, .result = result_addr,
           .rcount = 1, .rtype = datatype, .compare = compare_addr, .target = target_rank, .disp = target_disp,
           .tcount = 1, .ttype = datatype};
  return issue("MPI_Compare_and_swap", win, a, nullptr);
}
CHORUS_ALIAS(MPI_Compare_and_swap)

int PMPI_Rput(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Rput: request is NULL");
  OpArgs a{.kind = OpKind::Put, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype};
  return issue("MPI_Rput", win, a, request);
}
CHORUS_ALIAS(MPI_Rput)

int PMPI_Rget(void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request* request) {
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Rget: request is NULL");
  OpArgs a{.kind = OpKind::Get, .result = origin_addr, .rcount = origin_count, .rtype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype};
  return issue("MPI_Rget", win, a, request);
}
CHORUS_ALIAS(MPI_Rget)

int PMPI_Raccumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
                     MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                     MPI_Request* request) {
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Raccumulate: request is NULL");
  OpArgs a{.kind = OpKind::Acc, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .target = target_rank, .disp = target_disp, .tcount = target_count, .ttype = target_datatype, .op = op};
  return issue("MPI_Raccumulate", win, a, request);
}
CHORUS_ALIAS(MPI_Raccumulate)

int PMPI_Rget_accumulate(const void* origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void* result_addr, int result_count, MPI_Datatype result_datatype, int target_rank,
                         MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op,
                         MPI_Win win, MPI_Request* request) {
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "MPI_Rget_accumulate: request is NULL");
  OpArgs a{.kind = OpKind::GetAcc, .origin = origin_addr, .ocount = origin_count, .otype = origin_datatype,
           .result = result_addr, .rcount = result_count, .rtype = result_datatype, .target = target_rank,
           .disp = target_disp, .tcount = target_count, .ttype = target_datatype, .op = op};
  return issue("MPI_Rget_accumulate", win, a, request);
}
CHORUS_ALIAS(MPI_Rget_accumulate)

// ---- active target: fence -----------------------------------------------------------------

int PMPI_Win_fence(int assert_, MPI_Win win) {
  const char* call = "MPI_Win_fence";
  WIN_ENTRY(call, win, w);
  CHORUS_TRY_MPI(check_assert(w, call, assert_, MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |
                                                    MPI_MODE_NOSUCCEED));
  const bool locked = any_lock(*w);
  if (locked || w->access || w->exposure)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is in a {} epoch; a fence cannot end it", call,
                 static_cast<unsigned>(win), locked ? "lock" : "post/start");
  // Transfers through UCX are complete at their targets before anyone leaves
  // (a failure is reported once the fence is done: the others wait in it).
  const int rdma_rc = rdma_complete(*w, nullptr, true, call);
  if (!(assert_ & MPI_MODE_NOPRECEDE)) {
    // How many operations each target applies before the epoch ends.
    unsigned expect = 0;
    CHORUS_TRY_WIN(w, PMPI_Reduce_scatter_block(w->fence_ops.data(), &expect, 1, MPI_UNSIGNED, MPI_SUM,
                                                w->comm->handle));
    wait_for([&] { return w->fence_done >= expect && locally_done(*w); });
    w->fence_done -= expect;
    std::fill(w->fence_ops.begin(), w->fence_ops.end(), 0u);
  }
  w->fence_direct = false;
  if (!(assert_ & MPI_MODE_NOSUCCEED)) {
    CHORUS_TRY_WIN(w, PMPI_Barrier(w->comm->handle));
    // Every rank applied what it was sent before it entered the barrier (its wait
    // above), so nothing this rank sent is still queued anywhere.
    if (!(assert_ & MPI_MODE_NOPRECEDE)) {
      std::fill(w->unflushed.begin(), w->unflushed.end(), 0u);
      std::fill(w->unacked.begin(), w->unacked.end(), 0u);
    }
  }
  w->fence_epoch = !(assert_ & MPI_MODE_NOSUCCEED);
  if (rdma_rc != MPI_SUCCESS) return wraise(w, rdma_rc);
  return deferred(w);
}
CHORUS_ALIAS(MPI_Win_fence)

// ---- active target: post / start / complete / wait ----------------------------------------

int PMPI_Win_post(MPI_Group group, int assert_, MPI_Win win) {
  const char* call = "MPI_Win_post";
  WIN_ENTRY(call, win, w);
  CHORUS_TRY_MPI(check_assert(w, call, assert_, MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT));
  if (w->exposure)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is already exposed (MPI_Win_wait ends that first)", call,
                 static_cast<unsigned>(win));
  std::vector<int> origins;
  CHORUS_TRY_MPI(group_ranks(w, call, group, origins));
  if (!(assert_ & MPI_MODE_NOCHECK))
    for (int o : origins) send_bytes(*w, o, kTagPost, Bytes::copy_of("", 1));
  w->exposure = true;
  w->completes_expected = static_cast<unsigned>(origins.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_post)

int PMPI_Win_start(MPI_Group group, int assert_, MPI_Win win) {
  const char* call = "MPI_Win_start";
  WIN_ENTRY(call, win, w);
  CHORUS_TRY_MPI(check_assert(w, call, assert_, MPI_MODE_NOCHECK));
  if (w->access)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} already has an access epoch (MPI_Win_complete ends it)",
                 call, static_cast<unsigned>(win));
  if (any_lock(*w))
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is in a lock epoch (MPI_Win_unlock ends it first)", call,
                 static_cast<unsigned>(win));
  CHORUS_TRY_MPI(end_idle_fence(w, call));
  std::vector<int> targets;
  CHORUS_TRY_MPI(group_ranks(w, call, group, targets));
  if (!(assert_ & MPI_MODE_NOCHECK)) {
    // Wait for every target's post note.
    std::vector<Request*> rs;
    std::vector<std::byte> sink(targets.size());
    for (std::size_t i = 0; i < targets.size(); ++i) {
      Request* r = requests().get();
      r->kind = Request::Kind::Recv;
      r->comm = w->comm;
      (void)p2p::irecv(r, &sink[i], 1, tag::make(kTagPost, targets[i], w->comm->ctx_p2p), tag::mask(false, false));
      rs.push_back(r);
    }
    wait_for([&] {
      for (Request* r : rs)
        if (!r->complete) return false;
      return true;
    });
    for (Request* r : rs) requests().put(r);
  }
  // A target posts after its last MPI_Win_wait, which waited for everything this
  // rank sent it before its MPI_Win_complete (and NOCHECK asserts such a post).
  for (int t : targets) w->unflushed[static_cast<std::size_t>(t)] = w->unacked[static_cast<std::size_t>(t)] = 0;
  w->access = true;
  w->access_group = targets;
  for (int t : targets) w->in_access[static_cast<std::size_t>(t)] = 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_start)

int PMPI_Win_complete(MPI_Win win) {
  const char* call = "MPI_Win_complete";
  WIN_ENTRY(call, win, w);
  if (!w->access)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} has no access epoch (MPI_Win_start opens one)", call,
                 static_cast<unsigned>(win));
  // A failed transfer is reported after the targets heard "complete" (they wait for it).
  const int rdma_rc = rdma_complete(*w, &w->access_group, true, call);
  for (int t : w->access_group) send_control(*w, t, OpKind::Complete, 0, false);
  wait_for([&] { return locally_done(*w); });
  for (int t : w->access_group) w->in_access[static_cast<std::size_t>(t)] = 0;
  w->access_group.clear();
  w->access = false;
  if (rdma_rc != MPI_SUCCESS) return wraise(w, rdma_rc);
  return deferred(w);
}
CHORUS_ALIAS(MPI_Win_complete)

static int end_exposure(const char* call, MPI_Win win, int* flag) {
  WIN_ENTRY(call, win, w);
  if (!w->exposure)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is not exposed (MPI_Win_post exposes it)", call,
                 static_cast<unsigned>(win));
  if (flag) {
    p2p::progress();
    *flag = w->completes >= w->completes_expected;
    if (!*flag) return MPI_SUCCESS;
  } else {
    wait_for([&] { return w->completes >= w->completes_expected; });
  }
  w->completes -= w->completes_expected;
  w->completes_expected = 0;
  w->exposure = false;
  return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win) { return end_exposure("MPI_Win_wait", win, nullptr); }
CHORUS_ALIAS(MPI_Win_wait)

int PMPI_Win_test(MPI_Win win, int* flag) {
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Win_test: flag is NULL");
  return end_exposure("MPI_Win_test", win, flag);
}
CHORUS_ALIAS(MPI_Win_test)

// ---- passive target ------------------------------------------------------------------------

int PMPI_Win_lock(int lock_type, int rank, int assert_, MPI_Win win) {
  const char* call = "MPI_Win_lock";
  WIN_ENTRY(call, win, w);
  if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
    return wfail(w, MPI_ERR_LOCKTYPE, "{}: lock_type is {}, must be MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED", call,
                 lock_type);
  const int n = w->comm->size;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= n) return wfail(w, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, n);
  CHORUS_TRY_MPI(check_assert(w, call, assert_, MPI_MODE_NOCHECK));
  if (w->lock_all || w->locks[static_cast<std::size_t>(rank)])
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is already locked at rank {}", call,
                 static_cast<unsigned>(win), rank);
  CHORUS_TRY_MPI(passive_allowed(w, call));
  CHORUS_TRY_MPI(lock_one(w, lock_type, rank, assert_, call));
  // The lock is granted lazily: operations sent as messages queue at the target
  // behind the request (lock, put and unlock: one round trip, not two), and those
  // that touch the target's memory from here wait for the grant (issue()). Load
  // and store access needs it now: a lock on this rank's own window, or on a
  // window in shared memory.
  if (rank == w->comm->rank || w->shm) await_grant(*w, static_cast<std::size_t>(rank));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_lock)

int PMPI_Win_unlock(int rank, MPI_Win win) {
  const char* call = "MPI_Win_unlock";
  WIN_ENTRY(call, win, w);
  const int n = w->comm->size;
  if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
  if (rank < 0 || rank >= n) return wfail(w, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, n);
  const auto r = static_cast<std::size_t>(rank);
  if (!w->locks[r])
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is not locked at rank {}", call,
                 static_cast<unsigned>(win), rank);
  // A failed transfer is reported after the unlock (the target would hold the lock).
  const std::vector<int> one{rank};
  const int rdma_rc = rdma_complete(*w, &one, true, call);
  w->unflushed[r] = w->unacked[r] = 0;  // before the send: another thread's operation after it counts again
  int err = acknowledged(*w, {rank}, OpKind::Unlock, {w->lock_checked[r] != 0});
  if (err == MPI_SUCCESS) err = rdma_rc;
  w->locks[r] = 0;
  w->lock_checked[r] = 0;
  if (err != MPI_SUCCESS) return wraise(w, err);
  return deferred(w);
}
CHORUS_ALIAS(MPI_Win_unlock)

int PMPI_Win_lock_all(int assert_, MPI_Win win) {
  const char* call = "MPI_Win_lock_all";
  WIN_ENTRY(call, win, w);
  CHORUS_TRY_MPI(check_assert(w, call, assert_, MPI_MODE_NOCHECK));
  const bool locked = any_lock(*w);
  if (locked)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is already locked", call, static_cast<unsigned>(win));
  CHORUS_TRY_MPI(passive_allowed(w, call));
  const int n = w->comm->size;
  for (int r = 0; r < n; ++r) CHORUS_TRY_MPI(lock_one(w, MPI_LOCK_SHARED, r, assert_, call));
  std::fill(w->locks.begin(), w->locks.end(), 0);
  w->lock_all = true;
  w->lock_all_checked = !(assert_ & MPI_MODE_NOCHECK);
  // Granted lazily, as in MPI_Win_lock.
  if (w->shm)
    for (int r = 0; r < n; ++r) await_grant(*w, static_cast<std::size_t>(r));
  else
    await_grant(*w, static_cast<std::size_t>(w->comm->rank));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_lock_all)

int PMPI_Win_unlock_all(MPI_Win win) {
  const char* call = "MPI_Win_unlock_all";
  WIN_ENTRY(call, win, w);
  if (!w->lock_all)
    return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is not locked by MPI_Win_lock_all", call,
                 static_cast<unsigned>(win));
  std::vector<int> all(static_cast<std::size_t>(w->comm->size));
  for (std::size_t r = 0; r < all.size(); ++r) all[r] = static_cast<int>(r);
  const int rdma_rc = rdma_complete(*w, nullptr, true, call);  // reported after the unlocks (see MPI_Win_unlock)
  std::fill(w->unflushed.begin(), w->unflushed.end(), 0u);  // before the sends (see MPI_Win_unlock)
  std::fill(w->unacked.begin(), w->unacked.end(), 0u);
  int err = acknowledged(*w, all, OpKind::Unlock, std::vector<bool>(all.size(), w->lock_all_checked));
  if (err == MPI_SUCCESS) err = rdma_rc;
  w->lock_all = false;
  std::fill(w->lock_checked.begin(), w->lock_checked.end(), 0);
  if (err != MPI_SUCCESS) return wraise(w, err);
  return deferred(w);
}
CHORUS_ALIAS(MPI_Win_unlock_all)

static int flush_any(const char* call, int rank, MPI_Win win, bool local) {
  WIN_ENTRY(call, win, w);
  const int n = w->comm->size;
  std::vector<int> targets;
  if (rank == -1) {  // the _all forms
    for (int r = 0; r < n; ++r)
      if (passive_to(*w, r)) targets.push_back(r);
  } else {
    if (rank == MPI_PROC_NULL) return MPI_SUCCESS;
    if (rank < 0 || rank >= n) return wfail(w, MPI_ERR_RANK, "{}: rank is {}, must be in [0, {})", call, rank, n);
    if (!passive_to(*w, rank))
      return wfail(w, MPI_ERR_RMA_SYNC, "{}: window 0x{:x} is not locked at rank {}", call,
                   static_cast<unsigned>(win), rank);
    if (!w->rkeys.empty()) {  // transfers through UCX (rdma_setup); none on other windows, so no allocation
      const std::vector<int> one{rank};
      if (int rc = rdma_complete(*w, &one, !local, call); rc != MPI_SUCCESS) return wraise(w, rc);
    }
    if (!local && w->unflushed[static_cast<std::size_t>(rank)] == 0) {  // see below
      std::atomic_thread_fence(std::memory_order_seq_cst);
      progress_now_and_then();
      return deferred(w);
    }
    targets.push_back(rank);
  }
  if (rank == -1)
    if (int rc = rdma_complete(*w, &targets, !local, call); rc != MPI_SUCCESS) return wraise(w, rc);
  if (local) {  // wait for the answers of gets, and for data sent from the user's buffer (Hdr::follows)
    wait_for([&] {
      for (int t : targets)
        if (answers_from(*w, t)) return false;
      return true;
    });
    return deferred(w);
  }
  // A target this rank sent no operation since its last flush has nothing to
  // complete: the puts and gets of a window in shared memory were done by this
  // rank's own copies (direct()). The fence makes them visible before what follows.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  std::erase_if(targets, [&](int t) { return w->unflushed[static_cast<std::size_t>(t)] == 0; });
  if (targets.empty()) {
    progress_now_and_then();
    return deferred(w);
  }
  // A target whose every operation since its last flush asked for an answer has
  // applied them once the answers are in (fetch-and-op and flush: one round
  // trip, not two); the others acknowledge a flush.
  std::vector<int> ask;
  for (int t : targets) {
    const auto i = static_cast<std::size_t>(t);
    if (w->unacked[i]) ask.push_back(t);
    w->unflushed[i] = w->unacked[i] = 0;  // before the sends (see MPI_Win_unlock)
  }
  counters::add(counters::Id::RmaFlushAcks, ask.size());
  int err = ask.empty() ? MPI_SUCCESS : acknowledged(*w, ask, OpKind::Flush, {});
  if (ask.size() < targets.size())
    wait_for([&] {
      for (int t : targets)
        if (answers_from(*w, t)) return false;
      return true;
    });
  if (err != MPI_SUCCESS) return wraise(w, err);
  return deferred(w);
}

int PMPI_Win_flush(int rank, MPI_Win win) { return flush_any("MPI_Win_flush", rank, win, false); }
CHORUS_ALIAS(MPI_Win_flush)
int PMPI_Win_flush_all(MPI_Win win) { return flush_any("MPI_Win_flush_all", -1, win, false); }
CHORUS_ALIAS(MPI_Win_flush_all)
int PMPI_Win_flush_local(int rank, MPI_Win win) { return flush_any("MPI_Win_flush_local", rank, win, true); }
CHORUS_ALIAS(MPI_Win_flush_local)
int PMPI_Win_flush_local_all(MPI_Win win) { return flush_any("MPI_Win_flush_local_all", -1, win, true); }
CHORUS_ALIAS(MPI_Win_flush_local_all)

int PMPI_Win_sync(MPI_Win win) {
  const char* call = "MPI_Win_sync";
  WIN_ENTRY(call, win, w);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  p2p::progress();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_sync)

// ---- window objects ------------------------------------------------------------------------

int PMPI_Win_get_group(MPI_Win win, MPI_Group* group) {
  const char* call = "MPI_Win_get_group";
  WIN_ENTRY(call, win, w);
  if (!group) return wfail(w, MPI_ERR_ARG, "{}: group is NULL", call);
  *group = group_new(w->comm->world_of, w->comm->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_get_group)

int PMPI_Win_set_name(MPI_Win win, const char* win_name) {
  const char* call = "MPI_Win_set_name";
  WIN_ENTRY(call, win, w);
  if (!win_name) return wfail(w, MPI_ERR_ARG, "{}: win_name is NULL", call);
  w->name.assign(win_name, strnlen(win_name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_set_name)

int PMPI_Win_get_name(MPI_Win win, char* win_name, int* resultlen) {
  const char* call = "MPI_Win_get_name";
  WIN_ENTRY(call, win, w);
  if (!win_name || !resultlen) return wfail(w, MPI_ERR_ARG, "{}: {} is NULL", call, win_name ? "resultlen" : "win_name");
  std::memcpy(win_name, w->name.c_str(), w->name.size() + 1);
  *resultlen = static_cast<int>(w->name.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_get_name)

int PMPI_Win_set_info(MPI_Win win, MPI_Info info) {
  const char* call = "MPI_Win_set_info";
  WIN_ENTRY(call, win, w);
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_WIN(w, check_info(call, w->comm, info, &hints, true));
  set_hints(*w, *hints);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_set_info)

int PMPI_Win_get_info(MPI_Win win, MPI_Info* info_used) {
  const char* call = "MPI_Win_get_info";
  WIN_ENTRY(call, win, w);
  if (!info_used) return wfail(w, MPI_ERR_ARG, "{}: info_used is NULL", call);
  // What the window does, then the hints given that are not among those keys.
  InfoPairs used = {{"no_locks", "false"},
                    {"accumulate_ordering", "rar,raw,war,waw"},
                    {"accumulate_ops", "same_op_no_op"},
                    {"same_size", "false"},
                    {"same_disp_unit", "false"}};
  if (w->flavor == MPI_WIN_FLAVOR_SHARED) used.emplace_back("alloc_shared_noncontig", "false");
  for (const auto& [k, v] : w->info) {
    auto it = std::find_if(used.begin(), used.end(), [&](const auto& p) { return p.first == k; });
    if (it != used.end()) it->second = v;
    else used.emplace_back(k, v);
  }
  *info_used = info_new(std::move(used));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_get_info)

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function* win_errhandler_fn, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Win_create_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!win_errhandler_fn) return fail(nullptr, MPI_ERR_ARG, "{}: function is NULL", call);
  if (!errhandler) return fail(nullptr, MPI_ERR_ARG, "{}: errhandler is NULL", call);
  *errhandler = errhandler_new(reinterpret_cast<MPI_Comm_errhandler_function*>(win_errhandler_fn),
                               ErrhandlerKind::Win);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_create_errhandler)

int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler) {
  const char* call = "MPI_Win_set_errhandler";
  WIN_ENTRY(call, win, w);
  if (!errhandler_fits(errhandler, ErrhandlerKind::Win))
    return wfail(w, MPI_ERR_ARG, "{}: {} 0x{:x}", call,
                 errhandler_valid(errhandler) ? "errhandler is not a window's handler" : "invalid errhandler",
                 static_cast<unsigned>(errhandler));
  errhandler_ref(errhandler, +1);
  errhandler_ref(w->errhandler, -1);
  w->errhandler = errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_set_errhandler)

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Win_get_errhandler";
  WIN_ENTRY(call, win, w);
  if (!errhandler) return wfail(w, MPI_ERR_ARG, "{}: errhandler is NULL", call);
  *errhandler = errhandler_in_effect(w->errhandler);
  errhandler_ref(*errhandler, +1);  // the caller frees the returned handle
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Win_get_errhandler)

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode) {
  const char* call = "MPI_Win_call_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  Win* w;
  CHORUS_TRY_MPI(check_win(call, win, &w));
  wraise(w, errorcode);
  return MPI_SUCCESS;  // the call itself succeeds unless the handler was fatal
}
CHORUS_ALIAS(MPI_Win_call_errhandler)

int PMPI_Win_create_keyval(MPI_Win_copy_attr_function* win_copy_attr_fn,
                           MPI_Win_delete_attr_function* win_delete_attr_fn, int* win_keyval, void* extra_state) {
  return keyval_create("MPI_Win_create_keyval", KeyKind::Win,
                       reinterpret_cast<MPI_Comm_copy_attr_function*>(win_copy_attr_fn),
                       reinterpret_cast<MPI_Comm_delete_attr_function*>(win_delete_attr_fn), win_keyval,
                       extra_state);
}
CHORUS_ALIAS(MPI_Win_create_keyval)

int PMPI_Win_free_keyval(int* win_keyval) { return keyval_free("MPI_Win_free_keyval", KeyKind::Win, win_keyval); }
CHORUS_ALIAS(MPI_Win_free_keyval)

int PMPI_Win_set_attr(MPI_Win win, int win_keyval, void* attribute_val) {
  const char* call = "MPI_Win_set_attr";
  WIN_ENTRY(call, win, w);
  return attr_set(call, KeyKind::Win, w->handle, w->attrs, w->attr_order, win_keyval, attribute_val,
                  [w](int code) { return wraise(w, code); });
}
CHORUS_ALIAS(MPI_Win_set_attr)

int PMPI_Win_get_attr(MPI_Win win, int win_keyval, void* attribute_val, int* flag) {
  const char* call = "MPI_Win_get_attr";
  WIN_ENTRY(call, win, w);
  return get_attr(call, w, win_keyval, attribute_val, flag);
}
CHORUS_ALIAS(MPI_Win_get_attr)

int PMPI_Win_delete_attr(MPI_Win win, int win_keyval) {
  const char* call = "MPI_Win_delete_attr";
  WIN_ENTRY(call, win, w);
  return attr_delete(call, KeyKind::Win, w->handle, w->attrs, w->attr_order, win_keyval,
                     [w](int code) { return wraise(w, code); });
}
CHORUS_ALIAS(MPI_Win_delete_attr)

}  // extern "C"
