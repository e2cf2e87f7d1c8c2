#include "launcher/server/session_dir.h"

#include <ftw.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "core/log.h"
#include "core/params.h"

namespace chorus::launcher {
namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  if (::remove(path) != 0 && errno != ENOENT)
    CHORUS_WARN(LAUNCH, "cannot remove {}: {}", path, std::strerror(errno));
  return 0;  // keep going: remove as much as we can
}

}  // namespace

Status SessionDir::create(const std::string& host, std::string& err) {
  std::string base = param::Tmpdir();
  if (base.empty()) {
    const char* t = std::getenv("TMPDIR");
    base = (t && *t) ? t : "/tmp";
  }
  std::string tmpl = fmt::format("{}/chorus.{}.XXXXXX", base, host);
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    err = fmt::format("cannot create a job directory under {}: {}", base, std::strerror(errno));
    return Status::Internal;
  }
  path_ = buf.data();
  return Status::Ok;
}

void SessionDir::remove() {
  if (path_.empty()) return;
  // FTW_DEPTH: children before their directory; FTW_PHYS: never follow links out.
  ::nftw(path_.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  path_.clear();
}

}  // namespace chorus::launcher
