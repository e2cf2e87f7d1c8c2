#include "launcher/server/job.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "core/params.h"
#include "launcher/server/procs.h"

namespace chorus::launcher {
namespace {

// The ceiling on -n: far beyond one node, low enough that a typo fails fast.
constexpr long kMaxRanks = 1 << 20;


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

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// --map-by VALUE: slot, node, package, numa or ppr:N:node|package|numa (Open MPI's
// socket is package), any case, then :OVERSUBSCRIBE or :NOOVERSUBSCRIBE.
bool parse_map_by(std::string_view value, Options& o, std::string& why) {
  std::vector<std::string> parts;
  for (std::string_view v = value;;) {
    const std::size_t colon = v.find(':');
    parts.push_back(lower(v.substr(0, colon)));
    if (colon == std::string_view::npos) break;
    v.remove_prefix(colon + 1);
  }
  auto unit = [](const std::string& u, MapBy& by) {
    if (u == "node") by = MapBy::Node;
    else if (u == "package" || u == "socket") by = MapBy::Package;
    else if (u == "numa") by = MapBy::Numa;
    else return false;
    return true;
  };
  MapBy by = MapBy::Slot;
  int ppr = 0;
  std::size_t mods = 1;  // where the modifiers start
  if (parts[0] == "ppr") {
    long n = 0;
    if (parts.size() < 3 || !parse_count(parts[1], n) || n < 1 || n > kMaxRanks || !unit(parts[2], by)) {
      why = "ppr needs a count and a unit: ppr:N:node, ppr:N:package or ppr:N:numa";
      return false;
    }
    ppr = static_cast<int>(n);
    mods = 3;
  } else if (parts[0] != "slot" && !unit(parts[0], by)) {
    why = "expected slot, node, package, numa or ppr:N:node|package|numa";
    return false;
  }
  bool over = o.oversubscribe;
  for (std::size_t k = mods; k < parts.size(); ++k) {
    if (parts[k] == "oversubscribe") over = true;
    else if (parts[k] == "nooversubscribe") over = false;
    else {
      why = "unknown modifier (known: OVERSUBSCRIBE, NOOVERSUBSCRIBE)";
      return false;
    }
  }
  o.map_by = by;
  o.ppr = ppr;
  o.oversubscribe = over;
  return true;
}

}  // namespace

std::string usage_text(std::string_view prog) {
  return fmt::format(
      "usage: {0} [options] [-n N] program [args...] [: [-n N] program [args...]]...\n"
      "\n"
      "Starts N ranks of `program` on this node, or on the hosts of --host, --hostfile or the\n"
      "Slurm or PBS allocation it runs in, and serves them PMIx. Several programs separated by\n"
      "':' (MPMD) share one MPI_COMM_WORLD, in order; MPI_APPNUM numbers them.\n"
      "\n"
      "options:\n"
      "  -n, -np, --n, --np, -c N  number of ranks of the program that follows (default 1; with\n"
      "                            hosts, their slots in all, or what -N or --rankfile places)\n"
      "  -H, --host, -hosts LIST   hosts to run on: a:4,b:4 (4 slots each) or a,a,b (a slot a mention)\n"
      "  --hostfile, -f FILE       hosts from FILE: 'host slots=N max_slots=M' or 'host:N' lines\n"
      "                            (also --machinefile; default CHORUS_HOSTFILE, else the Slurm\n"
      "                            or PBS allocation's nodes; with --host: its hosts, FILE's slots)\n"
      "  --map-by POLICY           slot: fill each host's slots, then the next (default); node: one\n"
      "                            rank per host in turn; ppr:N:node|package|numa: N ranks per node,\n"
      "                            package or NUMA node (each host counted as this one); package,\n"
      "                            numa: hosts filled as slot, each host's ranks one per package\n"
      "                            (NUMA node) in turn, bound to it unless --bind-to says otherwise\n"
      "  -N, --npernode, -ppn N    N ranks per host (--map-by ppr:N:node)\n"
      "  --rankfile FILE           each rank's host from 'rank N=host slot=S' lines of FILE\n"
      "  --oversubscribe           let hosts take more ranks than slots (never beyond max_slots)\n"
      "  --nooversubscribe         refuse more ranks than slots (the default when hosts are given;\n"
      "                            without hosts, ranks may always outnumber cores)\n"
      "  --launch-agent CMD        the command that starts chorusd on other hosts, the host and the\n"
      "                            command appended (a %h in CMD is the host instead; also\n"
      "                            -launcher-exec; default CHORUS_LAUNCH_AGENT: ssh -o BatchMode=yes)\n"
      "  --prefix DIR              Chorus's installation directory on the other hosts\n"
      "  --path, -path DIRS        look for the programs that follow in DIRS (':' between them)\n"
      "                            before PATH\n"
      "  -x NAME[=VALUE]           export NAME to the ranks (its current value, or VALUE)\n"
      "  --bind-to none|core|package|numa|auto\n"
      "                            bind each rank to its core (local rank i: core i mod ncores; with\n"
      "                            --map-by ppr:N:package|numa, the cores of its unit), or to the\n"
      "                            package or NUMA node holding it; auto (default: CHORUS_BIND_TO):\n"
      "                            ranks that fit on cores of their own, free of other Chorus jobs\n"
      "                            on the host, get one each (2 or fewer per host: bound to it; more:\n"
      "                            to its package), else none\n"
      "  --tag-output              prefix every output line with [rank]\n"
      "  --doctor [--quick ...]    (first) check the hosts instead of running a program: chorus-doctor\n"
      "                            over the host list or allocation (see chorus-doctor --help)\n"
      "  --timeout SEC             end the job after SEC seconds, exit 124 (default: CHORUS_TIMEOUT,\n"
      "                            else MPIEXEC_TIMEOUT as Open MPI and MPICH read it)\n"
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

std::optional<std::string> resolve_program(const std::string& name, std::string& why, std::string_view first) {
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
  const std::string dirs =
      first.empty() ? std::string(path_env ? path_env : "/usr/local/bin:/usr/bin:/bin")
                    : fmt::format("{}:{}", first, path_env ? path_env : "/usr/local/bin:/usr/bin:/bin");
  std::string_view path = dirs;
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
        : first.empty() ? fmt::format("program '{}' not found in PATH", name)
                        : fmt::format("program '{}' not found in --path {} nor in PATH", name, first);
  return std::nullopt;
}

ParseResult parse_cmdline(int argc, char** argv) {
  ParseResult r;
  Options& o = r.opts;
  o.apps.emplace_back();
  o.bind = static_cast<Binding>(param::BindTo());
  o.timeout_s = param::JobTimeout();
  o.hang_timeout_s = param::HangTimeout();
  // Empty unless given: the launcher then picks srun inside a Slurm allocation,
  // else CHORUS_LAUNCH_AGENT's default.
  if (params::value(params::Id::LaunchAgent).from_env) o.launch_agent = param::LaunchAgent();
  auto fail = [&](std::string msg) {
    r.kind = ParseResult::Error;
    r.error = std::move(msg);
    return r;
  };
  // Errors in files, allocations and placement: the command line itself is fine.
  auto fail_plain = [&](std::string msg) {
    r.syntax = false;
    return fail(std::move(msg));
  };
  // Open MPI's and MPICH's launchers take the job's time limit from
  // MPIEXEC_TIMEOUT (seconds): so do we, below CHORUS_TIMEOUT and --timeout.
  if (const char* mt = std::getenv("MPIEXEC_TIMEOUT");
      mt && *mt && !params::value(params::Id::JobTimeout).from_env) {
    double sec = 0;
    if (!parse_seconds(mt, sec)) return fail_plain(fmt::format("MPIEXEC_TIMEOUT={}: expected a number of seconds", mt));
    o.timeout_s = sec;
  }
  std::vector<HostSpec> host_list;  // --host lists, merged
  std::string host_opt;             // the first --host's spelling, for messages
  std::string hostfile, hostfile_opt;
  std::string map_opt;              // the option that chose the mapping, if any

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
        if (!parse_count(*v, n) || n < 1)
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
      } else if (name == "--doctor") {
        return fail("--doctor must be mpirun's first argument: mpirun --doctor [--quick] [host options]");
      } else if (name == "--bind-to") {
        auto v = value();
        if (!v) return fail("--bind-to needs none, core, package, numa or auto");
        if (*v == "none") o.bind = Binding::None;
        else if (*v == "core") o.bind = Binding::Core;
        else if (*v == "package" || *v == "socket") o.bind = Binding::Package;
        else if (*v == "numa") o.bind = Binding::Numa;
        else if (*v == "auto") o.bind = Binding::Auto;
        else return fail(fmt::format("--bind-to {}: expected none, core, package (socket), numa or auto", *v));
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
      } else if (name == "--host" || name == "-H" || name == "-host" || name == "-hosts" || name == "--hosts") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a host list (a:4,b:4 or a,b)", name));
        std::string why;
        auto more = parse_host_list(*v, name, why);
        if (!why.empty()) return fail(why);
        for (const HostSpec& h : more) add_host(host_list, h);
        if (host_opt.empty()) host_opt = name;
      } else if (name == "--hostfile" || name == "--machinefile" || name == "-hostfile" || name == "-machinefile" ||
                 name == "-f") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a file", name));
        hostfile = std::string(*v);
        hostfile_opt = name;
      } else if (name == "--map-by" || name == "-map-by") {
        auto v = value();
        if (!v) return fail(fmt::format("{} needs a policy (slot, node, ppr:N:node, ...)", name));
        std::string why;
        if (!parse_map_by(*v, o, why)) return fail(fmt::format("{} {}: {}", name, *v, why));
        map_opt = fmt::format("{} {}", name, *v);
      } else if (name == "-N" || name == "--npernode" || name == "-npernode" || name == "-ppn" || name == "--ppn") {
        auto v = value();
        if (!v) return fail(fmt::format("{} needs a number of ranks per host", name));
        long n = 0;
        if (!parse_count(*v, n) || n < 1 || n > kMaxRanks)
          return fail(fmt::format("{} {}: the ranks per host must be a positive integer", name, *v));
        o.map_by = MapBy::Node;
        o.ppr = static_cast<int>(n);
        map_opt = fmt::format("{} {}", name, *v);
      } else if (name == "--rankfile" || name == "-rankfile" || name == "-rf") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a file", name));
        o.rankfile = absolute(std::string(*v));
      } else if (name == "--oversubscribe" && takes_no_value()) {
        o.oversubscribe = true;
      } else if (name == "--nooversubscribe" && takes_no_value()) {
        o.oversubscribe = false;
      } else if (name == "--launch-agent" || name == "-launch-agent" || name == "-launcher-exec" ||
                 name == "--launcher-exec") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a command", name));
        o.launch_agent = std::string(*v);
      } else if (name == "--prefix" || name == "-prefix") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a directory", name));
        o.prefix = absolute(std::string(*v));
      } else if (name == "--path" || name == "-path") {
        auto v = value();
        if (!v || v->empty()) return fail(fmt::format("{} needs a list of directories", name));
        // Absolute, so that --wdir cannot change what a relative entry names.
        std::string dirs;
        for (std::string_view rest = *v; !rest.empty();) {
          const std::size_t colon = rest.find(':');
          const std::string_view dir = rest.substr(0, colon);
          if (!dir.empty()) dirs += fmt::format("{}{}", dirs.empty() ? "" : ":", absolute(std::string(dir)));
          rest = colon == std::string_view::npos ? std::string_view{} : rest.substr(colon + 1);
        }
        o.path = dirs;
      } else if (name == "--allow-run-as-root" && takes_no_value()) {
        // Accepted for compatibility: root may launch.
      } else {
        return fail(fmt::format("unknown option '{}'", arg));
      }
    }

    if (i >= argc) return fail(o.apps.size() > 1 ? "no program after ':'" : "no program given");
    App& app = o.apps.back();
    // The program and its arguments, up to a lone ':' that starts the next one.
    for (; i < argc && std::string_view(argv[i]) != ":"; ++i) app.argv.emplace_back(argv[i]);
    std::string why;
    auto path = resolve_program(app.argv[0], why, o.path);
    if (!path) return fail(why);
    // Absolute, so --wdir cannot change what a relative path names.
    app.program_path = absolute(*path);
    if (i >= argc) break;
    ++i;
    o.apps.emplace_back();
  }
  if (!o.rankfile.empty() && !map_opt.empty())
    return fail(fmt::format("--rankfile and {} both place the ranks: give one", map_opt));

  // Where ranks may run: --host and --hostfile, else the batch allocation.
  if (hostfile.empty() && !param::Hostfile().empty()) {
    hostfile = param::Hostfile();
    hostfile_opt = "CHORUS_HOSTFILE";
  }
  if (!hostfile.empty()) {
    std::string text, why;
    if (!read_text_file(hostfile, text, why)) return fail_plain(fmt::format("{} {}", hostfile_opt, why));
    std::vector<HostSpec> in_file = parse_hostfile(text, hostfile, why);
    if (!why.empty()) return fail_plain(fmt::format("{} {}", hostfile_opt, why));
    if (host_list.empty()) {
      o.hosts = std::move(in_file);
      o.hosts_from = fmt::format("{} {}", hostfile_opt, hostfile);
    } else {
      // Open MPI's rule: --host picks hosts of the file, with the file's slots
      // unless it gives a count.
      for (const HostSpec& h : host_list) {
        auto it = std::find_if(in_file.begin(), in_file.end(),
                               [&](const HostSpec& f) { return same_host(f.name, h.name); });
        if (it == in_file.end())
          return fail_plain(fmt::format("{} {}: not a host of {} {}", host_opt, h.name, hostfile_opt, hostfile));
        HostSpec picked = *it;
        if (h.slots_given) picked.slots = h.slots;
        o.hosts.push_back(picked);
      }
      o.hosts_from = fmt::format("{} of {} {}", host_opt, hostfile_opt, hostfile);
    }
  } else if (!host_list.empty()) {
    o.hosts = std::move(host_list);
    o.hosts_from = host_opt;
  } else {
    std::string why;
    o.hosts = allocation_hosts(o.hosts_from, why);
    if (!why.empty()) return fail_plain(why);
  }
  if (!o.rankfile.empty()) {
    std::string text, why;
    if (!read_text_file(o.rankfile, text, why)) return fail_plain(fmt::format("--rankfile {}", why));
    o.rank_map = parse_rankfile(text, o.rankfile, why);
    if (!why.empty()) return fail_plain(fmt::format("--rankfile {}", why));
  }
  if (o.apps.size() == 1 && !o.apps[0].nprocs_given) {
    // -n defaults to what the placement offers (as with Open MPI): the rankfile's
    // ranks, ppr's ranks on every host, else the hosts' slots (none given: 1).
    long n = 1;
    if (!o.rankfile.empty()) {
      n = static_cast<long>(o.rank_map.size());
    } else if (o.ppr > 0) {
      n = static_cast<long>(o.ppr) * ppr_units(o.map_by) * static_cast<long>(std::max<std::size_t>(1, o.hosts.size()));
    } else if (!o.hosts.empty()) {
      n = 0;
      for (const HostSpec& h : o.hosts) n += h.slots;
    }
    if (n > kMaxRanks)
      return fail_plain(fmt::format("{} ranks by default ({}): at most {}; give -n", n,
                                    o.hosts_from.empty() ? map_opt : o.hosts_from, kMaxRanks));
    o.apps[0].nprocs = static_cast<int>(n);
  }
  if (o.nprocs() > kMaxRanks) return fail(fmt::format("{} ranks in all: at most {}", o.nprocs(), kMaxRanks));
  // Placed once here, so that a placement that cannot be is refused before anything starts.
  std::string why;
  plan_job(o, local_host_names(), "", why);
  if (!why.empty()) return fail_plain(why);
  r.kind = ParseResult::Run;
  return r;
}

