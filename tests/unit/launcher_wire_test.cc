// The daemon tree's wire (launcher/server/wire.h) and launch tree shape
// (launch_groups in launcher.h): frames, the job as daemons read it, the token
// proof, and the O(log N) groups.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>
#include <set>

#include "launcher/server/launcher.h"
#include "launcher/server/wire.h"

using namespace chorus::launcher;

TEST_CASE("wire: frames carry integers and strings, and a short payload is caught", "[launcher][wire]") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
  wire::Conn a(sv[0]), b(sv[1]);
  a.send(wire::Encoder(wire::Msg::Exited).i32(-7).u64(1ULL << 40).str("two words").u8(1).frame());
  a.send(wire::Encoder(wire::Msg::Ping).frame());
  wire::Msg type;
  std::string payload, why;
  REQUIRE(b.wait_frame(type, payload, 2000, why));
  CHECK(type == wire::Msg::Exited);
  wire::Decoder d(payload);
  CHECK(d.i32() == -7);
  CHECK(d.u64() == (1ULL << 40));
  CHECK(d.str() == "two words");
  CHECK(d.u8() == 1);
  CHECK(d.ok());
  d.i32();  // past the end
  CHECK_FALSE(d.ok());
  REQUIRE(b.wait_frame(type, payload, 2000, why));
  CHECK(type == wire::Msg::Ping);
  CHECK(payload.empty());
}

TEST_CASE("wire: a frame that announces a silly length closes the connection", "[launcher][wire]") {
  int sv[2];
  REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
  wire::Conn b(sv[1]);
  const unsigned char junk[] = {0xff, 0xff, 0xff, 0x7f, 1, 2, 3};
  REQUIRE(::write(sv[0], junk, sizeof junk) == static_cast<ssize_t>(sizeof junk));
  wire::Msg type;
  std::string payload, why;
  CHECK_FALSE(b.wait_frame(type, payload, 2000, why));
  CHECK_FALSE(b.open());
  ::close(sv[0]);
}

namespace {
// Moves bytes from `a` to `b` until `b` has a whole message or the connection
// is gone.
bool pump_one(wire::Conn& a, wire::Conn& b, wire::Msg& type, std::string& payload) {
  std::string why;
  for (int rounds = 0; rounds < 100000; ++rounds) {
    if (b.next(type, payload)) return true;
    if (!b.open()) return false;
    if (a.want_write() && !a.on_writable(why)) return false;
    pollfd p{b.fd(), POLLIN, 0};
    if (::poll(&p, 1, a.want_write() ? 0 : 2000) > 0 && !b.on_readable(why)) return b.next(type, payload);
  }
  return false;
}
}  // namespace

// A fence's data can outgrow a frame (kMaxFrame): the message then travels in
// parts. Before parts, such a fence closed the connection as "not our protocol".
TEST_CASE("wire: a message longer than a frame comes in parts, only from a peer that proved the token",
          "[launcher][wire]") {
  std::string big(wire::kMaxFrame + (40u << 20) + 3, '\0');
  for (size_t i = 0; i < big.size(); i += 4096) big[i] = static_cast<char>(i / 4096 * 7);
  big.back() = 'z';
  const std::string frame = wire::Encoder(wire::Msg::FenceDone).str("0,1,").i32(0).str(big).frame();
  CHECK(frame.size() > wire::kMaxFrame);
  {
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    wire::Conn a(sv[0]), b(sv[1]);
    b.accept_parts();
    wire::Conn moved(std::move(b));  // the launcher moves a connection once it is authenticated
    a.send(frame);
    a.send(wire::Encoder(wire::Msg::Ping).frame());
    wire::Msg type;
    std::string payload;
    REQUIRE(pump_one(a, moved, type, payload));
    CHECK(type == wire::Msg::FenceDone);
    wire::Decoder d(payload);
    CHECK(d.str() == "0,1,");
    CHECK(d.i32() == 0);
    const std::string got = d.str();
    CHECK(d.ok());
    CHECK(got.size() == big.size());
    CHECK(got == big);
    REQUIRE(pump_one(a, moved, type, payload));
    CHECK(type == wire::Msg::Ping);
  }
  {
    // Before the token is proved a part is an oversized frame like any other.
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv) == 0);
    wire::Conn a(sv[0]), b(sv[1]);
    a.send(frame);
    wire::Msg type;
    std::string payload;
    CHECK_FALSE(pump_one(a, b, type, payload));
    CHECK_FALSE(b.open());
  }
}

