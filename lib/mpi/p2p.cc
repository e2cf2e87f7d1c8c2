// Point-to-point calls: argument checks, then lib/p2p.
#include <algorithm>
#include <type_traits>
#include <climits>
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include "core/hang.h"
#include "core/log.h"
#include "gpu/gpu.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "mpi/stream.h"
#include "p2p/tag.h"

namespace chorus::mpi {

// mpi/datatype.cc: datatype checks and staging of non-contiguous buffers.
int check_data_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out);
Status stage_attach(Request* r, const TypeInfo* ti, void* user, std::size_t count);
Status stage_pack(Request* r);

namespace {

enum class Mode { Standard, Sync, Ready, Buffered };

struct SendArgs {
  Comm* comm;
  std::size_t bytes;        // packed bytes (wire size)
  const TypeInfo* ti;
  std::size_t count;
};

// Contiguous types move straight from/to the user's buffer (at true_lb); the others
// go through a packed copy.
bool direct(const SendArgs& a) { return type_is_contiguous(*a.ti, a.count); }

template <typename P>
P* data_of(P* buf, const SendArgs& a) {
  using B = std::conditional_t<std::is_const_v<P>, const std::byte, std::byte>;
  return static_cast<B*>(buf) + a.ti->true_lb;
}

// A device-memory failure (staging, packing on the GPU) as an MPI error naming the call.
int fail_gpu(Comm* c, const char* call, const char* what, Status s) {
  return fail(c, to_mpi_class(s), "{}: {} in device memory failed: {}", call, what, gpu::last_error());
}

// Device memory a blocking call packs into; freed with the object.
struct DevicePacked {
  void* p = nullptr;
  ~DevicePacked() {
    if (p) gpu::device_free(p);
  }
};

// Data to send: the user's buffer, or a packed copy of it (`tmp` on the host, `dev`
// for device buffers, packed on the GPU).
Status send_data(const void* buf, const SendArgs& a, std::vector<std::byte>& tmp, DevicePacked& dev,
                 const void** out) {
  if (direct(a)) {
    *out = data_of(buf, a);
    return Status::Ok;
  }
  if (a.count && gpu::on_device(data_of(buf, a))) {
    CHORUS_TRY(gpu::device_alloc(a.bytes ? a.bytes : 1, &dev.p));
    CHORUS_TRY(gpu::pack(*a.ti, buf, a.count, dev.p));
    *out = dev.p;
    return Status::Ok;
  }
  tmp.resize(a.bytes);
  type_pack(*a.ti, buf, a.count, tmp.data());
  *out = tmp.data();
  return Status::Ok;
}

// A send of a copy the library owns (MPI_Isendrecv): nobody waits for it, and the
// copy goes when the send is done (the request is released by the pool's owner).
struct OwnedCopy {
  std::vector<std::byte> host;
  DevicePacked dev;
};
void owned_copy_free(void* p) { delete static_cast<OwnedCopy*>(p); }

// Datatype, then buffer: a derived type may address absolute memory from MPI_BOTTOM.
int check_typed_buffer(const char* call, Comm* c, const void* buf, int count, MPI_Datatype type,
                       SendArgs& out) {
  // No data at all may come with MPI_DATATYPE_NULL, as MPICH accepts it.
  if (count == 0 && type == MPI_DATATYPE_NULL) type = MPI_BYTE;
  CHORUS_TRY_MPI(check_data_type(call, c, type, &out.ti));
  if (out.ti->predefined) CHORUS_TRY_MPI(check_buffer(call, c, buf, count));
  out.count = static_cast<std::size_t>(count);
  out.bytes = wire_bytes(*out.ti, out.count);
  return MPI_SUCCESS;
}

// The usual call checked in one pass: a builtin datatype, a buffer for its data,
// a rank of an intracommunicator (or MPI_ANY_SOURCE for a receive) and a tag in
// range (or MPI_ANY_TAG). False sends the call through the full checks, which
// also name whatever is wrong. The layered checks alone cost an 8 B MPI_Isend or
// MPI_Irecv ~260 instructions (callgrind); this, inlined, about 40.
[[gnu::always_inline]] inline bool quick_args(const void* buf, int count, MPI_Datatype type, int peer, int tag,
                                              MPI_Comm comm, bool recv, SendArgs& out) {
  if (g_phase != Phase::Running || count < 0 || (count > 0 && !buf)) return false;
  if (peer < 0 && !(recv && peer == MPI_ANY_SOURCE)) return false;  // MPI_PROC_NULL too
  if ((tag < 0 || tag > tag::kTagUB) && !(recv && tag == MPI_ANY_TAG)) return false;
  const TypeInfo* ti = builtin_type_info(type);
  if (!ti || !ti->committed) return false;
  Comm* c = comm_lookup(comm);
  if (!c || c->inter || peer >= c->size || g_stream_error_pending.load(std::memory_order_acquire)) return false;
  out.comm = c;
  out.ti = ti;
  out.count = static_cast<std::size_t>(count);
  out.bytes = wire_bytes(*ti, out.count);
  return true;
}

// Shared checks of every send-like call: the usual one inline, the rest (and
// every error) out of line.
[[gnu::noinline]] int check_send_full(const char* call, const void* buf, int count, MPI_Datatype type, int dest,
                                      int tag, MPI_Comm comm, SendArgs& out) {
  CHORUS_TRY_MPI(check_running(call));
  CHORUS_TRY_MPI(check_comm(call, comm, &out.comm));
  CHORUS_TRY_MPI(check_count(call, out.comm, count));
  CHORUS_TRY_MPI(check_typed_buffer(call, out.comm, buf, count, type, out));
  CHORUS_TRY_MPI(check_rank(call, out.comm, dest, "dest", false));
  CHORUS_TRY_MPI(check_tag(call, out.comm, tag, false));
  return MPI_SUCCESS;
}

[[gnu::noinline]] int check_recv_full(const char* call, const void* buf, int count, MPI_Datatype type, int source,
                                      int tag, MPI_Comm comm, SendArgs& out) {
  CHORUS_TRY_MPI(check_running(call));
  CHORUS_TRY_MPI(check_comm(call, comm, &out.comm));
  CHORUS_TRY_MPI(check_count(call, out.comm, count));
  CHORUS_TRY_MPI(check_typed_buffer(call, out.comm, buf, count, type, out));
  CHORUS_TRY_MPI(check_rank(call, out.comm, source, "source", true));
  CHORUS_TRY_MPI(check_tag(call, out.comm, tag, true));
  return MPI_SUCCESS;
}

inline int check_send(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                      MPI_Comm comm, SendArgs& out) {
  if (quick_args(buf, count, type, dest, tag, comm, false, out)) [[likely]]
    return MPI_SUCCESS;
  return check_send_full(call, buf, count, type, dest, tag, comm, out);
}

inline int check_recv(const char* call, const void* buf, int count, MPI_Datatype type, int source, int tag,
                      MPI_Comm comm, SendArgs& out) {
  if (quick_args(buf, count, type, source, tag, comm, true, out)) [[likely]]
    return MPI_SUCCESS;
  return check_recv_full(call, buf, count, type, source, tag, comm, out);
}

std::uint64_t send_tag(const Comm* c, int tag) { return tag::make(tag, c->rank, c->ctx_p2p); }

void recv_match(const Comm* c, int source, int tag, std::uint64_t& t, std::uint64_t& mask) {
  bool any_src = source == MPI_ANY_SOURCE, any_tag = tag == MPI_ANY_TAG;
  t = tag::make(any_tag ? 0 : tag, any_src ? 0 : source, c->ctx_p2p);
  mask = tag::mask(any_src, any_tag);
}

// Start a non-blocking send of any mode into `r` (already from the pool).
int start_send(const char* call, Request* r, Mode mode) {
  Comm* c = r->comm;
  if (r->peer == MPI_PROC_NULL) {
    r->kind = Request::Kind::Send;
    r->active = true;
    r->complete = true;
    return MPI_SUCCESS;
  }
  // Non-contiguous type: user buffer -> packed staging (each start), which rides
  // on the request's extension.
  if (r->ext)
    if (Status st = stage_pack(r); !ok(st)) return fail_gpu(c, call, "packing the send buffer", st);
  if (mode == Mode::Buffered) {
    Request* inner = nullptr;
    CHORUS_TRY_MPI(bsend_start(call, c, r->buf, r->buf_bytes, r->peer, r->user_tag, &inner));
    // The user's request completes at once: the data now lives in the attached buffer.
    r->kind = Request::Kind::Send;
    r->active = true;
    r->complete = true;
    return MPI_SUCCESS;
  }
  Status s = p2p::isend(r, r->buf, r->buf_bytes, c->peer_world(r->peer), send_tag(c, r->user_tag),
                        mode == Mode::Sync);
  if (!ok(s)) return fail_status(c, s, call);
  return MPI_SUCCESS;
}

int start_recv(const char* call, Request* r) {
  Comm* c = r->comm;
  if (r->peer == MPI_PROC_NULL) {
    r->kind = Request::Kind::Recv;
    r->active = true;
    r->complete = true;
    r->source = MPI_PROC_NULL;
    r->tag = MPI_ANY_TAG;
    r->bytes = 0;
    return MPI_SUCCESS;
  }
  std::uint64_t t, mask;
  recv_match(c, r->peer, r->user_tag, t, mask);
  Status s = p2p::irecv(r, r->buf, r->buf_bytes, t, mask);
  if (!ok(s)) return fail_status(c, s, call);
  return MPI_SUCCESS;
}

int isend_any(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
              MPI_Comm comm, MPI_Request* request, Mode mode, bool persistent) {
  SendArgs a;
  CHORUS_TRY_MPI(check_send(call, buf, count, type, dest, tag, comm, a));
  if (!request) return fail(a.comm, MPI_ERR_REQUEST, "{}: request is NULL", call);
  p2p::ApiLock lock;
  // A small standard send to a rank of this node goes into its ring here and is
  // done: it takes no request of its own but the one complete send they all
  // share (RequestPool::kDoneSendIndex), whose wait has nothing to free. Half of
  // an 8 B send's cost was its request's life (take, look up, complete, free).
  if (!persistent && mode == Mode::Standard && dest != MPI_PROC_NULL && direct(a) &&
      p2p::send_now(data_of(buf, a), a.bytes, a.comm->peer_world(dest), send_tag(a.comm, tag))) {
    *request = requests().done_send_handle();
    return MPI_SUCCESS;
  }
  Request* r = requests().get();
  r->kind = Request::Kind::Send;
  r->comm = a.comm;
  r->buf = const_cast<void*>(data_of(buf, a));
  r->buf_bytes = a.bytes;
  if (!direct(a)) {
    if (Status st = stage_attach(r, a.ti, const_cast<void*>(buf), a.count); !ok(st)) {
      requests().put(r);
      return fail_gpu(a.comm, call, "staging the send buffer", st);
    }
  }
  r->peer = dest;
  r->user_tag = tag;
  r->sync = mode == Mode::Sync;
  r->persistent = persistent;
  r->send_mode = static_cast<std::uint8_t>(mode);
  if (!persistent) {
    int rc = start_send(call, r, mode);
    if (rc != MPI_SUCCESS) {
      requests().put(r);
      return rc;
    }
  }
  *request = requests().handle(r);
  return MPI_SUCCESS;
}

int irecv_any(const char* call, void* buf, int count, MPI_Datatype type, int source, int tag,
              MPI_Comm comm, MPI_Request* request, bool persistent) {
  SendArgs a;
  CHORUS_TRY_MPI(check_recv(call, buf, count, type, source, tag, comm, a));
  if (!request) return fail(a.comm, MPI_ERR_REQUEST, "{}: request is NULL", call);
  p2p::ApiLock lock;
  Request* r = requests().get();
  r->kind = Request::Kind::Recv;
  r->comm = a.comm;
  r->buf = data_of(buf, a);
  r->buf_bytes = a.bytes;
  r->recv_unit = static_cast<std::uint32_t>(a.ti->unit);
  if (!direct(a)) {
    if (Status st = stage_attach(r, a.ti, buf, a.count); !ok(st)) {
      requests().put(r);
      return fail_gpu(a.comm, call, "staging the receive buffer", st);
    }
  }
  r->peer = source;
  r->user_tag = tag;
  r->persistent = persistent;
  if (!persistent) {
    int rc = start_recv(call, r);
    if (rc != MPI_SUCCESS) {
      requests().put(r);
      return rc;
    }
  }
  *request = requests().handle(r);
  return MPI_SUCCESS;
}

int send_blocking(const char* call, const void* buf, int count, MPI_Datatype type, int dest, int tag,
                  MPI_Comm comm, Mode mode) {
  SendArgs a;
  CHORUS_TRY_MPI(check_send(call, buf, count, type, dest, tag, comm, a));
  if (dest == MPI_PROC_NULL) return MPI_SUCCESS;
  p2p::ApiLock lock;
  std::vector<std::byte> packed;
  DevicePacked dev;
  const void* data = nullptr;
  if (Status st = send_data(buf, a, packed, dev, &data); !ok(st))
    return fail_gpu(a.comm, call, "packing the send buffer", st);
  if (mode == Mode::Buffered) {
    Request* inner = nullptr;
    return bsend_start(call, a.comm, data, a.bytes, dest, tag, &inner);
  }
  hang::Site site{.call = call, .comm = a.comm, .peer = a.comm->peer_world(dest), .tag = tag, .pending = 1};
  hang::Scope waiting(site);
  Status s = p2p::send(data, a.bytes, a.comm->peer_world(dest), send_tag(a.comm, tag), mode == Mode::Sync);
  if (!ok(s)) return fail_status(a.comm, s, call);
  return MPI_SUCCESS;
}

// Blocking receive into buf; fills *status. Used by MPI_Recv and MPI_Sendrecv.
int recv_blocking(const char* call, Comm* c, void* buf, std::size_t bytes, std::size_t unit, int source,
                  int tag, MPI_Status* status, std::size_t* received = nullptr) {
  if (source == MPI_PROC_NULL) {
    set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, false);
    return MPI_SUCCESS;
  }
  std::uint64_t t, mask;
  recv_match(c, source, tag, t, mask);
  p2p::RecvInfo info;
  hang::Site site{.call = call, .comm = c, .peer = source == MPI_ANY_SOURCE ? -1 : c->peer_world(source),
                  .tag = tag, .pending = 1};
  hang::Scope waiting(site);
  Status s = p2p::recv(buf, bytes, t, mask, info);
  if (!ok(s)) return fail_status(c, s, call);
  if (received) *received = std::min(info.length, bytes);
  set_status(status, tag::source_of(info.sender_tag), tag::tag_of(info.sender_tag), info.length, false);
  if (info.status == Status::Truncate) {
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = MPI_ERR_TRUNCATE;
    return fail(c, MPI_ERR_TRUNCATE,
                "{}: message from rank {} with tag {} is longer than the receive buffer of {} bytes",
                call, tag::source_of(info.sender_tag), tag::tag_of(info.sender_tag), bytes);
  }
  if (!ok(info.status)) return fail_status(c, info.status, call);
  if (std::string bad = partial_element_text(call, tag::source_of(info.sender_tag), tag::tag_of(info.sender_tag),
                                             info.length, unit);
      !bad.empty()) {
    if (status != MPI_STATUS_IGNORE) status->MPI_ERROR = MPI_ERR_TYPE;
    return fail(c, MPI_ERR_TYPE, "{}", bad);
  }
  return MPI_SUCCESS;
}

