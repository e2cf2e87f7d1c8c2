// Point-to-point: request completion (Wait/Test families), cancel, Request_free,
// Request_get_status, Get_count/Get_elements and persistent requests.
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <set>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;
using jobs::size;

namespace {

int value(int src, int i) { return src * 100003 + i; }

void check_empty_status(const MPI_Status& st) {
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE);
  CHECK(st.MPI_TAG == MPI_ANY_TAG);
  CHECK(st.MPI_ERROR == MPI_SUCCESS);  // part of MPI's empty status (left as it was before)
  int count = -1, cancelled = -1;
  MPI_Get_count(&st, MPI_BYTE, &count);
  CHECK(count == 0);
  MPI_Test_cancelled(&st, &cancelled);
  CHECK(cancelled == 0);
}

MPI_Status garbage_status() {
  MPI_Status st;
  st.MPI_SOURCE = 12345;
  st.MPI_TAG = 12345;
  st.MPI_ERROR = 12345;
  return st;
}

// Rounds of two receives and two sends at once (tags `tag` and `tag` + 1): the
// number of handles given out twice and of messages that landed wrong. A pool
// that hands one request slot out twice fails here. (Two sends may share a handle:
// one that was done inside its call gets the shared complete-send handle.)
int unsound_rounds(int tag, int rounds) {
  int bad = 0;
  for (int it = 0; it < rounds; ++it) {
    int in[3] = {-1, -1, -1}, out[3] = {rank(), it, 7};
    MPI_Request r[4];
    MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left(), tag, MPI_COMM_WORLD, &r[0]));
    MPI_OK(MPI_Irecv(&in[1], 2, MPI_INT, left(), tag + 1, MPI_COMM_WORLD, &r[1]));
    MPI_OK(MPI_Isend(&out[0], 1, MPI_INT, right(), tag, MPI_COMM_WORLD, &r[2]));
    MPI_OK(MPI_Isend(&out[1], 2, MPI_INT, right(), tag + 1, MPI_COMM_WORLD, &r[3]));
    for (int k = 0; k < 2; ++k)
      for (int j = k + 1; j < 4; ++j) bad += r[k] == r[j];
    MPI_OK(MPI_Waitall(4, r, MPI_STATUSES_IGNORE));
    bad += in[0] != left() || in[1] != it || in[2] != 7;
  }
  return bad;
}

}  // namespace

