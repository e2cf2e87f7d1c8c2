#include "coll/shm.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include <fmt/format.h>

#include "core/shm_segment.h"

namespace chorus::coll {

std::unique_ptr<ShmWindow> ShmWindow::map(const std::string& name, int size, int rank, std::size_t slot,
                                          MailboxShape mbox, bool create, std::string* err, int* code) {
  const std::size_t bytes = bytes_for(size, slot, mbox);
  int fd = -1;
  std::byte* p = shm::map(name, bytes, create, err, &fd);
  if (!p) {
    *code = errno;
    return nullptr;
  }
  auto w = std::unique_ptr<ShmWindow>(new ShmWindow(p, bytes, size, rank, slot, mbox));
  int e = w->allocate_pages(fd);
  close(fd);
  if (e == 0) e = w->prepare_entries();
  if (e != 0) {
    *err = fmt::format("allocating its pages in /dev/shm failed: {}", std::strerror(e));
    *code = e;
    // The creator's name goes too: nobody would remove it (the caller unlinks
    // only a window it got), and peers told to open it would map a dead one.
    if (create) shm::unlink(name);
    return nullptr;
  }
  return w;
}

namespace {
// Where the file system or kernel cannot allocate ahead (EOPNOTSUPP, EINVAL),
// pages fault in as calls use them; nothing more can be promised there.
bool allocated(int e) { return e == 0 || e == EOPNOTSUPP || e == EINVAL; }
}  // namespace

// The mailbox's done lines and entries (allocated by allocate_pages), every rank
// all of them: populated and read now. A loop of small calls walks through all
// the entries within its first Ds calls, and their first access cost several µs
// per page (a 20-80 µs stall per page on our VMs, even after populating alone).
// Contents are not touched: a peer's calls may already use its parts.
int ShmWindow::prepare_entries() const {
  if (!has_mailbox()) return 0;
  const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
  std::byte* from = entries_page();
  std::byte* to = entries_end();
  if (int e = shm::reserve(from, static_cast<std::size_t>(to - from)); !allocated(e)) return e;
  for (std::byte* q = from; q < to; q += page) static_cast<void>(*static_cast<volatile std::byte*>(q));
  return 0;
}

// Allocates in /dev/shm, now, the pages this rank writes: its block (Signal
// count, agreed values, slot) in both generations, both generations' result
// areas, the mailbox's done lines and entries, and its own data areas of the
// mailbox; together the ranks allocate the whole window. Left to fault in as
// calls used them, a page that a full /dev/shm (Docker's default is 64 MiB) had
// no room for was a SIGBUS in the middle of some later collective; now the
// window's set-up fails and the communicator goes without one (comm_shm_setup
// agrees on that). The areas are allocated without being mapped (shm::allocate;
// populating them too cost 9-15 ms per window at 2 ranks on a busy VM), so calls
// still fault them in as they use them. The cost is the window's memory
// committed (2 x (ranks + 2) slots and the mailbox: 6 MiB at 2 ranks, 13 MiB at
// 8) and the kernel zeroing it: about 0.5 ms per 3 MiB on our VMs (a throwaway
// loop of fallocate), which is why communicators other than MPI_COMM_WORLD set
// their window up only at their CHORUS_COLL_SHM_CALLS-th blocking collective.
int ShmWindow::allocate_pages(int fd) const {
  auto allocate = [&](std::byte* from, std::byte* to) {
    return shm::allocate(fd, static_cast<std::size_t>(from - base_), static_cast<std::size_t>(to - from));
  };
  const std::size_t gen = gen_bytes(size_, slot_);
  const auto me = static_cast<std::size_t>(rank_);
  for (std::size_t g = 0; g < 2; ++g) {
    std::byte* b = base_ + g * gen;
    if (int e = allocate(b + me * (slot_ + kLine), b + (me + 1) * (slot_ + kLine)); !allocated(e)) return e;
    if (int e = allocate(b + area_offset(static_cast<std::size_t>(size_), 0, slot_), b + gen); !allocated(e))
      return e;
  }
  if (!has_mailbox()) return 0;
  std::byte* to = entries_end();
  if (int e = allocate(entries_page(), to); !allocated(e)) return e;
  const std::size_t areas = static_cast<std::size_t>(mbox_.depth) * area_bytes(mbox_.bytes);
  if (int e = allocate(to + me * areas, to + (me + 1) * areas); !allocated(e)) return e;
  return 0;
}

std::unique_ptr<ShmWindow> ShmWindow::create(const std::string& name, int size, int rank, std::size_t slot,
                                             MailboxShape mbox, std::string* err, int* code) {
  return map(name, size, rank, slot, mbox, true, err, code);
}

std::unique_ptr<ShmWindow> ShmWindow::open(const std::string& name, int size, int rank, std::size_t slot,
                                           MailboxShape mbox, std::string* err, int* code) {
  return map(name, size, rank, slot, mbox, false, err, code);
}

void ShmWindow::unlink(const std::string& name) { shm::unlink(name); }

std::byte* ShmWindow::entries_page() const {
  const auto page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(mbox_base_) / page * page);
}

ShmWindow::~ShmWindow() { shm::unmap(base_, bytes_); }

}  // namespace chorus::coll