// Blocking receive in the datatype's layout: straight into buf when contiguous,
// else into a packed temporary unpacked afterwards (also what fit of a truncated one).
int recv_typed(const char* call, const SendArgs& a, void* buf, int source, int tag, MPI_Status* status) {
  if (direct(a)) return recv_blocking(call, a.comm, data_of(buf, a), a.bytes, a.ti->unit, source, tag, status);
  if (a.count && gpu::on_device(data_of(buf, a))) {
    DevicePacked dev;
    if (Status st = gpu::device_alloc(a.bytes ? a.bytes : 1, &dev.p); !ok(st))
      return fail_gpu(a.comm, call, "staging the receive buffer", st);
    std::size_t got = 0;
    int rc = recv_blocking(call, a.comm, dev.p, a.bytes, a.ti->unit, source, tag, status, &got);
    if (Status st = gpu::unpack(*a.ti, dev.p, a.ti->size ? got / a.ti->size : 0, buf); !ok(st))
      return fail_gpu(a.comm, call, "unpacking the receive buffer", st);
    return rc;
  }
  std::vector<std::byte> packed(a.bytes);
  std::size_t got = 0;
  int rc = recv_blocking(call, a.comm, packed.data(), a.bytes, a.ti->unit, source, tag, status, &got);
  type_unpack_bytes(*a.ti, packed.data(), got, buf);
  return rc;
}

