#include "core/request.h"

#include <new>

#include "core/handle.h"

namespace chorus {

Request* RequestPool::get() {
  if (!free_) {
    int base = static_cast<int>(chunks_.size()) * kChunk;
    // Indices stop below the shared complete send's (and the handle's 26 bits).
    if (base > kDoneSendIndex - kChunk) throw std::bad_alloc();
    auto chunk = std::make_unique<Request[]>(kChunk);
    for (int i = kChunk - 1; i >= 0; --i) {
      chunk[i].index = base + i;
      chunk[i].next_free = free_;
      free_ = &chunk[i];
    }
    chunks_.push_back(std::move(chunk));
  }
  Request* r = free_;
  free_ = r->next_free;
  r->reset();
  r->kind = Request::Kind::Done;
  ++live_;
  return r;
}

void RequestPool::put(Request* r) {
  if (r->kind == Request::Kind::Free) return;  // released already: its slot must not be listed twice
  if (r == &done_send_) return;                 // shared, never in the pool
  if (r->ext_free) r->ext_free(r->ext);
  // Only what marks the slot free: get() resets the whole request when the slot
  // is taken again (resetting it here too wrote its ~200 bytes twice per call,
  // ~6% of an 8 B message-rate run).
  r->kind = Request::Kind::Free;
  r->ext = nullptr;
  r->ext_free = nullptr;
  r->next_free = free_;
  free_ = r;
  --live_;
}

MPI_Request RequestPool::handle(const Request* r) const {
  return static_cast<MPI_Request>(handle::make(handle::Direct, handle::Request, r->index));
}

MPI_Request RequestPool::done_send_handle() const {
  return static_cast<MPI_Request>(handle::make(handle::Direct, handle::Request, kDoneSendIndex));
}

Request* RequestPool::lookup(MPI_Request h) const {
  int v = static_cast<int>(h);
  if (!handle::is(v, handle::Direct, handle::Request)) return nullptr;
  int idx = handle::index(v);
  if (idx == kDoneSendIndex) {
    // What a caller may have written to it (nothing today: it is complete, so
    // cancel, free and the completion calls only read it), set back.
    done_send_.kind = Request::Kind::Send;
    done_send_.persistent = false;
    done_send_.active = true;
    done_send_.complete = true;
    done_send_.user_freed = false;
    done_send_.cancelled = false;
    done_send_.error = MPI_SUCCESS;
    done_send_.seen = 0;
    done_send_.index = kDoneSendIndex;
    return &done_send_;
  }
  std::size_t chunk = static_cast<std::size_t>(idx / kChunk);
  if (chunk >= chunks_.size()) return nullptr;
  Request* r = &chunks_[chunk][idx % kChunk];
  return r->kind == Request::Kind::Free ? nullptr : r;
}

constinit RequestPool detail::g_request_pool;

}  // namespace chorus