TEST_CASE("Wait and Test on MPI_REQUEST_NULL return an empty status", "[p2p][wait]") {
  MPI_Request req = MPI_REQUEST_NULL;
  MPI_Status st = garbage_status();
  MPI_OK(MPI_Wait(&req, &st));
  check_empty_status(st);
  int flag = 0;
  st = garbage_status();
  MPI_OK(MPI_Test(&req, &flag, &st));
  CHECK(flag);
  check_empty_status(st);
  CHECK(req == MPI_REQUEST_NULL);
  // Zero-length arrays.
  MPI_OK(MPI_Waitall(0, nullptr, MPI_STATUSES_IGNORE));
  flag = 0;
  MPI_OK(MPI_Testall(0, nullptr, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag);
}

TEST_CASE("Completion calls on arrays of only MPI_REQUEST_NULL", "[p2p][wait]") {
  MPI_Request reqs[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_Status sts[3];
  MPI_Status st = garbage_status();
  int index = 5, flag = 0, outcount = 5, indices[3];

  MPI_OK(MPI_Waitall(3, reqs, sts));
  for (auto& s : sts) check_empty_status(s);
  MPI_OK(MPI_Testall(3, reqs, &flag, sts));
  CHECK(flag);

  MPI_OK(MPI_Waitany(3, reqs, &index, &st));
  CHECK(index == MPI_UNDEFINED);
  check_empty_status(st);
  flag = 0;
  index = 5;
  st = garbage_status();
  MPI_OK(MPI_Testany(3, reqs, &index, &flag, &st));
  CHECK(flag);
  CHECK(index == MPI_UNDEFINED);
  check_empty_status(st);

  MPI_OK(MPI_Waitsome(3, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);
  outcount = 5;
  MPI_OK(MPI_Testsome(3, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);
}

TEST_CASE("Waitall, Waitany and Waitsome with MPI_REQUEST_NULL entries", "[p2p][wait]") {
  const int n = 8;  // messages each way
  std::vector<int> out(n), in(n, -1);
  for (int i = 0; i < n; ++i) out[i] = value(rank(), i);

  auto post = [&](std::vector<MPI_Request>& reqs) {
    // Layout: [null, recv0, null, recv1, ..., then sends], receives on distinct tags.
    reqs.assign(3 * n, MPI_REQUEST_NULL);
    for (int i = 0; i < n; ++i) {
      MPI_OK(MPI_Irecv(&in[i], 1, MPI_INT, left(), 400 + i, MPI_COMM_WORLD, &reqs[2 * i + 1]));
    }
    for (int i = 0; i < n; ++i) {
      MPI_OK(MPI_Isend(&out[i], 1, MPI_INT, right(), 400 + i, MPI_COMM_WORLD, &reqs[2 * n + i]));
    }
  };
  auto check_data = [&] {
    for (int i = 0; i < n; ++i) CHECK(in[i] == value(left(), i));
    std::fill(in.begin(), in.end(), -1);
  };
  std::vector<MPI_Request> reqs;
  std::vector<MPI_Status> sts(3 * n);

  SECTION("Waitall") {
    post(reqs);
    MPI_OK(MPI_Waitall(3 * n, reqs.data(), sts.data()));
    for (int i = 0; i < n; ++i) {
      CHECK(sts[2 * i + 1].MPI_SOURCE == left());
      CHECK(sts[2 * i + 1].MPI_TAG == 400 + i);
      check_empty_status(sts[2 * i]);
    }
    for (auto r : reqs) CHECK(r == MPI_REQUEST_NULL);
    check_data();
  }
  SECTION("Waitany") {
    post(reqs);
    std::set<int> done;
    for (int k = 0; k < 2 * n; ++k) {
      int index = -1;
      MPI_Status st;
      MPI_OK(MPI_Waitany(3 * n, reqs.data(), &index, &st));
      REQUIRE(index >= 0);
      REQUIRE(index < 3 * n);
      CHECK(reqs[index] == MPI_REQUEST_NULL);
      CHECK(done.insert(index).second);
      if (index < 2 * n) {
        CHECK(index % 2 == 1);  // never a null entry
        CHECK(st.MPI_TAG == 400 + index / 2);
        CHECK(st.MPI_SOURCE == left());
      }
    }
    int index = -1;
    MPI_OK(MPI_Waitany(3 * n, reqs.data(), &index, MPI_STATUS_IGNORE));
    CHECK(index == MPI_UNDEFINED);
    check_data();
  }
  SECTION("Waitsome") {
    post(reqs);
    std::set<int> done;
    std::vector<int> indices(3 * n);
    while (true) {
      int outcount = -1;
      MPI_OK(MPI_Waitsome(3 * n, reqs.data(), &outcount, indices.data(), sts.data()));
      if (outcount == MPI_UNDEFINED) break;
      REQUIRE(outcount >= 1);
      for (int k = 0; k < outcount; ++k) {
        const int index = indices[k];
        CHECK(done.insert(index).second);
        CHECK(reqs[index] == MPI_REQUEST_NULL);
        if (index < 2 * n) {
          CHECK(index % 2 == 1);
          CHECK(sts[k].MPI_TAG == 400 + index / 2);
        }
      }
    }
    CHECK(static_cast<int>(done.size()) == 2 * n);
    check_data();
  }
}

TEST_CASE("Testall, Testany and Testsome with MPI_REQUEST_NULL entries", "[p2p][test]") {
  int in[2] = {-1, -1};
  const int out[2] = {value(rank(), 0), value(rank(), 1)};
  MPI_Request reqs[5] = {MPI_REQUEST_NULL};
  MPI_OK(MPI_Irecv(&in[0], 1, MPI_INT, left(), 410, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Irecv(&in[1], 1, MPI_INT, left(), 411, MPI_COMM_WORLD, &reqs[3]));
  reqs[0] = reqs[2] = reqs[4] = MPI_REQUEST_NULL;

  // The left neighbour sends only after our "go" below, so the receives cannot be
  // complete yet. Testany must not report
  // a null entry as completed while active requests remain.
  int flag = 1, index = 7, outcount = 7, indices[5];
  MPI_Status sts[5];
  MPI_OK(MPI_Testall(5, reqs, &flag, sts));
  CHECK_FALSE(flag);
  flag = 1;
  MPI_OK(MPI_Testany(5, reqs, &index, &flag, &sts[0]));
  CHECK_FALSE(flag);
  CHECK(index == MPI_UNDEFINED);
  MPI_OK(MPI_Testsome(5, reqs, &outcount, indices, sts));
  CHECK(outcount == 0);

  MPI_Request go;
  MPI_OK(MPI_Isend(nullptr, 0, MPI_BYTE, left(), 412, MPI_COMM_WORLD, &go));
  MPI_OK(MPI_Recv(nullptr, 0, MPI_BYTE, right(), 412, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&go, MPI_STATUS_IGNORE));
  MPI_Request sreqs[2];
  MPI_OK(MPI_Isend(&out[0], 1, MPI_INT, right(), 410, MPI_COMM_WORLD, &sreqs[0]));
  MPI_OK(MPI_Isend(&out[1], 1, MPI_INT, right(), 411, MPI_COMM_WORLD, &sreqs[1]));

  // Testany until the first completes, then Testsome for the rest.
  MPI_POLL(flag, MPI_Testany(5, reqs, &index, &flag, &sts[0]));
  REQUIRE((index == 1 || index == 3));
  CHECK(reqs[index] == MPI_REQUEST_NULL);
  CHECK(sts[0].MPI_TAG == (index == 1 ? 410 : 411));
  const int other = index == 1 ? 3 : 1;
  outcount = 0;
  int rc = MPI_SUCCESS;
  while (rc == MPI_SUCCESS && outcount == 0) rc = MPI_Testsome(5, reqs, &outcount, indices, sts);
  MPI_OK(rc);
  CHECK(outcount == 1);
  CHECK(indices[0] == other);
  CHECK(sts[0].MPI_TAG == (other == 1 ? 410 : 411));
  MPI_OK(MPI_Testsome(5, reqs, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);

  MPI_POLL(flag, MPI_Testall(2, sreqs, &flag, MPI_STATUSES_IGNORE));
  CHECK(sreqs[0] == MPI_REQUEST_NULL);
  CHECK(sreqs[1] == MPI_REQUEST_NULL);
  CHECK(in[0] == value(left(), 0));
  CHECK(in[1] == value(left(), 1));
}

TEST_CASE("Cancel a receive that never matches", "[p2p][cancel]") {
  int buf = -1;
  MPI_Request req;
  MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, left(), 420, MPI_COMM_WORLD, &req));  // nobody sends 420
  MPI_OK(MPI_Cancel(&req));
  CHECK(req != MPI_REQUEST_NULL);  // cancel does not free the request
  MPI_Status st;
  MPI_OK(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL);
  int cancelled = 0;
  MPI_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled);
  CHECK(buf == -1);

  // Wildcard receive, completed with Test instead of Wait.
  MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, MPI_ANY_SOURCE, 421, MPI_COMM_WORLD, &req));
  MPI_OK(MPI_Cancel(&req));
  int flag = 0;
  MPI_POLL(flag, MPI_Test(&req, &flag, &st));
  cancelled = 0;
  MPI_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled);

  // Messages sent afterwards on the cancelled tag go to a new receive. The left
  // neighbour sends only once we have cancelled (a handshake on tag 422).
  MPI_Request done;
  MPI_OK(MPI_Isend(nullptr, 0, MPI_BYTE, left(), 422, MPI_COMM_WORLD, &done));
  MPI_OK(MPI_Recv(nullptr, 0, MPI_BYTE, right(), 422, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&done, MPI_STATUS_IGNORE));
  const int out = value(rank(), 0);
  MPI_Request sreq;
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, right(), 420, MPI_COMM_WORLD, &sreq));
  MPI_OK(MPI_Recv(&buf, 1, MPI_INT, left(), 420, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  CHECK(buf == value(left(), 0));
  MPI_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK_FALSE(cancelled);
}

TEST_CASE("Cancel of a completed receive does not cancel it; Request_get_status does not free",
          "[p2p][cancel][get_status]") {
  int buf = -1;
  const int out = value(rank(), 3);
  MPI_Request rreq, sreq;
  MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, left(), 430, MPI_COMM_WORLD, &rreq));
  MPI_OK(MPI_Isend(&out, 1, MPI_INT, right(), 430, MPI_COMM_WORLD, &sreq));
  int flag = 0;
  MPI_Status st;
  MPI_POLL(flag, MPI_Request_get_status(rreq, &flag, &st));
  CHECK(rreq != MPI_REQUEST_NULL);  // still allocated
  CHECK(st.MPI_SOURCE == left());
  CHECK(st.MPI_TAG == 430);
  // Asking again gives the same answer.
  flag = 0;
  MPI_OK(MPI_Request_get_status(rreq, &flag, &st));
  CHECK(flag);
  MPI_OK(MPI_Cancel(&rreq));
  MPI_OK(MPI_Wait(&rreq, &st));
  CHECK(rreq == MPI_REQUEST_NULL);
  int cancelled = 1;
  MPI_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK_FALSE(cancelled);
  CHECK(st.MPI_SOURCE == left());
  CHECK(st.MPI_TAG == 430);
  CHECK(buf == value(left(), 3));
  MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));

  // Request_get_status on MPI_REQUEST_NULL: flag true, empty status.
  MPI_Request null_req = MPI_REQUEST_NULL;
  flag = 0;
  st = garbage_status();
  MPI_OK(MPI_Request_get_status(null_req, &flag, &st));
  CHECK(flag);
  check_empty_status(st);
}

