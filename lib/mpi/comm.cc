// Communicator handles, the communicator table, context-id agreement, and the
// argument checks shared by every call.
//
// Context ids (see comm_internal.h for the split of the 16-bit space):
//   Each process keeps a bitmap of the communicator pairs it does not use (bit set
//   = free). A new communicator takes a pair free on every rank that takes part
//   in its creation: those ranks allreduce (BAND) words of their bitmaps and pick
//   the lowest set bit, the first 256 pairs first, then words picked alike on
//   every rank (agree_context), so the usual dup costs an allreduce of 40 bytes
//   and threads creating communicators at once seldom offer the same word. The
//   ranks that join the new communicator mark the pair used; MPI_Comm_free
//   releases it locally (every member frees, so it becomes free everywhere).
//   Ranks of a split that get MPI_COMM_NULL still take part in the agreement
//   (their bitmap constrains the choice only harmlessly). Disjoint communicators
//   of one split share the pair.
//
// Calls collective over a group only (MPI_Comm_create_group, MPI_Comm_create_from_group)
// cannot use the parent's collective context (non-members would not follow its
// sequence), so their agreement runs on an exchange pair from the upper half of
// the space: hash(parent's collective context, user tag, member list) for
// create_group, hash(string tag, member list) for create_from_group. Two exchanges
// can only be confused if they are in flight at the same time on overlapping
// members AND hash to the same of 16384 pairs AND their collectives' numbers meet:
// an exchange's collectives start at a number taken from the hash too (23 bits),
// not at 0. The member list in the hash keeps a loop of create_group calls with one
// tag over shifting groups apart.
#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <numeric>

#include <climits>

#include <fcntl.h>
#include <strings.h>
#include <unistd.h>

#include "coll/shm.h"
#include "core/counters.h"
#include "core/handle.h"
#include "core/params.h"
#include "core/request.h"
#include "core/log.h"
#include "mpi/api.h"
#include "mpi/comm_internal.h"
#include "mpi/intercomm.h"
#include "mpi/stream.h"
#include "core/shm_segment.h"
#include "p2p/local.h"
#include "p2p/p2p.h"
#include "p2p/tag.h"
#include "topo/topo.h"

