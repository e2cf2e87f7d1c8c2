// Derived datatypes, pack/unpack and local reductions through the MPI API (jobs).
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "../jobs/mpi_test.h"

using jobs::left;
using jobs::rank;
using jobs::right;

namespace {

MPI_Datatype committed(MPI_Datatype t) {
  MPI_OK(MPI_Type_commit(&t));
  return t;
}

}  // namespace

TEST_CASE("vector column sent, received as contiguous ints", "[types][p2p]") {
  int m[4][4];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) m[i][j] = rank() * 100 + i * 4 + j;
  MPI_Datatype col;
  MPI_OK(MPI_Type_vector(4, 1, 4, MPI_INT, &col));
  col = committed(col);
  int got[4] = {-1, -1, -1, -1};
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(&m[0][1], 1, col, right(), 1, got, 4, MPI_INT, left(), 1, MPI_COMM_WORLD, &st));
  for (int i = 0; i < 4; ++i) CHECK(got[i] == left() * 100 + i * 4 + 1);
  int n = -1;
  MPI_OK(MPI_Get_count(&st, MPI_INT, &n));
  CHECK(n == 4);
  MPI_OK(MPI_Get_count(&st, col, &n));
  CHECK(n == 1);
  MPI_OK(MPI_Get_elements(&st, col, &n));
  CHECK(n == 4);

  // And the other way: contiguous ints into a column (blocking Send/Recv).
  int back[4][4] = {};
  int row[4] = {rank(), rank() + 1, rank() + 2, rank() + 3};
  MPI_Request r;
  MPI_OK(MPI_Irecv(&back[0][2], 1, col, left(), 2, MPI_COMM_WORLD, &r));
  MPI_OK(MPI_Send(row, 4, MPI_INT, right(), 2, MPI_COMM_WORLD));
  MPI_OK(MPI_Wait(&r, &st));
  for (int i = 0; i < 4; ++i) {
    CHECK(back[i][2] == left() + i);
    CHECK(back[i][1] == 0);
    CHECK(back[i][3] == 0);
  }
  MPI_OK(MPI_Type_free(&col));
  CHECK(col == MPI_DATATYPE_NULL);
}

