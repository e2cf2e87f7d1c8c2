// Keyvals and attributes: copy callbacks on dup, delete callbacks on free,
// set/get/delete, the MPI-1 names, predefined keys, errors.
#include <vector>

#include "../jobs/mpi_test.h"

namespace {

struct Counts {
  int copies = 0;
  int deletes = 0;
  std::vector<long> deleted;  // values seen by the delete callback
};

// Copies value + 1; the extra state counts calls.
int copy_plus_one(MPI_Comm, int, void* extra, void* in, void* out, int* flag) {
  auto* c = static_cast<Counts*>(extra);
  ++c->copies;
  *static_cast<void**>(out) = reinterpret_cast<void*>(reinterpret_cast<long>(in) + 1);
  *flag = 1;
  return MPI_SUCCESS;
}

int count_delete(MPI_Comm, int, void* value, void* extra) {
  auto* c = static_cast<Counts*>(extra);
  ++c->deletes;
  c->deleted.push_back(reinterpret_cast<long>(value));
  return MPI_SUCCESS;
}

// Fails with *extra (MPI_ERR_OTHER without one).
int failing_copy(MPI_Comm, int, void* extra, void*, void*, int* flag) {
  *flag = 0;
  return extra ? *static_cast<int*>(extra) : MPI_ERR_OTHER;
}

void* as_ptr(long v) { return reinterpret_cast<void*>(v); }

}  // namespace

TEST_CASE("attribute copy callbacks on dup, delete callbacks on free", "[attr]") {
  Counts counts;
  int key;
  MPI_OK(MPI_Comm_create_keyval(copy_plus_one, count_delete, &key, &counts));
  MPI_Comm a;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_attr(a, key, as_ptr(10)));
  void* v = nullptr;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(a, key, &v, &flag));
  CHECK(flag == 1);
  CHECK(v == as_ptr(10));

  MPI_Comm b;
  MPI_OK(MPI_Comm_dup(a, &b));
  CHECK(counts.copies == 1);
  MPI_OK(MPI_Comm_get_attr(b, key, &v, &flag));
  CHECK(flag == 1);
  CHECK(v == as_ptr(11));

  // Overwriting runs the delete callback on the old value.
  MPI_OK(MPI_Comm_set_attr(b, key, as_ptr(20)));
  CHECK(counts.deletes == 1);
  CHECK(counts.deleted.back() == 11);

  MPI_OK(MPI_Comm_free(&b));
  CHECK(counts.deletes == 2);
  CHECK(counts.deleted.back() == 20);

  MPI_OK(MPI_Comm_delete_attr(a, key));
  CHECK(counts.deletes == 3);
  CHECK(counts.deleted.back() == 10);
  MPI_OK(MPI_Comm_get_attr(a, key, &v, &flag));
  CHECK(flag == 0);

  // Freeing the keyval while an attribute uses it: the callback still runs later.
  MPI_OK(MPI_Comm_set_attr(a, key, as_ptr(30)));
  MPI_OK(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  MPI_OK(MPI_Comm_free(&a));
  CHECK(counts.deletes == 4);
  CHECK(counts.deleted.back() == 30);
  // Split and create do not copy attributes.
  CHECK(counts.copies == 1);
}

TEST_CASE("null and dup copy functions", "[attr]") {
  int knull, kdup;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, nullptr));
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, nullptr));
  MPI_Comm a, b;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_attr(a, knull, as_ptr(1)));
  MPI_OK(MPI_Comm_set_attr(a, kdup, as_ptr(2)));
  MPI_OK(MPI_Comm_dup(a, &b));
  void* v;
  int flag = -1;
  MPI_OK(MPI_Comm_get_attr(b, knull, &v, &flag));
  CHECK(flag == 0);
  MPI_OK(MPI_Comm_get_attr(b, kdup, &v, &flag));
  CHECK(flag == 1);
  CHECK(v == as_ptr(2));
  MPI_OK(MPI_Comm_free(&b));
  MPI_OK(MPI_Comm_free(&a));
  MPI_OK(MPI_Comm_free_keyval(&knull));
  MPI_OK(MPI_Comm_free_keyval(&kdup));
}

TEST_CASE("a failing copy callback fails the dup", "[attr]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  int key;
  MPI_OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &key, nullptr));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, as_ptr(1)));
  MPI_Comm d = MPI_COMM_WORLD;  // not MPI_COMM_NULL: the failed dup must set it
  int rc = MPI_Comm_dup(MPI_COMM_WORLD, &d);
  CHECK(rc != MPI_SUCCESS);
  CHECK(d == MPI_COMM_NULL);  // MPI: newcomm is MPI_COMM_NULL when a copy callback fails
  MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
  MPI_OK(MPI_Comm_free_keyval(&key));
  // The context of the failed dup was released: dups still work.
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_OK(MPI_Comm_free(&d));
}

