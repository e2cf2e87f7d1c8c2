// Shared pieces of the collective job tests: reduction kinds, movement types, the
// Case classes and the blocking / non-blocking / persistent drivers.
#include "coll_common.h"

#include <algorithm>
#include <cstring>
#include <sstream>

namespace coll {

int comm_rank(MPI_Comm comm) {
  int r = -1;
  MPI_Comm_rank(comm, &r);
  return r;
}

int comm_size(MPI_Comm comm) {
  int s = -1;
  MPI_Comm_size(comm, &s);
  return s;
}

std::vector<long> small_counts(int p) {
  std::vector<long> out;
  for (long c : {0L, 1L, static_cast<long>(p - 1), static_cast<long>(p + 1)}) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

namespace {

uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (uint64_t v : {a, b, c, d}) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h;
}

// A small signed value in [-11, 11]: sums over <= 8 ranks fit in int8 and are exact
// in float.
int64_t small_value(int rank, long i, int seed) {
  return static_cast<int64_t>(mix(rank, i, seed, 1) % 23) - 11;
}

constexpr int64_t kPrime = 65521;

// ---- reduction kinds --------------------------------------------------------------

template <class T>
RedKind arith(const std::string& name, MPI_Datatype type, MPI_Op op, bool sum,
              T (*value)(int64_t)) {
  RedKind k;
  k.name = name;
  k.type = type;
  k.op = op;
  k.bytes = sizeof(T);
  k.commutative = true;
  k.gen = [value](void* out, int rank, long i, int seed) {
    const T v = value(small_value(rank, i, seed));
    std::memcpy(out, &v, sizeof v);
  };
  k.combine = [sum](void* acc, const void* later) {
    T a, b;
    std::memcpy(&a, acc, sizeof a);
    std::memcpy(&b, later, sizeof b);
    const T r = sum ? static_cast<T>(a + b) : std::max(a, b);
    std::memcpy(acc, &r, sizeof r);
  };
  k.eq = [](const void* a, const void* b) {
    T x, y;
    std::memcpy(&x, a, sizeof x);
    std::memcpy(&y, b, sizeof y);
    return x == y;
  };
  k.show = [](const void* a) {
    T x;
    std::memcpy(&x, a, sizeof x);
    std::ostringstream s;
    s << +x;
    return s.str();
  };
  return k;
}

struct DoubleInt {
  double v;
  int i;
};

struct Mat {
  int32_t m[4];
};

int64_t comm_fn(int64_t a, int64_t b) { return ((1 + a) * (1 + b) - 1) % kPrime; }

Mat mat_mul(const Mat& x, const Mat& y) {
  Mat r;
  r.m[0] = static_cast<int32_t>((int64_t{x.m[0]} * y.m[0] + int64_t{x.m[1]} * y.m[2]) % kPrime);
  r.m[1] = static_cast<int32_t>((int64_t{x.m[0]} * y.m[1] + int64_t{x.m[1]} * y.m[3]) % kPrime);
  r.m[2] = static_cast<int32_t>((int64_t{x.m[2]} * y.m[0] + int64_t{x.m[3]} * y.m[2]) % kPrime);
  r.m[3] = static_cast<int32_t>((int64_t{x.m[2]} * y.m[1] + int64_t{x.m[3]} * y.m[3]) % kPrime);
  return r;
}

// MPI user functions: inout[i] = in[i] op inout[i], `in` holding the lower ranks.
void user_comm(void* in, void* inout, int* len, MPI_Datatype*) {
  const int32_t* a = static_cast<const int32_t*>(in);
  int32_t* b = static_cast<int32_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = static_cast<int32_t>(comm_fn(a[i], b[i]));
}

void user_matmul(void* in, void* inout, int* len, MPI_Datatype*) {
  const Mat* a = static_cast<const Mat*>(in);
  Mat* b = static_cast<Mat*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = mat_mul(a[i], b[i]);
}

std::vector<RedKind> build_red_kinds() {
  std::vector<RedKind> ks;
  auto i8 = +[](int64_t v) { return static_cast<int8_t>(v); };
  auto i32 = +[](int64_t v) { return static_cast<int32_t>(v * 1000 + 7); };
  auto i64 = +[](int64_t v) { return static_cast<int64_t>(v * (int64_t{1} << 40) + v); };
  auto f32 = +[](int64_t v) { return static_cast<float>(v) * 0.5f; };
  auto f64 = +[](int64_t v) { return static_cast<double>(v) * 0.25 + 8589934592.0; };
  for (bool sum : {true, false}) {
    const std::string on = sum ? "sum" : "max";
    const MPI_Op op = sum ? MPI_SUM : MPI_MAX;
    ks.push_back(arith<int8_t>("int8_" + on, MPI_INT8_T, op, sum, i8));
    ks.push_back(arith<int32_t>("int_" + on, MPI_INT, op, sum, i32));
    ks.push_back(arith<int64_t>("int64_" + on, MPI_INT64_T, op, sum, i64));
    ks.push_back(arith<float>("float_" + on, MPI_FLOAT, op, sum, f32));
    ks.push_back(arith<double>("double_" + on, MPI_DOUBLE, op, sum, f64));
  }

  {  // MPI_DOUBLE_INT with MPI_MAXLOC: many ties, so the lowest index must win.
    RedKind k;
    k.name = "double_int_maxloc";
    k.type = MPI_DOUBLE_INT;
    k.op = MPI_MAXLOC;
    k.bytes = sizeof(DoubleInt);
    k.commutative = true;
    k.gen = [](void* out, int rank, long i, int seed) {
      DoubleInt d;
      std::memset(&d, 0, sizeof d);
      d.v = static_cast<double>(mix(rank, i, seed, 2) % 4) - 1.5;
      d.i = static_cast<int>(mix(rank, i, seed, 3) % 17);
      std::memcpy(out, &d, sizeof d);
    };
    k.combine = [](void* acc, const void* later) {
      DoubleInt a, b;
      std::memcpy(&a, acc, sizeof a);
      std::memcpy(&b, later, sizeof b);
      if (b.v > a.v || (b.v == a.v && b.i < a.i)) std::memcpy(acc, &b, sizeof b);
    };
    k.eq = [](const void* a, const void* b) {
      DoubleInt x, y;
      std::memcpy(&x, a, sizeof x);
      std::memcpy(&y, b, sizeof y);
      return x.v == y.v && x.i == y.i;
    };
    k.show = [](const void* a) {
      DoubleInt x;
      std::memcpy(&x, a, sizeof x);
      return "(" + std::to_string(x.v) + "," + std::to_string(x.i) + ")";
    };
    ks.push_back(k);
  }

  {  // Commutative user op on MPI_INT: (1+a)(1+b)-1 mod 65521.
    static MPI_Op op = MPI_OP_NULL;
    if (op == MPI_OP_NULL) MPI_Op_create(&user_comm, 1, &op);
    RedKind k;
    k.name = "int_user_commutative";
    k.type = MPI_INT;
    k.op = op;
    k.bytes = sizeof(int32_t);
    k.commutative = true;
    k.gen = [](void* out, int rank, long i, int seed) {
      const int32_t v = static_cast<int32_t>(mix(rank, i, seed, 4) % kPrime);
      std::memcpy(out, &v, sizeof v);
    };
    k.combine = [](void* acc, const void* later) {
      int32_t a, b;
      std::memcpy(&a, acc, sizeof a);
      std::memcpy(&b, later, sizeof b);
      const int32_t r = static_cast<int32_t>(comm_fn(a, b));
      std::memcpy(acc, &r, sizeof r);
    };
    k.eq = [](const void* a, const void* b) { return std::memcmp(a, b, 4) == 0; };
    k.show = [](const void* a) {
      int32_t x;
      std::memcpy(&x, a, sizeof x);
      return std::to_string(x);
    };
    ks.push_back(k);
  }

  {  // Non-commutative user op: 2x2 matrix product mod 65521, elements of 4 ints.
    static MPI_Op op = MPI_OP_NULL;
    static MPI_Datatype mat = MPI_DATATYPE_NULL;
    if (op == MPI_OP_NULL) {
      MPI_Op_create(&user_matmul, 0, &op);
      MPI_Type_contiguous(4, MPI_INT, &mat);
      MPI_Type_commit(&mat);
    }
    RedKind k;
    k.name = "mat2x2_user_noncommutative";
    k.type = mat;
    k.op = op;
    k.bytes = sizeof(Mat);
    k.commutative = false;
    k.gen = [](void* out, int rank, long i, int seed) {
      Mat m;
      for (int j = 0; j < 4; ++j) m.m[j] = static_cast<int32_t>(mix(rank, i, seed, 10 + j) % kPrime);
      std::memcpy(out, &m, sizeof m);
    };
    k.combine = [](void* acc, const void* later) {
      Mat a, b;
      std::memcpy(&a, acc, sizeof a);
      std::memcpy(&b, later, sizeof b);
      const Mat r = mat_mul(a, b);
      std::memcpy(acc, &r, sizeof r);
    };
    k.eq = [](const void* a, const void* b) { return std::memcmp(a, b, sizeof(Mat)) == 0; };
    k.show = [](const void* a) {
      Mat x;
      std::memcpy(&x, a, sizeof x);
      return "[" + std::to_string(x.m[0]) + " " + std::to_string(x.m[1]) + "; " +
             std::to_string(x.m[2]) + " " + std::to_string(x.m[3]) + "]";
    };
    ks.push_back(k);
  }
  return ks;
}

// ---- movement types ---------------------------------------------------------------

std::vector<MoveType>& move_types() {
  static std::vector<MoveType> ts = [] {
    std::vector<MoveType> v;
    v.push_back({"int8", MPI_INT8_T, 1, {0}, Prim::I8});
    v.push_back({"int", MPI_INT, 4, {0}, Prim::I32});
    v.push_back({"double", MPI_DOUBLE, 8, {0}, Prim::F64});
    MPI_Datatype vec = MPI_DATATYPE_NULL;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec);  // ints 0 and 2 of 3; extent 12 bytes
    MPI_Type_commit(&vec);
    v.push_back({"vec", vec, 12, {0, 8}, Prim::I32});
    MPI_Datatype padded = MPI_DATATYPE_NULL;
    MPI_Type_create_resized(MPI_INT, 0, 8, &padded);  // one int, then a 4-byte hole
    MPI_Type_commit(&padded);
    v.push_back({"padded", padded, 8, {0}, Prim::I32});
    MPI_Datatype neg_lb = MPI_DATATYPE_NULL;
    MPI_Type_create_resized(MPI_DOUBLE, -8, 24, &neg_lb);  // lb -8: a hole before each double
    MPI_Type_commit(&neg_lb);
    v.push_back({"neg_lb", neg_lb, 24, {0}, Prim::F64});
    return v;
  }();
  return ts;
}

size_t prim_bytes(Prim p) { return p == Prim::I8 ? 1 : p == Prim::I32 ? 4 : 8; }

}  // namespace

