#include "launcher/server/launcher.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pmix.h>
#include <poll.h>
#include <sys/socket.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <functional>
#include <charconv>
#include <map>
#include <set>
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
#include "launcher/server/wire.h"

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
// How long a launched daemon may take to connect back (an ssh that asks for a
// password under BatchMode fails at once; one that hangs does not).
constexpr auto kConnectBack = std::chrono::seconds(60);
// Connections not yet authenticated: at most this many at once, and a first
// frame of at most this many bytes.
constexpr size_t kMaxPending = 64;
constexpr size_t kMaxPendingBytes = 4096;
// Input for a rank 0 on another host that it has not yet taken.
constexpr uint64_t kStdinInFlight = 256 * 1024;

// A tree edge whose pings go unanswered this long is lost (three heartbeats).
int liveness_ms() { return static_cast<int>(3000 * std::max(0.05, param::HeartbeatS())); }

// Who speaks in say(): "mpirun", or "chorusd" on other nodes.
const char* g_program = "mpirun";
void set_program_name(const char* name) { g_program = name; }

// While the launcher's loop runs, it writes what the output sinks queued;
// outside it, say() waits for its line to be written, watching the launcher's
// signals (g_sigfd) meanwhile. A signal that ends the job drops what is still
// queued from then on (g_drop_output) and is handed to the loop
// (g_deferred_signal); others wait for it there too.
bool g_in_loop = false;
int g_sigfd = -1;
bool g_drop_output = false;
std::vector<int> g_deferred_signals;

bool ends_job(uint32_t signo) { return signo == SIGINT || signo == SIGTERM || signo == SIGHUP; }

void drop_standard_output() {
  g_drop_output = true;
  for (int fd : {1, 2}) OutSink::standard(fd)->drop();
}

// Writes what the standard sinks hold, waiting for room, until they are empty
// or a signal that ends the job arrives (then what is left is dropped: a reader
// that never reads must not keep us alive).
void drain_standard_sinks() {
  while (!g_drop_output) {
    std::vector<pollfd> fds;
    for (int fd : {1, 2}) {
      const auto& s = OutSink::standard(fd);
      s->on_writable();
      if (!s->idle()) fds.push_back({s->poll_fd(), POLLOUT, 0});
    }
    if (fds.empty()) return;
    if (g_sigfd >= 0) fds.push_back({g_sigfd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR) return;
    if (g_sigfd >= 0 && (fds.back().revents & POLLIN)) {
      signalfd_siginfo si;
      while (::read(g_sigfd, &si, sizeof si) == static_cast<ssize_t>(sizeof si)) {
        if (si.ssi_signo == SIGCHLD) continue;
        g_deferred_signals.push_back(static_cast<int>(si.ssi_signo));
        if (ends_job(si.ssi_signo)) drop_standard_output();
      }
    }
  }
}

// One line to stderr in one piece (through the stderr sink, in order with the
// ranks' lines), so it never splits a rank's line.
void say(const std::string& what) {
  std::string line = fmt::format("{}: {}\n", g_program, what);
  const auto& sink = OutSink::standard(2);
  sink->write(line.data(), line.size());
  if (!g_in_loop && !sink->idle()) drain_standard_sinks();
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
    g_sigfd = fd_;
  }
  ~SignalFd() {
    if (g_sigfd == fd_) g_sigfd = -1;
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

// A launch agent this process started: an ssh (or the like) that runs one
// chorusd on one host, or one srun that runs a chorusd on each node of a Slurm
// allocation. Its stdout and stderr carry those daemons' and their ranks' output.
struct Agent {
  pid_t pid = -1;  // also its process group
  std::string what;  // the command, for messages ("ssh -o BatchMode=yes h1")
  bool slurm = false;  // one srun for several daemons
  bool reaped = false;
  int out = -1, err = -1;  // read ends; -1 once closed
  LineForwarder out_fwd{1, ""}, err_fwd{2, ""};
  std::string err_tail;  // the last stderr bytes, for a launch failure
  std::string err_line;  // a partial stderr line (srun's task reports are read line by line)
  bool killed = false;
  std::optional<Clock::time_point> drain_until;  // its pipes, once it is gone
  std::vector<size_t> children;  // indexes into Launcher::children_
};

// A daemon this process started on another host, through a launch agent, and
// the subtree of nodes it serves (itself first; more when the tree is deep).
struct Child {
  int node = -1;
  std::vector<int> subtree;
  size_t agent = 0;   // index into Launcher::agents_
  wire::Conn conn;    // once it connected and proved the token
  bool done = false;  // sent Done: nothing of the job is left below it
  bool lost = false;  // its connection failed before Done
  Clock::time_point launched_at, last_heard;
};

// A connection accepted but not yet authenticated.
struct Pending {
  wire::Conn conn;
  std::string nonce;
  Clock::time_point since;
};

// A fence in progress at this tree node, keyed by its participants.
struct FenceAgg {
  int need = 0, got = 0;
  std::string data;
  std::deque<ServerEvent> own;  // this node's server waits for the result
  Clock::time_point started;
};

// Every rank of the job as the root sees it (local or reported by a daemon).
struct RankState {
  pid_t pid = -1;
  bool exited = false;
};

// A job a rank started with PMIx_Spawn (MPI_Comm_spawn): a namespace of its
// own, "<launched job's namespace>.spawn<id>", whose ranks run on this node
// (spawning is refused unless every rank of the launched job runs here). Its
// processes live in procs_ with RankProc::job == id, are forwarded, judged
// and ended as the launched job's ranks are: one that fails ends everything.
struct SpawnedJob {
  Job job;
  int id = 0;
  std::vector<RankState> ranks;
  bool failed = false;  // its start failed: what did start was killed, and its ends are not judged
};

class Launcher {
 public:
  // Root: mpirun. Daemon: chorusd on another host, `up` its authenticated
  // connection to the parent, `subtree` the nodes it serves (itself first).
  Launcher(Job job, std::string token);
  Launcher(Job job, std::string token, wire::Conn up, std::vector<int> subtree);
  ~Launcher();
  int run();
  // Daemons: what they pass on to the daemons they start in turn.
  void set_tree_env(std::vector<std::string> env, std::string agent, std::string prefix) {
    fwd_env_ = std::move(env);
    agent_ = std::move(agent);
    prefix_ = std::move(prefix);
  }

 private:
  enum class Phase { Running, Ending, Killed };
  bool is_root() const { return !up_.open() && !daemon_; }

  Status prepare(std::string& err);
  Status start_ranks(std::string& err);
  // What every rank's environment starts from (ours, -x, the hang doctor's
  // directory `hang_dir`).
  std::vector<std::string> base_env(const std::string& hang_dir) const;
  // Sends `p`'s output where the options say (--tag-output's label `label`,
  // --output-filename's DIR/`job_number`/rank.N).
  Status setup_output(RankProc& p, int job_number, const std::string& label, std::string& err);
  // --output-filename's file `name` (stdout, stderr) of a rank: -1 with `err` set
  // when it cannot be made.
  int open_output_file(int job_number, int rank, const char* name, std::string& err);
  // mpirun with --output-filename: a line of a launch agent's output that a
  // daemon marked as a rank's goes to that rank's file (true); else false.
  bool route_output(std::string_view line);
  // ---- dynamic processes (PMIx_Spawn, PMIx_Publish ...; spawn section below) ----
  void on_spawn(const ServerEvent& ev);
  // Prepares a spawned job's Job from the request; PMIX_SUCCESS or the status to refuse it with (`why`).
  pmix_status_t plan_spawn(const ServerEvent& ev, SpawnedJob& sj, std::string& why);
  void on_publish(const ServerEvent& ev);
  void on_lookup(const ServerEvent& ev);
  void on_unpublish(const ServerEvent& ev);
  void on_connect(const ServerEvent& ev);
  // Answers the waiting lookups that now have what they wait for.
  void answer_waiting_lookups();
  // 0: the launched job; k: spawned_[k - 1]; -1: no job of ours.
  int job_of(const std::string& nspace) const;
  const Job& job_at(int job) const { return job == 0 ? job_ : spawned_[static_cast<size_t>(job - 1)].job; }
  void loop();
  int next_timeout_ms() const;
  void on_timers();
  void on_signal(int signo);
  void reap();
  void on_rank_exit(RankProc& p, int status);
  // The root's judgement of a rank's end, wherever it ran.
  void judge_exit(int rank, int status, bool connected, bool finalized);
  void handle_server_events();
  void on_fence(const ServerEvent& ev);
  // Sends `frame` one edge closer to `node` (down to the child serving it, else
  // up); false when no open edge leads there.
  bool route_to_node(int node, std::string frame);
  // ModexAsk and ModexData frames, from either side.
  void on_modex_frame(wire::Msg type, const std::string& payload);
  RankProc* proc_of(int rank, int job = 0);
  // A rank of the launched job (`job` 0) or of a spawned one failed: the job ends.
  void fail(int rank, const std::string& cause, int code, int job = 0);
  void judge_spawned_exit(const RankProc& p, int status);
  void fail_node(int node, const std::string& cause);
  void begin_termination(int sig);
  void signal_groups(int sig);
  bool groups_empty();
  bool all_reaped() const;
  bool local_finished();
  bool finished();
  void send_exits();  // daemons: tell mpirun how ranks ended, once their output is out
  void close_pipe(int& fd, LineForwarder& fwd);
  // Every output sink this process writes to (the standard ones first).
  std::vector<OutSink*> sinks() const;
  // Some sink holds OutSink::kHighWater bytes nobody has taken yet.
  bool output_congested() const;
  void maybe_report(bool force);
  // The hang doctor: ask every rank where it is, print the table (hang_table.h).
  void hang_doctor(const std::string& why);
  // This node's ranks' report lines (asks them, waits up to 1.5 s): the hang
  // doctor's local half, which daemons send up as HangLines.
  std::vector<std::string> local_hang_reports();
  // CHORUS_HANG_TIMEOUT: a rank reported a long wait by itself.
  bool hang_reported();
  std::string hang_dir() const { return dir_.path() + "/hang"; }
  const std::string& node_host(int node) const { return job_.nodes[static_cast<size_t>(node)].hostname; }

  // ---- the daemon tree (tree section below) ----
  Status start_daemons(std::string& err);
  void on_accept();
  void on_pending(Pending& p);
  void close_listener_if_done();
  void on_child_message(Child& c, wire::Msg type, const std::string& payload);
  void on_parent_message(wire::Msg type, const std::string& payload);
  void child_lost(Child& c, const std::string& why);
  // A daemon's connection to its parent is gone: end this node's ranks.
  void parent_lost(const std::string& why);
  void on_agent_exit(Agent& a, int status);
  void on_agent_stderr(Agent& a);
  // The launch of `c` failed before it connected: `cause` says why.
  void launch_failed(Child& c, const std::string& cause);
  // Its daemons are all done or lost: nothing is left for the agent to carry.
  bool agent_idle(const Agent& a) const;
  Status start_agent(Agent& a, const std::string& path, std::vector<std::string> argv, std::vector<std::string> env,
                     std::string& err);
  void contribute(const std::string& key, std::string data, std::optional<ServerEvent> own);
  void fence_complete(const std::string& key, pmix_status_t st, const std::string& data);
  void send_up(std::string frame);
  void send_down(const std::string& frame);
  Child* child_of_node(int node);

  Job job_;
  std::string host_;
  Clock::time_point t_start_;
  SignalFd sig_;
  int devnull_ = -1;
  // Destroyed in reverse order: the server stops before its directory goes.
  SessionDir dir_;
  std::unique_ptr<PmixServer> server_;
  // Local ranks, then the processes of spawned jobs as they start: a deque, so
  // that starting them (from a handler of the loop) moves none.
  std::deque<RankProc> procs_;
  std::vector<bool> group_gone_;  // leader reaped and group seen empty
  std::vector<int> output_files_;  // --output-filename: the files ranks' output goes to
  // mpirun's files for other hosts' ranks: (rank, stderr?) -> the file's sink.
  std::map<std::pair<int, bool>, std::shared_ptr<OutSink>> remote_output_;
  bool output_abandoned_ = false;  // a signal ended the job: queued output is not waited for
  // Rank 0's stdin. mpirun hands its fd 0 to a local rank 0 as it is, unless
  // it is a terminal (a rank in its own process group reading it would be
  // stopped by SIGTTIN) or rank 0 runs on another host: then mpirun reads it
  // itself (stdin_in_: 0, -1 once done). Locally the bytes go through a pipe;
  // to another host they go down the tree as Stdin frames, at most
  // kStdinInFlight bytes that rank 0's node has not yet acknowledged
  // (StdinAck), so a rank 0 that never reads holds up only that much. The node
  // of rank 0 writes them into rank 0's pipe (stdin_pipe_, -1 once closed) from
  // stdin_buf_; stdin_open_ while more may come.
  int stdin_in_ = -1;
  bool stdin_remote_ = false;  // mpirun: rank 0 is on another host
  bool stdin_eof_pending_ = false;  // mpirun: no input for a remote rank 0, only its end to send
  uint64_t stdin_inflight_ = 0;
  int stdin_pipe_ = -1;
  bool stdin_open_ = false;
  std::string stdin_buf_;
  void pump_stdin(bool readable, bool writable);
  // The edge towards rank 0's node (nullptr: it is this node, or none is open).
  Child* stdin_route();
  void on_stdin_frame(const std::string& data);

  // The tree: the job's token, our children, our parent (daemons).
  bool daemon_ = false;
  std::string token_;
  std::vector<int> subtree_;  // daemons: the nodes below us, us first
  wire::Conn up_;
  bool up_lost_ = false;
  int listen_fd_ = -1;
  std::string listen_addr_;
  std::vector<std::string> fwd_env_;  // CHORUS_*/UCX_* settings every node applies
  std::string agent_, prefix_;         // the launch agent and --prefix, for our children
  std::vector<Child> children_;
  std::vector<Agent> agents_;
  std::deque<Pending> pending_;  // a deque: accepting one keeps references to the others valid
  std::map<std::string, FenceAgg> fences_;
  std::map<std::string, std::deque<ServerEvent>> awaiting_;  // daemons: own fences sent up
  std::map<int, ServerEvent> modex_waits_;  // direct-modex requests of local clients, by request
  int next_modex_req_ = 0;
  std::vector<RankState> ranks_;  // root: every rank
  std::deque<SpawnedJob> spawned_;  // jobs started by PMIx_Spawn, by id - 1
  // PMIx_Publish's names (MPI_Publish_name), and lookups waiting for them (PMIX_WAIT).
  std::map<std::string, Published> published_;
  std::deque<ServerEvent> waiting_lookups_;
  std::set<int> exit_sent_;       // daemons: ranks whose end went up
  std::map<int, Clock::time_point> reaped_at_;  // daemons: when each rank was reaped
  bool done_sent_ = false;
  std::optional<Clock::time_point> heartbeat_at_;
  Clock::duration heartbeat_{};

  Phase phase_ = Phase::Running;
  int exit_code_ = 0;
  std::string report_;  // the failure line, printed once its rank's output is out
  int report_rank_ = -1;
  int report_job_ = 0;
  std::optional<Clock::time_point> report_by_;
  bool hang_seen_remote_ = false;  // a daemon's rank reported a long wait
  std::optional<Clock::time_point> leftover_kill_at_;  // tree jobs: SIGKILL to what finished ranks left here  // a remote rank's line: printed by then at the latest
  std::optional<Clock::time_point> job_deadline_, kill_at_, give_up_at_, drain_until_, hang_check_at_;
};

Launcher::Launcher(Job job, std::string token)
    : job_(std::move(job)), host_(hostname()), t_start_(Clock::now()), token_(std::move(token)) {
  ranks_.resize(static_cast<size_t>(job_.size()));
}

Launcher::Launcher(Job job, std::string token, wire::Conn up, std::vector<int> subtree)
    : job_(std::move(job)),
      host_(hostname()),
      t_start_(Clock::now()),
      daemon_(true),
      token_(std::move(token)),
      subtree_(std::move(subtree)),
      up_(std::move(up)) {
  ranks_.resize(static_cast<size_t>(job_.size()));
}

Launcher::~Launcher() {
  for (auto& p : procs_) {
    if (p.out_fd >= 0) ::close(p.out_fd);
    if (p.err_fd >= 0) ::close(p.err_fd);
  }
  for (auto& a : agents_) {
    // An agent we gave up on must not outlive us (its daemons then see their
    // connections close and end their ranks).
    if (a.pid > 0 && !a.reaped) ::kill(-a.pid, SIGKILL);
    if (a.out >= 0) ::close(a.out);
    if (a.err >= 0) ::close(a.err);
  }
  if (listen_fd_ >= 0) ::close(listen_fd_);
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
  // Daemons first: their launch overlaps our own ranks' start.
  CHORUS_TRY(start_daemons(err));
  if (job_.this_node < 0) return Status::Ok;  // no rank here: mpirun only leads the tree
  server_ = PmixServer::start(dir_.path(), err);
  if (!server_) return Status::Bootstrap;
  return server_->register_job(job_, dir_.path(), err);
}

std::vector<std::string> Launcher::base_env(const std::string& hang_dir) const {
  const Options& o = job_.opts;
  std::vector<std::string> base;
  for (char** e = environ; *e; ++e)
    if (!is_pmix_var(*e)) base.emplace_back(*e);
  for (const auto& [name, value] : o.exports) env_set(base, name, value);
  // Where ranks write hang-doctor reports (core/hang.h), and when they report by
  // themselves.
  ::mkdir(hang_dir.c_str(), 0700);
  env_set(base, "CHORUS_HANG_DIR", hang_dir);
  if (o.hang_timeout_s > 0) env_set(base, "CHORUS_HANG_TIMEOUT", fmt::format("{}", o.hang_timeout_s));
  return base;
}

// What wrapper scripts read to pick a GPU or a log file per rank: Open MPI's,
// PMI's and MPICH's (hydra's) names.
void set_rank_vars(std::vector<std::string>& env, const RankSlot& slot, int size, size_t nlocal) {
  for (const char* name : {"OMPI_COMM_WORLD_RANK", "PMI_RANK"}) env_set(env, name, std::to_string(slot.rank));
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) env_set(env, name, std::to_string(size));
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID"})
    env_set(env, name, std::to_string(slot.local_rank));
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS"}) env_set(env, name, std::to_string(nlocal));
  env_set(env, "OMPI_COMM_WORLD_NODE_RANK", std::to_string(slot.node_rank));
}

int Launcher::open_output_file(int job_number, int rank, const char* name, std::string& err) {
  // Open MPI's layout: DIR/1/rank.N/stdout and stderr (spawned jobs: DIR/2, DIR/3 ...).
  const std::string dir = fmt::format("{}/{}/rank.{}", job_.opts.output_dir, job_number, rank);
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    err = fmt::format("--output-filename: cannot create {}: {}", dir, ec.message());
    return -1;
  }
  const std::string path = fmt::format("{}/{}", dir, name);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) output_files_.push_back(fd);
  else err = fmt::format("--output-filename: cannot open {}: {}", path, std::strerror(errno));
  return fd;
}

