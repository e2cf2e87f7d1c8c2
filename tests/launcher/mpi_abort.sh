#!/bin/bash
# MPI_Abort through the real MPI library (tests/launcher/abort.c).
# usage: mpi_abort.sh CHORUSRUN ABORT_PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")
HOST=$(hostname)

run_cr -n 3 "$PROG"
expect_rc 7
expect_one_line "^mpirun: rank 1 \\(pid [0-9]+\\) on host $HOST failed: MPI_Abort\\(errorcode 7\\)\$"
expect_faster_than 5
check "no rank left" test -z "$(pgrep -f "$PROG")"

finish
