#include "coll/shm.h"

#include <unistd.h>

#include <cstdint>

#include "core/shm_segment.h"

namespace chorus::coll {

std::unique_ptr<ShmWindow> ShmWindow::map(const std::string& name, int size, int rank, std::size_t slot,
                                          MailboxShape mbox, bool create, std::string* err) {
  const std::size_t bytes = bytes_for(size, slot, mbox);
  std::byte* p = shm::map(name, bytes, create, err);
  if (!p) return nullptr;
  auto w = std::unique_ptr<ShmWindow>(new ShmWindow(p, bytes, size, rank, slot, mbox));
  w->touch_entries();
  return w;
}

// The mailbox's done lines and entries, every rank's, mapped now: a loop of small
// calls walks through all of them in its first Ds calls, and the first touch of
// each page costs several µs (a fault, and on a VM more), which would land in
// the calls a benchmark times after a short warmup (8 B bcast at 2 ranks: a
// 7-16 µs stall every 16 calls for the first 128, 0.4-1.3 µs per call over 100
// calls after 20 warmup calls, against 0.1 once mapped). Writable (a page mapped
// by a read faults again on its first write), without writing: a peer's calls
// may already use its entries; then read, as populating alone left the first
// access to each page slow on this project's VM (a 20-80 µs stall per page).
// The data areas are left to fault in as calls use them (they are large, and a
// warmup cycles through them within CHORUS_COLL_MAILBOX_DEPTH calls). The
// entries are 32 KiB per rank (CHORUS_COLL_MAILBOX_SMALL_DEPTH x 256 B), about
// what the old ring of 8 entries touched in its first 8 calls (a page each).
void ShmWindow::touch_entries() const {
  if (!has_mailbox()) return;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  auto* from = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(mbox_base_) / page * page);
  std::byte* to = entries_end();
  // Only once populated: a read of a page /dev/shm has no room for is a SIGBUS
  // (populating says so instead), and a kernel before 5.14 lacks the call; then
  // the pages fault in as calls use them, as before.
  if (shm::reserve(from, static_cast<std::size_t>(to - from)) != 0) return;
  for (std::byte* q = from; q < to; q += page) static_cast<void>(*static_cast<volatile std::byte*>(q));
}

std::unique_ptr<ShmWindow> ShmWindow::create(const std::string& name, int size, int rank, std::size_t slot,
                                             MailboxShape mbox, std::string* err) {
  return map(name, size, rank, slot, mbox, true, err);
}

std::unique_ptr<ShmWindow> ShmWindow::open(const std::string& name, int size, int rank, std::size_t slot,
                                           MailboxShape mbox, std::string* err) {
  return map(name, size, rank, slot, mbox, false, err);
}

void ShmWindow::unlink(const std::string& name) { shm::unlink(name); }

ShmWindow::~ShmWindow() { shm::unmap(base_, bytes_); }

}  // namespace chorus::coll
