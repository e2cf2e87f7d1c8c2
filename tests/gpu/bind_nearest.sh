#!/bin/bash
# CHORUS_GPU_BIND=auto picks the GPU nearest to the rank's CPUs when hwloc knows
# where the GPUs sit, else local rank modulo the devices. The machine here is
# described to hwloc by an XML topology (two packages, one CPU each, matching
# this machine's CPUs 0 and 1, and a GPU on the PCI bus of each: 01:00.0 near
# CPU 0, 02:00.0 near CPU 1), and the CUDA driver is the mock with two devices
# on buses 1 and 2. A single rank (local rank 0) bound to CPU 1 must take
# device 1, where local rank modulo devices would give device 0; bound to CPU 0
# it keeps device 0, which is near it.
# usage: bind_nearest.sh CHORUSRUN PROGRAM MOCKCUDA_LIBRARY
set -u
CHORUSRUN=$1 PROG=$2
export CHORUS_CUDA_LIBRARY=$3 MOCKCUDA_DEVICES=2 CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=GPU
[ "$(nproc)" -ge 2 ] || { echo "SKIP: needs 2 CPUs"; exit 77; }
T=$(mktemp -d "${TMPDIR:-/tmp}/chorus-gpu-bind.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILED=0
fail() { echo "FAIL: $*" >&2; FAILED=1; }

# One package per CPU, each with a 3D controller (PCI class 0302) of NVIDIA's.
{
  echo '<?xml version="1.0" encoding="UTF-8"?>'
  echo '<!DOCTYPE topology SYSTEM "hwloc2.dtd">'
  echo '<topology version="2.0">'
  echo ' <object type="Machine" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" allowed_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" allowed_nodeset="0x00000001" gp_index="1">'
  echo '  <object type="NUMANode" os_index="0" cpuset="0x00000003" complete_cpuset="0x00000003" nodeset="0x00000001" complete_nodeset="0x00000001" gp_index="2" local_memory="1073741824"/>'
  for p in 0 1; do
    mask=$(printf '0x%08x' $((1 << p)))
    echo "  <object type=\"Package\" os_index=\"$p\" cpuset=\"$mask\" complete_cpuset=\"$mask\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"$((10 + p))\">"
    echo "   <object type=\"Core\" os_index=\"$p\" cpuset=\"$mask\" complete_cpuset=\"$mask\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"$((20 + p))\">"
    echo "    <object type=\"PU\" os_index=\"$p\" cpuset=\"$mask\" complete_cpuset=\"$mask\" nodeset=\"0x00000001\" complete_nodeset=\"0x00000001\" gp_index=\"$((30 + p))\"/>"
    echo "   </object>"
    echo "   <object type=\"PCIDev\" gp_index=\"$((40 + p))\" pci_busid=\"0000:0$((p + 1)):00.0\" pci_type=\"0302 [10de:2330] [10de:16c1] a1\" pci_link_speed=\"0.000000\"/>"
    echo "  </object>"
  done
  echo ' </object>'
  echo '</topology>'
} >"$T/topo.xml"
# hwloc reads the file as this machine's topology (HWLOC_THISSYSTEM: bindings are real).
export HWLOC_XMLFILE=$T/topo.xml HWLOC_THISSYSTEM=1

run() {  # WHAT CPU|none WANT-DEVICE WANT-REASON
  local out=$T/out
  if [ "$2" = none ]; then
    "$CHORUSRUN" -n 1 --bind-to none "$PROG" >"$out" 2>&1
  else
    taskset -c "$2" "$CHORUSRUN" -n 1 "$PROG" >"$out" 2>&1
  fi
  local rc=$?
  [ $rc -eq 0 ] || { fail "$1: exit $rc"; sed 's/^/   | /' "$out" >&2; return; }
  grep -Eq "INFO GPU local rank 0/1 uses device $3 of 2 .*$4" "$out" ||
    { fail "$1: expected device $3 ($4)"; grep "INFO GPU" "$out" | sed 's/^/   | /' >&2; }
}
run "bound to CPU 1" 1 1 "nearest to this rank's CPUs 1 \(hwloc\), of devices 1"
run "bound to CPU 0" 0 0 "local rank modulo device count, near this rank's CPUs 0"
run "unbound" none 0 "local rank modulo device count"
[ $FAILED -eq 0 ] && echo "PASS: the GPU nearest to the rank's binding, else local rank modulo devices"
exit $FAILED
