// Collectives on device buffers: every collective, blocking (MPI_X), non-blocking
// (MPI_IX + MPI_Wait) and persistent (MPI_X_init, started twice with new data),
// in place where MPI allows it, on cudaMalloc-like device memory; a sweep over
// managed and pool (cudaMallocAsync) memory; MPI_SUM / MPI_MAX on float, int and
// double and MPI_SUM on MPIX_C_FLOAT16 / MPIX_BFLOAT16; user-defined ops (staged
// through the host by Chorus), commutative and not; a non-contiguous vector type.
//
// Results are checked against values computed locally. Inputs are small integers
// (-11..11), so every sum over <= 8 ranks is exact in every type and the
// expected bytes are exact. Output buffers are pre-filled with a sentinel so
// writes outside the result are caught.
//
// Tests tagged [algo] also run in the jobs that force one allreduce algorithm
// (CHORUS_ALLREDUCE_ALGO, tests/gpu/meson.build); the rest only in "auto".
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "gpu_harness.h"

namespace {

using gpu_test::Buffer;
using gpu_test::Mem;
using Bytes = std::vector<unsigned char>;

constexpr unsigned char kSentinel = 0xA5;

int me() { return jobs::rank(); }
int np() { return jobs::size(); }

std::uint64_t mix(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  std::uint64_t h = 0x9E3779B97F4A7C15ULL;
  for (std::uint64_t v : {a, b, c, d}) {
    h ^= v + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h;
}

int small_value(int rank, long i, int seed) {
  return static_cast<int>(mix(static_cast<std::uint64_t>(rank), static_cast<std::uint64_t>(i),
                              static_cast<std::uint64_t>(seed), 7) % 23) - 11;
}

// ---- modes -------------------------------------------------------------------------

enum class Mode { Blocking, Nonblocking, Persistent };
const Mode kModes[] = {Mode::Blocking, Mode::Nonblocking, Mode::Persistent};

const char* mode_name(Mode m) {
  switch (m) {
    case Mode::Blocking: return "blocking";
    case Mode::Nonblocking: return "non-blocking";
    case Mode::Persistent: return "persistent";
  }
  return "?";
}

// The blocking, non-blocking or persistent form of one collective.
#define CALL3(mode, req, B, I, P, ...)                                           \
  ((mode) == Mode::Blocking      ? B(__VA_ARGS__)                                \
   : (mode) == Mode::Nonblocking ? I(__VA_ARGS__, req)                           \
                                 : P(__VA_ARGS__, MPI_INFO_NULL, req))

using Fill = std::function<void(int seed)>;
using Call = std::function<int(Mode, MPI_Request*)>;
using Check = std::function<void(int seed)>;

// fill, call, (wait), check; persistent requests are started twice with new data.
void drive(Mode m, int seed, const Fill& fill, const Call& call, const Check& check) {
  MPI_Request req = MPI_REQUEST_NULL;
  if (m == Mode::Persistent) {
    REQUIRE(call(m, &req) == MPI_SUCCESS);
    for (int round = 0; round < 2; ++round) {
      fill(seed + round);
      REQUIRE(MPI_Start(&req) == MPI_SUCCESS);
      REQUIRE(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
      check(seed + round);
    }
    REQUIRE(MPI_Request_free(&req) == MPI_SUCCESS);
    return;
  }
  fill(seed);
  REQUIRE(call(m, &req) == MPI_SUCCESS);
  if (m == Mode::Nonblocking) REQUIRE(MPI_Wait(&req, MPI_STATUS_IGNORE) == MPI_SUCCESS);
  check(seed);
}

// First differing byte, as text ("" when equal).
std::string diff(const Bytes& got, std::size_t off, const Bytes& want) {
  if (got.size() < off + want.size()) return "result buffer too short";
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (got[off + i] != want[i]) {
      return "byte " + std::to_string(off + i) + " is " + std::to_string(got[off + i]) +
             ", want " + std::to_string(want[i]);
    }
  }
  return "";
}

#define CHECK_BYTES(got, off, want)            \
  do {                                         \
    const std::string why_ = diff(got, off, want); \
    INFO(why_);                                \
    CHECK(why_.empty());                       \
  } while (0)

// ---- reduction kinds ---------------------------------------------------------------

struct Red {
  std::string name;
  MPI_Datatype type;
  MPI_Op op;
  std::size_t bytes;  // per element
  bool commutative = true;
  std::function<void(int rank, long i, int seed, unsigned char* out)> gen;
  std::function<void(unsigned char* acc, const unsigned char* later)> combine;  // acc op= later
};

template <class T>
void enc(double v, unsigned char* p) {
  const T x = static_cast<T>(v);
  std::memcpy(p, &x, sizeof x);
}
template <class T>
double dec(const unsigned char* p) {
  T x;
  std::memcpy(&x, p, sizeof x);
  return static_cast<double>(x);
}
void enc_bf16(double v, unsigned char* p) {
  const float f = static_cast<float>(v);  // small integers: exact, no rounding needed
  std::uint32_t u;
  std::memcpy(&u, &f, 4);
  const std::uint16_t b = static_cast<std::uint16_t>(u >> 16);
  std::memcpy(p, &b, 2);
}
double dec_bf16(const unsigned char* p) {
  std::uint16_t b;
  std::memcpy(&b, p, 2);
  const std::uint32_t u = std::uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

Red numeric(const std::string& name, MPI_Datatype type, std::size_t bytes, bool is_max,
            void (*e)(double, unsigned char*), double (*d)(const unsigned char*)) {
  Red r;
  r.name = name + (is_max ? " MAX" : " SUM");
  r.type = type;
  r.op = is_max ? MPI_MAX : MPI_SUM;
  r.bytes = bytes;
  r.gen = [e](int rank, long i, int seed, unsigned char* out) {
    e(small_value(rank, i, seed), out);
  };
  r.combine = [e, d, is_max](unsigned char* acc, const unsigned char* later) {
    const double a = d(acc), b = d(later);
    e(is_max ? std::max(a, b) : a + b, acc);
  };
  return r;
}

const std::vector<Red>& builtin_reds() {
  static const std::vector<Red> v = [] {
    std::vector<Red> out;
    for (bool is_max : {false, true}) {
      out.push_back(numeric("float", MPI_FLOAT, 4, is_max, enc<float>, dec<float>));
      out.push_back(numeric("int", MPI_INT, 4, is_max, enc<int>, dec<int>));
      out.push_back(numeric("double", MPI_DOUBLE, 8, is_max, enc<double>, dec<double>));
    }
    out.push_back(numeric("float16", MPIX_C_FLOAT16, 2, false, enc<_Float16>, dec<_Float16>));
    out.push_back(numeric("bfloat16", MPIX_BFLOAT16, 2, false, enc_bf16, dec_bf16));
    return out;
  }();
  return v;
}

// User ops: "sum plus one" on int (commutative: the result is sum + p - 1) and the
// product of 2x2 matrices mod 65521 on a contiguous type of four ints (not
// commutative: the result depends on rank order).
void sum_plus_one(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = a[i] + b[i] + 1;
}

constexpr std::int64_t kPrime = 65521;

void mat_mul(const int* a, const int* b, int* out) {  // out = a * b (mod p)
  int r[4];
  r[0] = static_cast<int>((std::int64_t(a[0]) * b[0] + std::int64_t(a[1]) * b[2]) % kPrime);
  r[1] = static_cast<int>((std::int64_t(a[0]) * b[1] + std::int64_t(a[1]) * b[3]) % kPrime);
  r[2] = static_cast<int>((std::int64_t(a[2]) * b[0] + std::int64_t(a[3]) * b[2]) % kPrime);
  r[3] = static_cast<int>((std::int64_t(a[2]) * b[1] + std::int64_t(a[3]) * b[3]) % kPrime);
  std::memcpy(out, r, sizeof r);
}

void mat_op(void* in, void* inout, int* len, MPI_Datatype*) {
  const int* a = static_cast<const int*>(in);
  int* b = static_cast<int*>(inout);
  for (int i = 0; i < *len; ++i) mat_mul(a + 4 * i, b + 4 * i, b + 4 * i);  // in is earlier
}

struct UserOps {
  MPI_Op plus1 = MPI_OP_NULL, mat = MPI_OP_NULL;
  MPI_Datatype mat_type = MPI_DATATYPE_NULL;
  std::vector<Red> reds;
  UserOps() {
    MPI_Op_create(sum_plus_one, 1, &plus1);
    MPI_Op_create(mat_op, 0, &mat);
    MPI_Type_contiguous(4, MPI_INT, &mat_type);
    MPI_Type_commit(&mat_type);
    Red a;
    a.name = "user op sum+1 on int";
    a.type = MPI_INT;
    a.op = plus1;
    a.bytes = 4;
    a.gen = [](int rank, long i, int seed, unsigned char* out) {
      enc<int>(small_value(rank, i, seed), out);
    };
    a.combine = [](unsigned char* acc, const unsigned char* later) {
      enc<int>(dec<int>(acc) + dec<int>(later) + 1, acc);
    };
    reds.push_back(a);
    Red b;
    b.name = "user op 2x2 matrix product (non-commutative)";
    b.type = mat_type;
    b.op = mat;
    b.bytes = 16;
    b.commutative = false;
    b.gen = [](int rank, long i, int seed, unsigned char* out) {
      int m[4];
      for (int k = 0; k < 4; ++k) m[k] = small_value(rank, 4 * i + k, seed) + 11;
      std::memcpy(out, m, sizeof m);
    };
    b.combine = [](unsigned char* acc, const unsigned char* later) {
      int x[4], y[4];
      std::memcpy(x, acc, 16);
      std::memcpy(y, later, 16);
      mat_mul(x, y, x);
      std::memcpy(acc, x, 16);
    };
    reds.push_back(b);
  }
  ~UserOps() {
    MPI_Op_free(&plus1);
    MPI_Op_free(&mat);
    MPI_Type_free(&mat_type);
  }
};

// Input of `rank`: count elements starting at element index `first`.
Bytes red_input(const Red& r, int rank, long first, long count, int seed) {
  Bytes b(static_cast<std::size_t>(count) * r.bytes);
  for (long i = 0; i < count; ++i) r.gen(rank, first + i, seed, &b[static_cast<std::size_t>(i) * r.bytes]);
  return b;
}

// Ranks lo..hi-1 reduced in rank order over elements [first, first + count).
Bytes red_expect(const Red& r, int lo, int hi, long first, long count, int seed) {
  Bytes acc = red_input(r, lo, first, count, seed);
  for (int q = lo + 1; q < hi; ++q) {
    const Bytes in = red_input(r, q, first, count, seed);
    for (long i = 0; i < count; ++i) {
      r.combine(&acc[static_cast<std::size_t>(i) * r.bytes], &in[static_cast<std::size_t>(i) * r.bytes]);
    }
  }
  return acc;
}

std::size_t nbytes(const Red& r, long count) { return static_cast<std::size_t>(count) * r.bytes; }

// ---- reductions ----------------------------------------------------------------------

using RedCall = std::function<int(Mode, MPI_Request*, void* sendbuf)>;

// drive() for a reduction: this rank's input (`elems` elements) goes to sb, or to rb
// in place (otherwise rb is pre-filled with sentinels); `call` gets the send
// buffer argument (MPI_IN_PLACE in place).
void drive_red(Mode m, int seed, const Red& r, long elems, bool in_place, Buffer& sb, Buffer& rb,
               const RedCall& call, const Check& check) {
  drive(m, seed,
        [&](int s) {
          (in_place ? rb : sb).upload(red_input(r, me(), 0, elems, s));
          if (!in_place) rb.fill(kSentinel);
        },
        [&](Mode mm, MPI_Request* q) { return call(mm, q, in_place ? MPI_IN_PLACE : sb.get()); },
        check);
}

void allreduce(Mem kind, const Red& r, long count, bool in_place, Mode m, int seed) {
  INFO("MPI_Allreduce " << r.name << " count " << count << (in_place ? " in place " : " ")
                        << mode_name(m) << " on " << gpu_test::mem_name(kind));
  Buffer sb(kind, nbytes(r, count)), rb(kind, nbytes(r, count));
  drive_red(m, seed, r, count, in_place, sb, rb,
            [&](Mode mm, MPI_Request* q, void* sp) {
              return CALL3(mm, q, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, sp, rb.get(),
                           static_cast<int>(count), r.type, r.op, MPI_COMM_WORLD);
            },
            [&](int s) { CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), 0, count, s)); });
}

