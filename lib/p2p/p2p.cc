#include "p2p/p2p.h"

#include <sched.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include <fmt/ranges.h>

#include "core/counters.h"
#include "core/hang.h"
#include "core/log.h"
#include "core/params.h"
#include "gpu/gpu.h"
#include "p2p/device.h"
#include "p2p/internal.h"
#include "p2p/local.h"
#include "p2p/tag.h"
#include "ucx/ucx.h"

namespace chorus::p2p {

bool g_threaded = false;
std::recursive_mutex g_mu;
[[gnu::tls_model("initial-exec")]] thread_local int g_depth = 0;  // see core/hang.cc's t_top

namespace {

constexpr const char* kAddrKey = "chorus.ucx.addr";

enum class WaitMode { Spin, Yield, Sleep };

struct State {
  bool up = false;
  launcher::JobInfo job;
  ucx::Context ctx;
  ucx::Worker worker;
  std::vector<ucp_ep_h> eps;   // by process number (p2p.h), created on first use
  // Processes of other jobs: process number job.size + i is foreign[i].
  struct Foreign {
    std::uint64_t gid;
    std::vector<std::byte> addr;
  };
  std::vector<Foreign> foreign;
  std::unordered_map<std::uint64_t, int> by_gid;  // foreign ones only
  std::uint64_t job_key = 0;   // this job's namespace hash, in the top 40 bits
  std::chrono::steady_clock::time_point t_init;  // when init began (wire-up times at INFO)
  bool first_ep_logged = false;
  WaitMode mode = WaitMode::Spin;
  bool auto_mode = true;  // CHORUS_PROGRESS=auto chose `mode`
  unsigned spin = 1000;
  ReleaseFn release = nullptr;
  unsigned (*hook)() = nullptr;
  // The MPI layer's: communicator agreements, windows, intercommunicator
  // queues, connections.
  unsigned (*late_hooks[8])() = {};
  int cores = 1;               // online cores of this node (read once at init)
};
State g;

// Cores of this node. Not the affinity mask: a launcher that binds each rank to
// its own core (Open MPI does) is not oversubscribing.
int online_cores() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

// The CPUs this node's ranks may run on: the union of their affinity masks
// (taskset, a cgroup cpuset, Slurm's allocation, a launcher's binding), which each
// rank publishes before the address fence. A node of 64 cores on which the job
// was given 4 has 4 for the ranks' wait mode and the cost model.
constexpr const char* kCpusKey = "chorus.cpus";
cpu_set_t own_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0)
    for (int c = 0; c < online_cores() && c < CPU_SETSIZE; ++c) CPU_SET(c, &set);
  return set;
}
int node_cpus(const launcher::JobInfo& job) {
  cpu_set_t all = own_cpus();
  for (int peer : job.local_peers) {
    if (peer == job.rank) continue;
    std::vector<std::byte> v;
    if (!ok(launcher::get(peer, kCpusKey, v)) || v.size() != sizeof(cpu_set_t)) return online_cores();
    cpu_set_t theirs;
    std::memcpy(&theirs, v.data(), sizeof theirs);
    CPU_OR(&all, &all, &theirs);
  }
  const int n = CPU_COUNT(&all);
  return n > 0 ? std::min(n, online_cores()) : online_cores();
}

Status endpoint(int world_rank, ucp_ep_h* out) {
  ucp_ep_h ep = g.eps[static_cast<std::size_t>(world_rank)];
  if (ep) {
    *out = ep;
    return Status::Ok;
  }
  std::vector<std::byte> addr;
  CHORUS_TRY(address_of(world_rank, addr));
  CHORUS_TRY(ucx::ep_create(g.worker, addr.data(), &ep));
  g.eps[static_cast<std::size_t>(world_rank)] = ep;
  if (log::enabled(log::INFO, log::P2P))
    CHORUS_LOG(INFO, P2P, "endpoint to rank {} uses {}", world_rank, ucx::ep_transports(ep));
  if (world_rank != g.job.rank && !g.first_ep_logged) {
    g.first_ep_logged = true;
    if (log::enabled(log::INFO, log::BOOT))
      CHORUS_LOG(INFO, BOOT, "wire-up: first endpoint (to rank {}, {}) {:.1f} ms after the transport began",
                 world_rank, ucx::ep_transports(ep),
                 std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - g.t_init).count());
  }
  if (log::enabled(log::TRACE, log::P2P))
    CHORUS_LOG(TRACE, P2P, "endpoint to rank {}:\n{}", world_rank, ucx::ep_info(ep));
  *out = ep;
  return Status::Ok;
}

int mpi_error(ucs_status_t st) {
  if (st == UCS_OK) return MPI_SUCCESS;
  return to_mpi_class(ucx::to_status(st));
}

void finish(Request* r) {
  r->complete = true;
  if (r->user_freed && g.release) g.release(r);
}

