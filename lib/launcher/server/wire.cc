#include "launcher/server/wire.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <thread>

#include <fmt/format.h>

#include "core/params.h"

namespace chorus::launcher::wire {
namespace {

// The pieces of a message in parts (each below kMaxFrame).
constexpr uint64_t kPartBytes = 64ull << 20;

void put_le(std::string& b, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

std::vector<std::string> split_csv(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    size_t comma = s.find(',', start);
    std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// Keepalive on daemon connections (watch_liveness): probes after kKeepIdleS idle,
// every kKeepIntvlS, the connection ended after kKeepCnt unanswered.
constexpr int kKeepIdleS = 1, kKeepIntvlS = 1, kKeepCnt = 3;

// "no answer to heartbeats for S s (...)": the "lost contact" cause, from
// watch_liveness's keepalive or link_lost.
std::string silence_text(double seconds) {
  return fmt::format("no answer to heartbeats for {:.1f} s (a cut link, or a host that is gone)", seconds);
}

// Why a connection failed, from errno: a timeout is the kernel's keepalive
// (watch_liveness) on an idle link, which users know as heartbeats.
std::string lost_why(const char* op) {
  if (errno == ETIMEDOUT) return silence_text(kKeepIdleS + kKeepIntvlS * kKeepCnt);
  return fmt::format("{}: {}", op, std::strerror(errno));
}

bool listed(const std::vector<std::string>& names, const char* name) {
  for (const auto& n : names)
    if (n == name) return true;
  return false;
}

std::string ipv4_text(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = {};
  ::inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return buf;
}

}  // namespace

Encoder::Encoder(Msg type) {
  buf_.assign(4, '\0');
  buf_.push_back(static_cast<char>(type));
}
Encoder& Encoder::u8(uint8_t v) {
  buf_.push_back(static_cast<char>(v));
  return *this;
}
Encoder& Encoder::i32(int32_t v) {
  put_le(buf_, static_cast<uint32_t>(v), 4);
  return *this;
}
Encoder& Encoder::u64(uint64_t v) {
  put_le(buf_, v, 8);
  return *this;
}
Encoder& Encoder::str(std::string_view s) {
  put_le(buf_, s.size(), 4);
  buf_.append(s);
  return *this;
}
Encoder& Encoder::raw(std::string_view s) {
  buf_.append(s);
  return *this;
}
std::string Encoder::frame() {
  const uint64_t n = buf_.size() - 4;
  if (n <= kMaxFrame) {
    for (int i = 0; i < 4; ++i) buf_[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
    return std::move(buf_);
  }
  // In parts: each a frame of its own carrying the next kPartBytes of the
  // message (type byte and payload).
  std::string out;
  out.reserve(n + (n / kPartBytes + 1) * 5);
  for (uint64_t at = 4; at < buf_.size(); at += kPartBytes) {
    const uint64_t len = std::min<uint64_t>(kPartBytes, buf_.size() - at);
    put_le(out, len + 1, 4);
    out.push_back(static_cast<char>(at + len == buf_.size() ? Msg::PartEnd : Msg::Part));
    out.append(buf_, at, len);
  }
  buf_.clear();
  return out;
}

bool Decoder::take(void* out, size_t n) {
  if (!ok_ || p_.size() < n) {
    ok_ = false;
    std::memset(out, 0, n);
    return false;
  }
  std::memcpy(out, p_.data(), n);
  p_.remove_prefix(n);
  return true;
}
uint8_t Decoder::u8() {
  uint8_t v = 0;
  take(&v, 1);
  return v;
}
int32_t Decoder::i32() {
  unsigned char b[4];
  if (!take(b, 4)) return 0;
  return static_cast<int32_t>(uint32_t(b[0]) | uint32_t(b[1]) << 8 | uint32_t(b[2]) << 16 | uint32_t(b[3]) << 24);
}
uint64_t Decoder::u64() {
  unsigned char b[8];
  if (!take(b, 8)) return 0;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[i];
  return v;
}
std::string Decoder::str() {
  const uint32_t n = static_cast<uint32_t>(i32());
  if (!ok_ || p_.size() < n) {
    ok_ = false;
    return {};
  }
  std::string s(p_.substr(0, n));
  p_.remove_prefix(n);
  return s;
}

// ---- Conn ----

Conn::~Conn() { close(); }
Conn::Conn(Conn&& o) noexcept
    : fd_(o.fd_),
      in_(std::move(o.in_)),
      out_(std::move(o.out_)),
      out_off_(o.out_off_),
      parts_ok_(o.parts_ok_),
      part_(std::move(o.part_)) {
  o.fd_ = -1;
}
Conn& Conn::operator=(Conn&& o) noexcept {
  if (this != &o) {
    close();
    fd_ = o.fd_;
    in_ = std::move(o.in_);
    out_ = std::move(o.out_);
    out_off_ = o.out_off_;
    parts_ok_ = o.parts_ok_;
    part_ = std::move(o.part_);
    o.fd_ = -1;
  }
  return *this;
}
void Conn::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  out_.clear();
  out_off_ = 0;
}

void Conn::send(std::string frame) {
  if (fd_ < 0) return;
  if (!frame.empty()) out_.push_back(std::move(frame));
  std::string why;
  on_writable(why);  // a failure shows up as EOF on the next read
}

bool Conn::on_writable(std::string& why) {
  while (!out_.empty()) {
    const std::string& front = out_.front();
    ssize_t w = ::send(fd_, front.data() + out_off_, front.size() - out_off_, MSG_NOSIGNAL);
    if (w > 0) {
      out_off_ += static_cast<size_t>(w);
      if (out_off_ == front.size()) {
        out_.pop_front();
        out_off_ = 0;
      }
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    why = lost_why("write");
    return false;
  }
  return true;
}

bool Conn::on_readable(std::string& why) {
  char buf[65536];
  for (;;) {
    ssize_t r = ::recv(fd_, buf, sizeof buf, 0);
    if (r > 0) {
      in_.append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) {
      why = "connection closed";
      return false;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return true;
    why = lost_why("read");
    return false;
  }
}

bool Conn::next(Msg& type, std::string& payload) {
  size_t at = 0;  // frames taken from in_ so far (parts)
  auto broken = [&] {
    // Not our protocol: make the caller see a closed connection.
    type = Msg::Ping;
    payload.clear();
    in_.clear();
    part_.clear();
    close();
    return false;
  };
  for (;;) {
    if (in_.size() - at < 5) break;
    uint32_t n = 0;
    for (int i = 3; i >= 0; --i) n = n << 8 | static_cast<unsigned char>(in_[at + static_cast<size_t>(i)]);
    if (n == 0 || n > kMaxFrame) return broken();
    if (in_.size() - at < 4 + static_cast<size_t>(n)) break;
    const auto t = static_cast<Msg>(in_[at + 4]);
    if (t != Msg::Part && t != Msg::PartEnd) {
      if (!part_.empty()) return broken();  // a message cut short
      type = t;
      payload.assign(in_, at + 5, n - 1);
      in_.erase(0, at + 4 + static_cast<size_t>(n));
      return true;
    }
    if (!parts_ok_ || part_.size() + n - 1 > kMaxMessage + 1) return broken();
    part_.append(in_, at + 5, n - 1);
    at += 4 + static_cast<size_t>(n);
    if (t == Msg::PartEnd) {
      in_.erase(0, at);
      if (part_.empty()) return broken();
      type = static_cast<Msg>(part_[0]);
      payload.assign(part_, 1);
      part_.clear();
      part_.shrink_to_fit();
      return true;
    }
  }
  in_.erase(0, at);
  return false;
}

bool Conn::wait_frame(Msg& type, std::string& payload, int timeout_ms, std::string& why) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (!next(type, payload)) {
    if (fd_ < 0) {
      why = "connection closed (not a Chorus peer?)";
      return false;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      why = "timed out";
      return false;
    }
    pollfd p{fd_, POLLIN, 0};
    int n = ::poll(&p, 1, static_cast<int>(left.count()));
    if (n < 0 && errno != EINTR) {
      why = fmt::format("poll: {}", std::strerror(errno));
      return false;
    }
    if (n > 0 && !on_readable(why)) {
      if (next(type, payload)) return true;  // the frame came with the EOF
      return false;
    }
  }
  return true;
}

bool Conn::flush(int timeout_ms, std::string& why) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (want_write()) {
    if (!on_writable(why)) return false;
    if (!want_write()) break;
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      why = "timed out";
      return false;
    }
    pollfd p{fd_, POLLOUT, 0};
    ::poll(&p, 1, static_cast<int>(left.count()));
  }
  return true;
}

// ---- authentication ----

std::string random_bytes(size_t n) {
  std::string s(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(s.data()), static_cast<int>(n)) != 1) return {};
  return s;
}

std::string to_hex(std::string_view bytes) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  s.reserve(bytes.size() * 2);
  for (unsigned char c : bytes) {
    s.push_back(digits[c >> 4]);
    s.push_back(digits[c & 15]);
  }
  return s;
}

