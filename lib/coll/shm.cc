#include "coll/shm.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/shm_segment.h"

namespace chorus::coll {

std::unique_ptr<ShmWindow> ShmWindow::map(const std::string& name, int size, int rank, std::size_t slot,
                                          MailboxShape mbox, bool create, bool allocate, std::string* err) {
  const std::size_t bytes = bytes_for(size, slot, mbox);
  std::byte* p = shm::map(name, bytes, create, err);
  if (!p) return nullptr;
  auto w = std::unique_ptr<ShmWindow>(new ShmWindow(p, bytes, size, rank, slot, mbox));
  if (const int e = w->reserve(name, allocate); e != 0) {
    if (err) *err = fmt::format("allocating its pages in /dev/shm failed: {}", std::strerror(e));
    return nullptr;
  }
  return w;
}

// With `all`: allocates in /dev/shm, now, the pages this rank writes: its block
// (Signal count, agreed values, slot) in both generations, both generations'
// result areas, the mailbox's done lines and entries, and its own data areas;
// together the ranks allocate the whole window. Left to fault in as calls used
// them, a page that a full /dev/shm (Docker's default is 64 MiB) had no room for
// was a SIGBUS in the middle of some later collective; now the window's set-up
// fails and the communicator goes without one (comm_shm_setup agrees on that).
// The cost is the window's memory committed at creation (2 x (ranks + 2) slots
// and the mailbox: 6 MiB at 2 ranks, 13 MiB at 8) and about 1 ms at 2 ranks. The
// large areas are allocated without being mapped (shm::allocate; populating them
// too cost 9-15 ms per window at 2 ranks on a busy VM), so calls still fault them
// in as they use them. Without `all` (and with it, after the rest) the mailbox's
// done lines and entries are populated and read, as before: a loop of small calls
// walks through all of them within its first Ds calls, and their first access
// cost several µs per page (a 20-80 µs stall per page on the VM, even after
// populating alone). Contents are not touched: a peer's calls may already use its
// parts. 0, or the errno (where the file system or kernel cannot allocate ahead,
// EOPNOTSUPP or EINVAL, pages fault in as calls use them, as before).
int ShmWindow::reserve(const std::string& name, bool all) const {
  auto ok = [](int e) { return e == 0 || e == EOPNOTSUPP || e == EINVAL; };
  auto allocate = [&](std::byte* from, std::byte* to) {
    return shm::allocate(name, static_cast<std::size_t>(from - base_), static_cast<std::size_t>(to - from));
  };
  const std::size_t gen = gen_bytes(size_, slot_);
  const auto me = static_cast<std::size_t>(rank_);
  for (std::size_t g = 0; all && g < 2; ++g) {
    std::byte* b = base_ + g * gen;
    if (int e = allocate(b + me * (slot_ + kLine), b + (me + 1) * (slot_ + kLine)); !ok(e)) return e;
    if (int e = allocate(b + area_offset(static_cast<std::size_t>(size_), 0, slot_), b + gen); !ok(e)) return e;
  }
  if (!has_mailbox()) return 0;
  std::byte* to = entries_end();
  const std::size_t areas = static_cast<std::size_t>(mbox_.depth) * area_bytes(mbox_.bytes);
  if (all)
    if (int e = allocate(to + me * areas, to + (me + 1) * areas); !ok(e)) return e;
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  auto* from = reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(mbox_base_) / page * page);
  // Without `all` a failure here is no failure: the pages fault in as before.
  if (int e = shm::reserve(from, static_cast<std::size_t>(to - from)); !ok(e)) return all ? e : 0;
  for (std::byte* q = from; q < to; q += page) static_cast<void>(*static_cast<volatile std::byte*>(q));
  return 0;
}

std::unique_ptr<ShmWindow> ShmWindow::create(const std::string& name, int size, int rank, std::size_t slot,
                                             MailboxShape mbox, bool allocate, std::string* err) {
  return map(name, size, rank, slot, mbox, true, allocate, err);
}

std::unique_ptr<ShmWindow> ShmWindow::open(const std::string& name, int size, int rank, std::size_t slot,
                                           MailboxShape mbox, bool allocate, std::string* err) {
  return map(name, size, rank, slot, mbox, false, allocate, err);
}

void ShmWindow::unlink(const std::string& name) { shm::unlink(name); }

ShmWindow::~ShmWindow() { shm::unmap(base_, bytes_); }

}  // namespace chorus::coll
