#include "launcher/server/launcher.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <chrono>
#include <cstring>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "core/hang.h"
#include "core/log.h"
#include "core/params.h"
#include "core/shm_segment.h"
#include "launcher/server/hang_table.h"
#include "launcher/server/pmix_host.h"
#include "launcher/server/procs.h"
#include "launcher/server/session_dir.h"

extern char** environ;

namespace chorus::launcher {
namespace {

using Clock = std::chrono::steady_clock;

// After SIGKILL, how long to wait for the kernel before giving up on a rank
// (a process stuck in uninterruptible sleep cannot be reaped any sooner).
constexpr auto kGiveUpAfterKill = std::chrono::seconds(5);
// Once every process of the job is gone, how long to wait for pipes that some
// escaped process (one that left its process group) still holds open.
constexpr auto kPipeDrain = std::chrono::milliseconds(200);

// One line to stderr in a single write, so it never splits a rank's line.
void say(const std::string& what) {
  std::string line = fmt::format("mpirun: {}\n", what);
  const char* p = line.data();
  size_t n = line.size();
  while (n > 0) {
    ssize_t w = ::write(2, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return;
    p += w;
    n -= static_cast<size_t>(w);
  }
}

std::string hostname() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

bool is_pmix_var(const char* entry) { return std::strncmp(entry, "PMIX_", 5) == 0; }

// Drops inherited PMIX_* identity (an outer launcher's namespace, rank, server
// URI) from our own environment before the server library reads it. PMIX_MCA_*
// tuning is kept for the server itself; ranks never inherit either.
void strip_own_pmix_env() {
  std::vector<std::string> names;
  for (char** e = environ; *e; ++e) {
    if (!is_pmix_var(*e) || std::strncmp(*e, "PMIX_MCA_", 9) == 0) continue;
    const char* eq = std::strchr(*e, '=');
    names.emplace_back(*e, eq ? static_cast<size_t>(eq - *e) : std::strlen(*e));
  }
  for (const auto& n : names) ::unsetenv(n.c_str());
}

// Sets NAME=VALUE in an environment vector, replacing an earlier NAME.
void env_set(std::vector<std::string>& env, std::string_view name, std::string_view value) {
  std::string entry = fmt::format("{}={}", name, value);
  for (auto& e : env) {
    if (e.size() > name.size() && e.compare(0, name.size(), name) == 0 && e[name.size()] == '=') {
      e = std::move(entry);
      return;
    }
  }
  env.push_back(std::move(entry));
}

void env_set_entry(std::vector<std::string>& env, const std::string& entry) {
  size_t eq = entry.find('=');
  if (eq == std::string::npos) return;
  env_set(env, std::string_view(entry).substr(0, eq), std::string_view(entry).substr(eq + 1));
}

// Blocks the signals the event loop reads through a signalfd. Installed before
// the PMIx server starts its threads, which inherit the mask, so no thread but
// ours ever sees them. Restores everything on destruction.
class SignalFd {
 public:
  SignalFd() {
    sigemptyset(&set_);
    for (int s : {SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2, SIGQUIT}) sigaddset(&set_, s);
    ::sigprocmask(SIG_BLOCK, &set_, &old_mask_);
    struct sigaction ign;
    std::memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old_pipe_);  // a closed stdout must not kill us
    fd_ = ::signalfd(-1, &set_, SFD_CLOEXEC | SFD_NONBLOCK);
  }
  ~SignalFd() {
    if (fd_ >= 0) ::close(fd_);
    ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
  }
  SignalFd(const SignalFd&) = delete;
  SignalFd& operator=(const SignalFd&) = delete;
  int fd() const { return fd_; }

 private:
  sigset_t set_, old_mask_;
  struct sigaction old_pipe_;
  int fd_ = -1;
};

class Launcher {
 public:
  explicit Launcher(Options opts);
  ~Launcher();
  int run();

 private:
  enum class Phase { Running, Ending, Killed };

