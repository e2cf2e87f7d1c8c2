#!/bin/bash
# Shared-memory names of Chorus processes that are gone (ranks killed together
# with their launcher before they could unlink them) are removed by the next
# mpirun; names of live processes and of other programs stay. Also a job
# directory whose launcher is a zombie nobody reaped counts as stale.
# usage: stale_shm.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

# A pid that is gone: a short process we waited for.
sleep 0 & dead=$!
wait "$dead"
dead_name=/dev/shm/chorus-$dead-p2p
live_name=/dev/shm/chorus-$$-p2p
other_name=/dev/shm/notchorus-$dead-p2p
touch "$dead_name" "$live_name" "$other_name"
trap 'rm -f "$dead_name" "$live_name" "$other_name"; pkill -KILL -f "sleep $TAG" 2>/dev/null; rm -rf "$T"' EXIT

run_cr -n 1 true
expect_rc 0
check "the dead process's name is removed" test ! -e "$dead_name"
check "a live process's name stays" test -e "$live_name"
check "another program's name stays" test -e "$other_name"

# A zombie launcher: its directory goes too. bash -c 'exec sleep' makes a child
# that exits while its parent (a sleeping shell we do not wait for) never reaps it.
bash -c "sleep 0.2 & exec sleep 100" &
parent=$!
sleep 0.6
zombie=$(pgrep -P "$parent" || true)
if [ -n "$zombie" ] && grep -q ') Z' "/proc/$zombie/stat" 2>/dev/null; then
  mkdir -p "$CHORUS_TMPDIR/chorus.$(hostname | cut -d. -f1).$zombie.abcdef"
  run_cr -n 1 true
  expect_rc 0
else
  fail "could not make a zombie process for the test"
fi
kill -KILL "$parent" 2>/dev/null
wait "$parent" 2>/dev/null

finish
