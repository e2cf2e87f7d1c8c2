// Shared inside lib/gpu only (driver/context/streams in gpu.cc, kernels in
// kernels/launch.cc).
#pragma once
#include <string>

#include "core/status.h"
#include "gpu/cuda_abi.h"
#include "gpu/driver.h"

namespace chorus::gpu::detail {

// The runtime's stream for kernels and synchronous copies (non-blocking, in the
// primary context of the selected device).
cu::Stream main_stream();
// Record `msg` as this thread's last_error() and return `s`.
Status fail(Status s, std::string msg);
// Check a driver call: on error records "<call>: <error_text>" and returns Other.
Status check(cu::Result r, const char* call);

// The runtime's context (the selected device's primary context) current on this
// thread while the scope lives, and the thread's own restored after it: Chorus's
// driver calls run on its device whatever the application made current (another
// device's context, one of its own, or none), and the application finds its state
// as it left it. Nested scopes cost one cuCtxGetCurrent. status(): Other (with
// last_error) when no device is in use or the switch failed.
class ContextScope {
 public:
  ContextScope();
  ~ContextScope();
  ContextScope(const ContextScope&) = delete;
  ContextScope& operator=(const ContextScope&) = delete;
  Status status() const { return status_; }

 private:
  cu::Context saved_ = nullptr;
  bool switched_ = false;
  Status status_ = Status::Ok;
};
// Wait for everything queued on `s` (cuStreamQuery), or for `e` (cuEventQuery), by
// polling: a few hundred polls with a pause between them, then a yield of the CPU
// between polls. Never the driver's cuStreamSynchronize / cuEventSynchronize, whose
// wait follows the context's scheduling flags (an application that asked for
// blocking sync would put every wait of Chorus's to sleep until an interrupt):
// the wait follows Chorus's own rule instead. On an H200, polling moved staged
// device bandwidth from 5.0 to 6.6-7.0 GB/s (docs/GPU.md).
cu::Result wait_stream(cu::Stream s);
cu::Result wait_event(cu::Event e);
// One of the runtime's pipeline streams, round robin (Lane).
cu::Stream next_lane_stream();

// Teardown hooks run by finalize() (gpu.cc) before the context is released.
void pool_release_all();   // pool.cc: return every cached block to the driver
void memkind_reset();      // memkind.cc: forget cached allocations

}  // namespace chorus::gpu::detail
