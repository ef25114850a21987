#!/usr/bin/env bash
# The package check (`make package-check`, part of `make test`): slaw used the ways a project outside its
# tree uses it. In a temporary directory:
#   1. for each compiler (CXX_GCC, CXX_CLANG) and each library kind (static, shared): build the library
#      alone (tests, examples, benchmarks off), `cmake --install` it into a prefix, and build and run the
#      consumer (tests/package/consumer) through find_package(slaw) and through a plain compiler command
#      line from `pkg-config --cflags --libs slaw`. A shared library must export what include/slaw
#      declares with SLAW_EXPORT and nothing else (nm -D), and its consumers must load it (readelf, ldd).
#      Then, against the GCC static library: code built by clang runs, and a task passed between a GCC
#      and a clang translation unit fails to link (the task's ABI differs, include/slaw/detail/codegen.hpp).
#   2. slaw as a subproject (add_subdirectory, and FetchContent from this tree): only the library is
#      configured (tests/package/subproject checks it), the consumer runs, and nothing of slaw installs.
#   3. the Debian package (cpack -G DEB of the GCC static build, prefix /usr): its name, fields and
#      contents; as root it is installed with dpkg -i and removed again at the end, otherwise (or when a
#      slaw package is installed already) it is extracted with dpkg-deb -x; the consumer is built
#      against it both ways.
#   4. every way a user builds while developing, against the static library of each compiler: CMake build
#      types (none, Debug, RelWithDebInfo, Release, MinSizeRel), plain command lines at -O0/-Og/-O1/-O2/-O3
#      with pkg-config's flags and one at -O1 without them, and -fsanitize=address,undefined; each consumer
#      runs chains of 10^6 nested spawns and calls (the symmetric transfer: include/slaw/detail/transfer.hpp).
#   5. ThreadSanitizer: slaw built and installed with -DSLAW_SANITIZE=thread, a consumer built against it
#      through find_package and pkg-config runs with no report; a TSan consumer of the ordinary library is
#      refused at compile time with a message that says why.
#   6. the installed commands slaw-top, slaw-sim and slaw-trace run from the prefix.
# Any failure stops the script with a non-zero status, naming the step and printing the end of its log.
# Environment: CXX_GCC (g++), CXX_CLANG (clang++-19), JOBS (nproc).
set -euo pipefail

SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
CXX_GCC=${CXX_GCC:-g++}
CXX_CLANG=${CXX_CLANG:-clang++-19}
JOBS=${JOBS:-$(nproc)}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/slaw-package-check.XXXXXX")
LOG=$WORK/step.log
CONSUMER=$SRC/tests/package/consumer
step_name="setting up"
deb_installed=0

on_exit() {
  local rc=$?
  if ((deb_installed)); then
    dpkg -r slaw >/dev/null 2>&1 || { echo "package-check: could not remove the slaw package: run dpkg -r slaw" >&2; rc=1; }
  fi
  if ((rc != 0)); then
    echo "package-check: FAILED at: $step_name" >&2
    if [[ -s $LOG ]]; then
      echo "---- end of its output ($LOG) ----" >&2
      tail -n 40 "$LOG" >&2
      echo "----" >&2
    fi
    echo "package-check: work directory kept: $WORK" >&2
  else
    rm -rf "$WORK"
  fi
  exit "$rc"
}
trap on_exit EXIT

step() {
  step_name=$*
  : >"$LOG"
  echo "package-check: $*"
}
run() { "$@" >>"$LOG" 2>&1; }
fail() {
  echo "$*" >>"$LOG"
  echo "package-check: $*" >&2
  exit 1
}

step "tools"
for tool in cmake cpack ninja pkg-config nm readelf ldd dpkg-deb dpkg-shlibdeps file "$CXX_GCC" "$CXX_CLANG"; do
  command -v "$tool" >/dev/null || fail "'$tool' is not installed (make deps installs what this check needs)"
done
MULTIARCH=$("$CXX_GCC" -print-multiarch)

# build_slaw DIR CXX [cmake options]: the library alone, Release.
build_slaw() {
  local dir=$1 cxx=$2
  shift 2
  run cmake -S "$SRC" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$cxx" \
    -DSLAW_BUILD_TESTS=OFF -DSLAW_BUILD_EXAMPLES=OFF -DSLAW_BUILD_BENCH=OFF "$@"
  run cmake --build "$dir" -j "$JOBS"
}

