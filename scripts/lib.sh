# Sourced by the project's scripts: installing Debian packages and testing command output
# without a pipe into `grep -q` or `head`.
#
# Why no such pipes: every script runs under `set -o pipefail`. When the reader of a pipe exits
# at its first match (`grep -q`, `head -1`), a writer that still has output gets SIGPIPE, and
# pipefail turns the writer's death into the pipeline's failure, at random and more often under
# load. Capture the output first ($(…), a here-string or a file), then test it.
# shellcheck shell=bash

# have_pkg NAME: the Debian package NAME is installed.
have_pkg() {
  local status
  status=$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null) || return 1
  [[ $status == "install ok installed" ]]
}

# apt_install NAME...: installs the packages that are missing, running `apt-get update` first
# only when the package lists lack one of them (a new machine has no lists).
apt_install() {
  local pkg need=()
  for pkg in "$@"; do have_pkg "$pkg" || need+=("$pkg"); done
  ((${#need[@]})) || return 0
  echo "installing (apt): ${need[*]}" >&2
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 || {
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null; }
}

# has_line TEXT LINE: one line of TEXT is exactly LINE.
has_line() { grep -qxF -- "$2" <<<"$1"; }

# first_line TEXT: prints the first line of TEXT.
first_line() { printf '%s\n' "${1%%$'\n'*}"; }
