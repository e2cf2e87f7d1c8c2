// A program that never calls MPI_Init: MPI_Session_init must bring the runtime
// up, and MPI_Session_finalize take it down. Exit status 0 on success.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
int g_failures = 0;
#define EXPECT(cond)                                                               \
  do {                                                                             \
    if (!(cond)) {                                                                 \
      std::fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond);      \
      ++g_failures;                                                                \
    }                                                                              \
  } while (0)
}  // namespace

int main() {
  int flag = 1;
  EXPECT(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);
  MPI_Info info;
  EXPECT(MPI_Info_create(&info) == MPI_SUCCESS);  // allowed before any init
  EXPECT(MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE") == MPI_SUCCESS);
  MPI_Session s;
  EXPECT(MPI_Session_init(info, MPI_ERRORS_RETURN, &s) == MPI_SUCCESS);
  EXPECT(MPI_Info_free(&info) == MPI_SUCCESS);
  EXPECT(MPI_Initialized(&flag) == MPI_SUCCESS && flag == 0);

  MPI_Info pinfo;
  EXPECT(MPI_Session_get_pset_info(s, "mpi://WORLD", &pinfo) == MPI_SUCCESS);
  char value[32] = {};
  EXPECT(MPI_Info_get(pinfo, "mpi_size", 31, value, &flag) == MPI_SUCCESS && flag == 1);
  int world_size = std::atoi(value);
  EXPECT(world_size >= 1);
  MPI_Info_free(&pinfo);

  MPI_Group g;
  EXPECT(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS);
  int gsize = 0, grank = -1;
  MPI_Group_size(g, &gsize);
  MPI_Group_rank(g, &grank);
  EXPECT(gsize == world_size);
  MPI_Comm c;
  EXPECT(MPI_Comm_create_from_group(g, "session_only", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) == MPI_SUCCESS);
  int size = 0, rank = -1;
  MPI_Comm_size(c, &size);
  MPI_Comm_rank(c, &rank);
  EXPECT(size == world_size);
  EXPECT(rank == grank);
  // Ring exchange and a split inside the session's communicator.
  int out = rank, in = -1;
  EXPECT(MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT, (rank - 1 + size) % size, 0,
                      c, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  EXPECT(in == (rank - 1 + size) % size);
  MPI_Comm half;
  EXPECT(MPI_Comm_split(c, rank % 2, rank, &half) == MPI_SUCCESS);
  int hs = 0;
  MPI_Comm_size(half, &hs);
  EXPECT(hs == (size + 1 - rank % 2) / 2);
  MPI_Comm_free(&half);
  for (int i = 0; i < 200; ++i) {
    MPI_Comm d;
    if (MPI_Comm_dup(c, &d) != MPI_SUCCESS || MPI_Comm_free(&d) != MPI_SUCCESS) {
      EXPECT(false);
      break;
    }
  }
  EXPECT(MPI_Comm_free(&c) == MPI_SUCCESS);
  MPI_Group_free(&g);
  EXPECT(MPI_Session_finalize(&s) == MPI_SUCCESS);
  EXPECT(MPI_Finalized(&flag) == MPI_SUCCESS && flag == 0);
  if (g_failures) std::fprintf(stderr, "rank %d: %d failure(s)\n", rank, g_failures);
  else if (rank == 0) std::printf("session_only: all checks passed on %d ranks\n", size);
  return g_failures ? 1 : 0;
}
