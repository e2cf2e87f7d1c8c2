#!/usr/bin/env bash
# MPI_Barrier across hosts, as users run it (no CHORUS_CHECK_COLL, whose exchange
# synchronizes every collective by itself): test_sync's [clock] case, in which one
# rank each round comes late and no rank may leave before it entered, by the one
# monotonic clock these pretend hosts share. With the hierarchical barrier (the
# automatic choice across hosts), forced, and the flat dissemination forced, at 2
# hosts x 2 ranks and at 1+2+3 ranks per host. The hierarchical barrier's node
# stages had no messages: ranks other than each host's leader left at once.
#   sync.sh CHORUSRUN TEST_SYNC
set -u
(( $# == 2 )) || { echo "usage: sync.sh CHORUSRUN TEST_SYNC" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1") SYNC=$(readlink -f "$2")
mh_require
mh_setup 3 "$(dirname "$CHORUSRUN")/.."  # the build stays visible in the hosts
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1 CHORUS_CHECK_COLL=0
O=$MH_SHARED
for spec in "auto h0:2,h1:2 4" "hierarchical h0:2,h1:2 4" "dissemination h0:2,h1:2 4" \
            "hierarchical h0:1,h1:2,h2:3 6"; do
  set -- $spec
  note "barrier $1 at $2"
  # A forced algorithm that cannot run is an error here, not a quiet fallback.
  CHORUS_BARRIER_ALGO=$1 CHORUS_ALGO_FALLBACK=error MH_JOB_TIMEOUT=90 \
    mh_job "$O/sync" --host "$2" -n "$3" "$SYNC" "[clock]"
  if (( RC != 0 )); then
    grep -m3 "FAILED in\|MPI_ERR" "$O/sync" | cut -c1-300
    fail "test_sync [clock] with the $1 barrier at $2 exited $RC"
  fi
  expect_clean "the $1 barrier at $2"
done
(( FAILED == 0 )) && echo "PASS: no rank leaves MPI_Barrier across hosts before the last one entered"
exit "$FAILED"
