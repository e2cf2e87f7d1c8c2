#include "coll/schedule.h"

#include <algorithm>

#include <fmt/format.h>

namespace chorus::coll {

bool round_writes(const Round& rd, std::uint8_t buf, std::size_t off, std::size_t bytes) {
  for (const Step& s : rd.steps) {
    if (s.kind == Step::Kind::Send || s.kind == Step::Kind::Signal || s.kind == Step::Kind::Wait) continue;
    if (s.b.buf == buf && s.b.off < off + bytes && off < s.b.off + s.bytes) return true;
  }
  return false;
}

void Schedule::mark_settled() {
  constexpr std::size_t kMaxSteps = 1024, kMinBytes = 4096;
  std::size_t steps = 0;
  for (const Round& r : rounds) steps += r.steps.size();
  if (steps > kMaxSteps) return;
  for (std::size_t i = 0; i < rounds.size(); ++i)
    for (Step& s : rounds[i].steps) {
      if (s.kind != Step::Kind::Send || s.a.buf >= kTmp0 || s.bytes < kMinBytes) continue;
      bool written = false;
      for (std::size_t k = i; k < rounds.size() && !written; ++k)
        written = round_writes(rounds[k], s.a.buf, s.a.off, s.bytes);
      s.settled = !written;
    }
}

std::size_t Schedule::bytes_sent() const {
  std::size_t n = 0;
  for (const Round& r : rounds)
    for (const Step& s : r.steps)
      if (s.kind == Step::Kind::Send) n += s.bytes;
  return n;
}

std::size_t Schedule::bytes_received() const {
  std::size_t n = 0;
  for (const Round& r : rounds)
    for (const Step& s : r.steps)
      if (s.kind == Step::Kind::Recv) n += s.bytes;
  return n;
}

int Schedule::comm_rounds() const {
  int n = 0;
  for (const Round& r : rounds) {
    for (const Step& s : r.steps) {
      if (s.kind == Step::Kind::Send || s.kind == Step::Kind::Recv) {
        ++n;
        break;
      }
    }
  }
  return n;
}

int Schedule::signals() const {
  int n = 0;
  for (const Round& r : rounds)
    for (const Step& s : r.steps)
      if (s.kind == Step::Kind::Signal) ++n;
  return n;
}

std::size_t Schedule::first_sync_all(int size) const {
  thread_local std::vector<bool> waited;  // reused: this runs at every checked call's start
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    bool signal = false;
    waited.assign(static_cast<std::size_t>(std::max(size, 0)), false);
    int waits = 0;
    for (const Step& s : rounds[i].steps) {
      if (s.kind == Step::Kind::Send || s.kind == Step::Kind::Recv) return rounds.size();
      if (s.kind == Step::Kind::Signal) signal = true;
      if (s.kind == Step::Kind::Wait && s.peer >= 0 && s.peer < size &&
          !waited[static_cast<std::size_t>(s.peer)]) {
        waited[static_cast<std::size_t>(s.peer)] = true;
        ++waits;
      }
    }
    if (signal) return waits == size - 1 ? i : rounds.size();
  }
  return rounds.size();
}

static const char* buf_name(std::uint8_t b) {
  static const char* names[] = {"send", "recv", "tmp0", "tmp1", "tmp2", "tmp3", "shm"};
  return b <= kShm ? names[b] : "?";
}

std::string Schedule::dump() const {
  std::string out;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    out += fmt::format("round {}:", i);
    for (const Step& s : rounds[i].steps) {
      switch (s.kind) {
        case Step::Kind::Send:
          out += fmt::format(" send({}B {}+{} -> r{})", s.bytes, buf_name(s.a.buf), s.a.off, s.peer);
          break;
        case Step::Kind::Recv:
          out += fmt::format(" recv({}B r{} -> {}+{})", s.bytes, s.peer, buf_name(s.b.buf), s.b.off);
          break;
        case Step::Kind::Copy:
          out += fmt::format(" copy({}B {}+{} -> {}+{})", s.bytes, buf_name(s.a.buf), s.a.off,
                             buf_name(s.b.buf), s.b.off);
          break;
        case Step::Kind::ReduceLeft:
        case Step::Kind::ReduceRight:
          out += fmt::format(" {}({}B {}+{} -> {}+{})",
                             s.kind == Step::Kind::ReduceLeft ? "reduceL" : "reduceR", s.bytes,
                             buf_name(s.a.buf), s.a.off, buf_name(s.b.buf), s.b.off);
          break;
        case Step::Kind::Signal:
          out += " signal";
          break;
        case Step::Kind::Wait:
          out += fmt::format(" wait(r{})", s.peer);
          break;
      }
    }
    out += '\n';
  }
  return out;
}

}  // namespace chorus::coll
