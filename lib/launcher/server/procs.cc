#include "launcher/server/procs.h"

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <algorithm>
#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <ctime>
#include <cstring>

#include <fmt/format.h>

#include "launcher/server/hosts.h"

namespace chorus::launcher {
namespace {

// A line longer than this is forwarded in pieces rather than held without bound.
constexpr size_t kMaxLine = 1 << 20;

void write_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return;  // EPIPE and friends: the reader is gone; drop the output
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
}

// Async-signal-safe message from a child that could not exec.
void child_fail(const char* what, const char* path) {
  const char* err = strerrordesc_np(errno);
  const char* parts[] = {"mpirun: ", what, " ", path, ": ", err ? err : "error", "\n"};
  for (const char* s : parts) write_all(2, s, std::strlen(s));
  _exit(127);
}

}  // namespace

// ---- OutSink ----

OutSink::~OutSink() {
  if (own_ >= 0) ::close(own_);
}

const std::shared_ptr<OutSink>& OutSink::standard(int fd) {
  static const std::shared_ptr<OutSink> out = std::make_shared<OutSink>(1), err = std::make_shared<OutSink>(2);
  return fd == 2 ? err : out;
}

void OutSink::choose_mode() {
  struct stat st {};
  if (::fstat(target_, &st) != 0 || S_ISREG(st.st_mode) || S_ISBLK(st.st_mode)) {
    mode_ = Mode::Direct;  // a file takes what it is given (or the fd is bad: writes fail)
    return;
  }
  if (S_ISSOCK(st.st_mode)) {
    mode_ = Mode::Socket;
    return;
  }
  // A pipe or a terminal: open it a second time, non-blocking. O_NONBLOCK on
  // the descriptor itself would change it for everyone sharing it (the shell,
  // the next program on the terminal).
  const std::string path = fmt::format("/proc/self/fd/{}", target_);
  own_ = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  mode_ = own_ >= 0 ? Mode::Reopened : Mode::Probe;
}

ssize_t OutSink::try_write(const char* p, size_t n) {
  for (;;) {
    ssize_t w = 0;
    switch (mode_) {
      case Mode::Direct:
        write_all(target_, p, n);
        return static_cast<ssize_t>(n);
      case Mode::Reopened:
        w = ::write(own_, p, n);
        break;
      case Mode::Socket:
        w = ::send(target_, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == ENOTSOCK) {
          mode_ = Mode::Probe;
          continue;
        }
        break;
      case Mode::Probe: {
        // Room for PIPE_BUF bytes when poll says writable: a write of at most
        // that many does not block.
        pollfd pf{target_, POLLOUT, 0};
        if (::poll(&pf, 1, 0) <= 0 || !(pf.revents & POLLOUT)) return (pf.revents & (POLLERR | POLLNVAL)) ? -1 : 0;
        w = ::write(target_, p, std::min<size_t>(n, PIPE_BUF));
        break;
      }
      case Mode::Unknown:
        choose_mode();
        continue;
    }
    if (w >= 0) return w;
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
    return -1;
  }
}

void OutSink::write(const char* data, size_t n) {
  if (broken_ || n == 0) return;
  if (idle()) {
    buf_.clear();
    head_ = 0;
    while (n > 0) {
      const ssize_t w = try_write(data, n);
      if (w < 0) {
        broken_ = true;  // the reader is gone: drop the output, as a write to a closed pipe would
        return;
      }
      if (w == 0) break;
      data += w;
      n -= static_cast<size_t>(w);
    }
  }
  buf_.append(data, n);
}

void OutSink::on_writable() {
  while (!idle() && !broken_) {
    const ssize_t w = try_write(buf_.data() + head_, queued());
    if (w < 0) {
      broken_ = true;
      break;
    }
    if (w == 0) return;
    head_ += static_cast<size_t>(w);
  }
  if (broken_) {
    drop();
  } else if (idle()) {
    buf_.clear();  // keeps its capacity for the next burst
    head_ = 0;
  } else if (head_ > (1 << 20)) {
    buf_.erase(0, head_);
    head_ = 0;
  }
}