std::string auth_answer(std::string_view token, std::string_view nonce, int node) {
  std::string msg = fmt::format("chorusd-auth:{}:", node);
  msg.append(nonce);
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (!HMAC(EVP_sha256(), token.data(), static_cast<int>(token.size()),
            reinterpret_cast<const unsigned char*>(msg.data()), msg.size(), md, &len))
    return {};
  return std::string(reinterpret_cast<char*>(md), len);
}

bool auth_ok(std::string_view token, std::string_view nonce, int node, std::string_view answer) {
  const std::string want = auth_answer(token, nonce, node);
  return !want.empty() && want.size() == answer.size() &&
         CRYPTO_memcmp(want.data(), answer.data(), want.size()) == 0;
}

// ---- addresses ----

std::string pick_listen_address(const std::string& peer_host, std::string& err) {
  const std::vector<std::string> include = split_csv(param::IfInclude());
  const std::vector<std::string> exclude = split_csv(param::IfExclude());
  ifaddrs* ifs = nullptr;
  if (::getifaddrs(&ifs) != 0) {
    err = fmt::format("getifaddrs: {}", std::strerror(errno));
    return {};
  }
  struct Cand {
    std::string name, addr;
    bool loopback;
  };
  std::vector<Cand> cands;
  for (ifaddrs* i = ifs; i; i = i->ifa_next) {
    if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP)) continue;
    if (listed(exclude, i->ifa_name)) continue;
    cands.push_back({i->ifa_name, ipv4_text(*reinterpret_cast<sockaddr_in*>(i->ifa_addr)),
                     (i->ifa_flags & IFF_LOOPBACK) != 0});
  }
  ::freeifaddrs(ifs);
  if (!include.empty()) {
    for (const auto& want : include)
      for (const auto& c : cands)
        if (c.name == want) return c.addr;
    err = fmt::format("CHORUS_IF_INCLUDE={}: no such interface up with an IPv4 address", param::IfInclude());
    return {};
  }
  // The kernel's own choice of source address towards the peer (a UDP connect
  // sends nothing).
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* res = nullptr;
  if (::getaddrinfo(peer_host.c_str(), "9", &hints, &res) == 0 && res) {
    int s = ::socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    sockaddr_in local{};
    socklen_t len = sizeof local;
    bool got = s >= 0 && ::connect(s, res->ai_addr, res->ai_addrlen) == 0 &&
               ::getsockname(s, reinterpret_cast<sockaddr*>(&local), &len) == 0;
    if (s >= 0) ::close(s);
    ::freeaddrinfo(res);
    if (got) {
      const std::string addr = ipv4_text(local);
      for (const auto& c : cands)
        if (c.addr == addr) return addr;  // on an interface that is not excluded
    }
  }
  for (const auto& c : cands)
    if (!c.loopback) return c.addr;
  err = fmt::format("no network interface to reach {} (none up with IPv4{})", peer_host,
                    exclude.empty() ? "" : ", after CHORUS_IF_EXCLUDE");
  return {};
}