TEST_CASE("indexed and struct types over p2p, blocking and non-blocking", "[types][p2p]") {
  struct Particle {
    char tag;
    double x[3];
    int id;
  };
  int bl[3] = {1, 3, 1};
  MPI_Aint disp[3] = {offsetof(Particle, tag), offsetof(Particle, x), offsetof(Particle, id)};
  MPI_Datatype types[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
  MPI_Datatype pt;
  MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &pt));
  pt = committed(pt);
  MPI_Aint lb, ext;
  MPI_OK(MPI_Type_get_extent(pt, &lb, &ext));
  CHECK(lb == 0);
  CHECK(ext == static_cast<MPI_Aint>(sizeof(Particle)));
  int size = 0;
  MPI_OK(MPI_Type_size(pt, &size));
  CHECK(size == 1 + 24 + 4);

  const int n = 5;
  Particle out[n], in[n];
  std::memset(static_cast<void*>(out), 0x5a, sizeof out);
  std::memset(static_cast<void*>(in), 0, sizeof in);
  for (int i = 0; i < n; ++i) {
    out[i].tag = static_cast<char>('a' + i);
    for (int k = 0; k < 3; ++k) out[i].x[k] = rank() + i * 0.5 + k;
    out[i].id = rank() * 10 + i;
  }
  MPI_Request reqs[2];
  MPI_OK(MPI_Irecv(in, n, pt, left(), 3, MPI_COMM_WORLD, &reqs[0]));
  MPI_OK(MPI_Isend(out, n, pt, right(), 3, MPI_COMM_WORLD, &reqs[1]));
  // The requests hold the type: freeing it now is legal.
  MPI_OK(MPI_Type_free(&pt));
  MPI_Status sts[2];
  MPI_OK(MPI_Waitall(2, reqs, sts));
  for (int i = 0; i < n; ++i) {
    CHECK(in[i].tag == 'a' + i);
    CHECK(in[i].x[2] == left() + i * 0.5 + 2);
    CHECK(in[i].id == left() * 10 + i);
  }
  int bytes = 0;
  MPI_OK(MPI_Get_count(&sts[0], MPI_BYTE, &bytes));
  CHECK(bytes == n * size);

  // indexed: elements {1,2} and {5} of each 8-int row; received as 3 contiguous ints.
  int blens[2] = {2, 1}, disps[2] = {1, 5};
  MPI_Datatype ix;
  MPI_OK(MPI_Type_indexed(2, blens, disps, MPI_INT, &ix));
  ix = committed(ix);
  int src[8];
  for (int i = 0; i < 8; ++i) src[i] = rank() * 8 + i;
  int dst[3] = {};
  MPI_OK(MPI_Sendrecv(src, 1, ix, right(), 4, dst, 3, MPI_INT, left(), 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(dst[0] == left() * 8 + 1);
  CHECK(dst[1] == left() * 8 + 2);
  CHECK(dst[2] == left() * 8 + 5);
  MPI_OK(MPI_Type_free(&ix));
}

TEST_CASE("pair types move packed; persistent receive with a derived type", "[types][p2p]") {
  struct DI {
    double v;
    int i;
  };
  DI out[3], in[3];
  for (int k = 0; k < 3; ++k) out[k] = {rank() + 0.25 * k, rank() * 3 + k};
  std::memset(static_cast<void*>(in), 0, sizeof in);
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(out, 3, MPI_DOUBLE_INT, right(), 5, in, 3, MPI_DOUBLE_INT, left(), 5,
                      MPI_COMM_WORLD, &st));
  int bytes = 0;
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &bytes));
  CHECK(bytes == 3 * 12);
  for (int k = 0; k < 3; ++k) {
    CHECK(in[k].v == left() + 0.25 * k);
    CHECK(in[k].i == left() * 3 + k);
  }

  MPI_Datatype every_other;
  MPI_OK(MPI_Type_vector(3, 1, 2, MPI_SHORT, &every_other));
  every_other = committed(every_other);
  short buf[6];
  MPI_Request r;
  MPI_OK(MPI_Recv_init(buf, 1, every_other, left(), 6, MPI_COMM_WORLD, &r));
  for (int round = 0; round < 2; ++round) {
    for (short& s : buf) s = -1;
    MPI_OK(MPI_Start(&r));
    short vals[3] = {static_cast<short>(rank() + round), 7, 8};
    MPI_OK(MPI_Send(vals, 3, MPI_SHORT, right(), 6, MPI_COMM_WORLD));
    MPI_OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    CHECK(buf[0] == left() + round);
    CHECK(buf[1] == -1);
    CHECK(buf[2] == 7);
    CHECK(buf[4] == 8);
  }
  MPI_OK(MPI_Request_free(&r));
  MPI_OK(MPI_Type_free(&every_other));
}

TEST_CASE("Get_elements on a derived type with a partial element", "[types]") {
  MPI_Datatype two;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &two));
  two = committed(two);
  int vals[3] = {1, 2, 3}, got[4] = {};
  MPI_Status st;
  MPI_OK(MPI_Sendrecv(vals, 3, MPI_INT, right(), 7, got, 2, two, left(), 7, MPI_COMM_WORLD, &st));
  int n = 0;
  MPI_OK(MPI_Get_count(&st, two, &n));
  CHECK(n == MPI_UNDEFINED);
  MPI_OK(MPI_Get_elements(&st, two, &n));
  CHECK(n == 3);
  MPI_Count nx = 0;
  MPI_OK(MPI_Get_elements_x(&st, two, &nx));
  CHECK(nx == 3);
  CHECK(got[2] == 3);
  MPI_OK(MPI_Status_set_elements(&st, two, 5));
  MPI_OK(MPI_Get_count(&st, MPI_BYTE, &n));
  CHECK(n == 20);
  MPI_OK(MPI_Type_free(&two));
}