TEST_CASE("wire: the job survives the trip to a daemon", "[launcher][wire]") {
  Job job;
  job.nspace = "chorus.test.1";
  App a;
  a.nprocs = 2;
  a.argv = {"app", "--flag", "x y"};
  a.program_path = "/opt/app";
  App b;
  b.nprocs = 1;
  b.argv = {"other"};
  b.program_path = "/opt/other";
  job.opts.apps = {a, b};
  job.opts.exports = {{"A", "1"}, {"B", ""}};
  job.opts.tag_output = true;
  job.opts.bind = Binding::Core;
  job.opts.wdir = "/w";
  job.opts.hang_timeout_s = 2.5;
  job.nodes = {Node{"h0", {0}}, Node{"h1", {1, 2}}};
  job.slots = {RankSlot{0, 0, 0, 0, 0, 0, ""}, RankSlot{1, 0, 1, 1, 0, 0, ""}, RankSlot{2, 1, 0, 1, 1, 1, ""}};
  wire::Encoder e(wire::Msg::Job);
  wire::encode_job(e, job);
  const std::string f = e.frame();
  wire::Decoder d(std::string_view(f).substr(5));
  Job got;
  REQUIRE(wire::decode_job(d, got));
  CHECK(got.nspace == job.nspace);
  REQUIRE(got.opts.apps.size() == 2);
  CHECK(got.opts.apps[0].argv == a.argv);
  CHECK(got.opts.apps[1].program_path == "/opt/other");
  CHECK(got.opts.exports == job.opts.exports);
  CHECK(got.opts.tag_output);
  CHECK(got.opts.bind == Binding::Core);
  CHECK(got.opts.wdir == "/w");
  CHECK(got.opts.hang_timeout_s == 2.5);
  REQUIRE(got.nodes.size() == 2);
  CHECK(got.nodes[1].hostname == "h1");
  CHECK(got.nodes[1].ranks == std::vector<int>{1, 2});
  CHECK(got.slots[2].app == 1);
  CHECK(got.slots[2].local_rank == 1);
  // A truncated job is refused, not half-read.
  wire::Decoder cut(std::string_view(f).substr(5, f.size() - 12));
  Job bad;
  CHECK_FALSE(wire::decode_job(cut, bad));
}

TEST_CASE("wire: the token proof binds the token, the challenge and the node", "[launcher][wire]") {
  const std::string token = wire::to_hex(wire::random_bytes(32));
  REQUIRE(token.size() == 64);
  const std::string nonce = wire::random_bytes(32);
  const std::string answer = wire::auth_answer(token, nonce, 3);
  CHECK(wire::auth_ok(token, nonce, 3, answer));
  CHECK_FALSE(wire::auth_ok(token, nonce, 4, answer));             // another node
  CHECK_FALSE(wire::auth_ok(token + "0", nonce, 3, answer));       // another token
  CHECK_FALSE(wire::auth_ok(token, wire::random_bytes(32), 3, answer));  // a replay on a new challenge
  CHECK_FALSE(wire::auth_ok(token, nonce, wire::parent_proof_node(3), answer));  // the child's answer is no parent's
  CHECK_FALSE(wire::auth_ok(token, nonce, 3, ""));
}

