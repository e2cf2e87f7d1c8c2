// Where ranks may run: the host lists of the command line (--host), hostfiles,
// rankfiles and batch allocations (Slurm, PBS), each read into one ordered list
// of hosts with their slots. Placement (job.h) maps ranks onto that list.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace chorus::launcher {

// One host ranks may run on.
struct HostSpec {
  std::string name;
  int slots = 1;             // ranks it takes before it is oversubscribed
  bool slots_given = false;  // a count said so (a:4, slots=4, an allocation); else one per mention
  int max_slots = 0;         // ranks it never exceeds, even with --oversubscribe; 0: no max
};

// Adds `h` to `hosts`, in first-appearance order: a host named again gets the new
// slots (and max_slots) added to its own.
void add_host(std::vector<HostSpec>& hosts, const HostSpec& h);

// --host / -H / -hosts LIST: "a:4,b:4" (a count per host) or "a,a,b" (one slot
// per mention: a 2, b 1). Empty with `err` set when malformed; `option` names
// the option in errors.
std::vector<HostSpec> parse_host_list(std::string_view list, std::string_view option, std::string& err);

// A hostfile's text: Open MPI lines ("host slots=N max_slots=M", a bare "host"
// is one slot), MPICH lines ("host:N"), '#' comments, blank lines. Errors name
// `file`:line and the line's text.
std::vector<HostSpec> parse_hostfile(std::string_view text, const std::string& file, std::string& err);

// The file at `path` read whole into `text`; false with `err` set ("PATH: why").
bool read_text_file(const std::string& path, std::string& text, std::string& err);

// Slurm's compressed node list expanded, in order: "node[01-04,07],login" is
// node01..node04, node07, login (zero padding kept; several bracket groups in one
// name give every combination, the last varying fastest). Empty with `err` set
// when malformed.
std::vector<std::string> expand_slurm_nodelist(std::string_view s, std::string& err);

// Slurm's SLURM_TASKS_PER_NODE ("2(x3),1": 2, 2, 2, 1): tasks on each node of the
// allocation, in node order; empty when malformed.
std::vector<int> parse_slurm_tasks_per_node(std::string_view s);

// A whole non-negative decimal number (no sign, nothing after it).
bool parse_count(std::string_view s, long& out);

// A list of whole numbers and ranges ("0,2-3": 0, 2, 3), appended to `out` in
// order. False for anything else (empty items, "3-1").
bool parse_index_list(std::string_view s, std::vector<int>& out);

// A PBS_NODEFILE's text: one line per slot. Hosts in first-appearance order, each
// with as many slots as it has lines.
std::vector<HostSpec> parse_pbs_nodefile(std::string_view text);

// The hosts of the batch allocation this mpirun runs in, read from the environment:
// Slurm (SLURM_JOB_ID: SLURM_JOB_NODELIST paired with SLURM_TASKS_PER_NODE; without a
// node list, this host with SLURM_NTASKS slots) or PBS (PBS_NODEFILE). Empty outside
// one, or with `err` set when the allocation cannot be read. `from` names the source
// for messages ("Slurm allocation 7").
std::vector<HostSpec> allocation_hosts(std::string& from, std::string& err);

// One line of a rankfile (Open MPI: "rank N=host slot=S").
struct RankfileLine {
  int rank = 0;
  std::string host;
  std::string cpu_slot;  // the slot= text ("1", "0-1", "1:0"), "" when absent
  int line = 0;          // 1-based, for messages
};

// A rankfile's text: "rank N=host slot=S" lines, '#' comments, blank lines. Errors
// name `file`:line and the line's text. Whether the ranks cover the job is checked
// when the job is placed (job.h).
std::vector<RankfileLine> parse_rankfile(std::string_view text, const std::string& file, std::string& err);

// The names this host answers to: its hostname, its short name, "localhost".
std::vector<std::string> local_host_names();

// Whether `name` is this host: one of `local_names` (case aside, a short name
// matching a long one's first label too), or 127.0.0.1.
bool is_local_host(std::string_view name, const std::vector<std::string>& local_names);

// Host names compared as DNS does: ASCII case aside.
bool same_host(std::string_view a, std::string_view b);

}  // namespace chorus::launcher