void OutSink::drop() {
  buf_.clear();
  buf_.shrink_to_fit();
  head_ = 0;
}

std::string LineForwarder::head() const {
  if (!timestamp_) return lead_ + prefix_;
  timespec ts;
  ::clock_gettime(CLOCK_REALTIME, &ts);
  tm t;
  ::localtime_r(&ts.tv_sec, &t);
  return fmt::format("{}[{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}] {}", lead_, t.tm_year + 1900, t.tm_mon + 1,
                     t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, ts.tv_nsec / 1000, prefix_);
}

void LineForwarder::emit(const char* data, size_t n) {
  if (route_ && route_(std::string_view(data, n))) return;
  if (prefix_.empty() && !timestamp_ && lead_.empty()) {
    sink_->write(data, n);
    return;
  }
  std::string buf = head();
  buf.append(data, n);
  sink_->write(buf.data(), buf.size());
}

void LineForwarder::feed(const char* data, size_t n) {
  // One write for all complete lines when untagged; tagged output needs the
  // prefix on each line, so build the whole batch first and write it once.
  std::string batch;
  const std::string h = head();  // one time for the lines of one read
  size_t start = 0;
  for (size_t i = 0; i < n; ++i) {
    if (data[i] != '\n') continue;
    if (route_) {
      std::string line = partial_;
      line.append(data + start, i + 1 - start);
      if (route_(line)) {
        partial_.clear();
        start = i + 1;
        continue;
      }
    }
    batch += h;
    batch += partial_;
    batch.append(data + start, i + 1 - start);
    partial_.clear();
    start = i + 1;
  }
  if (!batch.empty()) sink_->write(batch.data(), batch.size());
  partial_.append(data + start, n - start);
  if (partial_.size() >= kMaxLine) {
    partial_ += '\n';
    emit(partial_.data(), partial_.size());
    partial_.clear();
  }
}

void LineForwarder::flush_partial() {
  if (partial_.empty()) return;
  partial_ += '\n';
  emit(partial_.data(), partial_.size());
  partial_.clear();
}

bool pump_pipe(int fd, LineForwarder& fwd) {
  char buf[65536];
  // Bounded: one busy rank must not starve the others or the event loop.
  for (int round = 0; round < 16; ++round) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      fwd.feed(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    fwd.flush_partial();
    return false;  // EOF or a real error
  }
  return true;
}

