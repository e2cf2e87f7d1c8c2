// 1000003 elements (a prime: no chunk or block multiple) through allreduce, bcast,
// reduce_scatter_block and allgather with MPI_INT. Run at p <= 4 only (time).
#include "coll_common.h"

namespace {

constexpr long kLarge = 1000003;

bool small_job() { return jobs::size() <= 4; }

void large_blocking() {
  const int p = jobs::size();
  const coll::RedKind& k = coll::red_kind("int_sum");
  const coll::TypePair& t = coll::type_pair("int");
  std::vector<coll::CasePtr> cases;
  cases.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, kLarge, false));
  cases.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, kLarge, true));
  cases.push_back(coll::bcast_case(MPI_COMM_WORLD, t, kLarge, p - 1));
  cases.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, kLarge / p, false));
  cases.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, kLarge, true));
  cases.push_back(coll::allgather_case(MPI_COMM_WORLD, t, kLarge, false));
  cases.push_back(coll::allgather_case(MPI_COMM_WORLD, t, kLarge / p, true));
  coll::run_blocking(cases, 1);
}

}  // namespace

TEST_CASE("Large: allreduce, bcast, reduce_scatter_block, allgather", "[coll][large]") {
  if (small_job()) large_blocking();
}

// The same at any rank count; hidden, run only where a meson test names the tag.
TEST_CASE("Large at any rank count", "[.][large_any]") { large_blocking(); }

TEST_CASE("Large: non-blocking allreduce and bcast outstanding together", "[coll][large][nonblocking]") {
  if (!small_job()) return;
  const int p = jobs::size();
  std::vector<coll::CasePtr> cases;
  cases.push_back(coll::allreduce_case(MPI_COMM_WORLD, coll::red_kind("int_sum"), kLarge, false));
  cases.push_back(coll::bcast_case(MPI_COMM_WORLD, coll::type_pair("int"), kLarge, p / 2));
  cases.push_back(coll::allreduce_case(MPI_COMM_WORLD, coll::red_kind("int_sum"), kLarge, true));
  coll::run_nonblocking(cases, 2);
}
