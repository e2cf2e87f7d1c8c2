// Point-to-point ordering stress: every rank sends every other rank a sequence of
// messages on one tag, with sizes on both sides of each protocol threshold (the
// node-local rings' one-record limit CHORUS_P2P_SHM_EAGER, 4 KiB; their copy limit
// CHORUS_P2P_SHM_COPY_MAX, 256 KiB; UCX's eager/rendezvous switches around 8 KiB
// and 512 KiB; and 1 MiB+), received with each of the receive and probe calls.
// Each message carries its source and sequence number and a pattern derived from
// them; the receiver checks that the messages from each source arrive in send order
// with the right length and contents.
//
// One TEST_CASE per receive method: sync_all() between test cases keeps a fast
// rank's next sequence out of a slow rank's wildcard receives.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "mpi_test.h"

using jobs::rank;
using jobs::size;

namespace {

constexpr int kTag = 700;

// Sizes in bytes: both sides of every threshold.
constexpr int kSizes[] = {0,     1,         8,         4095,       4096,        4097,
                          8192,  8193,      16384,     65535,      262144,      262145,
                          524289, 1048576 + 3, 12,     4096 - 13,  100000,      2,
                          262143, 16383};
constexpr int kSizeCount = sizeof(kSizes) / sizeof(kSizes[0]);
constexpr int kRepeats = 3;
constexpr int kNum = kSizeCount * kRepeats;  // messages per source
constexpr int kMax = 1048576 + 3;

// Message seq of a sequence: kRepeats permutations of kSizes (small and large
// interleaved, a different order from each source and in each repeat).
int size_of(int src, int seq) {
  return kSizes[(seq * 7 + src * 5 + (seq / kSizeCount) * 3) % kSizeCount];
}

unsigned char byte_at(int src, int seq, int i) {
  return static_cast<unsigned char>((src * 131 + seq * 29 + i * 7 + (i >> 8)) & 0xff);
}

// Layout: bytes [0,4) the source, [4,8) the sequence number (when they fit), the
// rest the pattern. Shorter messages carry only pattern bytes.
std::vector<unsigned char> make_message(int src, int seq) {
  const int n = size_of(src, seq);
  std::vector<unsigned char> m(n);
  for (int i = 0; i < n; ++i) m[i] = byte_at(src, seq, i);
  if (n >= 8) {
    const std::int32_t h[2] = {src, seq};
    std::memcpy(m.data(), h, 8);
  }
  return m;
}

// Empty when message (status source, bytes) is the expected seq from src.
std::string check_message(int src, int seq, const unsigned char* buf, int count) {
  std::ostringstream err;
  const int n = size_of(src, seq);
  if (count != n) {
    err << "from rank " << src << " message " << seq << ": count " << count << ", expected " << n;
    if (count >= 8) {
      std::int32_t h[2];
      std::memcpy(h, buf, 8);
      err << " (it carries source " << h[0] << " message " << h[1] << ")";
    }
    return err.str();
  }
  if (n >= 8) {
    std::int32_t h[2];
    std::memcpy(h, buf, 8);
    if (h[0] != src || h[1] != seq) {
      err << "from rank " << src << " expected message " << seq << ", got source " << h[0]
          << " message " << h[1];
      return err.str();
    }
  }
  for (int i = n >= 8 ? 8 : 0; i < n; ++i) {
    if (buf[i] != byte_at(src, seq, i)) {
      err << "from rank " << src << " message " << seq << " (" << n << " B): byte " << i << " is "
          << int(buf[i]) << ", expected " << int(byte_at(src, seq, i));
      return err.str();
    }
  }
  return {};
}

enum class Method {
  Recv,           // MPI_Recv from each source in turn
  IrecvWait,      // all MPI_Irecv posted first, MPI_Wait in reverse order
  AnySource,      // MPI_Recv(MPI_ANY_SOURCE)
  ProbeRecv,      // MPI_Probe (any source / one source), MPI_Recv of the probed size
  IprobeIrecv,    // MPI_Iprobe loop, MPI_Irecv + MPI_Wait
  MprobeMrecv,    // MPI_Mprobe, MPI_Mrecv
  ImprobeImrecv,  // MPI_Improbe loop, MPI_Imrecv + MPI_Wait
  MprobeImrecv,   // MPI_Mprobe of a source's whole sequence, then the MPI_Imrecvs, MPI_Waitall
};

struct Receiver {
  int n = size();
  std::vector<int> next;  // next expected seq per source
  int left = 0;           // messages still to receive
  std::vector<std::string> errors;

  Receiver() : next(size(), 0), left((size() - 1) * kNum) {}

