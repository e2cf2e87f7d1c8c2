// Buffered sends: the buffers (MPI_Buffer_attach/detach/flush, and MPI 4.1's
// per-communicator and per-session buffers) and the Bsend family.
//
// A buffered send on a communicator takes the communicator's buffer, else the
// buffer of the session it was derived from, else the process's (MPI 4.1, 3.6).
// An attached buffer is carved first-fit into blocks of (message + header); a
// block holds a copy of the message until its send completes. Each block costs
// MPI_BSEND_OVERHEAD bytes of accounting, as the standard tells users to reserve.
// MPI_BUFFER_AUTOMATIC instead of an address lets the library take what each
// message needs from the heap, without a limit.
//
// Every buffered send is numbered in its buffer; a flush waits until every send
// numbered before it has gone (MPI_Buffer_iflush and the like: a request that
// bsend_release completes).
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <set>

#include "mpi/api.h"
#include "p2p/tag.h"

namespace chorus::mpi {
namespace {

struct BsendBuffer {
  std::byte* base = nullptr;  // the user's memory (nullptr with none, or automatic)
  std::size_t size = 0;
  bool automatic = false;     // MPI_BUFFER_AUTOMATIC: blocks from the heap
  std::map<std::size_t, std::size_t> used;  // offset -> length (incl. overhead)
  std::set<std::uint64_t> in_flight;        // numbers of the sends not yet gone
  std::uint64_t next = 0;                   // the number of the next send