void reduce(Mem kind, const Red& r, long count, bool in_place, int root, Mode m, int seed) {
  INFO("MPI_Reduce " << r.name << " count " << count << " root " << root
                     << (in_place ? " in place " : " ") << mode_name(m));
  const bool at_root = me() == root;
  const bool ip = in_place && at_root;
  Buffer sb(kind, nbytes(r, count)), rb(kind, nbytes(r, count));
  drive_red(m, seed, r, count, ip, sb, rb,
            [&](Mode mm, MPI_Request* q, void* sp) {
              return CALL3(mm, q, MPI_Reduce, MPI_Ireduce, MPI_Reduce_init, sp, rb.get(),
                           static_cast<int>(count), r.type, r.op, root, MPI_COMM_WORLD);
            },
            [&](int s) {
              if (at_root) CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), 0, count, s));
              else CHECK_BYTES(rb.download(), 0, Bytes(nbytes(r, count), kSentinel));
            });
}

void reduce_scatter_block(Mem kind, const Red& r, long count, bool in_place, Mode m, int seed) {
  INFO("MPI_Reduce_scatter_block " << r.name << " count " << count
                                   << (in_place ? " in place " : " ") << mode_name(m));
  const long total = count * np();
  Buffer sb(kind, nbytes(r, total)), rb(kind, nbytes(r, in_place ? total : count));
  drive_red(m, seed, r, total, in_place, sb, rb,
            [&](Mode mm, MPI_Request* q, void* sp) {
              return CALL3(mm, q, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                           MPI_Reduce_scatter_block_init, sp, rb.get(), static_cast<int>(count),
                           r.type, r.op, MPI_COMM_WORLD);
            },
            [&](int s) {
              CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), me() * count, count, s));
            });
}

