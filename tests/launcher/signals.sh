#!/bin/bash
# SIGINT/SIGTERM to chorusrun are forwarded; the job ends with 128+signo and
# leaves nothing behind (processes or temp dir). MPI ranks that handle SIGTERM
# get the grace period to do so.
# usage: signals.sh CHORUSRUN MPI_PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")

for sig in INT TERM; do
  "$CHORUSRUN" -n 3 sh -c 'sleep '"$TAG"' & wait' >"$T/out" 2>"$T/err" &
  CR=$!
  # Wait until the ranks run, then signal the launcher only.
  for _ in $(seq 100); do
    [ "$(pgrep -fc "sleep $TAG")" -ge 3 ] && break
    sleep 0.05
  done
  kill -"$sig" "$CR"
  wait "$CR"
  RC=$?
  want=$((128 + $(kill -l "$sig")))
  check "SIG$sig: exit $want (got $RC)" test "$RC" -eq "$want"
  check "SIG$sig: one line" test "$(grep -c '^mpirun: ' "$T/err")" -eq 1
  expect_no_leftovers
  check "SIG$sig: temp dir removed" test -z "$(ls -A "$CHORUS_TMPDIR")"
done

# MPI ranks that save their state on SIGTERM (0.5 s, within the 1 s grace
# period) are not cut short: not by the launcher, nor by the rank library
# seeing the launcher's PMIx server close before the signal arrives.
"$CHORUSRUN" -n 3 "$PROG" term 1 "$TAG" >"$T/out" 2>"$T/err" </dev/null &
CR=$!
for _ in $(seq 200); do
  [ "$(grep -c ready "$T/out")" -ge 3 ] && break
  sleep 0.05
done
kill -TERM "$CR"
wait "$CR"
RC=$?
check "MPI ranks: exit 143 (got $RC)" test "$RC" -eq 143
check "MPI ranks: every rank saved its state" test "$(grep -c '^rank [0-2] saved$' "$T/out")" -eq 3
[ "$FAILED" -eq 0 ] || { echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; } >&2
check "MPI ranks: no rank left" test -z "$(pgrep -f "$PROG term 1 $TAG")"
check "MPI ranks: temp dir removed" test -z "$(ls -A "$CHORUS_TMPDIR")"

finish
