/* What the examples share: option errors, an integer option's value, and CUDA set
 * up on every rank or on none (a skip). Plain C over MPI and bench_cuda.h (the CUDA
 * driver loaded at run time), so any mpicc builds the examples. */
#ifndef CHORUS_EXAMPLE_UTIL_H
#define CHORUS_EXAMPLE_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../benchmarks/bench_cuda.h"

/* A bad option (v NULL: unknown, or its value missing; else a bad value), said by
 * rank 0 with the usage; returns the exit status for it, 2. */
static inline int example_bad_option(const char* prog, const char* usage, const char* a, const char* v) {
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (rank == 0) {
    if (v) fprintf(stderr, "%s: %s %s: not a valid value\n", prog, a, v);
    else fprintf(stderr, "%s: unknown option or missing value: '%s'\n", prog, a);
    fputs(usage, stderr);
  }
  return 2;
}

/* The value of an integer option in [lo, hi] into *out: 1, or 0 when `v` is not one. */
static inline int example_int_value(const char* v, long lo, long hi, long* out) {
  char* end = NULL;
  long x = strtol(v, &end, 10);
  if (!*v || *end || x < lo || x > hi) return 0;
  *out = x;
  return 1;
}

/* Loads the CUDA driver and makes this rank's device current (its local rank
 * modulo the devices): 1, or 0 with the reason in bench_cuda.error. */
static inline int example_cuda_init(void) {
  MPI_Comm node;
  int local_rank;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
  MPI_Comm_rank(node, &local_rank);
  MPI_Comm_free(&node);
  return bench_cuda_init(local_rank) == 0;
}
/* Every rank says whether its CUDA setup (example_cuda_init and its allocations)
 * succeeded: 1 when all did; else 0, each rank that failed having printed
 * "SKIP: PROG: rank R: no CUDA device: why" (the caller exits with 77, a skip). */
static inline int example_cuda_agree(const char* prog, int ok) {
  int rank, all_ok;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!ok) printf("SKIP: %s: rank %d: no CUDA device: %s\n", prog, rank, bench_cuda.error);
  return all_ok;
}

#endif