  Status prepare(std::string& err);
  Status start_ranks(std::string& err);
  void loop();
  int next_timeout_ms() const;
  void on_timers();
  void on_signal(int signo);
  void reap();
  void on_rank_exit(RankProc& p, int status);
  void handle_server_events();
  void on_fence(const ServerEvent& ev);
  RankProc* proc_of(int rank);
  void fail(int rank, const std::string& cause, int code);
  void begin_termination(int sig);
  void signal_groups(int sig);
  bool groups_empty();
  bool all_reaped() const;
  bool finished();
  void close_pipe(int& fd, LineForwarder& fwd);
  void maybe_report(bool force);
  // The hang doctor: ask every rank where it is, print the table (hang_table.h).
  void hang_doctor(const std::string& why);
  // CHORUS_HANG_TIMEOUT: a rank reported a long wait by itself.
  bool hang_reported();
  std::string hang_dir() const { return dir_.path() + "/hang"; }

  Job job_;
  std::string host_;
  Clock::time_point t_start_;
  SignalFd sig_;
  int devnull_ = -1;
  // Destroyed in reverse order: the server stops before its directory goes.
  SessionDir dir_;
  std::unique_ptr<PmixServer> server_;
  std::vector<RankProc> procs_;
  std::vector<bool> group_gone_;  // leader reaped and group seen empty
  std::vector<int> output_files_;  // --output-filename: the files ranks' output goes to
  // Terminal input for rank 0: the terminal (fd 0, -1 once done), the pipe to
  // rank 0 (-1 once closed) and what was read but not yet written to it.
  int tty_in_ = -1;
  int stdin_pipe_ = -1;
  std::string stdin_buf_;
  void pump_stdin(bool readable, bool writable);

