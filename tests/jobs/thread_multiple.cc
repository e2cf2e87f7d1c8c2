// MPI_THREAD_MULTIPLE: 4 threads per rank exchange messages concurrently around a
// ring, each on its own tags. Built with mpi_main.cc and
// -DJOBS_THREAD_LEVEL=MPI_THREAD_MULTIPLE. Catch2 assertions are made on the main
// thread only (they are not thread-safe); worker threads count their errors.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;

TEST_CASE("Concurrent Isend/Irecv/Wait from 4 threads per rank", "[thread]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) {
    WARN("MPI_THREAD_MULTIPLE not granted; provided = " << provided << ": nothing to test");
    return;
  }
  int is_main = 0;
  MPI_OK(MPI_Is_thread_main(&is_main));
  CHECK(is_main);

  constexpr int kThreads = 4, kIters = 100, kCount = 256;
  std::atomic<int> errors{0}, mpi_errors{0}, not_main{0};
  auto worker = [&](int t) {
    int main_flag = 1;
    MPI_Is_thread_main(&main_flag);
    if (main_flag) ++not_main;
    std::vector<int> out(kCount), in(kCount);
    for (int it = 0; it < kIters; ++it) {
      const int tag = 900 + t;  // distinct per thread; order per tag is kept
      for (int i = 0; i < kCount; ++i) out[i] = (rank() * kThreads + t) * 1000000 + it * 1000 + i;
      std::fill(in.begin(), in.end(), -1);
      MPI_Request reqs[2];
      int rc = MPI_Irecv(in.data(), kCount, MPI_INT, left(), tag, MPI_COMM_WORLD, &reqs[0]);
      rc |= MPI_Isend(out.data(), kCount, MPI_INT, right(), tag, MPI_COMM_WORLD, &reqs[1]);
      if (it % 2 == 0) {
        rc |= MPI_Wait(&reqs[0], MPI_STATUS_IGNORE);
        rc |= MPI_Wait(&reqs[1], MPI_STATUS_IGNORE);
      } else {
        rc |= MPI_Waitall(2, reqs, MPI_STATUSES_IGNORE);
      }
      if (rc != MPI_SUCCESS) ++mpi_errors;
      for (int i = 0; i < kCount; ++i) {
        if (in[i] != (left() * kThreads + t) * 1000000 + it * 1000 + i) {
          ++errors;
          break;
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) threads.emplace_back(worker, t);
  for (auto& th : threads) th.join();
  CHECK(mpi_errors == 0);
  CHECK(errors == 0);
  CHECK(not_main == 0);
}

// A thread waiting inside MPI_Comm_split holds the API lock twice (the split and
// the collective inside it); its wait must still let the process's other threads
// in. Rank 0's second thread sends what rank 1 needs before it joins the split:
// with the lock held across the wait, the send never happened and the job hung.
TEST_CASE("A thread waiting inside MPI_Comm_split lets other threads in", "[thread]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE || jobs::size() < 2) return;
  MPI_Comm sub = MPI_COMM_NULL;
  int split_rc = MPI_SUCCESS, send_rc = MPI_SUCCESS;
  if (rank() == 0) {
    std::atomic<bool> in_split{false};
    std::thread sender([&] {
      while (!in_split.load()) std::this_thread::yield();
      // Give the main thread time to reach the split's wait (it cannot finish
      // without rank 1, which waits for this message first).
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      int v = 31337;
      send_rc = MPI_Send(&v, 1, MPI_INT, 1, 77, MPI_COMM_WORLD);
    });
    in_split = true;
    split_rc = MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &sub);
    sender.join();
  } else {
    if (rank() == 1) {
      int v = 0;
      MPI_OK(MPI_Recv(&v, 1, MPI_INT, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
      CHECK(v == 31337);
    }
    split_rc = MPI_Comm_split(MPI_COMM_WORLD, 0, 0, &sub);
  }
  CHECK(split_rc == MPI_SUCCESS);
  CHECK(send_rc == MPI_SUCCESS);
  int n = 0;
  MPI_OK(MPI_Comm_size(sub, &n));
  CHECK(n == jobs::size());
  MPI_OK(MPI_Comm_free(&sub));
}

// One thread creates and frees communicators (the table grows and shrinks) while
// another runs small allreduces on a communicator of that table, whose repeat path
// looks it up: that lookup must happen under the API lock. A plain build seldom
// shows the race; `scripts/test --tsan` reports it without the lock.
TEST_CASE("Communicators come and go in one thread while another allreduces", "[thread]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) return;
  constexpr int kIters = 300;
  std::atomic<int> errors{0};
  MPI_Comm work;
  MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &work));
  std::thread churn([&] {
    for (int i = 0; i < kIters; ++i) {
      MPI_Comm c[3];
      for (auto& x : c)
        if (MPI_Comm_dup(MPI_COMM_SELF, &x) != MPI_SUCCESS) ++errors;
      for (auto& x : c)
        if (MPI_Comm_free(&x) != MPI_SUCCESS) ++errors;
    }
  });
  int bad = 0;
  for (int i = 0; i < kIters; ++i) {
    int v = rank() + i, s = 0;
    if (MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, work) != MPI_SUCCESS) ++errors;
    const int p = jobs::size();
    if (s != p * (p - 1) / 2 + p * i) ++bad;
  }
  churn.join();
  MPI_OK(MPI_Comm_free(&work));
  CHECK(errors == 0);
  CHECK(bad == 0);
}

