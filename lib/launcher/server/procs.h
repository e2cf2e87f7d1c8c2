// Rank processes: starting them (fork/exec in their own process group, bound
// to a core if asked), forwarding their output line by line, and describing how
// they ended.
#pragma once
#include <sched.h>
#include <sys/types.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "launcher/server/job.h"

namespace chorus::launcher {

// Where forwarded output goes: a descriptor (our stdout, stderr, or a file of
// --output-filename) with a queue in front, so a reader that stops reading
// (a pager, a full pipe, a stopped terminal) never stops the launcher's loop:
// signals, exits, heartbeats and failures are still seen. Writes that the
// descriptor does not take at once wait in the queue; once it holds
// kHighWater bytes the sink is congested and the loop stops reading the ranks'
// pipes that feed it, so the ranks block on their own writes as they would on
// a blocked terminal, and nothing is lost.
//
// Writes never block: a pipe or terminal is written through a second,
// non-blocking open of it (/proc/self/fd/N), so the flags of the descriptor we
// share with the shell stay as they are; a socket with MSG_DONTWAIT; where
// neither works, only when poll says there is room, at most PIPE_BUF bytes at a
// time. Regular files are written directly.
class OutSink {
 public:
  static constexpr size_t kHighWater = 1 << 20;
  explicit OutSink(int fd) : target_(fd) {}
  ~OutSink();
  OutSink(const OutSink&) = delete;
  OutSink& operator=(const OutSink&) = delete;
  // The process-wide sink of fd 1 or 2: every forwarder to it shares one queue,
  // so its lines keep their order.
  static const std::shared_ptr<OutSink>& standard(int fd);
  // Queues `n` bytes and writes what the descriptor takes now.
  void write(const char* data, size_t n);
  bool idle() const { return queued() == 0; }
  bool congested() const { return queued() >= kHighWater; }
  size_t queued() const { return buf_.size() - head_; }
  // The descriptor to poll for POLLOUT while not idle.
  int poll_fd() const { return own_ >= 0 ? own_ : target_; }
  // Writes what the descriptor takes now.
  void on_writable();
  // Forgets what is queued (the job is being given up on).
  void drop();

 private:
  enum class Mode { Unknown, Direct, Reopened, Socket, Probe };
  void choose_mode();
  ssize_t try_write(const char* p, size_t n);  // > 0 written, 0 would block, < 0 the reader is gone

  int target_;
  int own_ = -1;  // the non-blocking second open
  Mode mode_ = Mode::Unknown;
  bool broken_ = false;  // EPIPE and friends: output is dropped from now on
  std::string buf_;
  size_t head_ = 0;  // bytes of buf_ already written
};

// Assembles the bytes of one rank's stdout or stderr into whole lines and
// writes whole lines only, so lines of different ranks never interleave.
class LineForwarder {
 public:
  // Every line goes to `sink` after `prefix`, and after the time it arrived
  // when `timestamp` (--timestamp-output).
  LineForwarder(std::shared_ptr<OutSink> sink, std::string prefix, bool timestamp = false)
      : sink_(std::move(sink)), prefix_(std::move(prefix)), timestamp_(timestamp) {}
  // Fd 1 and 2 go to their standard sinks; any other fd gets a sink of its own.
  LineForwarder(int target_fd, std::string prefix, bool timestamp = false)
      : LineForwarder(target_fd == 1 || target_fd == 2 ? OutSink::standard(target_fd)
                                                       : std::make_shared<OutSink>(target_fd),
                      std::move(prefix), timestamp) {}
  // The sink's queue is full: read no more of this stream for now.
  bool congested() const { return sink_->congested(); }
  const std::shared_ptr<OutSink>& sink() const { return sink_; }
  // Appends `data`; writes every line it completes.
  void feed(const char* data, size_t n);
  // Writes a trailing partial line (the pipe closed without a final newline).
  void flush_partial();
  // Written before each line, before the time and the prefix: a daemon's mark
  // of the rank and stream a line belongs to (--output-filename across hosts).
  void set_lead(std::string lead) { lead_ = std::move(lead); }
  // Each whole line (with its newline) goes to `route` first; the lines it
  // returns false for go to the sink as usual (mpirun's reading of a launch
  // agent's output: the daemons' marked lines go to the ranks' files).
  void set_router(std::function<bool(std::string_view)> route) { route_ = std::move(route); }

 private:
  void emit(const char* data, size_t n);  // n bytes ending in '\n' (or a forced flush)
  std::string head() const;              // what goes before each line now