int ppr_units(MapBy unit) {
  if (unit != MapBy::Package && unit != MapBy::Numa) return 1;
  // Counted once, as --bind-to counts them (NUMA nodes with CPUs of their own):
  // the topology does not change under us.
  static const std::pair<int, int> counts = [] {
    std::string err;
    const BindPlan plan = bind_plan(err);
    return plan.empty() ? std::pair<int, int>{1, 1} : std::pair<int, int>{plan.packages, plan.numas};
  }();
  return unit == MapBy::Package ? counts.first : counts.second;
}

Job plan_job(Options opts, const std::vector<std::string>& local_names, const std::string& nspace, std::string& err) {
  err.clear();
  const int n = opts.nprocs();
  const std::string here = local_names.empty() ? std::string("localhost") : local_names[0];
  auto failed = [&](std::string msg) {
    err = std::move(msg);
    return Job{};
  };
  // With no host given, this host alone takes every rank: no slot limit.
  std::vector<HostSpec> hosts = opts.hosts;
  const bool limited = !hosts.empty();
  std::vector<int> where(static_cast<std::size_t>(n), -1);  // each rank's index into hosts
  std::vector<std::string> cpu_slots(static_cast<std::size_t>(n));
  std::vector<int> count;  // ranks per host
  std::string policy;      // the placement, for messages

  if (!opts.rankfile.empty()) {
    policy = fmt::format("--rankfile {}", opts.rankfile);
    // With no host given, the rankfile's hosts are the job's (this host's names as one).
    if (!limited)
      for (const RankfileLine& l : opts.rank_map)
        add_host(hosts, HostSpec{is_local_host(l.host, local_names) ? here : l.host, 0, false, 0});
    std::vector<int> seen(static_cast<std::size_t>(n), 0);  // the line of each rank's entry
    for (const RankfileLine& l : opts.rank_map) {
      if (l.rank >= n)
        return failed(fmt::format("{}:{}: rank {}, but the job has {} rank{} (0..{})", opts.rankfile, l.line, l.rank,
                                  n, n == 1 ? "" : "s", n - 1));
      int& first = seen[static_cast<std::size_t>(l.rank)];
      if (first != 0)
        return failed(fmt::format("{}:{}: rank {} again (first at line {})", opts.rankfile, l.line, l.rank, first));
      first = l.line;
      const bool local = is_local_host(l.host, local_names);
      auto it = std::find_if(hosts.begin(), hosts.end(), [&](const HostSpec& h) {
        return same_host(h.name, l.host) || (local && is_local_host(h.name, local_names));
      });
      if (it == hosts.end())
        return failed(fmt::format("{}:{}: host {} is not one of the job's hosts (from {})", opts.rankfile, l.line,
                                  l.host, opts.hosts_from));
      where[static_cast<std::size_t>(l.rank)] = static_cast<int>(it - hosts.begin());
      cpu_slots[static_cast<std::size_t>(l.rank)] = l.cpu_slot;
    }
    for (int r = 0; r < n; ++r)
      if (seen[static_cast<std::size_t>(r)] == 0)
        return failed(fmt::format("{}: no line for rank {} (each rank 0..{} needs one)", opts.rankfile, r, n - 1));
    count.assign(hosts.size(), 0);
    for (int h : where) ++count[static_cast<std::size_t>(h)];
    if (!limited)
      for (std::size_t h = 0; h < hosts.size(); ++h) hosts[h].slots = count[h];
  } else {
    if (!limited) hosts.push_back(HostSpec{here, n, false, 0});
    const std::size_t nh = hosts.size();
    count.assign(nh, 0);
    auto below_max = [&](std::size_t h) { return hosts[h].max_slots == 0 || count[h] < hosts[h].max_slots; };
    // Ranks beyond every host's slots (--oversubscribe): one per host in turn, to
    // hosts below their max_slots (to all when none is: the check below refuses).
    auto deal_rest = [&](int rest, auto&& take) {
      std::size_t open = 0;  // hosts below their max_slots
      for (std::size_t h = 0; h < nh; ++h) open += below_max(h) ? 1 : 0;
      for (std::size_t h = 0; rest > 0; h = (h + 1) % nh) {
        if (open > 0 && !below_max(h)) continue;
        take(h);
        --rest;
        if (open > 0 && !below_max(h)) --open;
      }
    };
    bool consecutive = true;  // each host's ranks follow each other (else `where` is set)
    const char* unit = opts.map_by == MapBy::Package ? "package" : opts.map_by == MapBy::Numa ? "numa" : "node";
    if (opts.ppr > 0) {
      const int units = ppr_units(opts.map_by);
      const int per = opts.ppr * units;
      policy = fmt::format("--map-by ppr:{}:{}", opts.ppr, unit);
      int rest = n;
      for (std::size_t h = 0; h < nh && rest > 0; ++h) rest -= count[h] = std::min(per, rest);
      const std::string here_units = units > 1 ? fmt::format(" ({} {}s on this host)", units, unit) : "";
      if (rest > 0)
        return failed(fmt::format("{} places {} rank{} on each of {} host{}{}, {} in all: fewer than the {} asked",
                                  policy, per, per == 1 ? "" : "s", nh, nh == 1 ? "" : "s", here_units,
                                  static_cast<long>(per) * static_cast<long>(nh), n));
    } else if (opts.map_by == MapBy::Node) {
      policy = "--map-by node";
      consecutive = false;
      // One rank per host in turn, passing hosts whose slots are full.
      int r = 0;
      for (bool any = true; r < n && any;) {
        any = false;
        for (std::size_t h = 0; h < nh && r < n; ++h) {
          if (count[h] >= hosts[h].slots) continue;
          where[static_cast<std::size_t>(r++)] = static_cast<int>(h);
          ++count[h];
          any = true;
        }
      }
      if (r < n && opts.oversubscribe)
        deal_rest(n - r, [&](std::size_t h) {
          where[static_cast<std::size_t>(r++)] = static_cast<int>(h);
          ++count[h];
        });
      for (; r < n; ++r, ++count[nh - 1]) where[static_cast<std::size_t>(r)] = static_cast<int>(nh - 1);  // refused
    } else {
      policy = fmt::format("--map-by {}", opts.map_by == MapBy::Slot ? "slot" : unit);
      int rest = n;
      for (std::size_t h = 0; h < nh; ++h) rest -= count[h] = std::min(hosts[h].slots, rest);
      if (rest > 0 && opts.oversubscribe) deal_rest(rest, [&](std::size_t h) { ++count[h]; });
      else if (rest > 0) count[nh - 1] += rest;  // refused below
    }
    if (consecutive) {
      // Consecutive ranks per host, in host order.
      int r = 0;
      for (std::size_t h = 0; h < nh; ++h)
        for (int k = 0; k < count[h]; ++k) where[static_cast<std::size_t>(r++)] = static_cast<int>(h);
    }
  }

  if (limited) {
    // Open MPI's rule: a host's slots bound its ranks unless --oversubscribe;
    // max_slots bounds them always.
    long total = 0;
    for (const HostSpec& h : hosts) total += h.slots;
    std::string list;
    for (std::size_t h = 0; h < hosts.size() && h < 8; ++h)
      list += fmt::format("{}{}:{}", h ? ", " : "", hosts[h].name, hosts[h].slots);
    if (hosts.size() > 8) list += fmt::format(" and {} more", hosts.size() - 8);
    const std::string desc =
        fmt::format("{} from {}", list, opts.hosts_from.empty() ? "the host list" : opts.hosts_from);
    for (std::size_t h = 0; h < hosts.size(); ++h)
      if (hosts[h].max_slots > 0 && count[h] > hosts[h].max_slots)
        return failed(fmt::format("{} puts {} ranks on {}, whose max_slots is {} ({}): not even --oversubscribe "
                                  "goes beyond max_slots",
                                  policy, count[h], hosts[h].name, hosts[h].max_slots, desc));
    if (!opts.oversubscribe) {
      if (n > total)
        return failed(fmt::format("{} rank{} but {} slot{} ({}): --oversubscribe allows more ranks than slots", n,
                                  n == 1 ? "" : "s", total, total == 1 ? "" : "s", desc));
      for (std::size_t h = 0; h < hosts.size(); ++h)
        if (count[h] > hosts[h].slots)
          return failed(fmt::format("{} puts {} ranks on {}, which has {} slot{} ({}): --oversubscribe allows more "
                                    "ranks than slots",
                                    policy, count[h], hosts[h].name, hosts[h].slots, hosts[h].slots == 1 ? "" : "s",
                                    desc));
    }
  }

  // Nodes: the hosts that get ranks, in host order; ranks on each in rank order.
  Job job;
  job.nspace = nspace;
  std::vector<int> node_of(hosts.size(), -1);
  for (std::size_t h = 0; h < hosts.size(); ++h) {
    if (count[h] == 0) continue;
    node_of[h] = static_cast<int>(job.nodes.size());
    job.nodes.push_back(Node{hosts[h].name, {}, hosts[h].slots});
  }
  job.slots.reserve(static_cast<std::size_t>(n));
  int r = 0;
  for (int a = 0; a < static_cast<int>(opts.apps.size()); ++a) {
    for (int k = 0; k < opts.apps[static_cast<std::size_t>(a)].nprocs; ++k, ++r) {
      const int node = node_of[static_cast<std::size_t>(where[static_cast<std::size_t>(r)])];
      std::vector<int>& ranks = job.nodes[static_cast<std::size_t>(node)].ranks;
      const int local = static_cast<int>(ranks.size());
      ranks.push_back(r);
      job.slots.push_back(RankSlot{r, a, k, node, local, local, std::move(cpu_slots[static_cast<std::size_t>(r)])});
    }
  }
  job.this_node = -1;
  for (std::size_t i = 0; i < job.nodes.size() && job.this_node < 0; ++i)
    if (!limited && opts.rankfile.empty() ? i == 0 : is_local_host(job.nodes[i].hostname, local_names))
      job.this_node = static_cast<int>(i);
  job.opts = std::move(opts);
  return job;
}

Job plan_local_job(Options opts, const std::string& hostname, const std::string& nspace) {
  std::vector<std::string> names{hostname};
  if (hostname.find('.') != std::string::npos) names.push_back(hostname.substr(0, hostname.find('.')));
  names.emplace_back("localhost");
  std::string err;
  return plan_job(std::move(opts), names, nspace, err);
}

}  // namespace chorus::launcher
