// Point-to-point: message order, many outstanding requests and truncation errors.
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;
using jobs::size;

namespace {

int value(int src, int i) { return src * 1000033 + i; }

}  // namespace

TEST_CASE("Messages with the same source and tag arrive in order", "[p2p][order]") {
  const int nmsg = 1000;
  std::vector<int> out(nmsg), in(nmsg, -1);
  std::vector<MPI_Request> sreqs(nmsg);
  for (int i = 0; i < nmsg; ++i) {
    out[i] = value(rank(), i);
    MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, right(), 500, MPI_COMM_WORLD, &sreqs[i]));
  }
  // Half received with blocking receives, half with receives posted together.
  for (int i = 0; i < nmsg / 2; ++i) {
    MPI_OK(MPI_Recv(&in[i], 1, MPI_INT, left(), 500, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  std::vector<MPI_Request> rreqs(nmsg / 2);
  for (int i = nmsg / 2; i < nmsg; ++i) {
    MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, left(), 500, MPI_COMM_WORLD, &rreqs[i - nmsg / 2]));
  }
  MPI_OK(MPI_Waitall(nmsg / 2, rreqs.data(), MPI_STATUSES_IGNORE));
  MPI_OK(MPI_Waitall(nmsg, sreqs.data(), MPI_STATUSES_IGNORE));
  int out_of_order = 0;
  for (int i = 0; i < nmsg; ++i) out_of_order += in[i] != value(left(), i);
  CHECK(out_of_order == 0);
}

TEST_CASE("Small, large, small messages keep their order", "[p2p][order]") {
  const int big = 1 << 20;  // 1 MiB
  const int sizes[5] = {8, big, 8, big, 0};
  std::vector<std::vector<unsigned char>> out(5), in(5);
  std::vector<MPI_Request> reqs(10);
  for (int m = 0; m < 5; ++m) {
    in[m].assign(big, 0);
    MPI_OK(MPI_Irecv(in[m].data(), big, MPI_BYTE, left(), 510, MPI_COMM_WORLD, &reqs[m]));
  }
  for (int m = 0; m < 5; ++m) {
    out[m].resize(sizes[m]);
    for (int i = 0; i < sizes[m]; ++i) out[m][i] = static_cast<unsigned char>(rank() * 31 + m * 7 + i);
    MPI_OK(MPI_Isend(out[m].data(), sizes[m], MPI_BYTE, right(), 510, MPI_COMM_WORLD, &reqs[5 + m]));
  }
  std::vector<MPI_Status> sts(10);
  MPI_OK(MPI_Waitall(10, reqs.data(), sts.data()));
  for (int m = 0; m < 5; ++m) {
    INFO("message " << m);
    int count = -1;
    MPI_OK(MPI_Get_count(&sts[m], MPI_BYTE, &count));
    CHECK(count == sizes[m]);
    int bad = 0;
    for (int i = 0; i < sizes[m]; ++i) bad += in[m][i] != static_cast<unsigned char>(left() * 31 + m * 7 + i);
    CHECK(bad == 0);
  }

  // Same with blocking receives posted after all the sends (unexpected messages).
  for (int m = 0; m < 5; ++m) {
    MPI_OK(MPI_Isend(out[m].data(), sizes[m], MPI_BYTE, right(), 511, MPI_COMM_WORLD, &reqs[m]));
  }
  for (int m = 0; m < 5; ++m) {
    std::fill(in[m].begin(), in[m].end(), 0);
    MPI_Status st;
    MPI_OK(MPI_Recv(in[m].data(), big, MPI_BYTE, left(), 511, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    CHECK(count == sizes[m]);
    if (sizes[m] > 0) CHECK(in[m][sizes[m] - 1] == static_cast<unsigned char>(left() * 31 + m * 7 + sizes[m] - 1));
  }
  MPI_OK(MPI_Waitall(5, reqs.data(), MPI_STATUSES_IGNORE));
}

TEST_CASE("MPI_ANY_SOURCE receives keep each sender's order", "[p2p][order][any_source]") {
  const int per_sender = 200;
  if (rank() == 0) {
    std::vector<int> next(size(), 0);
    const int total = per_sender * (size() - 1);
    int bad = 0;
    for (int k = 0; k < total; ++k) {
      int msg[2] = {-1, -1};
      MPI_Status st;
      MPI_OK(MPI_Recv(msg, 2, MPI_INT, MPI_ANY_SOURCE, 520, MPI_COMM_WORLD, &st));
      const int src = st.MPI_SOURCE;
      REQUIRE(src > 0);
      REQUIRE(src < size());
      bad += msg[0] != src;
      bad += msg[1] != next[src];
      ++next[src];
    }
    CHECK(bad == 0);
    for (int r = 1; r < size(); ++r) CHECK(next[r] == per_sender);
  } else {
    std::vector<int> msgs(2 * per_sender);
    std::vector<MPI_Request> reqs(per_sender);
    for (int i = 0; i < per_sender; ++i) {
      msgs[2 * i] = rank();
      msgs[2 * i + 1] = i;
      // Mix standard and synchronous sends.
      if (i % 10 == 0) {
        MPI_OK(MPI_Issend(&msgs[2 * i], 2, MPI_INT, 0, 520, MPI_COMM_WORLD, &reqs[i]));
      } else {
        MPI_OK(MPI_Isend(&msgs[2 * i], 2, MPI_INT, 0, 520, MPI_COMM_WORLD, &reqs[i]));
      }
    }
    MPI_OK(MPI_Waitall(per_sender, reqs.data(), MPI_STATUSES_IGNORE));
  }
}

TEST_CASE("10,000 outstanding Isend/Irecv pairs around a ring", "[p2p][many]") {
  const int n = 10000;
  std::vector<int> out(n), in(n, -1);
  std::vector<MPI_Request> reqs(2 * n);
  for (int i = 0; i < n; ++i) {
    MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, left(), 530 + i % 100, MPI_COMM_WORLD, &reqs[i]));
  }
  for (int i = 0; i < n; ++i) {
    out[i] = value(rank(), i);
    MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, right(), 530 + i % 100, MPI_COMM_WORLD, &reqs[n + i]));
  }
  std::vector<MPI_Status> sts(2 * n);
  MPI_OK(MPI_Waitall(2 * n, reqs.data(), sts.data()));
  int bad = 0;
  for (int i = 0; i < n; ++i) {
    bad += in[i] != value(left(), i);
    bad += sts[i].MPI_TAG != 530 + i % 100;
    bad += sts[i].MPI_SOURCE != left();
    bad += reqs[i] != MPI_REQUEST_NULL || reqs[n + i] != MPI_REQUEST_NULL;
  }
  CHECK(bad == 0);
}

