#!/bin/bash
# mpirun killed with SIGKILL: its ranks die with it (the kernel's parent-death
# signal; MPI ranks it did not start itself see their PMIx server go), and the
# job directory it could not remove is removed by the next mpirun on this host.
# usage: killed.sh CHORUSRUN UNFINALIZED_PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")

# kill_launcher WHAT ARGS...: starts chorusrun ARGS, waits until READY_CMD
# (a global) succeeds, kills chorusrun with SIGKILL; then expects no process
# matching GONE_PATTERN within 3 s and the dead launcher's job dir still there.
kill_launcher() {
  local what=$1
  shift
  "$CHORUSRUN" "$@" >"$T/out" 2>"$T/err" </dev/null &
  local cr=$! i
  for i in $(seq 200); do
    eval "$READY_CMD" && break
    sleep 0.05
  done
  check "$what: ranks started" eval "$READY_CMD"
  kill -KILL "$cr"
  wait "$cr" 2>/dev/null
  for i in $(seq 30); do
    pgrep -f "$GONE_PATTERN" >/dev/null || break
    sleep 0.1
  done
  if pgrep -f "$GONE_PATTERN" >/dev/null; then
    fail "$what: ranks outlived their launcher by 3 s: $(pgrep -af "$GONE_PATTERN")"
    pkill -KILL -f "$GONE_PATTERN"
  fi
  check "$what: the killed launcher's job dir is there" test -n "$(ls -A "$CHORUS_TMPDIR")"
}

# Plain programs as the ranks.
READY_CMD='[ "$(pgrep -fc "sleep $TAG")" -ge 2 ]'
GONE_PATTERN="sleep $TAG"
kill_launcher "sleep ranks" -n 2 sleep "$TAG"
# The next job removes the dead launcher's directory (run_cr checks the temp
# dir is empty afterwards) and runs normally.
run_cr -n 1 true
expect_rc 0

# MPI ranks spinning in MPI_Barrier for a rank that sleeps.
READY_CMD='[ "$(grep -c ready "$T/out")" -ge 3 ]'
GONE_PATTERN="$PROG hang 1 $TAG"
kill_launcher "MPI ranks" -n 3 "$PROG" hang 1 "$TAG"
run_cr -n 2 sleep 0.1
expect_rc 0

# MPI ranks behind a wrapper script: the kernel kills the shell, and the MPI
# process, a grandchild of the launcher, notices its PMIx server is gone.
READY_CMD='[ "$(grep -c ready "$T/out")" -ge 2 ]'
GONE_PATTERN="$PROG hang 0 $TAG"
kill_launcher "MPI ranks behind sh" -n 2 sh -c '"$0" "$@"; echo done' "$PROG" hang 0 "$TAG"
run_cr -n 1 true
expect_rc 0

# A directory of a launcher that is alive, or of another host, stays.
mkdir "$CHORUS_TMPDIR/chorus.$(hostname -s).$$.abcdef" "$CHORUS_TMPDIR/chorus.otherhost.999999999.abcdef"
"$CHORUSRUN" -n 1 true
check "a live launcher's dir is kept" test -d "$CHORUS_TMPDIR/chorus.$(hostname -s).$$.abcdef"
check "another host's dir is kept" test -d "$CHORUS_TMPDIR/chorus.otherhost.999999999.abcdef"

finish