TEST_CASE("Pack, Unpack and Pack_size", "[types][pack]") {
  MPI_Datatype v;
  MPI_OK(MPI_Type_vector(3, 2, 3, MPI_DOUBLE, &v));
  v = committed(v);
  double src[9];
  for (int i = 0; i < 9; ++i) src[i] = i;
  int psize = 0;
  MPI_OK(MPI_Pack_size(1, v, MPI_COMM_WORLD, &psize));
  CHECK(psize == 48);
  std::vector<char> packed(static_cast<std::size_t>(psize) + 4);
  int pos = 0, one = 42;
  MPI_OK(MPI_Pack(&one, 1, MPI_INT, packed.data(), static_cast<int>(packed.size()), &pos, MPI_COMM_WORLD));
  MPI_OK(MPI_Pack(src, 1, v, packed.data(), static_cast<int>(packed.size()), &pos, MPI_COMM_WORLD));
  CHECK(pos == 52);
  // Ship the packed bytes as MPI_PACKED and unpack on the other side.
  std::vector<char> in(packed.size());
  MPI_OK(MPI_Sendrecv(packed.data(), pos, MPI_PACKED, right(), 8, in.data(), pos, MPI_PACKED, left(), 8,
                      MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  double dst[9] = {};
  int x = 0;
  pos = 0;
  MPI_OK(MPI_Unpack(in.data(), static_cast<int>(in.size()), &pos, &x, 1, MPI_INT, MPI_COMM_WORLD));
  MPI_OK(MPI_Unpack(in.data(), static_cast<int>(in.size()), &pos, dst, 1, v, MPI_COMM_WORLD));
  CHECK(x == 42);
  const double want[9] = {0, 1, 0, 3, 4, 0, 6, 7, 0};
  for (int i = 0; i < 9; ++i) CHECK(dst[i] == want[i]);
  // Too small an output buffer.
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  pos = 0;
  int rc = MPI_Pack(src, 1, v, packed.data(), 10, &pos, MPI_COMM_WORLD);
  CHECK(jobs::error_class(rc) == MPI_ERR_TRUNCATE);
  MPI_OK(MPI_Type_free(&v));
}

TEST_CASE("extents, names, envelope and contents", "[types]") {
  MPI_Datatype r;
  MPI_OK(MPI_Type_create_resized(MPI_INT, -4, 16, &r));
  MPI_Aint lb, ext;
  MPI_OK(MPI_Type_get_extent(r, &lb, &ext));
  CHECK(lb == -4);
  CHECK(ext == 16);
  MPI_OK(MPI_Type_get_true_extent(r, &lb, &ext));
  CHECK(lb == 0);
  CHECK(ext == 4);
  MPI_Count clb, cext;
  MPI_OK(MPI_Type_get_extent_x(r, &clb, &cext));
  CHECK(cext == 16);
  MPI_OK(MPI_Type_get_true_extent_x(r, &clb, &cext));
  CHECK(cext == 4);
  MPI_Count sz;
  MPI_OK(MPI_Type_size_x(r, &sz));
  CHECK(sz == 4);
  MPI_OK(MPI_Type_set_name(r, "padded int"));
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  MPI_OK(MPI_Type_get_name(r, name, &len));
  CHECK(std::string(name) == "padded int");
  MPI_OK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
  CHECK(std::string(name) == "MPI_DOUBLE");

  MPI_Datatype hv;
  MPI_OK(MPI_Type_create_hvector(3, 2, 40, r, &hv));
  int ni, na, nd, comb;
  MPI_OK(MPI_Type_get_envelope(hv, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_HVECTOR);
  CHECK(ni == 2);
  CHECK(na == 1);
  CHECK(nd == 1);
  int ints[2];
  MPI_Aint addrs[1];
  MPI_Datatype dts[1];
  MPI_OK(MPI_Type_get_contents(hv, 2, 1, 1, ints, addrs, dts));
  CHECK(ints[0] == 3);
  CHECK(ints[1] == 2);
  CHECK(addrs[0] == 40);
  MPI_OK(MPI_Type_get_envelope(dts[0], &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_RESIZED);
  MPI_OK(MPI_Type_free(&dts[0]));
  MPI_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_NAMED);

  MPI_Datatype d;
  MPI_OK(MPI_Type_dup(hv, &d));
  MPI_OK(MPI_Type_get_extent(d, &lb, &ext));
  MPI_Aint lb2, ext2;
  MPI_OK(MPI_Type_get_extent(hv, &lb2, &ext2));
  CHECK(lb == lb2);
  CHECK(ext == ext2);
  MPI_OK(MPI_Type_free(&d));
  MPI_OK(MPI_Type_free(&hv));
  MPI_OK(MPI_Type_free(&r));

  int a[4];
  MPI_Aint a0, a3;
  MPI_OK(MPI_Get_address(&a[0], &a0));
  MPI_OK(MPI_Get_address(&a[3], &a3));
  CHECK(MPI_Aint_diff(a3, a0) == 3 * static_cast<MPI_Aint>(sizeof(int)));
  CHECK(MPI_Aint_add(a0, 12) == a3);
}

TEST_CASE("absolute addresses from MPI_BOTTOM", "[types][p2p]") {
  int x = rank() + 1000;
  double y = rank() + 0.5;
  MPI_Aint addrs[2];
  MPI_OK(MPI_Get_address(&x, &addrs[0]));
  MPI_OK(MPI_Get_address(&y, &addrs[1]));
  int bl[2] = {1, 1};
  MPI_Datatype ts[2] = {MPI_INT, MPI_DOUBLE};
  MPI_Datatype abs;
  MPI_OK(MPI_Type_create_struct(2, bl, addrs, ts, &abs));
  abs = committed(abs);
  struct {
    int x;
    double y;
  } in{};
  MPI_Aint ia[2];
  MPI_OK(MPI_Get_address(&in.x, &ia[0]));
  MPI_OK(MPI_Get_address(&in.y, &ia[1]));
  MPI_Datatype abs_in;
  MPI_OK(MPI_Type_create_struct(2, bl, ia, ts, &abs_in));
  abs_in = committed(abs_in);
  MPI_OK(MPI_Sendrecv(MPI_BOTTOM, 1, abs, right(), 9, MPI_BOTTOM, 1, abs_in, left(), 9, MPI_COMM_WORLD,
                      MPI_STATUS_IGNORE));
  CHECK(in.x == left() + 1000);
  CHECK(in.y == left() + 0.5);
  MPI_OK(MPI_Type_free(&abs));
  MPI_OK(MPI_Type_free(&abs_in));
}

TEST_CASE("Sendrecv_replace and Mrecv with derived types", "[types][p2p]") {
  MPI_Datatype v;
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
  v = committed(v);
  int buf[3] = {rank(), -7, rank() * 2};
  MPI_OK(MPI_Sendrecv_replace(buf, 1, v, right(), 10, left(), 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(buf[0] == left());
  CHECK(buf[1] == -7);
  CHECK(buf[2] == left() * 2);

  int vals[2] = {rank() + 1, rank() + 2};
  MPI_Request sr;
  MPI_OK(MPI_Isend(vals, 2, MPI_INT, right(), 11, MPI_COMM_WORLD, &sr));
  MPI_Message msg;
  MPI_Status st;
  MPI_OK(MPI_Mprobe(left(), 11, MPI_COMM_WORLD, &msg, &st));
  int got[3] = {0, -1, 0};
  MPI_OK(MPI_Mrecv(got, 1, v, &msg, &st));
  MPI_OK(MPI_Wait(&sr, MPI_STATUS_IGNORE));
  CHECK(got[0] == left() + 1);
  CHECK(got[1] == -1);
  CHECK(got[2] == left() + 2);
  MPI_OK(MPI_Type_free(&v));
}

namespace {
// Non-commutative: inout = in - inout, over the user's layout.
void minus(void* in, void* inout, int* len, MPI_Datatype* dt) {
  MPI_Aint lb, ext;
  MPI_Type_get_extent(*dt, &lb, &ext);
  for (int i = 0; i < *len; ++i) {
    int* a = reinterpret_cast<int*>(static_cast<char*>(in) + i * ext);
    int* b = reinterpret_cast<int*>(static_cast<char*>(inout) + i * ext);
    *b = *a - *b;
  }
}
}  // namespace

TEST_CASE("Reduce_local with builtin and user ops", "[types][op]") {
  int a[5] = {1, 2, 3, 4, 5}, b[5] = {10, 20, 30, 40, 50};
  MPI_OK(MPI_Reduce_local(a, b, 5, MPI_INT, MPI_SUM));
  CHECK(b[4] == 55);
  MPI_OK(MPI_Reduce_local(a, b, 5, MPI_INT, MPI_MAX));
  CHECK(b[0] == 11);
  struct DI {
    double v;
    int i;
  };
  DI x[2] = {{1.0, 3}, {5.0, 1}}, y[2] = {{1.0, 2}, {4.0, 0}};
  MPI_OK(MPI_Reduce_local(x, y, 2, MPI_DOUBLE_INT, MPI_MAXLOC));
  CHECK(y[0].v == 1.0);
  CHECK(y[0].i == 2);
  CHECK(y[1].v == 5.0);
  CHECK(y[1].i == 1);
  MPI_OK(MPI_Reduce_local(x, y, 2, MPI_DOUBLE_INT, MPI_MINLOC));
  CHECK(y[1].v == 5.0);
  CHECK(y[1].i == 1);

  MPI_Op op;
  MPI_OK(MPI_Op_create(minus, 0, &op));
  int commute = 1;
  MPI_OK(MPI_Op_commutative(op, &commute));
  CHECK(commute == 0);
  MPI_OK(MPI_Op_commutative(MPI_SUM, &commute));
  CHECK(commute == 1);
  int c[3] = {100, 200, 300}, d[3] = {1, 2, 3};
  MPI_OK(MPI_Reduce_local(c, d, 3, MPI_INT, op));
  CHECK(d[0] == 99);
  CHECK(d[2] == 297);
  // Derived (strided) type with a user op and with a builtin op.
  MPI_Datatype r;
  MPI_OK(MPI_Type_create_resized(MPI_INT, 0, 8, &r));
  r = committed(r);
  int e[4] = {100, -1, 200, -1}, f[4] = {1, -2, 2, -2};
  MPI_OK(MPI_Reduce_local(e, f, 2, r, op));
  CHECK(f[0] == 99);
  CHECK(f[1] == -2);
  CHECK(f[2] == 198);
  MPI_OK(MPI_Reduce_local(e, f, 2, r, MPI_SUM));
  CHECK(f[0] == 199);
  CHECK(f[1] == -2);
  MPI_OK(MPI_Type_free(&r));
  MPI_OK(MPI_Op_free(&op));
  CHECK(op == MPI_OP_NULL);
  // Logical ops on floating types (MPICH's too): non-zero is true.
  float fa[3] = {0, 2.5f, 0}, fb[3] = {0, 0, -1};
  MPI_OK(MPI_Reduce_local(fa, fb, 3, MPI_FLOAT, MPI_LXOR));
  CHECK(fb[0] == 0);
  CHECK(fb[1] == 1);
  CHECK(fb[2] == 1);
  // The same buffer twice is aliasing, which MPI forbids.
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Reduce_local(f, f, 2, MPI_INT, MPI_SUM)) == MPI_ERR_BUFFER);
}

TEST_CASE("datatype and op errors", "[types][errors]") {
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  MPI_Datatype v;
  MPI_OK(MPI_Type_vector(2, 1, 2, MPI_INT, &v));
  int buf[4] = {};
  int rc = MPI_Send(buf, 1, v, right(), 12, MPI_COMM_WORLD);
  CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  CHECK(std::string(msg).find("not committed") != std::string::npos);
  MPI_Request r;
  rc = MPI_Irecv(buf, 1, v, left(), 12, MPI_COMM_WORLD, &r);
  CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
  MPI_OK(MPI_Type_free(&v));

  MPI_Datatype i = MPI_INT;
  rc = MPI_Type_free(&i);
  CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
  CHECK(i == MPI_INT);
  MPI_Datatype di = MPI_DOUBLE_INT;
  rc = MPI_Type_free(&di);
  CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);

  int p[2] = {1, 2}, q[2] = {3, 4};
  rc = MPI_Reduce_local(p, q, 1, MPI_2INT, MPI_SUM);
  CHECK(jobs::error_class(rc) == MPI_ERR_OP);
  MPI_Error_string(rc, msg, &len);
  CHECK(std::string(msg).find("MPI_SUM is not defined for MPI_2INT") != std::string::npos);
  rc = MPI_Reduce_local(p, q, 1, MPI_FLOAT, MPI_BAND);
  CHECK(jobs::error_class(rc) == MPI_ERR_OP);
  MPI_Op sum = MPI_SUM;
  rc = MPI_Op_free(&sum);
  CHECK(jobs::error_class(rc) == MPI_ERR_OP);
  rc = MPI_Type_contiguous(-1, MPI_INT, &v);
  CHECK(jobs::error_class(rc) == MPI_ERR_COUNT);
  rc = MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &v);
  CHECK(jobs::error_class(rc) == MPI_ERR_TYPE);
}

TEST_CASE("subarray and darray: layout, bounds, envelope; MPI-1 bound markers", "[types][array]") {
  // A 3x4 block at (1, 2) of a 5x8 int array, C order: rows 1-3, columns 2-5.
  int sizes[2] = {5, 8}, sub[2] = {3, 4}, starts[2] = {1, 2};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_C, MPI_INT, &t));
  t = committed(t);
  int a[5][8];
  for (int i = 0; i < 40; ++i) a[i / 8][i % 8] = i;
  int packed[12];
  int pos = 0;
  MPI_OK(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  CHECK(pos == 48);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) CHECK(packed[r * 4 + c] == (1 + r) * 8 + 2 + c);
  MPI_Aint lb, extent;
  MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == 0);
  CHECK(extent == 40 * static_cast<MPI_Aint>(sizeof(int)));
  int ni, na, nd, comb;
  MPI_OK(MPI_Type_get_envelope(t, &ni, &na, &nd, &comb));
  CHECK(comb == MPI_COMBINER_SUBARRAY);
  CHECK(ni == 2 * 3 + 2);
  CHECK(nd == 1);
  MPI_Type_free(&t);
  // Fortran order: the first dimension varies fastest.
  MPI_OK(MPI_Type_create_subarray(2, sizes, sub, starts, MPI_ORDER_FORTRAN, MPI_INT, &t));
  t = committed(t);
  pos = 0;
  MPI_OK(MPI_Pack(a, 1, t, packed, sizeof packed, &pos, MPI_COMM_WORLD));
  // Element (i, j) of a 5x8 Fortran array sits at i + 5 * j.
  CHECK(packed[0] == 1 + 5 * 2);
  CHECK(packed[1] == 2 + 5 * 2);
  CHECK(packed[3] == 1 + 5 * 3);
  MPI_Type_free(&t);
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    int bad_starts[2] = {3, 2};
    CHECK(jobs::error_class(MPI_Type_create_subarray(2, sizes, sub, bad_starts, MPI_ORDER_C, MPI_INT, &t)) ==
          MPI_ERR_ARG);
  }

  // darray: 10 ints, block-cyclic (2) over 3 processes; process 1 owns 2,3, 8,9.
  int g = 10, dist = MPI_DISTRIBUTE_CYCLIC, darg = 2, ps = 3;
  MPI_OK(MPI_Type_create_darray(3, 1, 1, &g, &dist, &darg, &ps, MPI_ORDER_C, MPI_INT, &t));
  t = committed(t);
  int v[10], out[4] = {};
  for (int i = 0; i < 10; ++i) v[i] = i;
  int size = 0;
  MPI_OK(MPI_Type_size(t, &size));
  CHECK(size == 4 * static_cast<int>(sizeof(int)));
  pos = 0;
  MPI_OK(MPI_Pack(v, 1, t, out, sizeof out, &pos, MPI_COMM_WORLD));
  CHECK(out[0] == 2);
  CHECK(out[1] == 3);
  CHECK(out[2] == 8);
  CHECK(out[3] == 9);
  MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(extent == 10 * static_cast<MPI_Aint>(sizeof(int)));
  MPI_Type_free(&t);
  // 2-D block x block over a 2x2 grid: rank 3 owns the lower right 2x3 of 4x6.
  int g2[2] = {4, 6}, d2[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK},
      a2[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG}, p2[2] = {2, 2};
  MPI_OK(MPI_Type_create_darray(4, 3, 2, g2, d2, a2, p2, MPI_ORDER_C, MPI_INT, &t));
  t = committed(t);
  int m[24], got6[6] = {};
  for (int i = 0; i < 24; ++i) m[i] = i;
  pos = 0;
  MPI_OK(MPI_Pack(m, 1, t, got6, sizeof got6, &pos, MPI_COMM_WORLD));
  const int want6[6] = {2 * 6 + 3, 2 * 6 + 4, 2 * 6 + 5, 3 * 6 + 3, 3 * 6 + 4, 3 * 6 + 5};
  for (int i = 0; i < 6; ++i) CHECK(got6[i] == want6[i]);
  MPI_Type_free(&t);

  // MPI_LB / MPI_UB in a struct set the bounds (MPICH's ABI still has them).
  int bl[3] = {1, 1, 1};
  MPI_Aint disp[3] = {-4, 0, 16};
  MPI_Datatype types[3] = {MPI_LB, MPI_INT, MPI_UB};
  MPI_OK(MPI_Type_create_struct(3, bl, disp, types, &t));
  MPI_OK(MPI_Type_get_extent(t, &lb, &extent));
  CHECK(lb == -4);
  CHECK(extent == 20);
  MPI_OK(MPI_Type_size(t, &size));
  CHECK(size == static_cast<int>(sizeof(int)));
  // The MPI-1 bound queries, and their NULL outputs (MPICH's errors/datatype/type_ub_nullarg).
  MPI_Aint b = 0;
  MPI_OK(MPI_Type_lb(t, &b));
  CHECK(b == -4);
  MPI_OK(MPI_Type_ub(t, &b));
  CHECK(b == 16);
  MPI_OK(MPI_Type_extent(t, &b));
  CHECK(b == 20);
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    CHECK(jobs::error_class(MPI_Type_ub(t, nullptr)) == MPI_ERR_ARG);
    CHECK(jobs::error_class(MPI_Type_lb(t, nullptr)) == MPI_ERR_ARG);
    CHECK(jobs::error_class(MPI_Type_extent(t, nullptr)) == MPI_ERR_ARG);
  }
  MPI_Type_free(&t);
  // MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one handle, named as MPICH names it.
  char name[MPI_MAX_OBJECT_NAME];
  int len;
  MPI_OK(MPI_Type_get_name(MPI_C_COMPLEX, name, &len));
  CHECK(std::string(name) == "MPI_C_COMPLEX");
}