  Phase phase_ = Phase::Running;
  int exit_code_ = 0;
  std::string report_;  // the failure line, printed once its rank's output is out
  int report_rank_ = -1;
  std::optional<Clock::time_point> job_deadline_, kill_at_, give_up_at_, drain_until_, hang_check_at_;
};

Launcher::Launcher(Options opts) : host_(hostname()), t_start_(Clock::now()) {
  std::string nspace = fmt::format("chorus.{}.{}", host_.substr(0, host_.find('.')), ::getpid());
  job_ = plan_local_job(std::move(opts), host_, nspace);
}

Launcher::~Launcher() {
  for (auto& p : procs_) {
    if (p.out_fd >= 0) ::close(p.out_fd);
    if (p.err_fd >= 0) ::close(p.err_fd);
  }
  if (devnull_ >= 0) ::close(devnull_);
  if (stdin_pipe_ >= 0) ::close(stdin_pipe_);
  for (int fd : output_files_) ::close(fd);
  server_.reset();
  dir_.remove();
}

Status Launcher::prepare(std::string& err) {
  if (sig_.fd() < 0) {
    err = fmt::format("signalfd: {}", std::strerror(errno));
    return Status::Internal;
  }
  // Grandchildren orphaned by a dying rank are re-parented to us, so we reap
  // them and see when a rank's process group is really empty.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  devnull_ = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull_ < 0) {
    err = fmt::format("/dev/null: {}", std::strerror(errno));
    return Status::Internal;
  }
  strip_own_pmix_env();
  CHORUS_TRY(dir_.create(host_.substr(0, host_.find('.')), err));
  server_ = PmixServer::start(dir_.path(), err);
  if (!server_) return Status::Bootstrap;
  return server_->register_job(job_, dir_.path(), err);
}

Status Launcher::start_ranks(std::string& err) {
  const Options& o = job_.opts;
  std::vector<std::string> base;
  for (char** e = environ; *e; ++e)
    if (!is_pmix_var(*e)) base.emplace_back(*e);
  for (const auto& [name, value] : o.exports) env_set(base, name, value);
  // Where ranks write hang-doctor reports (core/hang.h), and when they report by
  // themselves.
  ::mkdir(hang_dir().c_str(), 0700);
  env_set(base, "CHORUS_HANG_DIR", hang_dir());
  if (o.hang_timeout_s > 0) env_set(base, "CHORUS_HANG_TIMEOUT", fmt::format("{}", o.hang_timeout_s));

  std::vector<cpu_set_t> cores;
  if (o.bind == Binding::Core) {
    std::string why;
    cores = core_cpusets(why);
    if (cores.empty()) CHORUS_WARN(LAUNCH, "--bind-to core ignored: {}", why);
  }
  // Rank 0 reads our stdin. A terminal it cannot read itself (a rank in its own
  // process group reading it would be stopped by SIGTTIN): we read the terminal
  // and pass what comes through a pipe, as long as we are in its foreground
  // (in the background, reading it would stop us).
  const bool have_stdin = ::fcntl(0, F_GETFD) >= 0;
  const bool tty = have_stdin && ::isatty(0);
  const bool stdin_to_rank0 = have_stdin && !tty;
  int rank0_stdin = -1;  // the read end of that pipe
  if (tty && ::tcgetpgrp(0) == ::getpgrp()) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      rank0_stdin = fds[0];
      stdin_pipe_ = fds[1];
      ::fcntl(stdin_pipe_, F_SETFL, O_NONBLOCK);
      tty_in_ = 0;
    } else {
      CHORUS_WARN(LAUNCH, "rank 0 gets no terminal input: pipe: {}", std::strerror(errno));
    }
  }

  std::string programs;
  for (const App& a : o.apps)
    programs += fmt::format("{}{} x {}", programs.empty() ? "" : " : ", a.nprocs, a.program_path);
  CHORUS_LOG(INFO, LAUNCH, "job {}: {} ranks ({}) on {}, tmpdir {}, binding {}{}", job_.nspace,
             job_.size(), programs, host_, dir_.path(),
             cores.empty() ? "none" : "core", cores.empty() ? "" : fmt::format(" ({} cores)", cores.size()));

  auto binding = [&](int rank) {
    return cores.empty() ? std::string("not bound")
                         : fmt::format("cpus {}", cpu_list(cores[static_cast<size_t>(rank) % cores.size()]));
  };
  if (o.display_map) {
    // Open MPI's --display-map habit: where every rank goes, before any starts.
    std::string map = fmt::format("mpirun: map of job {}: {} ranks on {} node{}\n", job_.nspace, job_.size(),
                                  job_.nodes.size(), job_.nodes.size() == 1 ? "" : "s");
    map += fmt::format("mpirun: {:>6}  {:<16} {:>5}  {:<14} {}\n", "rank", "host", "local", "binding", "program");
    for (const RankSlot& s : job_.slots)
      map += fmt::format("mpirun: {:>6}  {:<16} {:>5}  {:<14} {}\n", s.rank,
                         job_.nodes[static_cast<size_t>(s.node)].hostname, s.local_rank, binding(s.rank),
                         o.apps[static_cast<size_t>(s.app)].argv[0]);
    std::fputs(map.c_str(), stdout);
    std::fflush(stdout);
  }

  procs_.resize(job_.local_node().ranks.size());
  group_gone_.assign(procs_.size(), false);
  for (size_t i = 0; i < procs_.size(); ++i) {
    int rank = job_.local_node().ranks[i];
    RankProc& p = procs_[i];
    p.rank = rank;
    std::string prefix = o.tag_output ? fmt::format("[{}] ", rank) : "";
    int out_fd = 1, err_fd = o.merge_stderr ? 1 : 2;
    if (!o.output_dir.empty()) {
      // Open MPI's layout: DIR/1/rank.N/stdout and stderr.
      const std::string dir = fmt::format("{}/1/rank.{}", o.output_dir, rank);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) {
        err = fmt::format("--output-filename: cannot create {}: {}", dir, ec.message());
        return Status::Internal;
      }
      auto open_file = [&](const char* name) {
        const std::string path = fmt::format("{}/{}", dir, name);
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) output_files_.push_back(fd);
        else err = fmt::format("--output-filename: cannot open {}: {}", path, std::strerror(errno));
        return fd;
      };
      out_fd = open_file("stdout");
      err_fd = out_fd < 0 || o.merge_stderr ? out_fd : open_file("stderr");
      if (err_fd < 0) return Status::Internal;
    }
    p.out = LineForwarder(out_fd, prefix, o.timestamp_output);
    p.err = LineForwarder(err_fd, prefix, o.timestamp_output);

    const RankSlot& slot = job_.slots[static_cast<std::size_t>(rank)];
    const App& app = o.apps[static_cast<std::size_t>(slot.app)];
    SpawnSpec spec;
    spec.path = app.program_path;
    spec.argv = app.argv;
    spec.env = base;
    spec.cwd = o.wdir;
    if (o.report_bindings)
      std::fprintf(stderr, "mpirun: rank %d on %s: %s\n", rank, job_.nodes[static_cast<size_t>(slot.node)].hostname.c_str(),
                   binding(rank).c_str());
    // What wrapper scripts read to pick a GPU or a log file per rank: Open MPI's,
    // PMI's and MPICH's (hydra's) names.
    const auto nlocal = std::to_string(job_.nodes[static_cast<std::size_t>(slot.node)].ranks.size());
    for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) env_set(spec.env, name, std::to_string(rank));
    for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) env_set(spec.env, name, std::to_string(job_.size()));
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
      env_set(spec.env, name, std::to_string(slot.local_rank));
    for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) env_set(spec.env, name, nlocal);
    env_set(spec.env, "OMPI_COMM_WORLD_NODE_RANK", std::to_string(slot.node_rank));
    std::vector<std::string> pmix_env;
    CHORUS_TRY(server_->register_client(job_, rank, pmix_env, err));
    for (const auto& e : pmix_env) env_set_entry(spec.env, e);
    spec.stdin_fd = rank != 0 ? devnull_ : stdin_to_rank0 ? 0 : rank0_stdin >= 0 ? rank0_stdin : devnull_;
    if (!cores.empty()) spec.cpus = cores[static_cast<size_t>(rank) % cores.size()];
    if (Status s = spawn_rank(spec, p, err); !ok(s)) {
      err = fmt::format("cannot start rank {}: {}", rank, err);
      return s;
    }
  }
  if (rank0_stdin >= 0) ::close(rank0_stdin);
  auto ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start_).count();
  CHORUS_LOG(INFO, LAUNCH, "launched {} ranks in {:.1f} ms", procs_.size(), ms);
  return Status::Ok;
}

