// Keyvals and attributes of communicators (MPI_Comm_create_keyval & co., plus the
// MPI-1 names MPI_Keyval_create, MPI_Attr_put/delete), and the shared machinery
// that windows (win.cc) use for theirs. A keyval handle is
// make(Direct, Keyval, slot). A keyval stays alive while attributes use it, so
// MPI_Comm_free_keyval followed by MPI_Comm_free still runs the delete callback.
// The predefined keys (MPI_TAG_UB, ...) are builtin keyvals answered by comm.cc.
#include <algorithm>
#include <memory>

#include "core/handle.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"

namespace chorus::mpi {
namespace {

// Communicator, window and datatype keyvals share one table: their callbacks have
// the same ABI (the object is an int handle), `kind` says which objects a keyval
// may be used on.
struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;     // nullptr: MPI_*_NULL_COPY_FN
  MPI_Comm_delete_attr_function* del = nullptr;    // nullptr: MPI_*_NULL_DELETE_FN
  void* extra = nullptr;
  int refs = 0;            // the handle (until freed) + every attribute using it
  bool freed = false;      // MPI_*_free_keyval was called
  KeyKind kind = KeyKind::Comm;
};
std::vector<std::unique_ptr<Keyval>> g_keyvals;

const char* kind_name(KeyKind k) {
  switch (k) {
    case KeyKind::Comm: return "communicator";
    case KeyKind::Win: return "window";
    case KeyKind::Type: return "datatype";
  }
  return "object";
}

Keyval* slot(int keyval) {
  if (!handle::is(keyval, handle::Direct, handle::Keyval)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(keyval));
  return i < g_keyvals.size() ? g_keyvals[i].get() : nullptr;
}

void unref(int keyval) {
  Keyval* k = slot(keyval);
  if (k && --k->refs == 0) {
    g_keyvals[static_cast<std::size_t>(handle::index(keyval))].reset();
    while (!g_keyvals.empty() && !g_keyvals.back()) g_keyvals.pop_back();
  }
}

// A freed keyval stays usable, as MPICH allows, while attributes still use it:
// their get / delete, and more frees (a delete callback that frees its own
// keyval); only new attributes need a live one (`allow_freed` false).
int check_keyval(const char* call, KeyKind kind, int keyval, const RaiseFn& raise_fn, Keyval** out,
                 bool allow_freed = true) {
  Keyval* k = slot(keyval);
  if (!k || (k->freed && !allow_freed)) {
    if (handle::kind(keyval) == handle::Builtin && handle::object(keyval) == handle::Keyval)
      return raise_fn(make_error(MPI_ERR_KEYVAL,
                                 fmt::format("{}: keyval 0x{:x} is a predefined attribute key, which is read-only",
                                             call, static_cast<unsigned>(keyval))));
    return raise_fn(make_error(MPI_ERR_KEYVAL,
                               fmt::format("{}: invalid keyval 0x{:x}", call, static_cast<unsigned>(keyval))));
  }
  if (k->kind != kind)
    return raise_fn(make_error(MPI_ERR_KEYVAL, fmt::format("{}: keyval 0x{:x} was created for {}s, not {}s", call,
                                                           static_cast<unsigned>(keyval), kind_name(k->kind),
                                                           kind_name(kind))));
  *out = k;
  return MPI_SUCCESS;
}

// Run the delete callback of the attribute `keyval` (present) of `object`.
int run_delete(int object, int keyval, void* value, const char* call, const RaiseFn& raise_fn) {
  Keyval* k = slot(keyval);
  if (!k || !k->del) return MPI_SUCCESS;
  int rc = k->del(object, keyval, value, k->extra);
  if (rc != MPI_SUCCESS)
    return raise_fn(make_error(MPI_ERR_OTHER, fmt::format("{}: the delete callback of keyval 0x{:x} returned {}",
                                                          call, static_cast<unsigned>(keyval), rc)));
  return MPI_SUCCESS;
}

void forget_order(std::vector<int>& o, int keyval) { o.erase(std::remove(o.begin(), o.end(), keyval), o.end()); }

RaiseFn comm_raiser(Comm* c) {
  return [c](int code) { return raise(c, code); };
}

int comm_set_attr(const char* call, MPI_Comm comm, int keyval, void* value) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  return attr_set(call, KeyKind::Comm, c->handle, c->attrs, c->attr_order, keyval, value, comm_raiser(c));
}

int comm_delete_attr(const char* call, MPI_Comm comm, int keyval) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  return attr_delete(call, KeyKind::Comm, c->handle, c->attrs, c->attr_order, keyval, comm_raiser(c));
}

}  // namespace

int keyval_create(const char* call, KeyKind kind, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* del, int* keyval, void* extra) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!keyval) return fail(nullptr, MPI_ERR_ARG, "{}: keyval is NULL", call);
  std::size_t i = 0;
  while (i < g_keyvals.size() && g_keyvals[i]) ++i;
  if (i == g_keyvals.size()) g_keyvals.emplace_back();
  g_keyvals[i] = std::make_unique<Keyval>(Keyval{copy, del, extra, 1, false, kind});
  *keyval = handle::make(handle::Direct, handle::Keyval, static_cast<int>(i));
  return MPI_SUCCESS;
}

