#!/usr/bin/env bash
# The MPICH ABI: a program built with MPICH's mpicc and MPICH's mpi.h runs on Chorus.
#   mpich_abi.sh <mpicc.mpich> <build root> <mpich_abi.c>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 3 )) || fail "usage: mpich_abi.sh <mpicc.mpich> <build root> <mpich_abi.c>"
mpich_cc=$1 build=$(cd "$2" && pwd) prog_src=$3
need_tool "$mpich_cc"
[[ -e "$build/lib/libmpich.so.12" ]] || fail "$build/lib/libmpich.so.12 is missing"
mpirun=$(chorus_mpirun "$build") || exit 1
make_tmp

note "$mpich_cc -o prog $(basename "$prog_src")"
run_logged "$tmp/cc.log" "$mpich_cc" -O1 -o "$tmp/prog" "$prog_src" \
  || fail "could not build the program with $mpich_cc"

# The binary asks for libmpich.so.12; with LD_LIBRARY_PATH it must get Chorus's.
export LD_LIBRARY_PATH="$build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
ldd "$tmp/prog" >"$tmp/ldd.log" 2>&1 || true
grep -E 'libmpi' "$tmp/ldd.log" | sed 's/^/   | /'
resolved=$(awk '$1 == "libmpich.so.12" { print $3 }' "$tmp/ldd.log")
[[ -n "$resolved" && $(readlink -f "$resolved") == $(readlink -f "$build/lib/libmpi.so.12") ]] \
  || fail "libmpich.so.12 resolves to '$resolved', not Chorus's $build/lib/libmpi.so.12"

note "LD_LIBRARY_PATH=$build/lib $mpirun -n 3 prog"
run_logged "$tmp/run.log" "$mpirun" -n 3 "$tmp/prog" || fail "the job exited non-zero"
grep -q '^library: .*Chorus' "$tmp/run.log" \
  || fail "MPI_Get_library_version does not name Chorus: the job did not run on Chorus's library"
for r in 0 1 2; do
  grep -q "^rank $r: OK\$" "$tmp/run.log" || fail "rank $r did not report OK"
done
grep -q '^invalid rank: class 6 (MPI_ERR_RANK is 6)' "$tmp/run.log" \
  || fail "a send to an invalid rank did not return MPI_ERR_RANK under MPI_ERRORS_RETURN"
echo "PASS: an MPICH-built binary ran on Chorus (3 ranks): p2p, status, counts, datatypes, errors"
