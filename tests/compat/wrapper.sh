#!/usr/bin/env bash
# The mpicc/mpicxx wrappers.
#   wrapper.sh show <build root> <source root>   flags only (needs no libmpi)
#   wrapper.sh full <build root> <source root>   also compile, link, run, install
set -u
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
(( $# == 3 )) || fail "usage: wrapper.sh show|full <build root> <source root>"
mode=$1 build=$(cd "$2" && pwd) src=$(cd "$3" && pwd)
mpicc=$build/bin/mpicc mpicxx=$build/bin/mpicxx
inc=$src/include lib=$build/lib
make_tmp

expect_has() { # WHAT OUTPUT WORD...
  local what=$1 out=$2 w; shift 2
  for w in "$@"; do
    [[ " $out " == *" $w "* ]] || fail "$what: '$out' lacks '$w'"
  done
}
expect_lacks() {
  local what=$1 out=$2 w; shift 2
  for w in "$@"; do
    [[ " $out " != *" $w "* ]] || fail "$what: '$out' should not hold '$w'"
  done
}

# --- flags ---------------------------------------------------------------------------
for w in "$mpicc" "$mpicxx"; do [[ -x "$w" ]] || fail "$w is missing or not executable"; done
out=$("$mpicc" -show -O2 a.c -o a) || fail "mpicc -show failed"
note "mpicc -show -O2 a.c -o a: $out"
expect_has "mpicc -show" "$out" "-I$inc" "-L$lib" "-Wl,-rpath,$lib" "-lmpi" "-O2" "a.c"
[[ "$out" == *"a.c -o a -L$lib"* ]] || fail "mpicc -show: user arguments must come before the link flags: $out"
out=$("$mpicc" -show -c a.c) || fail "mpicc -show -c failed"
expect_has "mpicc -show -c" "$out" "-I$inc" "-c"
expect_lacks "mpicc -show -c (compile only)" "$out" "-lmpi" "-L$lib"
for flag in -E -S -M -MM; do
  out=$("$mpicc" -show "$flag" a.c)
  expect_lacks "mpicc -show $flag" "$out" "-lmpi"
done
out=$("$mpicc" --showme:compile); expect_has "--showme:compile" "$out" "-I$inc"
expect_lacks "--showme:compile" "$out" "-lmpi"
out=$("$mpicc" --showme:link); expect_has "--showme:link" "$out" "-L$lib" "-Wl,-rpath,$lib" "-lmpi"
expect_lacks "--showme:link" "$out" "-I$inc"
[[ $("$mpicc" --showme:incdirs) == "$inc" ]] || fail "--showme:incdirs is not $inc"
[[ $("$mpicc" --showme:libdirs) == "$lib" ]] || fail "--showme:libdirs is not $lib"
[[ $("$mpicc" --showme:version) == *Chorus* ]] || fail "--showme:version does not name Chorus"
[[ $("$mpicxx" --showme:version) == *"C++"* ]] || fail "mpicxx --showme:version does not say C++"
"$mpicc" --showme:bogus >/dev/null 2>&1 && fail "an unknown --showme: option must fail"
# The compiler: default, CHORUS_CC / CHORUS_CXX, MPICH's -cc= / -cxx=.
out=$(CHORUS_CC=my-cc "$mpicc" -show a.c); [[ "$out" == "my-cc "* ]] || fail "CHORUS_CC ignored: $out"
out=$("$mpicc" -cc=other-cc -show a.c); [[ "$out" == "other-cc "* ]] || fail "-cc= ignored: $out"
out=$(CHORUS_CXX=my-cxx "$mpicxx" -show a.cc); [[ "$out" == "my-cxx "* ]] || fail "CHORUS_CXX ignored: $out"
out=$("$mpicxx" -cxx=other-cxx -show a.cc); [[ "$out" == "other-cxx "* ]] || fail "-cxx= ignored: $out"
# FindMPI sets MPICH_CC to CMake's compiler while it asks; that must not change anything.
[[ $(MPICH_CC=zzz "$mpicc" -show a.c) != zzz* ]] || fail "MPICH_CC must not choose the compiler"
# Arguments with spaces survive.
printf '#!/bin/sh\nprintf "[%%s]\\n" "$@"\n' >"$tmp/argv" && chmod +x "$tmp/argv"
out=$(CHORUS_CC="$tmp/argv" "$mpicc" '-DX=a b' -c x.c)
grep -qxF '[-DX=a b]' <<<"$out" || fail "an argument with a space was split: $out"
echo "PASS: wrapper flags (-show, -c, --showme:*, compiler overrides)"
[[ "$mode" == show ]] && exit 0

# --- compile, link, run from the build tree ----------------------------------------------
[[ -e "$lib/libmpi.so" ]] || fail "$lib/libmpi.so is missing"
mpirun=$(chorus_mpirun "$build") || exit 1
note "mpicc hello.c; mpicxx hello_cxx.cc"
run_logged "$tmp/cc.log" "$mpicc" -Wall -o "$tmp/hello" "$src/tests/compat/hello.c" || fail "mpicc failed"
run_logged "$tmp/cxx.log" "$mpicxx" -Wall -o "$tmp/hello_cxx" "$src/tests/compat/hello_cxx.cc" || fail "mpicxx failed"
# Two steps: compile only, then link.
run_logged "$tmp/c2.log" "$mpicc" -c -o "$tmp/hello.o" "$src/tests/compat/hello.c" || fail "mpicc -c failed"
run_logged "$tmp/l2.log" "$mpicc" -o "$tmp/hello2" "$tmp/hello.o" || fail "mpicc link of an object failed"
readelf -d "$tmp/hello" | grep -E 'R(UN)?PATH' | grep -qF "$lib" || fail "no rpath to $lib in the program"
env -u LD_LIBRARY_PATH ldd "$tmp/hello" | grep -qF "$lib/libmpi.so" || fail "ldd: the program does not load $lib/libmpi.so"
run_logged "$tmp/run1.log" env -u LD_LIBRARY_PATH "$tmp/hello2" || fail "the program did not run as a singleton"
check_hello "$tmp/run1.log" 1
run_logged "$tmp/run2.log" env -u LD_LIBRARY_PATH "$mpirun" -n 2 "$tmp/hello" || fail "mpirun -n 2 hello failed"
check_hello "$tmp/run2.log" 2
run_logged "$tmp/run3.log" "$mpirun" -n 2 "$tmp/hello_cxx" || fail "mpirun -n 2 hello_cxx failed"
[[ $(grep -c '^c++ rank=[01] size=2 ok$' "$tmp/run3.log") == 2 ]] || fail "hello_cxx output is wrong"
echo "PASS: build-tree mpicc/mpicxx compile, link (rpath) and run"

# --- an installed tree: meson install --destdir ---------------------------------------------
need_tool meson pkg-config
dest=$tmp/dest
note "meson install --destdir $dest"
run_logged "$tmp/install.log" meson install -C "$build" --no-rebuild --destdir "$dest" \
  || fail "meson install failed"
imcc=$(find "$dest" -path '*/bin/mpicc' | head -n 1)
[[ -n "$imcc" && -x "$imcc" ]] || fail "no installed bin/mpicc"
ilib=$(dirname "$(find "$dest" -name 'libmpi.so.12' | head -n 1)")
iinc=$(dirname "$(find "$dest" -name mpi.h | head -n 1)")
note "installed mpicc -show: $("$imcc" -show x.c)"
# The installed wrapper points at the prefix; moved by --destdir, it follows its tree.
expect_has "installed mpicc -show" "$("$imcc" -show x.c)" "-I$iinc" "-L$ilib" "-Wl,-rpath,$ilib" "-lmpi"
run_logged "$tmp/icc.log" "$imcc" -o "$tmp/ihello" "$src/tests/compat/hello.c" || fail "installed mpicc failed"
env -u LD_LIBRARY_PATH ldd "$tmp/ihello" | grep -qF "$ilib/libmpi.so" || fail "the program does not load the installed libmpi"
run_logged "$tmp/irun.log" env -u LD_LIBRARY_PATH "$tmp/ihello" || fail "the installed-mpicc program did not run"
check_hello "$tmp/irun.log" 1
"$(dirname "$imcc")/mpicxx" --showme:version | grep -q 'C++' || fail "installed mpicxx is missing"
# pkg-config: chorus.pc names its prefix relative to itself (${pcfiledir}), so the
# tree --destdir moved, and the same tree moved again, need no PKG_CONFIG_SYSROOT_DIR.
pc_check() {  # pc_check ROOT: chorus.pc under ROOT gives ROOT's include and lib dirs
  local root=$1 pc flags inc lib
  pc=$(find "$root" -name chorus.pc | head -n 1)
  [[ -n "$pc" ]] || fail "chorus.pc is not installed"
  flags=$(PKG_CONFIG_PATH="$(dirname "$pc")" pkg-config --cflags --libs chorus) \
    || fail "pkg-config --cflags --libs chorus failed"
  note "pkg-config --cflags --libs chorus ($root): $flags"
  inc=$(sed -n 's/.*-I\([^ ]*\).*/\1/p' <<<"$flags")
  lib=$(sed -n 's/.*-L\([^ ]*\).*/\1/p' <<<"$flags")
  [[ -n "$inc" && "$(realpath -m "$inc")" == "$(realpath -m "$(dirname "$(find "$root" -name mpi.h | head -n 1)")")" ]] \
    || fail "chorus.pc in $root: -I$inc is not the tree's include directory"
  [[ -n "$lib" && "$(realpath -m "$lib")" == "$(realpath -m "$(dirname "$(find "$root" -name 'libmpi.so.12' | head -n 1)")")" ]] \
    || fail "chorus.pc in $root: -L$lib is not the tree's library directory"
  expect_has "pkg-config" "$flags" "-lmpi"
  run_logged "$tmp/pc.log" cc -o "$tmp/pchello" "$src/tests/compat/hello.c" $flags || fail "building with pkg-config flags failed"
  run_logged "$tmp/pcrun.log" env LD_LIBRARY_PATH="$lib" "$tmp/pchello" || fail "the pkg-config-built program did not run"
}
pc_check "$dest"
mv "$dest" "$tmp/moved"
pc_check "$tmp/moved"
echo "PASS: installed mpicc/mpicxx and chorus.pc work"
