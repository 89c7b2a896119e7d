#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture spymemcached KetamaNodeLocator vectors by running Debian's libspymemcached-java.
# Installs the apt package if missing, compiles Capture.java, (over)writes
# conformance/vectors/v1/spymemcached-*.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
conf="$(dirname "$peers")"
work="$peers/.work/spymemcached"
out="$conf/vectors/v1"
mkdir -p "$work/classes" "$out"

# shellcheck source=scripts/lib.sh
source "$conf/../scripts/lib.sh"
pkg=libspymemcached-java
apt_install "$pkg"
command -v javac >/dev/null && command -v java >/dev/null || { echo "javac/java (JDK 17) required" >&2; exit 1; }

jar=/usr/share/java/spymemcached.jar
has_line "$(dpkg -L "$pkg")" "$jar" || jar=""
[ -n "$jar" ] || { echo "spymemcached.jar not found in $pkg" >&2; exit 1; }

deb_version="$(dpkg-query -W -f='${Version}' "$pkg")"
upstream="${deb_version%%[+-]*}"
java_version="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"
label="$upstream (Debian $pkg $deb_version; OpenJDK $java_version)"

javac -Xlint:all -Werror -d "$work/classes" -cp "$jar" "$here/Capture.java"

python3 - "$peers/keys.json" > "$work/keys.hex" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    print(k["hex"].lower())
PY

java -cp "$jar:$work/classes" Capture "$out" "$work/keys.hex" "$label" "conformance/peers/spymemcached/capture.sh"