// ---- partitioned communication ------------------------------------------------------
// MPI_Psend_init / MPI_Precv_init make persistent requests of partitions * count
// elements. The whole buffer travels as one message once every partition is
// ready (the receive is posted at MPI_Start, so MPI_Parrived answers for all
// partitions at once). Partitioned operations match only each other: they travel
// on the communicator's collective context with the top bit of the source field
// set, which no collective message carries (collectives match exact sources
// below 2^23) and no wildcard can reach (there are none on that context).
// They match in the order they were initialized (not started): each side numbers
// its inits per (communicator, peer, tag), and the number's low 8 bits travel in
// the source field above the rank (so the communicator has under 2^15 ranks).
constexpr int kPartSourceBit = 1 << (tag::kSourceBits - 1);
constexpr int kPartRankBits = 15;
constexpr int kPartMaxRanks = 1 << kPartRankBits;

unsigned next_part_seq(const Comm* c, int peer, int tag, bool send) {
  static std::map<std::tuple<unsigned, int, int, bool>, unsigned> counters;
  return counters[{c->ctx_coll, c->peer_world(peer), tag, send}]++;
}

struct Part {
  int partitions = 0;
  bool send = false;
  unsigned seq = 0;  // its place among the inits to/from its peer with its tag
  std::vector<std::uint8_t> ready;
  int n_ready = 0;
  // Non-contiguous datatypes: a packed copy (made when the last partition is
  // ready; unpacked when the receive completes).
  std::vector<std::byte> packed;
  const TypeInfo* ti = nullptr;
  void* user = nullptr;
  std::size_t count = 0;
};
void part_free(void* p) {
  auto* q = static_cast<Part*>(p);
  type_release(q->ti);
  delete q;
}
Part* part_of(Request* r) { return r->ext_free == part_free ? static_cast<Part*>(r->ext) : nullptr; }

