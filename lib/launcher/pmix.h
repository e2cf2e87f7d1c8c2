// The library's narrow facade over PMIx (client side). MPI_Init learns who it is
// and exchanges UCX worker addresses through it. Without a PMIx server in the
// environment the process is a singleton world of size 1.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace chorus::launcher {

struct JobInfo {
  int rank = 0;
  int size = 1;
  int local_rank = 0;
  int local_size = 1;
  int node_id = 0;
  int num_nodes = 1;
  int appnum = 0;         // which program of an MPMD launch (PMIX_APPNUM): MPI_APPNUM
  std::string hostname;
  std::string nspace;     // empty for a singleton
  bool singleton = true;
  std::vector<int> local_peers;   // world ranks on this node, ascending
};

// Connect to the PMIx server (if any) and read this process's job facts.
Status init(JobInfo& out);

// Who this process is, for messages about it, as far as is known at any time:
// before init() has learnt the rank from PMIx, the one the launcher announced
// in the environment (PMIX_RANK), else -1; the host PMIx names, else
// gethostname's. A failing MPI_Init still names its real rank and host.
struct Identity {
  int rank = -1;
  std::string host;
};
Identity identity();
bool active();  // true between a successful non-singleton init and finalize

// Publish `value` under `key` for every rank; commit() pushes what was put.
Status put(std::string_view key, const void* data, std::size_t len);
Status commit();
// Collective over the whole job. `collect` asks the server to gather the data.
// `progress` is called while waiting so the transport keeps moving.
Status fence(bool collect, void (*progress)(void*) = nullptr, void* arg = nullptr);
// Read a value another rank put.
Status get(int rank, std::string_view key, std::vector<std::byte>& out);

// Ask the launcher to end the job (MPI_Abort). Returns when the server has the
// request; the caller then exits.
void abort(int errorcode, const std::string& message);

Status finalize();
std::string version();

// ---- dynamic processes (lib/mpi/dynamic.cc) -------------------------------------
// Each returns 0 or an MPI error class, with `why` saying what failed and where.
// Which launcher this process joined through, in words ("Chorus's mpirun", …).
std::string launcher_name();
// Service names in the PMIx server's directory (MPI_Publish_name and friends).
int publish_name(const std::string& service, const std::string& port, std::string& why);
int lookup_name(const std::string& service, std::string& port, std::string& why);
int unpublish_name(const std::string& service, std::string& why);
// Start the processes of `apps` as a new job (PMIx_Spawn); its namespace in `nspace`.
struct SpawnApp {
  std::string cmd;
  std::vector<std::string> argv;  // without the command
  std::vector<std::string> env;   // NAME=VALUE added to the new processes' environment
  std::string wdir;               // empty: the launcher's choice
  int maxprocs = 1;
};
int spawn(const std::vector<SpawnApp>& apps, std::string& nspace, std::string& why);

}  // namespace chorus::launcher