// The mark a daemon puts before each line of a rank's output for mpirun's files:
// "\x1e" RANK "o"|"e" "\x1f", then the line as it would be written there.
namespace {
std::string output_mark(int rank, bool err) { return fmt::format("\x1e{}{}\x1f", rank, err ? 'e' : 'o'); }
}  // namespace

Status Launcher::setup_output(RankProc& p, int job_number, const std::string& label, std::string& err) {
  const Options& o = job_.opts;
  std::string prefix = o.tag_output ? fmt::format("[{}] ", label) : "";
  int out_fd = 1, err_fd = o.merge_stderr ? 1 : 2;
  if (!o.output_dir.empty() && daemon_) {
    // The files are mpirun's, on its host: both streams go up through the
    // agent's stdout, each line marked with its rank and stream.
    p.out = LineForwarder(1, prefix, o.timestamp_output);
    p.err = LineForwarder(1, prefix, o.timestamp_output);
    p.out.set_lead(output_mark(p.rank, false));
    p.err.set_lead(output_mark(p.rank, !o.merge_stderr));
    return Status::Ok;
  }
  if (!o.output_dir.empty()) {
    out_fd = open_output_file(job_number, p.rank, "stdout", err);
    err_fd = out_fd < 0 || o.merge_stderr ? out_fd : open_output_file(job_number, p.rank, "stderr", err);
    if (err_fd < 0) return Status::Internal;
  }
  p.out = LineForwarder(out_fd, prefix, o.timestamp_output);
  p.err = LineForwarder(err_fd, prefix, o.timestamp_output);
  return Status::Ok;
}

bool Launcher::route_output(std::string_view line) {
  if (line.size() < 4 || line[0] != '\x1e') return false;
  const size_t end = line.find('\x1f');
  if (end == std::string_view::npos || end < 3) return false;
  const char stream = line[end - 1];
  int rank = -1;
  const auto [ptr, ec] = std::from_chars(line.data() + 1, line.data() + end - 1, rank);
  if (ec != std::errc() || ptr != line.data() + end - 1 || (stream != 'o' && stream != 'e') || rank < 0 ||
      rank >= job_.size())
    return false;
  const bool to_err = stream == 'e';
  auto it = remote_output_.find({rank, to_err});
  if (it == remote_output_.end()) {
    // The files are made at the start (start_ranks); one that could not be is
    // said once, and that stream's lines go to mpirun's own output.
    return false;
  }
  line.remove_prefix(end + 1);
  it->second->write(line.data(), line.size());
  return true;
}

Status Launcher::start_ranks(std::string& err) {
  const Options& o = job_.opts;
  std::vector<std::string> base = base_env(hang_dir());

  static const char* const kBindNames[] = {"none", "core", "package", "numa", "auto"};
  Binding bind = o.bind;
  // --bind-to auto with --map-by ppr:N:package|numa binds to that unit, as asked.
  if (bind == Binding::Auto && (o.map_by == MapBy::Package || o.map_by == MapBy::Numa))
    bind = o.map_by == MapBy::Package ? Binding::Package : Binding::Numa;
  // A rankfile that binds ranks here (slot=) binds only those: auto would pick
  // cores for the others without knowing which ones the slots take.
  const bool slots_here = std::any_of(job_.slots.begin(), job_.slots.end(), [&](const RankSlot& s) {
    return !s.cpu_slot.empty() && s.node == job_.this_node;
  });
  if (bind == Binding::Auto && slots_here) {
    CHORUS_LOG(INFO, LAUNCH, "--bind-to auto on {}: the rankfile binds ranks here (slot=): the others are not bound",
               host_);
    bind = Binding::None;
  }
  BindPlan plan;
  if (bind != Binding::None) {
    std::string why;
    plan = bind_plan(why);
    if (plan.empty()) {
      if (bind == Binding::Auto) CHORUS_LOG(INFO, LAUNCH, "--bind-to auto: not bound: {}", why);
      else CHORUS_WARN(LAUNCH, "--bind-to {} ignored: {}", kBindNames[static_cast<int>(bind)], why);
    }
  }
  // auto: this host's ranks on cores no other Chorus job here holds (auto_binding).
  std::vector<cpu_set_t> auto_cpus;  // by local rank
  if (bind == Binding::Auto) {
    bind = Binding::None;
    if (!plan.empty() && job_.this_node >= 0) {
      cpu_set_t allowed;
      CPU_ZERO(&allowed);
      if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0)
        for (const BindPlan::Core& c : plan.cores) CPU_OR(&allowed, &allowed, &c.cpus);
      AutoBinding a;
      dir_.claim_cpus([&](const cpu_set_t& taken) {
        a = auto_binding(plan, static_cast<int>(job_.local_node().ranks.size()), allowed, taken);
        return a.claim;
      });
      CHORUS_LOG(INFO, LAUNCH, "--bind-to auto on {}: {}", host_, a.why);
      auto_cpus = std::move(a.cpus);
      bind = a.bind;
    }
    if (auto_cpus.empty()) plan = BindPlan{};  // not bound
  }
  const char* bind_name = kBindNames[static_cast<int>(bind)];
  // Rank 0 reads our stdin. A terminal it cannot read itself (a rank in its own
  // process group reading it would be stopped by SIGTTIN): we read the terminal
  // and pass what comes through a pipe, as long as we are in its foreground
  // (in the background, reading it would stop us).
  // A daemon's own stdin is /dev/null: rank 0's comes from mpirun.
  const bool rank0_here = job_.slots[0].node == job_.this_node;
  const bool have_stdin = !daemon_ && ::fcntl(0, F_GETFD) >= 0;
  const bool tty = have_stdin && ::isatty(0);
  const bool readable_tty = tty && ::tcgetpgrp(0) == ::getpgrp();
  const bool stdin_to_rank0 = rank0_here && have_stdin && !tty;
  int rank0_stdin = -1;  // the read end of that pipe
  if (rank0_here && (readable_tty || daemon_)) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) == 0) {
      rank0_stdin = fds[0];
      stdin_pipe_ = fds[1];
      ::fcntl(stdin_pipe_, F_SETFL, O_NONBLOCK);
      stdin_open_ = true;
      if (!daemon_) stdin_in_ = 0;
    } else {
      CHORUS_WARN(LAUNCH, "rank 0 gets no input: pipe: {}", std::strerror(errno));
    }
  } else if (!rank0_here && !daemon_ && have_stdin && (!tty || readable_tty)) {
    stdin_in_ = 0;
    stdin_remote_ = true;
  } else if (!rank0_here && !daemon_) {
    // Nothing to read (stdin closed, or a terminal we are in the background
    // of): rank 0 still gets the end of input, as a local one gets /dev/null.
    stdin_remote_ = true;
    stdin_eof_pending_ = true;
  }

  std::string programs;
  for (const App& a : o.apps)
    programs += fmt::format("{}{} x {}", programs.empty() ? "" : " : ", a.nprocs, a.program_path);
  CHORUS_LOG(INFO, LAUNCH, "job {}: {} ranks ({}) on {}, tmpdir {}, binding {}{}", job_.nspace,
             job_.size(), programs, host_, dir_.path(),
             plan.empty() ? "none" : bind_name, plan.empty() ? "" : fmt::format(" ({} cores)", plan.cores.size()));

  // Each node binds its own ranks: a rankfile's slot= where it gives one (read
  // against this host's topology: the map shows other hosts' slots as written),
  // else by --bind-to (bind_cpus: local rank i on core i mod ncores, or on its
  // unit's cores with --map-by ppr:N:package|numa; or that core's package or NUMA node).
  std::map<int, cpu_set_t> slot_cpus;
  for (const RankSlot& s : job_.slots) {
    if (s.cpu_slot.empty() || s.node != job_.this_node) continue;
    std::string why;
    auto set = slot_cpuset(s.cpu_slot, why);
    if (!set) {
      err = fmt::format("--rankfile: rank {} on {}: {}", s.rank, host_, why);
      return Status::InvalidArg;
    }
    slot_cpus[s.rank] = *set;
  }
  auto cpus_of = [&](int rank) -> std::optional<cpu_set_t> {
    if (auto it = slot_cpus.find(rank); it != slot_cpus.end()) return it->second;
    const RankSlot& s = job_.slots[static_cast<size_t>(rank)];
    if (!auto_cpus.empty()) {
      if (s.node != job_.this_node) return std::nullopt;  // that host decides
      return auto_cpus[static_cast<size_t>(s.local_rank)];
    }
    if (plan.empty()) return std::nullopt;
    return bind_cpus(plan, bind, o.map_by, o.ppr, s.local_rank);
  };
  // Bound some other way than auto (which recorded its cores as it chose them):
  // record the CPUs taken, so that auto jobs started later keep off them.
  if (auto_cpus.empty() && job_.this_node >= 0) {
    cpu_set_t used;
    CPU_ZERO(&used);
    for (int rank : job_.local_node().ranks)
      if (auto set = cpus_of(rank)) CPU_OR(&used, &used, &*set);
    if (CPU_COUNT(&used) > 0) dir_.claim_cpus([&](const cpu_set_t&) { return used; });
  }
  auto binding = [&](int rank) {
    const RankSlot& s = job_.slots[static_cast<size_t>(rank)];
    if (!s.cpu_slot.empty() && s.node != job_.this_node) return fmt::format("slot={}", s.cpu_slot);
    if (o.bind == Binding::Auto && s.node != job_.this_node) return std::string("auto");  // its host decides
    auto set = cpus_of(rank);
    return set ? fmt::format("cpus {}", cpu_list(*set)) : std::string("not bound");
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

  if (is_root() && !o.output_dir.empty()) {
    // The files of other hosts' ranks are made here too, before they start.
    for (const RankSlot& s : job_.slots) {
      if (s.node == job_.this_node) continue;
      const int out_fd = open_output_file(1, s.rank, "stdout", err);
      const int err_fd = out_fd < 0 || o.merge_stderr ? out_fd : open_output_file(1, s.rank, "stderr", err);
      if (err_fd < 0) return Status::Internal;
      remote_output_[{s.rank, false}] = std::make_shared<OutSink>(out_fd);
      remote_output_[{s.rank, true}] =
          o.merge_stderr ? remote_output_[{s.rank, false}] : std::make_shared<OutSink>(err_fd);
    }
  }

  if (job_.this_node < 0) return Status::Ok;  // every rank is on other hosts
  procs_.resize(job_.local_node().ranks.size());
  group_gone_.assign(procs_.size(), false);
  for (size_t i = 0; i < procs_.size(); ++i) {
    int rank = job_.local_node().ranks[i];
    RankProc& p = procs_[i];
    p.rank = rank;
    CHORUS_TRY(setup_output(p, 1, std::to_string(rank), err));

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
    set_rank_vars(spec.env, slot, job_.size(), job_.nodes[static_cast<std::size_t>(slot.node)].ranks.size());
    std::vector<std::string> pmix_env;
    CHORUS_TRY(server_->register_client(job_, rank, pmix_env, err));
    for (const auto& e : pmix_env) env_set_entry(spec.env, e);
    spec.stdin_fd = rank != 0 ? devnull_ : stdin_to_rank0 ? 0 : rank0_stdin >= 0 ? rank0_stdin : devnull_;
    spec.cpus = cpus_of(rank);
    if (Status s = spawn_rank(spec, p, err); !ok(s)) {
      err = fmt::format("cannot start rank {}: {}", rank, err);
      return s;
    }
  }
  if (rank0_stdin >= 0) ::close(rank0_stdin);
  auto ms = std::chrono::duration<double, std::milli>(Clock::now() - t_start_).count();
  CHORUS_LOG(INFO, LAUNCH, "launched {} ranks in {:.1f} ms", procs_.size(), ms);
  if (daemon_) {
    wire::Encoder e(wire::Msg::Started);
    e.i32(job_.this_node).i32(static_cast<int32_t>(procs_.size()));
    for (const RankProc& p : procs_) e.i32(p.rank).i32(p.pid);
    send_up(std::move(e).frame());
  }
  for (const RankProc& p : procs_) ranks_[static_cast<size_t>(p.rank)].pid = p.pid;
  return Status::Ok;
}

