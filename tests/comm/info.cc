// MPI_Info round trips, MPI_INFO_ENV, and info on communicators.
#include <cstring>
#include <string>

#include "../jobs/mpi_test.h"

TEST_CASE("info round trip", "[info]") {
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  int nkeys = -1;
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 0);
  MPI_OK(MPI_Info_set(info, "alpha", "1"));
  MPI_OK(MPI_Info_set(info, "beta", "two"));
  MPI_OK(MPI_Info_set(info, "gamma", "three!"));
  MPI_OK(MPI_Info_set(info, "alpha", "one"));  // replaces, keeps the position
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 3);
  char key[MPI_MAX_INFO_KEY + 1];
  MPI_OK(MPI_Info_get_nthkey(info, 0, key));
  CHECK(std::string(key) == "alpha");
  MPI_OK(MPI_Info_get_nthkey(info, 2, key));
  CHECK(std::string(key) == "gamma");

  char value[64];
  int flag = 0, len = 0;
  MPI_OK(MPI_Info_get(info, "alpha", 63, value, &flag));
  CHECK(flag == 1);
  CHECK(std::string(value) == "one");
  MPI_OK(MPI_Info_get(info, "gamma", 3, value, &flag));  // truncated to 3 characters
  CHECK(std::string(value) == "thr");
  MPI_OK(MPI_Info_get(info, "missing", 63, value, &flag));
  CHECK(flag == 0);
  MPI_OK(MPI_Info_get_valuelen(info, "gamma", &len, &flag));
  CHECK(flag == 1);
  CHECK(len == 6);

  int buflen = 0;
  MPI_OK(MPI_Info_get_string(info, "beta", &buflen, nullptr, &flag));
  CHECK(flag == 1);
  CHECK(buflen == 4);
  buflen = 3;
  MPI_OK(MPI_Info_get_string(info, "beta", &buflen, value, &flag));
  CHECK(std::string(value) == "tw");
  CHECK(buflen == 4);

  MPI_Info copy;
  MPI_OK(MPI_Info_dup(info, &copy));
  MPI_OK(MPI_Info_delete(info, "beta"));
  MPI_OK(MPI_Info_get_nkeys(info, &nkeys));
  CHECK(nkeys == 2);
  MPI_OK(MPI_Info_get_nkeys(copy, &nkeys));
  CHECK(nkeys == 3);
  MPI_OK(MPI_Info_get(copy, "beta", 63, value, &flag));
  CHECK(std::string(value) == "two");
  MPI_OK(MPI_Info_free(&copy));
  CHECK(copy == MPI_INFO_NULL);

  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Info_delete(info, "beta")) == MPI_ERR_INFO_NOKEY);
  CHECK(jobs::error_class(MPI_Info_get_nthkey(info, 5, key)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Info_set(info, "", "x")) == MPI_ERR_INFO_KEY);
  std::string long_key(MPI_MAX_INFO_KEY + 5, 'k');
  CHECK(jobs::error_class(MPI_Info_set(info, long_key.c_str(), "x")) == MPI_ERR_INFO_KEY);
  MPI_Info stale = info;
  MPI_OK(MPI_Info_free(&info));
  CHECK(jobs::error_class(MPI_Info_get_nkeys(stale, &nkeys)) == MPI_ERR_INFO);
  CHECK(jobs::error_class(MPI_Info_get_nkeys(MPI_INFO_NULL, &nkeys)) == MPI_ERR_INFO);
}

TEST_CASE("MPI_INFO_ENV", "[info]") {
  int nkeys = 0, flag = 0;
  MPI_OK(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
  CHECK(nkeys > 0);
  char value[MPI_MAX_INFO_VAL + 1];
  MPI_OK(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, value, &flag));
  CHECK(flag == 1);
  CHECK(std::string(value).find("test_comm") != std::string::npos);
  MPI_Info env;
  MPI_OK(MPI_Info_create_env(0, nullptr, &env));
  int n2 = 0;
  MPI_OK(MPI_Info_get_nkeys(env, &n2));
  CHECK(n2 == nkeys);
  MPI_OK(MPI_Info_free(&env));
}

// MPICH and Open MPI take MPI_INFO_NULL here (no hints), and MPICH's test suite
// passes it; it was refused with MPI_ERR_INFO. Unknown keys are ignored.
TEST_CASE("Comm_dup_with_info and Comm_idup_with_info take MPI_INFO_NULL", "[info][comm]") {
  MPI_Comm d = MPI_COMM_NULL;
  MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d));
  REQUIRE(d != MPI_COMM_NULL);
  MPI_Info used;
  MPI_OK(MPI_Comm_get_info(d, &used));
  int nkeys = -1;
  MPI_OK(MPI_Info_get_nkeys(used, &nkeys));
  CHECK(nkeys == 0);
  MPI_OK(MPI_Info_free(&used));
  MPI_OK(MPI_Comm_free(&d));
  MPI_Request req;
  MPI_OK(MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &d, &req));
  MPI_OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  int same = 0;
  MPI_OK(MPI_Comm_compare(MPI_COMM_WORLD, d, &same));
  CHECK(same == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_free(&d));
  MPI_Info odd;
  MPI_OK(MPI_Info_create(&odd));
  MPI_OK(MPI_Info_set(odd, "no_such_hint_anywhere", "1"));
  MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, odd, &d));
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Info_free(&odd));
}

TEST_CASE("info on communicators", "[info][comm]") {
  MPI_Info info;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "mpi_assert_exact_length", "true"));
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d));
  MPI_Info used;
  MPI_OK(MPI_Comm_get_info(d, &used));
  char value[16];
  int flag = 0;
  MPI_OK(MPI_Info_get(used, "mpi_assert_exact_length", 15, value, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Info_free(&used));

  MPI_OK(MPI_Info_set(info, "mpi_assert_allow_overtaking", "false"));
  MPI_OK(MPI_Comm_set_info(d, info));
  MPI_Comm dd;
  MPI_OK(MPI_Comm_dup(d, &dd));  // dup copies the hints
  MPI_OK(MPI_Comm_get_info(dd, &used));
  int nkeys = 0;
  MPI_OK(MPI_Info_get_nkeys(used, &nkeys));
  CHECK(nkeys == 2);
  MPI_OK(MPI_Info_free(&used));
  MPI_OK(MPI_Comm_free(&dd));
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Info_free(&info));
}

TEST_CASE("communicators ignore info keys they do not know", "[info][comm]") {
  MPI_Info info, used;
  MPI_OK(MPI_Info_create(&info));
  MPI_OK(MPI_Info_set(info, "invalid_test_key", "true"));
  MPI_OK(MPI_Info_set(info, "mpi_assert_no_any_tag", "true"));
  MPI_Comm d;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
  MPI_OK(MPI_Comm_set_info(d, info));
  MPI_OK(MPI_Comm_get_info(d, &used));
  char value[16];
  int flag = 1;
  MPI_OK(MPI_Info_get(used, "invalid_test_key", 15, value, &flag));
  CHECK(flag == 0);
  MPI_OK(MPI_Info_get(used, "mpi_assert_no_any_tag", 15, value, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Info_free(&used));
  MPI_OK(MPI_Comm_free(&d));
  MPI_OK(MPI_Info_free(&info));
}
