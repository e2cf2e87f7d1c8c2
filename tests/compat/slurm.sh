#!/usr/bin/env bash
# Slurm starts Chorus programs: a one-node Slurm (slurmctld and slurmd started here,
# auth/none, every file in a temp dir, ports above 20000, stopped at the end) runs
#   srun --mpi=pmix -n 3   (ranks are plain PMIx clients of Slurm's PMIx plugin)
#   srun --mpi=pmi2 -n 2   (Slurm's PMI-2 plugin also answers PMI-1: lib/launcher/pmi1.h)
#   srun --mpi=none -n 2   (nothing to join: rank 0 says so once; each runs alone)
#   salloc -n 3 mpirun hello  (Chorus's mpirun takes its rank count from the allocation)
# Needs root (SlurmUser=root) and the slurm-wlm packages; else SKIP.
#   slurm.sh <hello> <mpirun>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 2 )) || fail "usage: slurm.sh <hello> <mpirun>"
hello=$1 mpirun=$2
need_tool slurmctld slurmd srun salloc sinfo
(( EUID == 0 )) || skip "a one-node Slurm with SlurmUser=root needs root"
make_tmp
host=$(hostname -s)
source "$(dirname "${BASH_SOURCE[0]}")/slurm_conf.sh"
slurm_conf "$tmp/slurm.conf" "$tmp" "$host" 127.0.0.1 "$host=127.0.0.1"
export SLURM_CONF=$tmp/slurm.conf
slurmctld -D -f "$SLURM_CONF" >"$tmp/ctld.out" 2>&1 &
ctld=$!
slurmd -D -f "$SLURM_CONF" >"$tmp/d.out" 2>&1 &
slurmd_pid=$!
trap 'kill $ctld $slurmd_pid 2>/dev/null; wait $ctld $slurmd_pid 2>/dev/null; rm -rf "$tmp"' EXIT
for _ in $(seq 100); do
  sinfo -h -o %T 2>/dev/null | grep -q idle && break
  sleep 0.1
done
sinfo -h -o %T 2>/dev/null | grep -q idle || { cat "$tmp/ctld.out" "$tmp/d.out"; fail "the one-node Slurm did not come up"; }

note "srun --mpi=pmix -n 3"
run_logged "$tmp/pmix" srun --mpi=pmix -n 3 --overcommit "$hello" || fail "srun --mpi=pmix exited non-zero"
check_hello "$tmp/pmix" 3

note "srun --mpi=pmi2 -n 2"
run_logged "$tmp/pmi2" srun --mpi=pmi2 -n 2 --overcommit "$hello" || fail "srun --mpi=pmi2 exited non-zero"
check_hello "$tmp/pmi2" 2

note "srun --mpi=none -n 2: one warning, two worlds of one"
run_logged "$tmp/none" srun --mpi=none -n 2 --overcommit "$hello" || fail "srun --mpi=none exited non-zero"
[[ $(grep -c "^hello rank=0 size=1$" "$tmp/none") == 2 ]] || fail "expected two worlds of one"
[[ $(grep -c "srun --mpi=none?" "$tmp/none") == 1 ]] || fail "expected one warning naming srun --mpi=none"
note "salloc -n 3 mpirun hello"
run_logged "$tmp/salloc" salloc -n 3 --overcommit "$mpirun" "$hello" || fail "salloc mpirun exited non-zero"
check_hello "$tmp/salloc" 3
echo "PASS: srun --mpi=pmix and --mpi=pmi2 run Chorus ranks as one job; --mpi=none is named; mpirun takes -n from salloc"
