// Point-to-point over UCX tag matching: one worker per process, endpoints made on
// first use from the peer's address (published through PMIx at init).
//
// Thread safety: when MPI_THREAD_MULTIPLE is granted every entry point of the MPI
// layer holds ApiLock; blocking waits drop it between polls so other threads run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "core/request.h"
#include "core/status.h"
#include "launcher/pmix.h"

namespace chorus::p2p {

// ---- process-wide state ------------------------------------------------------
Status init(const launcher::JobInfo& job, bool threaded);
// Flush everything, fence with all peers (progressing meanwhile), close.
Status finalize();
bool initialized();
const launcher::JobInfo& job();
bool threaded();
const char* wait_mode_name();
// This node runs more ranks of the job than it has cores.
bool cores_shared();
// Some node of the job does (agreed at MPI_Init): what the collectives' cost
// model reads, so every rank of a communicator that spans nodes chooses alike.
bool cores_shared_anywhere();
void set_cores_shared_anywhere(bool v);

// ---- the big lock (active only under MPI_THREAD_MULTIPLE) --------------------
// A call that runs another MPI call inside (MPI_Comm_split and its internal
// collectives) holds the lock more than once: g_depth counts this thread's holds,
// so a wait can let go of all of them (idle()) and take them back.
extern bool g_threaded;
extern std::recursive_mutex g_mu;
[[gnu::tls_model("initial-exec")]] extern thread_local int g_depth;
// Take the lock when it is active; returns whether it was taken (for api_unlock).
inline bool api_lock() {
  if (!g_threaded) return false;
  g_mu.lock();
  ++g_depth;
  return true;
}
inline void api_unlock(bool held) {
  if (!held) return;
  --g_depth;
  g_mu.unlock();
}
class ApiLock {
 public:
  ApiLock() : held_(api_lock()) {}
  ~ApiLock() { api_unlock(held_); }
  ApiLock(const ApiLock&) = delete;
  ApiLock& operator=(const ApiLock&) = delete;
 private:
  bool held_;
};

// ---- progress ----------------------------------------------------------------
// Drives UCX, then the registered hook (the collective executor), so anything that
// waits on p2p also advances non-blocking collectives.
unsigned progress();
void set_progress_hook(unsigned (*hook)());
// Further hooks, run after the first (the MPI layer's non-blocking communicator
// agreements, lib/mpi/comm.cc, and one-sided traffic, lib/mpi/win.cc): they may
// start collectives and point-to-point operations, as they never run inside the
// executor's own progress. Each returns at once when it has nothing pending.
void add_late_progress_hook(unsigned (*hook)());
// Called after a poll found nothing; yields or sleeps according to the wait mode.
void idle(unsigned& empty_polls);
// Progress until done() holds. done() is called once per pass and never again
// once it returned true: a predicate with a side effect (a probe that takes the
// message it finds out of the queue) must not run twice.
template <typename F>
void wait_until(F&& done) {
  unsigned empty = 0;
  while (!done()) {
    if (progress() == 0) idle(empty);
    else empty = 0;
  }
}

// Wait for what a peer writes straight into shared memory: test `done` in a tight
// loop (after `poll`, when that found nothing), and every 32 tests run the whole
// progress engine (also when `poll` keeps finding records, so traffic through UCX
// moves while the rings stay busy), idling as wait_until does when nothing moved.
// done() is called once per pass, as in wait_until.
template <typename F, typename P>
void wait_polling(F&& done, P&& poll) {
  unsigned empty = 0;
  for (unsigned k = 1; !done(); ++k) {
    const unsigned got = poll();
    if (k % 32 != 0) continue;
    if (progress() + got == 0) idle(empty);
    else empty = 0;
  }
}
template <typename F>
void wait_polling(F&& done) {
  wait_polling(done, [] { return 0u; });
}

// ---- processes of other jobs (MPI_Comm_connect/accept, spawn, join) -------------
// Every process this one can address has a process number: the world ranks
// 0..size-1 first, then processes of other jobs in the order they were met.
// Communicator groups hold process numbers ("world ranks" in the code below).
// A process number is only meaningful inside this process; what goes on the wire
// between jobs is the global id: a 40-bit hash of the job's PMIx namespace above
// a 24-bit rank, the same number in every process that knows it.
std::uint64_t gid_of(int proc);
// The process number of global id `gid`, or -1 when it is not known here.
int proc_of(std::uint64_t gid);
// Adds a process of another job, reachable at UCX worker address `addr`; returns
// its process number (the existing one when the id is known already).
int add_proc(std::uint64_t gid, const void* addr, std::size_t len);
// True for a process of another job.
inline bool foreign(int proc) { return proc >= job().size; }
// The UCX settings this job chose for large intra-node messages, in words
// ("cma", or "copy" and its settings; CHORUS_SHM_PROTOCOL). Processes of two jobs
// can only talk when their choices agree: UCX cannot pair endpoints whose sides
// were configured differently.
const std::string& ucx_profile();

// ---- side workers: the first message of MPI_Comm_connect/accept ------------------
// A port name must be short (MPI_MAX_PORT_NAME), and UCX's short, network-only
// address cannot be used by the main worker: UCX pairs the endpoints two workers
// make to each other and cannot reconfigure one made from the short form into the
// full one later. So a port owns a side worker (a second UCX worker on p2p's
// context) whose short address is in the port name; the connecting root sends its
// request from a temporary side worker, and everything after that goes between
// the main workers, by full addresses.
// A new side worker: its id (>= 0), or -1 when UCX could not make one.
int side_open();
void side_close(int id);
// Its address: network-only when UCX has such transports, else the full one.
std::vector<std::byte> side_address(int id);
// Progress side worker `id`; when a message with `tag` (all 64 bits) arrived,
// receive it into `out` and return true.
bool side_take(int id, std::uint64_t tag, std::vector<std::byte>& out);
// Start sending `len` bytes (copied) with `tag` to the side worker at `addr` from
// side worker `from`. It completes once both workers are progressed; side_close
// cancels it if it has not. When the side worker cannot be reached, `why` gets
// UCX's reason (UCX prints nothing: the caller reports it).
Status side_send(int from, const std::vector<std::byte>& addr, std::uint64_t tag, const void* data, std::size_t len,
                 std::string& why);
void side_progress(int id);
// The worker address of process `proc` (a world rank's from PMIx, as published at
// MPI_Init; another job's as it was learnt).
Status address_of(int proc, std::vector<std::byte>& out);
// The smallest message UCX sends to `proc` by rendezvous (a handshake before the
// data), as its endpoint reports it; 0 when unknown (no endpoint, or none named).
std::size_t rndv_threshold(int proc);

// ---- remote memory access through UCX (one-sided windows across nodes) ---------
// A window's memory registered with UCX and its remote key handed to the other
// ranks; puts and gets that the target's CPU takes no part in where the network
// has RDMA (UCX emulates them over TCP, served by the target's progress); a flush
// that waits until everything started to a process is complete there.
namespace rdma {
// CHORUS_RMA_RDMA's choices, in its order.
enum Mode { kAuto = 0, kOn = 1, kOff = 2 };
// This job's UCX context has remote memory access (CHORUS_RMA_RDMA is not off).
bool enabled();
// The endpoint to `proc` has a lane for remote memory access on a network that
// does it natively (RDMA: not TCP, on which UCX moves one-sided data slower than
// the messages of the message path); *transports names its remote memory lanes.
bool native(int proc, std::string* transports);
// One transfer or flush: done is set by the progress engine (or at once).
struct Op {
  bool done = false;
  Status status = Status::Ok;
};
// Register [base, base + len) (len > 0): *region for unmap(), `packed` the key
// other processes unpack to reach it.
Status map(void* base, std::size_t len, void** region, std::vector<std::byte>& packed);
void unmap(void* region);
// The key `packed` by map() in process `proc`, for transfers to it.
Status unpack(int proc, const std::byte* packed, std::size_t len, void** rkey);
void release(void* rkey);
// Start a transfer of `len` bytes (contiguous, host memory) to or from address
// `remote` of process `proc`. *op stays where it is until op->done: a put's
// source may then be reused, a get's data is here. Completion at the target is
// flush()'s.
Status put(int proc, const void* src, std::size_t len, std::uint64_t remote, void* rkey, Op* op);
Status get(int proc, void* dst, std::size_t len, std::uint64_t remote, void* rkey, Op* op);
// op->done once every transfer started to `proc` before is complete there.
Status flush(int proc, Op* op);
}  // namespace rdma

// ---- operations (peers are process numbers; tags come from tag.h) --------------
struct RecvInfo {
  std::uint64_t sender_tag = 0;
  std::size_t length = 0;   // bytes that arrived (or the message length, for probe)
  Status status = Status::Ok;
};

// Start a send; req->complete is set when it finishes (maybe at once).
// `readable`: to a rank of this node, a message above the ring's one-record size
// (CHORUS_P2P_SHM_EAGER) is read by the receiver straight from `buf` (single
// copy, CHORUS_P2P_SHM_CMA permitting) from that size up, not only from
// CHORUS_P2P_SHM_CMA_MIN (unless that is set); above CHORUS_P2P_SHM_CMA_MAX as
// any message. For one-sided data, which a target takes in its progress hook,
// where fragments through the ring wait for both ranks' turns. A collective's
// message (its context) with `readable` set is one nothing waits for before the
// call ends: it starts single copy where user point-to-point does (8 KiB where
// reading is cheap) instead of at a collective's start (64 KiB there).
Status isend(Request* req, const void* buf, std::size_t bytes, int world_dest, std::uint64_t tag,
             bool sync, bool readable = false);
Status irecv(Request* req, void* buf, std::size_t bytes, std::uint64_t tag, std::uint64_t mask);
// Blocking forms that need no pooled request.
Status send(const void* buf, std::size_t bytes, int world_dest, std::uint64_t tag, bool sync);
// A standard send that is done inside this call (a small message to a rank of
// this node, written into its ring now), or false with nothing sent.
bool send_now(const void* buf, std::size_t bytes, int world_dest, std::uint64_t tag);
Status recv(void* buf, std::size_t bytes, std::uint64_t tag, std::uint64_t mask, RecvInfo& info);

// Probe for a matching message; with `remove` the message is taken off the
// unexpected queue and returned in *msg (for mrecv).
bool probe(std::uint64_t tag, std::uint64_t mask, bool remove, RecvInfo& info, void** msg);
Status imrecv(Request* req, void* buf, std::size_t bytes, void* msg, const RecvInfo& probed);

// Cancel a receive in flight (completes it with req->cancelled set).
void cancel(Request* req);

// Completion hook: run by the pool owner when a request finished and the user
// already freed it (MPI_Request_free on an active request, buffered sends).
using ReleaseFn = void (*)(Request*);
void set_release_hook(ReleaseFn fn);

}  // namespace chorus::p2p
