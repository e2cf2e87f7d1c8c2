#!/usr/bin/env bash
# Failures across pretend hosts (lib.sh). Each must end the job everywhere with
# one line naming the rank or daemon, the host and the cause, and leave nothing
# running on any host: a rank crash on a remote host, chorusd SIGKILLed, a host's
# link cut, mpirun SIGKILLed, a connection with a wrong token, a host the agent
# cannot reach, SIGTERM, SIGINT and SIGHUP to mpirun; SIGUSR1 and SIGUSR2 passed on
# without ending it; the job token on no command line and in no environment.
#   failures.sh CHORUSRUN
set -u
(( $# == 1 )) || { echo "usage: failures.sh CHORUSRUN" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1")
CHORUSD=$(dirname "$CHORUSRUN")/chorusd
mh_require
mh_setup 3 "$(dirname "$CHORUSRUN")/.."  # the build stays visible in the hosts (their /tmp is private)
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
O=$MH_SHARED
# Ranks that wait: plain programs (no MPI), long enough to outlive any check.
TAG="60.$$"     # in every job's arguments, so its mpirun can be found
WAIT="sleep $TAG"

# start_job OUT ARGS...: mpirun in h0, in the background (ARGS must contain
# $TAG); JOB_PID is the background job, MPIRUN_PID mpirun itself (h0 shares our
# pid namespace), once its daemons are up.
start_job() {
  local out=$1 i
  shift
  # Every signal at its default in mpirun (and so in its ranks): a run under
  # nohup would otherwise pass SIGHUP on ignored, and no rank could trap it
  # (a shell cannot trap a signal ignored when it started).
  CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=LAUNCH mh_run h0 env --default-signal "$CHORUSRUN" "$@" >"$out" 2>&1 </dev/null &
  JOB_PID=$!
  MPIRUN_PID=
  for i in $(seq 1 100); do
    # mpirun itself (h0 shares our pid namespace), not the mh_run around it.
    [[ -n $MPIRUN_PID ]] || MPIRUN_PID=$(pgrep -f "^$CHORUSRUN .*$TAG" | head -1)
    # Every daemon connected, and every node (mpirun's too) started its ranks.
    local started connected launched
    started=$(grep -c "started chorusd on" "$out")
    connected=$(grep -c "proved the token" "$out")
    launched=$(grep -c "launched [0-9]* ranks" "$out")
    (( started > 0 && connected == started && launched == started + 1 )) && [[ -n $MPIRUN_PID ]] && return 0
    sleep 0.1
  done
  fail "the job did not start"
  show "$out"
}
# wait_ready OUT N: waits until N ranks printed "rank R ready" (their signal
# handlers are in place: a signal sent before that would end a rank by the
# default action, as it did in CI for SIGHUP).
wait_ready() {
  local i
  for i in $(seq 1 100); do
    (( $(grep -c "^rank [0-9]* ready$" "$1") >= $2 )) && return 0
    sleep 0.1
  done
  fail "fewer than $2 ranks said they were ready"
  show "$1"
}
# wait_job SECONDS: waits for the background mpirun; RC its status, ELAPSED the seconds.
wait_job() {
  local t0=$(date +%s.%N) i
  for i in $(seq 1 $(( $1 * 10 ))); do
    kill -0 "$JOB_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$JOB_PID" 2>/dev/null; then
    fail "mpirun still runs $1 s later"
    kill -KILL "$JOB_PID"
  fi
  wait "$JOB_PID"
  RC=$?
  ELAPSED=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
}

note "a rank crashes (SIGSEGV) on a remote host"
mh_job "$O/crash" --host h0:1,h1:1,h2:1 -n 3 \
  sh -c 'if [ "$OMPI_COMM_WORLD_RANK" = 2 ]; then sleep 0.3; kill -SEGV $$; fi; exec '"$WAIT"
(( RC == 139 )) || { fail "a remote SIGSEGV made mpirun exit $RC, expected 139"; show "$O/crash"; }
expect_line "$O/crash" "^mpirun: rank 2 \(pid [0-9]+\) on host h2 failed: signal 11" "the line names rank 2 on h2 and the signal"
# A bound that only a hang exceeds (about 0.3 s + the grace period is usual).
(( ${SECS%.*} < 10 )) || fail "the job took ${SECS} s to end after the crash"
expect_clean "after a remote crash"

# kill_daemon OUT: SIGKILLs h1's chorusd in a running 3-host job; the job must
# end, naming it, and leave nothing on any host (h2's daemon, below h1 in a tree,
# loses its parent and ends its rank by itself).
kill_daemon() {
  start_job "$1" --host h0:1,h1:1,h2:1 -n 3 $WAIT
  mh_run h1 pkill -KILL -x chorusd
  wait_job 10
  (( RC != 0 )) || fail "mpirun exited 0 after its daemon was killed"
  expect_line "$1" "^mpirun: chorusd on host h1 failed: lost contact with it" "the line names the daemon on h1"
  echo "   ended ${ELAPSED} s after the kill"
  expect_clean "after chorusd was killed"
}
note "chorusd on h1 is SIGKILLed"
kill_daemon "$O/kill_d"
note "in a launch tree (fanout 1: h0 -> h1 -> h2), h1's chorusd is SIGKILLed"
CHORUS_LAUNCH_FANOUT=1 kill_daemon "$O/kill_mid"

note "h2's link goes down (heartbeats)"
start_job "$O/link" --host h0:1,h1:1,h2:1 -n 3 $WAIT
mh_link_down h2
wait_job 10
(( RC != 0 )) || fail "mpirun exited 0 after a host's link went down"
expect_line "$O/link" "^mpirun: chorusd on host h2 failed: lost contact with it: no answer to heartbeats for" "the line names h2 and the silence"
echo "   ended ${ELAPSED} s after the link went down"
# h2's daemon hears nothing either: it ends its ranks by itself.
expect_clean "after h2's link went down"
mh_link_up h2

note "mpirun is SIGKILLed: its daemons and every rank go too"
start_job "$O/kill_m" --host h0:1,h1:1,h2:1 -n 3 $WAIT
kill -KILL "$MPIRUN_PID"
wait "$JOB_PID" 2>/dev/null
expect_clean "after mpirun was SIGKILLed"

note "a stranger with the wrong token is turned away; the job goes on"
# h1's daemon starts 2 s late (a slow agent), so mpirun still listens when the
# stranger knocks as node 1 (once every daemon is in, it stops listening).
printf '#!/bin/sh\nsleep 2\nexec "%s" "$@"\n' "$MH_AGENT" >"$O/slow_agent"
chmod +x "$O/slow_agent"
CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=LAUNCH CHORUS_LAUNCH_AGENT=$O/slow_agent \
  mh_run h0 "$CHORUSRUN" --host h0:1,h1:1 -n 2 sh -c "sleep 3" "$TAG" >"$O/token" 2>&1 </dev/null &
JOB_PID=$!
addr=
for i in $(seq 1 50); do
  addr=$(sed -n 's/.*daemons connect back to \([0-9.:]*\).*/\1/p' "$O/token" | head -1)
  [[ -n $addr ]] && break
  sleep 0.1
done
[[ -n $addr ]] || fail "no 'daemons connect back to' line"
rc=0
echo "not-the-token" | mh_run h1 "$CHORUSD" --parent "$addr" --node 1 >"$O/stranger" 2>&1 || rc=$?
(( rc != 0 )) || fail "a chorusd with the wrong token was accepted"
expect_line "$O/stranger" "did not accept this daemon" "the stranger is told it was not accepted"
wait_job 20
(( RC == 0 )) || { fail "the job failed after a stranger knocked ($RC)"; show "$O/token"; }
expect_line "$O/token" "rejected a daemon connection from .*: wrong job token" "mpirun logs the rejection"

note "a host the launch agent cannot reach"
mh_job "$O/unreach" --host h0:1,nosuchhost:1 -n 2 $WAIT
(( RC != 0 )) || fail "mpirun exited 0 with an unreachable host"
expect_line "$O/unreach" "^mpirun: chorusd on host nosuchhost failed: the launch agent .* ended with exit status 255 before chorusd connected: agent: nosuchhost: no such host$" "one line names the host and the agent's error"
(( ${SECS%.*} < 10 )) || fail "an unreachable host took ${SECS} s to fail (a hang?)"
expect_clean "after an unreachable host"

note "SIGTERM to mpirun reaches the ranks on every host"
start_job "$O/term" --host h0:1,h1:1,h2:1 -n 3 \
  sh -c 'trap "echo rank $OMPI_COMM_WORLD_RANK got TERM; exit 0" TERM; echo "rank $OMPI_COMM_WORLD_RANK ready"; sleep 60 & wait' "$TAG"
wait_ready "$O/term" 3
kill -TERM "$MPIRUN_PID"
wait_job 10
(( RC == 143 )) || { fail "SIGTERM made mpirun exit $RC, expected 143"; show "$O/term"; }
for r in 0 1 2; do expect_line "$O/term" "^rank $r got TERM$" "rank $r got SIGTERM"; done
expect_clean "after SIGTERM"

# SIGINT and SIGHUP end the job as SIGTERM does; SIGUSR1 and SIGUSR2 are passed on
# to every rank on every host (batch systems' warnings) and the job goes on.
for sig in INT HUP; do
  note "SIG$sig to mpirun reaches the ranks on every host and ends the job"
  start_job "$O/sig$sig" --host h0:1,h1:1,h2:1 -n 3 \
    sh -c 'trap "echo rank $OMPI_COMM_WORLD_RANK got '"$sig"'; exit 0" '"$sig"'; echo "rank $OMPI_COMM_WORLD_RANK ready"; sleep 60 & wait' "$TAG"
  wait_ready "$O/sig$sig" 3
  kill -"$sig" "$MPIRUN_PID"
  wait_job 10
  want=$(( 128 + $(kill -l "$sig") ))
  (( RC == want )) || { fail "SIG$sig made mpirun exit $RC, expected $want"; show "$O/sig$sig"; }
  for r in 0 1 2; do expect_line "$O/sig$sig" "^rank $r got $sig$" "rank $r got SIG$sig"; done
  expect_clean "after SIG$sig"
done

note "SIGUSR1 and SIGUSR2 reach the ranks on every host; the job goes on (in a launch tree)"
# Each rank counts the two signals and ends once it had both; mpirun exits 0.
CHORUS_LAUNCH_FANOUT=1 start_job "$O/usr" --host h0:1,h1:1,h2:1 -n 3 sh -c '
  got=0
  trap "echo rank $OMPI_COMM_WORLD_RANK got USR1; got=\$((got + 1))" USR1
  trap "echo rank $OMPI_COMM_WORLD_RANK got USR2; got=\$((got + 1))" USR2
  echo "rank $OMPI_COMM_WORLD_RANK ready"
  i=0
  while [ "$got" -lt 2 ] && [ "$i" -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
  [ "$got" -eq 2 ]' "$TAG"
wait_ready "$O/usr" 3
kill -USR1 "$MPIRUN_PID"
sleep 0.5
kill -USR2 "$MPIRUN_PID"
wait_job 20
(( RC == 0 )) || { fail "the job ended $RC after SIGUSR1 and SIGUSR2, expected 0"; show "$O/usr"; }
for r in 0 1 2; do
  for sig in USR1 USR2; do expect_line "$O/usr" "^rank $r got $sig$" "rank $r got SIG$sig"; done
done
expect_clean "after SIGUSR1 and SIGUSR2"

note "the job token is on no command line and in no environment (in a launch tree)"
# The token is 64 hex digits; it travels on the agent's stdin only. Every
# process of h1 and h2 (their chorusd, the one h1 starts for h2, the ranks) and
# mpirun itself are looked at while the job runs.
CHORUS_LAUNCH_FANOUT=1 start_job "$O/secret" --host h0:1,h1:1,h2:1 -n 3 $WAIT
seen=$( {
  for h in h1 h2; do
    mh_run "$h" sh -c 'for p in /proc/[0-9]*; do cat "$p/cmdline" "$p/environ" 2>/dev/null; echo; done'
  done
  cat "/proc/$MPIRUN_PID/cmdline" "/proc/$MPIRUN_PID/environ" 2>/dev/null
} | tr '\0' '\n' | grep -Ec '[0-9a-f]{64}' )
procs=$(mh_run h1 sh -c 'ls -d /proc/[0-9]* | wc -l')
(( procs > 2 )) || fail "h1 shows $procs processes: the job's were not looked at"
(( seen == 0 )) || fail "$seen command-line or environment entries hold a 64-hex-digit string"
kill -TERM "$MPIRUN_PID"
wait_job 10
expect_clean "after the token check"

(( FAILED == 0 )) && echo "PASS: failures across hosts end the job everywhere, named, with nothing left"
exit "$FAILED"
