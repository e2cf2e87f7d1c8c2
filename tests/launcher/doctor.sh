#!/bin/bash
# chorus-doctor on this one node (the multi-host checks are in
# tests/multihost/doctor.sh): the front end through mpirun, the same program
# started as a job (mpirun -n 2 chorus-doctor), mpirun --doctor, --json and
# --plot, and bad options (exit 2, the value named).
# usage: doctor.sh CHORUSRUN DOCTOR
source "$(dirname "$0")/lib.sh"
DOCTOR=$(readlink -f "$1")

doc() {  # ARGS...: runs chorus-doctor; sets RC, OUT, ERR
  OUT=$T/out
  ERR=$T/err
  "$DOCTOR" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
}
has() { grep -Eq "$2" "$1" || { fail "$3: no line matching '$2'"; sed 's/^/   | /' "$1" "$ERR" >&2; }; }

doc --quick --ranks-per-node 3 --json "$T/r.json"
expect_rc 0
has "$OUT" "^1\. nodes: 1 answered, 3 ranks .*\(3 ranks\)$" "the node answered with its 3 ranks"
has "$OUT" "^2\. node [^:]+: Chorus [0-9.]+, UCX [0-9.]+ \(.*\); [0-9]+ packages?, [0-9]+ NUMA nodes?, [0-9]+ cores?" "the node's software and hardware"
has "$OUT" "^3\. links: one node, no link to measure$" "no links on one node"
has "$OUT" "^4\. allreduce 16 MiB host on 3 ranks: .* busbw; the model \([a-z_]+ on the measured links\)" "allreduce next to the model"
has "$OUT" "^chorus-doctor: all checks passed \(1 nodes, 3 ranks" "the verdict"
has "$OUT" "^chorus-doctor: report written to " "the report"
check "the report is JSON with one node and three allreduce rows" /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] and len(r["nodes"]) == 1 and r["nodes"][0]["ranks"] == 3 and r["links"] == []
assert [a["bytes"] for a in r["allreduce"]] == [8, 1 << 20, 16 << 20] and all(a["correct"] for a in r["allreduce"])
' "$T/r.json"

# Started as an ordinary job: the same report, the exit status from rank 0.
run_cr -n 2 "$DOCTOR" --quick
expect_rc 0
has "$OUT" "^chorus-doctor: all checks passed \(1 nodes, 2 ranks" "mpirun -n 2 chorus-doctor"
run_cr --doctor --quick
expect_rc 0
has "$OUT" "^chorus-doctor: all checks passed \(1 nodes, 1 ranks" "mpirun --doctor"

# Anywhere but first, --doctor is not mpirun's: a program's own argument, or an error.
run_cr -n 1 sh -c 'echo "arg: $1"' x --doctor
expect_rc 0
has "$OUT" "^arg: --doctor$" "a program's --doctor argument reaches the program"
run_cr -n 1 --doctor true
expect_rc 2
has "$ERR" "^mpirun: --doctor must be mpirun's first argument" "a later --doctor is refused"

if /usr/bin/python3 -c 'import matplotlib' 2>/dev/null; then
  doc --quick --ranks-per-node 2 --plot "$T/r.png"
  expect_rc 0
  check "--plot wrote a PNG" bash -c "head -c 8 '$T/r.png' | grep -q PNG"
else
  echo "SKIP: --plot (no python3-matplotlib)"
fi

doc --slow 0
expect_rc 2
has "$ERR" "^chorus-doctor: --slow 0: must be a fraction between 0 and 1$" "a bad --slow is named"
doc --json
expect_rc 2
has "$ERR" "^chorus-doctor: --json needs a value$" "a missing value is named"
run_cr -n 1 "$DOCTOR" --host a
expect_rc 2
has "$ERR" "chorus-doctor: unknown option '--host' inside a job" "mpirun options inside a job are refused"

(( FAILED == 0 )) && echo "PASS: chorus-doctor on one node"
exit "$FAILED"
