#!/bin/bash
# SIGINT/SIGTERM to chorusrun are forwarded; the job ends with 128+signo and
# leaves nothing behind (processes or temp dir).
# usage: signals.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

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

finish