const std::vector<RedKind>& red_kinds() {
  static const std::vector<RedKind> ks = build_red_kinds();
  return ks;
}

const RedKind& red_kind(const std::string& name) {
  for (const RedKind& k : red_kinds()) {
    if (k.name == name) return k;
  }
  FAIL("no reduction kind " << name);
  return red_kinds().front();
}

const std::vector<TypePair>& type_pairs() {
  static const std::vector<TypePair> ps = [] {
    const std::vector<MoveType>& t = move_types();
    return std::vector<TypePair>{
        {"int8", &t[0], &t[0], 1, 1},   {"int", &t[1], &t[1], 1, 1},
        {"double", &t[2], &t[2], 1, 1}, {"vec", &t[3], &t[3], 1, 1},
        {"vec->int", &t[3], &t[1], 1, 2}, {"int->vec", &t[1], &t[3], 2, 1},
        {"padded->vec", &t[4], &t[3], 2, 1}, {"neg_lb->double", &t[5], &t[2], 1, 1},
    };
  }();
  return ps;
}

const TypePair& type_pair(const std::string& name) {
  for (const TypePair& p : type_pairs()) {
    if (p.name == name) return p;
  }
  FAIL("no type pair " << name);
  return type_pairs().front();
}

int64_t stream_value(int src, int dst, long k, int seed) {
  return static_cast<int64_t>(mix(src + 1000, dst, k, seed) % 2000001) - 1000000;
}

