// Reductions (allreduce, reduce, reduce_scatter_block, reduce_scatter, scan, exscan),
// blocking: every reduction kind x counts {0, 1, p-1, p+1} x {out of place, in place}
// (x roots {0, p-1} for reduce), checked against a local fold in rank order.
#include <cstring>

#include "coll_common.h"

namespace {

using coll::CasePtr;
using coll::RedKind;

template <class Make>
void for_all_kinds(Make make) {
  const int p = jobs::size();
  int seed = 1;
  for (const RedKind& k : coll::red_kinds()) {
    for (long n : coll::small_counts(p)) {
      for (bool ip : {false, true}) {
        std::vector<CasePtr> cases;
        make(cases, k, n, ip);
        coll::run_blocking(cases, seed++);
      }
    }
  }
}

}  // namespace

TEST_CASE("Allreduce, every kind, count and in-place", "[coll][reduction][allreduce]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reduce to the first and the last rank", "[coll][reduction][reduce]") {
  const int p = jobs::size();
  for_all_kinds([p](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, 0));
    if (p > 1) cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p - 1));
    if (p > 2) cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p / 2));
  });
}

TEST_CASE("Reduce_scatter_block", "[coll][reduction][reduce_scatter_block]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reduce_scatter with uneven recvcounts", "[coll][reduction][reduce_scatter]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::reduce_scatter_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Scan", "[coll][reduction][scan]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::scan_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Exscan", "[coll][reduction][exscan]") {
  for_all_kinds([](std::vector<CasePtr>& cs, const RedKind& k, long n, bool ip) {
    cs.push_back(coll::exscan_case(MPI_COMM_WORLD, k, n, ip));
  });
}

TEST_CASE("Reductions with a medium count, every kind", "[coll][reduction][medium]") {
  // 1001 elements: past the small-message paths, and with 24- or 1000-byte chunks
  // (variants) many pipeline chunks that do not divide the message.
  const int p = jobs::size();
  const long n = 1001;
  int seed = 500;
  for (const RedKind& k : coll::red_kinds()) {
    for (bool ip : {false, true}) {
      std::vector<CasePtr> cs;
      cs.push_back(coll::allreduce_case(MPI_COMM_WORLD, k, n, ip));
      cs.push_back(coll::reduce_case(MPI_COMM_WORLD, k, n, ip, p - 1));
      cs.push_back(coll::reduce_scatter_block_case(MPI_COMM_WORLD, k, n / p + 1, ip));
      cs.push_back(coll::reduce_scatter_case(MPI_COMM_WORLD, k, n / p + 2, ip));
      cs.push_back(coll::scan_case(MPI_COMM_WORLD, k, n, ip));
      cs.push_back(coll::exscan_case(MPI_COMM_WORLD, k, n, ip));
      coll::run_blocking(cs, seed++);
    }
  }
}