int Launcher::run() {
  std::string err;
  const double hb = std::max(0.05, param::HeartbeatS());
  heartbeat_ = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(hb));
  Status st = prepare(err);
  if (ok(st) && is_root()) {
    if (job_.opts.timeout_s > 0)
      job_deadline_ = t_start_ + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(job_.opts.timeout_s));
    if (job_.opts.hang_timeout_s > 0) hang_check_at_ = t_start_ + std::chrono::milliseconds(250);
  }
  if (ok(st)) st = start_ranks(err);
  if (!ok(st)) {
    // Whatever did start (ranks, daemons) is ended like any failed job.
    if (daemon_) {
      send_up(wire::Encoder(wire::Msg::Failed).i32(job_.this_node).str(err).frame());
    } else {
      say(err);
    }
    exit_code_ = kExitLaunch;
    procs_.erase(std::remove_if(procs_.begin(), procs_.end(), [](const RankProc& p) { return p.pid < 0; }),
                 procs_.end());
    group_gone_.assign(procs_.size(), false);
    begin_termination(SIGTERM);
  }
  if (!children_.empty() || daemon_) heartbeat_at_ = Clock::now() + heartbeat_;
  if (daemon_ && job_.opts.hang_timeout_s > 0) hang_check_at_ = Clock::now() + std::chrono::milliseconds(250);
  loop();
  // The ranks' last output, before our own last words.
  drain_standard_sinks();
  maybe_report(true);
  CHORUS_LOG(INFO, LAUNCH, "job {} done in {:.1f} ms, exit {}", job_.nspace,
             std::chrono::duration<double, std::milli>(Clock::now() - t_start_).count(), exit_code_);
  if (daemon_ && !up_lost_) {
    // The last word up: everything of the job on this subtree is gone.
    send_up(wire::Encoder(wire::Msg::Done).i32(job_.this_node).frame());
    std::string why;
    up_.flush(2000, why);
  }
  return exit_code_;
}

std::vector<OutSink*> Launcher::sinks() const {
  std::vector<OutSink*> all{OutSink::standard(1).get(), OutSink::standard(2).get()};
  auto add = [&](const LineForwarder& f) {
    if (std::find(all.begin(), all.end(), f.sink().get()) == all.end()) all.push_back(f.sink().get());
  };
  for (const RankProc& p : procs_) {
    add(p.out);
    add(p.err);
  }
  for (const Agent& a : agents_) {
    add(a.out_fwd);
    add(a.err_fwd);
  }
  return all;
}

bool Launcher::output_congested() const {
  if (output_abandoned_) return false;
  for (OutSink* s : sinks())
    if (s->congested()) return true;
  return false;
}

void Launcher::loop() {
  g_in_loop = true;
  struct Leave {
    ~Leave() { g_in_loop = false; }
  } leave;
  // Signals that came while say() waited for room on stderr.
  for (int signo : std::exchange(g_deferred_signals, {})) on_signal(signo);
  std::vector<pollfd> fds;
  // What to do when each pollfd is ready (same index).
  std::vector<std::function<void(short)>> on;
  auto watch = [&](int fd, short events, std::function<void(short)> fn) {
    fds.push_back({fd, events, 0});
    on.push_back(std::move(fn));
  };
  while (!finished()) {
    fds.clear();
    on.clear();
    watch(sig_.fd(), POLLIN, [&](short) {
      signalfd_siginfo si;
      while (::read(sig_.fd(), &si, sizeof si) == static_cast<ssize_t>(sizeof si))
        if (si.ssi_signo != SIGCHLD) on_signal(static_cast<int>(si.ssi_signo));
    });
    if (server_) watch(server_->wake_fd(), POLLIN, [&](short) { handle_server_events(); });
    // Output: a rank's pipe is read only while the sink it feeds has room (a
    // reader that stops reading stops the ranks' writes, never this loop).
    for (RankProc& p : procs_) {
      if (p.out_fd >= 0 && !p.out.congested())
        watch(p.out_fd, POLLIN, [&](short) { if (!pump_pipe(p.out_fd, p.out)) close_pipe(p.out_fd, p.out); });
      if (p.err_fd >= 0 && !p.err.congested())
        watch(p.err_fd, POLLIN, [&](short) { if (!pump_pipe(p.err_fd, p.err)) close_pipe(p.err_fd, p.err); });
    }
    for (OutSink* s : sinks())
      if (!s->idle()) watch(s->poll_fd(), POLLOUT, [s](short) { s->on_writable(); });
    // Terminal input for rank 0.
    constexpr size_t kStdinBuffer = 1 << 16;
    // Remote: once rank 0 started (so every daemon on the way is connected).
    if (stdin_eof_pending_ && ranks_[0].pid > 0) {
      if (Child* c = stdin_route()) {
        c->conn.send(wire::Encoder(wire::Msg::Stdin).str("").frame());
        stdin_eof_pending_ = false;
      }
    }
    if (stdin_in_ >= 0 && (stdin_remote_ ? ranks_[0].pid > 0 && stdin_inflight_ < kStdinInFlight && stdin_route()
                                         : stdin_buf_.size() < kStdinBuffer))
      watch(stdin_in_, POLLIN, [&](short) { pump_stdin(true, false); });
    if (stdin_pipe_ >= 0 && !stdin_buf_.empty())
      watch(stdin_pipe_, POLLOUT, [&](short) { pump_stdin(false, true); });
    // The tree.
    if (listen_fd_ >= 0) watch(listen_fd_, POLLIN, [&](short) { on_accept(); });
    for (Pending& p : pending_)
      if (p.conn.open()) watch(p.conn.fd(), POLLIN, [&](short) { on_pending(p); });
    for (Agent& a : agents_) {
      if (a.out >= 0 && !a.out_fwd.congested())
        watch(a.out, POLLIN, [&](short) { if (!pump_pipe(a.out, a.out_fwd)) close_pipe(a.out, a.out_fwd); });
      if (a.err >= 0 && !a.err_fwd.congested()) watch(a.err, POLLIN, [&](short) { on_agent_stderr(a); });
    }
    for (Child& c : children_) {
      if (c.conn.open())
        watch(c.conn.fd(), static_cast<short>(POLLIN | (c.conn.want_write() ? POLLOUT : 0)), [&](short ev) {
          std::string why;
          bool alive = !(ev & POLLOUT) || c.conn.on_writable(why);
          if (alive && (ev & (POLLIN | POLLHUP | POLLERR))) alive = c.conn.on_readable(why);
          c.last_heard = Clock::now();  // any byte counts: a long frame in transit is no silence
          wire::Msg type;
          std::string payload;
          while (c.conn.open() && c.conn.next(type, payload)) {
            c.last_heard = Clock::now();
            on_child_message(c, type, payload);
          }
          if (!alive || !c.conn.open()) child_lost(c, why.empty() ? "protocol error" : why);
        });
    }
    if (up_.open())
      watch(up_.fd(), static_cast<short>(POLLIN | (up_.want_write() ? POLLOUT : 0)), [&](short ev) {
        std::string why;
        bool alive = !(ev & POLLOUT) || up_.on_writable(why);
        if (alive && (ev & (POLLIN | POLLHUP | POLLERR))) alive = up_.on_readable(why);
        wire::Msg type;
        std::string payload;
        while (up_.open() && up_.next(type, payload)) {
            on_parent_message(type, payload);
        }
        if (!alive || !up_.open()) parent_lost(why);
      });
    int n = ::poll(fds.data(), fds.size(), next_timeout_ms());
    if (n < 0 && errno != EINTR) {
      CHORUS_WARN(LAUNCH, "poll: {}", std::strerror(errno));
      break;
    }
    // Handlers may add pending connections or close fds, never remove from
    // procs_/children_, so the references they hold stay valid this round.
    for (size_t k = 0; n > 0 && k < fds.size(); ++k)
      if (fds[k].revents) on[k](fds[k].revents);
    pending_.erase(std::remove_if(pending_.begin(), pending_.end(), [](const Pending& p) { return !p.conn.open(); }),
                   pending_.end());
    // Reaping every round, not only on SIGCHLD, costs one syscall and cannot
    // miss a child.
    reap();
    on_timers();
    maybe_report(false);
  }
}

void Launcher::pump_stdin(bool readable, bool writable) {
  if (readable) {
    char buf[1 << 16];
    ssize_t got = ::read(stdin_in_, buf, sizeof buf);
    if (got > 0) {
      if (stdin_remote_) {
        if (Child* c = stdin_route()) c->conn.send(wire::Encoder(wire::Msg::Stdin).str({buf, static_cast<size_t>(got)}).frame());
        stdin_inflight_ += static_cast<uint64_t>(got);
      } else {
        stdin_buf_.append(buf, static_cast<size_t>(got));
      }
    } else if (got == 0 || (errno != EINTR && errno != EAGAIN)) {
      stdin_in_ = -1;  // end of input (Ctrl-D), or the terminal is gone
      stdin_open_ = false;
      if (Child* c = stdin_remote_ ? stdin_route() : nullptr)
        c->conn.send(wire::Encoder(wire::Msg::Stdin).str("").frame());  // empty: the end
    }
  }
  if (stdin_pipe_ < 0) return;
  if (writable || !stdin_buf_.empty()) {
    ssize_t put = ::write(stdin_pipe_, stdin_buf_.data(), stdin_buf_.size());
    if (put > 0) {
      stdin_buf_.erase(0, static_cast<size_t>(put));
      if (daemon_) send_up(wire::Encoder(wire::Msg::StdinAck).u64(static_cast<uint64_t>(put)).u8(0).frame());
    } else if (put < 0 && errno != EAGAIN && errno != EINTR) {
      // Rank 0 closed its stdin or is gone: take no more input for it.
      if (daemon_) send_up(wire::Encoder(wire::Msg::StdinAck).u64(stdin_buf_.size()).u8(1).frame());
      stdin_buf_.clear();
      stdin_in_ = -1;
      stdin_open_ = false;
    }
  }
  if (!stdin_open_ && stdin_buf_.empty()) {
    ::close(stdin_pipe_);
    stdin_pipe_ = -1;
  }
}

Child* Launcher::stdin_route() {
  const int node = job_.slots[0].node;
  for (Child& c : children_)
    if (std::find(c.subtree.begin(), c.subtree.end(), node) != c.subtree.end()) return c.conn.open() ? &c : nullptr;
  return nullptr;
}

// A daemon: input for rank 0 from mpirun (empty: the end of it).
void Launcher::on_stdin_frame(const std::string& data) {
  if (job_.slots[0].node != job_.this_node) {
    if (Child* c = stdin_route()) c->conn.send(wire::Encoder(wire::Msg::Stdin).str(data).frame());
    return;
  }
  if (stdin_pipe_ < 0) {  // rank 0 took no more: say so, and drop it
    send_up(wire::Encoder(wire::Msg::StdinAck).u64(data.size()).u8(1).frame());
    return;
  }
  if (data.empty()) stdin_open_ = false;
  stdin_buf_ += data;
  pump_stdin(false, false);
}

int Launcher::next_timeout_ms() const {
  auto now = Clock::now();
  Clock::duration wait = std::chrono::seconds(1);  // an upper bound; timers are rechecked
  for (const auto& t : {job_deadline_, kill_at_, give_up_at_, drain_until_, hang_check_at_, heartbeat_at_, report_by_})
    if (t) wait = std::min(wait, std::max(Clock::duration::zero(), *t - now));
  // Waiting for grandchildren that are not our children: nothing wakes us.
  if (!procs_.empty() && all_reaped()) wait = std::min<Clock::duration>(wait, std::chrono::milliseconds(20));
  return static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
}