void put(Bytes& buf, size_t off, const MoveType& t, long count, int src, int dst, int seed,
         long k0) {
  const size_t pb = prim_bytes(t.prim);
  long k = k0;
  for (long e = 0; e < count; ++e) {
    for (size_t s : t.slots) {
      const int64_t v = stream_value(src, dst, k++, seed);
      unsigned char* at = buf.data() + off + static_cast<size_t>(e) * t.extent + s;
      if (off + static_cast<size_t>(e) * t.extent + s + pb > buf.size()) {
        FAIL("put out of range");
      }
      switch (t.prim) {
        case Prim::I8: {
          const int8_t x = static_cast<int8_t>(v);  // modular since C++20
          std::memcpy(at, &x, 1);
          break;
        }
        case Prim::I32: {
          const int32_t x = static_cast<int32_t>(v);
          std::memcpy(at, &x, 4);
          break;
        }
        case Prim::F64: {
          const double x = static_cast<double>(v) * 0.5;
          std::memcpy(at, &x, 8);
          break;
        }
      }
    }
  }
}

bool same_image(const Bytes& got, const Bytes& want, std::string* why) {
  if (got.size() != want.size()) {
    *why = "buffer size differs";
    return false;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] != want[i]) {
      size_t n = 0;
      for (size_t j = i; j < got.size(); ++j) n += got[j] != want[j];
      std::ostringstream s;
      s << "first wrong byte at offset " << i << " of " << got.size() << ": got 0x" << std::hex
        << +got[i] << " want 0x" << +want[i] << std::dec << " (" << n << " bytes differ"
        << (want[i] == kSentinel ? ", want is the untouched sentinel" : "") << ")";
      *why = s.str();
      return false;
    }
  }
  return true;
}

// =================================================================================
// Reduction cases.

namespace {

class RedCase : public Case {
 public:
  RedCase(const char* coll, MPI_Comm comm, const RedKind& k, long count, bool in_place)
      : coll_(coll), comm_(comm), k_(k), count_(count), in_place_(in_place),
        rank_(comm_rank(comm)), p_(comm_size(comm)), tmp_(k.bytes), tmp2_(k.bytes) {}

  std::string name() const override {
    std::ostringstream s;
    s << coll_ << " " << k_.name << " count=" << count_ << (in_place_ ? " in_place" : "")
      << extra() << " (rank " << rank_ << " of " << p_ << ")";
    return s.str();
  }

 protected:
  virtual std::string extra() const { return ""; }

  static constexpr long kGuard = 3;

  // Input element i of `rank` into buf at element index at.
  void gen_at(Bytes& buf, long at, int rank, long i, int seed) {
    k_.gen(buf.data() + static_cast<size_t>(at) * k_.bytes, rank, i, seed);
  }

  // Reduction of element i over ranks [lo, hi), in rank order, into tmp_.
  const void* fold(int lo, int hi, long i, int seed) {
    k_.gen(tmp_.data(), lo, i, seed);
    for (int r = lo + 1; r < hi; ++r) {
      k_.gen(tmp2_.data(), r, i, seed);
      k_.combine(tmp_.data(), tmp2_.data());
    }
    return tmp_.data();
  }

  // Element `at` of buf against fold(lo, hi, i).
  bool check_elem(const Bytes& buf, long at, int lo, int hi, long i, int seed, std::string* why) {
    const void* want = fold(lo, hi, i, seed);
    const void* got = buf.data() + static_cast<size_t>(at) * k_.bytes;
    if (k_.eq(got, want)) return true;
    *why = "element " + std::to_string(i) + " (reduced over ranks " + std::to_string(lo) + ".." +
           std::to_string(hi - 1) + "): got " + k_.show(got) + " want " + k_.show(want);
    return false;
  }

  bool check_range(const Bytes& buf, long at, long n, long i0, int lo, int hi, int seed,
                   std::string* why) {
    for (long j = 0; j < n; ++j) {
      if (!check_elem(buf, at + j, lo, hi, i0 + j, seed, why)) return false;
    }
    return true;
  }

  // Bytes from element `from` to the end untouched.
  bool check_guard(const Bytes& buf, long from, std::string* why) {
    for (size_t b = static_cast<size_t>(from) * k_.bytes; b < buf.size(); ++b) {
      if (buf[b] != kSentinel) {
        *why = "wrote past the result: byte " + std::to_string(b) + " (element " +
               std::to_string(b / k_.bytes) + ")";
        return false;
      }
    }
    return true;
  }

  void gen_range(Bytes& buf, long at, long n, long i0, int seed) {
    for (long j = 0; j < n; ++j) gen_at(buf, at + j, rank_, i0 + j, seed);
  }

  Bytes sized(long elems) const { return Bytes(static_cast<size_t>(elems + kGuard) * k_.bytes, kSentinel); }
  const void* sbuf() const { return in_place_ ? MPI_IN_PLACE : send_.data(); }

  // Send buffer unchanged by the call.
  bool check_send(std::string* why) {
    if (in_place_ || send_ == send_want_) return true;
    *why = "the send buffer was modified";
    return false;
  }

