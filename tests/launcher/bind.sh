#!/bin/bash
# --bind-to core: rank i runs on core i mod ncores; --bind-to none leaves the
# launcher's mask alone. More ranks than cores is fine.
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

finish
