// The host side of the PMIx server library: an RAII owner of OpenPMIx's server for
// the ranks of one node.
//
// The library runs its own progress thread and calls our module functions
// (upcalls) from it. Upcalls never touch launcher state: they queue a
// ServerEvent and wake the main loop through an eventfd, so all decisions
// (ending the job, completing a fence) are taken on one thread.
//
// Dynamic processes: PMIx_Spawn (MPI_Comm_spawn) arrives as a Spawn event with
// the apps copied out of the library's request; the launcher starts them as a
// new namespace (register_job again) and answers with complete_spawn().
// PMIx_Publish/Lookup/Unpublish (MPI_Publish_name and friends) and
// PMIx_Connect/Disconnect arrive as events too, answered by complete_op() or
// complete_lookup(); the launcher keeps the published names.
//
// The multi-node seam: with every rank local, the library completes fences and
// serves gets by itself. Once ranks live elsewhere, it calls fence_nb with this
// node's contribution and direct_modex for a remote rank's data; those arrive
// here as Fence / DirectModex events, and the main loop hands them to whatever
// connects the daemons (see Launcher::on_fence) before calling complete_*().
#pragma once
#include <pmix_server.h>
#include <sys/types.h>

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"
#include "launcher/server/job.h"

namespace chorus::launcher {

// One app of a PMIx_Spawn request, copied out of the library's pmix_app_t.
struct SpawnApp {
  std::string cmd;
  std::vector<std::string> argv;  // PMIx's convention: argv[0] is the program's name
  std::vector<std::string> env;   // NAME=VALUE
  std::string cwd;                // pmix_app_t's cwd (the client library fills in its own)
  std::string wdir;               // PMIX_WDIR among the app's info
  int maxprocs = 0;
};

// A value given to PMIx_Publish (copied; freed with the last owner).
using PmixValuePtr = std::shared_ptr<pmix_value_t>;

struct ServerEvent {
  // DirectModex: a local client asks for a remote rank's data; ModexData: the
  // data of a local rank that another node asked for (modex_request()).
  // Spawn, Publish, Lookup, Unpublish, Connect, Disconnect: those PMIx calls.
  enum class Kind { Abort, Connected, Finalized, Fence, DirectModex, ModexData, Spawn, Publish, Lookup, Unpublish,
                    Connect, Disconnect };
  Kind kind = Kind::Abort;
  // The calling process's namespace (Fence: the first participant's; DirectModex:
  // the namespace asked for).
  std::string nspace;
  int rank = -1;    // Abort, Connected, Finalized: the calling rank; DirectModex: the rank asked for;
                    // Spawn, Publish, Lookup, Unpublish: the calling rank
  int status = 0;   // Abort: the errorcode given to PMIx_Abort; ModexData: the pmix status
  int node = -1, req = -1;  // ModexData: the asking node and its request (as given to modex_request)
  std::string msg;  // Abort: its message
  // Fence: this node's contribution (copied), and how to answer.
  std::string data;  // also ModexData's blob
  std::vector<int> participants;  // Fence: ranks taking part (empty: all)
  pmix_modex_cbfunc_t cbfunc = nullptr;
  void* cbdata = nullptr;
  // Abort: releases the client blocked in PMIx_Abort (see release_abort()).
  // Publish, Unpublish, Connect, Disconnect: the answer (complete_op()).
  pmix_op_cbfunc_t opfunc = nullptr;
  void* opdata = nullptr;
  // Spawn: the apps, PMIX_WDIR among the job's info, and the answer.
  std::vector<SpawnApp> apps;
  std::string wdir;
  pmix_spawn_cbfunc_t spawnfunc = nullptr;
  void* spawndata = nullptr;
  // Publish: the keys and values; Lookup, Unpublish: the keys (Unpublish with
  // none: all of the caller's).
  std::vector<std::pair<std::string, PmixValuePtr>> values;
  std::vector<std::string> keys;
  // Lookup: with PMIX_WAIT, how many of the keys must be published before the
  // answer (-1: answer now); and the answer.
  int wait_for = -1;
  pmix_lookup_cbfunc_t lookfunc = nullptr;
  void* lookdata = nullptr;
  // Connect, Disconnect: the processes taking part.
  std::vector<std::pair<std::string, int>> procs;
};

// A published value as a lookup returns it.
struct Published {
  std::string key;
  std::string nspace;  // who published it
  int rank = -1;
  PmixValuePtr value;
};

class PmixServer {
 public:
  // Starts the server library with its sockets under `tmpdir`. There can be
  // only one per process.
  static std::unique_ptr<PmixServer> start(const std::string& tmpdir, std::string& err);
  ~PmixServer();  // PMIx_server_finalize
  PmixServer(const PmixServer&) = delete;
  PmixServer& operator=(const PmixServer&) = delete;

  // Registers the job's namespace with job-, node- and proc-level facts for the
  // ranks on this node. Blocks until the library has taken it. Failures return
  // Status::Bootstrap with the details in `err`, as do the calls below. The
  // first job registered is the launched one (modex_request() asks for its
  // ranks); jobs started by PMIx_Spawn (Job::parent_nspace set) come after it
  // and also get PMIX_SPAWNED and PMIX_PARENT_ID.
  Status register_job(const Job& job, const std::string& tmpdir, std::string& err);
  // Forgets a namespace whose ranks never started (a spawn that failed).
  void deregister_job(const std::string& nspace);

  // Registers `rank` as a client and returns the environment (NAME=VALUE) a
  // child needs to connect back.
  Status register_client(const Job& job, int rank, std::vector<std::string>& env, std::string& err);

  // Readable when events are queued; take_events() drains it.
  int wake_fd() const { return wake_fd_; }
  std::vector<ServerEvent> take_events();

  // Answers a Fence event with the job-wide blob (`data`), or an error.
  void complete_fence(const ServerEvent& ev, pmix_status_t st, std::string data);
  // Finalizes the library early (idempotent); later events are dropped.
  void shutdown();
  // Lets the client that sent an Abort event return from PMIx_Abort (and exit).
  void release_abort(const ServerEvent& ev);
  // Answers a DirectModex event.
  void complete_direct_modex(const ServerEvent& ev, pmix_status_t st, std::string data);
  // Asks the library for local `rank`'s data for another node (its request
  // `req`); the answer comes as a ModexData event, once the rank committed it.
  void modex_request(int rank, int node, int req);

  // Answers a Spawn event: the new namespace, or an error (and no namespace).
  void complete_spawn(const ServerEvent& ev, pmix_status_t st, const std::string& nspace);
  // Answers a Publish, Unpublish, Connect or Disconnect event.
  void complete_op(const ServerEvent& ev, pmix_status_t st);
  // Answers a Lookup event with the values found (none: give an error status).
  void complete_lookup(const ServerEvent& ev, pmix_status_t st, const std::vector<Published>& found);

  // Upcalls land here (called from the PMIx progress thread).
  void push(ServerEvent ev);
  const std::string& nspace() const { return nspace_; }

 private:
  PmixServer() = default;

  int wake_fd_ = -1;
  std::string nspace_;
  std::mutex mu_;
  std::deque<ServerEvent> queue_;
  bool initialized_ = false;
};

}  // namespace chorus::launcher
