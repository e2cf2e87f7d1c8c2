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
# The relay: the kernel lets a process enter only its own pid namespace or one
# below it, so nothing inside h1.. can start a process in another host's pid
# namespace (h1's and h2's are siblings). The agent called inside h1.. (a
# daemon starting the next level of a launch tree) therefore hands its request
# to the relay: a small python3 server that mh_setup starts in this machine's
# namespaces, listening on $MH_DIR/relay/sock. It receives the caller's stdin,
# stdout and stderr themselves (SCM_RIGHTS), the host, the command and the
# caller's environment, runs the agent from here with them, and returns the
# exit status. The holder of h1.. (their pid 1) keeps $MH_DIR/relay open as its
# fd 3, so that inside the host /proc/1/fd/3 leads to the relay (no mount, no
# variable); $MH_DIR/relay/mh-hosts (CHORUS_TEST_MH_HOSTS) tells the agent that
# the relay is that of its hosts. Without python3 everything else works; the
# agent inside h1.. then says that it has no relay.
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
#   mh_teardown, but survive a test shell killed with SIGKILL. The relay dies
#   with the test shell, and so do the agents it runs (nsenter; into h0, where
#   nsenter does not fork, that is the command itself).
set -u

MH_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# What a host's holder runs (bash $MH_DIR/holder HOST HOSTS-FILE RELAY-DIR
# KEEP...): name the host; in a pid namespace of its own (h1..: it is pid 1), keep
# RELAY-DIR open as fd 3 and mount the namespace's /proc; mount a sysfs of its
# own, hide /dev/shm and /tmp behind tmpfs (keeping the KEEP paths visible
# through them), then report ready and sleep.
_MH_HOLDER='
set -e
name=$1 hosts=$2 relay=$3
shift 3
hostname "$name"
if [ $$ -eq 1 ]; then
  exec 3<"$relay"
  mount -t proc -o nosuid,nodev,noexec proc /proc
fi
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

# The relay (python3 -I -S -c "$_MH_RELAY" DIR AGENT SETPRIV SITE-ENV), see the
# header. One request per connection: 8 bytes (the length of the rest, with the
# caller's fds 0, 1 and 2 attached), then "HOST\0COMMAND\0NAME=VALUE\0...". It
# runs `setpriv --pdeathsig SIGKILL AGENT -- HOST COMMAND` with those fds and
# that environment (MH_SITE_ENV: the one of mh_setup unless the caller has
# one), in a session of its own as sshd would, and answers the exit status (a
# negative one: killed by that signal).
_MH_RELAY='
import os, socket, struct, subprocess, sys, threading
rundir, agent, setpriv, site_env = sys.argv[1:5]
os.chdir(rundir)
with open("python.new", "w") as f:
    f.write(os.path.realpath(sys.executable) + "\n")
os.rename("python.new", "python")
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind("sock")
srv.listen(128)

def take(c, n):
    b = b""
    while len(b) < n:
        d = c.recv(n - len(b))
        if not d:
            raise EOFError
        b += d
    return b