// The data of a ring announcement: source and tag came with the announcement.
void data_cb(void* ucx_req, ucs_status_t st, const ucp_tag_recv_info_t* info, void* user) {
  auto* r = static_cast<Request*>(user);
  r->ucx = nullptr;
  if (st == UCS_ERR_MESSAGE_TRUNCATED) {
    r->bytes = r->buf_bytes;
    r->error = MPI_ERR_TRUNCATE;
  } else {
    r->bytes = info ? info->length : 0;
    r->error = mpi_error(st);
  }
  ucp_request_free(ucx_req);
  if (device::ucx_done(r)) finish(r);
}

void send_cb(void* ucx_req, ucs_status_t st, void* user) {
  auto* r = static_cast<Request*>(user);
  r->error = mpi_error(st);
  r->ucx = nullptr;
  ucp_request_free(ucx_req);
  if (device::ucx_done(r)) finish(r);
}

void fill_recv(Request* r, ucs_status_t st, const ucp_tag_recv_info_t* info) {
  r->ucx = nullptr;
  if (st == UCS_ERR_CANCELED) {
    r->cancelled = true;
    r->bytes = 0;
    r->error = MPI_SUCCESS;
    return;
  }
  if (info) {
    r->sender_tag = info->sender_tag;
    r->source = tag::source_of(info->sender_tag);
    r->tag = tag::tag_of(info->sender_tag);
    r->bytes = info->length;
  }
  if (st == UCS_ERR_MESSAGE_TRUNCATED) {
    r->bytes = r->buf_bytes;
    r->error = MPI_ERR_TRUNCATE;
  } else {
    r->error = mpi_error(st);
  }
}

void recv_cb(void* ucx_req, ucs_status_t st, const ucp_tag_recv_info_t* info, void* user) {
  auto* r = static_cast<Request*>(user);
  fill_recv(r, st, info);
  ucp_request_free(ucx_req);
  if (device::ucx_done(r)) finish(r);
}

void progress_cb(void*) {
  local::poll();
  g.worker.progress();
}

// What shm_settings chose, in words ("cma", or "copy" and the settings): two jobs
// whose processes talk (MPI_Comm_connect/accept, spawn) must have chosen alike.
std::string g_profile;

// How large messages move between ranks of one node. UCX's default rendezvous
// reads the sender's buffer with CMA (process_vm_readv): one copy, but done page
// by page in the kernel, and slow on VMs. With no rendezvous lanes at all
// (UCX_MAX_RNDV_RAILS=0) UCX sends the data as active messages through the
// shared-memory FIFO instead: sender copies in, receiver copies out, the two in
// parallel, which is about twice as fast when both ranks have a core. (Leaving
// out cma with UCX_TLS=^cma is no substitute: the rendezvous lanes then go to
// TCP over loopback.) A fragment larger than UCX's 8 KiB default cuts the per
// fragment cost; UCX 1.13 aborts with fragments of 64 KiB and more (assertion
// in ucp_request.inl, shmat errors), hence the clamp.
std::vector<ucx::Setting> shm_settings(const launcher::JobInfo& job, int cores) {
  constexpr std::size_t kMaxSeg = 60 * 1024;
  int proto = param::ShmProtocol();  // 0 auto, 1 copy, 2 cma
  const char* why = "";
  bool copy = false;
  if (proto == 1) {
    copy = true;
    why = "CHORUS_SHM_PROTOCOL=copy";
  } else if (proto == 2) {
    why = "CHORUS_SHM_PROTOCOL=cma";
  } else if (job.num_nodes > 1) {
    why = "the job spans nodes (no rendezvous lanes would slow inter-node transfers)";
  } else if (job.local_size > cores) {
    why = "ranks outnumber cores (a two-sided copy needs both ranks running)";
  } else {
    copy = true;
    why = "one node, a core per rank";
  }
  std::vector<ucx::Setting> out;
  if (!copy) {
    g_profile = "cma";
    CHORUS_LOG(INFO, P2P, "intra-node large messages: UCX default rendezvous (CMA): {}", why);
    return out;
  }
  std::size_t seg = std::clamp<std::size_t>(param::ShmSegSize(), 1024, kMaxSeg);
  // Receive buffers come in chunks of RX_BUFS_GROW fragments: keep a chunk near
  // the 4 MiB of UCX's default (512 x 8 KiB).
  std::size_t grow = std::max<std::size_t>(64, (4u << 20) / seg);
  ucx::Setting rails{"MAX_RNDV_RAILS", "0", {"MAX_RNDV_LANES"}};
  // A rendezvous scheme chosen by hand needs rendezvous lanes: leave them.
  if (!ucx::env_has("RNDV_SCHEME")) out.push_back(rails);
  out.push_back({"MM_SEG_SIZE", fmt::format("{}", seg), {"SYSV_SEG_SIZE", "POSIX_SEG_SIZE"}});
  out.push_back({"MM_RX_BUFS_GROW", fmt::format("{}", grow),
                 {"SYSV_RX_BUFS_GROW", "POSIX_RX_BUFS_GROW"}});
  // Every FIFO entry brings its own fragment buffer; the first message through
  // each one faults its pages in, which costs ~0.6 ms per 64 KiB message on this
  // kind of VM until all are warm (27 slow calls at 64 entries, 6 at 16).
  out.push_back({"MM_FIFO_SIZE", fmt::format("{}", std::max<long long>(2, param::ShmFifoSize())),
                 {"SYSV_FIFO_SIZE", "POSIX_FIFO_SIZE"}});
  g_profile = "copy";
  for (const auto& st : out) g_profile += fmt::format(" {}={}", st.name, st.value);
  // Each one is applied unless the environment sets it (ucx::Context::init).
  std::string applied;
  for (const auto& st : out)
    if (!ucx::env_has(st))
      applied += fmt::format("{}UCX_{}={}", applied.empty() ? "" : " ", st.name, st.value);
  if (applied.empty()) applied = "nothing: the environment sets it all";
  if (ucx::env_has("RNDV_SCHEME") || ucx::env_has(rails))
    CHORUS_LOG(INFO, P2P, "intra-node large messages: UCX rendezvous as the environment configures "
               "it; Chorus sets {}", applied);
  else
    CHORUS_LOG(INFO, P2P, "intra-node large messages: pipelined copy through shared memory ({}): {}",
               applied, why);
  return out;
}

}  // namespace

