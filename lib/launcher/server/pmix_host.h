// The host side of the PMIx server library: an RAII owner of OpenPMIx's server for
// the ranks of one node.
//
// The library runs its own progress thread and calls our module functions
// (upcalls) from it. Upcalls never touch launcher state: they queue a
// ServerEvent and wake the main loop through an eventfd, so all decisions
// (ending the job, completing a fence) are taken on one thread.
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
#include <vector>

#include "core/status.h"
#include "launcher/server/job.h"

namespace chorus::launcher {

struct ServerEvent {
  // DirectModex: a local client asks for a remote rank's data; ModexData: the
  // data of a local rank that another node asked for (modex_request()).
  enum class Kind { Abort, Connected, Finalized, Fence, DirectModex, ModexData };
  Kind kind = Kind::Abort;
  int rank = -1;    // Abort, Connected, Finalized: the calling rank; DirectModex: the rank asked for
  int status = 0;   // Abort: the errorcode given to PMIx_Abort; ModexData: the pmix status
  int node = -1, req = -1;  // ModexData: the asking node and its request (as given to modex_request)
  std::string msg;  // Abort: its message
  // Fence: this node's contribution (copied), and how to answer.
  std::string data;  // also ModexData's blob
  std::vector<int> participants;  // Fence: ranks taking part (empty: all)
  pmix_modex_cbfunc_t cbfunc = nullptr;
  void* cbdata = nullptr;
  // Abort: releases the client blocked in PMIx_Abort (see release_abort()).
  pmix_op_cbfunc_t opfunc = nullptr;
  void* opdata = nullptr;
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
  // Status::Bootstrap with the details in `err`, as do the calls below.
  Status register_job(const Job& job, const std::string& tmpdir, std::string& err);

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