namespace {
int g_type_copies = 0, g_type_deletes = 0;
int type_copy(MPI_Datatype, int, void*, void* in, void* out, int* flag) {
  ++g_type_copies;
  *static_cast<void**>(out) = in;
  *flag = 1;
  return MPI_SUCCESS;
}
int type_delete(MPI_Datatype, int, void*, void*) {
  ++g_type_deletes;
  return MPI_SUCCESS;
}
}  // namespace

TEST_CASE("datatype attributes, MPI_Type_match_size and the Fortran 90 parameterized types", "[types][attr]") {
  int key;
  MPI_OK(MPI_Type_create_keyval(type_copy, type_delete, &key, nullptr));
  MPI_Datatype t, d;
  MPI_OK(MPI_Type_contiguous(2, MPI_INT, &t));
  static int payload = 42;
  MPI_OK(MPI_Type_set_attr(t, key, &payload));
  MPI_OK(MPI_Type_dup(t, &d));
  CHECK(g_type_copies == 1);
  int* got = nullptr;
  int flag = 0;
  MPI_OK(MPI_Type_get_attr(d, key, &got, &flag));
  CHECK((flag == 1 && got == &payload));
  MPI_OK(MPI_Type_free(&t));
  CHECK(g_type_deletes == 1);
  MPI_OK(MPI_Type_delete_attr(d, key));
  CHECK(g_type_deletes == 2);
  MPI_OK(MPI_Type_get_attr(d, key, &got, &flag));
  CHECK(flag == 0);
  MPI_Type_free(&d);
  // Predefined types take attributes too.
  MPI_OK(MPI_Type_set_attr(MPI_INT, key, &payload));
  MPI_OK(MPI_Type_get_attr(MPI_INT, key, &got, &flag));
  CHECK(flag == 1);
  MPI_OK(MPI_Type_delete_attr(MPI_INT, key));
  // A communicator keyval does not fit a datatype.
  int ckey;
  MPI_OK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &ckey, nullptr));
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    CHECK(jobs::error_class(MPI_Type_set_attr(MPI_INT, ckey, &payload)) == MPI_ERR_KEYVAL);
    MPI_Datatype m;
    CHECK(jobs::error_class(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m)) == MPI_ERR_ARG);
    CHECK(jobs::error_class(MPI_Type_create_f90_integer(40, &m)) == MPI_ERR_ARG);
  }
  MPI_Comm_free_keyval(&ckey);
  MPI_OK(MPI_Type_free_keyval(&key));

  MPI_Datatype m;
  int size = 0;
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &m));
  MPI_Type_size(m, &size);
  CHECK(size == static_cast<int>(sizeof(double)));
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, sizeof(short), &m));
  MPI_Type_size(m, &size);
  CHECK(size == static_cast<int>(sizeof(short)));
  MPI_OK(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * sizeof(float), &m));
  MPI_Type_size(m, &size);
  CHECK(size == static_cast<int>(2 * sizeof(float)));
  MPI_OK(MPI_Type_create_f90_integer(9, &m));
  MPI_Type_size(m, &size);
  CHECK(size == 4);
  MPI_OK(MPI_Type_create_f90_real(10, MPI_UNDEFINED, &m));
  MPI_Type_size(m, &size);
  CHECK(size == 8);
  MPI_OK(MPI_Type_create_f90_complex(6, 30, &m));
  MPI_Type_size(m, &size);
  CHECK(size == 8);
}

