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

// Make the runtime's context current on this thread when none is (threads the
// application never bound, e.g. a stream agent). A context the application made
// current is left alone. Returns Other (with last_error) when no device is in use.
Status ensure_context();
// One of the runtime's pipeline streams, round robin (Lane).
cu::Stream next_lane_stream();

// Teardown hooks run by finalize() (gpu.cc) before the context is released.
void pool_release_all();   // pool.cc: return every cached block to the driver
void memkind_reset();      // memkind.cc: forget cached allocations

}  // namespace chorus::gpu::detail
