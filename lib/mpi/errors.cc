// Error codes, error handlers and the fatal path.
//
// An error code carries its class in the low 8 bits and, above them, the slot of
// a ring of recent messages: MPI_Error_string(code) then returns the full text
// that names the call, the argument and the bad value, while MPI_Error_class
// recovers the class. Plain classes (code < 256) map to their generic text.
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <vector>

#include "core/handle.h"
#include "core/log.h"
#include "launcher/pmix.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

constexpr int kClassBits = 8;
constexpr int kRing = 1024;

std::mutex g_err_mu;
std::array<std::string, kRing> g_messages;
unsigned g_next_slot = 0;

// Error classes and codes the program adds (MPI_Add_error_class / _code), above
// MPI_ERR_LASTCODE as in MPICH: class k is kUserBit | k << kUserShift, code j of
// that class is the class | j. Their strings (MPI_Add_error_string) start empty,
// as MPI says. MPI_Remove_error_class / _code free a slot, and the next add
// takes the lowest free one, so a program that adds and removes in a loop never
// runs out.
constexpr int kUserBit = 0x40000000;
constexpr int kUserShift = 12;
constexpr int kUserCodeMask = (1 << kUserShift) - 1;
constexpr int kMaxUserClasses = (kUserBit >> kUserShift) - 1;
struct UserClass {
  bool live = false;
  std::vector<bool> codes;  // code j (index j - 1) is added and not removed
  int live_codes = 0;
};
std::vector<UserClass> g_user_classes;  // class k at index k - 1
std::map<int, std::string> g_user_strings;

// The lowest free slot of `live` (index + 1), or 0 when all `limit` are taken.
template <class Live>
int first_free(std::size_t n, int limit, Live live) {
  for (std::size_t i = 0; i < n; ++i)
    if (!live(i)) return static_cast<int>(i) + 1;
  return static_cast<int>(n) < limit ? static_cast<int>(n) + 1 : 0;
}

// Comm, window and file handlers share one table: comm and window functions have
// the same ABI (an int handle by pointer, the code by pointer, varargs), a file's
// takes an MPI_File by pointer and is cast back before a call; `kind` says which
// object they may be set on.
struct UserHandler {
  MPI_Comm_errhandler_function* fn = nullptr;
  int refs = 0;  // 0: free slot
  ErrhandlerKind kind = ErrhandlerKind::Comm;
};
std::vector<UserHandler> g_handlers;

