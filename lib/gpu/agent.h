// The stream agent: host work ordered on CUDA streams (lib/mpi's MPIX_*_enqueue
// calls put their operations here).
//
// A Queue belongs to one CUDA stream. Each task put on it takes the queue's next
// ticket n, and two points go on the stream:
//     stream_write(start, n)      the stream has reached the task
//     stream_wait(done, n)        later work on the stream waits until it is done
// (the second only for tasks the stream waits on). One agent thread per process,
// started with the first queue, takes each queue's tasks in ticket order: when the
// start word reaches a task it begins it, then polls it until it finishes, then
// writes the done word, releasing the stream. So a task begins only after the
// kernels enqueued before it, and an event recorded after it completes only once
// the task has.
//
// Tasks run under the host's lock (Host::lock: the MPI API lock), as does the
// host's own work on each pass (Host::work). Finished tasks are destroyed after
// the pass, still under the lock, so a task's destructor may release what owns its
// queue. Threads that must wait for tasks (a communicator freed, MPI_Finalize) do
// the agent's passes themselves (drain_until), without the host lock held or with
// it held recursively.
#pragma once
#include <sched.h>

#include <cstdint>
#include <deque>
#include <memory>

#include "gpu/gpu.h"

namespace chorus::gpu::agent {

struct Task {
  virtual ~Task() = default;
  // The stream has reached the task: start its work. True when it is finished.
  virtual bool begin() = 0;
  // The begun work has finished.
  virtual bool poll() = 0;
  bool stream_waits = true;  // false: the stream goes on past the task at once
  std::uint32_t ticket = 0;
  bool started = false;
};

struct Queue {
  cu::Stream stream = nullptr;
  Signal start, done;
  std::uint32_t next_ticket = 0;                // last ticket handed out (host lock)
  std::deque<std::unique_ptr<Task>> tasks;      // the agent's mutex
};

// What the host provides. lock/unlock: the lock tasks run under (recursive;
// lock returns what unlock takes back). work: the host's own polling each pass,
// under the lock (true when something moved); pending: whether it has work in
// flight (read without the lock).
struct Host {
  bool (*lock)() = nullptr;
  void (*unlock)(bool held) = nullptr;
  bool (*work)() = nullptr;
  bool (*pending)() = nullptr;
};
void set_host(const Host& h);

// A new queue on `stream` (its signal words allocated), served by the agent.
Status open(Queue& q, cu::Stream stream);
// The queue is going (its tasks have finished): the agent stops serving it; its
// signal words are freed at shutdown (the stream may still read them until it has
// run past its last wait).
void retire(Queue& q);

// Put `task` on `q` (host lock held: ticket order is the order on the stream,
// across threads too). *queued: the task is on the queue and will run. On failure
// of the first stream point the task is taken back and destroyed; of the second,
// the task runs but later work on the stream does not wait for it.
Status submit(Queue& q, std::unique_ptr<Task> task, bool* queued);

// Start the agent thread unless it runs.
void start();
// One pass over every queue (what the agent thread does): begin what the streams
// have reached, poll what runs, finish what completed. Returns whether anything
// moved; *busy: tasks or host work are in flight (poll again without sleeping).
bool pass(bool* busy);
// Wait until `pred` holds, doing the agent's passes meanwhile.
template <typename P>
void drain_until(P&& pred) {
  while (!pred()) {
    bool busy = false;
    if (!pass(&busy)) sched_yield();
  }
}
bool empty(const Queue& q);
// Some CUDA stream may be parked waiting for a task (submitted, not finished).
// While one is, nothing may call a driver function that synchronizes the device
// implicitly (cuMemFree, cuMemFreeHost): it would wait for the parked stream,
// which waits for the agent, which waits for the lock the caller may hold. The
// pools defer such frees (pool.cc).
bool streams_parked();
// The calling thread is the agent's own.
bool on_agent_thread();
// Wait until every queue is empty, stop the agent thread, free retired signals.
void shutdown();

}  // namespace chorus::gpu::agent
