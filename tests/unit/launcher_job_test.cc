// The launcher's host sources and placement (lib/launcher/server/hosts.h, job.h):
// --host lists, hostfiles, Slurm and PBS allocations, rankfiles, the mapping
// policies, oversubscription and which node is this host.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/params.h"
#include "launcher/server/hosts.h"
#include "launcher/server/job.h"
#include "launcher/server/procs.h"

using namespace chorus::launcher;

namespace {

// The variables that choose where ranks run: cleared for a test, restored after.
class Env {
 public:
  Env() {
    for (const char* v : {"SLURM_JOB_ID", "SLURM_JOB_NODELIST", "SLURM_NODELIST", "SLURM_TASKS_PER_NODE",
                          "SLURM_NTASKS", "SLURM_JOB_NUM_NODES", "SLURM_NNODES", "PBS_NODEFILE", "CHORUS_HOSTFILE",
                          "CHORUS_LAUNCH_AGENT"}) {
      const char* cur = std::getenv(v);
      saved_.emplace_back(v, cur ? std::optional<std::string>(cur) : std::nullopt);
      ::unsetenv(v);
    }
    chorus::params::reload();
  }
  void set(const char* name, const std::string& value) {
    ::setenv(name, value.c_str(), 1);
    chorus::params::reload();
  }
  ~Env() {
    for (const auto& [name, value] : saved_) {
      if (value) ::setenv(name.c_str(), value->c_str(), 1);
      else ::unsetenv(name.c_str());
    }
    chorus::params::reload();
  }