namespace chorus::mpi {
namespace {

Comm g_world;
Comm g_self;

// Attribute values handed out by MPI_Comm_get_attr (pointers to these).
int g_tag_ub = tag::kTagUB;
int g_wtime_is_global = 1;
int g_host = MPI_PROC_NULL;
int g_io = MPI_ANY_SOURCE;
int g_universe_size = 1;
int g_appnum = 0;
int g_lastusedcode = MPI_ERR_LASTCODE;  // MPI: the largest of it and the added classes and codes

// User communicators: slot i is handle make(Direct, Comm, i); the lowest free
// slot is reused first, so the table does not grow across create/free cycles.
std::vector<std::unique_ptr<Comm>> g_table;
std::size_t g_live = 0;
// Communicators the program freed while requests on them were still live (a
// non-blocking collective running, a receive posted, a request not yet waited
// for). MPI says those operations complete normally, so the object outlives its
// handle: its context pair stays marked used (no new communicator can take the
// id while a receive might still match on it) until no request refers to it.
std::vector<std::unique_ptr<Comm>> g_retired;

constexpr std::size_t kWords = kCommPairs / 64;
// Blocking agreements take pairs from the first half, MPI_Comm_idup from the
// second: a blocking agreement never waits for an idup whose other ranks have
// not called it yet (MPICH's comm_create_group_idup), nor the other way round.
constexpr std::size_t kIdupWord = kWords / 2;
constexpr std::size_t kIdupWords = kWords - kIdupWord;
constexpr std::size_t kFirstWords = 4;
// Rounds of an agreement that offer one sampled word each, between rounds that
// offer a whole half (agree_context, idup_round).
constexpr int kSampledRounds = 8;
std::array<std::uint64_t, kWords> g_free_pairs;

// Pairs this process offered to agreements still in flight (an MPI_Comm_idup's
// round, or a blocking agreement while idups progress under it). Every offer
// leaves them out, so two agreements in flight on one process never pick the
// same pair. An agreement whose result is empty while some rank held pairs
// back tries again; only when nobody did is the context space exhausted.
std::array<std::uint64_t, kWords> g_promised{};

bool any_promised() {
  return std::any_of(g_promised.begin(), g_promised.end(), [](std::uint64_t w) { return w != 0; });
}

// Offer words [lo, hi) into out[0, hi-lo) and promise them; out[hi-lo] is all
// ones when nothing was held back on this process.
void offer(std::uint64_t* out, std::size_t lo, std::size_t hi) {
  out[hi - lo] = any_promised() ? 0 : ~0ULL;
  for (std::size_t i = lo; i < hi; ++i) {
    out[i - lo] = g_free_pairs[i] & ~g_promised[i];
    g_promised[i] |= out[i - lo];
  }
}

void unpromise(const std::uint64_t* offered, std::size_t lo, std::size_t hi) {
  for (std::size_t i = lo; i < hi; ++i) g_promised[i] &= ~offered[i - lo];
}

MPI_Comm register_comm(std::unique_ptr<Comm> c);  // below

void pairs_reset() {
  g_promised.fill(0);
  g_free_pairs.fill(~0ULL);
  g_free_pairs[0] &= ~0x3ULL;  // pair 0: MPI_COMM_WORLD, pair 1: MPI_COMM_SELF
}

void pair_mark(unsigned pair, bool used) {
  std::uint64_t bit = 1ULL << (pair % 64);
  if (used) g_free_pairs[pair / 64] &= ~bit;
  else g_free_pairs[pair / 64] |= bit;
}

unsigned free_pair_count() {
  unsigned n = 0;
  for (auto w : g_free_pairs) n += static_cast<unsigned>(std::popcount(w));
  return n;
}

// ---- windows kept for reuse ------------------------------------------------------
// A freed communicator's shared window, kept for the next communicator of the
// same members in the same order (at most kKept of them, the oldest dropped):
// setting a window up costs about 1.1 ms at 2 ranks (the kernel zeroes 6 MiB,
// and frees it again at the unmap), and a loop that makes, uses and frees a
// communicator would pay that every time (benchmarks/comm_create). The new
// communicator goes on with the window where the freed one left it: every rank
// finished all its calls on the old one before it was destroyed here, and each
// rank's own counts (signals, tickets, mailbox numbers) continue with it, as if
// the old communicator had gone on calling. The ranks agree on the reuse
// (reuse_window); kept windows go at MPI_Finalize.
struct KeptWindow {
  std::vector<int> members;
  std::shared_ptr<coll::ShmWindow> w;
};
std::vector<KeptWindow> g_kept;
constexpr std::size_t kKept = 2;

void keep_window(Comm* c) {
  if (!c->shm || c->shm.use_count() != 1 || !c->shm->quiet() || c->inter) return;
  g_kept.push_back({c->world_of, std::move(c->shm)});
  if (g_kept.size() > kKept) g_kept.erase(g_kept.begin());
}

bool in_use(const Comm* c) {
  return requests().any_live([c](const Request& r) { return r.comm == c; });
}

// The last of a communicator: its handler reference, its context pair, the
// messages that arrived for it and were never received.
void destroy(std::unique_ptr<Comm> c) {
  keep_window(c.get());
  bsend_forget(c.get());
  errhandler_ref(c->errhandler, -1);
  pair_mark(c->ctx_p2p / 2, false);
  for (unsigned ctx : {c->ctx_p2p, c->ctx_coll}) {
    p2p::local::set_context(ctx, false);
    p2p::local::drop_context(ctx);
  }
}

// Destroy the retired communicators nothing refers to any more.
void reap_retired() {
  for (auto it = g_retired.begin(); it != g_retired.end();) {
    if (in_use(it->get())) {
      ++it;
    } else {
      destroy(std::move(*it));
      it = g_retired.erase(it);
    }
  }
}

// A pair free on every rank of `over`, in rounds of an allreduce (BAND) of the
// words offered and a word that is all ones only when no rank held pairs back:
//   round 0 offers the first kFirstWords words (256 pairs), so a program with
//     a few hundred communicators keeps low ids;
//   the next rounds offer one word each, one every rank picks alike from
//     `over`'s context, its collective number and the round, so agreements
//     running at once on other communicators (threads) seldom offer the same
//     word: before, each offered every free pair, the first to offer on a
//     process took them all, and threads whose order differed between ranks
//     held each other back round after round (4 threads creating and merging
//     intercommunicators at 2 ranks spun for good);
//   every (kSampledRounds + 1)th round offers the whole blocking half: empty
//     with nothing held back anywhere, the space is exhausted. Only the
//     agreement of highest priority in flight on this process (lowest context
//     of `over`, the same order on every rank) offers anything in such a
//     round; the others offer nothing. Before, every agreement offered its
//     whole half too: two that did so at once on two ranks, in opposite
//     orders, held each other back, and all sampled rounds failed meanwhile;
//     4 threads creating and merging intercommunicators at 4 ranks took
//     millions of rounds now and then (thread_merge_rounds_np4). Now the
//     agreement of highest priority anywhere gets its whole half on each of
//     its ranks, less a few sampled words, by its second wide round. The cost:
//     while lower contexts keep agreeing on a rank, the others there find free
//     pairs through sampled words only, and cannot tell an exhausted space
//     until those stop.
// The usual dup costs one allreduce of 40 bytes.
std::vector<unsigned> g_agreeing;  // contexts of the blocking agreements in flight here

int agree_context(Comm* over, const char* call, unsigned* pair) {
  reap_retired();
  const std::uint64_t key = fnv(fnv(0xa9ee, static_cast<std::uint64_t>(over->ctx_coll)), over->coll_seq);
  g_agreeing.push_back(over->ctx_coll);
  struct Leave {
    unsigned ctx;
    ~Leave() { g_agreeing.erase(std::find(g_agreeing.begin(), g_agreeing.end(), ctx)); }
  } leave{over->ctx_coll};
  unsigned alone_idle = 0;  // empty polls, for p2p::idle
  for (int round = 0;; ++round) {
    const int phase = round % (kSampledRounds + 1);
    std::size_t lo = 0, hi = kIdupWord;
    if (round == 0) {
      hi = kFirstWords;
    } else if (phase != kSampledRounds) {
      lo = fnv(key, static_cast<std::uint64_t>(round)) % kIdupWord;
      hi = lo + 1;
    }
    const bool wide = round > 0 && phase == kSampledRounds;
    const bool yield = wide && over->size > 1 &&
                       std::any_of(g_agreeing.begin(), g_agreeing.end(), [&](unsigned c) { return c < over->ctx_coll; });
    std::array<std::uint64_t, kWords + 1> w{};  // nothing offered, something held back
    if (!yield) offer(w.data(), lo, hi);
    std::array<std::uint64_t, kWords + 1> mine = w;
    int rc = over->size > 1 ? internal_allreduce(over, w.data(), static_cast<int>(hi - lo + 1), MPI_UINT64_T,
                                                 MPI_BAND, call)
                            : MPI_SUCCESS;
    unpromise(mine.data(), lo, hi);
    CHORUS_TRY_MPI(rc);
    if (round > 0) counters::add(counters::Id::CollContextRounds);
    // Same decision on every rank: the reduced words are the same everywhere.
    for (std::size_t i = lo; i < hi; ++i) {
      if (w[i - lo]) {
        *pair = static_cast<unsigned>(i * 64 + static_cast<std::size_t>(std::countr_zero(w[i - lo])));
        if (round > 0)
          CHORUS_LOG(TRACE, INIT, "{}: context pair {} agreed in round {}", call, *pair, round);
        return MPI_SUCCESS;
      }
    }
    if (phase == kSampledRounds && w[hi - lo] != 0) break;
    // Alone, this rank would loop without waiting for anything, holding the
    // lock that another thread's agreement needs to give its pairs back.
    if (over->size == 1) {
      if (p2p::progress() == 0) p2p::idle(alone_idle);
      else alone_idle = 0;
    }
  }
  return fail(over, MPI_ERR_OTHER,
              "{}: no context id is free on all {} ranks (this rank has {} of {} free); "
              "free unused communicators", call, over->size, free_pair_count(), kCommPairs);
}

// Shape for the cost model; every member computes the same values.
// Node numbers are the job's; a communicator with members of other jobs compares
// host names (hashed) instead.
int set_shape(Comm* c, const char* call) {
  const auto& job = p2p::job();
  c->foreign = any_foreign(c->world_of) || any_foreign(c->remote_of);
  if ((job.num_nodes <= 1 && !c->foreign) || c->size == 1) {
    c->nodes = 1;
    c->ranks_per_node = c->size;
    return MPI_SUCCESS;
  }
  std::vector<std::uint64_t> node(static_cast<std::size_t>(c->size));
  std::uint64_t mine = static_cast<std::uint64_t>(job.node_id);
  if (c->foreign) {
    mine = 0xcbf29ce484222325ULL;
    for (unsigned char ch : job.hostname) mine = fnv(mine, ch);
  }
  CHORUS_TRY_MPI(internal_allgather(c, &mine, node.data(), sizeof mine, call));
  // Renumber in order of first appearance; count members per node.
  std::map<std::uint64_t, int> index;
  std::vector<int> per, node_of;
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (std::uint64_t n : node) {
    auto [it, fresh] = index.emplace(n, static_cast<int>(per.size()));
    if (fresh) per.push_back(0);
    node_of.push_back(it->second);
    ++per[static_cast<std::size_t>(it->second)];
    h = fnv(h, static_cast<std::uint64_t>(it->second));
  }
  c->nodes = static_cast<int>(per.size());
  c->ranks_per_node = *std::max_element(per.begin(), per.end());
  if (c->nodes > 1) {
    c->node_of = std::make_shared<const std::vector<int>>(std::move(node_of));
    c->layout = h;
  }
  return MPI_SUCCESS;
}

// ---- MPI_Comm_idup: the agreement without blocking ----------------------------------
// Rounds of a non-blocking BAND allreduce over an exchange context of the
// parent's members (so they never take a place in the parent's own sequence of
// collectives, which the program may use meanwhile). The progress hook drives the
// rounds, from any wait.
//
// The first kSampledRounds rounds each offer one word of the idup half: a word
// every member picks alike from the parent's context, the idup's number and the
// round (its free pairs not promised elsewhere on this process). Idups in flight
// at once on a process then hold 64 pairs each at most, and seldom the same
// word twice in a row, so each usually succeeds in its first round, whatever the
// others wait for (MPICH's threads/comm/idup_deadlock: an idup a rank has not
// called yet must not hold up one that every rank has).
//
// After that, rounds offer the whole half: this process's free pairs not
// promised elsewhere (offer()), or nothing while an idup of higher priority
// (lower parent context, then earlier call) waits here, plus a word that is all
// ones only when no rank held anything back. So the highest-priority idup in
// flight anywhere succeeds within two rounds, overlapping idups over rings of
// communicators (MPICH's comm_idup_overlap) all finish, and an empty result
// with nothing held back means the context space is exhausted.
struct Idup {
  const char* call = nullptr;
  Comm* parent = nullptr;
  MPI_Comm* out = nullptr;
  Request* user = nullptr;
  bool with_info = false;
  InfoPairs hints;
  Comm* x = nullptr;
  std::uint64_t prio = 0;
  std::vector<std::uint64_t> words;
  std::size_t lo = 0, hi = 0;          // the words [lo, hi) this round offers
  Request* round = nullptr;
  std::vector<std::uint64_t> offered;  // promised to this round
  int rounds = 0;
};
std::vector<std::unique_ptr<Idup>> g_idups;

int idup_round(Idup& o) {
  const bool sampled = o.rounds < kSampledRounds;
  if (sampled) {
    o.lo = kIdupWord + fnv(fnv(0x1d0b, o.prio), static_cast<std::uint64_t>(o.rounds)) % kIdupWords;
    o.hi = o.lo + 1;
  } else {
    o.lo = kIdupWord;
    o.hi = kWords;
  }
  const bool higher = !sampled && std::any_of(g_idups.begin(), g_idups.end(), [&](const std::unique_ptr<Idup>& p) {
    return p.get() != &o && p->prio < o.prio;
  });
  o.words.assign(o.hi - o.lo + 1, 0);  // nothing offered, something held back
  if (!higher) offer(o.words.data(), o.lo, o.hi);
  o.offered = o.words;
  ++o.rounds;
  return internal_iallreduce(o.x, o.words.data(), static_cast<int>(o.words.size()), MPI_UINT64_T, MPI_BAND, o.call,
                             &o.round);
}

// A registered communicator with `like`'s members and shape on `pair`. It gets
// no shared window (making one is a collective of its own that could not wait
// here), so its collectives take the point-to-point algorithms.
Comm* idup_comm(const Comm& like, unsigned pair) {
  auto c = std::make_unique<Comm>();
  c->world_of = like.world_of;
  c->size = like.size;
  c->rank = like.rank;
  c->ctx_p2p = 2 * pair;
  c->ctx_coll = 2 * pair + 1;
  c->nodes = like.nodes;
  c->ranks_per_node = like.ranks_per_node;
  c->node_of = like.node_of;
  c->layout = like.layout;
  c->foreign = like.foreign;
  pair_mark(pair, true);
  Comm* p = c.get();
  register_comm(std::move(c));
  return p;
}

// The agreed pairs become the new communicator: the parent's members, shape and
// attributes (an intercommunicator takes three pairs: its bridge, its local
// group and itself).
int idup_build(Idup& o, const std::vector<unsigned>& pairs) {
  Comm* parent = o.parent;
  Comm* p;
  if (parent->inter) {
    Comm* bridge = idup_comm(*parent->bridge, pairs[0]);
    Comm* local = idup_comm(*parent->local, pairs[1]);
    comm_route_p2p(bridge);
    comm_route_p2p(local);
    p = idup_comm(*parent, pairs[2]);
    p->inter = true;
    p->left = parent->left;
    p->remote_of = parent->remote_of;
    p->bridge = bridge;
    p->local = local;
  } else {
    p = idup_comm(*parent, pairs[0]);
  }
  comm_route_p2p(p);
  int rc = MPI_SUCCESS;
  if (parent->errhandler != kErrhandlerWorlds) rc = PMPI_Comm_set_errhandler(p->handle, parent->errhandler);
  if (rc == MPI_SUCCESS) rc = comm_dup_into(parent, p, o.call);
  if (rc != MPI_SUCCESS) {
    comm_release(p, o.call);
    *o.out = MPI_COMM_NULL;
    return rc;
  }
  if (o.with_info) p->info = known_hints(o.hints);
  CHORUS_LOG(TRACE, INIT, "{}: new communicator 0x{:x}, {} ranks, context {}/{} (agreed in {} round{})", o.call,
             static_cast<unsigned>(p->handle), p->size, p->ctx_p2p, p->ctx_coll, o.rounds,
             o.rounds == 1 ? "" : "s");
  *o.out = p->handle;
  return MPI_SUCCESS;
}

unsigned idup_progress() {
  static bool busy = false;
  if (busy || g_idups.empty()) return 0;
  busy = true;
  unsigned n = 0;
  for (std::size_t i = 0; i < g_idups.size();) {
    Idup& o = *g_idups[i];
    int err = MPI_SUCCESS;
    bool done = false;
    if (!o.round) {
      err = idup_round(o);
      done = err != MPI_SUCCESS;
      ++n;
    } else if (o.round->complete) {
      MPI_Request h = requests().handle(o.round);
      err = request_complete(o.round, &h, MPI_STATUS_IGNORE);
      o.round = nullptr;
      unpromise(o.offered.data(), o.lo, o.hi);
      o.offered.clear();
      std::vector<unsigned> pairs;
      const std::size_t want = o.parent->inter ? 3 : 1;
      const std::size_t nw = o.hi - o.lo;
      for (std::size_t w = 0; w < nw && pairs.size() < want; ++w)
        for (std::uint64_t bits = o.words[w]; bits && pairs.size() < want; bits &= bits - 1)
          pairs.push_back(static_cast<unsigned>((o.lo + w) * 64 + static_cast<std::size_t>(std::countr_zero(bits))));
      // Enough pairs, or (offering the whole half) none held back anywhere, so
      // there are none: done; else another round.
      const bool exhausted = nw == kIdupWords && o.words[nw] != 0;
      if (err == MPI_SUCCESS && (pairs.size() == want || exhausted)) {
        done = true;
        if (pairs.size() < want) {
          err = make_error(MPI_ERR_OTHER, fmt::format("{}: no context id is free on all {} ranks (this rank has {} "
                                                      "of {} free); free unused communicators", o.call,
                                                      o.parent->size, free_pair_count(), kCommPairs));
        } else {
          err = idup_build(o, pairs);
        }
      }
      done = done || err != MPI_SUCCESS;
      ++n;
    }
    if (!done) {
      ++i;
      continue;
    }
    if (!o.offered.empty()) unpromise(o.offered.data(), o.lo, o.hi);
    if (o.round) {  // a round that failed to start leaves nothing running
      MPI_Request h = requests().handle(o.round);
      request_complete(o.round, &h, MPI_STATUS_IGNORE);
    }
    exchange_close(o.x);
    o.user->error = err;
    o.user->complete = true;
    g_idups.erase(g_idups.begin() + static_cast<std::ptrdiff_t>(i));
  }
  busy = false;
  return n;
}

int idup_start(const char* call, Comm* parent, const InfoPairs* hints, MPI_Comm* out, Request* user) {
  auto o = std::make_unique<Idup>();
  o->call = call;
  o->parent = parent;
  o->out = out;
  o->user = user;
  o->with_info = hints != nullptr;
  if (hints) o->hints = *hints;
  // Every member counts the parent's idups alike (they are collective over it).
  const std::uint32_t n = parent->idups++;
  o->prio = (static_cast<std::uint64_t>(parent->ctx_p2p) << 32) | n;
  o->x = exchange_open(parent->inter ? parent->bridge->world_of : parent->world_of, 0x1d0b000000000000ULL ^ (static_cast<std::uint64_t>(parent->ctx_coll) << 32) ^ n,
                       MPI_ERRORS_ARE_FATAL);
  g_idups.push_back(std::move(o));
  idup_progress();
  return MPI_SUCCESS;
}

}  // namespace

std::uint64_t fnv(std::uint64_t h, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) {
    h ^= (v >> (8 * i)) & 0xff;
    h *= 0x100000001b3ULL;
  }
  return h;
}

