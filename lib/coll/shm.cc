#include "coll/shm.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace chorus::coll {

std::unique_ptr<ShmWindow> ShmWindow::map(const std::string& name, int size, int rank,
                                          std::size_t slot, bool create, std::string* err) {
  const std::size_t bytes = bytes_for(size, slot);
  int fd = shm_open(name.c_str(), create ? O_RDWR | O_CREAT | O_EXCL : O_RDWR, 0600);
  if (fd < 0) {
    *err = fmt::format("shm_open({}): {}", name, std::strerror(errno));
    return nullptr;
  }
  auto fail = [&](const char* what) {
    *err = fmt::format("{} of {} ({} B): {}", what, name, bytes, std::strerror(errno));
    close(fd);
    if (create) shm_unlink(name.c_str());
    return nullptr;
  };
  if (create) {
    // The segment is sparse: pages are allocated as the algorithms touch them. A
    // full /dev/shm would then end the job with SIGBUS, so refuse up front when the
    // whole window would not fit.
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
  close(fd);
  return std::unique_ptr<ShmWindow>(
      new ShmWindow(static_cast<std::byte*>(p), bytes, size, rank, slot));
}

std::unique_ptr<ShmWindow> ShmWindow::create(const std::string& name, int size, int rank,
                                             std::size_t slot, std::string* err) {
  return map(name, size, rank, slot, true, err);
}

std::unique_ptr<ShmWindow> ShmWindow::open(const std::string& name, int size, int rank,
                                           std::size_t slot, std::string* err) {
  return map(name, size, rank, slot, false, err);
}

void ShmWindow::unlink(const std::string& name) { shm_unlink(name.c_str()); }

ShmWindow::~ShmWindow() { munmap(base_, bytes_); }

}  // namespace chorus::coll
