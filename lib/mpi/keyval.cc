// Communicator keyvals and attributes (MPI_Comm_create_keyval & co., plus the
// MPI-1 names MPI_Keyval_create, MPI_Attr_put/delete). A keyval handle is
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

struct Keyval {
  MPI_Comm_copy_attr_function* copy = nullptr;     // nullptr: MPI_COMM_NULL_COPY_FN
  MPI_Comm_delete_attr_function* del = nullptr;    // nullptr: MPI_COMM_NULL_DELETE_FN
  void* extra = nullptr;
  int refs = 0;            // the handle (until freed) + every attribute using it
  bool freed = false;      // MPI_Comm_free_keyval was called
};
std::vector<std::unique_ptr<Keyval>> g_keyvals;

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

int check_keyval(const char* call, Comm* c, int keyval, Keyval** out) {
  Keyval* k = slot(keyval);
  if (!k || k->freed) {
    if (handle::kind(keyval) == handle::Builtin && handle::object(keyval) == handle::Keyval)
      return fail(c, MPI_ERR_KEYVAL, "{}: keyval 0x{:x} is a predefined attribute key, which is read-only",
                  call, static_cast<unsigned>(keyval));
    return fail(c, MPI_ERR_KEYVAL, "{}: invalid keyval 0x{:x}", call, static_cast<unsigned>(keyval));
  }
  *out = k;
  return MPI_SUCCESS;
}

// Run the delete callback of `c`'s attribute `keyval` (present).
int run_delete(Comm* c, int keyval, void* value, const char* call) {
  Keyval* k = slot(keyval);
  if (!k || !k->del) return MPI_SUCCESS;
  int rc = k->del(c->handle, keyval, value, k->extra);
  if (rc != MPI_SUCCESS)
    return fail(c, MPI_ERR_OTHER, "{}: the delete callback of keyval 0x{:x} returned {}", call,
                static_cast<unsigned>(keyval), rc);
  return MPI_SUCCESS;
}

int create_keyval(const char* call, MPI_Comm_copy_attr_function* copy,
                  MPI_Comm_delete_attr_function* del, int* keyval, void* extra) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!keyval) return fail(nullptr, MPI_ERR_ARG, "{}: keyval is NULL", call);
  std::size_t i = 0;
  while (i < g_keyvals.size() && g_keyvals[i]) ++i;
  if (i == g_keyvals.size()) g_keyvals.emplace_back();
  g_keyvals[i] = std::make_unique<Keyval>(Keyval{copy, del, extra, 1, false});
  *keyval = handle::make(handle::Direct, handle::Keyval, static_cast<int>(i));
  return MPI_SUCCESS;
}

int free_keyval(const char* call, int* keyval) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!keyval) return fail(nullptr, MPI_ERR_ARG, "{}: keyval is NULL", call);
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, nullptr, *keyval, &k));
  k->freed = true;
  unref(*keyval);
  *keyval = MPI_KEYVAL_INVALID;
  return MPI_SUCCESS;
}

int set_attr(const char* call, MPI_Comm comm, int keyval, void* value) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, c, keyval, &k));
  auto it = c->attrs.find(keyval);
  if (it != c->attrs.end()) {
    CHORUS_TRY_MPI(run_delete(c, keyval, it->second, call));
    it->second = value;
  } else {
    c->attrs.emplace(keyval, value);
    c->attr_order.push_back(keyval);
    ++k->refs;
  }
  return MPI_SUCCESS;
}

void forget_order(Comm* c, int keyval) {
  auto& o = c->attr_order;
  o.erase(std::remove(o.begin(), o.end(), keyval), o.end());
}

