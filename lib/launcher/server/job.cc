#include "launcher/server/job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/params.h"

namespace chorus::launcher {
namespace {

// The ceiling on -n: far beyond one node, low enough that a typo fails fast.
constexpr long kMaxRanks = 1 << 20;

bool parse_positive_int(std::string_view s, long& out) {
  if (s.empty()) return false;
  long v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return false;
  out = v;
  return true;
}

bool parse_seconds(std::string_view s, double& out) {
  std::string tmp(s);
  if (tmp.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double v = std::strtod(tmp.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v) || v < 0) return false;
  out = v;
  return true;
}

// `path` made absolute against the current directory (as given when that fails).
std::string absolute(const std::string& path) {
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  return ec ? path : abs.string();
}

bool is_executable_file(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string usage_text(std::string_view prog) {
  return fmt::format(
      "usage: {0} [options] [-n N] program [args...] [: [-n N] program [args...]]...\n"
      "\n"
      "Starts N ranks of `program` on this node and serves them PMIx. Several programs\n"
      "separated by ':' (MPMD) share one MPI_COMM_WORLD, in order; MPI_APPNUM numbers them.\n"
      "\n"
      "options:\n"
      "  -n, -np, --n, --np, -c N  number of ranks of the program that follows (default 1; inside a\n"
      "                            Slurm or PBS allocation of this node, the allocation's tasks)\n"
      "  -x NAME[=VALUE]           export NAME to the ranks (its current value, or VALUE)\n"
      "  --bind-to none|core       bind rank i to core i mod ncores (default: CHORUS_BIND_TO, none)\n"
      "  --tag-output              prefix every output line with [rank]\n"
      "  --timeout SEC             end the job after SEC seconds, exit 124 (default: CHORUS_TIMEOUT)\n"
      "  --hang-timeout SEC        hang doctor: when a rank waits SEC seconds in one MPI call, print\n"
      "                            where every rank is (one table, deadlocks and missing ranks named)\n"
      "                            and end the job, exit 124 (default: CHORUS_HANG_TIMEOUT)\n"
      "  -genv NAME VALUE          export NAME=VALUE to the ranks (MPICH's spelling)\n"
      "  --wdir, -wd, -wdir DIR    the ranks' working directory\n"
      "  --output-filename DIR     each rank's output into DIR/1/rank.N/stdout and stderr\n"
      "  --timestamp-output        prefix every output line with the time it arrived\n"
      "  --merge-stderr-to-stdout  the ranks' stderr goes where their stdout goes\n"
      "  --display-map             print where each rank runs (rank, host, local rank, binding)\n"
      "  --report-bindings         print each rank's CPU binding as it starts\n"
      "  --oversubscribe           accepted; more ranks than cores is always allowed\n"
      "  --allow-run-as-root       accepted for Open MPI habits; no effect\n"
      "  --mca NAME VALUE          accepted with a warning: Open MPI's parameters do not apply\n"
      "  -h, --help                show this text\n"
      "  --version                 show the version\n"
      "\n"
      "Rank 0 reads the launcher's stdin (a terminal too, while mpirun is in its foreground);\n"
      "other ranks read /dev/null.\n"
      "Exit status: 0 when every rank exits 0; else the first failing rank's exit status,\n"
      "128+signal, or its MPI_Abort errorcode; 1 when a rank that called MPI_Init exits\n"
      "without MPI_Finalize; 124 on --timeout; 2 on a bad command line.\n"
      "Signals: SIGINT, SIGTERM and SIGHUP are passed to the ranks and end the job;\n"
      "SIGUSR1 and SIGUSR2 are passed to every rank and the job goes on; SIGQUIT prints the\n"
      "hang doctor's table (as --timeout does before it ends the job) and the job goes on.\n"
      "Environment: CHORUS_KILL_GRACE (seconds from SIGTERM to SIGKILL), CHORUS_TMPDIR,\n"
      "CHORUS_DEBUG=INFO with CHORUS_DEBUG_SUBSYS=LAUNCH to trace the launch.\n",
      prog);
}

std::optional<std::string> resolve_program(const std::string& name, std::string& why) {
  if (name.empty()) {
    why = "empty program name";
    return std::nullopt;
  }
  if (name.find('/') != std::string::npos) {
    struct stat st;
    if (::stat(name.c_str(), &st) != 0) {
      why = fmt::format("program '{}' not found", name);
      return std::nullopt;
    }
    if (!S_ISREG(st.st_mode) || ::access(name.c_str(), X_OK) != 0) {
      why = fmt::format("program '{}' is not executable", name);
      return std::nullopt;
    }
    return name;
  }
  const char* path_env = std::getenv("PATH");
  std::string_view path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  bool found_non_exec = false;
  while (true) {
    size_t colon = path.find(':');
    std::string_view dir = path.substr(0, colon);
    // An empty PATH entry means the current directory, as for execvp.
    std::string cand = dir.empty() ? name : fmt::format("{}/{}", dir, name);
    if (is_executable_file(cand)) return cand;
    if (::access(cand.c_str(), F_OK) == 0) found_non_exec = true;
    if (colon == std::string_view::npos) break;
    path.remove_prefix(colon + 1);
  }
  why = found_non_exec ? fmt::format("program '{}' is not executable", name)
                       : fmt::format("program '{}' not found in PATH", name);
  return std::nullopt;
}

ParseResult parse_cmdline(int argc, char** argv) {
  ParseResult r;
  Options& o = r.opts;
  o.apps.emplace_back();
  o.bind = param::BindTo() == 1 ? Binding::Core : Binding::None;
  o.timeout_s = param::JobTimeout();
  o.hang_timeout_s = param::HangTimeout();
  auto fail = [&](std::string msg) {
    r.kind = ParseResult::Error;
    r.error = std::move(msg);
    return r;
  };

  int i = 1;
  while (true) {  // once per program (MPMD: separated by ':')
    for (; i < argc; ++i) {
      std::string_view arg = argv[i];
      if (arg == "--") {
        ++i;
        break;
      }
      if (arg == ":") return fail("':' with no program before it");
      if (arg.empty() || arg[0] != '-') break;  // the program

      // Long options also take "--name=value".
      std::string_view name = arg;
      std::optional<std::string_view> inline_val;
      if (arg.starts_with("--")) {
        if (size_t eq = arg.find('='); eq != std::string_view::npos) {
          name = arg.substr(0, eq);
          inline_val = arg.substr(eq + 1);
        }
      }
      auto value = [&]() -> std::optional<std::string_view> {
        if (inline_val) return inline_val;
        if (i + 1 >= argc) return std::nullopt;
        return std::string_view(argv[++i]);
      };
      auto takes_no_value = [&]() { return !inline_val; };

      if (name == "-h" || name == "--help") {
        r.kind = ParseResult::Help;
        return r;
      } else if (name == "--version" || name == "-V") {
        r.kind = ParseResult::Version;
        return r;
      } else if (name == "-n" || name == "-np" || name == "--n" || name == "--np" || name == "-c") {
        auto v = value();
        if (!v) return fail(fmt::format("{} needs a number of ranks", name));
        long n = 0;
        if (!parse_positive_int(*v, n) || n < 1)
          return fail(fmt::format("{} {}: the number of ranks must be a positive integer", name, *v));
        if (n > kMaxRanks) return fail(fmt::format("{} {}: at most {} ranks", name, *v, kMaxRanks));
        o.apps.back().nprocs = static_cast<int>(n);
        o.apps.back().nprocs_given = true;
      } else if (name == "-x") {
        auto v = value();
        if (!v) return fail("-x needs NAME or NAME=VALUE");
        size_t eq = v->find('=');
        std::string var(v->substr(0, eq));
        if (var.empty()) return fail(fmt::format("-x {}: empty variable name", *v));
        if (eq != std::string_view::npos) {
          o.exports.emplace_back(var, std::string(v->substr(eq + 1)));
        } else if (const char* cur = std::getenv(var.c_str())) {
          o.exports.emplace_back(var, cur);
        }
        // An unset NAME exports nothing, as with Open MPI.
      } else if (name == "--bind-to") {
        auto v = value();
        if (!v) return fail("--bind-to needs none or core");
        if (*v == "none") o.bind = Binding::None;
        else if (*v == "core") o.bind = Binding::Core;
        else return fail(fmt::format("--bind-to {}: expected none or core", *v));
      } else if (name == "--timeout" || name == "--hang-timeout") {
        auto v = value();
        double s = 0;
        if (!v || !parse_seconds(*v, s))
          return fail(fmt::format("{} {}: expected a number of seconds", name,
                                  v ? *v : std::string_view("(missing)")));
        (name == "--timeout" ? o.timeout_s : o.hang_timeout_s) = s;
      } else if (name == "--tag-output" && takes_no_value()) {
        o.tag_output = true;
      } else if (name == "-genv") {
        if (i + 2 >= argc) return fail("-genv needs NAME and VALUE");
        std::string var = argv[++i];
        if (var.empty() || var.find('=') != std::string::npos)
          return fail(fmt::format("-genv {}: expected a variable name", var));
        o.exports.emplace_back(var, argv[++i]);
      } else if (name == "--wdir" || name == "-wd" || name == "-wdir") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a directory", name));
        std::string dir = absolute(std::string(*v));
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) return fail(fmt::format("{} {}: no such directory", name, *v));
        o.wdir = dir;
      } else if (name == "--output-filename") {
        auto v = value();
        if (!v || v->empty()) return fail("--output-filename needs a directory");
        o.output_dir = absolute(std::string(*v));
      } else if (name == "--timestamp-output" && takes_no_value()) {
        o.timestamp_output = true;
      } else if (name == "--merge-stderr-to-stdout" && takes_no_value()) {
        o.merge_stderr = true;
      } else if (name == "--display-map" && takes_no_value()) {
        o.display_map = true;
      } else if (name == "--report-bindings" && takes_no_value()) {
        o.report_bindings = true;
      } else if (name == "--mca" || name == "-mca") {
        if (i + 2 >= argc) return fail(fmt::format("{} needs NAME and VALUE", name));
        const char* key = argv[i + 1];
        const char* val = argv[i + 2];
        i += 2;
        std::fprintf(stderr,
                     "mpirun: WARN --mca %s %s ignored: MCA parameters are Open MPI's; Chorus's tunables are "
                     "CHORUS_* variables (chorus-info --params)\n",
                     key, val);
      } else if ((name == "--oversubscribe" || name == "--allow-run-as-root") && takes_no_value()) {
        // Accepted for compatibility: ranks may always outnumber cores, and root may launch.
      } else {
        return fail(fmt::format("unknown option '{}'", arg));
      }
    }

    if (i >= argc) return fail(o.apps.size() > 1 ? "no program after ':'" : "no program given");
    App& app = o.apps.back();
    // The program and its arguments, up to a lone ':' that starts the next one.
    for (; i < argc && std::string_view(argv[i]) != ":"; ++i) app.argv.emplace_back(argv[i]);
    std::string why;
    auto path = resolve_program(app.argv[0], why);
    if (!path) return fail(why);
    // Absolute, so --wdir cannot change what a relative path names.
    app.program_path = absolute(*path);
    if (i >= argc) break;
    ++i;
    o.apps.emplace_back();
  }
  if (o.apps.size() == 1 && !o.apps[0].nprocs_given) {
    // Inside a batch allocation, -n defaults to what it offers (as with Open MPI).
    std::string why;
    const int slots = allocation_slots(why);
    if (!why.empty()) return fail(why);
    if (slots > 0) o.apps[0].nprocs = slots;
  }
  if (o.nprocs() > kMaxRanks) return fail(fmt::format("{} ranks in all: at most {}", o.nprocs(), kMaxRanks));
  r.kind = ParseResult::Run;
  return r;
}

std::vector<int> parse_slurm_tasks_per_node(std::string_view s) {
  std::vector<int> out;
  while (!s.empty()) {
    const std::size_t comma = s.find(',');
    std::string_view item = s.substr(0, comma);
    s = comma == std::string_view::npos ? std::string_view() : s.substr(comma + 1);
    long count = 0, times = 1;
    const std::size_t paren = item.find('(');
    if (!parse_positive_int(item.substr(0, paren), count) || count < 1 || count > kMaxRanks) return {};
    if (paren != std::string_view::npos) {
      std::string_view rep = item.substr(paren);
      if (rep.size() < 4 || rep.substr(0, 2) != "(x" || rep.back() != ')' ||
          !parse_positive_int(rep.substr(2, rep.size() - 3), times) || times < 1 || times > kMaxRanks)
        return {};
    }
    for (long k = 0; k < times; ++k) out.push_back(static_cast<int>(count));
    if (comma != std::string_view::npos && s.empty()) return {};  // a trailing comma
  }
  return out;
}

int allocation_slots(std::string& err) {
  err.clear();
  if (const char* job = std::getenv("SLURM_JOB_ID"); job && *job) {
    const char* nodes = std::getenv("SLURM_JOB_NUM_NODES") ? std::getenv("SLURM_JOB_NUM_NODES") : std::getenv("SLURM_NNODES");
    long n = 1;
    if (nodes && parse_positive_int(nodes, n) && n > 1) {
      err = fmt::format("Slurm allocation {} has {} nodes, and this mpirun starts ranks on its own node only: "
                        "start the job with srun --mpi=pmix, or give -n for this node", job, n);
      return 0;
    }
    long tasks = 0;
    if (const char* t = std::getenv("SLURM_NTASKS"); t && parse_positive_int(t, tasks) && tasks > 0)
      return static_cast<int>(std::min(tasks, kMaxRanks));
    if (const char* t = std::getenv("SLURM_TASKS_PER_NODE")) {
      auto per = parse_slurm_tasks_per_node(t);
      if (!per.empty()) return per[0];
    }
    return 0;
  }
  if (const char* file = std::getenv("PBS_NODEFILE"); file && *file) {
    // One line per slot, the host's name on each.
    FILE* f = std::fopen(file, "r");
    if (!f) {
      err = fmt::format("PBS_NODEFILE {}: {}", file, std::strerror(errno));
      return 0;
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string_view me(host, std::strcspn(host, "."));
    int mine = 0;
    std::vector<std::string> others;
    char line[1024];
    while (std::fgets(line, sizeof line, f)) {
      std::string_view l(line, std::strcspn(line, "\r\n"));
      if (l.empty()) continue;
      if (l.substr(0, l.find('.')) == me) ++mine;
      else if (std::find(others.begin(), others.end(), l) == others.end()) others.emplace_back(l);
    }
    std::fclose(f);
    if (!others.empty()) {
      err = fmt::format("the PBS allocation also has {} (and {} other host(s)), and this mpirun starts ranks on its "
                        "own node only: give -n for this node", others[0], others.size() - 1);
      return 0;
    }
    return mine;
  }
  return 0;
}

Job plan_local_job(Options opts, const std::string& hostname, const std::string& nspace) {
  Job job;
  job.nspace = nspace;
  job.nodes.push_back(Node{hostname, {}});
  job.this_node = 0;
  int r = 0;
  for (int a = 0; a < static_cast<int>(opts.apps.size()); ++a) {
    for (int k = 0; k < opts.apps[static_cast<std::size_t>(a)].nprocs; ++k, ++r) {
      Node& node = job.nodes[0];
      int local = static_cast<int>(node.ranks.size());
      node.ranks.push_back(r);
      job.slots.push_back(RankSlot{r, a, k, 0, local, local});
    }
  }
  job.opts = std::move(opts);
  return job;
}

}  // namespace chorus::launcher