int comm_set_shape(Comm* c, const char* call) { return set_shape(c, call); }

void note_last_used_code(int code) { g_lastusedcode = std::max(g_lastusedcode, code); }

namespace {

MPI_Comm register_comm(std::unique_ptr<Comm> c) {
  std::size_t i = 0;
  while (i < g_table.size() && g_table[i]) ++i;
  if (i == g_table.size()) g_table.emplace_back();
  c->handle = static_cast<MPI_Comm>(handle::make(handle::Direct, handle::Comm, static_cast<int>(i)));
  g_table[i] = std::move(c);
  ++g_live;
  return g_table[i]->handle;
}

}  // namespace

Comm& world() { return g_world; }

void comms_init(const launcher::JobInfo& job) {
  g_world = Comm{};
  g_world.handle = MPI_COMM_WORLD;
  g_world.rank = job.rank;
  g_world.size = job.size;
  g_world.world_of.resize(static_cast<std::size_t>(job.size));
  std::iota(g_world.world_of.begin(), g_world.world_of.end(), 0);
  g_world.ctx_p2p = 0;
  g_world.ctx_coll = 1;
  g_world.name = "MPI_COMM_WORLD";
  p2p::add_late_progress_hook(idup_progress);
  // Without a node map every rank computes the same estimate: ranks spread evenly.
  g_world.nodes = job.num_nodes < 1 ? 1 : job.num_nodes;
  g_world.ranks_per_node = (job.size + g_world.nodes - 1) / g_world.nodes;

  g_self = Comm{};
  g_self.handle = MPI_COMM_SELF;
  g_self.rank = 0;
  g_self.size = 1;
  g_self.world_of = {job.rank};
  g_self.ctx_p2p = 2;
  g_self.ctx_coll = 3;
  g_self.name = "MPI_COMM_SELF";

  g_table.clear();
  g_retired.clear();
  g_live = 0;
  pairs_reset();

  g_universe_size = job.size;
  g_appnum = job.appnum;
  g_wtime_is_global = job.num_nodes <= 1 ? 1 : 0;
}

// MPI_Finalize: MPI_COMM_SELF's attributes are deleted first (their delete
// callbacks may still call MPI), then what the program left behind is dropped.
void comms_finalize() {
  attrs_delete_all(&g_self, "MPI_Finalize");
  attrs_delete_all(&g_world, "MPI_Finalize");
  g_world.shm.reset();
  g_world.node_shm.reset();
  g_table.clear();
  g_retired.clear();
  g_kept.clear();
  g_live = 0;
  pairs_reset();
}

Comm* comm_lookup(MPI_Comm c) {
  if (c == MPI_COMM_WORLD) return &g_world;
  if (c == MPI_COMM_SELF) return &g_self;
  int h = static_cast<int>(c);
  if (!handle::is(h, handle::Direct, handle::Comm)) return nullptr;
  auto i = static_cast<std::size_t>(handle::index(h));
  // Under the API lock: calls that take no lock of their own (MPI_Comm_size,
  // MPI_Comm_rank) look communicators up while another thread's MPI_Comm_split
  // may grow the table (ThreadSanitizer: a read of the vector while it moved).
  p2p::ApiLock lock;
  return i < g_table.size() ? g_table[i].get() : nullptr;
}

std::size_t comm_live() { return g_live; }

