#include "launcher/pmix.h"

#include <pmix.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "core/log.h"
#include <mpi.h>
#include <fmt/format.h>
#include "launcher/pmi1.h"

namespace chorus::launcher {
namespace {

pmix_proc_t g_me;
bool g_active = false;
bool g_pmi1 = false;  // joined through MPICH hydra's PMI-1 socket instead (pmi1.h)
Identity g_id;  // what init() has learnt so far

// Any PMIx server (ours, Open MPI's, Slurm's) announces itself to its clients
// through these standard variables. Without them there is no server to reach.
bool server_in_environment() {
  return std::getenv("PMIX_NAMESPACE") != nullptr || std::getenv("PMIX_SERVER_URI4") != nullptr ||
         std::getenv("PMIX_SERVER_URI3") != nullptr || std::getenv("PMIX_SERVER_URI2") != nullptr ||
         std::getenv("PMIX_SERVER_URI21") != nullptr || std::getenv("PMIX_SERVER_URI41") != nullptr;
}

// Read an unsigned job or proc fact; false when the server does not provide it.
bool get_uint(int rank, const char* key, std::uint64_t& out) {
  pmix_proc_t p;
  PMIX_PROC_CONSTRUCT(&p);
  PMIX_LOAD_PROCID(&p, g_me.nspace, rank);
  pmix_value_t* v = nullptr;
  // Job-level and proc-level facts are local to the server: never wait for them.
  pmix_info_t info;
  bool opt = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &opt, PMIX_BOOL);
  pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS || !v) return false;
  bool ok = true;
  switch (v->type) {
    case PMIX_UINT32: out = v->data.uint32; break;
    case PMIX_UINT16: out = v->data.uint16; break;
    case PMIX_UINT64: out = v->data.uint64; break;
    case PMIX_INT: out = static_cast<std::uint64_t>(v->data.integer); break;
    case PMIX_PROC_RANK: out = v->data.rank; break;
    case PMIX_UINT8: out = v->data.uint8; break;
    case PMIX_SIZE: out = v->data.size; break;
    default: ok = false;
  }
  PMIX_VALUE_RELEASE(v);
  return ok;
}

bool get_string(int rank, const char* key, std::string& out) {
  pmix_proc_t p;
  PMIX_PROC_CONSTRUCT(&p);
  PMIX_LOAD_PROCID(&p, g_me.nspace, rank);
  pmix_value_t* v = nullptr;
  pmix_info_t info;
  bool opt = true;
  PMIX_INFO_LOAD(&info, PMIX_OPTIONAL, &opt, PMIX_BOOL);
  pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS || !v) return false;
  bool ok = v->type == PMIX_STRING && v->data.string;
  if (ok) out = v->data.string;
  PMIX_VALUE_RELEASE(v);
  return ok;
}

// PMIx tells a client that its server closed the connection before the client
// finalized: whoever started us is gone (killed, or crashed). Nobody is left to
// wait for or to report to, and our output pipes may lead nowhere, so exit
// instead of spinning in a wait for peers that will never come. mpirun's own
// ranks also have the kernel's parent-death signal; this covers ranks behind a
// wrapper script and under other launchers. (mpirun ending a job finalizes its
// server before it signals the ranks, but OpenPMIx 4.2 keeps the connections
// open until mpirun exits, so a rank's SIGTERM handler still gets its grace
// period; launcher_signals checks that.)
// OpenPMIx calls this on its progress thread; _exit is safe from any thread.
void on_server_lost(size_t, pmix_status_t status, const pmix_proc_t*, pmix_info_t[], size_t,
                    pmix_info_t[], size_t, pmix_event_notification_cbfunc_fn_t, void*) {
  CHORUS_LOG(INFO, BOOT, "lost the PMIx server ({}): the launcher is gone; exiting",
             PMIx_Error_string(status));
  _exit(1);
}