// MPI 4.1's calls; the peers this file is also built with (run_with_peer.sh) are 4.0.
#if defined(CHORUS) || MPI_VERSION > 4 || (MPI_VERSION == 4 && MPI_SUBVERSION >= 1)
TEST_CASE("MPI 4.1: Request_get_status_any, _all and _some look without freeing", "[p2p][get_status]") {
  int buf = -1, never = -1;
  const int out = value(rank(), 5);
  MPI_Request r[3] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  MPI_OK(MPI_Irecv(&never, 1, MPI_INT, left(), 442, MPI_COMM_WORLD, &r[1]));  // no send matches it
  MPI_OK(MPI_Irecv(&buf, 1, MPI_INT, left(), 441, MPI_COMM_WORLD, &r[2]));
  const MPI_Request kept[3] = {r[0], r[1], r[2]};
  int flag = -1, index = -1, outcount = -1, indices[3] = {-1, -1, -1};
  MPI_Status st = garbage_status(), sts[3];
  MPI_OK(MPI_Request_get_status_all(3, r, &flag, sts));
  CHECK_FALSE(flag);  // r[1] never completes
  MPI_OK(MPI_Send(&out, 1, MPI_INT, right(), 441, MPI_COMM_WORLD));
  MPI_POLL(flag, MPI_Request_get_status_any(3, r, &index, &flag, &st));
  CHECK(index == 2);
  CHECK(st.MPI_SOURCE == left());
  CHECK(st.MPI_TAG == 441);
  // Nothing was freed: the same answer again, from _some too.
  flag = 0;
  MPI_OK(MPI_Request_get_status_any(3, r, &index, &flag, &st));
  CHECK((flag && index == 2));
  for (auto& x : sts) x = garbage_status();
  MPI_OK(MPI_Request_get_status_some(3, r, &outcount, indices, sts));
  REQUIRE(outcount == 1);
  CHECK(indices[0] == 2);
  CHECK(sts[0].MPI_SOURCE == left());
  CHECK(sts[0].MPI_TAG == 441);
  CHECK(sts[0].MPI_ERROR == MPI_SUCCESS);
  // _all over the null entry and the completed one: an empty status, then its own.
  MPI_Request two[2] = {r[0], r[2]};
  for (auto& x : sts) x = garbage_status();
  MPI_OK(MPI_Request_get_status_all(2, two, &flag, sts));
  CHECK(flag);
  check_empty_status(sts[0]);
  CHECK(sts[1].MPI_SOURCE == left());
  CHECK(sts[1].MPI_TAG == 441);
  CHECK(sts[1].MPI_ERROR == MPI_SUCCESS);
  int count = -1;
  MPI_OK(MPI_Get_count(&sts[1], MPI_INT, &count));
  CHECK(count == 1);
  for (int i = 0; i < 3; ++i) CHECK(r[i] == kept[i]);
  CHECK(two[1] == r[2]);
  // The requests are still there to be completed and cancelled.
  MPI_OK(MPI_Wait(&r[2], MPI_STATUS_IGNORE));
  CHECK(buf == value(left(), 5));
  MPI_OK(MPI_Cancel(&r[1]));
  MPI_OK(MPI_Wait(&r[1], MPI_STATUS_IGNORE));
  // No active request: _any gives flag and MPI_UNDEFINED, _some MPI_UNDEFINED.
  flag = 0;
  index = 7;
  st = garbage_status();
  MPI_OK(MPI_Request_get_status_any(3, r, &index, &flag, &st));
  CHECK(flag);
  CHECK(index == MPI_UNDEFINED);
  check_empty_status(st);
  MPI_OK(MPI_Request_get_status_some(3, r, &outcount, indices, MPI_STATUSES_IGNORE));
  CHECK(outcount == MPI_UNDEFINED);
  MPI_OK(MPI_Request_get_status_all(0, nullptr, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag);
  // A persistent request not started is inactive: an empty status.
  MPI_Request p;
  MPI_OK(MPI_Recv_init(&buf, 1, MPI_INT, left(), 443, MPI_COMM_WORLD, &p));
  flag = 0;
  MPI_OK(MPI_Request_get_status_all(1, &p, &flag, sts));
  CHECK(flag);
  check_empty_status(sts[0]);
  MPI_OK(MPI_Request_free(&p));
  // Bad arguments: MPI_ERR_ARG naming the argument.
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Request_get_status_any(3, r, nullptr, &flag, &st)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Request_get_status_all(3, r, nullptr, sts)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Request_get_status_some(3, r, &outcount, nullptr, sts)) == MPI_ERR_ARG);
}

TEST_CASE("MPI 4.1: a communicator's own buffer for buffered sends, flushed and detached", "[p2p][bsend]") {
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  constexpr int kMsgs = 4, kInts = 1000;
  std::vector<char> mem(kMsgs * (kInts * sizeof(int) + MPI_BSEND_OVERHEAD));
  MPI_OK(MPI_Comm_attach_buffer(dup, mem.data(), static_cast<int>(mem.size())));
  std::vector<int> out(kInts), in(kInts);
  MPI_Request flush = MPI_REQUEST_NULL;
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    // The process has no buffer: MPI_COMM_WORLD's buffered send has nowhere to go.
    CHECK(jobs::error_class(MPI_Bsend(out.data(), kInts, MPI_INT, right(), 450, MPI_COMM_WORLD)) == MPI_ERR_BUFFER);
    jobs::ErrorsReturn er2(dup);
    for (int m = 0; m < kMsgs; ++m) {
      for (int i = 0; i < kInts; ++i) out[static_cast<std::size_t>(i)] = value(rank(), m * kInts + i);
      MPI_OK(MPI_Bsend(out.data(), kInts, MPI_INT, right(), 451, dup));
    }
    // A message larger than the whole buffer does not fit.
    std::vector<int> huge(mem.size());
    CHECK(jobs::error_class(MPI_Bsend(huge.data(), static_cast<int>(huge.size()), MPI_INT, right(), 451, dup)) ==
          MPI_ERR_BUFFER);
    // A second buffer on the same communicator is refused.
    CHECK(jobs::error_class(MPI_Comm_attach_buffer(dup, mem.data(), 8)) == MPI_ERR_BUFFER);
    CHECK(jobs::error_class(MPI_Comm_iflush_buffer(dup, nullptr)) == MPI_ERR_ARG);
  }
  // The flush finishes once the messages are received, not before they may be.
  MPI_OK(MPI_Comm_iflush_buffer(dup, &flush));
  for (int m = 0; m < kMsgs; ++m) {
    MPI_OK(MPI_Recv(in.data(), kInts, MPI_INT, left(), 451, dup, MPI_STATUS_IGNORE));
    CHECK(in[0] == value(left(), m * kInts));
    CHECK(in[kInts - 1] == value(left(), m * kInts + kInts - 1));
  }
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Comm_flush_buffer(dup));
  void* addr = nullptr;
  int size = -1;
  MPI_OK(MPI_Comm_detach_buffer(dup, &addr, &size));
  CHECK(addr == mem.data());
  CHECK(size == static_cast<int>(mem.size()));
  MPI_Count csize = -1;
  MPI_OK(MPI_Comm_detach_buffer_c(dup, &addr, &csize));  // none left: NULL, 0
  CHECK(addr == nullptr);
  CHECK(csize == 0);
  MPI_OK(MPI_Comm_free(&dup));
}

