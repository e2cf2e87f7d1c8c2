// Dynamic processes: ports, MPI_Comm_accept/connect, MPI_Comm_join, the name
// directory, MPI_Comm_spawn(_multiple), MPI_Comm_get_parent, MPI_Comm_disconnect.
//
// How two groups meet. A port is a name that says how to reach the process that
// opened it: "chorus-port:<global id>:<port number>:<UCX worker address, base64>".
// The connecting group's root sends the acceptor's process (its address is in the
// name) a request on the port context (comm_internal.h) with the port number as
// tag: the global ids and worker addresses of the connecting group, and a reply
// number of its own. The accepting root answers on that number with its group's
// description, and the connecting root confirms (or, having given up after its
// time limit, withdraws: "a connection in three messages" below). Each root
// hands the other group's description to its own group, so every member knows
// every remote process (p2p::add_proc gives processes of other jobs process
// numbers of their own). From there it is MPI_Intercomm_create's
// path: an exchange context over both groups, hashed from the two numbers and the
// members' global ids (the same on both sides), agrees the new contexts; the
// accepting group comes first in the bridge.
//
// Spawn is a port plus the launcher: the root opens a port and asks the PMIx
// server to start the new job with CHORUS_PARENT_PORT set to it; the children's
// MPI_Init connects over their MPI_COMM_WORLD (root 0), the parents accept.
// MPI_Comm_join swaps two port names over the socket; the lower name accepts.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/log.h"
#include "core/params.h"
#include "core/request.h"
#include "launcher/pmix.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "mpi/intercomm.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"

namespace chorus::mpi {
namespace {

constexpr const char* kPortPrefix = "chorus-port:";
constexpr std::uint32_t kMagic = 0x43484450;  // "CHDP"
enum : std::uint32_t { kConnect = 1, kAccept = 2, kRefuse = 3, kConfirm = 4, kWithdraw = 5 };

struct Header {
  std::uint32_t magic = kMagic;
  std::uint32_t kind = 0;
  // kConnect, kWithdraw: the request's number (where the answer goes);
  // kAccept: where the confirmation goes.
  std::uint32_t reply = 0;
  // kConnect: bytes of the UCX profile text before the description;
  // kAccept: the accepting root's place in its group's description.
  std::uint32_t profile = 0;
  std::uint64_t from = 0;  // kConnect: the connecting root's global id
};

struct Port {
  std::uint64_t gid = 0;
  unsigned number = 0;
  std::vector<std::byte> addr;
};

unsigned g_next_number = 1;        // port numbers and reply numbers (24-bit tags)
std::map<unsigned, int> g_open_ports;  // number -> side worker (p2p.h) of each open port
MPI_Comm g_parent = MPI_COMM_NULL;

unsigned next_number() {
  unsigned n = g_next_number;
  g_next_number = g_next_number % static_cast<unsigned>(tag::kTagUB) + 1;
  return n;
}

std::uint64_t port_tag(unsigned number) { return tag::make(static_cast<int>(number), 0, kPortContext); }
constexpr std::uint64_t kPortMask = tag::kContextMask | tag::kTagMask;

// ---- base64 (the address must fit MPI_MAX_PORT_NAME) --------------------------
constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string b64_encode(const std::vector<std::byte>& in) {
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (std::byte b : in) {
    acc = (acc << 8) | std::to_integer<std::uint32_t>(b);
    bits += 8;
    while (bits >= 6) {
      bits -= 6;
      out += kB64[(acc >> bits) & 63];
    }
  }
  if (bits > 0) out += kB64[(acc << (6 - bits)) & 63];
  return out;
}

bool b64_decode(const std::string& in, std::vector<std::byte>& out) {
  out.clear();
  std::uint32_t acc = 0;
  int bits = 0;
  for (char ch : in) {
    const char* p = std::strchr(kB64, ch);
    if (!p || ch == '\0') return false;
    acc = (acc << 6) | static_cast<std::uint32_t>(p - kB64);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<std::byte>((acc >> bits) & 0xff));
    }
  }
  return true;
}

std::string port_name(const Port& p) {
  return fmt::format("{}{:016x}:{:06x}:{}", kPortPrefix, p.gid, p.number, b64_encode(p.addr));
}

bool parse_port(const char* s, Port& out) {
  if (!s || std::strncmp(s, kPortPrefix, std::strlen(kPortPrefix)) != 0) return false;
  const char* p = s + std::strlen(kPortPrefix);
  char* end = nullptr;
  out.gid = std::strtoull(p, &end, 16);
  if (end == p || *end != ':') return false;
  p = end + 1;
  unsigned long n = std::strtoul(p, &end, 16);
  if (end == p || *end != ':' || n == 0 || n > static_cast<unsigned long>(tag::kTagUB)) return false;
  out.number = static_cast<unsigned>(n);
  return b64_decode(end + 1, out.addr) && !out.addr.empty();
}

