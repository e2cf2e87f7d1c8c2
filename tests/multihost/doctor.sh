#!/usr/bin/env bash
# chorus-doctor across pretend hosts (lib.sh): a healthy 4-host cluster passes
# (exit 0, a line per check, a JSON report); the same with h2's link rate-limited
# by tbf (this kernel has no netem) names h2 and its links and exits 1; with
# MOCKCUDA (the mock CUDA driver) on every host and h2's GPU copies slowed, h2
# is named for them (exit 1); a host that cannot start a rank is named (exit 1);
# bad options exit 2.
#   doctor.sh DOCTOR [MOCKCUDA]
set -u
(( $# == 1 || $# == 2 )) || { echo "usage: doctor.sh DOCTOR [MOCKCUDA]" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
DOCTOR=$(readlink -f "$1")
MOCKCUDA=${2:+$(readlink -f "$2")}
mh_require
command -v tc >/dev/null || { echo "SKIP: no tc (iproute2)"; exit 77; }
# What every host's profile sets; the mock driver (only where a step points
# CHORUS_CUDA_LIBRARY at it) copies at 0.1 GB/s on h2, 50-120x below the others.
MH_SITE_ENV="UCX_NET_DEVICES=veth0 MOCKCUDA_COPY_GBS=0.1@h2" \
  mh_setup 4 "$(dirname "$DOCTOR")/.."  # the build stays visible in the hosts
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
# Every pretend host shares this machine's 2 cores, so the two pairs of a round
# and the waiting ranks compete for them: waiting ranks yield (on real hosts a
# pair has its cores to itself). The ranks on h0, started by mpirun itself, get
# the same UCX devices as the others (else h0 alone also lists tcp/lo, and the
# doctor rightly names it).
export CHORUS_PROGRESS=yield UCX_NET_DEVICES=veth0
# For the same reason a healthy link's bandwidth swings 2-4x from run to run
# here, so the threshold is 0.2 x the median (the default 0.5 is for real
# hosts; topo/links.h's arithmetic is tested at 0.5 in doctor_links); the
# rate-limited link is 50-80x slower than the others.
SLOW=0.2
O=$MH_SHARED
doctor() {  # OUTFILE ARGS...: chorus-doctor in h0; sets RC and SECS
  local out=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  mh_run h0 timeout -k 5 120 "$DOCTOR" "$@" >"$out" 2>&1 </dev/null
  RC=$?
  t1=$(date +%s.%N)
  SECS=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
}

note "a healthy cluster: 4 hosts, --quick, --json"
doctor "$O/ok" --quick --slow $SLOW --host h0,h1,h2,h3 --json "$O/ok.json"
(( RC == 0 )) || { fail "chorus-doctor on 4 healthy hosts exited $RC"; show "$O/ok"; }
expect_line "$O/ok" "^1\. nodes: 4 answered, 4 ranks .*: h0 \(1 rank\), h1 \(1 rank\), h2 \(1 rank\), h3 \(1 rank\)$" "every node answered"
for h in h0 h1 h2 h3; do
  expect_line "$O/ok" "^2\. node $h: Chorus [0-9.]+, UCX [0-9.]+ \(.*tcp/veth0.*\); [0-9]+ packages?, .*; GPU " "$h's software and hardware"
done
expect_line "$O/ok" "^3\. links: 6 pairs of 4 nodes in 3 rounds of disjoint pairs$" "links in 3 rounds"
for r in 1 2 3; do expect_line "$O/ok" "^   round $r: h[0-3]-h[0-3] .* GB/s; h[0-3]-h[0-3] .* GB/s$" "round $r measured two pairs at once"; done
for size in "8 B" "1 MiB" "16 MiB"; do
  expect_line "$O/ok" "^4\. allreduce $size host on 4 ranks: .* busbw; the model \([a-z_]+ on the measured links\)" "allreduce $size next to the model"
done
expect_line "$O/ok" "^4\. allreduce on device buffers: skipped" "device buffers skipped without a GPU"
expect_line "$O/ok" "^chorus-doctor: all checks passed \(4 nodes, 4 ranks" "the verdict"
grep -q "FAIL" "$O/ok" && { fail "a healthy cluster has findings"; show "$O/ok"; }
python3 - "$O/ok.json" <<'PY' || fail "the JSON report"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is True and r["findings"] == [], r["findings"]
assert [n["host"] for n in r["nodes"]] == ["h0", "h1", "h2", "h3"]
assert len(r["links"]) == 12 and all(l["bandwidth_gbs"] > 0 and l["latency_us"] > 0 for l in r["links"])
assert [a["bytes"] for a in r["allreduce"]] == [8, 1 << 20, 16 << 20] and all(a["correct"] for a in r["allreduce"])
PY
echo "   healthy: ${SECS} s"
expect_clean "the healthy run"

note "h2's link rate-limited (tbf 200mbit): h2 and its links are named, exit 1"
mh_run h2 tc qdisc add dev veth0 root tbf rate 200mbit burst 64kb latency 100ms
doctor "$O/slow" --quick --slow $SLOW --host h0,h1,h2,h3 --json "$O/slow.json"
mh_run h2 tc qdisc del dev veth0 root
(( RC == 1 )) || { fail "chorus-doctor with a slow h2 exited $RC, not 1"; show "$O/slow"; }
for other in h0 h1 h3; do
  pair=$(printf '%s\n' h2 $other | sort | paste -sd-)
  expect_line "$O/slow" "^   FAIL link $pair: bandwidth .* is below $SLOW x the median" "the link $pair is named"
done
expect_line "$O/slow" "^   FAIL node h2: its links' median bandwidth .* is below $SLOW x the nodes' median" "h2 is named"
grep -Eq "FAIL (link h[013]-h[013]|node h[013])" "$O/slow" && { fail "a healthy host or link was named"; show "$O/slow"; }
expect_line "$O/slow" "^chorus-doctor: [0-9]+ problem\(s\) found: .*node h2" "the verdict names h2"
python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert not r["ok"] and any(f["node"]=="h2" for f in r["findings"])' \
  "$O/slow.json" || fail "the JSON report names h2"
echo "   slow h2: ${SECS} s"

if [[ -n $MOCKCUDA ]]; then
  note "h2's GPU copies slow (the mock driver on every host): h2 is named for each, exit 1"
  CHORUS_CUDA_LIBRARY=$MOCKCUDA doctor "$O/gpu" --quick --slow $SLOW --host h0,h1,h2,h3 --json "$O/gpu.json"
  (( RC == 1 )) || { fail "chorus-doctor with h2's GPU copies slow exited $RC, not 1"; show "$O/gpu"; }
  for what in "pinned host to device" "device to host" "device to device"; do
    expect_line "$O/gpu" "^   FAIL node h2: $what copy bandwidth .* is below $SLOW x the nodes' median" "h2's $what copies are named"
  done
  grep -Eq "FAIL (node h[013]|link|gpu)" "$O/gpu" && { fail "a healthy host, a link or a GPU error was named"; show "$O/gpu"; }
  for size in "8 B" "1 MiB" "16 MiB"; do
    expect_line "$O/gpu" "^4\. allreduce $size device on 4 ranks: .* busbw" "allreduce of $size on device buffers across hosts"
  done
  python3 - "$O/gpu.json" <<'PY' || fail "the JSON report of h2's GPU copies"
import json, sys
r = json.load(open(sys.argv[1]))
copies = {n["host"]: n["gpu_copy_gbs"] for n in r["nodes"]}
for k in ("h2d", "d2h", "d2d"):
    assert copies["h2"][k] < 0.2, copies
    assert all(copies[h][k] > 0.5 for h in ("h0", "h1", "h3")), copies
assert all(a["correct"] for a in r["allreduce"]) and len(r["allreduce"]) == 6, r["allreduce"]
assert not r["ok"] and all(f["node"] == "h2" for f in r["findings"]), r["findings"]
PY
  expect_clean "the run with h2's GPU copies slow"
else
  echo "   (no mock CUDA driver: the GPU copy step is not run)"
fi

note "a host that cannot start a rank is named, exit 1"
doctor "$O/gone" --quick --host h0,h1,nosuchhost
(( RC == 1 )) || { fail "chorus-doctor with an unreachable host exited $RC, not 1"; show "$O/gone"; }
expect_line "$O/gone" "^   FAIL node nosuchhost: it did not start a rank or did not answer: .*no such host" "the host is named with the cause"
expect_line "$O/gone" "^chorus-doctor: 1 problem\(s\) found: node nosuchhost failed$" "the verdict"
expect_clean "the run with an unreachable host"

note "mpirun --doctor is the same check (2 hosts)"
mh_run h0 timeout -k 5 60 "$(dirname "$DOCTOR")/mpirun" --doctor --quick --slow $SLOW --host h0,h1 >"$O/mpirun" 2>&1 </dev/null
RC=$?
(( RC == 0 )) || { fail "mpirun --doctor exited $RC"; show "$O/mpirun"; }
expect_line "$O/mpirun" "^3\. links: 1 pair of 2 nodes in 1 round of disjoint pairs$" "one link between two nodes"
expect_line "$O/mpirun" "^chorus-doctor: all checks passed \(2 nodes, 2 ranks" "the verdict"

note "bad options: exit 2"
doctor "$O/bad" --slow 7
(( RC == 2 )) || { fail "--slow 7 exited $RC, not 2"; show "$O/bad"; }
expect_line "$O/bad" "chorus-doctor: --slow 7: must be a fraction between 0 and 1" "the bad value is named"

(( FAILED == 0 )) && echo "PASS: chorus-doctor passes a healthy 4-host cluster, names a rate-limited host and its links, a host with slow GPU copies, and an unreachable host"
exit "$FAILED"