std::uint64_t part_tag(const Comm* c, int tag, int source, unsigned seq) {
  return tag::make(tag, source | static_cast<int>((seq & 0xffu) << kPartRankBits) | kPartSourceBit, c->ctx_coll);
}

int part_start(const char* call, Request* r, Part* q) {
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->cancelled = false;
  if (r->peer == MPI_PROC_NULL) {
    r->complete = true;
    r->source = MPI_PROC_NULL;
    r->tag = MPI_ANY_TAG;
    r->bytes = 0;
    return MPI_SUCCESS;
  }
  if (q->send) {
    std::fill(q->ready.begin(), q->ready.end(), 0);
    q->n_ready = 0;
    return MPI_SUCCESS;
  }
  Status s = p2p::irecv(r, r->buf, r->buf_bytes, part_tag(r->comm, r->user_tag, r->peer, q->seq),
                        tag::mask(false, false));
  if (!ok(s)) return fail_status(r->comm, s, call);
  return MPI_SUCCESS;
}

// Mark one partition of an active partitioned send ready; the last one sends.
int part_ready(const char* call, Request* r, Part* q, int partition) {
  if (partition < 0 || partition >= q->partitions)
    return fail(r->comm, MPI_ERR_ARG, "{}: partition {} is not in [0, {})", call, partition, q->partitions);
  auto& mark = q->ready[static_cast<std::size_t>(partition)];
  if (mark) return fail(r->comm, MPI_ERR_ARG, "{}: partition {} is ready already", call, partition);
  mark = 1;
  if (++q->n_ready < q->partitions || r->peer == MPI_PROC_NULL) return MPI_SUCCESS;
  if (q->ti) type_pack(*q->ti, q->user, q->count, q->packed.data());
  Comm* c = r->comm;
  Status s = p2p::isend(r, r->buf, r->buf_bytes, c->peer_world(r->peer), part_tag(c, r->user_tag, c->rank, q->seq),
                        false);
  if (!ok(s)) return fail_status(c, s, call);
  return MPI_SUCCESS;
}

