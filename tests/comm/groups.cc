// Group algebra against hand-computed results.
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

std::vector<int> members(MPI_Group g) {
  // Translate every rank of g into MPI_COMM_WORLD's group.
  MPI_Group world;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  int n = 0;
  MPI_Group_size(g, &n);
  std::vector<int> in(static_cast<std::size_t>(n)), out(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
  MPI_Group_translate_ranks(g, n, in.data(), world, out.data());
  MPI_Group_free(&world);
  return out;
}

using V = std::vector<int>;

}  // namespace

TEST_CASE("group basics", "[group]") {
  const int n = jobs::size(), me = jobs::rank();
  MPI_Group world;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world));
  int size, rank;
  MPI_OK(MPI_Group_size(world, &size));
  MPI_OK(MPI_Group_rank(world, &rank));
  CHECK(size == n);
  CHECK(rank == me);

  MPI_Group self;
  MPI_OK(MPI_Comm_group(MPI_COMM_SELF, &self));
  CHECK(members(self) == V{me});
  int result;
  MPI_OK(MPI_Group_compare(world, self, &result));
  CHECK(result == (n == 1 ? MPI_IDENT : MPI_UNEQUAL));

  MPI_OK(MPI_Group_size(MPI_GROUP_EMPTY, &size));
  CHECK(size == 0);
  MPI_OK(MPI_Group_rank(MPI_GROUP_EMPTY, &rank));
  CHECK(rank == MPI_UNDEFINED);

  // excl everything -> empty; union with empty -> same members.
  std::vector<int> all(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) all[static_cast<std::size_t>(i)] = i;
  MPI_Group none, u;
  MPI_OK(MPI_Group_excl(world, n, all.data(), &none));
  CHECK(none == MPI_GROUP_EMPTY);
  MPI_OK(MPI_Group_union(world, none, &u));
  MPI_OK(MPI_Group_compare(world, u, &result));
  CHECK(result == MPI_IDENT);
  MPI_OK(MPI_Group_free(&u));
  MPI_OK(MPI_Group_free(&none));
  CHECK(none == MPI_GROUP_NULL);

  // Reversed world: similar.
  std::vector<int> rev(all.rbegin(), all.rend());
  MPI_Group r;
  MPI_OK(MPI_Group_incl(world, n, rev.data(), &r));
  MPI_OK(MPI_Group_compare(world, r, &result));
  CHECK(result == (n == 1 ? MPI_IDENT : MPI_SIMILAR));
  MPI_OK(MPI_Group_rank(r, &rank));
  CHECK(rank == n - 1 - me);
  MPI_OK(MPI_Group_free(&r));
  MPI_OK(MPI_Group_free(&self));
  MPI_OK(MPI_Group_free(&world));
}