void reduce_scatter(Mem kind, const Red& r, long count, bool in_place, Mode m, int seed) {
  INFO("MPI_Reduce_scatter " << r.name << " base count " << count
                             << (in_place ? " in place " : " ") << mode_name(m));
  std::vector<int> counts(static_cast<std::size_t>(np()));
  long total = 0, first = 0;
  for (int q = 0; q < np(); ++q) {
    counts[static_cast<std::size_t>(q)] = static_cast<int>(count + q);
    if (q < me()) first += count + q;
    total += count + q;
  }
  const long mine = count + me();
  Buffer sb(kind, nbytes(r, total)), rb(kind, nbytes(r, in_place ? total : mine));
  drive_red(m, seed, r, total, in_place, sb, rb,
            [&](Mode mm, MPI_Request* q, void* sp) {
              return CALL3(mm, q, MPI_Reduce_scatter, MPI_Ireduce_scatter, MPI_Reduce_scatter_init,
                           sp, rb.get(), counts.data(), r.type, r.op, MPI_COMM_WORLD);
            },
            [&](int s) { CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), first, mine, s)); });
}

void scan(Mem kind, const Red& r, long count, bool in_place, bool exclusive, Mode m, int seed) {
  INFO((exclusive ? "MPI_Exscan " : "MPI_Scan ") << r.name << " count " << count
                                                << (in_place ? " in place " : " ") << mode_name(m));
  Buffer sb(kind, nbytes(r, count)), rb(kind, nbytes(r, count));
  drive_red(m, seed, r, count, in_place, sb, rb,
            [&](Mode mm, MPI_Request* q, void* sp) {
              const int c = static_cast<int>(count);
              if (exclusive) {
                return CALL3(mm, q, MPI_Exscan, MPI_Iexscan, MPI_Exscan_init, sp, rb.get(), c,
                             r.type, r.op, MPI_COMM_WORLD);
              }
              return CALL3(mm, q, MPI_Scan, MPI_Iscan, MPI_Scan_init, sp, rb.get(), c, r.type, r.op,
                           MPI_COMM_WORLD);
            },
            [&](int s) {
              if (exclusive && me() == 0) return;  // undefined on rank 0
              const int hi = exclusive ? me() : me() + 1;
              CHECK_BYTES(rb.download(), 0, red_expect(r, 0, hi, 0, count, s));
            });
}

std::vector<long> small_counts() {
  std::vector<long> out;
  for (long c : {0L, 1L, static_cast<long>(np() + 1), 1000L}) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  }
  return out;
}

// Every reduction collective for one kind, count, mode (both in-place forms).
void all_reductions(Mem kind, const Red& r, long count, Mode m, int seed) {
  for (bool ip : {false, true}) {
    allreduce(kind, r, count, ip, m, seed);
    reduce(kind, r, count, ip, np() - 1, m, seed + 1);
    reduce_scatter_block(kind, r, count, ip, m, seed + 2);
    reduce_scatter(kind, r, count, ip, m, seed + 3);
    scan(kind, r, count, ip, false, m, seed + 4);
    scan(kind, r, count, ip, true, m, seed + 5);
  }
}