namespace {
constexpr std::uint64_t kRankMask = (1ULL << 24) - 1;

// The top 40 bits of every global id of this job: a hash of its PMIx namespace
// (a singleton has none: its host, pid and start time stand in).
std::uint64_t job_key(const launcher::JobInfo& job) {
  std::string ns = job.nspace;
  if (ns.empty())
    ns = fmt::format("singleton:{}:{}:{}", job.hostname, getpid(),
                     std::chrono::steady_clock::now().time_since_epoch().count());
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char ch : ns) {
    h ^= ch;
    h *= 0x100000001b3ULL;
  }
  return h & ~kRankMask;
}
}  // namespace

std::uint64_t gid_of(int proc) {
  if (proc >= g.job.size) return g.foreign[static_cast<std::size_t>(proc - g.job.size)].gid;
  return g.job_key | static_cast<std::uint64_t>(proc);
}

int proc_of(std::uint64_t gid) {
  if ((gid & ~kRankMask) == g.job_key && static_cast<std::int64_t>(gid & kRankMask) < g.job.size)
    return static_cast<int>(gid & kRankMask);
  auto it = g.by_gid.find(gid);
  return it == g.by_gid.end() ? -1 : it->second;
}

int add_proc(std::uint64_t gid, const void* addr, std::size_t len) {
  if (int known = proc_of(gid); known >= 0) return known;
  const auto* b = static_cast<const std::byte*>(addr);
  const int p = g.job.size + static_cast<int>(g.foreign.size());
  g.foreign.push_back({gid, std::vector<std::byte>(b, b + len)});
  g.by_gid.emplace(gid, p);
  g.eps.push_back(nullptr);
  CHORUS_LOG(INFO, P2P, "process {} is global id 0x{:x} of another job", p, gid);
  return p;
}

const std::string& ucx_profile() { return g_profile; }

// ---- remote memory access ------------------------------------------------------

