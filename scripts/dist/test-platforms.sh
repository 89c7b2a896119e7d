#!/usr/bin/env bash
# `make test-dist`'s light check of every platform (scripts/dist/platforms.sh): each artifact a
# platform ships is in DIST, and each binary in it is built for that platform, read with `file`
# and objdump (machine, static or dynamic, the libc a dynamic one links, the highest glibc
# symbol version). Running them on their platforms is `make test-cross`'s
# (scripts/dist/run-platforms.sh).
#
#   scripts/dist/test-platforms.sh DIST
#
# Prints a line per binary and closes with "platforms: N passed, M failed".
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/../.."
dist=$(cd "${1:?usage: scripts/dist/test-platforms.sh DIST}" && pwd)
version=$(scripts/dist/version.sh)
# shellcheck source=scripts/lib.sh
source scripts/lib.sh
# shellcheck source=scripts/dist/platforms.sh
source scripts/dist/platforms.sh
command -v file >/dev/null || apt_install file
command -v objdump >/dev/null || apt_install binutils

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
fail() { failed=$((failed + 1)); echo "  FAILED: $*" >&2; }

# expect_binary PLATFORM LABEL FILE KIND: FILE is a KIND (exe or lib) for PLATFORM.
expect_binary() {
  local platform=$1 label=$2 f=$3 kind=$4 desc want=() glibc=""
  [[ -f $f ]] || { fail "$label: no $(basename "$f")"; return 0; }
  desc=$(file -b "$f")
  case $platform in
    x86_64-linux-*) want+=("ELF 64-bit LSB" "x86-64") ;;
    aarch64-linux-*) want+=("ELF 64-bit LSB" "ARM aarch64") ;;
    x86_64-windows-*) want+=("PE32+" "x86-64") ;;
  esac
  case $platform-$kind in
    *-linux-gnu-exe) want+=("dynamically linked") ;;
    *-linux-musl-exe) want+=("statically linked") ;;
    *-linux-*-lib) want+=("shared object") ;;
    *-windows-*-exe) want+=("(console)") ;;
    *-windows-*-lib) want+=("(DLL)") ;;
  esac
  local w
  for w in "${want[@]}"; do
    [[ $desc == *"$w"* ]] || { fail "$label: $(basename "$f") is not $w: $desc"; return 0; }
  done
  # A dynamic Linux binary names its libc: glibc's libc.so.6, or musl's libc.so.
  if [[ $platform == *-linux-* && $desc == *"dynamically linked"* ]]; then
    local needed libc=libc.so.6
    [[ $platform == *-linux-musl ]] && libc=libc.so
    needed=$(objdump -p "$f" | awk '$1 == "NEEDED" {print $2}')
    grep -qxF "$libc" <<<"$needed" || { fail "$label: $(basename "$f") does not link $libc: $(echo $needed)"; return 0; }
  fi
  if [[ $platform == *-linux-gnu ]]; then
    glibc=$(objdump -T "$f" | grep -o 'GLIBC_[0-9.]*' | sort -uV | tail -n 1)
    # zig builds against the glibc named after the Rust target in platforms.sh (".2.17"): no
    # symbol may be newer.
    platform "$platform"
    if [[ $PLATFORM_ZTARGET == *.* ]]; then
      local floor=${PLATFORM_ZTARGET#*.}
      if [[ $(printf '%s\n' "${glibc#GLIBC_}" "$floor" | sort -V | tail -n 1) != "$floor" ]]; then
        fail "$label: $(basename "$f") needs $glibc, newer than glibc $floor"
        return 0
      fi
    fi
    glibc=", needs $glibc"
  fi
  passed=$((passed + 1))
  echo "  ok: $label: $(basename "$f"): ${want[*]}$glibc ($(du -k "$f" | cut -f1) KiB)"
}

for entry in "${PLATFORMS[@]}"; do
  IFS='|' read -r platform _ _ kinds <<<"$entry"
  echo "platform $platform: $kinds"
  for kind in $kinds; do
    rm -rf "$work/x" && mkdir -p "$work/x"
    case $kind in
      cli)
        if [[ $platform == *windows* ]]; then
          a=$dist/keyroute-cli-$version-$platform.zip
          [[ -f $a ]] && python3 -m zipfile -e "$a" "$work/x"
          expect_binary "$platform" cli "$work/x/keyroute-cli-$version-$platform/keyroute.exe" exe
        else
          a=$dist/keyroute-cli-$version-$platform.tar.gz
          [[ -f $a ]] && tar -xzf "$a" -C "$work/x"
          expect_binary "$platform" cli "$work/x/keyroute-cli-$version-$platform/keyroute" exe
        fi
        ;;
      c)
        if [[ $platform == *windows* ]]; then
          a=$dist/keyroute-$version-$platform.zip
          [[ -f $a ]] && python3 -m zipfile -e "$a" "$work/x"
          root=$work/x/keyroute-$version-$platform
          expect_binary "$platform" c "$root/bin/keyroute.dll" lib
          for f in lib/libkeyroute.dll.a lib/libkeyroute.a include/keyroute.h; do
            [[ -s $root/$f ]] || fail "c: the archive lacks $f"
          done
        else
          a=$dist/keyroute-$version-$platform.tar.gz
          [[ -f $a ]] && tar -xzf "$a" -C "$work/x"
          expect_binary "$platform" c "$work/x/keyroute-$version-$platform/lib/libkeyroute.so.$version" lib
        fi
        ;;
      wheel)
        arch=${platform%%-*}
        policy=$(wheel_policy "$platform")
        wheels=("$dist"/keyroute-"$version"-cp310-abi3-*"${policy}_$arch".whl)
        if ((${#wheels[@]} == 1)); then
          python3 -m zipfile -e "${wheels[0]}" "$work/x"
          expect_binary "$platform" "wheel $(basename "${wheels[0]}")" "$work/x/keyroute/_native.abi3.so" lib
        else
          fail "wheel: ${#wheels[@]} ${policy}_$arch wheels in $dist"
        fi
        ;;
      npm)
        name=$(npm_name "$platform")
        a=$dist/keyroute-$name-$version.tgz
        [[ -f $a ]] && tar -xzf "$a" -C "$work/x"
        expect_binary "$platform" "npm keyroute-$name" "$work/x/package/keyroute.$name.node" lib
        ;;
      jar)
        a=$dist/keyroute-$version.jar
        [[ -f $a ]] && python3 -m zipfile -e "$a" "$work/x"
        expect_binary "$platform" jar "$work/x/$(jna_prefix "$platform")/libkeyroute.so" lib
        ;;
    esac
  done
done
echo "platforms: $passed passed, $failed failed"
((failed == 0))
