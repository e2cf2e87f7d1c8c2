#include "p2p/device.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>

#include "core/counters.h"
#include "core/log.h"
#include "gpu/gpu.h"

namespace chorus::p2p::device {
namespace {

struct State {
  bool native = false;
  ucp_datatype_t dt = 0;
  bool dt_made = false;
  void (*complete)(Request*) = nullptr;
};
State g;

// Pinned staging per transfer: a ring of this many chunks (CHORUS_GPU_CHUNK_BYTES
// each), whatever the message size. A send copies chunk c+kRing into the slot of
// chunk c once UCX has packed c, so kRing chunks stay in flight ahead of UCX; a
// receive copies each chunk to the device once its fragments have landed, and
// frees its slot when that copy is done.
constexpr std::size_t kRing = 4;

// One staged transfer. Owned jointly by UCX (start_* .. finish) and the request
// (posted .. completion callback); freed when both are done.
struct Xfer {
  Request* req = nullptr;
  std::byte* dev = nullptr;      // the user's device buffer
  std::size_t bytes = 0;         // its size (a receive's capacity)
  bool send = false;
  std::byte* pinned = nullptr;   // the ring: `slots` slots of plan.chunk bytes
  std::size_t slots = 0;
  gpu::ChunkPlan plan;
  std::unique_ptr<gpu::Lane> lane;
  std::vector<std::ptrdiff_t> holder;     // per slot: the chunk in it (-1: none)
  std::vector<std::uint32_t> slot_copy;   // per slot: its last copy's ticket
  std::vector<bool> slot_copied;          // per slot: a copy into or out of it was issued
  std::vector<std::size_t> filled;    // receive: bytes landed per chunk
  std::vector<bool> issued;           // receive: chunk copy to the device queued
  std::vector<bool> direct;           // receive: chunk copied fragment by fragment
  bool started = false, finished = false, ucx_done = false;
  bool failed = false;
  bool abandoned = false;  // the request gave up on it (failed to post)
};

void fail(Xfer* x, const char* what) {
  if (!x->failed)
    CHORUS_WARN(GPU, "device {} of {} bytes: {}: {}", x->send ? "send" : "receive", x->bytes, what,
                gpu::last_error());
  x->failed = true;
}

std::byte* slot_of(Xfer* x, std::size_t c) { return x->pinned + (c % x->slots) * x->plan.chunk; }

// The slot's last copy is done (its bytes may be read, or overwritten).
bool slot_ready(Xfer* x, std::size_t s) {
  if (!x->slot_copied[s]) return true;
  if (ok(x->lane->wait(x->slot_copy[s]))) return true;
  fail(x, x->send ? "device-to-host copy" : "host-to-device copy");
  return false;
}

// Send: queue the copy of chunk c into its slot (the slot's earlier chunk is done with).
void fetch(Xfer* x, std::size_t c) {
  const std::size_t s = c % x->slots;
  if (x->holder[s] == static_cast<std::ptrdiff_t>(c) || !slot_ready(x, s)) return;
  const std::size_t off = x->plan.offset(c);
  x->holder[s] = static_cast<std::ptrdiff_t>(c);
  x->slot_copied[s] = true;
  if (!ok(x->lane->copy_async(slot_of(x, c), x->dev + off, x->plan.length(c), &x->slot_copy[s])))
    fail(x, "device-to-host copy");
}

void setup(Xfer* x) {
  x->started = true;
  x->plan = gpu::ChunkPlan{x->bytes, gpu::chunk_bytes()};
  x->lane = std::make_unique<gpu::Lane>();
  if (x->bytes == 0) return;
  const std::size_t n = x->plan.count();
  x->slots = std::min(n, kRing);
  void* p = nullptr;
  if (!ok(gpu::pinned_alloc(x->slots * x->plan.chunk, &p))) {
    fail(x, "pinned staging buffer");
    return;
  }
  x->pinned = static_cast<std::byte*>(p);
  x->holder.assign(x->slots, -1);
  x->slot_copy.assign(x->slots, 0);
  x->slot_copied.assign(x->slots, false);
  if (x->send) {
    for (std::size_t c = 0; c < x->slots && !x->failed; ++c) fetch(x, c);
  } else {
    x->filled.assign(n, 0);
    x->issued.assign(n, false);
    x->direct.assign(n, false);
  }
}

void* start_pack(void*, const void* buffer, std::size_t) {
  auto* x = static_cast<Xfer*>(const_cast<void*>(buffer));
  setup(x);
  return x;
}

void* start_unpack(void*, void* buffer, std::size_t) {
  auto* x = static_cast<Xfer*>(buffer);
  setup(x);
  return x;
}

std::size_t packed_size(void* state) { return static_cast<Xfer*>(state)->bytes; }

std::size_t pack(void* state, std::size_t offset, void* dest, std::size_t max_length) {
  auto* x = static_cast<Xfer*>(state);
  std::size_t len = std::min(max_length, x->bytes - offset);
  if (len == 0) return 0;
  if (x->failed || !x->pinned) {
    std::memset(dest, 0, len);  // the request reports the failure
    return len;
  }
  auto* out = static_cast<std::byte*>(dest);
  const std::size_t end = offset + len;
  while (offset < end && !x->failed) {
    const std::size_t c = x->plan.chunk_of(offset);
    const std::size_t in = offset - x->plan.offset(c);
    const std::size_t n = std::min(end - offset, x->plan.length(c) - in);
    fetch(x, c);  // a chunk packed out of order (UCX packs in order as a rule)
    if (!slot_ready(x, c % x->slots)) break;
    std::memcpy(out, slot_of(x, c) + in, n);
    out += n;
    offset += n;
    // Chunk c is packed: its slot takes the chunk kRing ahead.
    if (in + n == x->plan.length(c) && c + x->slots < x->plan.count()) fetch(x, c + x->slots);
  }
  if (x->failed) std::memset(out, 0, end - offset);
  return len;
}

// Receive: queue chunk c's copy from its slot to the device (its first `len` bytes).
void issue_chunk(Xfer* x, std::size_t c, std::size_t len) {
  const std::size_t s = c % x->slots;
  x->issued[c] = true;
  x->slot_copied[s] = true;
  if (!ok(x->lane->copy_async(x->dev + x->plan.offset(c), slot_of(x, c), len, &x->slot_copy[s])))
    fail(x, "host-to-device copy");
}

ucs_status_t unpack(void* state, std::size_t offset, const void* src, std::size_t length) {
  auto* x = static_cast<Xfer*>(state);
  if (offset + length > x->bytes) return UCS_ERR_MESSAGE_TRUNCATED;
  if (x->failed || !x->pinned) return UCS_OK;
  auto* from = static_cast<const std::byte*>(src);
  // Account the bytes to the chunks they fall in; queue each chunk once full.
  const std::size_t end = offset + length;
  while (offset < end && !x->failed) {
    const std::size_t c = x->plan.chunk_of(offset);
    const std::size_t in = offset - x->plan.offset(c);
    const std::size_t n = std::min(end - offset, x->plan.length(c) - in);
    const std::size_t s = c % x->slots;
    if (!x->direct[c] && x->holder[s] != static_cast<std::ptrdiff_t>(c)) {
      const std::ptrdiff_t prev = x->holder[s];
      if (prev < 0 || (x->issued[static_cast<std::size_t>(prev)] && slot_ready(x, s)))
        x->holder[s] = static_cast<std::ptrdiff_t>(c);
      else
        x->direct[c] = true;  // the slot's chunk is still arriving (fragments out of order)
    }
    if (x->direct[c]) {
      // Straight to the device, and waited for: UCX reuses `src` when this returns.
      std::uint32_t t = 0;
      if (!ok(x->lane->copy_async(x->dev + offset, from, n, &t)) || !ok(x->lane->wait(t)))
        fail(x, "host-to-device copy");
    } else {
      std::memcpy(slot_of(x, c) + in, from, n);
      x->filled[c] += n;
      if (x->filled[c] == x->plan.length(c) && !x->issued[c]) issue_chunk(x, c, x->plan.length(c));
    }
    from += n;
    offset += n;
  }
  return UCS_OK;
}

void release(Xfer* x) {
  if (x->pinned) gpu::pinned_free(x->pinned);
  delete x;
}

void finish(void* state) {
  auto* x = static_cast<Xfer*>(state);
  if (!x->send && x->pinned && !x->failed) {
    // A message shorter than the buffer leaves its last chunk partly filled
    // (fragments land in order within a chunk's range: they cover [off, off+filled)).
    for (std::size_t c = 0; c < x->filled.size(); ++c)
      if (!x->issued[c] && !x->direct[c] && x->filled[c] > 0) issue_chunk(x, c, x->filled[c]);
  }
  if (x->lane && !ok(x->lane->wait_all())) fail(x, x->send ? "device-to-host copy" : "host-to-device copy");
  x->finished = true;
  if (x->abandoned) {
    release(x);
    return;
  }
  if (x->failed && x->req->error == MPI_SUCCESS) x->req->error = MPI_ERR_OTHER;
  if (x->ucx_done) {
    Request* r = x->req;
    r->gpu_xfer = nullptr;
    release(x);
    g.complete(r);
  }
}

}  // namespace

Status init(std::uint64_t memory_types, void (*complete)(Request*)) {
  g.complete = complete;
  g.native = (memory_types & (1ull << UCS_MEMORY_TYPE_CUDA)) != 0;
  // UCX's CUDA transports call the driver while they progress, on whatever thread
  // drives UCX: threads that had no context keep Chorus's.
  if (g.native) gpu::keep_context_on_bare_threads();
  if (!gpu::enabled()) return Status::Ok;
  if (!g.native && !g.dt_made) {
    static ucp_generic_dt_ops_t ops{};
    ops.start_pack = start_pack;
    ops.start_unpack = start_unpack;
    ops.packed_size = packed_size;
    ops.pack = pack;
    ops.unpack = unpack;
    ops.finish = finish;
    ucs_status_t st = ucp_dt_create_generic(&ops, nullptr, &g.dt);
    if (st != UCS_OK) {
      CHORUS_WARN(GPU, "ucp_dt_create_generic: {}", ucs_status_string(st));
      return Status::Internal;
    }
    g.dt_made = true;
  }
  CHORUS_LOG(INFO, GPU, "device buffers in point-to-point: {} (chunks of {} bytes)", mode_name(),
             gpu::chunk_bytes());
  return Status::Ok;
}

void finalize() {
  if (g.dt_made) ucp_dt_destroy(g.dt);
  g.dt_made = false;
}

bool native() { return g.native; }

const char* mode_name() {
  return g.native ? "UCX native (CUDA memory type)" : "staged through pinned host memory";
}

void prepare(Request* r, void* buf, std::size_t bytes, bool send, ucp_request_param_t& p,
             void** ucx_buf, std::size_t* ucx_count) {
  *ucx_buf = buf;
  *ucx_count = bytes;
  if (g.native) {
    p.op_attr_mask |= UCP_OP_ATTR_FIELD_MEMORY_TYPE;
    p.memory_type = gpu::kind_of(buf) == gpu::MemKind::Managed ? UCS_MEMORY_TYPE_CUDA_MANAGED
                                                               : UCS_MEMORY_TYPE_CUDA;
    return;
  }
  counters::message(counters::Id::DeviceStagedMessages, bytes);
  auto* x = new Xfer;
  x->req = r;
  x->dev = static_cast<std::byte*>(buf);
  x->bytes = bytes;
  x->send = send;
  r->gpu_xfer = x;
  p.op_attr_mask |= UCP_OP_ATTR_FIELD_DATATYPE;
  p.datatype = g.dt;
  *ucx_buf = x;
}

bool ucx_done(Request* r) {
  auto* x = static_cast<Xfer*>(r->gpu_xfer);
  if (!x) return true;
  x->ucx_done = true;
  if (!x->started) {
    // Completed without data (e.g. cancelled before matching): UCX never started it.
    r->gpu_xfer = nullptr;
    release(x);
    return true;
  }
  if (!x->finished) return false;
  if (x->failed && r->error == MPI_SUCCESS) r->error = MPI_ERR_OTHER;
  r->gpu_xfer = nullptr;
  release(x);
  return true;
}

void abandon(Request* r) {
  auto* x = static_cast<Xfer*>(r->gpu_xfer);
  if (!x) return;
  r->gpu_xfer = nullptr;
  // UCX finishes what it started (finish() runs); only unstarted transfers are ours to drop.
  if (!x->started || x->finished) release(x);
  else x->abandoned = true;
}

}  // namespace chorus::p2p::device