// MPICH's threads/comm/idup_deadlock. Each of 4 threads idups a communicator of
// its own. On odd ranks thread 0's idup comes first, then the others'; on even
// ranks threads 0 and 2 call theirs only after threads 1 and 3 got theirs. The
// idups of threads 1 and 3 are then called everywhere and must finish, though
// thread 0's, which odd ranks already run, cannot yet. Before, an idup offered no
// context while another of a lower parent context waited on the same process:
// odd ranks held thread 1's back behind thread 0's, and the job hung.
TEST_CASE("An idup every rank called finishes while one that some ranks did not call waits", "[thread][idup]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) return;
  constexpr int kThreads = 4;
  MPI_Comm base[kThreads];
  for (auto& c : base) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
  std::atomic<int> done{0}, errors{0};
  std::atomic<bool> first_called{false};
  auto worker = [&](int t) {
    if (rank() % 2 == 1 && t != 0) {
      while (!first_called.load()) std::this_thread::yield();
    }
    if (rank() % 2 == 0 && t % 2 == 0) {
      while (done.load() < kThreads / 2) std::this_thread::yield();
    }
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Request r = MPI_REQUEST_NULL;
    if (MPI_Comm_idup(base[t], &c, &r) != MPI_SUCCESS) ++errors;
    if (t == 0) first_called = true;
    if (MPI_Wait(&r, MPI_STATUS_IGNORE) != MPI_SUCCESS) ++errors;
    ++done;
    int n = 0;
    if (MPI_Allreduce(&t, &n, 1, MPI_INT, MPI_SUM, c) != MPI_SUCCESS || n != t * jobs::size()) ++errors;
    if (MPI_Comm_free(&c) != MPI_SUCCESS) ++errors;
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back(worker, t);
  for (auto& t : ts) t.join();
  for (auto& c : base) MPI_OK(MPI_Comm_free(&c));
  CHECK(errors == 0);
  CHECK(done == kThreads);
}

// MPICH's threads/comm/idup_comm_gen. Threads create intercommunicators at the
// same time over the same processes with the same tag, each from a local_comm and
// a peer_comm of its own. Before, the new intercommunicators' agreement ran on an
// exchange context chosen from the tag and the members alone, so the threads'
// agreements shared one and took each other's messages (MPI_ERR_TRUNCATE, or a
// hang). Two threads, ten times.
// With merges ("[merge]": four threads, creation and merge, 600 rounds at up to 4
// ranks): the context pair agreed for an intercommunicator was marked used only
// after the local group's agreement, which waits, so another thread's agreement
// (a merge's) could take the same pair meanwhile; the two communicators then took
// each other's messages and the job hung (2 of 3 runs at 4 ranks).
static void create_intercomms(bool merge, int threads, int iters) {
  constexpr int kMaxThreads = 4;
  const int kThreads = threads;
  const int p = jobs::size(), half = p / 2;
  const bool low = rank() < half;
  MPI_Comm peer[kMaxThreads], local[kMaxThreads];
  for (int t = 0; t < kThreads; ++t) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &peer[t]));
  // The local communicators are made here, one after the other: what runs at once
  // below is the creation of the intercommunicators (and, with `merge`, merges).
  for (int t = 0; t < kThreads; ++t) MPI_OK(MPI_Comm_split(peer[t], low ? 0 : 1, rank(), &local[t]));
  std::atomic<int> errors{0}, wrong{0}, arrived{0};
  auto worker = [&](int t) {
    for (int it = 0; it < iters; ++it) {
      // Line the threads up, so their creations overlap.
      ++arrived;
      while (arrived.load() < kThreads * (it + 1)) std::this_thread::yield();
      MPI_Comm inter = MPI_COMM_NULL, merged = MPI_COMM_NULL;
      const int rleader = rank() == 0 ? half : rank() == half ? 0 : MPI_PROC_NULL;
      if (MPI_Intercomm_create(local[t], 0, peer[t], rleader == MPI_PROC_NULL ? 0 : rleader, 99, &inter) !=
          MPI_SUCCESS) {
        ++errors;
      } else {
        int rsize = 0;
        MPI_Comm_remote_size(inter, &rsize);
        if (rsize != (low ? p - half : half)) ++wrong;
        // The two leaders swap their thread's number over the new intercommunicator.
        if (rank() == 0 || rank() == half) {
          int got = -1;
          if (MPI_Sendrecv(&t, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE) != MPI_SUCCESS)
            ++errors;
          if (got != t) ++wrong;
        }
        if (merge) {
          if (MPI_Intercomm_merge(inter, low ? 0 : 1, &merged) != MPI_SUCCESS) {
            ++errors;
          } else {
            int v = rank() * kThreads + t, s = 0;
            if (MPI_Allreduce(&v, &s, 1, MPI_INT, MPI_SUM, merged) != MPI_SUCCESS) ++errors;
            if (s != kThreads * p * (p - 1) / 2 + t * p) ++wrong;
            MPI_Comm_free(&merged);
          }
        }
        MPI_Comm_free(&inter);
      }
    }
  };
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back(worker, t);
  for (auto& t : ts) t.join();
  for (int t = 0; t < kThreads; ++t) {
    MPI_OK(MPI_Comm_free(&local[t]));
    MPI_OK(MPI_Comm_free(&peer[t]));
  }
  CHECK(errors == 0);
  CHECK(wrong == 0);
}

