# tests/multihost/lib.sh: N pretend hosts on this one machine, made of Linux
# namespaces, for tests that run a job across "hosts" (sourced; bash, root).
#
#   mh_require               SKIP (exit 77) unless root and namespaces work
#   mh_setup N [PATH...]     makes hosts h0..h(N-1); PATHs stay visible in them
#   mh_run HOST CMD [ARG...] runs CMD inside HOST; stdio and exit status pass through
#   mh_addr HOST             prints HOST's address (10.213.0.K+1)
#   mh_link_down HOST        unplugs HOST's cable (its switch port goes down)
#   mh_link_up HOST          plugs it back in
#   mh_leftovers             prints processes (other than the holders) still in
#                            the hosts, and entries in their /dev/shm and /tmp
#   mh_teardown              kills everything in the hosts, frees all; idempotent
#
# The network: every host has a veth named veth0 with address 10.213.0.(K+1)/24
# (MH_SUBNET overrides "10.213.0"), plugged into a bridge that lives in a network
# namespace of its own (the "switch"), so nothing appears in this machine's own
# network namespace and parallel runs cannot collide: each run has its own
# switch, its own segment and its own names. Nothing is routed anywhere else.
#
# The namespaces: every host has its own net, uts (hostname hK), ipc and mount
# namespaces, the latter with private tmpfs on /dev/shm and /tmp and an /etc/hosts
# naming all the hosts. h1.. also have their own pid namespace (and /proc); h0
# stays in this machine's pid namespace and sees its /proc, so that a program run
# in h0 (mpirun) can use the launch agent (tests/multihost/agent) to enter the
# others: the agent finds a host's holder process through CHORUS_TEST_MH_HOSTS
# ("h0=PID h1=PID ..."), which mh_setup exports. A host lives as long as its
# holder process (its pid 1 for h1..). UCX sees different ipc and pid namespaces
# between any two hosts, so it connects them with tcp as between real machines.
#
# Exported by mh_setup:
#   CHORUS_TEST_MH_HOSTS  "h0=PID h1=PID ...": the holders, for the agent (a
#                    CHORUS_TEST_ name: Chorus warns about other CHORUS_* names)
#   MH_AGENT         the launch agent (also put on PATH: `agent HOST 'cmd'`)
#   MH_SITE_ENV      "NAME=VALUE ..." that every host's agent sessions get, like a
#                    site's shell profile (default UCX_NET_DEVICES=veth0)
#   MH_SHARED        a scratch directory seen at the same path by the test and
#                    by every host (the hosts' /tmp is private)
#   MH_HOSTS         "h0 h1 ...", MH_SUBNET
#
# Notes:
# - Call mh_setup in the test's main shell, not in $(...) or a pipeline: the
#   hosts die with the shell that made them (even when it is killed).
# - mh_setup adds mh_teardown to the EXIT trap (keeping one that is already
#   set); a trap set after mh_setup must call mh_teardown itself.
# - mh_run keeps the caller's environment and working directory (/ when that
#   directory is not visible in the host, as under the private /tmp). The agent,
#   like ssh, gives the command a fresh environment (see agent).
# - The hosts' /tmp and /dev/shm are private: programs and files a test needs in
#   the hosts must not be under them, unless given to mh_setup as PATHs (or put
#   in MH_SHARED). A TMPDIR under /tmp, passed on by mh_run, names a directory
#   that does not exist in the host.
# - Processes left in h1.. die with their host; those left in h0 (which has no
#   pid namespace) are found through their network namespace and killed by
#   mh_teardown, but survive a test shell killed with SIGKILL.
set -u