namespace rdma {
namespace {
void on_done(void* request, ucs_status_t status, void* user_data) {
  auto* op = static_cast<Op*>(user_data);
  op->status = ucx::to_status(status);
  op->done = true;
  ucp_request_free(request);
}

// What a non-blocking UCX call returned: done at once, started, or failed.
Status started(ucs_status_ptr_t p, Op* op) {
  if (p == nullptr) {
    op->done = true;
    return Status::Ok;
  }
  if (UCS_PTR_IS_ERR(p)) {
    op->status = ucx::to_status(UCS_PTR_STATUS(p));
    op->done = true;
    return op->status;
  }
  return Status::Ok;
}

// Not started: done at once, with the reason.
Status failed(Status st, Op* op) {
  op->status = st;
  op->done = true;
  return st;
}

ucp_request_param_t params(Op* op) {
  ucp_request_param_t prm{};
  prm.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  prm.cb.send = on_done;
  prm.user_data = op;
  return prm;
}
}  // namespace

bool enabled() { return g.up && param::RmaRdma() != kOff; }

bool native(int proc, std::string* transports) {
  ucp_ep_h ep;
  if (!ok(endpoint(proc, &ep))) return false;
  const std::vector<std::string> lanes = ucx::ep_rma_transports(ep);
  transports->clear();
  bool any = false;
  for (const std::string& t : lanes) {
    *transports += (transports->empty() ? "" : ", ") + t;
    if (!t.starts_with("tcp/")) any = true;
  }
  if (transports->empty()) *transports = "none: UCX would emulate them with messages";
  return any;
}

Status map(void* base, std::size_t len, void** region, std::vector<std::byte>& packed) {
  ucp_mem_map_params_t mp{};
  mp.field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH;
  mp.address = base;
  mp.length = len;
  ucp_mem_h mem = nullptr;
  if (ucs_status_t st = ucp_mem_map(g.ctx.get(), &mp, &mem); st != UCS_OK) return ucx::to_status(st);
  void* buf = nullptr;
  std::size_t n = 0;
  if (ucs_status_t st = ucp_rkey_pack(g.ctx.get(), mem, &buf, &n); st != UCS_OK) {
    ucp_mem_unmap(g.ctx.get(), mem);
    return ucx::to_status(st);
  }
  packed.assign(static_cast<const std::byte*>(buf), static_cast<const std::byte*>(buf) + n);
  ucp_rkey_buffer_release(buf);
  *region = mem;
  return Status::Ok;
}

void unmap(void* region) {
  if (region) ucp_mem_unmap(g.ctx.get(), static_cast<ucp_mem_h>(region));
}

Status unpack(int proc, const std::byte* packed, std::size_t len, void** rkey) {
  (void)len;  // the packed key describes its own length
  ucp_ep_h ep;
  CHORUS_TRY(endpoint(proc, &ep));
  ucp_rkey_h k = nullptr;
  if (ucs_status_t st = ucp_ep_rkey_unpack(ep, packed, &k); st != UCS_OK) return ucx::to_status(st);
  *rkey = k;
  return Status::Ok;
}

void release(void* rkey) {
  if (rkey) ucp_rkey_destroy(static_cast<ucp_rkey_h>(rkey));
}

Status put(int proc, const void* src, std::size_t len, std::uint64_t remote, void* rkey, Op* op) {
  ucp_ep_h ep;
  if (Status st = endpoint(proc, &ep); !ok(st)) return failed(st, op);
  const ucp_request_param_t prm = params(op);
  return started(ucp_put_nbx(ep, src, len, remote, static_cast<ucp_rkey_h>(rkey), &prm), op);
}

Status get(int proc, void* dst, std::size_t len, std::uint64_t remote, void* rkey, Op* op) {
  ucp_ep_h ep;
  if (Status st = endpoint(proc, &ep); !ok(st)) return failed(st, op);
  const ucp_request_param_t prm = params(op);
  return started(ucp_get_nbx(ep, dst, len, remote, static_cast<ucp_rkey_h>(rkey), &prm), op);
}

Status flush(int proc, Op* op) {
  ucp_ep_h ep;
  if (Status st = endpoint(proc, &ep); !ok(st)) return failed(st, op);
  const ucp_request_param_t prm = params(op);
  return started(ucp_ep_flush_nbx(ep, &prm), op);
}
}  // namespace rdma

std::size_t rndv_threshold(int proc) {
  ucp_ep_h ep;
  return ok(endpoint(proc, &ep)) ? ucx::ep_rndv_threshold(ep) : 0;
}

Status address_of(int proc, std::vector<std::byte>& out) {
  if (proc == g.job.rank) {
    out = g.worker.address();
    return Status::Ok;
  }
  if (proc >= g.job.size) {
    out = g.foreign[static_cast<std::size_t>(proc - g.job.size)].addr;
    return Status::Ok;
  }
  return launcher::get(proc, kAddrKey, out);
}

namespace {
struct Side {
  std::unique_ptr<ucx::Worker> worker;
  std::vector<ucp_ep_h> eps;
  std::vector<ucs_status_ptr_t> sends;  // started, maybe not complete
  std::vector<std::vector<std::byte>> buffers;  // what they send (a move keeps the bytes where they are)
};
std::vector<Side> g_sides;  // by id; a closed one has no worker
}  // namespace

int side_open() {
  Side s;
  s.worker = std::make_unique<ucx::Worker>();
  if (!ok(s.worker->init(g.ctx, g_threaded))) return -1;
  for (std::size_t i = 0; i < g_sides.size(); ++i)
    if (!g_sides[i].worker) {
      g_sides[i] = std::move(s);
      return static_cast<int>(i);
    }
  g_sides.push_back(std::move(s));
  return static_cast<int>(g_sides.size() - 1);
}

void side_close(int id) {
  if (id < 0 || static_cast<std::size_t>(id) >= g_sides.size() || !g_sides[static_cast<std::size_t>(id)].worker) return;
  Side& s = g_sides[static_cast<std::size_t>(id)];
  ucx::ep_close_all(*s.worker, s.eps, true);  // a send still on its way is cancelled
  for (ucs_status_ptr_t r : s.sends) ucp_request_free(r);
  s.sends.clear();
  s.worker.reset();
  s.buffers.clear();
}

std::vector<std::byte> side_address(int id) {
  const ucx::Worker& w = *g_sides[static_cast<std::size_t>(id)].worker;
  std::vector<std::byte> a = w.net_address();
  return a.empty() ? w.address() : a;
}

bool side_take(int id, std::uint64_t tag, std::vector<std::byte>& out) {
  ucx::Worker& w = *g_sides[static_cast<std::size_t>(id)].worker;
  w.progress();
  ucp_tag_recv_info_t info{};
  ucp_tag_message_h msg = ucp_tag_probe_nb(w.get(), tag, ~0ULL, 1, &info);
  if (!msg) return false;
  out.resize(info.length);
  ucp_request_param_t p{};
  ucs_status_t st = ucx::wait_ptr(w, ucp_tag_msg_recv_nbx(w.get(), out.data(), out.size(), msg, &p));
  if (st != UCS_OK) {
    CHORUS_WARN(P2P, "side worker receive: {}", ucs_status_string(st));
    out.clear();
  }
  return true;
}

