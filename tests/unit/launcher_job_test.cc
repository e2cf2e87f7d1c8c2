// The launcher's reading of batch allocations (lib/launcher/server/job.h).
#include <catch2/catch.hpp>

#include <vector>

#include "launcher/server/job.h"

using chorus::launcher::parse_slurm_tasks_per_node;

TEST_CASE("SLURM_TASKS_PER_NODE: counts and repeats", "[launcher]") {
  CHECK(parse_slurm_tasks_per_node("4") == std::vector<int>{4});
  CHECK(parse_slurm_tasks_per_node("2(x3),1") == std::vector<int>{2, 2, 2, 1});
  CHECK(parse_slurm_tasks_per_node("1,5(x2)") == std::vector<int>{1, 5, 5});
}

TEST_CASE("SLURM_TASKS_PER_NODE: malformed values give nothing", "[launcher]") {
  for (const char* bad : {"", "x", "2(x)", "2(3)", "2(x0)", "2(x3", "2,", "-1", "2(x3)junk"})
    CHECK(parse_slurm_tasks_per_node(bad).empty());
}
