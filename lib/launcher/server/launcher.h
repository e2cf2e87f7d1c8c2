// Runs one job on this node: temp dir, PMIx server, ranks, the event loop that
// forwards output and watches for the first failure, and the teardown.
#pragma once
#include "launcher/server/job.h"

namespace chorus::launcher {

// Exit codes beyond the ranks' own.
inline constexpr int kExitUsage = 2;      // bad command line
inline constexpr int kExitTimeout = 124;  // --timeout expired (as coreutils timeout)
inline constexpr int kExitLaunch = 1;     // the launcher itself could not start the job
inline constexpr int kExitUnfinalized = 1;  // a rank that used PMIx exited 0 without finalizing

// Runs the job to completion and returns chorusrun's exit status.
int run_job(Options opts);

}  // namespace chorus::launcher