  std::shared_ptr<OutSink> sink_;
  std::string prefix_;
  bool timestamp_ = false;
  std::string partial_;
  std::string lead_;
  std::function<bool(std::string_view)> route_;
};

// One rank's process and its output pipes.
struct RankProc {
  int rank = 0;
  int job = 0;  // 0: the launched job; k > 0: the k-th job started by PMIx_Spawn
  pid_t pid = -1;  // also its process group id
  bool reaped = false;
  int wait_status = 0;
  // PMIx_Init and PMIx_Finalize as the server saw them: a rank that connected
  // must finalize before it exits (MPI_Finalize does), else it failed.
  bool connected = false;
  bool finalized = false;
  int out_fd = -1;  // read ends; -1 once closed
  int err_fd = -1;
  LineForwarder out{1, ""};
  LineForwarder err{2, ""};
};

// What a child gets: everything is prepared before fork(), because after fork
// in a threaded process (the PMIx server runs threads) the child may only make
// async-signal-safe calls.
struct SpawnSpec {
  std::string path;
  std::vector<std::string> argv;
  std::vector<std::string> env;  // NAME=VALUE
  int stdin_fd = -1;             // dup'ed onto 0
  std::optional<cpu_set_t> cpus; // sched_setaffinity before exec
  std::string cwd;               // chdir before exec (--wdir), unless empty
};

// "0-3,8" for a CPU set.
std::string cpu_list(const cpu_set_t& set);
// The set a list in cpu_list's form names ("0-3,8"; CPUs past CPU_SETSIZE left
// out), or nothing when it is not one.
std::optional<cpu_set_t> parse_cpu_list(std::string_view text);

// Forks and execs `spec` with stdout/stderr on new pipes (returned in `proc`).
// The child leads its own process group, so signalling -pid reaches anything it
// starts, and the kernel kills it if the launcher dies first. Returns
// Status::Internal with `err` set if nothing was started.
Status spawn_rank(const SpawnSpec& spec, RankProc& proc, std::string& err);

// Reads what is available from `fd` into `fwd`. Returns false at EOF or error
// (the partial line is flushed and the caller closes the fd).
bool pump_pipe(int fd, LineForwarder& fwd);

// "exit status 3", "signal 11 (Segmentation fault)".
std::string describe_wait_status(int status);

// --bind-to on this host: each core's CPUs in hwloc's logical order, and the CPUs
// of the package and of the NUMA node holding it. Empty (`err` set) when the
// topology cannot be read.
struct BindPlan {
  struct Core {
    cpu_set_t cpus, package_cpus, numa_cpus;
    int package = 0, numa = 0;  // logical indexes
  };
  std::vector<Core> cores;
  int packages = 1, numas = 1;
  bool empty() const { return cores.empty(); }
};
BindPlan bind_plan(std::string& err);

// The CPUs of the rank with `local_rank` on this host: its core is local_rank mod
// ncores, or, when the map puts `ppr` ranks on each package or NUMA node
// (--map-by ppr:N:package|numa), core (local_rank mod ppr) of unit
// (local_rank / ppr) mod units; then that core, or its package or NUMA node.
cpu_set_t bind_cpus(const BindPlan& plan, Binding bind, MapBy map_by, int ppr, int local_rank);

// --bind-to auto, the default: Open MPI's rule (two ranks or fewer on a node: a
// core each; more: the package of its core, so a rank's threads may spread over
// it; more ranks than cores: none), made safe for a node several jobs share. Only
// the cores whose CPUs are all in `allowed` (the launcher's own mask: taskset, a
// cgroup, a batch step) count, and of those only the ones no other live Chorus
// job of this host claimed (`taken`): with fewer free cores than ranks, nothing
// is bound, so a second job never piles onto the first one's cores (Open MPI's
// jobs all start at core 0). `claim` is what this job takes: the CPUs of the
// cores its ranks were given.
struct AutoBinding {
  Binding bind = Binding::None;  // what auto became here: None, Core or Package
  std::vector<cpu_set_t> cpus;   // by local rank; empty when not bound
  cpu_set_t claim{};
  std::string why;  // for the log: why this binding
};
AutoBinding auto_binding(const BindPlan& plan, int nlocal, const cpu_set_t& allowed, const cpu_set_t& taken);

// A rankfile's slot= on this host: "C" (core C, hwloc's logical order across the
// node), lists and ranges of those ("0,2-3"), or "S:C" (cores C of package S:
// "1:0-1"), as Open MPI reads them. Empty with `err` set when the text names a
// package or core this host does not have.
std::optional<cpu_set_t> slot_cpuset(std::string_view slot, std::string& err);

}  // namespace chorus::launcher
