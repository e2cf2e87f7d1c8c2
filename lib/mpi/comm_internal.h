// Private interface between the communicator, group, topology, info, keyval and
// session files of lib/mpi (comm.cc, group.cc, topo.cc, info.cc, keyval.cc,
// session.cc). Nothing outside lib/mpi includes this.
#pragma once
#include <mpi.h>

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/comm.h"
#include "mpi/api.h"

namespace chorus::mpi {

// ---- context ids (comm.cc) ------------------------------------------------------
// The 16-bit context space is split in two halves:
//   [0, 32768)      communicator pairs: pair p owns 2p (p2p) and 2p+1 (collectives).
//                   Pair 0 is MPI_COMM_WORLD, pair 1 MPI_COMM_SELF. Each process keeps
//                   a bitmap of its free pairs; a new communicator takes the lowest
//                   pair free on every rank that takes part (allreduce BAND).
//   [32768, 65536)  exchange pairs: short-lived contexts for the agreement of calls
//                   that are collective over a group only (MPI_Comm_create_group,
//                   MPI_Comm_create_from_group). See exchange_open().
constexpr unsigned kCommPairs = 16384;
constexpr unsigned kExchangeBase = 2 * kCommPairs;
constexpr unsigned kExchangePairs = 16384;
// The last exchange pair is never hashed to: its even context carries the roots'
// messages of MPI_Comm_connect/accept (dynamic.cc), the tag naming the port.
constexpr unsigned kPortContext = kExchangeBase + 2 * (kExchangePairs - 1);

// ---- communicator table (comm.cc) ----------------------------------------------
// A communicator under construction: fill world_of, then call comm_build.
// Agree on a context pair over `over` (every rank of `over` calls this with the
// same `over`); a rank with non-empty `members` (world ranks, in new-rank order,
// including itself) gets a registered communicator in *out, the others nullptr.
// The new communicator inherits `errhandler` (a reference is taken).
int comm_build(Comm* over, const char* call, const std::vector<int>& members,
               MPI_Errhandler errhandler, Comm** out);
// A temporary communicator of `members` (world ranks) for an agreement collective
// over a group: its context is an exchange pair chosen by hashing `key` with the
// member list. It is registered (collectives resolve communicators by handle)
// until exchange_close. `eh` must be a builtin handler.
Comm* exchange_open(const std::vector<int>& members, std::uint64_t key, MPI_Errhandler eh);
void exchange_close(Comm* c);
// An intercommunicator between `local` and `remote` (world ranks, in rank order;
// both empty on a rank that gets none): `bridge_over` holds every rank of both
// groups (and maybe more), `local_over` every rank of the local group; all their
// ranks call this with the same order of agreements. `left` names the group that
// comes first in the bridge (the same on both sides). See intercomm.cc.
int intercomm_make(Comm* bridge_over, Comm* local_over, const std::vector<int>& local,
                   const std::vector<int>& remote, bool left, MPI_Errhandler errhandler, const char* call,
                   Comm** out);
// One FNV-1a step over the 8 bytes of `v` (start from 0xcbf29ce484222325): the
// hashes agreements key on (exchange contexts, layouts, port meetings).
std::uint64_t fnv(std::uint64_t h, std::uint64_t v);
// True when group `a`'s lowest global id (p2p::gid_of) is below group `b`'s: which
// group comes first, decided alike in every process (of any job) that knows both.
bool group_before(const std::vector<int>& a, const std::vector<int>& b);
// Whether a member list holds a process of another job.
bool any_foreign(const std::vector<int>& members);
// Build the intercommunicator between `local` and `remote` (process numbers, in
// rank order) over an exchange context of both groups hashed from `key`: every
// member of both calls it with the same key. `left`: 1 when the local group comes
// first, 0 when the remote one does, -1 to decide by global ids (group_before).
int create_between(const char* call, Comm* local_over, const std::vector<int>& local,
                   const std::vector<int>& remote, std::uint64_t key, MPI_Errhandler eh, MPI_Comm* out,
                   int left = -1);
// Dynamic processes (dynamic.cc): the parent intercommunicator of a spawned job
// (MPI_Init connects it), and forgetting it when it is freed.
int dynamic_init(const char* call);
// A group's description for processes of any job: each member's global id and
// UCX worker address. learn_group gives the members' process numbers (those of
// other jobs added as met). Errors go to `ec`'s handler.
int describe_group(const char* call, Comm* ec, const std::vector<int>& members, std::vector<std::byte>& out);
int learn_group(const char* call, Comm* ec, const std::vector<std::byte>& in, std::vector<int>& procs);
void dynamic_forget(MPI_Comm handle);
// MPI_Comm_split and MPI_Comm_create on an intercommunicator (intercomm.cc);
// *out is nullptr where the rank gets MPI_COMM_NULL.
int intercomm_split(const char* call, Comm* c, int color, int key, Comm** out);
int intercomm_subset(const char* call, Comm* c, const std::vector<int>& group, Comm** out);

// Give `c` a shared window (coll/shm.h) when its ranks all run on one node and
// CHORUS_COLL_SHM allows: collective over `c`, every rank allocating its part
// in /dev/shm now. A failure to create, map or allocate it is not an error: the
// communicator then has no window (logged at INFO; a WARN once where /dev/shm
// has no room). MPI_COMM_WORLD's at MPI_Init; another communicator's at the
// start of its CHORUS_COLL_SHM_CALLS-th blocking collective (coll.cc, begin).
int comm_shm_setup(Comm* c, const char* call);
// The shape the cost model reads (nodes, ranks per node, each member's node):
// collective over `c`; every member computes the same.
int comm_set_shape(Comm* c, const char* call);
// Point-to-point and the collectives' messages on `c` go through the node's
// shared-memory rings when all its ranks have one (p2p/local.h), else through UCX;
// every member decides the same.
void comm_route_p2p(Comm* c);
// Free a communicator built by comm_build (callbacks, errhandler, context).
int comm_release(Comm* c, const char* call);
// Number of live user communicators (tests of leaks go through handle reuse).
std::size_t comm_live();
// Copy the parent's attributes/info/... into a new communicator (Comm_dup).
int comm_dup_into(Comm* parent, Comm* child, const char* call);
// World ranks of a process set ("mpi://WORLD", "mpi://SELF"; session.cc);
// false when the name is unknown.
bool pset_members(const char* name, std::vector<int>& out);
// MPI_Comm_split on an internal communicator (MPI_UNDEFINED color: *out = nullptr).
int comm_split(const char* call, Comm* c, int color, int key, Comm** out);

// ---- groups (group.cc) ------------------------------------------------------------
struct Group {
  std::vector<int> world;  // group rank -> world rank
  int refs = 0;            // 0: free slot
  // The session it comes from (a session's process set, or a group made from
  // such a group or from a communicator derived from a session): passed on to
  // MPI_Comm_create_from_group's communicator (Comm::session).
  std::uint64_t session = 0;  // the session's serial number; 0: none
};
// nullptr when `g` is not a valid group (MPI_GROUP_EMPTY is valid).
Group* group_lookup(MPI_Group g);
int check_group(const char* call, Comm* c, MPI_Group g, Group** out, const char* arg = "group");
// A new group handle (MPI_GROUP_EMPTY when `world` is empty).
MPI_Group group_new(std::vector<int> world, std::uint64_t session = 0);
// Rank of world rank `w` in `g`, or MPI_UNDEFINED.
int group_rank_of(const Group& g, int w);

// ---- info objects (info.cc) ---------------------------------------------------------
// MPI_INFO_NULL gives an empty list when null_ok.
int check_info(const char* call, Comm* c, MPI_Info info, const InfoPairs** out, bool null_ok);
MPI_Info info_new(InfoPairs pairs);
const std::string* info_find(const InfoPairs& pairs, const std::string& key);
// The hints a communicator keeps: MPI's own ("mpi_" keys); others are ignored, as
// MPI allows and MPICH does, so MPI_Comm_get_info does not return them.
InfoPairs known_hints(const InfoPairs& pairs);

// ---- attributes (keyval.cc) ---------------------------------------------------------
enum class KeyKind { Comm, Win, Type };
// Raises an error code on the object's error handler; returns the code.
using RaiseFn = std::function<int(int code)>;
int keyval_create(const char* call, KeyKind kind, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* del, int* keyval, void* extra);
int keyval_free(const char* call, KeyKind kind, int* keyval);
// Set / get / delete one attribute of the object `object` (its handle, passed to
// the callbacks) whose attributes are `attrs`, in setting order `order`.
int attr_set(const char* call, KeyKind kind, int object, std::map<int, void*>& attrs, std::vector<int>& order,
             int keyval, void* value, const RaiseFn& raise_fn);
int attr_get(const char* call, KeyKind kind, const std::map<int, void*>& attrs, int keyval, void* attribute_val,
             int* flag, const RaiseFn& raise_fn);
int attr_delete(const char* call, KeyKind kind, int object, std::map<int, void*>& attrs, std::vector<int>& order,
                int keyval, const RaiseFn& raise_fn);
// Delete every attribute, the last set first.
int attrs_delete_generic(int object, std::map<int, void*>& attrs, std::vector<int>& order, const char* call,
                         const RaiseFn& raise_fn);
// Run the copy callbacks of one object's attributes into another's.
int attrs_copy_generic(int from, std::map<int, void*>& from_attrs, const std::vector<int>& from_order,
                       std::map<int, void*>& to_attrs, std::vector<int>& to_order, const char* call,
                       const RaiseFn& raise_fn);
// Run the copy callbacks of `from`'s attributes into `to` (MPI_Comm_dup).
int attrs_copy(Comm* from, Comm* to, const char* call);
// Run the delete callbacks of every attribute of `c` and clear them.
int attrs_delete_all(Comm* c, const char* call);
// MPI_Add_error_class / _code: the MPI_LASTUSEDCODE attribute follows them.
void note_last_used_code(int code);
// True when `keyval` is a live user keyval (attribute lookups).
bool keyval_valid(int keyval, KeyKind kind = KeyKind::Comm);

// ---- runtime lifetime shared by MPI_Init and MPI_Session_init (init.cc) ---------------
// The first user brings the runtime up (PMIx, UCX, world/self), the last takes it
// down. MPI_Init is one user; every live session is one more.
int runtime_acquire(const char* call, int required, int* provided);
void runtime_release();

}  // namespace chorus::mpi
