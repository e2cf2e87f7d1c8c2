#!/usr/bin/env bash
# Regression: every rank of a communicator must choose the same collective
# algorithm. The cost model read "this node runs more ranks than cores" per node,
# so with 1+2+3 ranks per host the ranks on h2 (3 ranks, 2 cores) chose pairwise
# for MPI_Reduce_scatter(_block) of a non-commutative op and the others recursive
# halving: wrong results on ranks 1 and 2 and a hang, every run (count 150-168
# of 16-byte elements). Now MPI_Init agrees on the job-wide answer
# (p2p::cores_shared_anywhere). The same cases pass at 2+2+2 and 3+3, so the
# uneven layout is the point of this test.
# noncommutative.c shows the order of the reduction's operands directly (count 160
# failed every run). With CHORUS_CHECK_COLL=1 the ranks also agree on the
# algorithm they chose: a rank forced to another one is named, not wrong data.
# The hierarchical allreduces run test_coll's allreduce cases here too.
#   coll_uneven.sh CHORUSRUN TEST_COLL NONCOMMUTATIVE AFTER_MISMATCH
set -u
(( $# == 4 )) || { echo "usage: coll_uneven.sh CHORUSRUN TEST_COLL NONCOMMUTATIVE AFTER_MISMATCH" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1") COLL=$(readlink -f "$2") NC=$(readlink -f "$3") AM=$(readlink -f "$4")
mh_require
mh_setup 3 "$(dirname "$CHORUSRUN")/.."  # the build stays visible in the hosts (their /tmp is private)
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
MH_JOB_TIMEOUT=60 mh_job "$MH_SHARED/coll" --host h0:1,h1:2,h2:3 -n 6 "$COLL" '[reduction]'
if (( RC != 0 )); then
  grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/coll" | cut -c1-300
  fail "test_coll [reduction] at 1+2+3 ranks per host exited $RC"
fi
# The hierarchical allreduce across hosts: uneven (1+2+3) and, with the same
# number on every host, with every rank a leader (2+2+2); test_coll's allreduce
# cases (sizes, types, ops, in place, non-blocking) with it forced.
# A forced algorithm that cannot run a call (CHORUS_ALGO_FALLBACK=silent: one
# rank's count of 0, say) falls back to a flat one without a word, so the
# per-call TRACE lines must show the forced algorithm ran ("-> NAME (forced"):
# else these runs would pass on flat algorithms alone.
expect_forced() {  # FILE CALL ALGO
  grep -Eq "TRACE COLL $2 on .* -> $3 \(forced" "$1" ||
    { fail "no $2 ran with $3 forced (TRACE lines: $(grep -c "TRACE COLL $2 " "$1"))"; grep -m3 "TRACE COLL $2 " "$1"; }
}
export CHORUS_DEBUG_SUBSYS=COLL
for spec in "hierarchical h0:1,h1:2,h2:3" "hierarchical_multi_leader h0:2,h1:2,h2:2"; do
  set -- $spec
  CHORUS_DEBUG=TRACE CHORUS_ALLREDUCE_ALGO=$1 CHORUS_ALGO_FALLBACK=silent MH_JOB_TIMEOUT=90 mh_job "$MH_SHARED/$1" \
    --host "$2" -n 6 "$COLL" '[allreduce],[nonblocking]'
  if (( RC != 0 )); then
    grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/$1" | cut -c1-300
    fail "test_coll [allreduce] with CHORUS_ALLREDUCE_ALGO=$1 at $2 exited $RC"
  fi
  expect_forced "$MH_SHARED/$1" MPI_Allreduce "$1"
done
# The hierarchical bcast, allgather, barrier, reduce and reduce_scatter(_block)
# forced, uneven (1+2+3): test_coll's data movement cases (bcast roots on every
# node, allgather and every other movement collective alongside), its reduce cases
# (roots on h0 and h2), reduce_scatter ones (uneven counts) and the non-blocking ones.
CHORUS_BCAST_ALGO=hierarchical CHORUS_ALLGATHER_ALGO=hierarchical CHORUS_BARRIER_ALGO=hierarchical \
  CHORUS_REDUCE_ALGO=hierarchical CHORUS_REDUCE_SCATTER_ALGO=hierarchical CHORUS_REDUCE_SCATTER_BLOCK_ALGO=hierarchical \
  CHORUS_DEBUG=TRACE CHORUS_ALGO_FALLBACK=silent MH_JOB_TIMEOUT=90 mh_job "$MH_SHARED/hmove" --host h0:1,h1:2,h2:3 -n 6 \
  "$COLL" '[movement],[reduce],[reduce_scatter],[reduce_scatter_block],[nonblocking]'
if (( RC != 0 )); then
  grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/hmove" | cut -c1-300
  fail "test_coll [movement],[reduce],[reduce_scatter*] with the hierarchical algorithms at 1+2+3 exited $RC"
fi
for call in MPI_Bcast MPI_Allgather MPI_Barrier MPI_Reduce MPI_Reduce_scatter MPI_Reduce_scatter_block; do
  expect_forced "$MH_SHARED/hmove" "$call" hierarchical
done
# Their node stages went through each node's shared window (h1's and h2's; h0 runs
# one rank). Again two ways: without the collective check, as users run (it
# exchanges among all ranks before every call, which would hide a node stage that
# lets a rank leave early or read a slot too soon), and with the node stages by
# messages (no node windows, CHORUS_COLL_SHM=off), which the default now leaves
# unused. The hierarchical allreduce with them.
expect_line "$MH_SHARED/hmove" "MPI_COMM_WORLD: a shared window on each node \\(6 ranks on 3 nodes" \
  "node windows set up"
# MPI_Init measured their sync for the cost model (rank 0 says what it found).
expect_line "$MH_SHARED/hmove" "node window sync for the cost model: [0-9.]+ us" "the node windows' sync measured"
for v in unchecked:CHORUS_CHECK_COLL=0 msgs:CHORUS_COLL_SHM=off; do
  export "${v#*:}"
  CHORUS_BCAST_ALGO=hierarchical CHORUS_BARRIER_ALGO=hierarchical CHORUS_REDUCE_ALGO=hierarchical \
    CHORUS_ALLREDUCE_ALGO=hierarchical CHORUS_ALLGATHER_ALGO=hierarchical CHORUS_REDUCE_SCATTER_ALGO=hierarchical \
    CHORUS_REDUCE_SCATTER_BLOCK_ALGO=hierarchical CHORUS_DEBUG=TRACE CHORUS_ALGO_FALLBACK=silent MH_JOB_TIMEOUT=120 \
    mh_job "$MH_SHARED/h${v%%:*}" --host h0:1,h1:2,h2:3 -n 6 "$COLL" \
    '[movement],[reduce],[allreduce],[reduce_scatter],[reduce_scatter_block],[nonblocking]'
  setting=${v#*:}
  unset "${setting%%=*}"
  if (( RC != 0 )); then
    grep -m3 "FAILED in\|MPI_ERR" "$MH_SHARED/h${v%%:*}" | cut -c1-300
    fail "test_coll with the hierarchical algorithms at 1+2+3, ${v#*:}, exited $RC"
  fi
  for call in MPI_Bcast MPI_Barrier MPI_Reduce MPI_Allreduce MPI_Allgather MPI_Reduce_scatter MPI_Reduce_scatter_block; do
    expect_forced "$MH_SHARED/h${v%%:*}" "$call" hierarchical
  done
done
if grep -q "a shared window on each node" "$MH_SHARED/hmsgs"; then fail "CHORUS_COLL_SHM=off still set up node windows"; fi
unset CHORUS_DEBUG_SUBSYS
for count in 160 167; do
  MH_JOB_TIMEOUT=30 mh_job "$MH_SHARED/nc$count" --host h0:1,h1:2,h2:3 -n 6 "$NC" "$count"
  (( RC == 0 )) || { fail "noncommutative $count at 1+2+3 exited $RC"; show "$MH_SHARED/nc$count"; }
done
# Ranks that chose different algorithms (here forced by rank) fail loudly, naming them.
CHORUS_CHECK_COLL=1 MH_JOB_TIMEOUT=30 mh_job "$MH_SHARED/mismatch" --host h0:1,h1:2 -n 3 sh -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 1 ]; then export CHORUS_REDUCE_SCATTER_BLOCK_ALGO=recursive_halving;
   else export CHORUS_REDUCE_SCATTER_BLOCK_ALGO=pairwise; fi; exec "$0" 167' "$NC"
(( RC != 0 && RC != 124 )) || { fail "ranks with different algorithms: exit $RC (124: a hang)"; show "$MH_SHARED/mismatch"; }
expect_line "$MH_SHARED/mismatch" "MPI_Reduce_scatter_block: ranks passed different values of the algorithm: rank [0-9] passed (recursive_halving|pairwise), rank [0-9] passed (recursive_halving|pairwise)" "the mismatch names the algorithms"
# Regression: the calls after a mismatch. Ranks that chose a hierarchical MPI_Bcast
# took a turn on their node's window and the others did not, so, after every rank
# had failed the call, the next calls through the node windows used different
# generations on different ranks of a node: a hang, every run. Now every rank of a
# communicator with node windows takes a turn for each call it agrees on.
CHORUS_CHECK_COLL=1 CHORUS_ALLREDUCE_ALGO=hierarchical CHORUS_ALLGATHER_ALGO=hierarchical \
  CHORUS_BARRIER_ALGO=hierarchical CHORUS_ALGO_FALLBACK=silent MH_JOB_TIMEOUT=60 \
  mh_job "$MH_SHARED/after" --host h0:1,h1:2,h2:3 -n 6 sh -c \
  'if [ "$OMPI_COMM_WORLD_RANK" = 4 ]; then export CHORUS_BCAST_ALGO=binomial;
   else export CHORUS_BCAST_ALGO=hierarchical; fi; exec "$0"' "$AM"
if (( RC != 0 )) || (( $(grep -c ': ok$' "$MH_SHARED/after") != 6 )); then
  fail "collectives after a mismatch: exit $RC (124: a hang)"; show "$MH_SHARED/after"
fi
(( FAILED == 0 )) && echo "PASS: [reduction] and a non-commutative reduce_scatter at 1+2+3 ranks per host; the hierarchical allreduces at 1+2+3 and 2+2+2, bcast, allgather, barrier, reduce and reduce_scatter(_block) at 1+2+3, with their node stages through node windows (checked and unchecked) and by messages; a mismatch of algorithms is named, and the collectives after it run"
exit "$FAILED"