int part_init(const char* call, void* buf, int partitions, MPI_Count count, MPI_Datatype type, int peer, int tag,
              MPI_Comm comm, MPI_Info info, MPI_Request* request, bool send) {
  CHORUS_TRY_MPI(check_running(call));
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (partitions < 1) return fail(c, MPI_ERR_ARG, "{}: partitions is {}, must be at least 1", call, partitions);
  if (count < 0) return fail(c, MPI_ERR_COUNT, "{}: count is {}, must be non-negative", call, count);
  const MPI_Count total = count * partitions;
  if (total > INT_MAX)
    return fail(c, MPI_ERR_COUNT, "{}: {} partitions of {} elements are more than {} elements in all", call,
                partitions, count, INT_MAX);
  SendArgs a;
  if (send) CHORUS_TRY_MPI(check_send(call, buf, static_cast<int>(total), type, peer, tag, comm, a));
  else CHORUS_TRY_MPI(check_recv(call, buf, static_cast<int>(total), type, peer, tag, comm, a));
  if (peer == MPI_ANY_SOURCE)
    return fail(c, MPI_ERR_RANK, "{}: a partitioned receive needs a source rank, not MPI_ANY_SOURCE", call);
  if (tag == MPI_ANY_TAG) return fail(c, MPI_ERR_TAG, "{}: a partitioned receive needs a tag, not MPI_ANY_TAG", call);
  if (c->size >= kPartMaxRanks || c->peers() >= kPartMaxRanks)
    return fail(c, MPI_ERR_COMM, "{}: partitioned communication takes communicators under {} ranks", call,
                kPartMaxRanks);
  const InfoPairs* hints = nullptr;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  if (!request) return fail(c, MPI_ERR_REQUEST, "{}: request is NULL", call);
  if (!direct(a) && a.count && gpu::on_device(data_of(buf, a)))
    return fail(c, MPI_ERR_BUFFER, "{}: a non-contiguous datatype on device memory is not supported here", call);
  p2p::ApiLock lock;
  auto q = std::make_unique<Part>();
  q->partitions = partitions;
  q->send = send;
  q->ready.assign(static_cast<std::size_t>(partitions), 0);
  if (peer != MPI_PROC_NULL) q->seq = next_part_seq(c, peer, tag, send);
  Request* r = requests().get();
  r->kind = send ? Request::Kind::Send : Request::Kind::Recv;
  r->comm = c;
  r->persistent = true;
  r->peer = peer;
  r->user_tag = tag;
  r->buf = data_of(buf, a);
  r->buf_bytes = a.bytes;
  if (!direct(a)) {
    q->packed.resize(a.bytes);
    q->ti = a.ti;
    type_retain(a.ti);
    q->user = buf;
    q->count = a.count;
    r->buf = q->packed.data();
  }
  r->ext = q.release();
  r->ext_free = part_free;
  *request = requests().handle(r);
  return MPI_SUCCESS;
}