MH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# What a host's holder runs (bash $MH_DIR/holder HOST HOSTS-FILE KEEP...): name
# the host, mount a sysfs of its own, hide /dev/shm and /tmp behind tmpfs (keeping
# the KEEP paths visible through them), then report ready and sleep.
_MH_HOLDER='
set -e
name=$1 hosts=$2
shift 2
hostname "$name"
# IPv6 off on veth0 (made later): no link-local addresses, no DAD, no noise.
echo 1 >/proc/sys/net/ipv6/conf/default/disable_ipv6 || true
mount --bind "$hosts" /etc/hosts
fds=()
for p in "$@"; do exec {fd}<"$p"; fds+=("$fd"); done
# A fresh sysfs shows this network namespace'"'"'s devices (UCX looks for
# veth0 there); the cgroup tree is kept.
[ -d /sys/fs/cgroup ] && exec {cg}</sys/fs/cgroup
mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
[ -n "${cg-}" ] && mount --no-canonicalize --rbind "/proc/$$/fd/$cg" /sys/fs/cgroup
[ -n "${cg-}" ] && exec {cg}<&-
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp
i=0
for p in "$@"; do
  fd=${fds[i]}
  i=$((i + 1))
  case $p in /tmp/* | /dev/shm/*) ;; *) continue ;; esac
  if [ -d "/proc/$$/fd/$fd" ]; then mkdir -p "$p"; else mkdir -p "${p%/*}"; : >"$p"; fi
  mount --no-canonicalize --bind "/proc/$$/fd/$fd" "$p"
done
for fd in "${fds[@]}"; do exec {fd}<&-; done
ip link set lo up
cd /
echo ready
exec sleep infinity </dev/null >/dev/null 2>&1
'

mh_require() {
  local reason='' c err
  if [ "$(id -u)" != 0 ]; then
    reason="not root"
  else
    for c in unshare nsenter ip setpriv; do
      command -v "$c" >/dev/null 2>&1 || { reason="$c not found"; break; }
    done
  fi
  if [ -z "$reason" ]; then
    err=$(unshare --net --uts --ipc --mount --pid --fork --mount-proc \
      bash -c 'ip link add mh0 type veth peer name mh1 && ip link add mhbr type bridge &&
               mount -t tmpfs tmpfs /tmp && hostname mhtest' 2>&1 </dev/null) ||
      reason="cannot create namespaces: $(printf '%s\n' "$err" | head -1)"
  fi
  if [ -n "$reason" ]; then
    echo "SKIP: $reason"
    exit 77
  fi
}

# _mh_index HOST: sets _MH_K to HOST's index, or fails (message on stderr).
_mh_index() {
  local k
  for k in "${!MH_NAMES[@]}"; do
    if [ "${MH_NAMES[k]}" = "$1" ]; then _MH_K=$k; return 0; fi
  done
  echo "mh: $1: no such host" >&2
  return 1
}

mh_addr() {
  _mh_index "$1" || return 1
  echo "$MH_SUBNET.$((_MH_K + 1))"
}

mh_setup() {
  local n=${1-} k p t0 waiting err
  shift || true
  if ! [[ $n =~ ^[1-9][0-9]?$ ]]; then
    echo "mh_setup: host count 1..99 expected, got '$n'" >&2
    return 2
  fi
  if [ -n "${MH_DIR-}" ]; then
    echo "mh_setup: hosts already set up (call mh_teardown first)" >&2
    return 2
  fi
  MH_SUBNET=${MH_SUBNET:-10.213.0}
  MH_DIR=$(mktemp -d "${TMPDIR:-/tmp}/chorus-mh.XXXXXX") || return 1
  MH_DIR=$(readlink -f "$MH_DIR")
  MH_SHARED=$MH_DIR/shared
  mkdir -m 1777 "$MH_SHARED"
  local -a keep=("$MH_SHARED" "$MH_LIB_DIR")
  for p in "$@"; do
    [ -e "$p" ] || { echo "mh_setup: $p: no such file or directory" >&2; return 2; }
    keep+=("$(readlink -f "$p")")
  done
  MH_KEEP=("${keep[@]}")
  MH_NAMES=() MH_PIDS=() MH_WAITERS=() MH_NETNS=()
  MH_HOSTS=
  {
    echo "127.0.0.1 localhost"
    for ((k = 0; k < n; k++)); do echo "$MH_SUBNET.$((k + 1)) h$k"; done
  } >"$MH_DIR/hosts"
  printf '%s' "$_MH_HOLDER" >"$MH_DIR/holder"
  _mh_trap

  # The switch: a network namespace with a bridge. The holders get SIGKILL when
  # this shell dies (pdeathsig), and take their hosts with them (--kill-child).
  setpriv --pdeathsig SIGKILL unshare --net -- bash -c \
    'ip link add br0 type bridge && ip link set br0 up && echo ready && exec sleep infinity >/dev/null' \
    </dev/null >"$MH_DIR/switch.ready" 2>"$MH_DIR/switch.err" &
  MH_SWITCH=$!
  for ((k = 0; k < n; k++)); do
    local -a pidns=(--pid --mount-proc)
    [ "$k" -eq 0 ] && pidns=()
    MH_NAMES[k]=h$k
    setpriv --pdeathsig SIGKILL unshare --net --uts --ipc --mount --propagation private \
      "${pidns[@]}" --fork --kill-child -- bash "$MH_DIR/holder" "h$k" "$MH_DIR/hosts" "${keep[@]}" \
      </dev/null >"$MH_DIR/h$k.ready" 2>"$MH_DIR/h$k.err" &
    MH_WAITERS[k]=$!
  done

  # Wait for all of them to be ready.
  t0=$SECONDS
  while :; do
    waiting=0
    for f in switch $(seq 0 $((n - 1))); do
      if [ "$f" = switch ]; then p=$MH_SWITCH; err=$MH_DIR/switch.err; f=$MH_DIR/switch.ready
      else p=${MH_WAITERS[f]}; err=$MH_DIR/h$f.err; f=$MH_DIR/h$f.ready; fi
      [ -s "$f" ] && continue
      waiting=1
      if ! _mh_alive "$p"; then
        echo "mh_setup: a host failed to start: $(cat "$err")" >&2
        mh_teardown
        return 1
      fi
    done
    [ "$waiting" -eq 0 ] && break
    if [ $((SECONDS - t0)) -gt 20 ]; then
      echo "mh_setup: hosts not ready after 20 s" >&2
      mh_teardown
      return 1
    fi
    sleep 0.01
  done

  CHORUS_TEST_MH_HOSTS=
  : >"$MH_DIR/switch.batch"
  for ((k = 0; k < n; k++)); do
    p=$(cat "/proc/${MH_WAITERS[k]}/task/${MH_WAITERS[k]}/children")
    p=${p%% *}
    MH_PIDS[k]=$p
    MH_NETNS[k]=$(readlink "/proc/$p/ns/net")
    CHORUS_TEST_MH_HOSTS+="${CHORUS_TEST_MH_HOSTS:+ }h$k=$p"
    MH_HOSTS+="${MH_HOSTS:+ }h$k"
    printf 'link add h%d type veth peer name veth0 netns %d\nlink set h%d master br0\nlink set h%d up\n' \
      "$k" "$p" "$k" "$k" >>"$MH_DIR/switch.batch"
  done
  if ! nsenter -t "$MH_SWITCH" -n ip -b "$MH_DIR/switch.batch"; then
    echo "mh_setup: cannot wire the hosts to the switch" >&2
    mh_teardown
    return 1
  fi
  for ((k = 0; k < n; k++)); do
    printf 'address add %s.%d/24 dev veth0\nlink set veth0 up\n' "$MH_SUBNET" $((k + 1)) |
      nsenter -t "${MH_PIDS[k]}" -n ip -b - || {
      echo "mh_setup: cannot configure h$k's network" >&2
      mh_teardown
      return 1
    }
  done
  export CHORUS_TEST_MH_HOSTS MH_HOSTS MH_SUBNET MH_SHARED
  export MH_AGENT=$MH_LIB_DIR/agent
  export MH_SITE_ENV=${MH_SITE_ENV-UCX_NET_DEVICES=veth0}
  case ":$PATH:" in *":$MH_LIB_DIR:"*) ;; *) export PATH=$MH_LIB_DIR:$PATH ;; esac
}

# _mh_alive PID: whether PID runs (a child of ours that exited and is not yet
# reaped is a zombie, which kill -0 still finds).
_mh_alive() {
  local state
  read -r _ _ state _ 2>/dev/null <"/proc/$1/stat" && [ "$state" != Z ]
}

# Adds mh_teardown to the EXIT trap (once), and makes INT/TERM/HUP run it.
_mh_trap() {
  [ -n "${_MH_TRAPPED-}" ] && return 0
  _MH_TRAPPED=1
  local prev
  prev=$(trap -p EXIT)
  prev=${prev#"trap -- "}
  prev=${prev%" EXIT"}
  [ -n "$prev" ] && eval "prev=$prev"
  # shellcheck disable=SC2064
  trap "mh_teardown; ${prev:-:}" EXIT
  [ -z "$(trap -p INT)" ] && trap 'exit 130' INT
  [ -z "$(trap -p TERM)" ] && trap 'exit 143' TERM
  [ -z "$(trap -p HUP)" ] && trap 'exit 129' HUP
  return 0
}

# _mh_nsflags PID: sets _MH_NS to the nsenter options that enter PID's
# namespaces, leaving out those the caller is in already.
_mh_nsflags() {
  local t opt
  _MH_NS=()
  for t in net:-n uts:-u ipc:-i mnt:-m pid:-p; do
    opt=${t#*:}
    t=${t%%:*}
    [[ /proc/$1/ns/$t -ef /proc/self/ns/$t ]] || _MH_NS+=("$opt")
  done
}

mh_run() {
  if [ $# -lt 2 ]; then
    echo "usage: mh_run HOST COMMAND [ARG...]" >&2
    return 2
  fi
  _mh_index "$1" || return 255
  local pid=${MH_PIDS[_MH_K]}
  shift
  _mh_nsflags "$pid"
  if [ ${#_MH_NS[@]} -eq 0 ]; then
    "$@"
  else
    nsenter -t "$pid" "${_MH_NS[@]}" -- /bin/sh -c 'cd "$1" 2>/dev/null || cd /; shift; exec "$@"' \
      mh_run "$PWD" "$@"
  fi
}

# The host's port on the switch carries the host's name.
mh_link_down() {
  _mh_index "$1" || return 1
  nsenter -t "$MH_SWITCH" -n ip link set "$1" down
}

mh_link_up() {
  _mh_index "$1" || return 1
  nsenter -t "$MH_SWITCH" -n ip link set "$1" up
}

# _mh_procs: sets _MH_LEFT to "K PID" for every process in host K's network
# namespace other than its holder and waiter (one `find` reads all of /proc).
_mh_procs() {
  local dir link pid k
  _MH_LEFT=()
  while read -r dir link; do
    pid=${dir#/proc/}
    pid=${pid%/ns}
    for k in "${!MH_NETNS[@]}"; do
      [ "$link" = "${MH_NETNS[k]}" ] || continue
      [ "$pid" = "${MH_PIDS[k]}" ] || [ "$pid" = "${MH_WAITERS[k]}" ] || _MH_LEFT+=("$k $pid")
    done
  done < <(find /proc -mindepth 3 -maxdepth 3 -path '/proc/[0-9]*/ns/net' -printf '%h %l\n' 2>/dev/null)
}