TEST_CASE("Threads create intercommunicators at once with one tag", "[thread][intercomm]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE || jobs::size() < 2) return;
  create_intercomms(false, 2, 10);
}

TEST_CASE("Threads create and merge intercommunicators at once", "[thread][intercomm][merge]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE || jobs::size() < 2) return;
  // Fewer rounds where a round is slow: 8 ranks on 2 cores, and 2 ranks spinning
  // with 4 threads each (whose local groups of one never wait: no bug to find).
  create_intercomms(true, 4, jobs::size() == 2 ? 100 : jobs::size() <= 4 ? 600 : 60);
}


// Four threads split communicators of their own at once, 300 times. The
// blocking context agreement offered every free pair, the first agreement to
// offer on a process took them all, and where the threads' order differed
// between ranks each held the others back, round after round.
// Four threads per rank, each with a dup of MPI_COMM_WORLD of its own, run
// body(t, base, errors, wrong) at once; the counts are checked on the main thread.
template <typename Body>
static void on_own_dups(Body body) {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) return;
  constexpr int kThreads = 4;
  MPI_Comm base[kThreads];
  for (auto& b : base) MPI_OK(MPI_Comm_dup(MPI_COMM_WORLD, &b));
  std::atomic<int> errors{0}, wrong{0};
  std::vector<std::thread> ts;
  for (int t = 0; t < kThreads; ++t) ts.emplace_back([&, t] { body(t, base[t], errors, wrong); });
  for (auto& t : ts) t.join();
  for (auto& b : base) MPI_OK(MPI_Comm_free(&b));
  CHECK(errors == 0);
  CHECK(wrong == 0);
}

