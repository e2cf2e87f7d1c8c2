// The hang doctor, rank side: where this process is waiting, kept cheaply on every
// blocking MPI call, and reported when a wait lasts too long or the launcher asks.
//
// A blocking call puts a Site on its stack (hang::Scope): which call, on which
// communicator (context, size, members), its collective sequence number, the peer
// or root it waits on, how many requests. Entering and leaving costs a few stores.
//
// Reports are one line of `key=value` fields separated by tabs (the launcher
// parses them into its table; README, "When a job hangs"):
//   rank=3 host=vm pid=1234 state=wait call=MPI_Recv secs=12.0 comm=MPI_COMM_WORLD
//   ctx=0 size=4 crank=3 seq=-1 peer=1 tag=5 root=-1 pending=1 members=0,1,2,3
// state is wait (inside a blocking MPI call), user (outside MPI: computing, or
// stuck in the program's own code) or finalized. They are written
//  - when a wait passes CHORUS_HANG_TIMEOUT seconds (checked while idling), once
//    per wait: to <report dir>/hang.<rank> when the launcher gave a directory
//    (CHORUS_HANG_DIR), and as a WARN line on stderr;
//  - on the report signal (SIGRTMIN+4, sent by mpirun on --timeout, SIGQUIT or a
//    hang): from the signal handler, with async-signal-safe calls only, to the
//    same file (or stderr without a directory).
#pragma once
#include <time.h>

#include <atomic>
#include <cstdint>

namespace chorus {
struct Comm;
}

namespace chorus::hang {

struct Site {
  const char* call = "";          // "MPI_Recv"
  const Comm* comm = nullptr;     // name, handle, context, size, members
  std::int64_t seq = -1;          // collective sequence number (-1: point-to-point)
  int peer = -2;                  // world rank waited on (-1: any source, -2: none)
  int tag = -1;
  int root = -1;                  // world rank of a rooted collective's root
  int pending = 0;                // requests this call waits on
  timespec since{};               // set once the wait has idled kClockAfter times (check())
  std::uint32_t idles = 0;        // idle passes before the clock started
  Site* outer = nullptr;          // the call this one runs inside (a split's collective)
  bool reported = false;
};

// Enter a blocking wait: the innermost Scope is what a report shows.
class Scope {
 public:
  explicit Scope(Site& s);
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  Site& s_;
};

// MPI_Init: identity, the report directory (nullptr: none) and the timeout in
// seconds (<= 0: off). Installs the report signal's handler.
void init(int world_rank, const char* report_dir, double timeout_s);
// MPI_Finalize: reports say "finalized" from now on.
void finalized();
// From an idle wait: start the wait's clock; report once when it passes the timeout.
// The clock starts at the wait's kClockAfter-th idle pass, not its first: most
// waits end sooner (a message that lands within microseconds), and a clock read
// on each cost ~4% of a 0.6 us ping-pong. A report's secs understate the wait by
// those passes (microseconds spinning, a few ms napping).
constexpr std::uint32_t kClockAfter = 64;
void check();
// The signal mpirun sends to ask every rank for a report.
int report_signal();

}  // namespace chorus::hang
