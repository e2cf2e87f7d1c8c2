#!/usr/bin/env bash
# KNOWN BUG, kept as an expected failure (meson: should_fail) until it is fixed:
# across hosts with uneven ranks per host (1+2+3, and 1+5), the collective job
# test "Reductions with a medium count, every kind" run after the other
# [reduction] cases gets a wrong MPI_Reduce_scatter_block result for
# mat2x2_user_noncommutative, count 167 (ranks 1 and 2, on h1, every run), and
# at 1+5 a transfer fails with MPI_ERR_TRUNCATE; the full test_coll at 1+2+3
# also fails "Comm_split leaving world rank 0 out" (MPI_Reduce_scatter with the
# same op, recvcounts 0,1,2,0,1). The job then hangs until its timeout. The same cases pass on one
# node at 5 and 6 ranks, at 2+2+2 and 3+3 hosts, with every reduce_scatter_block
# algorithm forced the same, and with CHORUS_P2P_SHM=off or
# CHORUS_COLL_SEND_AHEAD=0 the same. This test exits 0 only when the bug is gone.
#   coll_uneven.sh CHORUSRUN TEST_COLL
set -u
(( $# == 2 )) || { echo "usage: coll_uneven.sh CHORUSRUN TEST_COLL" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1") COLL=$(readlink -f "$2")
mh_require
mh_setup 3
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
MH_JOB_TIMEOUT=40 mh_job "$MH_SHARED/coll" --host h0:1,h1:2,h2:3 -n 6 "$COLL" '[reduction]'
if (( RC != 0 )); then
  grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/coll" | cut -c1-300
  fail "test_coll [reduction] at 1+2+3 ranks per host exited $RC"
fi
(( FAILED == 0 )) && echo "PASS: [reduction] at 1+2+3 ranks per host"
exit "$FAILED"