Status spawn_rank(const SpawnSpec& spec, RankProc& proc, std::string& err) {
  int out[2], errp[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    err = fmt::format("pipe: {}", std::strerror(errno));
    return Status::Internal;
  }
  if (::pipe2(errp, O_CLOEXEC) != 0) {
    err = fmt::format("pipe: {}", std::strerror(errno));
    ::close(out[0]);
    ::close(out[1]);
    return Status::Internal;
  }

  std::vector<char*> argv, envp;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  const cpu_set_t* cpus = spec.cpus ? &*spec.cpus : nullptr;
  const pid_t launcher_pid = ::getpid();

  pid_t pid = ::fork();
  if (pid == 0) {
    // Child: async-signal-safe calls only.
    ::setpgid(0, 0);
    // A launcher killed with SIGKILL cannot end its ranks, and ranks waiting
    // for peers would spin forever: have the kernel kill the rank when we go.
    // SIGKILL, because a rank that ignores SIGTERM has nobody left to answer to.
    // The death signal follows the thread that forked, which is the
    // launcher's main thread for its whole life. It survives execve. A
    // launcher that died before the prctl is caught by getppid().
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail("cannot set the parent-death signal for",
                                                             spec.path.c_str());
    if (::getppid() != launcher_pid) _exit(127);
    if (::dup2(spec.stdin_fd, 0) < 0) child_fail("cannot set up stdin for", spec.path.c_str());
    if (::dup2(out[1], 1) < 0 || ::dup2(errp[1], 2) < 0)
      child_fail("cannot set up output for", spec.path.c_str());
    if (cpus && ::sched_setaffinity(0, sizeof(cpu_set_t), cpus) != 0)
      child_fail("cannot bind", spec.path.c_str());
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) child_fail("cannot enter the directory", spec.cwd.c_str());
    // The launcher blocks the signals it reads through signalfd and ignores
    // SIGPIPE; both would otherwise survive exec.
    struct sigaction dfl;
    std::memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGPIPE, &dfl, nullptr);
    sigset_t none;
    ::sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::execve(spec.path.c_str(), argv.data(), envp.data());
    child_fail("cannot execute", spec.path.c_str());
  }
  int fork_errno = errno;
  ::close(out[1]);
  ::close(errp[1]);
  if (pid < 0) {
    ::close(out[0]);
    ::close(errp[0]);
    err = fmt::format("fork: {}", std::strerror(fork_errno));
    return Status::Internal;
  }
  // Also from the parent, so the group exists before we might signal it.
  // EACCES (the child already exec'ed) means the child did it itself.
  ::setpgid(pid, pid);
  ::fcntl(out[0], F_SETFL, O_NONBLOCK);
  ::fcntl(errp[0], F_SETFL, O_NONBLOCK);
  proc.pid = pid;
  proc.out_fd = out[0];
  proc.err_fd = errp[0];
  return Status::Ok;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return fmt::format("exit status {}", WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* d = strsignal(sig);
    return fmt::format("signal {} ({})", sig, d ? d : "unknown");
  }
  return fmt::format("wait status {:#x}", status);
}

std::string cpu_list(const cpu_set_t& set) {
  // hwloc writes the list ("0-3,8"); it takes its own bitmap.
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) hwloc_bitmap_set(b, static_cast<unsigned>(c));
  char* text = nullptr;
  std::string out = hwloc_bitmap_iszero(b) || hwloc_bitmap_list_asprintf(&text, b) < 0 ? "none" : text;
  std::free(text);
  hwloc_bitmap_free(b);
  return out;
}

std::optional<cpu_set_t> parse_cpu_list(std::string_view text) {
  // hwloc reads octal and hex, skips trailing junk and fills any range it is given
  // (a corrupt "0-2000000000" would take it 250 MB): let through only decimal
  // numbers of up to 5 digits without a leading zero (octal to hwloc), commas and
  // dashes, as cpu_list writes them.
  std::size_t digits = 0;
  char first = 0;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') {
      if (digits == 0) first = ch;
      if (++digits > 5 || (digits == 2 && first == '0')) return std::nullopt;
    } else if (ch == ',' || ch == '-') {
      digits = 0;
    } else {
      return std::nullopt;
    }
  }
  hwloc_bitmap_t b = hwloc_bitmap_alloc();
  const std::string s(text);
  std::optional<cpu_set_t> out;
  if (b && !s.empty() && hwloc_bitmap_list_sscanf(b, s.c_str()) == 0 && hwloc_bitmap_weight(b) >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    for (int c = hwloc_bitmap_first(b); c >= 0 && c < CPU_SETSIZE; c = hwloc_bitmap_next(b, c)) CPU_SET(c, &set);
    out = set;
  }
  hwloc_bitmap_free(b);
  return out;
}