// ---- group descriptions: [u32 count] then per member [u64 gid][u32 len][address] ----
template <typename T>
void put(std::vector<std::byte>& out, const T& v) {
  const auto* b = reinterpret_cast<const std::byte*>(&v);
  out.insert(out.end(), b, b + sizeof v);
}
template <typename T>
bool take(const std::byte*& p, const std::byte* end, T& v) {
  if (static_cast<std::size_t>(end - p) < sizeof v) return false;
  std::memcpy(&v, p, sizeof v);
  p += sizeof v;
  return true;
}

// ---- the roots' exchange ---------------------------------------------------------
// Wait for the message on port number `number`: its header and the rest.
// Side worker `side` keeps moving meanwhile (what it sent may still be on its way).
int receive_on(const char* call, Comm* ec, unsigned number, std::uint32_t kind, Header& h,
               std::vector<std::byte>& rest, int side, std::uint32_t or_kind = 0) {
  p2p::RecvInfo info;
  void* msg = nullptr;
  p2p::wait_until([&] {
    p2p::side_progress(side);
    return p2p::probe(port_tag(number), kPortMask, true, info, &msg);
  });
  std::vector<std::byte> all(info.length);
  Request r;
  if (Status s = p2p::imrecv(&r, all.data(), all.size(), msg, info); !ok(s))
    return fail(ec, MPI_ERR_INTERN, "{}: receiving on port {}: {}", call, number, to_string(s));
  p2p::wait_until([&] { return r.complete; });
  if (r.error != MPI_SUCCESS || all.size() < sizeof h)
    return fail(ec, MPI_ERR_INTERN, "{}: a broken message arrived on port {}", call, number);
  std::memcpy(&h, all.data(), sizeof h);
  if (h.magic == kMagic && h.kind == kRefuse)
    return fail(ec, MPI_ERR_PORT, "{}: the accepting side refused: {}", call,
                std::string(reinterpret_cast<const char*>(all.data()) + sizeof h, all.size() - sizeof h));
  if (h.magic != kMagic || (h.kind != kind && (or_kind == 0 || h.kind != or_kind)))
    return fail(ec, MPI_ERR_INTERN, "{}: an unexpected message (magic 0x{:x}, kind {}) arrived on port {}", call,
                h.magic, h.kind, number);
  rest.assign(all.begin() + sizeof h, all.end());
  return MPI_SUCCESS;
}

struct Outcome {
  std::int64_t bytes = 0;  // of the remote description; negative: -(error class)
  std::uint64_t key = 0;   // hashes the exchange context (the same on both sides)
};

// Both sides after their roots met: every member learns the remote group and the
// intercommunicator is built over both.
int finish(const char* call, Comm* c, int root, int root_rc, Outcome o, std::vector<std::byte>& remote_desc,
           bool accepting, MPI_Comm* newcomm) {
  if (root_rc != MPI_SUCCESS && c->rank == root) {
    int cls = MPI_ERR_OTHER;
    PMPI_Error_class(root_rc, &cls);
    o.bytes = -cls;
  }
  CHORUS_TRY_MPI(internal_bcast(c, &o, sizeof o, root, call));
  if (o.bytes < 0) {
    if (c->rank == root) return root_rc;
    return fail(c, static_cast<int>(-o.bytes), "{}: the root (rank {}) failed; its error says why", call, root);
  }
  remote_desc.resize(static_cast<std::size_t>(o.bytes));
  CHORUS_TRY_MPI(internal_bcast(c, remote_desc.data(), remote_desc.size(), root, call));
  std::vector<int> remote;
  CHORUS_TRY_MPI(learn_group(call, c, remote_desc, remote));
  for (int w : remote)
    if (std::find(c->world_of.begin(), c->world_of.end(), w) != c->world_of.end())
      return fail(c, MPI_ERR_PORT, "{}: process {} is on both sides (a group connected to itself)", call, w);
  CHORUS_LOG(INFO, INIT, "{}: {} group of {} met {} remote process{}", call, accepting ? "accepting" : "connecting",
             c->size, remote.size(), remote.size() == 1 ? "" : "es");
  return create_between(call, c, c->world_of, remote, o.key, c->errhandler, newcomm, accepting ? 1 : 0);
}

int check_intra(const char* call, MPI_Comm comm, Comm** c) {
  CHORUS_TRY_MPI(check_comm(call, comm, c));
  if ((*c)->inter)
    return fail(*c, MPI_ERR_COMM, "{}: comm 0x{:x} is an intercommunicator", call, static_cast<unsigned>(comm));
  return MPI_SUCCESS;
}

int check_root(const char* call, Comm* c, int root) {
  if (root < 0 || root >= c->size)
    return fail(c, MPI_ERR_ROOT, "{}: root is {}, must be in [0, {})", call, root, c->size);
  return MPI_SUCCESS;
}

}  // namespace