void watch_server() {
  // OpenPMIx 4 reports LOST_CONNECTION; older releases LOST_CONNECTION_TO_SERVER.
  pmix_status_t codes[] = {PMIX_ERR_LOST_CONNECTION, PMIX_ERR_LOST_CONNECTION_TO_SERVER};
  // Without a callback the registration is blocking and returns the handler's id.
  pmix_status_t rc = PMIx_Register_event_handler(codes, sizeof codes / sizeof codes[0], nullptr, 0,
                                                 on_server_lost, nullptr, nullptr);
  if (rc < 0)
    CHORUS_WARN(BOOT, "cannot watch the PMIx server connection: {}; a rank whose launcher is "
                "killed may not notice", PMIx_Error_string(rc));
}

std::string local_hostname() {
  char buf[256] = {};
  gethostname(buf, sizeof buf - 1);
  return buf;
}

}  // namespace

Status init(JobInfo& out) {
  out = JobInfo{};
  if (!server_in_environment() && pmi1::offered()) {
    std::string err;
    if (Status st = pmi1::init(out, err); !ok(st)) {
      CHORUS_WARN(BOOT, "{}", err);
      return st;
    }
    g_pmi1 = g_active = true;
    g_id = Identity{out.rank, out.hostname};
    return Status::Ok;
  }
  if (!server_in_environment()) {
    // PMI variables without a socket to join through (hydra with PMI_PORT, Slurm's
    // PMI-2 without PMI_FD): every rank would be a world of one. Say so, once.
    const char* pmi_rank = std::getenv("PMI_RANK");
    // Who that was, as far as the environment tells: Slurm's PMI-2 plugin, or
    // MPICH's hydra (the only common launcher that hands out PMI_PORT).
    const char* who = std::getenv("SLURM_JOB_ID") ? "srun with a PMI-2 plugin (srun --mpi=pmi2)"
                      : std::getenv("PMI_PORT")   ? "MPICH's hydra (mpiexec.hydra, mpiexec.mpich) in PMI_PORT mode"
                                                  : "a launcher";
    if ((pmi_rank || std::getenv("PMI_PORT") || std::getenv("PMI_SIZE")) && (!pmi_rank || std::string_view(pmi_rank) == "0"))
      CHORUS_WARN(BOOT, "started by {} that offers PMI-1/PMI-2 variables ({}) but no PMIx server and no "
                  "PMI_FD socket to join through: each rank runs as a world of one. Start the job with Chorus's "
                  "mpirun, srun --mpi=pmix, Open MPI's mpirun or MPICH's mpiexec (which hands out PMI_FD)",
                  who, std::getenv("PMI_PORT") ? "PMI_PORT" : "PMI_RANK, PMI_SIZE");
    // srun without a PMI plugin (--mpi=none): only Slurm's own variables.
    const char* procid = std::getenv("SLURM_PROCID");
    const char* ntasks = std::getenv("SLURM_STEP_NUM_TASKS") ? std::getenv("SLURM_STEP_NUM_TASKS") : std::getenv("SLURM_NTASKS");
    if (!pmi_rank && procid && ntasks && std::atoi(ntasks) > 1 && std::string_view(procid) == "0")
      CHORUS_WARN(BOOT, "started by srun as one of {} tasks, but with no PMIx or PMI to join through (srun "
                  "--mpi=none?): each task runs as a world of one. Use srun --mpi=pmix (or --mpi=pmi2)", ntasks);
    out.hostname = local_hostname();
    out.local_peers = {0};
    g_id = Identity{0, out.hostname};
    CHORUS_LOG(INFO, BOOT, "no PMIx server in the environment: singleton world of size 1");
    return Status::Ok;
  }
  pmix_status_t rc = PMIx_Init(&g_me, nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    CHORUS_WARN(BOOT, "PMIx_Init failed: {} (a PMIx server was announced in the environment "
                "but cannot be reached)", PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  g_active = true;
  watch_server();
  out.singleton = false;
  out.nspace = g_me.nspace;
  out.rank = static_cast<int>(g_me.rank);
  g_id.rank = out.rank;
  std::uint64_t v = 0;
  if (!get_uint(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE, v)) {
    CHORUS_WARN(BOOT, "PMIx server does not provide {} for namespace {}", PMIX_JOB_SIZE, out.nspace);
    return Status::Bootstrap;
  }
  out.size = static_cast<int>(v);
  out.local_rank = get_uint(out.rank, PMIX_LOCAL_RANK, v) ? int(v) : 0;
  out.local_size = get_uint(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE, v) ? int(v) : 1;
  out.node_id = get_uint(out.rank, PMIX_NODEID, v) ? int(v) : 0;
  out.num_nodes = get_uint(PMIX_RANK_WILDCARD, PMIX_NUM_NODES, v) ? int(v) : 1;
  out.appnum = get_uint(out.rank, PMIX_APPNUM, v) ? int(v) : 0;
  if (!get_string(out.rank, PMIX_HOSTNAME, out.hostname)) out.hostname = local_hostname();
  g_id.host = out.hostname;
  std::string peers;
  if (get_string(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS, peers)) {
    const char* s = peers.c_str();
    while (*s) {
      char* end = nullptr;
      long r = std::strtol(s, &end, 10);
      if (end == s) break;
      out.local_peers.push_back(static_cast<int>(r));
      s = (*end == ',') ? end + 1 : end;
    }
    std::sort(out.local_peers.begin(), out.local_peers.end());
  }
  if (out.local_peers.empty()) out.local_peers = {out.rank};
  if (out.local_size <= 0) out.local_size = static_cast<int>(out.local_peers.size());
  return Status::Ok;
}

Identity identity() {
  Identity id = g_id;
  if (id.rank < 0) {
    // Every PMIx launcher (ours, Open MPI's, Slurm's) sets it for its clients.
    const char* r = std::getenv("PMIX_RANK");
    char* end = nullptr;
    long v = r ? std::strtol(r, &end, 10) : -1;
    if (r && *r && *end == '\0' && v >= 0 && v <= INT32_MAX) id.rank = static_cast<int>(v);
  }
  if (id.host.empty()) id.host = local_hostname();
  return id;
}

bool active() { return g_active; }

Status put(std::string_view key, const void* data, std::size_t len) {
  if (!g_active) return Status::Ok;
  if (g_pmi1) return pmi1::put(key, data, len);
  pmix_value_t val;
  PMIX_VALUE_CONSTRUCT(&val);
  val.type = PMIX_BYTE_OBJECT;
  val.data.bo.bytes = static_cast<char*>(const_cast<void*>(data));
  val.data.bo.size = len;
  std::string k(key);
  pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, k.c_str(), &val);  // PMIx copies the value
  if (rc != PMIX_SUCCESS) {
    CHORUS_WARN(BOOT, "PMIx_Put {} failed: {}", k, PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  return Status::Ok;
}

Status commit() {
  if (!g_active || g_pmi1) return Status::Ok;  // PMI-1 puts are visible after the next barrier
  pmix_status_t rc = PMIx_Commit();
  if (rc != PMIX_SUCCESS) {
    CHORUS_WARN(BOOT, "PMIx_Commit failed: {}", PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  return Status::Ok;
}

namespace {
struct FenceWait {
  std::atomic<bool> done{false};
  pmix_status_t rc = PMIX_SUCCESS;
};
void fence_done(pmix_status_t status, void* cbdata) {
  auto* w = static_cast<FenceWait*>(cbdata);
  w->rc = status;
  w->done.store(true, std::memory_order_release);
}
}  // namespace

Status fence(bool collect, void (*progress)(void*), void* arg) {
  if (!g_active) return Status::Ok;
  if (g_pmi1) return pmi1::fence(progress, arg);
  pmix_info_t info;
  bool flag = collect;
  PMIX_INFO_LOAD(&info, PMIX_COLLECT_DATA, &flag, PMIX_BOOL);
  pmix_status_t rc;
  if (!progress) {
    rc = PMIx_Fence(nullptr, 0, &info, 1);
  } else {
    // Non-blocking fence so the caller's transport keeps progressing: peers may
    // still be flushing messages to us while we wait.
    FenceWait w;
    rc = PMIx_Fence_nb(nullptr, 0, &info, 1, fence_done, &w);
    if (rc == PMIX_SUCCESS) {
      while (!w.done.load(std::memory_order_acquire)) {
        progress(arg);
        sched_yield();
      }
      rc = w.rc;
    } else if (rc == PMIX_OPERATION_SUCCEEDED) {
      rc = PMIX_SUCCESS;
    }
  }
  PMIX_INFO_DESTRUCT(&info);
  if (rc != PMIX_SUCCESS) {
    CHORUS_WARN(BOOT, "PMIx_Fence failed: {}", PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  return Status::Ok;
}

Status get(int rank, std::string_view key, std::vector<std::byte>& out) {
  if (!g_active) return Status::Bootstrap;
  if (g_pmi1) return pmi1::get(rank, key, out);
  pmix_proc_t p;
  PMIX_PROC_CONSTRUCT(&p);
  PMIX_LOAD_PROCID(&p, g_me.nspace, rank);
  pmix_value_t* v = nullptr;
  std::string k(key);
  pmix_status_t rc = PMIx_Get(&p, k.c_str(), nullptr, 0, &v);
  if (rc != PMIX_SUCCESS || !v) {
    CHORUS_WARN(BOOT, "PMIx_Get {} from rank {} failed: {}", k, rank, PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  Status st = Status::Ok;
  if (v->type == PMIX_BYTE_OBJECT) {
    out.resize(v->data.bo.size);
    std::memcpy(out.data(), v->data.bo.bytes, v->data.bo.size);
  } else {
    CHORUS_WARN(BOOT, "PMIx_Get {} from rank {}: unexpected type {}", k, rank, int(v->type));
    st = Status::Bootstrap;
  }
  PMIX_VALUE_RELEASE(v);
  return st;
}

void abort(int errorcode, const std::string& message) {
  if (!g_active) return;
  if (g_pmi1) return pmi1::abort(errorcode, message);
  // NULL procs: the whole namespace. The server ends the job and replies.
  PMIx_Abort(errorcode, message.c_str(), nullptr, 0);
}

Status finalize() {
  if (!g_active) return Status::Ok;
  g_active = false;
  if (g_pmi1) {
    g_pmi1 = false;
    return pmi1::finalize();
  }
  pmix_status_t rc = PMIx_Finalize(nullptr, 0);
  if (rc != PMIX_SUCCESS) {
    CHORUS_WARN(BOOT, "PMIx_Finalize failed: {}", PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  return Status::Ok;
}

std::string version() { return PMIx_Get_version(); }

std::string launcher_name() {
  if (g_pmi1) return "MPICH's hydra (PMI-1)";
  if (!g_active) return "no launcher (a program started alone is a singleton)";
  if (std::getenv("CHORUS_HANG_DIR")) return "Chorus's mpirun";  // it sets this in every rank
  if (std::getenv("SLURM_JOB_ID") && !std::getenv("PRTE_LAUNCHED") && !std::getenv("OMPI_COMMAND"))
    return "Slurm's PMIx plugin";
  if (std::getenv("OMPI_COMMAND") || std::getenv("PRTE_LAUNCHED")) return "Open MPI's mpirun (PRRTE)";
  return "a PMIx server";
}

namespace {
// The calls below need a PMIx server; PMI-1 and singletons have none to ask.
bool no_server(const char* what, std::string& why) {
  if (g_active && !g_pmi1) return false;
  why = fmt::format("{} needs a PMIx server, and this process was started by {}", what, launcher_name());
  return true;
}
}  // namespace

int publish_name(const std::string& service, const std::string& port, std::string& why) {
  if (no_server("publishing a name", why)) return MPI_ERR_SERVICE;
  pmix_info_t info;
  PMIX_INFO_LOAD(&info, service.c_str(), port.c_str(), PMIX_STRING);
  pmix_status_t rc = PMIx_Publish(&info, 1);
  PMIX_INFO_DESTRUCT(&info);
  if (rc == PMIX_SUCCESS) return MPI_SUCCESS;
  why = fmt::format("{} answered PMIx_Publish with {}", launcher_name(), PMIx_Error_string(rc));
  return MPI_ERR_SERVICE;
}

int lookup_name(const std::string& service, std::string& port, std::string& why) {
  if (no_server("looking up a name", why)) return MPI_ERR_NAME;
  pmix_pdata_t pd;
  PMIX_PDATA_CONSTRUCT(&pd);
  PMIX_LOAD_KEY(pd.key, service.c_str());
  pmix_status_t rc = PMIx_Lookup(&pd, 1, nullptr, 0);
  int out = MPI_SUCCESS;
  if (rc == PMIX_SUCCESS && pd.value.type == PMIX_STRING && pd.value.data.string) {
    port = pd.value.data.string;
  } else {
    why = rc == PMIX_SUCCESS ? "the directory holds a value that is not a port name"
          : rc == PMIX_ERR_NOT_FOUND ? "no such name is published"
                                     : fmt::format("{} answered PMIx_Lookup with {}", launcher_name(),
                                                   PMIx_Error_string(rc));
    out = MPI_ERR_NAME;
  }
  PMIX_PDATA_DESTRUCT(&pd);
  return out;
}

int unpublish_name(const std::string& service, std::string& why) {
  if (no_server("unpublishing a name", why)) return MPI_ERR_SERVICE;
  char* keys[] = {const_cast<char*>(service.c_str()), nullptr};
  pmix_status_t rc = PMIx_Unpublish(keys, nullptr, 0);
  if (rc == PMIX_SUCCESS) return MPI_SUCCESS;
  why = rc == PMIX_ERR_NOT_FOUND ? "no such name is published"
                                 : fmt::format("{} answered PMIx_Unpublish with {}", launcher_name(),
                                               PMIx_Error_string(rc));
  return MPI_ERR_SERVICE;
}

int spawn(const std::vector<SpawnApp>& apps, std::string& nspace, std::string& why) {
  if (no_server("spawning processes", why)) return MPI_ERR_SPAWN;
  pmix_app_t* a = nullptr;
  PMIX_APP_CREATE(a, apps.size());
  auto strings = [](const std::vector<std::string>& v, const std::string* first) {
    std::size_t n = v.size() + (first ? 1 : 0);
    auto** out = static_cast<char**>(std::calloc(n + 1, sizeof(char*)));
    std::size_t k = 0;
    if (first) out[k++] = strdup(first->c_str());
    for (const auto& x : v) out[k++] = strdup(x.c_str());
    return out;
  };
  for (std::size_t i = 0; i < apps.size(); ++i) {
    a[i].cmd = strdup(apps[i].cmd.c_str());
    a[i].argv = strings(apps[i].argv, &apps[i].cmd);
    a[i].env = strings(apps[i].env, nullptr);
    a[i].maxprocs = apps[i].maxprocs;
    if (!apps[i].wdir.empty()) a[i].cwd = strdup(apps[i].wdir.c_str());
  }
  pmix_nspace_t ns;
  std::memset(ns, 0, sizeof ns);
  pmix_status_t rc = PMIx_Spawn(nullptr, 0, a, apps.size(), ns);
  PMIX_APP_FREE(a, apps.size());
  if (rc == PMIX_SUCCESS) {
    nspace = ns;
    return MPI_SUCCESS;
  }
  why = fmt::format("{} answered PMIx_Spawn with {}", launcher_name(), PMIx_Error_string(rc));
  if (rc == PMIX_ERR_NOT_SUPPORTED) why += " (this launcher cannot start processes for a running job)";
  return MPI_ERR_SPAWN;
}

}  // namespace chorus::launcher