TEST_CASE("MPI 4.1: MPI_Type_get_value_index names the predefined pair types", "[types][pair]") {
  struct Want {
    MPI_Datatype value, index, pair;
  };
  const Want wants[] = {{MPI_FLOAT, MPI_INT, MPI_FLOAT_INT},
                        {MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT},
                        {MPI_LONG, MPI_INT, MPI_LONG_INT},
                        {MPI_INT, MPI_INT, MPI_2INT},
                        {MPI_SHORT, MPI_INT, MPI_SHORT_INT},
                        {MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT},
                        {MPI_REAL, MPI_REAL, MPI_2REAL},
                        {MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION},
                        {MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER},
                        // No predefined pair: MPI_DATATYPE_NULL, not an error.
                        {MPI_FLOAT, MPI_LONG, MPI_DATATYPE_NULL},
                        {MPI_CHAR, MPI_INT, MPI_DATATYPE_NULL},
                        {MPI_INT, MPI_DOUBLE, MPI_DATATYPE_NULL}};
  for (const Want& w : wants) {
    MPI_Datatype got = MPI_BYTE;
    MPI_OK(MPI_Type_get_value_index(w.value, w.index, &got));
    CHECK(got == w.pair);
  }
  // The type it names reduces with MPI_MINLOC: the smallest value and its rank.
  MPI_Datatype pair;
  MPI_OK(MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &pair));
  struct {
    double v;
    int i;
  } in{1000.0 - jobs::rank(), jobs::rank()}, out{};
  MPI_OK(MPI_Allreduce(&in, &out, 1, pair, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(out.v == 1000.0 - (jobs::size() - 1));
  CHECK(out.i == jobs::size() - 1);
  jobs::ErrorsReturn er(MPI_COMM_WORLD);
  CHECK(jobs::error_class(MPI_Type_get_value_index(MPI_DATATYPE_NULL, MPI_INT, &pair)) == MPI_ERR_TYPE);
  CHECK(jobs::error_class(MPI_Type_get_value_index(MPI_INT, MPI_INT, nullptr)) == MPI_ERR_ARG);
}

TEST_CASE("Pack_external / Unpack_external: external32 sizes, byte order, round trips", "[types][pack]") {
  MPI_Aint size = 0;
  MPI_OK(MPI_Pack_external_size("external32", 1, MPI_LONG, &size));
  CHECK(size == 4);  // MPI_LONG is 4 bytes in external32 whatever the host says
  MPI_OK(MPI_Pack_external_size("external32", 3, MPI_LONG_DOUBLE, &size));
  CHECK(size == 48);
  MPI_OK(MPI_Pack_external_size("external32", 2, MPI_DOUBLE_INT, &size));
  CHECK(size == 24);

  struct {
    int i;
    long l;
    double d;
    long double ld;
    unsigned short us;
  } in{0x01020304, -2, 1.0, 1.5L, 0xabcd}, out{};
  int bl[5] = {1, 1, 1, 1, 1};
  MPI_Aint disp[5];
  MPI_Get_address(&in.i, &disp[0]);
  MPI_Get_address(&in.l, &disp[1]);
  MPI_Get_address(&in.d, &disp[2]);
  MPI_Get_address(&in.ld, &disp[3]);
  MPI_Get_address(&in.us, &disp[4]);
  for (int k = 4; k >= 0; --k) disp[k] -= disp[0];
  MPI_Datatype types[5] = {MPI_INT, MPI_LONG, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_UNSIGNED_SHORT};
  MPI_Datatype t;
  MPI_OK(MPI_Type_create_struct(5, bl, disp, types, &t));
  t = committed(t);
  MPI_OK(MPI_Pack_external_size("external32", 1, t, &size));
  CHECK(size == 4 + 4 + 8 + 16 + 2);
  unsigned char buf[64] = {};
  MPI_Aint pos = 0;
  MPI_OK(MPI_Pack_external("external32", &in, 1, t, buf, sizeof buf, &pos));
  CHECK(pos == size);
  const unsigned char want[] = {0x01, 0x02, 0x03, 0x04,              // int, big-endian
                                0xff, 0xff, 0xff, 0xfe,              // long -2 in 4 bytes
                                0x3f, 0xf0, 0, 0, 0, 0, 0, 0,        // double 1.0
                                0x3f, 0xff, 0x80, 0, 0, 0, 0, 0,     // long double 1.5 as an IEEE quad
                                0, 0, 0, 0, 0, 0, 0, 0,
                                0xab, 0xcd};
  for (std::size_t k = 0; k < sizeof want; ++k) CHECK(static_cast<int>(buf[k]) == static_cast<int>(want[k]));
  pos = 0;
  MPI_OK(MPI_Unpack_external("external32", buf, sizeof buf, &pos, &out, 1, t));
  CHECK(pos == size);
  CHECK(out.i == in.i);
  CHECK(out.l == -2);  // sign-extended back to the host's long
  CHECK(out.d == 1.0);
  CHECK(out.ld == 1.5L);
  CHECK(out.us == 0xabcd);
  MPI_Type_free(&t);
  {
    jobs::ErrorsReturn er(MPI_COMM_WORLD);
    pos = 60;
    CHECK(jobs::error_class(MPI_Pack_external("external32", &in.i, 2, MPI_INT, buf, sizeof buf, &pos)) ==
          MPI_ERR_TRUNCATE);
    pos = 0;
    CHECK(jobs::error_class(MPI_Pack_external("native", &in.i, 1, MPI_INT, buf, sizeof buf, &pos)) == MPI_ERR_ARG);
  }
}