int describe_group(const char* call, Comm* ec, const std::vector<int>& members, std::vector<std::byte>& out) {
  put(out, static_cast<std::uint32_t>(members.size()));
  std::vector<std::byte> addr;
  for (int w : members) {
    if (Status s = p2p::address_of(w, addr); !ok(s))
      return fail(ec, MPI_ERR_INTERN, "{}: no worker address for process {}: {}", call, w, to_string(s));
    put(out, p2p::gid_of(w));
    put(out, static_cast<std::uint32_t>(addr.size()));
    out.insert(out.end(), addr.begin(), addr.end());
  }
  return MPI_SUCCESS;
}

// A description's members as it lists them (addresses point into it); false when
// it is malformed.
struct Member {
  std::uint64_t gid = 0;
  const std::byte* addr = nullptr;
  std::uint32_t len = 0;
};
bool parse_group(const std::byte* p, const std::byte* end, std::vector<Member>& out) {
  out.clear();
  std::uint32_t n = 0;
  if (!take(p, end, n)) return false;
  for (std::uint32_t i = 0; i < n; ++i) {
    Member m;
    if (!take(p, end, m.gid) || !take(p, end, m.len) || static_cast<std::size_t>(end - p) < m.len) return false;
    m.addr = p;
    p += m.len;
    out.push_back(m);
  }
  return p == end;
}

// The process numbers of a description's members (added when new).
int learn_group(const char* call, Comm* ec, const std::vector<std::byte>& in, std::vector<int>& procs) {
  procs.clear();
  std::vector<Member> members;
  if (!parse_group(in.data(), in.data() + in.size(), members))
    return fail(ec, MPI_ERR_INTERN, "{}: a malformed group description ({} B) arrived", call, in.size());
  for (const Member& m : members) procs.push_back(p2p::add_proc(m.gid, m.addr, m.len));
  return MPI_SUCCESS;
}

int open_port(std::string& name) {
  Port p;
  p.gid = p2p::gid_of(world().rank);
  p.number = next_number();
  const int side = p2p::side_open();
  if (side < 0) return make_error(MPI_ERR_INTERN, "MPI_Open_port: UCX could not make the port's worker");
  p.addr = p2p::side_address(side);
  name = port_name(p);
  if (name.size() >= MPI_MAX_PORT_NAME) {
    p2p::side_close(side);
    return make_error(MPI_ERR_INTERN,
                      fmt::format("MPI_Open_port: the port's UCX worker address ({} B) does not fit a port name "
                                  "of MPI_MAX_PORT_NAME ({}) characters (UCX offers no network transport for a "
                                  "short one?)", p.addr.size(), MPI_MAX_PORT_NAME - 1));
  }
  g_open_ports.emplace(p.number, side);
  return MPI_SUCCESS;
}

void close_port(const std::string& name) {
  Port p;
  if (!parse_port(name.c_str(), p)) return;
  auto it = g_open_ports.find(p.number);
  if (it == g_open_ports.end()) return;
  p2p::side_close(it->second);
  g_open_ports.erase(it);
}

// ---- a connection in three messages ------------------------------------------------
// The connecting root sends a request (kConnect) to the port and waits for the
// answer up to its time limit. An accepting root that takes the request answers
// (kAccept) and waits for the connecting root's word: kConfirm (the answer came in
// time: both build the intercommunicator) or kWithdraw (the connecting root had
// given up; the accept takes the next request). A root that gives up closes its
// side worker (a request not yet delivered goes with it) and keeps the request's
// number: a progress hook answers a late kAccept with kWithdraw, so a later
// MPI_Comm_accept never waits for a group that left.

bool header_of(const std::vector<std::byte>& msg, Header& h) {
  if (msg.size() < sizeof h) return false;
  std::memcpy(&h, msg.data(), sizeof h);
  return h.magic == kMagic;
}

// The process number of member `index` of a description (added when new);
// false when it has no such member.
bool member_of(const std::byte* p, const std::byte* end, std::uint32_t index, int* proc) {
  std::vector<Member> members;
  if (!parse_group(p, end, members) || index >= members.size()) return false;
  const Member& m = members[index];
  *proc = p2p::add_proc(m.gid, m.addr, m.len);
  return true;
}

using Clock = std::chrono::steady_clock;
// The least an accepting root waits for the connecting root's word.
constexpr double kWordWait = 30;

// Requests this process withdrew, until their answer comes (a request that
// never reached the port is never answered). The hook looks for answers once a
// millisecond at most.
struct Withdrawn {
  unsigned reply = 0;
  std::unique_ptr<Request> recv, send;
  std::vector<std::byte> answer;
  Header word;  // the kWithdraw being sent
};
std::vector<std::unique_ptr<Withdrawn>> g_withdrawn;

// Answers and words sent without waiting (their receiver may have left, or be
// gone for good): each stays here, with its bytes, until it completes.
struct Posted {
  Request r;
  std::vector<std::byte> msg;
};
std::vector<std::unique_ptr<Posted>> g_posted;

unsigned withdrawn_progress();

