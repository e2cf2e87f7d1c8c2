#!/bin/bash
# SIGUSR1 and SIGUSR2 to chorusrun (batch systems' warnings) reach every rank
# and do not end the job: the ranks decide, here by exiting 0 once they have
# seen both, and chorusrun exits 0.
# usage: usr_signals.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
NP=3

# Each rank traps both signals, says when it is ready, then waits for them
# (`wait` returns when a trapped signal arrives; the sleep carries $TAG).
RANK_SCRIPT='
trap "echo \"rank $PMIX_RANK got USR1\"; n=\$((n + 1))" USR1
trap "echo \"rank $PMIX_RANK got USR2\"; n=\$((n + 1))" USR2
n=0
sleep '"$TAG"' &
s=$!
touch "'"$T"'/ready.$PMIX_RANK"
while [ $n -lt 2 ]; do wait $s; done
kill $s'

# wait_for COUNT PATTERN: until COUNT lines of the output match (5 s at most).
wait_for() {
  for _ in $(seq 100); do
    [ "$(grep -c "$2" "$T/out")" -ge "$1" ] && return 0
    sleep 0.05
  done
  return 1
}

"$CHORUSRUN" -n $NP bash -c "$RANK_SCRIPT" >"$T/out" 2>"$T/err" </dev/null &
CR=$!
for _ in $(seq 200); do
  [ "$(ls "$T" | grep -c '^ready\.')" -ge $NP ] && break
  sleep 0.05
done
kill -USR1 "$CR"
check "USR1 reached every rank" wait_for $NP "got USR1"
kill -USR2 "$CR"
check "USR2 reached every rank" wait_for $NP "got USR2"
wait "$CR"
RC=$?
check "exit 0 (got $RC)" test "$RC" -eq 0
check "no launcher message" test "$(grep -c '^mpirun: ' "$T/err")" -eq 0
for r in $(seq 0 $((NP - 1))); do
  check "rank $r saw USR1" grep -q "^rank $r got USR1\$" "$T/out"
  check "rank $r saw USR2" grep -q "^rank $r got USR2\$" "$T/out"
done
[ "$FAILED" -eq 0 ] || { echo "--- stdout:"; cat "$T/out"; echo "--- stderr:"; cat "$T/err"; } >&2
kill -KILL "$CR" 2>/dev/null
expect_no_leftovers
check "temp dir removed" test -z "$(ls -A "$CHORUS_TMPDIR")"

finish
