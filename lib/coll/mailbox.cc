#include "coll/mailbox.h"

#include <mpi.h>

#include <atomic>
#include <fmt/format.h>

#include "p2p/p2p.h"

namespace chorus::coll::mailbox {
namespace {

using Entry = ShmWindow::Entry;

std::atomic_ref<std::int32_t> mode_of(Entry* e) { return std::atomic_ref<std::int32_t>(e->mode); }

// Peer q's entry of call `seq` once q has written it (acquire), else null.
Entry* written(const ShmWindow& w, int q, std::uint64_t seq) {
  Entry* e = w.entry(q, seq);
  return ShmWindow::entry_seq(e).load(std::memory_order_acquire) == seq ? e : nullptr;
}

const char* mode_name(std::int32_t m) {
  switch (static_cast<Mode>(m)) {
    case Mode::Data: return "through the window's mailbox";
    case Mode::Job: return "by an algorithm";
    case Mode::Failed: return "(it failed)";
  }
  return "?";
}

// Whether peer q's entry `e` disagrees with this rank's call: *v says how.
bool differs(const Call& c, int q, Entry* e, Verdict* v) {
  const int root = e->root;
  const auto bytes = e->bytes;
  const std::int32_t mode = mode_of(e).load(std::memory_order_relaxed);
  if (mode == static_cast<std::int32_t>(Mode::Failed)) {
    *v = {MPI_ERR_OTHER, fmt::format("{}: rank {} failed the call on its own (its error says why)", c.name, q)};
    return true;
  }
  if (e->kind != static_cast<std::int32_t>(c.kind)) {
    auto name = [](std::int32_t k) { return k == static_cast<std::int32_t>(Kind::Bcast) ? "MPI_Bcast" : "MPI_Reduce"; };
    *v = {MPI_ERR_OTHER, fmt::format("{}: ranks called different collectives: rank {} called {}, rank {} called {}",
                                     c.name, c.rank, name(static_cast<std::int32_t>(c.kind)), q, name(e->kind))};
    return true;
  }
  if (root != c.root) {
    *v = {MPI_ERR_ROOT, fmt::format("{}: ranks passed different values of root: rank {} passed {}, rank {} passed {}",
                                    c.name, c.rank, c.root, q, root)};
    return true;
  }
  if (bytes != c.bytes) {
    *v = {MPI_ERR_COUNT,
          fmt::format("{}: ranks passed different values of the byte count (count x type size): rank {} passed {}, "
                      "rank {} passed {}", c.name, c.rank, c.bytes, q, bytes)};
    return true;
  }
  if (mode != static_cast<std::int32_t>(c.mode)) {
    *v = {MPI_ERR_ARG, fmt::format("{}: rank {} runs the call {} and rank {} {}: their datatypes or ops differ",
                                   c.name, c.rank, mode_name(static_cast<std::int32_t>(c.mode)), q,
                                   mode_name(mode))};
    return true;
  }
  return false;
}

// Any peer's entry of this call (written by now) that disagrees.
bool any_differs(const Call& c, Verdict* v) {
  for (int q = 0; q < c.size; ++q) {
    if (q == c.rank) continue;
    if (Entry* e = written(*c.w, q, c.seq); e && differs(c, q, e, v)) return true;
  }
  return false;
}

}  // namespace

std::byte* claim(const Call& c) {
  const ShmWindow& w = *c.w;
  const auto depth = static_cast<std::uint64_t>(w.mbox_depth());
  if (c.seq > depth) {
    const std::uint64_t need = c.seq - depth;
    auto free = [&] {
      for (int q = 0; q < c.size; ++q)
        if (w.mbox_done(q).load(std::memory_order_acquire) < need) return false;
      return true;
    };
    if (!free()) p2p::wait_polling(free);
  }
  return ShmWindow::data(w.entry(c.rank, c.seq));
}

void post(const Call& c) {
  Entry* e = c.w->entry(c.rank, c.seq);
  e->root = c.root;
  e->bytes = c.bytes;
  e->kind = static_cast<std::int32_t>(c.kind);
  mode_of(e).store(static_cast<std::int32_t>(c.mode), std::memory_order_relaxed);
  ShmWindow::entry_seq(e).store(c.seq, std::memory_order_release);
}

const std::byte* await_root(const Call& c, Verdict* v) {
  Entry* got = nullptr;
  bool bad = false;
  p2p::wait_polling([&] {
    got = written(*c.w, c.root, c.seq);
    if (got) {
      bad = differs(c, c.root, got, v);  // also a root that is not the root in its own eyes
      return true;
    }
    // Meanwhile every other entry written so far: a peer that names another
    // root would otherwise leave this rank waiting for an entry no rank writes.
    return bad = any_differs(c, v);
  });
  return bad ? nullptr : ShmWindow::data(got);
}

bool await_all(const Call& c, Verdict* v) {
  bool bad = false;
  int next = 0;  // peers below `next` have written agreeing entries
  p2p::wait_polling([&] {
    for (; next < c.size; ++next) {
      if (next == c.rank) continue;
      Entry* e = written(*c.w, next, c.seq);
      if (!e) break;
      if (differs(c, next, e, v)) return bad = true;
    }
    if (next == c.size) return true;
    return bad = any_differs(c, v);
  });
  return !bad;
}

void finish(const Call& c) { c.w->mbox_done(c.rank).store(c.seq, std::memory_order_release); }

}  // namespace chorus::coll::mailbox