Status side_send(int from, const std::vector<std::byte>& addr, std::uint64_t tag, const void* data, std::size_t len,
                 std::string& why) {
  Side& s = g_sides[static_cast<std::size_t>(from)];
  ucp_ep_h ep;
  CHORUS_TRY(ucx::ep_create(*s.worker, addr.data(), &ep, &why));
  s.eps.push_back(ep);
  // Started, not waited for: it completes only once the receiving worker is
  // progressed too (an MPI_Comm_accept on the port), which may be never. The
  // caller keeps this worker progressing (side_progress) while it waits for the
  // answer, and side_close cancels what is still on its way. The data is copied
  // first, as UCX may still read it after this returns.
  std::vector<std::byte> copy(static_cast<const std::byte*>(data), static_cast<const std::byte*>(data) + len);
  ucp_request_param_t p{};
  ucs_status_ptr_t r = ucp_tag_send_nbx(ep, copy.data(), copy.size(), tag, &p);
  if (UCS_PTR_IS_ERR(r)) {
    why = ucs_status_string(UCS_PTR_STATUS(r));
    return ucx::to_status(UCS_PTR_STATUS(r));
  }
  if (r) {
    s.sends.push_back(r);
    s.buffers.push_back(std::move(copy));
  }
  return Status::Ok;
}

void side_progress(int id) {
  if (id >= 0 && static_cast<std::size_t>(id) < g_sides.size() && g_sides[static_cast<std::size_t>(id)].worker)
    g_sides[static_cast<std::size_t>(id)].worker->progress();
}

Status init(const launcher::JobInfo& job, bool threaded) {
  auto t0 = std::chrono::steady_clock::now();
  g.t_init = t0;
  g.job = job;
  g_threaded = threaded;
  int cores = online_cores();
  g.cores = cores;
  CHORUS_TRY(g.ctx.init(threaded, static_cast<std::size_t>(job.size), shm_settings(job, cores),
                        param::RmaRdma() != rdma::kOff));
  CHORUS_TRY(g.worker.init(g.ctx, threaded));
  g.eps.assign(static_cast<std::size_t>(job.size), nullptr);
  g.foreign.clear();
  g.by_gid.clear();
  g.job_key = job_key(job);
  CHORUS_TRY(device::init(g.ctx.memory_types(), finish));

  auto choose_mode = [&] {
    g.auto_mode = param::Progress() == 0;
    switch (param::Progress()) {
      case 0: g.mode = job.local_size > g.cores ? WaitMode::Yield : WaitMode::Spin; break;
      case 1: g.mode = WaitMode::Spin; break;
      case 2: g.mode = WaitMode::Yield; break;
      default: g.mode = WaitMode::Sleep; break;
    }
  };
  choose_mode();  // until the fence tells which CPUs the node's ranks have
  g.spin = static_cast<unsigned>(param::SpinCount() > 0 ? param::SpinCount() : 0);
  if (log::enabled(log::INFO, log::INIT))
    CHORUS_LOG(INFO, INIT, "UCX transports available: {}", fmt::join(ucx::resources(g.ctx), ", "));

  const auto t_worker = std::chrono::steady_clock::now();
  if (!job.singleton) {
    CHORUS_TRY(local::publish(job));
    CHORUS_TRY(launcher::put(kAddrKey, g.worker.address().data(), g.worker.address().size()));
    const cpu_set_t mine = own_cpus();
    CHORUS_TRY(launcher::put(kCpusKey, &mine, sizeof mine));
    CHORUS_TRY(launcher::commit());
    // Collect the addresses at the fence: one exchange now instead of one
    // server round trip per peer later.
    CHORUS_TRY(launcher::fence(true));
    g.cores = node_cpus(job);
    choose_mode();
    local::attach(job);
  } else {
    const cpu_set_t mine = own_cpus();
    g.cores = std::min(cores, std::max(1, CPU_COUNT(&mine)));
    choose_mode();
  }
  CHORUS_LOG(INFO, P2P, "waits {} ({} local ranks on {} CPUs{})", wait_mode_name(), job.local_size, g.cores,
             g.cores < cores ? fmt::format(" of the node's {}: the ranks' affinity", cores) : std::string());
  g.up = true;
  using ms = std::chrono::duration<double, std::milli>;
  const auto t_end = std::chrono::steady_clock::now();
  CHORUS_LOG(INFO, BOOT, "wire-up: UCX {} worker ready in {:.1f} ms; addresses ({} B each) exchanged at the PMIx "
             "fence in {:.1f} ms", ucx::version(), ms(t_worker - t0).count(), g.worker.address().size(),
             ms(t_end - t_worker).count());
  return Status::Ok;
}

