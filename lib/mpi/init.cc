// Environment management: init, finalize, abort, timers, versions.
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "chorus_config.h"
#include "coll/select.h"
#include "coll/executor.h"
#include "coll/shm.h"
#include "core/hang.h"
#include "core/log.h"
#include "core/params.h"
#include "launcher/pmix.h"
#include "gpu/gpu.h"
#include "p2p/local.h"
#include "p2p/tag.h"
#include "topo/topo.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"  // runtime_acquire / runtime_release (sessions)
#include "mpi/stream.h"         // streams_finalize
#include "ucx/ucx.h"

namespace chorus::mpi {

Phase g_phase = Phase::Before;
int g_thread_level = MPI_THREAD_SINGLE;

namespace {

pthread_t g_main_thread;

const char* level_name(int l) {
  switch (l) {
    case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  }
  return "?";
}

// ---- runtime lifetime shared with MPI_Session_init (lib/mpi/session.cc) ------------
// MPI_Init and every live session are users of the runtime (PMIx, UCX, world and
// self). The first user brings it up, the last one takes it down. g_world_phase
// tracks the world model alone, for MPI_Initialized / MPI_Finalized and for
// catching a second MPI_Init; g_phase says whether the runtime is up.
int g_runtime_users = 0;
Phase g_world_phase = Phase::Before;

int init(const char* call, int required, int* provided) {
  if (g_world_phase != Phase::Before) {
    abort_job(MPI_ERR_OTHER, fmt::format("fatal error: {} called {}", call,
                                         g_world_phase == Phase::Running ? "twice" : "after MPI_Finalize"));
  }
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
    abort_job(MPI_ERR_ARG, fmt::format("fatal error: {}: required is {}, must be one of "
                                       "MPI_THREAD_SINGLE..MPI_THREAD_MULTIPLE", call, required));
  int rc = runtime_acquire(call, required, provided);
  if (rc == MPI_SUCCESS) g_world_phase = Phase::Running;
  // A spawned job meets its parents before the program runs (MPI_Comm_get_parent).
  if (rc == MPI_SUCCESS) rc = dynamic_init(call);
  return rc;
}

// The network's latency and bandwidth for the cost model (CHORUS_COLL_NET_PROBE):
// rank 0 and the first rank of another node ping-pong 8 B (30 times) and 256 KiB
// (6 times) on MPI_COMM_WORLD's collective context, before any user call, and keep
// the fastest round trip of each (a rank descheduled in one of them, as when
// ranks outnumber cores, says nothing about the network); rank 0 broadcasts what
// it measured, so every rank's model holds the same values and every rank chooses
// the same algorithms. Where UCX's endpoint names the size from which it sends by
// rendezvous (p2p::rndv_threshold), rank 0 tells the peer, and the two ping-pong
// just above and just below it: the difference is what the handshake adds to a
// message (CostModel::protocol).
int probe_network(const char* call) {
  Comm& w = world();
  if (!w.node_of || !param::CollNetProbe()) return MPI_SUCCESS;
  const std::vector<int>& node = *w.node_of;
  int peer = -1;
  for (int r = 1; r < w.size && peer < 0; ++r)
    if (node[static_cast<std::size_t>(r)] != node[0]) peer = r;
  double vals[4] = {0, 0, 0, 0};  // µs per message, µs per byte, rendezvous threshold (B), its handshake (µs)
  if (peer > 0 && (w.rank == 0 || w.rank == peer)) {
    const int other = w.rank == 0 ? peer : 0;
    constexpr std::size_t kBig = 256 << 10;
    std::vector<char> buf(kBig);
    const std::uint64_t t = tag::make(tag::kTagUB, w.rank, w.ctx_coll);
    const std::uint64_t want = tag::make(tag::kTagUB, other, w.ctx_coll);
    Status st = Status::Ok;
    std::uint64_t rndv = w.rank == 0 ? p2p::rndv_threshold(other) : 0;
    if (w.rank == 0) {
      st = p2p::send(&rndv, sizeof rndv, other, t, false);
    } else {
      p2p::RecvInfo info;
      st = p2p::recv(&rndv, sizeof rndv, want, tag::mask(false, false), info);
    }
    auto pingpong = [&](std::size_t bytes, int reps) {  // one-way µs, the fastest
      double best = 1e30;
      for (int i = 0; i < reps && ok(st); ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        p2p::RecvInfo info;
        if (w.rank == 0) {
          st = p2p::send(buf.data(), bytes, other, t, false);
          if (ok(st)) st = p2p::recv(buf.data(), bytes, want, tag::mask(false, false), info);
        } else {
          st = p2p::recv(buf.data(), bytes, want, tag::mask(false, false), info);
          if (ok(st)) st = p2p::send(buf.data(), bytes, other, t, false);
        }
        best = std::min(best, std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
      }
      return best / 2;
    };
    pingpong(8, 5);  // endpoints and protocols warm up
    const double small = pingpong(8, 30);
    pingpong(kBig, 1);
    const double big = pingpong(kBig, 6);
    if (rndv >= 2 && rndv <= kBig) {
      pingpong(rndv, 1);
      const double above = pingpong(rndv, 6), below = pingpong(rndv - 1, 6);
      vals[2] = static_cast<double>(rndv);
      vals[3] = std::max(0.0, above - below);
    }
    if (!ok(st)) return fail_status(&w, st, call);
    vals[0] = small;
    // At most 100 GB/s: a measurement that says more is noise.
    vals[1] = std::max(1e-5, (big - small) / static_cast<double>(kBig));
  }
  int rc = internal_bcast(&w, vals, sizeof vals, 0, call);
  if (rc != MPI_SUCCESS) return rc;
  if (vals[0] <= 0) return MPI_SUCCESS;  // no rank on another node
  coll::set_network_link({vals[0], vals[1]});
  coll::set_network_rndv(static_cast<std::size_t>(vals[2]), vals[3]);
  if (w.rank == 0) {
    CHORUS_LOG(INFO, COLL, "network for the cost model: {:.2f} us per message, {:.2f} GB/s (rank 0 and rank {} on "
               "another node, 8 B and 256 KiB ping-pongs)", vals[0], 1e-3 / vals[1], peer);
    if (vals[2] > 0)
      CHORUS_LOG(INFO, COLL, "rendezvous for the cost model: messages of {} B and more take {:.2f} us more (UCX's "
                 "threshold on the endpoint to rank {}; ping-pongs of {} and {} B)", vals[2], vals[3], peer, vals[2],
                 vals[2] - 1);
    else
      CHORUS_LOG(INFO, COLL, "rendezvous for the cost model: none priced (no threshold up to 256 KiB found in the "
                 "protocol table of UCX's endpoint to rank {})", peer);
  }
  return MPI_SUCCESS;
}

// A sync of each node's window for the cost model (CHORUS_COLL_NET_PROBE), once
// MPI_COMM_WORLD has its node windows: the ranks of each node Signal and Wait
// for each other 40 times, each keeps the median of the last 30, and the job
// takes the slowest node's (every rank's model then holds the same value).
// Where a node's ranks share cores this is a time slice, which the fitted
// one-node value (4 ranks spinning on 2 cores) can miss several times over.
int probe_node_sync(const char* call) {
  Comm& w = world();
  // node_slot, not node_shm: a rank alone on its node has no window but must
  // join the allreduce below all the same.
  if (!w.node_of || !w.node_slot || !param::CollNetProbe()) return MPI_SUCCESS;
  double mine = 0;
  if (w.node_shm && w.node_shm->size() > 1)
    mine = coll::time_window_syncs(*w.node_shm, w.node_shm->index(w.rank), 40, 10);
  int rc = internal_allreduce(&w, &mine, 1, MPI_DOUBLE, MPI_MAX, call);
  if (rc != MPI_SUCCESS) return rc;
  if (mine <= 0) return MPI_SUCCESS;  // every node runs one rank
  coll::set_node_sync(mine);
  if (w.rank == 0)
    CHORUS_LOG(INFO, COLL, "node window sync for the cost model: {:.2f} us (the slowest node's median)", mine);
  return MPI_SUCCESS;
}

// "0-3,5" for ascending ranks.
std::string rank_ranges(const std::vector<int>& v) {
  std::string out;
  for (std::size_t i = 0; i < v.size();) {
    std::size_t j = i;
    while (j + 1 < v.size() && v[j + 1] == v[j] + 1) ++j;
    out += fmt::format("{}{}", out.empty() ? "" : ",", v[i]);
    if (j > i) out += fmt::format("-{}", v[j]);
    i = j + 1;
  }
  return out;
}

// CHORUS_DEBUG=INFO with TOPO: rank 0 prints the job's topology, every node's
// hardware (hwloc, read by each node's first rank) and every rank's binding and
// nearest GPU and NIC. Only then is hwloc read at MPI_Init. Every rank sees the
// same CHORUS_DEBUG, so all of them join the gather or none does.
int log_topology(const char* call) {
  if (!log::enabled(log::INFO, log::TOPO)) return MPI_SUCCESS;
  Comm& w = world();
  const launcher::JobInfo& job = p2p::job();
  const topo::Node& n = topo::node();
  constexpr std::size_t kHost = 64, kRank = 256, kNode = 1536, kRec = kHost + kRank + kNode;
  std::vector<char> mine(kRec, '\0'), all(kRec * static_cast<std::size_t>(w.size));
  auto put = [](char* dst, std::size_t cap, const std::string& text) {
    std::memcpy(dst, text.data(), std::min(cap - 1, text.size()));
  };
  auto dev = [](const std::vector<topo::Device>& v, int i) {
    return i < 0 ? std::string("none") : v[static_cast<std::size_t>(i)].name;
  };
  put(mine.data(), kHost, job.hostname);
  put(mine.data() + kHost, kRank, fmt::format("{}{}, nearest GPU {}, nearest NIC {}", n.bound ? "bound to CPUs " : "unbound, CPUs ",
                                      n.binding, dev(n.gpus, n.nearest_gpu), dev(n.nics, n.nearest_nic)));
  if (job.local_rank == 0) put(mine.data() + kHost + kRank, kNode, fmt::format("{}; {}", n.layout(), n.devices()));
  int rc = internal_allgather(&w, mine.data(), all.data(), kRec, call);
  if (rc != MPI_SUCCESS || w.rank != 0) return rc;
  // Nodes in order of their first rank, with the world ranks on each.
  std::vector<int> node_of(static_cast<std::size_t>(w.size), 0);
  if (w.node_of) node_of = *w.node_of;
  std::vector<std::vector<int>> members;
  for (int r = 0; r < w.size; ++r) {
    const auto k = static_cast<std::size_t>(node_of[static_cast<std::size_t>(r)]);
    if (members.size() <= k) members.resize(k + 1);
    members[k].push_back(r);
  }
  std::vector<std::string> hosts(members.size());
  for (std::size_t k = 0; k < members.size(); ++k) {
    const char* rec = all.data() + kRec * static_cast<std::size_t>(members[k][0]);
    hosts[k] = std::string(rec, strnlen(rec, kHost));
  }
  std::string list, sizes, leaders;
  for (std::size_t k = 0; k < members.size(); ++k) {
    list += fmt::format("{}{} (ranks {})", k ? ", " : "", hosts[k], rank_ranges(members[k]));
    sizes += fmt::format("{}{}", k ? "," : "", members[k].size());
    leaders += fmt::format("{}{}", k ? "," : "", members[k][0]);
  }
  CHORUS_LOG(INFO, TOPO, "job: {} ranks on {} {}: {}", w.size, members.size(),
             members.size() == 1 ? "node" : "nodes", list);
  for (std::size_t k = 0; k < members.size(); ++k) {
    const char* rec = all.data() + kRec * static_cast<std::size_t>(members[k][0]) + kHost + kRank;
    CHORUS_LOG(INFO, TOPO, "node {}: {}", hosts[k], std::string(rec, strnlen(rec, kNode)));
  }
  for (int r = 0; r < w.size; ++r) {
    const char* rec = all.data() + kRec * static_cast<std::size_t>(r) + kHost;
    CHORUS_LOG(INFO, TOPO, "rank {} ({}): {}", r, hosts[static_cast<std::size_t>(node_of[static_cast<std::size_t>(r)])],
               std::string(rec, strnlen(rec, kRank)));
  }
  CHORUS_LOG(INFO, TOPO, "MPI_COMM_WORLD: node-local groups of {} ranks; node leaders (first rank of each node): {}",
             sizes, leaders);
  return MPI_SUCCESS;
}

}  // namespace

int runtime_acquire(const char* call, int required, int* provided) {
  if (g_runtime_users > 0) {
    ++g_runtime_users;
    if (provided) *provided = g_thread_level;
    return MPI_SUCCESS;
  }
  if (g_phase == Phase::After)
    abort_job(MPI_ERR_OTHER, fmt::format("fatal error: {}: the runtime was already finalized and "
                                         "cannot start again", call));
  auto t0 = std::chrono::steady_clock::now();
  static const int kLevels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED,
                                MPI_THREAD_MULTIPLE};
  int max_level = kLevels[param::ThreadLevel()];
  g_thread_level = required < max_level ? required : max_level;
  g_main_thread = pthread_self();

