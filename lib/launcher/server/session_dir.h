// The per-job temp directory. PMIx puts its rendezvous sockets and shared-memory
// stores (pmix_dstor_*) there; a crash would leave them behind in a shared /tmp,
// so every job gets its own directory and removes it, contents and all, at exit.
// A launcher killed with SIGKILL cannot remove its own: its name carries the
// launcher's pid, and the next launcher on the host removes the directories of
// launchers that are gone.
#pragma once
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
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace chorus::launcher
