// The hang doctor's table and diagnosis (lib/launcher/server/hang_table.h) from
// reports as ranks write them (core/hang.h).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "launcher/server/hang_table.h"

using chorus::launcher::hang_table;
using chorus::launcher::HangReport;
using chorus::launcher::parse_hang_report;

namespace {

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("reports parse into fields", "[hang]") {
  HangReport r = parse_hang_report(
      "rank=3\thost=vm\tpid=12\tstate=wait\tcall=MPI_Recv\tsecs=2.5\tcomm=MPI_COMM_WORLD\tctx=0\tsize=4\t"
      "crank=3\tmembers=0,1,2,3\tseq=-1\tpeer=1\ttag=5\troot=-1\tpending=1\n");
  CHECK(r.rank == 3);
  CHECK(r.get("call") == "MPI_Recv");
  CHECK(r.num("peer", -9) == 1);
  CHECK(r.num("missing", -9) == -9);
  CHECK(parse_hang_report("garbage").rank == -1);
}

TEST_CASE("a collective one rank never entered names that rank and what it does", "[hang]") {
  std::vector<HangReport> rs;
  for (int r : {0, 1, 3})
    rs.push_back(parse_hang_report("rank=" + std::to_string(r) +
                                   "\thost=vm\tstate=wait\tcall=MPI_Allreduce\tcomm=MPI_COMM_WORLD\tctx=0\tsize=4"
                                   "\tmembers=0,1,2,3\tseq=7\tpeer=-2\ttag=-1\troot=-1\tpending=1\tsecs=3.0"));
  rs.push_back(parse_hang_report("rank=2\thost=vm\tstate=user"));
  std::string t = joined(hang_table(rs, 4, "CHORUS_HANG_TIMEOUT"));
  INFO(t);
  CHECK(has(t, "ranks 0,1,3 are in MPI_Allreduce #7 on MPI_COMM_WORLD (4 ranks); rank 2 never entered it"));
  CHECK(has(t, "rank 2 is outside MPI"));
}

TEST_CASE("point-to-point waits that form a cycle are a deadlock", "[hang]") {
  std::vector<HangReport> rs;
  rs.push_back(parse_hang_report("rank=0\tstate=wait\tcall=MPI_Recv\tseq=-1\tpeer=1\ttag=0\tcomm=MPI_COMM_WORLD\tsize=3"));
  rs.push_back(parse_hang_report("rank=1\tstate=wait\tcall=MPI_Ssend\tseq=-1\tpeer=0\ttag=0\tcomm=MPI_COMM_WORLD\tsize=3"));
  rs.push_back(parse_hang_report("rank=2\tstate=wait\tcall=MPI_Recv\tseq=-1\tpeer=0\ttag=0\tcomm=MPI_COMM_WORLD\tsize=3"));
  std::string t = joined(hang_table(rs, 3, "SIGQUIT"));
  INFO(t);
  CHECK(has(t, "deadlock"));
  CHECK(has(t, "rank 0 (MPI_Recv) waits for rank 1, rank 1 (MPI_Ssend) waits for rank 0"));
  CHECK(!has(t, "rank 2 (MPI_Recv) waits"));  // waits on the cycle, not part of it
}

TEST_CASE("a rank with no report and a wait on a finalized rank are named", "[hang]") {
  std::vector<HangReport> rs;
  rs.push_back(parse_hang_report("rank=0\tstate=wait\tcall=MPI_Recv\tseq=-1\tpeer=1\ttag=0"));
  rs.push_back(parse_hang_report("rank=1\tstate=finalized"));
  std::string t = joined(hang_table(rs, 3, "--timeout"));
  INFO(t);
  CHECK(has(t, "no report"));
  CHECK(has(t, "rank 0 waits in MPI_Recv for rank 1, which has called MPI_Finalize"));
}
