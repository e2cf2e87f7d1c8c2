#!/bin/bash
# Rank environment: the launcher's env minus inherited PMIX_*, plus -x exports.
# usage: env.sh CHORUSRUN PMIX_CLIENT
source "$(dirname "$0")/lib.sh"
CLIENT=$(readlink -f "$1")

export CHORUS_TEST_KEEP=kept CHORUS_TEST_X=from-env
export PMIX_NAMESPACE=bogus PMIX_RANK=42 PMIX_SERVER_URI4=tcp4://127.0.0.1:1 PMIX_CHORUS_LEAK=1
run_cr -n 2 -x CHORUS_TEST_X -x CHORUS_TEST_Y=given -x CHORUS_TEST_Z=a=b \
  sh -c 'echo "$PMIX_RANK|$CHORUS_TEST_KEEP|$CHORUS_TEST_X|$CHORUS_TEST_Y|$CHORUS_TEST_Z|${PMIX_CHORUS_LEAK-unset}|${PMIX_NAMESPACE%%.*}"'
expect_rc 0
check "rank 0 env (got: $(sort "$OUT" | head -1))" grep -qx '0|kept|from-env|given|a=b|unset|chorus' "$OUT"
check "rank 1 env" grep -qx '1|kept|from-env|given|a=b|unset|chorus' "$OUT"

# A real PMIx client still starts right with the bogus PMIX_* around.
run_cr -n 3 "$CLIENT" 3
expect_rc 0
check "3 clients ok" test "$(grep -c ' ok on ' "$OUT")" -eq 3

# A misspelled CHORUS_* variable: one warning for the whole job (mpirun's, not one
# per rank) naming the parameter it is nearest to; the tools' own are left alone.
unset CHORUS_TEST_KEEP CHORUS_TEST_X
CHORUS_PROGRES=spin CHORUS_TEST_ANYTHING=1 run_cr -n 3 true
expect_rc 0
check "one warning for the job (got: $(grep -c WARN "$ERR"))" test "$(grep -c WARN "$ERR")" -eq 1
check "it names the nearest parameter" \
  grep -q "CHORUS_PROGRES is no Chorus parameter and is ignored; did you mean CHORUS_PROGRESS?" "$ERR"

finish
