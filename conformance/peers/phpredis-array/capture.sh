#!/usr/bin/env bash
# peer-kind: library (re-captured live by `make test`, see recapture-check.sh)
# Capture phpredis RedisArray placement vectors by running Debian's php-redis (RedisArray's
# `_target` with `lazy_connect`: no server needed). Installs the apt packages if missing,
# (over)writes conformance/vectors/v1/phpredis-array-*.json.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
peers="$(dirname "$here")"
conf="$(dirname "$peers")"
work="$peers/.work/phpredis-array"
mkdir -p "$work"

# shellcheck source=scripts/lib.sh
source "$conf/../scripts/lib.sh"
apt_install php-cli php-redis

label="$(php -r 'echo phpversion("redis");') (Debian php-redis $(dpkg-query -W -f='${Version}' php-redis), PHP $(php -r 'echo PHP_VERSION;'))"

python3 - "$peers/keys.json" > "$work/keys.hex" <<'PY'
import json, sys
for k in json.load(open(sys.argv[1]))["keys"]:
    print(k["hex"].lower())
PY
# The extra keys: tags (shared, empty, unclosed, reversed), NUL bytes before and inside a tag,
# and \xff\xff\xff\xff, whose CRC-32 is 0xffffffff (placed one past the last host: capture.php).
extra=("{user1}:a" "{user1}:b" "{}x" "x{}" "a{b" "}{b}" "{a}{b}" "{{a}}" "x{ab}y")
: > "$work/extra.hex"
for k in "${extra[@]}"; do printf '%s' "$k" | od -An -tx1 | tr -d ' \n' >> "$work/extra.hex"; echo >> "$work/extra.hex"; done
printf '%s\n' '78007b627d' '7b62007d' '00' 'ffffffff' >> "$work/extra.hex"
cat "$work/keys.hex" "$work/extra.hex" > "$work/all.hex"

php "$here/capture.php" "$work/all.hex" > "$work/routes.jsonl"
python3 "$here/write.py" "$work/routes.jsonl" "$work/extra.hex" "$label"