// ---- data movement (MPI_INT) ------------------------------------------------------------

// Value of element k of the block that `src` sends to `dst`.
int mval(int src, int dst, long k, int seed) {
  return static_cast<int>(mix(static_cast<std::uint64_t>(src), static_cast<std::uint64_t>(dst),
                              static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(seed)) &
                          0x7fffffff);
}

Bytes ints(const std::vector<int>& v) {
  Bytes b(v.size() * 4);
  if (!v.empty()) std::memcpy(b.data(), v.data(), b.size());
  return b;
}

std::vector<int> block(int src, int dst, long count, int seed) {
  std::vector<int> v(static_cast<std::size_t>(count));
  for (long k = 0; k < count; ++k) v[static_cast<std::size_t>(k)] = mval(src, dst, k, seed);
  return v;
}

void append(std::vector<int>& a, const std::vector<int>& b) { a.insert(a.end(), b.begin(), b.end()); }

void bcast(Mem kind, long count, int root, Mode m, int seed) {
  INFO("MPI_Bcast count " << count << " root " << root << " " << mode_name(m));
  Buffer b(kind, static_cast<std::size_t>(count) * 4);
  drive(m, seed,
        [&](int s) {
          if (me() == root) b.upload(ints(block(root, -1, count, s)));
          else b.fill(kSentinel);
        },
        [&](Mode mm, MPI_Request* q) {
          return CALL3(mm, q, MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, b.get(),
                       static_cast<int>(count), MPI_INT, root, MPI_COMM_WORLD);
        },
        [&](int s) { CHECK_BYTES(b.download(), 0, ints(block(root, -1, count, s))); });
}

// Counts and displacements (in ints) of np() blocks in one buffer: block q holds
// counts[q] elements and is followed by `gap` unused ints (the v forms leave gaps).
struct Layout {
  std::vector<int> counts, displs;
  long extent = 0;  // ints
  long count(int q) const { return counts[static_cast<std::size_t>(q)]; }
  std::size_t offset(int q) const { return static_cast<std::size_t>(displs[static_cast<std::size_t>(q)]) * 4; }
  std::size_t bytes() const { return static_cast<std::size_t>(extent) * 4; }
};

Layout layout(const std::function<long(int q)>& count_of, long gap) {
  Layout l;
  long len = 0;
  for (int q = 0; q < np(); ++q) {
    const long c = count_of(q);
    l.counts.push_back(static_cast<int>(c));
    l.displs.push_back(static_cast<int>(len + gap * q));
    len += c;
  }
  l.extent = len + gap * np();
  return l;
}

// The image of a buffer laid out as `l`: block_of(q) in slot q, sentinels elsewhere.
Bytes image_of(const Layout& l, const std::function<std::vector<int>(int q)>& block_of) {
  Bytes img(l.bytes(), kSentinel);
  for (int q = 0; q < np(); ++q) {
    const auto v = block_of(q);
    if (!v.empty()) std::memcpy(&img[l.offset(q)], v.data(), v.size() * 4);
  }
  return img;
}

// Input of a gather-like call: rb all sentinels, then `mine` in sb, or in place in
// this rank's slot of rb.
void gather_input(Buffer& sb, Buffer& rb, bool in_place, const Layout& l, const std::vector<int>& mine) {
  rb.fill(kSentinel);
  if (!in_place) {
    sb.upload(ints(mine));
  } else if (!mine.empty()) {
    Bytes img = rb.download();
    std::memcpy(&img[l.offset(me())], mine.data(), mine.size() * 4);
    rb.upload(img);
  }
}

void allgather(Mem kind, long count, bool in_place, bool vector_form, Mode m, int seed) {
  INFO((vector_form ? "MPI_Allgatherv" : "MPI_Allgather")
       << " count " << count << (in_place ? " in place " : " ") << mode_name(m));
  // v form: rank q contributes count + q elements at displacement 2 * q + its offset.
  const Layout l = layout([&](int q) { return vector_form ? count + q : count; }, vector_form ? 2 : 0);
  const long mine = l.count(me());
  Buffer sb(kind, static_cast<std::size_t>(mine) * 4), rb(kind, l.bytes());
  drive(m, seed, [&](int s) { gather_input(sb, rb, in_place, l, block(me(), -1, mine, s)); },
        [&](Mode mm, MPI_Request* q) {
          void* sp = in_place ? MPI_IN_PLACE : sb.get();
          const int sc = in_place ? 0 : static_cast<int>(mine);
          if (vector_form) {
            return CALL3(mm, q, MPI_Allgatherv, MPI_Iallgatherv, MPI_Allgatherv_init, sp, sc,
                         MPI_INT, rb.get(), l.counts.data(), l.displs.data(), MPI_INT,
                         MPI_COMM_WORLD);
          }
          return CALL3(mm, q, MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, sp, sc, MPI_INT,
                       rb.get(), static_cast<int>(count), MPI_INT, MPI_COMM_WORLD);
        },
        [&](int s) {
          CHECK_BYTES(rb.download(), 0, image_of(l, [&](int q) { return block(q, -1, l.count(q), s); }));
        });
}

