// The job model of the launcher: what the user asked for (Options, from the
// command line) and where every rank goes (Job: nodes, each with its rank slots).
//
// Ranks are mapped onto the hosts of --host, --hostfile or the batch allocation
// (hosts.h), or onto this host alone when none is given; the rest of the launcher
// reads placement only from this model.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "launcher/server/hosts.h"

namespace chorus::launcher {

// --bind-to: nothing, a core, or the package or NUMA node holding that core (the
// order of CHORUS_BIND_TO's choices); Auto, the default, is decided by each host
// for its own ranks (auto_binding in procs.h).
enum class Binding { None, Core, Package, Numa, Auto };

// --map-by: how ranks, in rank order, are laid onto the hosts. Slot fills each host's
// slots before the next; Node deals one rank per host in turn. With Options::ppr,
// each host in turn takes ppr ranks per unit (node, package or NUMA node; every host
// is assumed to have as many packages and NUMA nodes as this one) until all are
// placed. Package and Numa without ppr place as Slot.
enum class MapBy { Slot, Node, Package, Numa };

// One program of the command line (MPMD: `mpirun -n 2 a : -n 4 b` has two): its
// ranks are consecutive in MPI_COMM_WORLD and its index is their MPI_APPNUM.
struct App {
  int nprocs = 1;
  bool nprocs_given = false;  // -n on the command line (else: 1, or what the hosts offer)
  std::vector<std::string> argv;  // program as the user typed it, then its arguments
  std::string program_path;       // argv[0] resolved through PATH: what execve() takes
  // Apps of a job started by PMIx_Spawn only (the command line has neither):
  std::vector<std::string> env;  // NAME=VALUE, on top of the ranks' usual environment
  std::string wdir;              // the ranks' working directory ("": Options::wdir)
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

  // Where ranks may run: --host, --hostfile (or CHORUS_HOSTFILE; both: the --host
  // hosts with the file's slots), else the batch allocation's hosts, in order. Empty:
  // this host alone, with no slot limit.
  std::vector<HostSpec> hosts;
  std::string hosts_from;      // what gave `hosts`, for messages ("--host", "Slurm allocation 7")
  MapBy map_by = MapBy::Slot;  // --map-by
  int ppr = 0;                 // ppr:N:UNIT, -N: ranks per map_by unit on each host; 0: by slots
  std::string rankfile;        // --rankfile (absolute): each rank's host; replaces --map-by
  std::vector<RankfileLine> rank_map;  // the rankfile's lines
  bool oversubscribe = false;  // --oversubscribe: a host may take more ranks than slots (never max_slots)
  std::string launch_agent;    // --launch-agent or CHORUS_LAUNCH_AGENT: starts chorusd on other hosts ("": srun
                               // inside a Slurm allocation, else CHORUS_LAUNCH_AGENT's default)
  std::string prefix;          // --prefix: Chorus's install prefix on other hosts (absolute); "": as here
  std::string path;            // --path: directories (absolute, ':' between) searched for programs before PATH
};

struct ParseResult {
  enum Kind { Run, Help, Version, Error } kind = Error;
  Options opts;
  std::string error;  // for Error: what is wrong, without the "mpirun: " prefix
  // For Error: a mistake on the command line itself (the message points at --help);
  // false for bad files, allocations and placements.
  bool syntax = true;
};

// Parses argv (argv[0] is the launcher's own name). Checks the program exists and
// is executable, reads the host sources (hosts.h), defaults -n to their slots and
// places the job once (plan_job), so a bad command line or placement starts nothing.
ParseResult parse_cmdline(int argc, char** argv);

// The usage text printed by --help (a command-line error prints one line and
// points at --help).
std::string usage_text(std::string_view prog);

// Resolves `name` as execvp would (PATH search unless it contains '/'), looking
// in the directories of `first` (':' between them, as --path gives) before PATH.
// Returns the path, or nullopt with `why` set.
std::optional<std::string> resolve_program(const std::string& name, std::string& why, std::string_view first = {});

// One rank's place in the job.
struct RankSlot {
  int rank = 0;
  int app = 0;         // index into Options::apps (MPI_APPNUM)
  int app_rank = 0;    // index among the ranks of its app
  int node = 0;        // index into Job::nodes
  int local_rank = 0;  // index among the ranks of this job on its node
  int node_rank = 0;   // index among all processes on its node (same as local_rank: one job)
  std::string cpu_slot;  // --rankfile's slot= text for a binding step ("0-1", "1:0"); "" otherwise
};

struct Node {
  std::string hostname;
  std::vector<int> ranks;  // global ranks on this node, in local-rank order
  int slots = 0;           // its slots (with no host given: its ranks)
};

struct Job {
  std::string nspace;  // PMIx namespace: unique per job
  Options opts;
  std::vector<Node> nodes;
  std::vector<RankSlot> slots;  // indexed by global rank
  int this_node = 0;            // the node that is this host; -1 when no rank runs here
  // A job started by PMIx_Spawn (MPI_Comm_spawn): the namespace and rank of the
  // process that asked. Empty for the job mpirun launched.
  std::string parent_nspace;
  int parent_rank = -1;

  int size() const { return static_cast<int>(slots.size()); }
  const Node& local_node() const { return nodes[this_node]; }
  // True when every rank runs on this node, so the PMIx server completes
  // fences on its own and nothing needs forwarding.
  bool all_local() const { return nodes.size() == 1 && this_node == 0; }
};

// Places the ranks, numbered in app order, by opts.rankfile or opts.map_by onto
// opts.hosts (none: one node, the first of `local_names`, with no slot limit).
// Hosts that get no rank are left out; nodes keep the hosts' order. `local_names`
// are the names this host answers to (local_host_names()). Refuses, with `err` set
// and no slots, more ranks than a host's slots without --oversubscribe, more than
// its max_slots, and rankfiles that miss a rank, repeat one or name other hosts.
Job plan_job(Options opts, const std::vector<std::string>& local_names, const std::string& nspace, std::string& err);

// plan_job with `hostname`, its short name and "localhost" as this host's names,
// errors dropped: parse_cmdline already placed the same options once.
Job plan_local_job(Options opts, const std::string& hostname, const std::string& nspace);

// Ranks per host that one ppr unit stands for: 1 for a node, else this host's
// packages or NUMA nodes (hwloc; at least 1).
int ppr_units(MapBy unit);

}  // namespace chorus::launcher
