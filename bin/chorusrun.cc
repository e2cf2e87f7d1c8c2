// chorusrun (also mpirun, mpiexec): starts an MPI job on this node (or on the
// hosts it is given) and serves it PMIx. Everything but the command-line front
// end lives in lib/launcher/server.
#include <cstdio>
#include <string>

#include "chorus_config.h"
#include "core/params.h"
#include "launcher/server/job.h"
#include "launcher/server/launcher.h"

int main(int argc, char** argv) {
  using namespace chorus::launcher;
  ensure_std_fds();
  chorus::params::set_launcher();
  // Messages always say "mpirun", whichever name started us: that is the name
  // users and scripts look for.
  ParseResult p = parse_cmdline(argc, argv);
  switch (p.kind) {
    case ParseResult::Help:
      std::fputs(usage_text("mpirun").c_str(), stdout);
      return 0;
    case ParseResult::Version:
      std::printf("chorusrun (Chorus MPI) %s\n", CHORUS_VERSION);
      return 0;
    case ParseResult::Error:
      // The error and, for a mistake on the command line, where to read more: the
      // whole usage would bury the one line that matters.
      std::fprintf(stderr, "mpirun: %s\n", p.error.c_str());
      if (p.syntax) std::fputs("mpirun: see 'mpirun --help' for the options\n", stderr);
      return kExitUsage;
    case ParseResult::Run:
      break;
  }
  return run_job(std::move(p.opts));
}
