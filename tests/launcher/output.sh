#!/bin/bash
# Output forwarding: many lines from several ranks arrive whole (never mixed
# mid-line), in order per rank, on the right stream; --tag-output prefixes
# "[rank] "; a last line without a newline is still delivered.
# usage: output.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"

NP=4
LINES=3000
# awk writes in 4 KiB blocks, so most lines straddle two pipe writes.
PROG='awk -v r="$PMIX_RANK" -v n='$LINES' '"'"'BEGIN {
  pad = sprintf("%0300d", 0)
  for (i = 0; i < n; i++) {
    printf "rank %d line %d %s\n", r, i, pad
    if (i % 3 == 0) printf "err rank %d line %d %s\n", r, i, pad > "/dev/stderr"
  }
  printf "tail of rank %d", r
}'"'"

verify() {  # verify PREFIX_PATTERN(with @R@ for the rank)
  local tagged=$1 r pre
  for r in $(seq 0 $((NP - 1))); do
    pre=""
    [ "$tagged" = 1 ] && pre="\\[$r\\] "
    local got
    got=$(grep -Ec "^${pre}rank $r line [0-9]+ 0{300}\$" "$OUT")
    check "rank $r: $LINES intact stdout lines (got $got)" test "$got" -eq "$LINES"
    check "rank $r: stdout lines in order" \
      cmp -s <(grep -E "^${pre}rank $r line " "$OUT" | awk '{print $(NF-1)}') <(seq 0 $((LINES - 1)))
    got=$(grep -Ec "^${pre}err rank $r line [0-9]+ 0{300}\$" "$ERR")
    check "rank $r: $((LINES / 3)) intact stderr lines (got $got)" test "$got" -eq $((LINES / 3))
    check "rank $r: partial last line flushed" grep -Eq "^${pre}tail of rank $r\$" "$OUT"
  done
  local total
  total=$(wc -l <"$OUT")
  check "stdout has only the expected lines ($total)" test "$total" -eq $((NP * (LINES + 1)))
  check "no stray line on stdout" test "$(grep -Evc "^(\\[[0-9]+\\] )?(rank [0-9]+ line [0-9]+ 0{300}|tail of rank [0-9]+)\$" "$OUT")" -eq 0
}

run_cr -n $NP sh -c "$PROG"
expect_rc 0
verify 0

run_cr -n $NP --tag-output sh -c "$PROG"
expect_rc 0
verify 1
check "tagged lines name their own rank" \
  test "$(grep -Evc '^\[([0-9]+)\] (err )?(rank|tail of rank) \1( |$)' "$OUT")" -eq 0

# stdin: rank 0 gets ours (not a terminal here), the others /dev/null.
OUT=$T/out
printf 'fed to rank 0\n' | "$CHORUSRUN" -n 2 --tag-output cat >"$OUT" 2>"$T/err"
check "stdin reaches rank 0 only" test "$(cat "$OUT")" = "[0] fed to rank 0"
# mpirun's stdin closed: rank 0 reads end of input, not one of mpirun's own
# descriptors (its signalfd took fd 0 and was handed to rank 0 as its stdin).
"$CHORUSRUN" -n 1 sh -c 'cat; echo "cat ended"' >"$OUT" 2>"$T/err" <&-
check "stdin closed: rank 0 reads end of input (got: $(cat "$OUT" "$T/err" | tr '\n' '|'))" \
  test "$(cat "$OUT")" = "cat ended" -a ! -s "$T/err"

finish