TEST_CASE("Threads split communicators of their own at once", "[thread][split]") {
  const int iters = jobs::size() <= 4 ? 300 : 60;
  on_own_dups([&](int t, MPI_Comm base, std::atomic<int>& errors, std::atomic<int>& wrong) {
    for (int it = 0; it < iters; ++it) {
      MPI_Comm part;
      if (MPI_Comm_split(base, (rank() + it) % 2, rank(), &part) != MPI_SUCCESS) {
        ++errors;
        return;
      }
      int size = 0, mine = t, sum = -1;
      MPI_Comm_size(part, &size);
      if (MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, part) != MPI_SUCCESS) ++errors;
      if (sum != t * size) ++wrong;
      MPI_Comm_free(&part);
    }
  });
}

// Shared windows kept for reuse (lib/mpi/comm.cc, keep_window): four threads
// each make communicators of the same ranks in the same order (dups of their own
// base), run enough collectives on each that it sets its window up
// (CHORUS_COLL_SHM_CALLS, 5 unless set), and free it, all at once: a kept window
// must go to one communicator only (two that took the same one would mix their
// calls' data and counts: wrong sums, or a hang).
TEST_CASE("Threads reuse freed communicators' shared windows at once", "[thread][shm]") {
  constexpr int kCalls = 12;
  const int iters = jobs::size() <= 4 ? 40 : 10;
  on_own_dups([&](int t, MPI_Comm base, std::atomic<int>& errors, std::atomic<int>& wrong) {
    std::vector<int> buf(4096), out(4096);
    for (int it = 0; it < iters; ++it) {
      MPI_Comm c;
      if (MPI_Comm_dup(base, &c) != MPI_SUCCESS) {
        ++errors;
        return;
      }
      const int p = jobs::size();
      for (int k = 0; k < kCalls; ++k) {
        const int n = k % 2 ? 4096 : 1, root = k % p, v = (t * 1000 + it) * 100 + k;
        for (int i = 0; i < n; ++i) buf[i] = rank() == root ? v + i : -1;
        if (MPI_Bcast(buf.data(), n, MPI_INT, root, c) != MPI_SUCCESS) ++errors;
        if (buf[0] != v || buf[n - 1] != v + n - 1) ++wrong;
        for (int i = 0; i < n; ++i) buf[i] = v + rank();
        if (MPI_Allreduce(buf.data(), out.data(), n, MPI_INT, MPI_SUM, c) != MPI_SUCCESS) ++errors;
        if (out[0] != p * v + p * (p - 1) / 2 || out[n - 1] != out[0]) ++wrong;
      }
      MPI_Comm_free(&c);
    }
  });
}

// Known and open (tests/jobs/meson.build, thread_merge_rounds_np4): while four
// threads per rank create and merge intercommunicators at once, their context
// agreements now and then fail round after round for a long time (the job takes
// 10-40 s instead of under one). Hidden: run by that expected failure only. The
// count is of rounds past the first of every agreement on this rank; the bound
// allows 8 such rounds per thread and iteration.
TEST_CASE("Threads creating and merging intercommunicators agree in few rounds", "[.][merge-rounds]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE || jobs::size() < 2) return;
  constexpr int kThreads = 4;
  const int iters = jobs::size() <= 4 ? 600 : 60;
  jobs::PvarCount rounds("coll_context_rounds");
  create_intercomms(true, kThreads, iters);
  const unsigned long long n = rounds.grew();
  std::fprintf(stderr, "rank %d: %llu agreement rounds past the first\n", rank(), n);
  CHECK(n <= 8ULL * kThreads * static_cast<unsigned long long>(iters));
}

