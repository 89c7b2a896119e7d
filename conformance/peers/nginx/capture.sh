#!/usr/bin/env bash
# peer-kind: server (runs real servers on 127.0.0.1; re-captured by `make conformance-peers`)
# Capture nginx `hash $http_x_key consistent` golden vectors by running Debian's nginx on loopback.
# Backends: one server block listening on 127.0.0.1:27081-27086, 127.0.0.1:27100-27159 and
# 127.0.0.2:80 (for the port-less `server 127.0.0.2;` token). Fronts: 127.0.0.1:27090+.
# nginx is stopped on exit (trap), also on failure.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(dirname "$HERE")
VEC=$(cd "$PEERS/.." && pwd)/vectors/v1
WORK="$PEERS/.work/nginx"

if ! command -v nginx >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light
fi

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -QUIT "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

rm -rf "$WORK"; mkdir -p "$WORK" "$VEC"
python3 "$HERE/capture.py" conf "$WORK" > "$WORK/backends.txt"
nginx -t -q -p "$WORK" -e "$WORK/error.log" -c "$WORK/nginx.conf"
nginx -p "$WORK" -e "$WORK/error.log" -c "$WORK/nginx.conf" &
PIDS+=($!)
for _ in $(seq 100); do
  curl -s -o /dev/null http://127.0.0.1:27090/ -H 'X-Key: ping' && break; sleep 0.05
done
python3 "$HERE/capture.py" run "$WORK" "$PEERS/keys.json" "$VEC"
