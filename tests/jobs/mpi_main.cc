// Catch2 main for multi-rank job tests.
//
// All ranks run the same tests in the same order (--order decl and --rng-seed 1
// unless given on the command line). Rank 0 prints the report; the other ranks'
// stdout goes to /dev/null, but every failed assertion on those ranks is printed on
// stderr prefixed with "[rank N]", and each rank exits with its own failure count.
// A failed REQUIRE (or an unexpected exception) on any rank calls MPI_Abort, as the
// peers would otherwise block on messages that rank will never send. After each
// test case all ranks meet in sync_all(), so no test sees another test's messages.
//
// Define JOBS_THREAD_LEVEL (e.g. MPI_THREAD_MULTIPLE) to initialise with
// MPI_Init_thread instead of MPI_Init.
#define CATCH_CONFIG_RUNNER
#include "mpi_test.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>

namespace jobs {
namespace {

int g_rank = 0;
int g_size = 1;

}  // namespace

int rank() { return g_rank; }
int size() { return g_size; }
int right() { return (g_rank + 1) % g_size; }
int left() { return (g_rank - 1 + g_size) % g_size; }

void sync_all() {
  // Round k: send to rank + 2^k, receive from rank - 2^k. A distinct tag per round
  // keeps rounds apart; per-sender order keeps successive barriers apart.
  char out = 0, in = 0;
  int round = 0;
  for (int dist = 1; dist < g_size; dist *= 2, ++round) {
    const int to = (g_rank + dist) % g_size;
    const int from = (g_rank - dist % g_size + g_size) % g_size;
    const int rc = MPI_Sendrecv(&out, 1, MPI_CHAR, to, kSyncTagBase + round, &in, 1, MPI_CHAR,
                                from, kSyncTagBase + round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS) {
      std::fprintf(stderr, "[rank %d] sync_all: MPI_Sendrecv failed (%d)\n", g_rank, rc);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

ErrorsReturn::ErrorsReturn(MPI_Comm comm) : comm_(comm) {
  MPI_Comm_get_errhandler(comm_, &saved_);
  MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
}

ErrorsReturn::~ErrorsReturn() {
  MPI_Comm_set_errhandler(comm_, saved_);
  MPI_Errhandler_free(&saved_);
}

namespace {

bool library_starts_with(const char* prefix) {
  char version[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(version, &len);
  return std::string(version).rfind(prefix, 0) == 0;
}

}  // namespace

bool quirk_mpich() {
  static const bool is = library_starts_with("MPICH");
  return is;
}

bool quirk_openmpi() {
  static const bool is = library_starts_with("Open MPI");
  return is;
}

bool one_node() {
  MPI_Comm node;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int n = 0;
  MPI_OK(MPI_Comm_size(node, &n));
  MPI_OK(MPI_Comm_free(&node));
  int all = 0;
  MPI_OK(MPI_Allreduce(&n, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  return all == size();
}

int error_class(int code) {
  int cls = -1;
  MPI_Error_class(code, &cls);
  return cls;
}

namespace {

void print_failure(const Catch::AssertionResult& r, const std::vector<Catch::MessageInfo>& info,
                   const std::string& test_name) {
  std::string msg = "[rank " + std::to_string(g_rank) + "] " + r.getSourceInfo().file + ":" +
                    std::to_string(r.getSourceInfo().line) + ": FAILED in \"" + test_name + "\": ";
  if (r.hasExpression()) {
    msg += r.getExpressionInMacro() + " with expansion: " + r.getExpandedExpression();
  }
  if (r.getResultType() == Catch::ResultWas::ThrewException) msg += " threw an exception";
  if (r.hasMessage()) msg += " message: " + r.getMessage();
  for (const auto& m : info) msg += " | " + m.message;
  msg += "\n";
  std::fputs(msg.c_str(), stderr);
  std::fflush(stderr);
}

struct MpiListener : Catch::TestEventListenerBase {
  using TestEventListenerBase::TestEventListenerBase;

  std::string current_;

  void testCaseStarting(const Catch::TestCaseInfo& info) override {
    TestEventListenerBase::testCaseStarting(info);
    current_ = info.name;
  }

  bool assertionEnded(const Catch::AssertionStats& stats) override {
    const auto& r = stats.assertionResult;
    if (r.isOk()) return true;
    const bool fatal = r.getResultType() == Catch::ResultWas::ThrewException ||
                       r.getResultType() == Catch::ResultWas::FatalErrorCondition ||
                       !Catch::shouldContinueOnFailure(r.m_info.resultDisposition);
    // Rank 0's console reporter prints non-fatal failures; a fatal one aborts the
    // job before any reporter sees it, so every rank prints it here.
    if (g_rank != 0 || fatal) print_failure(r, stats.infoMessages, current_);
    if (fatal) {
      std::fprintf(stderr, "[rank %d] fatal failure: calling MPI_Abort so peers do not hang\n",
                   g_rank);
      std::fflush(stderr);
      std::fflush(stdout);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return true;
  }

  void testCaseEnded(const Catch::TestCaseStats& stats) override {
    TestEventListenerBase::testCaseEnded(stats);
    sync_all();
  }
};

CATCH_REGISTER_LISTENER(MpiListener)

}  // namespace
}  // namespace jobs

int main(int argc, char** argv) {
#ifdef JOBS_THREAD_LEVEL
  int provided = -1;
  if (MPI_Init_thread(&argc, &argv, JOBS_THREAD_LEVEL, &provided) != MPI_SUCCESS) return 1;
#else
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
#endif
  MPI_Comm_rank(MPI_COMM_WORLD, &jobs::g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &jobs::g_size);

  if (jobs::g_rank != 0) {
    // Keep rank 0's report readable: other ranks' reporter output is dropped.
    std::fflush(stdout);
    const int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
      dup2(devnull, STDOUT_FILENO);
      close(devnull);
    }
  }

  Catch::Session session;
  session.configData().runOrder = Catch::RunTests::InDeclarationOrder;
  session.configData().rngSeed = 1;
  int failures = session.applyCommandLine(argc, argv);
  if (failures == 0) failures = session.run();

  if (failures != 0) {
    std::fprintf(stderr, "[rank %d] %d failed assertion(s)\n", jobs::g_rank, failures);
  }
  jobs::sync_all();
  std::fflush(stdout);
  MPI_Finalize();
  return std::min(failures, 255);
}