Status finalize() {
  if (!g.up) return Status::Ok;
  // Every operation this rank started must reach its peer before anyone leaves.
  local::finalize();
  ucp_request_param_t p{};
  ucs_status_t st = ucx::wait_ptr(g.worker, ucp_worker_flush_nbx(g.worker.get(), &p));
  if (st != UCS_OK) CHORUS_WARN(P2P, "worker flush at finalize: {}", ucs_status_string(st));
  Status s = Status::Ok;
  if (!g.job.singleton) s = launcher::fence(false, progress_cb, nullptr);
  local::release();
  for (std::size_t i = 0; i < g_sides.size(); ++i) side_close(static_cast<int>(i));
  g_sides.clear();
  // Processes of other jobs may have left already: their endpoints close without
  // waiting for them (the worker flush above delivered what was sent).
  if (g.eps.size() > static_cast<std::size_t>(g.job.size)) {
    std::vector<ucp_ep_h> others(g.eps.begin() + g.job.size, g.eps.end());
    g.eps.resize(static_cast<std::size_t>(g.job.size));
    ucx::ep_close_all(g.worker, others, true);
  }
  ucx::ep_close_all(g.worker, g.eps);
  device::finalize();
  g.worker.reset();
  g.ctx.reset();
  g.up = false;
  return s;
}

bool initialized() { return g.up; }
bool cores_shared() { return g.job.local_size > g.cores; }
namespace {
// Until MPI_Init's agreement (and for sessions, which make none): no, the same
// on every rank, so the collectives that lead to the agreement choose alike.
bool g_shared_anywhere = false;
}  // namespace
bool cores_shared_anywhere() { return g_shared_anywhere; }
void set_cores_shared_anywhere(bool v) { g_shared_anywhere = v; }
const launcher::JobInfo& job() { return g.job; }
bool threaded() { return g_threaded; }

const char* wait_mode_name() {
  switch (g.mode) {
    case WaitMode::Spin: return "spin";
    case WaitMode::Yield: return "yield";
    case WaitMode::Sleep: return "sleep";
  }
  return "?";
}

namespace {
unsigned poll_all() {
  unsigned n = local::poll() + g.worker.progress();
  if (g.hook) n += g.hook();
  for (auto* h : g.late_hooks)
    if (h) n += h();
  return n;
}
}  // namespace

unsigned progress() {
  if (!counters::timing()) return poll_all();
  // Someone reads the time in progress (MPI_T): measure this poll.
  const auto t0 = std::chrono::steady_clock::now();
  const unsigned n = poll_all();
  counters::g_progress_ns.fetch_add(
      static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                     std::chrono::steady_clock::now() - t0).count()),
      std::memory_order_relaxed);
  return n;
}

void set_progress_hook(unsigned (*hook)()) { g.hook = hook; }
void add_late_progress_hook(unsigned (*hook)()) {
  for (auto*& h : g.late_hooks) {
    if (h == hook) return;
    if (!h) {
      h = hook;
      return;
    }
  }
  CHORUS_WARN(P2P, "no room for another progress hook ({} taken): raise late_hooks in p2p.cc", std::size(g.late_hooks));
}

void idle(unsigned& empty) {
  hang::check();
  // Under MPI_THREAD_MULTIPLE a waiting thread must let the others in between
  // polls: they may be about to post what this one waits for. All of its holds:
  // a wait inside a nested call (a collective inside MPI_Comm_split) holds the
  // lock twice, and releasing once would keep every other thread out.
  const int depth = g_threaded ? g_depth : 0;
  for (int i = 0; i < depth; ++i) g_mu.unlock();
  // Spin mode never yields: measured on a node with one or two busy processes
  // beside two ranks (allreduce_perf --background-load), yielding after a thousand
  // empty polls (tried in commit 4a26530) made the median at 256 KiB-2 MiB up to
  // 200x worse (the busy process takes the whole slice) and the p99 no better.
  // Except for one case: when another rank of this node last ran on this rank's
  // CPU, it is most likely waiting for this CPU, and spinning on holds it back
  // for a whole slice (two ranks sharing one core while busy processes have the
  // others made a 16 MiB allreduce take 150 ms instead of 8). Looked at every
  // 64 empty polls (sched_getcpu is a vDSO read).
  // Yield mode (more ranks than CPUs) waits as Spin mode does while the node has
  // more runnable tasks than its CPUs and this job's ranks on it: a process of
  // someone else's that keeps its CPU (a busy loop) gets it for the rest of a
  // slice at every yield, and a wait for a peer then costs milliseconds (3 ranks
  // on 2 CPUs beside one busy process, allreduce_perf --background-load 1: 8 B
  // 1900 us yielding, 5.9 us spinning; 1 MiB 8034 against 844), while this job's
  // own ranks, which Spin mode still yields to, give it back at their next wait.
  // Only where CHORUS_PROGRESS=auto chose yield (a user's explicit yield stays
  // polite), and not under MPI_THREAD_MULTIPLE: a wait there may be for another
  // thread of this process, which Spin mode's check of the ranks' CPUs does not see.
  if (g.mode == WaitMode::Spin ||
      (g.mode == WaitMode::Yield && g.auto_mode && !g_threaded && local::foreign_load())) {
    if ((++empty & 63) == 0 && local::cpu_shared_with_peer()) sched_yield();
  } else {
    ++empty;
    if (g.mode == WaitMode::Yield || empty < g.spin) {
      sched_yield();
    } else {
      timespec ts{0, 20000};
      nanosleep(&ts, nullptr);
    }
  }
  for (int i = 0; i < depth; ++i) g_mu.lock();
}