const char* class_text(int cls) {
  switch (cls) {
    case MPI_SUCCESS: return "no error";
    case MPI_ERR_BUFFER: return "invalid buffer pointer";
    case MPI_ERR_COUNT: return "invalid count argument";
    case MPI_ERR_TYPE: return "invalid datatype";
    case MPI_ERR_TAG: return "invalid tag";
    case MPI_ERR_COMM: return "invalid communicator";
    case MPI_ERR_RANK: return "invalid rank";
    case MPI_ERR_ROOT: return "invalid root";
    case MPI_ERR_GROUP: return "invalid group";
    case MPI_ERR_OP: return "invalid reduction operation";
    case MPI_ERR_TOPOLOGY: return "invalid topology";
    case MPI_ERR_DIMS: return "invalid dimension argument";
    case MPI_ERR_ARG: return "invalid argument";
    case MPI_ERR_UNKNOWN: return "unknown error";
    case MPI_ERR_TRUNCATE: return "message truncated";
    case MPI_ERR_OTHER: return "other error";
    case MPI_ERR_INTERN: return "internal error";
    case MPI_ERR_IN_STATUS: return "error code is in status";
    case MPI_ERR_PENDING: return "pending request";
    case MPI_ERR_REQUEST: return "invalid request";
    case MPI_ERR_ACCESS: return "permission denied";
    case MPI_ERR_AMODE: return "invalid access mode";
    case MPI_ERR_BAD_FILE: return "invalid file name";
    case MPI_ERR_CONVERSION: return "data conversion error";
    case MPI_ERR_DUP_DATAREP: return "duplicate data representation";
    case MPI_ERR_FILE_EXISTS: return "file exists";
    case MPI_ERR_FILE_IN_USE: return "file in use";
    case MPI_ERR_FILE: return "invalid file";
    case MPI_ERR_INFO: return "invalid info object";
    case MPI_ERR_INFO_KEY: return "invalid info key";
    case MPI_ERR_INFO_VALUE: return "invalid info value";
    case MPI_ERR_INFO_NOKEY: return "info key not found";
    case MPI_ERR_IO: return "I/O error";
    case MPI_ERR_NAME: return "invalid service name";
    case MPI_ERR_NO_MEM: return "out of memory";
    case MPI_ERR_NOT_SAME: return "collective argument not the same on all processes";
    case MPI_ERR_NO_SPACE: return "no space left";
    case MPI_ERR_NO_SUCH_FILE: return "no such file";
    case MPI_ERR_PORT: return "invalid port";
    case MPI_ERR_QUOTA: return "quota exceeded";
    case MPI_ERR_READ_ONLY: return "read-only file or file system";
    case MPI_ERR_SERVICE: return "invalid service";
    case MPI_ERR_SPAWN: return "spawn error";
    case MPI_ERR_UNSUPPORTED_DATAREP: return "unsupported data representation";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "unsupported operation";
    case MPI_ERR_WIN: return "invalid window";
    case MPI_ERR_BASE: return "invalid base";
    case MPI_ERR_LOCKTYPE: return "invalid lock type";
    case MPI_ERR_KEYVAL: return "invalid keyval";
    case MPI_ERR_RMA_CONFLICT: return "conflicting RMA accesses";
    case MPI_ERR_RMA_SYNC: return "wrong RMA synchronization";
    case MPI_ERR_SIZE: return "invalid size";
    case MPI_ERR_DISP: return "invalid displacement";
    case MPI_ERR_ASSERT: return "invalid assert";
    case MPI_ERR_RMA_RANGE: return "RMA target out of range";
    case MPI_ERR_RMA_ATTACH: return "RMA attach failed";
    case MPI_ERR_RMA_SHARED: return "RMA shared memory error";
    case MPI_ERR_RMA_FLAVOR: return "wrong RMA window flavor";
    case MPI_ERR_ERRHANDLER: return "invalid error handler";
    case MPI_ERR_SESSION: return "invalid session";
    case MPI_ERR_PROC_ABORTED: return "a process aborted";
    case MPI_ERR_VALUE_TOO_LARGE: return "value too large";
  }
  return nullptr;
}

const char* class_name(int cls) {
  switch (cls) {
#define C(x) case x: return #x;
    C(MPI_SUCCESS) C(MPI_ERR_BUFFER) C(MPI_ERR_COUNT) C(MPI_ERR_TYPE) C(MPI_ERR_TAG)
    C(MPI_ERR_COMM) C(MPI_ERR_RANK) C(MPI_ERR_ROOT) C(MPI_ERR_GROUP) C(MPI_ERR_OP)
    C(MPI_ERR_TOPOLOGY) C(MPI_ERR_DIMS) C(MPI_ERR_ARG) C(MPI_ERR_UNKNOWN) C(MPI_ERR_TRUNCATE)
    C(MPI_ERR_OTHER) C(MPI_ERR_INTERN) C(MPI_ERR_IN_STATUS) C(MPI_ERR_PENDING)
    C(MPI_ERR_REQUEST) C(MPI_ERR_INFO) C(MPI_ERR_INFO_KEY) C(MPI_ERR_INFO_VALUE)
    C(MPI_ERR_INFO_NOKEY) C(MPI_ERR_NO_MEM) C(MPI_ERR_KEYVAL) C(MPI_ERR_ERRHANDLER)
    C(MPI_ERR_UNSUPPORTED_OPERATION) C(MPI_ERR_SESSION) C(MPI_ERR_NOT_SAME) C(MPI_ERR_WIN)
    C(MPI_ERR_BASE) C(MPI_ERR_SIZE) C(MPI_ERR_DISP) C(MPI_ERR_LOCKTYPE) C(MPI_ERR_ASSERT)
    C(MPI_ERR_RMA_CONFLICT) C(MPI_ERR_RMA_SYNC) C(MPI_ERR_RMA_RANGE) C(MPI_ERR_RMA_ATTACH)
    C(MPI_ERR_RMA_SHARED) C(MPI_ERR_RMA_FLAVOR)
#undef C
  }
  return "MPI_ERR";
}