namespace {

// `c` goes without a shared window (this rank's errno `code` and text `err`,
// both empty where another rank failed). Said once as a warning where this rank
// found /dev/shm full: every later communicator's collectives are slower for it,
// and the fix is the user's.
int no_window(Comm* c, const char* call, int code, const std::string& err) {
  static bool warned = false;
  if (code == ENOSPC && !warned) {
    warned = true;
    CHORUS_WARN(COLL, "{}: no shared window for {} ranks ({}); collectives on this communicator go through "
                "point-to-point, slower (a larger /dev/shm, e.g. docker run --shm-size, avoids it; "
                "CHORUS_DEBUG=INFO names each such communicator)", call, c->size, err);
  } else {
    CHORUS_LOG(INFO, COLL, "{}: no shared window for {} ranks ({}); shared-memory algorithms off on it",
               call, c->size, err.empty() ? "another rank could not map or allocate it" : err);
  }
  return MPI_SUCCESS;
}

// A window kept (keep_window) for `c`'s members, of `bytes`, whose id every rank
// has: then `c` takes it (*done). Rank 0 names its candidate; where another rank
// lacks it, each rank drops its copy and a new window is made. A rank takes its
// copy out of g_kept before the agreement waits: another thread's communicator
// of the same members, set up meanwhile, cannot take the same window too (the
// lock is let go while waiting).
int reuse_window(Comm* c, const char* call, std::size_t bytes, bool* done) {
  *done = false;
  auto take = [&](std::uint64_t id) {
    std::shared_ptr<coll::ShmWindow> w;
    auto it = std::find_if(g_kept.begin(), g_kept.end(), [&](const KeptWindow& k) {
      return (!id || k.w->id == id) && k.members == c->world_of && k.w->bytes() == bytes;
    });
    if (it != g_kept.end()) {
      w = std::move(it->w);
      g_kept.erase(it);
    }
    return w;
  };
  std::shared_ptr<coll::ShmWindow> w;
  std::uint64_t id = 0;
  if (c->rank == 0 && (w = take(0))) id = w->id;
  CHORUS_TRY_MPI(internal_bcast(c, &id, sizeof id, 0, call));
  if (!id) return MPI_SUCCESS;
  if (c->rank != 0) w = take(id);
  int found = w != nullptr;
  CHORUS_TRY_MPI(internal_allreduce(c, &found, 1, MPI_INT, MPI_MIN, call));
  if (!found) {
    CHORUS_LOG(TRACE, COLL, "{}: a kept window for {} ranks is not kept everywhere; a new one", call, c->size);
    return MPI_SUCCESS;
  }
  c->shm = std::move(w);
  *done = true;
  CHORUS_LOG(TRACE, COLL, "{}: shared window for {} ranks: one a freed communicator of the same ranks left",
             call, c->size);
  return MPI_SUCCESS;
}

// The blocking collective (1, 2, ...) that sets a new communicator's window up.
std::uint32_t shm_calls_first() {
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(param::CollShmCalls(), 1, UINT32_MAX));
}

// Whole cache lines (ShmWindow's layout), at least one.
std::size_t shm_slot() {
  const std::size_t line = coll::ShmWindow::kLine;
  return std::max<std::size_t>(param::CollShmSlot() / line * line, line);
}

// `c` across nodes: a window per node of its ranks there (where there are two or
// more), for the hierarchical algorithms' node stages. No mailbox: those run on
// one node's communicators only. Each node's lowest rank creates its node's
// segment; one exchange of every rank's header tells the others its name, a
// second agrees that every node has its window and every rank the same slot
// (the algorithm's choice reads it). Anything else: no node windows anywhere.
int node_windows_setup(Comm* c, const char* call) {
  const std::vector<int>& node_of = *c->node_of;
  const int node = node_of[static_cast<std::size_t>(c->rank)];
  std::vector<int> index_of(node_of.size(), -1);
  int local_size = 0, leader = -1;
  for (std::size_t r = 0; r < node_of.size(); ++r) {
    if (node_of[r] != node) continue;
    if (leader < 0) leader = static_cast<int>(r);
    index_of[r] = local_size++;
  }
  const int local = index_of[static_cast<std::size_t>(c->rank)];
  const std::size_t slot = shm_slot();
  static unsigned serial = 0;
  struct Header {
    int pid;
    unsigned serial;
  } mine{};
  std::string err;
  int code = 0;
  std::unique_ptr<coll::ShmWindow> w;
  auto name_of = [](const Header& h) { return shm::name(h.pid, "node" + std::to_string(h.serial)); };
  if (local == 0 && local_size > 1) {
    const Header h{static_cast<int>(getpid()), serial++};
    w = coll::ShmWindow::create(name_of(h), local_size, 0, slot, {}, &err, &code);
    if (w) mine = h;  // else a pid of 0 tells the node's ranks there is nothing to open
  }
  const std::string name = local == 0 && w ? name_of(mine) : std::string();
  struct Unlink {
    const std::string& n;
    ~Unlink() {
      if (!n.empty()) coll::ShmWindow::unlink(n);
    }
  } unlink_guard{name};
  std::vector<Header> all(static_cast<std::size_t>(c->size));
  CHORUS_TRY_MPI(internal_allgather(c, &mine, all.data(), sizeof mine, call));
  const Header& theirs = all[static_cast<std::size_t>(leader)];
  if (local != 0 && theirs.pid != 0)
    w = coll::ShmWindow::open(name_of(theirs), local_size, local, slot, {}, &err, &code);
  // ok, and the slot as seen by the rank with the smallest and the largest.
  const auto lines = static_cast<int>(std::min<std::size_t>(slot / coll::ShmWindow::kLine, INT_MAX));
  int agree[3] = {local_size == 1 || w != nullptr, lines, -lines};
  CHORUS_TRY_MPI(internal_allreduce(c, agree, 3, MPI_INT, MPI_MIN, call));
  if (!agree[0]) return no_window(c, call, code, err);
  if (agree[1] != -agree[2]) {
    CHORUS_LOG(INFO, COLL, "{}: no node windows: the ranks' CHORUS_COLL_SHM_SLOT differ ({} to {} B)", call,
               static_cast<std::size_t>(agree[1]) * coll::ShmWindow::kLine,
               static_cast<std::size_t>(-agree[2]) * coll::ShmWindow::kLine);
    return MPI_SUCCESS;
  }
  if (w) {
    w->id = static_cast<std::uint64_t>(theirs.pid) << 32 | theirs.serial;
    w->set_members(std::move(index_of));
    c->node_shm = std::shared_ptr<coll::ShmWindow>(std::move(w));
  }
  c->node_slot = slot;
  if (c->handle == MPI_COMM_WORLD)
    CHORUS_LOG(INFO, COLL, "MPI_COMM_WORLD: a shared window on each node ({} ranks on {} nodes, {} B slots): the "
               "hierarchical algorithms' node stages go through it", c->size, c->nodes, slot);
  else
    CHORUS_LOG(TRACE, COLL, "{}: a shared window on each node ({} ranks on {} nodes, {} B slots)", call, c->size,
               c->nodes, slot);
  return MPI_SUCCESS;
}

}  // namespace

