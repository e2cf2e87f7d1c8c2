// chorus-doctor: is this cluster (or allocation) fit to run a job, and if not,
// which node or link is wrong. Also `mpirun --doctor`.
//
// Run as a command (`chorus-doctor [--quick] [--json F] [--plot F.png] [mpirun
// host options]`), it starts itself through mpirun with one rank per node
// (--map-by ppr:1:node over the host list or allocation), shows the ranks'
// report as it comes and turns mpirun's failures into findings: a node that
// cannot start a rank is named. Started by a launcher itself (mpirun -n ...,
// srun --mpi=pmix), it is an ordinary MPI job. Either way rank 0 prints a line
// per check as it goes:
//   1. nodes: every node started a rank and answered;
//   2. each node's software and hardware (Chorus, UCX, its transports, hwloc's
//      layout, GPUs and their copy bandwidth), and the node that differs;
//   3. links: latency and bandwidth of every pair of nodes, in rounds of disjoint
//      pairs (n-1 rounds for n nodes, n when n is odd), so O(n) time;
//   4. allreduce at 8 B, 1 MiB, 64 MiB (16 MiB with --quick), checked, next to
//      what the cost model predicts from the links just measured.
// Findings: any failure, a wrong result, a node whose software or hardware
// differs from the others', and a link or node slower than CHORUS_DOCTOR_SLOW x
// the median. Exit status 0 when all is well, 1 with findings, 2 when it could
// not run.
#include <fcntl.h>
#include <limits.h>
#include <mpi.h>
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "chorus_config.h"
#include "coll/select.h"
#include "core/params.h"
#include "gpu/gpu.h"
#include "topo/links.h"
#include "topo/topo.h"
#include "ucx/ucx.h"

namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Opts {
  bool quick = false;
  bool child = false;        // started by the front end: report, do not judge by exit status
  std::string json, plot;
  double slow = 0.5;
  int per_node = 1;
  double timeout = 0;
  std::vector<std::string> mpirun_args;
};

const char* const kUsage =
    "usage: chorus-doctor [--quick] [--json FILE] [--plot FILE.png] [--slow F] [--ranks-per-node N]\n"
    "                     [--timeout SEC] [mpirun options: --host, --hostfile, --launch-agent, -x, ...]\n"
    "Checks every node of the host list or allocation: that it starts a rank and answers, its software\n"
    "and hardware, the latency and bandwidth of every link, and allreduce against the cost model.\n"
    "Names any node or link slower than --slow (CHORUS_DOCTOR_SLOW, 0.5) x the median.\n"
    "Exit status: 0 all is well, 1 findings, 2 could not run. Also: mpirun --doctor ...\n";

// ---------------------------------------------------------------------------
// JSON text (the report is small and flat; strings need escaping only).
std::string jstr(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) o += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
    else o += c;
  }
  return o + "\"";
}
std::string jnum(double v) { return std::isfinite(v) ? fmt::format("{:.6g}", v) : "null"; }

std::string self_dir() {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return ".";
  std::string p(buf, static_cast<std::size_t>(n));
  return p.substr(0, p.rfind('/'));
}

bool under_launcher() {
  for (const char* v : {"PMIX_RANK", "PMI_RANK", "OMPI_COMM_WORLD_RANK"})
    if (std::getenv(v)) return true;
  return false;
}

// Returns 2 after printing why, or 0.
int parse(int argc, char** argv, Opts& o) {
  o.slow = chorus::param::DoctorSlow();
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* what) -> const char* {
      if (i + 1 >= argc) {
        fmt::print(stderr, "chorus-doctor: {} needs a value\n{}", what, kUsage);
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "-h" || a == "--help") {
      fmt::print("{}", kUsage);
      std::exit(0);
    } else if (a == "--quick") {
      o.quick = true;
    } else if (a == "--child") {
      o.child = true;
    } else if (a == "--json" || a == "--plot") {
      const char* v = value(a.c_str());
      if (!v) return 2;
      (a == "--json" ? o.json : o.plot) = v;
    } else if (a == "--slow" || a == "--ranks-per-node" || a == "--timeout") {
      const char* v = value(a.c_str());
      if (!v) return 2;
      char* end = nullptr;
      const double d = std::strtod(v, &end);
      const bool bad = !*v || *end || d <= 0 || (a == "--slow" && d >= 1) ||
                       (a == "--ranks-per-node" && d != static_cast<int>(d));
      if (bad) {
        fmt::print(stderr, "chorus-doctor: {} {}: must be {}\n", a, v,
                   a == "--slow" ? "a fraction between 0 and 1" : a == "--timeout" ? "seconds > 0" : "a count >= 1");
        return 2;
      }
      if (a == "--slow") o.slow = d;
      else if (a == "--timeout") o.timeout = d;
      else o.per_node = static_cast<int>(d);
    } else {
      o.mpirun_args.push_back(a);
    }
  }
  return 0;
}

// ---------------------------------------------------------------------------
// The front end: mpirun with one rank per node, its output read line by line.

// The python3 that has matplotlib: Debian's (python3-matplotlib), else the one on PATH.
std::string python_with_matplotlib() {
  for (const char* py : {"/usr/bin/python3", "python3"})
    if (std::system(fmt::format("{} -c 'import matplotlib' >/dev/null 2>&1", py).c_str()) == 0) return py;
  return "";
}