  // A message from `src` with `count` bytes in `buf` arrived.
  void got(int src, int tag, const unsigned char* buf, int count) {
    if (src < 0 || src >= n || src == rank()) {
      errors.push_back("message from unexpected source " + std::to_string(src));
      return;
    }
    if (tag != kTag) errors.push_back("message with tag " + std::to_string(tag));
    if (next[src] >= kNum) {
      errors.push_back("extra message from rank " + std::to_string(src));
      return;
    }
    const std::string e = check_message(src, next[src], buf, count);
    if (!e.empty()) errors.push_back(e);
    ++next[src];
    --left;
  }
  void got(const MPI_Status& st, const unsigned char* buf) {
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    got(st.MPI_SOURCE, st.MPI_TAG, buf, count);
  }
  // Sources in turn, starting after this rank; skips ones that are done.
  int pick(int i) const {
    for (int k = 0; k < n; ++k) {
      const int s = (rank() + 1 + i + k) % n;
      if (s != rank() && next[s] < kNum) return s;
    }
    return -1;
  }
  int expected_size(int src) const { return size_of(src, next[src]); }
  // The byte count of a probed message, which must be the next one expected from
  // its source: a wrong one means one was skipped, so stop now instead of waiting
  // for it for ever.
  int probed(const MPI_Status& st) const {
    int count = -1;
    MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
    REQUIRE(st.MPI_SOURCE >= 0);
    REQUIRE(st.MPI_SOURCE < static_cast<int>(next.size()));
    INFO("probed from rank " << st.MPI_SOURCE << ", its message " << next[st.MPI_SOURCE] << " next");
    REQUIRE(count == expected_size(st.MPI_SOURCE));
    return count;
  }
};

void run(Method method) {
  const int n = size();
  if (n < 2) return;
  // Sends: seq-major, to every other rank (each destination its own sequence).
  std::vector<std::vector<unsigned char>> out;
  std::vector<MPI_Request> sreqs;
  out.reserve(static_cast<std::size_t>((n - 1) * kNum));
  for (int seq = 0; seq < kNum; ++seq) {
    for (int k = 1; k < n; ++k) {
      const int dest = (rank() + k) % n;
      out.push_back(make_message(rank(), seq));
      sreqs.emplace_back();
      MPI_OK(MPI_Isend(out.back().data(), static_cast<int>(out.back().size()), MPI_BYTE, dest, kTag,
                       MPI_COMM_WORLD, &sreqs.back()));
    }
  }

  Receiver r;
  std::vector<unsigned char> big(kMax);
  switch (method) {
    case Method::Recv:
      for (int i = 0; r.left > 0; ++i) {
        const int src = r.pick(i);
        MPI_Status st;
        MPI_OK(MPI_Recv(big.data(), kMax, MPI_BYTE, src, kTag, MPI_COMM_WORLD, &st));
        r.got(st, big.data());
      }
      break;
    case Method::IrecvWait: {
      // Posted source-interleaved; each buffer 4 KiB larger than the message it
      // should get (a message out of order shows as wrong contents or truncation).
      const int total = r.left;
      std::vector<std::vector<unsigned char>> in(total);
      std::vector<MPI_Request> rreqs(total);
      std::vector<int> from(total);
      for (int i = 0; i < total; ++i) {
        from[i] = (rank() + 1 + i % (n - 1)) % n;
        const int cap = size_of(from[i], i / (n - 1)) + 4096;
        in[i].assign(cap, 0);
        MPI_OK(MPI_Irecv(in[i].data(), cap, MPI_BYTE, from[i], kTag, MPI_COMM_WORLD, &rreqs[i]));
      }
      std::vector<MPI_Status> sts(total);
      for (int i = total - 1; i >= 0; --i) MPI_OK(MPI_Wait(&rreqs[i], &sts[i]));
      for (int i = 0; i < total; ++i) {
        CHECK(sts[i].MPI_SOURCE == from[i]);
        r.got(sts[i], in[i].data());
      }
      break;
    }
    case Method::AnySource:
      while (r.left > 0) {
        MPI_Status st;
        MPI_OK(MPI_Recv(big.data(), kMax, MPI_BYTE, MPI_ANY_SOURCE, kTag, MPI_COMM_WORLD, &st));
        r.got(st, big.data());
      }
      break;
    case Method::ProbeRecv:
      for (int i = 0; r.left > 0; ++i) {
        MPI_Status st;
        const int src = i % 2 ? r.pick(i) : MPI_ANY_SOURCE;
        MPI_OK(MPI_Probe(src, kTag, MPI_COMM_WORLD, &st));
        if (src != MPI_ANY_SOURCE) CHECK(st.MPI_SOURCE == src);
        const int count = r.probed(st);
        // Exactly the probed size: a different message would not fit or be short.
        std::vector<unsigned char> in(std::max(count, 0));
        MPI_Status st2;
        MPI_OK(MPI_Recv(in.data(), count, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2));
        CHECK(st2.MPI_SOURCE == st.MPI_SOURCE);
        r.got(st2, in.data());
      }
      break;
    case Method::IprobeIrecv:
      for (int i = 0; r.left > 0; ++i) {
        MPI_Status st;
        int flag = 0;
        const int src = i % 3 == 2 ? r.pick(i) : MPI_ANY_SOURCE;
        MPI_POLL(flag, MPI_Iprobe(src, kTag, MPI_COMM_WORLD, &flag, &st));
        const int count = r.probed(st);
        std::vector<unsigned char> in(std::max(count, 0));
        MPI_Request req;
        MPI_OK(MPI_Irecv(in.data(), count, MPI_BYTE, st.MPI_SOURCE, kTag, MPI_COMM_WORLD, &req));
        MPI_Status st2;
        MPI_OK(MPI_Wait(&req, &st2));
        r.got(st2, in.data());
      }
      break;
    case Method::MprobeMrecv:
      for (int i = 0; r.left > 0; ++i) {
        MPI_Status st;
        MPI_Message msg = MPI_MESSAGE_NULL;
        const int src = i % 2 ? r.pick(i) : MPI_ANY_SOURCE;
        MPI_OK(MPI_Mprobe(src, i % 4 == 1 ? MPI_ANY_TAG : kTag, MPI_COMM_WORLD, &msg, &st));
        const int count = r.probed(st);
        std::vector<unsigned char> in(std::max(count, 0));
        MPI_Status st2;
        MPI_OK(MPI_Mrecv(in.data(), count, MPI_BYTE, &msg, &st2));
        CHECK(st2.MPI_SOURCE == st.MPI_SOURCE);
        r.got(st2, in.data());
      }
      break;
    case Method::ImprobeImrecv:
      for (int i = 0; r.left > 0; ++i) {
        MPI_Status st;
        MPI_Message msg = MPI_MESSAGE_NULL;
        int flag = 0;
        const int src = i % 2 ? r.pick(i) : MPI_ANY_SOURCE;
        MPI_POLL(flag, MPI_Improbe(src, kTag, MPI_COMM_WORLD, &flag, &msg, &st));
        const int count = r.probed(st);
        std::vector<unsigned char> in(std::max(count, 0));
        MPI_Request req;
        MPI_OK(MPI_Imrecv(in.data(), count, MPI_BYTE, &msg, &req));
        MPI_Status st2;
        MPI_OK(MPI_Wait(&req, &st2));
        r.got(st2, in.data());
      }
      break;
    case Method::MprobeImrecv:
      // Take a source's whole sequence with MPI_Mprobe (the matched messages wait
      // on their handles), then receive them all at once with MPI_Imrecv.
      for (int i = 0; r.left > 0; ++i) {
        const int src = r.pick(i);
        std::vector<std::vector<unsigned char>> in(kNum);
        std::vector<MPI_Request> reqs(kNum);
        std::vector<MPI_Message> msgs(kNum, MPI_MESSAGE_NULL);
        for (int seq = 0; seq < kNum; ++seq) {
          MPI_Status st;
          MPI_OK(MPI_Mprobe(src, kTag, MPI_COMM_WORLD, &msgs[seq], &st));
          int count = -1;
          MPI_OK(MPI_Get_count(&st, MPI_BYTE, &count));
          INFO("matched from rank " << src << ", its message " << seq << " expected");
          REQUIRE(count == size_of(src, seq));
          in[seq].assign(std::max(count, 0), 0);
        }
        // Received in reverse order of matching.
        for (int seq = kNum - 1; seq >= 0; --seq) {
          MPI_OK(MPI_Imrecv(in[seq].data(), static_cast<int>(in[seq].size()), MPI_BYTE, &msgs[seq],
                            &reqs[seq]));
        }
        std::vector<MPI_Status> sts(kNum);
        MPI_OK(MPI_Waitall(kNum, reqs.data(), sts.data()));
        for (int seq = 0; seq < kNum; ++seq) r.got(sts[seq], in[seq].data());
      }
      break;
  }
  MPI_OK(MPI_Waitall(static_cast<int>(sreqs.size()), sreqs.data(), MPI_STATUSES_IGNORE));
  std::string all;
  for (std::size_t i = 0; i < r.errors.size() && i < 10; ++i) all += "\n  " + r.errors[i];
  INFO("rank " << rank() << " of " << n << ": " << r.errors.size() << " error(s):" << all);
  CHECK(r.errors.empty());
  for (int s = 0; s < n; ++s) {
    if (s != rank()) CHECK(r.next[s] == kNum);
  }
}

}  // namespace

TEST_CASE("stress: MPI_Recv from each source", "[p2p][stress]") { run(Method::Recv); }
TEST_CASE("stress: MPI_Irecv all, MPI_Wait in reverse", "[p2p][stress]") { run(Method::IrecvWait); }
TEST_CASE("stress: MPI_Recv from MPI_ANY_SOURCE", "[p2p][stress]") { run(Method::AnySource); }
TEST_CASE("stress: MPI_Probe then MPI_Recv", "[p2p][stress]") { run(Method::ProbeRecv); }
TEST_CASE("stress: MPI_Iprobe loop then MPI_Irecv", "[p2p][stress]") { run(Method::IprobeIrecv); }
TEST_CASE("stress: MPI_Mprobe then MPI_Mrecv", "[p2p][stress]") { run(Method::MprobeMrecv); }
TEST_CASE("stress: MPI_Improbe loop then MPI_Imrecv", "[p2p][stress]") { run(Method::ImprobeImrecv); }
TEST_CASE("stress: MPI_Mprobe a whole sequence, then MPI_Imrecv", "[p2p][stress]") {
  run(Method::MprobeImrecv);
}