int comm_shm_setup(Comm* c, const char* call) {
  // Not between jobs: their processes have no shared-memory rings either.
  if (c->size < 2 || c->foreign || c->inter || param::CollShm() != 0) return MPI_SUCCESS;
  if (c->nodes > 1) {
    if (!c->node_of || c->node_of->size() != static_cast<std::size_t>(c->size)) return MPI_SUCCESS;
    return node_windows_setup(c, call);
  }
  const std::size_t line = coll::ShmWindow::kLine;
  const std::size_t slot = shm_slot();
  // The mailbox (coll/mailbox.h): off with the call check, which syncs every call.
  const int depth = param::CollMailbox() && !param::CheckColl()
                        ? std::clamp(static_cast<int>(param::CollMailboxDepth()), 0, 1024) : 0;
  // At most 8 MiB of mailbox per window (an entry shrinks as ranks grow: 256 KiB
  // up to 4 ranks at depth 8, 128 KiB at 8, 16 KiB at 64), so that a /dev/shm of
  // 64 MiB (Docker's) still holds the window of a large node.
  constexpr std::size_t kMailboxMax = std::size_t{8} << 20;
  coll::MailboxShape mbox;
  if (depth) {
    const auto p = static_cast<std::size_t>(c->size);
    mbox.depth = depth;
    mbox.bytes = std::min<std::size_t>(param::CollMailbox(),
                                       std::max<std::size_t>(line, kMailboxMax / (p * static_cast<std::size_t>(depth)))) /
                 line * line;
    // The entries: at most 4 MiB of them per window, never fewer than the data areas.
    constexpr std::size_t kEntriesMax = std::size_t{4} << 20;
    const auto fit = static_cast<int>(std::min<std::size_t>(1024, kEntriesMax / (p * coll::ShmWindow::kSmallEntry)));
    mbox.small_depth = std::max(depth, std::min(std::clamp(static_cast<int>(param::CollMailboxSmallDepth()), 1, 1 << 16), fit));
  }
  if (c->handle != MPI_COMM_WORLD) {
    bool done = false;
    CHORUS_TRY_MPI(reuse_window(c, call, coll::ShmWindow::bytes_for(c->size, slot, mbox), &done));
    if (done) return MPI_SUCCESS;
  }
  // Rank 0 creates the segment under a name unique on the node (its pid and a
  // count), then tells the others whether it could.
  static unsigned serial = 0;
  struct Header {
    int ok, pid;
    unsigned serial;
  } hdr{};
  std::string err;
  int code = 0;
  std::unique_ptr<coll::ShmWindow> w;
  auto name_of = [](const Header& h) { return shm::name(h.pid, std::to_string(h.serial)); };
  if (c->rank == 0) {
    hdr.pid = static_cast<int>(getpid());
    hdr.serial = serial++;
    w = coll::ShmWindow::create(name_of(hdr), c->size, 0, slot, mbox, &err, &code);
    hdr.ok = w != nullptr;
  }
  const std::string name = c->rank == 0 ? name_of(hdr) : std::string();
  // Whatever happens next, rank 0 removes the name: the mappings are all that remain.
  struct Unlink {
    const std::string& n;
    bool created;
    ~Unlink() {
      if (created) coll::ShmWindow::unlink(n);
    }
  } unlink_guard{name, c->rank == 0 && hdr.ok};
  CHORUS_TRY_MPI(internal_bcast(c, &hdr, sizeof hdr, 0, call));
  if (c->rank != 0 && hdr.ok) w = coll::ShmWindow::open(name_of(hdr), c->size, c->rank, slot, mbox, &err, &code);
  int ok = w != nullptr;
  CHORUS_TRY_MPI(internal_allreduce(c, &ok, 1, MPI_INT, MPI_MIN, call));
  if (!ok) return no_window(c, call, code, err);
  w->id = static_cast<std::uint64_t>(hdr.pid) << 32 | hdr.serial;
  c->shm = std::shared_ptr<coll::ShmWindow>(std::move(w));
  if (c->handle != MPI_COMM_WORLD) {
    CHORUS_LOG(TRACE, COLL, "{}: shared window for {} ranks: {} B slots, {} B", call, c->size, slot,
               coll::ShmWindow::bytes_for(c->size, slot, mbox));
    return MPI_SUCCESS;
  }
  CHORUS_LOG(INFO, COLL, "MPI_COMM_WORLD: shared window for {} ranks on one node ({} B slots, {} B allocated): "
             "shared-memory algorithms available; {}; another communicator gets its window with its blocking "
             "collective number {} (CHORUS_COLL_SHM_CALLS)", c->size, slot,
             coll::ShmWindow::bytes_for(c->size, slot, mbox),
             depth ? fmt::format("blocking bcast/reduce of up to {} B through a mailbox of {} entries per rank "
                                 "(CHORUS_COLL_MAILBOX_SMALL_DEPTH; up to {} B of data in the entry) and {} data "
                                 "areas (CHORUS_COLL_MAILBOX_DEPTH, CHORUS_COLL_MAILBOX), larger ones streamed "
                                 "through it up to {} B (CHORUS_COLL_MAILBOX_STREAM; bcast among 3+ ranks: {} B)",
                                 mbox.bytes, mbox.small_depth, c->shm->mbox_inline(),
                                 depth, param::CollMailboxStream(), param::CollMailboxStreamBcast())
                   : std::string("no mailbox (CHORUS_COLL_MAILBOX=0 or CHORUS_CHECK_COLL=1)"),
             shm_calls_first());
  return MPI_SUCCESS;
}

void comm_route_p2p(Comm* c) {
  auto local = [](int w) { return p2p::local::is_local(w); };
  bool all = p2p::local::up() && std::all_of(c->world_of.begin(), c->world_of.end(), local) &&
             std::all_of(c->remote_of.begin(), c->remote_of.end(), local);
  p2p::local::set_context(c->ctx_p2p, all);
  // The collectives' messages too: through the rings, mid-size ones single-copy, a
  // rank that runs is not held up by a descheduled peer's half of a copy (a busy
  // node's tail latency) and large ones skip UCX's two-sided pipeline.
  p2p::local::set_context(c->ctx_coll, all);
}

int comm_build(Comm* over, const char* call, const std::vector<int>& members,
               MPI_Errhandler errhandler, Comm** out) {
  *out = nullptr;
  unsigned pair = 0;
  CHORUS_TRY_MPI(agree_context(over, call, &pair));
  if (members.empty()) return MPI_SUCCESS;
  int me = g_world.rank;
  auto c = std::make_unique<Comm>();
  c->world_of = members;
  c->size = static_cast<int>(members.size());
  c->rank = static_cast<int>(std::find(members.begin(), members.end(), me) - members.begin());
  if (c->rank == c->size)
    return fail(over, MPI_ERR_INTERN, "{}: this rank (world {}) is not in the new communicator", call, me);
  c->ctx_p2p = 2 * pair;
  c->ctx_coll = 2 * pair + 1;
  if (!over->temporary) c->session = over->session;  // split, create: derived from `over`
  pair_mark(pair, true);
  Comm* p = c.get();
  register_comm(std::move(c));
  comm_route_p2p(p);
  int rc = set_shape(p, call);
  // Its shared window comes with its CHORUS_COLL_SHM_CALLS-th blocking collective (coll.cc, begin).
  p->shm_calls = shm_calls_first();
  if (rc != MPI_SUCCESS) {
    comm_release(p, call);
    return rc;
  }
  if (errhandler != kErrhandlerWorlds) {
    rc = PMPI_Comm_set_errhandler(p->handle, errhandler);  // takes a reference
    if (rc != MPI_SUCCESS) {
      comm_release(p, call);
      return rc;
    }
  }
  CHORUS_LOG(TRACE, INIT, "{}: new communicator 0x{:x}, {} ranks, context {}/{}", call,
             static_cast<unsigned>(p->handle), p->size, p->ctx_p2p, p->ctx_coll);
  *out = p;
  return MPI_SUCCESS;
}

int intercomm_make(Comm* bridge_over, Comm* local_over, const std::vector<int>& local,
                   const std::vector<int>& remote, bool left, MPI_Errhandler errhandler, const char* call,
                   Comm** out) {
  *out = nullptr;
  std::vector<int> both;
  if (!local.empty()) {
    both = left ? local : remote;
    const auto& second = left ? remote : local;
    both.insert(both.end(), second.begin(), second.end());
  }
  // Every rank of bridge_over (and of local_over) takes part in each agreement,
  // in this order, members or not.
  Comm* bridge = nullptr;
  CHORUS_TRY_MPI(comm_build(bridge_over, call, both, MPI_ERRORS_ARE_FATAL, &bridge));
  unsigned pair = 0;
  int rc = agree_context(bridge_over, call, &pair);
  // A member marks the pair used at once: the local group's agreement below
  // waits, and another thread's agreement meanwhile must not take the pair
  // (two live communicators on one context take each other's messages).
  const bool marked = rc == MPI_SUCCESS && !local.empty();
  if (marked) pair_mark(pair, true);
  Comm* loc = nullptr;
  if (rc == MPI_SUCCESS) rc = comm_build(local_over, call, local, MPI_ERRORS_ARE_FATAL, &loc);
  if (rc != MPI_SUCCESS || local.empty()) {
    if (marked) pair_mark(pair, false);
    if (bridge) comm_release(bridge, call);
    if (loc) comm_release(loc, call);
    return rc;
  }
  auto c = std::make_unique<Comm>();
  c->inter = true;
  c->left = left;
  c->world_of = local;
  c->remote_of = remote;
  c->size = static_cast<int>(local.size());
  c->rank = loc->rank;
  c->ctx_p2p = 2 * pair;
  c->ctx_coll = 2 * pair + 1;
  c->local = loc;
  c->bridge = bridge;
  c->nodes = bridge->nodes;
  c->ranks_per_node = bridge->ranks_per_node;
  c->foreign = bridge->foreign;
  Comm* p = c.get();
  register_comm(std::move(c));
  comm_route_p2p(p);
  if (errhandler != kErrhandlerWorlds) {
    rc = PMPI_Comm_set_errhandler(p->handle, errhandler);  // takes a reference
    if (rc != MPI_SUCCESS) {
      comm_release(p, call);
      return rc;
    }
  }
  CHORUS_LOG(TRACE, INIT, "{}: new intercommunicator 0x{:x}, {} local and {} remote ranks, context {}/{}",
             call, static_cast<unsigned>(p->handle), p->size, remote.size(), p->ctx_p2p, p->ctx_coll);
  *out = p;
  return MPI_SUCCESS;
}

bool any_foreign(const std::vector<int>& members) {
  return std::any_of(members.begin(), members.end(), [](int w) { return p2p::foreign(w); });
}

bool group_before(const std::vector<int>& a, const std::vector<int>& b) {
  auto lowest = [](const std::vector<int>& g) {
    std::uint64_t m = UINT64_MAX;
    for (int w : g) m = std::min(m, p2p::gid_of(w));
    return m;
  };
  return lowest(a) < lowest(b);
}

