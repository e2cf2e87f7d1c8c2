// Private interface between p2p.cc (UCX) and local.cc (shared-memory rings).
#pragma once
#include <cstddef>
#include <cstdint>

#include "core/request.h"
#include "core/status.h"
#include "p2p/p2p.h"

namespace chorus::p2p::detail {

// Mark a request complete (and release it when the user already freed it).
void complete(Request* r);
// A send through UCX tag matching (the data of a large ring message).
Status ucx_isend(Request* r, const void* buf, std::size_t bytes, int world_dest, std::uint64_t t,
                 bool sync);
// Receive the data of a matched ring announcement through UCX: `t` is its exact
// UCX tag; the request's source, tag and sender_tag are already set, so only the
// length and error come from UCX.
Status ucx_irecv_data(Request* r, void* buf, std::size_t bytes, std::uint64_t t);

// What a blocking receive reports, from its completed request.
inline RecvInfo info_of(const Request& r) {
  RecvInfo i;
  i.sender_tag = r.sender_tag;
  i.length = r.bytes;
  i.status = r.error == MPI_SUCCESS       ? Status::Ok
             : r.error == MPI_ERR_TRUNCATE ? Status::Truncate
                                           : Status::Other;
  return i;
}

}  // namespace chorus::p2p::detail