// Send a header and `desc` to process `proc` on reply number `number` without
// waiting for it to arrive.
int post(const char* call, Comm* ec, int proc, unsigned number, const Header& h, const std::vector<std::byte>& desc) {
  auto m = std::make_unique<Posted>();
  put(m->msg, h);
  m->msg.insert(m->msg.end(), desc.begin(), desc.end());
  Status s = p2p::isend(&m->r, m->msg.data(), m->msg.size(), proc, port_tag(number), false);
  if (ok(s) && m->r.complete && m->r.error != MPI_SUCCESS) s = Status::Transport;  // failed at once
  if (!ok(s))
    return fail(ec, MPI_ERR_PORT, "{}: cannot reach the other group's root (process {}): {}", call, proc,
                to_string(s));
  if (!m->r.complete) {
    g_posted.push_back(std::move(m));
    p2p::add_late_progress_hook(withdrawn_progress);
  }
  return MPI_SUCCESS;
}

unsigned withdrawn_progress() {
  static bool busy = false;
  static Clock::time_point next;
  if (busy || (g_withdrawn.empty() && g_posted.empty())) return 0;
  const auto now = Clock::now();
  if (now < next) return 0;
  next = now + std::chrono::milliseconds(1);
  busy = true;
  unsigned n = 0;
  std::erase_if(g_posted, [](const std::unique_ptr<Posted>& m) { return m->r.complete; });
  for (auto it = g_withdrawn.begin(); it != g_withdrawn.end();) {
    Withdrawn& w = **it;
    bool done = false;
    if (w.send) {
      done = w.send->complete;
    } else if (w.recv) {
      if (w.recv->complete) {
        ++n;
        Header a;
        int proc = -1;
        // A refusal, or anything else, needs no word back.
        done = !header_of(w.answer, a) || a.kind != kAccept ||
               !member_of(w.answer.data() + sizeof a, w.answer.data() + w.answer.size(), a.profile, &proc);
        if (!done) {
          w.word.kind = kWithdraw;
          w.send = std::make_unique<Request>();
          done = !ok(p2p::isend(w.send.get(), &w.word, sizeof w.word, proc, port_tag(a.reply), false));
          CHORUS_LOG(INFO, INIT, "MPI_Comm_connect: request {} was answered after it timed out; told the accepting "
                     "root (process {}) it was withdrawn", w.reply, proc);
        }
      }
    } else {
      p2p::RecvInfo info;
      void* msg = nullptr;
      if (p2p::probe(port_tag(w.reply), kPortMask, true, info, &msg)) {
        ++n;
        w.answer.resize(info.length);
        w.recv = std::make_unique<Request>();
        done = !ok(p2p::imrecv(w.recv.get(), w.answer.data(), w.answer.size(), msg, info));
      }
    }
    if (done) it = g_withdrawn.erase(it);
    else ++it;
  }
  busy = false;
  return n;
}

// The time limit of a connection: info key "timeout" (seconds, as MPICH names
// it), else CHORUS_CONNECT_TIMEOUT; 0 (or 1e9 and more, "inf"): none.
int time_limit(const char* call, Comm* c, MPI_Info info, double* out) {
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  *out = param::ConnectTimeout();
  if (const std::string* t = info_find(*hints, "timeout")) {
    char* end = nullptr;
    const double v = std::strtod(t->c_str(), &end);
    if (t->empty() || *end || !(v >= 0))
      return fail(c, MPI_ERR_INFO, "{}: info key \"timeout\" is \"{}\", must be a number of seconds >= 0", call, *t);
    *out = v;
  }
  return MPI_SUCCESS;
}

