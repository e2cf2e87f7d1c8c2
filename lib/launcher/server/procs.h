// Rank processes: starting them (fork/exec in their own process group, bound
// to a core if asked), forwarding their output line by line, and describing how
// they ended.
#pragma once
#include <sched.h>
#include <sys/types.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "launcher/server/job.h"

namespace chorus::launcher {

// Assembles the bytes of one rank's stdout or stderr into whole lines and
// writes whole lines only, so lines of different ranks never interleave.
class LineForwarder {
 public:
  // Every line goes to `target_fd` after `prefix`, and after the time it arrived
  // when `timestamp` (--timestamp-output).
  LineForwarder(int target_fd, std::string prefix, bool timestamp = false)
      : target_(target_fd), prefix_(std::move(prefix)), timestamp_(timestamp) {}
  // Appends `data`; writes every line it completes.
  void feed(const char* data, size_t n);
  // Writes a trailing partial line (the pipe closed without a final newline).
  void flush_partial();

 private:
  void emit(const char* data, size_t n);  // n bytes ending in '\n' (or a forced flush)
  std::string head() const;              // what goes before each line now

  int target_;
  std::string prefix_;
  bool timestamp_ = false;
  std::string partial_;
};

// One rank's process and its output pipes.
struct RankProc {
  int rank = 0;
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

// A rankfile's slot= on this host: "C" (core C, hwloc's logical order across the
// node), lists and ranges of those ("0,2-3"), or "S:C" (cores C of package S:
// "1:0-1"), as Open MPI reads them. Empty with `err` set when the text names a
// package or core this host does not have.
std::optional<cpu_set_t> slot_cpuset(std::string_view slot, std::string& err);

}  // namespace chorus::launcher
