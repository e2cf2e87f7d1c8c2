#!/bin/bash
# --bind-to core: rank i runs on core i mod ncores; --bind-to package and numa:
# on the package or NUMA node holding that core; --bind-to none leaves the
# launcher's mask alone. More ranks than cores is fine. A rankfile's slot= binds
# its rank to those cores (hwloc's logical core numbers, or PACKAGE:CORES), and
# one this host lacks is refused before any rank starts, naming rank and host.
# usage: bind.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

ALL=$(grep Cpus_allowed_list /proc/self/status | cut -f2)
NCORES=$(nproc)
NP=$((NCORES + 1))
run_cr -n $NP --bind-to core --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_rc 0
mask() { sed -n "s/^\\[$1\\] Cpus_allowed_list:\t//p" "$OUT"; }
check "all $NP ranks report a mask" test "$(grep -c 'Cpus_allowed_list:' "$OUT")" -eq $NP
# The wrap-around rank shares rank 0's core.
check "rank $NCORES shares rank 0's core" test "$(mask 0)" = "$(mask $NCORES)"
if [ "$NCORES" -gt 1 ]; then
  check "ranks 0 and 1 are on different cores" test "$(mask 0)" != "$(mask 1)"
  check "a bound rank is narrower than the machine" test "$(mask 0)" != "$ALL"
fi

run_cr -n 2 --bind-to none sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_rc 0
check "--bind-to none keeps the launcher's mask" test "$(grep -c "	$ALL\$" "$OUT")" -eq 2

# The rankfile: the last core and the first core of package 0, whatever
# --bind-to says; hwloc numbers cores 0..NCORES-1 here.
H=$(hostname)
LAST=$((NCORES - 1))
core_cpus() {  # the CPUs of hwloc's core N
  hwloc-calc --physical-output --intersect pu "core:$1" 2>/dev/null
}
printf 'rank 0=%s slot=%d\nrank 1=%s slot=0:0\n' "$H" "$LAST" "$H" >"$T/rankfile"
run_cr --rankfile "$T/rankfile" --display-map --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
expect_rc 0
if command -v hwloc-calc >/dev/null; then
  check "rank 0 runs on core $LAST (cpus $(core_cpus $LAST), got $(mask 0))" test "$(mask 0)" = "$(core_cpus $LAST)"
  check "rank 1 runs on core 0 of package 0 (cpus $(core_cpus 0), got $(mask 1))" test "$(mask 1)" = "$(core_cpus 0)"
fi
check "the map shows rank 0's binding" grep -Eq "^mpirun: +0 +$H +0 +cpus $(mask 0) " "$OUT"
printf 'rank 0=%s slot=%d\n' "$H" "$NCORES" >"$T/toofar"
run_cr --rankfile "$T/toofar" true
expect_rc 1  # the launcher could not start the job
expect_one_line "rankfile: rank 0 on $H: slot=$NCORES: this host has $NCORES cores? \(0-$LAST\)"
printf 'rank 0=%s slot=7:0\n' "$H" >"$T/nopkg"
run_cr --rankfile "$T/nopkg" true
expect_rc 1
expect_one_line "rankfile: rank 0 on $H: slot=7:0: this host has [0-9]+ packages?"

# --bind-to package | numa: each rank on the package or NUMA node holding its core;
# with --map-by ppr:N:package, N ranks on each package in turn. hwloc reads a
# synthetic topology here (two packages, each one NUMA node with one core: this
# machine's CPUs 0 and 1), so the test sees two packages on any machine.
if [ "$NCORES" -ge 2 ]; then
  export HWLOC_SYNTHETIC="package:2 numa:1 core:1 pu:1"
  for how in "--bind-to package" "--bind-to numa" "--bind-to socket"; do
    run_cr -n 4 $how --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
    expect_rc 0
    check "$how: ranks 0 and 2 on package 0 (cpu 0; got $(mask 0), $(mask 2))" test "$(mask 0),$(mask 2)" = "0,0"
    check "$how: ranks 1 and 3 on package 1 (cpu 1; got $(mask 1), $(mask 3))" test "$(mask 1),$(mask 3)" = "1,1"
  done
  for bind in package core; do
    run_cr -n 4 --map-by ppr:2:package --bind-to $bind --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
    expect_rc 0
    check "ppr:2:package, --bind-to $bind: ranks 0, 1 on package 0 and 2, 3 on package 1 (got $(mask 0) $(mask 1) $(mask 2) $(mask 3))" \
      test "$(mask 0) $(mask 1) $(mask 2) $(mask 3)" = "0 0 1 1"
  done
  # --map-by package (Open MPI's): the packages in turn, each rank bound to its own
  # (the default binding follows the mapping), where by slot 4 ranks on 2 cores
  # would stay unbound.
  run_cr -n 4 --map-by package --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
  expect_rc 0
  check "--map-by package: ranks 0, 2 on package 0 and 1, 3 on package 1, bound to it (got $(mask 0) $(mask 1) $(mask 2) $(mask 3))" \
    test "$(mask 0) $(mask 1) $(mask 2) $(mask 3)" = "0 1 0 1"
  unset HWLOC_SYNTHETIC
fi
# On the machine itself: package and NUMA binding are never narrower than a core.
run_cr -n 2 --bind-to package --report-bindings true
expect_rc 0
check "--report-bindings names the package binding" grep -q "cpus " "$ERR" "$OUT"
run_cr -n 1 --bind-to l9cache true
expect_rc 2
check "--bind-to l9cache is named with the choices" grep -qx "mpirun: --bind-to l9cache: expected none, core, package (socket), numa or auto" "$ERR"

