#!/bin/bash
# --timeout ends a hanging job: one line naming the ranks still running, exit 124.
# usage: timeout.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

run_cr --timeout 2 -n 3 sh -c 'echo "rank $PMIX_RANK pid $$"; if [ "$PMIX_RANK" = 1 ]; then exit 0; fi; sleep '"$TAG"' & wait'
expect_rc 124
P0=$(sed -n 's/^rank 0 pid \([0-9]*\)$/\1/p' "$OUT")
P2=$(sed -n 's/^rank 2 pid \([0-9]*\)$/\1/p' "$OUT")
expect_one_line "^mpirun: job timed out after 2 s; ranks still running: 0 \\(pid $P0\\), 2 \\(pid $P2\\)\$"
expect_no_leftovers
expect_faster_than 4

# Ranks deaf to SIGTERM still end within the grace period.
run_cr --timeout 1 -n 2 sh -c 'trap "" TERM; sleep '"$TAG"
expect_rc 124
expect_no_leftovers
expect_faster_than 4

# MPIEXEC_TIMEOUT, as Open MPI's and MPICH's launchers read it; --timeout and
# CHORUS_TIMEOUT come first; a value that is no number is a usage error.
MPIEXEC_TIMEOUT=1 run_cr -n 2 sh -c 'sleep '"$TAG"
expect_rc 124
expect_one_line "^mpirun: job timed out after 1 s; ranks still running"
expect_no_leftovers
MPIEXEC_TIMEOUT=1 run_cr --timeout 0 -n 1 sh -c 'sleep 1.5; echo done'
expect_rc 0
check "--timeout 0 over MPIEXEC_TIMEOUT: the rank finished" grep -qx done "$OUT"
MPIEXEC_TIMEOUT=1 CHORUS_TIMEOUT=0 run_cr -n 1 sh -c 'sleep 1.5; echo done'
expect_rc 0
MPIEXEC_TIMEOUT=soon run_cr -n 1 true
expect_rc 2
expect_one_line "^mpirun: MPIEXEC_TIMEOUT=soon: expected a number of seconds"

finish
