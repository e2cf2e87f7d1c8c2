// The MPI tool information interface (MPI_T, MPI-4.1 chapter 15).
//
// Control variables are the rows of Chorus's one parameter table
// (core/params.def), in its order: each is named by its environment variable,
// described by its doc string and bound to no object. CHORUS_DEBUG and
// CHORUS_DEBUG_SUBSYS may be written (scope local: the log's level and
// subsystems change at once, in this process; a level past TRACE reads back as
// written and logs as TRACE, mask bits past the subsystems are ignored); every other row is read once
// from the environment, before anything uses it, and is read-only (a write is
// MPI_T_ERR_CVAR_SET_NEVER). Enum rows are MPI_INT with an MPI_T_enum of their
// choices.
//
// Performance variables are the runtime's counters (core/counters.def: messages
// and bytes per point-to-point path, the rings' unexpected queue), one use count
// per collective algorithm (coll_<collective>_<algorithm>), and the time spent in
// progress (a timer, measured only while some handle of it is started). All are
// MPI_UNSIGNED_LONG_LONG and bound to no object. Counters are continuous and
// writable (a handle keeps its own offset: reset and write change what that
// handle reads, never the count itself); the unexpected-queue length is a
// read-only level.
//
// Categories: "chorus" holds one category per subsystem ("chorus_p2p",
// "chorus_coll", "chorus_gpu", "chorus_launch", "chorus_log"), and those hold the
// variables. The catalog is built once and never changes, so
// MPI_T_category_changed always returns the same stamp.
//
// Events (core/events.h raises them): chorus_coll_algorithm (a collective call
// chose its algorithm), chorus_p2p_unexpected (a message came through the node's
// rings before its receive), chorus_hang_wait (a wait passed CHORUS_HANG_TIMEOUT),
// each in its subsystem's category, timestamped by the one event source, the
// monotonic clock in nanoseconds. An event nobody registered a callback for costs
// its site one relaxed load. Chorus raises an event inside the MPI call where it
// happens, a context that allows only the restricted MPI_T calls
// (MPI_T_CB_REQUIRE_MPI_RESTRICTED): the registration's callback of the lowest
// safety level at or above that runs at once, in the raising thread, never two
// at a time. A registration with only an MPI_T_CB_REQUIRE_NONE callback has its
// instances kept (up to kPendingMax, then counted as dropped) and handed to that
// callback later, where any MPI call may be made: at the start of the next
// MPI_Wait*, MPI_Test*, MPI_(I)(m)probe or MPI_Finalize of an application thread,
// before that call takes any lock or does anything. Its dropped handler hears of
// losses there, before the instances that follow; instances kept for a callback
// that is then removed count as lost.
//
// MPI_T works before MPI_Init and after MPI_Finalize: MPI_T_init_thread and
// MPI_T_finalize nest (a counter), the last finalize frees every handle and
// session, and outside them every other call is MPI_T_ERR_NOT_INITIALIZED.
// Calls return MPI_T error codes directly, never through an error handler, and
// one mutex guards the state, so any thread may call at any time.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <deque>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "coll/registry.h"
#include "core/counters.h"
#include "core/events.h"
#include "gpu/agent.h"
#include "core/log.h"
#include "core/params.h"
#include "mpi/api.h"

