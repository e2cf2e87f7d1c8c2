#!/bin/bash
# tests/multihost/selftest.sh: checks the namespace hosts of lib.sh and the launch
# agent: names, private /dev/shm and /tmp, the network, the agent from h0 into
# h1, the agent inside h1.. (through lib.sh's relay: chains such as h0 -> h1 ->
# h2, as in a launch tree), UCX between hosts (tcp over veth0, not shared
# memory), mh_link_down, mh_leftovers, and that teardown leaves nothing behind.
# Exit 0: pass, 77: skipped (not root, no namespaces), other: failure.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
mh_require

FAILED=0
fail() {
  echo "FAIL: $*" >&2
  FAILED=1
}
# expect DESCRIPTION EXPECTED ACTUAL
expect() {
  [ "$2" = "$3" ] || fail "$1: expected '$2', got '$3'"
}
now() { date +%s.%N; }
secs() { awk -v a="$1" -v b="$(now)" 'BEGIN { printf "%.2f", b - a }'; }

T0=$(now)
W=$(mktemp -d "${TMPDIR:-/tmp}/chorus-mh-selftest.XXXXXX")
trap 'rm -rf "$W"' EXIT
links_before=$(ip -o link show | cut -d: -f2 | sort)
mounts_before=$(cut -d' ' -f5 /proc/self/mountinfo | sort)

mh_setup 3 || { echo "FAIL: mh_setup 3"; exit 1; }
echo "setup: $(secs "$T0") s (CHORUS_TEST_MH_HOSTS=$CHORUS_TEST_MH_HOSTS)"
netns_ids=("${MH_NETNS[@]}")

# Names and addresses.
for k in 0 1 2; do
  expect "hostname in h$k" "h$k" "$(mh_run h$k hostname)"
  expect "h$k's address" "$MH_SUBNET.$((k + 1))/24" \
    "$(mh_run h$k ip -o -4 addr show dev veth0 | awk '{ print $4 }')"
done
expect "getent hosts h1 in h0" "$(mh_addr h1) h1" "$(mh_run h0 getent hosts h1 | tr -s ' ')"
expect "getent hosts h0 in h2" "$(mh_addr h0) h0" "$(mh_run h2 getent hosts h0 | tr -s ' ')"
[ -e /sys/class/net/veth0 ] && fail "veth0 in this machine's network namespace"
mh_run h1 test -e /sys/class/net/veth0 || fail "h1's /sys does not show its veth0"

# Private /dev/shm and /tmp; MH_SHARED is seen everywhere.
mh_run h1 sh -c 'echo 1 >/dev/shm/mh_selftest && echo 1 >/tmp/mh_selftest' || fail "cannot write in h1"
for h in h0 h2; do
  mh_run $h test -e /dev/shm/mh_selftest && fail "h1's /dev/shm file seen in $h"
  mh_run $h test -e /tmp/mh_selftest && fail "h1's /tmp file seen in $h"
done
[ -e /dev/shm/mh_selftest ] && fail "h1's /dev/shm file seen outside the hosts"
[ -e /tmp/mh_selftest ] && fail "h1's /tmp file seen outside the hosts"
mh_run h1 test -e "$W" && fail "this machine's $W seen in h1"
expect "h1's /tmp leftovers" "h1: /dev/shm/mh_selftest
h1: /tmp/mh_selftest" "$(mh_leftovers)"
mh_run h1 rm /dev/shm/mh_selftest /tmp/mh_selftest
mh_run h2 sh -c 'echo shared >"$MH_SHARED/f"'
expect "MH_SHARED from h0" shared "$(mh_run h0 cat "$MH_SHARED/f")"
expect "MH_SHARED from here" shared "$(cat "$MH_SHARED/f")"

# The network: a TCP connection from h0 to h1 by name. Nothing listens on port
# 9, so a reachable h1 refuses at once (with no route, or no answer, it fails
# otherwise or times out after 1 s).
tcp_probe() {  # tcp_probe FROM TO: prints refused, or the error
  mh_run "$1" timeout 1 bash -c "exec 3<>/dev/tcp/$2/9" 2>&1 | sed -n 's/.*: //p' | tail -1
  [ "${PIPESTATUS[0]}" -eq 124 ] && echo timeout
}
expect "TCP h0 -> h1 by name" "Connection refused" "$(tcp_probe h0 h1)"
expect "TCP h2 -> h0 by name" "Connection refused" "$(tcp_probe h2 h0)"

