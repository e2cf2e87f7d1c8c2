// Point-to-point between the ranks of one node through shared memory, with Chorus's
// own matching (CHORUS_P2P_SHM).
//
// Why: a small message through UCX tag matching costs the transport's own latency
// plus its matching; Open MPI's shared-memory path is faster than UCX's here.
// A ring per ordered pair of local ranks carries one record per message, written
// by the sender and read in place by the receiver: one cache line for an 8 B
// message.
//
// What goes through it: every point-to-point message (the user's, and the
// collectives') on a communicator whose ranks all run on this node (its contexts
// are "owned", set_context()). Matching
// for those contexts is done here, by the same 64-bit tag and mask rules as UCX's
// (p2p/tag.h), so wildcards, ordering and probes behave the same:
//  - messages up to CHORUS_P2P_SHM_EAGER are copied through the ring as one record;
//  - up to CHORUS_P2P_SHM_COPY_MAX, as fragments of that size (a first record with
//    the total length, then the rest), written straight from the user's buffer
//    (queued by reference when the ring is full; a standard send completes when
//    the last is written) and landed as they come; the ring carries one message's
//    fragments back to back, so the reader keeps one partial message per ring;
//  - larger ones, and device buffers, are announced in the ring (RTS record) and
//    their bytes travel through UCX under a tag that names the announcement; the
//    receiver posts that UCX receive when the announcement matches, so UCX moves
//    the data with its own protocols (rendezvous, device staging) and the order of
//    messages is the ring's order;
//  - a synchronous send's copied message asks for an acknowledgement record once it
//    has matched and is whole; a large one uses UCX's synchronous send for its bytes.
// Collectives' messages on such a communicator go through the rings too. Communicators
// that span nodes and the exchange contexts stay on UCX.
//
// The ring format is in p2p/ring.h.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "core/request.h"
#include "core/status.h"
#include "launcher/pmix.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::p2p::local {

// ---- set-up (p2p::init and MPI_Init) --------------------------------------------
// Before the address fence: the node's first rank creates the segment and
// publishes its name (nothing when CHORUS_P2P_SHM=off or the rank is alone).
Status publish(const launcher::JobInfo& job);
// After the fence: the other ranks map it. Failure is not an error: this rank
// reports false to commit().
void attach(const launcher::JobInfo& job);
// What this rank can do, to be agreed over the whole job (a bitwise AND): it
// mapped the segment (kCapMapped), it can read a peer's memory (kCapCma, single
// copy), and such a read is cheap here (kCapCmaCheap: single copy from 16 KiB).
inline constexpr int kCapMapped = 1, kCapCma = 2, kCapCmaCheap = 4;
int capabilities();
// With the job-wide agreement: kCapMapped turns the engine on (else it is unmapped),
// kCapCma the single-copy messages, kCapCmaCheap where they start (unless
// CHORUS_P2P_SHM_CMA_MIN is set). The creator unlinks the name either way.
void commit(int everyone);
// After commit(): the sizes from which up to which a collective's message is read
// single-copy (the collectives' cost model prices it; {0, 0}: never).
std::pair<std::size_t, std::size_t> coll_single_copy();
// After commit(): whether every rank of the job can read and write its local peers'
// memory (process_vm_readv/writev; single copy on, CHORUS_P2P_SHM_CMA): the same
// answer on every rank, one alone on its node included (it maps no rings). Then
// read_peer / write_peer move `n` bytes between this process's host memory and
// `addr` in process `pid` on this node; false with errno in *err if the kernel
// refused (the peer's memory is not there, or not ours to touch).
bool peer_memory();
bool read_peer(std::uint64_t pid, std::uint64_t addr, std::byte* dst, std::size_t n, int* err);
bool write_peer(std::uint64_t pid, std::uint64_t addr, const std::byte* src, std::size_t n, int* err);
bool up();
// For a spinning wait: note the CPU this rank runs on, and say whether another
// rank of this node last ran on the same one (it then most likely waits in this
// CPU's run queue while this one spins, and what this rank waits for may be its).
bool cpu_shared_with_peer();
// More runnable tasks on the node than its CPUs and this job's ranks on it (looked
// at every 5 ms at most): another process wants a CPU too.
bool foreign_load();
// Before the final fence: write out queued records (peers drain them through
// progress() while they wait in it).
void finalize();
// After the final fence: unmap and forget everything.
void release();

// ---- routing ---------------------------------------------------------------------
// A communicator's p2p context goes through the rings (all its ranks on this
// node and up()), or through UCX. Every member makes the same choice.
extern std::array<std::uint64_t, tag::kMaxContexts / 64> g_owned;
inline bool owns(std::uint64_t t) {
  unsigned c = tag::context_of(t);
  return (g_owned[c / 64] >> (c % 64)) & 1;
}
void set_context(unsigned ctx, bool on);
// The communicator on p2p context `ctx` is gone for good: forget the messages that
// arrived for it and were never received, so a communicator that later gets the
// same id cannot match them.
void drop_context(unsigned ctx);
// World rank runs on this node and has a ring.
bool is_local(int world_rank);

// ---- progress ----------------------------------------------------------------------
// Read arrived records (matching them) and write queued ones; the count of records.
unsigned poll();

// ---- operations (as p2p.h; `t` carries the context, source and tag) ----------------
Status isend(Request* r, const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync,
             bool readable = false);
Status send(const void* buf, std::size_t bytes, int world_dest, std::uint64_t t, bool sync);
// A standard send written into its ring at once, or false (too large, device
// memory, the ring full or others queued before it): then nothing was sent.
bool send_now(const void* buf, std::size_t bytes, int world_dest, std::uint64_t t);
Status irecv(Request* r, void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask);
Status recv(void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask, RecvInfo& info);
bool probe(std::uint64_t t, std::uint64_t mask, bool remove, RecvInfo& info, void** msg);
Status imrecv(Request* r, void* buf, std::size_t bytes, void* msg);
// A posted receive not matched yet: taken off the queue and completed as cancelled.
bool cancel(Request* r);

}  // namespace chorus::p2p::local
