#include "launcher/server/pmix_host.h"

#include <pmix.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <fmt/format.h>

#include "core/log.h"

namespace chorus::launcher {
namespace {

// The server library is a process-wide singleton; so is its host object.
PmixServer* g_server = nullptr;

// Waits for a pmix_op_cbfunc_t completion, which may arrive on any thread.
struct OpWait {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  pmix_status_t status = PMIX_SUCCESS;

  static void callback(pmix_status_t st, void* cbdata) {
    auto* w = static_cast<OpWait*>(cbdata);
    std::lock_guard<std::mutex> lk(w->mu);
    w->status = st;
    w->done = true;
    w->cv.notify_all();
  }
  // `rc` is what the non-blocking call returned.
  pmix_status_t wait(pmix_status_t rc) {
    if (rc == PMIX_OPERATION_SUCCEEDED) return PMIX_SUCCESS;  // done inline, no callback
    if (rc != PMIX_SUCCESS) return rc;
    std::unique_lock<std::mutex> lk(mu);
    cv.wait(lk, [&] { return done; });
    return status;
  }
};

int rank_of(const pmix_proc_t* proc) {
  return proc && proc->rank <= static_cast<pmix_rank_t>(INT32_MAX) ? static_cast<int>(proc->rank) : -1;
}

std::string nspace_of(const pmix_proc_t* proc) {
  return proc ? std::string(proc->nspace, strnlen(proc->nspace, PMIX_MAX_NSLEN)) : std::string();
}

std::string str_of(const char* s) { return s ? s : ""; }

std::vector<std::string> argv_of(char** v) {
  std::vector<std::string> out;
  for (; v && *v; ++v) out.emplace_back(*v);
  return out;
}

// A string-valued info (PMIX_WDIR); "" when it is not a string.
std::string info_str(const pmix_info_t& info) {
  return info.value.type == PMIX_STRING && info.value.data.string ? info.value.data.string : "";
}

PmixValuePtr copy_value(const pmix_value_t& v) {
  auto* out = new pmix_value_t;
  PMIX_VALUE_CONSTRUCT(out);
  if (PMIx_Value_xfer(out, &v) != PMIX_SUCCESS) {
    delete out;
    return nullptr;
  }
  return PmixValuePtr(out, [](pmix_value_t* p) {
    PMIx_Value_destruct(p);
    delete p;
  });
}

// PMIx's own attributes ("pmix.*": PMIX_USERID, PMIX_RANGE, PMIX_PERSISTENCE
// ...) that come with published data; every other key is the caller's.
bool is_directive(const char* key) { return std::strncmp(key, "pmix.", 5) == 0; }

// ---- upcalls (PMIx progress thread) ----

// A client finished PMIx_Init's handshake. Known to be a PMIx client, it owes
// the launcher a PMIx_Finalize before it exits. OpenPMIx releases the client
// without waiting for us when we answer PMIX_OPERATION_SUCCEEDED, whether or
// not the release at hand passes a callback (not all do).
pmix_status_t on_client_connected2(const pmix_proc_t* proc, void*, pmix_info_t[], size_t,
                                   pmix_op_cbfunc_t, void*) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Connected;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  g_server->push(std::move(ev));
  return PMIX_OPERATION_SUCCEEDED;
}

pmix_status_t on_client_finalized(const pmix_proc_t* proc, void*, pmix_op_cbfunc_t cbfunc,
                                  void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Finalized;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  g_server->push(std::move(ev));
  if (cbfunc) cbfunc(PMIX_SUCCESS, cbdata);
  return PMIX_SUCCESS;
}

pmix_status_t on_abort(const pmix_proc_t* proc, void*, int status, const char msg[],
                       pmix_proc_t[], size_t, pmix_op_cbfunc_t cbfunc, void* cbdata) {
  // Any abort ends the whole job, whichever procs it names. The client stays
  // blocked in PMIx_Abort until the main loop has recorded the abort, so the
  // cause reads "MPI_Abort" and not the exit status that follows it.
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Abort;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  ev.status = status;
  ev.msg = msg ? msg : "";
  ev.opfunc = cbfunc;
  ev.opdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_fence_nb(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                          char* data, size_t ndata, pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Fence;
  if (nprocs > 0) ev.nspace = nspace_of(&procs[0]);
  if (data && ndata) ev.data.assign(data, ndata);
  for (size_t i = 0; i < nprocs; ++i)
    if (procs[i].rank != PMIX_RANK_WILDCARD) ev.participants.push_back(rank_of(&procs[i]));
  ev.cbfunc = cbfunc;
  ev.cbdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_direct_modex(const pmix_proc_t* proc, const pmix_info_t[], size_t,
                              pmix_modex_cbfunc_t cbfunc, void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::DirectModex;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  ev.cbfunc = cbfunc;
  ev.cbdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

// PMIx_Spawn. The library may free the apps once we return: everything is
// copied. Unknown info keys are ignored.
pmix_status_t on_spawn(const pmix_proc_t* proc, const pmix_info_t job_info[], size_t ninfo, const pmix_app_t apps[],
                       size_t napps, pmix_spawn_cbfunc_t cbfunc, void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Spawn;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  for (size_t i = 0; i < ninfo; ++i)
    if (PMIX_CHECK_KEY(&job_info[i], PMIX_WDIR)) ev.wdir = info_str(job_info[i]);
  for (size_t a = 0; a < napps; ++a) {
    SpawnApp app;
    app.cmd = str_of(apps[a].cmd);
    app.argv = argv_of(apps[a].argv);
    app.env = argv_of(apps[a].env);
    app.cwd = str_of(apps[a].cwd);
    app.maxprocs = apps[a].maxprocs;
    for (size_t i = 0; i < apps[a].ninfo && apps[a].info; ++i)
      if (PMIX_CHECK_KEY(&apps[a].info[i], PMIX_WDIR)) app.wdir = info_str(apps[a].info[i]);
    ev.apps.push_back(std::move(app));
  }
  ev.spawnfunc = cbfunc;
  ev.spawndata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_publish(const pmix_proc_t* proc, const pmix_info_t info[], size_t ninfo, pmix_op_cbfunc_t cbfunc,
                         void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Publish;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  for (size_t i = 0; i < ninfo; ++i) {
    std::string key(info[i].key, strnlen(info[i].key, PMIX_MAX_KEYLEN));
    if (is_directive(key.c_str())) continue;
    PmixValuePtr v = copy_value(info[i].value);
    if (!v) return PMIX_ERR_BAD_PARAM;
    ev.values.emplace_back(std::move(key), std::move(v));
  }
  ev.opfunc = cbfunc;
  ev.opdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_lookup(const pmix_proc_t* proc, char** keys, const pmix_info_t info[], size_t ninfo,
                        pmix_lookup_cbfunc_t cbfunc, void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Lookup;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  ev.keys = argv_of(keys);
  // PMIX_WAIT: an int, how many of the keys to wait for (0: all); also taken
  // as a bool (true: all).
  for (size_t i = 0; i < ninfo; ++i) {
    if (!PMIX_CHECK_KEY(&info[i], PMIX_WAIT)) continue;
    const pmix_value_t& v = info[i].value;
    if (v.type == PMIX_INT) ev.wait_for = v.data.integer <= 0 ? 0 : v.data.integer;
    else if (v.type == PMIX_UINT32) ev.wait_for = static_cast<int>(std::min<uint32_t>(v.data.uint32, INT32_MAX));
    else if (v.type == PMIX_SIZE) ev.wait_for = static_cast<int>(std::min<size_t>(v.data.size, INT32_MAX));
    else if (PMIX_INFO_TRUE(&info[i])) ev.wait_for = 0;
  }
  if (ev.wait_for == 0 || ev.wait_for > static_cast<int>(ev.keys.size()))
    ev.wait_for = static_cast<int>(ev.keys.size());
  ev.lookfunc = cbfunc;
  ev.lookdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_unpublish(const pmix_proc_t* proc, char** keys, const pmix_info_t[], size_t, pmix_op_cbfunc_t cbfunc,
                           void* cbdata) {
  ServerEvent ev;
  ev.kind = ServerEvent::Kind::Unpublish;
  ev.nspace = nspace_of(proc);
  ev.rank = rank_of(proc);
  ev.keys = argv_of(keys);
  ev.opfunc = cbfunc;
  ev.opdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

// PMIx_Connect/Disconnect: the library calls us once every local process in
// `procs` has called.
pmix_status_t connect_event(ServerEvent::Kind kind, const pmix_proc_t procs[], size_t nprocs, pmix_op_cbfunc_t cbfunc,
                            void* cbdata) {
  ServerEvent ev;
  ev.kind = kind;
  for (size_t i = 0; i < nprocs; ++i)
    ev.procs.emplace_back(nspace_of(&procs[i]),
                          procs[i].rank == PMIX_RANK_WILDCARD ? -1 : rank_of(&procs[i]));
  if (nprocs > 0) ev.nspace = ev.procs[0].first;
  ev.opfunc = cbfunc;
  ev.opdata = cbdata;
  g_server->push(std::move(ev));
  return PMIX_SUCCESS;
}

pmix_status_t on_connect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                         pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return connect_event(ServerEvent::Kind::Connect, procs, nprocs, cbfunc, cbdata);
}

pmix_status_t on_disconnect(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t[], size_t,
                            pmix_op_cbfunc_t cbfunc, void* cbdata) {
  return connect_event(ServerEvent::Kind::Disconnect, procs, nprocs, cbfunc, cbdata);
}

void release_blob(void* cbdata) { delete static_cast<std::string*>(cbdata); }

// A modex_request()'s answer from the library, passed to the loop as an event.
void on_modex_data(pmix_status_t st, char* data, size_t sz, void* cbdata) {
  std::unique_ptr<ServerEvent> ev(static_cast<ServerEvent*>(cbdata));
  ev->status = st;
  if (data && sz) ev->data.assign(data, sz);
  g_server->push(std::move(*ev));
}

// ---- info lists ----

// An owner for a PMIx info list built with PMIx_Info_list_*.
class InfoList {
 public:
  InfoList() : list_(PMIx_Info_list_start()) {}
  ~InfoList() { PMIx_Info_list_release(list_); }
  InfoList(const InfoList&) = delete;
  InfoList& operator=(const InfoList&) = delete;

  void add(const char* key, const void* value, pmix_data_type_t type) {
    pmix_status_t rc = PMIx_Info_list_add(list_, key, value, type);
    if (rc != PMIX_SUCCESS) CHORUS_WARN(LAUNCH, "cannot add PMIx key {}: {}", key, PMIx_Error_string(rc));
  }
  void add_str(const char* key, const std::string& v) { add(key, v.c_str(), PMIX_STRING); }
  void add_u32(const char* key, uint32_t v) { add(key, &v, PMIX_UINT32); }
  void add_u16(const char* key, uint16_t v) { add(key, &v, PMIX_UINT16); }
  void add_rank(const char* key, pmix_rank_t v) { add(key, &v, PMIX_PROC_RANK); }
  void add_list(const char* key, InfoList& sub) {
    pmix_data_array_t arr;
    PMIX_DATA_ARRAY_CONSTRUCT(&arr, 0, PMIX_INFO);
    PMIx_Info_list_convert(sub.list_, &arr);
    add(key, &arr, PMIX_DATA_ARRAY);  // copies
    PMIX_DATA_ARRAY_DESTRUCT(&arr);
  }
  // The list as an array; the caller destructs it.
  void convert(pmix_data_array_t& out) {
    PMIX_DATA_ARRAY_CONSTRUCT(&out, 0, PMIX_INFO);
    PMIx_Info_list_convert(list_, &out);
  }

 private:
  void* list_;
};

std::string join_ints(const std::vector<int>& v, char sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += sep;
    s += std::to_string(v[i]);
  }
  return s;
}

}  // namespace

std::unique_ptr<PmixServer> PmixServer::start(const std::string& tmpdir, std::string& err) {
  if (g_server) {
    err = "a PMIx server is already running in this process";
    return nullptr;
  }
  std::unique_ptr<PmixServer> s(new PmixServer());
  s->wake_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (s->wake_fd_ < 0) {
    err = fmt::format("eventfd: {}", std::strerror(errno));
    return nullptr;
  }
  g_server = s.get();

  static pmix_server_module_t module = [] {
    pmix_server_module_t m;
    std::memset(&m, 0, sizeof m);
    m.client_connected2 = on_client_connected2;
    m.client_finalized = on_client_finalized;
    m.abort = on_abort;
    m.fence_nb = on_fence_nb;
    m.direct_modex = on_direct_modex;
    m.spawn = on_spawn;
    m.publish = on_publish;
    m.lookup = on_lookup;
    m.unpublish = on_unpublish;
    m.connect = on_connect;
    m.disconnect = on_disconnect;
    return m;
  }();

  // The job data store: OpenPMIx's shared-memory stores (gds ds12/ds21) hold
  // no value above 4 MiB (a compiled-in segment size), and one larger, put by
  // any rank, makes the server fail and then crash in its error path (4.2.2:
  // "PLEASE set NS_DATA_SEG_SIZE", then free(): invalid size). The hash store
  // has no such limit; ranks read the job data from their own copy after the
  // fence instead of a shared segment. A PMIX_MCA_gds the user set still wins.
  ::setenv("PMIX_MCA_gds", "hash", 0);
  InfoList info;
  info.add_str(PMIX_SERVER_TMPDIR, tmpdir);
  info.add_str(PMIX_SYSTEM_TMPDIR, tmpdir);
  pmix_data_array_t arr;
  info.convert(arr);
  pmix_status_t rc = PMIx_server_init(&module, static_cast<pmix_info_t*>(arr.array), arr.size);
  PMIX_DATA_ARRAY_DESTRUCT(&arr);
  if (rc != PMIX_SUCCESS) {
    err = fmt::format("PMIx_server_init failed: {}", PMIx_Error_string(rc));
    return nullptr;  // the destructor closes the eventfd and clears g_server
  }
  s->initialized_ = true;
  CHORUS_LOG(INFO, LAUNCH, "PMIx server {} up, tmpdir {}", PMIx_Get_version(), tmpdir);
  return s;
}

void PmixServer::shutdown() {
  if (!initialized_) return;
  initialized_ = false;
  pmix_status_t rc = PMIx_server_finalize();
  if (rc != PMIX_SUCCESS) CHORUS_WARN(LAUNCH, "PMIx_server_finalize: {}", PMIx_Error_string(rc));
  std::lock_guard<std::mutex> lk(mu_);
  queue_.clear();  // their callbacks belong to the finalized library
}

PmixServer::~PmixServer() {
  shutdown();
  if (wake_fd_ >= 0) ::close(wake_fd_);
  // Fences still queued would leave clients hanging, but every client is gone
  // by now; the library frees its trackers in finalize.
  g_server = nullptr;
}

void PmixServer::push(ServerEvent ev) {
  {
    std::lock_guard<std::mutex> lk(mu_);
    queue_.push_back(std::move(ev));
  }
  uint64_t one = 1;
  ssize_t n = ::write(wake_fd_, &one, sizeof one);
  (void)n;  // EAGAIN only when the counter is saturated: the loop is awake anyway
}

std::vector<ServerEvent> PmixServer::take_events() {
  uint64_t v;
  ssize_t n = ::read(wake_fd_, &v, sizeof v);
  (void)n;
  std::lock_guard<std::mutex> lk(mu_);
  if (!initialized_) return {};
  std::vector<ServerEvent> out(std::make_move_iterator(queue_.begin()),
                               std::make_move_iterator(queue_.end()));
  queue_.clear();
  return out;
}

void PmixServer::complete_fence(const ServerEvent& ev, pmix_status_t st, std::string data) {
  auto* blob = new std::string(std::move(data));
  ev.cbfunc(st, blob->data(), blob->size(), ev.cbdata, release_blob, blob);
}

void PmixServer::release_abort(const ServerEvent& ev) {
  if (ev.opfunc) ev.opfunc(PMIX_SUCCESS, ev.opdata);
}

void PmixServer::complete_direct_modex(const ServerEvent& ev, pmix_status_t st, std::string data) {
  complete_fence(ev, st, std::move(data));  // same callback type and ownership
}

void PmixServer::modex_request(int rank, int node, int req) {
  auto ev = std::make_unique<ServerEvent>();
  ev->kind = ServerEvent::Kind::ModexData;
  ev->rank = rank;
  ev->node = node;
  ev->req = req;
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, nspace_.c_str(), static_cast<pmix_rank_t>(rank));
  pmix_status_t st = PMIx_server_dmodex_request(&proc, on_modex_data, ev.get());
  if (st == PMIX_SUCCESS) {
    ev.release();  // on_modex_data owns it now
    return;
  }
  ev->status = st;
  push(std::move(*ev));
}

void PmixServer::complete_spawn(const ServerEvent& ev, pmix_status_t st, const std::string& nspace) {
  if (!ev.spawnfunc) return;
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, st == PMIX_SUCCESS ? nspace.c_str() : "");
  ev.spawnfunc(st, ns, ev.spawndata);
}

void PmixServer::complete_op(const ServerEvent& ev, pmix_status_t st) {
  if (ev.opfunc) ev.opfunc(st, ev.opdata);
}

void PmixServer::complete_lookup(const ServerEvent& ev, pmix_status_t st, const std::vector<Published>& found) {
  if (!ev.lookfunc) return;
  // The library copies the data before the callback returns.
  std::vector<pmix_pdata_t> data(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    PMIX_PDATA_CONSTRUCT(&data[i]);
    PMIX_PROC_LOAD(&data[i].proc, found[i].nspace.c_str(), static_cast<pmix_rank_t>(found[i].rank));
    PMIX_LOAD_KEY(data[i].key, found[i].key.c_str());
    PMIx_Value_xfer(&data[i].value, found[i].value.get());
  }
  ev.lookfunc(st, data.empty() ? nullptr : data.data(), data.size(), ev.lookdata);
  for (pmix_pdata_t& d : data) PMIx_Value_destruct(&d.value);
}

void PmixServer::deregister_job(const std::string& nspace) {
  if (!initialized_) return;
  OpWait w;
  pmix_nspace_t ns;
  PMIX_LOAD_NSPACE(ns, nspace.c_str());
  PMIx_server_deregister_nspace(ns, OpWait::callback, &w);
  std::unique_lock<std::mutex> lk(w.mu);
  w.cv.wait(lk, [&] { return w.done; });
}

Status PmixServer::register_job(const Job& job, const std::string& tmpdir, std::string& err) {
  const bool spawned = !job.parent_nspace.empty();
  if (!spawned) nspace_ = job.nspace;  // the launched job: modex_request() asks for its ranks
  const uint32_t size = static_cast<uint32_t>(job.size());
  const Node& here = job.local_node();

  std::vector<std::string> hosts;
  std::string host_csv, ppn_in;
  for (size_t n = 0; n < job.nodes.size(); ++n) {
    if (n) {
      host_csv += ',';
      ppn_in += ';';
    }
    host_csv += job.nodes[n].hostname;
    ppn_in += join_ints(job.nodes[n].ranks, ',');
  }
  char* node_map = nullptr;
  char* proc_map = nullptr;
  pmix_status_t rc = PMIx_generate_regex(host_csv.c_str(), &node_map);
  if (rc == PMIX_SUCCESS) rc = PMIx_generate_ppn(ppn_in.c_str(), &proc_map);
  if (rc != PMIX_SUCCESS) {
    std::free(node_map);
    err = fmt::format("PMIx node/proc map: {}", PMIx_Error_string(rc));
    return Status::Bootstrap;
  }

  // A scratch directory for the namespace, inside the job dir (removed with it).
  std::string nsdir = fmt::format("{}/{}", tmpdir, job.nspace);
  bool have_nsdir = ::mkdir(nsdir.c_str(), 0700) == 0;

  InfoList info;
  info.add_str(PMIX_JOBID, job.nspace);
  info.add_u32(PMIX_JOB_SIZE, size);
  info.add_u32(PMIX_UNIV_SIZE, size);
  info.add_u32(PMIX_MAX_PROCS, size);
  info.add_u32(PMIX_JOB_NUM_APPS, static_cast<uint32_t>(job.opts.apps.size()));
  // Each program of an MPMD launch is a PMIx app: its size and its first rank.
  for (std::size_t a = 0, first = 0; a < job.opts.apps.size(); first += job.opts.apps[a].nprocs, ++a) {
    InfoList app;
    app.add_u32(PMIX_APPNUM, static_cast<uint32_t>(a));
    app.add_u32(PMIX_APP_SIZE, static_cast<uint32_t>(job.opts.apps[a].nprocs));
    app.add_rank(PMIX_APPLDR, static_cast<pmix_rank_t>(first));
    info.add_list(PMIX_APP_INFO_ARRAY, app);
  }
  info.add_u32(PMIX_NUM_NODES, static_cast<uint32_t>(job.nodes.size()));
  info.add(PMIX_NODE_MAP, node_map, PMIX_REGEX);
  info.add(PMIX_PROC_MAP, proc_map, PMIX_REGEX);
  std::free(node_map);
  std::free(proc_map);
  // Facts about this node, as job-level keys (what clients ask for without a
  // node qualifier).
  info.add_u32(PMIX_LOCAL_SIZE, static_cast<uint32_t>(here.ranks.size()));
  info.add_u32(PMIX_NODE_SIZE, static_cast<uint32_t>(here.ranks.size()));
  info.add_str(PMIX_LOCAL_PEERS, join_ints(here.ranks, ','));
  info.add_rank(PMIX_LOCALLDR, here.ranks.empty() ? PMIX_RANK_UNDEF : static_cast<pmix_rank_t>(here.ranks[0]));
  info.add_str(PMIX_HOSTNAME, here.hostname);
  info.add_u32(PMIX_NODEID, static_cast<uint32_t>(job.this_node));
  info.add_str(PMIX_TMPDIR, tmpdir);
  if (have_nsdir) info.add_str(PMIX_NSDIR, nsdir);
  if (spawned) {
    // Who started this job: MPI_Comm_get_parent's peer.
    bool yes = true;
    info.add(PMIX_SPAWNED, &yes, PMIX_BOOL);
    pmix_proc_t parent;
    PMIX_PROC_LOAD(&parent, job.parent_nspace.c_str(), static_cast<pmix_rank_t>(job.parent_rank));
    info.add(PMIX_PARENT_ID, &parent, PMIX_PROC);
  }

  // Every node, so a rank can ask about any host (multi-node ready).
  for (size_t n = 0; n < job.nodes.size(); ++n) {
    InfoList node;
    node.add_u32(PMIX_NODEID, static_cast<uint32_t>(n));
    node.add_str(PMIX_HOSTNAME, job.nodes[n].hostname);
    node.add_u32(PMIX_LOCAL_SIZE, static_cast<uint32_t>(job.nodes[n].ranks.size()));
    node.add_u32(PMIX_NODE_SIZE, static_cast<uint32_t>(job.nodes[n].ranks.size()));
    node.add_str(PMIX_LOCAL_PEERS, join_ints(job.nodes[n].ranks, ','));
    if (!job.nodes[n].ranks.empty())
      node.add_rank(PMIX_LOCALLDR, static_cast<pmix_rank_t>(job.nodes[n].ranks[0]));
    info.add_list(PMIX_NODE_INFO_ARRAY, node);
  }

  // Every rank, including remote ones: PMIX_RANK must lead each array.
  for (const RankSlot& s : job.slots) {
    InfoList proc;
    proc.add_rank(PMIX_RANK, static_cast<pmix_rank_t>(s.rank));
    proc.add_u16(PMIX_LOCAL_RANK, static_cast<uint16_t>(s.local_rank));
    proc.add_u16(PMIX_NODE_RANK, static_cast<uint16_t>(s.node_rank));
    proc.add_rank(PMIX_GLOBAL_RANK, static_cast<pmix_rank_t>(s.rank));
    proc.add_rank(PMIX_APP_RANK, static_cast<pmix_rank_t>(s.app_rank));
    proc.add_u32(PMIX_APPNUM, static_cast<uint32_t>(s.app));
    proc.add_str(PMIX_HOSTNAME, job.nodes[s.node].hostname);
    proc.add_u32(PMIX_NODEID, static_cast<uint32_t>(s.node));
    info.add_list(PMIX_PROC_DATA, proc);
  }

  pmix_data_array_t arr;
  info.convert(arr);
  OpWait w;
  rc = w.wait(PMIx_server_register_nspace(job.nspace.c_str(), static_cast<int>(here.ranks.size()),
                                          static_cast<pmix_info_t*>(arr.array), arr.size,
                                          OpWait::callback, &w));
  PMIX_DATA_ARRAY_DESTRUCT(&arr);
  if (rc != PMIX_SUCCESS) {
    err = fmt::format("PMIx_server_register_nspace({}): {}", job.nspace, PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  return Status::Ok;
}

Status PmixServer::register_client(const Job& job, int rank, std::vector<std::string>& env,
                                 std::string& err) {
  pmix_proc_t proc;
  PMIX_PROC_LOAD(&proc, job.nspace.c_str(), static_cast<pmix_rank_t>(rank));
  OpWait w;
  pmix_status_t rc = w.wait(
      PMIx_server_register_client(&proc, ::getuid(), ::getgid(), nullptr, OpWait::callback, &w));
  if (rc != PMIX_SUCCESS) {
    err = fmt::format("PMIx_server_register_client(rank {}): {}", rank, PMIx_Error_string(rc));
    return Status::Bootstrap;
  }
  char** penv = nullptr;
  rc = PMIx_server_setup_fork(&proc, &penv);
  if (rc != PMIX_SUCCESS) {
    err = fmt::format("PMIx_server_setup_fork(rank {}): {}", rank, PMIx_Error_string(rc));
  } else {
    for (char** e = penv; e && *e; ++e) env.emplace_back(*e);
  }
  for (char** e = penv; e && *e; ++e) std::free(*e);
  std::free(penv);
  return rc == PMIX_SUCCESS ? Status::Ok : Status::Bootstrap;
}

}  // namespace chorus::launcher