# The agent, called from inside h0 (as mpirun's child), into h1.
expect "agent stdin" secret "$(echo secret | mh_run h0 agent h1 cat)"
expect "agent hostname" h1 "$(mh_run h0 agent h1 hostname)"
mh_run h0 agent h1 'exit 3'
expect "agent exit status" 3 $?
expect "agent stderr" "to stderr" "$(mh_run h0 agent h1 'echo to stderr >&2; echo to stdout' 2>&1 >/dev/null)"
expect "agent command words" "a b c" "$(mh_run h0 agent h1 echo a b 'c')"
expect "agent environment" "UCX_NET_DEVICES=veth0 HOME=/root" \
  "$(MH_TEST_VAR=x mh_run h0 agent h1 'echo UCX_NET_DEVICES=$UCX_NET_DEVICES HOME=$HOME$MH_TEST_VAR')"
expect "agent MH_AGENT_PASS" x \
  "$(MH_TEST_VAR=x MH_AGENT_PASS=MH_TEST_VAR mh_run h0 agent h1 'echo $MH_TEST_VAR')"
want=$(for t in net uts ipc mnt pid; do readlink "/proc/${MH_PIDS[1]}/ns/$t"; done)
expect "agent in all of h1's namespaces" "$want" \
  "$(mh_run h0 agent h1 'for t in net uts ipc mnt pid; do readlink /proc/self/ns/$t; done')"
expect "agent from here" h2 "$(agent h2 hostname)"
err=$(mh_run h0 agent nohost true 2>&1)
expect "agent exit status, unknown host" 255 $?
expect "agent message, unknown host" "agent: nohost: no such host" "$err"
mh_run h1 sh -c 'exit 5'
expect "mh_run exit status" 5 $?

# The agent inside h1.. (a launch tree: mpirun in h0 -> a daemon in h1 -> one in
# h2), through lib.sh's relay. The agent's fresh environment does not have it on
# PATH: by its absolute path, as mpirun hands it down the tree.
A=$MH_AGENT
if [ -z "${MH_RELAY-}" ]; then
  if command -v python3 >/dev/null 2>&1; then
    fail "lib.sh's relay does not run, though python3 is installed"
  else
    echo "SKIP (part): python3 not installed: no relay, so no agent inside h1.."
  fi
else
  t=$(now)
  expect "agent chain h0 -> h1 -> h2" h2 "$(mh_run h0 agent h1 "$A h2 hostname")"
  echo "agent chain h0 -> h1 -> h2: $(secs "$t") s"
  expect "agent chain stdin" secret "$(echo secret | mh_run h0 agent h1 "$A h2 cat")"
  mh_run h0 agent h1 "$A h2 'exit 7'"
  expect "agent chain exit status" 7 $?
  expect "agent chain stderr" "to stderr" \
    "$(mh_run h0 agent h1 "$A h2 'echo to stderr >&2; echo to stdout'" 2>&1 >/dev/null)"
  expect "agent chain environment" "UCX_NET_DEVICES=veth0 HOME=/root" \
    "$(MH_TEST_VAR=x mh_run h0 agent h1 "$A h2 'echo UCX_NET_DEVICES=\$UCX_NET_DEVICES HOME=\$HOME\$MH_TEST_VAR'")"
  want=$(for t in net uts ipc mnt pid; do readlink "/proc/${MH_PIDS[2]}/ns/$t"; done)
  expect "agent chain in all of h2's namespaces" "$want" \
    "$(mh_run h0 agent h1 "$A h2 'for t in net uts ipc mnt pid; do readlink /proc/self/ns/\$t; done'")"
  expect "agent h1 -> h2, the same stdout (not a copy)" 1 \
    "$(mh_run h1 sh -c 'readlink /proc/self/fd/1; agent h2 readlink /proc/self/fd/1' | sort -u | grep -c pipe)"
  expect "agent chain h1 -> h2 -> h0 -> h1" h1 "$(mh_run h1 agent h2 "$A h0 '$A h1 hostname'")"
  expect "agent h2 -> h2" h2 "$(mh_run h2 agent h2 hostname)"
  { mh_run h1 agent h2 'kill -TERM $$'; } 2>/dev/null
  expect "agent h1 -> h2, command killed by SIGTERM" 143 $?
  err=$(mh_run h1 agent nohost true 2>&1)
  expect "agent exit status in h1, unknown host" 255 $?
  expect "agent message in h1, unknown host" "agent: nohost: no such host" "$err"
fi

# UCX between h0 and h1: tcp over veth0, not shared memory.
if ! command -v ucx_perftest >/dev/null 2>&1; then
  echo "SKIP (part): ucx_perftest not installed (Debian package ucx-utils)"
