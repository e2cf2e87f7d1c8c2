// The daemon tree's wire: how mpirun and the chorusd daemons on other hosts talk.
//
// One TCP connection per tree edge (a daemon to its parent: mpirun or another
// daemon). Every message is a frame: a 4-byte little-endian length, a 1-byte type,
// then the payload (length counts type + payload). Payloads are written with
// Encoder and read with Decoder: fixed-width little-endian integers and
// length-prefixed strings, nothing else.
//
// Who may connect: mpirun draws a random per-job token and hands it to each
// daemon on the launch agent's stdin (never on a command line or in an
// environment `ps` shows). A parent that accepts a connection sends a random
// challenge; the child answers HMAC-SHA256(token, challenge | node) with a
// challenge of its own, and only then gets the job, which opens with the
// parent's answer to that challenge: each side knows the other holds the token
// before it acts. A wrong answer closes the connection before anything else is
// said.
#pragma once
#include <netinet/in.h>

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "launcher/server/job.h"

namespace chorus::launcher::wire {

enum class Msg : uint8_t {
  // parent -> child
  Challenge = 1,   // bytes nonce
  Job = 2,         // bytes hmac on the child's nonce, the job (encode_job), its subtree, environment, agent, prefix
  FenceDone = 3,   // str key, i32 pmix status, bytes data
  Signal = 4,      // i32 signo: pass to every rank, the job goes on (SIGUSR1/2)
  Terminate = 5,   // i32 signo: end the job
  HangAsk = 6,     // the hang doctor: ask this node's ranks where they are
  Stdin = 7,       // str bytes for rank 0's stdin, towards its node; empty: the end of it
  // child -> parent
  Auth = 16,       // i32 node, bytes hmac, bytes nonce (the child's challenge to the parent)
  Started = 17,    // i32 node, then per rank: i32 rank, i32 pid
  Fence = 18,      // str key, i32 count of nodes contributing, bytes data
  Exited = 19,     // i32 rank, i32 pid, i32 wait status, u8 connected, u8 finalized
  Abort = 20,      // i32 rank, i32 errorcode, str message
  Failed = 21,     // i32 node, str cause: a daemon could not start or run its part
  Done = 22,       // i32 node: every rank and daemon below is gone
  HangSeen = 23,   // i32 node: a rank here waited longer than the hang timeout
  HangLines = 24,  // i32 node, i32 n, n x str: this node's ranks' hang reports
  StdinAck = 25,   // u64 bytes rank 0's node took (written to rank 0, or dropped), u8 1: rank 0 takes no more
  // both ways
  Part = 28,       // bytes: a piece of one message too long for a frame (its type byte, then its payload) ...
  PartEnd = 29,    // bytes: ... and its last piece; only between peers that proved the token (Conn::accept_parts)
  Ping = 30,
  ModexAsk = 31,   // i32 asking node, i32 its request, i32 rank: that rank's PMIx data, towards the rank's node
  ModexData = 32,  // i32 asking node, i32 its request, i32 pmix status, bytes data: the answer, towards the asker
};

// The longest frame a peer may send (a longer length is a broken or hostile
// peer), and the longest message Part frames may carry between peers that
// proved the token (strings in a payload have 32-bit lengths).
constexpr uint64_t kMaxFrame = 256ull << 20;
constexpr uint64_t kMaxMessage = 4ull << 30;

class Encoder {
 public:
  explicit Encoder(Msg type);
  Encoder& u8(uint8_t v);
  Encoder& i32(int32_t v);
  Encoder& u64(uint64_t v);
  Encoder& str(std::string_view s);  // u32 length + bytes
  Encoder& raw(std::string_view s);  // bytes as they are (a payload passed on)
  // The finished frame (length filled in). A message longer than a frame may
  // be (kMaxFrame) comes as Part frames and a PartEnd, which Conn::next puts
  // together again.
  std::string frame();

 private:
  std::string buf_;
};

// Reads a payload; any read past its end sets ok() false and returns zeros.
class Decoder {
 public:
  explicit Decoder(std::string_view payload) : p_(payload) {}
  uint8_t u8();
  int32_t i32();
  uint64_t u64();
  std::string str();
  bool ok() const { return ok_; }

