#include "launcher/pmi1.h"

#include <poll.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <fmt/format.h>

#include "core/log.h"
#include "launcher/pmix.h"

namespace chorus::launcher::pmi1 {
namespace {

int g_fd = -1;
int g_rank = 0;
std::string g_kvs;
std::size_t g_chunk = 0;  // value bytes per chunk (hex: two characters each)
std::string g_pending;    // read past the end of the last reply

bool env_int(const char* name, long& out) {
  const char* s = std::getenv(name);
  if (!s || !*s) return false;
  char* end = nullptr;
  errno = 0;
  out = std::strtol(s, &end, 10);
  return errno == 0 && *end == '\0' && out >= 0;
}

bool send_line(const std::string& line) {
  std::string msg = line + "\n";
  const char* p = msg.data();
  std::size_t left = msg.size();
  while (left) {
    ssize_t w = ::write(g_fd, p, left);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    left -= static_cast<std::size_t>(w);
  }
  return true;
}

// One reply line. `timeout_ms` < 0: wait for ever; `progress` runs between polls.
bool read_line(std::string& line, int timeout_ms = -1, void (*progress)(void*) = nullptr, void* arg = nullptr) {
  int waited = 0;
  while (true) {
    if (auto nl = g_pending.find('\n'); nl != std::string::npos) {
      line = g_pending.substr(0, nl);
      g_pending.erase(0, nl + 1);
      return true;
    }
    pollfd p{g_fd, POLLIN, 0};
    int n = ::poll(&p, 1, progress ? 0 : (timeout_ms < 0 ? -1 : 100));
    if (n < 0 && errno != EINTR) return false;
    if (n <= 0) {
      if (progress) {
        progress(arg);
        sched_yield();
        continue;
      }
      waited += 100;
      if (timeout_ms >= 0 && waited >= timeout_ms) return false;
      continue;
    }
    char buf[4096];
    ssize_t got = ::read(g_fd, buf, sizeof buf);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;  // the launcher closed the connection
    g_pending.append(buf, static_cast<std::size_t>(got));
  }
}

// The value of `key` in a reply line ("cmd=x a=1 b=2"), or empty.
std::string field(const std::string& line, std::string_view key) {
  std::size_t at = 0;
  while (at < line.size()) {
    std::size_t end = line.find(' ', at);
    if (end == std::string::npos) end = line.size();
    std::string_view word(line.data() + at, end - at);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
      return std::string(word.substr(key.size() + 1));
    at = end + 1;
  }
  return {};
}

// A request and its reply, which must be `cmd=<want>` (and rc=0 when it has one).
bool request(const std::string& line, std::string_view want, std::string& reply, std::string& err) {
  if (!send_line(line) || !read_line(reply)) {
    err = fmt::format("PMI-1: no reply to '{}' (the launcher closed the connection)", line.substr(0, line.find(' ')));
    return false;
  }
  const std::string rc = field(reply, "rc");
  if (field(reply, "cmd") != want || (!rc.empty() && rc != "0")) {
    err = fmt::format("PMI-1: '{}' answered '{}'", line.substr(0, line.find(' ')), reply);
    return false;
  }
  return true;
}

std::string key_of(int rank, std::string_view key) { return fmt::format("r{}/{}", rank, key); }

Status kvs_get(const std::string& key, std::string& value) {
  std::string reply, err;
  if (!request(fmt::format("cmd=get kvsname={} key={}", g_kvs, key), "get_result", reply, err)) {
    CHORUS_WARN(BOOT, "{}", err);
    return Status::Bootstrap;
  }
  value = field(reply, "value");
  return Status::Ok;
}

}  // namespace

bool offered() { return std::getenv("PMI_FD") && std::getenv("PMI_RANK") && std::getenv("PMI_SIZE"); }

std::vector<int> parse_process_mapping(std::string_view value, int size) {
  // (vector,(a,b,c),(d,e,f))
  struct Block {
    long first, nodes, ppn;
  };
  std::vector<Block> blocks;
  const std::string_view head = "(vector,";
  if (value.substr(0, head.size()) != head) return {};
  std::string rest(value.substr(head.size()));
  std::size_t at = 0;
  while (at < rest.size() && rest[at] == '(') {
    Block b{};
    if (std::sscanf(rest.c_str() + at, "(%ld,%ld,%ld)", &b.first, &b.nodes, &b.ppn) != 3 || b.nodes <= 0 ||
        b.ppn <= 0 || b.first < 0)
      return {};
    blocks.push_back(b);
    at = rest.find(')', at);
    if (at == std::string::npos) return {};
    ++at;
    if (at < rest.size() && rest[at] == ',') ++at;
  }
  if (blocks.empty() || at >= rest.size() || rest[at] != ')') return {};
  std::vector<int> node(static_cast<std::size_t>(size), -1);
  int r = 0;
  while (r < size) {
    for (const Block& b : blocks)
      for (long n = 0; n < b.nodes && r < size; ++n)
        for (long k = 0; k < b.ppn && r < size; ++k) node[static_cast<std::size_t>(r++)] = static_cast<int>(b.first + n);
  }
  return node;
}

Status init(JobInfo& out, std::string& err) {
  long fd = -1, rank = -1, size = -1;
  if (!env_int("PMI_FD", fd) || !env_int("PMI_RANK", rank) || !env_int("PMI_SIZE", size) || size < 1 ||
      rank >= size) {
    err = "PMI-1: PMI_FD, PMI_RANK or PMI_SIZE is not a number";
    return Status::Bootstrap;
  }
  g_fd = static_cast<int>(fd);
  g_rank = static_cast<int>(rank);
  std::string reply;
  // A server that is no PMI-1 server (Slurm's PMI-2) does not answer this line:
  // give it five seconds.
  if (!send_line("cmd=init pmi_version=1 pmi_subversion=1") || !read_line(reply, 5000) ||
      field(reply, "cmd") != "response_to_init" || field(reply, "rc") != "0") {
    err = fmt::format("the launcher's PMI socket (PMI_FD={}) does not answer PMI-1's init{}{}: Chorus joins "
                      "jobs through PMIx (its mpirun, srun --mpi=pmix, Open MPI's mpirun) or PMI-1 "
                      "(MPICH's mpiexec)", fd, reply.empty() ? "" : ": ", reply);
    return Status::Bootstrap;
  }
  if (!request("cmd=get_maxes", "maxes", reply, err)) return Status::Bootstrap;
  const long vallen = std::strtol(field(reply, "vallen_max").c_str(), nullptr, 10);
  g_chunk = static_cast<std::size_t>(std::max(16L, (vallen - 8) / 2));
  if (!request("cmd=get_my_kvsname", "my_kvsname", reply, err)) return Status::Bootstrap;
  g_kvs = field(reply, "kvsname");
  if (!request("cmd=get_appnum", "appnum", reply, err)) return Status::Bootstrap;
  out.appnum = std::atoi(field(reply, "appnum").c_str());
  out.singleton = false;
  out.rank = g_rank;
  out.size = static_cast<int>(size);
  out.nspace = g_kvs;
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  out.hostname = host;
  // Which ranks share this node: hydra's node map; without one, each rank alone.
  std::string map;
  std::vector<int> node;
  if (ok(kvs_get("PMI_process_mapping", map))) node = parse_process_mapping(map, out.size);
  if (node.empty()) {
    CHORUS_LOG(INFO, BOOT, "PMI-1: no usable PMI_process_mapping ('{}'): every rank on a node of its own", map);
    for (int r = 0; r < out.size; ++r) node.push_back(r);
  }
  const int mine = node[static_cast<std::size_t>(g_rank)];
  int nodes = 0;
  for (int r = 0; r < out.size; ++r) {
    nodes = std::max(nodes, node[static_cast<std::size_t>(r)] + 1);
    if (node[static_cast<std::size_t>(r)] != mine) continue;
    if (r == g_rank) out.local_rank = static_cast<int>(out.local_peers.size());
    out.local_peers.push_back(r);
  }
  out.local_size = static_cast<int>(out.local_peers.size());
  out.node_id = mine;
  out.num_nodes = nodes;
  CHORUS_LOG(INFO, BOOT, "joined PMI-1 job {} (MPICH's hydra) as rank {} of {}, {} on this node", g_kvs, g_rank,
             out.size, out.local_size);
  return Status::Ok;
}

Status put(std::string_view key, const void* data, std::size_t len) {
  static constexpr char kHex[] = "0123456789abcdef";
  const auto* b = static_cast<const unsigned char*>(data);
  const std::size_t chunks = len == 0 ? 0 : (len - 1) / g_chunk + 1;
  std::string reply, err;
  for (std::size_t c = 0; c < chunks; ++c) {
    std::string hex;
    for (std::size_t i = c * g_chunk; i < std::min(len, (c + 1) * g_chunk); ++i) {
      hex += kHex[b[i] >> 4];
      hex += kHex[b[i] & 15];
    }
    if (!request(fmt::format("cmd=put kvsname={} key={}/{} value={}", g_kvs, key_of(g_rank, key), c, hex),
                 "put_result", reply, err)) {
      CHORUS_WARN(BOOT, "{}", err);
      return Status::Bootstrap;
    }
  }
  if (!request(fmt::format("cmd=put kvsname={} key={} value={}:{}", g_kvs, key_of(g_rank, key), chunks, len),
               "put_result", reply, err)) {
    CHORUS_WARN(BOOT, "{}", err);
    return Status::Bootstrap;
  }
  return Status::Ok;
}

Status fence(void (*progress)(void*), void* arg) {
  std::string reply;
  if (!send_line("cmd=barrier_in") || !read_line(reply, -1, progress, arg) || field(reply, "cmd") != "barrier_out") {
    CHORUS_WARN(BOOT, "PMI-1 barrier failed{}{}", reply.empty() ? "" : ": ", reply);
    return Status::Bootstrap;
  }
  return Status::Ok;
}

Status get(int rank, std::string_view key, std::vector<std::byte>& out) {
  std::string head;
  CHORUS_TRY(kvs_get(key_of(rank, key), head));
  std::size_t chunks = 0, len = 0;
  if (std::sscanf(head.c_str(), "%zu:%zu", &chunks, &len) != 2) {
    CHORUS_WARN(BOOT, "PMI-1: rank {} published no {} ('{}')", rank, key, head);
    return Status::Bootstrap;
  }
  out.clear();
  out.reserve(len);
  for (std::size_t c = 0; c < chunks; ++c) {
    std::string hex;
    CHORUS_TRY(kvs_get(fmt::format("{}/{}", key_of(rank, key), c), hex));
    for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
      out.push_back(static_cast<std::byte>(std::strtoul(hex.substr(i, 2).c_str(), nullptr, 16)));
  }
  if (out.size() != len) {
    CHORUS_WARN(BOOT, "PMI-1: {} of rank {} has {} bytes, expected {}", key, rank, out.size(), len);
    return Status::Bootstrap;
  }
  return Status::Ok;
}

void abort(int errorcode, const std::string& message) {
  // Hydra prints the message and ends the job; no reply comes.
  std::string msg;
  for (char c : message) msg += (c == '\n' || c == '=') ? ' ' : c;
  send_line(fmt::format("cmd=abort exitcode={} error_msg={}", errorcode, msg));
}

Status finalize() {
  std::string reply, err;
  const bool done = request("cmd=finalize", "finalize_ack", reply, err);
  ::close(g_fd);
  g_fd = -1;
  if (!done) {
    CHORUS_WARN(BOOT, "{}", err);
    return Status::Bootstrap;
  }
  return Status::Ok;
}

}  // namespace chorus::launcher::pmi1