Clock::time_point deadline_after(double seconds) {
  if (!(seconds > 0) || seconds >= 1e9) return Clock::time_point::max();  // none, or beyond any run
  return Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// Take requests (kConnect) off the port until one is confirmed: each is answered,
// and one withdrawn, or neither confirmed nor withdrawn within `limit` seconds,
// is dropped for the next. A request from a job that configured UCX otherwise is
// refused (kRefuse) and fails the call.
int accept_one(const char* call, Comm* c, unsigned number, double limit, std::vector<std::byte>& remote_desc,
               Header& h) {
  const int side = g_open_ports.at(number);
  for (;;) {
    std::vector<std::byte> all;
    p2p::wait_until([&] { return p2p::side_take(side, port_tag(number), all); });
    // A request whose sender closed its worker halfway through arrives broken
    // (or not at all): skipped.
    if (!header_of(all, h) || h.kind != kConnect || all.size() - sizeof h < h.profile) {
      CHORUS_LOG(INFO, INIT, "{}: port {}: skipped a broken or unexpected message ({} B)", call, number, all.size());
      continue;
    }
    const std::string profile(reinterpret_cast<const char*>(all.data()) + sizeof h, h.profile);
    remote_desc.assign(all.begin() + static_cast<std::ptrdiff_t>(sizeof h + h.profile), all.end());
    std::vector<int> remote;
    std::vector<std::byte> mine;
    CHORUS_TRY_MPI(learn_group(call, c, remote_desc, remote));
    CHORUS_TRY_MPI(describe_group(call, c, c->world_of, mine));
    if (remote.empty()) return fail(c, MPI_ERR_INTERN, "{}: the connecting group's description is empty", call);
    // The connecting root is the first member of its description. UCX pairs
    // endpoints only between like-configured workers: refuse, saying why, when
    // the two jobs chose differently.
    if (profile != p2p::ucx_profile()) {
      const std::string why = fmt::format(
          "the two jobs configured UCX differently for large intra-node messages (accepting job: \"{}\", "
          "connecting job: \"{}\"; CHORUS_SHM_PROTOCOL=auto picks by ranks per core): run both with the same "
          "CHORUS_SHM_PROTOCOL (cma or copy)", p2p::ucx_profile(), profile);
      std::vector<std::byte> text(reinterpret_cast<const std::byte*>(why.data()),
                                  reinterpret_cast<const std::byte*>(why.data()) + why.size());
      Header refuse;
      refuse.kind = kRefuse;
      post(call, c, remote.front(), h.reply, refuse, text);
      return fail(c, MPI_ERR_PORT, "{}: {}", call, why);
    }
    Header answer;
    answer.kind = kAccept;
    answer.reply = next_number();
    answer.profile = static_cast<std::uint32_t>(c->rank);  // members are described in rank order
    if (post(call, c, remote.front(), h.reply, answer, mine) != MPI_SUCCESS) {
      CHORUS_LOG(INFO, INIT, "{}: port {}: dropped the request of 0x{:x}, whose root cannot be reached", call,
                 number, h.from);
      continue;
    }
    // Its root's word comes at once when it is still waiting (or, through its
    // hook, once it makes progress at all). The wait is bounded, for a root
    // that gave up and left, but never shorter than kWordWait.
    const double wait = limit > 0 && limit < 1e9 ? std::max(limit, kWordWait) : kWordWait;
    const auto deadline = deadline_after(wait);
    p2p::RecvInfo info;
    void* any = nullptr;
    bool arrived = false;
    p2p::wait_until([&] {
      arrived = p2p::probe(port_tag(answer.reply), kPortMask, false, info, &any);
      return arrived || Clock::now() >= deadline;
    });
    if (!arrived) {
      CHORUS_WARN(INIT, "{}: port {}: the connecting root 0x{:x} neither confirmed nor withdrew its request "
                  "within {} s; taking the next request", call, number, h.from, wait);
      continue;
    }
    Header word;
    std::vector<std::byte> rest;
    CHORUS_TRY_MPI(receive_on(call, c, answer.reply, kConfirm, word, rest, side, kWithdraw));
    if (word.kind == kConfirm) return MPI_SUCCESS;
    CHORUS_LOG(INFO, INIT, "{}: port {}: the request of 0x{:x} had timed out; taking the next", call, number,
               h.from);
  }
}

int accept(const char* call, const char* port, Comm* c, int root, MPI_Comm* newcomm, int prior = MPI_SUCCESS,
           double limit = param::ConnectTimeout()) {
  Outcome o;
  std::vector<std::byte> remote_desc;
  int rc = c->rank == root ? prior : MPI_SUCCESS;
  if (c->rank == root && rc == MPI_SUCCESS) {
    Port p;
    if (!parse_port(port, p) || p.gid != p2p::gid_of(world().rank) || !g_open_ports.count(p.number))
      rc = fail(c, MPI_ERR_PORT, "{}: port_name \"{}\" is not a port this process opened (MPI_Open_port) and "
                "has not closed", call, port ? port : "(null)");
    Header h;
    if (rc == MPI_SUCCESS) rc = accept_one(call, c, p.number, limit, remote_desc, h);
    o.bytes = static_cast<std::int64_t>(remote_desc.size());
    o.key = fnv(fnv(fnv(0xcbf29ce484222325ULL, p.gid), p.number), h.reply);
  }
  return finish(call, c, root, rc, o, remote_desc, true, newcomm);
}

// The connecting root's side: the request, the answer within `limit` seconds,
// then its word: kConfirm to the accepting root, or, once it gave up, nothing
// until a late answer comes, which the hook answers with kWithdraw.
int request(const char* call, Comm* c, const Port& p, const char* port, unsigned reply, double limit,
            const std::vector<std::byte>& mine, std::vector<std::byte>& remote_desc) {
  // The request goes from a side worker of this root's to the port's; the
  // answer comes to this root's main worker.
  const int side = p2p::side_open();
  if (side < 0) return fail(c, MPI_ERR_INTERN, "{}: UCX could not make a worker for the request", call);
  std::vector<std::byte> msg;
  Header h;
  h.kind = kConnect;
  h.reply = reply;
  h.from = p2p::gid_of(world().rank);
  const std::string& profile = p2p::ucx_profile();
  h.profile = static_cast<std::uint32_t>(profile.size());
  put(msg, h);
  for (char ch : profile) msg.push_back(static_cast<std::byte>(ch));
  msg.insert(msg.end(), mine.begin(), mine.end());
  std::string why;
  if (Status s = p2p::side_send(side, p.addr, port_tag(p.number), msg.data(), msg.size(), why); !ok(s)) {
    p2p::side_close(side);
    return fail(c, MPI_ERR_PORT, "{}: cannot reach port \"{}\" (closed, or its process gone?): {} ({})", call, port,
                to_string(s), why);
  }
  const auto deadline = deadline_after(limit);
  bool answered = false;
  p2p::RecvInfo info;
  void* any = nullptr;
  p2p::wait_until([&] {
    p2p::side_progress(side);
    answered = p2p::probe(port_tag(reply), kPortMask, false, info, &any);
    return answered || Clock::now() >= deadline;
  });
  if (!answered) {
    p2p::side_close(side);
    auto w = std::make_unique<Withdrawn>();
    w->reply = reply;
    g_withdrawn.push_back(std::move(w));
    p2p::add_late_progress_hook(withdrawn_progress);
    CHORUS_LOG(INFO, INIT, "{}: no answer on port {} within {} s; request {} withdrawn", call, p.number, limit,
               reply);
    return fail(c, MPI_ERR_PORT, "{}: no MPI_Comm_accept on port \"{}\" took the request within {} s (the time "
                "limit: info key \"timeout\", else CHORUS_CONNECT_TIMEOUT)", call, port, limit);
  }
  Header answer;
  int rc = receive_on(call, c, reply, kAccept, answer, remote_desc, side);
  p2p::side_close(side);
  CHORUS_TRY_MPI(rc);
  std::vector<int> remote;
  CHORUS_TRY_MPI(learn_group(call, c, remote_desc, remote));
  if (answer.profile >= remote.size())
    return fail(c, MPI_ERR_INTERN, "{}: the accepting root's place ({}) is not in its group of {}", call,
                answer.profile, remote.size());
  Header word;
  word.kind = kConfirm;
  return post(call, c, remote[answer.profile], answer.reply, word, {});
}

int connect(const char* call, const char* port, Comm* c, int root, MPI_Comm* newcomm, int prior = MPI_SUCCESS,
            double limit = param::ConnectTimeout()) {
  Outcome o;
  std::vector<std::byte> remote_desc;
  int rc = c->rank == root ? prior : MPI_SUCCESS;
  if (c->rank == root && rc == MPI_SUCCESS) {
    Port p;
    if (!parse_port(port, p))
      rc = fail(c, MPI_ERR_PORT, "{}: port_name \"{}\" is not a port name (MPI_Open_port makes them)", call,
                port ? port : "(null)");
    // This group's root first, then the others in rank order.
    std::vector<int> order{c->world_of[static_cast<std::size_t>(root)]};
    for (int r = 0; r < c->size; ++r)
      if (r != root) order.push_back(c->world_of[static_cast<std::size_t>(r)]);
    std::vector<std::byte> mine;
    const unsigned reply = next_number();
    if (rc == MPI_SUCCESS) rc = describe_group(call, c, order, mine);
    if (rc == MPI_SUCCESS) rc = request(call, c, p, port, reply, limit, mine, remote_desc);
    o.bytes = static_cast<std::int64_t>(remote_desc.size());
    o.key = fnv(fnv(fnv(0xcbf29ce484222325ULL, p.gid), p.number), reply);
  }
  return finish(call, c, root, rc, o, remote_desc, false, newcomm);
}

void dynamic_forget(MPI_Comm handle) {
  if (handle == g_parent) g_parent = MPI_COMM_NULL;
}

// MPI_Init of a spawned job: connect to the parents (CHORUS_PARENT_PORT).
int dynamic_init(const char* call) {
  const char* port = std::getenv("CHORUS_PARENT_PORT");
  if (!port) return MPI_SUCCESS;
  const std::string name = port;
  unsetenv("CHORUS_PARENT_PORT");  // not for what this job starts in turn
  return connect(call, name.c_str(), &world(), 0, &g_parent);
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

namespace {

// The argv of one command: MPI_ARGV_NULL or a NULL-terminated list.
std::vector<std::string> args_of(char** argv) {
  std::vector<std::string> out;
  for (int i = 0; argv && argv[i]; ++i) out.emplace_back(argv[i]);
  return out;
}

int spawn(const char* call, int count, char* commands[], char** argvs[], const int maxprocs[],
          const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm* intercomm, int errcodes[]) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_intra(call, comm, &c));
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (!intercomm) return fail(c, MPI_ERR_ARG, "{}: intercomm is NULL", call);
  // The root's arguments only: check them there, and tell the others the outcome.
  int rc = MPI_SUCCESS;
  int total = 0;
  std::string port;
  if (c->rank == root) {
    std::vector<launcher::SpawnApp> apps;
    if (count <= 0) rc = fail(c, MPI_ERR_ARG, "{}: count is {}, must be at least 1", call, count);
    for (int i = 0; rc == MPI_SUCCESS && i < count; ++i) {
      launcher::SpawnApp a;
      if (!commands || !commands[i] || !*commands[i]) {
        rc = fail(c, MPI_ERR_ARG, "{}: command {} is NULL or empty", call, i);
        break;
      }
      if (!maxprocs || maxprocs[i] <= 0) {
        rc = fail(c, MPI_ERR_ARG, "{}: maxprocs[{}] is {}, must be at least 1", call, i, maxprocs ? maxprocs[i] : 0);
        break;
      }
      const InfoPairs* hints = nullptr;
      rc = check_info(call, c, infos ? infos[i] : MPI_INFO_NULL, &hints, true);
      if (rc != MPI_SUCCESS) break;
      a.cmd = commands[i];
      a.argv = args_of(argvs ? argvs[i] : nullptr);
      a.maxprocs = maxprocs[i];
      if (const std::string* w = info_find(*hints, "wdir")) a.wdir = *w;
      total += a.maxprocs;
      apps.push_back(std::move(a));
    }
    if (rc == MPI_SUCCESS) {
      rc = open_port(port);
      if (rc != MPI_SUCCESS) rc = raise(c, rc);
    }
    if (rc == MPI_SUCCESS) {
      // The children choose UCX's settings as this job did (else they could not
      // talk to it: see p2p::ucx_profile), and connect to the port at MPI_Init.
      const std::string& prof = p2p::ucx_profile();
      for (auto& a : apps) {
        a.env.push_back("CHORUS_PARENT_PORT=" + port);
        if (!prof.empty()) a.env.push_back("CHORUS_SHM_PROTOCOL=" + prof.substr(0, prof.find(' ')));
      }
      std::string nspace, why;
      int cls = launcher::spawn(apps, nspace, why);
      if (cls != MPI_SUCCESS) {
        rc = fail(c, cls, "{}: cannot start {} process{} of {}: {}", call, total, total == 1 ? "" : "es",
                  apps.front().cmd, why);
      } else {
        CHORUS_LOG(INFO, INIT, "{}: started {} process{} as job {}", call, total, total == 1 ? "" : "es", nspace);
      }
    }
  }
  // The spawned job connects to the root's port; the accept shares the outcome.
  const int arc = accept(call, port.c_str(), c, root, intercomm, rc);
  if (c->rank == root) close_port(port);
  if (arc != MPI_SUCCESS) {
    *intercomm = MPI_COMM_NULL;
    if (errcodes != MPI_ERRCODES_IGNORE) {
      int n = 0;
      for (int i = 0; c->rank == root && i < count; ++i) n += maxprocs ? std::max(maxprocs[i], 0) : 0;
      for (int i = 0; i < n; ++i) errcodes[i] = MPI_ERR_SPAWN;
    }
    return arc;
  }
  if (errcodes != MPI_ERRCODES_IGNORE) {
    const int n = comm_lookup(*intercomm)->peers();
    for (int i = 0; i < n; ++i) errcodes[i] = MPI_SUCCESS;
  }
  return MPI_SUCCESS;
}

int fd_write_all(int fd, const void* data, std::size_t len) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = ::write(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return errno ? errno : EPIPE;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

int fd_read_all(int fd, void* data, std::size_t len) {
  char* p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = ::read(fd, p, len);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return ECONNRESET;
    if (n < 0) return errno;
    p += n;
    len -= static_cast<std::size_t>(n);
  }
  return 0;
}

// MPI_Comm_accept and MPI_Comm_connect: the same checks, then one side or the other.
int meet(const char* call, const char* port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm* newcomm,
         bool accepting) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_intra(call, comm, &c));
  CHORUS_TRY_MPI(check_root(call, c, root));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  // The root's own errors (info) reach the group through the call, not before it.
  double limit = 0;
  const int prior = c->rank == root ? time_limit(call, c, info, &limit) : MPI_SUCCESS;
  *newcomm = MPI_COMM_NULL;
  return accepting ? accept(call, port_name, c, root, newcomm, prior, limit)
                   : connect(call, port_name, c, root, newcomm, prior, limit);
}

