# shellcheck shell=bash disable=SC2034 # the PLATFORM_* variables are for the scripts that source this
# The release platforms: one table for the builders (scripts/dist/build-*.sh), the
# architecture check of `make test` (scripts/dist/test-platforms.sh) and the runs on each
# platform of `make test-cross` (scripts/test-cross.sh). Sourced; run from the repository's root.
#
# Why these tools (measured on this 2-core machine, docs/platforms.md has the figures):
# - Linux arm64 and musl: zig (the `ziglang` package of the Python index, already the wheel's
#   linker) through cargo-zigbuild. Against Debian's gcc-aarch64-linux-gnu, the same CLI and C
#   library need glibc 2.17 instead of 2.35 (zig links against the symbol versions of the glibc
#   named after the target), so they run on every manylinux2014 system (Amazon Linux 2, RHEL 7
#   and later), and one tool serves both libcs: musl needs no cross libc from Debian.
# - Windows: Debian's mingw-w64, the toolchain Rust's x86_64-pc-windows-gnu target is made for.
# - The build machine's own platform, x86_64-linux-gnu, stays on the host toolchain.
#
# name | Rust target (a zig glibc floor after the dot) | toolchain | what ships for it
PLATFORMS=(
  "x86_64-linux-gnu|x86_64-unknown-linux-gnu|host|cli c wheel npm jar"
  "aarch64-linux-gnu|aarch64-unknown-linux-gnu.2.17|zig|cli c wheel npm jar"
  "x86_64-linux-musl|x86_64-unknown-linux-musl|zig|cli wheel"
  "aarch64-linux-musl|aarch64-unknown-linux-musl|zig|cli wheel"
  "x86_64-windows-gnu|x86_64-pc-windows-gnu|mingw|cli c npm"
)
CARGO_ZIGBUILD_PIN=0.24.1
# maturin and zig for the wheels (build-python.sh), and maturin for the sdist's test (test-python.sh).
MATURIN_PIN=1.16.0
ZIG_PIN=0.14.1

# platforms_with KIND: the names of the platforms that ship KIND (cli, c, wheel, npm, jar).
platforms_with() {
  local entry name _t _tool kinds
  for entry in "${PLATFORMS[@]}"; do
    IFS='|' read -r name _t _tool kinds <<<"$entry"
    [[ " $kinds " == *" $1 "* ]] && echo "$name"
  done
  return 0
}

# platform NAME: sets PLATFORM_TARGET (as cargo names its folder), PLATFORM_ZTARGET (what is
# passed to --target: with zig's glibc floor) and PLATFORM_TOOL.
platform() {
  local entry name target tool _kinds
  for entry in "${PLATFORMS[@]}"; do
    IFS='|' read -r name target tool _kinds <<<"$entry"
    if [[ $name == "$1" ]]; then
      PLATFORM_ZTARGET=$target
      PLATFORM_TARGET=${target%%.*}
      PLATFORM_TOOL=$tool
      # zig links it, whatever linker the caller set for the target (scripts/test-cross.sh sets
      # Debian's cross gcc for its tests, and maturin would link with that and need glibc 2.35).
      [[ $tool != zig ]] || unset "CARGO_TARGET_$(tr 'a-z-' 'A-Z_' <<<"${target%%.*}")_LINKER"
      return 0
    fi
  done
  echo "platforms: no platform $1" >&2
  return 1
}

# dist_venv: build/py-dist-venv with maturin and zig (both pinned), made once; prints its bin/.
dist_venv() {
  local venv=$PWD/build/py-dist-venv
  if [[ ! -x $venv/bin/python ]] || ! "$venv/bin/python" -c 'import sys' 2>/dev/null; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
  fi
  if [[ $("$venv/bin/python" -m maturin --version 2>/dev/null) != "maturin $MATURIN_PIN" ]] ||
    [[ $("$venv/bin/python" -m ziglang version 2>/dev/null) != "$ZIG_PIN" ]]; then
    PIP_DISABLE_PIP_VERSION_CHECK=1 "$venv/bin/python" -m pip install -q "maturin==$MATURIN_PIN" "ziglang==$ZIG_PIN" >&2
  fi
  echo "$venv/bin"
}

