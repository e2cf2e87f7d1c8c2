#!/bin/bash
# Build the job tests with a peer MPI and run them at NP ranks, to validate the
# tests themselves (they are written against the standard MPI C API only).
#   tests/jobs/run_with_peer.sh openmpi|mpich NP [catch2 args...]
# Build output goes to $BUILD_DIR (default /tmp/chorus-jobs-<mpi>).
set -u
if [ $# -lt 2 ]; then
  echo "usage: $0 openmpi|mpich NP [catch2 args...]" >&2
  exit 2
fi
peer=$1 np=$2
shift 2
case $peer in
  openmpi) run=(mpirun.openmpi --allow-run-as-root --oversubscribe) ;;
  mpich) run=(mpirun.mpich) ;;
  *) echo "unknown MPI '$peer' (openmpi or mpich)" >&2; exit 2 ;;
esac
src=$(cd "$(dirname "$0")" && pwd)
out=${BUILD_DIR:-/tmp/chorus-jobs-$peer}
mkdir -p "$out"
cxx=(mpicxx.$peer -std=c++20 -O2 -g -Wall -Wextra -I"$src")

build() {  # build NAME SOURCES...: skipped when the binary is newer than all sources
  local name=$1
  shift
  if [ -x "$out/$name" ] && [ -z "$(find "$src" -newer "$out/$name" \( -name '*.cc' -o -name '*.h' \))" ]; then
    return 0
  fi
  "${cxx[@]}" -o "$out/$name" "$@" -lpthread || { echo "build of $name failed" >&2; return 1; }
}
cd "$src" || exit 1
build test_p2p mpi_main.cc p2p_basic.cc p2p_probe.cc p2p_requests.cc p2p_order.cc &
build test_core mpi_main.cc core.cc datatypes.cc &
build test_p2p_huge mpi_main.cc p2p_huge.cc &
build test_p2p_stress mpi_main.cc p2p_stress.cc &
build test_p2p_fuzz mpi_main.cc p2p_fuzz.cc &
build test_thread_multiple -DJOBS_THREAD_LEVEL=MPI_THREAD_MULTIPLE mpi_main.cc thread_multiple.cc &
for job in $(jobs -p); do wait "$job" || exit 1; done

tests=(test_p2p test_core test_thread_multiple test_p2p_stress test_p2p_fuzz)
[ "$np" = 2 ] && tests+=(test_p2p_huge)  # 1 GiB message: 2 ranks only
failed=0
for t in "${tests[@]}"; do
  echo "=== $peer np=$np $t"
  if ! timeout 300 "${run[@]}" -n "$np" "$out/$t" --order decl --rng-seed 1 "$@"; then
    echo "=== FAILED: $peer np=$np $t" >&2
    failed=1
  fi
done
exit $failed