TEST_CASE("MPI_ERR_TRUNCATE when the message is longer than the receive buffer",
          "[p2p][truncate][errors]") {
  jobs::ErrorsReturn errors_return(MPI_COMM_WORLD);
  std::vector<int> out(16);
  for (int i = 0; i < 16; ++i) out[i] = value(rank(), i);
  std::vector<int> in(16, -1);
  MPI_Request sreqs[3];
  MPI_OK(MPI_Isend(out.data(), 16, MPI_INT, right(), 540, MPI_COMM_WORLD, &sreqs[0]));
  MPI_OK(MPI_Isend(out.data(), 16, MPI_INT, right(), 541, MPI_COMM_WORLD, &sreqs[1]));
  MPI_OK(MPI_Isend(out.data(), 4, MPI_INT, right(), 542, MPI_COMM_WORLD, &sreqs[2]));

  MPI_Status st;
  int rc = MPI_Recv(in.data(), 8, MPI_INT, left(), 540, MPI_COMM_WORLD, &st);
  CHECK(rc != MPI_SUCCESS);
  CHECK(jobs::error_class(rc) == MPI_ERR_TRUNCATE);
  CHECK(in[8] == -1);  // nothing written past the buffer

  // Waitall: one truncated and one good receive.
  MPI_Request rreqs[2];
  std::vector<int> in2(4, -1);
  MPI_OK(MPI_Irecv(in.data(), 8, MPI_INT, left(), 541, MPI_COMM_WORLD, &rreqs[0]));
  MPI_OK(MPI_Irecv(in2.data(), 4, MPI_INT, left(), 542, MPI_COMM_WORLD, &rreqs[1]));
  MPI_Status sts[2];
  sts[0].MPI_ERROR = sts[1].MPI_ERROR = -12345;
  rc = MPI_Waitall(2, rreqs, sts);
  CHECK(rc == MPI_ERR_IN_STATUS);
  CHECK(jobs::error_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
  CHECK(rreqs[0] == MPI_REQUEST_NULL);  // failed, but complete
  // The good receive either completed or, if the implementation stopped at the
  // error, is reported as MPI_ERR_PENDING and still active (MPI-4 3.7.5).
  const int e1 = sts[1].MPI_ERROR;
  CHECK((e1 == MPI_SUCCESS || e1 == MPI_ERR_PENDING));
  if (e1 == MPI_ERR_PENDING) {
    CHECK(rreqs[1] != MPI_REQUEST_NULL);
    MPI_OK(MPI_Wait(&rreqs[1], MPI_STATUS_IGNORE));
  }
  CHECK(rreqs[1] == MPI_REQUEST_NULL);
  CHECK(in2[3] == value(left(), 3));
  MPI_OK(MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE));

  // The error string is non-empty.
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_OK(MPI_Error_string(MPI_ERR_TRUNCATE, text, &len));
  CHECK(len > 0);
}

