// Process groups: ordered lists of world ranks. A group handle is
// make(Direct, Group, slot); MPI_GROUP_EMPTY is the builtin empty group. Groups
// are reference counted only by their handles: MPI_Group_free releases the slot,
// and the lowest free slot is reused first.
#include <algorithm>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "core/handle.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

Group g_empty;
std::vector<std::unique_ptr<Group>> g_groups;

// Group error: no communicator is involved, so MPI_COMM_WORLD's handler decides.
template <typename... Args>
int gfail(int cls, fmt::format_string<Args...> f, Args&&... args) {
  return fail(nullptr, cls, f, std::forward<Args>(args)...);
}

int check_newgroup(const char* call, MPI_Group* p) {
  if (!p) return gfail(MPI_ERR_ARG, "{}: newgroup is NULL", call);
  return MPI_SUCCESS;
}

// Ranks of `g` listed in `ranks` must be valid and distinct.
int check_rank_list(const char* call, const Group& g, int n, const int* ranks) {
  if (n < 0) return gfail(MPI_ERR_ARG, "{}: n is {}, must be non-negative", call, n);
  if (n > static_cast<int>(g.world.size()))
    return gfail(MPI_ERR_ARG, "{}: n is {}, larger than the group size {}", call, n, g.world.size());
  if (n > 0 && !ranks) return gfail(MPI_ERR_ARG, "{}: ranks is NULL with n {}", call, n);
  std::vector<char> seen(g.world.size(), 0);
  for (int i = 0; i < n; ++i) {
    int r = ranks[i];
    if (r < 0 || r >= static_cast<int>(g.world.size()))
      return gfail(MPI_ERR_RANK, "{}: ranks[{}] is {}, must be in [0, {})", call, i, r, g.world.size());
    if (seen[static_cast<std::size_t>(r)])
      return gfail(MPI_ERR_RANK, "{}: ranks[{}] is {}, which appears twice", call, i, r);
    seen[static_cast<std::size_t>(r)] = 1;
  }
  return MPI_SUCCESS;
}

// Expand (first, last, stride) triplets into a rank list, checking each rank.
int expand_ranges(const char* call, const Group& g, int n, int ranges[][3], std::vector<int>& out) {
  if (n < 0) return gfail(MPI_ERR_ARG, "{}: n is {}, must be non-negative", call, n);
  if (n > 0 && !ranges) return gfail(MPI_ERR_ARG, "{}: ranges is NULL with n {}", call, n);
  const int size = static_cast<int>(g.world.size());
  std::vector<char> seen(g.world.size(), 0);
  for (int i = 0; i < n; ++i) {
    int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
    if (stride == 0) return gfail(MPI_ERR_ARG, "{}: ranges[{}] has stride 0", call, i);
    if (first < 0 || first >= size || last < 0 || last >= size)
      return gfail(MPI_ERR_RANK, "{}: ranges[{}] = ({}, {}, {}) names a rank outside [0, {})", call,
                   i, first, last, stride, size);
    if ((stride > 0 && first > last) || (stride < 0 && first < last)) continue;  // empty range
    for (int r = first; stride > 0 ? r <= last : r >= last; r += stride) {
      if (seen[static_cast<std::size_t>(r)])
        return gfail(MPI_ERR_RANK, "{}: ranges[{}] names rank {} a second time", call, i, r);
      seen[static_cast<std::size_t>(r)] = 1;
      out.push_back(r);
    }
  }
  return MPI_SUCCESS;
}

std::vector<int> pick(const Group& g, const std::vector<int>& ranks) {
  std::vector<int> w;
  w.reserve(ranks.size());
  for (int r : ranks) w.push_back(g.world[static_cast<std::size_t>(r)]);
  return w;
}

std::vector<int> drop(const Group& g, const std::vector<int>& ranks) {
  std::vector<char> gone(g.world.size(), 0);
  for (int r : ranks) gone[static_cast<std::size_t>(r)] = 1;
  std::vector<int> w;
  for (std::size_t i = 0; i < g.world.size(); ++i)
    if (!gone[i]) w.push_back(g.world[i]);
  return w;
}

}  // namespace