namespace {
std::atomic<int> g_handled{0};
void count_comm_error(MPI_Comm*, int*, ...) { ++g_handled; }
void count_file_error(MPI_File*, int*, ...) { ++g_handled; }
void count_win_error(MPI_Win*, int*, ...) { ++g_handled; }
}  // namespace

// Regression: MPI_Comm_call_errhandler, MPI_File_call_errhandler and
// MPI_Win_call_errhandler read the handler table (and the object's handler)
// without the lock, while
// another thread's MPI_Comm_create_errhandler could grow (move) that table: a
// read of freed memory, and a data race ThreadSanitizer names every run
// (scripts/test --tsan).
TEST_CASE("Threads call error handlers while others are created and replaced", "[thread][errhandler]") {
  int provided = -1;
  MPI_OK(MPI_Query_thread(&provided));
  if (provided < MPI_THREAD_MULTIPLE) return;
  constexpr int kIters = 20000, kMany = 40;
  MPI_Comm c;
  MPI_OK(MPI_Comm_dup(MPI_COMM_SELF, &c));
  MPI_Errhandler mine, file;
  MPI_OK(MPI_Comm_create_errhandler(count_comm_error, &mine));
  MPI_OK(MPI_File_create_errhandler(count_file_error, &file));
  MPI_OK(MPI_Comm_set_errhandler(c, mine));
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, file));
  MPI_Win win;
  int* base;
  MPI_OK(MPI_Win_allocate(sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &base, &win));
  std::vector<MPI_Errhandler> wins(2);
  for (auto& h : wins) MPI_OK(MPI_Win_create_errhandler(count_win_error, &h));
  MPI_OK(MPI_Win_set_errhandler(win, wins[0]));
  std::atomic<int> errors{0};
  std::atomic<bool> done{false};
  std::thread churn([&] {
    std::vector<MPI_Errhandler> hs(kMany);
    for (int i = 0; !done; ++i) {
      for (auto& h : hs)
        if (MPI_Comm_create_errhandler(count_comm_error, &h) != MPI_SUCCESS) ++errors;
      if (MPI_Comm_set_errhandler(c, hs[static_cast<std::size_t>(i) % hs.size()]) != MPI_SUCCESS) ++errors;
      if (MPI_Win_set_errhandler(win, wins[static_cast<std::size_t>(i) % 2]) != MPI_SUCCESS) ++errors;
      for (auto& h : hs)
        if (MPI_Errhandler_free(&h) != MPI_SUCCESS) ++errors;
    }
  });
  g_handled = 0;
  for (int i = 0; i < kIters; ++i) {
    if (MPI_Comm_call_errhandler(c, MPI_ERR_OTHER) != MPI_SUCCESS) ++errors;
    if (MPI_File_call_errhandler(MPI_FILE_NULL, MPI_ERR_OTHER) != MPI_SUCCESS) ++errors;
    if (MPI_Win_call_errhandler(win, MPI_ERR_OTHER) != MPI_SUCCESS) ++errors;
  }
  done = true;
  churn.join();
  CHECK(errors == 0);
  CHECK(g_handled == 3 * kIters);  // every call ran a user handler
  MPI_OK(MPI_Win_free(&win));
  for (auto& h : wins) MPI_OK(MPI_Errhandler_free(&h));
  MPI_OK(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
  MPI_OK(MPI_Errhandler_free(&mine));
  MPI_OK(MPI_Errhandler_free(&file));
  MPI_OK(MPI_Comm_free(&c));
}