void gather(Mem kind, long count, bool in_place, bool vector_form, int root, Mode m, int seed) {
  INFO((vector_form ? "MPI_Gatherv" : "MPI_Gather") << " count " << count << " root " << root
                                                    << (in_place ? " in place " : " ") << mode_name(m));
  const Layout l = layout([&](int q) { return vector_form ? count + q : count; }, vector_form ? 1 : 0);
  const long mine = l.count(me());
  const bool at_root = me() == root, ip = in_place && at_root;
  Buffer sb(kind, static_cast<std::size_t>(mine) * 4), rb(kind, l.bytes());
  drive(m, seed, [&](int s) { gather_input(sb, rb, ip, l, block(me(), root, mine, s)); },
        [&](Mode mm, MPI_Request* q) {
          void* sp = ip ? MPI_IN_PLACE : sb.get();
          const int sc = static_cast<int>(mine);
          if (vector_form) {
            return CALL3(mm, q, MPI_Gatherv, MPI_Igatherv, MPI_Gatherv_init, sp, sc, MPI_INT,
                         rb.get(), l.counts.data(), l.displs.data(), MPI_INT, root,
                         MPI_COMM_WORLD);
          }
          return CALL3(mm, q, MPI_Gather, MPI_Igather, MPI_Gather_init, sp, sc, MPI_INT, rb.get(),
                       static_cast<int>(count), MPI_INT, root, MPI_COMM_WORLD);
        },
        [&](int s) {
          const Bytes want = at_root ? image_of(l, [&](int q) { return block(q, root, l.count(q), s); })
                                     : Bytes(l.bytes(), kSentinel);
          CHECK_BYTES(rb.download(), 0, want);
        });
}

void scatter(Mem kind, long count, bool in_place, bool vector_form, int root, Mode m, int seed) {
  INFO((vector_form ? "MPI_Scatterv" : "MPI_Scatter") << " count " << count << " root " << root
                                                      << (in_place ? " in place " : " ") << mode_name(m));
  const Layout l = layout([&](int q) { return vector_form ? count + q : count; }, vector_form ? 1 : 0);
  const long mine = l.count(me());
  const bool at_root = me() == root, ip = in_place && at_root;
  Buffer sb(kind, l.bytes()), rb(kind, static_cast<std::size_t>(mine) * 4);
  drive(m, seed,
        [&](int s) {
          rb.fill(kSentinel);
          const Bytes img = image_of(l, [&](int q) { return block(root, q, l.count(q), s); });
          if (at_root) sb.upload(img);
        },
        [&](Mode mm, MPI_Request* q) {
          void* rp = ip ? MPI_IN_PLACE : rb.get();
          const int rc = static_cast<int>(mine);
          if (vector_form) {
            return CALL3(mm, q, MPI_Scatterv, MPI_Iscatterv, MPI_Scatterv_init, sb.get(),
                         l.counts.data(), l.displs.data(), MPI_INT, rp, rc, MPI_INT, root,
                         MPI_COMM_WORLD);
          }
          return CALL3(mm, q, MPI_Scatter, MPI_Iscatter, MPI_Scatter_init, sb.get(),
                       static_cast<int>(count), MPI_INT, rp, rc, MPI_INT, root, MPI_COMM_WORLD);
        },
        [&](int s) {
          if (ip) return;  // the root's own block stays in place in sendbuf
          CHECK_BYTES(rb.download(), 0, ints(block(root, me(), mine, s)));
        });
}

void alltoall(Mem kind, long count, bool in_place, bool vector_form, Mode m, int seed) {
  INFO((vector_form ? "MPI_Alltoallv" : "MPI_Alltoall") << " count " << count
                                                        << (in_place ? " in place " : " ") << mode_name(m));
  // v form: rank a sends count + a + b elements to rank b (symmetric in a, b, so
  // in-place is legal), blocks one element apart.
  auto cnt = [&](int a, int b) { return vector_form ? count + a + b : count; };
  const Layout l = layout([&](int q) { return cnt(me(), q); }, vector_form ? 1 : 0);
  Buffer sb(kind, l.bytes()), rb(kind, l.bytes());
  auto image = [&](bool outgoing, int s) {
    return image_of(l, [&](int q) {
      return outgoing ? block(me(), q, cnt(me(), q), s) : block(q, me(), cnt(q, me()), s);
    });
  };
  drive(m, seed,
        [&](int s) {
          if (in_place) {
            rb.upload(image(true, s));
          } else {
            sb.upload(image(true, s));
            rb.fill(kSentinel);
          }
        },
        [&](Mode mm, MPI_Request* q) {
          void* sp = in_place ? MPI_IN_PLACE : sb.get();
          if (vector_form) {
            return CALL3(mm, q, MPI_Alltoallv, MPI_Ialltoallv, MPI_Alltoallv_init, sp,
                         l.counts.data(), l.displs.data(), MPI_INT, rb.get(), l.counts.data(),
                         l.displs.data(), MPI_INT, MPI_COMM_WORLD);
          }
          return CALL3(mm, q, MPI_Alltoall, MPI_Ialltoall, MPI_Alltoall_init, sp,
                       static_cast<int>(count), MPI_INT, rb.get(), static_cast<int>(count),
                       MPI_INT, MPI_COMM_WORLD);
        },
        [&](int s) { CHECK_BYTES(rb.download(), 0, image(false, s)); });
}

void barrier(Mode m) {
  INFO("MPI_Barrier " << mode_name(m));
  drive(m, 0, [](int) {},
        [](Mode mm, MPI_Request* q) {
          return CALL3(mm, q, MPI_Barrier, MPI_Ibarrier, MPI_Barrier_init, MPI_COMM_WORLD);
        },
        [](int) {});
}