// Codes added to predefined classes (MPI_Add_error_code(MPI_ERR_ARG, ...)) live in
// a block of their own, the last class slot (never handed out as a class), and
// remember their class here (index j - 1; 0 once removed).
constexpr int kPredefBlock = kMaxUserClasses;
std::vector<int> g_predef_code_class;
int predef_code_index(int code) {
  if (code < 0 || !(code & kUserBit) || ((code & ~kUserBit) >> kUserShift) != kPredefBlock) return -1;
  const int j = code & kUserCodeMask;
  if (j < 1 || j > static_cast<int>(g_predef_code_class.size())) return -1;
  return g_predef_code_class[static_cast<std::size_t>(j - 1)] != 0 ? j - 1 : -1;
}

// The caller holds g_err_mu (the added codes' table may grow under it).
int class_of_locked(int code) {
  if (int i = predef_code_index(code); i >= 0) return g_predef_code_class[static_cast<std::size_t>(i)];
  if (code & kUserBit) return code & ~kUserCodeMask;
  return code < (1 << kClassBits) ? code : (code & ((1 << kClassBits) - 1));
}

// An added class (j == 0) or code (j > 0); the caller holds g_err_mu.
bool is_user_value(int code, bool want_class) {
  if (code < 0 || !(code & kUserBit)) return false;
  const int k = (code & ~kUserBit) >> kUserShift, j = code & kUserCodeMask;
  if (k < 1 || k > static_cast<int>(g_user_classes.size())) return false;
  const UserClass& c = g_user_classes[static_cast<std::size_t>(k - 1)];
  if (!c.live) return false;
  return want_class ? j == 0 : j >= 1 && j <= static_cast<int>(c.codes.size()) && c.codes[static_cast<std::size_t>(j - 1)];
}
bool is_user_class(int code) { return is_user_value(code, true); }
int class_of(int code) {
  std::lock_guard<std::mutex> lk(g_err_mu);
  return class_of_locked(code);
}
bool is_user(int code) {
  return is_user_value(code, true) || is_user_value(code, false) || predef_code_index(code) >= 0;
}

}  // namespace

int make_error(int cls, std::string message) {
  // MPI_ERR_IN_STATUS is returned as the bare class: callers compare it directly
  // before looking at the statuses, which carry the real errors.
  if (cls == MPI_ERR_IN_STATUS) return cls;
  std::lock_guard<std::mutex> lk(g_err_mu);
  unsigned slot = g_next_slot++ % kRing;
  g_messages[slot] = fmt::format("{} ({}: {})", message, class_name(cls),
                                 class_text(cls) ? class_text(cls) : "error");
  return cls | static_cast<int>((slot + 1) << kClassBits);
}

bool error_has_message(int code) { return code >= (1 << kClassBits); }

bool is_made_error(int code) {
  if (code < (1 << kClassBits) || (code & kUserBit)) return false;
  const unsigned slot = static_cast<unsigned>(code >> kClassBits) - 1;
  const int cls = code & ((1 << kClassBits) - 1);
  return slot < static_cast<unsigned>(kRing) && cls > MPI_SUCCESS && cls <= kMaxErrorClass;
}

bool is_added_error(int code) {
  std::lock_guard<std::mutex> lk(g_err_mu);
  return is_user(code);
}

void errors_init() {}

