#!/bin/bash
# Inside a batch allocation mpirun's hosts are the allocation's nodes and -n defaults
# to their slots: Slurm's SLURM_JOB_NODELIST with SLURM_TASKS_PER_NODE (without a
# node list: this node, SLURM_NTASKS or SLURM_TASKS_PER_NODE), PBS's PBS_NODEFILE.
# More ranks than slots are refused (--oversubscribe allows them), and so is an
# allocation that cannot be read. -n always wins. Only jobs whose ranks all land on
# this node are run here (tests/multihost starts others). (The variables are set by
# hand here; tests/compat/slurm.sh runs a real salloc.)
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
expect_one_line "has 2 nodes but SLURM_JOB_NODELIST is not set"

# Two nodes, this one first: -n 2 fills this node's slots, the other gets nothing.
SHORT=$(hostname -s)
SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$SHORT,other-host-xyz" SLURM_TASKS_PER_NODE='2(x2)' run_cr -n 2 "${PROG[@]}"
expect_rc 0
check "a 2-node Slurm allocation with -n 2: 2 ranks here (got $(count))" test "$(count)" -eq 2
SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$SHORT,other-host-xyz" SLURM_TASKS_PER_NODE='2(x2)' run_cr -n 5 "${PROG[@]}"
expect_rc 2
expect_one_line "5 ranks but 4 slots .*other-host-xyz:2 from Slurm allocation 7.*--oversubscribe"
SLURM_JOB_ID=7 SLURM_JOB_NODELIST="$SHORT,other-host-xyz" SLURM_TASKS_PER_NODE='2' run_cr "${PROG[@]}"
expect_rc 2
expect_one_line "SLURM_TASKS_PER_NODE 2 counts 1 node, SLURM_JOB_NODELIST .* names 2"

HOST=$(hostname)
printf '%s\n%s\n\n%s\n' "$HOST" "$HOST" "$HOST" >"$T/nodes"
PBS_NODEFILE=$T/nodes run_cr "${PROG[@]}"
expect_rc 0
check "PBS_NODEFILE with this host 3 times: 3 ranks (got $(count))" test "$(count)" -eq 3
PBS_NODEFILE=$T/nodes run_cr -n 4 "${PROG[@]}"
expect_rc 2
expect_one_line "4 ranks but 3 slots .* from PBS_NODEFILE"
PBS_NODEFILE=$T/nodes run_cr -n 4 --oversubscribe "${PROG[@]}"
expect_rc 0
check "--oversubscribe: 4 ranks on 3 slots (got $(count))" test "$(count)" -eq 4
printf '%s\nother-host-xyz\n' "$HOST" >"$T/nodes2"
PBS_NODEFILE=$T/nodes2 run_cr -n 1 "${PROG[@]}"
expect_rc 0
check "a PBS allocation with another host, -n 1: 1 rank here (got $(count))" test "$(count)" -eq 1
PBS_NODEFILE=$T/no-such-file run_cr "${PROG[@]}"
expect_rc 2
expect_one_line "PBS_NODEFILE .*no-such-file"
finish