# run_consumer EXE: it must pass its own checks.
run_consumer() {
  run "$1" || fail "$1 failed (exit status $?)"
  grep -q "consumer: all checks passed" "$LOG" || fail "$1 did not report its checks as passed"
}

# consumer_cmake DIR CXX PREFIX EXPECTED_CONFIG_DIR [BUILD_TYPE]: configure, build and run the consumer
# through find_package, with CMAKE_PREFIX_PATH=PREFIX (empty: the system's paths only); slaw must be
# found in EXPECTED_CONFIG_DIR. BUILD_TYPE: CMAKE_BUILD_TYPE (default Release; "none": left unset).
consumer_cmake() {
  local dir=$1 cxx=$2 prefix=$3 expected=$4 build_type=${5:-Release}
  [[ $build_type == none ]] && build_type=""
  run cmake -S "$CONSUMER" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE="$build_type" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF
  local found
  found=$(sed -n 's/^slaw_DIR:PATH=//p' "$dir/CMakeCache.txt")
  [[ $(realpath -m "$found") == $(realpath -m "$expected") ]] || fail "find_package found slaw in '$found', expected '$expected'"
  run cmake --build "$dir"
  run_consumer "$dir/consumer"
}

# consumer_pkgconfig EXE CXX PC_DIR EXPECTED_PREFIX: compile the consumer with one plain command line
# from `pkg-config --cflags --libs slaw`, with PKG_CONFIG_PATH=PC_DIR (empty: the system's), and run it.
consumer_pkgconfig() {
  local exe=$1 cxx=$2 pcdir=$3 expected=$4 flags prefix libdir
  flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs slaw) || fail "pkg-config does not find slaw (PKG_CONFIG_PATH='$pcdir')"
  prefix=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=prefix slaw)
  libdir=$(PKG_CONFIG_PATH=$pcdir pkg-config --variable=libdir slaw)
  [[ $(realpath -m "$prefix") == $(realpath -m "$expected") ]] || fail "slaw.pc's prefix is '$prefix', expected '$expected'"
  echo "$cxx -O2 $CONSUMER/main.cpp $flags" >>"$LOG"
  # shellcheck disable=SC2086  # the flags are words
  run "$cxx" -O2 -Wall -Wextra -Werror "$CONSUMER/main.cpp" $flags -Wl,-rpath,"$libdir" -o "$exe"
  run_consumer "$exe"
}

# check_exports LIB NM_OPTIONS: every symbol of namespace slaw that LIB exports belongs to a declaration of
# include/slaw marked SLAW_EXPORT (a class's members count as the class's), and no other exported symbol
# names a slaw type. Prints how many symbols were checked.
exported_names=$(sed -nE -e 's/.*(class|struct) SLAW_EXPORT ([A-Za-z_][A-Za-z0-9_]*).*/\2/p' \
  -e 's/.*SLAW_EXPORT [^;{(]*[^A-Za-z0-9_]([A-Za-z_][A-Za-z0-9_]*) *[(;=].*/\1/p' \
  "$SRC"/include/slaw/*.hpp "$SRC"/include/slaw/detail/*.hpp | sort -u | tr '\n' ' ')
check_exports() {
  local lib=$1 nm_options=$2 symbols bad
  symbols=$(nm -C $nm_options "$lib" | sed -nE 's/^[0-9a-f]* *[A-Za-z] (.*)/\1/p' | sort -u)
  bad=$(printf '%s\n' "$symbols" | awk -v names="$exported_names" '
    BEGIN { n = split(names, a, " "); for (i = 1; i <= n; i++) ok[a[i]] = 1 }
    {
      s = $0
      sub(/^(typeinfo name for|typeinfo for|vtable for|VTT for|TLS init function for|TLS wrapper function for|guard variable for) /, "", s)
      if (s ~ /^slaw::/) {
        t = s; sub(/^slaw::((detail|policy)::)?/, "", t); match(t, /^[A-Za-z_][A-Za-z0-9_]*/)
        if (!(substr(t, RSTART, RLENGTH) in ok)) print
      } else if (s ~ /slaw::/) print
    }')
  if [[ -n $bad ]]; then
    printf '%s\n' "symbols exported by $lib without SLAW_EXPORT in include/slaw:" "$bad" >>"$LOG"
    return 1
  fi
  echo "$(printf '%s\n' "$symbols" | grep -c 'slaw::') symbols of slaw exported, all declared with SLAW_EXPORT" >>"$LOG"
}