[[noreturn]] void abort_job(int errorcode, const std::string& why) {
  std::fflush(stdout);
  // Not p2p::job(): it is filled only once the transport starts, and MPI_Init
  // can fail before that (every rank then said "rank 0 on host :").
  const launcher::Identity me = launcher::identity();
  std::string who = me.rank >= 0 ? fmt::format("rank {}", me.rank) : std::string("rank ?");
  std::fprintf(stderr, "chorus: %s on host %s: %s\n", who.c_str(), me.host.c_str(), why.c_str());
  std::fflush(stderr);
  int status = errorcode == 0 ? 1 : errorcode;
  launcher::abort(status, why);
  _exit(status & 0xff ? status & 0xff : 1);
}

static std::string error_text(int code) {
  int cls = class_of(code);
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    if (is_user(code)) {
      auto it = g_user_strings.find(code);
      return it == g_user_strings.end() ? std::string() : it->second;
    }
  }
  if (code >= (1 << kClassBits)) {
    unsigned slot = static_cast<unsigned>(code >> kClassBits) - 1;
    if (slot < kRing) {
      std::lock_guard<std::mutex> lk(g_err_mu);
      return g_messages[slot];
    }
  }
  const char* t = class_text(cls);
  return t ? fmt::format("{}: {}", class_name(cls), t) : fmt::format("unknown error code {}", code);
}

// A handler as read under the lock, at once with the function of a user handler:
// another thread may replace the object's handler (and free the old one) or grow
// (move) the handler table meanwhile. The function then runs outside the lock's
// scope here (as deep as the caller's).
struct Resolved {
  MPI_Errhandler eh = MPI_ERRORS_RETURN;
  MPI_Comm_errhandler_function* fn = nullptr;
};
Resolved resolve_locked(MPI_Errhandler eh) {
  Resolved r{errhandler_in_effect(eh)};
  if (handle::is(static_cast<int>(r.eh), handle::Direct, handle::Errhandler)) {
    const auto idx = static_cast<std::size_t>(handle::index(static_cast<int>(r.eh)));
    if (idx < g_handlers.size()) r.fn = g_handlers[idx].fn;
  }
  return r;
}

// Handles the predefined handlers; true when `r` is one of them (or `code` is
// MPI_SUCCESS) and the caller has nothing left to do.
bool predefined(const Resolved& r, int code) {
  if (code == MPI_SUCCESS) return true;
  if (g_phase != Phase::Running) abort_job(class_of(code), "fatal error: " + error_text(code));
  if (r.eh == MPI_ERRORS_RETURN) return true;
  if (r.eh == MPI_ERRORS_ARE_FATAL || r.eh == MPI_ERRORS_ABORT)
    abort_job(class_of(code), "fatal error: " + error_text(code));
  return false;
}

int raise_on(const MPI_Errhandler& eh, int object, int code) {
  if (code == MPI_SUCCESS) return code;
  Resolved r;
  {
    p2p::ApiLock lock;
    // One nobody set runs MPI_COMM_WORLD's handler, on MPI_COMM_WORLD (MPICH does the same).
    if (eh == kErrhandlerWorlds) object = world().handle;
    r = resolve_locked(eh);
  }
  if (predefined(r, code)) return code;
  if (r.fn) {
    int h = object;
    int c = code;
    r.fn(&h, &c);
  }
  return code;
}

// Files: Chorus has no MPI-IO yet, so MPI_FILE_NULL is the only file handle. Its
// handler is the one files get when they are opened, MPI_ERRORS_RETURN unless
// the program sets another (MPI-4.1 9.3).
MPI_Errhandler g_file_errhandler = MPI_ERRORS_RETURN;

int raise_file(MPI_File file, int code) {
  if (code == MPI_SUCCESS) return code;
  Resolved r;
  {
    p2p::ApiLock lock;  // MPI_File_set_errhandler may replace it meanwhile
    r = resolve_locked(g_file_errhandler);
  }
  if (predefined(r, code)) return code;
  if (r.fn) {
    MPI_File f = file;
    int c = code;
    reinterpret_cast<MPI_File_errhandler_function*>(r.fn)(&f, &c);
  }
  return code;
}

// An error of a file call: its message recorded, raised on the file handler.
template <class... Args>
int file_fail(int cls, fmt::format_string<Args...> f, Args&&... args) {
  return raise_file(MPI_FILE_NULL, make_error(cls, fmt::format(f, std::forward<Args>(args)...)));
}