// The name calls' common checks (errors on MPI_COMM_WORLD's handler).
int check_service(const char* call, const char* service_name, MPI_Info info) {
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  if (!service_name || !*service_name) return fail(nullptr, MPI_ERR_ARG, "{}: service_name is NULL or empty", call);
  return MPI_SUCCESS;
}

}  // namespace

extern "C" {

int PMPI_Open_port(MPI_Info info, char* port_name) {
  const char* call = "MPI_Open_port";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, nullptr, info, &hints, true));
  if (!port_name) return fail(nullptr, MPI_ERR_ARG, "{}: port_name is NULL", call);
  std::string name;
  if (int rc = open_port(name); rc != MPI_SUCCESS) return raise(nullptr, rc);
  std::memcpy(port_name, name.c_str(), name.size() + 1);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Open_port)

int PMPI_Close_port(const char* port_name) {
  const char* call = "MPI_Close_port";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Port p;
  if (!port_name || !parse_port(port_name, p) || p.gid != p2p::gid_of(world().rank) ||
      !g_open_ports.count(p.number))
    return fail(nullptr, MPI_ERR_PORT, "{}: port_name \"{}\" is not a port this process has open", call,
                port_name ? port_name : "(null)");
  close_port(port_name);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Close_port)

int PMPI_Comm_join(int fd, MPI_Comm* intercomm) {
  const char* call = "MPI_Comm_join";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!intercomm) return fail(nullptr, MPI_ERR_ARG, "{}: intercomm is NULL", call);
  *intercomm = MPI_COMM_NULL;
  std::string mine;
  if (int rc = open_port(mine); rc != MPI_SUCCESS) return raise(nullptr, rc);
  // Both sides write their port name (length first), then read the other's.
  char theirs[MPI_MAX_PORT_NAME] = {};
  std::uint32_t len = static_cast<std::uint32_t>(mine.size()), their_len = 0;
  int err = fd_write_all(fd, &len, sizeof len);
  if (!err) err = fd_write_all(fd, mine.data(), mine.size());
  if (!err) err = fd_read_all(fd, &their_len, sizeof their_len);
  if (!err && their_len >= MPI_MAX_PORT_NAME) err = EPROTO;
  if (!err) err = fd_read_all(fd, theirs, their_len);
  int rc;
  if (err) {
    rc = fail(nullptr, MPI_ERR_ARG, "{}: fd {} is not a socket connected to a process that calls {}: {}", call, fd,
              call, std::strerror(err));
  } else if (mine < std::string(theirs)) {
    rc = accept(call, mine.c_str(), comm_lookup(MPI_COMM_SELF), 0, intercomm);
  } else {
    rc = connect(call, theirs, comm_lookup(MPI_COMM_SELF), 0, intercomm);
  }
  close_port(mine);
  return rc;
}
CHORUS_ALIAS(MPI_Comm_join)

