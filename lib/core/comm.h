// Communicator objects (plain data; the MPI layer owns the handle tables).
//
// The communicator's group is `world_of` (comm rank -> process number): the world
// ranks, then processes of other jobs met through MPI_Comm_connect/accept, spawn
// or join (p2p.h); a process number names a process for the life of this one.
// An intercommunicator adds its remote group (`remote_of`).
#pragma once
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace chorus {
namespace coll {
class ShmWindow;
struct Schedule;
struct AlgoInfo;
}

// Process topology attached to a communicator (MPI_Cart_create, MPI_Graph_create,
// MPI_Dist_graph_create*). kind is MPI_UNDEFINED when there is none.
struct Topology {
  int kind = MPI_UNDEFINED;             // MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH
  // MPI_CART: row-major, the last dimension varies fastest.
  std::vector<int> dims;
  std::vector<int> periods;             // 0 / 1 per dimension
  // MPI_GRAPH: the whole graph, as given to MPI_Graph_create.
  std::vector<int> index;               // cumulative degrees
  std::vector<int> edges;
  // MPI_DIST_GRAPH: this rank's adjacency (also filled for cart and graph so the
  // neighborhood collectives read one list: in = sources, out = destinations).
  std::vector<int> sources, source_weights;
  std::vector<int> destinations, dest_weights;
  bool weighted = false;
};

using InfoPairs = std::vector<std::pair<std::string, std::string>>;  // in insertion order

// The handler of a communicator or window nobody set one on (MPI_COMM_WORLD,
// MPI_COMM_SELF, what is made from them, every window): its errors go through
// MPI_COMM_WORLD's handler as it is when they happen (MPI_ERRORS_ARE_FATAL
// until the program sets another), as in MPICH. A program that sets
// MPI_ERRORS_RETURN on MPI_COMM_WORLD after making other communicators gets its
// errors returned on those too. Never handed to the program: the get calls
// answer the handler in effect (errors.cc).
inline const MPI_Errhandler kErrhandlerWorlds = static_cast<MPI_Errhandler>(0x5400007f);

struct Comm {
  MPI_Comm handle = MPI_COMM_NULL;
  int rank = 0;
  int size = 1;
  std::vector<int> world_of;     // comm rank -> world rank (the group)
  unsigned ctx_p2p = 0;          // even context id: user point-to-point
  unsigned ctx_coll = 1;         // ctx_p2p + 1: collectives
  MPI_Errhandler errhandler = kErrhandlerWorlds;  // holds a reference (errors.cc)
  std::string name;
  std::map<int, void*> attrs;    // keyval -> value
  std::vector<int> attr_order;   // attrs' keyvals in the order they were set (deleted in reverse)

  // Collectives: sequence number of the next collective on this communicator
  // (every member counts the same), and the shape the cost model reads. Every
  // member computes the same ranks_per_node / nodes (see comm.cc).
  std::uint32_t coll_seq = 0;
  // Persistent collectives (MPI_*_init) number themselves at init, in a tag space
  // of their own, since ranks may start them in any order (coll::start).
  std::uint32_t persistent_seq = 0;
  std::uint32_t idups = 0;       // MPI_Comm_idup calls on it so far (lib/mpi/comm.cc)
  int ranks_per_node = 1;        // the most members on any one node
  int nodes = 1;                 // nodes with at least one member
  // With members on several nodes: each member's node, numbered 0.. in order of
  // first appearance (coll::CommShape::node_of), and a hash of that layout.
  std::shared_ptr<const std::vector<int>> node_of;
  std::uint64_t layout = 0;
  // The members' shared window (coll/shm.h) when they all run on one node (set
  // up at MPI_Init for MPI_COMM_WORLD, at the CHORUS_COLL_SHM_CALLS-th blocking
  // collective for another communicator; see comm_shm_setup in lib/mpi).
  std::shared_ptr<coll::ShmWindow> shm;
  // Members on several nodes: a window per node of this communicator's ranks on
  // it (where it has two or more), which the hierarchical algorithms' node stages
  // use; node_slot is its slot bytes on every member, also one alone on its node
  // (0: no node windows), so that every member chooses the same algorithm.
  std::shared_ptr<coll::ShmWindow> node_shm;
  std::size_t node_slot = 0;
  // Blocking collectives left until the one that sets the window up (at its
  // start, so before any call uses it); 0: no longer counting.
  std::uint32_t shm_calls = 0;
  // The arguments of the last blocking MPI_Allreduce that ran inline on the window
  // (lib/mpi/coll.cc): a repeat of them skips the checks and the schedule-cache
  // lookup that already accepted and chose them.
  struct InlineAllreduce {
    int count = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    bool in_place = false;
    std::size_t elem = 0;
  } inline_allreduce;
  // The same for the last blocking MPI_Allgather, MPI_Alltoall and
  // MPI_Reduce_scatter_block (in that order) that ran inline, with the schedule
  // it ran (held here, so the schedule cache may drop it).
  struct InlineRepeat {
    int scount = -1, rcount = -1;
    MPI_Datatype stype = MPI_DATATYPE_NULL, rtype = MPI_DATATYPE_NULL;
    MPI_Op op = MPI_OP_NULL;
    bool in_place = false;
    std::size_t elem = 0;                  // rtype's size
    std::ptrdiff_t own_block = -1;         // allgather: this rank's block in recvbuf (bytes), which
                                           // sendbuf may not be
    std::shared_ptr<const coll::Schedule> sched;
    const coll::AlgoInfo* algo = nullptr;
  } inline_repeat[3];
  // The same for the last blocking MPI_Bcast (0) and MPI_Reduce (1) whose data
  // went through the window's mailbox entries with a predefined type: a repeat
  // skips the checks and goes to the mailbox at once (bcast_repeat, reduce_repeat).
  struct InlineRooted {
    int count = -1;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    int root = -1;
    MPI_Op op = MPI_OP_NULL;
    bool in_place = false;
  } inline_rooted[2];

  Topology topo;
  InfoPairs info;                // hints from MPI_Comm_set_info / *_with_info
  // The session it was derived from (MPI_Comm_create_from_group on a session's
  // group, and what is made from such a communicator): its buffered sends may
  // take the session's buffer (lib/mpi/bsend.cc).
  std::uint64_t session = 0;  // the session's serial number (lib/mpi/session.cc); 0: none
  bool temporary = false;        // an exchange context (comm.cc), not in the table
  // Some member belongs to another job (MPI_Comm_connect/accept, spawn, join): the
  // members then share no job-wide facts (node numbers, the agreement on cores),
  // so the shape comes from their host names and nothing job-wide is read.
  bool foreign = false;

  // Intercommunicator (lib/mpi/intercomm.cc): `world_of` is the local group and
  // `remote_of` the remote one; point-to-point ranks name the remote group.
  // `local` (the local group) and `bridge` (both groups, the left one first) are
  // hidden intracommunicators this one owns: its collectives run on them. The
  // left group is the one holding the lower world rank.
  bool inter = false;
  bool left = false;
  std::vector<int> remote_of;
  Comm* local = nullptr;
  Comm* bridge = nullptr;

  int world_rank(int r) const { return world_of[static_cast<std::size_t>(r)]; }
  // The ranks point-to-point calls address: the group, or an intercommunicator's
  // remote group.
  int peers() const { return inter ? static_cast<int>(remote_of.size()) : size; }
  int peer_world(int r) const {
    return inter ? remote_of[static_cast<std::size_t>(r)] : world_of[static_cast<std::size_t>(r)];
  }
};

}  // namespace chorus