void Launcher::on_timers() {
  auto now = Clock::now();
  if (heartbeat_at_ && now >= *heartbeat_at_) {
    // Every edge of the tree hears from both ends each period; one silent for
    // three periods is a lost node (a cut cable, a hung host), not a slow one.
    heartbeat_at_ = now + heartbeat_;
    const std::string ping = wire::Encoder(wire::Msg::Ping).frame();
    send_up(ping);
    send_down(ping);
    // Whether the other end still answers is its kernel's call (wire::link_lost:
    // these pings keep data in flight, so a cut link goes unacknowledged within
    // three periods). A peer whose loop is only blocked -- mpirun writing to a full
    // pipe, a daemon deep in a large fence -- still has its kernel acknowledge
    // them (or answer the probes of its closed window), and is not mistaken for dead.
    std::string lost_why;
    for (Child& c : children_)
      if (c.conn.open() && !c.done && !c.lost && wire::link_lost(c.conn.fd(), liveness_ms(), lost_why))
        child_lost(c, lost_why);
    if (up_.open() && wire::link_lost(up_.fd(), liveness_ms(), lost_why)) parent_lost(lost_why);
    for (Child& c : children_)
      if (!c.conn.open() && !c.done && !c.lost && now - c.launched_at > kConnectBack)
        child_lost(c, fmt::format("chorusd did not connect back within {} s (the launch agent still runs)",
                                  std::chrono::duration_cast<std::chrono::seconds>(kConnectBack).count()));
    for (Pending& p : pending_)
      if (p.conn.open() && now - p.since > std::chrono::seconds(5)) {
        CHORUS_WARN(LAUNCH, "closed a daemon connection from {}: no answer to the challenge in 5 s",
                    wire::peer_name(p.conn.fd()));
        p.conn.close();
      }
  }
  if (phase_ == Phase::Running && hang_check_at_ && now >= *hang_check_at_) {
    hang_check_at_ = now + std::chrono::milliseconds(250);
    if (daemon_ && hang_reported()) {
      // mpirun runs the doctor for the whole job.
      send_up(wire::Encoder(wire::Msg::HangSeen).i32(job_.this_node).frame());
      hang_check_at_.reset();
    } else if (!daemon_ && (hang_seen_remote_ || hang_reported())) {
      hang_doctor(fmt::format("a rank waited {:g} s in one call", job_.opts.hang_timeout_s));
      say(fmt::format("ending the job: a rank waited longer than the hang timeout ({:g} s)",
                      job_.opts.hang_timeout_s));
      exit_code_ = kExitTimeout;
      begin_termination(SIGTERM);
      return;
    }
  }
  if (phase_ == Phase::Running && job_deadline_ && now >= *job_deadline_) {
    job_deadline_.reset();
    hang_doctor(fmt::format("--timeout {:g} s", job_.opts.timeout_s));
    std::string still;
    for (int r = 0; r < job_.size(); ++r) {
      const RankState& st = ranks_[static_cast<size_t>(r)];
      if (st.exited) continue;
      if (!still.empty()) still += ", ";
      const int node = job_.slots[static_cast<size_t>(r)].node;
      still += node == job_.this_node ? fmt::format("{} (pid {})", r, st.pid)
                                      : fmt::format("{} (pid {} on {})", r, st.pid, node_host(node));
    }
    for (const SpawnedJob& sj : spawned_)
      for (size_t r = 0; r < sj.ranks.size(); ++r)
        if (!sj.ranks[r].exited)
          still += fmt::format("{}{} of {} (pid {})", still.empty() ? "" : ", ", r, sj.job.nspace, sj.ranks[r].pid);
    say(fmt::format("job timed out after {:g} s; ranks still running: {}", job_.opts.timeout_s, still));
    exit_code_ = kExitTimeout;
    begin_termination(SIGTERM);
  }
  if (phase_ == Phase::Ending && kill_at_ && now >= *kill_at_) {
    CHORUS_LOG(INFO, LAUNCH, "grace period over: SIGKILL to what is left");
    signal_groups(SIGKILL);
    send_down(wire::Encoder(wire::Msg::Terminate).i32(SIGKILL).frame());
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
    send_down(wire::Encoder(wire::Msg::Signal).i32(signo).frame());
    return;
  }
  if (signo == SIGQUIT) {
    if (phase_ == Phase::Running) hang_doctor("SIGQUIT");
    return;
  }
  // Output nobody reads must not keep an interrupted job alive.
  output_abandoned_ = true;
  drop_standard_output();
  for (OutSink* s : sinks()) s->drop();
  if (phase_ == Phase::Running) {
    say(fmt::format("received signal {} ({}); ending the job", signo, strsignal(signo)));
    exit_code_ = 128 + signo;
    begin_termination(signo);  // forward the signal itself, then the grace/kill policy
  } else if (phase_ == Phase::Ending) {
    // A second interrupt while ranks are winding down: stop waiting for them.
    signal_groups(SIGKILL);
    send_down(wire::Encoder(wire::Msg::Terminate).i32(SIGKILL).frame());
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
    if (it == procs_.end()) {
      for (Agent& a : agents_)
        if (a.pid == pid) on_agent_exit(a, status);
      continue;  // an agent, or an adopted grandchild
    }
    // (A pointer: a spawn among the events below adds to procs_, which keeps
    // its elements where they are but not its iterators.)
    RankProc* p = &*it;
    // An abort is queued before its client may exit: take it first, so the
    // cause reads MPI_Abort and not the exit status that follows it.
    handle_server_events();
    on_rank_exit(*p, status);
  }
}

void Launcher::on_rank_exit(RankProc& p, int status) {
  p.reaped = true;
  p.wait_status = status;
  CHORUS_LOG(INFO, LAUNCH, "{}rank {} (pid {}) ended: {}",
             p.job ? fmt::format("{} ", spawned_[static_cast<size_t>(p.job - 1)].job.nspace) : "", p.rank, p.pid,
             describe_wait_status(status));
  // Shared-memory names a rank unlinks itself once its peers have mapped them; one
  // that died in between leaves them to us.
  if (int n = shm::remove_all_of(p.pid))
    CHORUS_LOG(INFO, LAUNCH, "rank {} left {} shared-memory name(s) in /dev/shm; removed", p.rank, n);
  if (daemon_) {
    // mpirun judges every rank's end; it gets this one once the rank's output
    // is out (send_exits), so its failure line follows the rank's last words.
    reaped_at_[p.rank] = Clock::now();
    return;
  }
  if (p.job > 0) {
    judge_spawned_exit(p, status);
    return;
  }
  judge_exit(p.rank, status, p.connected, p.finalized);
}

// As judge_exit, for a process of a spawned job (always on this node).
void Launcher::judge_spawned_exit(const RankProc& p, int status) {
  SpawnedJob& sj = spawned_[static_cast<size_t>(p.job - 1)];
  sj.ranks[static_cast<size_t>(p.rank)].exited = true;
  if (sj.failed) return;  // killed by us after its start failed; the spawn was answered with an error
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    if (p.connected && !p.finalized) fail(p.rank, "exited without calling MPI_Finalize", kExitUnfinalized, p.job);
    return;
  }
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fail(p.rank, describe_wait_status(status), code, p.job);
}

void Launcher::judge_exit(int rank, int status, bool connected, bool finalized) {
  ranks_[static_cast<size_t>(rank)].exited = true;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    // A rank that connected to us (MPI_Init) and leaves without finalizing
    // (MPI_Finalize) has failed even with status 0: its peers may wait for it
    // forever. Open MPI ends the job too. A plain program never connects.
    if (connected && !finalized) fail(rank, "exited without calling MPI_Finalize", kExitUnfinalized);
    return;
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  fail(rank, describe_wait_status(status), code);
}

void Launcher::handle_server_events() {
  if (!server_) return;
  for (ServerEvent& ev : server_->take_events()) {
    // Once the job ends the server is stopped: its callbacks are gone.
    if (phase_ != Phase::Running && ev.kind != ServerEvent::Kind::Abort) continue;
    const int job = job_of(ev.nspace);
    switch (ev.kind) {
      case ServerEvent::Kind::Abort:
        CHORUS_LOG(INFO, LAUNCH, "rank {} of {} called abort({}): {}", ev.rank, ev.nspace, ev.status, ev.msg);
        if (job < 0) {  // no process of ours (cannot happen): let it go
          server_->release_abort(ev);
          break;
        }
        if (job > 0) {
          // A spawned process: the same as a rank of the launched job.
          fail(ev.rank, fmt::format("MPI_Abort(errorcode {})", ev.status), std::clamp(ev.status, 1, 255), job);
          if (phase_ == Phase::Running) server_->release_abort(ev);
          break;
        }
        if (daemon_) {
          // mpirun names the cause and ends the job everywhere; the client is
          // released when this node's server stops.
          send_up(wire::Encoder(wire::Msg::Abort).i32(ev.rank).i32(ev.status).str(ev.msg).frame());
          break;
        }
        fail(ev.rank, fmt::format("MPI_Abort(errorcode {})", ev.status), std::clamp(ev.status, 1, 255));
        // fail() has stopped the server, which already released the client
        // (its PMIx_Abort returns as the connection closes). Answering first
        // instead leaves a reply in flight at finalize, and libevent complains.
        if (phase_ == Phase::Running) server_->release_abort(ev);
        break;
      case ServerEvent::Kind::Connected:
        CHORUS_LOG(TRACE, LAUNCH, "rank {} of {} connected", ev.rank, ev.nspace);
        if (RankProc* p = proc_of(ev.rank, job)) p->connected = true;
        break;
      case ServerEvent::Kind::Finalized:
        CHORUS_LOG(TRACE, LAUNCH, "rank {} of {} finalized", ev.rank, ev.nspace);
        if (RankProc* p = proc_of(ev.rank, job)) p->finalized = true;
        break;
      case ServerEvent::Kind::Fence:
      case ServerEvent::Kind::DirectModex:
        on_fence(ev);
        break;
      case ServerEvent::Kind::ModexData:
        // A local rank's data for the node that asked (on_modex_frame).
        route_to_node(ev.node, wire::Encoder(wire::Msg::ModexData)
                                   .i32(ev.node)
                                   .i32(ev.req)
                                   .i32(ev.status)
                                   .str(ev.data)
                                   .frame());
        break;
      case ServerEvent::Kind::Spawn:
        on_spawn(ev);
        break;
      case ServerEvent::Kind::Publish:
        on_publish(ev);
        break;
      case ServerEvent::Kind::Lookup:
        on_lookup(ev);
        break;
      case ServerEvent::Kind::Unpublish:
        on_unpublish(ev);
        break;
      case ServerEvent::Kind::Connect:
      case ServerEvent::Kind::Disconnect:
        on_connect(ev);
        break;
    }
  }
}

RankProc* Launcher::proc_of(int rank, int job) {
  auto it = std::find_if(procs_.begin(), procs_.end(),
                         [&](const RankProc& p) { return p.rank == rank && p.job == job; });
  return it != procs_.end() ? &*it : nullptr;
}

int Launcher::job_of(const std::string& nspace) const {
  if (nspace == job_.nspace) return 0;
  for (const SpawnedJob& sj : spawned_)
    if (sj.job.nspace == nspace) return sj.id;
  return -1;
}

// Fences across nodes: this node's contribution joins its children's (see
// contribute() in the tree section). A client's request for a remote rank's
// data (a PMIx_Get after a fence that did not collect it: MPI_Init's does)
// goes through the tree to that rank's node, whose server answers once the
// rank committed it.
void Launcher::on_fence(const ServerEvent& ev) {
  if (ev.kind == ServerEvent::Kind::Fence) {
    if (job_.all_local()) {
      server_->complete_fence(ev, PMIX_SUCCESS, ev.data);
      return;
    }
    std::vector<int> who = ev.participants;
    std::sort(who.begin(), who.end());
    who.erase(std::unique(who.begin(), who.end()), who.end());
    std::string key;
    for (int r : who) key += fmt::format("{},", r);
    contribute(key.empty() ? "all" : key, ev.data, ev);
  } else {
    // Only the launched job has ranks elsewhere (spawned jobs run here, and the
    // library serves local ranks' data itself).
    const bool ours = ev.nspace == job_.nspace;
    const int node =
        ours && ev.rank >= 0 && ev.rank < job_.size() ? job_.slots[static_cast<size_t>(ev.rank)].node : -1;
    const int req = next_modex_req_++;
    if (node < 0 || node == job_.this_node ||
        !route_to_node(node, wire::Encoder(wire::Msg::ModexAsk).i32(job_.this_node).i32(req).i32(ev.rank).frame())) {
      server_->complete_direct_modex(ev, node < 0 ? PMIX_ERR_NOT_FOUND : PMIX_ERR_UNREACH, {});
      return;
    }
    CHORUS_LOG(TRACE, LAUNCH, "direct modex: asked {} for rank {}'s data", node_host(node), ev.rank);
    modex_waits_.emplace(req, ev);
  }
}

bool Launcher::route_to_node(int node, std::string frame) {
  for (Child& c : children_)
    if (std::find(c.subtree.begin(), c.subtree.end(), node) != c.subtree.end()) {
      if (!c.conn.open()) return false;
      c.conn.send(std::move(frame));
      return true;
    }
  if (!daemon_ || !up_.open()) return false;
  send_up(std::move(frame));
  return true;
}

void Launcher::on_modex_frame(wire::Msg type, const std::string& payload) {
  wire::Decoder d(payload);
  const int node = d.i32(), req = d.i32();
  if (type == wire::Msg::ModexAsk) {
    const int rank = d.i32();
    if (!d.ok() || rank < 0 || rank >= job_.size() || node < 0 || node >= static_cast<int>(job_.nodes.size())) return;
    const int target = job_.slots[static_cast<size_t>(rank)].node;
    if (target != job_.this_node) {
      route_to_node(target, wire::Encoder(type).raw(payload).frame());
    } else if (server_ && phase_ == Phase::Running) {
      server_->modex_request(rank, node, req);
    }
    return;
  }
  const int st = d.i32();
  std::string data = d.str();
  if (!d.ok()) return;
  if (node != job_.this_node) {
    route_to_node(node, wire::Encoder(type).raw(payload).frame());
    return;
  }
  auto it = modex_waits_.find(req);
  if (it == modex_waits_.end()) return;
  ServerEvent ev = std::move(it->second);
  modex_waits_.erase(it);
  if (server_ && phase_ == Phase::Running) server_->complete_direct_modex(ev, st, std::move(data));
}

