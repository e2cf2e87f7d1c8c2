#!/bin/bash
# MPMD: `mpirun -n 2 a : -n 3 b` starts both programs in one MPI_COMM_WORLD (ranks
# in command-line order, MPI_APPNUM the program's index), each with its own
# arguments; ':' with nothing around it is a command-line error. Every rank also
# gets the rank variables wrapper scripts read (Open MPI's, PMI's, MPICH's names).
# usage: mpmd.sh CHORUSRUN PROGRAM
source "$(dirname "$0")/lib.sh"
PROG=$(readlink -f "$1")

run_cr -n 2 "$PROG" first : -n 3 "$PROG" second : "$PROG" third
expect_rc 0
for r in 0 1; do
  check "rank $r is program 0" grep -qx "mpmd rank $r of 6 appnum 0 total 6 arg first" "$OUT"
done
for r in 2 3 4; do
  check "rank $r is program 1" grep -qx "mpmd rank $r of 6 appnum 1 total 6 arg second" "$OUT"
done
check "rank 5 is program 2 (one rank by default)" grep -qx "mpmd rank 5 of 6 appnum 2 total 6 arg third" "$OUT"

# Plain programs: each context runs its own command with its own arguments.
run_cr -n 1 sh -c 'echo "a $PMIX_RANK"' : -n 2 sh -c 'echo "b $PMIX_RANK"'
expect_rc 0
check "plain MPMD (got: $(sort "$OUT" | tr '\n' ' '))" test "$(sort "$OUT" | tr '\n' ' ')" = "a 0 b 1 b 2 "

# Rank variables.
run_cr -n 3 sh -c 'echo "$OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE/$OMPI_COMM_WORLD_LOCAL_RANK/$OMPI_COMM_WORLD_LOCAL_SIZE/$OMPI_COMM_WORLD_NODE_RANK $PMI_RANK/$PMI_SIZE $MPI_LOCALRANKID/$MPI_LOCALNRANKS"'
expect_rc 0
for r in 0 1 2; do
  check "rank $r variables (got: $(sort "$OUT" | tr '\n' ' '))" grep -qx "$r/3/$r/3/$r $r/3 $r/3" "$OUT"
done

# Bad uses of ':': one line, exit 2, nothing started.
for args in "-n 2 $PROG :" ": $PROG" "-n 1 $PROG : : $PROG"; do
  # shellcheck disable=SC2086
  run_cr $args
  expect_rc 2
  check "'$args' names the problem" grep -q "':'" "$ERR"
done
finish
