#!/bin/bash
# mpirun's stdout goes to a reader that does not read (a pager left alone, a
# stopped pipeline). mpirun must go on running the job all the same: a rank
# that fails still ends the job at once, with its line on stderr and no rank
# left; a signal to mpirun still ends it; and once the reader reads, every
# line the ranks wrote arrives, in order. Before output went through
# non-blocking sinks, mpirun sat in write(2) on the full pipe and saw none of
# this (its signals wait on a signalfd it no longer read).
# usage: blocked_output.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

LINES=200000
# Rank 0 writes LINES numbered lines (about 3 MB, far past a pipe's 64 KiB);
# rank 1 waits, then fails (or, with "stay", waits for ever).
PROG='if [ "$PMIX_RANK" = 0 ]; then seq -f "line %.0f of rank 0" 1 '$LINES'; sleep '$TAG'; else sleep 1; [ "$1" = fail ] && exit 3; sleep '$TAG'; fi'

mkfifo "$T/fifo"

wait_for() {  # wait_for SECONDS COMMAND...: true once COMMAND is, false after SECONDS
  local until=$((SECONDS + $1))
  shift
  until "$@"; do
    [ "$SECONDS" -ge "$until" ] && return 1
    sleep 0.1
  done
}
# The ranks are mpirun's children (mpirun's own command line holds $PROG, so
# pgrep -f would find mpirun too); seq is rank 0's.
ranks_gone() { ! pgrep -P "$CR" >/dev/null && ! pgrep -fx "seq -f line %.0f of rank 0 1 $LINES" >/dev/null; }
# The reader starts: it takes everything into $T/out; RC is mpirun's status.
read_now() {
  timeout 60 cat "$T/fifo" >"$T/out" 3>&- &
  local reader=$!
  sleep 0.2  # cat has the pipe open: let go of ours, so cat ends when mpirun does
  exec 3>&-
  wait "$CR"
  RC=$?
  wait "$reader"
}
failure_said() { grep -q '^mpirun: rank 1 .*exit status 3' "$T/err"; }

# 1. A rank fails while stdout is blocked.
# fd 3 holds the pipe open and reads nothing; mpirun must not inherit it (an
# end it holds open for reading and writing would keep the reader from EOF).
exec 3<>"$T/fifo"
"$CHORUSRUN" -n 2 sh -c "$PROG" sh fail >"$T/fifo" 2>"$T/err" </dev/null 3>&- &
CR=$!
check "a failing rank is reported while stdout is blocked (stderr: $(tr '\n' '|' <"$T/err"))" wait_for 20 failure_said
check "every rank ends while stdout is blocked" wait_for 20 ranks_gone
check "mpirun waits for its reader to take the output" kill -0 "$CR"
# Now read: what rank 0 wrote before it was ended comes, whole lines in order,
# then mpirun exits 3.
read_now
GOT=$(wc -l <"$T/out")
check "exit status 3 after the failure (got $RC)" test "$RC" -eq 3
# (Its last line may be cut where SIGTERM found it.)
check "rank 0's lines up to its end arrive, in order ($GOT lines)" \
  cmp -s <(head -n $((GOT - 1)) "$T/out") <(seq -f "line %.0f of rank 0" 1 $((GOT - 1)))
check "more than a pipe's worth arrived ($GOT lines)" test "$GOT" -gt 5000
check "the failure line comes once" test "$(grep -c '^mpirun: ' "$T/err")" -eq 1
expect_no_leftovers
check "temp dir removed" test -z "$(ls -A "$CHORUS_TMPDIR")"

# 2. Nothing fails: a reader that starts late gets every line, and mpirun
# ends with the ranks' status once it has.
exec 3<>"$T/fifo"
"$CHORUSRUN" -n 3 sh -c 'if [ "$PMIX_RANK" = 0 ]; then seq -f "line %.0f of rank 0" 1 '$LINES'; fi' \
  >"$T/fifo" 2>"$T/err" </dev/null 3>&- &
CR=$!
sleep 1  # rank 0 is held up by the full pipe, as it would be writing to it itself
read_now
check "late reader: exit 0 (got $RC)" test "$RC" -eq 0
check "late reader: all $LINES lines, in order ($(wc -l <"$T/out"))" \
  cmp -s "$T/out" <(seq -f "line %.0f of rank 0" 1 "$LINES")
check "late reader: nothing on stderr" test ! -s "$T/err"

# 3. SIGTERM to mpirun while stdout is blocked ends the job; the unread output
# is given up on (a reader that never reads must not keep the job alive).
exec 3<>"$T/fifo"
"$CHORUSRUN" -n 2 sh -c "$PROG" sh stay >"$T/fifo" 2>"$T/err" </dev/null 3>&- &
CR=$!
check "the ranks run" wait_for 20 pgrep -P "$CR" >/dev/null
sleep 0.5  # rank 0 is now blocked on its pipe, mpirun's sink congested
kill -TERM "$CR"
ended() { ! kill -0 "$CR" 2>/dev/null; }
check "SIGTERM ends mpirun while stdout is blocked" wait_for 20 ended
if ended; then
  wait "$CR"
  RC=$?
  check "SIGTERM: exit 143 (got $RC)" test "$RC" -eq 143
else
  kill -KILL "$CR"
fi
exec 3>&-
check "SIGTERM: no rank left" wait_for 10 ranks_gone
check "SIGTERM: temp dir removed" wait_for 5 test -z "$(ls -A "$CHORUS_TMPDIR")"

finish
