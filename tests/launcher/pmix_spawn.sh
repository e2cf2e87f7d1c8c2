#!/bin/bash
# Dynamic processes (the server side of MPI_Comm_spawn and MPI's name service):
# PMIx_Spawn starts a new namespace on this node whose ranks are forwarded,
# waited for and judged like the launched job's; a bad request is answered with
# an error and the job goes on; PMIx_Publish/Lookup/Unpublish keep names.
# usage: pmix_spawn.sh CHORUSRUN PMIX_SPAWN
source "$(dirname "$0")/lib.sh"
CLIENT=$(readlink -f "$1")
HOST=$(hostname)

# Spawn 3 children, two refused spawns, the name service: everything exits 0,
# and mpirun waits for the children, which outlive their parents.
run_cr -n 2 --tag-output --timeout 20 "$CLIENT" parent
expect_rc 0
check "no stderr" test ! -s "$ERR"
for r in 0 1; do check "parent $r ok" grep -q "^\\[$r\\] parent $r ok\$" "$OUT"; done
for r in 0 1 2; do
  check "child $r ok, labelled" grep -q "^\\[spawn1:$r\\] child $r of 3 ok\$" "$OUT"
  check "child $r waited for" grep -q "^\\[spawn1:$r\\] child $r done\$" "$OUT"
done
check "spawned namespace" grep -Eq '^\[0\] parent spawned chorus\..*\.spawn1$' "$OUT"
check "missing program refused" grep -q '^\[0\] parent: missing program refused' "$OUT"
check "0 processes refused" grep -q '^\[0\] parent: 0 processes refused' "$OUT"
check "missing directory refused" grep -q '^\[0\] parent: missing directory refused' "$OUT"
check "PMIX_WDIR" grep -q '^\[spawn2:0\] pwd child in /$' "$OUT"
expect_faster_than 8
if [ "$FAILED" -ne 0 ]; then cat "$OUT" "$ERR" >&2; fi

# --output-filename: a spawned job's ranks write to DIR/2.
run_cr -n 2 --output-filename "$T/outdir" --timeout 20 "$CLIENT" parent
expect_rc 0
check "spawned rank's file" grep -q '^child 2 done$' "$T/outdir/2/rank.2/stdout"
check "launched rank's file" grep -q '^parent 1 ok$' "$T/outdir/1/rank.1/stdout"

# A spawned rank that exits 3 ends the whole job (parents and its peer wait
# forever): one line names it, and nothing is left.
run_cr -n 2 --timeout 20 "$CLIENT" fail 3
expect_rc 3
expect_one_line "^mpirun: rank 1 of spawned job chorus\\..*\\.spawn1 \\(pid [0-9]+\\) on host $HOST failed: exit status 3\$"
expect_faster_than 6
check "no client left" test -z "$(pgrep -f "$CLIENT (fail|failchild) ")"

# PMIx_Abort (MPI_Abort) in a spawned rank.
run_cr -n 1 --timeout 20 "$CLIENT" abort 5
expect_rc 5
expect_one_line "^mpirun: rank 1 of spawned job chorus\\..*\\.spawn1 \\(pid [0-9]+\\) on host $HOST failed: MPI_Abort\\(errorcode 5\\)\$"
expect_faster_than 6
check "no client left" test -z "$(pgrep -f "$CLIENT (abort|abortchild) ")"

finish