# platform_cargo NAME: installs what building for NAME needs (the rustup target; zig and
# cargo-zigbuild, or mingw-w64) and sets PLATFORM_CARGO, the command that builds for it
# (`cargo` or `cargo-zigbuild`, run as "${PLATFORM_CARGO[@]}" build|rustc … --target
# "$PLATFORM_ZTARGET"). Exports the linker for mingw and puts zig on PATH.
platform_cargo() {
  platform "$1" || return 1
  local toolchain
  toolchain=$(sed -n 's/^channel *= *"\(.*\)"/\1/p' rust-toolchain.toml)
  if [[ $PLATFORM_TOOL != host ]] && ! grep -qx "$PLATFORM_TARGET" <<<"$(rustup target list --installed --toolchain "$toolchain")"; then
    rustup target add --toolchain "$toolchain" "$PLATFORM_TARGET" >&2
  fi
  case $PLATFORM_TOOL in
    host) PLATFORM_CARGO=(cargo) ;;
    mingw)
      apt_install gcc-mingw-w64-x86-64 binutils-mingw-w64-x86-64
      export CARGO_TARGET_X86_64_PC_WINDOWS_GNU_LINKER=x86_64-w64-mingw32-gcc
      PLATFORM_CARGO=(cargo)
      ;;
    zig)
      local venv_bin tools=$PWD/build/tools/cargo-zigbuild
      venv_bin=$(dist_venv)
      # maturin's zig support needs `python -m ziglang`; cargo-zigbuild finds it the same way.
      export PATH="$venv_bin:$PATH"
      if [[ $("$tools/bin/cargo-zigbuild" --version 2>/dev/null) != "cargo-zigbuild $CARGO_ZIGBUILD_PIN" ]]; then
        echo "platforms: cargo install cargo-zigbuild $CARGO_ZIGBUILD_PIN (once)" >&2
        cargo install --locked --quiet --version "$CARGO_ZIGBUILD_PIN" --root "$tools" cargo-zigbuild >&2
      fi
      PLATFORM_CARGO=("$tools/bin/cargo-zigbuild")
      ;;
  esac
}

# platform_archive DIR NAME OUT: DIR/NAME packed reproducibly (sorted names, owner 0, the last
# commit's time) as OUT: a .zip for Windows (what its users unpack), a .tar.gz elsewhere.
platform_archive() {
  local dir=$1 name=$2 out=$3 epoch
  epoch=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
  case $out in
    *.zip)
      python3 - "$dir" "$name" "$out.tmp" "$epoch" <<'EOF'
import os, sys, time, zipfile
root, name, out, epoch = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
stamp = time.gmtime(max(epoch, 315532800))[:6]  # zip times start in 1980
paths = []
for base, dirs, files in os.walk(os.path.join(root, name)):
    dirs.sort()
    paths += [os.path.join(base, f) for f in files]
with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
    for path in sorted(paths):
        info = zipfile.ZipInfo(os.path.relpath(path, root).replace(os.sep, "/"), stamp)
        info.external_attr = (0o755 if os.access(path, os.X_OK) else 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        with open(path, "rb") as f:
            z.writestr(info, f.read())
EOF
      ;;
    *) tar -C "$dir" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" -cf - "$name" | gzip -9n >"$out.tmp" ;;
  esac
  mv "$out.tmp" "$out"
}

# wheel_policy NAME: the wheel's platform policy (PEP 600 and PEP 656) for a Linux platform:
# manylinux_2_17 (manylinux2014, zig's glibc floor above) for glibc, musllinux_1_2 for musl.
# A wheel's name ends in <policy>_<arch>.whl.
wheel_policy() {
  case $1 in
    *-linux-gnu) echo manylinux_2_17 ;;
    *-linux-musl) echo musllinux_1_2 ;;
    *) echo "platforms: no wheel policy for $1" >&2; return 1 ;;
  esac
}

# npm_name NAME: the platform's name in npm packages (napi-rs's, and node/lib/platform.cjs's):
# aarch64-linux-gnu is linux-arm64-gnu, x86_64-windows-gnu is win32-x64-gnu.
npm_name() {
  local arch=${1%%-*} rest=${1#*-}
  local os=${rest%%-*} libc=${rest#*-}
  case $arch in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; esac
  [[ $os == windows ]] && os=win32
  echo "$os-$arch-$libc"
}

# jna_prefix NAME: JNA's resource folder for the platform (com.sun.jna.Platform.RESOURCE_PREFIX),
# where the jar carries its library: x86_64-linux-gnu is linux-x86-64.
jna_prefix() {
  local arch=${1%%-*}
  [[ $arch == x86_64 ]] && arch=x86-64
  echo "linux-$arch"
}