std::optional<cpu_set_t> slot_cpuset(std::string_view slot, std::string& err) {
  const size_t colon = slot.find(':');
  std::vector<int> packages, cores;
  const bool by_package = colon != std::string_view::npos;
  if ((by_package && !parse_index_list(slot.substr(0, colon), packages)) ||
      !parse_index_list(by_package ? slot.substr(colon + 1) : slot, cores) || cores.empty()) {
    err = fmt::format("slot={}: expected cores (0,2-3) or PACKAGE:CORES (1:0-1)", slot);
    return std::nullopt;
  }
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0 || hwloc_topology_load(topo) != 0) {
    err = "hwloc cannot read this host's topology";
    return std::nullopt;
  }
  cpu_set_t set;
  CPU_ZERO(&set);
  auto add = [&](hwloc_obj_t core) { hwloc_cpuset_to_glibc_sched_affinity(topo, core->cpuset, &set, sizeof set); };
  bool good = true;
  if (!by_package) {
    const int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    for (int c : cores) {
      hwloc_obj_t core = c < ncores ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(c)) : nullptr;
      if (!core || !core->cpuset) {
        err = fmt::format("slot={}: this host has {} core{} (0-{})", slot, ncores, ncores == 1 ? "" : "s", ncores - 1);
        good = false;
        break;
      }
      add(core);
    }
  } else {
    const int npackages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    for (int p : packages) {
      hwloc_obj_t pkg = p < npackages ? hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, static_cast<unsigned>(p)) : nullptr;
      if (!pkg || !pkg->cpuset) {
        err = fmt::format("slot={}: this host has {} package{}", slot, npackages, npackages == 1 ? "" : "s");
        good = false;
        break;
      }
      const int ncores = hwloc_get_nbobjs_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE);
      for (int c : cores) {
        hwloc_obj_t core = c < ncores ? hwloc_get_obj_inside_cpuset_by_type(topo, pkg->cpuset, HWLOC_OBJ_CORE,
                                                                           static_cast<unsigned>(c))
                                      : nullptr;
        if (!core || !core->cpuset) {
          err = fmt::format("slot={}: package {} of this host has {} core{}", slot, p, ncores, ncores == 1 ? "" : "s");
          good = false;
          break;
        }
        add(core);
      }
      if (!good) break;
    }
  }
  hwloc_topology_destroy(topo);
  if (!good) return std::nullopt;
  return set;
}

BindPlan bind_plan(std::string& err) {
  BindPlan plan;
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) {
    err = "hwloc_topology_init failed";
    return plan;
  }
  if (hwloc_topology_load(topo) != 0) {
    err = "hwloc_topology_load failed";
    hwloc_topology_destroy(topo);
    return plan;
  }
  auto glibc = [&](hwloc_const_cpuset_t set) {
    cpu_set_t out;
    CPU_ZERO(&out);
    hwloc_cpuset_to_glibc_sched_affinity(topo, set, &out, sizeof out);
    return out;
  };
  const hwloc_const_cpuset_t all = hwloc_topology_get_topology_cpuset(topo);
  plan.packages = std::max(1, hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE));
  const int ncores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
  for (int i = 0; i < ncores; ++i) {
    hwloc_obj_t core = hwloc_get_obj_by_type(topo, HWLOC_OBJ_CORE, static_cast<unsigned>(i));
    if (!core || !core->cpuset) continue;
    BindPlan::Core c;
    c.cpus = glibc(core->cpuset);
    hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, core);
    c.package = pkg ? static_cast<int>(pkg->logical_index) : 0;
    c.package_cpus = glibc(pkg && pkg->cpuset ? pkg->cpuset : all);
    c.numa_cpus = glibc(all);
    // The NUMA nodes that own CPUs, numbered densely (memory-only ones, HBM or
    // CXL, hold no core and are no unit of --map-by ppr:N:numa).
    int dense = 0;
    for (hwloc_obj_t n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, nullptr); n;
         n = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, n)) {
      if (!n->cpuset || hwloc_bitmap_iszero(n->cpuset)) continue;
      if (hwloc_bitmap_isincluded(core->cpuset, n->cpuset)) {
        c.numa = dense;
        c.numa_cpus = glibc(n->cpuset);
        break;
      }
      ++dense;
    }
    plan.cores.push_back(c);
  }
  plan.numas = 1;
  for (const BindPlan::Core& c : plan.cores) plan.numas = std::max(plan.numas, c.numa + 1);
  if (plan.cores.empty()) err = "hwloc found no cores";
  hwloc_topology_destroy(topo);
  return plan;
}

