#!/bin/bash
# A rank whose MPI_Init fails names its own rank and host, even when PMIx
# itself could not start (here: an unknown PMIx plugin asked for through
# PMIX_MCA_gds, which every OpenPMIx refuses at PMIx_Init).
# usage: init_error.sh CHORUSRUN MPI_PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")
HOST=$(hostname)

# Only rank 1 fails; the others wait for it in MPI_Init until the job ends.
run_cr -n 3 --timeout 30 sh -c 'if [ "$PMIX_RANK" = 1 ]; then export PMIX_MCA_gds=bogus; fi; exec "$0" "$@"' \
  "$PROG" hang 9 "$TAG"
check "rank 1 alone: non-zero exit" test "$RC" -ne 0
expect_one_line "^mpirun: rank 1 \\(pid [0-9]+\\) on host $HOST failed: "
check "rank 1 alone: the rank names itself" \
  grep -q "^chorus: rank 1 on host $HOST: fatal error: MPI_Init: PMIx bootstrap failed" "$ERR"
expect_faster_than 10

# Every rank fails: each line names a different rank, all on this host.
run_cr -n 3 --timeout 30 -x PMIX_MCA_gds=bogus "$PROG" hang 9 "$TAG"
check "all ranks: non-zero exit" test "$RC" -ne 0
LINES=$(grep '^chorus: ' "$ERR")
check "all ranks: at least one rank says why" test -n "$LINES"
check "all ranks: every line names a rank and this host" \
  test -z "$(grep -v "^chorus: rank [0-2] on host $HOST: fatal error: MPI_Init: PMIx bootstrap failed" <<<"$LINES")"
check "all ranks: no rank twice" test -z "$(sed 's/ on host.*//' <<<"$LINES" | sort | uniq -d)"
[ "$FAILED" -eq 0 ] || cat "$ERR" >&2

finish