int Launcher::run() {
  std::string err;
  if (!ok(prepare(err))) {
    say(err);
    return kExitLaunch;
  }
  if (job_.opts.timeout_s > 0)
    job_deadline_ = t_start_ + std::chrono::duration_cast<Clock::duration>(
                                   std::chrono::duration<double>(job_.opts.timeout_s));
  if (job_.opts.hang_timeout_s > 0) hang_check_at_ = t_start_ + std::chrono::milliseconds(250);
  if (!ok(start_ranks(err))) {
    // Whatever did start is ended like any failed job.
    say(err);
    exit_code_ = kExitLaunch;
    procs_.erase(std::remove_if(procs_.begin(), procs_.end(), [](const RankProc& p) { return p.pid < 0; }),
                 procs_.end());
    group_gone_.assign(procs_.size(), false);
    begin_termination(SIGTERM);
  }
  loop();
  maybe_report(true);
  CHORUS_LOG(INFO, LAUNCH, "job {} done in {:.1f} ms, exit {}", job_.nspace,
             std::chrono::duration<double, std::milli>(Clock::now() - t_start_).count(), exit_code_);
  return exit_code_;
}

void Launcher::loop() {
  std::vector<pollfd> fds;
  // What each pollfd past the first two is: (index into procs_, stderr?).
  std::vector<std::pair<size_t, bool>> who;
  while (!finished()) {
    fds.clear();
    who.clear();
    fds.push_back({sig_.fd(), POLLIN, 0});
    fds.push_back({server_->wake_fd(), POLLIN, 0});
    for (size_t i = 0; i < procs_.size(); ++i) {
      if (procs_[i].out_fd >= 0) {
        fds.push_back({procs_[i].out_fd, POLLIN, 0});
        who.emplace_back(i, false);
      }
      if (procs_[i].err_fd >= 0) {
        fds.push_back({procs_[i].err_fd, POLLIN, 0});
        who.emplace_back(i, true);
      }
    }
    // Terminal input for rank 0 (at the end, so the indexes above stay put).
    const size_t stdin_at = fds.size();
    constexpr size_t kStdinBuffer = 1 << 16;
    if (tty_in_ >= 0 && stdin_buf_.size() < kStdinBuffer) fds.push_back({tty_in_, POLLIN, 0});
    const size_t pipe_at = fds.size();
    if (stdin_pipe_ >= 0 && !stdin_buf_.empty()) fds.push_back({stdin_pipe_, POLLOUT, 0});
    int n = ::poll(fds.data(), fds.size(), next_timeout_ms());
    if (n < 0 && errno != EINTR) {
      CHORUS_WARN(LAUNCH, "poll: {}", std::strerror(errno));
      break;
    }
    if (n > 0 && (fds[0].revents & POLLIN)) {
      signalfd_siginfo si;
      while (::read(sig_.fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        if (si.ssi_signo != SIGCHLD) on_signal(static_cast<int>(si.ssi_signo));
    }
    if (n > 0 && (fds[1].revents & POLLIN)) handle_server_events();
    if (n > 0 && (stdin_at < fds.size() || pipe_at < fds.size()))
      pump_stdin(stdin_at < pipe_at && fds[stdin_at].revents, pipe_at < fds.size() && fds[pipe_at].revents);
    for (size_t k = 2; n > 0 && k < stdin_at; ++k) {
      if (!fds[k].revents) continue;
      RankProc& p = procs_[who[k - 2].first];
      bool is_err = who[k - 2].second;
      int& fd = is_err ? p.err_fd : p.out_fd;
      LineForwarder& fwd = is_err ? p.err : p.out;
      if (!pump_pipe(fd, fwd)) close_pipe(fd, fwd);
    }
    // Reaping every round, not only on SIGCHLD, costs one syscall and cannot
    // miss a child.
    reap();
    on_timers();
    maybe_report(false);
  }
}

void Launcher::pump_stdin(bool readable, bool writable) {
  if (readable) {
    char buf[4096];
    ssize_t got = ::read(tty_in_, buf, sizeof buf);
    if (got > 0) {
      stdin_buf_.append(buf, static_cast<size_t>(got));
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      tty_in_ = -1;  // end of input (Ctrl-D), or the terminal is gone
    }
  }
  if (writable || !stdin_buf_.empty()) {
    ssize_t put = stdin_pipe_ >= 0 ? ::write(stdin_pipe_, stdin_buf_.data(), stdin_buf_.size()) : -1;
    if (put > 0) {
      stdin_buf_.erase(0, static_cast<size_t>(put));
    } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
      // Rank 0 closed its stdin or is gone: stop taking the terminal's input.
      stdin_buf_.clear();
      tty_in_ = -1;
    }
  }
  if (tty_in_ < 0 && stdin_buf_.empty() && stdin_pipe_ >= 0) {
    ::close(stdin_pipe_);
    stdin_pipe_ = -1;
  }
}

int Launcher::next_timeout_ms() const {
  auto now = Clock::now();
  Clock::duration wait = std::chrono::seconds(1);  // an upper bound; timers are rechecked
  for (const auto& t : {job_deadline_, kill_at_, give_up_at_, drain_until_, hang_check_at_})
    if (t) wait = std::min(wait, std::max(Clock::duration::zero(), *t - now));
  // Waiting for grandchildren that are not our children: nothing wakes us.
  if (all_reaped()) wait = std::min<Clock::duration>(wait, std::chrono::milliseconds(20));
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
}

void Launcher::on_timers() {
  auto now = Clock::now();
  if (phase_ == Phase::Running && hang_check_at_ && now >= *hang_check_at_) {
    hang_check_at_ = now + std::chrono::milliseconds(250);
    if (hang_reported()) {
      hang_doctor(fmt::format("a rank waited {:g} s in one call", job_.opts.hang_timeout_s));
      say(fmt::format("ending the job: a rank waited longer than the hang timeout ({:g} s)",
                      job_.opts.hang_timeout_s));
      exit_code_ = kExitTimeout;
      begin_termination(SIGTERM);
      return;
    }
  }
  if (phase_ == Phase::Running && job_deadline_ && now >= *job_deadline_ && !all_reaped()) {
    hang_doctor(fmt::format("--timeout {:g} s", job_.opts.timeout_s));
    std::string still;
    for (const auto& p : procs_) {
      if (p.reaped) continue;
      if (!still.empty()) still += ", ";
      still += fmt::format("{} (pid {})", p.rank, p.pid);
    }
    say(fmt::format("job timed out after {:g} s; ranks still running: {}", job_.opts.timeout_s, still));
    exit_code_ = kExitTimeout;
    begin_termination(SIGTERM);
  }
  if (phase_ == Phase::Ending && kill_at_ && now >= *kill_at_) {
    CHORUS_LOG(INFO, LAUNCH, "grace period over: SIGKILL to what is left");
    signal_groups(SIGKILL);
    phase_ = Phase::Killed;
    kill_at_.reset();
    give_up_at_ = now + kGiveUpAfterKill;
  }
}

void Launcher::on_signal(int signo) {
  if (signo == SIGUSR1 || signo == SIGUSR2) {
    // Batch systems send these as warnings (time is running out), not to end
    // the job: pass them on and keep going. Only to each rank itself, not its
    // process group: a helper the rank started that does not expect them
    // would die of them; a rank that wants them passed on does so itself.
    CHORUS_LOG(INFO, LAUNCH, "forwarding signal {} ({}) to every rank", signo, strsignal(signo));
    for (const auto& p : procs_)
      if (!p.reaped) ::kill(p.pid, signo);
    return;
  }
  if (signo == SIGQUIT) {
    if (phase_ == Phase::Running) hang_doctor("SIGQUIT");
    return;
  }
  if (phase_ == Phase::Running) {
    say(fmt::format("received signal {} ({}); ending the job", signo, strsignal(signo)));
    exit_code_ = 128 + signo;
    begin_termination(signo);  // forward the signal itself, then the grace/kill policy
  } else if (phase_ == Phase::Ending) {
    // A second interrupt while ranks are winding down: stop waiting for them.
    signal_groups(SIGKILL);
    phase_ = Phase::Killed;
    kill_at_.reset();
    give_up_at_ = Clock::now() + kGiveUpAfterKill;
  }
}

void Launcher::reap() {
  int status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &status, WNOHANG)) > 0) {
    auto it = std::find_if(procs_.begin(), procs_.end(), [&](const RankProc& p) { return p.pid == pid; });
    if (it == procs_.end()) continue;  // an adopted grandchild
    // An abort is queued before its client may exit: take it first, so the
    // cause reads MPI_Abort and not the exit status that follows it.
    handle_server_events();
    on_rank_exit(*it, status);
  }
}