 private:
  bool take(void* out, size_t n);
  std::string_view p_;
  bool ok_ = true;
};

// A connection with buffered input and output, over a non-blocking socket.
class Conn {
 public:
  Conn() = default;
  explicit Conn(int fd) : fd_(fd) {}
  ~Conn();
  Conn(Conn&& o) noexcept;
  Conn& operator=(Conn&& o) noexcept;
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void close();
  // Queues a frame and writes what the socket takes now.
  void send(std::string frame);
  bool want_write() const { return !out_.empty(); }
  size_t buffered() const { return in_.size(); }  // bytes read, not yet taken as frames
  // Called when poll says the socket is writable / readable. Return false when
  // the connection is gone (EOF or error; `why` says which).
  bool on_writable(std::string& why);
  bool on_readable(std::string& why);
  // The next whole message, if one has arrived: its type and payload.
  bool next(Msg& type, std::string& payload);
  // Take messages sent in parts (Part/PartEnd), once the peer proved the token;
  // before that a Part closes the connection like any other oversized frame.
  void accept_parts() { parts_ok_ = true; }
  // Blocks (up to timeout_ms) until a whole frame arrives; false on EOF/timeout.
  bool wait_frame(Msg& type, std::string& payload, int timeout_ms, std::string& why);
  // Blocks until everything queued is written (up to timeout_ms).
  bool flush(int timeout_ms, std::string& why);

 private:
  int fd_ = -1;
  std::string in_;
  // Frames queued to send, the first one `out_off_` bytes written (a queue of
  // frames, not one string: erasing what a partial send took from the front
  // of a long string would copy the rest each time).
  std::deque<std::string> out_;
  size_t out_off_ = 0;
  bool parts_ok_ = false;
  std::string part_;  // the pieces of a message in parts so far
};

// ---- authentication ----
std::string random_bytes(size_t n);  // from the kernel's CSPRNG (OpenSSL RAND_bytes)
std::string to_hex(std::string_view bytes);
std::string auth_answer(std::string_view token, std::string_view nonce, int node);
bool auth_ok(std::string_view token, std::string_view nonce, int node, std::string_view answer);
// The parent proves the token back on the child's own nonce, under another label
// (so neither answer can be replayed as the other).
inline int parent_proof_node(int node) { return -1 - node; }

// ---- addresses ----
// The IPv4 address daemons should connect back to, for reaching `peer_host`:
// CHORUS_IF_INCLUDE's first usable interface if set; else the address the kernel
// would send from towards `peer_host`; else the first non-loopback interface that
// is up. CHORUS_IF_EXCLUDE's interfaces are never chosen. Empty with `err` set
// when none fits.
std::string pick_listen_address(const std::string& peer_host, std::string& err);
// A listening TCP socket on `addr`, port chosen by the kernel; `port` returned.
int listen_on(const std::string& addr, int& port, std::string& err);
// A blocking connect to "ADDR:PORT" (numeric IPv4), retrying for up to `timeout_ms`.
int connect_to(const std::string& addr_port, int timeout_ms, std::string& err);
// Keepalive on a daemon connection: probes after 1 s idle, one a second, and the
// kernel ends the connection after 3 unanswered (an idle link to a host that is
// gone). A link with data in flight is link_lost's call, on every heartbeat.
void watch_liveness(int fd);
// The peer's kernel has acknowledged nothing for more than `timeout_ms`, and at
// least two of our retransmissions or probes went unanswered: a cut link or a host
// that is gone. A peer that is alive but busy (not reading: its receive window is
// closed) answers our zero-window probes (its probe count swings between 0 and
// 1), and is not taken for lost. A host that dies while its window is closed is
// found only as fast as the kernel's probes back off (up to minutes). (The
// kernel's own TCP_USER_TIMEOUT was used before: Linux also aborts a connection
// whose peer keeps its window closed that long, and a daemon busy with a 400 MiB
// fence was declared lost.) `why` says so for the "lost contact" line.
bool link_lost(int fd, int timeout_ms, std::string& why);
// "a.b.c.d:port" of a connected socket's peer.
std::string peer_name(int fd);

// ---- the job ----
void encode_job(Encoder& e, const Job& job);
bool decode_job(Decoder& d, Job& job);

}  // namespace chorus::launcher::wire