namespace chorus::mpi {
namespace {

// ---- catalog: built once from the params table, never changed ----------------

struct Enum {
  std::string name;
  std::vector<std::string> items;  // item i has value i
};

struct Cvar {
  params::Id id;
  std::string desc;
  MPI_Datatype type;
  int enum_index;  // into Catalog::enums, or -1
};

constexpr std::string_view kCategoryName = "chorus";
constexpr std::string_view kCategoryDesc =
    "Chorus: its parameters (the CHORUS_* environment variables, read once at start-up) and "
    "performance counters, in one category per subsystem";

enum class Source { Counter, Algorithm, ProgressTime };

struct Pvar {
  std::string name;
  std::string desc;
  int cls;  // MPI_T_PVAR_CLASS_*
  Source source;
  counters::Id counter = counters::Id::Count;
  const coll::AlgoInfo* algo = nullptr;
  bool readonly() const { return cls == MPI_T_PVAR_CLASS_LEVEL; }
  bool continuous() const { return cls != MPI_T_PVAR_CLASS_TIMER; }
};

// One element of an event type's data: MPI_INT, MPI_COUNT or MPI_DOUBLE, each
// at a displacement aligned to its size, in the order core/events.h passes them.
struct EventElem {
  std::string_view name;
  MPI_Datatype type;
  MPI_Aint disp = 0;
};

struct EventType {
  events::Id id;
  std::string_view name;
  std::string_view sub;  // the subsystem whose category lists it
  int verbosity;
  std::string desc;      // with its elements spelled out
  std::vector<EventElem> elems;
  int enum_index = -1;   // into Catalog::enums: the values of its MPI_INT elements that name a kind
  std::size_t bytes = 0; // the data's extent
};

struct Category {
  std::string name;
  std::string desc;
  std::vector<int> cvars, pvars, categories, events;
};

struct Catalog {
  std::vector<Cvar> cvars;
  std::vector<Enum> enums;
  std::vector<Pvar> pvars;
  std::vector<Category> categories;
  std::vector<EventType> events;                        // indexed by events::Id
  std::unordered_map<const void*, int> algo_pvar;       // a coll::AlgoInfo's use count
};

// The subsystem a parameter belongs to, from its name (and the launcher's rows
// from their doc, which starts with the program that reads them).
std::string_view subsystem_of(const params::Info& row) {
  const std::string_view env = row.env;
  auto has = [&](std::string_view s) { return env.find(s) != std::string_view::npos; };
  if (env.starts_with("CHORUS_DEBUG")) return "log";
  if (env.starts_with("CHORUS_GPU") || env.starts_with("CHORUS_CUDA")) return "gpu";
  if (env.starts_with("CHORUS_RMA")) return "rma";
  if (has("_ALGO") || env.starts_with("CHORUS_COLL") || env.starts_with("CHORUS_CHECK")) return "coll";
  if (env.starts_with("CHORUS_HANG") || row.doc.starts_with("mpirun") || row.doc.starts_with("set by mpirun") ||
      row.doc.starts_with("chorus-doctor"))
    return "launch";
  return "p2p";
}

constexpr std::string_view kSubsystems[][2] = {
    {"p2p", "point-to-point: progress and waiting, the node's rings, UCX, shared-memory protocols"},
    {"coll", "collectives: algorithm choice, shared windows, checks"},
    {"rma", "one-sided communication: windows and their operations"},
    {"gpu", "device buffers: the CUDA driver, staging, pools"},
    {"launch", "mpirun, chorusd, the hang doctor and chorus-doctor"},
    {"log", "logging"},
};

std::vector<std::string> split_choices(std::string_view choices) {
  std::vector<std::string> out;
  while (!choices.empty()) {
    const std::size_t bar = choices.find('|');
    out.emplace_back(choices.substr(0, bar));
    if (bar == std::string_view::npos) break;
    choices.remove_prefix(bar + 1);
  }
  return out;
}

// The event types, in events::Id order. Their descriptions name each element.
void build_events(Catalog& c) {
  Enum kinds{"chorus_collective", {}};
  for (int k = 0; k < static_cast<int>(coll::CollKind::Count); ++k)
    kinds.items.emplace_back(coll::kind_name(static_cast<coll::CollKind>(k)));
  const int kinds_index = static_cast<int>(c.enums.size());
  c.enums.push_back(std::move(kinds));
  auto add = [&](events::Id id, std::string_view name, std::string_view sub, int verbosity, std::string desc,
                 std::vector<EventElem> elems, int enum_index) {
    EventType t{id, name, sub, verbosity, std::move(desc), std::move(elems), enum_index, 0};
    MPI_Aint at = 0;
    t.desc += " Elements:";
    for (std::size_t i = 0; i < t.elems.size(); ++i) {
      EventElem& e = t.elems[i];
      const MPI_Aint size = e.type == MPI_INT ? 4 : 8;
      at = (at + size - 1) / size * size;
      e.disp = at;
      at += size;
      t.desc += fmt::format("{} {} ({})", i ? "," : "", e.name,
                            e.type == MPI_INT ? "MPI_INT" : e.type == MPI_COUNT ? "MPI_COUNT" : "MPI_DOUBLE");
    }
    t.desc += ".";
    t.bytes = static_cast<std::size_t>(at);
    c.events.push_back(std::move(t));
  };
  add(events::Id::CollAlgorithm, "chorus_coll_algorithm", "coll", MPI_T_VERBOSITY_USER_BASIC,
      "A collective call chose its algorithm (what CHORUS_DEBUG=TRACE logs for it): the communicator's handle, "
      "the collective (enumeration chorus_collective), the algorithm as the index of its use count, the "
      "performance variable coll_<collective>_<algorithm>, the count and element size the algorithm was chosen "
      "for (per rank or per block, as the call counts; 0 for the v-forms), and 1 for a call the library makes "
      "itself (communicator set-up). Raised by each call that takes the full path; a call that repeats the "
      "last one's arguments on its communicator by the short path (counter coll_repeat_calls), or that moves no "
      "data and needs no algorithm (counter coll_no_data_calls), raises none.",
      {{"comm", MPI_INT}, {"collective", MPI_INT}, {"algorithm_pvar", MPI_INT}, {"count", MPI_COUNT},
       {"element_size", MPI_COUNT}, {"internal", MPI_INT}},
      kinds_index);
  add(events::Id::P2pUnexpected, "chorus_p2p_unexpected", "p2p", MPI_T_VERBOSITY_TUNER_DETAIL,
      "A message from a rank of this node came through the rings before a receive matched it, and waits in the "
      "unexpected queue: the sender's rank in the communicator, the tag, the communicator's context (even: "
      "point-to-point, odd: its collectives' traffic) and the message's size in bytes.",
      {{"source", MPI_INT}, {"tag", MPI_INT}, {"context", MPI_INT}, {"bytes", MPI_COUNT}}, -1);
  add(events::Id::HangWait, "chorus_hang_wait", "launch", MPI_T_VERBOSITY_USER_BASIC,
      "A blocking call has waited longer than CHORUS_HANG_TIMEOUT (raised once per wait, when the hang doctor "
      "reports it): seconds waited, the communicator's handle (MPI_COMM_NULL when none), the collective's "
      "sequence number on it (-1: point-to-point), the world rank waited on (-1: any, -2: none), the tag, the "
      "world rank of a rooted collective's root (-1: none) and the requests the call waits on.",
      {{"seconds", MPI_DOUBLE}, {"comm", MPI_INT}, {"sequence", MPI_COUNT}, {"peer", MPI_INT}, {"tag", MPI_INT},
       {"root", MPI_INT}, {"pending", MPI_INT}},
      -1);
}

Catalog build_catalog() {
  Catalog c;
  c.cvars.reserve(params::count());
  for (int i = 0; i < params::count(); ++i) {
    const auto id = static_cast<params::Id>(i);
    const params::Info& row = params::info(id);
    Cvar v{id, std::string(row.doc), MPI_DATATYPE_NULL, -1};
    switch (row.type) {
      case params::Type::Bool: v.type = MPI_INT; break;
      case params::Type::Enum:
        v.type = MPI_INT;
        v.enum_index = static_cast<int>(c.enums.size());
        c.enums.push_back(Enum{std::string(row.env), split_choices(row.choices)});
        break;
      case params::Type::Int: v.type = MPI_COUNT; break;  // signed, 64 bits
      case params::Type::Bytes: v.type = MPI_UNSIGNED_LONG_LONG; break;
      case params::Type::Mask: {
        v.type = MPI_UNSIGNED_LONG_LONG;
        // A tool has no other way to learn what the bits mean.
        const std::vector<std::string> bits = split_choices(row.choices);
        v.desc += " (bit mask:";
        for (std::size_t b = 0; b < bits.size(); ++b)
          v.desc += (b ? ", " : " ") + bits[b] + "=0x" + fmt::format("{:x}", 1ULL << b);
        v.desc += ")";
        break;
      }
      case params::Type::Double: v.type = MPI_DOUBLE; break;
      case params::Type::String: v.type = MPI_CHAR; break;
    }
    c.cvars.push_back(std::move(v));
  }
  // Performance variables: the counters, the algorithms' use counts, the timer.
  for (int i = 0; i < counters::count(); ++i) {
    const auto id = static_cast<counters::Id>(i);
    const counters::Info& row = counters::info(id);
    c.pvars.push_back(Pvar{std::string(row.name), std::string(row.doc),
                           row.cls == counters::Class::Level ? MPI_T_PVAR_CLASS_LEVEL : MPI_T_PVAR_CLASS_COUNTER,
                           Source::Counter, id, nullptr});
  }
  for (int k = 0; k < static_cast<int>(coll::CollKind::Count); ++k) {
    const auto kind = static_cast<coll::CollKind>(k);
    for (const coll::AlgoInfo& a : coll::algorithms(kind)) {
      if (a.kind != kind) continue;
      c.algo_pvar[&a] = static_cast<int>(c.pvars.size());
      c.pvars.push_back(Pvar{fmt::format("coll_{}_{}", coll::kind_name(kind), a.name),
                             fmt::format("{} calls that ran the {} algorithm ({})", coll::kind_name(kind), a.name,
                                         a.doc),
                             MPI_T_PVAR_CLASS_COUNTER, Source::Algorithm, counters::Id::Count, &a});
    }
  }
  c.pvars.push_back(Pvar{"p2p_progress_time",
                         "nanoseconds spent polling for progress (the rings, UCX, queued collectives) while a "
                         "handle of this timer is started; not measured otherwise",
                         MPI_T_PVAR_CLASS_TIMER, Source::ProgressTime, counters::Id::Count, nullptr});
  build_events(c);
  // Categories: the root, then one per subsystem.
  c.categories.push_back(Category{std::string(kCategoryName), std::string(kCategoryDesc), {}, {}, {}, {}});
  for (const auto& [sub, desc] : kSubsystems) {
    c.categories[0].categories.push_back(static_cast<int>(c.categories.size()));
    Category cat{fmt::format("chorus_{}", sub), std::string(desc), {}, {}, {}, {}};
    for (std::size_t i = 0; i < c.events.size(); ++i)
      if (c.events[i].sub == sub) cat.events.push_back(static_cast<int>(i));
    for (std::size_t i = 0; i < c.cvars.size(); ++i)
      if (subsystem_of(params::info(c.cvars[i].id)) == sub) cat.cvars.push_back(static_cast<int>(i));
    for (std::size_t i = 0; i < c.pvars.size(); ++i) {
      const Pvar& v = c.pvars[i];
      const std::string_view pv_sub = v.source == Source::Counter      ? counters::info(v.counter).subsystem
                                      : v.source == Source::Algorithm ? std::string_view("coll")
                                                                      : std::string_view("p2p");
      if (pv_sub == sub) cat.pvars.push_back(static_cast<int>(i));
    }
    c.categories.push_back(std::move(cat));
  }
  return c;
}

const Catalog& catalog() {
  static const Catalog c = build_catalog();
  return c;
}

void on_event(events::Id id, const std::int64_t* values, int n);

constexpr int kCategoryStamp = 0;  // the catalog never changes

constexpr std::string_view kSourceName = "chorus_monotonic_ns";
constexpr std::string_view kSourceDesc =
    "the process's monotonic clock (CLOCK_MONOTONIC), in nanoseconds; never goes back";

// ---- mutable state, guarded by g_mu -------------------------------------------

struct CvarHandle {
  int index;
  int count;  // elements of the cvar's datatype, fixed at allocation
};

struct PvarSession;
struct PvarHandle {
  int index;
  PvarSession* session;
  std::uint64_t base = 0;  // counters: the raw value this handle reads as 0; timers: at start
  std::uint64_t acc = 0;   // timers: time of earlier start-stop intervals
  bool running = false;    // timers only
};
struct PvarSession {
  std::vector<PvarHandle*> handles;  // owned by g_pvar_handles
};

std::mutex g_mu;
int g_depth = 0;  // MPI_T_init_thread calls not yet matched by MPI_T_finalize
std::unordered_map<const void*, std::unique_ptr<CvarHandle>> g_cvar_handles;
std::unordered_map<const void*, std::unique_ptr<PvarSession>> g_sessions;
std::unordered_map<const void*, std::unique_ptr<PvarHandle>> g_pvar_handles;

// Every call but MPI_T_init_thread starts here: holds g_mu for the rest of the
// call and answers MPI_T_ERR_NOT_INITIALIZED outside init_thread/finalize.
#define CHORUS_MPIT_ENTER()                                   \
  std::lock_guard<std::mutex> chorus_mpit_lock_(g_mu);        \
  if (g_depth == 0) return MPI_T_ERR_NOT_INITIALIZED

// ---- helpers ------------------------------------------------------------------

// MPI-4.1 15.3.3: write at most *len - 1 characters and a terminating NUL, and
// set *len to the string's full length + 1. A NULL buffer or *len <= 0 returns
// only the length; a NULL len ignores the buffer.
void put_string(std::string_view s, char* buf, int* len) {
  if (!len) return;
  if (buf && *len > 0) {
    const std::size_t n = std::min(s.size(), static_cast<std::size_t>(*len - 1));
    std::memcpy(buf, s.data(), n);
    buf[n] = '\0';
  }
  *len = static_cast<int>(s.size() + 1);
}

// OUT arguments of the *_get_info calls may be NULL: the standard says such a
// parameter is ignored.
template <typename T>
void put(T* out, T value) {
  if (out) *out = value;
}

// Rows whose readers look again after a change: the log's level and subsystems,
// and CHORUS_COLL_BUSY_SWITCH (read at each call that may leave the window).
bool cvar_writable(params::Id id) {
  return id == params::Id::Debug || id == params::Id::DebugSubsys || id == params::Id::CollBusySwitch;
}

bool cvar_index_ok(int i) { return i >= 0 && i < static_cast<int>(catalog().cvars.size()); }

const Enum* enum_lookup(MPI_T_enum e) {
  for (const Enum& en : catalog().enums)
    if (reinterpret_cast<const void*>(&en) == reinterpret_cast<const void*>(e)) return &en;
  return nullptr;
}

MPI_T_enum enum_handle(int enum_index) {
  if (enum_index < 0) return MPI_T_ENUM_NULL;
  const Enum* en = &catalog().enums[static_cast<std::size_t>(enum_index)];
  return reinterpret_cast<MPI_T_enum>(const_cast<Enum*>(en));
}

CvarHandle* cvar_handle_lookup(MPI_T_cvar_handle h) {
  auto it = g_cvar_handles.find(reinterpret_cast<const void*>(h));
  return it == g_cvar_handles.end() ? nullptr : it->second.get();
}

PvarSession* session_of(MPI_T_pvar_session s) {
  auto it = g_sessions.find(reinterpret_cast<const void*>(s));
  return it == g_sessions.end() ? nullptr : it->second.get();
}

bool pvar_index_ok(int i) { return i >= 0 && i < static_cast<int>(catalog().pvars.size()); }

std::uint64_t raw_value(const Pvar& v) {
  switch (v.source) {
    case Source::Counter: return counters::read(v.counter);
    case Source::Algorithm: return coll::uses(*v.algo);
    case Source::ProgressTime: return counters::g_progress_ns.load(std::memory_order_relaxed);
  }
  return 0;
}

const Pvar& pvar_of(const PvarHandle& h) { return catalog().pvars[static_cast<std::size_t>(h.index)]; }

std::uint64_t handle_value(const PvarHandle& h) {
  const Pvar& v = pvar_of(h);
  if (v.continuous()) return raw_value(v) - h.base;
  return h.acc + (h.running ? raw_value(v) - h.base : 0);
}

void handle_set(PvarHandle& h, std::uint64_t value) {
  const Pvar& v = pvar_of(h);
  if (v.continuous()) {
    h.base = raw_value(v) - value;
  } else {
    h.acc = value;
    h.base = raw_value(v);
  }
}

void handle_start(PvarHandle& h) {
  if (h.running) return;
  h.running = true;
  h.base = raw_value(pvar_of(h));
  counters::timing(true);
}

void handle_stop(PvarHandle& h) {
  if (!h.running) return;
  h.acc += raw_value(pvar_of(h)) - h.base;
  h.running = false;
  counters::timing(false);
}

// The handle `h` names in session `s`, or nullptr.
PvarHandle* pvar_handle_in(PvarSession* s, MPI_T_pvar_handle h) {
  auto it = g_pvar_handles.find(reinterpret_cast<const void*>(h));
  return it == g_pvar_handles.end() || it->second->session != s ? nullptr : it->second.get();
}

void drop_handle(PvarHandle* h) {
  handle_stop(*h);
  g_pvar_handles.erase(h);
}

// start / stop / reset on one handle or, with MPI_T_PVAR_ALL_HANDLES, on every
// handle of the session the operation applies to (MPI-4.1 15.3.7).
template <typename F>
int each_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle, bool (*applies)(const Pvar&), int refusal,
                F&& op) {
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (handle == MPI_T_PVAR_ALL_HANDLES) {
    for (PvarHandle* h : s->handles)
      if (applies(pvar_of(*h))) op(*h);
    return MPI_SUCCESS;
  }
  PvarHandle* h = pvar_handle_in(s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (!applies(pvar_of(*h))) return refusal;
  op(*h);
  return MPI_SUCCESS;
}

// Elements a handle of cvar `index` reads: a string's characters and its NUL.
int cvar_count(int index) {
  const Cvar& v = catalog().cvars[static_cast<std::size_t>(index)];
  if (v.type != MPI_CHAR) return 1;
  return static_cast<int>(params::value(v.id).text.size() + 1);
}

void cvar_read(const CvarHandle& h, void* buf) {
  const Cvar& v = catalog().cvars[static_cast<std::size_t>(h.index)];
  const params::Value& val = params::value(v.id);
  switch (params::info(v.id).type) {
    case params::Type::Bool:
    case params::Type::Enum: {
      const int x = static_cast<int>(val.i);
      std::memcpy(buf, &x, sizeof x);
      return;
    }
    case params::Type::Int: {
      const MPI_Count x = static_cast<MPI_Count>(val.i);
      std::memcpy(buf, &x, sizeof x);
      return;
    }
    case params::Type::Bytes:
    case params::Type::Mask: {
      const auto x = static_cast<unsigned long long>(val.i);
      std::memcpy(buf, &x, sizeof x);
      return;
    }
    case params::Type::Double:
      std::memcpy(buf, &val.d, sizeof val.d);
      return;
    case params::Type::String: {
      // The count was fixed at allocation: never write past it.
      const std::size_t n = std::min(val.text.size(), static_cast<std::size_t>(h.count - 1));
      std::memcpy(buf, val.text.data(), n);
      static_cast<char*>(buf)[n] = '\0';
      return;
    }
  }
}

bool category_index_ok(int i) { return i >= 0 && i < static_cast<int>(catalog().categories.size()); }

// Up to `len` of a category's members (one of its lists), in order.
int category_list(int cat_index, int len, int indices[], std::vector<int> Category::*members) {
  if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  if (len < 0 || (len > 0 && !indices)) return MPI_T_ERR_INVALID;
  const std::vector<int>& m = catalog().categories[static_cast<std::size_t>(cat_index)].*members;
  for (int i = 0; i < std::min(len, static_cast<int>(m.size())); ++i) indices[i] = m[static_cast<std::size_t>(i)];
  return MPI_SUCCESS;
}

bool cb_safety_ok(MPI_T_cb_safety s) {
  const int v = static_cast<int>(s);
  return v >= MPI_T_CB_REQUIRE_NONE && v <= MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
}

MPI_Count now_ns() {
  return static_cast<MPI_Count>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                    std::chrono::steady_clock::now().time_since_epoch())
                                    .count());
}