# check_loads EXE LIB: EXE needs LIB's soname and the dynamic loader resolves it to LIB.
check_loads() {
  local exe=$1 lib=$2 soname resolved
  soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
  [[ -n $soname ]] || fail "$lib has no SONAME"
  readelf -d "$exe" | grep -q "(NEEDED).*\[$soname\]" || fail "$exe does not need $soname (readelf -d)"
  resolved=$(ldd "$exe" | sed -n "s/^[[:space:]]*$soname => \(.*\) (0x.*/\1/p")
  [[ -n $resolved && $(realpath "$resolved") == $(realpath "$lib") ]] ||
    fail "$exe loads $soname from '${resolved:-nowhere}', expected $lib (ldd)"
}

for cxx in "$CXX_GCC" "$CXX_CLANG"; do
  tag=$(basename "$cxx")
  for kind in static shared; do
    build=$WORK/build-$tag-$kind prefix=$WORK/prefix-$tag-$kind
    options=()
    if [[ $kind == shared ]]; then options+=(-DBUILD_SHARED_LIBS=ON); fi
    # The GCC static build is also the one packaged: configured for /usr, it installs to lib/<multiarch>.
    if [[ $cxx == "$CXX_GCC" && $kind == static ]]; then options+=(-DCMAKE_INSTALL_PREFIX=/usr); fi
    step "$tag $kind: build and install slaw into a temporary prefix"
    build_slaw "$build" "$cxx" "${options[@]}"
    run cmake --install "$build" --prefix "$prefix"
    pc=$(find "$prefix" -name slaw.pc)
    [[ -n $pc ]] || fail "no slaw.pc installed under $prefix"
    libdir=$(dirname "$(dirname "$pc")")
    for f in include/slaw/slaw.hpp include/slaw/export.hpp include/slaw/counters.def \
      include/slaw/detail/worker.hpp include/slaw/policy/adp.hpp; do
      [[ -f $prefix/$f ]] || fail "$f is not installed"
    done
    for f in cmake/slaw/slawConfig.cmake cmake/slaw/slawConfigVersion.cmake cmake/slaw/slawTargets.cmake; do
      [[ -f $libdir/$f ]] || fail "${libdir#"$prefix"/}/$f is not installed"
    done
    if [[ $kind == static ]]; then
      [[ -f $libdir/libslaw.a && ! -e $libdir/libslaw.so ]] || fail "a static build must install libslaw.a and no libslaw.so"
    else
      [[ -f $libdir/libslaw.so ]] || fail "a shared build must install libslaw.so"
      step "$tag shared: libslaw.so exports the public API only (nm -D)"
      check_exports "$libdir/libslaw.so" "-D --defined-only" || fail "libslaw.so exports more than include/slaw's SLAW_EXPORT declarations"
      # The check can fail: the static library, where nothing is hidden, has src/'s symbols.
      ! check_exports "$WORK/build-$tag-static/libslaw.a" "-g --defined-only" ||
        fail "the export check accepts the static library's internal symbols: it checks nothing"
    fi

    step "$tag $kind: consumer through find_package(slaw 0.1 CONFIG REQUIRED)"
    consumer_cmake "$WORK/consumer-$tag-$kind" "$cxx" "$prefix" "$libdir/cmake/slaw"
    if [[ $kind == shared ]]; then check_loads "$WORK/consumer-$tag-$kind/consumer" "$libdir/libslaw.so"; fi

    step "$tag $kind: consumer through pkg-config --cflags --libs slaw"
    consumer_pkgconfig "$WORK/pkgconfig-$tag-$kind" "$cxx" "$libdir/pkgconfig" "$prefix"
    if [[ $kind == shared ]]; then check_loads "$WORK/pkgconfig-$tag-$kind" "$libdir/libslaw.so"; fi
  done
done

