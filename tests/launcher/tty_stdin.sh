#!/bin/bash
# Rank 0 reads mpirun's stdin when it is a terminal too (mpirun reads the terminal
# and passes the input on; a rank reading it itself would be stopped by SIGTTIN),
# up to the end of input (Ctrl-D). The terminal is a pty that script(1) drives.
# usage: tty_stdin.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
if ! command -v script >/dev/null; then
  echo "SKIP: no script(1) (bsdutils) to make a terminal"
  exit 77
fi

# One line, read by rank 0 only.
(sleep 0.5; printf 'hello there\n'; sleep 1) |
  timeout 30 script -qec "'$CHORUSRUN' -n 2 sh -c 'if [ \$PMIX_RANK = 0 ]; then read x; echo \"rank 0 got [\$x]\"; else echo other; fi'" /dev/null \
  >"$T/out" 2>&1
RC=$?
ERR=$T/out
expect_rc 0
check "rank 0 read the terminal's line (got: $(tr -d '\r' <"$T/out" | tr '\n' '|'))" \
  grep -q "rank 0 got \[hello there\]" <(tr -d '\r' <"$T/out")

# Ctrl-D ends rank 0's input: cat gets the line, then end of file, and the job ends.
(sleep 0.5; printf 'line1\n'; sleep 0.3; printf '\004'; sleep 1.5) |
  timeout 30 script -qec "'$CHORUSRUN' -n 2 cat" /dev/null >"$T/out" 2>&1
RC=$?
expect_rc 0
# The terminal echoes the line once; cat writes it once more.
check "cat got the line (got: $(tr -d '\r' <"$T/out" | tr '\n' '|'))" test "$(tr -d '\r' <"$T/out" | grep -cx line1)" -eq 2
finish
