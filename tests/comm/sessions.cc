// Sessions inside an MPI_Init program (tests/comm/session_only.cc covers a
// program that never calls MPI_Init).
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

namespace {
int g_session_handler_calls = 0;
void session_handler(MPI_Session*, int*, ...) { ++g_session_handler_calls; }
}  // namespace

TEST_CASE("sessions: psets, groups, communicators", "[session]") {
  MPI_Session s;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
  int npsets = 0;
  MPI_OK(MPI_Session_get_num_psets(s, MPI_INFO_NULL, &npsets));
  CHECK(npsets == 2);
  std::vector<std::string> names;
  for (int i = 0; i < npsets; ++i) {
    int len = 0;
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, nullptr));
    std::string name(static_cast<std::size_t>(len), '\0');
    MPI_OK(MPI_Session_get_nth_pset(s, MPI_INFO_NULL, i, &len, name.data()));
    name.resize(static_cast<std::size_t>(len - 1));
    names.push_back(name);
  }
  CHECK(names == std::vector<std::string>{"mpi://WORLD", "mpi://SELF"});

  MPI_Info pinfo;
  MPI_OK(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo));
  char value[32];
  int flag = 0;
  MPI_OK(MPI_Info_get(pinfo, "mpi_size", 31, value, &flag));
  CHECK(flag == 1);
  CHECK(std::stoi(value) == jobs::size());
  MPI_OK(MPI_Info_free(&pinfo));

  MPI_Group g;
  MPI_OK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g));
  int gsize;
  MPI_OK(MPI_Group_size(g, &gsize));
  CHECK(gsize == jobs::size());
  MPI_Comm c;
  MPI_OK(MPI_Comm_create_from_group(g, "org.chorus.test", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  int result;
  MPI_OK(MPI_Comm_compare(c, MPI_COMM_WORLD, &result));
  CHECK(result == MPI_CONGRUENT);
  int out = jobs::rank(), in = -1;
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, jobs::right(), 1, &in, 1, MPI_INT, jobs::left(), 1, c,
                      MPI_STATUS_IGNORE));
  CHECK(in == jobs::left());
  MPI_Errhandler eh;
  MPI_OK(MPI_Comm_get_errhandler(c, &eh));
  CHECK(eh == MPI_ERRORS_RETURN);
  MPI_OK(MPI_Comm_free(&c));
  MPI_OK(MPI_Group_free(&g));

  MPI_OK(MPI_Group_from_session_pset(s, "mpi://SELF", &g));
  MPI_OK(MPI_Group_size(g, &gsize));
  CHECK(gsize == 1);
  MPI_OK(MPI_Comm_create_from_group(g, "self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c));
  MPI_OK(MPI_Comm_compare(c, MPI_COMM_SELF, &result));
  CHECK(result == MPI_CONGRUENT);
  MPI_OK(MPI_Comm_free(&c));
  MPI_OK(MPI_Group_free(&g));

  MPI_Info used;
  MPI_OK(MPI_Session_get_info(s, &used));
  MPI_OK(MPI_Info_get(used, "thread_level", 31, value, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Info_free(&used));

  // Errors go to the session's handler.
  CHECK(jobs::error_class(MPI_Group_from_session_pset(s, "mpi://NOPE", &g)) == MPI_ERR_ARG);
  MPI_Errhandler seh;
  MPI_OK(MPI_Session_create_errhandler(session_handler, &seh));
  MPI_OK(MPI_Session_set_errhandler(s, seh));
  MPI_Errhandler got;
  MPI_OK(MPI_Session_get_errhandler(s, &got));
  CHECK(got == seh);
  MPI_OK(MPI_Errhandler_free(&got));
  // The session holds its own reference: freeing ours leaves the handler in place.
  MPI_OK(MPI_Errhandler_free(&seh));
  g_session_handler_calls = 0;
  MPI_OK(MPI_Session_call_errhandler(s, MPI_ERR_OTHER));
  CHECK(g_session_handler_calls == 1);
  int n = 0;
  MPI_Session_get_nth_pset(s, MPI_INFO_NULL, 9, &n, nullptr);
  CHECK(g_session_handler_calls == 2);
  MPI_OK(MPI_Session_set_errhandler(s, MPI_ERRORS_RETURN));

  MPI_OK(MPI_Session_finalize(&s));
  CHECK(s == MPI_SESSION_NULL);
  // MPI_COMM_WORLD still works after the session is gone.
  int size;
  MPI_OK(MPI_Comm_size(MPI_COMM_WORLD, &size));
  CHECK(size == jobs::size());
}
