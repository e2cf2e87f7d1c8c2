# Helpers sourced by the tests/compat/*.sh scripts (bash, set -u).
# Exit 77 is meson's SKIP; every skip prints one "SKIP: <reason>" line.

skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
note() { echo "-- $*"; }

# A fresh temp dir removed on exit; sets $tmp.
make_tmp() {
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/chorus-compat.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
}

# need_tool NAME...: skip unless every tool is on PATH (or an executable path).
need_tool() {
  local t
  for t in "$@"; do
    command -v "$t" >/dev/null 2>&1 || skip "$t not found (install it to run this test)"
  done
}

# run_logged LOG CMD...: run CMD (bounded by COMPAT_TIMEOUT seconds) with stdout
# and stderr into LOG, print LOG, return CMD's exit status.
run_logged() {
  local log=$1; shift
  local rc=0
  timeout -k 5 "${COMPAT_TIMEOUT:-40}" "$@" >"$log" 2>&1 || rc=$?
  sed 's/^/   | /' "$log"
  if (( rc == 124 || rc == 137 )); then
    echo "timed out after ${COMPAT_TIMEOUT:-40} s: $*" >&2
  fi
  return "$rc"
}

# check_hello LOG N: the output of hello.c run as N ranks is complete and right.
check_hello() {
  local log=$1 n=$2 r
  local hellos
  hellos=$(grep -c "^hello rank=[0-9]* size=$n\$" "$log" || true)
  [[ "$hellos" == "$n" ]] || fail "expected $n 'hello ... size=$n' lines, got $hellos"
  for ((r = 0; r < n; ++r)); do
    [[ $(grep -c "^hello rank=$r size=$n\$" "$log") == 1 ]] || fail "rank $r did not say hello exactly once"
    grep -q "^self rank=$r ok\$" "$log" || fail "rank $r: send/recv to self failed"
    grep -q "^exchange rank=$r from=$(( (r + n - 1) % n )) ok\$" "$log" \
      || fail "rank $r: ring exchange with its left neighbour failed"
  done
  ! grep -q 'BAD' "$log" || fail "a rank reported BAD"
  grep -q "^library: .*${COMPAT_EXPECT_LIBRARY:-Chorus}" "$log" \
    || fail "rank 0 did not run on ${COMPAT_EXPECT_LIBRARY:-Chorus}'s library (see the 'library:' line)"
}

# chorus_mpirun BUILD: Chorus's launcher in a build tree. `meson test` builds only
# what tests depend on, so the mpirun symlink may not exist yet; chorusrun is the
# same program.
chorus_mpirun() {
  if [[ -x "$1/bin/mpirun" ]]; then echo "$1/bin/mpirun"
  elif [[ -x "$1/bin/chorusrun" ]]; then echo "$1/bin/chorusrun"
  else fail "no $1/bin/mpirun or $1/bin/chorusrun (build the project first)"
  fi
}