void set_release_hook(ReleaseFn fn) { g.release = fn; }

Status detail::ucx_isend(Request* r, const void* buf, std::size_t bytes, int dest, std::uint64_t t,
                         bool sync) {
  ucp_ep_h ep;
  CHORUS_TRY(endpoint(dest, &ep));
  r->kind = Request::Kind::Send;
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->bytes = bytes;
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.send = send_cb;
  p.user_data = r;
  void* ubuf = const_cast<void*>(buf);
  std::size_t ucount = bytes;
  if (gpu::on_device(buf)) device::prepare(r, ubuf, bytes, true, p, &ubuf, &ucount);
  ucs_status_ptr_t sp = sync ? ucp_tag_send_sync_nbx(ep, ubuf, ucount, t, &p)
                             : ucp_tag_send_nbx(ep, ubuf, ucount, t, &p);
  if (sp == nullptr) {
    r->complete = device::ucx_done(r);  // else completes when the staging finishes
  } else if (UCS_PTR_IS_ERR(sp)) {
    device::abandon(r);
    r->complete = true;
    r->error = mpi_error(UCS_PTR_STATUS(sp));
  } else {
    r->ucx = sp;
  }
  return Status::Ok;
}

void detail::complete(Request* r) { finish(r); }

Status isend(Request* r, const void* buf, std::size_t bytes, int dest, std::uint64_t t, bool sync,
             bool readable) {
  if (local::owns(t)) return local::isend(r, buf, bytes, dest, t, sync, readable);
  counters::message(counters::Id::UcxMessages, bytes);
  return detail::ucx_isend(r, buf, bytes, dest, t, sync);
}

bool send_now(const void* buf, std::size_t bytes, int dest, std::uint64_t t) {
  return local::owns(t) && local::send_now(buf, bytes, dest, t);
}

namespace {
// Post a UCX tag receive completing `r` through `cb` (device buffers staged). UCX
// 1.13 leaves recv_info unset when a receive completes immediately, so always take
// the request path: the callback reports source, tag and length.
ucs_status_ptr_t post_recv(Request* r, void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask,
                           ucp_tag_recv_nbx_callback_t cb) {
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                   UCP_OP_ATTR_FLAG_NO_IMM_CMPL;
  p.cb.recv = cb;
  p.user_data = r;
  void* ubuf = buf;
  std::size_t ucount = bytes;
  if (gpu::on_device(buf)) device::prepare(r, buf, bytes, false, p, &ubuf, &ucount);
  ucs_status_ptr_t sp = ucp_tag_recv_nbx(g.worker.get(), ubuf, ucount, t, mask, &p);
  if (UCS_PTR_IS_ERR(sp)) device::abandon(r);
  return sp;
}
}  // namespace

Status detail::ucx_irecv_data(Request* r, void* buf, std::size_t bytes, std::uint64_t t) {
  ucs_status_ptr_t sp = post_recv(r, buf, bytes, t, ~0ULL, data_cb);
  if (UCS_PTR_IS_ERR(sp)) return ucx::to_status(UCS_PTR_STATUS(sp));
  r->ucx = sp;
  return Status::Ok;
}

Status irecv(Request* r, void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask) {
  if (local::owns(t)) return local::irecv(r, buf, bytes, t, mask);
  r->kind = Request::Kind::Recv;
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->buf_bytes = bytes;
  ucs_status_ptr_t sp = post_recv(r, buf, bytes, t, mask, recv_cb);
  if (UCS_PTR_IS_ERR(sp)) {
    fill_recv(r, UCS_PTR_STATUS(sp), nullptr);
    r->complete = true;
  } else {
    r->ucx = sp;
  }
  return Status::Ok;
}

namespace {
// A blocking send or receive through UCX progresses UCX alone on most passes and
// the whole engine (rings, collective executor, the MPI layer's hooks) on every
// 32nd: those cost an idle poll loop ~25% of its time, and a message that lands
// mid-loop waits for them (8 B ping-pong through UCX on one node: 0.69-0.70 us
// against Open MPI + UCX's 0.58-0.60). Every pass that moved nothing still idles
// as wait_until does: a yielding rank must give its CPU up at once (a peer that
// shares it waits otherwise: 32 polls of ~1.5 us, 50 us per message over TCP).
template <typename F>
void wait_ucx(F&& done) {
  unsigned empty = 0;
  for (unsigned k = 1; !done(); ++k) {
    const unsigned n = k % 32 == 0 ? progress() : g.worker.progress();
    if (n == 0) idle(empty);
    else empty = 0;
  }
}
}  // namespace

