// MPI-4 sessions. A session handle is make(Direct, Session, slot). The first
// MPI_Session_init brings the runtime up when MPI_Init has not (init.cc,
// runtime_acquire); the last of MPI_Finalize / MPI_Session_finalize takes it down.
//
// Process sets: "mpi://WORLD" (every process of the job) and "mpi://SELF".
// MPI_Comm_create_from_group is collective over the group only; it agrees on a
// context id over an exchange context hashed from the string tag and the members
// (comm.cc, exchange_open).
//
// Error handlers: a session's errhandler is raised through a stand-in
// communicator whose handle is the session handle (the handler receives it as
// its first argument). The session holds a reference on a user errhandler until
// MPI_Session_finalize, so MPI_Errhandler_free right after MPI_Session_init is safe.
#include <strings.h>

#include <algorithm>

#include <cstring>
#include <memory>

#include "core/handle.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

struct Session {
  // Never reused (handles are), so a communicator that outlives its session never
  // finds a later session's buffer.
  std::uint64_t serial = 0;
  MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
  InfoPairs info;
  int thread_level = MPI_THREAD_SINGLE;
};
std::vector<std::unique_ptr<Session>> g_sessions;

const char* const kPsets[] = {"mpi://WORLD", "mpi://SELF"};
constexpr int kNumPsets = 2;

Session* lookup(MPI_Session s) {
  int h = static_cast<int>(s);
  if (!handle::is(h, handle::Direct, handle::Session)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(h));
  return i < g_sessions.size() ? g_sessions[i].get() : nullptr;
}

int check_session(const char* call, MPI_Session s, Session** out) {
  if (g_phase != Phase::Running || !(*out = lookup(s))) {
    if (s == MPI_SESSION_NULL) return fail(nullptr, MPI_ERR_SESSION, "{}: session is MPI_SESSION_NULL", call);
    return fail(nullptr, MPI_ERR_SESSION, "{}: invalid session handle 0x{:x}", call, static_cast<unsigned>(s));
  }
  return MPI_SUCCESS;
}

// Raise an error on the session's handler.
Comm stand_in(MPI_Session h, const Session& s) {
  Comm c;
  c.handle = static_cast<MPI_Comm>(h);
  c.errhandler = s.errhandler;
  c.temporary = true;
  return c;
}

template <typename... Args>
int sfail(MPI_Session h, const Session& s, int cls, fmt::format_string<Args...> f, Args&&... args) {
  Comm c = stand_in(h, s);
  return fail(&c, cls, f, std::forward<Args>(args)...);
}


int level_from(const InfoPairs& info) {
  const std::string* v = info_find(info, "thread_level");
  if (!v) return MPI_THREAD_SINGLE;
  if (*v == "MPI_THREAD_MULTIPLE") return MPI_THREAD_MULTIPLE;
  if (*v == "MPI_THREAD_SERIALIZED") return MPI_THREAD_SERIALIZED;
  if (*v == "MPI_THREAD_FUNNELED") return MPI_THREAD_FUNNELED;
  return MPI_THREAD_SINGLE;
}

const char* level_name(int l) {
  switch (l) {
    case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
    case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
    case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
  }
  return "MPI_THREAD_SINGLE";
}

bool errhandler_shape_ok(MPI_Errhandler eh) {
  return eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT ||
         handle::is(static_cast<int>(eh), handle::Direct, handle::Errhandler);
}

}  // namespace

bool pset_members(const char* name, std::vector<int>& out) {
  if (strcasecmp(name, kPsets[0]) == 0) {
    out = world().world_of;
    return true;
  }
  if (strcasecmp(name, kPsets[1]) == 0) {
    out = {world().rank};
    return true;
  }
  return false;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session* session) {
  const char* call = "MPI_Session_init";
  // Arguments are checked before the runtime is up, so a bad one is fatal here.
  if (!session) return fail(nullptr, MPI_ERR_ARG, "{}: session is NULL", call);
  if (!errhandler_shape_ok(errhandler))
    return fail(nullptr, MPI_ERR_ERRHANDLER, "{}: invalid errhandler 0x{:x}", call,
                static_cast<unsigned>(errhandler));
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  auto s = std::make_unique<Session>();
  s->info = *hints;
  s->errhandler = errhandler;
  errhandler_ref(errhandler, +1);
  int provided = MPI_THREAD_SINGLE;
  CHORUS_TRY_MPI(runtime_acquire(call, level_from(*hints), &provided));
  p2p::ApiLock lock;
  s->thread_level = provided;
  static std::uint64_t serials = 0;
  s->serial = ++serials;
  std::size_t i = 0;
  while (i < g_sessions.size() && g_sessions[i]) ++i;
  if (i == g_sessions.size()) g_sessions.emplace_back();
  g_sessions[i] = std::move(s);
  *session = static_cast<MPI_Session>(handle::make(handle::Direct, handle::Session, static_cast<int>(i)));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_init)

