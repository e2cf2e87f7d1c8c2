#!/usr/bin/env bash
# A Chorus program started without any launcher is a world of size 1.
#   singleton.sh <hello>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 1 )) || fail "usage: singleton.sh <hello>"
hello=$1
make_tmp
# No launcher may leak in from the environment that runs the tests.
unset PMIX_RANK PMIX_NAMESPACE PMIX_SERVER_URI2 PMIX_SERVER_URI3 PMIX_SERVER_URI4 \
      PMIX_SERVER_URI21 PMIX_SERVER_URI41 PMI_FD PMI_RANK PMI_SIZE OMPI_COMM_WORLD_SIZE \
      SLURM_JOBID SLURM_STEP_ID 2>/dev/null || true
note "$hello (no launcher)"
run_logged "$tmp/out" "$hello" || fail "singleton run exited non-zero"
check_hello "$tmp/out" 1
echo "PASS: singleton is rank 0 of 1; self send/recv and ring of one work"
