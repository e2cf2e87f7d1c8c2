// Algorithm selection: CHORUS_<COLL>_ALGO forces one (checked with supports();
// CHORUS_ALGO_FALLBACK decides when it cannot run); otherwise the lowest cost
// estimate among the algorithms that support the call wins. Every rank computes
// the same choice from the same inputs, so no agreement round is needed.
#pragma once
#include <string>
#include <vector>

#include "coll/registry.h"

namespace chorus::coll {

struct Choice {
  const AlgoInfo* algo = nullptr;
  double cost_us = 0;
  bool forced = false;
  std::string note;  // why (forced, fallback, lowest estimate)
};

// InvalidArg when a forced algorithm is unknown or cannot run and the fallback
// policy is "error" (note then explains). `internal`: a call the library makes
// for itself (communicator set-up, MPI_Init), which chooses by cost alone: the
// user's calls are what CHORUS_<COLL>_ALGO is for, and the library's own have no
// agreement that would name ranks forced to different algorithms.
Status select(const CollArgs& args, const CostModel& model, Choice& out, bool internal = false);

// The algorithm CHORUS_<COLL>_ALGO forces for this collective, or nullptr (unset,
// "auto", or no algorithm of that name). A forced bcast or reduce that can run on
// the communicator skips the shared window's mailbox (lib/mpi/coll.cc, mailbox_on),
// which would otherwise take the call whatever the variable says.
const AlgoInfo* forced_algorithm(CollKind kind);

const CostModel& default_cost_model();

// The network link class of the default model, as measured between two nodes at
// MPI_Init (every rank sets the same values before its first collective).
void set_network_link(const LinkCost& net);
// A node window's sync as measured at MPI_Init (CostModel::node_sync_us; every
// rank sets the same value before its first collective).
void set_node_sync(double us);
// The network's rendezvous threshold and what its handshake adds to a message
// (CostModel::net_rndv_bytes, net_rndv_us), as measured at MPI_Init.
void set_network_rndv(std::size_t bytes, double us);
// The sizes a collective's messages between ranks of one node are read
// single-copy (CostModel::local_single_min/max; 0, 0: none), as the node's
// point-to-point agreed at MPI_Init.
void set_local_single_copy(std::size_t min_bytes, std::size_t max_bytes);

// The decision table for one communicator shape, for INFO logs:
// per collective, the chosen algorithm and estimate at a few message sizes.
std::string decision_table(const CommShape& shape, const CostModel& model,
                           std::size_t shm_slot_bytes = 0);
// Every algorithm's estimate at `sizes` (bytes per rank, as the decision table's
// calls), the one the model picks marked: CHORUS_COLL_COSTS asks for it at INFO.
std::string cost_table(const CommShape& shape, const CostModel& model, std::size_t shm_slot_bytes,
                       const std::vector<std::size_t>& sizes);

}  // namespace chorus::coll