int raise(Comm* comm, int code) {
  if (code == MPI_SUCCESS) return code;
  if (!comm) comm = &world();
  return raise_on(comm->errhandler, comm->handle, code);  // read under the lock there
}

int fail_status(Comm* comm, Status s, const char* call) {
  return fail(comm, to_mpi_class(s), "{}: {}", call, to_string(s));
}

int check_running(const char* call) {
  if (g_phase == Phase::Running) return MPI_SUCCESS;
  const char* why = g_phase == Phase::Before ? "called before MPI_Init" : "called after MPI_Finalize";
  abort_job(MPI_ERR_OTHER, fmt::format("fatal error: {} {}", call, why));
}

MPI_Errhandler errhandler_in_effect(MPI_Errhandler eh) {
  if (eh == kErrhandlerWorlds) eh = world().errhandler;
  return eh == kErrhandlerWorlds ? MPI_ERRORS_ARE_FATAL : eh;
}

bool errhandler_valid(MPI_Errhandler eh) {
  if (eh == MPI_ERRORS_ARE_FATAL || eh == MPI_ERRORS_RETURN || eh == MPI_ERRORS_ABORT) return true;
  int h = static_cast<int>(eh);
  if (!handle::is(h, handle::Direct, handle::Errhandler)) return false;
  int idx = handle::index(h);
  return idx < static_cast<int>(g_handlers.size()) && g_handlers[idx].refs > 0;
}

bool errhandler_fits(MPI_Errhandler eh, ErrhandlerKind kind) {
  if (!errhandler_valid(eh)) return false;
  int h = static_cast<int>(eh);
  if (!handle::is(h, handle::Direct, handle::Errhandler)) return true;  // predefined: any object
  return g_handlers[static_cast<std::size_t>(handle::index(h))].kind == kind;
}

MPI_Errhandler errhandler_new(MPI_Comm_errhandler_function* fn, ErrhandlerKind kind) {
  std::size_t idx = 0;
  while (idx < g_handlers.size() && g_handlers[idx].refs > 0) ++idx;
  if (idx == g_handlers.size()) g_handlers.emplace_back();
  g_handlers[idx] = UserHandler{fn, 1, kind};
  return static_cast<MPI_Errhandler>(handle::make(handle::Direct, handle::Errhandler, static_cast<int>(idx)));
}

void errhandler_ref(MPI_Errhandler eh, int delta) {
  int h = static_cast<int>(eh);
  if (!handle::is(h, handle::Direct, handle::Errhandler)) return;
  auto idx = static_cast<std::size_t>(handle::index(h));
  if (idx >= g_handlers.size()) return;
  UserHandler& u = g_handlers[idx];
  u.refs += delta;
  if (u.refs <= 0) u = UserHandler{};
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Error_class(int errorcode, int* errorclass) {
  if (!errorclass) return fail(nullptr, MPI_ERR_ARG, "MPI_Error_class: errorclass is NULL");
  int cls;
  bool known;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    cls = class_of_locked(errorcode);
    known = (cls <= kMaxErrorClass && !(errorcode & kUserBit)) || is_user(errorcode);
  }
  if (errorcode < 0 || !known)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Error_class: invalid error code {}", errorcode);
  *errorclass = cls;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Error_class)

int PMPI_Add_error_class(int* errorclass) {
  const char* call = "MPI_Add_error_class";
  CHORUS_TRY_MPI(check_running(call));
  if (!errorclass) return fail(nullptr, MPI_ERR_ARG, "{}: errorclass is NULL", call);
  int cls = -1;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    // The last slot holds codes of predefined classes.
    const int k = first_free(g_user_classes.size(), kPredefBlock - 1,
                             [](std::size_t i) { return g_user_classes[i].live; });
    if (k > 0) {
      if (k > static_cast<int>(g_user_classes.size())) g_user_classes.emplace_back();
      g_user_classes[static_cast<std::size_t>(k - 1)] = UserClass{true, {}, 0};
      cls = kUserBit | k << kUserShift;
    }
  }
  if (cls < 0)
    return fail(nullptr, MPI_ERR_OTHER, "{}: all {} error classes a program may add are in use", call,
                kPredefBlock - 1);
  {
    p2p::ApiLock lock;
    note_last_used_code(cls);
  }
  *errorclass = cls;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Add_error_class)

