# Shared helpers for the launcher tests (sourced; bash, set -u).
#   $1 of every test script: the chorusrun binary.
# Each test gets a scratch dir $T with its own CHORUS_TMPDIR, so a job's temp
# dir can be checked to be gone afterwards, and a unique $TAG that ranks put in
# the arguments of processes they leave behind, so `pgrep -f` can find them.
set -u

CHORUSRUN=$(readlink -f "$1")
shift
T=$(mktemp -d "${TMPDIR:-/tmp}/chorus-launcher-test.XXXXXX")
export CHORUS_TMPDIR=$T/jobtmp
mkdir -p "$CHORUS_TMPDIR"
# sleep accepts a fractional argument: "sleep 1000.<pid>" is unique to this test.
TAG="1000.$$"
FAILED=0
trap 'pkill -KILL -f "sleep $TAG" 2>/dev/null; rm -rf "$T"' EXIT
export CHORUS_KILL_GRACE=${CHORUS_KILL_GRACE:-1}

fail() {
  echo "FAIL: $*" >&2
  FAILED=1
}

check() {  # check DESCRIPTION COMMAND...: records a failure if COMMAND fails
  local what=$1
  shift
  if ! "$@"; then fail "$what"; fi
}

# run_cr ARGS...: runs chorusrun; sets RC, OUT (stdout file), ERR (stderr file),
# SECS (elapsed seconds). Then checks that the job dir is gone.
run_cr() {
  OUT=$T/out
  ERR=$T/err
  local t0 t1
  t0=$(date +%s.%N)
  "$CHORUSRUN" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
  t1=$(date +%s.%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
  if [ -n "$(ls -A "$CHORUS_TMPDIR")" ]; then
    fail "job temp dir left behind after 'chorusrun $*': $(ls -A "$CHORUS_TMPDIR")"
    rm -rf "${CHORUS_TMPDIR:?}"/*
  fi
}

expect_rc() {
  if [ "$RC" -ne "$1" ]; then
    fail "expected exit $1, got $RC"
    echo "--- stderr:" >&2
    head -20 "$ERR" >&2
  fi
}

# expect_one_line REGEX: stderr has exactly one "mpirun: " line, matching REGEX.
expect_one_line() {
  local n
  n=$(grep -c '^mpirun: ' "$ERR")
  if [ "$n" -ne 1 ]; then
    fail "expected one mpirun: line on stderr, got $n"
    cat "$ERR" >&2
  elif ! grep -Eq "$1" "$ERR"; then
    fail "stderr line does not match /$1/:"
    cat "$ERR" >&2
  fi
}

expect_faster_than() {
  if ! awk -v s="$SECS" -v m="$1" 'BEGIN { exit !(s < m) }'; then fail "took ${SECS}s, expected under $1 s"; fi
}

expect_no_leftovers() {
  if pgrep -f "sleep $TAG" >/dev/null; then
    fail "processes left running: $(pgrep -af "sleep $TAG")"
  fi
}

finish() {
  if [ "$FAILED" -ne 0 ]; then
    echo "FAILED"
    exit 1
  fi
  echo "PASS"
  exit 0
}