// MPICH's errors/pt2pt/truncmsg2: 3 MPI_CHARs received as MPI_INTs end inside an
// int, so the type signatures differ; the receive fails with MPI_ERR_TYPE (it
// succeeded in silence). Whole elements of another type (8 bytes as 2 ints) are
// not detectable and still pass. Every receive path: Recv of a contiguous and of
// a non-contiguous type, Irecv, Recv_init, Mprobe + Mrecv.
TEST_CASE("A receive that ends inside a basic element is MPI_ERR_TYPE", "[p2p][errors][type_mismatch]") {
  jobs::ErrorsReturn errors_return(MPI_COMM_WORLD);
  const char out[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  MPI_Datatype indexed;  // ints 4, 8-9 and 16 of the buffer, as in truncmsg2
  const int lens[3] = {1, 2, 1}, displs[3] = {4, 8, 16};
  MPI_OK(MPI_Type_indexed(3, lens, displs, MPI_INT, &indexed));
  MPI_OK(MPI_Type_commit(&indexed));
  constexpr int kWays = 5;
  MPI_Request sreqs[kWays + 1];
  for (int w = 0; w < kWays; ++w)
    MPI_OK(MPI_Isend(out, 3, MPI_CHAR, right(), 560 + w, MPI_COMM_WORLD, &sreqs[w]));
  MPI_OK(MPI_Isend(out, 8, MPI_CHAR, right(), 570, MPI_COMM_WORLD, &sreqs[kWays]));
  std::vector<int> in(32, -1);
  for (int w = 0; w < kWays; ++w) {
    INFO("receive path " << w);
    MPI_Status st;
    st.MPI_ERROR = -1;
    int rc = MPI_SUCCESS;
    MPI_Request r;
    MPI_Message m;
    switch (w) {
      case 0: rc = MPI_Recv(in.data(), 4, MPI_INT, left(), 560, MPI_COMM_WORLD, &st); break;
      case 1: rc = MPI_Recv(in.data(), 1, indexed, left(), 561, MPI_COMM_WORLD, &st); break;
      case 2:
        MPI_OK(MPI_Irecv(in.data(), 4, MPI_INT, left(), 562, MPI_COMM_WORLD, &r));
        rc = MPI_Wait(&r, &st);
        CHECK(r == MPI_REQUEST_NULL);
        break;
      case 3:
        MPI_OK(MPI_Recv_init(in.data(), 4, MPI_INT, left(), 563, MPI_COMM_WORLD, &r));
        MPI_OK(MPI_Start(&r));
        rc = MPI_Wait(&r, &st);
        MPI_OK(MPI_Request_free(&r));
        break;
      case 4:
        MPI_OK(MPI_Mprobe(left(), 564, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE));
        rc = MPI_Mrecv(in.data(), 4, MPI_INT, &m, &st);
        break;
    }
    CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
    int n = -1;
    MPI_OK(MPI_Get_count(&st, MPI_CHAR, &n));
    CHECK(n == 3);
  }
  MPI_Status st;
  MPI_OK(MPI_Recv(in.data(), 2, MPI_INT, left(), 570, MPI_COMM_WORLD, &st));
  int n = -1;
  MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 2);
  MPI_OK(MPI_Waitall(kWays + 1, sreqs, MPI_STATUSES_IGNORE));
  MPI_OK(MPI_Type_free(&indexed));
}
