// chorusd: mpirun's daemon on every other host of a job. Started by the launch
// agent (ssh by default) with --parent ADDR:PORT --node N and the job's token on
// stdin; it proves the token to its parent, takes the job, serves PMIx to the
// ranks of its node, starts them and forwards their output, and starts the
// daemons of its own subtree when the launch tree is deep. Everything but this
// front end lives in lib/launcher/server (launcher.cc, wire.cc).
#include "core/params.h"
#include "launcher/server/launcher.h"

int main(int argc, char** argv) {
  chorus::launcher::ensure_std_fds();
  chorus::params::set_launcher();
  return chorus::launcher::run_daemon(argc, argv);
}
