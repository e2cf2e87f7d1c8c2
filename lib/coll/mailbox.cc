#include "coll/mailbox.h"

#include <mpi.h>

#include <atomic>
#include <fmt/format.h>

#include "core/counters.h"
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
    case Mode::Stream: return "through the window's mailbox in chunks";
    case Mode::GaveUp: return "(it gave up)";
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
  // Chunks are whole elements: ranks of one byte count whose element sizes differ
  // would reduce chunks at different offsets.
  if ((mode == static_cast<std::int32_t>(Mode::Stream) || mode == static_cast<std::int32_t>(Mode::GaveUp)) &&
      c.mode == Mode::Stream && e->chunk != static_cast<std::int32_t>(c.chunk)) {
    *v = {MPI_ERR_TYPE, fmt::format("{}: ranks passed datatypes of different sizes: rank {} streams the call in "
                                    "chunks of {} B, rank {} in chunks of {} B",
                                    c.name, c.rank, c.chunk, q, e->chunk)};
    return true;
  }
  // After the values: a rank that gave up over a disagreement with a third rank
  // shows that disagreement here when this rank has it too.
  if (mode == static_cast<std::int32_t>(Mode::GaveUp)) {
    *v = {MPI_ERR_OTHER, fmt::format("{}: rank {} gave up the call midway (its error says why)", c.name, q), true};
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

// Any peer's entry of this call (written by now) that disagrees: one whose values
// differ before one that only gave up (its cause is likely among the others).
bool any_differs(const Call& c, Verdict* v) {
  Verdict gave_up;
  for (int q = 0; q < c.size; ++q) {
    if (q == c.rank) continue;
    Entry* e = written(*c.w, q, c.seq);
    Verdict here;
    if (!e || !differs(c, q, e, &here)) continue;
    if (!here.gave_up) {
      *v = std::move(here);
      return true;
    }
    if (!gave_up.cls) gave_up = std::move(here);
  }
  if (gave_up.cls) *v = std::move(gave_up);
  return gave_up.cls != 0;
}

// Peer q's entry `e` disagrees (*v says how): the most telling disagreement among
// all the entries written, should q's only be that it gave up.
bool differs_best(const Call& c, int q, Entry* e, Verdict* v) {
  if (!differs(c, q, e, v)) return false;
  if (Verdict best; any_differs(c, &best)) *v = std::move(best);
  return true;
}

}  // namespace

std::byte* claim(const Call& c) {
  ShmWindow& w = *c.w;
  const auto depth = static_cast<std::uint64_t>(w.mbox_depth(c.bytes));
  if (c.seq > depth) {
    const std::uint64_t need = c.seq - depth;
    // A peer's done number only grows: one read (acquire) that showed it past
    // `need` still holds for every later call up to that number plus the depth.
    auto free = [&] {
      for (int q = 0; q < c.size; ++q) {
        if (w.mbox_seen(q) >= need) continue;
        w.mbox_seen(q) = w.mbox_done(q).load(std::memory_order_acquire);
        if (w.mbox_seen(q) < need) return false;
      }
      return true;
    };
    if (!free()) {
      counters::add(counters::Id::CollMailboxWaits);
      p2p::wait_polling(free);
    }
  }
  return w.entry_data(c.rank, c.seq, c.bytes);
}

void post(const Call& c) {
  Entry* e = c.w->entry(c.rank, c.seq);
  e->root = c.root;
  e->bytes = c.bytes;
  e->kind = static_cast<std::int32_t>(c.kind);
  e->chunk = static_cast<std::int32_t>(c.chunk);
  mode_of(e).store(static_cast<std::int32_t>(c.mode), std::memory_order_relaxed);
  ShmWindow::entry_seq(e).store(c.seq, std::memory_order_release);
}

const std::byte* await_root(const Call& c, Verdict* v) {
  Entry* got = nullptr;
  bool bad = false;
  p2p::wait_polling([&] {
    got = written(*c.w, c.root, c.seq);
    if (got) {
      bad = differs_best(c, c.root, got, v);  // also a root that is not the root in its own eyes
      return true;
    }
    // Meanwhile every other entry written so far: a peer that names another
    // root would otherwise leave this rank waiting for an entry no rank writes.
    return bad = any_differs(c, v);
  });
  return bad ? nullptr : c.w->entry_data(c.root, c.seq, c.bytes);
}

bool await_all(const Call& c, Verdict* v) {
  bool bad = false;
  int next = 0;  // peers below `next` have written agreeing entries
  p2p::wait_polling([&] {
    for (; next < c.size; ++next) {
      if (next == c.rank) continue;
      Entry* e = written(*c.w, next, c.seq);
      if (!e) break;
      if (differs_best(c, next, e, v)) return bad = true;
    }
    if (next == c.size) return true;
    return bad = any_differs(c, v);
  });
  return !bad;
}

void finish(const Call& c) { c.w->mbox_done(c.rank).store(c.seq, std::memory_order_release); }

void abandon(const Call& c) {
  mode_of(c.w->entry(c.rank, c.seq)).store(static_cast<std::int32_t>(Mode::GaveUp), std::memory_order_release);
}

namespace {
// A progress word: the call's number above 24 bits of chunks, so a rank already
// in a later call reads as past every chunk of this one.
std::uint64_t progress(std::uint64_t seq, std::size_t chunks) { return seq << 24 | chunks; }
}  // namespace

std::byte* chunk_area(const Call& c, int q, std::size_t i) {
  return c.w->entry_data(q, c.seq, c.bytes) + i % kStreamAhead * c.chunk;
}

bool stream_wait(const Call& c, std::size_t chunks, Verdict* v) {
  if (!chunks) return true;
  const std::uint64_t need = progress(c.seq, chunks);
  bool bad = false;
  // q has marked enough chunks, and its entry agrees with this rank's: the marks
  // of a rank that runs the call otherwise (a second root writing its own data,
  // say) do not count. A rank with such a mark has posted its entry of this call,
  // and that entry stays until this rank is done with the call.
  auto past = [&](int q) {
    if (c.w->mbox_progress(q).load(std::memory_order_acquire) < need) return false;
    Entry* e = written(*c.w, q, c.seq);
    if (e && differs_best(c, q, e, v)) bad = true;
    return e && !bad;
  };
  int next = 0;  // ranks below `next` are past
  auto over = [&] {
    if (c.rank != c.root) return past(c.root) || bad;
    for (; next < c.size; ++next)
      if (next != c.rank && !past(next)) return bad;
    return true;
  };
  if (!over()) p2p::wait_polling([&] { return over() || (bad = any_differs(c, v)); });
  return !bad;
}

void stream_mark(const Call& c, std::size_t chunks) {
  c.w->mbox_progress(c.rank).store(progress(c.seq, chunks), std::memory_order_release);
}

}  // namespace chorus::coll::mailbox
