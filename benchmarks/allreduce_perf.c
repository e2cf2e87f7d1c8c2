/* allreduce_perf: nccl-tests-style allreduce benchmark (driver in perf_common.c; -h for flags).
 *   mpirun -n 4 build/benchmarks/allreduce_perf -b 8 -e 16M -f 2 -c 1 */
#include "perf_common.h"

int main(int argc, char **argv) { return perf_main(argc, argv, PERF_ALLREDUCE); }
