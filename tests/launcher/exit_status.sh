#!/bin/bash
# Exit statuses: all ranks 0 -> 0; the first non-zero exit or fatal signal ends
# the job with one line naming rank, pid, host and cause, and nothing is left.
# usage: exit_status.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
HOST=$(hostname)

# All zero, and fast.
run_cr -n 8 true
expect_rc 0
check "no stderr on success" test ! -s "$ERR"
expect_faster_than 3

# A rank that exits 0 early is fine while others keep running.
run_cr -n 3 sh -c 'if [ "$PMIX_RANK" = 0 ]; then exit 0; fi; sleep 0.3'
expect_rc 0

# Ranks that exit 0 but leave a background process behind: still exit 0, and
# the leftovers are ended rather than outliving the job.
run_cr -n 2 sh -c 'sleep '"$TAG"' & echo started'
expect_rc 0
check "both ranks ran" test "$(grep -c started "$OUT")" -eq 2
expect_no_leftovers
expect_faster_than 3

# Rank 2 exits 3; the others (and a grandchild each) would run forever.
run_cr -n 4 sh -c 'echo "rank $PMIX_RANK pid $$"; if [ "$PMIX_RANK" = 2 ]; then exit 3; fi; sleep '"$TAG"' & wait'
expect_rc 3
PID2=$(sed -n 's/^rank 2 pid \([0-9]*\)$/\1/p' "$OUT")
expect_one_line "^mpirun: rank 2 \\(pid $PID2\\) on host $HOST failed: exit status 3\$"
expect_no_leftovers
expect_faster_than 5

# Killed by a signal: named, exit 128+signo.
run_cr -n 3 sh -c 'if [ "$PMIX_RANK" = 1 ]; then kill -SEGV $$; fi; sleep '"$TAG"' & wait'
expect_rc 139
expect_one_line "^mpirun: rank 1 \\(pid [0-9]+\\) on host $HOST failed: signal 11 \\(Segmentation fault\\)\$"
expect_no_leftovers

run_cr -n 2 sh -c 'if [ "$PMIX_RANK" = 0 ]; then kill -KILL $$; fi; sleep '"$TAG"' & wait'
expect_rc 137
expect_one_line "^mpirun: rank 0 \\(pid [0-9]+\\) on host $HOST failed: signal 9 \\(Killed\\)\$"
expect_no_leftovers

# Ranks that ignore SIGTERM are SIGKILLed after the grace period.
run_cr -n 3 sh -c 'trap "" TERM; if [ "$PMIX_RANK" = 1 ]; then exit 5; fi; sleep '"$TAG"
expect_rc 5
expect_one_line "rank 1 .* failed: exit status 5\$"
expect_no_leftovers
expect_faster_than 4

# A rank killed while its shared-memory names still exist (Chorus names them
# /chorus-<pid>-<what> and unlinks them once peers have mapped them): the
# launcher removes them; other ranks' names stay.
run_cr -n 2 sh -c 'touch /dev/shm/chorus-$$-p2p /dev/shm/chorus-$$-0; echo "rank $PMIX_RANK pid $$"; if [ "$PMIX_RANK" = 1 ]; then kill -KILL $$; fi; sleep '"$TAG"' & wait'
expect_rc 137
PID0=$(sed -n 's/^rank 0 pid \([0-9]*\)$/\1/p' "$OUT")
PID1=$(sed -n 's/^rank 1 pid \([0-9]*\)$/\1/p' "$OUT")
check "a killed rank's /dev/shm names are removed" test ! -e "/dev/shm/chorus-$PID1-p2p" -a ! -e "/dev/shm/chorus-$PID1-0"
check "every rank's names are removed once it ends" test ! -e "/dev/shm/chorus-$PID0-p2p"
rm -f "/dev/shm/chorus-$PID0-p2p" "/dev/shm/chorus-$PID0-0" "/dev/shm/chorus-$PID1-p2p" "/dev/shm/chorus-$PID1-0"
expect_no_leftovers

# The failing rank's last output comes before the failure line.
run_cr -n 1 sh -c 'echo "last words" >&2; exit 9'
expect_rc 9
check "rank output precedes the failure line" test "$(head -1 "$ERR")" = "last words"

finish