Group* group_lookup(MPI_Group g) {
  if (g == MPI_GROUP_EMPTY) return &g_empty;
  int h = static_cast<int>(g);
  if (!handle::is(h, handle::Direct, handle::Group)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(h));
  return i < g_groups.size() ? g_groups[i].get() : nullptr;
}

int check_group(const char* call, Comm* c, MPI_Group g, Group** out, const char* arg) {
  Group* p = group_lookup(g);
  if (!p) {
    if (g == MPI_GROUP_NULL) return fail(c, MPI_ERR_GROUP, "{}: {} is MPI_GROUP_NULL", call, arg);
    return fail(c, MPI_ERR_GROUP, "{}: invalid {} handle 0x{:x}", call, arg, static_cast<unsigned>(g));
  }
  *out = p;
  return MPI_SUCCESS;
}

MPI_Group group_new(std::vector<int> world, std::uint64_t session) {
  if (world.empty()) return MPI_GROUP_EMPTY;
  std::size_t i = 0;
  while (i < g_groups.size() && g_groups[i]) ++i;
  if (i == g_groups.size()) g_groups.emplace_back();
  g_groups[i] = std::make_unique<Group>();
  g_groups[i]->world = std::move(world);
  g_groups[i]->refs = 1;
  g_groups[i]->session = session;
  return static_cast<MPI_Group>(handle::make(handle::Direct, handle::Group, static_cast<int>(i)));
}

