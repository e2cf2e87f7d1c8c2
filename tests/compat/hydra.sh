#!/usr/bin/env bash
# MPICH's mpiexec (hydra) launches Chorus programs: the ranks join through hydra's
# PMI-1 socket (PMI_FD) as one job. And under a launcher that offers PMI variables
# but nothing to join through, a rank says so once instead of running silently alone.
#   hydra.sh <mpiexec.mpich> <hello> <mpmd> <abort> <test_p2p>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 5 )) || fail "usage: hydra.sh <mpiexec.mpich> <hello> <mpmd> <abort> <test_p2p>"
hydra=$1 hello=$2 mpmd=$3 abort=$4 p2p=$5
need_tool "$hydra"
make_tmp

for n in 1 2 3; do
  note "$hydra -n $n $hello"
  run_logged "$tmp/out$n" "$hydra" -n "$n" "$hello" || fail "mpiexec -n $n exited non-zero"
  check_hello "$tmp/out$n" "$n"
done

note "$hydra -n 3 test_p2p (the point-to-point job tests)"
COMPAT_TIMEOUT=120 run_logged "$tmp/p2p" "$hydra" -n 3 "$p2p" || fail "the p2p job tests failed under mpiexec"

note "MPMD: -n 1 a : -n 2 b"
run_logged "$tmp/mpmd" "$hydra" -n 1 "$mpmd" a : -n 2 "$mpmd" b || fail "MPMD under mpiexec failed"
grep -qx "mpmd rank 0 of 3 appnum 0 total 3 arg a" "$tmp/mpmd" || fail "rank 0 is not program 0"
for r in 1 2; do
  grep -qx "mpmd rank $r of 3 appnum 1 total 3 arg b" "$tmp/mpmd" || fail "rank $r is not program 1"
done

note "MPI_Abort(7) on rank 1 of 3"
rc=0
timeout -k 5 40 "$hydra" -n 3 "$abort" >"$tmp/abort" 2>&1 || rc=$?
sed 's/^/   | /' "$tmp/abort"
(( rc == 7 )) || fail "mpiexec exited $rc after MPI_Abort(7), expected 7"

note "PMI variables without PMI_FD: one warning, then a world of one"
run_logged "$tmp/alone" env PMI_RANK=0 PMI_SIZE=2 "$hello" || fail "the program failed"
check_hello "$tmp/alone" 1
[[ $(grep -c "no PMIx server and no PMI_FD" "$tmp/alone") == 1 ]] || fail "expected one warning naming the launcher"
run_logged "$tmp/alone_port" env PMI_RANK=0 PMI_SIZE=2 PMI_PORT=localhost:1 "$hello" || fail "the program failed"
grep -q "started by MPICH's hydra .* in PMI_PORT mode that offers PMI-1/PMI-2 variables (PMI_PORT)" "$tmp/alone_port" ||
  fail "PMI_PORT without PMI_FD: the warning does not name hydra"
run_logged "$tmp/alone1" env PMI_RANK=1 PMI_SIZE=2 "$hello" || fail "the program failed"
! grep -q "WARN" "$tmp/alone1" || fail "rank 1 warned too (once per job: rank 0 only)"

note "a PMI_FD that does not speak PMI-1: MPI_Init fails and says why"
rc=0
env PMI_FD=3 PMI_RANK=0 PMI_SIZE=1 timeout -k 5 40 "$hello" 3</dev/null >"$tmp/bad" 2>&1 || rc=$?
sed 's/^/   | /' "$tmp/bad"
(( rc != 0 )) || fail "MPI_Init succeeded on a socket that is no PMI-1 server"
grep -q "does not answer PMI-1's init" "$tmp/bad" || fail "the error does not say what is wrong"
echo "PASS: MPICH's mpiexec runs Chorus ranks as one job (hello, p2p tests, MPMD, MPI_Abort); lone PMI variables are named"