void Launcher::on_rank_exit(RankProc& p, int status) {
  p.reaped = true;
  p.wait_status = status;
  std::string how = describe_wait_status(status);
  CHORUS_LOG(INFO, LAUNCH, "rank {} (pid {}) ended: {}", p.rank, p.pid, how);
  // Shared-memory names a rank unlinks itself once its peers have mapped them; one
  // that died in between leaves them to us.
  if (int n = shm::remove_all_of(p.pid))
    CHORUS_LOG(INFO, LAUNCH, "rank {} left {} shared-memory name(s) in /dev/shm; removed", p.rank, n);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // A rank that connected to us (MPI_Init) and leaves without finalizing
    // (MPI_Finalize) has failed even with status 0: its peers may wait for it
    // forever. Open MPI ends the job too. A plain program never connects.
    if (p.connected && !p.finalized) fail(p.rank, "exited without calling MPI_Finalize", kExitUnfinalized);
    return;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fail(p.rank, how, code);
}

void Launcher::handle_server_events() {
  for (ServerEvent& ev : server_->take_events()) {
    switch (ev.kind) {
      case ServerEvent::Kind::Abort:
        CHORUS_LOG(INFO, LAUNCH, "rank {} called abort({}): {}", ev.rank, ev.status, ev.msg);
        fail(ev.rank, fmt::format("MPI_Abort(errorcode {})", ev.status), std::clamp(ev.status, 1, 255));
        // fail() has stopped the server, which already released the client
        // (its PMIx_Abort returns as the connection closes). Answering first
        // instead leaves a reply in flight at finalize, and libevent complains.
        if (phase_ == Phase::Running) server_->release_abort(ev);
        break;
      case ServerEvent::Kind::Connected:
        CHORUS_LOG(TRACE, LAUNCH, "rank {} connected", ev.rank);
        if (RankProc* p = proc_of(ev.rank)) p->connected = true;
        break;
      case ServerEvent::Kind::Finalized:
        CHORUS_LOG(TRACE, LAUNCH, "rank {} finalized", ev.rank);
        if (RankProc* p = proc_of(ev.rank)) p->finalized = true;
        break;
      case ServerEvent::Kind::Fence:
      case ServerEvent::Kind::DirectModex:
        on_fence(ev);
        break;
    }
  }
}

