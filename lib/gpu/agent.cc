// The stream agent (agent.h): queues of host work on CUDA streams, one thread.
#include "gpu/agent.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "core/log.h"

namespace chorus::gpu::agent {
namespace {

struct State {
  Host host;
  std::mutex mu;                     // the queues' tasks, `active`, `stop`
  std::condition_variable cv;
  std::vector<Queue*> active;        // queues served
  std::vector<Signal> retired;       // freed at shutdown
  std::thread thread;
  bool stop = false;
  std::atomic<int> waiting{0};       // tasks a stream waits for, not yet finished
};
// Never destroyed: the agent may still run when a program exits without MPI_Finalize.
State& g = *new State;

class HostLock {
 public:
  HostLock() : held_(g.host.lock()) {}
  ~HostLock() { g.host.unlock(held_); }
  HostLock(const HostLock&) = delete;
  HostLock& operator=(const HostLock&) = delete;
 private:
  bool held_;
};

bool reached(std::uint32_t word, std::uint32_t ticket) {
  return static_cast<std::int32_t>(word - ticket) >= 0;  // wraps as CU_STREAM_WAIT_VALUE_GEQ
}

std::uint32_t start_word(const Queue* q) {
  std::uint32_t w = *q->start.host;
  std::atomic_thread_fence(std::memory_order_acquire);
  return w;
}

void write_done(Queue* q, std::uint32_t ticket) {
  std::atomic_thread_fence(std::memory_order_release);  // results before the release
  *q->done.host = ticket;
}

// Advance the head task of `q`: true when it finished (the done word is written).
bool step(Queue* q, Task* t) {
  if (!t->started) {
    if (!reached(start_word(q), t->ticket)) return false;
    t->started = true;
    if (t->begin()) {
      write_done(q, t->ticket);
      return true;
    }
  }
  if (!t->poll()) return false;
  write_done(q, t->ticket);
  return true;
}

bool host_pending() { return g.host.pending && g.host.pending(); }

thread_local bool t_agent = false;

void agent_main() {
  t_agent = true;
  if (!ok(bind_thread()))
    CHORUS_WARN(GPU, "stream agent: cannot make the CUDA context current: {}", last_error());
  unsigned idle = 0;
  for (;;) {
    {
      std::unique_lock<std::mutex> lk(g.mu);
      bool queued = std::any_of(g.active.begin(), g.active.end(), [](const Queue* q) { return !q->tasks.empty(); });
      if (!queued && !host_pending()) {
        if (g.stop) return;
        idle = 0;
        g.cv.wait(lk);
        continue;
      }
    }
    bool busy = false;
    if (pass(&busy)) {
      idle = 0;
      continue;
    }
    // Work in flight: poll again soon. Waiting for a stream to reach its next task
    // (kernels still running): back off to short sleeps.
    if (busy || ++idle < 64) {
      sched_yield();
    } else {
      std::unique_lock<std::mutex> lk(g.mu);
      g.cv.wait_for(lk, std::chrono::microseconds(50));
    }
  }
}

}  // namespace

void set_host(const Host& h) { g.host = h; }

Status open(Queue& q, cu::Stream stream) {
  q.stream = stream;
  Status s = signal_alloc(&q.start);
  if (ok(s)) s = signal_alloc(&q.done);
  if (!ok(s)) {
    signal_free(&q.start);
    return s;
  }
  *q.start.host = 0;
  *q.done.host = 0;
  std::lock_guard<std::mutex> lk(g.mu);
  g.active.push_back(&q);
  return Status::Ok;
}

void retire(Queue& q) {
  std::lock_guard<std::mutex> lk(g.mu);
  g.active.erase(std::remove(g.active.begin(), g.active.end(), &q), g.active.end());
  g.retired.push_back(q.start);
  g.retired.push_back(q.done);
  q.start = q.done = Signal{};
}

Status submit(Queue& q, std::unique_ptr<Task> task, bool* queued) {
  Task* t = task.get();
  {
    std::lock_guard<std::mutex> lk(g.mu);
    t->ticket = ++q.next_ticket;
    q.tasks.push_back(std::move(task));
  }
  // Counted before the stream can park on it (the count is conservative when the
  // wait could not be enqueued).
  const bool waits = t->stream_waits;
  if (waits) g.waiting.fetch_add(1, std::memory_order_acq_rel);
  Status st = stream_write(q.stream, q.start, t->ticket);
  *queued = ok(st);
  if (*queued && waits) st = stream_wait(q.stream, q.done, t->ticket);
  if (!*queued && waits) g.waiting.fetch_sub(1, std::memory_order_acq_rel);
  if (!*queued) {
    std::unique_ptr<Task> dropped;
    {
      std::lock_guard<std::mutex> lk(g.mu);
      auto pos = std::find_if(q.tasks.begin(), q.tasks.end(),
                              [t](const std::unique_ptr<Task>& p) { return p.get() == t; });
      dropped = std::move(*pos);
      q.tasks.erase(pos);
    }
  }
  g.cv.notify_all();
  return st;
}

void start() {
  static std::mutex once;
  std::lock_guard<std::mutex> guard(once);
  if (g.thread.joinable()) return;
  g.stop = false;
  g.thread = std::thread(agent_main);
}

// The queues whose head task can move: started, or reached by its stream.
std::vector<Queue*> ready_queues(bool* running) {
  std::vector<Queue*> ready;
  std::lock_guard<std::mutex> lk(g.mu);
  for (Queue* q : g.active) {
    if (q->tasks.empty()) continue;
    const Task* h = q->tasks.front().get();
    if (h->started) *running = true;
    if (h->started || reached(start_word(q), h->ticket)) ready.push_back(q);
  }
  return ready;
}

bool pass(bool* busy) {
  bool running = false;
  bool pending = host_pending();
  // A first look without the host lock (an idle agent must not take it)...
  if (ready_queues(&running).empty() && !pending) {
    *busy = running;
    return false;
  }
  HostLock lock;
  // ... and the queues to work on taken again under it: a queue is retired (and
  // its owner freed) only under the host lock, so none of these can go while the
  // pass runs; between the two looks one may have.
  running = false;
  std::vector<Queue*> ready = ready_queues(&running);
  pending = host_pending();
  *busy = running || pending;
  bool moved = pending && g.host.work();
  std::vector<std::unique_ptr<Task>> finished;  // destroyed after the pass
  for (Queue* q : ready) {
    for (;;) {
      Task* head;
      {
        std::lock_guard<std::mutex> lk(g.mu);
        if (q->tasks.empty()) break;
        head = q->tasks.front().get();
      }
      bool was_started = head->started;
      if (!step(q, head)) {
        moved |= head->started != was_started;
        break;
      }
      moved = true;
      if (head->stream_waits) g.waiting.fetch_sub(1, std::memory_order_acq_rel);
      std::lock_guard<std::mutex> lk(g.mu);
      finished.push_back(std::move(q->tasks.front()));
      q->tasks.pop_front();
    }
  }
  finished.clear();
  return moved;
}

bool on_agent_thread() { return t_agent; }

bool streams_parked() { return g.waiting.load(std::memory_order_acquire) > 0; }

bool empty(const Queue& q) {
  std::lock_guard<std::mutex> lk(g.mu);
  return q.tasks.empty();
}

void shutdown() {
  if (g.thread.joinable()) {
    drain_until([] {
      std::lock_guard<std::mutex> lk(g.mu);
      return std::all_of(g.active.begin(), g.active.end(), [](const Queue* q) { return q->tasks.empty(); });
    });
    {
      std::lock_guard<std::mutex> lk(g.mu);
      g.stop = true;
    }
    g.cv.notify_all();
    g.thread.join();
  }
  std::lock_guard<std::mutex> lk(g.mu);
  for (Queue* q : g.active) {
    g.retired.push_back(q->start);
    g.retired.push_back(q->done);
    q->start = q->done = Signal{};
  }
  g.active.clear();
  for (Signal& sig : g.retired) signal_free(&sig);
  g.retired.clear();
}

}  // namespace chorus::gpu::agent