int listen_on(const std::string& addr, int& port, std::string& err) {
  int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (s < 0) {
    err = fmt::format("socket: {}", std::strerror(errno));
    return -1;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = 0;
  if (::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1) {
    err = fmt::format("bad address {}", addr);
    ::close(s);
    return -1;
  }
  socklen_t len = sizeof a;
  if (::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(s, 128) != 0 ||
      ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    err = fmt::format("listen on {}: {}", addr, std::strerror(errno));
    ::close(s);
    return -1;
  }
  port = ntohs(a.sin_port);
  return s;
}

int connect_to(const std::string& addr_port, int timeout_ms, std::string& err) {
  const size_t colon = addr_port.rfind(':');
  sockaddr_in a{};
  a.sin_family = AF_INET;
  int port = colon == std::string::npos ? 0 : std::atoi(addr_port.c_str() + colon + 1);
  if (colon == std::string::npos || port <= 0 || port > 65535 ||
      ::inet_pton(AF_INET, addr_port.substr(0, colon).c_str(), &a.sin_addr) != 1) {
    err = fmt::format("bad parent address '{}' (expected IPv4:port)", addr_port);
    return -1;
  }
  a.sin_port = htons(static_cast<uint16_t>(port));
  const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    // Non-blocking, so a dropped SYN costs the time left, not the kernel's retries.
    int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (s < 0) {
      err = fmt::format("socket: {}", std::strerror(errno));
      return -1;
    }
    int rc = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    if (rc != 0 && errno == EINPROGRESS) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
      pollfd p{s, POLLOUT, 0};
      int soerr = ETIMEDOUT;
      socklen_t len = sizeof soerr;
      if (::poll(&p, 1, static_cast<int>(std::max<long>(0, left.count()))) == 1)
        ::getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len);
      rc = soerr == 0 ? 0 : -1;
      errno = soerr;
    }
    if (rc == 0) {
      int one = 1;
      ::setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      ::fcntl(s, F_SETFL, ::fcntl(s, F_GETFL) & ~O_NONBLOCK);
      return s;
    }
    err = fmt::format("connect to {}: {}", addr_port, std::strerror(errno));
    ::close(s);
    if (std::chrono::steady_clock::now() >= until) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

