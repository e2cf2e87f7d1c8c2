#!/usr/bin/env bash
# Regression: every rank of a communicator must choose the same collective
# algorithm. The cost model read "this node runs more ranks than cores" per node,
# so with 1+2+3 ranks per host the ranks on h2 (3 ranks, 2 cores) chose pairwise
# for MPI_Reduce_scatter(_block) of a non-commutative op and the others recursive
# halving: wrong results on ranks 1 and 2 and a hang, every run (count 150-168
# of 16-byte elements). Now MPI_Init agrees on the job-wide answer
# (p2p::cores_shared_anywhere). The same cases pass at 2+2+2 and 3+3, so the
# uneven layout is the point of this test.
#   coll_uneven.sh CHORUSRUN TEST_COLL
set -u
(( $# == 2 )) || { echo "usage: coll_uneven.sh CHORUSRUN TEST_COLL" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1") COLL=$(readlink -f "$2")
mh_require
mh_setup 3 "$(dirname "$CHORUSRUN")/.."  # the build stays visible in the hosts (their /tmp is private)
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
MH_JOB_TIMEOUT=60 mh_job "$MH_SHARED/coll" --host h0:1,h1:2,h2:3 -n 6 "$COLL" '[reduction]'
if (( RC != 0 )); then
  grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/coll" | cut -c1-300
  fail "test_coll [reduction] at 1+2+3 ranks per host exited $RC"
fi
(( FAILED == 0 )) && echo "PASS: [reduction] at 1+2+3 ranks per host"
exit "$FAILED"
