#!/bin/bash
# Inside a batch allocation mpirun's -n defaults to the allocation's tasks on this
# node: Slurm's SLURM_NTASKS (or SLURM_TASKS_PER_NODE), PBS's PBS_NODEFILE. An
# allocation of several nodes without -n is refused with a line saying why (this
# mpirun starts ranks on its own node only). -n always wins. (The variables are
# set by hand here; tests/compat/slurm.sh runs a real salloc.)
# usage: allocation.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
count() { grep -c '^r' "$OUT"; }
PROG=(sh -c 'echo "r$PMIX_RANK"')

SLURM_JOB_ID=7 SLURM_NTASKS=3 SLURM_JOB_NUM_NODES=1 run_cr "${PROG[@]}"
expect_rc 0
check "SLURM_NTASKS=3: 3 ranks (got $(count))" test "$(count)" -eq 3
SLURM_JOB_ID=7 SLURM_TASKS_PER_NODE='4(x1)' SLURM_JOB_NUM_NODES=1 run_cr "${PROG[@]}"
expect_rc 0
check "SLURM_TASKS_PER_NODE=4(x1): 4 ranks (got $(count))" test "$(count)" -eq 4
SLURM_JOB_ID=7 SLURM_NTASKS=3 SLURM_JOB_NUM_NODES=1 run_cr -n 2 "${PROG[@]}"
expect_rc 0
check "-n wins over the allocation" test "$(count)" -eq 2
SLURM_JOB_ID=7 SLURM_NTASKS=8 SLURM_JOB_NUM_NODES=2 run_cr "${PROG[@]}"
expect_rc 2
check "a 2-node Slurm allocation without -n is refused and named" grep -q "has 2 nodes" "$ERR"

HOST=$(hostname)
printf '%s\n%s\n\n%s\n' "$HOST" "$HOST" "$HOST" >"$T/nodes"
PBS_NODEFILE=$T/nodes run_cr "${PROG[@]}"
expect_rc 0
check "PBS_NODEFILE with this host 3 times: 3 ranks (got $(count))" test "$(count)" -eq 3
printf '%s\nother-host-xyz\n' "$HOST" >"$T/nodes2"
PBS_NODEFILE=$T/nodes2 run_cr "${PROG[@]}"
expect_rc 2
check "a PBS allocation with another host is refused and names it" grep -q "other-host-xyz" "$ERR"
finish