int part_lookup(const char* call, MPI_Request h, bool send, Request** r, Part** q) {
  *r = requests().lookup(h);
  *q = *r ? part_of(*r) : nullptr;
  if (!*q || (*q)->send != send)
    return fail(nullptr, MPI_ERR_REQUEST, "{}: request 0x{:x} is not a partitioned {} request", call,
                static_cast<unsigned>(h), send ? "send" : "receive");
  return MPI_SUCCESS;
}

}  // namespace

// A partitioned receive completed: its status names the peer and tag (the wire's
// source field carries more), and a non-contiguous datatype's packed copy goes to
// the user's buffer.
void part_finish(Request* r) {
  Part* q = part_of(r);
  if (!q || q->send || r->peer == MPI_PROC_NULL) return;
  r->source = r->peer;
  r->tag = r->user_tag;
  if (!q->ti || r->cancelled) return;
  type_unpack_bytes(*q->ti, q->packed.data(), std::min(r->bytes, q->packed.size()), q->user);
}

// MPI_Start on a persistent request.
int request_start(const char* call, Request* r) {
  if (Part* q = part_of(r)) return part_start(call, r, q);
  if (r->kind == Request::Kind::Recv) return start_recv(call, r);
  return start_send(call, r, static_cast<Mode>(r->send_mode));
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
              MPI_Status* status) {
  SendArgs a;
  CHORUS_TRY_MPI(check_recv("MPI_Recv", buf, count, datatype, source, tag, comm, a));
  p2p::ApiLock lock;
  return recv_typed("MPI_Recv", a, buf, source, tag, status);
}
CHORUS_ALIAS(MPI_Recv)

int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                  MPI_Comm comm, MPI_Status* status) {
  const char* call = "MPI_Sendrecv";
  SendArgs s, r;
  CHORUS_TRY_MPI(check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, s));
  CHORUS_TRY_MPI(check_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, r));
  p2p::ApiLock lock;
  // Post the send first (non-blocking), then receive, then finish the send: two
  // ranks exchanging with each other never deadlock.
  Request* sreq = nullptr;
  std::vector<std::byte> packed;
  DevicePacked dev;
  if (dest != MPI_PROC_NULL) {
    const void* data = nullptr;
    if (Status st = send_data(sendbuf, s, packed, dev, &data); !ok(st))
      return fail_gpu(s.comm, call, "packing the send buffer", st);
    sreq = requests().get();
    sreq->comm = s.comm;
    Status st = p2p::isend(sreq, data, s.bytes, s.comm->peer_world(dest), send_tag(s.comm, sendtag), false);
    if (!ok(st)) {
      requests().put(sreq);
      return fail_status(s.comm, st, call);
    }
  }
  int rc = recv_typed(call, r, recvbuf, source, recvtag, status);
  if (sreq) {
    p2p::wait_until([&] { return sreq->complete; });
    int err = sreq->error;
    requests().put(sreq);
    if (rc == MPI_SUCCESS && err != MPI_SUCCESS)
      rc = fail(s.comm, err, "{}: send to rank {} failed", call, dest);
  }
  return rc;
}
CHORUS_ALIAS(MPI_Sendrecv)

static int send_owned_copy(const char* call, const void* buf, const SendArgs& s, int dest, int tag) {
  auto copy = std::make_unique<OwnedCopy>();
  const void* data = nullptr;
  if (s.count && gpu::on_device(data_of(buf, s))) {
    if (Status st = gpu::device_alloc(s.bytes ? s.bytes : 1, &copy->dev.p); !ok(st))
      return fail_gpu(s.comm, call, "copying the send buffer", st);
    if (Status st = gpu::pack(*s.ti, buf, s.count, copy->dev.p); !ok(st))
      return fail_gpu(s.comm, call, "copying the send buffer", st);
    data = copy->dev.p;
  } else {
    copy->host.resize(s.bytes);
    type_pack(*s.ti, buf, s.count, copy->host.data());
    data = copy->host.data();
  }
  Request* r = requests().get();
  r->kind = Request::Kind::Send;
  r->comm = s.comm;
  r->ext = copy.release();
  r->ext_free = owned_copy_free;
  Status st = p2p::isend(r, data, s.bytes, s.comm->peer_world(dest), send_tag(s.comm, tag), false);
  if (!ok(st)) {
    requests().put(r);
    return fail_status(s.comm, st, call);
  }
  if (r->complete) requests().put(r);
  else r->user_freed = true;
  return MPI_SUCCESS;
}

