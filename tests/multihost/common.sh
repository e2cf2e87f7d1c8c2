# Shared by the multi-host job tests (sourced; bash, set -u): checks, and a
# runner for mpirun inside host h0 with the namespace agent as launch agent.
#   mh_job OUTFILE ARGS...: runs `mpirun ARGS...` in h0 (under `timeout`); sets RC
#   and SECS; stdout and stderr both go to OUTFILE.
set -u
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FAILED=0
fail() {
  echo "FAIL: $*" >&2
  FAILED=1
}
note() { echo "--- $*"; }
show() { sed 's/^/   | /' "$1"; }
expect_line() {  # FILE REGEX WHAT
  grep -Eq "$2" "$1" || { fail "$3 (no line matching '$2')"; show "$1"; }
}
mh_job() {
  local out=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  mh_run h0 timeout -k 5 "${MH_JOB_TIMEOUT:-120}" "$CHORUSRUN" "$@" >"$out" 2>&1 </dev/null
  RC=$?
  t1=$(date +%s.%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}
# No rank, daemon or shared-memory segment may outlive a job on any host.
expect_clean() {  # WHAT
  local left i
  for i in $(seq 1 50); do  # a dying process may take a moment to be reaped
    left=$(mh_leftovers | grep -v ': /tmp/' || true)
    [[ -z $left ]] && return 0
    sleep 0.1
  done
  fail "$1: left behind: $left"
}