# --bind-to auto, the default: ranks that fit on cores no other Chorus job of the
# host holds get a core each (Open MPI's rule for 2 ranks or fewer); more ranks
# than cores, or cores held by another live job, leave the ranks unbound.
if [ "$NCORES" -ge 2 ]; then
  run_cr -n 2 --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
  expect_rc 0
  check "auto: 2 ranks on two different cores (got $(mask 0) and $(mask 1))" \
    test "$(mask 0)" != "$(mask 1)" -a "$(mask 0)" != "$ALL" -a "$(mask 1)" != "$ALL"
  CHORUS_DEBUG=INFO run_cr -n $NP --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
  expect_rc 0
  check "auto: $NP ranks on $NCORES cores are not bound" test "$(grep -c "	$ALL\$" "$OUT")" -eq $NP
  check "auto says why" grep -q "INFO LAUNCH --bind-to auto on .*: $NP ranks on $NCORES cores this launcher may use: oversubscribed, not bound" "$ERR"
  CHORUS_BIND_TO=none run_cr -n 2 sh -c 'grep Cpus_allowed_list /proc/self/status'
  check "CHORUS_BIND_TO=none: not bound" test "$(grep -c "	$ALL\$" "$OUT")" -eq 2

  # Jobs side by side: the first (bound by --bind-to core, which records its core
  # too) holds core 0 while it runs, so the second, auto, gets another core (Open
  # MPI would put both on core 0); with every core held, a third is not bound.
  # Each job's rank waits for a file before it ends.
  job_bg() {  # job_bg NAME [OPTIONS]: one rank that writes its mask to $T/NAME and waits for $T/stop
    local name=$1
    shift
    "$CHORUSRUN" -n 1 "$@" sh -c "grep Cpus_allowed_list /proc/self/status | cut -f2 > $T/\$1.tmp; mv $T/\$1.tmp $T/\$1; \
      while [ ! -e $T/stop ]; do sleep 0.05; done" sh "$name" >/dev/null 2>"$T/err.$name" </dev/null &
    local i
    for i in $(seq 600); do [ -e "$T/$name" ] && break; sleep 0.05; done
  }
  job_bg a --bind-to core
  job_bg b
  CHORUS_DEBUG=INFO "$CHORUSRUN" -n 1 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' >"$T/c" 2>"$T/err.c" </dev/null
  touch "$T/stop"
  wait
  rm -f "$T/stop"
  check "auto: two jobs at once get different cores (got $(cat "$T/a") and $(cat "$T/b"))" \
    test "$(cat "$T/a")" != "$(cat "$T/b")" -a "$(cat "$T/a")" != "$ALL" -a "$(cat "$T/b")" != "$ALL"
  if [ "$NCORES" -eq 2 ]; then
    check "auto: a third job, with both cores held, is not bound (got $(cat "$T/c"))" test "$(cat "$T/c")" = "$ALL"
    check "auto: the third says which cpus other jobs hold" \
      grep -q "0 of the 2 usable cores free (other Chorus jobs on this host hold cpus 0-1): not bound" "$T/err.c"
  fi
  # A job directory of a launcher that is gone holds nothing (a pid no process has;
  # the next launcher removes the directory before it looks).
  DEAD=$(sh -c 'echo $$')
  mkdir -p "$CHORUS_TMPDIR/chorus.$(hostname | cut -d. -f1).$DEAD.AbCdEf"
  echo "0-$((NCORES - 1))" >"$CHORUS_TMPDIR/chorus.$(hostname | cut -d. -f1).$DEAD.AbCdEf/cpus"
  run_cr -n 2 --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
  check "auto: a dead launcher's cores are free (got $(mask 0) and $(mask 1))" \
    test "$(mask 0)" != "$(mask 1)" -a "$(mask 0)" != "$ALL"
fi
# A rankfile that binds one rank here: auto binds no other (it would not know
# which cores the slots take).
if [ "$NCORES" -ge 2 ]; then
  printf 'rank 0=%s slot=0\nrank 1=%s\n' "$H" "$H" >"$T/halfslots"
  run_cr --rankfile "$T/halfslots" --tag-output sh -c 'grep Cpus_allowed_list /proc/self/status'
  expect_rc 0
  check "rankfile: rank 0 on its slot (got $(mask 0))" test "$(mask 0)" != "$ALL"
  check "rankfile: rank 1 without a slot is not bound (got $(mask 1))" test "$(mask 1)" = "$ALL"
fi
# Under taskset: only the launcher's own CPUs count.
if command -v taskset >/dev/null; then
  CPU=$(taskset -pc $$ | sed 's/.*[,-]//')  # the last CPU: auto would take the first anyway
  OUT=$T/out ERR=$T/err
  taskset -c "$CPU" "$CHORUSRUN" -n 1 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' >"$OUT" 2>"$ERR" </dev/null
  check "auto under taskset -c $CPU: the rank runs on CPU $CPU (got $(cat "$OUT"))" test "$(cat "$OUT")" = "$CPU"
  taskset -c "$CPU" "$CHORUSRUN" -n 2 sh -c 'grep Cpus_allowed_list /proc/self/status | cut -f2' >"$OUT" 2>"$ERR" </dev/null
  check "auto under taskset -c $CPU: two ranks are not bound (got $(tr '\n' ' ' <"$OUT"))" test "$(sort -u "$OUT")" = "$CPU"
fi

finish
