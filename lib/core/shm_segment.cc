#include "core/shm_segment.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <signal.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

namespace chorus::shm {

std::byte* map(const std::string& name, std::size_t bytes, bool create, std::string* err, int* keep) {
  int fd = shm_open(name.c_str(), create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0) {
    *err = fmt::format("shm_open({}): {}", name, std::strerror(errno));
    return nullptr;
  }
  auto fail = [&](const char* what) -> std::byte* {
    const int e = errno;
    *err = fmt::format("{} of {} ({} B): {}", what, name, bytes, std::strerror(e));
    close(fd);
    if (create) shm_unlink(name.c_str());
    errno = e;
    return nullptr;
  };
  if (create) {
    struct statvfs vfs {};
    if (fstatvfs(fd, &vfs) == 0 && static_cast<unsigned long long>(vfs.f_bavail) * vfs.f_frsize < bytes) {
      errno = ENOSPC;
      return fail("free space check");
    }
    if (ftruncate(fd, static_cast<off_t>(bytes)) != 0) return fail("ftruncate");
  } else {
    struct stat st {};
    if (fstat(fd, &st) != 0) return fail("fstat");
    if (static_cast<std::size_t>(st.st_size) != bytes) {
      errno = EINVAL;
      return fail("size check");
    }
  }
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (p == MAP_FAILED) return fail("mmap");
  if (keep) *keep = fd;
  else close(fd);
  return static_cast<std::byte*>(p);
}

int reserve(std::byte* p, std::size_t n) {
  if (n == 0) return 0;
#ifdef MADV_POPULATE_WRITE
  constexpr int kPopulateWrite = MADV_POPULATE_WRITE;
#else
  constexpr int kPopulateWrite = 23;  // Linux 5.14
#endif
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const auto lo = reinterpret_cast<std::uintptr_t>(p) / page * page;
  const auto hi = (reinterpret_cast<std::uintptr_t>(p) + n + page - 1) / page * page;
  while (madvise(reinterpret_cast<void*>(lo), hi - lo, kPopulateWrite) != 0)
    if (errno != EINTR) return errno;  // EINTR: a signal arrived; what is populated stays
  return 0;
}

int allocate(int fd, std::size_t off, std::size_t n) {
  if (n == 0) return 0;
  while (fallocate(fd, 0, static_cast<off_t>(off), static_cast<off_t>(n)) != 0)
    if (errno != EINTR) return errno;  // EINTR: a signal arrived; try again
  return 0;
}

void unmap(std::byte* base, std::size_t bytes) {
  if (base) munmap(base, bytes);
}

void unlink(const std::string& name) { shm_unlink(name.c_str()); }

std::string name(pid_t creator, std::string_view what) {
  return fmt::format("/chorus-{}-{}", static_cast<long>(creator), what);
}

int remove_all_of(pid_t creator) {
  const std::string prefix = fmt::format("chorus-{}-", static_cast<long>(creator));
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    std::string f = e.path().filename().string();
    if (f.rfind(prefix, 0) == 0 && shm_unlink(("/" + f).c_str()) == 0) ++n;
  }
  return n;
}

bool pid_alive(pid_t pid) {
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  // A zombie still answers kill(): read its state from /proc.
  std::FILE* f = std::fopen(fmt::format("/proc/{}/stat", static_cast<long>(pid)).c_str(), "r");
  if (!f) return true;  // no /proc, or not ours to read: assume alive
  char buf[512];
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* close = std::strrchr(buf, ')');  // the command name may hold spaces and parentheses
  return !(close && close[1] == ' ' && (close[2] == 'Z' || close[2] == 'X'));
}

int remove_stale() {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/dev/shm", ec)) {
    std::string f = e.path().filename().string();
    if (f.rfind("chorus-", 0) != 0) continue;
    char* end = nullptr;
    long pid = std::strtol(f.c_str() + 7, &end, 10);
    if (pid <= 0 || !end || *end != '-' || pid == static_cast<long>(::getpid())) continue;
    struct stat st;
    if (::stat(e.path().c_str(), &st) != 0 || st.st_uid != ::geteuid()) continue;
    if (pid_alive(static_cast<pid_t>(pid))) continue;
    if (shm_unlink(("/" + f).c_str()) == 0) ++n;
  }
  return n;
}

}  // namespace chorus::shm