void neighbor(Mem kind, long count, bool all_to_all, Mode m, int seed) {
  INFO((all_to_all ? "MPI_Neighbor_alltoall" : "MPI_Neighbor_allgather")
       << " count " << count << " " << mode_name(m));
  // A periodic ring: neighbours are (left, right), in that order.
  MPI_Comm ring;
  int dims[1] = {np()}, periods[1] = {1};
  REQUIRE(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring) == MPI_SUCCESS);
  int left = -1, right = -1;
  MPI_Cart_shift(ring, 0, 1, &left, &right);
  const int nbr[2] = {left, right};
  const std::size_t blk = static_cast<std::size_t>(count) * 4;
  Buffer sb(kind, all_to_all ? 2 * blk : blk), rb(kind, 2 * blk);
  // Block from a to b: in alltoall, a's block for its k-th neighbour (tagged k, as
  // a ring of 1 or 2 ranks has the same rank as both neighbours).
  drive(m, seed,
        [&](int s) {
          rb.fill(kSentinel);
          if (all_to_all) {
            auto v = block(me(), 0, count, s);
            append(v, block(me(), 1, count, s));
            sb.upload(ints(v));
          } else {
            sb.upload(ints(block(me(), -1, count, s)));
          }
        },
        [&](Mode mm, MPI_Request* q) {
          const int c = static_cast<int>(count);
          if (all_to_all) {
            return CALL3(mm, q, MPI_Neighbor_alltoall, MPI_Ineighbor_alltoall,
                         MPI_Neighbor_alltoall_init, sb.get(), c, MPI_INT, rb.get(), c, MPI_INT,
                         ring);
          }
          return CALL3(mm, q, MPI_Neighbor_allgather, MPI_Ineighbor_allgather,
                       MPI_Neighbor_allgather_init, sb.get(), c, MPI_INT, rb.get(), c, MPI_INT,
                       ring);
        },
        [&](int s) {
          // From the left neighbour we get what it sent to its right (index 1), and
          // from the right neighbour what it sent to its left (index 0).
          std::vector<int> want;
          if (all_to_all) {
            want = block(nbr[0], 1, count, s);
            append(want, block(nbr[1], 0, count, s));
          } else {
            want = block(nbr[0], -1, count, s);
            append(want, block(nbr[1], -1, count, s));
          }
          CHECK_BYTES(rb.download(), 0, ints(want));
        });
  MPI_Comm_free(&ring);
}

void all_movement(Mem kind, long count, Mode m, int seed) {
  const int root = np() > 1 ? 1 : 0;
  bcast(kind, count, root, m, seed);
  for (bool ip : {false, true}) {
    for (bool v : {false, true}) {
      allgather(kind, count, ip, v, m, seed + 1);
      gather(kind, count, ip, v, root, m, seed + 2);
      scatter(kind, count, ip, v, root, m, seed + 3);
      alltoall(kind, count, ip, v, m, seed + 4);
    }
  }
  neighbor(kind, count, false, m, seed + 5);
  neighbor(kind, count, true, m, seed + 6);
}

}  // namespace

// ---- tests -----------------------------------------------------------------------------

TEST_CASE("reductions on device memory: every collective, type, op and mode", "[gpu][coll][algo]") {
  int seed = 1;
  for (Mode m : kModes) {
    for (const Red& r : builtin_reds()) {
      for (long count : small_counts()) all_reductions(Mem::Device, r, count, m, seed += 10);
    }
  }
}

TEST_CASE("allreduce on device memory spanning many staging chunks", "[gpu][coll][algo]") {
  // 1.2 MB of floats: more than one CHORUS_GPU_CHUNK_BYTES (1 MiB) chunk, not a
  // multiple of the rank count; half types at the same element count.
  const long n = 300007;
  int seed = 5000;
  for (Mode m : kModes) {
    for (const Red& r : builtin_reds()) {
      if (r.op != MPI_SUM && r.type != MPI_FLOAT) continue;
      for (bool ip : {false, true}) allreduce(Mem::Device, r, n, ip, m, ++seed);
    }
  }
  reduce_scatter_block(Mem::Device, builtin_reds()[0], n, false, Mode::Blocking, ++seed);
  bcast(Mem::Device, n, 0, Mode::Nonblocking, ++seed);
  allgather(Mem::Device, n / np(), false, false, Mode::Blocking, ++seed);
}

TEST_CASE("data movement on device memory: every collective and mode", "[gpu][coll][algo]") {
  int seed = 9000;
  for (Mode m : kModes) {
    barrier(m);
    for (long count : small_counts()) all_movement(Mem::Device, count, m, seed += 10);
  }
}

TEST_CASE("user-defined ops on device memory (staged)", "[gpu][coll][algo]") {
  UserOps ops;
  int seed = 12000;
  for (Mode m : kModes) {
    for (const Red& r : ops.reds) {
      for (long count : {1L, 1000L}) all_reductions(Mem::Device, r, count, m, seed += 10);
    }
  }
}