 private:
  std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

// A file holding `text` in the temp directory, removed at the end of the scope.
class TempFile {
 public:
  explicit TempFile(const std::string& text) {
    static std::atomic<int> seq{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("chorus-job-test." + std::to_string(::getpid()) + "." + std::to_string(seq++)))
                .string();
    std::ofstream(path_) << text;
  }
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// parse_cmdline on "mpirun ARGS...".
ParseResult parse(std::vector<std::string> args) {
  args.insert(args.begin(), "mpirun");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  return parse_cmdline(static_cast<int>(args.size()), argv.data());
}

const std::vector<std::string> kLocal{"me.example.org", "me", "localhost"};

// The job of a command line that must parse.
Job plan(const std::vector<std::string>& args, const std::vector<std::string>& local = kLocal) {
  ParseResult p = parse(args);
  INFO(p.error);
  REQUIRE(p.kind == ParseResult::Run);
  std::string err;
  Job job = plan_job(p.opts, local, "ns", err);
  INFO(err);
  REQUIRE(err.empty());
  return job;
}

// Each rank's host, in rank order.
std::vector<std::string> rank_hosts(const Job& job) {
  std::vector<std::string> out;
  for (const RankSlot& s : job.slots) out.push_back(job.nodes[static_cast<std::size_t>(s.node)].hostname);
  return out;
}

using Names = std::vector<std::string>;

}  // namespace

TEST_CASE("--host lists: counts, one slot a mention, merging", "[launcher]") {
  std::string err;
  auto h = parse_host_list("a:4,b:4", "--host", err);
  REQUIRE(err.empty());
  REQUIRE(h.size() == 2);
  CHECK((h[0].name == "a" && h[0].slots == 4 && h[0].slots_given && h[0].max_slots == 0));
  CHECK((h[1].name == "b" && h[1].slots == 4));

  h = parse_host_list("a,a,b", "-H", err);
  REQUIRE(h.size() == 2);
  CHECK((h[0].name == "a" && h[0].slots == 2 && !h[0].slots_given));
  CHECK((h[1].name == "b" && h[1].slots == 1));

  h = parse_host_list("b:2,a,B:3", "--host", err);  // first appearance order; names case aside
  REQUIRE(h.size() == 2);
  CHECK((h[0].name == "b" && h[0].slots == 5));
  CHECK(h[1].name == "a");
}

TEST_CASE("--host lists: malformed ones name the option and the list", "[launcher]") {
  for (const char* bad : {"a,,b", "a:0", "a:x", "a:", "a b", "", ",a", "a:-1"}) {
    std::string err;
    CHECK(parse_host_list(bad, "-hosts", err).empty());
    CHECK(err.starts_with(std::string("-hosts ") + bad + ":"));
  }
  ParseResult p = parse({"--host", "a:two", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.syntax);
  CHECK(p.error.find("--host a:two") != std::string::npos);
  CHECK(parse({"-H"}).error == "-H needs a host list (a:4,b:4 or a,b)");
}

TEST_CASE("hostfiles: Open MPI and MPICH lines, comments, blanks, whitespace", "[launcher]") {
  std::string err;
  auto h = parse_hostfile("# the cluster\n"
                          "  a slots=4 max_slots=8   \n"
                          "b:2   # MPICH\n"
                          "\tc\n"
                          "c\r\n"
                          "\n"
                          "d max_slots=3\n"
                          "a\n",
                          "hf", err);
  INFO(err);
  REQUIRE(err.empty());
  REQUIRE(h.size() == 4);
  CHECK((h[0].name == "a" && h[0].slots == 5 && h[0].slots_given && h[0].max_slots == 8));
  CHECK((h[1].name == "b" && h[1].slots == 2 && h[1].slots_given && h[1].max_slots == 0));
  CHECK((h[2].name == "c" && h[2].slots == 2 && !h[2].slots_given));
  CHECK((h[3].name == "d" && h[3].slots == 3 && h[3].max_slots == 3));
}

TEST_CASE("hostfiles: bad lines name file:line and the text", "[launcher]") {
  struct Case {
    const char* text;
    const char* err;
  };
  for (const Case& c : {
           Case{"a\n# x\n a slots=x \n", "hf:3: 'a slots=x': slots= needs a positive integer"},
           Case{"a slots=0\n", "hf:1: 'a slots=0': slots= needs a positive integer"},
           Case{"a cpus=2\n", "hf:1: 'a cpus=2': unknown 'cpus=2' (expected slots=N or max_slots=N)"},
           Case{"a slots=4 max_slots=2\n", "hf:1: 'a slots=4 max_slots=2': max_slots=2 is below slots=4"},
           Case{"a:2 slots=3\n", "hf:1: 'a:2 slots=3': the slots are given twice"},
           Case{"b\na:x\n", "hf:2: 'a:x': the slot count after ':' must be a positive integer"},
           Case{"bad/name\n", "hf:1: 'bad/name': 'bad/name' is not a host name"},
           Case{"# nothing\n\n", "hf: no hosts in it"},
       }) {
    std::string err;
    CHECK(parse_hostfile(c.text, "hf", err).empty());
    CHECK(err == c.err);
  }
}

TEST_CASE("hostfiles through the command line, CHORUS_HOSTFILE, and --host picking hosts of one", "[launcher]") {
  Env env;
  TempFile hf("a:2\nb slots=2\n");
  Job job = plan({"--hostfile", hf.path(), "true"});
  CHECK(job.opts.hosts_from == "--hostfile " + hf.path());
  CHECK(rank_hosts(job) == Names{"a", "a", "b", "b"});  // -n: the slots in all

  for (const char* opt : {"--machinefile", "-hostfile", "-machinefile", "-f"})
    CHECK(plan({opt, hf.path(), "-n", "3", "true"}).size() == 3);

  env.set("CHORUS_HOSTFILE", hf.path());
  job = plan({"true"});
  CHECK(job.opts.hosts_from == "CHORUS_HOSTFILE " + hf.path());
  CHECK(job.size() == 4);
  job = plan({"--host", "b", "true"});  // b of the file, with the file's slots
  CHECK(rank_hosts(job) == Names{"b", "b"});
  ParseResult p = parse({"--host", "c", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error == "--host c: not a host of CHORUS_HOSTFILE " + hf.path());

  TempFile bad("a\na slots=\n");
  p = parse({"--hostfile", bad.path(), "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK_FALSE(p.syntax);  // no pointer at --help: the file is wrong
  CHECK(p.error == "--hostfile " + bad.path() + ":2: 'a slots=': slots= needs a positive integer");
  p = parse({"-f", hf.path() + ".missing", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error.starts_with("-f " + hf.path() + ".missing: "));
}

TEST_CASE("Slurm node lists expand", "[launcher]") {
  std::string err;
  CHECK(expand_slurm_nodelist("node[01-04,07]", err) == Names{"node01", "node02", "node03", "node04", "node07"});
  CHECK(expand_slurm_nodelist("a,b[1-3]", err) == Names{"a", "b1", "b2", "b3"});
  CHECK(expand_slurm_nodelist("r[1-2]n[3-4]", err) == Names{"r1n3", "r1n4", "r2n3", "r2n4"});
  CHECK(expand_slurm_nodelist("x-[9-11]-ib", err) == Names{"x-9-ib", "x-10-ib", "x-11-ib"});
  CHECK(expand_slurm_nodelist("n[08-10]", err) == Names{"n08", "n09", "n10"});
  CHECK(expand_slurm_nodelist("node[01-02,07],gpu[1-2]-ib,login", err) ==
        Names{"node01", "node02", "node07", "gpu1-ib", "gpu2-ib", "login"});
  CHECK(expand_slurm_nodelist("solo", err) == Names{"solo"});
  CHECK(err.empty());
  for (const char* bad : {"node[1-", "node[1-]", "n[3-1]", "n[]", "n]", "n[[1]]", "a,,b", "n[x]", "", "a,"}) {
    INFO(bad);
    CHECK(expand_slurm_nodelist(bad, err).empty());
    CHECK_FALSE(err.empty());
  }
}

TEST_CASE("SLURM_TASKS_PER_NODE: counts and repeats", "[launcher]") {
  CHECK(parse_slurm_tasks_per_node("4") == std::vector<int>{4});
  CHECK(parse_slurm_tasks_per_node("2(x3),1") == std::vector<int>{2, 2, 2, 1});
  CHECK(parse_slurm_tasks_per_node("1,5(x2)") == std::vector<int>{1, 5, 5});
}

TEST_CASE("SLURM_TASKS_PER_NODE: malformed values give nothing", "[launcher]") {
  for (const char* bad : {"", "x", "2(x)", "2(3)", "2(x0)", "2(x3", "2,", "-1", "2(x3)junk"})
    CHECK(parse_slurm_tasks_per_node(bad).empty());
}

TEST_CASE("Slurm allocations: the node list paired with the tasks per node", "[launcher]") {
  Env env;
  env.set("SLURM_JOB_ID", "7");
  env.set("SLURM_JOB_NODELIST", "n[1-3]");
  env.set("SLURM_TASKS_PER_NODE", "2(x2),1");
  std::string from, err;
  auto h = allocation_hosts(from, err);
  INFO(err);
  REQUIRE(h.size() == 3);
  CHECK(from == "Slurm allocation 7");
  CHECK((h[0].name == "n1" && h[0].slots == 2 && h[1].name == "n2" && h[1].slots == 2 && h[2].name == "n3" &&
         h[2].slots == 1));

  // -n defaults to the allocation's slots; more needs --oversubscribe.
  Job job = plan({"true"});
  CHECK(rank_hosts(job) == Names{"n1", "n1", "n2", "n2", "n3"});
  CHECK(job.this_node == -1);
  ParseResult p = parse({"-n", "6", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error == "6 ranks but 5 slots (n1:2, n2:2, n3:1 from Slurm allocation 7): --oversubscribe allows more "
                   "ranks than slots");
  CHECK(plan({"-n", "6", "--oversubscribe", "true"}).size() == 6);
  // --host wins over the allocation.
  CHECK(rank_hosts(plan({"--host", "z", "true"})) == Names{"z"});

  env.set("SLURM_TASKS_PER_NODE", "2(x2)");
  CHECK(allocation_hosts(from, err).empty());
  CHECK(err == "Slurm allocation 7: SLURM_TASKS_PER_NODE 2(x2) counts 2 nodes, SLURM_JOB_NODELIST n[1-3] names 3");
  p = parse({"true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK_FALSE(p.syntax);
  CHECK(p.error == err);

  env.set("SLURM_JOB_NODELIST", "n[1-");
  CHECK(allocation_hosts(from, err).empty());
  CHECK(err.starts_with("Slurm allocation 7: SLURM_JOB_NODELIST n[1-: "));

  ::unsetenv("SLURM_JOB_NODELIST");
  env.set("SLURM_NODELIST", "m[1-2]");
  h = allocation_hosts(from, err);
  REQUIRE(h.size() == 2);
  CHECK(h[1].name == "m2");
}

TEST_CASE("Slurm allocations without a node list are this node", "[launcher]") {
  Env env;
  env.set("SLURM_JOB_ID", "7");
  env.set("SLURM_NTASKS", "3");
  std::string from, err;
  auto h = allocation_hosts(from, err);
  REQUIRE(h.size() == 1);
  CHECK(h[0].name == local_host_names()[0]);
  CHECK(h[0].slots == 3);
  Job job = plan({"true"}, local_host_names());
  CHECK(job.size() == 3);
  CHECK(job.all_local());

  env.set("SLURM_JOB_NUM_NODES", "2");
  CHECK(allocation_hosts(from, err).empty());
  CHECK(err.find("has 2 nodes but SLURM_JOB_NODELIST is not set") != std::string::npos);
}

TEST_CASE("PBS node files: a line per slot, hosts in first-appearance order", "[launcher]") {
  auto h = parse_pbs_nodefile("b\na\nb\n\n  c \nb\n");
  REQUIRE(h.size() == 3);
  CHECK((h[0].name == "b" && h[0].slots == 3));
  CHECK((h[1].name == "a" && h[1].slots == 1));
  CHECK((h[2].name == "c" && h[2].slots == 1));

  Env env;
  TempFile nodes("x\ny\nx\n");
  env.set("PBS_NODEFILE", nodes.path());
  Job job = plan({"true"});
  CHECK(job.opts.hosts_from == "PBS_NODEFILE " + nodes.path());
  CHECK(rank_hosts(job) == Names{"x", "x", "y"});
  env.set("PBS_NODEFILE", nodes.path() + ".missing");
  ParseResult p = parse({"true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error.starts_with("PBS_NODEFILE " + nodes.path() + ".missing: "));
}

TEST_CASE("mapping: by slot, by node, ppr and -N", "[launcher]") {
  Env env;
  Job job = plan({"--host", "a:2,b:2", "true"});
  CHECK(rank_hosts(job) == Names{"a", "a", "b", "b"});
  REQUIRE(job.nodes.size() == 2);
  CHECK((job.nodes[0].slots == 2 && job.nodes[0].ranks == std::vector<int>{0, 1}));
  CHECK(job.slots[3].local_rank == 1);

  job = plan({"--host", "a:2,b:2", "--map-by", "node", "true"});
  CHECK(rank_hosts(job) == Names{"a", "b", "a", "b"});
  CHECK(job.nodes[0].ranks == std::vector<int>{0, 2});
  CHECK((job.slots[2].local_rank == 1 && job.slots[2].node_rank == 1 && job.slots[1].local_rank == 0));

  job = plan({"--host", "a:4,b:4,c:4", "--map-by", "ppr:2:node", "true"});  // -n: 2 per host
  CHECK(rank_hosts(job) == Names{"a", "a", "b", "b", "c", "c"});
  CHECK(rank_hosts(plan({"--host", "a:4,b:4,c:4", "--map-by", "PPR:2:NODE", "-n", "3", "true"})) ==
        Names{"a", "a", "b"});
  for (const char* opt : {"-N", "--npernode", "-npernode", "-ppn", "--ppn"})
    CHECK(rank_hosts(plan({"--host", "a:2,b:2", opt, "1", "true"})) == Names{"a", "b"});
  ParseResult p = parse({"--host", "a:2,b:2", "-N", "1", "-n", "3", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error == "--map-by ppr:1:node places 1 rank on each of 2 hosts, 2 in all: fewer than the 3 asked");

  // Uneven hosts: 1, 2 and 3 slots.
  CHECK(rank_hosts(plan({"--host", "a:1,b:2,c:3", "true"})) == Names{"a", "b", "b", "c", "c", "c"});
  job = plan({"--host", "a:1,b:2,c:3", "--map-by", "node", "true"});
  CHECK(rank_hosts(job) == Names{"a", "b", "c", "b", "c", "c"});
  CHECK(job.nodes[2].ranks == std::vector<int>{2, 4, 5});
  CHECK(rank_hosts(plan({"--host", "a:1,b:2,c:3", "-n", "2", "true"})) == Names{"a", "b"});
  // Hosts without ranks are left out.
  job = plan({"--host", "a:1,b:2,c:3", "-n", "3", "true"});
  REQUIRE(job.nodes.size() == 2);
  CHECK(job.nodes[1].hostname == "b");
  CHECK(job.slots[2].node == 1);

  // package and numa place as slot; ppr per package counts this host's packages.
  CHECK(rank_hosts(plan({"--host", "a:2,b:2", "--map-by", "numa", "true"})) == Names{"a", "a", "b", "b"});
  const int pk = ppr_units(MapBy::Package);
  CHECK(pk >= 1);
  CHECK(ppr_units(MapBy::Numa) >= 1);
  CHECK(ppr_units(MapBy::Node) == 1);
  job = plan({"--host", "a,b", "--oversubscribe", "--map-by", "ppr:2:package", "true"});
  REQUIRE(job.nodes.size() == 2);
  CHECK(job.size() == 4 * pk);
  CHECK(job.nodes[0].ranks.size() == static_cast<std::size_t>(2 * pk));

  for (const char* bad : {"core", "ppr:x:node", "ppr:2", "ppr:2:core", "node:PE=2", "ppr:0:node"}) {
    p = parse({"--map-by", bad, "true"});
    CHECK(p.kind == ParseResult::Error);
    CHECK(p.syntax);
    CHECK(p.error.starts_with(std::string("--map-by ") + bad + ": "));
  }
}

TEST_CASE("MPMD: ranks in app order, mapping global", "[launcher]") {
  Env env;
  Job job = plan({"--host", "a:2,b:2", "-n", "3", "true", ":", "-n", "1", "true"});
  CHECK(rank_hosts(job) == Names{"a", "a", "b", "b"});
  CHECK((job.slots[2].app == 0 && job.slots[2].app_rank == 2));
  CHECK((job.slots[3].app == 1 && job.slots[3].app_rank == 0 && job.slots[3].local_rank == 1));

  // --map-by after ':' maps the whole job.
  job = plan({"--host", "a:2,b:2", "-n", "2", "true", ":", "--map-by", "node", "-n", "2", "true"});
  CHECK(rank_hosts(job) == Names{"a", "b", "a", "b"});
  CHECK((job.slots[2].app == 1 && job.slots[2].node == 0 && job.slots[2].local_rank == 1));
}

TEST_CASE("rankfiles: each rank's host and slot", "[launcher]") {
  Env env;
  TempFile rf("# ranks\nrank 0=b slot=0\n\nrank 1=a slot=1:0\nrank 2 = b   slot=0-1\n");
  Job job = plan({"--host", "a:2,b:2", "--rankfile", rf.path(), "true"});  // -n: the file's ranks
  CHECK(job.opts.rankfile == rf.path());
  CHECK(rank_hosts(job) == Names{"b", "a", "b"});
  REQUIRE(job.nodes.size() == 2);
  CHECK(job.nodes[0].hostname == "a");  // nodes in host order
  CHECK(job.nodes[1].ranks == std::vector<int>{0, 2});
  CHECK((job.slots[0].local_rank == 0 && job.slots[2].local_rank == 1));
  CHECK((job.slots[0].cpu_slot == "0" && job.slots[1].cpu_slot == "1:0" && job.slots[2].cpu_slot == "0-1"));
  CHECK(plan({"--host", "a:2,b:2", "-rf", rf.path(), "-n", "3", "true"}).size() == 3);
  std::vector<int> ids;
  CHECK((parse_index_list("0,2-4,7", ids) && ids == std::vector<int>{0, 2, 3, 4, 7}));
  for (const char* bad : {"", "1,", "3-1", "-2", "a", "1-", "0x1"}) {
    ids.clear();
    CHECK_FALSE(parse_index_list(bad, ids));
  }

  // Without hosts, the rankfile names them; this host's names are one host.
  TempFile here("rank 0=localhost\nrank 1=me\n");
  job = plan({"--rankfile", here.path(), "true"});
  REQUIRE(job.nodes.size() == 1);
  CHECK((job.nodes[0].hostname == "me.example.org" && job.this_node == 0 && job.size() == 2));
}

TEST_CASE("rankfiles: missing, repeated, out-of-range ranks, other hosts, bad lines", "[launcher]") {
  Env env;
  auto error = [](std::vector<std::string> args) {
    ParseResult p = parse(std::move(args));
    CHECK(p.kind == ParseResult::Error);
    CHECK_FALSE(p.syntax);
    return p.error;
  };
  TempFile three("rank 0=a\nrank 1=a\nrank 2=b\n");
  CHECK(error({"--host", "a:2,b:2", "--rankfile", three.path(), "-n", "4", "true"}) ==
        three.path() + ": no line for rank 3 (each rank 0..3 needs one)");
  CHECK(error({"--host", "a:2,b:2", "--rankfile", three.path(), "-n", "2", "true"}) ==
        three.path() + ":3: rank 2, but the job has 2 ranks (0..1)");
  TempFile dup("rank 0=a\nrank 0=b\n");
  CHECK(error({"--host", "a:2,b:2", "--rankfile", dup.path(), "true"}) ==
        dup.path() + ":2: rank 0 again (first at line 1)");
  TempFile other("rank 0=a\nrank 1=zz slot=0\n");
  CHECK(error({"--host", "a:2,b:2", "--rankfile", other.path(), "true"}) ==
        other.path() + ":2: host zz is not one of the job's hosts (from --host)");
  TempFile bad("rank 0=a slot=x\n");
  CHECK(error({"--host", "a", "--rankfile", bad.path(), "true"}) ==
        "--rankfile " + bad.path() +
            ":1: 'rank 0=a slot=x': slot=x: expected a CPU number, a range (0-1), a list (0,2) or SOCKET:CORE (1:0)");
  TempFile syntax("rank 0=a\nrank x=a\n");
  CHECK(error({"--host", "a", "--rankfile", syntax.path(), "true"}) ==
        "--rankfile " + syntax.path() + ":2: 'rank x=a': 'x' is not a rank number");
  TempFile words("host a\n");
  CHECK(error({"--host", "a", "--rankfile", words.path(), "true"}) ==
        "--rankfile " + words.path() + ":1: 'host a': expected 'rank N=host slot=S'");

  ParseResult p = parse({"--rankfile", three.path(), "--map-by", "node", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error == "--rankfile and --map-by node both place the ranks: give one");
}

TEST_CASE("oversubscription: refused unless --oversubscribe; max_slots always", "[launcher]") {
  Env env;
  ParseResult p = parse({"--host", "a:2,b:2", "-n", "5", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK_FALSE(p.syntax);
  CHECK(p.error == "5 ranks but 4 slots (a:2, b:2 from --host): --oversubscribe allows more ranks than slots");
  CHECK(rank_hosts(plan({"--host", "a:2,b:2", "-n", "5", "--oversubscribe", "true"})) ==
        Names{"a", "a", "a", "b", "b"});
  CHECK(rank_hosts(plan({"--host", "a,b", "-n", "4", "--map-by", "node:OVERSUBSCRIBE", "true"})) ==
        Names{"a", "b", "a", "b"});
  CHECK(parse({"--host", "a:2,b:2", "-n", "5", "--oversubscribe", "--nooversubscribe", "true"}).kind ==
        ParseResult::Error);

  // One host beyond its slots, the total within.
  p = parse({"--host", "a:2,b:2", "--map-by", "ppr:3:node", "-n", "4", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error == "--map-by ppr:3:node puts 3 ranks on a, which has 2 slots (a:2, b:2 from --host): "
                   "--oversubscribe allows more ranks than slots");
  CHECK(plan({"--host", "a:2,b:2", "--map-by", "ppr:3:node", "-n", "4", "--oversubscribe", "true"}).size() == 4);

  // max_slots: --oversubscribe fills hosts up to it, never beyond.
  TempFile hf("a slots=1 max_slots=3\nb slots=1 max_slots=2\n");
  CHECK(rank_hosts(plan({"--hostfile", hf.path(), "-n", "5", "--oversubscribe", "true"})) ==
        Names{"a", "a", "a", "b", "b"});
  p = parse({"--hostfile", hf.path(), "-n", "6", "--oversubscribe", "true"});
  CHECK(p.kind == ParseResult::Error);
  CHECK(p.error.find("whose max_slots is") != std::string::npos);

  // With no host given there is no limit: ranks may outnumber cores.
  Job job = plan({"-n", "64", "true"});
  CHECK(job.size() == 64);
  REQUIRE(job.nodes.size() == 1);
  CHECK((job.nodes[0].hostname == "me.example.org" && job.nodes[0].slots == 64 && job.all_local()));
}

TEST_CASE("this host among the hosts: this_node, or -1 when no rank runs here", "[launcher]") {
  Env env;
  Job job = plan({"--host", "me:1,other:1", "true"});
  CHECK(job.this_node == 0);
  CHECK_FALSE(job.all_local());
  job = plan({"--host", "other:1,ME.example.org:1", "true"}, {"me", "localhost"});
  CHECK(job.this_node == 1);
  job = plan({"--host", "x,y", "true"});
  CHECK(job.this_node == -1);
  CHECK_FALSE(job.all_local());
  job = plan({"--host", "other:2,me:2", "-n", "2", "true"});  // nothing here: the node is left out
  CHECK(job.nodes.size() == 1);
  CHECK(job.this_node == -1);
  CHECK(plan({"--host", "127.0.0.1:2", "true"}).all_local());
  CHECK(plan({"--host", "localhost:2", "true"}).all_local());

  CHECK(is_local_host("ME", {"me"}));
  CHECK(is_local_host("me.a", {"me"}));
  CHECK(is_local_host("me", {"me.a"}));
  CHECK_FALSE(is_local_host("me.b", {"me.a"}));
  CHECK_FALSE(is_local_host("10.0.0.1", {"10"}));
  CHECK(is_local_host("127.0.0.1", {}));
  CHECK(local_host_names().back() == "localhost");
}

TEST_CASE("--launch-agent, -launcher-exec, --prefix, and the usage text", "[launcher]") {
  Env env;
  ParseResult p = parse({"true"});
  REQUIRE(p.kind == ParseResult::Run);
  CHECK(p.opts.launch_agent.empty());  // the launcher's choice: srun in a Slurm allocation, else ssh
  CHECK(p.opts.prefix.empty());
  CHECK(parse({"--launch-agent", "ssh -x", "true"}).opts.launch_agent == "ssh -x");
  CHECK(parse({"-launcher-exec", "rsh", "true"}).opts.launch_agent == "rsh");
  env.set("CHORUS_LAUNCH_AGENT", "myagent");
  CHECK(parse({"true"}).opts.launch_agent == "myagent");
  p = parse({"--prefix", "opt/chorus", "true"});
  CHECK(p.opts.prefix == (std::filesystem::current_path() / "opt/chorus").string());
  CHECK(parse({"--prefix"}).error == "--prefix needs a directory");
  CHECK(parse({"--launch-agent", "", "true"}).error == "--launch-agent needs a command");

  const std::string usage = usage_text("mpirun");
  for (const char* opt : {"--host", "--hostfile", "--map-by", "-N, --npernode", "--rankfile", "--oversubscribe",
                          "--nooversubscribe", "--launch-agent", "--prefix", "--path"})
    CHECK(usage.find(opt) != std::string::npos);
}

TEST_CASE("--path: directories searched for the programs before PATH", "[launcher]") {
  Env env;
  // A directory holding an executable named "true", which PATH has too.
  TempFile dir("");
  std::filesystem::remove(dir.path());
  std::filesystem::create_directory(dir.path());
  const std::string prog = dir.path() + "/true";
  std::ofstream(prog) << "#!/bin/sh\n";
  std::filesystem::permissions(prog, std::filesystem::perms::owner_all);
  ParseResult p = parse({"--path", "/nonexistent:" + dir.path(), "true"});
  REQUIRE(p.kind == ParseResult::Run);
  CHECK(p.opts.apps[0].program_path == prog);
  CHECK(parse({"true"}).opts.apps[0].program_path != prog);  // without --path: PATH's
  // MPMD: it holds for the programs after it; -path is MPICH's spelling.
  p = parse({"-n", "1", "true", ":", "-path", dir.path(), "-n", "1", "true"});
  REQUIRE(p.kind == ParseResult::Run);
  CHECK(p.opts.apps[0].program_path != prog);
  CHECK(p.opts.apps[1].program_path == prog);
  // Relative entries are made absolute, so --wdir cannot change them.
  p = parse({"--path", "rel/bin", "true"});
  REQUIRE(p.kind == ParseResult::Run);
  CHECK(p.opts.path == (std::filesystem::current_path() / "rel/bin").string());
  CHECK(parse({"--path", dir.path(), "no-such-program-anywhere"}).error ==
        "program 'no-such-program-anywhere' not found in --path " + dir.path() + " nor in PATH");
  CHECK(parse({"--path"}).error == "--path needs a list of directories");
  std::filesystem::remove_all(dir.path());
}

namespace {
cpu_set_t cpus(std::initializer_list<int> list) {
  cpu_set_t s;
  CPU_ZERO(&s);
  for (int c : list) CPU_SET(c, &s);
  return s;
}
// Two packages of two cores, a CPU each: cores 0, 1 on package 0, cores 2, 3 on 1.
BindPlan two_packages() {
  BindPlan plan;
  plan.packages = 2;
  plan.numas = 2;
  for (int c = 0; c < 4; ++c) {
    BindPlan::Core core;
    core.cpus = cpus({c});
    core.package = c / 2;
    core.package_cpus = c < 2 ? cpus({0, 1}) : cpus({2, 3});
    core.numa_cpus = core.package_cpus;
    core.numa = core.package;
    plan.cores.push_back(core);
  }
  return plan;
}
}  // namespace

TEST_CASE("--map-by package|numa: one rank per unit in turn; ppr:N: N per unit in turn", "[launcher]") {
  const BindPlan plan = two_packages();  // cores 0, 1 on package 0; 2, 3 on package 1
  auto core_of = [&](MapBy by, int ppr, int local_rank) {
    const cpu_set_t s = bind_cpus(plan, Binding::Core, by, ppr, local_rank);
    for (int c = 0; c < 4; ++c)
      if (CPU_ISSET(c, &s)) return c;
    return -1;
  };
  // Open MPI's --map-by package: packages in turn, then the next core of each.
  for (MapBy by : {MapBy::Package, MapBy::Numa}) {
    CHECK(core_of(by, 0, 0) == 0);
    CHECK(core_of(by, 0, 1) == 2);
    CHECK(core_of(by, 0, 2) == 1);
    CHECK(core_of(by, 0, 3) == 3);
    CHECK(core_of(by, 0, 4) == 0);  // more ranks than cores: round again
  }
  // ppr:2:package: two ranks on package 0, then two on package 1.
  CHECK(core_of(MapBy::Package, 2, 0) == 0);
  CHECK(core_of(MapBy::Package, 2, 1) == 1);
  CHECK(core_of(MapBy::Package, 2, 2) == 2);
  CHECK(core_of(MapBy::Package, 2, 3) == 3);
  // By slot: core i.
  for (int r = 0; r < 4; ++r) CHECK(core_of(MapBy::Slot, 0, r) == r);
  // Bound to the package: the unit of the rank's turn.
  const cpu_set_t pkg = bind_cpus(plan, Binding::Package, MapBy::Package, 0, 1);
  CHECK(CPU_EQUAL(&pkg, &plan.cores[2].package_cpus));
}

TEST_CASE("--bind-to auto: a free core each for 2 ranks, the package for more, none when they do not fit",
          "[launcher]") {
  const BindPlan plan = two_packages();
  const cpu_set_t all = cpus({0, 1, 2, 3}), nothing = cpus({});

  AutoBinding a = auto_binding(plan, 2, all, nothing);
  CHECK(a.bind == Binding::Core);
  REQUIRE(a.cpus.size() == 2);
  CHECK(CPU_EQUAL(&a.cpus[0], &plan.cores[0].cpus));
  CHECK(CPU_EQUAL(&a.cpus[1], &plan.cores[1].cpus));
  cpu_set_t want = cpus({0, 1});
  CHECK(CPU_EQUAL(&a.claim, &want));

  // Cores another job holds are skipped; the next free ones are taken.
  a = auto_binding(plan, 2, all, cpus({0, 1}));
  CHECK(a.bind == Binding::Core);
  REQUIRE(a.cpus.size() == 2);
  want = cpus({2, 3});
  CHECK(CPU_EQUAL(&a.claim, &want));

  // More than two ranks: each on the free CPUs of its core's package.
  a = auto_binding(plan, 3, all, nothing);
  CHECK(a.bind == Binding::Package);
  REQUIRE(a.cpus.size() == 3);
  want = cpus({0, 1});
  CHECK(CPU_EQUAL(&a.cpus[0], &want));
  CHECK(CPU_EQUAL(&a.cpus[1], &want));
  want = cpus({2, 3});
  CHECK(CPU_EQUAL(&a.cpus[2], &want));
  want = cpus({0, 1, 2});
  CHECK(CPU_EQUAL(&a.claim, &want));
  a = auto_binding(plan, 3, all, cpus({0}));  // package 0 keeps out the held CPU
  REQUIRE(a.cpus.size() == 3);
  want = cpus({1});
  CHECK(CPU_EQUAL(&a.cpus[0], &want));

  // Only the launcher's own CPUs count: under a mask of cores 2-3, two fit, three do not.
  a = auto_binding(plan, 2, cpus({2, 3}), nothing);
  REQUIRE(a.cpus.size() == 2);
  CHECK(CPU_EQUAL(&a.cpus[0], &plan.cores[2].cpus));
  a = auto_binding(plan, 3, cpus({2, 3}), nothing);
  CHECK(a.bind == Binding::None);
  CHECK(a.cpus.empty());
  CHECK(CPU_COUNT(&a.claim) == 0);
  CHECK(a.why == "3 ranks on 2 cores this launcher may use: oversubscribed, not bound");

  // Fewer free cores than ranks: nothing bound, nothing claimed, the holders named.
  a = auto_binding(plan, 2, all, cpus({0, 1, 2}));
  CHECK(a.bind == Binding::None);
  CHECK(CPU_COUNT(&a.claim) == 0);
  CHECK(a.why == "2 ranks, 1 of the 4 usable cores free (other Chorus jobs on this host hold cpus 0-2): not bound");
  CHECK(auto_binding(plan, 0, all, nothing).cpus.empty());
}

TEST_CASE("cpu claims: the list cpu_list writes reads back; anything else is no list", "[launcher]") {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : {0, 1, 2, 3, 8}) CPU_SET(c, &set);
  CHECK(cpu_list(set) == "0-3,8");
  auto back = parse_cpu_list(cpu_list(set));
  REQUIRE(back);
  CHECK(CPU_EQUAL(&*back, &set));
  CHECK(!parse_cpu_list(""));
  CHECK(!parse_cpu_list("none"));
  CHECK(!parse_cpu_list("0-"));  // hwloc: an infinite set
  CHECK(!parse_cpu_list("x,1"));
  CHECK(!parse_cpu_list("0x10"));         // no hex
  CHECK(!parse_cpu_list("8x"));           // no trailing junk
  CHECK(!parse_cpu_list("0-2000000000")); // no huge range
  CHECK(!parse_cpu_list("010"));          // octal to hwloc
  auto ten = parse_cpu_list("0,10");
  REQUIRE(ten);
  CHECK((CPU_COUNT(&*ten) == 2 && CPU_ISSET(0, &*ten) && CPU_ISSET(10, &*ten)));
}
