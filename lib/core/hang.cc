#include "core/hang.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <string>

#include "core/comm.h"
#include "core/events.h"
#include "core/log.h"

namespace chorus::hang {
namespace {

// Each thread's innermost wait. A thread only ever points its own slot at its own
// live stack frames (scopes nest), so a report never reads a wait that ended in a
// way that could leave a dangling pointer. The report signal may land on any
// thread: the handler reads the slots.
constexpr int kSlots = 64;
std::atomic<Site*> g_slots[kSlots];
std::atomic<int> g_nslots{0};
// Read on every MPI call and every idle poll: the initial-exec model reads them at
// a fixed offset from the thread pointer, where the default for a shared library
// (global-dynamic) calls __tls_get_addr each time (~2% of a waiting rank's time
// between hosts, measured with perf). libmpi is loaded with the program, or by
// dlopen with a static TLS block of 176 bytes, well within glibc's reserve.
[[gnu::tls_model("initial-exec")]] thread_local Site* t_top = nullptr;
// -2: more threads than slots (their waits go unreported)
[[gnu::tls_model("initial-exec")]] thread_local int t_slot = -1;

int my_slot() {
  if (t_slot == -1) {
    int i = g_nslots.fetch_add(1, std::memory_order_relaxed);
    t_slot = i < kSlots ? i : -2;
  }
  return t_slot;
}

// The wait a report shows: the first thread found waiting.
const Site* waiting_site() {
  const int n = std::min(g_nslots.load(std::memory_order_relaxed), kSlots);
  for (int i = 0; i < n; ++i)
    if (const Site* s = g_slots[i].load(std::memory_order_acquire)) return s;
  return nullptr;
}
std::atomic<bool> g_finalized{false};
int g_rank = -1;
double g_timeout = 0;
char g_host[128] = "?";
char g_path[512] = "";     // <report dir>/hang.<rank>, or "" for stderr
unsigned g_idle = 0;

// ---- async-signal-safe formatting into a fixed buffer ----------------------------
struct Line {
  char buf[4096];
  std::size_t n = 0;
  void put(const char* s) {
    while (*s && n < sizeof buf - 2) buf[n++] = *s++;
  }
  void put_int(long long v) {
    char tmp[24];
    int k = 0;
    bool neg = v < 0;
    unsigned long long u = neg ? 0ULL - static_cast<unsigned long long>(v) : static_cast<unsigned long long>(v);
    do {
      tmp[k++] = static_cast<char>('0' + u % 10);
      u /= 10;
    } while (u && k < 22);
    if (neg) tmp[k++] = '-';
    while (k && n < sizeof buf - 2) buf[n++] = tmp[--k];
  }
  void put_hex(unsigned v) {
    put("0x");
    char tmp[9];
    int k = 0;
    do {
      tmp[k++] = "0123456789abcdef"[v & 15];
      v >>= 4;
    } while (v);
    while (k && n < sizeof buf - 2) buf[n++] = tmp[--k];
  }
  void field(const char* key, const char* v) {
    if (n) put("\t");
    put(key);
    put("=");
    put(v);
  }
  void field(const char* key, long long v) {
    if (n) put("\t");
    put(key);
    put("=");
    put_int(v);
  }
};

timespec now() {
  timespec t{};
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t;
}

double seconds_since(const timespec& t) {
  if (t.tv_sec == 0 && t.tv_nsec == 0) return 0;
  timespec n = now();
  return static_cast<double>(n.tv_sec - t.tv_sec) + static_cast<double>(n.tv_nsec - t.tv_nsec) * 1e-9;
}

// The report of what this rank does now (signal-safe: no allocation, no locks).
void render(Line& l) {
  l.field("rank", g_rank);
  l.field("host", g_host);
  l.field("pid", static_cast<long long>(getpid()));
  const Site* s = waiting_site();
  if (g_finalized.load(std::memory_order_relaxed)) {
    l.field("state", "finalized");
  } else if (!s) {
    l.field("state", "user");
  } else {
    l.field("state", "wait");
    l.field("call", s->call);
    const double secs = seconds_since(s->since);
    l.put("\tsecs=");
    l.put_int(static_cast<long long>(secs));
    l.put(".");
    l.put_int(static_cast<long long>((secs - static_cast<double>(static_cast<long long>(secs))) * 10));
    if (const Comm* c = s->comm) {
      if (!c->name.empty()) {
        l.field("comm", c->name.c_str());
      } else {
        l.put("\tcomm=");
        l.put_hex(static_cast<unsigned>(c->handle));
      }
      l.field("ctx", static_cast<long long>(c->ctx_p2p));
      l.field("size", c->size);
      l.field("crank", c->rank);
      // Members, up to 256 of them (the table names missing ranks from these).
      if (c->size <= 256 && c->world_of.size() == static_cast<std::size_t>(c->size)) {
        l.put("\tmembers=");
        for (int i = 0; i < c->size; ++i) {
          if (i) l.put(",");
          l.put_int(c->world_of[static_cast<std::size_t>(i)]);
        }
      }
    }
    l.field("seq", static_cast<long long>(s->seq));
    l.field("peer", s->peer);
    l.field("tag", s->tag);
    l.field("root", s->root);
    l.field("pending", s->pending);
  }
  l.put("\n");
}

void emit(const Line& l) {
  int fd = g_path[0] ? ::open(g_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600) : -1;
  if (fd < 0) {
    (void)!::write(2, l.buf, l.n);
    return;
  }
  (void)!::write(fd, l.buf, l.n);
  ::close(fd);
}

void on_signal(int) {
  int saved = errno;
  Line l;
  render(l);
  emit(l);
  errno = saved;
}

}  // namespace

Scope::Scope(Site& s) : s_(s) {
  s.outer = t_top;
  t_top = &s;
  if (int i = my_slot(); i >= 0) g_slots[i].store(&s, std::memory_order_release);
}

Scope::~Scope() {
  t_top = s_.outer;
  if (t_slot >= 0) g_slots[t_slot].store(s_.outer, std::memory_order_release);
}

int report_signal() { return SIGRTMIN + 4; }

void init(int world_rank, const char* report_dir, double timeout_s) {
  g_rank = world_rank;
  g_timeout = timeout_s;
  g_finalized = false;
  if (::gethostname(g_host, sizeof g_host - 1) != 0) std::strcpy(g_host, "?");
  g_path[0] = '\0';
  if (report_dir && *report_dir) {
    Line p;
    p.put(report_dir);
    p.put("/hang.");
    p.put_int(world_rank);
    std::memcpy(g_path, p.buf, std::min(p.n, sizeof g_path - 1));
    g_path[std::min(p.n, sizeof g_path - 1)] = '\0';
  }
  struct sigaction sa{};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(report_signal(), &sa, nullptr);
}

void finalized() { g_finalized = true; }

void check() {
  // A wait's clock starts at its kClockAfter-th idle pass (hang.h: a call that
  // idles less never reads the clock); the timeout is looked at every 1024 passes.
  Site* s = t_top;  // this thread's own wait
  if (!s) return;
  if (s->since.tv_sec == 0 && s->since.tv_nsec == 0) {
    if (++s->idles >= kClockAfter) s->since = now();
    return;
  }
  if (g_timeout <= 0 || s->reported || ++g_idle % 1024 != 0) return;
  if (seconds_since(s->since) < g_timeout) return;
  s->reported = true;
  if (events::armed(events::Id::HangWait))
    events::raise(events::Id::HangWait,
                  {std::bit_cast<std::int64_t>(seconds_since(s->since)), s->comm ? s->comm->handle : MPI_COMM_NULL,
                   s->seq, s->peer, s->tag, s->root, s->pending});
  if (g_path[0]) {  // under mpirun: it prints every rank's state in one table
    Line l;
    render(l);
    emit(l);
    return;
  }
  std::string where = s->comm ? fmt::format(" on {} ({} ranks)", s->comm->name.empty() ?
                                            fmt::format("communicator 0x{:x}", unsigned(s->comm->handle)) :
                                            s->comm->name, s->comm->size) : "";
  std::string on = s->seq >= 0 ? fmt::format(", collective #{}", s->seq)
                 : s->peer >= 0 ? fmt::format(", waiting for rank {} (tag {})", s->peer, s->tag)
                 : s->peer == -1 ? fmt::format(", waiting for any rank (tag {})", s->tag) : "";
  if (s->root >= 0) on += fmt::format(", root {}", s->root);
  CHORUS_WARN(INIT, "hang doctor: rank {} has waited {:.1f} s (CHORUS_HANG_TIMEOUT) in {}{}{}, {} request(s) pending",
              g_rank, seconds_since(s->since), s->call, where, on, s->pending);
}

}  // namespace chorus::hang