int PMPI_Add_error_code(int errorclass, int* errorcode) {
  const char* call = "MPI_Add_error_code";
  CHORUS_TRY_MPI(check_running(call));
  if (!errorcode) return fail(nullptr, MPI_ERR_ARG, "{}: errorcode is NULL", call);
  int code = -1;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    if (is_user_class(errorclass)) {
      UserClass& c = g_user_classes[static_cast<std::size_t>(((errorclass & ~kUserBit) >> kUserShift) - 1)];
      const int j = first_free(c.codes.size(), kUserCodeMask, [&c](std::size_t i) { return c.codes[i]; });
      if (j > 0) {
        if (j > static_cast<int>(c.codes.size())) c.codes.push_back(false);
        c.codes[static_cast<std::size_t>(j - 1)] = true;
        ++c.live_codes;
      }
      code = j > 0 ? errorclass | j : -2;
    } else if (errorclass > MPI_SUCCESS && errorclass <= kMaxErrorClass) {  // a predefined class
      const int j = first_free(g_predef_code_class.size(), kUserCodeMask,
                               [](std::size_t i) { return g_predef_code_class[i] != 0; });
      if (j > 0) {
        if (j > static_cast<int>(g_predef_code_class.size())) g_predef_code_class.push_back(0);
        g_predef_code_class[static_cast<std::size_t>(j - 1)] = errorclass;
      }
      code = j > 0 ? kUserBit | (kPredefBlock << kUserShift) | j : -2;
    }
  }
  if (code == -1)
    return fail(nullptr, MPI_ERR_ARG, "{}: errorclass {} is neither predefined nor added by MPI_Add_error_class",
                call, errorclass);
  if (code == -2)
    return fail(nullptr, MPI_ERR_OTHER, "{}: error class {} has all {} codes it may have", call, errorclass,
                kUserCodeMask);
  {
    p2p::ApiLock lock;
    note_last_used_code(code);
  }
  *errorcode = code;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Add_error_code)

int PMPI_Add_error_string(int errorcode, const char* string) {
  const char* call = "MPI_Add_error_string";
  CHORUS_TRY_MPI(check_running(call));
  if (!string) return fail(nullptr, MPI_ERR_ARG, "{}: string is NULL", call);
  const std::size_t len = std::strlen(string);
  if (len >= MPI_MAX_ERROR_STRING)
    return fail(nullptr, MPI_ERR_ARG, "{}: the string has {} characters, at most {}", call, len,
                MPI_MAX_ERROR_STRING - 1);
  bool ok;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    ok = is_user(errorcode);
    if (ok) g_user_strings[errorcode].assign(string, len);
  }
  if (!ok)
    return fail(nullptr, MPI_ERR_ARG, "{}: error code {} was not added by MPI_Add_error_class or _code", call,
                errorcode);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Add_error_string)

// MPI 4.1's removals, in the order MPI requires: a code's string before the
// code, a class's codes before the class. MPICH 4.0 spelled them
// MPIX_Delete_error_*; those names are aliases, so programs built for it link.
int PMPI_Remove_error_string(int errorcode) {
  const char* call = "MPI_Remove_error_string";
  CHORUS_TRY_MPI(check_running(call));
  bool added, had;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    added = is_user(errorcode);
    had = added && g_user_strings.erase(errorcode) > 0;
  }
  if (!added)
    return fail(nullptr, MPI_ERR_ARG, "{}: error code {} was not added by MPI_Add_error_class or _code", call,
                errorcode);
  if (!had)
    return fail(nullptr, MPI_ERR_ARG, "{}: error code {} has no string from MPI_Add_error_string", call,
                errorcode);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Remove_error_string)