  const char* coll_;
  MPI_Comm comm_;
  const RedKind& k_;
  long count_;
  bool in_place_;
  int rank_, p_;
  Bytes send_, send_want_, recv_;
  Bytes tmp_, tmp2_;
};

class AllreduceCase : public RedCase {
 public:
  AllreduceCase(MPI_Comm comm, const RedKind& k, long count, bool in_place)
      : RedCase("allreduce", comm, k, count, in_place) {
    send_ = sized(count);
    recv_ = sized(count);
  }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    gen_range(in_place_ ? recv_ : send_, 0, count_, 0, seed);
    send_want_ = send_;
  }
  int run_blocking() override {
    return MPI_Allreduce(sbuf(), recv_.data(), static_cast<int>(count_), k_.type, k_.op, comm_);
  }
  int start(MPI_Request* r) override {
    return MPI_Iallreduce(sbuf(), recv_.data(), static_cast<int>(count_), k_.type, k_.op, comm_, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Allreduce_init(sbuf(), recv_.data(), static_cast<int>(count_), k_.type, k_.op,
                              comm_, MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    return check_send(why) && check_range(recv_, 0, count_, 0, 0, p_, seed, why) &&
           check_guard(recv_, count_, why);
  }
};

class ReduceCase : public RedCase {
 public:
  ReduceCase(MPI_Comm comm, const RedKind& k, long count, bool in_place, int root)
      : RedCase("reduce", comm, k, count, in_place), root_(root) {
    send_ = sized(count);
    recv_ = sized(count);
  }
  std::string extra() const override { return " root=" + std::to_string(root_); }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    std::fill(send_.begin(), send_.end(), kSentinel);
    gen_range(ip() ? recv_ : send_, 0, count_, 0, seed);
    send_want_ = send_;
    recv_want_ = recv_;
  }
  int run_blocking() override {
    return MPI_Reduce(sb(), rb(), static_cast<int>(count_), k_.type, k_.op, root_, comm_);
  }
  int start(MPI_Request* r) override {
    return MPI_Ireduce(sb(), rb(), static_cast<int>(count_), k_.type, k_.op, root_, comm_, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Reduce_init(sb(), rb(), static_cast<int>(count_), k_.type, k_.op, root_, comm_,
                           MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    if (send_ != send_want_) {
      *why = "the send buffer was modified";
      return false;
    }
    if (rank_ != root_) return true;
    return check_range(recv_, 0, count_, 0, 0, p_, seed, why) && check_guard(recv_, count_, why);
  }

 private:
  bool ip() const { return in_place_ && rank_ == root_; }
  const void* sb() const { return ip() ? MPI_IN_PLACE : send_.data(); }
  // Non-root ranks pass a null receive buffer (only significant at the root).
  void* rb() { return rank_ == root_ ? recv_.data() : nullptr; }
  int root_;
  Bytes recv_want_;
};

class RsbCase : public RedCase {
 public:
  RsbCase(MPI_Comm comm, const RedKind& k, long count, bool in_place)
      : RedCase("reduce_scatter_block", comm, k, count, in_place) {
    send_ = sized(count * p_);
    recv_ = sized(in_place ? count * p_ : count);
  }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    gen_range(in_place_ ? recv_ : send_, 0, count_ * p_, 0, seed);
    send_want_ = send_;
  }
  int run_blocking() override {
    return MPI_Reduce_scatter_block(sbuf(), recv_.data(), static_cast<int>(count_), k_.type,
                                    k_.op, comm_);
  }
  int start(MPI_Request* r) override {
    return MPI_Ireduce_scatter_block(sbuf(), recv_.data(), static_cast<int>(count_), k_.type,
                                     k_.op, comm_, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Reduce_scatter_block_init(sbuf(), recv_.data(), static_cast<int>(count_), k_.type,
                                         k_.op, comm_, MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    return check_send(why) &&
           check_range(recv_, 0, count_, count_ * rank_, 0, p_, seed, why) &&
           check_guard(recv_, in_place_ ? count_ * p_ : count_, why);
  }
};

class RsCase : public RedCase {
 public:
  RsCase(MPI_Comm comm, const RedKind& k, long count, bool in_place)
      : RedCase("reduce_scatter", comm, k, count, in_place) {
    long off = 0;
    for (int j = 0; j < p_; ++j) {
      counts_.push_back(count == 0 ? 0 : static_cast<int>(count + j % 3 - 1));
      offs_.push_back(off);
      off += counts_.back();
    }
    total_ = off;
    send_ = sized(total_);
    recv_ = sized(in_place ? total_ : counts_[rank_]);
  }
  std::string extra() const override {
    std::string s = " recvcounts=";
    for (int c : counts_) s += std::to_string(c) + ",";
    return s;
  }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    gen_range(in_place_ ? recv_ : send_, 0, total_, 0, seed);
    send_want_ = send_;
  }
  int run_blocking() override {
    return MPI_Reduce_scatter(sbuf(), recv_.data(), counts_.data(), k_.type, k_.op, comm_);
  }
  int start(MPI_Request* r) override {
    return MPI_Ireduce_scatter(sbuf(), recv_.data(), counts_.data(), k_.type, k_.op, comm_, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Reduce_scatter_init(sbuf(), recv_.data(), counts_.data(), k_.type, k_.op, comm_,
                                   MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    return check_send(why) &&
           check_range(recv_, 0, counts_[rank_], offs_[rank_], 0, p_, seed, why) &&
           check_guard(recv_, in_place_ ? total_ : counts_[rank_], why);
  }

 private:
  std::vector<int> counts_;
  std::vector<long> offs_;
  long total_ = 0;
};

class ScanCase : public RedCase {
 public:
  ScanCase(MPI_Comm comm, const RedKind& k, long count, bool in_place, bool ex)
      : RedCase(ex ? "exscan" : "scan", comm, k, count, in_place), ex_(ex) {
    send_ = sized(count);
    recv_ = sized(count);
  }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    gen_range(in_place_ ? recv_ : send_, 0, count_, 0, seed);
    send_want_ = send_;
  }
  int run_blocking() override {
    const int n = static_cast<int>(count_);
    return ex_ ? MPI_Exscan(sbuf(), recv_.data(), n, k_.type, k_.op, comm_)
               : MPI_Scan(sbuf(), recv_.data(), n, k_.type, k_.op, comm_);
  }
  int start(MPI_Request* r) override {
    const int n = static_cast<int>(count_);
    return ex_ ? MPI_Iexscan(sbuf(), recv_.data(), n, k_.type, k_.op, comm_, r)
               : MPI_Iscan(sbuf(), recv_.data(), n, k_.type, k_.op, comm_, r);
  }
  int init(MPI_Request* r) override {
    const int n = static_cast<int>(count_);
    return ex_ ? MPI_Exscan_init(sbuf(), recv_.data(), n, k_.type, k_.op, comm_, MPI_INFO_NULL, r)
               : MPI_Scan_init(sbuf(), recv_.data(), n, k_.type, k_.op, comm_, MPI_INFO_NULL, r);
  }
  bool check(int seed, std::string* why) override {
    if (!check_send(why) || !check_guard(recv_, count_, why)) return false;
    if (ex_ && rank_ == 0) return true;  // undefined on rank 0
    return check_range(recv_, 0, count_, 0, 0, ex_ ? rank_ : rank_ + 1, seed, why);
  }

 private:
  bool ex_;
};

// =================================================================================
// Movement cases.

constexpr size_t kGuardBytes = 16;

// Blocks laid out in reverse rank order with a one-element gap after each; returns
// the displacements (in elements) and sets *total.
std::vector<int> reverse_displs(const std::vector<int>& counts, long* total) {
  std::vector<int> d(counts.size());
  long pos = 1;
  for (size_t i = counts.size(); i-- > 0;) {
    d[i] = static_cast<int>(pos);
    pos += counts[i] + 1;
  }
  *total = pos;
  return d;
}

class MoveCase : public Case {
 public:
  MoveCase(const char* coll, MPI_Comm comm, const TypePair& t, long count, bool in_place,
           int root)
      : coll_(coll), comm_(comm), t_(t), count_(count), in_place_(in_place), root_(root),
        rank_(comm_rank(comm)), p_(comm_size(comm)), S_(*t.send), R_(*t.recv) {}

  std::string name() const override {
    std::ostringstream s;
    s << coll_ << " " << t_.name << " count=" << count_ << (in_place_ ? " in_place" : "");
    if (root_ >= 0) s << " root=" << root_;
    s << " (rank " << rank_ << " of " << p_ << ")";
    return s.str();
  }

  bool check(int seed, std::string* why) override {
    expect(seed);
    if (!same_image(send_, send_want_, why)) {
      *why = "send buffer: " + *why;
      return false;
    }
    if (!same_image(recv_, recv_want_, why)) {
      *why = "receive buffer: " + *why;
      return false;
    }
    return true;
  }

 protected:
  // Builds recv_want_ (and send_want_ where the send buffer is also written).
  virtual void expect(int seed) = 0;

  Bytes blank(long elems_s, const MoveType& t) const {
    return Bytes(static_cast<size_t>(elems_s) * t.extent + kGuardBytes, kSentinel);
  }
  int sc() const { return static_cast<int>(count_ * t_.smul); }
  int rc() const { return static_cast<int>(count_ * t_.rmul); }

  const char* coll_;
  MPI_Comm comm_;
  const TypePair& t_;
  long count_;
  bool in_place_;
  int root_;
  int rank_, p_;
  const MoveType& S_;
  const MoveType& R_;
  Bytes send_, send_want_, recv_, recv_want_;
};

class BarrierCase : public Case {
 public:
  explicit BarrierCase(MPI_Comm comm) : comm_(comm) {}
  std::string name() const override { return "barrier"; }
  void fill(int) override {}
  int run_blocking() override { return MPI_Barrier(comm_); }
  int start(MPI_Request* r) override { return MPI_Ibarrier(comm_, r); }
  int init(MPI_Request* r) override { return MPI_Barrier_init(comm_, MPI_INFO_NULL, r); }
  bool check(int, std::string*) override { return true; }

 private:
  MPI_Comm comm_;
};

class BcastCase : public MoveCase {
 public:
  BcastCase(MPI_Comm comm, const TypePair& t, long count, int root)
      : MoveCase("bcast", comm, t, count, false, root) {
    // The root sends `sc` elements of the send type, the others receive `rc` of
    // the receive type.
    recv_ = is_root() ? blank(sc(), S_) : blank(rc(), R_);
  }
  void fill(int seed) override {
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    if (is_root()) put(recv_, 0, S_, sc(), root_, 0, seed);
  }
  int run_blocking() override { return MPI_Bcast(recv_.data(), n(), type(), root_, comm_); }
  int start(MPI_Request* r) override {
    return MPI_Ibcast(recv_.data(), n(), type(), root_, comm_, r);
  }
  int init(MPI_Request* r) override {
    return MPI_Bcast_init(recv_.data(), n(), type(), root_, comm_, MPI_INFO_NULL, r);
  }

 protected:
  void expect(int seed) override {
    recv_want_.assign(recv_.size(), kSentinel);
    put(recv_want_, 0, is_root() ? S_ : R_, n(), root_, 0, seed);
  }

 private:
  bool is_root() const { return rank_ == root_; }
  int n() const { return is_root() ? sc() : rc(); }
  MPI_Datatype type() const { return is_root() ? S_.type : R_.type; }
};

class GatherCase : public MoveCase {
 public:
  GatherCase(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root, bool v)
      : MoveCase(v ? "gatherv" : "gather", comm, t, count, in_place, root), v_(v) {
    for (int i = 0; i < p_; ++i) {
      const long u = v ? (count == 0 ? 0 : count + (i % 3 == 1 ? 1 : 0) + (i % 3 == 2 ? 2 : 0))
                       : count;
      units_.push_back(u);
      rcounts_.push_back(static_cast<int>(u * t.rmul));
    }
    long total = 0;
    if (v) {
      displs_ = reverse_displs(rcounts_, &total);
    } else {
      for (int i = 0; i < p_; ++i) displs_.push_back(i * rc());
      total = static_cast<long>(p_) * rc();
    }
    send_ = blank(units_[rank_] * t.smul, S_);
    recv_ = rank_ == root_ ? blank(total, R_) : Bytes();
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    put(send_, 0, S_, my_sc(), rank_, 0, seed);
    if (ip()) put(recv_, displs_[rank_] * R_.extent, R_, rcounts_[rank_], rank_, 0, seed);
    send_want_ = send_;
  }
  int run_blocking() override {
    return v_ ? MPI_Gatherv(sb(), my_sc(), S_.type, rb(), rcounts_.data(), displs_.data(), R_.type,
                            root_, comm_)
              : MPI_Gather(sb(), my_sc(), S_.type, rb(), rc(), R_.type, root_, comm_);
  }
  int start(MPI_Request* r) override {
    return v_ ? MPI_Igatherv(sb(), my_sc(), S_.type, rb(), rcounts_.data(), displs_.data(),
                             R_.type, root_, comm_, r)
              : MPI_Igather(sb(), my_sc(), S_.type, rb(), rc(), R_.type, root_, comm_, r);
  }
  int init(MPI_Request* r) override {
    return v_ ? MPI_Gatherv_init(sb(), my_sc(), S_.type, rb(), rcounts_.data(), displs_.data(),
                                 R_.type, root_, comm_, MPI_INFO_NULL, r)
              : MPI_Gather_init(sb(), my_sc(), S_.type, rb(), rc(), R_.type, root_, comm_,
                                MPI_INFO_NULL, r);
  }

 protected:
  void expect(int seed) override {
    recv_want_.assign(recv_.size(), kSentinel);
    if (rank_ != root_) return;
    for (int i = 0; i < p_; ++i) put(recv_want_, displs_[i] * R_.extent, R_, rcounts_[i], i, 0, seed);
  }

 private:
  bool ip() const { return in_place_ && rank_ == root_; }
  const void* sb() const { return ip() ? MPI_IN_PLACE : send_.data(); }
  void* rb() { return rank_ == root_ ? recv_.data() : nullptr; }
  int my_sc() const { return static_cast<int>(units_[rank_] * t_.smul); }
  bool v_;
  std::vector<long> units_;
  std::vector<int> rcounts_, displs_;
};

class ScatterCase : public MoveCase {
 public:
  ScatterCase(MPI_Comm comm, const TypePair& t, long count, bool in_place, int root, bool v)
      : MoveCase(v ? "scatterv" : "scatter", comm, t, count, in_place, root), v_(v) {
    for (int i = 0; i < p_; ++i) {
      const long u = v ? (count == 0 ? 0 : count + (i % 3 == 1 ? 2 : 0) + (i % 3 == 2 ? 1 : 0))
                       : count;
      units_.push_back(u);
      scounts_.push_back(static_cast<int>(u * t.smul));
    }
    long total = 0;
    if (v) {
      displs_ = reverse_displs(scounts_, &total);
    } else {
      for (int i = 0; i < p_; ++i) displs_.push_back(i * sc());
      total = static_cast<long>(p_) * sc();
    }
    send_ = rank_ == root_ ? blank(total, S_) : Bytes();
    recv_ = blank(units_[rank_] * t.rmul, R_);
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    if (rank_ == root_) {
      for (int i = 0; i < p_; ++i) put(send_, displs_[i] * S_.extent, S_, scounts_[i], root_, i, seed);
    }
    send_want_ = send_;
  }
  int run_blocking() override {
    return v_ ? MPI_Scatterv(sb(), scounts_.data(), displs_.data(), S_.type, rb(), my_rc(), R_.type,
                             root_, comm_)
              : MPI_Scatter(sb(), sc(), S_.type, rb(), my_rc(), R_.type, root_, comm_);
  }
  int start(MPI_Request* r) override {
    return v_ ? MPI_Iscatterv(sb(), scounts_.data(), displs_.data(), S_.type, rb(), my_rc(),
                              R_.type, root_, comm_, r)
              : MPI_Iscatter(sb(), sc(), S_.type, rb(), my_rc(), R_.type, root_, comm_, r);
  }
  int init(MPI_Request* r) override {
    return v_ ? MPI_Scatterv_init(sb(), scounts_.data(), displs_.data(), S_.type, rb(), my_rc(),
                                  R_.type, root_, comm_, MPI_INFO_NULL, r)
              : MPI_Scatter_init(sb(), sc(), S_.type, rb(), my_rc(), R_.type, root_, comm_,
                                 MPI_INFO_NULL, r);
  }

 protected:
  void expect(int seed) override {
    recv_want_.assign(recv_.size(), kSentinel);
    if (!ip()) put(recv_want_, 0, R_, my_rc(), root_, rank_, seed);
  }

 private:
  bool ip() const { return in_place_ && rank_ == root_; }
  const void* sb() const { return rank_ == root_ ? send_.data() : nullptr; }
  void* rb() { return ip() ? MPI_IN_PLACE : recv_.data(); }
  int my_rc() const { return static_cast<int>(units_[rank_] * t_.rmul); }
  bool v_;
  std::vector<long> units_;
  std::vector<int> scounts_, displs_;
};

class AllgatherCase : public MoveCase {
 public:
  AllgatherCase(MPI_Comm comm, const TypePair& t, long count, bool in_place, bool v)
      : MoveCase(v ? "allgatherv" : "allgather", comm, t, count, in_place, -1), v_(v) {
    for (int i = 0; i < p_; ++i) {
      const long u = v ? (count == 0 ? 0 : count + (i % 4 == 1 ? 1 : 0) + (i % 4 == 3 ? 3 : 0))
                       : count;
      units_.push_back(u);
      rcounts_.push_back(static_cast<int>(u * t.rmul));
    }
    long total = 0;
    if (v) {
      displs_ = reverse_displs(rcounts_, &total);
    } else {
      for (int i = 0; i < p_; ++i) displs_.push_back(i * rc());
      total = static_cast<long>(p_) * rc();
    }
    send_ = blank(units_[rank_] * t.smul, S_);
    recv_ = blank(total, R_);
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    if (in_place_) {
      put(recv_, displs_[rank_] * R_.extent, R_, rcounts_[rank_], rank_, 0, seed);
    } else {
      put(send_, 0, S_, my_sc(), rank_, 0, seed);
    }
    send_want_ = send_;
  }
  int run_blocking() override {
    return v_ ? MPI_Allgatherv(sb(), my_sc(), S_.type, recv_.data(), rcounts_.data(),
                               displs_.data(), R_.type, comm_)
              : MPI_Allgather(sb(), my_sc(), S_.type, recv_.data(), rc(), R_.type, comm_);
  }
  int start(MPI_Request* r) override {
    return v_ ? MPI_Iallgatherv(sb(), my_sc(), S_.type, recv_.data(), rcounts_.data(),
                                displs_.data(), R_.type, comm_, r)
              : MPI_Iallgather(sb(), my_sc(), S_.type, recv_.data(), rc(), R_.type, comm_, r);
  }
  int init(MPI_Request* r) override {
    return v_ ? MPI_Allgatherv_init(sb(), my_sc(), S_.type, recv_.data(), rcounts_.data(),
                                    displs_.data(), R_.type, comm_, MPI_INFO_NULL, r)
              : MPI_Allgather_init(sb(), my_sc(), S_.type, recv_.data(), rc(), R_.type, comm_,
                                   MPI_INFO_NULL, r);
  }

 protected:
  void expect(int seed) override {
    recv_want_.assign(recv_.size(), kSentinel);
    for (int i = 0; i < p_; ++i) put(recv_want_, displs_[i] * R_.extent, R_, rcounts_[i], i, 0, seed);
  }

 private:
  const void* sb() const { return in_place_ ? MPI_IN_PLACE : send_.data(); }
  int my_sc() const { return static_cast<int>(units_[rank_] * t_.smul); }
  bool v_;
  std::vector<long> units_;
  std::vector<int> rcounts_, displs_;
};

class AlltoallCase : public MoveCase {
 public:
  AlltoallCase(MPI_Comm comm, const TypePair& t, long count, bool in_place, bool v)
      : MoveCase(v ? "alltoallv" : "alltoall", comm, t, count, in_place, -1), v_(v) {
    // Units from s to d: symmetric, so in-place alltoallv is consistent.
    auto units = [&](int s, int d) -> long {
      return v ? (count == 0 ? 0 : count + (s + d) % 3 - 1) : count;
    };
    for (int j = 0; j < p_; ++j) {
      scounts_.push_back(static_cast<int>(units(rank_, j) * t.smul));
      rcounts_.push_back(static_cast<int>(units(j, rank_) * t.rmul));
    }
    long stotal = 0, rtotal = 0;
    if (v) {
      sdispls_ = reverse_displs(scounts_, &stotal);
      rdispls_ = reverse_displs(rcounts_, &rtotal);
      // A different layout on the send side: forward order, gap of two.
      long pos = 0;
      for (int j = 0; j < p_; ++j) {
        sdispls_[j] = static_cast<int>(pos);
        pos += scounts_[j] + 2;
      }
      stotal = pos;
    } else {
      for (int j = 0; j < p_; ++j) {
        sdispls_.push_back(j * sc());
        rdispls_.push_back(j * rc());
      }
      stotal = static_cast<long>(p_) * sc();
      rtotal = static_cast<long>(p_) * rc();
    }
    send_ = blank(stotal, S_);
    recv_ = blank(rtotal, R_);
  }
  void fill(int seed) override {
    std::fill(send_.begin(), send_.end(), kSentinel);
    std::fill(recv_.begin(), recv_.end(), kSentinel);
    for (int j = 0; j < p_; ++j) {
      if (in_place_) {
        put(recv_, rdispls_[j] * R_.extent, R_, rcounts_[j], rank_, j, seed);
      } else {
        put(send_, sdispls_[j] * S_.extent, S_, scounts_[j], rank_, j, seed);
      }
    }
    send_want_ = send_;
  }
  int run_blocking() override {
    return v_ ? MPI_Alltoallv(sb(), scounts_.data(), sdispls_.data(), S_.type, recv_.data(),
                              rcounts_.data(), rdispls_.data(), R_.type, comm_)
              : MPI_Alltoall(sb(), sc(), S_.type, recv_.data(), rc(), R_.type, comm_);
  }
  int start(MPI_Request* r) override {
    return v_ ? MPI_Ialltoallv(sb(), scounts_.data(), sdispls_.data(), S_.type, recv_.data(),
                               rcounts_.data(), rdispls_.data(), R_.type, comm_, r)
              : MPI_Ialltoall(sb(), sc(), S_.type, recv_.data(), rc(), R_.type, comm_, r);
  }
  int init(MPI_Request* r) override {
    return v_ ? MPI_Alltoallv_init(sb(), scounts_.data(), sdispls_.data(), S_.type, recv_.data(),
                                   rcounts_.data(), rdispls_.data(), R_.type, comm_,
                                   MPI_INFO_NULL, r)
              : MPI_Alltoall_init(sb(), sc(), S_.type, recv_.data(), rc(), R_.type, comm_,
                                  MPI_INFO_NULL, r);
  }

 protected:
  void expect(int seed) override {
    recv_want_.assign(recv_.size(), kSentinel);
    for (int s = 0; s < p_; ++s) put(recv_want_, rdispls_[s] * R_.extent, R_, rcounts_[s], s, rank_, seed);
  }

 private:
  const void* sb() const { return in_place_ ? MPI_IN_PLACE : send_.data(); }
  bool v_;
  std::vector<int> scounts_, rcounts_, sdispls_, rdispls_;
};

}  // namespace

CasePtr allreduce_case(MPI_Comm c, const RedKind& k, long n, bool ip) {
  return std::make_unique<AllreduceCase>(c, k, n, ip);
}
CasePtr reduce_case(MPI_Comm c, const RedKind& k, long n, bool ip, int root) {
  return std::make_unique<ReduceCase>(c, k, n, ip, root);
}
CasePtr reduce_scatter_block_case(MPI_Comm c, const RedKind& k, long n, bool ip) {
  return std::make_unique<RsbCase>(c, k, n, ip);
}
CasePtr reduce_scatter_case(MPI_Comm c, const RedKind& k, long n, bool ip) {
  return std::make_unique<RsCase>(c, k, n, ip);
}
CasePtr scan_case(MPI_Comm c, const RedKind& k, long n, bool ip) {
  return std::make_unique<ScanCase>(c, k, n, ip, false);
}
CasePtr exscan_case(MPI_Comm c, const RedKind& k, long n, bool ip) {
  return std::make_unique<ScanCase>(c, k, n, ip, true);
}
CasePtr barrier_case(MPI_Comm c) { return std::make_unique<BarrierCase>(c); }
CasePtr bcast_case(MPI_Comm c, const TypePair& t, long n, int root) {
  return std::make_unique<BcastCase>(c, t, n, root);
}
CasePtr gather_case(MPI_Comm c, const TypePair& t, long n, bool ip, int root) {
  return std::make_unique<GatherCase>(c, t, n, ip, root, false);
}
CasePtr gatherv_case(MPI_Comm c, const TypePair& t, long n, bool ip, int root) {
  return std::make_unique<GatherCase>(c, t, n, ip, root, true);
}
CasePtr scatter_case(MPI_Comm c, const TypePair& t, long n, bool ip, int root) {
  return std::make_unique<ScatterCase>(c, t, n, ip, root, false);
}
CasePtr scatterv_case(MPI_Comm c, const TypePair& t, long n, bool ip, int root) {
  return std::make_unique<ScatterCase>(c, t, n, ip, root, true);
}
CasePtr allgather_case(MPI_Comm c, const TypePair& t, long n, bool ip) {
  return std::make_unique<AllgatherCase>(c, t, n, ip, false);
}
CasePtr allgatherv_case(MPI_Comm c, const TypePair& t, long n, bool ip) {
  return std::make_unique<AllgatherCase>(c, t, n, ip, true);
}
CasePtr alltoall_case(MPI_Comm c, const TypePair& t, long n, bool ip) {
  return std::make_unique<AlltoallCase>(c, t, n, ip, false);
}
CasePtr alltoallv_case(MPI_Comm c, const TypePair& t, long n, bool ip) {
  return std::make_unique<AlltoallCase>(c, t, n, ip, true);
}

// =================================================================================
// Drivers.

namespace {

// A rank-dependent permutation of [0, n): rotated by rank, reversed on odd ranks.
std::vector<int> completion_order(size_t n, int rank, int round) {
  std::vector<int> o(n);
  for (size_t i = 0; i < n; ++i) o[i] = static_cast<int>((i + rank * 3 + round) % n);
  if ((rank + round) % 2 == 1) std::reverse(o.begin(), o.end());
  return o;
}

void check_all(const std::vector<CasePtr>& cases, int seed, const char* mode) {
  for (const CasePtr& c : cases) {
    std::string why;
    const bool ok = c->check(seed, &why);
    INFO(mode << " " << c->name() << " seed=" << seed << ": " << why);
    CHECK(ok);
  }
}

void wait_permuted(std::vector<MPI_Request>& reqs, int round) {
  const std::vector<int> order = completion_order(reqs.size(), jobs::rank(), round);
  std::vector<MPI_Request> perm(reqs.size());
  for (size_t i = 0; i < order.size(); ++i) perm[i] = reqs[order[i]];
  MPI_OK(MPI_Waitall(static_cast<int>(perm.size()), perm.data(), MPI_STATUSES_IGNORE));
  for (size_t i = 0; i < order.size(); ++i) reqs[order[i]] = perm[i];
}

}  // namespace

void run_blocking(const std::vector<CasePtr>& cases, int seed) {
  for (const CasePtr& c : cases) {
    c->fill(seed);
    const int rc = c->run_blocking();
    INFO("blocking " << c->name());
    REQUIRE(rc == MPI_SUCCESS);
    std::string why;
    const bool ok = c->check(seed, &why);
    INFO("seed=" << seed << ": " << why);
    CHECK(ok);
  }
}

void run_nonblocking(const std::vector<CasePtr>& cases, int seed) {
  std::vector<MPI_Request> reqs(cases.size(), MPI_REQUEST_NULL);
  for (size_t i = 0; i < cases.size(); ++i) {
    cases[i]->fill(seed);
    const int rc = cases[i]->start(&reqs[i]);
    INFO("start " << cases[i]->name());
    REQUIRE(rc == MPI_SUCCESS);
  }
  wait_permuted(reqs, seed);
  for (MPI_Request r : reqs) CHECK(r == MPI_REQUEST_NULL);
  check_all(cases, seed, "non-blocking");
}

void run_persistent(const std::vector<CasePtr>& cases, int seed, int rounds, bool any_order) {
  std::vector<MPI_Request> reqs(cases.size(), MPI_REQUEST_NULL);
  for (size_t i = 0; i < cases.size(); ++i) {
    const int rc = cases[i]->init(&reqs[i]);
    INFO("init " << cases[i]->name());
    REQUIRE(rc == MPI_SUCCESS);
  }
  for (int round = 0; round < rounds; ++round) {
    const int s = seed + 100 * round;
    for (const CasePtr& c : cases) c->fill(s);
    // Starting a persistent request leaves its handle as it is: a permuted copy
    // of the array starts the same requests.
    std::vector<MPI_Request> start = reqs;
    if (any_order) {
      const std::vector<int> order = completion_order(reqs.size(), jobs::rank(), round + 1);
      for (size_t i = 0; i < order.size(); ++i) start[i] = reqs[order[i]];
    }
    if (round % 2 == 0) {
      MPI_OK(MPI_Startall(static_cast<int>(start.size()), start.data()));
    } else {
      for (MPI_Request& r : start) MPI_OK(MPI_Start(&r));
    }
    wait_permuted(reqs, round);
    for (MPI_Request r : reqs) CHECK(r != MPI_REQUEST_NULL);  // persistent: stays allocated
    check_all(cases, s, "persistent");
  }
  for (MPI_Request& r : reqs) MPI_OK(MPI_Request_free(&r));
}

}  // namespace coll