Comm* exchange_open(const std::vector<int>& members, std::uint64_t key, MPI_Errhandler eh) {
  // Global ids: members of two jobs number each other differently.
  std::uint64_t h = fnv(0xcbf29ce484222325ULL, key);
  for (int w : members) h = fnv(h, p2p::gid_of(w));
  unsigned slot = static_cast<unsigned>(h % (kExchangePairs - 1));  // the last is kPortContext's
  auto c = std::make_unique<Comm>();
  c->temporary = true;
  c->world_of = members;
  c->size = static_cast<int>(members.size());
  c->rank = static_cast<int>(std::find(members.begin(), members.end(), g_world.rank) - members.begin());
  c->ctx_p2p = kExchangeBase + 2 * slot;
  c->ctx_coll = c->ctx_p2p + 1;
  c->coll_seq = static_cast<std::uint32_t>(h >> 40);  // see the top: apart even when slots meet
  c->errhandler = eh;  // builtin only: no reference is taken
  c->nodes = 1;
  c->ranks_per_node = c->size;
  c->foreign = any_foreign(members);
  Comm* p = c.get();
  register_comm(std::move(c));  // the collectives find communicators by handle
  return p;
}

void exchange_close(Comm* c) {
  auto i = static_cast<std::size_t>(handle::index(static_cast<int>(c->handle)));
  g_table[i].reset();
  --g_live;
  while (!g_table.empty() && !g_table.back()) g_table.pop_back();
}

int comm_release(Comm* c, const char* call) {
  CHORUS_TRY_MPI(attrs_delete_all(c, call));
  dynamic_forget(c->handle);
  // The handle is gone now; the object stays while requests use it (g_retired).
  auto i = static_cast<std::size_t>(handle::index(static_cast<int>(c->handle)));
  std::unique_ptr<Comm> owned = std::move(g_table[i]);
  --g_live;
  while (!g_table.empty() && !g_table.back()) g_table.pop_back();
  // An intercommunicator's hidden halves: only its blocking collectives use them,
  // and those have returned.
  for (Comm* part : {c->local, c->bridge})
    if (part) CHORUS_TRY_MPI(comm_release(part, call));
  c->local = c->bridge = nullptr;
  if (in_use(c)) {
    CHORUS_LOG(TRACE, INIT, "{}: communicator 0x{:x} (context {}) freed with operations pending; "
               "kept until they complete", call, static_cast<unsigned>(c->handle), c->ctx_p2p);
    g_retired.push_back(std::move(owned));
  } else {
    destroy(std::move(owned));
  }
  reap_retired();
  return MPI_SUCCESS;
}

int comm_dup_into(Comm* parent, Comm* child, const char* call) {
  child->topo = parent->topo;
  child->session = parent->session;
  child->info = parent->info;
  return attrs_copy(parent, child, call);
}

int check_comm(const char* call, MPI_Comm c, Comm** out) {
  Comm* p = comm_lookup(c);
  if (!p) {
    if (c == MPI_COMM_NULL) return fail(nullptr, MPI_ERR_COMM, "{}: comm is MPI_COMM_NULL", call);
    return fail(nullptr, MPI_ERR_COMM, "{}: invalid communicator handle 0x{:x}", call,
                static_cast<unsigned>(c));
  }
  // A stream-ordered operation on this communicator failed after its call returned
  // (lib/mpi/stream.cc): this call raises it.
  if (g_stream_error_pending.load(std::memory_order_acquire))
    if (int e = stream_take_error(p); e != MPI_SUCCESS) return raise(p, e);
  *out = p;
  return MPI_SUCCESS;
}

int check_count(const char* call, Comm* c, MPI_Count count, const char* arg) {
  if (count < 0) return fail(c, MPI_ERR_COUNT, "{}: {} is {}, must be non-negative", call, arg, count);
  return MPI_SUCCESS;
}

int check_type(const char* call, Comm* c, MPI_Datatype t, const TypeInfo** out, const char* arg) {
  const TypeInfo* ti = type_info(t);
  if (!ti) {
    if (t == MPI_DATATYPE_NULL) return fail(c, MPI_ERR_TYPE, "{}: {} is MPI_DATATYPE_NULL", call, arg);
    return fail(c, MPI_ERR_TYPE, "{}: invalid {} handle 0x{:x}", call, arg, static_cast<unsigned>(t));
  }
  *out = ti;
  return MPI_SUCCESS;
}

int check_buffer(const char* call, Comm* c, const void* buf, MPI_Count count, const char* arg) {
  if (buf == nullptr && count > 0)
    return fail(c, MPI_ERR_BUFFER, "{}: {} is NULL with count {}", call, arg, count);
  return MPI_SUCCESS;
}

int check_rank(const char* call, Comm* c, int rank, const char* arg, bool any_ok) {
  if (rank == MPI_PROC_NULL || (any_ok && rank == MPI_ANY_SOURCE)) return MPI_SUCCESS;
  if (rank < 0 || rank >= c->peers())
    return fail(c, MPI_ERR_RANK, "{}: {} is {}, must be in [0, {}){}{} or MPI_PROC_NULL", call, arg,
                rank, c->peers(), c->inter ? " (the remote group of an intercommunicator)" : "",
                any_ok ? ", MPI_ANY_SOURCE" : "");
  return MPI_SUCCESS;
}

int check_tag(const char* call, Comm* c, int tag, bool any_ok) {
  if (any_ok && tag == MPI_ANY_TAG) return MPI_SUCCESS;
  if (tag < 0 || tag > tag::kTagUB)
    return fail(c, MPI_ERR_TAG, "{}: tag is {}, must be in [0, {}]{}", call, tag, tag::kTagUB,
                any_ok ? " or MPI_ANY_TAG" : "");
  return MPI_SUCCESS;
}

}  // namespace chorus::mpi

using namespace chorus;
using namespace chorus::mpi;

namespace {

// Shared by MPI_Comm_dup(_with_info) and MPI_Comm_idup(_with_info).
int dup(const char* call, MPI_Comm comm, MPI_Info info, bool with_info, MPI_Comm* newcomm) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  const InfoPairs* hints = nullptr;
  if (with_info) CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  Comm* n;
  if (c->inter) inter_drain(c);
  if (c->inter)
    CHORUS_TRY_MPI(intercomm_make(c->bridge, c->local, c->world_of, c->remote_of, c->left, c->errhandler,
                                  call, &n));
  else
    CHORUS_TRY_MPI(comm_build(c, call, c->world_of, c->errhandler, &n));
  int rc = comm_dup_into(c, n, call);
  if (rc != MPI_SUCCESS) {
    comm_release(n, call);
    *newcomm = MPI_COMM_NULL;  // as MPI says when a copy callback fails
    return rc;
  }
  if (with_info) n->info = known_hints(*hints);
  *newcomm = n->handle;
  return MPI_SUCCESS;
}

int idup(const char* call, MPI_Comm comm, MPI_Info info, bool with_info, MPI_Comm* newcomm,
         MPI_Request* request) {
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!request) return fail(c, MPI_ERR_ARG, "{}: request is NULL", call);
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  const InfoPairs* hints = nullptr;
  if (with_info) CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  Request* r = requests().get();
  r->kind = Request::Kind::Done;
  r->active = true;
  r->comm = c;
  if (c->size == 1 && !c->inter) {  // nobody to wait for
    int rc = dup(call, comm, info, with_info, newcomm);
    if (rc != MPI_SUCCESS) {
      requests().put(r);
      return rc;
    }
    r->complete = true;
  } else {
    CHORUS_TRY_MPI(idup_start(call, c, hints, newcomm, r));
  }
  *request = requests().handle(r);
  return MPI_SUCCESS;
}

struct SplitEntry {
  int color;
  int key;
};

// Split `c` by color/key (MPI_UNDEFINED: no communicator). Collective over c.
int split(const char* call, Comm* c, int color, int key, Comm** out) {
  std::vector<SplitEntry> all(static_cast<std::size_t>(c->size));
  SplitEntry mine{color, key};
  CHORUS_TRY_MPI(internal_allgather(c, &mine, all.data(), sizeof(SplitEntry), call));
  std::vector<int> order;
  if (color != MPI_UNDEFINED) {
    for (int r = 0; r < c->size; ++r)
      if (all[static_cast<std::size_t>(r)].color == color) order.push_back(r);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return all[static_cast<std::size_t>(a)].key < all[static_cast<std::size_t>(b)].key;
    });
    for (int& r : order) r = c->world_rank(r);
  }
  return comm_build(c, call, order, c->errhandler, out);
}

