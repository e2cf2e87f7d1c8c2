#!/bin/sh
# shm_full.sh CHORUSRUN NP PROGRAM [ARG]: runs the job in a mount namespace of its own
# with a 96 MiB tmpfs on /dev/shm (the program fills it after MPI_Init). Exit 77
# (a SKIP) where this user may not make one.
run=$1 np=$2 prog=$3 arg=${4:-}
if ! unshare -m --propagation private true 2>/dev/null; then
  echo "SKIP: no mount namespace here (unshare -m needs CAP_SYS_ADMIN)"
  exit 77
fi
exec unshare -m --propagation private sh -c \
  'mount -t tmpfs -o size=96m tmpfs /dev/shm && exec "$0" -n "$1" --timeout 120 "$2" $3' "$run" "$np" "$prog" "$arg"
