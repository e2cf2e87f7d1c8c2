#include "coll/select.h"

#include <cctype>

#include <fmt/format.h>

#include "coll/algorithms/hierarchy.h"
#include "core/log.h"
#include "core/params.h"

namespace chorus::coll {
namespace {

const std::string& forced_name(CollKind k) {
  switch (k) {
    case CollKind::Barrier: return param::BarrierAlgo();
    case CollKind::Bcast: return param::BcastAlgo();
    case CollKind::Reduce: return param::ReduceAlgo();
    case CollKind::Allreduce: return param::AllreduceAlgo();
    case CollKind::Allgather: return param::AllgatherAlgo();
    case CollKind::Allgatherv: return param::AllgathervAlgo();
    case CollKind::Gather: return param::GatherAlgo();
    case CollKind::Gatherv: return param::GathervAlgo();
    case CollKind::Scatter: return param::ScatterAlgo();
    case CollKind::Scatterv: return param::ScattervAlgo();
    case CollKind::Alltoall: return param::AlltoallAlgo();
    case CollKind::Alltoallv: return param::AlltoallvAlgo();
    case CollKind::ReduceScatter: return param::ReduceScatterAlgo();
    case CollKind::ReduceScatterBlock: return param::ReduceScatterBlockAlgo();
    case CollKind::Scan: return param::ScanAlgo();
    case CollKind::Exscan: return param::ExscanAlgo();
    case CollKind::NeighborAllgather: return param::NeighborAllgatherAlgo();
    case CollKind::NeighborAllgatherv: return param::NeighborAllgathervAlgo();
    case CollKind::NeighborAlltoall: return param::NeighborAlltoallAlgo();
    case CollKind::NeighborAlltoallv: return param::NeighborAlltoallvAlgo();
    case CollKind::Count: break;
  }
  static const std::string kAuto = "auto";
  return kAuto;
}

}  // namespace

const AlgoInfo* forced_algorithm(CollKind kind) {
  const std::string& want = forced_name(kind);
  if (want.empty() || want == "auto") return nullptr;
  return find_algorithm(kind, want);
}

namespace {

// "CHORUS_REDUCE_SCATTER_ALGO" for reduce_scatter.
std::string env_name(CollKind k) {
  std::string n(kind_name(k));
  for (char& ch : n) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return "CHORUS_" + n + "_ALGO";
}

bool supports(const AlgoInfo& a, const CollArgs& args) { return !a.supports || a.supports(args); }

void cheapest(const CollArgs& args, const CostModel& m, Choice& out) {
  for (const AlgoInfo& a : algorithms(args.kind)) {
    if (!supports(a, args)) continue;
    double c = a.cost_us ? a.cost_us(args, m) : 0.0;
    if (!out.algo || c < out.cost_us) {
      out.algo = &a;
      out.cost_us = c;
    }
  }
}

}  // namespace

namespace {
CostModel& model() {
  static CostModel m;
  return m;
}
}  // namespace

const CostModel& default_cost_model() { return model(); }

void set_network_link(const LinkCost& net) { model().net = net; }

void set_node_sync(double us) { model().node_sync_us = us; }

void set_network_rndv(std::size_t bytes, double us) {
  model().net_rndv_bytes = bytes;
  model().net_rndv_us = us;
}

void set_local_single_copy(std::size_t min_bytes, std::size_t max_bytes) {
  model().local_single_min = min_bytes;
  model().local_single_max = max_bytes;
}

Status select(const CollArgs& call, const CostModel& m, Choice& out, bool internal) {
  out = Choice{};
  // Every rank must reach the same choice: judge on what all ranks share, not on
  // this rank's position or on MPI_IN_PLACE (legal at a root only, for some calls).
  CollArgs args = call;
  args.rank = 0;
  args.in_place = false;
  // The library's own calls (communicator set-up, MPI_Init's exchanges) choose by
  // cost alone: they have no agreement on the algorithm, so a rank forced to
  // another one than its peers would hang there, before CHORUS_CHECK_COLL can
  // name the difference at the user's first call.
  static const std::string kAuto = "auto";
  const std::string& want = internal ? kAuto : forced_name(args.kind);
  if (!want.empty() && want != "auto") {
    const AlgoInfo* a = find_algorithm(args.kind, want);
    std::string why;
    if (!a) {
      std::string names;
      for (const AlgoInfo& x : algorithms(args.kind)) names += (names.empty() ? "" : "|") + std::string(x.name);
      why = fmt::format("{}={}: no such {} algorithm (known: {})", env_name(args.kind), want,
                        kind_name(args.kind), names);
    } else if (!supports(*a, args)) {
      why = fmt::format("{}={} cannot run this call ({})", env_name(args.kind), want, a->restrictions);
    } else {
      out.algo = a;
      out.forced = true;
      out.cost_us = a->cost_us ? a->cost_us(args, m) : 0.0;
      out.note = "forced";
      return Status::Ok;
    }
    int policy = param::AlgoFallback();  // warn|error|silent
    if (policy == 1) {
      out.note = why;
      return Status::InvalidArg;
    }
    if (policy == 0) CHORUS_WARN(COLL, "{}; choosing by cost instead", why);
    cheapest(args, m, out);
    out.note = "fallback: " + why;
    return out.algo ? Status::Ok : Status::Internal;
  }
  cheapest(args, m, out);
  if (!out.algo) {
    out.note = fmt::format("no {} algorithm supports this call", kind_name(args.kind));
    return Status::Internal;
  }
  out.note = "lowest estimate";
  return Status::Ok;
}

namespace {
// A call of `bytes` per rank (elements of one byte; the v-forms even) on `shape`,
// as the tables below price it.
CollArgs table_args(CollKind kind, const CommShape& shape, std::size_t bytes, std::size_t shm_slot_bytes) {
  CollArgs a;
  a.kind = kind;
  a.size = shape.size;
  a.shape = shape;
  a.elem_size = 1;
  a.count = bytes;
  a.chunk_bytes = param::CollChunkBytes();
  a.shm_slot_bytes = shm_slot_bytes;
  if (kind == CollKind::Allgatherv || kind == CollKind::Gatherv || kind == CollKind::Scatterv ||
      kind == CollKind::Alltoallv || kind == CollKind::ReduceScatter) {
    a.counts.assign(static_cast<std::size_t>(shape.size), bytes);
    a.displs.resize(static_cast<std::size_t>(shape.size));
    for (int i = 0; i < shape.size; ++i) a.displs[static_cast<std::size_t>(i)] = bytes * static_cast<std::size_t>(i);
    a.send_counts = a.counts;
    a.send_displs = a.displs;
    a.counts_everywhere = kind != CollKind::Gatherv && kind != CollKind::Scatterv;
  }
  return a;
}

std::string size_label(std::size_t bytes) {
  return bytes >= (1 << 20) && bytes % (1 << 20) == 0 ? fmt::format("{}M", bytes >> 20)
         : bytes >= 1024 && bytes % 1024 == 0         ? fmt::format("{}K", bytes >> 10)
                                                      : fmt::format("{}B", bytes);
}

std::string shape_label(const CommShape& shape, std::size_t shm_slot_bytes) {
  return fmt::format("{} ranks ({} per node, {} nodes{}{})", shape.size, shape.ranks_per_node, shape.nodes,
                     shape.cores_shared ? ", more ranks than cores" : "",
                     !shm_slot_bytes ? "" : shape.nodes > 1 ? ", a shared window per node" : ", shared window");
}

bool tabled(CollKind kind) {
  // Neighbourhood collectives: one algorithm, cost set by each rank's neighbours.
  return !algorithms(kind).empty() && !is_neighbor(kind);
}
}  // namespace

std::string decision_table(const CommShape& shape, const CostModel& m, std::size_t shm_slot_bytes) {
  static const std::size_t kSizes[] = {8, 64 << 10, 1 << 20, 16 << 20};
  std::string out = fmt::format("decision table for {}:", shape_label(shape, shm_slot_bytes));
  for (int k = 0; k < static_cast<int>(CollKind::Count); ++k) {
    auto kind = static_cast<CollKind>(k);
    if (!tabled(kind)) continue;
    out += fmt::format("\n  {:<21}", kind_name(kind));
    for (std::size_t bytes : kSizes) {
      const CollArgs a = table_args(kind, shape, bytes, shm_slot_bytes);
      Choice c;
      if (select(a, m, c) != Status::Ok) continue;
      // A hierarchical choice shows its network stage too: hierarchical[ring].
      const AlgoInfo* net = hier::network_stage(*c.algo, a, m);
      out += fmt::format(" {:>7}:{:<19}", size_label(bytes),
                         fmt::format("{}{}({:.1f}us)", c.algo->name,
                                     net ? fmt::format("[{}]", net->name) : std::string(), c.cost_us));
    }
  }
  return out;
}

std::string cost_table(const CommShape& shape, const CostModel& m, std::size_t shm_slot_bytes,
                       const std::vector<std::size_t>& sizes) {
  std::string out = fmt::format("cost estimates for {}, us (* the choice, - cannot run this call):",
                                shape_label(shape, shm_slot_bytes));
  for (int k = 0; k < static_cast<int>(CollKind::Count); ++k) {
    auto kind = static_cast<CollKind>(k);
    if (!tabled(kind)) continue;
    out += fmt::format("\n  {:<27}", kind_name(kind));
    for (std::size_t bytes : sizes) out += fmt::format(" {:>9}", size_label(bytes));
    std::vector<const AlgoInfo*> chosen;
    for (std::size_t bytes : sizes) {
      Choice c;
      chosen.push_back(select(table_args(kind, shape, bytes, shm_slot_bytes), m, c, true) == Status::Ok ? c.algo
                                                                                                       : nullptr);
    }
    for (const AlgoInfo& algo : algorithms(kind)) {
      out += fmt::format("\n    {:<25}", algo.name);
      for (std::size_t i = 0; i < sizes.size(); ++i) {
        const CollArgs a = table_args(kind, shape, sizes[i], shm_slot_bytes);
        if (!supports(algo, a) || !algo.cost_us) {
          out += fmt::format(" {:>9}", "-");
          continue;
        }
        out += fmt::format(" {:>9}", fmt::format("{}{:.2f}", chosen[i] == &algo ? "*" : "", algo.cost_us(a, m)));
      }
    }
  }
  return out;
}

}  // namespace chorus::coll