int plot(const std::string& json_path, const std::string& png) {
  const std::string py = python_with_matplotlib();
  if (py.empty()) {
    fmt::print(stderr, "chorus-doctor: --plot needs python3 with matplotlib (Debian: python3-matplotlib)\n");
    return 2;
  }
  std::string script = self_dir() + "/chorus-doctor-plot", in = json_path, out = png, interp = py;
  const pid_t pid = fork();
  if (pid == 0) {
    char* av[] = {interp.data(), script.data(), in.data(), out.data(), nullptr};
    execvp(av[0], av);
    _exit(127);
  }
  int status = -1;
  while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "chorus-doctor: --plot: {} {} failed (status {})\n", py, script, status);
    return 2;
  }
  fmt::print("chorus-doctor: plot written to {}\n", png);
  return 0;
}

int front(const Opts& o, const char* argv0) {
  if (!o.plot.empty() && python_with_matplotlib().empty()) {
    fmt::print(stderr, "chorus-doctor: --plot needs python3 with matplotlib (Debian: python3-matplotlib)\n");
    return 2;
  }
  const std::string mpirun = self_dir() + "/mpirun";
  std::vector<std::string> args = {mpirun, "--map-by", fmt::format("ppr:{}:node", o.per_node)};
  args.insert(args.end(), {"--timeout", fmt::format("{}", o.timeout > 0 ? o.timeout : (o.quick ? 60 : 300))});
  args.insert(args.end(), o.mpirun_args.begin(), o.mpirun_args.end());
  args.push_back(self_dir() + "/" + std::string(std::strrchr(argv0, '/') ? std::strrchr(argv0, '/') + 1 : argv0));
  args.push_back("--child");
  if (o.quick) args.push_back("--quick");
  args.insert(args.end(), {"--slow", fmt::format("{}", o.slow)});

  int out[2], err[2];
  if (pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    fmt::print(stderr, "chorus-doctor: pipe: {}\n", std::strerror(errno));
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    fmt::print(stderr, "chorus-doctor: fork: {}\n", std::strerror(errno));
    return 2;
  }
  if (pid == 0) {
    dup2(out[1], 1);
    dup2(err[1], 2);
    std::vector<char*> av;
    for (auto& a : args) av.push_back(a.data());
    av.push_back(nullptr);
    execv(av[0], av.data());
    fmt::print(stderr, "chorus-doctor: cannot run {}: {}\n", mpirun, std::strerror(errno));
    _exit(127);
  }
  close(out[1]);
  close(err[1]);
  std::string json, verdict;
  std::vector<std::pair<std::string, std::string>> failed_hosts;  // host, cause
  std::string last_err;
  static const std::regex kHostFailed(R"(^mpirun: (?:chorusd on host|rank \d+ \(pid \d+\) on host) (\S+) failed: (.*)$)");
  std::string buf[2];
  pollfd fds[2] = {{out[0], POLLIN, 0}, {err[0], POLLIN, 0}};
  int open_fds = 2;
  auto line = [&](int which, const std::string& l) {
    if (which == 0) {
      if (l.rfind("@@chorus-doctor-json ", 0) == 0) {
        json += l.substr(21);  // the report comes in parts, in order
        return;
      }
      if (l.rfind("chorus-doctor: ", 0) == 0) verdict = l;
      fmt::print("{}\n", l);
      std::fflush(stdout);
    } else {
      fmt::print(stderr, "{}\n", l);
      std::smatch m;
      if (std::regex_match(l, m, kHostFailed)) failed_hosts.emplace_back(m[1], m[2]);
      if (!l.empty()) last_err = l;
    }
  };
  while (open_fds > 0) {
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char tmp[65536];
      ssize_t n = read(fds[i].fd, tmp, sizeof tmp);
      if (n <= 0) {
        if (!buf[i].empty()) line(i, buf[i]);
        buf[i].clear();
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
        continue;
      }
      buf[i].append(tmp, static_cast<std::size_t>(n));
      for (std::size_t nl; (nl = buf[i].find('\n')) != std::string::npos;) {
        line(i, buf[i].substr(0, nl));
        buf[i].erase(0, nl + 1);
      }
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  int rc;
  if (!verdict.empty() && !json.empty()) {
    rc = verdict.find("all checks passed") != std::string::npos ? 0 : 1;
  } else if (!failed_hosts.empty()) {
    // The job ended before the report: the node that failed is the finding.
    std::string names;
    std::vector<std::string> items;
    for (auto& [h, cause] : failed_hosts) {
      fmt::print("   FAIL node {}: it did not start a rank or did not answer: {}\n", h, cause);
      items.push_back(fmt::format("{{\"kind\":\"node\",\"node\":{},\"what\":{}}}", jstr(h),
                                  jstr("did not start a rank or did not answer: " + cause)));
      names += (names.empty() ? "" : ", ") + h;
    }
    verdict = fmt::format("chorus-doctor: {} problem(s) found: node {} failed", failed_hosts.size(), names);
    fmt::print("{}\n", verdict);
    json = fmt::format("{{\"ok\":false,\"findings\":[{}],\"nodes\":[],\"links\":[],\"allreduce\":[]}}",
                       fmt::join(items, ","));
    rc = 1;
  } else {
    fmt::print(stderr, "chorus-doctor: could not run the check: mpirun {} ({})\n",
               WIFEXITED(status) ? fmt::format("exited {}", WEXITSTATUS(status)) : std::string("was killed"),
               last_err.empty() ? "no message" : last_err);
    return 2;
  }
  if (!o.json.empty() || !o.plot.empty()) {
    const std::string path = !o.json.empty() ? o.json : o.plot + ".json";
    std::FILE* f = std::fopen(path.c_str(), "w");
    if (!f || std::fputs((json + "\n").c_str(), f) < 0 || std::fclose(f) != 0) {
      fmt::print(stderr, "chorus-doctor: --json {}: {}\n", path, std::strerror(errno));
      return 2;
    }
    if (!o.json.empty()) fmt::print("chorus-doctor: report written to {}\n", path);
    if (!o.plot.empty()) {
      int prc = plot(path, o.plot);
      if (o.json.empty()) std::remove(path.c_str());
      if (prc != 0) return prc;
    }
  }
  return rc;
}

// ---------------------------------------------------------------------------
// The ranks.

struct Job {
  int rank = 0, size = 1;
  MPI_Comm local = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
  int node = 0, nodes = 1;          // this rank's node (index among the leaders), how many
  std::vector<std::string> hosts;   // per node (rank 0)
  std::vector<int> node_of;         // per world rank
  std::vector<int> per_node;        // ranks per node
  bool cores_shared = false;        // some node runs more ranks than the CPUs they may use
  std::vector<std::string> findings;
  std::vector<std::string> json_findings;
  bool child = false;
};

template <typename... A>
void say(const Job& j, fmt::format_string<A...> f, A&&... a) {
  if (j.rank != 0) return;
  fmt::print(f, std::forward<A>(a)...);
  std::fputc('\n', stdout);
  std::fflush(stdout);
}

void finding(Job& j, const std::string& kind, const std::string& who, const std::string& what) {
  if (j.rank != 0) return;
  const std::string text = fmt::format("{} {}: {}", kind, who, what);
  fmt::print("   FAIL {}\n", text);
  std::fflush(stdout);
  j.findings.push_back(text);
  j.json_findings.push_back(fmt::format("{{\"kind\":{},\"node\":{},\"what\":{}}}", jstr(kind), jstr(who), jstr(what)));
}

std::string gbs(double v) { return v >= 10 ? fmt::format("{:.1f} GB/s", v) : fmt::format("{:.3g} GB/s", v); }
std::string us(double v) { return v >= 100 ? fmt::format("{:.0f} us", v) : fmt::format("{:.3g} us", v); }
std::string size_text(std::size_t b) {
  if (b >= (1u << 20)) return fmt::format("{} MiB", b >> 20);
  if (b >= 1024) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

// Rank 0 gathers a string of each node (from its leader); fixed-size records.
std::vector<std::string> gather_nodes(const Job& j, const std::string& mine) {
  constexpr int kRec = 4096;
  std::vector<std::string> out;
  if (j.leaders == MPI_COMM_NULL) return out;
  std::vector<char> rec(kRec, '\0'), all(j.rank == 0 ? static_cast<std::size_t>(kRec) * j.nodes : 1);
  std::memcpy(rec.data(), mine.data(), std::min<std::size_t>(mine.size(), kRec - 1));
  MPI_Gather(rec.data(), kRec, MPI_CHAR, all.data(), kRec, MPI_CHAR, 0, j.leaders);
  if (j.rank == 0)
    for (int n = 0; n < j.nodes; ++n) {
      const char* r = all.data() + static_cast<std::size_t>(n) * kRec;
      out.emplace_back(r, strnlen(r, kRec));
    }
  return out;
}

// "key=value" lines.
std::map<std::string, std::string> fields(const std::string& text) {
  std::map<std::string, std::string> f;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t nl = text.find('\n', at);
    if (nl == std::string::npos) nl = text.size();
    std::string l = text.substr(at, nl - at);
    std::size_t eq = l.find('=');
    if (eq != std::string::npos) f[l.substr(0, eq)] = l.substr(eq + 1);
    at = nl + 1;
  }
  return f;
}

// Host to device, device to host (pinned) and device to device copy bandwidth,
// as "key=value" lines for the node's record: gpu_h2d, gpu_d2h, gpu_d2d (GB/s;
// -1 where the copy failed), gpu_bw (the text) and gpu_error.
constexpr struct {
  const char* key;   // in the node's record
  const char* json;  // in the JSON report's gpu_copy_gbs
  const char* what;
} kGpuCopies[] = {{"gpu_h2d", "h2d", "pinned host to device"},
                  {"gpu_d2h", "d2h", "device to host"},
                  {"gpu_d2d", "d2d", "device to device"}};

std::string gpu_bandwidth(std::size_t bytes) {
  namespace gpu = chorus::gpu;
  void *h = nullptr, *d1 = nullptr, *d2 = nullptr;
  std::string text, fields, error;
  if (!chorus::ok(gpu::pinned_alloc(bytes, &h)) || !chorus::ok(gpu::device_alloc(bytes, &d1)) ||
      !chorus::ok(gpu::device_alloc(bytes, &d2))) {
    error = "copy bandwidth not measured: " + gpu::last_error();
    text = error;
  } else {
    std::memset(h, 1, bytes);
    std::string why[3];  // each failed copy's error, taken when it failed
    auto rate = [&](void* dst, const void* src, std::string& err) {
      double best = 1e30;
      for (int i = 0; i < 4; ++i) {
        auto t0 = Clock::now();
        if (!chorus::ok(gpu::copy(dst, src, bytes))) {
          err = gpu::last_error();
          return -1.0;
        }
        best = std::min(best, seconds_since(t0));
      }
      return static_cast<double>(bytes) / best / 1e9;
    };
    const double rates[3] = {rate(d1, h, why[0]), rate(h, d1, why[1]), rate(d2, d1, why[2])};
    std::vector<std::string> parts;
    for (int k = 0; k < 3; ++k) {
      const std::string what = rates[k] < 0 ? "copy failed: " + why[k] : gbs(rates[k]);
      if (rates[k] < 0 && error.empty()) error = fmt::format("{} {}", kGpuCopies[k].what, what);
      parts.push_back(fmt::format("{} {}", kGpuCopies[k].what, what));
      fields += fmt::format("{}={}\n", kGpuCopies[k].key, rates[k]);
    }
    text = fmt::format("{}", fmt::join(parts, ", "));
  }
  if (d2) gpu::device_free(d2);
  if (d1) gpu::device_free(d1);
  if (h) gpu::pinned_free(h);
  return fmt::format("{}gpu_bw={}\ngpu_error={}\n", fields, text, error);
}

// A node whose GPU copies failed, or ran slower than slow x the nodes' median.
void check_gpu_copies(Job& j, std::vector<std::map<std::string, std::string>>& nodes, double slow) {
  for (int n = 0; n < j.nodes; ++n) {
    const std::string& err = nodes[static_cast<std::size_t>(n)]["gpu_error"];
    if (!err.empty()) finding(j, "gpu", j.hosts[static_cast<std::size_t>(n)], err);
  }
  for (const auto& c : kGpuCopies) {
    std::vector<double> v;
    for (auto& f : nodes) v.push_back(f[c.key].empty() ? 0 : std::atof(f[c.key].c_str()));
    double median = 0;
    for (int n : chorus::topo::below_median(v, slow, &median))
      finding(j, "node", j.hosts[static_cast<std::size_t>(n)],
              fmt::format("{} copy bandwidth {} is below {} x the nodes' median {}", c.what,
                          gbs(v[static_cast<std::size_t>(n)]), slow, gbs(median)));
  }
}

// 2. Each node's software and hardware; the node that differs is named.
std::vector<std::map<std::string, std::string>> check_nodes(Job& j, const Opts& o) {
  std::string mine;
  if (j.leaders != MPI_COMM_NULL) {
    const chorus::topo::Node& n = chorus::topo::node();
    chorus::ucx::Context ctx;
    std::string tls = chorus::ok(ctx.init(false, 1)) ? fmt::format("{}", fmt::join(chorus::ucx::resources(ctx), ","))
                                                    : "UCX could not start";
    std::string gpus = chorus::gpu::enabled() ? chorus::gpu::describe()
                                              : "none (" + chorus::gpu::host_only_reason() + ")";
    std::string gpu_bw = chorus::gpu::enabled() ? gpu_bandwidth(o.quick ? (16u << 20) : (64u << 20)) : "";
    // The GPU's numbers first: a record longer than gather_nodes takes loses its end,
    // and a cut number would read as another (a long device list is cut instead).
    mine = fmt::format("{}chorus={}\nucx={}\ntransports={}\nhardware={}\ndevices={}\ngpus={}\ngpu_count={}\n",
                       gpu_bw, CHORUS_VERSION, chorus::ucx::version(), tls, n.layout(), n.devices(), gpus,
                       fmt::format("{} on PCI, {} seen by CUDA", n.gpus.size(), chorus::gpu::device_count()));
  }
  std::vector<std::map<std::string, std::string>> out;
  for (const std::string& s : gather_nodes(j, mine)) out.push_back(fields(s));
  if (j.rank != 0) return out;
  for (int n = 0; n < j.nodes; ++n) {
    auto& f = out[static_cast<std::size_t>(n)];
    say(j, "2. node {}: Chorus {}, UCX {} ({}); {}; {}; GPU {} ({}){}", j.hosts[static_cast<std::size_t>(n)],
        f["chorus"], f["ucx"], f["transports"], f["hardware"], f["devices"], f["gpus"], f["gpu_count"],
        f["gpu_bw"].empty() ? "" : "; " + f["gpu_bw"]);
  }
  // The same software and hardware everywhere (names of devices aside).
  for (const char* key : {"chorus", "ucx", "transports", "hardware", "gpu_count"}) {
    std::vector<std::string> v;
    for (auto& f : out) v.push_back(f[key]);
    const std::vector<int> odd_nodes = chorus::topo::odd_ones(v);
    if (odd_nodes.empty() && std::adjacent_find(v.begin(), v.end(), std::not_equal_to<>()) != v.end()) {
      // No majority to compare with (two nodes, or every node different): all named.
      std::vector<std::string> each;
      for (std::size_t n = 0; n < v.size(); ++n) each.push_back(fmt::format("{} '{}'", j.hosts[n], v[n]));
      finding(j, "nodes", "all", fmt::format("{} differs and no value is the majority's: {}", key, fmt::join(each, ", ")));
      continue;
    }
    std::string theirs;  // the majority's value: any node not named
    for (std::size_t n = 0; n < v.size() && theirs.empty(); ++n)
      if (std::find(odd_nodes.begin(), odd_nodes.end(), static_cast<int>(n)) == odd_nodes.end()) theirs = v[n];
    for (int odd : odd_nodes) {
      finding(j, "node", j.hosts[static_cast<std::size_t>(odd)],
              fmt::format("{} is '{}' where most nodes have '{}'", key, v[static_cast<std::size_t>(odd)], theirs));
    }
  }
  check_gpu_copies(j, out, o.slow);
  return out;
}

struct Links {
  std::vector<std::vector<double>> lat, bw;  // [a][b]: µs (a<->b), GB/s (a to b)
};

// One pair: latency (the fastest of the round trips, halved: a rank descheduled
// once says nothing about the link) and bandwidth each way (a window of messages,
// the best of a few repetitions).
void measure_pair(MPI_Comm c, int me, int peer, const Opts& o, double* lat, double* bw_to) {
  const bool first = me < peer;
  char b8[8] = {};
  const int lat_iters = o.quick ? 50 : 200;
  double best = 1e30;
  for (int i = 0; i < lat_iters + 10; ++i) {
    auto t0 = Clock::now();
    if (first) {
      MPI_Send(b8, 8, MPI_CHAR, peer, 1, c);
      MPI_Recv(b8, 8, MPI_CHAR, peer, 1, c, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(b8, 8, MPI_CHAR, peer, 1, c, MPI_STATUS_IGNORE);
      MPI_Send(b8, 8, MPI_CHAR, peer, 1, c);
    }
    if (i >= 10) best = std::min(best, seconds_since(t0));
  }
  *lat = best / 2 * 1e6;
  const std::size_t msg = o.quick ? (1u << 20) : (4u << 20);
  constexpr int kWindow = 4;
  const int reps = o.quick ? 3 : 5;
  std::vector<char> buf(msg * kWindow, 1);
  auto one_way = [&](bool sending) {
    double t_best = 1e30;
    for (int r = 0; r < reps + 1; ++r) {
      MPI_Request req[kWindow];
      auto t0 = Clock::now();
      for (int w = 0; w < kWindow; ++w) {
        char* p = buf.data() + msg * static_cast<std::size_t>(w);
        if (sending) MPI_Isend(p, static_cast<int>(msg), MPI_CHAR, peer, 2, c, &req[w]);
        else MPI_Irecv(p, static_cast<int>(msg), MPI_CHAR, peer, 2, c, &req[w]);
      }
      MPI_Waitall(kWindow, req, MPI_STATUSES_IGNORE);
      if (sending) MPI_Recv(b8, 0, MPI_CHAR, peer, 3, c, MPI_STATUS_IGNORE);
      else MPI_Send(b8, 0, MPI_CHAR, peer, 3, c);
      if (r > 0) t_best = std::min(t_best, seconds_since(t0));
    }
    return static_cast<double>(msg * kWindow) / t_best / 1e9;
  };
  if (first) {
    *bw_to = one_way(true);
    one_way(false);
  } else {
    one_way(false);
    *bw_to = one_way(true);
  }
}

// 3. Every pair of nodes, in rounds of disjoint pairs.
Links check_links(Job& j, const Opts& o) {
  Links L;
  const std::size_t N = static_cast<std::size_t>(j.nodes);
  L.lat.assign(N, std::vector<double>(N, 0));
  L.bw.assign(N, std::vector<double>(N, 0));
  if (j.nodes < 2) {
    say(j, "3. links: one node, no link to measure");
    return L;
  }
  const auto rounds = chorus::topo::pair_rounds(j.nodes);
  const int pairs = j.nodes * (j.nodes - 1) / 2;
  say(j, "3. links: {} {} of {} nodes in {} {} of disjoint pairs", pairs, pairs == 1 ? "pair" : "pairs", j.nodes,
      rounds.size(), rounds.size() == 1 ? "round" : "rounds");
  if (j.leaders != MPI_COMM_NULL) {
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      // Each leader's result this round: peer, latency, bandwidth to the peer.
      double mine[3] = {-1, 0, 0};
      for (auto [a, b] : rounds[r])
        if (a == j.node || b == j.node) {
          const int peer = a == j.node ? b : a;
          double lat = 0, to = 0;
          measure_pair(j.leaders, j.node, peer, o, &lat, &to);
          mine[0] = peer;
          mine[1] = lat;
          mine[2] = to;
        }
      std::vector<double> all(3 * N);
      MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, j.leaders);
      if (j.rank != 0) continue;
      for (std::size_t n = 0; n < N; ++n) {
        if (all[3 * n] < 0) continue;
        const auto p = static_cast<std::size_t>(all[3 * n]);
        L.lat[n][p] = all[3 * n + 1];
        L.bw[n][p] = all[3 * n + 2];
      }
      std::vector<std::string> parts;
      for (auto [a, b] : rounds[r]) {
        const auto A = static_cast<std::size_t>(a), B = static_cast<std::size_t>(b);
        parts.push_back(fmt::format("{}-{} {}, {} / {}", j.hosts[A], j.hosts[B], us(std::max(L.lat[A][B], L.lat[B][A])),
                                    gbs(L.bw[A][B]), gbs(L.bw[B][A])));
      }
      say(j, "   round {}: {}", r + 1, fmt::join(parts, "; "));
    }
  }
  if (j.rank == 0) {
    const chorus::topo::SlowReport rep = chorus::topo::slow_links(L.bw, o.slow);
    std::vector<double> lats;
    for (std::size_t a = 0; a < N; ++a)
      for (std::size_t b = a + 1; b < N; ++b) lats.push_back(std::max(L.lat[a][b], L.lat[b][a]));
    const double lat_median = chorus::topo::median(lats);
    say(j, "   median: {} latency, {} bandwidth", us(lat_median), gbs(rep.link_median));
    for (const auto& l : rep.links)
      finding(j, "link", fmt::format("{}-{}", j.hosts[static_cast<std::size_t>(l.a)], j.hosts[static_cast<std::size_t>(l.b)]),
              fmt::format("bandwidth {} is below {} x the median {}", gbs(l.worst), o.slow, gbs(rep.link_median)));
    for (std::size_t a = 0; a < N; ++a)
      for (std::size_t b = a + 1; b < N; ++b) {
        const double lat = std::max(L.lat[a][b], L.lat[b][a]);
        if (lats.size() > 1 && lat > lat_median / o.slow)
          finding(j, "link", fmt::format("{}-{}", j.hosts[a], j.hosts[b]),
                  fmt::format("latency {} is above the median {} / {}", us(lat), us(lat_median), o.slow));
      }
    for (const auto& n : rep.nodes)
      finding(j, "node", j.hosts[static_cast<std::size_t>(n.node)],
              fmt::format("its links' median bandwidth {} is below {} x the nodes' median {}", gbs(n.median), o.slow,
                          gbs(rep.node_median)));
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return L;
}

struct CollRow {
  std::string memory;
  std::size_t bytes = 0;
  double time_us = 0, busbw = 0, model_us = 0, model_busbw = 0;
  std::string model_algo;
  bool correct = true;
};

// What the cost model predicts for an allreduce of `bytes` on this job, with the
// network link as measured.
void predict(const Job& j, const Links& L, std::size_t bytes, CollRow& row) {
  namespace coll = chorus::coll;
  coll::CostModel m = coll::default_cost_model();
  std::vector<double> lats, bws;
  for (std::size_t a = 0; a < L.bw.size(); ++a)
    for (std::size_t b = 0; b < L.bw.size(); ++b)
      if (a != b && L.bw[a][b] > 0) {
        bws.push_back(L.bw[a][b]);
        lats.push_back(L.lat[a][b] > 0 ? L.lat[a][b] : L.lat[b][a]);
      }
  if (!bws.empty()) m.net = {chorus::topo::median(lats), 1.0 / (chorus::topo::median(bws) * 1e3)};
  coll::CollArgs a;
  a.kind = coll::CollKind::Allreduce;
  a.size = j.size;
  a.elem_size = 4;
  a.count = std::max<std::size_t>(1, bytes / 4);
  a.chunk_bytes = chorus::param::CollChunkBytes();
  a.shape.size = j.size;
  a.shape.nodes = j.nodes;
  a.shape.ranks_per_node = *std::max_element(j.per_node.begin(), j.per_node.end());
  a.shape.cores_shared = j.cores_shared;
  if (j.nodes > 1) {
    a.shape.node_of = std::make_shared<const std::vector<int>>(j.node_of);
    a.shape.layout = std::hash<std::string>{}(fmt::format("{}", fmt::join(j.node_of, ",")));
  } else {
    a.shm_slot_bytes = chorus::param::CollShmSlot();
  }
  coll::Choice c;
  if (!chorus::ok(coll::select(a, m, c)) || !c.algo) return;
  row.model_algo = std::string(c.algo->name);
  row.model_us = c.cost_us;
  row.model_busbw = j.size > 1 ? 2.0 * (j.size - 1) / j.size * static_cast<double>(bytes) / (c.cost_us * 1e3) : 0;
}

// 4. Allreduce on every rank, checked, timed, next to the model.
std::vector<CollRow> check_allreduce(Job& j, const Opts& o, const Links& L) {
  std::vector<CollRow> rows;
  const std::vector<std::size_t> sizes = {8, 1u << 20, o.quick ? (16u << 20) : (64u << 20)};
  int gpu_everywhere = chorus::gpu::enabled() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &gpu_everywhere, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  for (const char* memory : {"host", "device"}) {
    const bool device = std::strcmp(memory, "device") == 0;
    if (device && !gpu_everywhere) {
      say(j, "4. allreduce on device buffers: skipped (not every rank has a usable GPU)");
      break;
    }
    for (std::size_t bytes : sizes) {
      CollRow row;
      row.memory = memory;
      row.bytes = bytes;
      const std::size_t count = bytes / 4;
      std::vector<float> host(count, static_cast<float>(j.rank + 1)), result(count);
      void *send = host.data(), *recv = result.data();
      if (device) {
        // Every rank agrees whether all set up their buffers before any calls MPI
        // with them; a rank that failed is named with its cause.
        void* d_send = nullptr;
        void* d_recv = nullptr;
        int bad = !chorus::ok(chorus::gpu::device_alloc(bytes, &d_send)) ||
                  !chorus::ok(chorus::gpu::device_alloc(bytes, &d_recv)) ||
                  !chorus::ok(chorus::gpu::copy(d_send, host.data(), bytes));
        char why[256] = {};
        if (bad) std::snprintf(why, sizeof why, "%s", chorus::gpu::last_error().c_str());
        std::vector<char> whys(j.rank == 0 ? sizeof why * static_cast<std::size_t>(j.size) : 1);
        MPI_Gather(why, sizeof why, MPI_CHAR, whys.data(), sizeof why, MPI_CHAR, 0, MPI_COMM_WORLD);
        MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        if (bad) {
          for (int r = 0; j.rank == 0 && r < j.size; ++r) {
            const char* w = whys.data() + sizeof why * static_cast<std::size_t>(r);
            if (*w)
              finding(j, "gpu", fmt::format("rank {} on {}", r, j.hosts[static_cast<std::size_t>(j.node_of[static_cast<std::size_t>(r)])]),
                      fmt::format("device buffers of {} could not be set up: {}", size_text(bytes), w));
          }
          if (d_send) chorus::gpu::device_free(d_send);
          if (d_recv) chorus::gpu::device_free(d_recv);
          break;
        }
        send = d_send;
        recv = d_recv;
      }
      const int iters = bytes <= 8 ? (o.quick ? 50 : 200) : bytes <= (1u << 20) ? (o.quick ? 5 : 20) : (o.quick ? 2 : 5);
      MPI_Allreduce(send, recv, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);  // warm-up
      MPI_Barrier(MPI_COMM_WORLD);
      auto t0 = Clock::now();
      for (int i = 0; i < iters; ++i)
        MPI_Allreduce(send, recv, static_cast<int>(count), MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
      double t = seconds_since(t0) / iters * 1e6;
      MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      const float want = static_cast<float>(j.size) * static_cast<float>(j.size + 1) / 2;
      int wrong = 0;
      if (device && !chorus::ok(chorus::gpu::copy(result.data(), recv, bytes))) wrong = static_cast<int>(count);
      for (float v : result) wrong += v != want;
      std::vector<int> wrong_at(static_cast<std::size_t>(j.size));
      MPI_Gather(&wrong, 1, MPI_INT, wrong_at.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
      if (device) {
        chorus::gpu::device_free(send);
        chorus::gpu::device_free(recv);
      }
      if (j.rank != 0) continue;
      row.time_us = t;
      row.busbw = j.size > 1 ? 2.0 * (j.size - 1) / j.size * static_cast<double>(bytes) / (t * 1e3) : 0;
      predict(j, L, bytes, row);
      say(j, "4. allreduce {} {} on {} ranks: {} per call, {} busbw; the model ({} on the measured links): {}, {}; "
          "{:.2f} of the model's speed", size_text(bytes), memory, j.size, us(row.time_us), gbs(row.busbw),
          row.model_algo.empty() ? "?" : row.model_algo, us(row.model_us), gbs(row.model_busbw),
          row.model_us > 0 ? row.model_us / row.time_us : 0.0);
      for (int r = 0; r < j.size; ++r)
        if (wrong_at[static_cast<std::size_t>(r)]) {
          row.correct = false;
          finding(j, "allreduce", fmt::format("rank {} on {}", r, j.hosts[static_cast<std::size_t>(j.node_of[static_cast<std::size_t>(r)])]),
                  fmt::format("{} of {} elements wrong at {} ({} buffers)", wrong_at[static_cast<std::size_t>(r)], count,
                              size_text(bytes), memory));
        }
      rows.push_back(row);
    }
  }
  return rows;
}

int ranks(int argc, char** argv, const Opts& o) {
  const auto t0 = Clock::now();
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  Job j;
  j.child = o.child;
  MPI_Comm_rank(MPI_COMM_WORLD, &j.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &j.size);
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, j.rank, MPI_INFO_NULL, &j.local);
  int local_rank, local_size;
  MPI_Comm_rank(j.local, &local_rank);
  MPI_Comm_size(j.local, &local_size);
  chorus::gpu::init(local_rank, local_size);  // never fails: no usable GPU means host only
  // Some node's ranks outnumber the CPUs they may use between them (the union of
  // their affinity masks, as Chorus counts them).
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) CPU_SET(0, &cpus);
  MPI_Allreduce(MPI_IN_PLACE, &cpus, static_cast<int>(sizeof cpus), MPI_BYTE, MPI_BOR, j.local);
  int shared_cores = local_size > CPU_COUNT(&cpus) ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &shared_cores, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  j.cores_shared = shared_cores != 0;
  MPI_Comm_split(MPI_COMM_WORLD, local_rank == 0 ? 0 : MPI_UNDEFINED, j.rank, &j.leaders);
  if (j.leaders != MPI_COMM_NULL) {
    MPI_Comm_rank(j.leaders, &j.node);
    MPI_Comm_size(j.leaders, &j.nodes);
  }
  int shared[2] = {j.node, j.nodes};
  MPI_Bcast(shared, 2, MPI_INT, 0, j.local);
  j.node = shared[0];
  MPI_Bcast(&shared[1], 1, MPI_INT, 0, MPI_COMM_WORLD);
  j.nodes = shared[1];
  j.node_of.resize(static_cast<std::size_t>(j.size));
  MPI_Allgather(&j.node, 1, MPI_INT, j.node_of.data(), 1, MPI_INT, MPI_COMM_WORLD);
  j.per_node.assign(static_cast<std::size_t>(j.nodes), 0);
  for (int n : j.node_of) ++j.per_node[static_cast<std::size_t>(n)];

  // 1. Every node started a rank and answers.
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  j.hosts = gather_nodes(j, host);
  if (j.rank == 0) {
    std::vector<std::string> parts;
    for (int n = 0; n < j.nodes; ++n)
      parts.push_back(fmt::format("{} ({} {})", j.hosts[static_cast<std::size_t>(n)], j.per_node[static_cast<std::size_t>(n)],
                                  j.per_node[static_cast<std::size_t>(n)] == 1 ? "rank" : "ranks"));
    say(j, "1. nodes: {} answered, {} ranks in {:.2f} s from the start: {}", j.nodes, j.size, seconds_since(t0),
        fmt::join(parts, ", "));
  }
  auto nodes = check_nodes(j, o);
  MPI_Barrier(MPI_COMM_WORLD);
  Links links = check_links(j, o);
  auto rows = check_allreduce(j, o, links);

  int rc = 0;
  if (j.rank == 0) {
    const double secs = seconds_since(t0);
    if (j.findings.empty())
      say(j, "chorus-doctor: all checks passed ({} nodes, {} ranks, {:.1f} s)", j.nodes, j.size, secs);
    else
      say(j, "chorus-doctor: {} problem(s) found: {}", j.findings.size(), fmt::join(j.findings, "; "));
    // The report as one line of JSON.
    std::vector<std::string> jn, jl, jc;
    for (int n = 0; n < j.nodes; ++n) {
      auto& f = nodes[static_cast<std::size_t>(n)];
      // Each copy's GB/s (null: no GPU, or the copy failed).
      std::vector<std::string> copies;
      for (const auto& c : kGpuCopies)
        copies.push_back(fmt::format("{}:{}", jstr(c.json), f[c.key].empty() || std::atof(f[c.key].c_str()) < 0
                                                                   ? "null"
                                                                   : jnum(std::atof(f[c.key].c_str()))));
      jn.push_back(fmt::format("{{\"host\":{},\"ranks\":{},\"chorus\":{},\"ucx\":{},\"transports\":{},\"hardware\":{},"
                               "\"devices\":{},\"gpus\":{},\"gpu_bandwidth\":{},\"gpu_copy_gbs\":{{{}}}}}",
                               jstr(j.hosts[static_cast<std::size_t>(n)]), j.per_node[static_cast<std::size_t>(n)],
                               jstr(f["chorus"]), jstr(f["ucx"]), jstr(f["transports"]), jstr(f["hardware"]),
                               jstr(f["devices"]), jstr(f["gpus"]), jstr(f["gpu_bw"]), fmt::join(copies, ",")));
    }
    for (std::size_t a = 0; a < links.bw.size(); ++a)
      for (std::size_t b = 0; b < links.bw.size(); ++b)
        if (a != b && links.bw[a][b] > 0)
          jl.push_back(fmt::format("{{\"from\":{},\"to\":{},\"latency_us\":{},\"bandwidth_gbs\":{}}}",
                                   jstr(j.hosts[a]), jstr(j.hosts[b]),
                                   jnum(std::max(links.lat[a][b], links.lat[b][a])), jnum(links.bw[a][b])));
    for (const CollRow& r : rows)
      jc.push_back(fmt::format("{{\"memory\":{},\"bytes\":{},\"time_us\":{},\"busbw_gbs\":{},\"correct\":{},"
                               "\"model_algorithm\":{},\"model_time_us\":{},\"model_busbw_gbs\":{}}}",
                               jstr(r.memory), r.bytes, jnum(r.time_us), jnum(r.busbw), r.correct ? "true" : "false",
                               jstr(r.model_algo), jnum(r.model_us), jnum(r.model_busbw)));
    const std::string json = fmt::format(
        "{{\"ok\":{},\"slow\":{},\"quick\":{},\"seconds\":{},\"nodes\":[{}],\"links\":[{}],\"allreduce\":[{}],"
        "\"findings\":[{}]}}",
        j.findings.empty() ? "true" : "false", jnum(o.slow), o.quick ? "true" : "false", jnum(secs),
        fmt::join(jn, ","), fmt::join(jl, ","), fmt::join(jc, ","), fmt::join(j.json_findings, ","));
    if (o.child) {
      // In lines of 64 KiB: mpirun forwards output a line at a time, up to 1 MiB.
      constexpr std::size_t kPart = 64 << 10;
      for (std::size_t at = 0; at < json.size(); at += kPart)
        fmt::print("@@chorus-doctor-json {}\n", json.substr(at, kPart));
      std::fflush(stdout);
    } else {
      if (!o.json.empty()) {
        std::FILE* f = std::fopen(o.json.c_str(), "w");
        if (f) {
          std::fputs((json + "\n").c_str(), f);
          std::fclose(f);
        } else {
          fmt::print(stderr, "chorus-doctor: --json {}: {}\n", o.json, std::strerror(errno));
        }
      }
      rc = j.findings.empty() ? 0 : 1;
    }
  }
  if (j.leaders != MPI_COMM_NULL) MPI_Comm_free(&j.leaders);
  MPI_Comm_free(&j.local);
  chorus::gpu::finalize();
  MPI_Finalize();
  if (!o.child && j.rank == 0 && !o.plot.empty() && rc != 2) {
    int prc = o.json.empty() ? 2 : plot(o.json, o.plot);
    if (o.json.empty()) fmt::print(stderr, "chorus-doctor: --plot inside a job needs --json as well\n");
    if (prc != 0) return 2;
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Opts o;
  if (int rc = parse(argc, argv, o)) return rc;
  if (o.child || under_launcher()) {
    if (!o.mpirun_args.empty()) {
      fmt::print(stderr, "chorus-doctor: unknown option '{}' inside a job\n{}", o.mpirun_args[0], kUsage);
      return 2;
    }
    return ranks(argc, argv, o);
  }
  return front(o, argv[0]);
}