int keyval_free(const char* call, KeyKind kind, int* keyval) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!keyval) return fail(nullptr, MPI_ERR_ARG, "{}: keyval is NULL", call);
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, kind, *keyval, comm_raiser(nullptr), &k));
  if (!k->freed) {
    k->freed = true;
    unref(*keyval);
  }
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int attr_set(const char* call, KeyKind kind, int object, std::map<int, void*>& attrs, std::vector<int>& order,
             int keyval, void* value, const RaiseFn& raise_fn) {
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, kind, keyval, raise_fn, &k, false));
  auto it = attrs.find(keyval);
  if (it != attrs.end()) {
    CHORUS_TRY_MPI(run_delete(object, keyval, it->second, call, raise_fn));
    it->second = value;
  } else {
    attrs.emplace(keyval, value);
    order.push_back(keyval);
    ++k->refs;
  }
  return MPI_SUCCESS;
}

int attr_get(const char* call, KeyKind kind, const std::map<int, void*>& attrs, int keyval, void* attribute_val,
             int* flag, const RaiseFn& raise_fn) {
  if (!attribute_val || !flag)
    return raise_fn(make_error(MPI_ERR_ARG, fmt::format("{}: {} is NULL", call, flag ? "attribute_val" : "flag")));
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, kind, keyval, raise_fn, &k));
  auto it = attrs.find(keyval);
  *flag = it != attrs.end();
  if (*flag) *static_cast<void**>(attribute_val) = it->second;
  return MPI_SUCCESS;
}

int attr_delete(const char* call, KeyKind kind, int object, std::map<int, void*>& attrs, std::vector<int>& order,
                int keyval, const RaiseFn& raise_fn) {
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, kind, keyval, raise_fn, &k));
  auto it = attrs.find(keyval);
  if (it == attrs.end())
    return raise_fn(make_error(MPI_ERR_KEYVAL, fmt::format("{}: the {} has no attribute for keyval 0x{:x}", call,
                                                           kind_name(kind), static_cast<unsigned>(keyval))));
  CHORUS_TRY_MPI(run_delete(object, keyval, it->second, call, raise_fn));
  attrs.erase(it);
  forget_order(order, keyval);
  unref(keyval);
  return MPI_SUCCESS;
}

bool keyval_valid(int keyval, KeyKind kind) {
  Keyval* k = slot(keyval);
  return k && k->kind == kind;  // freed but still used by attributes counts (check_keyval)
}

int attrs_copy_generic(int from, std::map<int, void*>& from_attrs, const std::vector<int>& from_order,
                       std::map<int, void*>& to_attrs, std::vector<int>& to_order, const char* call,
                       const RaiseFn& raise_fn) {
  for (int keyval : from_order) {  // the copies keep the order they were set in
    void* value = from_attrs.at(keyval);
    Keyval* k = slot(keyval);
    if (!k || !k->copy) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = k->copy(from, keyval, k->extra, value, &out, &flag);
    if (rc != MPI_SUCCESS) {
      // The call fails with what the callback returned (MPI 4.1 7.7.2). A class or
      // code the program added, or the code of a failed MPI call, is passed on as
      // it is (its handler and MPI_Error_string know it); a predefined class gets
      // a message naming the keyval; anything else is MPI_ERR_OTHER with the value.
      if (is_added_error(rc) || is_made_error(rc)) return raise_fn(rc);  // its class, its message
      std::string what = fmt::format("{}: the copy callback of keyval 0x{:x} returned {}", call,
                                     static_cast<unsigned>(keyval), rc);
      const bool predefined = rc > MPI_SUCCESS && rc <= kMaxErrorClass && rc != MPI_ERR_IN_STATUS;
      return raise_fn(make_error(predefined ? rc : MPI_ERR_OTHER, std::move(what)));
    }
    if (flag) {
      if (to_attrs.emplace(keyval, out).second) {
        to_order.push_back(keyval);
        ++k->refs;
      } else {
        to_attrs[keyval] = out;
      }
    }
  }
  return MPI_SUCCESS;
}

int attrs_copy(Comm* from, Comm* to, const char* call) {
  return attrs_copy_generic(from->handle, from->attrs, from->attr_order, to->attrs, to->attr_order, call,
                            comm_raiser(from));
}

// The last set first (MPI: MPI_COMM_SELF's at MPI_Finalize, in the reverse
// order of setting; the same order for any object freed).
int attrs_delete_generic(int object, std::map<int, void*>& attrs, std::vector<int>& order, const char* call,
                         const RaiseFn& raise_fn) {
  while (!order.empty()) {
    const int keyval = order.back();
    auto it = attrs.find(keyval);
    if (it != attrs.end()) CHORUS_TRY_MPI(run_delete(object, keyval, it->second, call, raise_fn));
    attrs.erase(keyval);
    order.pop_back();
    unref(keyval);
  }
  return MPI_SUCCESS;
}

int attrs_delete_all(Comm* c, const char* call) {
  return attrs_delete_generic(c->handle, c->attrs, c->attr_order, call, comm_raiser(c));
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Comm_free_keyval(int* comm_keyval) { return keyval_free("MPI_Comm_free_keyval", KeyKind::Comm, comm_keyval); }
CHORUS_ALIAS(MPI_Comm_free_keyval)

int PMPI_Keyval_free(int* keyval) { return keyval_free("MPI_Keyval_free", KeyKind::Comm, keyval); }
CHORUS_ALIAS(MPI_Keyval_free)

int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return comm_delete_attr("MPI_Attr_delete", comm, keyval); }
CHORUS_ALIAS(MPI_Attr_delete)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "keyval_forward.inc"

}  // extern "C"
