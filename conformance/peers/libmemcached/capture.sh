#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture libmemcached ketama vectors by running Debian's libmemcached (no server needed).
# Installs the apt packages if missing, compiles capture.c, (over)writes
# conformance/vectors/v1/libmemcached-*.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
conf="$(dirname "$peers")"
work="$peers/.work/libmemcached"
out="$conf/vectors/v1"
mkdir -p "$work" "$out"

# shellcheck source=scripts/lib.sh
source "$conf/../scripts/lib.sh"
need=(libmemcached-dev gcc pkg-config)
command -v python3 >/dev/null || need+=(python3)
apt_install "${need[@]}"

# Version label read from dpkg at capture time (the runtime library package).
deb_version="$(dpkg-query -W -f='${Version}' libmemcached11)"
label="Debian libmemcached11 $deb_version"

read -ra libmemcached_flags <<<"$(pkg-config --cflags --libs libmemcached)"
gcc -std=c11 -D_GNU_SOURCE -O2 -Wall -Wextra -Werror -o "$work/capture" "$here/capture.c" "${libmemcached_flags[@]}"

# keys.json -> one lowercase hex key per line (empty line = empty key)
python3 - "$peers/keys.json" > "$work/keys.hex" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    print(k["hex"].lower())
PY

"$work/capture" write "$out" "$work/keys.hex" "$label" "conformance/peers/libmemcached/capture.sh"