TEST_CASE("MPI 4.1: MPI_BUFFER_AUTOMATIC takes what each buffered send needs; Buffer_iflush", "[p2p][bsend]") {
  MPI_OK(MPI_Buffer_attach(MPI_BUFFER_AUTOMATIC, 0));
  // More than any fixed buffer here would hold: 40 messages of 64 KiB before the
  // peer receives any.
  constexpr int kMsgs = 40, kInts = 16384;
  std::vector<int> out(kInts), in(kInts);
  for (int m = 0; m < kMsgs; ++m) {
    std::fill(out.begin(), out.end(), value(rank(), m));
    MPI_OK(MPI_Bsend(out.data(), kInts, MPI_INT, right(), 452, MPI_COMM_WORLD));
  }
  std::fill(out.begin(), out.end(), -1);  // the copies went, not the user's buffer
  MPI_Request flush;
  MPI_OK(MPI_Buffer_iflush(&flush));
  for (int m = 0; m < kMsgs; ++m) {
    MPI_OK(MPI_Recv(in.data(), kInts, MPI_INT, left(), 452, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(in[0] == value(left(), m));
    CHECK(in[kInts - 1] == value(left(), m));
  }
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Buffer_flush());
  void* addr = nullptr;
  int size = -1;
  MPI_OK(MPI_Buffer_detach(&addr, &size));
  CHECK(addr == MPI_BUFFER_AUTOMATIC);
  CHECK(size == 0);
}

TEST_CASE("MPI 4.1: a session's buffer serves its communicators; a communicator's own comes first", "[p2p][bsend]") {
  MPI_Session session;
  MPI_OK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session));
  MPI_Group group, part;
  MPI_OK(MPI_Group_from_session_pset(session, "mpi://WORLD", &group));
  // A group made from the session's group keeps the session.
  std::vector<int> all(static_cast<std::size_t>(size()));
  for (int i = 0; i < size(); ++i) all[static_cast<std::size_t>(i)] = i;
  MPI_OK(MPI_Group_incl(group, size(), all.data(), &part));
  MPI_Comm comm;
  MPI_OK(MPI_Comm_create_from_group(part, "chorus.test.bsend", MPI_INFO_NULL, MPI_ERRORS_RETURN, &comm));
  MPI_OK(MPI_Group_free(&part));
  MPI_OK(MPI_Group_free(&group));
  // The process's buffer is large; the session's holds nothing: the session's is
  // the one a buffered send on the session's communicator takes.
  std::vector<char> big(1 << 20), small(sizeof(int) + MPI_BSEND_OVERHEAD);
  MPI_OK(MPI_Buffer_attach(big.data(), static_cast<int>(big.size())));
  MPI_OK(MPI_Session_attach_buffer(session, small.data(), static_cast<int>(small.size())));
  const int out = rank();
  int in = -1;
  CHECK(jobs::error_class(MPI_Bsend(&out, 100, MPI_INT, right(), 453, comm)) == MPI_ERR_BUFFER);
  MPI_OK(MPI_Bsend(&out, 1, MPI_INT, right(), 453, comm));  // one int fits
  MPI_OK(MPI_Recv(&in, 1, MPI_INT, left(), 453, comm, MPI_STATUS_IGNORE));
  CHECK(in == left());
  // So are communicators made over a group of it, and an intercommunicator's merge.
  MPI_Group cg;
  MPI_OK(MPI_Comm_group(comm, &cg));
  MPI_Comm sub;
  MPI_OK(MPI_Comm_create_group(comm, cg, 7, &sub));
  MPI_OK(MPI_Group_free(&cg));
  CHECK(jobs::error_class(MPI_Bsend(&out, 100, MPI_INT, right(), 456, sub)) == MPI_ERR_BUFFER);
  MPI_OK(MPI_Comm_free(&sub));
  // A dup is derived from the session too; its own buffer comes before the session's.
  MPI_Comm dup;
  MPI_OK(MPI_Comm_dup(comm, &dup));
  std::vector<int> many(1000, rank()), got(1000);
  CHECK(jobs::error_class(MPI_Bsend(many.data(), 1000, MPI_INT, right(), 454, dup)) == MPI_ERR_BUFFER);
  std::vector<char> own(8000 + MPI_BSEND_OVERHEAD);
  MPI_OK(MPI_Comm_attach_buffer(dup, own.data(), static_cast<int>(own.size())));
  MPI_OK(MPI_Bsend(many.data(), 1000, MPI_INT, right(), 454, dup));
  MPI_OK(MPI_Recv(got.data(), 1000, MPI_INT, left(), 454, dup, MPI_STATUS_IGNORE));
  CHECK(got[999] == left());
  MPI_OK(MPI_Session_flush_buffer(session));
  MPI_Request flush;
  MPI_OK(MPI_Session_iflush_buffer(session, &flush));
  MPI_OK(MPI_Wait(&flush, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Comm_free(&dup));  // its buffer goes with it
  void* addr = nullptr;
  MPI_Count size = -1;
  MPI_OK(MPI_Session_detach_buffer_c(session, &addr, &size));
  CHECK(addr == small.data());
  CHECK(size == static_cast<MPI_Count>(small.size()));
  // MPI_COMM_WORLD is not the session's: the process's buffer serves it.
  MPI_OK(MPI_Bsend(many.data(), 1000, MPI_INT, right(), 455, MPI_COMM_WORLD));
  MPI_OK(MPI_Recv(got.data(), 1000, MPI_INT, left(), 455, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  int isize = -1;
  MPI_OK(MPI_Buffer_detach(&addr, &isize));
  CHECK(addr == big.data());
  MPI_OK(MPI_Comm_free(&comm));
  MPI_OK(MPI_Session_finalize(&session));
}

TEST_CASE("MPI 4.1: a status's source, tag and error through calls", "[p2p][status]") {
  MPI_Status st = garbage_status();
  MPI_OK(MPI_Status_set_source(&st, 3));
  MPI_OK(MPI_Status_set_tag(&st, 77));
  MPI_OK(MPI_Status_set_error(&st, MPI_ERR_TRUNCATE));
  int source = -1, tag = -1, error = -1;
  MPI_OK(MPI_Status_get_source(&st, &source));
  MPI_OK(MPI_Status_get_tag(&st, &tag));
  MPI_OK(MPI_Status_get_error(&st, &error));
  CHECK(source == 3);
  CHECK(tag == 77);
  CHECK(error == MPI_ERR_TRUNCATE);
  CHECK(st.MPI_SOURCE == 3);
  CHECK(st.MPI_TAG == 77);
  // What a receive fills in reads back the same way.
  const int out = rank();
  int in = -1;
  MPI_OK(MPI_Sendrecv(&out, 1, MPI_INT, right(), 444, &in, 1, MPI_INT, left(), 444, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Status_get_source(&st, &source));
  MPI_OK(MPI_Status_get_tag(&st, &tag));
  CHECK(source == left());
  CHECK(tag == 444);
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Status_get_source(nullptr, &source)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Status_get_tag(&st, nullptr)) == MPI_ERR_ARG);
  CHECK(jobs::error_class(MPI_Status_set_error(nullptr, 0)) == MPI_ERR_ARG);
}
#endif

TEST_CASE("Request_free on an active Isend still delivers the message", "[p2p][request_free]") {
  // Peer quirk: MPICH 4.0.x loses freed send requests to self (one rank).
  if (size() == 1 && jobs::quirk_mpich()) {
    WARN("skipped on MPICH at one rank (freed self-send requests are lost)");
    return;
  }
  const int n = 100000;  // also a large one, which needs the receive to be posted
  std::vector<int> small_out = {value(rank(), 0)};
  std::vector<int> big_out(n);
  for (int i = 0; i < n; ++i) big_out[i] = value(rank(), i);
  MPI_Request req;
  MPI_OK(MPI_Isend(small_out.data(), 1, MPI_INT, right(), 440, MPI_COMM_WORLD, &req));
  MPI_OK(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);
  MPI_OK(MPI_Isend(big_out.data(), n, MPI_INT, right(), 441, MPI_COMM_WORLD, &req));
  MPI_OK(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);

  int small_in = -1;
  std::vector<int> big_in(n, -1);
  MPI_OK(MPI_Recv(&small_in, 1, MPI_INT, left(), 440, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Recv(big_in.data(), n, MPI_INT, left(), 441, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(small_in == value(left(), 0));
  CHECK(big_in[0] == value(left(), 0));
  CHECK(big_in[n - 1] == value(left(), n - 1));
  bool all = true;
  for (int i = 0; i < n; ++i) all = all && big_in[i] == value(left(), i);
  CHECK(all);
  // The send buffers may only be released once the right neighbour has received:
  // it tells us so.
  MPI_Request ack;
  MPI_OK(MPI_Isend(nullptr, 0, MPI_BYTE, left(), 442, MPI_COMM_WORLD, &ack));
  MPI_OK(MPI_Recv(nullptr, 0, MPI_BYTE, right(), 442, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Wait(&ack, MPI_STATUS_IGNORE));
}

TEST_CASE("Get_count and Get_elements", "[p2p][count]") {
  MPI_Request sreq;
  MPI_Status st;
  int count = 0, elements = 0;
  // 6 bytes received as MPI_INT: not a whole number of ints. The type signatures
  // differ, which Chorus and MPICH report as MPI_ERR_TYPE (Open MPI takes the
  // bytes); the status still counts them and the bytes are delivered.
  // Peer quirk: MPICH 4.0.x hits an internal assertion for this on a self message.
  if (size() > 1 || !jobs::quirk_mpich()) {
  const unsigned char bytes[6] = {1, 2, 3, 4, 5, 6};
  int ints[2] = {-1, -1};
  MPI_OK(MPI_Isend(bytes, 6, MPI_BYTE, right(), 450, MPI_COMM_WORLD, &sreq));
  {
    jobs::ErrorsReturn errors_return(MPI_COMM_WORLD);
    const int rc = MPI_Recv(ints, 2, MPI_INT, left(), 450, MPI_COMM_WORLD, &st);
    if (jobs::quirk_openmpi())
      CHECK(rc == MPI_SUCCESS);
    else
      CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
  }
  MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == MPI_UNDEFINED);
  MPI_OK(MPI_Get_elements(&st, MPI_INT, &elements));
  CHECK(elements == MPI_UNDEFINED);
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
  CHECK(count == 6);
  MPI_OK(MPI_Get_count(&st, MPI_SHORT, &count));
  CHECK(count == 3);
  MPI_Count big = 0;
  MPI_OK(MPI_Get_elements_x(&st, MPI_BYTE, &big));
  CHECK(big == 6);
  CHECK(std::memcmp(ints, bytes, 6) == 0);
  }

  // A whole number of ints, and a derived type of 2 ints with 3 ints received.
  const int three[3] = {value(rank(), 0), value(rank(), 1), value(rank(), 2)};
  int in[4] = {-1, -1, -1, -1};
  MPI_OK(MPI_Isend(three, 3, MPI_INT, right(), 451, MPI_COMM_WORLD, &sreq));
  MPI_OK(MPI_Recv(in, 4, MPI_INT, left(), 451, MPI_COMM_WORLD, &st));
  MPI_OK(MPI_Wait(&sreq, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 3);
  MPI_OK(MPI_Get_elements(&st, MPI_INT, &elements));
  CHECK(elements == 3);
  CHECK(in[2] == value(left(), 2));
  CHECK(in[3] == -1);
  MPI_Datatype pair;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &pair));
  MPI_OK(MPI_Type_commit(&pair));
  MPI_OK(MPI_Get_count(&st, pair, &count));
  CHECK(count == MPI_UNDEFINED);
  MPI_OK(MPI_Get_elements(&st, pair, &elements));
  CHECK(elements == 3);  // basic elements
  MPI_OK(MPI_Type_free(&pair));
}

TEST_CASE("Persistent requests are reused many times", "[p2p][persistent]") {
  const int n = 64, iters = 200;
  std::vector<int> out(n), sync_out(n), in(n), sync_in(n);
  MPI_Request reqs[4];
  MPI_OK(MPI_Recv_init(in.data(), n, MPI_INT, left(), 460, MPI_COMM_WORLD, &reqs[0]));
  MPI_OK(MPI_Recv_init(sync_in.data(), n, MPI_INT, MPI_ANY_SOURCE, 461, MPI_COMM_WORLD, &reqs[1]));
  MPI_OK(MPI_Send_init(out.data(), n, MPI_INT, right(), 460, MPI_COMM_WORLD, &reqs[2]));
  MPI_OK(MPI_Ssend_init(sync_out.data(), n, MPI_INT, right(), 461, MPI_COMM_WORLD, &reqs[3]));
  // Inactive persistent requests complete at once with an empty status.
  MPI_Status st;
  MPI_OK(MPI_Wait(&reqs[0], &st));
  CHECK(reqs[0] != MPI_REQUEST_NULL);
  check_empty_status(st);

  int bad = 0;
  for (int it = 0; it < iters; ++it) {
    for (int i = 0; i < n; ++i) {
      out[i] = value(rank(), it * n + i);
      sync_out[i] = -value(rank(), it * n + i);
    }
    std::fill(in.begin(), in.end(), -1);
    std::fill(sync_in.begin(), sync_in.end(), -1);
    if (it % 2 == 0) {
      MPI_OK(MPI_Startall(4, reqs));
    } else {
      for (auto& r : reqs) MPI_OK(MPI_Start(&r));
    }
    MPI_Status sts[4];
    MPI_OK(MPI_Waitall(4, reqs, sts));
    for (auto r : reqs) bad += r == MPI_REQUEST_NULL;  // persistent: not freed
    bad += sts[0].MPI_SOURCE != left() || sts[1].MPI_SOURCE != left();
    for (int i = 0; i < n; ++i) {
      bad += in[i] != value(left(), it * n + i);
      bad += sync_in[i] != -value(left(), it * n + i);
    }
  }
  CHECK(bad == 0);
  for (auto& r : reqs) {
    MPI_OK(MPI_Request_free(&r));
    CHECK(r == MPI_REQUEST_NULL);
  }

  // A persistent send started and completed with Test.
  MPI_Request sreq;
  int v = value(rank(), 9), w = -1;
  MPI_OK(MPI_Send_init(&v, 1, MPI_INT, right(), 462, MPI_COMM_WORLD, &sreq));
  for (int it = 0; it < 20; ++it) {
    v = value(rank(), it);
    MPI_OK(MPI_Start(&sreq));
    MPI_OK(MPI_Recv(&w, 1, MPI_INT, left(), 462, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int flag = 0;
    MPI_POLL(flag, MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE));
    CHECK(w == value(left(), it));
  }
  MPI_OK(MPI_Request_free(&sreq));
}

TEST_CASE("Isendrecv and Isendrecv_replace complete with the receive, status included", "[p2p][requests]") {
  // A derived send type and a large message (past the eager limits), both ways round the ring.
  const int n = 1 << 18;
  std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n), -1);
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = rank() * 1000000 + i;
  MPI_Request rq;
  MPI_OK(MPI_Isendrecv(out.data(), n, MPI_INT, right(), 31, in.data(), n, MPI_INT, left(), 31, MPI_COMM_WORLD, &rq));
  // The send went from a copy: the send buffer may change at once.
  std::fill(out.begin(), out.end(), -7);
  MPI_Status st;
  MPI_OK(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == left());
  CHECK(st.MPI_TAG == 31);
  int count = 0;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == n);
  CHECK(in[0] == left() * 1000000);
  CHECK(in[static_cast<std::size_t>(n - 1)] == left() * 1000000 + n - 1);

  MPI_Datatype pairs;  // every other int
  MPI_OK(MPI_Type_vector(4, 1, 2, MPI_INT, &pairs));
  MPI_OK(MPI_Type_commit(&pairs));
  int buf[8];
  for (int i = 0; i < 8; ++i) buf[i] = rank() * 10 + i;
  MPI_OK(MPI_Isendrecv_replace(buf, 1, pairs, right(), 32, left(), 32, MPI_COMM_WORLD, &rq));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  for (int i = 0; i < 8; ++i) CHECK(buf[i] == (i % 2 ? rank() * 10 + i : left() * 10 + i));
  MPI_Type_free(&pairs);
  // MPI_PROC_NULL on both sides completes at once with the empty status.
  MPI_OK(MPI_Isendrecv(buf, 1, MPI_INT, MPI_PROC_NULL, 0, buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &rq));
  MPI_OK(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL);
}

namespace {
struct GreqState {
  int queried = 0, freed = 0, cancelled = -1;
};
int greq_query(void* extra, MPI_Status* st) {
  auto* g = static_cast<GreqState*>(extra);
  ++g->queried;
  MPI_Status_set_elements(st, MPI_INT, 3);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_SOURCE = 5;
  st->MPI_TAG = 6;
  st->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}
int greq_free(void* extra) {
  ++static_cast<GreqState*>(extra)->freed;
  return MPI_SUCCESS;
}
int greq_cancel(void* extra, int complete) {
  static_cast<GreqState*>(extra)->cancelled = complete;
  return MPI_SUCCESS;
}
}  // namespace

TEST_CASE("generalized requests: query at completion, free when released, cancel", "[requests][grequest]") {
  GreqState g;
  MPI_Request r;
  MPI_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &g, &r));
  int flag = 1;
  MPI_OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0);
  MPI_OK(MPI_Cancel(&r));
  CHECK(g.cancelled == 0);
  MPI_OK(MPI_Grequest_complete(r));
  MPI_Status st;
  // MPI_Request_get_status asks the query function too, and leaves the request.
  MPI_OK(MPI_Request_get_status(r, &flag, &st));
  CHECK(flag == 1);
  CHECK(g.queried == 1);
  CHECK(st.MPI_SOURCE == 5);
  CHECK(r != MPI_REQUEST_NULL);
  MPI_OK(MPI_Wait(&r, &st));
  CHECK(r == MPI_REQUEST_NULL);
  CHECK(g.queried == 2);
  CHECK(g.freed == 1);
  CHECK(st.MPI_SOURCE == 5);
  CHECK(st.MPI_TAG == 6);
  int count = 0;
  MPI_Get_count(&st, MPI_INT, &count);
  CHECK(count == 3);
  // Freed by the user first: free_fn runs once the request completes.
  GreqState h;
  MPI_OK(MPI_Grequest_start(greq_query, greq_free, greq_cancel, &h, &r));
  MPI_Request keep = r;
  MPI_OK(MPI_Request_free(&r));
  CHECK(h.freed == 0);
  MPI_OK(MPI_Grequest_complete(keep));
  CHECK(h.freed == 1);
  CHECK(h.queried == 0);
}