TEST_CASE("launch_groups: one group a node up to the fanout, then fanout groups of O(N/fanout)",
          "[launcher][tree]") {
  std::vector<int> nodes;
  for (int n = 1; n <= 10; ++n) nodes.push_back(n);
  auto g = launch_groups(nodes, 32);
  CHECK(g.size() == 10);
  for (const auto& grp : g) CHECK(grp.size() == 1);
  g = launch_groups(nodes, 3);
  REQUIRE(g.size() == 3);
  CHECK(g[0] == std::vector<int>{1, 2, 3, 4});
  CHECK(g[1] == std::vector<int>{5, 6, 7});
  CHECK(g[2] == std::vector<int>{8, 9, 10});
  // Every node once; the depth of the whole tree grows as log_fanout(N).
  for (int total : {1, 33, 1000, 16384}) {
    std::vector<int> all(static_cast<size_t>(total));
    for (int i = 0; i < total; ++i) all[static_cast<size_t>(i)] = i;
    std::set<int> seen;
    int depth = 0;
    std::vector<std::vector<int>> level{all};
    while (!level.empty()) {
      ++depth;
      std::vector<std::vector<int>> next;
      for (const auto& sub : level)
        for (auto& grp : launch_groups(sub, 32)) {
          CHECK(seen.insert(grp[0]).second);
          if (grp.size() > 1) next.emplace_back(grp.begin() + 1, grp.end());
        }
      level = std::move(next);
    }
    CHECK(static_cast<int>(seen.size()) == total);
    CHECK(depth <= (total <= 32 ? 1 : total <= 32 * 33 ? 2 : 3));
  }
}

TEST_CASE("wire: a peer that stops reading for longer than the liveness limit is not lost",
          "[launcher][wire][liveness]") {
  // A daemon deep in a large fence does not read its link for seconds while its
  // parent has hundreds of MiB to send it: its receive window closes. With the
  // kernel's TCP_USER_TIMEOUT (used before) Linux aborted such a connection after
  // the limit (ETIMEDOUT) and mpirun declared the daemon lost; its kernel still
  // answers, so link_lost must not say so, and every byte must arrive.
  int port = 0;
  std::string err;
  const int lfd = wire::listen_on("127.0.0.1", port, err);
  REQUIRE(lfd >= 0);
  const int out = wire::connect_to("127.0.0.1:" + std::to_string(port), 2000, err);
  REQUIRE(out >= 0);
  pollfd lp{lfd, POLLIN, 0};
  REQUIRE(::poll(&lp, 1, 2000) == 1);
  const int in = ::accept(lfd, nullptr, nullptr);
  REQUIRE(in >= 0);
  wire::watch_liveness(out);
  wire::watch_liveness(in);
  REQUIRE(::fcntl(out, F_SETFL, ::fcntl(out, F_GETFL) | O_NONBLOCK) == 0);
  constexpr int kLimitMs = 300;  // the limit, far below the peer's pause
  const std::string chunk(1 << 16, 'x');
  std::size_t sent = 0;
  bool lost = false;
  int send_errno = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(3000);
  while (std::chrono::steady_clock::now() < until && !lost && !send_errno) {
    const ssize_t n = ::send(out, chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (n > 0) {
      sent += static_cast<std::size_t>(n);
    } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      send_errno = errno;
    } else {
      std::string why;
      lost = wire::link_lost(out, kLimitMs, why);
      ::usleep(20000);
    }
  }
  INFO("sent " << sent << " bytes; send error: " << std::strerror(send_errno));
  CHECK(send_errno == 0);
  CHECK_FALSE(lost);
  CHECK(sent > 0);
  // The peer reads again: everything arrives.
  REQUIRE(::fcntl(in, F_SETFL, ::fcntl(in, F_GETFL) | O_NONBLOCK) == 0);
  std::size_t got = 0;
  std::vector<char> buf(1 << 20);
  const auto read_until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got < sent && std::chrono::steady_clock::now() < read_until) {
    const ssize_t n = ::recv(in, buf.data(), buf.size(), 0);
    if (n > 0) got += static_cast<std::size_t>(n);
    else if (n == 0) break;
    else ::usleep(1000);
  }
  CHECK(got == sent);
  ::close(in);
  ::close(out);
  ::close(lfd);
}
