// chorusrun (also mpirun, mpiexec): starts an MPI job on this node (or on the
// hosts it is given) and serves it PMIx. Everything but the command-line front
// end lives in lib/launcher/server.
#include <limits.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "chorus_config.h"
#include "core/params.h"
#include "launcher/server/job.h"
#include "launcher/server/launcher.h"

int main(int argc, char** argv) {
  using namespace chorus::launcher;
  ensure_std_fds();
  chorus::params::set_launcher();
  // mpirun --doctor [options]: the cluster check, chorus-doctor beside this binary,
  // with the other options (host list, agent, --quick, --json ...). Only as the
  // first argument: later, "--doctor" may be the program's own argument.
  if (argc > 1 && std::strcmp(argv[1], "--doctor") == 0) {
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string(".");
    dir = dir.substr(0, dir.rfind('/'));
    std::string doctor = dir + "/chorus-doctor";
    std::vector<char*> av = {doctor.data()};
    for (int k = 2; k < argc; ++k) av.push_back(argv[k]);
    av.push_back(nullptr);
    execv(doctor.c_str(), av.data());
    std::fprintf(stderr, "mpirun: --doctor: cannot run %s: %s\n", doctor.c_str(), std::strerror(errno));
    return 2;
  }
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