TEST_CASE("non-contiguous vector type on device memory", "[gpu][coll][algo]") {
  // 3 blocks of 2 ints, stride 5 ints: 6 ints of data in an extent of 12 ints
  // (the last block ends at int 12, so the extent is 12; ints 2-4 and 7-9 are gaps).
  MPI_Datatype vec;
  REQUIRE(MPI_Type_vector(3, 2, 5, MPI_INT, &vec) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&vec) == MPI_SUCCESS);
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(vec, &lb, &extent);
  REQUIRE(extent == 12 * 4);
  auto data_slot = [](long j) { return (j % 5) < 2; };  // int j of an element is data
  const long count = 7;  // elements
  const std::size_t ints_per = 12, total = ints_per * count;
  // Image of `count` elements whose data ints are v(k) for the k-th data int; gaps sentinel.
  auto image = [&](const std::function<int(long)>& v, std::size_t nelem) {
    Bytes img(ints_per * nelem * 4, kSentinel);
    long k = 0;
    for (std::size_t e = 0; e < nelem; ++e) {
      for (long j = 0; j < static_cast<long>(ints_per); ++j) {
        if (!data_slot(j)) continue;
        const int x = v(k++);
        std::memcpy(&img[(e * ints_per + static_cast<std::size_t>(j)) * 4], &x, 4);
      }
    }
    return img;
  };
  int seed = 15000;
  for (Mode m : kModes) {
    INFO(mode_name(m));
    // MPI_Bcast from rank 0.
    {
      Buffer b(Mem::Device, total * 4);
      const int s = ++seed;
      drive(m, s,
            [&](int ss) {
              if (me() == 0) b.upload(image([&](long k) { return mval(0, -1, k, ss); }, count));
              else b.fill(kSentinel);
            },
            [&](Mode mm, MPI_Request* q) {
              return CALL3(mm, q, MPI_Bcast, MPI_Ibcast, MPI_Bcast_init, b.get(),
                           static_cast<int>(count), vec, 0, MPI_COMM_WORLD);
            },
            [&](int ss) {
              CHECK_BYTES(b.download(), 0, image([&](long k) { return mval(0, -1, k, ss); }, count));
            });
    }
    // MPI_Allgather: each rank's `count` elements, placed rank after rank.
    {
      Buffer sb(Mem::Device, total * 4), rb(Mem::Device, total * 4 * static_cast<std::size_t>(np()));
      const int s = ++seed;
      const long per = 6 * count;  // data ints per rank
      drive(m, s,
            [&](int ss) {
              sb.upload(image([&](long k) { return mval(me(), -1, k, ss); }, count));
              rb.fill(kSentinel);
            },
            [&](Mode mm, MPI_Request* q) {
              return CALL3(mm, q, MPI_Allgather, MPI_Iallgather, MPI_Allgather_init, sb.get(),
                           static_cast<int>(count), vec, rb.get(), static_cast<int>(count), vec,
                           MPI_COMM_WORLD);
            },
            [&](int ss) {
              CHECK_BYTES(rb.download(), 0,
                          image([&](long k) { return mval(static_cast<int>(k / per), -1, k % per, ss); },
                                count * static_cast<std::size_t>(np())));
            });
    }
    // MPI_Allreduce with MPI_SUM on the vector type: gaps must stay untouched.
    {
      Buffer sb(Mem::Device, total * 4), rb(Mem::Device, total * 4);
      const int s = ++seed;
      drive(m, s,
            [&](int ss) {
              sb.upload(image([&](long k) { return small_value(me(), k, ss); }, count));
              rb.fill(kSentinel);
            },
            [&](Mode mm, MPI_Request* q) {
              return CALL3(mm, q, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, sb.get(),
                           rb.get(), static_cast<int>(count), vec, MPI_SUM, MPI_COMM_WORLD);
            },
            [&](int ss) {
              CHECK_BYTES(rb.download(), 0, image([&](long k) {
                            int sum = 0;
                            for (int q = 0; q < np(); ++q) sum += small_value(q, k, ss);
                            return sum;
                          }, count));
            });
    }
  }
  MPI_Type_free(&vec);
}

TEST_CASE("managed and pool memory: reductions and movement", "[gpu][coll][kinds]") {
  int seed = 20000;
  for (Mem kind : {Mem::Managed, Mem::Pool}) {
    INFO(gpu_test::mem_name(kind));
    for (Mode m : kModes) {
      for (long count : {1L, static_cast<long>(np() + 1), 300007L}) {
        allreduce(kind, builtin_reds()[0], count, false, m, seed += 10);
        allreduce(kind, builtin_reds()[6], count, true, m, seed += 10);  // float16
        reduce(kind, builtin_reds()[1], count, true, 0, m, seed += 10);
      }
      all_movement(kind, 5, m, seed += 10);
    }
  }
}

TEST_CASE("device send buffer, host receive buffer and the reverse", "[gpu][coll][kinds]") {
  // Mixed kinds in one call: sendbuf on the device, recvbuf in pageable memory.
  const Red& r = builtin_reds()[2];  // double SUM
  const long count = 1000;
  for (Mode m : kModes) {
    for (bool dev_send : {true, false}) {
      INFO((dev_send ? "device -> host " : "host -> device ") << mode_name(m));
      Buffer sb(dev_send ? Mem::Device : Mem::Host, nbytes(r, count));
      Buffer rb(dev_send ? Mem::Host : Mem::Device, nbytes(r, count));
      drive(m, 31000,
            [&](int s) {
              sb.upload(red_input(r, me(), 0, count, s));
              rb.fill(kSentinel);
            },
            [&](Mode mm, MPI_Request* q) {
              return CALL3(mm, q, MPI_Allreduce, MPI_Iallreduce, MPI_Allreduce_init, sb.get(),
                           rb.get(), static_cast<int>(count), r.type, r.op, MPI_COMM_WORLD);
            },
            [&](int s) { CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), 0, count, s)); });
    }
  }
}

TEST_CASE("buffers in different memory on different ranks", "[gpu][coll][kinds]") {
  // MPI lets each rank place its buffers where it likes: ranks alternate device
  // and pageable host memory (and pinned on every third at 3+ ranks). Every rank
  // must still choose the same algorithm: before, a host rank took the shared
  // window (or the inline allreduce) while a device rank did not, and both hung.
  const Mem kinds[] = {Mem::Device, Mem::Host, Mem::Pinned};
  const Mem kind = kinds[me() % 3];
  int seed = 40000;
  for (Mode m : kModes) {
    for (long count : {1L, 1000L}) {
      all_reductions(kind, builtin_reds()[2], count, m, seed += 10);
      all_movement(kind, count, m, seed += 10);
    }
    // Repeats of one small allreduce: the inline path on host ranks.
    for (int i = 0; i < 3; ++i) allreduce(kind, builtin_reds()[0], 8, false, m, seed += 10);
  }
}

