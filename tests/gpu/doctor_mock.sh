#!/bin/bash
# chorus-doctor's GPU checks with the mock CUDA driver (tests/mockcuda): the node's
# GPU line with its copy bandwidth, and allreduce on device buffers, checked, at
# every size, next to host buffers; then a GPU whose 16 MiB copies fail
# (MOCKCUDA_FAIL_COPY_BYTES): the node is named with the failed copy and the
# exit status is 1. (Without a driver the device rows say skipped:
# launcher_doctor; multihost_doctor names a node whose GPU copies are slow.)
# usage: doctor_mock.sh DOCTOR MOCKCUDA_LIBRARY
set -u
DOCTOR=$1
export CHORUS_CUDA_LIBRARY=$2
OUT=$(mktemp "${TMPDIR:-/tmp}/chorus-doctor-mock.XXXXXX")
trap 'rm -f "$OUT"' EXIT
FAILED=0
fail() { echo "FAIL: $*" >&2; FAILED=1; }
has() { grep -Eq "$1" "$OUT" || fail "$2: no line matching '$1'"; }
timeout 120 "$DOCTOR" --quick --ranks-per-node 2 >"$OUT" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "chorus-doctor with the mock driver exited $rc"
has "^2\. node .*; GPU Mock GPU \(sm_[0-9]+, [0-9]+ SMs, 16\.0 GiB, .*\), driver [0-9.]+, .* \([0-9]+ on PCI, 1 seen by CUDA\); pinned host to device [0-9.]+ GB/s, device to host [0-9.]+ GB/s, device to device [0-9.]+ GB/s$" \
  "the GPU, its memory, the devices CUDA sees and its copy bandwidth"
for size in "8 B" "1 MiB" "16 MiB"; do
  has "^4\. allreduce $size device on 2 ranks: .* busbw" "allreduce of $size on device buffers"
done
has "^chorus-doctor: all checks passed \(1 nodes, 2 ranks" "the verdict (device results checked)"
[ $FAILED -eq 0 ] || sed 's/^/   | /' "$OUT" >&2

F=$FAILED
MOCKCUDA_FAIL_COPY_BYTES=$((16 << 20)) timeout 120 "$DOCTOR" --quick --ranks-per-node 2 >"$OUT" 2>&1
rc=$?
[ $rc -eq 1 ] || fail "chorus-doctor with failing GPU copies exited $rc, not 1"
has "^   FAIL gpu [^ ]+: pinned host to device copy failed: cuMemcpy[A-Za-z]*: CUDA_ERROR_INVALID_VALUE" \
  "the node whose GPU copies fail, named with the error"
has "^chorus-doctor: [0-9]+ problem\(s\) found: gpu " "the verdict names the GPU"
[ $FAILED -eq $F ] || sed 's/^/   | /' "$OUT" >&2
[ $FAILED -eq 0 ] && echo "PASS: chorus-doctor's GPU checks with the mock driver, and a node whose GPU copies fail"
exit $FAILED
