// The hierarchical algorithms' common ground: a communicator's ranks grouped by
// node (CommShape::node_of), and how a flat algorithm of the catalog runs as one
// stage among a group of ranks (the node leaders, or the ranks with the same
// local index on every node) inside a larger schedule.
//
// A stage is built as if its group were a communicator of its own (group rank g
// is `group[g]`), on a vector already in kRecv (in place), and appended to the
// caller's schedule: peers are mapped through `group`, kRecv offsets move to the
// stage's part of the vector, temporaries keep their ids (each declared as the
// largest any stage needs; stages run one after the other).
//
// Link classes: a stage among ranks of one node costs what the shared-memory
// link costs (CostModel::shm, or shm_shared where ranks outnumber cores); a
// stage among one rank per node costs what the network costs (CostModel::net).
#pragma once
#include <memory>
#include <vector>

#include "coll/algorithms/reduction_common.h"

namespace chorus::coll::hier {

// The ranks of each node, computed once per node map (every rank's build, and
// the simulator's build for every rank, then costs O(1) after the first).
struct Groups {
  std::vector<std::vector<int>> members;  // per node (in node_of's numbering): its ranks, ascending
  std::vector<int> local;                 // per rank: its index among its node's members
  bool even = true;                       // every node has as many members
};

struct Layout {
  std::shared_ptr<const Groups> groups;
  int node = 0;   // this rank's node
  int local = 0;  // this rank's index among its node's members
  const std::vector<std::vector<int>>& members() const { return groups->members; }
  bool even() const { return groups->even; }
};

// The node map is there (ranks on more than one node) and fits the communicator.
bool known(const CollArgs& a);
// known(), and each node's ranks are consecutive in rank order (block placement).
bool consecutive(const CollArgs& a);
Layout layout(const CollArgs& a);

// A stage's arguments: `kind` among `group_size` ranks (this one `group_rank`),
// on `count` elements, in place, its shape one node (`across_nodes` false) or
// one rank per node.
CollArgs stage_args(const CollArgs& a, CollKind kind, int group_rank, int group_size, std::size_t count,
                    bool across_nodes);

// The node stages go through each node's shared window (coll/shm.h) instead of
// messages: the communicator has node windows (CollArgs::shm_slot_bytes across
// nodes; every rank knows it, a rank alone on its node too, whose node stages are
// empty).
// Reductions also need a whole element in a slot (their type is the same on
// every rank; a bcast's element may not be).
inline bool windowed(const CollArgs& a) { return a.shm_slot_bytes > 0; }
inline bool windowed_reduction(const CollArgs& a) { return windowed(a) && a.shm_slot_bytes >= a.elem_size; }
// A node stage through the window: `kind` among `group_size` ranks of one node
// (this one `group_rank`, its index in the node's window), on `count` elements,
// its input in kSend (not in place; append maps kSend where the caller's input is
// elsewhere). The shared-window algorithms of the catalog build it.
CollArgs node_args(const CollArgs& a, CollKind kind, int group_rank, int group_size, std::size_t count);
// Builds the catalog's shared-window algorithm of `stage.kind` (bcast, barrier)
// for a node stage (node_args) and appends it; window_cost is its estimate.
Status add_window_stage(Schedule& s, const CollArgs& stage, const std::vector<int>& group);
double window_cost(const CollArgs& stage, const CostModel& m);

// The cheapest flat algorithm of the catalog for `stage` (neither hierarchical nor
// shared-window), and its estimate.
const AlgoInfo* best_flat(const CollArgs& stage, const CostModel& m, double* cost_us = nullptr);

// Appends `sub`, built for group ranks 0..g-1, to `s` (see above; a node stage
// through the window keeps its kShm offsets, which are the node window's, and its
// Waits name communicator ranks like its messages do); the stage's
// kSend is `send_as` and its kRecv `recv_as` (at recv_off either way): temporaries
// holding the stage's input and result where the caller's own buffers are not them.
void append(Schedule& s, const Schedule& sub, const std::vector<int>& group, std::size_t recv_off,
            BufId send_as = kSend, BufId recv_as = kRecv);

// Builds the best flat algorithm for `stage` and appends it (group: its ranks).
Status add_stage(Schedule& s, const CollArgs& stage, const CostModel& m, const std::vector<int>& group,
                 std::size_t recv_off, BufId send_as = kSend, BufId recv_as = kRecv);

// The flat algorithm a hierarchical `algo` (allreduce: "hierarchical",
// "hierarchical_multi_leader") runs across the network for `a`, for the decision
// table's second level; nullptr for any other algorithm.
const AlgoInfo* network_stage(const AlgoInfo& algo, const CollArgs& a, const CostModel& m);

// The ranks with local index `local` on every node, in node order (the leaders
// when 0); only for even layouts, or local 0.
std::vector<int> column(const Layout& l, int local);

// The rooted collectives' node roots, in node order: `root` on its node
// (`root_node`), the leader on every other.
std::vector<int> node_roots(const Layout& l, int root, int root_node);

}  // namespace chorus::coll::hier
