#!/bin/bash
# A rank that runs two MPI programs one after the other (a wrapper script that
# checks something with MPI first). With OpenPMIx's shared-memory job store (gds
# ds21, its default) the second program's PMIx_Init got no job data once the
# first process of that rank had finalized (OpenPMIx 4.2, Debian 12's; Open MPI
# 4.1's own mpirun fails the same way). The launcher's server now uses the hash
# store (pmix_host.cc), with which it works; this test was should_fail before.
# usage: reinit.sh CHORUSRUN PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")
run_cr -n 2 --timeout 30 sh -c "'$PROG' first && '$PROG' second"
expect_rc 0
check "both programs ran on both ranks" test "$(grep -c '^mpmd rank' "$OUT")" -eq 4
finish
