#include "coll/shm.h"

#include "core/shm_segment.h"

namespace chorus::coll {

std::unique_ptr<ShmWindow> ShmWindow::map(const std::string& name, int size, int rank, std::size_t slot,
                                          Mailbox mbox, bool create, std::string* err) {
  const std::size_t bytes = bytes_for(size, slot, mbox);
  std::byte* p = shm::map(name, bytes, create, err);
  if (!p) return nullptr;
  return std::unique_ptr<ShmWindow>(new ShmWindow(p, bytes, size, rank, slot, mbox));
}

std::unique_ptr<ShmWindow> ShmWindow::create(const std::string& name, int size, int rank, std::size_t slot,
                                             Mailbox mbox, std::string* err) {
  return map(name, size, rank, slot, mbox, true, err);
}

std::unique_ptr<ShmWindow> ShmWindow::open(const std::string& name, int size, int rank, std::size_t slot,
                                           Mailbox mbox, std::string* err) {
  return map(name, size, rank, slot, mbox, false, err);
}

void ShmWindow::unlink(const std::string& name) { shm::unlink(name); }

ShmWindow::~ShmWindow() { shm::unmap(base_, bytes_); }

}  // namespace chorus::coll
