#include "coll/algorithms/hierarchy.h"

#include <cassert>
#include <limits>

namespace chorus::coll::hier {


bool known(const CollArgs& a) {
  return a.shape.nodes > 1 && a.shape.node_of && a.shape.node_of->size() == static_cast<std::size_t>(a.size);
}

bool consecutive(const CollArgs& a) {
  if (!known(a)) return false;
  // Nodes are numbered by their first rank: consecutive means each step adds 0 or 1.
  const std::vector<int>& node_of = *a.shape.node_of;
  for (std::size_t r = 1; r < node_of.size(); ++r)
    if (node_of[r] != node_of[r - 1] && node_of[r] != node_of[r - 1] + 1) return false;
  return true;
}

Layout layout(const CollArgs& a) {
  // The last node map's groups, per thread (builds run on the calling thread).
  thread_local std::shared_ptr<const std::vector<int>> key;
  thread_local std::shared_ptr<const Groups> cached;
  if (key != a.shape.node_of || !cached) {
    auto g = std::make_shared<Groups>();
    const std::vector<int>& node_of = *a.shape.node_of;
    g->local.resize(node_of.size());
    for (std::size_t r = 0; r < node_of.size(); ++r) {
      const auto n = static_cast<std::size_t>(node_of[r]);
      if (n >= g->members.size()) g->members.resize(n + 1);
      g->local[r] = static_cast<int>(g->members[n].size());
      g->members[n].push_back(static_cast<int>(r));
    }
    for (const auto& m : g->members) g->even = g->even && m.size() == g->members[0].size();
    key = a.shape.node_of;
    cached = std::move(g);
  }
  Layout l;
  l.groups = cached;
  l.node = (*a.shape.node_of)[static_cast<std::size_t>(a.rank)];
  l.local = cached->local[static_cast<std::size_t>(a.rank)];
  return l;
}

CollArgs stage_args(const CollArgs& a, CollKind kind, int group_rank, int group_size, std::size_t count,
                    bool across_nodes) {
  CollArgs s;
  s.kind = kind;
  s.rank = group_rank;
  s.size = group_size;
  s.root = 0;
  s.elem_size = a.elem_size;
  s.count = count;
  s.commutative = a.commutative;
  s.chunk_bytes = a.chunk_bytes;
  s.in_place = true;
  s.shape.size = group_size;
  s.shape.ranks_per_node = across_nodes ? 1 : group_size;
  s.shape.nodes = across_nodes ? group_size : 1;
  s.shape.cores_shared = a.shape.cores_shared;
  return s;
}

CollArgs node_args(const CollArgs& a, CollKind kind, int group_rank, int group_size, std::size_t count) {
  CollArgs s = stage_args(a, kind, group_rank, group_size, count, false);
  s.in_place = false;
  s.shm_slot_bytes = a.shm_slot_bytes;
  return s;
}

namespace {
const AlgoInfo& window_algo(CollKind kind) {
  const AlgoInfo* algo = find_algorithm(kind, "shared_memory");
  assert(algo && "bcast and barrier have a shared-window algorithm");
  return *algo;
}
}  // namespace

Status add_window_stage(Schedule& s, const CollArgs& stage, const std::vector<int>& group) {
  if (stage.size <= 1) return Status::Ok;
  Schedule sub;
  CHORUS_TRY(window_algo(stage.kind).build(stage, sub));
  append(s, sub, group, 0);
  return Status::Ok;
}

double window_cost(const CollArgs& stage, const CostModel& m) {
  return stage.size <= 1 ? 0.0 : window_algo(stage.kind).cost_us(stage, m);
}

const AlgoInfo* best_flat(const CollArgs& stage, const CostModel& m, double* cost_us) {
  const AlgoInfo* best = nullptr;
  double best_cost = std::numeric_limits<double>::infinity();
  for (const AlgoInfo& algo : algorithms(stage.kind)) {
    if (algo.name.starts_with("hierarchical") || algo.name.starts_with("shared_memory")) continue;
    if (algo.supports && !algo.supports(stage)) continue;
    const double c = algo.cost_us ? algo.cost_us(stage, m) : 0.0;
    if (!best || c < best_cost) {
      best = &algo;
      best_cost = c;
    }
  }
  if (cost_us) *cost_us = best ? best_cost : 0.0;
  return best;
}

void append(Schedule& s, const Schedule& sub, const std::vector<int>& group, std::size_t recv_off,
            BufId send_as, BufId recv_as) {
  auto move = [&](BufRef& r) {
    if (r.buf == kRecv) {
      r.buf = recv_as;
      r.off += recv_off;
    } else if (r.buf == kSend) {
      r.buf = send_as;
    }
  };
  for (const Round& in : sub.rounds) {
    Round& out = s.round();
    out.steps = in.steps;
    for (Step& st : out.steps) {
      if (st.peer >= 0 && (st.kind == Step::Kind::Send || st.kind == Step::Kind::Recv || st.kind == Step::Kind::Wait))
        st.peer = group[static_cast<std::size_t>(st.peer)];
      move(st.a);
      move(st.b);
    }
  }
  for (int t = kTmp0; t < kMaxBufs; ++t) s.need_tmp(static_cast<BufId>(t), sub.tmp_bytes[t - kTmp0]);
  s.shm_bytes = std::max(s.shm_bytes, sub.shm_bytes);
}

Status add_stage(Schedule& s, const CollArgs& stage, const CostModel& m, const std::vector<int>& group,
                 std::size_t recv_off, BufId send_as, BufId recv_as) {
  if (stage.size <= 1 || (stage.count == 0 && stage.kind != CollKind::Barrier)) return Status::Ok;
  const AlgoInfo* algo = best_flat(stage, m);
  if (!algo) return Status::Internal;
  Schedule sub;
  CHORUS_TRY(algo->build(stage, sub));
  append(s, sub, group, recv_off, send_as, recv_as);
  return Status::Ok;
}

const AlgoInfo* network_stage(const AlgoInfo& algo, const CollArgs& a, const CostModel& m) {
  if (!algo.name.starts_with("hierarchical") || a.shape.nodes < 2) return nullptr;
  std::size_t count = a.count;
  if (algo.name.ends_with("multi_leader")) {
    const auto per = static_cast<std::size_t>(std::max(1, a.shape.ranks_per_node));
    count = (count + per - 1) / per;
  }
  return best_flat(stage_args(a, algo.kind, 0, a.shape.nodes, count, true), m);
}

std::vector<int> column(const Layout& l, int local) {
  std::vector<int> out;
  out.reserve(l.members().size());
  for (const auto& m : l.members()) out.push_back(m[static_cast<std::size_t>(local)]);
  return out;
}

std::vector<int> node_roots(const Layout& l, int root, int root_node) {
  std::vector<int> out = column(l, 0);
  out[static_cast<std::size_t>(root_node)] = root;
  return out;
}

}  // namespace chorus::coll::hier