int PMPI_Remove_error_code(int errorcode) {
  const char* call = "MPI_Remove_error_code";
  CHORUS_TRY_MPI(check_running(call));
  enum { Removed, NotAdded, HasString } r = NotAdded;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    const bool added = is_user_value(errorcode, false) || predef_code_index(errorcode) >= 0;
    if (added && g_user_strings.count(errorcode)) {
      r = HasString;
    } else if (int i = predef_code_index(errorcode); i >= 0) {
      g_predef_code_class[static_cast<std::size_t>(i)] = 0;
      r = Removed;
    } else if (added) {
      UserClass& c = g_user_classes[static_cast<std::size_t>(((errorcode & ~kUserBit) >> kUserShift) - 1)];
      c.codes[static_cast<std::size_t>((errorcode & kUserCodeMask) - 1)] = false;
      --c.live_codes;
      r = Removed;
    }
  }
  if (r == NotAdded)
    return fail(nullptr, MPI_ERR_ARG, "{}: error code {} was not added by MPI_Add_error_code", call, errorcode);
  if (r == HasString)
    return fail(nullptr, MPI_ERR_ARG,
                "{}: error code {} still has a string; remove it first with MPI_Remove_error_string", call,
                errorcode);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Remove_error_code)

int PMPI_Remove_error_class(int errorclass) {
  const char* call = "MPI_Remove_error_class";
  CHORUS_TRY_MPI(check_running(call));
  int codes_left = -1;
  {
    std::lock_guard<std::mutex> lk(g_err_mu);
    if (is_user_class(errorclass)) {
      UserClass& c = g_user_classes[static_cast<std::size_t>(((errorclass & ~kUserBit) >> kUserShift) - 1)];
      codes_left = c.live_codes;
      if (codes_left == 0) {
        c = UserClass{};
        g_user_strings.erase(errorclass);  // MPI asks only that the codes go first
      }
    }
  }
  if (codes_left < 0)
    return fail(nullptr, MPI_ERR_ARG, "{}: error class {} was not added by MPI_Add_error_class", call,
                errorclass);
  if (codes_left > 0)
    return fail(nullptr, MPI_ERR_ARG,
                "{}: error class {} still has {} error code{}; remove them first with MPI_Remove_error_code",
                call, errorclass, codes_left, codes_left == 1 ? "" : "s");
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Remove_error_class)

// MPICH 4.0's names for the same calls.
int PMPIX_Delete_error_string(int errorcode) { return PMPI_Remove_error_string(errorcode); }
CHORUS_ALIAS(MPIX_Delete_error_string)
int PMPIX_Delete_error_code(int errorcode) { return PMPI_Remove_error_code(errorcode); }
CHORUS_ALIAS(MPIX_Delete_error_code)
int PMPIX_Delete_error_class(int errorclass) { return PMPI_Remove_error_class(errorclass); }
CHORUS_ALIAS(MPIX_Delete_error_class)

int PMPI_Error_string(int errorcode, char* string, int* resultlen) {
  if (!string || !resultlen)
    return fail(nullptr, MPI_ERR_ARG, "MPI_Error_string: {} is NULL", string ? "resultlen" : "string");
  std::string text = error_text(errorcode);
  std::size_t n = std::min<std::size_t>(text.size(), MPI_MAX_ERROR_STRING - 1);
  std::memcpy(string, text.data(), n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Error_string)

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* fn, MPI_Errhandler* errhandler) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_create_errhandler"));
  p2p::ApiLock lock;
  if (!fn) return fail(nullptr, MPI_ERR_ARG, "MPI_Comm_create_errhandler: function is NULL");
  if (!errhandler) return fail(nullptr, MPI_ERR_ARG, "MPI_Comm_create_errhandler: errhandler is NULL");
  *errhandler = errhandler_new(fn, ErrhandlerKind::Comm);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_create_errhandler)

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_set_errhandler"));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_set_errhandler", comm, &c));
  if (!errhandler_fits(errhandler, ErrhandlerKind::Comm))
    return fail(c, MPI_ERR_ARG, "MPI_Comm_set_errhandler: {} 0x{:x}",
                errhandler_valid(errhandler) ? "errhandler is not a communicator's handler"
                                             : "invalid errhandler",
                static_cast<unsigned>(errhandler));
  errhandler_ref(errhandler, +1);
  errhandler_ref(c->errhandler, -1);
  c->errhandler = errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_set_errhandler)

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_get_errhandler"));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_get_errhandler", comm, &c));
  if (!errhandler) return fail(c, MPI_ERR_ARG, "MPI_Comm_get_errhandler: errhandler is NULL");
  *errhandler = errhandler_in_effect(c->errhandler);
  errhandler_ref(*errhandler, +1);  // the caller frees the returned handle
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_errhandler)