else
  t=$(now)
  UCX_NET_DEVICES=veth0 UCX_LOG_LEVEL=info mh_run h1 timeout 30 ucx_perftest -p 13337 \
    >"$W/server.out" 2>&1 &
  server=$!
  for ((i = 0; i < 250; i++)); do
    [ -n "$(mh_run h1 ss -Hltn 'sport = :13337')" ] && break
    sleep 0.02
  done
  UCX_NET_DEVICES=veth0 UCX_LOG_LEVEL=info mh_run h0 timeout 30 ucx_perftest h1 -p 13337 \
    -t tag_lat -n 1000 >"$W/client.out" 2>&1
  rc=$?
  wait $server
  src=$?
  if [ $rc -ne 0 ] || [ $src -ne 0 ]; then
    fail "ucx_perftest h0 -> h1: client exit $rc, server exit $src"
    cat "$W/client.out" "$W/server.out" >&2
  else
    for f in client server; do
      eps=$(grep 'ep_cfg' "$W/$f.out")
      if [ -z "$eps" ] || ! grep -q 'tcp/veth0' <<<"$eps" ||
        grep -Eq 'posix|sysv|cma|knem|xpmem' <<<"$eps"; then
        fail "UCX $f: expected tcp/veth0 only, got: ${eps:-no ep_cfg line}"
      fi
    done
    echo "ucx_perftest tag_lat h0 -> h1: $(grep -o 'tag([^)]*)' "$W/client.out" | head -1)," \
      "median $(awk '/^Final:/ { print $3 }' "$W/client.out") us, $(secs "$t") s"
  fi
fi

# mh_link_down: h1 stops answering, then comes back.
mh_link_down h1
expect "TCP h0 -> h1, h1's link down" timeout "$(tcp_probe h0 h1)"
mh_link_up h1
expect "TCP h0 -> h1, h1's link up again" "Connection refused" "$(tcp_probe h0 h1)"

# mh_leftovers sees a process left in a host (h0 and h1), and a /dev/shm entry.
# (started from subshells, so that this shell does not report them killed)
(mh_run h0 sleep 1000.$$ </dev/null >/dev/null 2>&1 &)
(agent h1 "sleep 1001.$$" </dev/null >/dev/null 2>&1 &)
if [ -n "${MH_RELAY-}" ]; then  # through the relay, into h2 and into h0
  (mh_run h1 agent h2 "sleep 1002.$$" </dev/null >/dev/null 2>&1 &)
  (mh_run h2 agent h0 "sleep 1003.$$" </dev/null >/dev/null 2>&1 &)
fi
mh_run h2 touch /dev/shm/left
sleep 0.3
left=$(mh_leftovers)
grep -Eq "^h0: process [0-9]+: sleep 1000\.$$\$" <<<"$left" || fail "mh_leftovers missed h0's sleep: $left"
grep -Eq "^h1: process [0-9]+: sleep 1001\.$$\$" <<<"$left" || fail "mh_leftovers missed h1's sleep: $left"
if [ -n "${MH_RELAY-}" ]; then
  grep -Eq "^h2: process [0-9]+: sleep 1002\.$$\$" <<<"$left" || fail "mh_leftovers missed h2's sleep: $left"
  grep -Eq "^h0: process [0-9]+: sleep 1003\.$$\$" <<<"$left" || fail "mh_leftovers missed h0's sleep from h2: $left"
fi
grep -q "^h2: /dev/shm/left\$" <<<"$left" || fail "mh_leftovers missed h2's /dev/shm/left: $left"
relay=${MH_RELAY-}

# Teardown kills those, and leaves nothing: no process in the hosts' network
# namespaces, no link, no mount here.
t=$(now)
mh_teardown
echo "teardown: $(secs "$t") s"
mh_teardown  # idempotent
wait
[ -z "$(mh_leftovers)" ] || fail "mh_leftovers after teardown: $(mh_leftovers)"
for ns in "${netns_ids[@]}"; do
  for l in /proc/[0-9]*/ns/net; do
    [ "$(readlink "$l" 2>/dev/null)" = "$ns" ] && fail "after teardown, ${l%/ns/net} is in a host ($ns)"
  done
done
pgrep -f "sleep 100[0-3]\.$$" >/dev/null && fail "after teardown: $(pgrep -af "sleep 100[0-3]\.$$")"
[ -n "$relay" ] && _mh_alive "$relay" && fail "after teardown, the relay ($relay) still runs"
expect "links after teardown" "$links_before" "$(ip -o link show | cut -d: -f2 | sort)"
expect "mounts after teardown" "$mounts_before" "$(cut -d' ' -f5 /proc/self/mountinfo | sort)"

echo "total: $(secs "$T0") s"
if [ "$FAILED" -ne 0 ]; then
  echo FAILED
  exit 1
fi
echo PASSED
