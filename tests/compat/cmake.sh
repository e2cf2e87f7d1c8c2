#!/usr/bin/env bash
# CMake's FindMPI accepts Chorus's wrappers: configure, build and run a tiny project.
#   cmake.sh <build root> <source root>
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 2 )) || fail "usage: cmake.sh <build root> <source root>"
build=$(cd "$1" && pwd) src=$(cd "$2" && pwd)
need_tool cmake
mpirun=$(chorus_mpirun "$build") || exit 1
for f in "$build/bin/mpicc" "$build/bin/mpicxx"; do
  [[ -x "$f" ]] || fail "$f is missing (build the project first)"
done
make_tmp
compat=$src/tests/compat
note "cmake configure with MPI_C_COMPILER=$build/bin/mpicc"
COMPAT_TIMEOUT=50 run_logged "$tmp/configure.log" cmake -S "$compat/cmake" -B "$tmp/b" \
  -DMPI_C_COMPILER="$build/bin/mpicc" -DMPI_CXX_COMPILER="$build/bin/mpicxx" \
  -DHELLO_SRC="$compat/hello.c" -DHELLO_CXX_SRC="$compat/hello_cxx.cc" \
  || fail "cmake configure failed: find_package(MPI) did not accept the wrappers"

# FindMPI resolves paths with REALPATH, so compare against resolved paths.
incdir=$(readlink -f "$src/include") libdir=$(readlink -f "$build/lib")
value() { sed -n "s/^-- COMPAT $1=//p" "$tmp/configure.log"; }
[[ ";$(value MPI_C_INCLUDE_DIRS);" == *";$incdir;"* ]] \
  || fail "MPI_C_INCLUDE_DIRS is '$(value MPI_C_INCLUDE_DIRS)', expected it to hold $incdir"
[[ ";$(value MPI_CXX_INCLUDE_DIRS);" == *";$incdir;"* ]] \
  || fail "MPI_CXX_INCLUDE_DIRS is '$(value MPI_CXX_INCLUDE_DIRS)', expected it to hold $incdir"
[[ "$(value MPI_C_LIBRARIES)" == *"$libdir/libmpi.so"* ]] \
  || fail "MPI_C_LIBRARIES is '$(value MPI_C_LIBRARIES)', expected $libdir/libmpi.so"

[[ "$(value MPIEXEC_EXECUTABLE)" == "$build/bin/mpiexec" || ! -e "$build/bin/mpiexec" ]] \
  || note "note: FindMPI chose MPIEXEC_EXECUTABLE=$(value MPIEXEC_EXECUTABLE), not $build/bin/mpiexec"

note "cmake --build"
COMPAT_TIMEOUT=50 run_logged "$tmp/build.log" cmake --build "$tmp/b" || fail "cmake build failed"

note "$mpirun -n 2 hello (built by CMake)"
run_logged "$tmp/run.log" "$mpirun" -n 2 "$tmp/b/hello" || fail "mpirun -n 2 hello failed"
check_hello "$tmp/run.log" 2
run_logged "$tmp/runxx.log" "$mpirun" -n 2 "$tmp/b/hello_cxx" || fail "mpirun -n 2 hello_cxx failed"
[[ $(grep -c '^c++ rank=[01] size=2 ok$' "$tmp/runxx.log") == 2 ]] || fail "hello_cxx output is wrong"
echo "PASS: FindMPI found Chorus ($incdir, $libdir); the project built and ran on 2 ranks"