# slaw::task is passed in a register under clang and through memory under GCC (include/slaw/detail/
# codegen.hpp). Against the GCC-built library: clang-built code runs (the library's interface holds no
# task); a task passed between a GCC and a clang translation unit fails to link, naming the ABI tag.
step "task ABI: clang code runs against the $(basename "$CXX_GCC") library; a task passed between compilers does not link"
pcdir=$(dirname "$(find "$WORK/prefix-$(basename "$CXX_GCC")-static" -name slaw.pc)")
abi_flags=$(PKG_CONFIG_PATH=$pcdir pkg-config --cflags slaw)
abi_libs=$(PKG_CONFIG_PATH=$pcdir pkg-config --libs slaw)
abi=$WORK/task-abi
mkdir -p "$abi"
# shellcheck disable=SC2086  # the flags are words
{
  run "$CXX_GCC" -std=c++20 -O2 $abi_flags -c "$SRC/tests/package/task_abi/define.cpp" -o "$abi/define-gcc.o"
  run "$CXX_CLANG" -std=c++20 -O2 $abi_flags -c "$SRC/tests/package/task_abi/define.cpp" -o "$abi/define-clang.o"
  run "$CXX_CLANG" -std=c++20 -O2 $abi_flags -c "$SRC/tests/package/task_abi/use.cpp" -o "$abi/use-clang.o"
  run "$CXX_GCC" "$abi/define-clang.o" "$abi/use-clang.o" $abi_libs -o "$abi/same"
  run "$abi/same" || fail "clang-built code against the GCC-built library failed (exit status $?)"
  grep -q "triangle(100) = 5050" "$LOG" || fail "$abi/same did not print the expected result"
  if "$CXX_GCC" "$abi/define-gcc.o" "$abi/use-clang.o" $abi_libs -o "$abi/mixed" >>"$LOG" 2>&1; then
    fail "a task passed from GCC-built to clang-built code linked: it would be called with the wrong ABI"
  fi
  grep -q "undefined reference to .triangle\[abi:slaw_trivial_abi\](int)" "$LOG" ||
    fail "the mixed link failed, but not on the ABI-tagged triangle(int)"
}

# Every way a user builds while developing, side by side (JOBS at a time, each with its log; the first
# failure is reported with the end of its log). Each line of the list: NAME, then the command.
run_many() {
  local list=$1 name cmd pids=() names=() i rc=0
  mkdir -p "$WORK/logs"
  while IFS='|' read -r name cmd; do
    [[ -n $name ]] || continue
    while (($(jobs -rp | wc -l) >= JOBS)); do wait -n || true; done
    (LOG=$WORK/logs/$name.log; eval "$cmd" >>"$LOG" 2>&1) &
    pids+=($!)
    names+=("$name")
  done <<<"$list"
  for i in "${!pids[@]}"; do
    if ! wait "${pids[$i]}"; then
      cp "$WORK/logs/${names[$i]}.log" "$LOG"
      fail "${names[$i]} failed (its log: $WORK/logs/${names[$i]}.log)"
    fi
    grep -q "consumer: all checks passed" "$WORK/logs/${names[$i]}.log" ||
      { cp "$WORK/logs/${names[$i]}.log" "$LOG"; fail "${names[$i]}: the consumer did not report its checks as passed"; }
  done
  echo "package-check:   ${#names[@]} consumers passed: ${names[*]}"
}

# by_hand EXE CXX PC_DIR FLAGS...: compile the consumer with one command line and run it.
by_hand() {
  local exe=$1 cxx=$2 pcdir=$3
  shift 3
  # shellcheck disable=SC2046  # the flags are words
  "$cxx" "$@" -Wall -Wextra -Werror "$CONSUMER/main.cpp" $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs slaw) -o "$exe" &&
    "$exe"
}

step "consumer builds of every kind against the static libraries: CMake build types, -O0 to -O3, ASan+UBSan"
matrix=""
for cxx in "$CXX_GCC" "$CXX_CLANG"; do
  tag=$(basename "$cxx")
  prefix=$WORK/prefix-$tag-static
  pcdir=$(dirname "$(find "$prefix" -name slaw.pc)")
  cfgdir=$(dirname "$(find "$prefix" -name slawConfig.cmake)")
  for bt in none Debug RelWithDebInfo Release MinSizeRel; do
    matrix+="cmake-$tag-$bt|consumer_cmake '$WORK/bt-$tag-$bt' '$cxx' '$prefix' '$cfgdir' $bt"$'\n'
  done
  for o in -O0 -Og -O1 -O2 -O3; do
    matrix+="hand-$tag$o|by_hand '$WORK/hand-$tag$o' '$cxx' '$pcdir' $o"$'\n'
  done
  # ASan and UBSan against the ordinary (uninstrumented) library: slaw's pool is not poisoned then
  # (include/slaw/detail/sanitizers.hpp), everything else of the program is checked.
  for o in -O0 -O2; do
    matrix+="asan-$tag$o|ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 by_hand '$WORK/asan-$tag$o' '$cxx' '$pcdir' $o -g -fsanitize=address,undefined -fno-sanitize-recover=undefined"$'\n'
  done