void Launcher::fail(int rank, const std::string& cause, int code, int job) {
  if (phase_ != Phase::Running) return;  // only the first failure speaks
  bool here = true;
  if (job > 0) {
    const SpawnedJob& sj = spawned_[static_cast<size_t>(job - 1)];
    const RankProc* p = proc_of(rank, job);
    report_ = fmt::format("rank {} of spawned job {} (pid {}) on host {} failed: {}", rank, sj.job.nspace,
                          p ? p->pid : -1, host_, cause);
  } else {
    const RankSlot& slot = job_.slots[static_cast<size_t>(rank)];
    here = slot.node == job_.this_node;
    report_ = fmt::format("rank {} (pid {}) on host {} failed: {}", rank, ranks_[static_cast<size_t>(rank)].pid,
                          here ? host_ : node_host(slot.node), cause);
  }
  report_rank_ = rank;
  report_job_ = job;
  // A remote rank's last words come through its daemon's agent: give them a moment.
  if (!here) report_by_ = Clock::now() + kPipeDrain;
  exit_code_ = code;
  begin_termination(SIGTERM);
}

// A daemon (or its host, or the way to it) failed: the job cannot go on.
void Launcher::fail_node(int node, const std::string& cause) {
  if (phase_ != Phase::Running) return;
  report_ = fmt::format("chorusd on host {} failed: {}", node_host(node), cause);
  report_rank_ = -1;
  exit_code_ = kExitLaunch;
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
  send_down(wire::Encoder(wire::Msg::Terminate).i32(sig).frame());
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
  if (daemon_) send_exits();
  if (!local_finished()) return false;
  const auto now = Clock::now();
  for (const Child& c : children_)
    if (!c.done && !c.lost && !(give_up_at_ && now >= *give_up_at_)) return false;
  for (Agent& a : agents_) {
    if (!a.reaped) {
      if (give_up_at_ && now >= *give_up_at_) continue;  // given up on, killed in the destructor
      // An agent that outlives its daemons (an ssh kept open by something the
      // remote login started) has nothing left to carry.
      const bool quiet = std::all_of(a.children.begin(), a.children.end(), [&](size_t i) {
        return children_[i].lost || now - children_[i].last_heard > std::chrono::seconds(2);
      });
      if (agent_idle(a) && quiet && !a.killed) {
        ::kill(-a.pid, SIGKILL);
        a.killed = true;
      }
      return false;
    }
    if (a.out >= 0 || a.err >= 0) {
      // The agent is gone; what its pipes still hold comes now or never (read
      // to the end before closing: its last output and its exit come together).
      if (!a.drain_until) a.drain_until = now + kPipeDrain;
      if (now < *a.drain_until) return false;
      if (a.out >= 0) pump_pipe(a.out, a.out_fwd);
      close_pipe(a.out, a.out_fwd);
      if (a.err >= 0) on_agent_stderr(a);
      close_pipe(a.err, a.err_fwd);
    }
  }
  return true;
}

// True when every rank of this node (and whatever they started) is gone and
// their output is out.
bool Launcher::local_finished() {
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
    if (phase_ == Phase::Running && children_.empty() && !daemon_) {
      CHORUS_LOG(INFO, LAUNCH, "every rank exited; ending processes they left behind");
      begin_termination(SIGTERM);
    } else if (phase_ == Phase::Running && !leftover_kill_at_) {
      // Ranks elsewhere still run: end only what this node's ranks left behind.
      CHORUS_LOG(INFO, LAUNCH, "every rank here exited; ending processes they left behind");
      signal_groups(SIGTERM);
      leftover_kill_at_ = now + std::chrono::duration_cast<Clock::duration>(
                                    std::chrono::duration<double>(std::max(0.0, param::KillGrace())));
    } else if (leftover_kill_at_ && now >= *leftover_kill_at_) {
      signal_groups(SIGKILL);
      leftover_kill_at_ = now + std::chrono::hours(1);  // once
    }
    return false;
  }
  bool pipes_open = std::any_of(procs_.begin(), procs_.end(),
                                [](const RankProc& p) { return p.out_fd >= 0 || p.err_fd >= 0; });
  if (!pipes_open) return true;
  // Output still waits for a reader: the pipes hold the rest of it; the drain
  // clock starts once it is written.
  if (output_congested()) return false;
  if (!drain_until_) drain_until_ = now + kPipeDrain;
  if (now < *drain_until_) return false;
  for (auto& p : procs_) {
    close_pipe(p.out_fd, p.out);
    close_pipe(p.err_fd, p.err);
  }
  drain_until_.reset();
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
  auto it = std::find_if(procs_.begin(), procs_.end(),
                         [&](const RankProc& p) { return p.rank == report_rank_ && p.job == report_job_; });
  bool drained = report_by_ ? Clock::now() >= *report_by_ : it == procs_.end() || (it->out_fd < 0 && it->err_fd < 0);
  if (!force && !drained && phase_ != Phase::Killed) return;
  say(report_);
  report_.clear();
  report_by_.reset();
}

}  // namespace

int run_job(Options opts) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string me = host;
  std::string nspace = fmt::format("chorus.{}.{}", me.substr(0, me.find('.')), ::getpid());
  std::string err;
  Job job = plan_job(std::move(opts), local_host_names(), nspace, err);
  if (job.slots.empty()) {
    say(err.empty() ? "nothing to run" : err);
    return kExitUsage;
  }
  Launcher l(std::move(job), {});
  return l.run();
}

}  // namespace chorus::launcher

namespace chorus::launcher {

// The hang doctor watches the launched job's ranks (spawned jobs report into
// directories of their own, hang/spawnN, that it does not read).
bool Launcher::hang_reported() {
  for (const auto& p : procs_) {
    if (p.job != 0) continue;
    struct stat st;
    if (::stat(fmt::format("{}/hang.{}", hang_dir(), p.rank).c_str(), &st) == 0 && st.st_size > 0) return true;
  }
  return false;
}

std::vector<std::string> Launcher::local_hang_reports() {
  // Only ranks that connected (MPI_Init installed the report handler); the
  // report signal would end a plain program.
  std::vector<const RankProc*> asked;
  for (const auto& p : procs_) {
    if (p.job != 0) continue;
    ::unlink(fmt::format("{}/hang.{}", hang_dir(), p.rank).c_str());
    if (p.connected && !p.reaped && ::kill(p.pid, hang::report_signal()) == 0) asked.push_back(&p);
  }
  std::vector<std::string> lines;
  if (asked.empty()) return lines;
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
  for (;;) {
    lines.clear();
    for (const RankProc* p : asked) {
      std::string line;
      if (read_report(p->rank, line)) lines.push_back(line);
    }
    if (lines.size() == asked.size() || Clock::now() >= until) break;
    ::usleep(20000);
  }
  return lines;
}

void Launcher::hang_doctor(const std::string& why) {
  // Every node at once: the daemons ask their ranks while we ask ours.
  const std::string ask = wire::Encoder(wire::Msg::HangAsk).frame();
  size_t waiting = 0;
  for (Child& c : children_)
    if (c.conn.open() && !c.done) {
      c.conn.send(ask);
      waiting += c.subtree.size();
    }
  std::vector<HangReport> reports;
  bool any_rank = false;
  for (const std::string& line : local_hang_reports()) reports.push_back(parse_hang_report(line));
  any_rank = !reports.empty();
  // The daemons' answers (one per node below us), or what came by then.
  const auto until = Clock::now() + std::chrono::milliseconds(2500);
  while (waiting > 0 && Clock::now() < until) {
    std::vector<pollfd> fds;
    std::vector<Child*> who;
    for (Child& c : children_)
      if (c.conn.open()) {
        fds.push_back({c.conn.fd(), POLLIN, 0});
        who.push_back(&c);
      }
    if (fds.empty()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
    if (::poll(fds.data(), fds.size(), static_cast<int>(std::max<long>(1, left))) <= 0) continue;
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      Child& c = *who[k];
      std::string err;
      const bool alive = c.conn.on_readable(err);
      wire::Msg type;
      std::string payload;
      while (c.conn.open() && c.conn.next(type, payload)) {
        c.last_heard = Clock::now();
        if (type != wire::Msg::HangLines) {
          on_child_message(c, type, payload);
          continue;
        }
        wire::Decoder d(payload);
        d.i32();  // node
        const int n = d.i32();
        for (int i = 0; i < n && d.ok(); ++i) {
          const std::string line = d.str();
          if (d.ok()) reports.push_back(parse_hang_report(line));
        }
        any_rank = any_rank || n > 0;
        if (waiting > 0) --waiting;
      }
      if (!alive) child_lost(c, err);
    }
  }
  if (!any_rank) return;  // no MPI rank running: nothing to diagnose
  for (const auto& line : hang_table(reports, job_.size(), why)) say(line);
}

}  // namespace chorus::launcher

// ---- the daemon tree ----------------------------------------------------------
// mpirun starts one chorusd per other node through the launch agent, or, beyond
// CHORUS_LAUNCH_FANOUT nodes, one per group of nodes, and each of those starts
// the rest of its group the same way (launch_groups). Every edge is a TCP
// connection (wire.h): the child proves the job's token, gets the job, and from
// then on reports its ranks (Started, Exited, Abort), joins fences, and obeys
// Signal/Terminate. Output does not use the connection: a daemon's ranks write
// to the daemon's stdout/stderr, which the agent carries back like any remote
// command's output, and the parent forwards it line by line.

namespace chorus::launcher {

std::vector<std::vector<int>> launch_groups(const std::vector<int>& nodes, int fanout) {
  std::vector<std::vector<int>> groups;
  fanout = std::max(1, fanout);
  if (static_cast<int>(nodes.size()) <= fanout) {
    for (int n : nodes) groups.push_back({n});
    return groups;
  }
  // `fanout` contiguous groups of near-equal size; each one's first node leads it.
  const size_t base = nodes.size() / static_cast<size_t>(fanout), extra = nodes.size() % static_cast<size_t>(fanout);
  size_t at = 0;
  for (size_t g = 0; g < static_cast<size_t>(fanout); ++g) {
    const size_t len = base + (g < extra ? 1 : 0);
    groups.emplace_back(nodes.begin() + static_cast<std::ptrdiff_t>(at),
                        nodes.begin() + static_cast<std::ptrdiff_t>(at + len));
    at += len;
  }
  return groups;
}

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) {
    if (c == '\'') q += "'\\''";
    else q += c;
  }
  return q + "'";
}

// Words of a command given as one string (CHORUS_LAUNCH_AGENT): split at blanks,
// with '...' and "..." kept whole.
std::vector<std::string> split_words(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool have = false;
  char quote = 0;
  for (char c : s) {
    if (quote) {
      if (c == quote) quote = 0;
      else cur += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      have = true;
    } else if (c == ' ' || c == '\t') {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    } else {
      cur += c;
      have = true;
    }
  }
  if (have) out.push_back(cur);
  return out;
}

// The nodes that take part in a fence keyed `key` ("all", or "r1,r2,...,").
std::set<int> fence_nodes(const Job& job, const std::string& key) {
  std::set<int> nodes;
  if (key == "all") {
    for (size_t n = 0; n < job.nodes.size(); ++n) nodes.insert(static_cast<int>(n));
    return nodes;
  }
  size_t at = 0;
  while (at < key.size()) {
    size_t comma = key.find(',', at);
    int r = std::atoi(key.substr(at, comma - at).c_str());
    if (r >= 0 && r < job.size()) nodes.insert(job.slots[static_cast<size_t>(r)].node);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return nodes;
}

bool touches(const std::vector<int>& subtree, const std::set<int>& nodes) {
  return std::any_of(subtree.begin(), subtree.end(), [&](int n) { return nodes.count(n) != 0; });
}

std::string last_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  size_t nl = text.rfind('\n');
  return nl == std::string::npos ? text : text.substr(nl + 1);
}

}  // namespace