TEST_CASE("partitioned communication: Psend_init/Precv_init, Pready forms, Parrived, restart", "[p2p][partitioned]") {
  const int parts = 4, per = 1000;
  std::vector<double> out(static_cast<std::size_t>(parts * per)), in(out.size(), -1);
  MPI_Request s, r;
  MPI_OK(MPI_Psend_init(out.data(), parts, per, MPI_DOUBLE, right(), 7, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  MPI_OK(MPI_Precv_init(in.data(), parts, per, MPI_DOUBLE, left(), 7, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  // A plain receive of the same tag does not match partitioned traffic.
  int plain = -1;
  MPI_Request pr;
  MPI_OK(MPI_Irecv(&plain, 1, MPI_INT, left(), 7, MPI_COMM_WORLD, &pr));
  for (int round = 0; round < 3; ++round) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = rank() * 1e6 + round * 1e4 + static_cast<double>(i);
    MPI_OK(MPI_Start(&r));
    MPI_OK(MPI_Start(&s));
    int flag = 1;
    MPI_OK(MPI_Parrived(r, 0, &flag));
    // Our own send is not fully ready, so nothing can have arrived from the left
    // unless the left rank is already done: only a single rank makes that certain.
    if (jobs::size() == 1) CHECK(flag == 0);
    if (round == 0) {
      for (int p = parts - 1; p >= 0; --p) MPI_OK(MPI_Pready(p, s));
    } else if (round == 1) {
      MPI_OK(MPI_Pready_range(0, parts - 1, s));
    } else {
      int list[parts] = {2, 0, 3, 1};
      MPI_OK(MPI_Pready_list(parts, list, s));
    }
    MPI_POLL(flag, MPI_Parrived(r, parts - 1, &flag));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    int bad = 0;
    for (std::size_t i = 0; i < in.size(); ++i)
      bad += in[i] != left() * 1e6 + round * 1e4 + static_cast<double>(i);
    CHECK(bad == 0);
  }
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    MPI_OK(MPI_Start(&s));
    MPI_OK(MPI_Start(&r));
    CHECK(jobs::error_class(MPI_Pready(parts, s)) == MPI_ERR_ARG);
    MPI_OK(MPI_Pready_range(0, parts - 1, s));
    CHECK(jobs::error_class(MPI_Pready(0, s)) == MPI_ERR_ARG);  // ready already
    CHECK(jobs::error_class(MPI_Pready(0, r)) == MPI_ERR_REQUEST);
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    MPI_Request bad;
    CHECK(jobs::error_class(MPI_Precv_init(in.data(), parts, per, MPI_DOUBLE, MPI_ANY_SOURCE, 7, MPI_COMM_WORLD,
                                           MPI_INFO_NULL, &bad)) == MPI_ERR_RANK);
  }
  MPI_OK(MPI_Request_free(&s));
  MPI_OK(MPI_Request_free(&r));
  int one = 1;
  MPI_OK(MPI_Send(&one, 1, MPI_INT, right(), 7, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&pr, MPI_STATUS_IGNORE));
  CHECK(plain == 1);

  // A non-contiguous datatype goes through a packed copy both ways.
  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(3, 1, 2, MPI_INT, &every_other));
  MPI_OK(MPI_Type_commit(&every_other));
  int vo[12], vi[12];
  for (int i = 0; i < 12; ++i) {
    vo[i] = rank() * 100 + i;
    vi[i] = -1;
  }
  MPI_OK(MPI_Psend_init(vo, 2, 1, every_other, right(), 8, MPI_COMM_WORLD, MPI_INFO_NULL, &s));
  MPI_OK(MPI_Precv_init(vi, 2, 1, every_other, left(), 8, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  MPI_Request both[2] = {s, r};
  MPI_OK(MPI_Startall(2, both));
  MPI_OK(MPI_Pready_range(0, 1, s));
  MPI_OK(MPI_Waitall(2, both, MPI_STATUSES_IGNORE));
  // Two elements of the vector type (extent 5 ints): ints 0, 2, 4 and 5, 7, 9.
  for (int i : {0, 2, 4, 5, 7, 9}) CHECK(vi[i] == left() * 100 + i);
  CHECK(vi[1] == -1);
  CHECK(vi[6] == -1);
  MPI_Request_free(&both[0]);
  MPI_Request_free(&both[1]);
  MPI_Type_free(&every_other);
}

TEST_CASE("the large-count (_c) forms: point-to-point, collectives, v-forms, one-sided", "[p2p][large_count]") {
  const int n = jobs::size();
  // Small counts travel as they are.
  long v = rank() + 1, sum = 0;
  MPI_OK(MPI_Allreduce_c(&v, &sum, MPI_Count{1}, MPI_LONG, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sum == static_cast<long>(n) * (n + 1) / 2);
  int b = rank() == 0 ? 77 : 0;
  MPI_OK(MPI_Bcast_c(&b, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(b == 77);
  std::vector<int> out(static_cast<std::size_t>(n)), in(static_cast<std::size_t>(n), -1);
  std::vector<MPI_Count> counts(static_cast<std::size_t>(n), 1);
  std::vector<MPI_Aint> displs(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    out[static_cast<std::size_t>(i)] = rank() * 100 + i;
    displs[static_cast<std::size_t>(i)] = i;
  }
  MPI_OK(MPI_Alltoallv_c(out.data(), counts.data(), displs.data(), MPI_INT, in.data(), counts.data(), displs.data(),
                         MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(in[static_cast<std::size_t>(i)] == i * 100 + rank());
  // More than INT_MAX elements of a type of no bytes: the count itself is the large part.
  MPI_Datatype empty;
  MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
  MPI_OK(MPI_Type_commit(&empty));
  const MPI_Count huge = MPI_Count{INT_MAX} * 3;
  MPI_Request rq;
  MPI_OK(MPI_Irecv_c(nullptr, huge, empty, left(), 50, MPI_COMM_WORLD, &rq));
  MPI_OK(MPI_Send_c(nullptr, huge, empty, right(), 50, MPI_COMM_WORLD));
  MPI_Status st;
  MPI_OK(MPI_Wait(&rq, &st));
  CHECK(st.MPI_SOURCE == left());
  MPI_Type_free(&empty);
  // A v-form entry beyond INT_MAX is refused by name, as is a user op over more
  // elements than its int length can say.
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    MPI_Op mine;
    MPI_OK(MPI_Op_create([](void*, void*, int*, MPI_Datatype*) {}, 1, &mine));
    CHECK(jobs::error_class(MPI_Allreduce_c(nullptr, nullptr, MPI_Count{INT_MAX} * 2, MPI_INT, mine,
                                            MPI_COMM_WORLD)) == MPI_ERR_COUNT);
    MPI_Op_free(&mine);
    std::vector<MPI_Count> big_counts(static_cast<std::size_t>(n), MPI_Count{INT_MAX} + 1);
    CHECK(jobs::error_class(MPI_Alltoallv_c(out.data(), big_counts.data(), displs.data(), MPI_INT, in.data(),
                                            counts.data(), displs.data(), MPI_INT, MPI_COMM_WORLD)) == MPI_ERR_COUNT);
  }
  // One-sided.
  std::vector<int> mem(4, 0);
  MPI_Win w;
  MPI_OK(MPI_Win_create_c(mem.data(), 4 * sizeof(int), MPI_Aint{sizeof(int)}, MPI_INFO_NULL, MPI_COMM_WORLD, &w));
  MPI_OK(MPI_Win_fence(0, w));
  int one = rank();
  MPI_OK(MPI_Put_c(&one, 1, MPI_INT, right(), 2, 1, MPI_INT, w));
  MPI_OK(MPI_Win_fence(MPI_MODE_NOSUCCEED, w));
  CHECK(mem[2] == left());
  MPI_OK(MPI_Win_free(&w));
}

TEST_CASE("partitioned operations match in the order they were initialized, not started", "[p2p][partitioned]") {
  int out[2][4], in[2][4];
  MPI_Request s[2], r[2];
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < 4; ++i) {
      out[k][i] = rank() * 10 + k;
      in[k][i] = -1;
    }
    MPI_OK(MPI_Psend_init(out[k], 2, 2, MPI_INT, right(), 5, MPI_COMM_WORLD, MPI_INFO_NULL, &s[k]));
    MPI_OK(MPI_Precv_init(in[k], 2, 2, MPI_INT, left(), 5, MPI_COMM_WORLD, MPI_INFO_NULL, &r[k]));
  }
  MPI_OK(MPI_Startall(2, r));
  // Started and made ready second first: still the second init's data for the second receive.
  MPI_OK(MPI_Start(&s[1]));
  MPI_OK(MPI_Pready_range(0, 1, s[1]));
  MPI_OK(MPI_Start(&s[0]));
  MPI_OK(MPI_Pready_range(0, 1, s[0]));
  MPI_OK(MPI_Waitall(2, s, MPI_STATUSES_IGNORE));
  MPI_Status st[2];
  st[0].MPI_ERROR = st[1].MPI_ERROR = -1;
  MPI_OK(MPI_Waitall(2, r, st));
  for (int k = 0; k < 2; ++k) {
    CHECK(st[k].MPI_SOURCE == left());
    CHECK(st[k].MPI_TAG == 5);
    CHECK(st[k].MPI_ERROR == MPI_SUCCESS);  // filled by every completion, as MPICH does
    CHECK(in[k][0] == left() * 10 + k);
    CHECK(in[k][3] == left() * 10 + k);
    MPI_Request_free(&s[k]);
    MPI_Request_free(&r[k]);
  }
  // No data may come with MPI_DATATYPE_NULL (MPICH accepts it).
  MPI_Request z;
  MPI_OK(MPI_Irecv(nullptr, 0, MPI_DATATYPE_NULL, left(), 6, MPI_COMM_WORLD, &z));
  MPI_OK(MPI_Send(nullptr, 0, MPI_DATATYPE_NULL, right(), 6, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&z, MPI_STATUS_IGNORE));
}

TEST_CASE("after a Waitall that failed, requests are still themselves", "[p2p][requests]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  // One truncated receive in a Waitall: MPI_ERR_IN_STATUS.
  char small[1];
  int four[4] = {1, 2, 3, 4};
  MPI_Request rq[2];
  MPI_OK(MPI_Irecv(small, 1, MPI_CHAR, left(), 70, MPI_COMM_WORLD, &rq[0]));
  MPI_OK(MPI_Isend(four, 4, MPI_INT, right(), 70, MPI_COMM_WORLD, &rq[1]));
  MPI_Status st[2];
  CHECK(MPI_Waitall(2, rq, st) == MPI_ERR_IN_STATUS);
  CHECK(jobs::error_class(st[0].MPI_ERROR) == MPI_ERR_TRUNCATE);
  CHECK(st[1].MPI_ERROR == MPI_SUCCESS);
  // The pool hands out sound requests afterwards: each handle is its own request
  // (the error path once gave a request slot another slot's index).
  CHECK(unsound_rounds(71, 50) == 0);
  // A single completion leaves MPI_ERROR as it was (MPI says so; MPICH's pt2pt/mprobe checks it).
  int x = -1, y = rank();
  MPI_Request one;
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left(), 73, MPI_COMM_WORLD, &one));
  MPI_OK(MPI_Send(&y, 1, MPI_INT, right(), 73, MPI_COMM_WORLD));
  MPI_Status s1;
  s1.MPI_ERROR = 12345;
  MPI_OK(MPI_Wait(&one, &s1));
  CHECK(s1.MPI_ERROR == 12345);
  CHECK(x == left());
}

TEST_CASE("a request listed twice in one completion call is refused, not released twice", "[p2p][requests]") {
  // Peer quirk: neither Open MPI nor MPICH checks this (MPI leaves it undefined).
  if (jobs::quirk_mpich() || jobs::quirk_openmpi()) return;
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  int x = -1, y = rank();
  MPI_Request rq;
  MPI_OK(MPI_Irecv(&x, 1, MPI_INT, left(), 75, MPI_COMM_WORLD, &rq));
  MPI_Request twice[3] = {rq, MPI_REQUEST_NULL, rq};
  int out = -1, idx[3], flag = -1;
  // Before: Waitsome completed the entry and released its slot twice, so the pool
  // handed one slot out for every later request.
  MPI_OK(MPI_Send(&y, 1, MPI_INT, right(), 75, MPI_COMM_WORLD));
  CHECK(jobs::error_class(MPI_Waitsome(3, twice, &out, idx, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(jobs::error_class(MPI_Testsome(3, twice, &out, idx, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(jobs::error_class(MPI_Waitall(3, twice, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(jobs::error_class(MPI_Testall(3, twice, &flag, MPI_STATUSES_IGNORE)) == MPI_ERR_REQUEST);
  CHECK(twice[0] == rq);  // nothing was completed
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK(x == left());
  // The pool is sound: requests made now are distinct and each gets its own message.
  CHECK(unsound_rounds(76, 20) == 0);
  // A persistent request not started may be listed twice (inactive entries are skipped).
  MPI_Request p;
  MPI_OK(MPI_Recv_init(&x, 1, MPI_INT, left(), 78, MPI_COMM_WORLD, &p));
  MPI_Request idle[2] = {p, p};
  MPI_OK(MPI_Waitall(2, idle, MPI_STATUSES_IGNORE));
  MPI_OK(MPI_Request_free(&p));
}

namespace {
// A communicator freed while its failing receive was pending, and a generalized
// request in the same completion call whose free function frees another
// communicator (which reaps retired ones) and makes a new one (which may take the
// reaped one's memory, with another error handler).
int g_freed_comm_calls = 0, g_new_comm_calls = 0;
void freed_comm_handler(MPI_Comm*, int*, ...) { ++g_freed_comm_calls; }
void new_comm_handler(MPI_Comm*, int*, ...) { ++g_new_comm_calls; }
struct Reaper {
  MPI_Comm victim = MPI_COMM_NULL, made = MPI_COMM_NULL;
  MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
};
int reaper_query(void*, MPI_Status* st) {
  MPI_Status_set_elements(st, MPI_INT, 0);
  MPI_Status_set_cancelled(st, 0);
  st->MPI_ERROR = MPI_SUCCESS;
  return MPI_SUCCESS;
}
int reaper_free(void* extra) {
  auto* r = static_cast<Reaper*>(extra);
  MPI_Comm_free(&r->victim);
  MPI_Comm_dup(MPI_COMM_SELF, &r->made);
  MPI_Comm_set_errhandler(r->made, r->handler);
  return MPI_SUCCESS;
}
int reaper_cancel(void*, int) { return MPI_SUCCESS; }
}  // namespace

// Before: Waitall and Waitsome kept only the failing request's communicator
// pointer, the communicator was reaped by the free function's MPI_Comm_free, and
// the error went to whatever the freed memory then held (here: the new
// communicator's handler).
TEST_CASE("a failed completion reports to the handler of a communicator freed meanwhile", "[p2p][requests]") {
  if (jobs::quirk_mpich() || jobs::quirk_openmpi()) return;  // peers: freed communicators' handlers vary
  for (bool some : {false, true}) {
    INFO((some ? "MPI_Waitsome" : "MPI_Waitall"));
    MPI_Errhandler on_freed, on_new;
    MPI_OK(MPI_Comm_create_errhandler(freed_comm_handler, &on_freed));
    MPI_OK(MPI_Comm_create_errhandler(new_comm_handler, &on_new));
    MPI_Comm c;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
    MPI_OK(MPI_Comm_set_errhandler(c, on_freed));
    Reaper reaper;
    reaper.handler = on_new;
    MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &reaper.victim));
    char small[1];
    int four[4] = {1, 2, 3, 4};
    MPI_Request rq[2];
    MPI_OK(MPI_Irecv(small, 1, MPI_CHAR, 0, 5, c, &rq[0]));
    MPI_OK(MPI_Send(four, 4, MPI_INT, 0, 5, c));  // truncated: the receive fails
    MPI_OK(MPI_Comm_free(&c));                     // kept while the receive is pending
    // Done before the completion call, so that Waitsome takes both requests.
    for (int done = 0; !done;) MPI_Request_get_status(rq[0], &done, MPI_STATUS_IGNORE);
    MPI_OK(MPI_Grequest_start(reaper_query, reaper_free, reaper_cancel, &reaper, &rq[1]));
    MPI_OK(MPI_Grequest_complete(rq[1]));
    g_freed_comm_calls = g_new_comm_calls = 0;
    int rc;
    if (some) {
      int out = -1, idx[2];
      rc = MPI_Waitsome(2, rq, &out, idx, MPI_STATUSES_IGNORE);
      CHECK(out == 2);
    } else {
      rc = MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    CHECK(jobs::error_class(rc) == MPI_ERR_IN_STATUS);
    CHECK(g_freed_comm_calls == 1);
    CHECK(g_new_comm_calls == 0);
    CHECK(reaper.victim == MPI_COMM_NULL);
    MPI_OK(MPI_Comm_free(&reaper.made));
    MPI_OK(MPI_Errhandler_free(&on_freed));
    MPI_OK(MPI_Errhandler_free(&on_new));
  }
}


// Small standard sends to a rank of this node are written into its ring inside
// MPI_Isend and share one complete request (as MPICH's lightweight requests do):
// every completion call must take that handle, also listed more than once, and
// free nothing twice.
TEST_CASE("sends done inside MPI_Isend share a handle every completion call takes", "[p2p][requests]") {
  constexpr int n = 18;
  std::vector<int> out(n), in(n, -1);
  for (int i = 0; i < n; ++i) out[static_cast<std::size_t>(i)] = value(rank(), i);
  std::vector<MPI_Request> rr(n), sr(n);
  for (int i = 0; i < n; ++i)
    MPI_OK(MPI_Irecv(&in[static_cast<std::size_t>(i)], 1, MPI_INT, left(), 90, MPI_COMM_WORLD, &rr[static_cast<std::size_t>(i)]));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  // every receive posted: no send waits for room
  for (int i = 0; i < n; ++i)
    MPI_OK(MPI_Isend(&out[static_cast<std::size_t>(i)], 1, MPI_INT, right(), 90, MPI_COMM_WORLD, &sr[static_cast<std::size_t>(i)]));
  // Through the rings (every rank on this node, CHORUS_P2P_SHM not off): the first
  // 8 done at once (the smallest rings the suite runs with hold 16 records).
  const char* shm = std::getenv("CHORUS_P2P_SHM");
  const bool rings_off = shm && (std::strcmp(shm, "0") == 0 || std::strcmp(shm, "off") == 0 ||
                                 std::strcmp(shm, "no") == 0 || std::strcmp(shm, "false") == 0);
  if (size() > 1 && !rings_off && jobs::one_node() && !jobs::quirk_mpich() && !jobs::quirk_openmpi())
    CHECK(std::count(sr.begin(), sr.begin() + 8, sr[0]) == 8);

  MPI_Status st;
  MPI_OK(MPI_Wait(&sr[0], &st));
  CHECK(sr[0] == MPI_REQUEST_NULL);
  int flag = 0;
  while (!flag) MPI_OK(MPI_Test(&sr[1], &flag, MPI_STATUS_IGNORE));
  CHECK(sr[1] == MPI_REQUEST_NULL);
  // Request_get_status leaves the handle; a cancel of a done send cancels nothing.
  const MPI_Request before = sr[2];
  for (flag = 0; !flag;) MPI_OK(MPI_Request_get_status(sr[2], &flag, MPI_STATUS_IGNORE));
  CHECK(sr[2] == before);
  MPI_OK(MPI_Cancel(&sr[2]));
  MPI_OK(MPI_Wait(&sr[2], &st));
  int cancelled = -1;
  MPI_OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled == 0);
  MPI_OK(MPI_Request_free(&sr[3]));
  CHECK(sr[3] == MPI_REQUEST_NULL);
  // Waitany and Testany: one entry per call, each once, then MPI_UNDEFINED. (Sends
  // that did not complete at once, through UCX, may finish in another order.)
  std::set<int> seen;
  for (int k = 0; k < 3; ++k) {
    int idx = -1;
    MPI_OK(MPI_Waitany(3, &sr[4], &idx, MPI_STATUS_IGNORE));
    seen.insert(idx);
  }
  CHECK(seen == std::set<int>{0, 1, 2});
  int idx = -1;
  MPI_OK(MPI_Waitany(3, &sr[4], &idx, MPI_STATUS_IGNORE));
  CHECK(idx == MPI_UNDEFINED);
  seen.clear();
  while (seen.size() < 3) {
    MPI_OK(MPI_Testany(3, &sr[7], &idx, &flag, MPI_STATUS_IGNORE));
    REQUIRE(idx != MPI_UNDEFINED);
    if (flag) CHECK(seen.insert(idx).second);
  }
  // Waitsome and Testsome until both of their two are done.
  int outcount = -1, idxs[4], done = 0;
  while (done < 2) {
    MPI_OK(MPI_Waitsome(2, &sr[10], &outcount, idxs, MPI_STATUSES_IGNORE));
    REQUIRE(outcount != MPI_UNDEFINED);
    done += outcount;
  }
  CHECK(done == 2);
  for (done = 0; done < 2; done += outcount) {
    MPI_OK(MPI_Testsome(2, &sr[12], &outcount, idxs, MPI_STATUSES_IGNORE));
    REQUIRE(outcount != MPI_UNDEFINED);
  }
  CHECK(done == 2);
  // The same done send listed twice is no error (a pooled one still is: above).
  if (sr[14] == sr[15]) {
    MPI_Request twice[3] = {sr[14], sr[15], sr[14]};
    MPI_OK(MPI_Testall(3, twice, &flag, MPI_STATUSES_IGNORE));
    CHECK(flag == 1);
    sr[14] = sr[15] = MPI_REQUEST_NULL;
  }
  MPI_OK(MPI_Waitall(n, sr.data(), MPI_STATUSES_IGNORE));
  CHECK(std::count(sr.begin(), sr.end(), MPI_REQUEST_NULL) == n);

  MPI_OK(MPI_Waitall(n, rr.data(), MPI_STATUSES_IGNORE));
  int wrong = 0;
  for (int i = 0; i < n; ++i) wrong += in[static_cast<std::size_t>(i)] != value(left(), i);
  CHECK(wrong == 0);
  CHECK(unsound_rounds(92, 20) == 0);
}