Status send(const void* buf, std::size_t bytes, int dest, std::uint64_t t, bool sync) {
  if (local::owns(t)) return local::send(buf, bytes, dest, t, sync);
  if (gpu::on_device(buf)) {  // staged: needs a request for the copies' completion
    Request r;
    CHORUS_TRY(isend(&r, buf, bytes, dest, t, sync));
    wait_until([&] { return r.complete; });
    return r.error == MPI_SUCCESS ? Status::Ok : Status::Other;
  }
  counters::message(counters::Id::UcxMessages, bytes);
  ucp_ep_h ep;
  CHORUS_TRY(endpoint(dest, &ep));
  ucp_request_param_t p{};
  ucs_status_ptr_t sp = sync ? ucp_tag_send_sync_nbx(ep, buf, bytes, t, &p)
                             : ucp_tag_send_nbx(ep, buf, bytes, t, &p);
  if (sp == nullptr) return Status::Ok;
  if (UCS_PTR_IS_ERR(sp)) return ucx::to_status(UCS_PTR_STATUS(sp));
  ucs_status_t st;
  wait_ucx([&] { return (st = ucp_request_check_status(sp)) != UCS_INPROGRESS; });
  ucp_request_free(sp);
  return ucx::to_status(st);
}

Status recv(void* buf, std::size_t bytes, std::uint64_t t, std::uint64_t mask, RecvInfo& out) {
  if (local::owns(t)) return local::recv(buf, bytes, t, mask, out);
  if (gpu::on_device(buf)) {
    Request r;
    CHORUS_TRY(irecv(&r, buf, bytes, t, mask));
    wait_until([&] { return r.complete; });
    out = detail::info_of(r);
    return Status::Ok;
  }
  ucp_tag_recv_info_t info{};
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FLAG_NO_IMM_CMPL;  // see post_recv()
  ucs_status_ptr_t sp = ucp_tag_recv_nbx(g.worker.get(), buf, bytes, t, mask, &p);
  ucs_status_t st = UCS_OK;
  if (UCS_PTR_IS_ERR(sp)) {
    st = UCS_PTR_STATUS(sp);
  } else if (sp != nullptr) {
    wait_ucx([&] { return (st = ucp_tag_recv_request_test(sp, &info)) != UCS_INPROGRESS; });
    ucp_request_free(sp);
  }
  out.sender_tag = info.sender_tag;
  out.length = st == UCS_ERR_MESSAGE_TRUNCATED ? bytes : info.length;
  out.status = ucx::to_status(st);
  return Status::Ok;
}

bool probe(std::uint64_t t, std::uint64_t mask, bool remove, RecvInfo& out, void** msg) {
  if (local::owns(t)) return local::probe(t, mask, remove, out, msg);
  ucp_tag_recv_info_t info{};
  ucp_tag_message_h m = ucp_tag_probe_nb(g.worker.get(), t, mask, remove ? 1 : 0, &info);
  if (!m) return false;
  out.sender_tag = info.sender_tag;
  out.length = info.length;
  out.status = Status::Ok;
  if (msg) *msg = m;
  return true;
}

Status imrecv(Request* r, void* buf, std::size_t bytes, void* msg, const RecvInfo& probed) {
  if (local::owns(probed.sender_tag)) return local::imrecv(r, buf, bytes, msg);
  r->kind = Request::Kind::Recv;
  r->active = true;
  r->complete = false;
  r->error = MPI_SUCCESS;
  r->buf_bytes = bytes;
  r->source = tag::source_of(probed.sender_tag);
  r->tag = tag::tag_of(probed.sender_tag);
  ucp_request_param_t p{};
  p.op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA;
  p.cb.recv = recv_cb;
  p.user_data = r;
  void* ubuf = buf;
  std::size_t ucount = bytes;
  if (gpu::on_device(buf)) device::prepare(r, buf, bytes, false, p, &ubuf, &ucount);
  ucs_status_ptr_t sp =
      ucp_tag_msg_recv_nbx(g.worker.get(), ubuf, ucount, static_cast<ucp_tag_message_h>(msg), &p);
  if (sp == nullptr) {
    ucp_tag_recv_info_t info{probed.sender_tag, probed.length};
    fill_recv(r, probed.length > bytes ? UCS_ERR_MESSAGE_TRUNCATED : UCS_OK, &info);
    r->complete = device::ucx_done(r);
  } else if (UCS_PTR_IS_ERR(sp)) {
    device::abandon(r);
    fill_recv(r, UCS_PTR_STATUS(sp), nullptr);
    r->complete = true;
  } else {
    r->ucx = sp;
  }
  return Status::Ok;
}

void cancel(Request* r) {
  if (r->kind == Request::Kind::Recv && !r->ucx && !r->complete) {
    local::cancel(r);
    return;
  }
  if (r->kind == Request::Kind::Recv && r->ucx && !r->complete && !r->no_cancel)
    ucp_request_cancel(g.worker.get(), r->ucx);
}

}  // namespace chorus::p2p
