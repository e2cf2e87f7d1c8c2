/* MPI_Reduce_scatter_block with a non-commutative user op whose result spells
 * the order of its operands: each element is a base-8 digit string (the ranks
 * whose data it holds, in reduction order) with its length, and the op
 * concatenates. Every rank's block must read "0 1 2 ... p-1". Prints one line
 * per rank ("rank R: N bad of C") and a few wrong elements; exits non-zero when
 * any is wrong. At most 8 ranks (one octal digit each).
 * usage: noncommutative [COUNT]  (elements per rank, default 167) */
#include <mpi.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
typedef struct { uint64_t d, n; } Seq;
static void cat(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  Seq* a = in; Seq* b = inout;
  for (int i = 0; i < *len; ++i) {
    uint64_t p = 1; for (uint64_t k = 0; k < b[i].n; ++k) p *= 8;
    b[i].d = a[i].d * p + b[i].d; b[i].n += a[i].n;
  }
}
int main(int argc, char** argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  MPI_Init(&argc, &argv);
  int r, p; MPI_Comm_rank(MPI_COMM_WORLD, &r); MPI_Comm_size(MPI_COMM_WORLD, &p);
  int cnt = argc > 1 ? atoi(argv[1]) : 167;
  if (p > 8) {
    if (r == 0) printf("noncommutative: at most 8 ranks (%d given)\n", p);
    MPI_Finalize();
    return 2;
  }
  MPI_Datatype t; MPI_Type_contiguous(2, MPI_UINT64_T, &t); MPI_Type_commit(&t);
  MPI_Op op; MPI_Op_create(cat, 0, &op);
  Seq* s = malloc(sizeof(Seq) * cnt * p); Seq* out = malloc(sizeof(Seq) * cnt);
  for (int i = 0; i < cnt * p; ++i) { s[i].d = r; s[i].n = 1; }
  MPI_Reduce_scatter_block(s, out, cnt, t, op, MPI_COMM_WORLD);
  uint64_t want = 0; for (int k = 0; k < p; ++k) want = want * 8 + k;
  int bad = 0;
  for (int i = 0; i < cnt; ++i) if (out[i].d != want || out[i].n != (uint64_t)p) {
    if (bad < 3) printf("rank %d elem %d got %llo (len %llu) want %llo\n", r, i, (unsigned long long)out[i].d, (unsigned long long)out[i].n, (unsigned long long)want);
    ++bad;
  }
  printf("rank %d: %d bad of %d\n", r, bad, cnt);
  free(s);
  free(out);
  MPI_Op_free(&op);
  MPI_Type_free(&t);
  MPI_Finalize();
  return bad ? 1 : 0;
}
