#!/bin/bash
# The Open MPI and MPICH options users bring: --wdir (and -wd), -genv, --output-filename,
# --merge-stderr-to-stdout, --timestamp-output, --display-map, --report-bindings, and
# --mca (accepted with a warning).
# usage: options.sh CHORUSRUN
source "$(dirname "$0")/lib.sh"
HOST=$(hostname)

# --wdir: the ranks start there; a relative program still names what it named here.
mkdir -p "$T/w" "$T/bin"
printf '#!/bin/sh\npwd\n' >"$T/bin/where"
chmod +x "$T/bin/where"
cd "$T"
run_cr -n 2 --wdir "$T/w" ./bin/where
cd - >/dev/null
expect_rc 0
check "--wdir: both ranks in it (got: $(tr '\n' ' ' <"$OUT"))" test "$(grep -cx "$T/w" "$OUT")" -eq 2
run_cr -wd "$T/w" pwd
expect_rc 0
check "-wd" grep -qx "$T/w" "$OUT"
run_cr --wdir "$T/nowhere" pwd
expect_rc 2
check "--wdir to a missing directory is named" grep -q "nowhere: no such directory" "$ERR"

# -genv NAME VALUE.
run_cr -n 2 -genv CHORUS_TEST_G "a b" sh -c 'echo "g=$CHORUS_TEST_G"'
expect_rc 0
check "-genv reaches every rank" test "$(grep -cx 'g=a b' "$OUT")" -eq 2

# --output-filename DIR: DIR/1/rank.N/stdout and stderr, nothing on the terminal.
run_cr -n 2 --output-filename "$T/o" sh -c 'echo "out $PMIX_RANK"; echo "err $PMIX_RANK" >&2'
expect_rc 0
for r in 0 1; do
  check "rank $r stdout file" grep -qx "out $r" "$T/o/1/rank.$r/stdout"
  check "rank $r stderr file" grep -qx "err $r" "$T/o/1/rank.$r/stderr"
done
check "--output-filename: nothing on stdout" test ! -s "$OUT"

# --merge-stderr-to-stdout.
run_cr -n 1 --merge-stderr-to-stdout sh -c 'echo to-out; echo to-err >&2'
expect_rc 0
check "merged: both lines on stdout" test "$(grep -c '^to-' "$OUT")" -eq 2
check "merged: nothing on stderr" test ! -s "$ERR"

# --timestamp-output (with --tag-output after the time).
run_cr -n 1 --timestamp-output --tag-output echo hello
expect_rc 0
check "timestamped line (got: $(cat "$OUT"))" \
  grep -Eqx '\[[0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}\] \[0\] hello' "$OUT"

# --display-map and --report-bindings, unbound and bound.
run_cr -n 3 --bind-to none --display-map --report-bindings true
expect_rc 0
check "map header" grep -q "^mpirun: map of job .*: 3 ranks on 1 node" "$OUT"
for r in 0 1 2; do
  check "map row for rank $r" grep -Eq "^mpirun: +$r +$HOST +$r +not bound +true" "$OUT"
  check "binding report for rank $r" grep -qx "mpirun: rank $r on $HOST: not bound" "$ERR"
done
run_cr -n 2 --bind-to core --display-map --report-bindings true
expect_rc 0
check "bound ranks show their CPUs in the map" test "$(grep -Ec '^mpirun: +[01] .* cpus [0-9]' "$OUT")" -eq 2
check "and in the report" test "$(grep -Ec '^mpirun: rank [01] on .*: cpus [0-9]' "$ERR")" -eq 2

# --mca: Open MPI's, so a warning, and the job runs.
run_cr --mca btl self,vader -n 1 true
expect_rc 0
check "--mca warns" grep -q "WARN --mca btl self,vader ignored" "$ERR"
finish
