#!/usr/bin/env bash
# Slurm across pretend hosts (lib.sh): slurmctld in h0 and a slurmd in each of
# h0, h1, h2 (auth none, tests/compat/slurm_conf.sh), so Slurm sees three nodes.
#   srun --mpi=pmix -N 3 -n 6 hello     Slurm's own PMIx wires Chorus ranks across nodes
#   salloc -N 3 -n 6 mpirun hello       mpirun in the allocation: ranks and hosts
#                                       from it, chorusd on h1, h2 through one srun
#   salloc -N 2 -w h1,h2 mpirun hello   mpirun outside its allocation (a login node)
#   chorusd missing on one node         srun's report names that node; the job ends
# Needs root, namespaces and the slurm-wlm packages; else SKIP.
#   slurm.sh CHORUSRUN HELLO
set -u
(( $# == 2 )) || { echo "usage: slurm.sh CHORUSRUN HELLO" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
source "$(dirname "${BASH_SOURCE[0]}")/../compat/slurm_conf.sh"
CHORUSRUN=$(readlink -f "$1") HELLO=$(readlink -f "$2")
for t in slurmctld slurmd srun salloc sinfo; do
  command -v "$t" >/dev/null 2>&1 || { echo "SKIP: $t not found (Debian: slurm-wlm)"; exit 77; }
done
mh_require
BUILD=$(dirname "$CHORUSRUN")/..
mh_setup 3 "$BUILD"
O=$MH_SHARED
unset CHORUS_LAUNCH_AGENT
# Ranks on different hosts talk over the hosts' network (the agent's site profile
# says the same for the other multi-host tests).
export UCX_NET_DEVICES=veth0 CHORUS_KILL_GRACE=1
export SLURM_CONF=$O/slurm.conf
slurm_conf "$SLURM_CONF" "$O/slurm" h0 "$(mh_addr h0)" "h0=$(mh_addr h0)" "h1=$(mh_addr h1)" "h2=$(mh_addr h2)"
mh_run h0 slurmctld -D -f "$SLURM_CONF" >"$O/ctld.out" 2>&1 &
for h in h0 h1 h2; do mh_run "$h" slurmd -D -f "$SLURM_CONF" -N "$h" >"$O/slurmd.$h.out" 2>&1 & done
for _ in $(seq 150); do
  [[ $(mh_run h0 sinfo -h -o '%D %T' 2>/dev/null) == "3 idle" ]] && break
  sleep 0.1
done
[[ $(mh_run h0 sinfo -h -o '%D %T' 2>/dev/null) == "3 idle" ]] ||
  { cat "$O/ctld.out" "$O"/slurmd.*.out; echo "FAIL: the three-node Slurm did not come up"; exit 1; }

# in_h0 OUTFILE CMD...: CMD in h0, bounded; sets RC.
in_h0() {
  local out=$1
  shift
  mh_run h0 timeout -k 5 60 "$@" >"$out" 2>&1 </dev/null
  RC=$?
}
hellos() {  # FILE N: every rank of N said hello and exchanged with its neighbour
  local r
  for ((r = 0; r < $2; r++)); do
    expect_line "$1" "^hello rank=$r size=$2$" "rank $r of $2 said hello"
    expect_line "$1" "^exchange rank=$r .* ok$" "rank $r exchanged with its neighbour"
  done
}
# Nothing of a job is left on any host (Slurm's own daemons stay).
expect_no_job() {  # WHAT
  local left
  for _ in $(seq 50); do
    left=$(mh_leftovers | grep -E 'chorusd|hello|slurmstepd|srun' || true)
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  fail "$1: left behind: $left"
}

note "srun --mpi=pmix -N 3 -n 6: Slurm's PMIx wires Chorus ranks on three nodes"
in_h0 "$O/srun" srun --mpi=pmix -N 3 -n 6 --overcommit "$HELLO"
(( RC == 0 )) || { fail "srun exited $RC"; show "$O/srun"; }
hellos "$O/srun" 6
expect_no_job "srun --mpi=pmix"

note "salloc -N 3 -n 6 mpirun: hosts and ranks from the allocation, daemons through one srun"
in_h0 "$O/salloc3" env CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=LAUNCH \
  salloc -N 3 -n 6 --overcommit "$CHORUSRUN" "$HELLO"
(( RC == 0 )) || { fail "salloc mpirun exited $RC"; show "$O/salloc3"; }
hellos "$O/salloc3" 6
expect_line "$O/salloc3" "launch tree: 2 daemon\(s\) from h0, all through one srun: h1 h2" "one srun starts both daemons"
expect_line "$O/salloc3" "chorusd on h1 connected" "the daemon on h1 proved the token"
expect_line "$O/salloc3" "chorusd on h2 connected" "the daemon on h2 proved the token"
expect_no_job "salloc -N 3 mpirun"

note "salloc -N 2 -w h1,h2 mpirun from h0: mpirun outside its allocation"
in_h0 "$O/salloc2" salloc -N 2 -n 4 -w h1,h2 --overcommit "$CHORUSRUN" --display-map "$HELLO"
(( RC == 0 )) || { fail "salloc -w h1,h2 mpirun exited $RC"; show "$O/salloc2"; }
hellos "$O/salloc2" 4
for spec in "0 h1" "1 h1" "2 h2" "3 h2"; do
  set -- $spec
  expect_line "$O/salloc2" "^mpirun: +$1 +$2 " "the map shows rank $1 on $2"
done
expect_no_job "salloc -w h1,h2 mpirun"

note "a node without chorusd: srun's report names it, the job ends at once"
# A prefix that h1 has (in its private /tmp) and h2 has not.
P=/tmp/chorus-prefix
for h in h0 h1; do
  mh_run "$h" sh -c "mkdir -p $P/bin && ln -sf '$(readlink -f "$BUILD")/bin/chorusd' $P/bin/chorusd"
done
t0=$(date +%s.%N)
in_h0 "$O/missing" salloc -N 3 -n 3 --overcommit "$CHORUSRUN" --prefix "$P" "$HELLO"
echo "   ended in $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s:"
show "$O/missing"
(( RC != 0 )) || fail "a job with chorusd missing on h2 exited 0"
expect_line "$O/missing" "^mpirun: chorusd on host h2 failed: chorusd did not start under 'srun .*h2: task [0-9]+: Exited" \
  "one line names h2 and srun's report"
[[ $(grep -c "^mpirun: chorusd on host" "$O/missing") == 1 ]] || { fail "expected one failure line"; show "$O/missing"; }
expect_no_job "chorusd missing on h2"

(( FAILED == 0 )) || exit 1
echo "PASS: Slurm across three pretend hosts: srun --mpi=pmix, salloc mpirun (daemons through one srun, inside and outside the allocation), a node without chorusd"