RankProc* Launcher::proc_of(int rank) {
  auto it = std::find_if(procs_.begin(), procs_.end(), [&](const RankProc& p) { return p.rank == rank; });
  return it != procs_.end() ? &*it : nullptr;
}

// The multi-node seam. With all ranks here, this node's contribution is the
// whole job's data (the library does not even call us then). Across nodes,
// this is where the contribution goes up the daemon tree and the gathered blob
// comes back, and where direct-modex requests are sent to the rank's daemon.
void Launcher::on_fence(const ServerEvent& ev) {
  if (ev.kind == ServerEvent::Kind::Fence) {
    if (job_.all_local()) server_->complete_fence(ev, PMIX_SUCCESS, ev.data);
    else server_->complete_fence(ev, PMIX_ERR_NOT_SUPPORTED, {});
  } else {
    // Every rank's data is on this node; the library asks only for ranks it
    // does not know, which do not exist.
    server_->complete_direct_modex(ev, PMIX_ERR_NOT_FOUND, {});
  }
}

void Launcher::fail(int rank, const std::string& cause, int code) {
  if (phase_ != Phase::Running) return;  // only the first failure speaks
  auto it = std::find_if(procs_.begin(), procs_.end(), [&](const RankProc& p) { return p.rank == rank; });
  pid_t pid = it != procs_.end() ? it->pid : -1;
  report_ = fmt::format("rank {} (pid {}) on host {} failed: {}", rank, pid, host_, cause);
  report_rank_ = rank;
  exit_code_ = code;
  begin_termination(SIGTERM);
}