done
# Without pkg-config's flags GCC's headers cannot know that sibling calls are on and resume through the
# loop: -O1 (no sibling calls) must work that way.
gcc_prefix=$WORK/prefix-$(basename "$CXX_GCC")-static
gcc_libdir=$(dirname "$(dirname "$(find "$gcc_prefix" -name slaw.pc)")")
matrix+="bare-$(basename "$CXX_GCC")-O1|'$CXX_GCC' -std=c++20 -O1 -pthread -DSLAW_STATIC_DEFINE -I'$gcc_prefix/include' '$CONSUMER/main.cpp' -L'$gcc_libdir' -lslaw \$(pkg-config --libs hwloc) -o '$WORK/bare-gcc-O1' && '$WORK/bare-gcc-O1'"$'\n'
run_many "$matrix"

step "ThreadSanitizer: slaw built with -DSLAW_SANITIZE=thread ($(basename "$CXX_CLANG")), installed into a prefix of its own"
tsan_build=$WORK/build-tsan tsan_prefix=$WORK/prefix-tsan
run cmake -S "$SRC" -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER="$CXX_CLANG" \
  -DSLAW_SANITIZE=thread -DSLAW_BUILD_TESTS=OFF -DSLAW_BUILD_EXAMPLES=OFF -DSLAW_BUILD_BENCH=OFF
run cmake --build "$tsan_build" -j "$JOBS"
run cmake --install "$tsan_build" --prefix "$tsan_prefix"
tsan_pc=$(dirname "$(find "$tsan_prefix" -name slaw.pc)")
tsan_cfg=$(dirname "$(find "$tsan_prefix" -name slawConfig.cmake)")
step "ThreadSanitizer: consumers through find_package and pkg-config report nothing"
export TSAN_OPTIONS="halt_on_error=1 exitcode=66"
run_many "tsan-cmake|consumer_cmake '$WORK/tsan-cmake' '$CXX_CLANG' '$tsan_prefix' '$tsan_cfg' Debug
tsan-hand|by_hand '$WORK/tsan-hand' '$CXX_CLANG' '$tsan_pc' -O1 -g"
unset TSAN_OPTIONS
step "ThreadSanitizer: a TSan consumer of the ordinary library is refused with a message"
static_pc=$(dirname "$(find "$WORK/prefix-$(basename "$CXX_CLANG")-static" -name slaw.pc)")
# shellcheck disable=SC2046
if "$CXX_CLANG" -fsanitize=thread -fsyntax-only "$CONSUMER/main.cpp" $(PKG_CONFIG_PATH=$static_pc pkg-config --cflags slaw) >>"$LOG" 2>&1; then
  fail "a ThreadSanitizer consumer of the uninstrumented library compiled"
fi
grep -q "built with ThreadSanitizer, but the slaw library" "$LOG" || fail "the refusal does not say why"

step "installed commands: slaw-top, slaw-sim and slaw-trace run from the prefix"
tools_prefix=$WORK/prefix-$(basename "$CXX_GCC")-static
for tool in slaw-top slaw-sim slaw-trace; do
  [[ -x $tools_prefix/bin/$tool ]] || fail "bin/$tool is not installed"
done
[[ -f $tools_prefix/share/slaw/plot_sim.py ]] || fail "share/slaw/plot_sim.py (slaw-sim --plot) is not installed"
run "$tools_prefix/bin/slaw-top" --help
if "$tools_prefix/bin/slaw-top" --name "/slaw-package-check-$$" --once >>"$LOG" 2>&1; then
  fail "slaw-top --once on a segment that does not exist succeeded"
fi
grep -q "does not exist" "$LOG" || fail "slaw-top did not say that the segment does not exist"
run "$tools_prefix/bin/slaw-sim" --gen fib:18 --workers 1,2 --policy dyn --plot "$WORK/sim.png"
[[ -s $WORK/sim.png ]] || fail "slaw-sim --plot wrote no $WORK/sim.png (its plotting script from share/slaw)"
run "$tools_prefix/bin/slaw-trace" "$SRC/tests/trace/data/fib15_2w.json" -o "$WORK/trace.png"
[[ -s $WORK/trace.png ]] || fail "slaw-trace wrote no $WORK/trace.png"

