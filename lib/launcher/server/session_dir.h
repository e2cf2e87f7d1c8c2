// The per-job temp directory. PMIx puts its rendezvous sockets and shared-memory
// stores (pmix_dstor_*) there; a crash would leave them behind in a shared /tmp,
// so every job gets its own directory and removes it, contents and all, at exit.
// A launcher killed with SIGKILL cannot remove its own: its name carries the
// launcher's pid, and the next launcher on the host removes the directories of
// launchers that are gone.
//
// The directories also say which CPUs each live job bound its ranks to (a file
// "cpus"), so that --bind-to auto picks cores no other job of this host holds.
#pragma once
#include <sched.h>

#include <functional>
#include <string>

#include "core/status.h"

namespace chorus::launcher {

class SessionDir {
 public:
  SessionDir() = default;
  ~SessionDir() { remove(); }
  SessionDir(const SessionDir&) = delete;
  SessionDir& operator=(const SessionDir&) = delete;

  // mkdtemp("chorus.<host>.<pid>.XXXXXX") under CHORUS_TMPDIR, else $TMPDIR,
  // else /tmp, after removing there the directories of this host's dead
  // launchers. Status::Internal with `err` set when it cannot.
  Status create(const std::string& host, std::string& err);
  // Removes the tree (idempotent).
  void remove();
  // Under a lock on the directories' parent (launchers starting at once take
  // turns): the CPUs the other live launchers of this host recorded, passed to
  // `choose`; what it returns is recorded as ours (nothing when empty) and
  // returned. Launchers see each other when they share the parent directory
  // (the default /tmp, or one CHORUS_TMPDIR) and a user.
  cpu_set_t claim_cpus(const std::function<cpu_set_t(const cpu_set_t& taken)>& choose);
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  std::string base_, prefix_;  // the parent, and "chorus.<host>." of this host's names
};

}  // namespace chorus::launcher