void Launcher::begin_termination(int sig) {
  if (phase_ != Phase::Running) return;
  phase_ = Phase::Ending;
  job_deadline_.reset();  // from now on the grace period is the only clock
  double grace = std::max(0.0, param::KillGrace());
  CHORUS_LOG(INFO, LAUNCH, "ending the job: signal {} to every rank, SIGKILL after {:g} s", sig, grace);
  // Stop serving before any rank dies. In OpenPMIx 4.2.2, clients dropping
  // their connections while others wait in a fence make the library free the
  // fence tracker and then touch it again (a crash seen in about one job in
  // five after an abort). Once the job is ending, nobody needs PMIx any more.
  if (server_) server_->shutdown();
  signal_groups(sig);
  kill_at_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(grace));
}

void Launcher::signal_groups(int sig) {
  for (size_t i = 0; i < procs_.size(); ++i)
    if (!group_gone_[i]) ::kill(-procs_[i].pid, sig);
}

// True when no process of any rank's group is left. A group whose leader was
// reaped is checked once more and then never signalled again, so a recycled
// pid is never hit.
bool Launcher::groups_empty() {
  bool empty = true;
  for (size_t i = 0; i < procs_.size(); ++i) {
    if (group_gone_[i]) continue;
    if (procs_[i].reaped && ::kill(-procs_[i].pid, 0) != 0 && errno == ESRCH) {
      group_gone_[i] = true;
      continue;
    }
    empty = false;
  }
  return empty;
}

