// Point-to-point on device memory. When UCX can move CUDA memory itself, device
// pointers go to UCX as they are with their memory type. Otherwise (Debian's UCX
// has no CUDA transport) Chorus stages them through pinned host memory with a
// UCX generic datatype, so the message on the wire is the same plain byte stream
// a host buffer would produce and either side may be host or device:
//  - sending: at start the whole buffer is copied device -> pinned in chunks of
//    CHORUS_GPU_CHUNK_BYTES on a runtime stream, one event per chunk; UCX's pack
//    callback hands out each fragment as soon as its chunk has landed, so the
//    transfer of chunk k overlaps the copies of chunks k+1...;
//  - receiving: UCX's unpack callback lands fragments in pinned memory and, as
//    each chunk fills, queues its pinned -> device copy; the request completes
//    when UCX has finished and the last copy has reached the device.
#pragma once
#include <ucp/api/ucp.h>

#include <cstddef>

#include "core/request.h"
#include "core/status.h"

namespace chorus::p2p::device {

// At p2p init (after the UCX context exists): create the generic datatype and
// note whether UCX moves CUDA memory natively. `complete` finishes a request.
Status init(std::uint64_t ucx_memory_types, void (*complete)(Request*));
void finalize();
// UCX moves device memory itself (memory_types has CUDA).
bool native();
const char* mode_name();  // "UCX native" / "staged through pinned host memory"

// Prepare `p` (and the buffer/count to pass to UCX) for a device buffer of
// `bytes` bytes used by request `r`. Returns false when UCX takes it natively (p
// then carries the memory type; buffer/count unchanged).
void prepare(Request* r, void* buf, std::size_t bytes, bool send, ucp_request_param_t& p,
             void** ucx_buf, std::size_t* ucx_count);

// From the request's completion callback: true when the request may complete now;
// false when device copies are still running (complete() is called later).
bool ucx_done(Request* r);
// The operation failed to start (UCX returned an error at once): drop the staging.
void abandon(Request* r);

}  // namespace chorus::p2p::device