int group_rank_of(const Group& g, int w) {
  auto it = std::find(g.world.begin(), g.world.end(), w);
  return it == g.world.end() ? MPI_UNDEFINED : static_cast<int>(it - g.world.begin());
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

#define GROUP_ENTRY(call)                   \
  CHORUS_TRY_MPI(check_running(call));      \
  p2p::ApiLock lock

extern "C" {

int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  GROUP_ENTRY("MPI_Comm_group");
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_group", comm, &c));
  if (!group) return fail(c, MPI_ERR_ARG, "MPI_Comm_group: group is NULL");
  *group = group_new(c->world_of, c->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_group)

int PMPI_Group_size(MPI_Group group, int* size) {
  GROUP_ENTRY("MPI_Group_size");
  Group* g;
  CHORUS_TRY_MPI(check_group("MPI_Group_size", nullptr, group, &g));
  if (!size) return gfail(MPI_ERR_ARG, "MPI_Group_size: size is NULL");
  *size = static_cast<int>(g->world.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_size)

int PMPI_Group_rank(MPI_Group group, int* rank) {
  GROUP_ENTRY("MPI_Group_rank");
  Group* g;
  CHORUS_TRY_MPI(check_group("MPI_Group_rank", nullptr, group, &g));
  if (!rank) return gfail(MPI_ERR_ARG, "MPI_Group_rank: rank is NULL");
  *rank = group_rank_of(*g, world().rank);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_rank)

int PMPI_Group_free(MPI_Group* group) {
  GROUP_ENTRY("MPI_Group_free");
  if (!group) return gfail(MPI_ERR_ARG, "MPI_Group_free: group is NULL");
  Group* g;
  CHORUS_TRY_MPI(check_group("MPI_Group_free", nullptr, *group, &g));
  if (g != &g_empty) {
    auto i = static_cast<std::size_t>(handle::index(static_cast<int>(*group)));
    g_groups[i].reset();
    while (!g_groups.empty() && !g_groups.back()) g_groups.pop_back();
  }
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_free)

int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2,
                               int ranks2[]) {
  const char* call = "MPI_Group_translate_ranks";
  GROUP_ENTRY(call);
  Group *a, *b;
  CHORUS_TRY_MPI(check_group(call, nullptr, group1, &a, "group1"));
  CHORUS_TRY_MPI(check_group(call, nullptr, group2, &b, "group2"));
  if (n < 0) return gfail(MPI_ERR_ARG, "{}: n is {}, must be non-negative", call, n);
  if (n > 0 && (!ranks1 || !ranks2))
    return gfail(MPI_ERR_ARG, "{}: {} is NULL with n {}", call, ranks1 ? "ranks2" : "ranks1", n);
  std::unordered_map<int, int> where;
  for (std::size_t i = 0; i < b->world.size(); ++i) where.emplace(b->world[i], static_cast<int>(i));
  for (int i = 0; i < n; ++i) {
    int r = ranks1[i];
    if (r == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (r < 0 || r >= static_cast<int>(a->world.size()))
      return gfail(MPI_ERR_RANK, "{}: ranks1[{}] is {}, must be in [0, {}) or MPI_PROC_NULL", call, i,
                   r, a->world.size());
    auto it = where.find(a->world[static_cast<std::size_t>(r)]);
    ranks2[i] = it == where.end() ? MPI_UNDEFINED : it->second;
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_translate_ranks)

int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
  const char* call = "MPI_Group_compare";
  GROUP_ENTRY(call);
  Group *a, *b;
  CHORUS_TRY_MPI(check_group(call, nullptr, group1, &a, "group1"));
  CHORUS_TRY_MPI(check_group(call, nullptr, group2, &b, "group2"));
  if (!result) return gfail(MPI_ERR_ARG, "{}: result is NULL", call);
  if (a->world == b->world) {
    *result = MPI_IDENT;
  } else {
    auto x = a->world, y = b->world;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_compare)

// Union: group1 in order, then the members of group2 not in group1, in group2's
// order. Intersection / difference: members of group1 (in its order) that are /
// are not in group2.
namespace {
enum class SetOp { Union, Intersection, Difference };
int set_op(const char* call, SetOp op, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
  GROUP_ENTRY(call);
  Group *a, *b;
  CHORUS_TRY_MPI(check_group(call, nullptr, group1, &a, "group1"));
  CHORUS_TRY_MPI(check_group(call, nullptr, group2, &b, "group2"));
  CHORUS_TRY_MPI(check_newgroup(call, newgroup));
  std::unordered_set<int> in_b(b->world.begin(), b->world.end());
  std::vector<int> w;
  if (op == SetOp::Union) {
    w = a->world;
    std::unordered_set<int> in_a(a->world.begin(), a->world.end());
    for (int x : b->world)
      if (!in_a.count(x)) w.push_back(x);
  } else {
    for (int x : a->world)
      if (static_cast<bool>(in_b.count(x)) == (op == SetOp::Intersection)) w.push_back(x);
  }
  *newgroup = group_new(std::move(w), a->session ? a->session : b->session);
  return MPI_SUCCESS;
}
}  // namespace

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const char* call = "MPI_Group_incl";
  GROUP_ENTRY(call);
  Group* g;
  CHORUS_TRY_MPI(check_group(call, nullptr, group, &g));
  CHORUS_TRY_MPI(check_newgroup(call, newgroup));
  CHORUS_TRY_MPI(check_rank_list(call, *g, n, ranks));
  *newgroup = group_new(pick(*g, std::vector<int>(ranks, ranks + n)), g->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_incl)

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  const char* call = "MPI_Group_excl";
  GROUP_ENTRY(call);
  Group* g;
  CHORUS_TRY_MPI(check_group(call, nullptr, group, &g));
  CHORUS_TRY_MPI(check_newgroup(call, newgroup));
  CHORUS_TRY_MPI(check_rank_list(call, *g, n, ranks));
  *newgroup = group_new(drop(*g, std::vector<int>(ranks, ranks + n)), g->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_excl)

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* call = "MPI_Group_range_incl";
  GROUP_ENTRY(call);
  Group* g;
  CHORUS_TRY_MPI(check_group(call, nullptr, group, &g));
  CHORUS_TRY_MPI(check_newgroup(call, newgroup));
  std::vector<int> ranks;
  CHORUS_TRY_MPI(expand_ranges(call, *g, n, ranges, ranks));
  *newgroup = group_new(pick(*g, ranks), g->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_range_incl)

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
  const char* call = "MPI_Group_range_excl";
  GROUP_ENTRY(call);
  Group* g;
  CHORUS_TRY_MPI(check_group(call, nullptr, group, &g));
  CHORUS_TRY_MPI(check_newgroup(call, newgroup));
  std::vector<int> ranks;
  CHORUS_TRY_MPI(expand_ranges(call, *g, n, ranges, ranks));
  *newgroup = group_new(drop(*g, ranks), g->session);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_range_excl)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "group_forward.inc"

}  // extern "C"