int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
  CHORUS_TRY_MPI(check_running("MPI_Errhandler_free"));
  p2p::ApiLock lock;
  if (!errhandler || !errhandler_valid(*errhandler))
    return fail(nullptr, MPI_ERR_ARG, "MPI_Errhandler_free: invalid errhandler 0x{:x}",
                errhandler ? static_cast<unsigned>(*errhandler) : 0u);
  errhandler_ref(*errhandler, -1);
  *errhandler = MPI_ERRHANDLER_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Errhandler_free)

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_call_errhandler"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_call_errhandler", comm, &c));
  raise(c, errorcode);
  // The call itself succeeds (MPI-4 8.3.5) unless the handler was fatal.
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_call_errhandler)

// File error handlers. Until Chorus has MPI-IO, MPI_FILE_NULL is the only file
// handle: setting its handler sets the one files get at open, as MPI defines.
// Any other handle is MPI_ERR_FILE, raised on that handler.
int PMPI_File_create_errhandler(MPI_File_errhandler_function* file_errhandler_fn, MPI_Errhandler* errhandler) {
  const char* call = "MPI_File_create_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!file_errhandler_fn) return file_fail(MPI_ERR_ARG, "{}: function is NULL", call);
  if (!errhandler) return file_fail(MPI_ERR_ARG, "{}: errhandler is NULL", call);
  *errhandler = errhandler_new(reinterpret_cast<MPI_Comm_errhandler_function*>(file_errhandler_fn),
                               ErrhandlerKind::File);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_File_create_errhandler)

namespace {
int check_file(const char* call, MPI_File file) {
  if (file == MPI_FILE_NULL) return MPI_SUCCESS;
  return file_fail(MPI_ERR_FILE, "{}: invalid file handle {} (this build has no MPI-IO; only MPI_FILE_NULL exists)",
                   call, static_cast<const void*>(file));
}
}  // namespace

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler) {
  const char* call = "MPI_File_set_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  CHORUS_TRY_MPI(check_file(call, file));
  if (!errhandler_fits(errhandler, ErrhandlerKind::File))
    return file_fail(MPI_ERR_ARG, "{}: {} 0x{:x}", call,
                     errhandler_valid(errhandler) ? "errhandler is not a file's handler" : "invalid errhandler",
                     static_cast<unsigned>(errhandler));
  errhandler_ref(errhandler, +1);
  errhandler_ref(g_file_errhandler, -1);
  g_file_errhandler = errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_File_set_errhandler)

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler* errhandler) {
  const char* call = "MPI_File_get_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  CHORUS_TRY_MPI(check_file(call, file));
  if (!errhandler) return file_fail(MPI_ERR_ARG, "{}: errhandler is NULL", call);
  errhandler_ref(g_file_errhandler, +1);  // the caller frees the returned handle
  *errhandler = g_file_errhandler;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_File_get_errhandler)

int PMPI_File_call_errhandler(MPI_File fh, int errorcode) {
  const char* call = "MPI_File_call_errhandler";
  CHORUS_TRY_MPI(check_running(call));
  CHORUS_TRY_MPI(check_file(call, fh));
  raise_file(fh, errorcode);
  return MPI_SUCCESS;  // the call itself succeeds unless the handler was fatal
}
CHORUS_ALIAS(MPI_File_call_errhandler)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "errors_forward.inc"

}  // extern "C"
