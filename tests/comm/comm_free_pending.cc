// MPI_Comm_free while operations on the communicator are still pending: they
// complete normally (MPI 4.1, 7.4.3), and the freed communicator's context id is
// not given to a new communicator while a receive posted on the freed one could
// still match a message.
#include <cstring>
#include <vector>

#include "../jobs/mpi_test.h"

using jobs::rank;
using jobs::size;

TEST_CASE("MPI_Comm_free during a running MPI_Ibcast, then MPI_Wait", "[comm][free]") {
  // 100 KiB and 1 MiB go in several rounds (segmented), so the collective is still
  // running when the communicator is freed; it used to read the freed object.
  for (int bytes : {100 * 1024, 1 << 20}) {
    for (int round = 0; round < 5; ++round) {
      MPI_Comm c;
      MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
      std::vector<unsigned char> buf(static_cast<std::size_t>(bytes));
      const int root = round % size();
      for (int i = 0; i < bytes; ++i)
        buf[static_cast<std::size_t>(i)] = rank() == root ? static_cast<unsigned char>(i * 7 + round) : 0;
      MPI_Request r;
      MPI_OK(MPI_Ibcast(buf.data(), bytes, MPI_BYTE, root, c, &r));
      MPI_OK(MPI_Comm_free(&c));
      CHECK(c == MPI_COMM_NULL);
      MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
      int bad = 0;
      for (int i = 0; i < bytes; ++i)
        if (buf[static_cast<std::size_t>(i)] != static_cast<unsigned char>(i * 7 + round)) ++bad;
      CHECK(bad == 0);
    }
  }
}

TEST_CASE("MPI_Comm_free with a receive pending: the receive completes", "[comm][free]") {
  if (size() < 2) return;
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  int v = -1;
  MPI_Request r = MPI_REQUEST_NULL;
  if (rank() == 1) MPI_OK(MPI_Irecv(&v, 1, MPI_INT, 0, 5, c, &r));
  if (rank() == 0) {
    int x = 4242;
    MPI_OK(MPI_Send(&x, 1, MPI_INT, 1, 5, c));
  }
  MPI_OK(MPI_Comm_free(&c));
  if (rank() == 1) {
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    CHECK(v == 4242);
    CHECK(st.MPI_SOURCE == 0);
  }
}

// Rank 1 posts a wildcard-source receive on `a` and frees `a`; ranks 0 and 1 then
// build `b` over the two of them (so rank 2, which still holds `a`, has no say in
// the context id). Rank 0 sends 8 bytes on `b`, rank 2 then sends 4000 bytes on
// `a`. Each message must reach the receive of its own communicator: with the id of
// `a` reused for `b`, the 8 bytes matched the receive posted on `a` (posted first)
// and the receive on `b` got the 4000 bytes, truncated.
TEST_CASE("a freed communicator's context id is not reused while a receive is pending",
          "[comm][free]") {
  if (size() < 3) return;
  MPI_Comm a;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &a));
  MPI_OK(MPI_Comm_set_errhandler(a, MPI_ERRORS_RETURN));
  std::vector<char> big(4000, 0);
  MPI_Request ra = MPI_REQUEST_NULL;
  if (rank() == 1) MPI_OK(MPI_Irecv(big.data(), 4000, MPI_CHAR, MPI_ANY_SOURCE, 7, a, &ra));
  if (rank() != 2) MPI_OK(MPI_Comm_free(&a));
  MPI_Group world_group, pair;
  MPI_OK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
  const int members[2] = {0, 1};
  MPI_OK(MPI_Group_incl(world_group, 2, members, &pair));
  MPI_Comm b = MPI_COMM_NULL;
  if (rank() < 2) {
    MPI_OK(MPI_Comm_create_group(MPI_COMM_WORLD, pair, 11, &b));
    MPI_OK(MPI_Comm_set_errhandler(b, MPI_ERRORS_RETURN));
  }
  char small[8] = {0};
  MPI_Request rb = MPI_REQUEST_NULL;
  if (rank() == 1) MPI_OK(MPI_Irecv(small, 8, MPI_CHAR, 0, 7, b, &rb));
  if (rank() == 0) {
    const char msg[8] = {'n', 'e', 'w', ' ', 'c', 'o', 'm', 'm'};
    MPI_OK(MPI_Send(msg, 8, MPI_CHAR, 1, 7, b));
  }
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  // the 8 bytes went first
  if (rank() == 2) {
    std::vector<char> msg(4000, 'o');
    MPI_OK(MPI_Send(msg.data(), 4000, MPI_CHAR, 1, 7, a));
    MPI_OK(MPI_Comm_free(&a));
  }
  if (rank() == 1) {
    MPI_Status sb, sa;
    CHECK(MPI_Wait(&rb, &sb) == MPI_SUCCESS);
    CHECK(std::memcmp(small, "new comm", 8) == 0);
    int n = -1;
    MPI_Get_count(&sb, MPI_CHAR, &n);
    CHECK(n == 8);
    CHECK(MPI_Wait(&ra, &sa) == MPI_SUCCESS);
    MPI_Get_count(&sa, MPI_CHAR, &n);
    CHECK(n == 4000);
    CHECK(sa.MPI_SOURCE == 2);
    CHECK(big[0] == 'o');
    CHECK(big[3999] == 'o');
  }
  if (b != MPI_COMM_NULL) MPI_OK(MPI_Comm_free(&b));
  MPI_OK(MPI_Group_free(&pair));
  MPI_OK(MPI_Group_free(&world_group));
}