  bool attached() const { return base || automatic; }
};

BsendBuffer g_process;
std::map<const Comm*, BsendBuffer> g_comms;  // dropped when the communicator goes (bsend_forget)
std::map<std::uint64_t, BsendBuffer> g_sessions;  // by the session's serial number; dropped
                                                  // at MPI_Session_finalize

// Each block of a send in flight: its buffer and number.
struct Block {
  BsendBuffer* owner;
  std::uint64_t number;
};
std::map<const void*, Block> g_blocks;

// Flush requests waiting for the sends numbered below `upto` in `b`.
struct Flush {
  BsendBuffer* b;
  std::uint64_t upto;
  Request* r;
};
std::vector<Flush> g_flushes;

constexpr std::size_t kAlign = 16;

// Where a buffer of 0 bytes points: attached, and too small for any message.
std::byte g_empty;

std::size_t round_up(std::size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

// First fit; returns SIZE_MAX when nothing fits.
std::size_t alloc_block(BsendBuffer& b, std::size_t len) {
  std::size_t at = 0;
  for (const auto& [off, l] : b.used) {
    if (off - at >= len) break;
    at = round_up(off + l);
  }
  if (at + len > b.size) return SIZE_MAX;
  b.used.emplace(at, len);
  return at;
}

std::size_t free_bytes(const BsendBuffer& b) {
  std::size_t in_use = 0;
  for (const auto& [off, l] : b.used) in_use += l;
  return b.size - std::min(in_use, b.size);
}

bool flushed(const BsendBuffer& b, std::uint64_t upto) {
  return b.in_flight.empty() || *b.in_flight.begin() >= upto;
}

// The buffer a buffered send on `c` takes (maybe not attached).
BsendBuffer& buffer_for(const Comm* c) {
  if (auto it = g_comms.find(c); it != g_comms.end() && it->second.attached()) return it->second;
  if (c->session)
    if (auto it = g_sessions.find(c->session); it != g_sessions.end() && it->second.attached()) return it->second;
  return g_process;
}

int attach(const char* call, Comm* errc, BsendBuffer& b, const char* whose, void* buffer, int size) {
  if (buffer == MPI_BUFFER_AUTOMATIC) {
    if (b.attached())
      return fail(errc, MPI_ERR_BUFFER, "{}: {} already has a buffer attached", call, whose);
    b.automatic = true;
    return MPI_SUCCESS;
  }
  if (size < 0) return fail(errc, MPI_ERR_ARG, "{}: size is {}, must be non-negative", call, size);
  if (!buffer && size > 0) return fail(errc, MPI_ERR_BUFFER, "{}: buffer is NULL with size {}", call, size);
  if (b.attached())
    return fail(errc, MPI_ERR_BUFFER, "{}: {} already has a buffer attached ({})", call, whose,
                b.automatic ? std::string("MPI_BUFFER_AUTOMATIC") : fmt::format("{} bytes", b.size));
  b.base = buffer ? static_cast<std::byte*>(buffer) : &g_empty;
  b.size = static_cast<std::size_t>(size);
  b.used.clear();
  return MPI_SUCCESS;
}

int detach(const char* call, Comm* errc, BsendBuffer& b, void* buffer_addr, int* size) {
  if (!buffer_addr || !size)
    return fail(errc, MPI_ERR_ARG, "{}: {} is NULL", call, size ? "buffer_addr" : "size");
  if (!b.attached()) {  // as MPICH: nothing attached reads as a NULL buffer of 0 bytes
    *static_cast<void**>(buffer_addr) = nullptr;
    *size = 0;
    return MPI_SUCCESS;
  }
  // Every buffered message must be on its way before the memory goes back.
  BsendBuffer* p = &b;
  p2p::wait_until([p] { return p->in_flight.empty(); });
  *static_cast<void**>(buffer_addr) =
      b.automatic ? MPI_BUFFER_AUTOMATIC : b.base == &g_empty ? nullptr : static_cast<void*>(b.base);
  *size = static_cast<int>(b.size);
  b = BsendBuffer{};
  return MPI_SUCCESS;
}

int flush(BsendBuffer& b) {
  const std::uint64_t upto = b.next;
  BsendBuffer* p = &b;
  p2p::wait_until([p, upto] { return flushed(*p, upto); });
  return MPI_SUCCESS;
}

// `owner`: the communicator whose buffer it is (the request keeps it alive), else
// MPI_COMM_WORLD; `errc` takes errors of the call itself.
int iflush(const char* call, Comm* errc, Comm* owner, BsendBuffer& b, MPI_Request* request) {
  if (!request) return fail(errc, MPI_ERR_ARG, "{}: request is NULL", call);
  Request* r = requests().get();
  r->kind = Request::Kind::Done;
  r->active = true;
  r->comm = owner;
  r->complete = flushed(b, b.next);
  if (!r->complete) g_flushes.push_back({&b, b.next, r});
  *request = requests().handle(r);
  return MPI_SUCCESS;
}

const char* process_name = "the process";

}  // namespace

int bsend_start(const char* call, Comm* c, const void* buf, std::size_t bytes, int dest, int tag,
                Request** out) {
  BsendBuffer& b = buffer_for(c);
  std::byte* block = nullptr;
  if (b.automatic) {
    block = static_cast<std::byte*>(std::malloc(bytes ? bytes : 1));
    if (!block)
      return fail(c, MPI_ERR_NO_MEM, "{}: no memory for a copy of the {}-byte message (MPI_BUFFER_AUTOMATIC)",
                  call, bytes);
  } else {
    std::size_t need = bytes + MPI_BSEND_OVERHEAD;
    std::size_t off = b.base ? alloc_block(b, need) : SIZE_MAX;
    // Sends that went may not be seen to have gone yet: a message its receiver
    // read single-copy frees its block once the receiver's word that it is done
    // has been read, and a rank that only sends reads nothing meanwhile. Take in
    // what progress has for us (not waiting for more) before calling the buffer
    // full, as MPICH does.
    while (off == SIZE_MAX && b.base && !b.in_flight.empty() && p2p::progress() > 0) off = alloc_block(b, need);
    if (off == SIZE_MAX) {
      if (!b.base)
        return fail(c, MPI_ERR_BUFFER,
                    "{}: no buffer is attached (MPI_Buffer_attach, MPI_Comm_attach_buffer or "
                    "MPI_Session_attach_buffer) for a {}-byte message", call, bytes);
      return fail(c, MPI_ERR_BUFFER,
                  "{}: the attached buffer of {} bytes has {} bytes free, the message needs {} "
                  "({} + MPI_BSEND_OVERHEAD)", call, b.size, free_bytes(b), need, bytes);
    }
    block = b.base + off;
  }
  if (bytes) std::memcpy(block, buf, bytes);
  const std::uint64_t number = b.next++;
  b.in_flight.insert(number);
  g_blocks.emplace(block, Block{&b, number});
  Request* r = requests().get();
  r->comm = c;
  r->bsend_block = block;
  r->user_freed = true;  // nobody waits for it: released when the send completes
  Status s = p2p::isend(r, block, bytes, c->peer_world(dest), tag::make(tag, c->rank, c->ctx_p2p), false);
  if (!ok(s)) {
    bsend_release(r);
    requests().put(r);
    return fail_status(c, s, call);
  }
  if (r->complete) {
    bsend_release(r);
    requests().put(r);
    r = nullptr;
  }
  *out = r;
  return MPI_SUCCESS;
}

void bsend_release(Request* r) {
  auto it = g_blocks.find(r->bsend_block);
  r->bsend_block = nullptr;
  if (it == g_blocks.end()) return;
  BsendBuffer& b = *it->second.owner;
  if (b.automatic) std::free(const_cast<void*>(it->first));
  else b.used.erase(static_cast<std::size_t>(static_cast<const std::byte*>(it->first) - b.base));
  b.in_flight.erase(it->second.number);
  g_blocks.erase(it);
  for (auto f = g_flushes.begin(); f != g_flushes.end();) {
    if (f->b == &b && flushed(b, f->upto)) {
      if (f->r->user_freed) requests().put(f->r);  // MPI_Request_free'd while it waited
      else f->r->complete = true;
      f = g_flushes.erase(f);
    } else {
      ++f;
    }
  }
}

void bsend_forget(const Comm* c) {
  // The communicator's buffered sends hold it until they complete (in_use), so
  // none of them is left when it goes.
  g_comms.erase(c);
}

int session_buffer(const char* call, Comm* errc, std::uint64_t session, BufferOp op, void* buffer, int* size,
                   MPI_Request* request) {
  // The entry stays until the session goes: another thread may be waiting on it.
  BsendBuffer& b = g_sessions[session];
  switch (op) {
    case BufferOp::Attach: return attach(call, errc, b, "the session", buffer, *size);
    case BufferOp::Detach: return detach(call, errc, b, buffer, size);
    case BufferOp::Flush: return flush(b);
    case BufferOp::Iflush: return iflush(call, errc, &world(), b, request);
    case BufferOp::Forget: {
      BsendBuffer* p = &b;
      p2p::wait_until([p] { return p->in_flight.empty(); });
      g_sessions.erase(session);
      return MPI_SUCCESS;
    }
  }
  return MPI_SUCCESS;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_attach"));
  p2p::ApiLock lock;
  return attach("MPI_Buffer_attach", nullptr, g_process, process_name, buffer, size);
}
CHORUS_ALIAS(MPI_Buffer_attach)

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_detach"));
  p2p::ApiLock lock;
  return detach("MPI_Buffer_detach", nullptr, g_process, buffer_addr, size);
}
CHORUS_ALIAS(MPI_Buffer_detach)

int PMPI_Buffer_flush(void) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_flush"));
  p2p::ApiLock lock;
  return flush(g_process);
}
CHORUS_ALIAS(MPI_Buffer_flush)

int PMPI_Buffer_iflush(MPI_Request* request) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_iflush"));
  p2p::ApiLock lock;
  return iflush("MPI_Buffer_iflush", nullptr, &world(), g_process, request);
}
CHORUS_ALIAS(MPI_Buffer_iflush)

// The calls on a communicator's buffer: errors go to the communicator's handler.
static int comm_buffer_call(const char* call, MPI_Comm comm, BufferOp op, void* buffer, int* size,
                            MPI_Request* request) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  BsendBuffer& b = g_comms[c];
  switch (op) {
    case BufferOp::Attach: return attach(call, c, b, "the communicator", buffer, *size);
    case BufferOp::Detach: return detach(call, c, b, buffer, size);
    case BufferOp::Flush: return flush(b);
    case BufferOp::Iflush: return iflush(call, c, c, b, request);
    case BufferOp::Forget: break;  // bsend_forget, when the communicator goes
  }
  return MPI_SUCCESS;
}

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "bsend_forward.inc"

}  // extern "C"
