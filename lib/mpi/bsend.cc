// Buffered sends: MPI_Buffer_attach/detach and the Bsend family.
//
// The attached buffer is carved first-fit into blocks of (message + header); a
// block holds a copy of the message until its send completes. Each block costs
// MPI_BSEND_OVERHEAD bytes of accounting, as the standard tells users to reserve.
#include <cstring>
#include <iterator>
#include <map>

#include "mpi/api.h"
#include "p2p/tag.h"

namespace chorus::mpi {
namespace {

struct BsendBuffer {
  std::byte* base = nullptr;
  std::size_t size = 0;
  std::map<std::size_t, std::size_t> used;  // offset -> length (incl. overhead)
  std::size_t pending = 0;                  // sends still in flight
};
BsendBuffer g_bsend;

constexpr std::size_t kAlign = 16;

std::size_t round_up(std::size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

// First fit; returns SIZE_MAX when nothing fits.
std::size_t alloc_block(std::size_t len) {
  std::size_t at = 0;
  for (const auto& [off, l] : g_bsend.used) {
    if (off - at >= len) break;
    at = round_up(off + l);
  }
  if (at + len > g_bsend.size) return SIZE_MAX;
  g_bsend.used.emplace(at, len);
  return at;
}

std::size_t free_bytes() {
  std::size_t in_use = 0;
  for (const auto& [off, l] : g_bsend.used) in_use += l;
  return g_bsend.size - std::min(in_use, g_bsend.size);
}

}  // namespace

int bsend_start(const char* call, Comm* c, const void* buf, std::size_t bytes, int dest, int tag,
                Request** out) {
  std::size_t need = bytes + MPI_BSEND_OVERHEAD;
  std::size_t off = g_bsend.base ? alloc_block(need) : SIZE_MAX;
  if (off == SIZE_MAX) {
    if (!g_bsend.base)
      return fail(c, MPI_ERR_BUFFER, "{}: no buffer is attached (MPI_Buffer_attach) for a {}-byte message",
                  call, bytes);
    return fail(c, MPI_ERR_BUFFER,
                "{}: the attached buffer of {} bytes has {} bytes free, the message needs {} "
                "({} + MPI_BSEND_OVERHEAD)", call, g_bsend.size, free_bytes(), need, bytes);
  }
  std::byte* block = g_bsend.base + off;
  if (bytes) std::memcpy(block, buf, bytes);
  Request* r = requests().get();
  r->comm = c;
  r->bsend_block = block;
  r->user_freed = true;  // nobody waits for it: released when the send completes
  ++g_bsend.pending;
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
  auto off = static_cast<std::size_t>(static_cast<std::byte*>(r->bsend_block) - g_bsend.base);
  g_bsend.used.erase(off);
  r->bsend_block = nullptr;
  --g_bsend.pending;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Buffer_attach(void* buffer, int size) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_attach"));
  p2p::ApiLock lock;
  if (size < 0) return fail(nullptr, MPI_ERR_ARG, "MPI_Buffer_attach: size is {}, must be non-negative", size);
  if (!buffer && size > 0) return fail(nullptr, MPI_ERR_BUFFER, "MPI_Buffer_attach: buffer is NULL with size {}", size);
  if (g_bsend.base)
    return fail(nullptr, MPI_ERR_BUFFER, "MPI_Buffer_attach: a buffer of {} bytes is already attached",
                g_bsend.size);
  g_bsend.base = static_cast<std::byte*>(buffer);
  g_bsend.size = static_cast<std::size_t>(size);
  g_bsend.used.clear();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Buffer_attach)

int PMPI_Buffer_detach(void* buffer_addr, int* size) {
  CHORUS_TRY_MPI(check_running("MPI_Buffer_detach"));
  if (!buffer_addr || !size)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Buffer_detach: {} is NULL", size ? "buffer_addr" : "size");
  p2p::ApiLock lock;
  // Every buffered message must be on its way before the memory goes back.
  p2p::wait_until([] { return g_bsend.pending == 0; });
  *static_cast<void**>(buffer_addr) = g_bsend.base;
  *size = static_cast<int>(g_bsend.size);
  g_bsend = BsendBuffer{};
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Buffer_detach)

}  // extern "C"
