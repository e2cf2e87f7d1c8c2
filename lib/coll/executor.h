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
#include <functional>
#include <memory>
#include <vector>

#include "coll/schedule.h"
#include "core/comm.h"
#include "core/request.h"
#include "core/status.h"

namespace chorus::coll {

// inout = in (op) inout over `bytes` bytes of packed elements.
using ReduceFn = std::function<void(const std::byte* in, std::byte* inout, std::size_t bytes)>;

struct Job {
  Schedule sched;
  const Comm* comm = nullptr;
  std::byte* send = nullptr;  // kSend binding (packed layout)
  std::byte* recv = nullptr;  // kRecv binding
  ReduceFn reduce;            // for Reduce steps
  // Runs at every start, before the first round (stage inputs: pack user data).
  std::function<void()> on_start;
  // Runs when the schedule finished (unpack into user buffers).
  std::function<void()> on_done;
  // Buffers the job owns (staging copies); kept alive until it is freed.
  std::vector<std::vector<std::byte>> owned;
};

// Attach `job` to `req` (Kind::Coll) and, unless `deferred` (persistent
// collectives), start it. The request completes when the schedule has run;
// req->error holds an MPI error class on failure. `seq` tags the messages (use
// comm.coll_seq++ at the call).
Status start(std::unique_ptr<Job> job, std::uint32_t seq, Request* req, bool deferred = false);

// (Re-)run the job attached to a persistent request with a new sequence number.
Status restart(Request* req, std::uint32_t seq);

// Advance every running collective; returns how many made progress.
unsigned progress_all();

// Install the progress hook into lib/p2p (once, at init).
void executor_init();

}  // namespace chorus::coll
