// Point-to-point: every size around the inline/announced boundary of node-local
// rings (CHORUS_P2P_SHM_EAGER), floods that fill a ring before anything is
// received, contents that look like record headers, large messages through
// wildcards, probes and synchronous sends. The jobs run with the default rings,
// with tiny rings (many wraps and queued records) and with the rings off.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;
using jobs::size;

namespace {

// Bytes of message `m` from `src`: small integers that look like ring sequence
// numbers, so a reader that took stale payload for a record header would show.
std::vector<std::uint64_t> words(int src, int m, int nwords) {
  std::vector<std::uint64_t> v(static_cast<std::size_t>(nwords));
  for (int i = 0; i < nwords; ++i) v[static_cast<std::size_t>(i)] = static_cast<std::uint64_t>(m + i + 1 + src);
  return v;
}

// Sizes in 8-byte words: 0..80, around 4 KiB, and a few large ones.
std::vector<int> word_counts() {
  std::vector<int> n;
  for (int i = 0; i <= 80; ++i) n.push_back(i);
  for (int i = 500; i <= 520; ++i) n.push_back(i);
  for (int i : {1000, 2047, 2048, 2049, 8192, 65536}) n.push_back(i);
  return n;
}

}  // namespace

TEST_CASE("Every size around the inline limit arrives intact, expected and unexpected",
          "[p2p][sizes]") {
  const std::vector<int> counts = word_counts();
  const int nmsg = static_cast<int>(counts.size());
  for (int pass = 0; pass < 2; ++pass) {
    INFO("pass " << pass << (pass == 0 ? " (receives posted first)" : " (messages first)"));
    std::vector<std::vector<std::uint64_t>> in(counts.size()), out(counts.size());
    std::vector<MPI_Request> rreqs(counts.size()), sreqs(counts.size());
    auto post_recvs = [&] {
      for (int m = 0; m < nmsg; ++m) {
        in[m].assign(static_cast<std::size_t>(counts[m]) + 1, ~0ULL);
        MPI_OK(MPI_Irecv(in[m].data(), counts[m] + 1, MPI_UINT64_T, left(), 600 + pass, MPI_COMM_WORLD,
                         &rreqs[m]));
      }
    };
    if (pass == 0) {
      post_recvs();
      jobs::sync_all();
    }
    for (int m = 0; m < nmsg; ++m) {
      out[m] = words(rank(), m, counts[m]);
      MPI_OK(MPI_Isend(out[m].data(), counts[m], MPI_UINT64_T, right(), 600 + pass, MPI_COMM_WORLD, &sreqs[m]));
    }
    if (pass == 1) {
      // Let the messages land unexpected (and fill the ring) before receiving.
      jobs::sync_all();
      post_recvs();
    }
    std::vector<MPI_Status> sts(counts.size());
    MPI_OK(MPI_Waitall(nmsg, rreqs.data(), sts.data()));
    MPI_OK(MPI_Waitall(nmsg, sreqs.data(), MPI_STATUSES_IGNORE));
    int bad = 0;
    for (int m = 0; m < nmsg; ++m) {
      int count = -1;
      MPI_Get_count(&sts[m], MPI_UINT64_T, &count);
      bool good = count == counts[m] && sts[m].MPI_SOURCE == left() && sts[m].MPI_TAG == 600 + pass;
      std::vector<std::uint64_t> want = words(left(), m, counts[m]);
      good = good && std::equal(want.begin(), want.end(), in[m].begin()) && in[m].back() == ~0ULL;
      if (!good) {
        UNSCOPED_INFO("message " << m << " of " << counts[m] << " words: count " << count);
        ++bad;
      }
    }
    CHECK(bad == 0);
  }
}

