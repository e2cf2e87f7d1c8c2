#include "launcher/server/session_dir.h"

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <sys/file.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>
#include <vector>

#include <fstream>

#include <fmt/format.h>

#include "core/log.h"
#include "core/params.h"
#include "core/shm_segment.h"
#include "launcher/server/hosts.h"
#include "launcher/server/procs.h"

namespace chorus::launcher {
namespace {

int remove_entry(const char* path, const struct stat*, int, struct FTW*) {
  if (::remove(path) != 0 && errno != ENOENT)
    CHORUS_WARN(LAUNCH, "cannot remove {}: {}", path, std::strerror(errno));
  return 0;  // keep going: remove as much as we can
}

void remove_tree(const std::string& path) {
  // FTW_DEPTH: children before their directory; FTW_PHYS: never follow links out.
  ::nftw(path.c_str(), remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

// The pid in "<prefix><pid>.XXXXXX", or 0 when `name` is not such a name.
pid_t owner_pid(std::string_view name, std::string_view prefix) {
  if (!name.starts_with(prefix)) return 0;
  name.remove_prefix(prefix.size());
  long pid = 0;
  auto [p, ec] = std::from_chars(name.data(), name.data() + name.size(), pid);
  if (ec != std::errc() || pid <= 0 || pid > INT32_MAX) return 0;
  std::string_view rest(p, static_cast<size_t>(name.data() + name.size() - p));
  if (rest.size() != 7 || rest[0] != '.') return 0;  // ".XXXXXX" from mkdtemp
  return static_cast<pid_t>(pid);
}

// Removes the job directories under `base` that launchers on this host left
// when they were killed: ours (same uid), named for this host, and whose pid
// no longer exists. A pid taken again by another process keeps its directory
// until that process is gone too, which errs on the safe side; so does a
// directory of another host sharing `base`, whose pids mean nothing here.
void remove_stale(const std::string& base, const std::string& host) {
  DIR* d = ::opendir(base.c_str());
  if (!d) return;  // mkdtemp will say what is wrong with `base`
  const std::string prefix = fmt::format("chorus.{}.", host);
  std::vector<std::pair<std::string, pid_t>> stale;
  while (const dirent* e = ::readdir(d)) {
    pid_t pid = owner_pid(e->d_name, prefix);
    if (pid == 0 || pid == ::getpid()) continue;
    if (shm::pid_alive(pid)) continue;  // alive or a zombie's (EPERM: someone else's)
    std::string path = fmt::format("{}/{}", base, e->d_name);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
    stale.emplace_back(std::move(path), pid);
  }
  ::closedir(d);
  for (const auto& [path, pid] : stale) {
    CHORUS_LOG(INFO, LAUNCH, "removing {}: its launcher (pid {}) is gone", path, pid);
    remove_tree(path);
  }
}

}  // namespace

Status SessionDir::create(const std::string& host, std::string& err) {
  std::string base = param::Tmpdir();
  if (base.empty()) {
    const char* t = std::getenv("TMPDIR");
    base = (t && *t) ? t : "/tmp";
  }
  remove_stale(base, host);
  base_ = base;
  prefix_ = fmt::format("chorus.{}.", host);
  // And the shared-memory names of ranks that died with such a launcher.
  if (int n = shm::remove_stale())
    CHORUS_LOG(INFO, LAUNCH, "removed {} shared-memory name(s) of Chorus processes that are gone", n);
  std::string tmpl = fmt::format("{}/chorus.{}.{}.XXXXXX", base, host, ::getpid());
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) {
    err = fmt::format("cannot create a job directory under {}: {}", base, std::strerror(errno));
    return Status::Internal;
  }
  path_ = buf.data();
  return Status::Ok;
}

cpu_set_t SessionDir::claim_cpus(const std::function<cpu_set_t(const cpu_set_t& taken)>& choose) {
  cpu_set_t taken;
  CPU_ZERO(&taken);
  // flock on the directory itself: no lock file to leave behind. Without the lock
  // (a file system that refuses it, or someone holding it for more than a second:
  // /tmp is everyone's) two launchers may pick the same cores, which costs speed,
  // never correctness.
  int lock = ::open(base_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  for (int i = 0; lock >= 0 && ::flock(lock, LOCK_EX | LOCK_NB) != 0; ++i) {
    if (errno != EWOULDBLOCK || i == 100) {
      CHORUS_LOG(INFO, LAUNCH, "cpu claims: going on without the lock of {}: {}", base_,
                 errno == EWOULDBLOCK ? "held for over a second" : std::strerror(errno));
      ::close(lock);
      lock = -1;
      break;
    }
    ::usleep(10000);
  }
  if (DIR* d = ::opendir(base_.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const pid_t pid = owner_pid(e->d_name, prefix_);
      if (pid == 0 || pid == ::getpid() || !shm::pid_alive(pid)) continue;
      // Only our own directories, and in them a plain file of a few bytes (a FIFO
      // or a huge file someone else put there must not stop or swamp us).
      const std::string dir = fmt::format("{}/{}", base_, e->d_name);
      struct stat st;
      if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::getuid()) continue;
      const int fd = ::open((dir + "/cpus").c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
      if (fd < 0) continue;
      char buf[4096];
      ssize_t got = -1;
      if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == ::getuid()) got = ::read(fd, buf, sizeof buf);
      ::close(fd);
      if (got <= 0) continue;
      std::string_view text(buf, static_cast<size_t>(got));
      text = text.substr(0, text.find('\n'));
      if (const auto set = parse_cpu_list(text)) CPU_OR(&taken, &taken, &*set);
    }
    ::closedir(d);
  }
  const cpu_set_t mine = choose(taken);
  if (CPU_COUNT(&mine) > 0 && !path_.empty()) {
    // Written whole, then renamed: a reader never sees half a list.
    const std::string file = path_ + "/cpus", tmp = file + ".new";
    std::ofstream out(tmp);
    out << cpu_list(mine) << "\n";
    out.close();
    if (!out || ::rename(tmp.c_str(), file.c_str()) != 0) {
      CHORUS_LOG(INFO, LAUNCH, "cpu claims: cannot write {}: {}", file, std::strerror(errno));
      ::unlink(tmp.c_str());
    }
  }
  if (lock >= 0) ::close(lock);  // and the lock with it
  return mine;
}

void SessionDir::remove() {
  if (path_.empty()) return;
  remove_tree(path_);
  path_.clear();
}

}  // namespace chorus::launcher
