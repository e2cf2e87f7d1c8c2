#!/bin/bash
# The hang doctor: with --hang-timeout (or CHORUS_HANG_TIMEOUT), on --timeout and
# on SIGQUIT, mpirun prints where every rank waits and names what is wrong: a
# point-to-point cycle, ranks that never entered the collective the others are
# in, a rank outside MPI. SIGQUIT leaves the job running.
# usage: hang.sh CHORUSRUN HANG_PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")

has() {  # has DESCRIPTION EXTENDED-REGEX: a line of mpirun's stderr matches
  check "$1" grep -Eq -- "$2" "$ERR"
}

# A deadlock: ranks 0 and 1 receive from each other; rank 2 waits in a barrier.
run_cr -n 3 --hang-timeout 1 --timeout 60 "$PROG" deadlock "$TAG"
expect_rc 124
expect_faster_than 15
has "deadlock: table header" "^mpirun: hang doctor \\(a rank waited 1 s in one call\\): where each of the 3 ranks is"
has "deadlock: rank 0's row" "^mpirun: +0 +[^ ]+ +wait +MPI_Recv +MPI_COMM_WORLD \\(3 ranks\\) +- +rank 1 tag 5 "
has "deadlock: rank 2's row" "^mpirun: +2 +[^ ]+ +wait +MPI_Barrier +MPI_COMM_WORLD"
has "deadlock: the cycle" "deadlock, point-to-point waits form a cycle: rank 0 \\(MPI_Recv\\) waits for rank 1, rank 1 \\(MPI_Recv\\) waits for rank 0"
has "deadlock: ranks missing from the barrier" "rank 2 is in MPI_Barrier #[0-9]+ on MPI_COMM_WORLD \\(3 ranks\\); ranks 0,1 never entered it"
has "deadlock: the job ends" "^mpirun: ending the job: a rank waited longer than the hang timeout"
check "deadlock: no rank left" test -z "$(pgrep -f "$PROG deadlock $TAG")"

# A collective one rank never called (it waits for a message instead). The
# variable form of the timeout, at 4 ranks.
CHORUS_HANG_TIMEOUT=1 run_cr -n 4 --timeout 60 "$PROG" missing "$TAG"
expect_rc 124
has "missing: ranks 0-2 in the allreduce, rank 3 not" "ranks 0-2 are in MPI_Allreduce #[0-9]+ on MPI_COMM_WORLD \\(4 ranks\\); rank 3 never entered it"
has "missing: what rank 3 does" "^mpirun:   rank 3 is in MPI_Recv"
check "missing: no rank left" test -z "$(pgrep -f "$PROG missing $TAG")"

# A rank stuck in its own code, found when --timeout expires.
run_cr -n 3 --timeout 3 "$PROG" user "$TAG"
expect_rc 124
has "user: table on --timeout" "^mpirun: hang doctor \\(--timeout 3 s\\)"
has "user: rank 1 is outside MPI" "^mpirun: +1 +[^ ]+ +user "
has "user: named as missing" "rank 1 is outside MPI"
has "user: the timeout line still comes" "^mpirun: job timed out after 3 s"
check "user: no rank left" test -z "$(pgrep -f "$PROG user $TAG")"

# SIGQUIT: the table, and the job goes on to finish normally.
OUT=$T/out ERR=$T/err
"$CHORUSRUN" -n 3 --timeout 60 "$PROG" slow "$TAG" >"$OUT" 2>"$ERR" </dev/null &
pid=$!
for _ in $(seq 100); do
  [[ $(grep -c ready "$OUT" 2>/dev/null) == 3 ]] && break
  sleep 0.05
done
sleep 0.5
kill -QUIT "$pid"
wait "$pid"
RC=$?
expect_rc 0
has "quit: table" "^mpirun: hang doctor \\(SIGQUIT\\): where each of the 3 ranks is"
has "quit: rank 0 computes" "^mpirun: +0 +[^ ]+ +user "
has "quit: ranks 1-2 wait in the barrier" "ranks 1,2 are in MPI_Barrier #[0-9]+ on MPI_COMM_WORLD \\(3 ranks\\); rank 0 never entered it"

finish
