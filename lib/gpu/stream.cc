// Copies, pipeline lanes and stream-ordered signals on the runtime's streams.
#include <cstring>
#include <deque>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"

namespace chorus::gpu {
namespace {

const Driver& D() { return driver(); }

cu::DevicePtr dptr(const void* p) { return reinterpret_cast<cu::DevicePtr>(p); }

// Ticket order with wrap-around: a comes before b.
bool before(std::uint32_t a, std::uint32_t b) { return static_cast<std::int32_t>(a - b) < 0; }

}  // namespace

namespace detail {
namespace {

inline void cpu_pause() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield" ::: "memory");
#endif
}

// Polls spent pausing before each further poll yields the CPU: a copy or kernel
// of a few microseconds completes within them; longer work lets other threads
// (ranks sharing a CPU, the driver's own) run.
constexpr unsigned kSpinPolls = 256;

template <class Query>
cu::Result poll_until_done(Query query) {
  for (unsigned n = 0;; ++n) {
    const cu::Result r = query();
    if (r != cu::kErrorNotReady) return r;
    if (n < kSpinPolls)
      cpu_pause();
    else
      std::this_thread::yield();
  }
}

}  // namespace

cu::Result wait_stream(cu::Stream s) {
  return poll_until_done([s] { return D().StreamQuery(s); });
}

cu::Result wait_event(cu::Event e) {
  return poll_until_done([e] { return D().EventQuery(e); });
}

}  // namespace detail

Status copy(void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return Status::Ok;
  if (!detail::g_enabled) {  // host-only: both sides are host memory
    std::memmove(dst, src, bytes);
    return Status::Ok;
  }
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  cu::Stream s = detail::main_stream();
  CHORUS_TRY(detail::check(D().MemcpyAsync(dptr(dst), dptr(src), bytes, s), "cuMemcpyAsync"));
  return detail::check(detail::wait_stream(s), "cuStreamQuery");
}

// ---- Lane ------------------------------------------------------------------------
// Each copy records an event; tickets are sequence numbers. The stream runs in
// order, so when chunk i's event is reached every earlier one is too: events up
// to i are retired together and recycled for later chunks.
struct Lane::Impl {
  std::uint32_t next = 0;     // ticket of the next copy
  std::uint32_t retired = 0;  // every ticket before this one is complete
  std::deque<cu::Event> pending;  // events of tickets retired .. next-1, in order
  std::vector<cu::Event> spare;
  Status error = Status::Ok;  // sticky: a failed event makes the lane unusable
  std::string error_text;

  void retire_through(std::uint32_t ticket) {
    while (!pending.empty() && !before(ticket, retired)) {
      spare.push_back(pending.front());
      pending.pop_front();
      ++retired;
    }
  }
  Status set_error(Status s) {
    error = s;
    error_text = last_error();
    return s;
  }
  Status sticky() const { return detail::fail(error, error_text); }
};

Lane::Lane() : impl_(new Impl) {
  if (detail::g_enabled) stream_ = detail::next_lane_stream();
}

Lane::~Lane() {
  // Copies still queued may read or write buffers their owner frees next.
  if (detail::g_enabled) {
    detail::ContextScope ctx;
    if (ok(ctx.status())) {
      if (!impl_->pending.empty()) (void)detail::wait_event(impl_->pending.back());
      for (cu::Event e : impl_->pending) (void)D().EventDestroy(e);
      for (cu::Event e : impl_->spare) (void)D().EventDestroy(e);
    }
  }
  delete impl_;
}

Status Lane::copy_async(void* dst, const void* src, std::size_t bytes, std::uint32_t* ticket) {
  if (!stream_) return detail::fail(Status::Other, "copy on a lane: no CUDA device in use");
  if (!ok(impl_->error)) return impl_->sticky();
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  cu::Event e = nullptr;
  if (!impl_->spare.empty()) {
    e = impl_->spare.back();
    impl_->spare.pop_back();
  } else {
    CHORUS_TRY(detail::check(D().EventCreate(&e, cu::kEventDisableTiming), "cuEventCreate"));
  }
  Status s = Status::Ok;
  if (bytes) s = detail::check(D().MemcpyAsync(dptr(dst), dptr(src), bytes, stream_), "cuMemcpyAsync");
  if (ok(s)) s = detail::check(D().EventRecord(e, stream_), "cuEventRecord");
  if (!ok(s)) {
    impl_->spare.push_back(e);
    return s;
  }
  impl_->pending.push_back(e);
  *ticket = impl_->next++;
  return Status::Ok;
}