void watch_liveness(int fd) {
  int one = 1, idle = kKeepIdleS, intvl = kKeepIntvlS, cnt = kKeepCnt;
  ::setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof one);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof idle);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof intvl);
  ::setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof cnt);
}

bool link_lost(int fd, int timeout_ms, std::string& why) {
  tcp_info ti{};
  socklen_t len = sizeof ti;
  if (::getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0) return false;  // reads see the error
  const unsigned unanswered = std::max<unsigned>(ti.tcpi_retransmits, ti.tcpi_probes);
  if (ti.tcpi_last_ack_recv <= static_cast<unsigned>(std::max(0, timeout_ms)) || unanswered < 2) return false;
  why = silence_text(ti.tcpi_last_ack_recv / 1000.0);
  return true;
}

std::string peer_name(int fd) {
  sockaddr_in a{};
  socklen_t len = sizeof a;
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0 || a.sin_family != AF_INET) return "?";
  return fmt::format("{}:{}", ipv4_text(a), ntohs(a.sin_port));
}

// ---- the job ----
// What a daemon needs to serve its node: the whole placement (the PMIx
// namespace describes every rank) and the options that shape a rank's start
// and output. --timeout and the hang doctor's clock stay with mpirun.

void encode_job(Encoder& e, const Job& job) {
  const Options& o = job.opts;
  e.str(job.nspace);
  e.i32(static_cast<int32_t>(o.apps.size()));
  for (const App& a : o.apps) {
    e.i32(a.nprocs).str(a.program_path).i32(static_cast<int32_t>(a.argv.size()));
    for (const auto& s : a.argv) e.str(s);
  }
  e.i32(static_cast<int32_t>(o.exports.size()));
  for (const auto& [n, v] : o.exports) e.str(n).str(v);
  e.u8(static_cast<uint8_t>(o.bind)).u8(static_cast<uint8_t>(o.map_by)).i32(o.ppr).u8(o.tag_output).u8(o.timestamp_output).u8(o.merge_stderr).u8(o.report_bindings);
  e.str(fmt::format("{}", o.hang_timeout_s)).str(o.wdir).str(o.output_dir);
  e.i32(static_cast<int32_t>(job.nodes.size()));
  for (const Node& n : job.nodes) e.str(n.hostname);
  e.i32(static_cast<int32_t>(job.slots.size()));
  for (const RankSlot& s : job.slots)
    e.i32(s.app).i32(s.app_rank).i32(s.node).i32(s.local_rank).i32(s.node_rank).str(s.cpu_slot);
}