// MPI defines no reduction on MPI_CHAR, but MPICH accepts it with every op a C
// integer takes (MPICH's test suite uses them); MPI_SIGNED_CHAR and
// MPI_UNSIGNED_CHAR are C integers.
TEST_CASE("Logical and bitwise ops on the char types", "[coll][reduction][char]") {
  const int p = jobs::size(), me = jobs::rank();
  const MPI_Datatype types[] = {MPI_CHAR, MPI_SIGNED_CHAR, MPI_UNSIGNED_CHAR};
  const MPI_Op ops[] = {MPI_LAND, MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
  auto value = [](int rank, int i) { return static_cast<unsigned char>((rank * 37 + i * 11) % 5 == 0 ? 0 : (rank * 29 + i * 7) % 251 + 1); };
  auto fold = [](MPI_Op op, unsigned char a, unsigned char b) -> unsigned char {
    if (op == MPI_LAND) return (a && b) ? 1 : 0;
    if (op == MPI_LOR) return (a || b) ? 1 : 0;
    if (op == MPI_LXOR) return (!a != !b) ? 1 : 0;
    if (op == MPI_BAND) return a & b;
    if (op == MPI_BOR) return a | b;
    return a ^ b;
  };
  constexpr int n = 5;
  for (MPI_Datatype t : types)
    for (MPI_Op op : ops) {
      unsigned char in[n], out[n], want[n];
      for (int i = 0; i < n; ++i) in[i] = value(me, i);
      for (int i = 0; i < n; ++i) {
        want[i] = value(0, i);
        if (op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR) want[i] = want[i] ? 1 : 0;
        for (int r = 1; r < p; ++r) want[i] = fold(op, want[i], value(r, i));
      }
      MPI_OK(MPI_Allreduce(in, out, n, t, op, MPI_COMM_WORLD));
      for (int i = 0; i < n; ++i) {
        // Logical results are 0 or 1 (any non-zero as true on the way in).
        const bool logical = op == MPI_LAND || op == MPI_LOR || op == MPI_LXOR;
        CHECK((logical ? (out[i] != 0) : out[i]) == (logical ? (want[i] != 0) : want[i]));
      }
      MPI_OK(MPI_Reduce(in, out, n, t, op, p - 1, MPI_COMM_WORLD));
      if (me == p - 1)
        for (int i = 0; i < n; ++i) CHECK((out[i] != 0) == (want[i] != 0));
    }
  // Arithmetic on MPI_CHAR too, as MPICH accepts it (its suite's opsum, opprod,
  // opmax, opmin use it); a byte stays outside arithmetic.
  signed char a[2] = {1, -2}, b[2] = {0, 0};
  MPI_OK(MPI_Allreduce(a, b, 2, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK(b[0] == p);
  CHECK(b[1] == -2 * p);
  MPI_OK(MPI_Allreduce(a, b, 2, MPI_CHAR, MPI_MIN, MPI_COMM_WORLD));
  CHECK(b[0] == 1);
  CHECK(b[1] == -2);
  jobs::ErrorsReturn guard(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Allreduce(a, b, 2, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD)) == MPI_ERR_OP);
}

// A type of no bytes (MPI_Type_contiguous(0, MPI_INT)) has nothing to reduce:
// every reduction succeeds and leaves the buffers alone. MPI_Allreduce divided by
// the element size (SIGFPE on every rank); the others failed with "could not
// build its schedule: invalid datatype".
TEST_CASE("Reductions of a type of no bytes", "[coll][reduction][empty_type]") {
  const int p = jobs::size();
  MPI_Datatype empty;
  MPI_OK(MPI_Type_contiguous(0, MPI_INT, &empty));
  MPI_OK(MPI_Type_commit(&empty));
  int in[4] = {1, 2, 3, 4}, out[4] = {-1, -1, -1, -1};
  std::vector<int> counts(static_cast<std::size_t>(p), 3);
  MPI_Request r;
  MPI_OK(MPI_Allreduce(in, out, 5, empty, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Reduce(in, out, 5, empty, MPI_SUM, p - 1, MPI_COMM_WORLD));
  MPI_OK(MPI_Reduce_scatter(in, out, counts.data(), empty, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Reduce_scatter_block(in, out, 3, empty, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Scan(in, out, 5, empty, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Exscan(in, out, 5, empty, MPI_SUM, MPI_COMM_WORLD));
  MPI_OK(MPI_Iallreduce(in, out, 5, empty, MPI_MAX, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Ireduce(in, out, 5, empty, MPI_MAX, 0, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Allreduce_init(in, out, 5, empty, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &r));
  MPI_OK(MPI_Start(&r));
  MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
  MPI_OK(MPI_Request_free(&r));
  for (int x : out) CHECK(x == -1);
  MPI_OK(MPI_Type_free(&empty));
}

// Every rank of an allreduce ends with the same bits, even where the result
// depends on operand order beyond MPI's rules: two NaNs of different sign or
// payload (x86 keeps the first operand's), or signed zeros under max and min.
// Algorithms in which two ranks compute the same element (recursive doubling)
// must apply the op in the same order on both. Found by review: a change that let
// such a step swap its operands for a "commutative" sum gave the two ranks NaNs
// of opposite sign.
TEST_CASE("Allreduce gives every rank the same bits, NaNs and signed zeros included",
          "[coll][reduction][allreduce][bits]") {
  const int p = jobs::size(), me = jobs::rank();
  for (int n : {3, 257, 4099}) {
    std::vector<double> in(static_cast<std::size_t>(n)), out(in.size());
    for (int i = 0; i < n; ++i) {
      const std::uint64_t payload = 0x7ff8000000000000ull | (static_cast<std::uint64_t>(me * 7 + i) & 0xfffff);
      std::uint64_t bits = (me % 2 ? 0x8000000000000000ull : 0) | payload;  // a NaN, sign by rank
      double d;
      std::memcpy(&d, &bits, sizeof d);
      if (i % 3 == 1) d = me % 2 ? -0.0 : 0.0;
      if (i % 3 == 2) d = 1.0 + me;
      in[static_cast<std::size_t>(i)] = d;
    }
    for (MPI_Op op : {MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN}) {
      for (bool nonblocking : {false, true}) {
        if (nonblocking) {
          MPI_Request r;
          MPI_OK(MPI_Iallreduce(in.data(), out.data(), n, MPI_DOUBLE, op, MPI_COMM_WORLD, &r));
          MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
        } else {
          MPI_OK(MPI_Allreduce(in.data(), out.data(), n, MPI_DOUBLE, op, MPI_COMM_WORLD));
        }
        std::vector<double> all(out.size() * static_cast<std::size_t>(p));
        MPI_OK(MPI_Allgather(out.data(), n, MPI_DOUBLE, all.data(), n, MPI_DOUBLE, MPI_COMM_WORLD));
        int differ = 0;
        for (int r = 1; r < p; ++r)
          differ += std::memcmp(all.data(), all.data() + static_cast<std::size_t>(r) * out.size(),
                                out.size() * sizeof(double)) != 0;
        INFO("n " << n << " op " << op << (nonblocking ? " (MPI_Iallreduce)" : ""));
        CHECK(differ == 0);
      }
    }
  }
}
