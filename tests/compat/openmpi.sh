#!/usr/bin/env bash
# Open MPI's mpirun (a PMIx server) launches a Chorus program as plain PMIx clients.
#   openmpi.sh <mpirun.openmpi> <hello>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 2 )) || fail "usage: openmpi.sh <mpirun.openmpi> <hello>"
ompi_run=$1 hello=$2
need_tool "$ompi_run"
make_tmp
for n in 2 3; do
  note "$ompi_run -n $n $hello"
  run_logged "$tmp/out$n" "$ompi_run" --allow-run-as-root --oversubscribe --bind-to none \
    -n "$n" "$hello" || fail "Open MPI's mpirun -n $n exited non-zero"
  check_hello "$tmp/out$n" "$n"
done
echo "PASS: Open MPI's mpirun runs Chorus ranks (n=2, n=3): distinct ranks, right size, ring exchange"