TEST_CASE("ranks of different memory leave the shared window alike", "[.][gpu_busy]") {
  // CHORUS_COLL_BUSY_SWITCH (lib/coll/executor.h, BusyAlt): rank 0 says its
  // window syncs are slow (MPI_T), so every large window call must go over
  // messages on every rank. A device rank once left its way out unarmed and
  // waited in the window for host ranks that had left it. Run without
  // CHORUS_CHECK_COLL (meson: gpu_coll_np*_busy_mock), whose agreement leaves no
  // room for the ranks' sync times.
  int provided, idx, n, always = 1, was = 0;
  MPI_T_cvar_handle h;
  REQUIRE(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) == MPI_SUCCESS);
  REQUIRE(MPI_T_cvar_get_index("CHORUS_COLL_BUSY_SWITCH", &idx) == MPI_SUCCESS);
  REQUIRE(MPI_T_cvar_handle_alloc(idx, nullptr, &h, &n) == MPI_SUCCESS);
  REQUIRE(MPI_T_cvar_read(h, &was) == MPI_SUCCESS);
  if (me() == 0) REQUIRE(MPI_T_cvar_write(h, &always) == MPI_SUCCESS);
  const Mem kinds[] = {Mem::Device, Mem::Host, Mem::Pinned};
  const Mem kind = kinds[me() % 3];
  int seed = 45000;
  // 1 MiB and more: several slots of the window (the way out needs four syncs).
  const long count = (1L << 18) + 5;
  for (Mode m : kModes) {
    allreduce(kind, builtin_reds()[0], count, false, m, seed += 10);
    allreduce(kind, builtin_reds()[0], 2 * count, true, m, seed += 10);
  }
  MPI_T_cvar_write(h, &was);
  MPI_T_cvar_handle_free(&h);
  MPI_T_finalize();
}

TEST_CASE("reductions on device buffers that start off their type's alignment", "[gpu][coll][kinds]") {
  // A pointer offset into an allocation (one 2-byte element, one byte for the
  // 16-bit floats): the device loads an element only from an aligned address, so
  // the reduction kernel must not be run on such operands as they are (the mock,
  // like a GPU, fails a misaligned kernel with CUDA_ERROR_MISALIGNED_ADDRESS, and
  // the error sticks to the process).
  const long count = 1000;
  int seed = 47000;
  for (const Red& r : builtin_reds()) {
    const std::size_t off = r.bytes == 2 ? 1 : 2;
    const std::size_t n = nbytes(r, count);
    Buffer sb(Mem::Device, n + 16), rb(Mem::Device, n + 16);
    void* sp = static_cast<char*>(sb.get()) + off;
    void* rp = static_cast<char*>(rb.get()) + off;
    for (bool in_place : {false, true}) {
      INFO("MPI_Allreduce " << r.name << (in_place ? " in place" : "") << " at offset " << off);
      ++seed;
      const Bytes in = red_input(r, me(), 0, count, seed);
      gpu_test::copy(in_place ? rp : sp, in.data(), n);
      REQUIRE(MPI_Allreduce(in_place ? MPI_IN_PLACE : sp, rp, static_cast<int>(count), r.type, r.op,
                            MPI_COMM_WORLD) == MPI_SUCCESS);
      Bytes got(n);
      gpu_test::copy(got.data(), rp, n);
      CHECK_BYTES(got, 0, red_expect(r, 0, np(), 0, count, seed));
    }
  }
}

TEST_CASE("a thread without a current CUDA context keeps none", "[gpu][coll][context]") {
  // Chorus runs its driver calls in its device's primary context and leaves the
  // thread's own as it found it: an application thread that never made a context
  // current must not find Chorus's there afterwards (its later runtime calls would
  // go to Chorus's device), and Chorus's calls must work from such a thread.
  void* mine = gpu_test::current_context();
  REQUIRE(mine != nullptr);  // the harness bound the device
  const Red& r = builtin_reds()[0];  // float SUM
  const long count = 5000;
  const std::size_t n = nbytes(r, count);
  Buffer sb(Mem::Device, n), rb(Mem::Device, n);
  const Bytes in = red_input(r, me(), 0, count, 48000);
  sb.upload(in);
  // Non-contiguous data (a vector type: packed on the device) and a send to self.
  MPI_Datatype vec;
  REQUIRE(MPI_Type_vector(100, 2, 3, MPI_FLOAT, &vec) == MPI_SUCCESS);
  REQUIRE(MPI_Type_commit(&vec) == MPI_SUCCESS);
  Buffer vb(Mem::Device, 300 * sizeof(float)), vr(Mem::Device, 300 * sizeof(float));
  // A ring exchange of 1.5 MB: staged through pinned memory in chunks (lanes).
  const std::size_t big = 1536 * 1024;
  Buffer bs(Mem::Device, big), br(Mem::Device, big);
  bs.fill(static_cast<unsigned char>(me() + 1));
  gpu_test::set_current_context(nullptr);
  int rc = MPI_Allreduce(sb.get(), rb.get(), static_cast<int>(count), r.type, r.op, MPI_COMM_WORLD);
  void* after = gpu_test::current_context();
  int rc2 = MPI_Sendrecv(vb.get(), 1, vec, me(), 7, vr.get(), 1, vec, me(), 7, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
  const int right = (me() + 1) % np(), left = (me() + np() - 1) % np();
  int rc3 = MPI_Sendrecv(bs.get(), static_cast<int>(big), MPI_BYTE, right, 8, br.get(), static_cast<int>(big),
                         MPI_BYTE, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  void* after2 = gpu_test::current_context();
  gpu_test::set_current_context(mine);
  CHECK(rc3 == MPI_SUCCESS);
  CHECK(br.download() == Bytes(big, static_cast<unsigned char>(left + 1)));
  MPI_Type_free(&vec);
  CHECK(rc == MPI_SUCCESS);
  CHECK(rc2 == MPI_SUCCESS);
  CHECK(after == nullptr);
  CHECK(after2 == nullptr);
  CHECK_BYTES(rb.download(), 0, red_expect(r, 0, np(), 0, count, 48000));
}