// ---- events: registrations, instances, delivery -------------------------------

constexpr std::uint32_t kInstanceMagic = 0x43455654;  // "CEVT"
constexpr std::size_t kEventBytes = events::kMaxValues * 8;
// Instances kept for a registration's MPI_T_CB_REQUIRE_NONE callback until it
// can run; more are counted as dropped.
constexpr std::size_t kPendingMax = 1024;
constexpr int kLevels = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE + 1;

struct EventInstance {
  std::uint32_t magic = kInstanceMagic;
  int type = 0;
  MPI_Count timestamp = 0;
  alignas(8) unsigned char data[kEventBytes] = {};
};

// The free callback of MPI_T_event_handle_free runs when the last holder lets
// go: at once, or after a callback that runs in another thread returns.
struct Registration {
  int type;
  MPI_T_event_cb_function* cb[kLevels] = {};
  void* user_data[kLevels] = {};
  MPI_T_event_dropped_cb_function* dropped_cb = nullptr;
  std::uint64_t dropped = 0;           // lost since the dropped handler last heard
  std::deque<EventInstance> pending;   // for cb[MPI_T_CB_REQUIRE_NONE]
  MPI_T_event_free_cb_function* free_cb = nullptr;
  void* free_data = nullptr;
  explicit Registration(int t) : type(t) {}
  Registration(const Registration&) = delete;
  Registration& operator=(const Registration&) = delete;
  ~Registration();
  bool any_callback() const {
    return std::any_of(std::begin(cb), std::end(cb), [](auto* f) { return f != nullptr; });
  }
  // The callback for a context of `level`: the lowest registered at or above it.
  int level_for(int level) const {
    for (int l = level; l < kLevels; ++l)
      if (cb[l]) return l;
    return -1;
  }
  MPI_T_event_registration handle() { return reinterpret_cast<MPI_T_event_registration>(this); }
};

