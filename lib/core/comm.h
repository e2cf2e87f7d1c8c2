// Communicator objects (plain data; the MPI layer owns the handle tables).
#pragma once
#include <mpi.h>

#include <map>
#include <string>
#include <vector>

namespace chorus {

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::vector<int> world_of;     // comm rank -> world rank
  unsigned ctx_p2p = 0;          // even context id: user point-to-point
  unsigned ctx_coll = 1;         // ctx_p2p + 1: collectives
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  std::string name;
  std::map<int, void*> attrs;    // keyval -> value

  int world_rank(int r) const { return world_of[static_cast<std::size_t>(r)]; }
};

}  // namespace chorus