namespace {

Child* Launcher::child_of_node(int node) {
  for (Child& c : children_)
    if (c.node == node) return &c;
  return nullptr;
}

Status Launcher::start_daemons(std::string& err) {
  std::vector<int> below;
  if (daemon_) {
    below.assign(subtree_.begin() + 1, subtree_.end());
  } else {
    for (int n = 0; n < static_cast<int>(job_.nodes.size()); ++n)
      if (n != job_.this_node) below.push_back(n);
    // What every node must agree on: Chorus's and UCX's tunables (a collective
    // algorithm forced on one node only would deadlock).
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "CHORUS_", 7) == 0 || std::strncmp(*e, "UCX_", 4) == 0) fwd_env_.emplace_back(*e);
    // Inside a Slurm allocation whose nodes are the job's, srun starts the
    // daemons unless the user named an agent.
    agent_ = !job_.opts.launch_agent.empty()                ? job_.opts.launch_agent
             : job_.opts.hosts_from.rfind("Slurm", 0) == 0 ? "srun"
                                                            : param::LaunchAgent();
    prefix_ = job_.opts.prefix;
  }
  if (below.empty()) return Status::Ok;
  std::vector<std::string> agent = split_words(agent_);
  if (agent.empty()) {
    err = "the launch agent (--launch-agent / CHORUS_LAUNCH_AGENT) is empty";
    return Status::Bootstrap;
  }
  // An agent that is srun without a %h starts every daemon in one step.
  const bool slurm = std::filesystem::path(agent[0]).filename() == "srun" && agent_.find("%h") == std::string::npos;
  // srun fans out by itself: every daemon is then our child.
  const auto groups = launch_groups(below, static_cast<int>(slurm ? below.size() : param::LaunchFanout()));
  std::string tree;
  for (const auto& g : groups)
    tree += fmt::format(" {}{}", node_host(g[0]), g.size() > 1 ? fmt::format("(+{} below)", g.size() - 1) : "");
  CHORUS_LOG(INFO, LAUNCH, "launch tree: {} daemon(s) from {}{}:{}", groups.size(), host_,
             slurm ? ", all through one srun" : "", tree);

  listen_addr_ = wire::pick_listen_address(node_host(groups[0][0]), err);
  if (listen_addr_.empty()) return Status::Bootstrap;
  int port = 0;
  listen_fd_ = wire::listen_on(listen_addr_, port, err);
  if (listen_fd_ < 0) return Status::Bootstrap;
  CHORUS_LOG(INFO, LAUNCH, "daemons connect back to {}:{}", listen_addr_, port);
  if (token_.empty()) token_ = wire::to_hex(wire::random_bytes(32));
  if (token_.size() < 32) {
    err = "cannot draw a random job token";
    return Status::Internal;
  }

  std::string chorusd;
  if (!prefix_.empty()) {
    chorusd = prefix_ + "/bin/chorusd";
  } else {
    // The chorusd next to us: the same install path on every node, as with a
    // shared file system or identical installs.
    std::error_code ec;
    chorusd = (std::filesystem::read_symlink("/proc/self/exe", ec).parent_path() / "chorusd").string();
  }
  std::string why;
  auto agent_path = resolve_program(agent[0], why);
  if (!agent_path) {
    err = fmt::format("launch agent '{}': {}", agent_, why);
    return Status::Bootstrap;
  }
  // Handlers keep references: never reallocate later.
  children_.reserve(below.size());
  agents_.reserve(below.size());
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) env.emplace_back(*e);
  if (slurm) {
    // One srun starts a chorusd on every node (Slurm fans it out), as Open MPI
    // starts its orteds; each daemon finds its node by Slurm's name for it.
    Agent& a = agents_.emplace_back();
    a.slurm = true;
    std::vector<std::string> argv = agent;
    std::string names, map;
    for (int n : below) {
      a.children.push_back(children_.size());
      Child& c = children_.emplace_back();
      c.node = n;
      c.subtree = {n};
      c.agent = agents_.size() - 1;
      names += (names.empty() ? "" : ",") + node_host(n);
      map += fmt::format("{}{}={}", map.empty() ? "" : ",", n, node_host(n));
    }
    const std::string k = std::to_string(below.size());
    for (std::string opt : {"--nodes=" + k, "--ntasks=" + k, std::string("--ntasks-per-node=1"), "--nodelist=" + names,
                            std::string("--mpi=none"), std::string("--cpu-bind=none"), std::string("--overlap"),
                            std::string("--input=all"), std::string("--quiet")})
      argv.push_back(std::move(opt));
    a.what = fmt::format("{} ... --nodelist={}", agent_, names);
    for (std::string w : {chorusd, std::string("--parent"), fmt::format("{}:{}", listen_addr_, port),
                          std::string("--slurm-nodes"), map})
      argv.push_back(std::move(w));
    if (!prefix_.empty())
      for (std::string& e : env) {
        if (e.rfind("PATH=", 0) == 0) e = fmt::format("PATH={}/bin:{}", prefix_, e.substr(5));
        if (e.rfind("LD_LIBRARY_PATH=", 0) == 0) e = fmt::format("LD_LIBRARY_PATH={}/lib:{}", prefix_, e.substr(16));
      }
    return start_agent(a, *agent_path, std::move(argv), std::move(env), err);
  }
  for (const auto& g : groups) {
    Agent& a = agents_.emplace_back();
    a.children.push_back(children_.size());
    Child& c = children_.emplace_back();
    c.node = g[0];
    c.subtree = g;
    c.agent = agents_.size() - 1;
    std::string cmd;
    if (!prefix_.empty())
      cmd = fmt::format("PATH={0}/bin:$PATH LD_LIBRARY_PATH={0}/lib:$LD_LIBRARY_PATH ", shell_quote(prefix_));
    cmd += fmt::format("exec {} --parent {}:{} --node {}", shell_quote(chorusd), listen_addr_, port, c.node);
    // The host goes where the agent says %h (srun -N1 -n1 -w %h sh -c), else
    // after the agent's words, as ssh takes it; the command string comes last.
    std::vector<std::string> argv;
    bool placed = false;
    for (const std::string& w : agent) {
      std::string word = w;
      for (size_t at; (at = word.find("%h")) != std::string::npos; placed = true) word.replace(at, 2, node_host(c.node));
      argv.push_back(std::move(word));
    }
    if (!placed) argv.push_back(node_host(c.node));
    a.what = fmt::format("{} {}", agent_, node_host(c.node));
    argv.push_back(cmd);
    if (Status st = start_agent(a, *agent_path, std::move(argv), env, err); !ok(st)) return st;
  }
  return Status::Ok;
}

Status Launcher::start_agent(Agent& a, const std::string& path, std::vector<std::string> argv,
                             std::vector<std::string> env, std::string& err) {
  if (is_root() && !job_.opts.output_dir.empty()) {
    // --output-filename: the ranks' marked lines go to their files here.
    auto route = [this](std::string_view line) { return route_output(line); };
    a.out_fwd.set_router(route);
    a.err_fwd.set_router(route);
  }
  int in[2];
  if (::pipe2(in, O_CLOEXEC) != 0) {
    err = fmt::format("pipe: {}", std::strerror(errno));
    return Status::Internal;
  }
  SpawnSpec spec;
  spec.path = path;
  spec.argv = std::move(argv);
  spec.env = std::move(env);
  spec.stdin_fd = in[0];
  RankProc proc;
  Status st = spawn_rank(spec, proc, err);
  ::close(in[0]);
  if (!ok(st)) {
    ::close(in[1]);
    err = fmt::format("cannot start the launch agent '{}': {}", a.what, err);
    return st;
  }
  // The token goes on the agent's stdin, never on a command line or in the
  // environment; a pipe holds it whole.
  const std::string line = token_ + "\n";
  if (::write(in[1], line.data(), line.size()) != static_cast<ssize_t>(line.size()))
    CHORUS_WARN(LAUNCH, "could not hand the token to '{}': {}", a.what, std::strerror(errno));
  ::close(in[1]);
  a.pid = proc.pid;
  a.out = proc.out_fd;
  a.err = proc.err_fd;
  std::string hosts;
  for (size_t i : a.children) {
    children_[i].launched_at = children_[i].last_heard = Clock::now();
    hosts += (hosts.empty() ? "" : ", ") + node_host(children_[i].node);
  }
  CHORUS_LOG(INFO, LAUNCH, "started chorusd on {} through '{}' (agent pid {})", hosts, a.what, proc.pid);
  return Status::Ok;
}

void Launcher::on_accept() {
  for (;;) {
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    wire::watch_liveness(fd);
    if (pending_.size() >= kMaxPending) {
      // A flood of strangers: the oldest make room (a real daemon answers at once).
      for (Pending& old : pending_)
        if (old.conn.open()) {
          old.conn.close();
          break;
        }
    }
    Pending& p = pending_.emplace_back();
    p.conn = wire::Conn(fd);
    p.nonce = wire::random_bytes(32);
    p.since = Clock::now();
    if (p.nonce.empty()) {  // no randomness, no challenge worth the name
      CHORUS_WARN(LAUNCH, "cannot draw a random challenge; closing a daemon connection");
      p.conn.close();
      continue;
    }
    p.conn.send(wire::Encoder(wire::Msg::Challenge).str(p.nonce).frame());
  }
}

void Launcher::on_pending(Pending& p) {
  std::string why;
  const std::string peer = wire::peer_name(p.conn.fd());
  bool alive = p.conn.on_readable(why);
  wire::Msg type;
  std::string payload;
  if (!p.conn.next(type, payload)) {
    if (alive && p.conn.open() && p.conn.buffered() > kMaxPendingBytes) {
      why = fmt::format("more than {} bytes before proving the token", kMaxPendingBytes);
      alive = false;
    }
    if (!alive || !p.conn.open()) {
      CHORUS_WARN(LAUNCH, "closed a daemon connection from {} before it proved the job token: {}", peer,
                  why.empty() ? "not our protocol" : why);
      p.conn.close();
    }
    return;
  }
  wire::Decoder d(payload);
  const int node = d.i32();
  const std::string answer = d.str();
  const std::string their_nonce = d.str();
  Child* c = type == wire::Msg::Auth && d.ok() ? child_of_node(node) : nullptr;
  if (!c || c->conn.open() || c->lost || !wire::auth_ok(token_, p.nonce, node, answer)) {
    CHORUS_WARN(LAUNCH, "rejected a daemon connection from {}: {}", peer,
                type != wire::Msg::Auth ? "not our protocol"
                : !c                    ? fmt::format("node {} is not ours to serve", node)
                : c->conn.open()        ? fmt::format("node {} is already connected", node)
                                        : "wrong job token");
    p.conn.close();
    return;
  }
  c->conn = std::move(p.conn);
  c->conn.accept_parts();  // it holds the token: long messages (a big fence) may come in parts
  c->last_heard = Clock::now();
  CHORUS_LOG(INFO, LAUNCH, "chorusd on {} connected from {} in {:.1f} ms and proved the token", node_host(c->node),
             peer, std::chrono::duration<double, std::milli>(c->last_heard - c->launched_at).count());
  wire::Encoder e(wire::Msg::Job);
  // We prove the token too, so a daemon takes a job only from its own mpirun.
  e.str(wire::auth_answer(token_, their_nonce, wire::parent_proof_node(node)));
  wire::encode_job(e, job_);
  e.i32(static_cast<int32_t>(c->subtree.size()));
  for (int n : c->subtree) e.i32(n);
  e.i32(static_cast<int32_t>(fwd_env_.size()));
  for (const auto& v : fwd_env_) e.str(v);
  e.str(agent_).str(prefix_);
  c->conn.send(e.frame());
  // Connected after the job began to end: it must not start ranks that nobody
  // will stop.
  if (phase_ != Phase::Running) c->conn.send(wire::Encoder(wire::Msg::Terminate).i32(SIGKILL).frame());
  close_listener_if_done();
}

// Once every daemon below us connected (or is lost), nobody else may.
void Launcher::close_listener_if_done() {
  if (listen_fd_ < 0) return;
  for (const Child& c : children_)
    if (!c.conn.open() && !c.done && !c.lost) return;
  ::close(listen_fd_);
  listen_fd_ = -1;
  for (Pending& p : pending_) p.conn.close();
}

void Launcher::send_up(std::string frame) {
  if (up_.open()) up_.send(std::move(frame));
}

void Launcher::send_down(const std::string& frame) {
  for (Child& c : children_)
    if (c.conn.open()) c.conn.send(frame);
}

void Launcher::on_child_message(Child& c, wire::Msg type, const std::string& payload) {
  wire::Decoder d(payload);
  // Same type, same payload: a daemon passes its children's reports up as they are.
  auto reframe = [&] { return wire::Encoder(type).raw(payload).frame(); };
  switch (type) {
    case wire::Msg::Started: {
      d.i32();  // node
      const int n = d.i32();
      for (int i = 0; i < n && d.ok(); ++i) {
        const int rank = d.i32(), pid = d.i32();
        if (d.ok() && rank >= 0 && rank < job_.size()) ranks_[static_cast<size_t>(rank)].pid = pid;
      }
      if (daemon_) send_up(reframe());
      break;
    }
    case wire::Msg::Fence: {
      const std::string key = d.str();
      std::string data = d.str();
      if (d.ok()) contribute(key, std::move(data), std::nullopt);
      break;
    }
    case wire::Msg::Exited: {
      const int rank = d.i32(), pid = d.i32(), status = d.i32();
      const bool connected = d.u8(), finalized = d.u8();
      if (!d.ok() || rank < 0 || rank >= job_.size()) break;
      ranks_[static_cast<size_t>(rank)].pid = pid;
      if (daemon_) {
        send_up(reframe());
      } else {
        CHORUS_LOG(INFO, LAUNCH, "rank {} (pid {}) on {} ended: {}", rank, pid,
                   node_host(job_.slots[static_cast<size_t>(rank)].node), describe_wait_status(status));
        judge_exit(rank, status, connected, finalized);
      }
      break;
    }
    case wire::Msg::Abort: {
      const int rank = d.i32(), code = d.i32();
      const std::string msg = d.str();
      if (!d.ok() || rank < 0 || rank >= job_.size()) break;
      if (daemon_) send_up(reframe());
      else fail(rank, fmt::format("MPI_Abort(errorcode {})", code), std::clamp(code, 1, 255));
      break;
    }
    case wire::Msg::Failed: {
      const int node = d.i32();
      const std::string cause = d.str();
      if (!d.ok() || node < 0 || node >= static_cast<int>(job_.nodes.size())) break;
      if (daemon_) send_up(reframe());
      else fail_node(node, cause);
      break;
    }
    case wire::Msg::HangSeen:
      if (daemon_) send_up(reframe());
      else hang_seen_remote_ = true;
      break;
    case wire::Msg::HangLines:
      if (daemon_) send_up(reframe());
      // The root reads these inside hang_doctor(); one that comes later is stale.
      break;
    case wire::Msg::ModexAsk:
    case wire::Msg::ModexData:
      on_modex_frame(type, payload);
      break;
    case wire::Msg::StdinAck: {
      const uint64_t took = d.u64();
      const bool closed = d.u8() != 0;
      if (daemon_) {
        send_up(reframe());
      } else if (d.ok()) {
        stdin_inflight_ -= std::min(stdin_inflight_, took);
        if (closed) stdin_in_ = -1;  // rank 0 takes no more: stop reading
      }
      break;
    }
    case wire::Msg::Done:
      c.done = true;
      CHORUS_LOG(INFO, LAUNCH, "chorusd on {} is done", node_host(c.node));
      break;
    default:
      break;  // Ping: being heard is all it says
  }
}