// The safety level of what this thread runs now: MPI_T_CB_REQUIRE_MPI_RESTRICTED
// while it delivers at once inside the MPI call that raised an event.
thread_local MPI_T_cb_safety t_level = MPI_T_CB_REQUIRE_NONE;

Registration::~Registration() {
  if (free_cb) free_cb(handle(), t_level, free_data);
}

// The instances this thread is handing to callbacks now (innermost first): an
// instance handle is valid only there.
struct Delivering {
  const EventInstance* inst;
  Delivering* outer;
};
thread_local Delivering* t_delivering = nullptr;

std::unordered_map<const void*, std::shared_ptr<Registration>> g_regs;  // guarded by g_mu
std::recursive_mutex g_dispatch_mu;      // callbacks at once: one at a time
std::atomic_flag g_deferred_busy = ATOMIC_FLAG_INIT;  // a thread hands out pending instances

Registration* registration_of(MPI_T_event_registration h) {
  auto it = g_regs.find(reinterpret_cast<const void*>(h));
  return it == g_regs.end() ? nullptr : it->second.get();
}

// How many registrations of each type have a callback (core/events.h's armed()).
void rearm() {
  int n[static_cast<int>(events::Id::Count)] = {};
  for (const auto& [key, r] : g_regs)
    if (r->any_callback()) ++n[r->type];
  for (int t = 0; t < static_cast<int>(events::Id::Count); ++t)
    events::g_armed[t].store(n[t], std::memory_order_relaxed);
}

const EventInstance* instance_of(MPI_T_event_instance h) {
  for (const Delivering* d = t_delivering; d; d = d->outer)
    if (reinterpret_cast<const void*>(d->inst) == reinterpret_cast<const void*>(h) &&
        d->inst->magic == kInstanceMagic)
      return d->inst;
  return nullptr;
}

void run_callback(Registration& r, MPI_T_event_cb_function* cb, void* user_data, const EventInstance& inst,
                  MPI_T_cb_safety context) {
  Delivering d{&inst, t_delivering};
  t_delivering = &d;
  cb(reinterpret_cast<MPI_T_event_instance>(const_cast<EventInstance*>(&inst)), r.handle(), context, user_data);
  t_delivering = d.outer;
}

