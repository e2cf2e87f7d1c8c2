#!/usr/bin/env bash
# One-sided communication across pretend hosts: test_rma's cases (every window
# flavor and synchronization mode) at 2 x 2 and 1+2+3 ranks per host, and
# rma_rdma.c, which checks that puts and gets to ranks of other nodes went through
# UCX's remote memory access (MPI_T counter rma_rdma_ops), the data right. The
# hosts' network is TCP, where CHORUS_RMA_RDMA=auto sends messages (and says so
# at INFO): both test programs run with it on, and rma_rdma.c also with auto and
# off, where it wants no transfer through UCX.
#   rma.sh CHORUSRUN TEST_RMA RMA_RDMA
set -u
(( $# == 3 )) || { echo "usage: rma.sh CHORUSRUN TEST_RMA RMA_RDMA" >&2; exit 2; }
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
CHORUSRUN=$(readlink -f "$1") RMA=$(readlink -f "$2") RDMA=$(readlink -f "$3")
mh_require
mh_setup 3 "$(dirname "$CHORUSRUN")/.."  # the build stays visible in the hosts (their /tmp is private)
export CHORUS_LAUNCH_AGENT=$MH_AGENT CHORUS_KILL_GRACE=1
export CHORUS_RMA_RDMA=on
for layout in h0:2,h1:2 h0:1,h1:2,h2:3; do
  n=$(( $(tr ',' '\n' <<<"$layout" | cut -d: -f2 | paste -sd+) ))
  note "test_rma at $layout"
  MH_JOB_TIMEOUT=240 mh_job "$MH_SHARED/rma" --host "$layout" -n "$n" "$RMA" --order decl --rng-seed 1
  (( RC == 0 )) || { fail "test_rma at $layout exited $RC"; grep -m5 "FAILED\|MPI_ERR\|REQUIRE" "$MH_SHARED/rma"; }
  note "rma_rdma at $layout"
  MH_JOB_TIMEOUT=120 mh_job "$MH_SHARED/rdma" --host "$layout" -n "$n" "$RDMA" rdma
  (( RC == 0 )) && grep -q "^No Errors" "$MH_SHARED/rdma" || { fail "rma_rdma at $layout exited $RC"; show "$MH_SHARED/rdma"; }
  expect_clean "rma at $layout"
done
for mode in auto off; do
  note "rma_rdma at h0:2,h1:2 with CHORUS_RMA_RDMA=$mode: every operation a message over TCP"
  CHORUS_RMA_RDMA=$mode CHORUS_DEBUG=INFO CHORUS_DEBUG_SUBSYS=RMA MH_JOB_TIMEOUT=120 \
    mh_job "$MH_SHARED/msgs-$mode" --host h0:2,h1:2 -n 4 "$RDMA" messages
  (( RC == 0 )) && grep -q "^No Errors" "$MH_SHARED/msgs-$mode" ||
    { fail "rma_rdma with CHORUS_RMA_RDMA=$mode exited $RC"; show "$MH_SHARED/msgs-$mode"; }
done
# auto says why (rank 0: ranks 2 and 3 are on h1).
expect_line "$MH_SHARED/msgs-auto" "INFO RMA MPI_Win_allocate: puts and gets from rank 0 to 2 rank\\(s\\) of other nodes go as messages: UCX's remote memory lanes to them \\(tcp/veth0\\) are TCP's" \
  "CHORUS_RMA_RDMA=auto explains its choice"
(( FAILED == 0 )) && echo "PASS: test_rma at 2 x 2 and 1+2+3 ranks per host; puts and gets to other nodes through UCX's remote memory access, and as messages with CHORUS_RMA_RDMA=auto over TCP and =off"
exit "$FAILED"
