#!/bin/bash
# Two jobs meet through a port: `mpirun -n A dynamic server FILE` opens a port and
# writes its name to FILE, `mpirun -n B dynamic client FILE` connects to it. The
# processes of each job are then processes of another job to the other: point-to-
# point, collectives, MPI_Intercomm_merge and MPI_Intercomm_create across them.
# Jobs of different sizes on 2 cores choose different UCX settings for large
# messages (CHORUS_SHM_PROTOCOL=auto); they must connect with one chosen for both,
# and without it both sides fail with a message that says so.
# usage: connect.sh CHORUSRUN PROGRAM
set -u
RUN=$(readlink -f "$1")
PROG=$(readlink -f "$2")
T=$(mktemp -d "${TMPDIR:-/tmp}/chorus-connect.XXXXXX")
trap 'rm -rf "$T"' EXIT
FAILED=0
for sizes in "1 1 auto" "2 3 cma" "3 2 cma" "2 2 copy"; do
  set -- $sizes
  export CHORUS_SHM_PROTOCOL=$3
  rm -f "$T/port"
  "$RUN" -n "$1" --timeout 60 "$PROG" server "$T/port" >"$T/server" 2>&1 &
  server=$!
  "$RUN" -n "$2" --timeout 60 "$PROG" client "$T/port" >"$T/client" 2>&1
  crc=$?
  wait "$server"
  src=$?
  if [[ $src -ne 0 || $crc -ne 0 ]] || ! grep -q "PASSED server" "$T/server" || ! grep -q "PASSED client" "$T/client"; then
    echo "FAIL: server of $1 and client of $2 ranks (exit $src and $crc)" >&2
    sed 's/^/  server: /' "$T/server" >&2
    sed 's/^/  client: /' "$T/client" >&2
    FAILED=1
  else
    echo "ok: server of $1, client of $2 ranks (CHORUS_SHM_PROTOCOL=$3)"
  fi
done

# Different choices: refused on both sides, naming the setting, no hang.
rm -f "$T/port"
CHORUS_SHM_PROTOCOL=copy "$RUN" -n 2 --timeout 60 "$PROG" server "$T/port" >"$T/server" 2>&1 &
server=$!
CHORUS_SHM_PROTOCOL=cma "$RUN" -n 2 --timeout 60 "$PROG" client "$T/port" >"$T/client" 2>&1
crc=$?
wait "$server"
src=$?
if [[ $src -eq 0 || $crc -eq 0 ]] || ! grep -q "MPI_Comm_accept: the two jobs configured UCX differently.*CHORUS_SHM_PROTOCOL" "$T/server" ||
   ! grep -q "MPI_Comm_connect: the accepting side refused: the two jobs configured UCX differently" "$T/client"; then
  echo "FAIL: jobs with different UCX settings (exit $src and $crc)" >&2
  sed 's/^/  server: /' "$T/server" >&2
  sed 's/^/  client: /' "$T/client" >&2
  FAILED=1
else
  echo "ok: different UCX settings refused on both sides"
fi
exit $FAILED