int PMPI_Comm_disconnect(MPI_Comm* comm) {
  const char* call = "MPI_Comm_disconnect";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!comm) return fail(nullptr, MPI_ERR_ARG, "{}: comm is NULL", call);
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, *comm, &c));
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return fail(c, MPI_ERR_COMM, "{}: comm is {}, which cannot be disconnected", call,
                *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  // Everything started on it completes first (MPI: disconnect waits for it), then
  // both sides pass a barrier, so no message is in flight when it goes.
  if (c->inter) inter_drain(c, true);
  p2p::wait_until([c] {
    return !requests().any_live([c](const Request& r) { return r.comm == c && r.active && !r.complete; });
  });
  CHORUS_TRY_MPI(PMPI_Barrier(*comm));
  return PMPI_Comm_free(comm);
}
CHORUS_ALIAS(MPI_Comm_disconnect)

int PMPI_Comm_get_parent(MPI_Comm* parent) {
  const char* call = "MPI_Comm_get_parent";
  CHORUS_TRY_MPI(check_running(call));
  if (!parent) return fail(nullptr, MPI_ERR_ARG, "{}: parent is NULL", call);
  *parent = g_parent;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_parent)

int PMPI_Comm_spawn(const char* command, char* argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm,
                    MPI_Comm* intercomm, int array_of_errcodes[]) {
  char* commands[] = {const_cast<char*>(command)};
  char** argvs[] = {argv};
  return spawn("MPI_Comm_spawn", 1, commands, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes);
}
CHORUS_ALIAS(MPI_Comm_spawn)