def serve(c):
    fds = []
    try:
        head, anc, _, _ = c.recvmsg(8, socket.CMSG_SPACE(3 * 4), socket.MSG_CMSG_CLOEXEC)
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds += struct.unpack("%di" % (len(data) // 4), data[: len(data) // 4 * 4])
        if len(fds) != 3:
            return
        (n,) = struct.unpack("!Q", head + take(c, 8 - len(head)))
        words = take(c, n).split(b"\0")
        host, cmd = words[0], words[1]
        env = dict(w.split(b"=", 1) for w in words[2:] if b"=" in w)
        env.setdefault(b"MH_SITE_ENV", os.fsencode(site_env))
        try:
            p = subprocess.Popen([setpriv, "--pdeathsig", "SIGKILL", agent, "--", host, cmd],
                                 stdin=fds[0], stdout=fds[1], stderr=fds[2], env=env, cwd="/",
                                 start_new_session=True)
        except OSError as e:
            os.write(fds[2], b"agent: %s: the relay cannot run the agent: %s\n"
                     % (host, os.fsencode(e.strerror or str(e))))
            status = 255
        else:
            for fd in fds:
                os.close(fd)
            fds = []
            status = p.wait()
        c.sendall(b"%d\n" % status)
    except Exception:
        pass
    finally:
        for fd in fds:
            os.close(fd)
        c.close()

print("ready", flush=True)
while True:
    conn, _ = srv.accept()
    threading.Thread(target=serve, args=(conn,), daemon=True).start()
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
  local n=${1-} k p t0 waiting err py site
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
  mkdir -m 700 "$MH_DIR/relay"
  site=${MH_SITE_ENV-UCX_NET_DEVICES=veth0}
  _mh_trap

  # The relay (see the header), in this machine's namespaces; none without python3.
  MH_RELAY=
  if py=$(command -v python3); then
    setpriv --pdeathsig SIGKILL "$py" -I -S -c "$_MH_RELAY" "$MH_DIR/relay" "$MH_LIB_DIR/agent" \
      "$(command -v setpriv)" "$site" </dev/null >"$MH_DIR/relay.ready" 2>"$MH_DIR/relay.err" &
    MH_RELAY=$!
  fi

  # The switch: a network namespace with a bridge. The holders get SIGKILL when
  # this shell dies (pdeathsig), and take their hosts with them (--kill-child).
  setpriv --pdeathsig SIGKILL unshare --net -- bash -c \
    'ip link add br0 type bridge && ip link set br0 up && echo ready && exec sleep infinity >/dev/null' \
    </dev/null >"$MH_DIR/switch.ready" 2>"$MH_DIR/switch.err" &
  MH_SWITCH=$!
  for ((k = 0; k < n; k++)); do
    local -a pidns=(--pid)  # the holder mounts its /proc (after opening the relay)
    [ "$k" -eq 0 ] && pidns=()
    MH_NAMES[k]=h$k
    setpriv --pdeathsig SIGKILL unshare --net --uts --ipc --mount --propagation private \
      "${pidns[@]}" --fork --kill-child -- bash "$MH_DIR/holder" "h$k" "$MH_DIR/hosts" "$MH_DIR/relay" \
      "${keep[@]}" \
      </dev/null >"$MH_DIR/h$k.ready" 2>"$MH_DIR/h$k.err" &
    MH_WAITERS[k]=$!
  done

  # Wait for all of them to be ready.
  t0=$SECONDS
  while :; do
    waiting=0
    for f in switch ${MH_RELAY:+relay} $(seq 0 $((n - 1))); do
      case $f in
        switch | relay) [ "$f" = switch ] && p=$MH_SWITCH || p=$MH_RELAY
          err=$MH_DIR/$f.err f=$MH_DIR/$f.ready ;;
        *) p=${MH_WAITERS[f]} err=$MH_DIR/h$f.err f=$MH_DIR/h$f.ready ;;
      esac
      [ -s "$f" ] && continue
      if [ "$p" = "${MH_RELAY-}" ] && ! _mh_alive "$p"; then
        # Not fatal: only the agent inside h1.. needs it (and says so).
        echo "mh_setup: the relay failed to start (no agent inside h1..): $(head -c 2000 "$err")" >&2
        wait "$p" 2>/dev/null
        MH_RELAY=
        continue
      fi
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
  printf '%s\n' "$CHORUS_TEST_MH_HOSTS" >"$MH_DIR/relay/mh-hosts"
  export CHORUS_TEST_MH_HOSTS MH_HOSTS MH_SUBNET MH_SHARED
  # The pretend hosts share this machine's CPUs, each with its own /tmp: with
  # --bind-to auto every host would put its local rank i on core i, as if it had
  # the cores to itself, and 4 hosts x 2 ranks would stack four spinning ranks
  # on each core. Real hosts have cores of their own; a test that binds says so.
  export CHORUS_BIND_TO=${CHORUS_BIND_TO:-none}
  export MH_AGENT=$MH_LIB_DIR/agent
  export MH_SITE_ENV=$site
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

# _mh_kill_left: kills what is left in the hosts' network namespaces (h0's
# processes, and anything that entered a host's network only), until none is.
_mh_kill_left() {
  local i p
  for ((i = 0; i < 100; i++)); do
    _mh_procs
    [ ${#_MH_LEFT[@]} -eq 0 ] && return 0
    for p in "${_MH_LEFT[@]}"; do kill -KILL "${p#* }" 2>/dev/null; done
    sleep 0.02
  done
  return 1
}

mh_teardown() {
  [ -n "${MH_DIR-}" ] || return 0
  local k p left=0
  # The relay stops first, so that it starts nothing more, but it stays until
  # the hosts are gone: the agents it runs (nsenter, the parent of a command in
  # h1..) must be there to reap what the end of a host kills (an orphan there
  # would go to this machine's init, and the host's end would wait for it).
  [ -n "${MH_RELAY-}" ] && kill -STOP "$MH_RELAY" 2>/dev/null
  # h1..: their holder is their pid 1; when it dies, the kernel kills the rest.
  for k in "${!MH_PIDS[@]}"; do
    [ "$k" -eq 0 ] || kill -KILL "${MH_PIDS[k]}" 2>/dev/null
  done
  _mh_kill_left || left=1
  # Then the relay; the agents it still runs die with it (pdeathsig), and what
  # one of them might have just started in h0 goes too.
  if [ -n "${MH_RELAY-}" ]; then
    kill -KILL "$MH_RELAY" 2>/dev/null
    wait "$MH_RELAY" 2>/dev/null
    _mh_kill_left || left=1
  fi
  [ "$left" -eq 0 ] || echo "mh_teardown: cannot kill: ${_MH_LEFT[*]}" >&2
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
  MH_DIR='' MH_SWITCH='' MH_RELAY='' MH_HOSTS='' CHORUS_TEST_MH_HOSTS=''
  MH_NAMES=() MH_PIDS=() MH_WAITERS=() MH_NETNS=() MH_KEEP=()
  return 0
}