// The color of a hardware split over `levels` (resource names of lib/topo, and
// "node"): every member's node and the index of the object its binding lies in at
// each level are gathered, and each member takes the first level whose group (the
// members with the same node and object) is smaller than `c`, as
// MPI_COMM_TYPE_HW_UNGUIDED asks; with one level (HW_GUIDED) that level, whatever
// its size. A member whose binding spans several objects of a level (an unbound
// process) has no group there. The color is the lowest comm rank of the group, so
// groups of different levels never share one; `resource` names the level chosen.
// MPICH's MPIX_COMM_TYPE_NEIGHBORHOOD. With the info key nbhd_common_dirname (the
// same directory on every rank) the ranks that see the same files there share a
// communicator: in rounds, the lowest rank not yet placed creates a marker file
// in the directory and every unplaced rank that sees it takes that rank's color
// (a rank that cannot create one is a color of its own). Hints that differ
// between ranks, network_topo (Chorus knows no network topology) and any other
// hint give MPI_COMM_NULL everywhere, as in MPICH.
int neighborhood_color(const char* call, Comm* c, const InfoPairs& hints, int* color) {
  *color = MPI_UNDEFINED;
  const std::string* dir = info_find(hints, "nbhd_common_dirname");
  std::uint64_t h = 0;
  if (dir)
    for (char ch : *dir) h = fnv(h ^ 0x9e3779b97f4a7c15ULL, static_cast<unsigned char>(ch));
  std::uint64_t range[2] = {h, ~h};  // min and (complemented) max of the hashes
  CHORUS_TRY_MPI(internal_allreduce(c, range, 2, MPI_UINT64_T, MPI_MIN, call));
  if (!dir || range[0] != ~range[1]) {
    CHORUS_LOG(INFO, TOPO, "{}: MPIX_COMM_TYPE_NEIGHBORHOOD: {}: MPI_COMM_NULL", call,
               dir ? "nbhd_common_dirname differs between ranks" : "no nbhd_common_dirname hint");
    return MPI_SUCCESS;
  }
  static unsigned serial = 0;
  for (;;) {
    int leader = *color == MPI_UNDEFINED ? c->rank : INT_MAX;
    CHORUS_TRY_MPI(internal_allreduce(c, &leader, 1, MPI_INT, MPI_MIN, call));
    if (leader == INT_MAX) return MPI_SUCCESS;
    struct Marker {
      int ok, pid;
      unsigned serial;
    } m{};
    auto path = [&](const Marker& x) { return fmt::format("{}/.chorus-nbhd-{}-{}", *dir, x.pid, x.serial); };
    if (c->rank == leader) {
      m.pid = static_cast<int>(getpid());
      m.serial = serial++;
      int fd = ::open(path(m).c_str(), O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
      m.ok = fd >= 0;
      if (fd >= 0) ::close(fd);
      if (!m.ok) CHORUS_LOG(INFO, TOPO, "{}: cannot create {}: {}", call, path(m), std::strerror(errno));
      *color = leader;
    }
    CHORUS_TRY_MPI(internal_bcast(c, &m, sizeof m, leader, call));
    if (m.ok && *color == MPI_UNDEFINED && ::access(path(m).c_str(), F_OK) == 0) *color = leader;
    int done = 0;  // everyone has looked before the marker goes
    CHORUS_TRY_MPI(internal_allreduce(c, &done, 1, MPI_INT, MPI_MIN, call));
    if (c->rank == leader && m.ok) ::unlink(path(m).c_str());
  }
}

int hw_color(const char* call, Comm* c, const std::vector<std::string>& levels, int* color, std::string* resource) {
  const std::size_t L = levels.size(), P = static_cast<std::size_t>(c->size);
  std::vector<int> mine(L + 1), all((L + 1) * P);
  mine[0] = p2p::job().node_id;
  for (std::size_t l = 0; l < L; ++l) mine[l + 1] = levels[l] == "node" ? 0 : topo::resource_index(levels[l]);
  CHORUS_TRY_MPI(internal_allgather(c, mine.data(), all.data(), (L + 1) * sizeof(int), call));
  auto at = [&](std::size_t r, std::size_t l) { return all[r * (L + 1) + l]; };  // l = 0: the node
  // Group sizes per level, keyed by (node, object).
  std::vector<std::map<std::pair<int, int>, int>> sizes(L);
  for (std::size_t r = 0; r < P; ++r)
    for (std::size_t l = 0; l < L; ++l)
      if (at(r, l + 1) >= 0) ++sizes[l][{at(r, 0), at(r, l + 1)}];
  auto chosen = [&](std::size_t r) -> int {
    for (std::size_t l = 0; l < L; ++l) {
      if (at(r, l + 1) < 0) continue;
      if (L == 1 || sizes[l][{at(r, 0), at(r, l + 1)}] < c->size) return static_cast<int>(l);
    }
    return -1;
  };
  const std::size_t me = static_cast<std::size_t>(c->rank);
  const int lvl = chosen(me);
  *color = MPI_UNDEFINED;
  if (lvl < 0) {
    CHORUS_LOG(INFO, TOPO, "{}: rank {} of comm has no smaller group at {} (bound to CPUs {}): MPI_COMM_NULL", call,
               c->rank, L == 1 ? levels[0] : "any level", topo::node().binding);
    return MPI_SUCCESS;
  }
  const auto l = static_cast<std::size_t>(lvl);
  for (std::size_t r = 0; r < P && *color == MPI_UNDEFINED; ++r)
    if (at(r, 0) == at(me, 0) && at(r, l + 1) == at(me, l + 1) && chosen(r) == lvl) *color = static_cast<int>(r);
  *resource = levels[l] == "node" ? "mpi_shared_memory" : "hwloc://" + levels[l];
  return MPI_SUCCESS;
}

}  // namespace

namespace chorus::mpi {
// Used by topo.cc (MPI_Cart_sub) as well.
int comm_split(const char* call, Comm* c, int color, int key, Comm** out) {
  return split(call, c, color, key, out);
}
}  // namespace chorus::mpi

extern "C" {

int PMPI_Comm_size(MPI_Comm comm, int* size) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_size"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_size", comm, &c));
  if (!size) return fail(c, MPI_ERR_ARG, "MPI_Comm_size: size is NULL");
  *size = c->size;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_size)

int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_rank"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_rank", comm, &c));
  if (!rank) return fail(c, MPI_ERR_ARG, "MPI_Comm_rank: rank is NULL");
  *rank = c->rank;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_rank)

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_get_attr"));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_get_attr", comm, &c));
  if (!attribute_val || !flag)
    return fail(c, MPI_ERR_ARG, "MPI_Comm_get_attr: {} is NULL", flag ? "attribute_val" : "flag");
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &g_tag_ub; break;
    case MPI_WTIME_IS_GLOBAL: value = &g_wtime_is_global; break;
    case MPI_HOST: value = &g_host; break;
    case MPI_IO: value = &g_io; break;
    case MPI_UNIVERSE_SIZE: value = &g_universe_size; break;
    case MPI_APPNUM: value = &g_appnum; break;
    case MPI_LASTUSEDCODE: value = &g_lastusedcode; break;
    default: {
      if (!keyval_valid(keyval))
        return fail(c, MPI_ERR_KEYVAL, "MPI_Comm_get_attr: invalid keyval 0x{:x}",
                    static_cast<unsigned>(keyval));
      auto it = c->attrs.find(keyval);
      *flag = it != c->attrs.end();
      if (*flag) *static_cast<void**>(attribute_val) = it->second;
      return MPI_SUCCESS;
    }
  }
  *static_cast<int**>(attribute_val) = value;
  *flag = 1;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_attr)

int PMPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_get_name"));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_get_name", comm, &c));
  if (!name || !resultlen)
    return fail(c, MPI_ERR_ARG, "MPI_Comm_get_name: {} is NULL", name ? "resultlen" : "name");
  std::size_t n = std::min<std::size_t>(c->name.size(), MPI_MAX_OBJECT_NAME - 1);
  c->name.copy(name, n);
  name[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_name)