int PMPI_Session_finalize(MPI_Session* session) {
  const char* call = "MPI_Session_finalize";
  if (!session) return fail(nullptr, MPI_ERR_ARG, "{}: session is NULL", call);
  {
    p2p::ApiLock lock;
    Session* s;
    CHORUS_TRY_MPI(check_session(call, *session, &s));
    // Its buffered sends go out before the session does.
    Comm c = stand_in(*session, *s);
    CHORUS_TRY_MPI(session_buffer(call, &c, s->serial, BufferOp::Forget, nullptr, nullptr, nullptr));
    errhandler_ref(s->errhandler, -1);
    g_sessions[static_cast<std::size_t>(handle::index(static_cast<int>(*session)))].reset();
    while (!g_sessions.empty() && !g_sessions.back()) g_sessions.pop_back();
  }
  *session = MPI_SESSION_NULL;
  runtime_release();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_finalize)

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info /*info*/, int* npset_names) {
  const char* call = "MPI_Session_get_num_psets";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!npset_names) return sfail(session, *s, MPI_ERR_ARG, "{}: npset_names is NULL", call);
  *npset_names = kNumPsets;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_get_num_psets)

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info /*info*/, int n, int* pset_len,
                              char* pset_name) {
  const char* call = "MPI_Session_get_nth_pset";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (n < 0 || n >= kNumPsets)
    return sfail(session, *s, MPI_ERR_ARG, "{}: n is {}, must be in [0, {})", call, n, kNumPsets);
  if (!pset_len) return sfail(session, *s, MPI_ERR_ARG, "{}: pset_len is NULL", call);
  std::size_t len = std::strlen(kPsets[n]);
  // *pset_len == 0 asks for the length (with the NUL); otherwise copy what fits.
  if (*pset_len > 0) {
    if (!pset_name) return sfail(session, *s, MPI_ERR_ARG, "{}: pset_name is NULL", call);
    std::size_t k = std::min<std::size_t>(len, static_cast<std::size_t>(*pset_len - 1));
    std::memcpy(pset_name, kPsets[n], k);
    pset_name[k] = '\0';
  }
  *pset_len = static_cast<int>(len) + 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_get_nth_pset)

int PMPI_Session_get_info(MPI_Session session, MPI_Info* info_used) {
  const char* call = "MPI_Session_get_info";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!info_used) return sfail(session, *s, MPI_ERR_ARG, "{}: info_used is NULL", call);
  InfoPairs p = s->info;
  auto it = std::find_if(p.begin(), p.end(), [](const auto& kv) { return kv.first == "thread_level"; });
  if (it != p.end()) it->second = level_name(s->thread_level);
  else p.emplace_back("thread_level", level_name(s->thread_level));
  *info_used = info_new(std::move(p));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_get_info)

int PMPI_Session_get_pset_info(MPI_Session session, const char* pset_name, MPI_Info* info) {
  const char* call = "MPI_Session_get_pset_info";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!pset_name || !info)
    return sfail(session, *s, MPI_ERR_ARG, "{}: {} is NULL", call, pset_name ? "info" : "pset_name");
  std::vector<int> members;
  if (!pset_members(pset_name, members))
    return sfail(session, *s, MPI_ERR_ARG, "{}: unknown process set \"{}\" (known: mpi://WORLD, mpi://SELF)",
                 call, pset_name);
  *info = info_new({{"mpi_size", std::to_string(members.size())}});
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_get_pset_info)