// Hand the instances kept for MPI_T_CB_REQUIRE_NONE callbacks to them, with the
// losses first (mpit_deliver_events says where). One thread at a time, never
// inside a callback or on the stream agent's thread; a callback may call any MPI
// function, this included (it then returns at once). Each call's function and
// user data are read under g_mu just before it: one removed meanwhile is not
// called, and one being called when its handle is freed finishes first (the
// batch holds the registration; its free callback runs after).
void deliver_pending() {
  if (t_delivering || t_level != MPI_T_CB_REQUIRE_NONE || gpu::agent::on_agent_thread()) return;
  if (g_deferred_busy.test_and_set(std::memory_order_acquire)) return;
  struct Batch {
    std::shared_ptr<Registration> reg;
    std::uint64_t dropped;
    std::deque<EventInstance> items;
  };
  std::vector<Batch> batches;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    g_mpit_pending.store(false, std::memory_order_relaxed);
    for (auto& [key, r] : g_regs) {
      if (r->pending.empty() && !r->dropped) continue;
      batches.push_back(Batch{r, r->dropped, std::move(r->pending)});
      r->pending.clear();
      r->dropped = 0;
    }
  }
  for (Batch& b : batches) {
    Registration& r = *b.reg;
    if (b.dropped) {
      MPI_T_event_dropped_cb_function* dropped;
      void* ud;
      {
        std::lock_guard<std::mutex> lock(g_mu);
        dropped = r.dropped_cb;
        ud = r.user_data[MPI_T_CB_REQUIRE_NONE];
      }
      if (dropped) dropped(static_cast<MPI_Count>(b.dropped), r.handle(), 0, MPI_T_CB_REQUIRE_NONE, ud);
    }
    for (const EventInstance& inst : b.items) {
      MPI_T_event_cb_function* cb;
      void* ud;
      {
        std::lock_guard<std::mutex> lock(g_mu);
        cb = r.cb[MPI_T_CB_REQUIRE_NONE];
        ud = r.user_data[MPI_T_CB_REQUIRE_NONE];
      }
      if (!cb) break;  // removed meanwhile
      run_callback(r, cb, ud, inst, MPI_T_CB_REQUIRE_NONE);
    }
  }
  batches.clear();  // a freed registration's free callback runs here, at level NONE
  g_deferred_busy.clear(std::memory_order_release);
}

// core/events.h's sink: lay the values out, timestamp them, and run or keep
// each registration's callback.
void on_event(events::Id id, const std::int64_t* values, int n) {
  const Catalog& cat = catalog();
  const auto type = static_cast<int>(id);
  const EventType& t = cat.events[static_cast<std::size_t>(type)];
  EventInstance inst;
  inst.type = type;
  inst.timestamp = now_ns();
  for (std::size_t i = 0; i < t.elems.size() && i < static_cast<std::size_t>(n); ++i) {
    std::int64_t v = values[i];
    if (id == events::Id::CollAlgorithm && t.elems[i].name == "algorithm_pvar") {
      auto it = cat.algo_pvar.find(reinterpret_cast<const void*>(static_cast<std::intptr_t>(v)));
      v = it == cat.algo_pvar.end() ? -1 : it->second;
    }
    unsigned char* at = inst.data + t.elems[i].disp;
    if (t.elems[i].type == MPI_INT) {
      const auto x = static_cast<int>(v);
      std::memcpy(at, &x, sizeof x);
    } else {  // MPI_COUNT, or MPI_DOUBLE's bits
      std::memcpy(at, &v, sizeof v);
    }
  }
  struct Call {
    std::shared_ptr<Registration> reg;  // its free callback waits for this call
    MPI_T_event_cb_function* cb;
    void* user_data;
  };
  std::vector<Call> now;
  {
    std::lock_guard<std::mutex> lock(g_mu);
    for (auto& [key, r] : g_regs) {
      if (r->type != type) continue;
      if (const int l = r->level_for(MPI_T_CB_REQUIRE_MPI_RESTRICTED); l >= 0) {
        now.push_back(Call{r, r->cb[l], r->user_data[l]});
      } else if (r->cb[MPI_T_CB_REQUIRE_NONE]) {
        if (r->pending.size() < kPendingMax) r->pending.push_back(inst);
        else ++r->dropped;
        g_mpit_pending.store(true, std::memory_order_release);
      }
    }
  }
  if (now.empty()) return;
  std::lock_guard<std::recursive_mutex> one_at_a_time(g_dispatch_mu);
  const MPI_T_cb_safety outer = t_level;
  t_level = MPI_T_CB_REQUIRE_MPI_RESTRICTED;
  for (Call& c : now) run_callback(*c.reg, c.cb, c.user_data, inst, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  now.clear();  // a registration freed meanwhile: its free callback runs here
  t_level = outer;
}

// The *_get_info calls of a registration: check it (and its callback at
// `level`, when one is asked for) under g_mu, then make an empty info outside.
int registration_info(MPI_T_event_registration event_registration, int level, MPI_Info* info_used) {
  {
    CHORUS_MPIT_ENTER();
    Registration* r = registration_of(event_registration);
    if (!r) return MPI_T_ERR_INVALID_HANDLE;
    if (level >= 0 && (!cb_safety_ok(static_cast<MPI_T_cb_safety>(level)) || !r->cb[level]))
      return MPI_T_ERR_INVALID;
    if (!info_used) return MPI_T_ERR_INVALID;
  }
  if (PMPI_Info_create(info_used) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}

bool event_index_ok(int i) { return i >= 0 && i < static_cast<int>(catalog().events.size()); }

}  // namespace
}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

// ---- set-up and tear-down ---------------------------------------------------

int PMPI_T_init_thread(int required, int* provided) {
  if (!provided) return MPI_T_ERR_INVALID;
  if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE) return MPI_T_ERR_INVALID;
  catalog();  // built outside the lock, once
  events::set_sink(on_event);
  std::lock_guard<std::mutex> lock(g_mu);
  if (g_depth == std::numeric_limits<int>::max()) return MPI_T_ERR_CANNOT_INIT;
  ++g_depth;
  // Every MPI_T call takes g_mu: any level is supported, so the one asked for.
  *provided = required;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_init_thread)