TEST_CASE("a copy callback's error is what the dup returns", "[attr]") {
  // MPICH's errors/comm/userdup: a class or code the program added comes back as
  // it is, so MPI_Error_class and MPI_Error_string say what the program said.
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  int cls, code;
  MPI_OK(MPI_Add_error_class(&cls));
  MPI_OK(MPI_Add_error_code(cls, &code));
  MPI_OK(MPI_Add_error_string(code, "the copy said no"));
  // The code of a failed call (with its own message): its class survives.
  int dummy = 0;
  const int failed = MPI_Comm_rank(MPI_COMM_NULL, &dummy);
  int failed_cls = -1;
  MPI_OK(MPI_Error_class(failed, &failed_cls));
  struct Want {
    int returned, code, cls;  // code -1: any code of class cls
  };
  for (Want w : {Want{cls, cls, cls}, Want{code, code, cls}, Want{MPI_ERR_ARG, -1, MPI_ERR_ARG},
                 Want{failed, failed, failed_cls}, Want{123456789, -1, MPI_ERR_OTHER}}) {
    INFO("the callback returns " << w.returned);
    int key;
    MPI_OK(MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &key, &w.returned));
    MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, as_ptr(1)));
    MPI_Comm d = MPI_COMM_WORLD;
    const int rc = MPI_Comm_dup(MPI_COMM_WORLD, &d);
    CHECK(d == MPI_COMM_NULL);
    if (w.code >= 0) CHECK(rc == w.code);
    int got = -1;
    MPI_OK(MPI_Error_class(rc, &got));
    CHECK(got == w.cls);
    if (w.returned == code) {
      char text[MPI_MAX_ERROR_STRING];
      int len = 0;
      MPI_OK(MPI_Error_string(rc, text, &len));
      CHECK(std::string(text, static_cast<std::size_t>(len)) == "the copy said no");
    }
    MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, key));
    MPI_OK(MPI_Comm_free_keyval(&key));
  }
}

TEST_CASE("MPI-1 keyval names", "[attr]") {
  Counts counts;
  int key;
  MPI_OK(MPI_Keyval_create(copy_plus_one, count_delete, &key, &counts));
  MPI_OK(MPI_Attr_put(MPI_COMM_WORLD, key, as_ptr(5)));
  void* v;
  int flag = 0;
  MPI_OK(MPI_Attr_get(MPI_COMM_WORLD, key, &v, &flag));
  CHECK(flag == 1);
  CHECK(v == as_ptr(5));
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_OK(MPI_Attr_get(d, key, &v, &flag));
  CHECK(v == as_ptr(6));
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Attr_delete(MPI_COMM_WORLD, key));
  CHECK(counts.deletes == 2);
  MPI_OK(MPI_Keyval_free(&key));
}

TEST_CASE("predefined attributes and keyval errors", "[attr][errors]") {
  void* v;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
  CHECK(flag == 1);
  CHECK(*static_cast<int*>(v) >= 32767);
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_OK(MPI_Comm_get_attr(d, MPI_TAG_UB, &v, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Comm_free(&d));

  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, MPI_TAG_UB, as_ptr(1))) == MPI_ERR_KEYVAL);
  CHECK(jobs::error_class(MPI_Comm_get_attr(MPI_COMM_WORLD, 12345, &v, &flag)) == MPI_ERR_KEYVAL);
  int key;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &key, nullptr));
  CHECK(jobs::error_class(MPI_Comm_delete_attr(MPI_COMM_WORLD, key)) == MPI_ERR_KEYVAL);
  int stale = key;
  MPI_OK(MPI_Comm_free_keyval(&key));
  CHECK(jobs::error_class(MPI_Comm_set_attr(MPI_COMM_WORLD, stale, as_ptr(1))) == MPI_ERR_KEYVAL);
  CHECK(jobs::error_class(MPI_Comm_free_keyval(&stale)) == MPI_ERR_KEYVAL);
}

namespace {
int frees_own_keyval(MPI_Comm, int keyval, void*, void*) {
  return MPI_Comm_free_keyval(&keyval);
}
}  // namespace

TEST_CASE("a keyval freed while attributes use it: more frees and deletes still work", "[comm][attr]") {
  // What MPICH's attr/keyval_double_free does: the delete callback frees the keyval
  // again, then the program frees it twice more, once through a copy of the handle.
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  int key = MPI_KEYVAL_INVALID;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, frees_own_keyval, &key, nullptr));
  int copy = key;
  MPI_OK(MPI_Comm_set_attr(dup, key, nullptr));
  MPI_OK(MPI_Comm_set_attr(MPI_COMM_WORLD, key, nullptr));
  MPI_OK(MPI_Comm_free(&dup));
  MPI_OK(MPI_Comm_free_keyval(&key));
  CHECK(key == MPI_KEYVAL_INVALID);
  int* v = nullptr;
  int flag = 0;
  MPI_OK(MPI_Comm_get_attr(MPI_COMM_WORLD, copy, &v, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Comm_delete_attr(MPI_COMM_WORLD, copy));  // the last use: the keyval goes
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Comm_free_keyval(&copy)) == MPI_ERR_KEYVAL);
}