bool Launcher::all_reaped() const {
  return std::all_of(procs_.begin(), procs_.end(), [](const RankProc& p) { return p.reaped; });
}

bool Launcher::finished() {
  auto now = Clock::now();
  if (give_up_at_ && now >= *give_up_at_) {
    for (const auto& p : procs_)
      if (!p.reaped) CHORUS_WARN(LAUNCH, "rank {} (pid {}) survived SIGKILL; giving up on it", p.rank, p.pid);
    return true;
  }
  if (!all_reaped()) return false;
  if (!groups_empty()) {
    // The ranks are gone but something they started lives on: clean up after
    // a successful job too (this does not change the exit status).
    if (phase_ == Phase::Running) {
      CHORUS_LOG(INFO, LAUNCH, "every rank exited; ending processes they left behind");
      begin_termination(SIGTERM);
    }
    return false;
  }
  bool pipes_open = std::any_of(procs_.begin(), procs_.end(),
                                [](const RankProc& p) { return p.out_fd >= 0 || p.err_fd >= 0; });
  if (!pipes_open) return true;
  if (!drain_until_) drain_until_ = now + kPipeDrain;
  if (now < *drain_until_) return false;
  for (auto& p : procs_) {
    close_pipe(p.out_fd, p.out);
    close_pipe(p.err_fd, p.err);
  }
  return true;
}

void Launcher::close_pipe(int& fd, LineForwarder& fwd) {
  if (fd < 0) return;
  fwd.flush_partial();
  ::close(fd);
  fd = -1;
}

// The failure line comes after the failing rank's own last words.
void Launcher::maybe_report(bool force) {
  if (report_.empty()) return;
  auto it = std::find_if(procs_.begin(), procs_.end(), [&](const RankProc& p) { return p.rank == report_rank_; });
  bool drained = it == procs_.end() || (it->out_fd < 0 && it->err_fd < 0);
  if (!force && !drained && phase_ != Phase::Killed) return;
  say(report_);
  report_.clear();
}

}  // namespace

int run_job(Options opts) {
  Launcher l(std::move(opts));
  return l.run();
}

}  // namespace chorus::launcher

namespace chorus::launcher {

bool Launcher::hang_reported() {
  for (const auto& p : procs_) {
    struct stat st;
    if (::stat(fmt::format("{}/hang.{}", hang_dir(), p.rank).c_str(), &st) == 0 && st.st_size > 0) return true;
  }
  return false;
}

void Launcher::hang_doctor(const std::string& why) {
  // Only ranks that connected (MPI_Init installed the report handler); the
  // report signal would end a plain program.
  std::vector<const RankProc*> asked;
  for (const auto& p : procs_) {
    ::unlink(fmt::format("{}/hang.{}", hang_dir(), p.rank).c_str());
    if (p.connected && !p.reaped && ::kill(p.pid, hang::report_signal()) == 0) asked.push_back(&p);
  }
  if (asked.empty()) return;  // no MPI rank running: nothing to diagnose
  // Each answers from its signal handler: give them a moment (a rank the kernel
  // has not scheduled yet, on a busy node, a little longer).
  auto read_report = [&](int rank, std::string& line) {
    std::FILE* f = std::fopen(fmt::format("{}/hang.{}", hang_dir(), rank).c_str(), "r");
    if (!f) return false;
    char buf[8192];
    std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    line.assign(buf, n);
    return !line.empty() && line.back() == '\n';
  };
  const auto until = Clock::now() + std::chrono::milliseconds(1500);
  std::vector<HangReport> reports;
  for (;;) {
    reports.clear();
    for (const RankProc* p : asked) {
      std::string line;
      if (read_report(p->rank, line)) reports.push_back(parse_hang_report(line));
    }
    if (reports.size() == asked.size() || Clock::now() >= until) break;
    ::usleep(20000);
  }
  for (const auto& line : hang_table(reports, job_.size(), why)) say(line);
}

}  // namespace chorus::launcher
