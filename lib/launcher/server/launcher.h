// Runs one job on this node: temp dir, PMIx server, ranks, the event loop that
// forwards output and watches for the first failure, and the teardown.
#pragma once
#include <vector>

#include "launcher/server/job.h"

namespace chorus::launcher {

// Exit codes beyond the ranks' own.
inline constexpr int kExitUsage = 2;      // bad command line
inline constexpr int kExitTimeout = 124;  // --timeout expired (as coreutils timeout)
inline constexpr int kExitLaunch = 1;     // the launcher itself could not start the job
inline constexpr int kExitUnfinalized = 1;  // a rank that used PMIx exited 0 without finalizing

// Runs the job to completion and returns chorusrun's exit status.
int run_job(Options opts);

// chorusd: serves one node of a job mpirun started on another host (argv:
// --parent ADDR:PORT --node N; the job token on stdin). Returns its exit status.
int run_daemon(int argc, char** argv);

// Opens /dev/null on whichever of fds 0, 1 and 2 are closed, before anything else
// opens a file: otherwise the launcher's own descriptors (its signalfd) would
// take their numbers and be read as stdin, or handed to rank 0 as its stdin.
void ensure_std_fds();

// The launch tree: the nodes one launcher starts daemons for, in groups whose
// first node it starts itself and whose others that daemon starts in turn.
// Up to `fanout` nodes: one group each; beyond: `fanout` near-equal groups.
std::vector<std::vector<int>> launch_groups(const std::vector<int>& nodes, int fanout);

}  // namespace chorus::launcher