bool Lane::done(std::uint32_t ticket) {
  if (before(ticket, impl_->retired)) return true;
  if (!before(ticket, impl_->next)) return false;  // not issued
  if (!ok(impl_->error)) return true;               // wait() reports it
  cu::Event e = impl_->pending[ticket - impl_->retired];
  detail::ContextScope ctx;  // some drivers need one current even for an event
  cu::Result r = ok(ctx.status()) ? D().EventQuery(e) : cu::kErrorInvalidValue;
  if (r == cu::kErrorNotReady) return false;
  if (r != cu::kSuccess) {
    (void)impl_->set_error(detail::check(r, "cuEventQuery"));
    CHORUS_WARN(GPU, "pipeline copy failed: {}", impl_->error_text);
    return true;
  }
  impl_->retire_through(ticket);
  return true;
}

Status Lane::wait(std::uint32_t ticket) {
  if (!ok(impl_->error)) return impl_->sticky();
  if (before(ticket, impl_->retired)) return Status::Ok;
  if (!before(ticket, impl_->next))
    return detail::fail(Status::InvalidArg,
                        fmt::format("lane wait: ticket {} was never issued", ticket));
  cu::Event e = impl_->pending[ticket - impl_->retired];
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  Status s = detail::check(detail::wait_event(e), "cuEventQuery");
  if (!ok(s)) return impl_->set_error(s);
  impl_->retire_through(ticket);
  return Status::Ok;
}

Status Lane::wait_all() {
  if (impl_->next == impl_->retired) return ok(impl_->error) ? Status::Ok : impl_->sticky();
  return wait(impl_->next - 1);
}

// ---- signals -----------------------------------------------------------------------
Status signal_alloc(Signal* s) {
  *s = Signal{};
  void* p = nullptr;
  CHORUS_TRY(pinned_alloc(sizeof(std::uint32_t), &p));
  auto* flag = static_cast<volatile std::uint32_t*>(p);
  *flag = 0;
  cu::DevicePtr dev = 0;
  detail::ContextScope ctx;
  Status st = ctx.status();
  if (ok(st)) st = detail::check(D().MemHostGetDevicePointer(&dev, p, 0), "cuMemHostGetDevicePointer");
  if (!ok(st)) {
    pinned_free(p);
    return st;
  }
  s->host = flag;
  s->dev = dev;
  return Status::Ok;
}

void signal_free(Signal* s) {
  if (s->host) pinned_free(const_cast<std::uint32_t*>(s->host));
  *s = Signal{};
}

Status stream_write(cu::Stream stream, const Signal& s, std::uint32_t value) {
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  return detail::check(D().StreamWriteValue32(stream, s.dev, value, cu::kStreamWriteValueDefault),
                       "cuStreamWriteValue32");
}

Status stream_wait(cu::Stream stream, const Signal& s, std::uint32_t value) {
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  return detail::check(D().StreamWaitValue32(stream, s.dev, value, cu::kStreamWaitValueGeq),
                       "cuStreamWaitValue32");
}

// ---- staging on an application's stream ---------------------------------------------
Status copy_on(cu::Stream stream, void* dst, const void* src, std::size_t bytes) {
  if (bytes == 0) return Status::Ok;
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  return detail::check(D().MemcpyAsync(dptr(dst), dptr(src), bytes, stream), "cuMemcpyAsync");
}

Status mark(cu::Stream stream, cu::Event* out) {
  *out = nullptr;
  detail::ContextScope ctx;
  CHORUS_TRY(ctx.status());
  cu::Event e = nullptr;
  CHORUS_TRY(detail::check(D().EventCreate(&e, cu::kEventDisableTiming), "cuEventCreate"));
  Status st = detail::check(D().EventRecord(e, stream), "cuEventRecord");
  if (!ok(st)) {
    (void)D().EventDestroy(e);
    return st;
  }
  *out = e;
  return Status::Ok;
}

bool mark_passed(cu::Event e) {
  if (!e) return true;
  detail::ContextScope ctx;
  if (!ok(ctx.status())) return true;
  return D().EventQuery(e) != cu::kErrorNotReady;
}

void mark_free(cu::Event e) {
  if (!e) return;
  detail::ContextScope ctx;
  if (ok(ctx.status())) (void)D().EventDestroy(e);
}

}  // namespace chorus::gpu
