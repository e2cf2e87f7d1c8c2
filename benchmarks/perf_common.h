/* nccl-tests-style collective benchmarks over the MPI API: one driver
 * (perf_common.c) and a table of collectives; each *_perf.c only names its entry.
 * Any mpicc builds them: mpicc -O2 -o allreduce_perf allreduce_perf.c perf_common.c */
#ifndef CHORUS_PERF_COMMON_H
#define CHORUS_PERF_COMMON_H

typedef enum {
  PERF_ALLREDUCE,
  PERF_REDUCE_SCATTER,
  PERF_ALLGATHER,
  PERF_BCAST,
  PERF_REDUCE,
  PERF_ALLTOALL,
} perf_coll;

/* The whole program: parses argv (before MPI_Init, for -a), runs, returns the exit
 * status: 0 all right, 1 wrong results or an MPI error or a bad option, 2 -m cuda
 * without a CUDA driver or device. */
int perf_main(int argc, char **argv, perf_coll which);

#endif
