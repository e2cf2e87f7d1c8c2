// Hydra's node map (PMI_process_mapping) as the PMI-1 client reads it
// (lib/launcher/pmi1.h): blocks of (first node, nodes, ranks per node), repeated
// until every rank is placed.
#include <catch2/catch.hpp>

#include <vector>

#include "launcher/pmi1.h"

using chorus::launcher::pmi1::parse_process_mapping;

TEST_CASE("PMI_process_mapping: one node, blocks, cycles", "[pmi1]") {
  CHECK(parse_process_mapping("(vector,(0,1,4))", 4) == std::vector<int>{0, 0, 0, 0});
  // Hydra on one host says one rank per node: the block repeats.
  CHECK(parse_process_mapping("(vector,(0,1,1))", 3) == std::vector<int>{0, 0, 0});
  CHECK(parse_process_mapping("(vector,(0,2,2))", 4) == std::vector<int>{0, 0, 1, 1});
  CHECK(parse_process_mapping("(vector,(0,2,1))", 5) == std::vector<int>{0, 1, 0, 1, 0});
  CHECK(parse_process_mapping("(vector,(0,1,3),(1,2,1))", 5) == std::vector<int>{0, 0, 0, 1, 2});
}

TEST_CASE("PMI_process_mapping: malformed values give nothing", "[pmi1]") {
  for (const char* bad : {"", "(vector)", "(vector,)", "(vector,(0,1))", "(vector,(0,0,2))", "(vector,(0,1,2)",
                          "(list,(0,1,2))", "(vector,(-1,1,2))"})
    CHECK(parse_process_mapping(bad, 4).empty());
}