int delete_attr(const char* call, MPI_Comm comm, int keyval) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  Keyval* k;
  CHORUS_TRY_MPI(check_keyval(call, c, keyval, &k));
  auto it = c->attrs.find(keyval);
  if (it == c->attrs.end())
    return fail(c, MPI_ERR_KEYVAL, "{}: comm has no attribute for keyval 0x{:x}", call,
                static_cast<unsigned>(keyval));
  CHORUS_TRY_MPI(run_delete(c, keyval, it->second, call));
  c->attrs.erase(it);
  forget_order(c, keyval);
  unref(keyval);
  return MPI_SUCCESS;
}

}  // namespace

bool keyval_valid(int keyval) {
  Keyval* k = slot(keyval);
  return k && !k->freed;
}

int attrs_copy(Comm* from, Comm* to, const char* call) {
  for (int keyval : from->attr_order) {  // the copies keep the order they were set in
    void* value = from->attrs.at(keyval);
    Keyval* k = slot(keyval);
    if (!k || !k->copy) continue;
    void* out = nullptr;
    int flag = 0;
    int rc = k->copy(from->handle, keyval, k->extra, value, &out, &flag);
    if (rc != MPI_SUCCESS)
      return fail(from, MPI_ERR_OTHER, "{}: the copy callback of keyval 0x{:x} returned {}", call,
                  static_cast<unsigned>(keyval), rc);
    if (flag) {
      if (to->attrs.emplace(keyval, out).second) {
        to->attr_order.push_back(keyval);
        ++k->refs;
      } else {
        to->attrs[keyval] = out;
      }
    }
  }
  return MPI_SUCCESS;
}

// The last set first (MPI: MPI_COMM_SELF's at MPI_Finalize, in the reverse
// order of setting; the same order for any communicator freed).
int attrs_delete_all(Comm* c, const char* call) {
  while (!c->attr_order.empty()) {
    const int keyval = c->attr_order.back();
    auto it = c->attrs.find(keyval);
    if (it != c->attrs.end()) CHORUS_TRY_MPI(run_delete(c, keyval, it->second, call));
    c->attrs.erase(keyval);
    c->attr_order.pop_back();
    unref(keyval);
  }
  return MPI_SUCCESS;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

extern "C" {

int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                            MPI_Comm_delete_attr_function* comm_delete_attr_fn, int* comm_keyval,
                            void* extra_state) {
  return create_keyval("MPI_Comm_create_keyval", comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval,
                       extra_state);
}
CHORUS_ALIAS(MPI_Comm_create_keyval)

int PMPI_Keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int* keyval,
                       void* extra_state) {
  return create_keyval("MPI_Keyval_create", copy_fn, delete_fn, keyval, extra_state);
}
CHORUS_ALIAS(MPI_Keyval_create)

int PMPI_Comm_free_keyval(int* comm_keyval) { return free_keyval("MPI_Comm_free_keyval", comm_keyval); }
CHORUS_ALIAS(MPI_Comm_free_keyval)

int PMPI_Keyval_free(int* keyval) { return free_keyval("MPI_Keyval_free", keyval); }
CHORUS_ALIAS(MPI_Keyval_free)

int PMPI_Comm_set_attr(MPI_Comm comm, int comm_keyval, void* attribute_val) {
  return set_attr("MPI_Comm_set_attr", comm, comm_keyval, attribute_val);
}
CHORUS_ALIAS(MPI_Comm_set_attr)

int PMPI_Attr_put(MPI_Comm comm, int keyval, void* attribute_val) {
  return set_attr("MPI_Attr_put", comm, keyval, attribute_val);
}
CHORUS_ALIAS(MPI_Attr_put)

int PMPI_Comm_delete_attr(MPI_Comm comm, int comm_keyval) {
  return delete_attr("MPI_Comm_delete_attr", comm, comm_keyval);
}
CHORUS_ALIAS(MPI_Comm_delete_attr)

int PMPI_Attr_delete(MPI_Comm comm, int keyval) { return delete_attr("MPI_Attr_delete", comm, keyval); }
CHORUS_ALIAS(MPI_Attr_delete)

}  // extern "C"
