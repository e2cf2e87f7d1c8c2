#!/bin/bash
# A rank that called MPI_Init and leaves with status 0 but without MPI_Finalize
# has failed: its peers would wait for it forever. The job ends at once with
# one line naming the rank and its host, and a non-zero status. Programs that
# never call MPI_Init (or PMIx_Init) may still exit 0 whenever they like.
# usage: unfinalized.sh CHORUSRUN UNFINALIZED_PROGRAM PMIX_CLIENT
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")
PMIX_CLIENT=$(readlink -f "$2")
HOST=$(hostname)

for how in return exit; do
  # Rank 1 leaves; ranks 0 and 2 wait in MPI_Barrier.
  run_cr -n 3 --timeout 30 "$PROG" "$how" 1 "$TAG"
  check "$how: exit 1 (got $RC)" test "$RC" -eq 1
  expect_one_line "^mpirun: rank 1 \\(pid [0-9]+\\) on host $HOST failed: exited without calling MPI_Finalize\$"
  expect_faster_than 5
  check "$how: every rank got through MPI_Init" test "$(grep -c ready "$OUT")" -eq 3
  check "$how: no rank left" test -z "$(pgrep -f "$PROG $how 1 $TAG")"
done

# Every rank of a plain PMIx client finalizes: still a success.
run_cr -n 2 "$PMIX_CLIENT" 2
expect_rc 0
check "PMIx client job: no mpirun line" test "$(grep -c '^mpirun: ' "$ERR")" -eq 0

# Plain programs never connect: exiting 0 early is fine.
run_cr -n 3 sh -c 'if [ "$PMIX_RANK" = 1 ]; then exit 0; fi; sleep 0.3'
expect_rc 0

finish