int PMPI_Group_from_session_pset(MPI_Session session, const char* pset_name, MPI_Group* newgroup) {
  const char* call = "MPI_Group_from_session_pset";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!pset_name || !newgroup)
    return sfail(session, *s, MPI_ERR_ARG, "{}: {} is NULL", call, pset_name ? "newgroup" : "pset_name");
  std::vector<int> members;
  if (!pset_members(pset_name, members))
    return sfail(session, *s, MPI_ERR_ARG, "{}: unknown process set \"{}\" (known: mpi://WORLD, mpi://SELF)",
                 call, pset_name);
  *newgroup = group_new(std::move(members), s->serial);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Group_from_session_pset)

int PMPI_Comm_create_from_group(MPI_Group group, const char* stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_from_group";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Group* g;
  CHORUS_TRY_MPI(check_group(call, nullptr, group, &g));
  if (!stringtag) return fail(nullptr, MPI_ERR_ARG, "{}: stringtag is NULL", call);
  if (!newcomm) return fail(nullptr, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  if (errhandler == MPI_ERRHANDLER_NULL) errhandler = MPI_ERRORS_ARE_FATAL;
  if (!errhandler_shape_ok(errhandler))
    return fail(nullptr, MPI_ERR_ERRHANDLER, "{}: invalid errhandler 0x{:x}", call,
                static_cast<unsigned>(errhandler));
  if (group_rank_of(*g, world().rank) == MPI_UNDEFINED)
    return fail(nullptr, MPI_ERR_GROUP, "{}: the calling process (world rank {}) is not in group", call,
                world().rank);
  std::uint64_t key = 0xcbf29ce484222325ULL;
  for (const char* p = stringtag; *p; ++p) key = (key ^ static_cast<unsigned char>(*p)) * 0x100000001b3ULL;
  Comm* ex = exchange_open(g->world, key, MPI_ERRORS_RETURN);
  Comm* n;
  int rc = comm_build(ex, call, g->world, errhandler, &n);
  exchange_close(ex);
  if (rc != MPI_SUCCESS) {
    Comm report;  // the new communicator's handler would have seen it
    report.errhandler = errhandler;
    report.temporary = true;
    return raise(&report, rc);
  }
  n->info = *hints;
  n->session = g->session;
  *newcomm = n->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_create_from_group)

// MPI 4.1: a session's buffer for buffered sends on the communicators derived from
// it (lib/mpi/bsend.cc). Errors go to the session's handler.
static int session_buffer_call(const char* call, MPI_Session session, BufferOp op, void* buffer, int* size,
                               MPI_Request* request) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  Comm c = stand_in(session, *s);
  return session_buffer(call, &c, s->serial, op, buffer, size, request);
}

int PMPI_Session_create_errhandler(MPI_Session_errhandler_function* fn, MPI_Errhandler* errhandler) {
  // Session and communicator handlers share one table: both receive an integer
  // handle and the error code.
  return PMPI_Comm_create_errhandler(reinterpret_cast<MPI_Comm_errhandler_function*>(fn), errhandler);
}
CHORUS_ALIAS(MPI_Session_create_errhandler)

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler) {
  const char* call = "MPI_Session_set_errhandler";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!errhandler_valid(errhandler))
    return sfail(session, *s, MPI_ERR_ARG, "{}: invalid errhandler 0x{:x}", call,
                 static_cast<unsigned>(errhandler));
  errhandler_ref(errhandler, +1);
  errhandler_ref(s->errhandler, -1);
  s->errhandler = errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_set_errhandler)

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler* errhandler) {
  const char* call = "MPI_Session_get_errhandler";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  if (!errhandler) return sfail(session, *s, MPI_ERR_ARG, "{}: errhandler is NULL", call);
  errhandler_ref(s->errhandler, +1);  // the caller frees the returned handle
  *errhandler = s->errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_get_errhandler)

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode) {
  const char* call = "MPI_Session_call_errhandler";
  p2p::ApiLock lock;
  Session* s;
  CHORUS_TRY_MPI(check_session(call, session, &s));
  Comm c = stand_in(session, *s);
  raise(&c, errorcode);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Session_call_errhandler)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "session_forward.inc"

}  // extern "C"