TEST_CASE("group algebra on seven or more ranks", "[group]") {
  if (jobs::size() < 7) return;
  const int n = jobs::size();
  MPI_Group w, a, b, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
  int ra[] = {5, 1, 3, 6};
  int rb[] = {3, 4, 5, 0};
  MPI_OK(MPI_Group_incl(w, 4, ra, &a));
  MPI_OK(MPI_Group_incl(w, 4, rb, &b));
  CHECK(members(a) == V{5, 1, 3, 6});

  MPI_OK(MPI_Group_union(a, b, &g));
  CHECK(members(g) == V{5, 1, 3, 6, 4, 0});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_intersection(a, b, &g));
  CHECK(members(g) == V{5, 3});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_difference(a, b, &g));
  CHECK(members(g) == V{1, 6});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_difference(b, a, &g));
  CHECK(members(g) == V{4, 0});
  MPI_OK(MPI_Group_free(&g));

  int in[] = {0, 1, 2, 3, MPI_PROC_NULL}, out[5];
  MPI_OK(MPI_Group_translate_ranks(a, 5, in, b, out));
  CHECK(V(out, out + 5) == V{2, MPI_UNDEFINED, 0, MPI_UNDEFINED, MPI_PROC_NULL});

  int rs[] = {1, 3, 5, 6};
  int result;
  MPI_OK(MPI_Group_incl(w, 4, rs, &g));
  MPI_OK(MPI_Group_compare(a, g, &result));
  CHECK(result == MPI_SIMILAR);
  MPI_OK(MPI_Group_compare(a, b, &result));
  CHECK(result == MPI_UNEQUAL);
  MPI_OK(MPI_Group_free(&g));

  int r1[1][3] = {{0, 6, 3}};
  MPI_OK(MPI_Group_range_incl(w, 1, r1, &g));
  CHECK(members(g) == V{0, 3, 6});
  MPI_OK(MPI_Group_free(&g));
  int r2[2][3] = {{6, 0, -2}, {1, 1, 1}};
  MPI_OK(MPI_Group_range_incl(w, 2, r2, &g));
  CHECK(members(g) == V{6, 4, 2, 0, 1});
  MPI_OK(MPI_Group_free(&g));
  int r3[1][3] = {{0, 6, 2}};
  MPI_OK(MPI_Group_range_excl(w, 1, r3, &g));
  V expect{1, 3, 5};
  for (int i = 7; i < n; ++i) expect.push_back(i);
  CHECK(members(g) == expect);
  MPI_OK(MPI_Group_free(&g));
  int ex[] = {0, 2};
  MPI_OK(MPI_Group_excl(a, 2, ex, &g));  // drop 5 and 3 from {5, 1, 3, 6}
  CHECK(members(g) == V{1, 6});
  MPI_OK(MPI_Group_free(&g));

  // Rank of this process in a: position or MPI_UNDEFINED.
  int rank;
  MPI_OK(MPI_Group_rank(a, &rank));
  const int me = jobs::rank();
  int want = me == 5 ? 0 : me == 1 ? 1 : me == 3 ? 2 : me == 6 ? 3 : MPI_UNDEFINED;
  CHECK(rank == want);
  MPI_OK(MPI_Group_free(&a));
  MPI_OK(MPI_Group_free(&b));
  MPI_OK(MPI_Group_free(&w));
}

TEST_CASE("group algebra on two or more ranks", "[group]") {
  if (jobs::size() < 2) return;
  MPI_Group w, a, b, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
  int ra[] = {1, 0}, rb[] = {0};
  MPI_OK(MPI_Group_incl(w, 2, ra, &a));
  MPI_OK(MPI_Group_incl(w, 1, rb, &b));
  MPI_OK(MPI_Group_union(b, a, &g));
  CHECK(members(g) == V{0, 1});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_intersection(a, b, &g));
  CHECK(members(g) == V{0});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_difference(a, b, &g));
  CHECK(members(g) == V{1});
  MPI_OK(MPI_Group_free(&g));
  MPI_OK(MPI_Group_difference(b, a, &g));
  CHECK(g == MPI_GROUP_EMPTY);
  MPI_OK(MPI_Group_free(&a));
  MPI_OK(MPI_Group_free(&b));
  MPI_OK(MPI_Group_free(&w));
}

TEST_CASE("group errors", "[group][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  const int n = jobs::size();
  MPI_Group w, g;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &w));
  int bad[] = {n};
  CHECK(jobs::error_class(MPI_Group_incl(w, 1, bad, &g)) == MPI_ERR_RANK);
  int neg[] = {-1};
  CHECK(jobs::error_class(MPI_Group_excl(w, 1, neg, &g)) == MPI_ERR_RANK);
  int twice[] = {0, 0};
  if (n >= 2) CHECK(jobs::error_class(MPI_Group_incl(w, 2, twice, &g)) == MPI_ERR_RANK);
  int range[1][3] = {{0, n, 1}};
  CHECK(jobs::error_class(MPI_Group_range_incl(w, 1, range, &g)) == MPI_ERR_RANK);
  int zero_stride[1][3] = {{0, 0, 0}};
  CHECK(jobs::error_class(MPI_Group_range_incl(w, 1, zero_stride, &g)) == MPI_ERR_ARG);
  int in[] = {n + 3}, out[1];
  CHECK(jobs::error_class(MPI_Group_translate_ranks(w, 1, in, w, out)) == MPI_ERR_RANK);
  int size;
  CHECK(jobs::error_class(MPI_Group_size(MPI_GROUP_NULL, &size)) == MPI_ERR_GROUP);
  MPI_Group stale = w;
  MPI_OK(MPI_Group_free(&w));
  CHECK(jobs::error_class(MPI_Group_size(stale, &size)) == MPI_ERR_GROUP);
}
