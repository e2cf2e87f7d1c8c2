#!/bin/bash
# Two ranks confined to one CPU with spinning waits: each notices that its peer
# last ran on its own CPU and gives it the CPU while it waits (without that, every
# wait on the other rank spins out a whole scheduler slice). Ranks bound to two
# different cores never see that.
# usage: cpu_share.sh CHORUSRUN PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$1
LINE="last ran on this rank's CPU"
export CHORUS_DEBUG=INFO CHORUS_PROGRESS=spin

if ! command -v taskset >/dev/null; then
  echo "SKIP: no taskset (util-linux)"
  exit 77
fi
CPU=$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')
OUT=$T/out ERR=$T/err
taskset -c "$CPU" "$CHORUSRUN" -n 2 --bind-to none --timeout 60 "$PROG" >"$OUT" 2>"$ERR" </dev/null
RC=$?
expect_rc 0
check "ranks sharing CPU $CPU say they give it to each other" grep -q "$LINE" "$ERR"

if [ "$(nproc)" -gt 1 ]; then
  run_cr -n 2 --bind-to core --timeout 60 "$PROG"
  expect_rc 0
  check "ranks on two cores do not" test "$(grep -c "$LINE" "$ERR")" -eq 0
  # The node's CPUs are those its ranks may use, all of them together: bound one
  # to a core each, the two ranks have two CPUs between them and spin ...
  check "ranks bound to a core each have two CPUs between them" \
    grep -Eq "INFO P2P waits spin \(2 local ranks on 2 CPUs" "$ERR"
  # ... but under taskset to one CPU, two ranks have one between them: they yield
  # (the default wait mode) and the cost model knows they share it. Before,
  # Chorus counted the node's online cores and spun.
  unset CHORUS_PROGRESS
  taskset -c "$CPU" "$CHORUSRUN" -n 2 --bind-to none --timeout 60 "$PROG" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
  expect_rc 0
  check "two ranks under taskset to one CPU yield, on 1 CPU of the node's" \
    grep -Eq "INFO P2P waits yield \(2 local ranks on 1 CPUs of the node's [0-9]+: the ranks' affinity\)" "$ERR"
fi
finish