  launcher::JobInfo job;
  Status s = launcher::init(job);
  const auto t_pmix = std::chrono::steady_clock::now();
  if (!ok(s)) abort_job(to_mpi_class(s), fmt::format("fatal error: {}: PMIx bootstrap failed: {}",
                                                     call, to_string(s)));
  log::set_rank(job.rank, job.size);
  hang::init(job.rank, param::HangDir().c_str(), param::HangTimeout());
  gpu::init(job.local_rank, job.local_size);  // never fails: no usable GPU means host only
  s = p2p::init(job, g_thread_level == MPI_THREAD_MULTIPLE);
  if (!ok(s)) abort_job(to_mpi_class(s), fmt::format("fatal error: {}: transport setup failed: {}",
                                                     call, to_string(s)));
  comms_init(job);
  requests_init();
  coll_init();
  g_phase = Phase::Running;
  g_runtime_users = 1;
  {
    int rc = comm_shm_setup(&world(), call);
    if (rc != MPI_SUCCESS) abort_job(rc, fmt::format("fatal error: {}: setting up MPI_COMM_WORLD failed", call));
    // Shared-memory point-to-point only if every rank mapped its node's rings
    // (single copy only if every rank can read its peers' memory).
    // The same exchange agrees whether any node runs more ranks than cores
    // (a bit set where it does not: AND keeps it only if no node does).
    constexpr int kNoCoresShared = 1 << 30;
    int caps = p2p::local::capabilities() | (p2p::cores_shared() ? 0 : kNoCoresShared);
    rc = internal_allreduce(&world(), &caps, 1, MPI_INT, MPI_BAND, call);
    if (rc != MPI_SUCCESS) abort_job(rc, fmt::format("fatal error: {}: setting up MPI_COMM_WORLD failed", call));
    p2p::set_cores_shared_anywhere(!(caps & kNoCoresShared));
    p2p::local::commit(caps & ~kNoCoresShared);
    const auto [single_min, single_max] = p2p::local::coll_single_copy();
    coll::set_local_single_copy(single_min, single_max);
    comm_route_p2p(&world());
    comm_route_p2p(comm_lookup(MPI_COMM_SELF));
    // Across nodes: which rank runs where (hierarchical collectives read it).
    if (job.num_nodes > 1) {
      rc = comm_set_shape(&world(), call);
      if (rc == MPI_SUCCESS) rc = probe_network(call);
      // Its node windows need the node map (the call above made none).
      if (rc == MPI_SUCCESS) rc = comm_shm_setup(&world(), call);
      if (rc == MPI_SUCCESS) rc = probe_node_sync(call);
      if (rc != MPI_SUCCESS) abort_job(rc, fmt::format("fatal error: {}: setting up MPI_COMM_WORLD failed", call));
    }
    rc = log_topology(call);
    if (rc != MPI_SUCCESS) abort_job(rc, fmt::format("fatal error: {}: setting up MPI_COMM_WORLD failed", call));
  }
  if (provided) *provided = g_thread_level;
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  CHORUS_LOG(INFO, INIT, "rank {} of {} on {} (node {} of {}, local rank {} of {}), {}, {}",
             job.rank, job.size, job.hostname, job.node_id, job.num_nodes, job.local_rank,
             job.local_size, job.singleton ? "singleton" : "PMIx " + launcher::version(),
             level_name(g_thread_level));
  CHORUS_LOG(INFO, INIT, "init took {:.1f} ms (PMIx connect {:.1f} ms)", ms,
             std::chrono::duration<double, std::milli>(t_pmix - t0).count());
  return MPI_SUCCESS;
}

void runtime_release() {
  if (--g_runtime_users > 0) return;
  hang::Site site{"MPI_Finalize"};
  hang::Scope in_finalize(site);
  streams_finalize();  // operations enqueued on CUDA streams complete; the agent stops
  {
    p2p::ApiLock lock;
    wins_finalize();   // what unfreed windows hold of UCX, while their communicators live
    comms_finalize();  // runs MPI_COMM_SELF's delete callbacks while MPI still works
    Status s = p2p::finalize();
    gpu::finalize();
    if (!ok(s)) CHORUS_WARN(INIT, "MPI_Finalize: transport shutdown: {}", to_string(s));
    g_phase = Phase::After;
  }
  hang::finalized();
  Status s = launcher::finalize();
  if (!ok(s)) CHORUS_WARN(INIT, "MPI_Finalize: PMIx finalize: {}", to_string(s));
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Init(int* /*argc*/, char*** /*argv*/) { return init("MPI_Init", MPI_THREAD_SINGLE, nullptr); }
CHORUS_ALIAS(MPI_Init)

int PMPI_Init_thread(int* /*argc*/, char*** /*argv*/, int required, int* provided) {
  return init("MPI_Init_thread", required, provided);
}
CHORUS_ALIAS(MPI_Init_thread)

int PMPI_Finalize(void) {
  CHORUS_TRY_MPI(check_running("MPI_Finalize"));
  if (g_world_phase != Phase::Running)
    abort_job(MPI_ERR_OTHER, "fatal error: MPI_Finalize called without MPI_Init");
  // Event instances kept for tools' MPI_T_CB_REQUIRE_NONE callbacks: while every
  // MPI call still works.
  mpit_deliver_events();
  {
    // First, as if MPI_COMM_SELF were freed: its attributes' delete callbacks,
    // last set first, while MPI still works and MPI_Finalized says false (a
    // library that hooks its own clean-up there counts on both).
    p2p::ApiLock lock;
    int rc = attrs_delete_all(comm_lookup(MPI_COMM_SELF), "MPI_Finalize");
    if (rc != MPI_SUCCESS)
      CHORUS_WARN(INIT, "MPI_Finalize: a delete callback of an MPI_COMM_SELF attribute returned an error; going on");
  }
  g_world_phase = Phase::After;
  runtime_release();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Finalize)

int PMPI_Initialized(int* flag) {
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Initialized: flag is NULL");
  *flag = g_world_phase != Phase::Before;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Initialized)

int PMPI_Finalized(int* flag) {
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Finalized: flag is NULL");
  *flag = g_world_phase == Phase::After;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Finalized)

int PMPI_Query_thread(int* provided) {
  if (!provided) return fail(nullptr, MPI_ERR_ARG, "MPI_Query_thread: provided is NULL");
  *provided = g_thread_level;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Query_thread)

int PMPI_Is_thread_main(int* flag) {
  CHORUS_TRY_MPI(check_running("MPI_Is_thread_main"));
  if (!flag) return fail(nullptr, MPI_ERR_ARG, "MPI_Is_thread_main: flag is NULL");
  *flag = pthread_equal(pthread_self(), g_main_thread) != 0;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Is_thread_main)

int PMPI_Abort(MPI_Comm comm, int errorcode) {
  (void)comm;  // Chorus ends the whole job, whatever the communicator.
  abort_job(errorcode, fmt::format("MPI_Abort(errorcode {}) called", errorcode));
}
CHORUS_ALIAS(MPI_Abort)

double PMPI_Wtime(void) {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
CHORUS_ALIAS(MPI_Wtime)

double PMPI_Wtick(void) {
  timespec ts;
  clock_getres(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
CHORUS_ALIAS(MPI_Wtick)

int PMPI_Get_processor_name(char* name, int* resultlen) {
  if (!name || !resultlen)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Get_processor_name: {} is NULL", name ? "resultlen" : "name");
  char buf[MPI_MAX_PROCESSOR_NAME] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) std::strcpy(buf, "localhost");
  std::size_t n = std::strlen(buf);
  std::memcpy(name, buf, n + 1);
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_processor_name)

int PMPI_Get_version(int* version, int* subversion) {
  if (!version || !subversion)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Get_version: {} is NULL", version ? "subversion" : "version");
  *version = MPI_VERSION;
  *subversion = MPI_SUBVERSION;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_version)

int PMPI_Get_library_version(char* version, int* resultlen) {
  if (!version || !resultlen)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Get_library_version: {} is NULL",
                version ? "resultlen" : "version");
  std::string text = fmt::format("Chorus {} (MPICH ABI; UCX {}, PMIx {}, hwloc {}; CUDA toolkit {}; {})",
                                 CHORUS_VERSION, ucx::version(), launcher::version(),
                                 CHORUS_HWLOC_VERSION, CHORUS_HAVE_CUDA ? "found" : "not found",
                                 CHORUS_BUILDTYPE);
  std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_LIBRARY_VERSION_STRING - 1);
  std::memcpy(version, text.data(), n);
  version[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Get_library_version)

}  // extern "C"
