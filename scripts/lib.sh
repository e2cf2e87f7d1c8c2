# Sourced by scripts/setup, scripts/demo and scripts/test (bash, set -euo pipefail).
# Installs missing Debian packages, configures a build directory once, builds it.

CHORUS_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# What building needs, and what the compat tests and benchmarks/compare add
# (peer MPIs, the plot).
CHORUS_BUILD_PKGS=(meson ninja-build pkg-config g++ libucx-dev ucx-utils libpmix-dev
                   libhwloc-dev libfmt-dev catch2 cmake libssl-dev)
CHORUS_TEST_PKGS=(openmpi-bin libopenmpi-dev mpich libmpich-dev python3-matplotlib slurm-wlm
                  iproute2 openssh-server openssh-client)

say() { echo "scripts: $*" >&2; }

# ensure_packages PKG...: apt-get install the ones not installed; silent otherwise.
ensure_packages() {
  local missing=() p
  for p in "$@"; do
    if [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) != "install ok installed" ]]; then
      missing+=("$p")
    fi
  done
  (( ${#missing[@]} == 0 )) && return 0
  local sudo=()
  if (( EUID != 0 )); then
    command -v sudo >/dev/null || { say "need root or sudo to install: ${missing[*]}"; return 1; }
    sudo=(sudo)
  fi
  say "installing ${missing[*]}"
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq || return 1
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null || return 1
}

# ensure_configured DIR [MESON SETUP ARGS...]: meson setup DIR once.
ensure_configured() {
  local dir=$1; shift
  [[ -f "$CHORUS_ROOT/$dir/meson-private/coredata.dat" ]] && return 0
  say "configuring $dir/"
  local log
  log=$(mktemp)
  if ! meson setup "$CHORUS_ROOT/$dir" "$CHORUS_ROOT" "$@" >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"; return 1
  fi
  rm -f "$log"
}

# ensure_built DIR [TARGETS...]: meson compile (everything, or those ninja
# targets); prints the log only when it fails.
ensure_built() {
  local dir=$1 log="$CHORUS_ROOT/$1/meson-logs/compile.log"
  shift
  if ! { if (( $# )); then ninja -C "$CHORUS_ROOT/$dir" "$@"; else meson compile -C "$CHORUS_ROOT/$dir"; fi; } \
      >"$log" 2>&1; then
    grep -v '^\[[0-9]*/[0-9]*\]' "$log" | tail -n 60 >&2
    say "build failed in $dir/ (full log: $dir/meson-logs/compile.log)"
    return 1
  fi
}

# unit_targets DIR: the ninja targets the unit suite needs in a configured DIR:
# its programs, the targets they depend on, and build outputs named in their
# environment (a test double loaded at run time).
unit_targets() {
  local dir=$CHORUS_ROOT/$1
  # A build dir configured before a meson.build changed describes the old tests
  # until ninja regenerates it (a new unit test then "does not exist").
  ninja -C "$dir" build.ninja >/dev/null
  meson introspect --tests --targets "$dir" | python3 -c '
import json, os, sys
d = json.load(sys.stdin)
root = os.path.realpath(sys.argv[1])
files = {t["id"]: t["filename"] for t in d["targets"]}
want = set()
def add(path):
    path = os.path.realpath(path)
    if path.startswith(root + "/"):
        want.add(os.path.relpath(path, root))
for t in d["tests"]:
    if not any(s.split(":")[-1] == "unit" for s in t["suite"]):
        continue
    add(t["cmd"][0])
    for dep in t.get("depends", []):
        for f in files.get(dep, []):
            add(f)
    for v in t.get("env", {}).values():
        for part in v.split(":"):
            if part.startswith(root + "/") and os.path.basename(part).rsplit(".", 1)[-1] in ("so", "fatbin", "bin"):
                add(part)
print("\n".join(sorted(want)))
' "$dir"
}

# chorus_setup [DIR [MESON SETUP ARGS...]]: packages, configure, build.
chorus_setup() {
  local dir=${1:-build}; (( $# )) && shift
  ensure_packages "${CHORUS_BUILD_PKGS[@]}" ${CHORUS_WITH_TEST_PKGS:+"${CHORUS_TEST_PKGS[@]}"} || return 1
  ensure_configured "$dir" "$@" || return 1
  ensure_built "$dir" || return 1
}