mh_leftovers() {
  [ -n "${MH_DIR-}" ] || return 0
  local e k pid cmd d root keep skip
  _mh_procs
  for e in "${_MH_LEFT[@]}"; do
    k=${e% *}
    pid=${e#* }
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null) || continue
    echo "h$k: process $pid: ${cmd% }"
  done
  for k in "${!MH_PIDS[@]}"; do
    root=/proc/${MH_PIDS[k]}/root
    [ -d "$root/" ] || continue
    for d in /dev/shm /tmp; do
      for e in "$root$d"/* "$root$d"/.[!.]* "$root$d"/..?*; do
        [ -e "$e" ] || [ -L "$e" ] || continue
        e=${e#"$root"}
        skip=0
        for keep in "${MH_KEEP[@]}"; do
          case $keep in "$e" | "$e"/*) skip=1 ;; esac
        done
        [ "$skip" -eq 1 ] || echo "h$k: $e"
      done
    done
  done
}

mh_teardown() {
  [ -n "${MH_DIR-}" ] || return 0
  local k p i
  # h1..: their holder is their pid 1; when it dies, the kernel kills the rest.
  for k in "${!MH_PIDS[@]}"; do
    [ "$k" -eq 0 ] || kill -KILL "${MH_PIDS[k]}" 2>/dev/null
  done
  # h0 (and anything that entered a host's network only): kill what is left.
  for ((i = 0; i < 100; i++)); do
    _mh_procs
    [ ${#_MH_LEFT[@]} -eq 0 ] && break
    for p in "${_MH_LEFT[@]}"; do kill -KILL "${p#* }" 2>/dev/null; done
    sleep 0.02
  done
  [ ${#_MH_LEFT[@]} -eq 0 ] || echo "mh_teardown: cannot kill: ${_MH_LEFT[*]}" >&2
  # The waiters (unshare) exit once they have reaped their holder.
  for p in "${MH_PIDS[@]}" "${MH_SWITCH-}"; do
    [ -n "$p" ] && kill -KILL "$p" 2>/dev/null
  done
  for k in "${!MH_WAITERS[@]}"; do  # those whose holder was not found (failed setup)
    [ -n "${MH_PIDS[k]-}" ] || kill -KILL "${MH_WAITERS[k]}" 2>/dev/null
  done
  for p in "${MH_WAITERS[@]}" "${MH_SWITCH-}"; do
    [ -n "$p" ] && wait "$p" 2>/dev/null
  done
  rm -rf "$MH_DIR"
  MH_DIR='' MH_SWITCH='' MH_HOSTS='' CHORUS_TEST_MH_HOSTS=''
  MH_NAMES=() MH_PIDS=() MH_WAITERS=() MH_NETNS=() MH_KEEP=()
  return 0
}