void Launcher::on_parent_message(wire::Msg type, const std::string& payload) {
  wire::Decoder d(payload);
  switch (type) {
    case wire::Msg::FenceDone: {
      const std::string key = d.str();
      const int st = d.i32();
      const std::string data = d.str();
      if (d.ok()) fence_complete(key, st, data);
      break;
    }
    case wire::Msg::Stdin: {
      const std::string data = d.str();
      if (d.ok()) on_stdin_frame(data);
      break;
    }
    case wire::Msg::ModexAsk:
    case wire::Msg::ModexData:
      on_modex_frame(type, payload);
      break;
    case wire::Msg::HangAsk: {
      send_down(wire::Encoder(wire::Msg::HangAsk).frame());
      wire::Encoder e(wire::Msg::HangLines);
      const std::vector<std::string> lines = local_hang_reports();
      e.i32(job_.this_node).i32(static_cast<int32_t>(lines.size()));
      for (const auto& l : lines) e.str(l);
      send_up(e.frame());
      break;
    }
    case wire::Msg::Signal: {
      const int signo = d.i32();
      for (const auto& p : procs_)
        if (!p.reaped) ::kill(p.pid, signo);
      send_down(wire::Encoder(wire::Msg::Signal).i32(signo).frame());
      break;
    }
    case wire::Msg::Terminate: {
      const int signo = d.i32();
      if (phase_ == Phase::Running) {
        begin_termination(signo);
      } else if (signo == SIGKILL && phase_ == Phase::Ending) {
        signal_groups(SIGKILL);
        send_down(wire::Encoder(wire::Msg::Terminate).i32(SIGKILL).frame());
        phase_ = Phase::Killed;
        kill_at_.reset();
        give_up_at_ = Clock::now() + kGiveUpAfterKill;
      }
      break;
    }
    default:
      break;
  }
}

void Launcher::parent_lost(const std::string& why) {
  up_.close();
  if (up_lost_) return;
  up_lost_ = true;
  CHORUS_WARN(LAUNCH, "lost the connection to mpirun ({}); ending this node's ranks", why);
  begin_termination(SIGTERM);
}

void Launcher::child_lost(Child& c, const std::string& why) {
  c.conn.close();
  if (c.done || c.lost) return;
  c.lost = true;
  close_listener_if_done();
  // Its agent (an ssh that still waits, say) has nothing left to carry, unless
  // it also carries other daemons (srun).
  Agent& a = agents_[c.agent];
  if (!a.reaped && agent_idle(a)) ::kill(-a.pid, SIGKILL);
  const std::string cause = fmt::format("lost contact with it: {}", why);
  if (daemon_) {
    send_up(wire::Encoder(wire::Msg::Failed).i32(c.node).str(cause).frame());
    begin_termination(SIGTERM);
  } else {
    fail_node(c.node, cause);
  }
}

void Launcher::on_agent_exit(Agent& a, int status) {
  a.reaped = true;
  CHORUS_LOG(INFO, LAUNCH, "launch agent '{}' (pid {}) ended: {}", a.what, a.pid, describe_wait_status(status));
  // It ended before a daemon proved the token: that launch failed. Its last
  // words (ssh's "Could not resolve hostname", say) are the cause.
  const std::string said = last_line(a.err_tail);
  for (size_t i : a.children) {
    Child& c = children_[i];
    if (c.conn.open() || c.done || c.lost) continue;  // the connection tells the rest
    launch_failed(c, fmt::format("the launch agent ('{}') ended with {} before chorusd connected{}", a.what,
                                 describe_wait_status(status), said.empty() ? "" : fmt::format(": {}", said)));
  }
}

void Launcher::launch_failed(Child& c, const std::string& cause) {
  if (c.conn.open() || c.done || c.lost) return;
  c.lost = true;
  close_listener_if_done();
  if (daemon_) {
    send_up(wire::Encoder(wire::Msg::Failed).i32(c.node).str(cause).frame());
    begin_termination(SIGTERM);
  } else {
    fail_node(c.node, cause);
  }
}

bool Launcher::agent_idle(const Agent& a) const {
  return std::all_of(a.children.begin(), a.children.end(), [&](size_t i) {
    return children_[i].done || children_[i].lost;
  });
}

void Launcher::on_agent_stderr(Agent& a) {
  char buf[4096];
  ssize_t n = ::read(a.err, buf, sizeof buf);
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return;
  if (n <= 0) {
    close_pipe(a.err, a.err_fwd);
    return;
  }
  a.err_fwd.feed(buf, static_cast<size_t>(n));
  a.err_tail.append(buf, static_cast<size_t>(n));
  if (a.err_tail.size() > 2048) a.err_tail.erase(0, a.err_tail.size() - 2048);
  if (!a.slurm) return;
  // srun carries several daemons and ends only when all have: a daemon that
  // never started (chorusd missing on that node, say) shows as srun's
  // "srun: error: NODE: task N: Exited with exit code 2" (or "Killed by
  // signal"), and ends the job now rather than at the connect-back deadline.
  a.err_line.append(buf, static_cast<size_t>(n));
  for (size_t nl; (nl = a.err_line.find('\n')) != std::string::npos; a.err_line.erase(0, nl + 1)) {
    const std::string line = a.err_line.substr(0, nl);
    constexpr std::string_view kHead = "srun: error: ";
    const size_t task = line.find(": task ");
    if (line.compare(0, kHead.size(), kHead) != 0 || task == std::string::npos) continue;
    const std::string node_name = line.substr(kHead.size(), task - kHead.size());
    for (size_t i : a.children) {
      Child& c = children_[i];
      if (node_host(c.node) != node_name || c.conn.open()) continue;
      // Why (slurmstepd's "execve(): ...: No such file") is in srun's stderr,
      // which goes to ours like any daemon's.
      launch_failed(c, fmt::format("chorusd did not start under '{}': {}", a.what, line.substr(kHead.size())));
    }
  }
  if (a.err_line.size() > 4096) a.err_line.clear();
}

void Launcher::contribute(const std::string& key, std::string data, std::optional<ServerEvent> own) {
  FenceAgg& f = fences_[key];
  if (f.need == 0) {
    const std::set<int> nodes = fence_nodes(job_, key);
    f.need = nodes.count(job_.this_node) ? 1 : 0;
    for (const Child& c : children_)
      if (touches(c.subtree, nodes)) ++f.need;
    f.started = Clock::now();
  }
  f.data += data;
  ++f.got;
  if (own) f.own.push_back(std::move(*own));
  if (f.got < f.need) return;
  FenceAgg done = std::move(f);
  fences_.erase(key);
  if (done.data.size() + key.size() + 64 > wire::kMaxMessage) {
    // Every rank would get a copy of it; the tree carries up to 4 GiB.
    const std::string why =
        fmt::format("PMIx_Fence: the data the ranks put for this fence comes to {:.1f} GiB by this node, more than "
                    "the {} GiB the launcher's tree carries (each rank would get a copy of all of it)",
                    static_cast<double>(done.data.size()) / (1 << 30), wire::kMaxMessage >> 30);
    if (daemon_) {
      send_up(wire::Encoder(wire::Msg::Failed).i32(job_.this_node).str(why).frame());
    } else if (phase_ == Phase::Running) {
      report_ = why;
      report_rank_ = -1;
      exit_code_ = kExitLaunch;
      begin_termination(SIGTERM);
    }
    return;
  }
  if (daemon_) {
    // Up the tree; the result comes back as FenceDone.
    for (auto& ev : done.own) awaiting_[key].push_back(std::move(ev));
    send_up(wire::Encoder(wire::Msg::Fence).str(key).str(done.data).frame());
    return;
  }
  CHORUS_LOG(INFO, LAUNCH, "fence {} over {} node(s): {} bytes, {:.1f} ms from the first contribution",
             key == "all" ? "of all ranks" : key, fence_nodes(job_, key).size(), done.data.size(),
             std::chrono::duration<double, std::milli>(Clock::now() - done.started).count());
  for (auto& ev : done.own) awaiting_[key].push_back(std::move(ev));
  fence_complete(key, PMIX_SUCCESS, done.data);
}

void Launcher::fence_complete(const std::string& key, pmix_status_t st, const std::string& data) {
  const std::set<int> nodes = fence_nodes(job_, key);
  const std::string frame = wire::Encoder(wire::Msg::FenceDone).str(key).i32(st).str(data).frame();
  for (Child& c : children_)
    if (c.conn.open() && touches(c.subtree, nodes)) c.conn.send(frame);
  auto it = awaiting_.find(key);
  if (it == awaiting_.end() || it->second.empty()) return;
  ServerEvent ev = std::move(it->second.front());
  it->second.pop_front();
  // Once the job ends the server is stopped and its callbacks are gone.
  if (server_ && phase_ == Phase::Running) server_->complete_fence(ev, st, data);
}

void Launcher::send_exits() {
  const auto now = Clock::now();
  for (const RankProc& p : procs_) {
    if (!p.reaped || exit_sent_.count(p.rank)) continue;
    const bool drained = p.out_fd < 0 && p.err_fd < 0;
    if (!drained && now - reaped_at_[p.rank] < kPipeDrain) continue;
    send_up(wire::Encoder(wire::Msg::Exited)
                .i32(p.rank)
                .i32(p.pid)
                .i32(p.wait_status)
                .u8(p.connected)
                .u8(p.finalized)
                .frame());
    exit_sent_.insert(p.rank);
  }
}

}  // namespace

void ensure_std_fds() {
  for (int fd = 0; fd <= 2; ++fd) {
    if (::fcntl(fd, F_GETFD) >= 0 || errno != EBADF) continue;
    const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);  // the lowest free: `fd`
    if (got >= 0 && got != fd) {
      ::dup2(got, fd);
      ::close(got);
    }
  }
}

int run_daemon(int argc, char** argv) {
  set_program_name("chorusd");
  std::string parent, slurm_nodes;
  int node = -1;
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (a == "--parent" && i + 1 < argc) parent = argv[++i];
    else if (a == "--node" && i + 1 < argc) node = std::atoi(argv[++i]);
    else if (a == "--slurm-nodes" && i + 1 < argc) slurm_nodes = argv[++i];
    else {
      say(fmt::format("unknown argument '{}' (chorusd is started by mpirun: --parent ADDR:PORT --node N, the job "
                      "token on stdin)", a));
      return kExitUsage;
    }
  }
  if (!slurm_nodes.empty()) {
    // Started by one srun on every node: this node is the entry ("N=NAME,...")
    // for Slurm's name of it (SLURMD_NODENAME), else for its host name.
    const char* slurm_name = std::getenv("SLURMD_NODENAME");
    const std::string me = slurm_name && *slurm_name ? slurm_name : hostname();
    std::string_view rest = slurm_nodes;
    while (!rest.empty() && node < 0) {
      const std::string_view entry = rest.substr(0, rest.find(','));
      rest.remove_prefix(std::min(rest.size(), entry.size() + 1));
      const size_t eq = entry.find('=');
      if (eq != std::string_view::npos && entry.substr(eq + 1) == me)
        node = std::atoi(std::string(entry.substr(0, eq)).c_str());
    }
    if (node < 0) {
      say(fmt::format("this node ('{}') is not among the nodes mpirun started chorusd on ({})", me, slurm_nodes));
      return kExitLaunch;
    }
  }
  if (parent.empty() || node < 0) {
    say("needs --parent ADDR:PORT and --node N (chorusd is started by mpirun, the job token on stdin)");
    return kExitUsage;
  }
  // The token: one line on stdin, then stdin is done with.
  std::string token;
  for (char ch; token.size() < 1024;) {
    ssize_t n = ::read(0, &ch, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || ch == '\n') break;
    token += ch;
  }
  if (int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC); null >= 0) {
    ::dup2(null, 0);
    ::close(null);
  }
  if (token.empty()) {
    say("no job token on stdin");
    return kExitLaunch;
  }
  std::string err;
  int fd = wire::connect_to(parent, 10000, err);
  if (fd < 0) {
    say(fmt::format("cannot reach mpirun: {}", err));
    return kExitLaunch;
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  wire::watch_liveness(fd);
  wire::Conn up(fd);
  wire::Msg type;
  std::string payload;
  if (!up.wait_frame(type, payload, 10000, err) || type != wire::Msg::Challenge) {
    say(fmt::format("no challenge from mpirun at {}: {}", parent, err.empty() ? "not our protocol" : err));
    return kExitLaunch;
  }
  wire::Decoder cd(payload);
  const std::string nonce = cd.str();
  const std::string my_nonce = wire::random_bytes(32);
  if (my_nonce.empty()) {
    say("cannot draw a random challenge");
    return kExitLaunch;
  }
  up.send(wire::Encoder(wire::Msg::Auth).i32(node).str(wire::auth_answer(token, nonce, node)).str(my_nonce).frame());
  if (!up.wait_frame(type, payload, 30000, err) || type != wire::Msg::Job) {
    say(fmt::format("mpirun at {} did not accept this daemon (wrong job token, or not its node {}): {}", parent, node,
                    err.empty() ? "no job" : err));
    return kExitLaunch;
  }
  wire::Decoder d(payload);
  if (!wire::auth_ok(token, my_nonce, wire::parent_proof_node(node), d.str())) {
    say(fmt::format("{} answered without proving the job token: not our mpirun; nothing started", parent));
    return kExitLaunch;
  }
  up.accept_parts();  // the parent holds the token
  Job job;
  bool good = wire::decode_job(d, job);
  const int nnodes = static_cast<int>(job.nodes.size());
  const int nsub = d.i32();
  good = good && d.ok() && nsub >= 1 && nsub <= nnodes && node < nnodes;
  std::vector<int> subtree(good ? static_cast<size_t>(nsub) : 0);
  for (int& n : subtree) {
    n = d.i32();
    if (n < 0 || n >= nnodes) good = false;
  }
  const int nenv = d.i32();
  good = good && nenv >= 0 && nenv <= (1 << 16);
  std::vector<std::string> env(good ? static_cast<size_t>(nenv) : 0);
  for (auto& e : env) e = d.str();
  const std::string agent = d.str(), prefix = d.str();
  if (!good || !d.ok() || subtree.empty() || subtree[0] != node) {
    say("mpirun sent a job this chorusd cannot read (a different Chorus version?)");
    return kExitLaunch;
  }
  // mpirun's tunables, so every node decides alike; then read them.
  for (const auto& e : env) {
    const size_t eq = e.find('=');
    if (eq != std::string::npos) ::setenv(e.substr(0, eq).c_str(), e.c_str() + eq + 1, 1);
  }
  params::reload();
  log::reconfigure();
  job.this_node = node;
  job.opts.launch_agent = agent;
  job.opts.prefix = prefix;
  Launcher l(std::move(job), token, std::move(up), std::move(subtree));
  l.set_tree_env(std::move(env), agent, prefix);
  return l.run();
}

