// The executor: runs a Schedule over lib/p2p without ever blocking. One state
// machine serves every collective: post a round's sends and receives, and when
// they have completed run its local steps and post the next round. Several
// collectives progress at once; p2p::progress() drives them all (progress hook),
// so a blocking collective is start + wait and MPI_I... is start alone.
//
// Messages go on the communicator's collective context, tagged with the
// collective's sequence number on that communicator: every rank starts the
// collectives of a communicator in the same order, so the numbers agree.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <string>
#include <string_view>
#include <memory>
#include <vector>

#include "coll/schedule.h"
#include "core/comm.h"
#include "core/request.h"
#include "core/status.h"
#include "p2p/tag.h"

namespace chorus::coll {

// inout = in (op) inout over `bytes` bytes of packed elements.
using ReduceFn = std::function<void(const std::byte* in, std::byte* inout, std::size_t bytes)>;

// Values every rank must pass alike: a rooted collective's root, a bcast's byte
// count. When `n` > 0, the executor first agrees on them with a dissemination
// min/max exchange (ceil(log2 P) rounds of 64 bytes); if two ranks differ, every
// rank fails the collective with `error_class` and a message naming two ranks and
// their values, instead of running a schedule that would hang or move wrong data.
// CHORUS_CHECK_COLL agrees on five values for every collective (the call, root,
// datatype signature, count, and the algorithm each rank chose: ranks that chose
// differently would run schedules that do not meet); `show` turns a value into
// words for the message.
struct Agreement {
  static constexpr int kMax = 5;
  using Show = std::string (*)(std::int64_t);
  int n = 0;
  const char* call = "";
  const char* names[kMax] = {};
  std::int64_t values[kMax] = {};
  int error_class[kMax] = {};
  Show show[kMax] = {};
  void add(const char* name, std::int64_t value, int cls, Show how = nullptr) {
    names[n] = name;
    values[n] = value;
    error_class[n] = cls;
    show[n] = how;
    ++n;
  }
};

// How a job reaches device memory (lib/gpu, provided by coll/binding.cc): set on jobs whose
// user buffers live on a CUDA device. Their temporaries are then device memory too,
// Copy steps use `copy`, and Reduce steps reach device data through Job::reduce.
struct DeviceOps {
  void* (*alloc)(std::size_t bytes);             // null on failure (message: error())
  void (*free)(void* p);
  bool (*copy)(void* dst, const void* src, std::size_t bytes);  // any kinds; false on failure
  std::string (*error)();                        // the last failure's message
};

// A way out of a shared-window schedule while the node's ranks wait for CPUs that
// other processes hold (binding.cc builds it with the schedule, the executor
// takes it). Each of the window's syncs of every rank then waits for the rank
// that is off its CPU, a scheduler slice where it costs a cache line quiet, and a
// large call syncs twice per slot (2026-12-07, 3 ranks on 2 CPUs beside one busy
// process: a 16 MiB allreduce through the window 250 ms, over messages 12 ms).
// The schedule's first sync of every rank carries each rank's recent sync time
// (ShmWindow::sync_us); once its Waits are done every rank reads the same values
// and decides alike: with e the worst of them above the model's sync, the call
// goes on as `sched` (no window: messages wait for one peer each, and post ahead)
// when alt_us + e < primary_us + primary_syncs * e. CHORUS_COLL_BUSY_SWITCH.
struct BusyAlt {
  std::shared_ptr<const Schedule> sched;  // uses no window
  std::string_view algo_name;             // its algorithm (for the INFO line)
  double primary_us = 0, alt_us = 0;  // the cost model's estimates, quiet
  double sync_us = 0;                 // the model's sync for this shape
  int primary_syncs = 0;              // the window schedule's Signals
};

struct Job {
  Schedule sched;
  // A schedule shared with a cache of built schedules (used instead of `sched`
  // when set): repeated calls with the same arguments skip selection and build.
  std::shared_ptr<const Schedule> shared_sched;
  const Schedule& schedule() const { return shared_sched ? *shared_sched : sched; }
  // Set on window schedules that may go over messages instead (BusyAlt).
  std::shared_ptr<const BusyAlt> busy;
  // A blocking call: its syncs' times count in ShmWindow::sync_us (a
  // non-blocking call's would include the caller's work between its tests).
  bool blocking = false;
  Agreement agree;
  const Comm* comm = nullptr;
  std::byte* send = nullptr;  // kSend binding (packed layout)
  std::byte* recv = nullptr;  // kRecv binding
  ReduceFn reduce;            // for Reduce steps
  // The op may be applied in either operand order (coll::any_order_reduction): a
  // ReduceRight step then runs as a ReduceLeft, without staging its operand.
  bool reduce_commutes = false;
  // Runs at every start, before the first round (stage inputs: pack user data).
  std::function<void()> on_start;
  // Runs when the schedule finished (unpack into user buffers).
  std::function<void()> on_done;
  // Runs once when the job is freed (drop references the call took).
  std::function<void()> on_free;
  // Buffers the job owns (staging copies); kept alive until it is freed.
  std::vector<std::vector<std::byte>> owned;
  // A persistent collective that ranks may start in any order (MPI matches them by
  // initialization order): its tag is fixed when it is made (start()), it does not
  // use the shared window, and it checks its arguments on its first start only.
  bool any_order = false;
  // Device jobs: the DeviceOps, device staging buffers the job owns, and the first
  // failure of a device step (the request then fails with MPI_ERR_OTHER and it).
  const DeviceOps* device = nullptr;
  std::vector<void*> owned_device;
  std::string local_error;

