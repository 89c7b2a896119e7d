#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture Math.floorMod(key.hashCode(), n) vectors by running the JDK (javac, java).
# Compiles Capture.java, (over)writes conformance/vectors/v1/java-hashcode-*.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
work="$peers/.work/java-hashcode"
mkdir -p "$work/classes"
command -v javac >/dev/null && command -v java >/dev/null || { echo "javac/java (JDK 17) required" >&2; exit 1; }

javac -Xlint:all -Werror -d "$work/classes" "$here/Capture.java"
java_version="$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.runtime.version = //p')"

python3 - "$peers/keys.json" > "$work/keys.hex" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    print(k["hex"].lower())
PY
# The extra keys: three whose hashCode is Integer.MIN_VALUE (where % and floorMod differ most),
# and bytes that are not UTF-8.
printf '%s\n' 'fffe' "$(printf 'polygenelubricants' | od -An -tx1 | tr -d ' \n')" \
  "$(printf 'GydZG_' | od -An -tx1 | tr -d ' \n')" \
  "$(printf 'DESIGNING WORKHOUSES' | od -An -tx1 | tr -d ' \n')" >> "$work/keys.hex"

java -cp "$work/classes" Capture "$work/keys.hex" 1 3 4 5 60 > "$work/routes.tsv"
python3 "$here/write.py" "$work/routes.tsv" "OpenJDK $java_version"
