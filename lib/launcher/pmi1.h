// A PMI-1 client: how ranks started by MPICH's hydra (mpiexec.mpich, mpiexec.hydra)
// join one job. Hydra gives every rank PMI_FD, a socket to its proxy, and speaks
// the "simple PMI" wire protocol over it: one line per request and reply,
// "cmd=NAME key=value ...". Chorus uses init, get_my_kvsname, put, barrier_in/out,
// get, abort and finalize, and reads the node map hydra publishes
// (PMI_process_mapping).
//
// Values: the key-value space takes printable values of at most vallen_max
// characters (1024 for hydra), keys of at most keylen_max (64). A value is hex and
// split into chunks under "r<rank>/<key>/<i>", with "r<rank>/<key>" holding
// "<chunks>:<bytes>".
//
// pmix.h's functions call these when the job came up through PMI-1
// (launcher::init decides).
#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace chorus::launcher {
struct JobInfo;
}

namespace chorus::launcher::pmi1 {

// The environment offers a PMI-1 socket (PMI_FD with PMI_RANK and PMI_SIZE).
bool offered();
// Connects, says hello, reads the job facts. An error names what went wrong.
Status init(JobInfo& out, std::string& err);
Status put(std::string_view key, const void* data, std::size_t len);
// Barrier: every rank's puts are visible after it. `progress` runs while waiting.
Status fence(void (*progress)(void*), void* arg);
Status get(int rank, std::string_view key, std::vector<std::byte>& out);
void abort(int errorcode, const std::string& message);
Status finalize();

// For tests: the node of every rank from a PMI_process_mapping value
// "(vector,(first_node,nodes,ranks_per_node),...)", blocks repeated until `size`
// ranks are placed (as MPICH reads it). Empty when the value is malformed.
std::vector<int> parse_process_mapping(std::string_view value, int size);

}  // namespace chorus::launcher::pmi1