// ---- dynamic processes: PMIx_Spawn, PMIx_Publish/Lookup/Unpublish, PMIx_Connect ----
//
// PMIx_Spawn starts a new namespace on this node at once: the request is
// checked whole first (a bad one is answered with an error status and starts
// nothing), then the namespace is registered with the server, its ranks are
// forked as the launched job's are, and the caller gets the namespace.
// Spawning is refused (PMIX_ERR_NOT_SUPPORTED) unless every rank of the
// launched job runs on this node: a spawned job's fences and data requests
// would otherwise need the daemon tree to know its namespace. Spawned ranks
// count against no host's slots (a spawn may go beyond them, as a launch with
// no host given may) and are not bound to cores; they read /dev/null.
//
// Published names live here, in mpirun (daemons refuse them).

namespace {

// At most this many processes in one spawn: far beyond one node, low enough
// that a bad count fails fast.
constexpr long kMaxSpawn = 1 << 16;

// `path` against `base` when relative (and `base` is given).
std::string under(const std::string& base, const std::string& path) {
  if (path.empty() || path[0] == '/' || base.empty()) return path;
  return (std::filesystem::path(base) / path).lexically_normal().string();
}

std::string current_dir() {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::current_path(ec);
  return ec ? std::string() : p.string();
}

}  // namespace

pmix_status_t Launcher::plan_spawn(const ServerEvent& ev, SpawnedJob& sj, std::string& why) {
  if (ev.apps.empty()) {
    why = "no app to start";
    return PMIX_ERR_BAD_PARAM;
  }
  // The output options, -x and the rest apply to spawned ranks as to the others.
  Options o = job_.opts;
  o.apps.clear();
  const std::string here = current_dir();
  long total = 0;
  for (size_t a = 0; a < ev.apps.size(); ++a) {
    const SpawnApp& in = ev.apps[a];
    if (in.maxprocs <= 0) {
      why = fmt::format("app {}: maxprocs {}: at least 1 process is needed", a, in.maxprocs);
      return PMIX_ERR_BAD_PARAM;
    }
    total += in.maxprocs;
    if (total > kMaxSpawn) {
      why = fmt::format("{} processes or more: at most {} in one spawn", total, kMaxSpawn);
      return PMIX_ERR_BAD_PARAM;
    }
    App app;
    app.nprocs = in.maxprocs;
    app.nprocs_given = true;
    app.argv = in.argv;
    const std::string cmd = in.cmd.empty() && !app.argv.empty() ? app.argv[0] : in.cmd;
    if (cmd.empty()) {
      why = fmt::format("app {}: no command", a);
      return PMIX_ERR_BAD_PARAM;
    }
    if (app.argv.empty()) app.argv.push_back(cmd);
    // A relative path names what it names for the caller: the app's cwd is the
    // caller's directory unless it asked for another (OpenPMIx's client fills it in).
    const std::string base = in.cwd.empty() ? here : under(here, in.cwd);
    std::string not_found;
    auto path = resolve_program(cmd.find('/') != std::string::npos ? under(base, cmd) : cmd, not_found);
    if (!path) {
      why = fmt::format("app {}: {}", a, not_found);
      return PMIX_ERR_JOB_FAILED_TO_LAUNCH;
    }
    app.program_path = under(here, *path);  // a PATH entry may be relative
    // The working directory: PMIX_WDIR of the app, else of the job, else the
    // app's cwd, else --wdir (else ours).
    std::string wdir = !in.wdir.empty() ? in.wdir : !ev.wdir.empty() ? ev.wdir : !in.cwd.empty() ? in.cwd : o.wdir;
    wdir = under(base, wdir);
    if (!wdir.empty()) {
      struct stat st;
      const bool found = ::stat(wdir.c_str(), &st) == 0;
      if (!found || !S_ISDIR(st.st_mode)) {
        why = fmt::format("app {}: working directory {}: {}", a, wdir, found ? "not a directory" : std::strerror(errno));
        return PMIX_ERR_BAD_PARAM;
      }
    }
    app.wdir = wdir;
    for (const std::string& e : in.env) {
      const size_t eq = e.find('=');
      if (eq == std::string::npos || eq == 0) continue;
      // The child's PMIx identity is the launcher's to give: a client library
      // may pass its own PMIX_* variables along (PMIX_MCA_* tuning may pass).
      if (is_pmix_var(e.c_str()) && e.compare(0, 9, "PMIX_MCA_") != 0) continue;
      app.env.push_back(e);
    }
    o.apps.push_back(std::move(app));
  }

  sj.id = static_cast<int>(spawned_.size()) + 1;
  Job& j = sj.job;
  j.nspace = fmt::format("{}.spawn{}", job_.nspace, sj.id);
  j.parent_nspace = ev.nspace;
  j.parent_rank = ev.rank;
  j.this_node = 0;
  const int n = static_cast<int>(total);
  j.nodes.push_back(Node{job_.local_node().hostname, {}, n});
  // Node ranks follow every process started on this node so far.
  const int first_node_rank = static_cast<int>(procs_.size());
  int r = 0;
  for (int a = 0; a < static_cast<int>(o.apps.size()); ++a)
    for (int k = 0; k < o.apps[static_cast<size_t>(a)].nprocs; ++k, ++r) {
      j.slots.push_back(RankSlot{r, a, k, 0, r, first_node_rank + r, ""});
      j.nodes[0].ranks.push_back(r);
    }
  j.opts = std::move(o);
  sj.ranks.resize(static_cast<size_t>(n));
  return PMIX_SUCCESS;
}

void Launcher::on_spawn(const ServerEvent& ev) {
  if (daemon_ || !job_.all_local()) {
    CHORUS_WARN(LAUNCH,
                "refused PMIx_Spawn (MPI_Comm_spawn) of rank {}: spawning works only when the whole job runs on "
                "one node, and this one has ranks on {} hosts",
                ev.rank, job_.nodes.size());
    server_->complete_spawn(ev, PMIX_ERR_NOT_SUPPORTED, {});
    return;
  }
  SpawnedJob planned;
  std::string why;
  if (pmix_status_t st = plan_spawn(ev, planned, why); st != PMIX_SUCCESS) {
    CHORUS_LOG(INFO, LAUNCH, "refused PMIx_Spawn of rank {} of {}: {} ({})", ev.rank, ev.nspace, why,
               PMIx_Error_string(st));
    server_->complete_spawn(ev, st, {});
    return;
  }
  std::string err;
  if (!ok(server_->register_job(planned.job, dir_.path(), err))) {
    CHORUS_WARN(LAUNCH, "PMIx_Spawn of rank {}: {}", ev.rank, err);
    server_->complete_spawn(ev, PMIX_ERR_JOB_FAILED_TO_LAUNCH, {});
    return;
  }
  spawned_.push_back(std::move(planned));
  SpawnedJob& sj = spawned_.back();
  const Job& j = sj.job;
  const std::vector<std::string> base = base_env(fmt::format("{}/spawn{}", hang_dir(), sj.id));
  size_t started = 0;
  Status st = Status::Ok;
  for (const RankSlot& slot : j.slots) {
    const App& app = j.opts.apps[static_cast<size_t>(slot.app)];
    RankProc p;
    p.job = sj.id;
    p.rank = slot.rank;
    // Told apart from the launched job's ranks: "[spawn1:0]" with --tag-output,
    // DIR/2/rank.0 with --output-filename.
    st = setup_output(p, sj.id + 1, fmt::format("spawn{}:{}", sj.id, slot.rank), err);
    SpawnSpec spec;
    spec.path = app.program_path;
    spec.argv = app.argv;
    spec.env = base;
    spec.cwd = app.wdir;
    spec.stdin_fd = devnull_;
    set_rank_vars(spec.env, slot, j.size(), j.nodes[0].ranks.size());
    for (const auto& e : app.env) env_set_entry(spec.env, e);
    std::vector<std::string> pmix_env;
    if (ok(st)) st = server_->register_client(j, slot.rank, pmix_env, err);
    for (const auto& e : pmix_env) env_set_entry(spec.env, e);
    if (ok(st)) st = spawn_rank(spec, p, err);
    if (!ok(st)) {
      err = fmt::format("rank {}: {}", slot.rank, err);
      break;
    }
    sj.ranks[static_cast<size_t>(slot.rank)].pid = p.pid;
    procs_.push_back(std::move(p));
    group_gone_.push_back(false);
    ++started;
  }
  if (!ok(st)) {
    // Nothing of it runs on: the caller gets an error, as for a bad request.
    CHORUS_WARN(LAUNCH, "PMIx_Spawn of rank {}: cannot start {}: {}", ev.rank, j.nspace, err);
    sj.failed = true;
    for (RankProc& q : procs_)
      if (q.job == sj.id && !q.reaped) ::kill(-q.pid, SIGKILL);
    for (RankState& r : sj.ranks)
      if (r.pid < 0) r.exited = true;
    if (started == 0) server_->deregister_job(j.nspace);
    server_->complete_spawn(ev, PMIX_ERR_JOB_FAILED_TO_LAUNCH, {});
    return;
  }
  std::string programs;
  for (const App& a : j.opts.apps)
    programs += fmt::format("{}{} x {}", programs.empty() ? "" : " : ", a.nprocs, a.program_path);
  CHORUS_LOG(INFO, LAUNCH, "rank {} of {} spawned job {}: {} process{} ({})", ev.rank, ev.nspace, j.nspace, j.size(),
             j.size() == 1 ? "" : "es", programs);
  server_->complete_spawn(ev, PMIX_SUCCESS, j.nspace);
}

namespace {

std::vector<Published> find_published(const std::map<std::string, Published>& dict,
                                      const std::vector<std::string>& keys) {
  std::vector<Published> found;
  for (const std::string& k : keys)
    if (auto it = dict.find(k); it != dict.end()) found.push_back(it->second);
  return found;
}

}  // namespace

void Launcher::on_publish(const ServerEvent& ev) {
  if (daemon_) {
    CHORUS_WARN(LAUNCH, "refused PMIx_Publish (MPI_Publish_name) of rank {}: names are published only on "
                        "mpirun's node", ev.rank);
    server_->complete_op(ev, PMIX_ERR_NOT_SUPPORTED);
    return;
  }
  if (ev.values.empty()) {
    server_->complete_op(ev, PMIX_ERR_BAD_PARAM);
    return;
  }
  for (const auto& kv : ev.values)
    if (published_.count(kv.first)) {
      CHORUS_LOG(INFO, LAUNCH, "rank {} of {} publishes '{}': already published", ev.rank, ev.nspace, kv.first);
      server_->complete_op(ev, PMIX_ERR_DUPLICATE_KEY);
      return;
    }
  for (const auto& [key, value] : ev.values) {
    CHORUS_LOG(TRACE, LAUNCH, "rank {} of {} publishes '{}'", ev.rank, ev.nspace, key);
    published_[key] = Published{key, ev.nspace, ev.rank, value};
  }
  server_->complete_op(ev, PMIX_SUCCESS);
  answer_waiting_lookups();
}

void Launcher::on_lookup(const ServerEvent& ev) {
  if (daemon_) {
    CHORUS_WARN(LAUNCH, "refused PMIx_Lookup (MPI_Lookup_name) of rank {}: names are published only on "
                        "mpirun's node", ev.rank);
    server_->complete_lookup(ev, PMIX_ERR_NOT_SUPPORTED, {});
    return;
  }
  if (ev.keys.empty()) {
    server_->complete_lookup(ev, PMIX_ERR_BAD_PARAM, {});
    return;
  }
  std::vector<Published> found = find_published(published_, ev.keys);
  if (ev.wait_for > 0 && found.size() < static_cast<size_t>(ev.wait_for)) {
    // PMIX_WAIT: answered when enough of the keys are published.
    waiting_lookups_.push_back(ev);
    return;
  }
  server_->complete_lookup(ev, found.empty() ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS, found);
}

void Launcher::answer_waiting_lookups() {
  for (auto it = waiting_lookups_.begin(); it != waiting_lookups_.end();) {
    std::vector<Published> found = find_published(published_, it->keys);
    if (found.size() < static_cast<size_t>(it->wait_for)) {
      ++it;
      continue;
    }
    server_->complete_lookup(*it, PMIX_SUCCESS, found);
    it = waiting_lookups_.erase(it);
  }
}

void Launcher::on_unpublish(const ServerEvent& ev) {
  if (daemon_) {
    server_->complete_op(ev, PMIX_ERR_NOT_SUPPORTED);
    return;
  }
  if (ev.keys.empty()) {
    // No key: everything the caller published.
    std::erase_if(published_, [&](const auto& kv) { return kv.second.nspace == ev.nspace && kv.second.rank == ev.rank; });
    server_->complete_op(ev, PMIX_SUCCESS);
    return;
  }
  bool missing = false;
  for (const std::string& k : ev.keys)
    if (published_.erase(k) == 0) missing = true;
  server_->complete_op(ev, missing ? PMIX_ERR_NOT_FOUND : PMIX_SUCCESS);
}

// The library calls us once every local process it lists has called
// PMIx_Connect (or Disconnect). Every one local: all have, and there is
// nothing more to do. Ranks elsewhere would need the daemon tree: refused.
void Launcher::on_connect(const ServerEvent& ev) {
  const char* what = ev.kind == ServerEvent::Kind::Connect ? "PMIx_Connect" : "PMIx_Disconnect";
  for (const auto& [nspace, rank] : ev.procs) {
    const int job = job_of(nspace);
    if (job < 0) {
      CHORUS_LOG(INFO, LAUNCH, "{}: unknown namespace {}", what, nspace);
      server_->complete_op(ev, PMIX_ERR_NOT_FOUND);
      return;
    }
    if (job > 0) continue;  // spawned jobs run here
    const bool local = rank < 0 ? job_.all_local()
                                : rank < job_.size() && job_.slots[static_cast<size_t>(rank)].node == job_.this_node;
    if (!local) {
      CHORUS_WARN(LAUNCH, "refused {} of ranks on other hosts: it works only among ranks of one node", what);
      server_->complete_op(ev, PMIX_ERR_NOT_SUPPORTED);
      return;
    }
  }
  server_->complete_op(ev, PMIX_SUCCESS);
}

}  // namespace chorus::launcher
