#!/bin/bash
# A rank calling PMIx_Abort (what MPI_Abort does) ends the job: the line says
# MPI_Abort(errorcode N), the exit status is N clamped to 1..255, and the ranks
# blocked in a fence are ended.
# usage: pmix_abort.sh CHORUSRUN PMIX_CLIENT
source "$(dirname "$0")/lib.sh"
CLIENT=$(readlink -f "$1")
HOST=$(hostname)

run_cr -n 4 "$CLIENT" 4 abort 1 7
expect_rc 7
expect_one_line "^mpirun: rank 1 \\(pid [0-9]+\\) on host $HOST failed: MPI_Abort\\(errorcode 7\\)\$"
expect_faster_than 5
check "no client left" test -z "$(pgrep -f "$CLIENT 4 abort")"

run_cr -n 2 "$CLIENT" 2 abort 0 300
expect_rc 255
expect_one_line "failed: MPI_Abort\\(errorcode 300\\)\$"

run_cr -n 2 "$CLIENT" 2 abort 1 0
expect_rc 1
expect_one_line "rank 1 .*failed: MPI_Abort\\(errorcode 0\\)\$"

finish
