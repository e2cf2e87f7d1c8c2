// The job model of the launcher: what the user asked for (Options, from the
// command line) and where every rank goes (Job: nodes, each with its rank slots).
//
// Today every rank is placed on the local node. Multi-node launches fill
// `Job::nodes` from --host/--hostfile and start one daemon per remote node; the
// rest of the launcher already reads placement only from this model.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace chorus::launcher {

enum class Binding { None, Core };

// One program of the command line (MPMD: `mpirun -n 2 a : -n 4 b` has two): its
// ranks are consecutive in MPI_COMM_WORLD and its index is their MPI_APPNUM.
struct App {
  int nprocs = 1;
  bool nprocs_given = false;  // -n on the command line (else: 1, or the allocation's)
  std::vector<std::string> argv;  // program as the user typed it, then its arguments
  std::string program_path;       // argv[0] resolved through PATH: what execve() takes
};

// The command line, validated. Nothing in here has been started yet.
struct Options {
  std::vector<App> apps;  // at least one
  int nprocs() const {
    int n = 0;
    for (const App& a : apps) n += a.nprocs;
    return n;
  }
  std::vector<std::pair<std::string, std::string>> exports;  // -x NAME[=VALUE], resolved
  Binding bind = Binding::None;
  bool tag_output = false;
  double timeout_s = 0;  // 0: no limit
  double hang_timeout_s = 0;  // --hang-timeout / CHORUS_HANG_TIMEOUT; 0: off
  std::string wdir;           // --wdir: the ranks' working directory (absolute), or theirs
  std::string output_dir;     // --output-filename: DIR/1/rank.N/{stdout,stderr} (absolute)
  bool timestamp_output = false;  // --timestamp-output
  bool merge_stderr = false;      // --merge-stderr-to-stdout
  bool display_map = false;       // --display-map
  bool report_bindings = false;   // --report-bindings
};

struct ParseResult {
  enum Kind { Run, Help, Version, Error } kind = Error;
  Options opts;
  std::string error;  // for Error: what is wrong, without the "mpirun: " prefix
};

// Parses argv (argv[0] is the launcher's own name). Checks the program exists and
// is executable, so a bad command line starts nothing.
ParseResult parse_cmdline(int argc, char** argv);

// The usage text printed by --help (a command-line error prints one line and
// points at --help).
std::string usage_text(std::string_view prog);

// Slurm's SLURM_TASKS_PER_NODE ("2(x3),1": 2, 2, 2, 1): tasks on each node of the
// allocation, in node order; empty when malformed.
std::vector<int> parse_slurm_tasks_per_node(std::string_view s);

// The number of ranks a batch allocation this mpirun runs in offers on this node
// when -n is not given: Slurm (SLURM_JOB_ID: SLURM_NTASKS, else the node's entry of
// SLURM_TASKS_PER_NODE) or PBS (PBS_NODEFILE: this host's lines). 0 outside one.
// An allocation of several nodes is an error (`err`): this mpirun starts ranks on
// its own node only, and the others would sit idle.
int allocation_slots(std::string& err);

// Resolves `name` as execvp would (PATH search unless it contains '/').
// Returns the path, or nullopt with `why` set.
std::optional<std::string> resolve_program(const std::string& name, std::string& why);

// One rank's place in the job.
struct RankSlot {
  int rank = 0;
  int app = 0;         // index into Options::apps (MPI_APPNUM)
  int app_rank = 0;    // index among the ranks of its app
  int node = 0;        // index into Job::nodes
  int local_rank = 0;  // index among the ranks of this job on its node
  int node_rank = 0;   // index among all processes on its node (same as local_rank: one job)
};

struct Node {
  std::string hostname;
  std::vector<int> ranks;  // global ranks on this node, in local-rank order
};

struct Job {
  std::string nspace;  // PMIx namespace: unique per job
  Options opts;
  std::vector<Node> nodes;
  std::vector<RankSlot> slots;  // indexed by global rank
  int this_node = 0;            // the node this process serves

  int size() const { return static_cast<int>(slots.size()); }
  const Node& local_node() const { return nodes[this_node]; }
  // True when every rank runs on this node, so the PMIx server completes
  // fences on its own and nothing needs forwarding.
  bool all_local() const { return nodes.size() == 1; }
};

// Places every rank on the local host (block mapping).
Job plan_local_job(Options opts, const std::string& hostname, const std::string& nspace);

}  // namespace chorus::launcher