// MPI_Isendrecv(_replace): the send goes from a copy, so the request is the
// receive's (its status is the one MPI asks for) and completes with it.
static int isendrecv_any(const char* call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                         int sendtag, void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Request* request) {
  CHORUS_TRY_MPI(check_running(call));
  SendArgs s, r;
  CHORUS_TRY_MPI(check_send(call, sendbuf, sendcount, sendtype, dest, sendtag, comm, s));
  CHORUS_TRY_MPI(check_recv(call, recvbuf, recvcount, recvtype, source, recvtag, comm, r));
  if (!request) return fail(s.comm, MPI_ERR_REQUEST, "{}: request is NULL", call);
  p2p::ApiLock lock;
  if (dest != MPI_PROC_NULL) CHORUS_TRY_MPI(send_owned_copy(call, sendbuf, s, dest, sendtag));
  return irecv_any(call, recvbuf, recvcount, recvtype, source, recvtag, comm, request, false);
}

static int pready_any(const char* call, MPI_Request request, int lo, int hi, const int* list) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Request* r;
  Part* q;
  CHORUS_TRY_MPI(part_lookup(call, request, true, &r, &q));
  if (!r->active)
    return fail(r->comm, MPI_ERR_REQUEST, "{}: request 0x{:x} is not active (MPI_Start it first)", call,
                static_cast<unsigned>(request));
  if (list) {
    for (int i = 0; i < hi; ++i) CHORUS_TRY_MPI(part_ready(call, r, q, list[i]));
    return MPI_SUCCESS;
  }
  if (lo > hi) return fail(r->comm, MPI_ERR_ARG, "{}: partition_low {} is above partition_high {}", call, lo, hi);
  for (int p = lo; p <= hi; ++p) CHORUS_TRY_MPI(part_ready(call, r, q, p));
  return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, int array_of_partitions[], MPI_Request request) {
  if (length < 0) return fail(nullptr, MPI_ERR_ARG, "MPI_Pready_list: length is {}, must be non-negative", length);
  if (length > 0 && !array_of_partitions)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Pready_list: array_of_partitions is NULL");
  return pready_any("MPI_Pready_list", request, 0, length, array_of_partitions ? array_of_partitions : &length);
}
CHORUS_ALIAS(MPI_Pready_list)

int PMPI_Parrived(MPI_Request request, int partition, int* flag) {
  const char* call = "MPI_Parrived";
  CHORUS_TRY_MPI(check_running(call));
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "{}: flag is NULL", call);
  p2p::ApiLock lock;
  Request* r;
  Part* q;
  CHORUS_TRY_MPI(part_lookup(call, request, false, &r, &q));
  if (partition < 0 || partition >= q->partitions)
    return fail(r->comm, MPI_ERR_ARG, "{}: partition {} is not in [0, {})", call, partition, q->partitions);
  if (!r->active) {  // nothing pending: every partition is there
    *flag = 1;
    return MPI_SUCCESS;
  }
  if (!r->complete) p2p::progress();
  *flag = r->complete ? 1 : 0;
  if (*flag) part_finish(r);  // a non-contiguous type's data goes to the buffer now (again at the wait: the same bytes)
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Parrived)

int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
  const char* call = "MPI_Sendrecv_replace";
  SendArgs s, r;
  CHORUS_TRY_MPI(check_send(call, buf, count, datatype, dest, sendtag, comm, s));
  CHORUS_TRY_MPI(check_recv(call, buf, count, datatype, source, recvtag, comm, r));
  // Send from a packed copy (same bytes on the wire) so the receive may land in
  // the user's buffer at once.
  std::vector<std::byte> copy;
  DevicePacked dev;
  const void* data = nullptr;
  if (s.count && gpu::on_device(data_of(buf, s))) {  // device buffer: a packed device copy
    if (Status st = gpu::device_alloc(s.bytes ? s.bytes : 1, &dev.p); !ok(st))
      return fail_gpu(s.comm, call, "copying the buffer", st);
    if (Status st = gpu::pack(*s.ti, buf, s.count, dev.p); !ok(st))
      return fail_gpu(s.comm, call, "copying the buffer", st);
    data = dev.p;
  } else {
    copy.resize(s.bytes);
    type_pack(*s.ti, buf, s.count, copy.data());
    data = copy.data();
  }
  return PMPI_Sendrecv(data, static_cast<int>(s.bytes), MPI_BYTE, dest, sendtag, buf, count,
                       datatype, source, recvtag, comm, status);
}
CHORUS_ALIAS(MPI_Sendrecv_replace)

// ---- probes -------------------------------------------------------------------

