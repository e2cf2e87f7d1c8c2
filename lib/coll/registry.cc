#include "coll/registry.h"

#include <atomic>
#include <cstddef>

#include "core/counters.h"

namespace chorus::coll {

// Each catalog file lists the algorithms of its collectives (lib/coll/algorithms/).
std::span<const AlgoInfo> reduction_algorithms(CollKind kind);  // catalog_reductions.cc
std::span<const AlgoInfo> movement_algorithms(CollKind kind);   // catalog_movement.cc

std::string_view kind_name(CollKind k) {
  switch (k) {
    case CollKind::Barrier: return "barrier";
    case CollKind::Bcast: return "bcast";
    case CollKind::Reduce: return "reduce";
    case CollKind::Allreduce: return "allreduce";
    case CollKind::Allgather: return "allgather";
    case CollKind::Allgatherv: return "allgatherv";
    case CollKind::Gather: return "gather";
    case CollKind::Gatherv: return "gatherv";
    case CollKind::Scatter: return "scatter";
    case CollKind::Scatterv: return "scatterv";
    case CollKind::Alltoall: return "alltoall";
    case CollKind::Alltoallv: return "alltoallv";
    case CollKind::ReduceScatter: return "reduce_scatter";
    case CollKind::ReduceScatterBlock: return "reduce_scatter_block";
    case CollKind::Scan: return "scan";
    case CollKind::Exscan: return "exscan";
    case CollKind::NeighborAllgather: return "neighbor_allgather";
    case CollKind::NeighborAllgatherv: return "neighbor_allgatherv";
    case CollKind::NeighborAlltoall: return "neighbor_alltoall";
    case CollKind::NeighborAlltoallv: return "neighbor_alltoallv";
    case CollKind::Count: break;
  }
  return "?";
}

std::span<const AlgoInfo> algorithms(CollKind kind) {
  switch (kind) {
    case CollKind::Reduce:
    case CollKind::Allreduce:
    case CollKind::ReduceScatter:
    case CollKind::ReduceScatterBlock:
    case CollKind::Scan:
    case CollKind::Exscan:
      return reduction_algorithms(kind);
    default:
      return movement_algorithms(kind);
  }
}

namespace {
constexpr int kMaxPerKind = 32;
std::atomic<std::uint64_t> g_uses[static_cast<int>(CollKind::Count)][kMaxPerKind];
std::atomic<std::uint64_t> g_uses_elsewhere;  // an AlgoInfo outside the catalog (none today)
std::atomic<std::uint64_t>& use_count(const AlgoInfo& a) {
  const std::span<const AlgoInfo> all = algorithms(a.kind);
  const auto i = &a - all.data();
  if (i < 0 || i >= static_cast<std::ptrdiff_t>(all.size()) || i >= kMaxPerKind) return g_uses_elsewhere;
  return g_uses[static_cast<int>(a.kind)][i];
}
}  // namespace

void count_use(const AlgoInfo& a) {
  auto& v = use_count(a);  // under the MPI lock, as counters::add
  v.store(v.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  counters::add(counters::Id::CollCalls);
}

std::uint64_t uses(const AlgoInfo& a) { return use_count(a).load(std::memory_order_relaxed); }

const AlgoInfo* find_algorithm(CollKind kind, std::string_view name) {
  for (const AlgoInfo& a : algorithms(kind))
    if (a.name == name) return &a;
  return nullptr;
}

}  // namespace chorus::coll
