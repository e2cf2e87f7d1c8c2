// The in-process schedule simulator: runs one Schedule per rank over plain memory,
// with MPI matching semantics (per-pair FIFO, sends buffered), and reports errors
// (deadlock, size mismatch, out-of-bounds access) and per-rank traffic. Unit tests
// use it to check every algorithm at any rank count without a job.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "coll/registry.h"
#include "coll/schedule.h"

namespace chorus::coll::sim {

struct RankBuffers {
  std::vector<std::byte> send;  // kSend (may be empty)
  std::vector<std::byte> recv;  // kRecv (may be empty)
};

// inout = in (op) inout, over `bytes` bytes of packed elements.
using ReduceFn = std::function<void(const std::byte* in, std::byte* inout, std::size_t bytes)>;

struct Result {
  bool ok = true;
  std::string error;                 // first problem found, naming rank and round
  std::vector<std::size_t> bytes_sent;
  std::vector<std::size_t> bytes_received;
  std::vector<int> rounds;           // communication rounds per rank
  std::vector<int> messages_sent;
  // run_algorithm with a node map (CommShape::node_of): per rank, the bytes it
  // sent to ranks of other nodes (the network link class; the rest stays in
  // the node).
  std::vector<std::size_t> bytes_sent_between_nodes;
};

// Run schedules[r] for every rank r. `op` may be empty for data-movement collectives.
// `window_of` (optional): rank r's shared window is window_of[r] (a communicator
// across nodes has one per node: kShm of ranks on different nodes are different
// bytes, and a Wait for a rank of another window is an error); without it every
// rank shares one window.
Result run(const std::vector<Schedule>& schedules, std::vector<RankBuffers>& bufs,
           const ReduceFn& op, const std::vector<int>* window_of = nullptr);

// Build the algorithm's schedule for every rank (args.rank set per rank), then run,
// with a window per node where args has node windows (shm_slot_bytes across nodes).
// Build failures are reported in the result.
Result run_algorithm(const AlgoInfo& algo, const CollArgs& args, std::vector<RankBuffers>& bufs,
                     const ReduceFn& op);

}  // namespace chorus::coll::sim