static int probe_any(const char* call, int source, int tag, MPI_Comm comm, int* flag,
                     MPI_Message* message, MPI_Status* status, bool blocking) {
  CHORUS_TRY_MPI(check_running(call));
  mpit_deliver_events();  // tools' deferred MPI_T event callbacks, before anything else
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  CHORUS_TRY_MPI(check_rank(call, c, source, "source", true));
  CHORUS_TRY_MPI(check_tag(call, c, tag, true));
  if (!blocking && !flag) return fail(c, MPI_ERR_ARG, "{}: flag is NULL", call);
  if (source == MPI_PROC_NULL) {
    if (flag) *flag = 1;
    if (message) *message = MPI_MESSAGE_NO_PROC;
    set_status(status, MPI_PROC_NULL, MPI_ANY_TAG, 0, false);
    return MPI_SUCCESS;
  }
  p2p::ApiLock lock;
  std::uint64_t t, mask;
  recv_match(c, source, tag, t, mask);
  p2p::RecvInfo info;
  void* msg = nullptr;
  bool found;
  if (blocking) {
    found = false;
    hang::Site site{.call = call, .comm = c, .peer = source == MPI_ANY_SOURCE ? -1 : c->peer_world(source),
                    .tag = tag, .pending = 1};
    hang::Scope waiting(site);
    p2p::wait_until([&] { return found = p2p::probe(t, mask, message != nullptr, info, &msg); });
  } else {
    p2p::progress();
    found = p2p::probe(t, mask, message != nullptr, info, &msg);
  }
  if (flag) *flag = found;
  if (!found) return MPI_SUCCESS;
  set_status(status, tag::source_of(info.sender_tag), tag::tag_of(info.sender_tag), info.length, false);
  if (message) {
    Request* r = requests().get();
    r->kind = Request::Kind::Message;
    r->comm = c;
    r->ucx_msg = msg;
    r->source = tag::source_of(info.sender_tag);
    r->tag = tag::tag_of(info.sender_tag);
    r->bytes = info.length;
    r->sender_tag = info.sender_tag;
    *message = static_cast<MPI_Message>(requests().handle(r));
  }
  return MPI_SUCCESS;
}

int PMPI_Imrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message,
                MPI_Request* request) {
  const char* call = "MPI_Imrecv";
  CHORUS_TRY_MPI(check_running(call));
  if (!message) return fail(nullptr, MPI_ERR_ARG, "{}: message is NULL", call);
  if (!request) return fail(nullptr, MPI_ERR_REQUEST, "{}: request is NULL", call);
  p2p::ApiLock lock;
  if (*message == MPI_MESSAGE_NO_PROC) {
    Request* r = requests().get();
    r->kind = Request::Kind::Recv;
    r->active = r->complete = true;
    r->source = MPI_PROC_NULL;
    r->tag = MPI_ANY_TAG;
    *message = MPI_MESSAGE_NULL;
    *request = requests().handle(r);
    return MPI_SUCCESS;
  }
  Request* m = requests().lookup(static_cast<MPI_Request>(*message));
  if (!m || m->kind != Request::Kind::Message)
    return fail(nullptr, MPI_ERR_REQUEST, "{}: invalid message handle 0x{:x}", call,
                static_cast<unsigned>(*message));
  Comm* c = m->comm;
  SendArgs a;
  a.comm = c;
  CHORUS_TRY_MPI(check_count(call, c, count));
  CHORUS_TRY_MPI(check_typed_buffer(call, c, buf, count, datatype, a));
  p2p::RecvInfo probed;
  probed.sender_tag = m->sender_tag;
  probed.length = m->bytes;
  void* msg = m->ucx_msg;
  // The message handle becomes the receive request.
  m->kind = Request::Kind::Recv;
  m->ucx_msg = nullptr;
  m->buf = data_of(buf, a);
  m->buf_bytes = a.bytes;
  m->recv_unit = static_cast<std::uint32_t>(a.ti->unit);
  if (!direct(a)) {
    if (Status st = stage_attach(m, a.ti, buf, a.count); !ok(st))
      return fail_gpu(c, call, "staging the receive buffer", st);
  }
  Status s = p2p::imrecv(m, m->buf, a.bytes, msg, probed);
  if (!ok(s)) return fail_status(c, s, call);
  *message = MPI_MESSAGE_NULL;
  *request = requests().handle(m);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Imrecv)

int PMPI_Mrecv(void* buf, int count, MPI_Datatype datatype, MPI_Message* message, MPI_Status* status) {
  MPI_Request req = MPI_REQUEST_NULL;
  CHORUS_TRY_MPI(PMPI_Imrecv(buf, count, datatype, message, &req));
  return PMPI_Wait(&req, status);
}
CHORUS_ALIAS(MPI_Mrecv)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "p2p_forward.inc"

}  // extern "C"