TEST_CASE("A flood of small messages before any receive, then wildcard receives", "[p2p][sizes][flood]") {
  // Far more than any ring holds: the sender queues records and keeps going.
  const int nmsg = 3000;
  std::vector<std::vector<std::uint64_t>> out(nmsg);
  std::vector<MPI_Request> sreqs(nmsg);
  for (int m = 0; m < nmsg; ++m) {
    out[m] = words(rank(), m, 1 + m % 37);
    MPI_OK(MPI_Isend(out[m].data(), 1 + m % 37, MPI_UINT64_T, right(), 610 + m % 3, MPI_COMM_WORLD, &sreqs[m]));
  }
  // Standard sends of small messages complete without a matching receive.
  MPI_OK(MPI_Waitall(nmsg, sreqs.data(), MPI_STATUSES_IGNORE));
  jobs::sync_all();
  // MPI_ANY_TAG from one source: the sender's order.
  int bad = 0;
  std::vector<std::uint64_t> in(64);
  for (int m = 0; m < nmsg; ++m) {
    MPI_Status st;
    MPI_OK(MPI_Recv(in.data(), 64, MPI_UINT64_T, left(), MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    std::vector<std::uint64_t> want = words(left(), m, 1 + m % 37);
    if (count != 1 + m % 37 || st.MPI_TAG != 610 + m % 3 || !std::equal(want.begin(), want.end(), in.begin()))
      ++bad;
  }
  CHECK(bad == 0);
}

TEST_CASE("Large messages through MPI_ANY_SOURCE, probes and truncation", "[p2p][sizes][large]") {
  jobs::ErrorsReturn errors_return(MPI_COMM_WORLD);
  // Bytes: through the ring in fragments (40000), read single-copy from the sender
  // (256 KiB-1 MiB, from 16 KiB when ranks outnumber the cores; with
  // CHORUS_P2P_SHM_CMA=off copied through the rings in fragments), and carried by UCX.
  for (int big : {40000, 300000, 2000000}) {
    INFO(big << " bytes");
    std::vector<unsigned char> out(big);
    for (int i = 0; i < big; ++i) out[i] = static_cast<unsigned char>(rank() * 13 + i * 7);
    MPI_Request sreqs[3];
    MPI_OK(MPI_Isend(out.data(), big, MPI_BYTE, right(), 620, MPI_COMM_WORLD, &sreqs[0]));
    MPI_OK(MPI_Isend(out.data(), big, MPI_BYTE, right(), 621, MPI_COMM_WORLD, &sreqs[1]));
    MPI_OK(MPI_Isend(out.data(), big, MPI_BYTE, right(), 622, MPI_COMM_WORLD, &sreqs[2]));

    // Probe reports the full length of an announced message.
    MPI_Status st;
    MPI_OK(MPI_Probe(left(), 620, MPI_COMM_WORLD, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == big);
    std::vector<unsigned char> in(big + 1, 0xee);
    MPI_OK(MPI_Recv(in.data(), big + 1, MPI_BYTE, MPI_ANY_SOURCE, 620, MPI_COMM_WORLD, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == big);
    CHECK(st.MPI_SOURCE == left());
    int bad = 0;
    for (int i = 0; i < big; ++i) bad += in[i] != static_cast<unsigned char>(left() * 13 + i * 7);
    CHECK(bad == 0);
    CHECK(in[big] == 0xee);

    // Mprobe + Mrecv of a large one.
    MPI_Message msg;
    MPI_OK(MPI_Mprobe(MPI_ANY_SOURCE, 621, MPI_COMM_WORLD, &msg, &st));
    MPI_Get_count(&st, MPI_BYTE, &count);
    CHECK(count == big);
    std::fill(in.begin(), in.end(), 0);
    MPI_OK(MPI_Mrecv(in.data(), big, MPI_BYTE, &msg, &st));
    bad = 0;
    for (int i = 0; i < big; ++i) bad += in[i] != static_cast<unsigned char>(left() * 13 + i * 7);
    CHECK(bad == 0);

    // Truncated: MPI_ERR_TRUNCATE, nothing written past the buffer.
    std::fill(in.begin(), in.end(), 0xee);
    int rc = MPI_Recv(in.data(), big / 2, MPI_BYTE, left(), 622, MPI_COMM_WORLD, &st);
    CHECK(jobs::error_class(rc) == MPI_ERR_TRUNCATE);
    CHECK(in[big / 2] == 0xee);
    MPI_OK(MPI_Waitall(3, sreqs, MPI_STATUSES_IGNORE));
    jobs::sync_all();
  }
}

TEST_CASE("Ssend of every size completes only once matched", "[p2p][sizes][ssend]") {
  if (size() < 2) return;
  for (int words_n : {0, 1, 100, 600, 5000, 40000}) {
    INFO(words_n << " words");
    std::vector<std::uint64_t> out = words(rank(), 7, words_n), in(static_cast<std::size_t>(words_n) + 1);
    MPI_Request s, r;
    MPI_OK(MPI_Issend(out.data(), words_n, MPI_UINT64_T, right(), 630, MPI_COMM_WORLD, &s));
    // The receive is not posted until the peer has tested its Issend a while.
    int done = 0;
    for (int i = 0; i < 200 && !done; ++i) MPI_OK(MPI_Test(&s, &done, MPI_STATUS_IGNORE));
    CHECK(done == 0);
    jobs::sync_all();
    MPI_OK(MPI_Irecv(in.data(), words_n + 1, MPI_UINT64_T, left(), 630, MPI_COMM_WORLD, &r));
    MPI_OK(MPI_Wait(&s, MPI_STATUS_IGNORE));
    MPI_Status st;
    MPI_OK(MPI_Wait(&r, &st));
    int count = -1;
    MPI_Get_count(&st, MPI_UINT64_T, &count);
    CHECK(count == words_n);
    std::vector<std::uint64_t> want = words(left(), 7, words_n);
    CHECK(std::equal(want.begin(), want.end(), in.begin()));
    jobs::sync_all();
  }
}

TEST_CASE("Messages on a duplicated and a split communicator stay apart", "[p2p][sizes][comm]") {
  MPI_Comm dup, half;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  MPI_OK(MPI_Comm_split(MPI_COMM_WORLD, rank() % 2, rank(), &half));
  int hrank, hsize;
  MPI_Comm_rank(half, &hrank);
  MPI_Comm_size(half, &hsize);
  // Same tag on three communicators; each receive must get its own.
  int a = rank(), b = rank() + 1000, c = rank() + 2000;
  MPI_Request s[3];
  MPI_OK(MPI_Isend(&a, 1, MPI_INT, right(), 640, MPI_COMM_WORLD, &s[0]));
  MPI_OK(MPI_Isend(&b, 1, MPI_INT, right(), 640, dup, &s[1]));
  MPI_OK(MPI_Isend(&c, 1, MPI_INT, (hrank + 1) % hsize, 640, half, &s[2]));
  int x = -1, y = -1, z = -1;
  MPI_Status st;
  MPI_OK(MPI_Recv(&z, 1, MPI_INT, MPI_ANY_SOURCE, 640, half, &st));
  MPI_OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, 640, dup, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Recv(&x, 1, MPI_INT, left(), 640, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Waitall(3, s, MPI_STATUSES_IGNORE));
  CHECK(x == left());
  CHECK(y == left() + 1000);
  int hleft = (hrank - 1 + hsize) % hsize;
  CHECK(st.MPI_SOURCE == hleft);
  int world_of_hleft = -1;
  MPI_Group g, wg;
  MPI_Comm_group(half, &g);
  MPI_Comm_group(MPI_COMM_WORLD, &wg);
  MPI_Group_translate_ranks(g, 1, &hleft, wg, &world_of_hleft);
  CHECK(z == world_of_hleft + 2000);
  MPI_Group_free(&g);
  MPI_Group_free(&wg);
  MPI_Comm_free(&half);
  MPI_Comm_free(&dup);
}

// Where single copy starts between ranks of one node (CHORUS_P2P_SHM_CMA_MIN not
// set): at 16 KiB when every rank found reading a peer's memory cheap at MPI_Init
// (CHORUS_P2P_SHM_CMA_CHEAP_US: the suite runs this case with it at 1e9, always
// cheap, and at 0, never), else at 16 KiB too when ranks outnumber the node's CPUs
// and at 128 KiB otherwise. Until 2026-12-07 the cheap start was 8 KiB, where a
// stream of messages moved 1.6-1.8x faster through the ring. Messages below, at
// and above the start arrive intact either way; without the variable the start is
// the machine's and only the data is checked.
TEST_CASE("Messages from 16 KiB are read single-copy where reading a peer is cheap", "[p2p][sizes][cma]") {
  if (size() < 2 || jobs::quirk_mpich() || jobs::quirk_openmpi()) return;
  MPI_Comm node;
  int node_size = 0;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_size(node, &node_size));
  MPI_OK(MPI_Comm_free(&node));
  int all_here = 0;
  MPI_OK(MPI_Allreduce(&node_size, &all_here, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  jobs::PvarCount single("p2p_ring_single_copy_messages");
  auto exchange = [&](int bytes, unsigned char seed) {
    std::vector<unsigned char> out(static_cast<std::size_t>(bytes)), in(static_cast<std::size_t>(bytes), 0);
    for (int i = 0; i < bytes; ++i) out[static_cast<std::size_t>(i)] = static_cast<unsigned char>(seed + rank() * 7 + i);
    const unsigned long long before = single.grew();
    MPI_OK(MPI_Sendrecv(out.data(), bytes, MPI_BYTE, right(), 660, in.data(), bytes, MPI_BYTE, left(), 660,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    int bad = -1;
    for (int i = 0; i < bytes && bad < 0; ++i)
      if (in[static_cast<std::size_t>(i)] != static_cast<unsigned char>(seed + left() * 7 + i)) bad = i;
    INFO(bytes << " B from rank " << left() << ": first wrong byte at " << bad);
    CHECK(bad == -1);
    return single.grew() - before;
  };
  // Does this node read messages single-copy at all (a 1 MiB message is, whenever
  // it can be: not with CHORUS_P2P_SHM_CMA=off or where ptrace rules forbid it)?
  int reads = exchange(1 << 20, 1) > 0, all_read = 0;
  MPI_OK(MPI_Allreduce(&reads, &all_read, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  const char* env = std::getenv("CHORUS_P2P_SHM_CMA_CHEAP_US");
  const bool known = env && all_here == size() && all_read;
  const bool cheap = known && std::strtod(env, nullptr) >= 1e6;
  // Every rank of this job runs on one node here (known): more ranks than CPUs?
  const bool crowded = size() > static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  if (env && !known && rank() == 0) WARN("SKIP: single copy is not read on this node; only the data is checked");
  for (int bytes : {8192, 16383, 16384, 16385, 24576}) {
    const unsigned long long n = exchange(bytes, static_cast<unsigned char>(bytes));
    if (!known) continue;
    INFO(bytes << " B with CHORUS_P2P_SHM_CMA_CHEAP_US=" << env << ", more ranks than CPUs " << crowded);
    CHECK(n == ((cheap || crowded) && bytes >= 16384 ? 1u : 0u));
  }
  // A collective's messages start higher (64 KiB where reading is cheap, 16 KiB
  // where ranks outnumber the cores): its rounds would wait for the read. Not the
  // sends from a user buffer that nothing overwrites before the call ends
  // (coll::Schedule::mark_settled): those start where point-to-point does. The suite
  // runs this case with CHORUS_ALLTOALL_ALGO=pairwise (a message per peer, from
  // the send buffer; in place from a temporary, which does not count). 8 KiB
  // blocks are below every start; with more ranks than CPUs a collective's
  // messages start at 16 KiB too.
  const char* algo = std::getenv("CHORUS_ALLTOALL_ALGO");
  const bool pairwise = known && algo && std::strcmp(algo, "pairwise") == 0;
  for (int block : {8192, 16384, 65536})
    for (bool in_place : {false, true}) {
      std::vector<unsigned char> out(static_cast<std::size_t>(block) * static_cast<std::size_t>(size())),
          in(out.size(), 0);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<unsigned char>(rank() * 13 + i / block + i);
      if (in_place) in = out;
      const unsigned long long before = single.grew();
      if (in_place)
        MPI_OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_BYTE, in.data(), block, MPI_BYTE, MPI_COMM_WORLD));
      else
        MPI_OK(MPI_Alltoall(out.data(), block, MPI_BYTE, in.data(), block, MPI_BYTE, MPI_COMM_WORLD));
      const unsigned long long n = single.grew() - before;
      std::size_t bad = in.size();
      for (std::size_t i = 0; i < in.size() && bad == in.size(); ++i) {
        const int from = static_cast<int>(i / block);
        const std::size_t j = static_cast<std::size_t>(rank()) * block + i % block;  // where it was in `from`'s
        if (in[i] != static_cast<unsigned char>(from * 13 + j / block + j)) bad = i;
      }
      INFO("alltoall of " << block << " B blocks, in place " << in_place << ": first wrong byte at " << bad
                          << " of " << in.size());
      CHECK(bad == in.size());
      if (!pairwise) continue;
      INFO("with CHORUS_P2P_SHM_CMA_CHEAP_US=" << env);
      const auto peers = static_cast<unsigned long long>(size() - 1);
      if (block == 8192) CHECK(n == 0u);
      else if (cheap) CHECK(n == (!in_place || block >= (crowded ? 16384 : 65536) ? peers : 0u));
    }
}

// Above CHORUS_P2P_SHM_CMA_MAX (1 MiB) a node-local message goes through UCX's
// pipelined copy, which takes both ranks' CPUs, unless the node is busy or the
// sender itself has a receive of that size posted (an exchange: each rank's CPU
// then copies what it receives, and a single copy halves the work). Here every
// rank posts such a receive before it sends: each send is read single-copy.
TEST_CASE("A large send from a rank that waits for a large message is read single-copy", "[p2p][sizes][cma]") {
  if (size() < 2 || jobs::quirk_mpich() || jobs::quirk_openmpi()) return;
  const char* large = std::getenv("CHORUS_P2P_SHM_CMA_LARGE");
  if (large && std::strcmp(large, "never") == 0) return;
  MPI_Comm node;
  int node_size = 0;
  MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_OK(MPI_Comm_size(node, &node_size));
  MPI_OK(MPI_Comm_free(&node));
  constexpr int kBytes = 2 << 20;
  std::vector<unsigned char> out(kBytes), in(kBytes, 0);
  for (int i = 0; i < kBytes; ++i) out[static_cast<std::size_t>(i)] = static_cast<unsigned char>(rank() * 31 + i / 4096 + i);
  jobs::PvarCount single("p2p_ring_single_copy_messages");
  // Does this node read 1 MiB messages single-copy at all?
  {
    MPI_OK(MPI_Sendrecv(out.data(), 1 << 20, MPI_BYTE, right(), 670, in.data(), 1 << 20, MPI_BYTE, left(), 670,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  int reads = single.grew() > 0, all_read = 0, all_here = 0;
  MPI_OK(MPI_Allreduce(&reads, &all_read, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  MPI_OK(MPI_Allreduce(&node_size, &all_here, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
  MPI_Request rq;
  MPI_OK(MPI_Irecv(in.data(), kBytes, MPI_BYTE, left(), 671, MPI_COMM_WORLD, &rq));
  MPI_OK(MPI_Barrier(MPI_COMM_WORLD));  // every rank's receive is posted
  const unsigned long long before = single.grew();
  MPI_OK(MPI_Send(out.data(), kBytes, MPI_BYTE, right(), 671, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  const unsigned long long n = single.grew() - before;
  int bad = -1;
  for (int i = 0; i < kBytes && bad < 0; ++i)
    if (in[static_cast<std::size_t>(i)] != static_cast<unsigned char>(left() * 31 + i / 4096 + i)) bad = i;
  INFO("2 MiB from rank " << left() << ": first wrong byte at " << bad);
  CHECK(bad == -1);
  if (all_here == size() && all_read) CHECK(n == 1u);
  else if (rank() == 0) WARN("SKIP: single copy is not read on this node; only the data is checked");
}
