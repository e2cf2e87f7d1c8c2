#!/bin/bash
# tests/multihost/ssh.sh CHORUSRUN HELLO: mpirun's default launch path, real ssh,
# between two of lib.sh's namespace hosts.
#
# CHORUSRUN is build/bin/chorusrun (chorusd next to it), HELLO a small MPI
# program that prints `hello rank=R size=S` (build/tests/compat/compat_hello).
# Debian's sshd runs inside h1 only, on h1's address, port 22, with a throwaway
# host key and client key pair and a config file of its own (nothing of /etc/ssh
# is read); inside h0, mpirun starts chorusd on h1 through ssh, configured only
# by --launch-agent, so that nothing under ~/.ssh is read or written. Checks:
#   - a job on h0 and h1: exit 0, both ranks' hello lines, rank 1 mapped to h1,
#     and a second job whose ranks print their hostname: rank 1 ran on h1;
#   - nothing left in the hosts once sshd is stopped;
#   - a host with no sshd (h2: port 22 refused): mpirun fails within seconds with
#     one line naming the host and carrying ssh's own error, leaving nothing.
# Exit 0: pass, 77: skipped (not root, no namespaces, no openssh-server), other:
# failure (what failed is printed, with the output captured).
set -u
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

if [ $# -ne 2 ]; then
  echo "usage: $0 CHORUSRUN HELLO" >&2
  exit 2
fi
for p in "$1" "$2"; do
  [ -x "$p" ] || { echo "FAIL: $p: not an executable" >&2; exit 1; }
done
CHORUSRUN=$(readlink -f "$1")
HELLO=$(readlink -f "$2")
SSHD=/usr/sbin/sshd  # sshd re-executes itself: it wants an absolute path
if [ ! -x "$SSHD" ]; then
  echo "SKIP: openssh-server is not installed"
  exit 77
fi
for c in ssh ssh-keygen; do
  command -v "$c" >/dev/null 2>&1 || { echo "SKIP: $c not found (openssh-client)"; exit 77; }
done
mh_require

FAILED=0
fail() {
  echo "FAIL: $*" >&2
  FAILED=1
}
# show NAME FILE: FILE's contents, indented, on stderr.
show() {
  echo "--- $1:" >&2
  sed 's/^/    /' "$2" >&2
}
now() { date +%s.%N; }
# running PID: whether PID runs (a child that ended and is not reaped yet does not).
running() {
  local state
  read -r _ _ state _ 2>/dev/null <"/proc/$1/stat" && [ "$state" != Z ]
}
# clean WHAT: nothing may be left in the hosts (a dying process may take a
# moment to go).
clean() {
  local left i
  for ((i = 0; i < 50; i++)); do
    left=$(mh_leftovers)
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  fail "$1: left in the hosts: $left"
}
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

T0=$(now)
W=$(mktemp -d "${TMPDIR:-/tmp}/chorus-mh-ssh.XXXXXX") || exit 1
W=$(readlink -f "$W")
trap 'rm -rf "$W"' EXIT

# ~/.ssh must not be touched: note what is there (nothing, often) to compare.
SSH_HOME=$(getent passwd "$(id -un)" | cut -d: -f6)
dot_ssh() { find "$SSH_HOME/.ssh" -printf '%p %s %T@\n' 2>/dev/null | sort; }
dot_ssh_before=$(dot_ssh)

# Throwaway keys: the server's host key, and the client's pair.
if ! { ssh-keygen -q -t ed25519 -N '' -C chorus-mh-host -f "$W/host_key" &&
  ssh-keygen -q -t ed25519 -N '' -C chorus-mh-client -f "$W/id" &&
  cp "$W/id.pub" "$W/authorized_keys"; }; then
  echo "FAIL: cannot make the throwaway keys" >&2
  exit 1
fi

# The hosts: h0 runs mpirun, h1 sshd, h2 nothing. The build (chorusd next to
# chorusrun, the libraries HELLO finds through its rpath) and $W stay visible.
mh_setup 3 "$(dirname "$(dirname "$CHORUSRUN")")" "$(dirname "$HELLO")" "$W" ||
  { echo "FAIL: mh_setup 3" >&2; exit 1; }

cat >"$W/sshd_config" <<EOF
ListenAddress $(mh_addr h1):22
HostKey $W/host_key
AuthorizedKeysFile $W/authorized_keys
PidFile $W/sshd.pid
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
StrictModes no
UsePAM no
PrintMotd no
PrintLastLog no
EOF

# sshd's privilege separation directory (/run/sshd) must exist: h1 gets a /run
# of its own for it, so that nothing is made in this machine's /run.
mh_run h1 sh -c 'mount -t tmpfs -o mode=755,nosuid,nodev tmpfs /run && mkdir -m 755 /run/sshd' ||
  { echo "FAIL: cannot make h1's /run/sshd" >&2; exit 1; }
# -D: sshd stays the child of mh_run's nsenter, which reaps it when it ends.
mh_run h1 "$SSHD" -D -e -f "$W/sshd_config" </dev/null >"$W/sshd.log" 2>&1 &
SSHD_JOB=$!
for ((i = 0; i < 500; i++)); do
  [ -n "$(mh_run h1 ss -Hltn 'sport = :22')" ] && break
  running "$SSHD_JOB" || break
  sleep 0.01
done
if [ -z "$(mh_run h1 ss -Hltn 'sport = :22')" ]; then
  echo "FAIL: sshd does not listen in h1" >&2
  show "sshd's log" "$W/sshd.log"
  exit 1
fi
echo "setup (keys, hosts, sshd in h1): $(secs "$T0") s"

# The ssh client is configured by the launch agent alone: no config file, our
# key only (no ssh-agent, no ~/.ssh/id_*), no known_hosts read or written.
AGENT="ssh -F /dev/null -i '$W/id' -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no"
AGENT+=" -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR"
# run_mpirun OUT ARGS...: mpirun in h0 (under timeout 30), stdout and stderr into
# OUT; sets RC and SECS. UCX_NET_DEVICES is forwarded to the daemons by mpirun.
run_mpirun() {
  local out=$1 t
  shift
  t=$(now)
  mh_run h0 env -u TMPDIR -u SSH_AUTH_SOCK UCX_NET_DEVICES=veth0 \
    timeout -k 5 30 "$CHORUSRUN" --launch-agent "$AGENT" "$@" </dev/null >"$out" 2>&1
  RC=$?
  SECS=$(secs "$t")
}

# 1. HELLO on h0 and h1.
run_mpirun "$W/hello.out" --host h0:1,h1:1 -n 2 --display-map "$HELLO"
echo "hello job on h0,h1: exit $RC, $SECS s"
bad=0
[ "$RC" -eq 0 ] || { fail "hello job: exit status $RC, expected 0"; bad=1; }
for r in 0 1; do
  grep -qx "hello rank=$r size=2" "$W/hello.out" || { fail "hello job: no 'hello rank=$r size=2' line"; bad=1; }
done
grep -Eq "^mpirun: +1 +h1 " "$W/hello.out" || { fail "hello job: the map does not put rank 1 on h1"; bad=1; }
[ "$bad" -eq 0 ] || show "mpirun's output" "$W/hello.out"

# 2. Where the ranks really run: each prints its host (ranks need not use MPI).
run_mpirun "$W/host.out" --host h0:1,h1:1 -n 2 sh -c 'echo host=$(hostname) rank=$OMPI_COMM_WORLD_RANK'
echo "hostname job on h0,h1: exit $RC, $SECS s"
bad=0
[ "$RC" -eq 0 ] || { fail "hostname job: exit status $RC, expected 0"; bad=1; }
for r in 0 1; do
  grep -qx "host=h$r rank=$r" "$W/host.out" || { fail "hostname job: no 'host=h$r rank=$r' line"; bad=1; }
done
[ "$bad" -eq 0 ] || show "mpirun's output" "$W/host.out"

# Stop sshd; then nothing may be left in the hosts (chorusd and its ranks on h1,
# sshd's sessions, files in /tmp and /dev/shm).
mh_run h1 sh -c 'kill "$(cat "$1")"' sh "$W/sshd.pid" || fail "cannot stop sshd (pid file: $(cat "$W/sshd.pid" 2>&1))"
for ((i = 0; i < 500; i++)); do
  running "$SSHD_JOB" || break
  sleep 0.01
done
running "$SSHD_JOB" && fail "sshd still runs 5 s after SIGTERM"
wait "$SSHD_JOB" 2>/dev/null
# Both jobs came in through this sshd, from h0.
n=$(grep -c "^Accepted publickey for root from $(mh_addr h0) " "$W/sshd.log")
[ "$n" -eq 2 ] || fail "sshd accepted $n logins from h0, expected 2 (one per job)"
clean "after the jobs on h0,h1 and sshd ended"

# 3. h2 has no sshd: ssh's connection is refused, mpirun says so and fails.
run_mpirun "$W/refused.out" --host h0:1,h2:1 -n 2 "$HELLO"
echo "job on h0,h2 (no sshd on h2): exit $RC, $SECS s"
bad=0
if [ "$RC" -eq 0 ] || [ "$RC" -eq 124 ]; then
  fail "job with h2: exit status $RC, expected a failure (not 0, not 124: timeout)"
  bad=1
fi
awk -v s="$SECS" 'BEGIN { exit !(s > 10) }' && { fail "job with h2: took $SECS s, expected a few"; bad=1; }
# mpirun's own account: one line, naming the host, with ssh's words (ssh's
# stderr itself is passed through as well).
lines=$(grep -c '^mpirun: .*host h2.*ssh: connect to host h2 port 22: Connection refused' "$W/refused.out")
[ "$lines" -eq 1 ] || { fail "job with h2: $lines mpirun lines name h2 with ssh's 'Connection refused', expected 1"; bad=1; }
grep -q 'hello rank=1' "$W/refused.out" && { fail "job with h2: rank 1 ran"; bad=1; }
[ "$bad" -eq 0 ] || show "mpirun's output" "$W/refused.out"
clean "after the job with h2"

[ "$(dot_ssh)" = "$dot_ssh_before" ] || fail "$SSH_HOME/.ssh changed: before: '$dot_ssh_before', after: '$(dot_ssh)'"
[ "$FAILED" -eq 0 ] || show "sshd's log" "$W/sshd.log"

echo "total: $(secs "$T0") s"
if [ "$FAILED" -ne 0 ]; then
  echo FAILED
  exit 1
fi
echo PASSED