  Job() = default;
  Job(const Job&) = delete;
  Job& operator=(const Job&) = delete;
  ~Job() { release(); }
  // Back to the state of a new Job (runs on_free).
  void reset();

 private:
  void release() {
    if (on_free) std::exchange(on_free, nullptr)();
    for (void* p : owned_device) device->free(p);
    owned_device.clear();
  }
};

// A Job for a new call: recycled from finished collectives (no allocation).
std::unique_ptr<Job> new_job();

// Attach `job` to `req` (Kind::Coll) and, unless `deferred` (persistent
// collectives), start it. The request completes when the schedule has run;
// req->error holds an MPI error class on failure. `seq` tags the messages: a call
// passes comm.coll_seq++. A job with any_order set passes comm.persistent_seq++ at
// its init and keeps that tag for every start; the two spaces are disjoint
// (kPersistentSeq). Such a job must not use the shared window (its turns are taken
// in start order): set_comm_args leaves it out.
Status start(std::unique_ptr<Job> job, std::uint32_t seq, Request* req, bool deferred = false);

// The top bit of the tag field marks a persistent collective's number.
constexpr std::uint32_t kPersistentSeq = 1u << (tag::kTagBits - 1);

// (Re-)run the job attached to a persistent request. An any_order job keeps the tag
// of its init; any other (the stream layer's enqueued collectives, ordered with
// the communicator's calls) takes coll_seq++ as a call does.
Status restart(Request* req, std::uint32_t& coll_seq);

// A blocking allreduce `shared_memory_flat` run at once on the caller's stack, with
// no job or request: the same window steps as that schedule (copy the input into
// this rank's slot, Signal, Wait for every peer, out = s0 (op) (s1 (op) ... s_{p-1})),
// so peers that run the schedule meet it. Callers use it only when no other window
// call is queued on this rank (ShmWindow::quiet()) and the vector fits a slot.
class ShmWindow;
void run_shm_allreduce_flat(ShmWindow& w, int rank, int size, const void* in, void* out,
                            std::size_t bytes, const ReduceFn& reduce);

// The median time, in microseconds, of `syncs` syncs of every member of window `w`
// in a row (each Signals and waits until every other member did), the first
// `warm` left out: what MPI_Init measures for the cost model (set_node_sync).
// Every member calls it, with nothing else queued on the window; `rank` is this
// member's index in it.
double time_window_syncs(ShmWindow& w, int rank, int syncs, int warm);

// Whether schedule `s` only moves data within this node's shared window and the
// user's buffers (Copy, ReduceLeft, Signal and Wait steps; no message, no
// temporary), so run_window_schedule can run it.
bool window_only(const Schedule& s);
// A window_only schedule run at once on the caller's stack, with no job or
// request, as the executor would run it (per round: its Signals, then its Waits,
// then its local steps in order), kSend and kRecv being `send` and `recv` (packed
// data: contiguous host buffers). Peers that run the same schedule in a job meet
// it. Callers use it only when no other window call is queued on this rank
// (ShmWindow::quiet()).
void run_window_schedule(ShmWindow& w, const Schedule& s, const void* send, void* recv,
                         const ReduceFn& reduce);

// Advance every running collective; returns how many made progress.
unsigned progress_all();

// Install the progress hook into lib/p2p (once, at init). `make_error` turns an
// error class and a message into the MPI error code stored in a failed request.
void executor_init(int (*make_error)(int cls, std::string message));

}  // namespace chorus::coll