# As a subproject, with a build type of the parent's own (slaw must not replace it).
for via in add_subdirectory fetchcontent; do
  cxx=$CXX_CLANG
  if [[ $via == add_subdirectory ]]; then cxx=$CXX_GCC; fi
  step "subproject ($via, $(basename "$cxx")): only the library is configured, the consumer runs, nothing installs"
  dir=$WORK/subproject-$via
  run cmake -S "$SRC/tests/package/subproject" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_COMPILER="$cxx" -DSLAW_SOURCE_DIR="$SRC" -DSLAW_VIA="$via"
  run cmake --build "$dir" -j "$JOBS"
  run_consumer "$dir/consumer"
  run cmake --install "$dir" --prefix "$WORK/subproject-install-$via"
  if [[ -d $WORK/subproject-install-$via ]]; then
    fail "installing the parent project installed slaw's files: $(find "$WORK/subproject-install-$via" -type f | head -5)"
  fi
done

step "Debian package: cpack -G DEB"
build=$WORK/build-$(basename "$CXX_GCC")-static
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
deb=$build/slaw_${version}_$(dpkg --print-architecture).deb
(cd "$build" && run cpack -G DEB)
[[ -f $deb ]] || fail "cpack did not write $(basename "$deb"): $(cd "$build" && ls ./*.deb 2>/dev/null)"
run dpkg-deb -I "$deb"
for field in Package Version Architecture Maintainer Description; do
  [[ -n $(dpkg-deb -f "$deb" "$field") ]] || fail "the package has no $field field"
done
[[ $(dpkg-deb -f "$deb" Maintainer) =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer is not 'Name <email>': $(dpkg-deb -f "$deb" Maintainer)"
contents=$(dpkg-deb -c "$deb" | awk '{ print $NF }')
expected=(./usr/include/slaw/slaw.hpp ./usr/include/slaw/export.hpp ./usr/include/slaw/counters.def
  "./usr/lib/$MULTIARCH/libslaw.a" "./usr/lib/$MULTIARCH/cmake/slaw/slawConfig.cmake"
  "./usr/lib/$MULTIARCH/pkgconfig/slaw.pc")
expected+=(./usr/bin/slaw-trace ./usr/bin/slaw-top ./usr/bin/slaw-sim ./usr/share/slaw/plot_sim.py)
[[ $(dpkg-deb -f "$deb" Depends) == *python3-matplotlib* ]] || fail "slaw-trace is packaged but Depends lacks python3-matplotlib"
for f in "${expected[@]}"; do
  grep -qxF "$f" <<<"$contents" || fail "the package lacks $f (dpkg-deb -c)"
done

if [[ $(id -u) == 0 ]] && ! dpkg -s slaw >/dev/null 2>&1; then
  step "Debian package: dpkg -i, consumers against /usr (find_package with $(basename "$CXX_GCC"), pkg-config with $(basename "$CXX_CLANG"))"
  deb_installed=1
  run dpkg -i "$deb"
  consumer_cmake "$WORK/consumer-deb" "$CXX_GCC" "" "/usr/lib/$MULTIARCH/cmake/slaw"
  consumer_pkgconfig "$WORK/pkgconfig-deb" "$CXX_CLANG" "" /usr
  step "Debian package: dpkg -r"
  run dpkg -r slaw
  deb_installed=0
  [[ ! -e /usr/include/slaw/slaw.hpp ]] || fail "dpkg -r slaw left /usr/include/slaw/slaw.hpp behind"
else
  why="not root"
  [[ $(id -u) == 0 ]] && why="a slaw package is installed already (left alone)"
  echo "package-check: $why: the .deb is extracted with dpkg-deb -x into a temporary root instead of installed"
  step "Debian package: dpkg-deb -x, consumers against the extracted tree"
  root=$WORK/deb-root
  run dpkg-deb -x "$deb" "$root"
  consumer_cmake "$WORK/consumer-deb" "$CXX_GCC" "$root/usr" "$root/usr/lib/$MULTIARCH/cmake/slaw"
  consumer_pkgconfig "$WORK/pkgconfig-deb" "$CXX_CLANG" "$root/usr/lib/$MULTIARCH/pkgconfig" "$root/usr"
fi

step_name="done"
echo "package-check: all passed in ${SECONDS}s"