int PMPI_T_finalize(void) {
  decltype(g_regs) regs;  // let go of outside the lock
  {
    CHORUS_MPIT_ENTER();
    if (--g_depth == 0) {
      g_cvar_handles.clear();
      for (auto& [key, h] : g_pvar_handles) handle_stop(*h);
      g_pvar_handles.clear();
      g_sessions.clear();
      regs.swap(g_regs);
      rearm();
    }
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_finalize)

// ---- enumerations -----------------------------------------------------------

int PMPI_T_enum_get_info(MPI_T_enum enumtype, int* num, char* name, int* name_len) {
  CHORUS_MPIT_ENTER();
  const Enum* en = enum_lookup(enumtype);
  if (!en) return MPI_T_ERR_INVALID_HANDLE;
  if (!num) return MPI_T_ERR_INVALID;
  *num = static_cast<int>(en->items.size());
  put_string(en->name, name, name_len);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_enum_get_info)

int PMPI_T_enum_get_item(MPI_T_enum enumtype, int indx, int* value, char* name, int* name_len) {
  CHORUS_MPIT_ENTER();
  const Enum* en = enum_lookup(enumtype);
  if (!en) return MPI_T_ERR_INVALID_HANDLE;
  if (indx < 0 || indx >= static_cast<int>(en->items.size())) return MPI_T_ERR_INVALID_INDEX;
  if (!value) return MPI_T_ERR_INVALID;
  *value = indx;
  put_string(en->items[static_cast<std::size_t>(indx)], name, name_len);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_enum_get_item)

// ---- control variables ------------------------------------------------------

int PMPI_T_cvar_get_num(int* num_cvar) {
  CHORUS_MPIT_ENTER();
  if (!num_cvar) return MPI_T_ERR_INVALID;
  *num_cvar = static_cast<int>(catalog().cvars.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_get_num)

int PMPI_T_cvar_get_info(int cvar_index, char* name, int* name_len, int* verbosity, MPI_Datatype* datatype,
                         MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind, int* scope) {
  CHORUS_MPIT_ENTER();
  if (!cvar_index_ok(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
  const Cvar& v = catalog().cvars[static_cast<std::size_t>(cvar_index)];
  put_string(params::info(v.id).env, name, name_len);
  put(verbosity, MPI_T_VERBOSITY_USER_BASIC);
  put(datatype, v.type);
  put(enumtype, enum_handle(v.enum_index));
  put_string(v.desc, desc, desc_len);
  put(bind, MPI_T_BIND_NO_OBJECT);
  put(scope, cvar_writable(v.id) ? MPI_T_SCOPE_LOCAL : MPI_T_SCOPE_READONLY);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_get_info)

int PMPI_T_cvar_get_index(const char* name, int* cvar_index) {
  CHORUS_MPIT_ENTER();
  if (!name || !cvar_index) return MPI_T_ERR_INVALID;
  const std::vector<Cvar>& cvars = catalog().cvars;
  for (std::size_t i = 0; i < cvars.size(); ++i) {
    if (params::info(cvars[i].id).env == name) {
      *cvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
CHORUS_ALIAS(MPI_T_cvar_get_index)

// Every cvar is bound to no object: obj_handle is ignored.
int PMPI_T_cvar_handle_alloc(int cvar_index, void* /*obj_handle*/, MPI_T_cvar_handle* handle, int* count) {
  CHORUS_MPIT_ENTER();
  if (!cvar_index_ok(cvar_index)) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  auto h = std::make_unique<CvarHandle>(CvarHandle{cvar_index, cvar_count(cvar_index)});
  const void* key = h.get();
  *count = h->count;
  g_cvar_handles.emplace(key, std::move(h));
  *handle = reinterpret_cast<MPI_T_cvar_handle>(const_cast<void*>(key));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_handle_alloc)

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle* handle) {
  CHORUS_MPIT_ENTER();
  if (!handle) return MPI_T_ERR_INVALID;
  if (!g_cvar_handles.erase(reinterpret_cast<const void*>(*handle))) return MPI_T_ERR_INVALID_HANDLE;
  *handle = MPI_T_CVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_handle_free)

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void* buf) {
  CHORUS_MPIT_ENTER();
  const CvarHandle* h = cvar_handle_lookup(handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  cvar_read(*h, buf);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_read)

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void* buf) {
  CHORUS_MPIT_ENTER();
  const CvarHandle* h = cvar_handle_lookup(handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (!buf) return MPI_T_ERR_INVALID;
  const Cvar& v = catalog().cvars[static_cast<std::size_t>(h->index)];
  // The other parameters are read from the environment once, before anything uses them.
  if (!cvar_writable(v.id)) return MPI_T_ERR_CVAR_SET_NEVER;
  // The log reads a level past TRACE as TRACE and ignores mask bits past its
  // subsystems; a negative level is no level.
  long long number;
  if (params::info(v.id).type == params::Type::Enum) {
    int x;
    std::memcpy(&x, buf, sizeof x);
    if (x < 0) return MPI_T_ERR_INVALID;
    number = x;
  } else {  // Mask
    unsigned long long bits;
    std::memcpy(&bits, buf, sizeof bits);
    number = static_cast<long long>(bits);
  }
  params::set_number(v.id, number);
  log::reapply_level();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_cvar_write)

// ---- performance variables and sessions -------------------------------------

int PMPI_T_pvar_get_num(int* num_pvar) {
  CHORUS_MPIT_ENTER();
  if (!num_pvar) return MPI_T_ERR_INVALID;
  *num_pvar = static_cast<int>(catalog().pvars.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_get_num)

int PMPI_T_pvar_get_info(int pvar_index, char* name, int* name_len, int* verbosity, int* var_class,
                         MPI_Datatype* datatype, MPI_T_enum* enumtype, char* desc, int* desc_len, int* bind,
                         int* readonly, int* continuous, int* atomic) {
  CHORUS_MPIT_ENTER();
  if (!pvar_index_ok(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
  const Pvar& v = catalog().pvars[static_cast<std::size_t>(pvar_index)];
  put_string(v.name, name, name_len);
  put(verbosity, MPI_T_VERBOSITY_USER_BASIC);
  put(var_class, v.cls);
  put(datatype, MPI_UNSIGNED_LONG_LONG);
  put(enumtype, MPI_T_ENUM_NULL);
  put_string(v.desc, desc, desc_len);
  put(bind, MPI_T_BIND_NO_OBJECT);
  put(readonly, v.readonly() ? 1 : 0);
  put(continuous, v.continuous() ? 1 : 0);
  put(atomic, 0);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_get_info)

int PMPI_T_pvar_get_index(const char* name, int var_class, int* pvar_index) {
  CHORUS_MPIT_ENTER();
  if (!name || !pvar_index) return MPI_T_ERR_INVALID;
  const std::vector<Pvar>& pvars = catalog().pvars;
  for (std::size_t i = 0; i < pvars.size(); ++i) {
    if (pvars[i].name == name && pvars[i].cls == var_class) {
      *pvar_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
CHORUS_ALIAS(MPI_T_pvar_get_index)

int PMPI_T_pvar_session_create(MPI_T_pvar_session* session) {
  CHORUS_MPIT_ENTER();
  if (!session) return MPI_T_ERR_INVALID;
  auto s = std::make_unique<PvarSession>();
  const void* key = s.get();
  g_sessions.emplace(key, std::move(s));
  *session = reinterpret_cast<MPI_T_pvar_session>(const_cast<void*>(key));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_session_create)

int PMPI_T_pvar_session_free(MPI_T_pvar_session* session) {
  CHORUS_MPIT_ENTER();
  if (!session) return MPI_T_ERR_INVALID;
  PvarSession* s = session_of(*session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  for (PvarHandle* h : s->handles) drop_handle(h);
  g_sessions.erase(s);
  *session = MPI_T_PVAR_SESSION_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_session_free)

// Every variable is bound to no object: obj_handle is ignored, and count is 1.
int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void* /*obj_handle*/,
                             MPI_T_pvar_handle* handle, int* count) {
  CHORUS_MPIT_ENTER();
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!pvar_index_ok(pvar_index)) return MPI_T_ERR_INVALID_INDEX;
  if (!handle || !count) return MPI_T_ERR_INVALID;
  auto h = std::make_unique<PvarHandle>(PvarHandle{pvar_index, s});
  // A counter reads from its value at allocation; a level reads the level.
  if (pvar_of(*h).cls == MPI_T_PVAR_CLASS_COUNTER) h->base = raw_value(pvar_of(*h));
  PvarHandle* key = h.get();
  s->handles.push_back(key);
  g_pvar_handles.emplace(key, std::move(h));
  *count = 1;
  *handle = reinterpret_cast<MPI_T_pvar_handle>(key);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_handle_alloc)

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle* handle) {
  CHORUS_MPIT_ENTER();
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!handle) return MPI_T_ERR_INVALID;
  PvarHandle* h = pvar_handle_in(s, *handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  std::erase(s->handles, h);
  drop_handle(h);
  *handle = MPI_T_PVAR_HANDLE_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_handle_free)

// Continuous variables (every one but the timer) always run: starting or
// stopping one is MPI_T_ERR_PVAR_NO_STARTSTOP, and MPI_T_PVAR_ALL_HANDLES skips them.
int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  CHORUS_MPIT_ENTER();
  return each_handle(session, handle, [](const Pvar& v) { return !v.continuous(); }, MPI_T_ERR_PVAR_NO_STARTSTOP,
                     handle_start);
}
CHORUS_ALIAS(MPI_T_pvar_start)

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  CHORUS_MPIT_ENTER();
  return each_handle(session, handle, [](const Pvar& v) { return !v.continuous(); }, MPI_T_ERR_PVAR_NO_STARTSTOP,
                     handle_stop);
}
CHORUS_ALIAS(MPI_T_pvar_stop)

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle) {
  CHORUS_MPIT_ENTER();
  return each_handle(session, handle, [](const Pvar& v) { return !v.readonly(); }, MPI_T_ERR_PVAR_NO_WRITE,
                     [](PvarHandle& h) { handle_set(h, 0); });
}
CHORUS_ALIAS(MPI_T_pvar_reset)

// read, readreset and write name one handle: MPI_T_PVAR_ALL_HANDLES is invalid.
int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  CHORUS_MPIT_ENTER();
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!buf) return MPI_T_ERR_INVALID;
  PvarHandle* h = pvar_handle_in(s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  const auto v = static_cast<unsigned long long>(handle_value(*h));
  std::memcpy(buf, &v, sizeof v);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_read)

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void* buf) {
  CHORUS_MPIT_ENTER();
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!buf) return MPI_T_ERR_INVALID;
  PvarHandle* h = pvar_handle_in(s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (pvar_of(*h).readonly()) return MPI_T_ERR_PVAR_NO_WRITE;
  const auto v = static_cast<unsigned long long>(handle_value(*h));
  std::memcpy(buf, &v, sizeof v);
  handle_set(*h, 0);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_readreset)

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void* buf) {
  CHORUS_MPIT_ENTER();
  PvarSession* s = session_of(session);
  if (!s) return MPI_T_ERR_INVALID_SESSION;
  if (!buf) return MPI_T_ERR_INVALID;
  PvarHandle* h = pvar_handle_in(s, handle);
  if (!h) return MPI_T_ERR_INVALID_HANDLE;
  if (pvar_of(*h).readonly()) return MPI_T_ERR_PVAR_NO_WRITE;
  unsigned long long v;
  std::memcpy(&v, buf, sizeof v);
  handle_set(*h, v);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_pvar_write)

// ---- categories -------------------------------------------------------------

int PMPI_T_category_get_num(int* num_cat) {
  CHORUS_MPIT_ENTER();
  if (!num_cat) return MPI_T_ERR_INVALID;
  *num_cat = static_cast<int>(catalog().categories.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_category_get_num)

int PMPI_T_category_get_info(int cat_index, char* name, int* name_len, char* desc, int* desc_len, int* num_cvars,
                             int* num_pvars, int* num_categories) {
  CHORUS_MPIT_ENTER();
  if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  const Category& c = catalog().categories[static_cast<std::size_t>(cat_index)];
  put_string(c.name, name, name_len);
  put_string(c.desc, desc, desc_len);
  put(num_cvars, static_cast<int>(c.cvars.size()));
  put(num_pvars, static_cast<int>(c.pvars.size()));
  put(num_categories, static_cast<int>(c.categories.size()));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_category_get_info)

int PMPI_T_category_get_index(const char* name, int* cat_index) {
  CHORUS_MPIT_ENTER();
  if (!name || !cat_index) return MPI_T_ERR_INVALID;
  const std::vector<Category>& cats = catalog().categories;
  for (std::size_t i = 0; i < cats.size(); ++i) {
    if (cats[i].name == name) {
      *cat_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
CHORUS_ALIAS(MPI_T_category_get_index)

int PMPI_T_category_get_cvars(int cat_index, int len, int indices[]) {
  CHORUS_MPIT_ENTER();
  return category_list(cat_index, len, indices, &Category::cvars);
}
CHORUS_ALIAS(MPI_T_category_get_cvars)

int PMPI_T_category_get_pvars(int cat_index, int len, int indices[]) {
  CHORUS_MPIT_ENTER();
  return category_list(cat_index, len, indices, &Category::pvars);
}
CHORUS_ALIAS(MPI_T_category_get_pvars)

int PMPI_T_category_get_categories(int cat_index, int len, int indices[]) {
  CHORUS_MPIT_ENTER();
  return category_list(cat_index, len, indices, &Category::categories);
}
CHORUS_ALIAS(MPI_T_category_get_categories)

int PMPI_T_category_get_num_events(int cat_index, int* num_events) {
  CHORUS_MPIT_ENTER();
  if (!category_index_ok(cat_index)) return MPI_T_ERR_INVALID_INDEX;
  if (!num_events) return MPI_T_ERR_INVALID;
  *num_events = static_cast<int>(catalog().categories[static_cast<std::size_t>(cat_index)].events.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_category_get_num_events)

int PMPI_T_category_get_events(int cat_index, int len, int indices[]) {
  CHORUS_MPIT_ENTER();
  return category_list(cat_index, len, indices, &Category::events);
}
CHORUS_ALIAS(MPI_T_category_get_events)

int PMPI_T_category_changed(int* update_number) {
  CHORUS_MPIT_ENTER();
  if (!update_number) return MPI_T_ERR_INVALID;
  *update_number = kCategoryStamp;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_category_changed)

// ---- event sources ----------------------------------------------------------

int PMPI_T_source_get_num(int* num_sources) {
  CHORUS_MPIT_ENTER();
  if (!num_sources) return MPI_T_ERR_INVALID;
  *num_sources = 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_source_get_num)

int PMPI_T_source_get_info(int source_index, char* name, int* name_len, char* desc, int* desc_len,
                           MPI_T_source_order* ordering, MPI_Count* ticks_per_second, MPI_Count* max_ticks,
                           MPI_Info* info) {
  {
    CHORUS_MPIT_ENTER();
    if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
    put_string(kSourceName, name, name_len);
    put_string(kSourceDesc, desc, desc_len);
    put(ordering, MPI_T_SOURCE_ORDERED);
    put(ticks_per_second, MPI_Count{1000000000});
    put(max_ticks, std::numeric_limits<MPI_Count>::max());
  }
  // The source has no further properties: an empty info the caller frees.
  // Created outside g_mu, as the info calls take the library's own lock.
  if (info && PMPI_Info_create(info) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_source_get_info)

int PMPI_T_source_get_timestamp(int source_index, MPI_Count* timestamp) {
  CHORUS_MPIT_ENTER();
  if (source_index != 0) return MPI_T_ERR_INVALID_INDEX;
  if (!timestamp) return MPI_T_ERR_INVALID;
  *timestamp = now_ns();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_source_get_timestamp)

// ---- events -------------------------------------------------------------------

int PMPI_T_event_get_num(int* num_events) {
  CHORUS_MPIT_ENTER();
  if (!num_events) return MPI_T_ERR_INVALID;
  *num_events = static_cast<int>(catalog().events.size());
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_get_num)

// num_elements: in, the length of the two arrays (NULL arrays: none); out, the
// event's element count.
int PMPI_T_event_get_info(int event_index, char* name, int* name_len, int* verbosity,
                          MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int* num_elements,
                          MPI_T_enum* enumtype, MPI_Info* info, char* desc, int* desc_len, int* bind) {
  {
    CHORUS_MPIT_ENTER();
    if (!event_index_ok(event_index)) return MPI_T_ERR_INVALID_INDEX;
    const EventType& t = catalog().events[static_cast<std::size_t>(event_index)];
    put_string(t.name, name, name_len);
    put(verbosity, t.verbosity);
    if (num_elements) {
      const int n = static_cast<int>(t.elems.size());
      for (int i = 0; i < std::min(*num_elements, n); ++i) {
        if (array_of_datatypes) array_of_datatypes[i] = t.elems[static_cast<std::size_t>(i)].type;
        if (array_of_displacements) array_of_displacements[i] = t.elems[static_cast<std::size_t>(i)].disp;
      }
      *num_elements = n;
    }
    put(enumtype, enum_handle(t.enum_index));
    put_string(t.desc, desc, desc_len);
    put(bind, MPI_T_BIND_NO_OBJECT);
  }
  // No hints: an empty info the caller frees, made outside g_mu (the info calls
  // take the library's own lock).
  if (info && PMPI_Info_create(info) != MPI_SUCCESS) return MPI_T_ERR_MEMORY;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_get_info)

int PMPI_T_event_get_index(const char* name, int* event_index) {
  CHORUS_MPIT_ENTER();
  if (!name || !event_index) return MPI_T_ERR_INVALID;
  const std::vector<EventType>& ev = catalog().events;
  for (std::size_t i = 0; i < ev.size(); ++i) {
    if (ev[i].name == name) {
      *event_index = static_cast<int>(i);
      return MPI_SUCCESS;
    }
  }
  return MPI_T_ERR_INVALID_NAME;
}
CHORUS_ALIAS(MPI_T_event_get_index)

// Every event type is bound to no object: obj_handle is ignored, and so are the
// info's hints (Chorus knows none).
int PMPI_T_event_handle_alloc(int event_index, void* /*obj_handle*/, MPI_Info /*info*/,
                              MPI_T_event_registration* event_registration) {
  CHORUS_MPIT_ENTER();
  if (!event_index_ok(event_index)) return MPI_T_ERR_INVALID_INDEX;
  if (!event_registration) return MPI_T_ERR_INVALID;
  auto r = std::make_shared<Registration>(event_index);
  *event_registration = r->handle();
  g_regs.emplace(r.get(), std::move(r));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_handle_alloc)

// No callback of the registration runs once this returns, but one already
// running in another thread finishes; free_cb_function runs after the last one.
int PMPI_T_event_handle_free(MPI_T_event_registration event_registration, void* user_data,
                             MPI_T_event_free_cb_function free_cb_function) {
  std::shared_ptr<Registration> r;  // let go of outside the lock
  {
    CHORUS_MPIT_ENTER();
    auto it = g_regs.find(reinterpret_cast<const void*>(event_registration));
    if (it == g_regs.end()) return MPI_T_ERR_INVALID_HANDLE;
    r = std::move(it->second);
    g_regs.erase(it);
    std::fill(std::begin(r->cb), std::end(r->cb), nullptr);
    r->dropped_cb = nullptr;
    r->pending.clear();
    r->free_cb = free_cb_function;
    r->free_data = user_data;
    rearm();
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_handle_free)


int PMPI_T_event_handle_set_info(MPI_T_event_registration event_registration, MPI_Info /*info*/) {
  CHORUS_MPIT_ENTER();
  return registration_of(event_registration) ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
}
CHORUS_ALIAS(MPI_T_event_handle_set_info)

// One callback per safety level; a NULL function removes the level's callback.
int PMPI_T_event_register_callback(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info /*info*/, void* user_data, MPI_T_event_cb_function event_cb_function) {
  {
    CHORUS_MPIT_ENTER();
    Registration* r = registration_of(event_registration);
    if (!r) return MPI_T_ERR_INVALID_HANDLE;
    if (!cb_safety_ok(cb_safety)) return MPI_T_ERR_INVALID;
    r->cb[cb_safety] = event_cb_function;
    r->user_data[cb_safety] = event_cb_function ? user_data : nullptr;
    if (!r->cb[MPI_T_CB_REQUIRE_NONE] && !r->pending.empty()) {
      // Kept for a callback that is gone: lost, and the dropped handler hears so.
      r->dropped += r->pending.size();
      r->pending.clear();
      g_mpit_pending.store(true, std::memory_order_release);
    }
    rearm();
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_register_callback)

int PMPI_T_event_callback_set_info(MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety,
                                   MPI_Info /*info*/) {
  CHORUS_MPIT_ENTER();
  Registration* r = registration_of(event_registration);
  if (!r) return MPI_T_ERR_INVALID_HANDLE;
  if (!cb_safety_ok(cb_safety) || !r->cb[cb_safety]) return MPI_T_ERR_INVALID;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_callback_set_info)

int PMPI_T_event_set_dropped_handler(MPI_T_event_registration event_registration,
                                     MPI_T_event_dropped_cb_function dropped_cb_function) {
  CHORUS_MPIT_ENTER();
  Registration* r = registration_of(event_registration);
  if (!r) return MPI_T_ERR_INVALID_HANDLE;
  r->dropped_cb = dropped_cb_function;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_set_dropped_handler)

// The instance calls are valid only inside a callback given that instance.
int PMPI_T_event_read(MPI_T_event_instance event_instance, int element_index, void* buffer) {
  CHORUS_MPIT_ENTER();
  if (!buffer) return MPI_T_ERR_INVALID;
  const EventInstance* inst = instance_of(event_instance);
  if (!inst) return MPI_T_ERR_INVALID_HANDLE;
  const EventType& t = catalog().events[static_cast<std::size_t>(inst->type)];
  if (element_index < 0 || element_index >= static_cast<int>(t.elems.size())) return MPI_T_ERR_INVALID_INDEX;
  const EventElem& e = t.elems[static_cast<std::size_t>(element_index)];
  std::memcpy(buffer, inst->data + e.disp, e.type == MPI_INT ? 4 : 8);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_read)

int PMPI_T_event_copy(MPI_T_event_instance event_instance, void* buffer) {
  CHORUS_MPIT_ENTER();
  if (!buffer) return MPI_T_ERR_INVALID;
  const EventInstance* inst = instance_of(event_instance);
  if (!inst) return MPI_T_ERR_INVALID_HANDLE;
  std::memcpy(buffer, inst->data, catalog().events[static_cast<std::size_t>(inst->type)].bytes);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_copy)

int PMPI_T_event_get_timestamp(MPI_T_event_instance event_instance, MPI_Count* event_timestamp) {
  CHORUS_MPIT_ENTER();
  if (!event_timestamp) return MPI_T_ERR_INVALID;
  const EventInstance* inst = instance_of(event_instance);
  if (!inst) return MPI_T_ERR_INVALID_HANDLE;
  *event_timestamp = inst->timestamp;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_get_timestamp)

int PMPI_T_event_get_source(MPI_T_event_instance event_instance, int* source_index) {
  CHORUS_MPIT_ENTER();
  if (!source_index) return MPI_T_ERR_INVALID;
  if (!instance_of(event_instance)) return MPI_T_ERR_INVALID_HANDLE;
  *source_index = 0;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_T_event_get_source)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "mpit_forward.inc"

}  // extern "C"

namespace chorus::mpi {
std::atomic<bool> g_mpit_pending{false};  // some registration holds pending instances
void mpit_deliver_pending() { deliver_pending(); }
}  // namespace chorus::mpi