cpu_set_t bind_cpus(const BindPlan& plan, Binding bind, MapBy map_by, int ppr, int local_rank) {
  const int ncores = static_cast<int>(plan.cores.size());
  int c = local_rank % ncores;
  if (map_by == MapBy::Package || map_by == MapBy::Numa) {
    // ppr:N:unit: N ranks on each unit in turn; the unit alone (Open MPI's
    // --map-by package): one rank on each unit in turn, round and round.
    const bool pkg = map_by == MapBy::Package;
    const int units = std::max(1, pkg ? plan.packages : plan.numas);
    const int unit = ppr > 0 ? (local_rank / ppr) % units : local_rank % units;
    const int nth = ppr > 0 ? local_rank % ppr : local_rank / units;
    std::vector<int> in_unit;
    for (int k = 0; k < ncores; ++k)
      if ((pkg ? plan.cores[static_cast<size_t>(k)].package : plan.cores[static_cast<size_t>(k)].numa) == unit)
        in_unit.push_back(k);
    if (!in_unit.empty()) c = in_unit[static_cast<size_t>(nth) % in_unit.size()];
  }
  const BindPlan::Core& core = plan.cores[static_cast<size_t>(c)];
  return bind == Binding::Package ? core.package_cpus : bind == Binding::Numa ? core.numa_cpus : core.cpus;
}

AutoBinding auto_binding(const BindPlan& plan, int nlocal, const cpu_set_t& allowed, const cpu_set_t& taken) {
  AutoBinding a;
  CPU_ZERO(&a.claim);
  if (nlocal <= 0) return a;
  cpu_set_t none;
  CPU_ZERO(&none);
  std::vector<size_t> usable, free;
  cpu_set_t free_cpus;
  CPU_ZERO(&free_cpus);
  for (size_t i = 0; i < plan.cores.size(); ++i) {
    const cpu_set_t& c = plan.cores[i].cpus;
    cpu_set_t in, busy;
    CPU_AND(&in, &c, &allowed);
    if (CPU_COUNT(&c) == 0 || !CPU_EQUAL(&in, &c)) continue;
    usable.push_back(i);
    CPU_AND(&busy, &c, &taken);
    if (CPU_EQUAL(&busy, &none)) {
      free.push_back(i);
      CPU_OR(&free_cpus, &free_cpus, &c);
    }
  }
  const auto n = static_cast<size_t>(nlocal);
  const char* ranks = nlocal == 1 ? "rank" : "ranks";
  if (n > usable.size()) {
    a.why = fmt::format("{} {} on {} core{} this launcher may use: oversubscribed, not bound", nlocal, ranks,
                        usable.size(), usable.size() == 1 ? "" : "s");
    return a;
  }
  if (n > free.size()) {
    a.why = fmt::format("{} {}, {} of the {} usable cores free (other Chorus jobs on this host hold cpus {}): "
                        "not bound",
                        nlocal, ranks, free.size(), usable.size(), cpu_list(taken));
    return a;
  }
  a.bind = n <= 2 ? Binding::Core : Binding::Package;
  for (size_t r = 0; r < n; ++r) {
    const BindPlan::Core& core = plan.cores[free[r]];
    CPU_OR(&a.claim, &a.claim, &core.cpus);
    cpu_set_t set = core.cpus;
    if (a.bind == Binding::Package) CPU_AND(&set, &core.package_cpus, &free_cpus);
    a.cpus.push_back(set);
  }
  a.why = fmt::format("{} {}, {} free core{} of {} usable: {} (cpus {} taken)", nlocal, ranks, free.size(),
                      free.size() == 1 ? "" : "s", usable.size(),
                      a.bind == Binding::Core ? "bound to a core each"
                                              : "each bound to its core's package (more than 2 ranks)",
                      cpu_list(a.claim));
  return a;
}

}  // namespace chorus::launcher