int PMPI_Comm_set_name(MPI_Comm comm, const char* name) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_set_name"));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_set_name", comm, &c));
  if (!name) return fail(c, MPI_ERR_ARG, "MPI_Comm_set_name: comm_name is NULL");
  c->name.assign(name, strnlen(name, MPI_MAX_OBJECT_NAME - 1));
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_set_name)

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  if (color < 0 && color != MPI_UNDEFINED)
    return fail(c, MPI_ERR_ARG, "{}: color is {}, must be non-negative or MPI_UNDEFINED", call, color);
  Comm* n;
  if (c->inter)
    CHORUS_TRY_MPI(intercomm_split(call, c, color, key, &n));
  else
    CHORUS_TRY_MPI(split(call, c, color, key, &n));
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_split)

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_split_type";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (c->inter)
    return fail(c, MPI_ERR_COMM, "{}: comm 0x{:x} is an intercommunicator; this call takes an intracommunicator",
                call, static_cast<unsigned>(comm));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, true));
  const int node = p2p::job().node_id;
  int color = MPI_UNDEFINED;
  std::string resource;  // what the new communicator's mpi_hw_resource_type says
  switch (split_type) {
    case MPI_UNDEFINED: break;
    case MPI_COMM_TYPE_SHARED: color = node; break;
    case MPI_COMM_TYPE_HW_GUIDED: {
      const std::string* v = info_find(*hints, "mpi_hw_resource_type");
      if (!v) {
        CHORUS_LOG(INFO, TOPO, "{}: MPI_COMM_TYPE_HW_GUIDED without the info key mpi_hw_resource_type: "
                   "MPI_COMM_NULL", call);
      } else if (*v == "mpi_shared_memory") {
        color = node;
      } else if (topo::resource_known(*v)) {
        CHORUS_TRY_MPI(hw_color(call, c, {*v}, &color, &resource));
      } else {
        CHORUS_LOG(INFO, TOPO, "{}: mpi_hw_resource_type \"{}\" is not a resource Chorus knows (mpi_shared_memory, "
                   "or hwloc://machine, package, numanode, l1cache..l5cache, core, pu): MPI_COMM_NULL", call, *v);
      }
      break;
    }
    case MPI_COMM_TYPE_HW_UNGUIDED: {
      std::vector<std::string> levels = {"node"};
      for (const std::string& l : topo::unguided_levels()) levels.push_back(l);
      CHORUS_TRY_MPI(hw_color(call, c, levels, &color, &resource));
      break;
    }
    case MPI_COMM_TYPE_RESOURCE_GUIDED: {
      const std::string* v = info_find(*hints, "mpi_pset_name");
      std::vector<int> members;
      if (!v || !pset_members(v->c_str(), members)) {
        CHORUS_LOG(INFO, TOPO, "{}: MPI_COMM_TYPE_RESOURCE_GUIDED: {}: MPI_COMM_NULL", call,
                   v ? fmt::format("unknown process set \"{}\" (known: mpi://WORLD, mpi://SELF)", *v)
                     : std::string("no info key mpi_pset_name"));
      } else if (std::find(members.begin(), members.end(), world().rank) != members.end()) {
        // Every process is in its own mpi://SELF: one communicator each.
        color = members.size() == 1 && members[0] == world().rank && strcasecmp(v->c_str(), "mpi://WORLD") != 0
                    ? c->rank : 0;
      }
      break;
    }
    case MPIX_COMM_TYPE_NEIGHBORHOOD:
      CHORUS_TRY_MPI(neighborhood_color(call, c, *hints, &color));
      break;
    default:
      return fail(c, MPI_ERR_ARG, "{}: split_type is {}, must be MPI_COMM_TYPE_SHARED, "
                  "MPI_COMM_TYPE_HW_GUIDED, MPI_COMM_TYPE_HW_UNGUIDED, MPI_COMM_TYPE_RESOURCE_GUIDED, "
                  "MPIX_COMM_TYPE_NEIGHBORHOOD or MPI_UNDEFINED", call, split_type);
  }
  Comm* n;
  CHORUS_TRY_MPI(split(call, c, color, key, &n));
  if (n) {
    const std::string* v = info_find(*hints, "mpi_hw_resource_type");
    if (!resource.empty()) n->info.emplace_back("mpi_hw_resource_type", resource);
    else if (v) n->info.emplace_back("mpi_hw_resource_type", *v);
  }
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_split_type)

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  Group* g;
  CHORUS_TRY_MPI(check_group(call, c, group, &g));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  for (int w : g->world)
    if (std::find(c->world_of.begin(), c->world_of.end(), w) == c->world_of.end())
      return fail(c, MPI_ERR_GROUP, "{}: group holds world rank {}, which is not in {}comm", call, w,
                  c->inter ? "the local group of " : "");
  bool member = group_rank_of(*g, world().rank) != MPI_UNDEFINED;
  Comm* n;
  if (c->inter)
    CHORUS_TRY_MPI(intercomm_subset(call, c, g->world, &n));
  else
    CHORUS_TRY_MPI(comm_build(c, call, member ? g->world : std::vector<int>{}, c->errhandler, &n));
  *newcomm = n ? n->handle : MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_create)

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm* newcomm) {
  const char* call = "MPI_Comm_create_group";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (c->inter)
    return fail(c, MPI_ERR_COMM, "{}: comm 0x{:x} is an intercommunicator; this call takes an intracommunicator",
                call, static_cast<unsigned>(comm));
  Group* g;
  CHORUS_TRY_MPI(check_group(call, c, group, &g));
  if (!newcomm) return fail(c, MPI_ERR_ARG, "{}: newcomm is NULL", call);
  CHORUS_TRY_MPI(check_tag(call, c, tag, false));
  for (int w : g->world)
    if (std::find(c->world_of.begin(), c->world_of.end(), w) == c->world_of.end())
      return fail(c, MPI_ERR_GROUP, "{}: group holds world rank {}, which is not in comm", call, w);
  if (group_rank_of(*g, world().rank) == MPI_UNDEFINED) {
    *newcomm = MPI_COMM_NULL;
    return MPI_SUCCESS;
  }
  // Collective over the group only: agree on an exchange context (see the top).
  std::uint64_t key = (static_cast<std::uint64_t>(c->ctx_coll) << 32) | static_cast<std::uint32_t>(tag);
  Comm* ex = exchange_open(g->world, key, MPI_ERRORS_RETURN);
  Comm* n;
  int rc = comm_build(ex, call, g->world, c->errhandler, &n);
  exchange_close(ex);
  if (rc != MPI_SUCCESS) return raise(c, rc);
  n->session = c->session ? c->session : g->session;
  *newcomm = n->handle;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_create_group)

int PMPI_Comm_free(MPI_Comm* comm) {
  const char* call = "MPI_Comm_free";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  if (!comm) return fail(nullptr, MPI_ERR_ARG, "{}: comm is NULL", call);
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, *comm, &c));
  if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
    return fail(c, MPI_ERR_COMM, "{}: comm is {}, which cannot be freed", call,
                *comm == MPI_COMM_WORLD ? "MPI_COMM_WORLD" : "MPI_COMM_SELF");
  if (c->inter) inter_drain(c, true);  // its queued non-blocking collectives hold it
  CHORUS_TRY_MPI(comm_release(c, call));
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_free)

int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  const char* call = "MPI_Comm_compare";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm *a, *b;
  CHORUS_TRY_MPI(check_comm(call, comm1, &a));
  CHORUS_TRY_MPI(check_comm(call, comm2, &b));
  if (!result) return fail(a, MPI_ERR_ARG, "{}: result is NULL", call);
  if (a == b) {
    *result = MPI_IDENT;
  } else if (a->inter != b->inter) {
    *result = MPI_UNEQUAL;
  } else if (a->inter) {  // both groups must match
    auto same = [](std::vector<int> x, std::vector<int> y) {
      std::sort(x.begin(), x.end());
      std::sort(y.begin(), y.end());
      return x == y;
    };
    if (a->world_of == b->world_of && a->remote_of == b->remote_of)
      *result = MPI_CONGRUENT;
    else if (same(a->world_of, b->world_of) && same(a->remote_of, b->remote_of))
      *result = MPI_SIMILAR;
    else
      *result = MPI_UNEQUAL;
  } else if (a->world_of == b->world_of) {
    *result = MPI_CONGRUENT;
  } else {
    auto x = a->world_of, y = b->world_of;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_compare)

int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_test_inter"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_test_inter", comm, &c));
  if (!flag) return fail(c, MPI_ERR_ARG, "MPI_Comm_test_inter: flag is NULL");
  *flag = c->inter ? 1 : 0;
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_test_inter)

int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
  CHORUS_TRY_MPI(check_running("MPI_Comm_remote_size"));
  Comm* c;
  CHORUS_TRY_MPI(check_comm("MPI_Comm_remote_size", comm, &c));
  if (!c->inter)
    return fail(c, MPI_ERR_COMM, "MPI_Comm_remote_size: comm 0x{:x} is an intracommunicator",
                static_cast<unsigned>(comm));
  if (!size) return fail(c, MPI_ERR_ARG, "MPI_Comm_remote_size: size is NULL");
  *size = c->peers();
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_remote_size)

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info) {
  const char* call = "MPI_Comm_set_info";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  const InfoPairs* hints;
  CHORUS_TRY_MPI(check_info(call, c, info, &hints, false));
  for (const auto& [k, v] : known_hints(*hints)) {
    auto it = std::find_if(c->info.begin(), c->info.end(), [&](const auto& p) { return p.first == k; });
    if (it != c->info.end()) it->second = v;
    else c->info.emplace_back(k, v);
  }
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_set_info)

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info* info_used) {
  const char* call = "MPI_Comm_get_info";
  CHORUS_TRY_MPI(check_running(call));
  p2p::ApiLock lock;
  Comm* c;
  CHORUS_TRY_MPI(check_comm(call, comm, &c));
  if (!info_used) return fail(c, MPI_ERR_ARG, "{}: info_used is NULL", call);
  // MPI 4.1: the world model's communicators report the supported memory kinds.
  bool world_model = comm == MPI_COMM_WORLD || comm == MPI_COMM_SELF;
  *info_used = info_new(world_model ? with_memory_kinds(c->info) : c->info);
  return MPI_SUCCESS;
}
CHORUS_ALIAS(MPI_Comm_get_info)

// The entry points that only hand their parameters on (lib/mpi/gen/forward.txt).
#include "comm_forward.inc"

}  // extern "C"