bool decode_job(Decoder& d, Job& job) {
  Options& o = job.opts;
  job.nspace = d.str();
  const int napps = d.i32();
  if (!d.ok() || napps < 1 || napps > (1 << 20)) return false;
  o.apps.assign(static_cast<size_t>(napps), App{});
  for (App& a : o.apps) {
    a.nprocs = d.i32();
    a.nprocs_given = true;
    a.program_path = d.str();
    const int nargs = d.i32();
    if (!d.ok() || nargs < 1 || nargs > (1 << 20)) return false;
    for (int i = 0; i < nargs; ++i) a.argv.push_back(d.str());
  }
  const int nexp = d.i32();
  if (!d.ok() || nexp < 0 || nexp > (1 << 20)) return false;
  for (int i = 0; i < nexp; ++i) {
    std::string n = d.str();
    o.exports.emplace_back(std::move(n), d.str());
  }
  const int bind = d.u8(), map_by = d.u8();
  if (bind > static_cast<int>(Binding::Auto) || map_by > static_cast<int>(MapBy::Numa)) return false;
  o.bind = static_cast<Binding>(bind);
  o.map_by = static_cast<MapBy>(map_by);
  o.ppr = d.i32();
  o.tag_output = d.u8();
  o.timestamp_output = d.u8();
  o.merge_stderr = d.u8();
  o.report_bindings = d.u8();
  o.hang_timeout_s = std::atof(d.str().c_str());
  o.wdir = d.str();
  o.output_dir = d.str();
  const int nnodes = d.i32();
  if (!d.ok() || nnodes < 1 || nnodes > (1 << 20)) return false;
  job.nodes.assign(static_cast<size_t>(nnodes), Node{});
  for (Node& n : job.nodes) n.hostname = d.str();
  const int nslots = d.i32();
  if (!d.ok() || nslots < 1 || nslots > (1 << 20)) return false;
  job.slots.resize(static_cast<size_t>(nslots));
  for (int r = 0; r < nslots; ++r) {
    RankSlot& s = job.slots[static_cast<size_t>(r)];
    s.rank = r;
    s.app = d.i32();
    s.app_rank = d.i32();
    s.node = d.i32();
    s.local_rank = d.i32();
    s.node_rank = d.i32();
    s.cpu_slot = d.str();
    if (!d.ok() || s.node < 0 || s.node >= nnodes || s.app < 0 || s.app >= napps) return false;
    job.nodes[static_cast<size_t>(s.node)].ranks.push_back(r);
  }
  return d.ok();
}

}  // namespace chorus::launcher::wire