int PMPI_Publish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const char* call = "MPI_Publish_name";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  CHORUS_TRY_MPI(check_service(call, service_name, info));
  if (!port_name || !*port_name) return fail(nullptr, MPI_ERR_ARG, "{}: port_name is NULL or empty", call);
  std::string why;
  int cls = launcher::publish_name(service_name, port_name, why);
  if (cls != MPI_SUCCESS) return fail(nullptr, cls, "{}: cannot publish \"{}\": {}", call, service_name, why);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Publish_name)

int PMPI_Lookup_name(const char* service_name, MPI_Info info, char* port_name) {
  const char* call = "MPI_Lookup_name";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  CHORUS_TRY_MPI(check_service(call, service_name, info));
  if (!port_name) return fail(nullptr, MPI_ERR_ARG, "{}: port_name is NULL", call);
  std::string port, why;
  int cls = launcher::lookup_name(service_name, port, why);
  if (cls != MPI_SUCCESS) return fail(nullptr, cls, "{}: \"{}\": {}", call, service_name, why);
  const std::size_t n = std::min(port.size(), static_cast<std::size_t>(MPI_MAX_PORT_NAME - 1));
  std::memcpy(port_name, port.data(), n);
  port_name[n] = '\0';
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Lookup_name)

int PMPI_Unpublish_name(const char* service_name, MPI_Info info, const char* port_name) {
  const char* call = "MPI_Unpublish_name";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  CHORUS_TRY_MPI(check_service(call, service_name, info));
  (void)port_name;  // PMIx keys by service name alone
  std::string why;
  int cls = launcher::unpublish_name(service_name, why);
  if (cls != MPI_SUCCESS) return fail(nullptr, cls, "{}: cannot unpublish \"{}\": {}", call, service_name, why);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Unpublish_name)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "dynamic_forward.inc"

}  // extern "C"
