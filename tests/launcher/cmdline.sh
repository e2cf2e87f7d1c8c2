#!/bin/bash
# Bad command lines: one "mpirun: <what>" line and one pointing at --help on
# stderr (not the whole usage), exit 2, and nothing started (the program would
# create a marker file).
# usage: cmdline.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
M=$T/marker
touch "$T/not-executable"

bad() {
  run_cr "$@"
  expect_rc 2
  check "'$*': first line is an mpirun: error" grep -q '^mpirun: ' <(head -1 "$ERR")
  check "'$*': points at --help" grep -qx "mpirun: see 'mpirun --help' for the options" "$ERR"
  check "'$*': two lines, no usage" test "$(wc -l <"$ERR")" -eq 2
  check "'$*': nothing on stdout" test ! -s "$OUT"
  check "'$*': nothing started" test ! -e "$M"
}

bad -n 0 touch "$M"
bad -n abc touch "$M"
bad -n -1 touch "$M"
bad -np 2x touch "$M"
bad -n
bad -n 2
bad -n 2 "$T/no-such-program"
bad -n 2 no-such-program-in-path-xyz
bad -n 2 "$T/not-executable"
bad -n 2 "$T"
bad --no-such-option -n 2 touch "$M"
bad --bind-to board -n 2 touch "$M"
bad --timeout soon -n 2 touch "$M"

# Each spelling of the rank count, and the accepted no-op options.
for opt in -n -np --n --np -c; do
  run_cr "$opt" 3 --oversubscribe --allow-run-as-root true
  expect_rc 0
done
run_cr --n=2 true
expect_rc 0

run_cr --help
expect_rc 0
check "--help prints usage" grep -q '^usage: mpirun' "$OUT"
run_cr --version
expect_rc 0
check "--version prints the version" grep -q 'Chorus' "$OUT"

finish
