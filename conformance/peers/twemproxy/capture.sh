#!/usr/bin/env bash
# peer-kind: server (runs real servers on 127.0.0.1; re-captured by `make conformance-peers`)
# Capture twemproxy (nutcracker) ketama golden vectors: Debian's nutcracker in front of real
# memcached backends, all on loopback (127.0.0.1:11211, 127.0.0.1:27011-27015, 127.0.0.1:27200-27260,
# 127.0.0.2:27013, 127.0.0.2:27016; pools listen on 127.0.0.1:27300+, stats on 127.0.0.1:27399).
# Every server started here is stopped on exit (trap), also on failure.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(dirname "$HERE")
VEC=$(cd "$PEERS/.." && pwd)/vectors/v1
WORK="$PEERS/.work/twemproxy"

# shellcheck source=scripts/lib.sh
source "$PEERS/../../scripts/lib.sh"
apt_install nutcracker memcached

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

rm -rf "$WORK"; mkdir -p "$WORK" "$VEC"
python3 "$HERE/capture.py" plan "$WORK"

# 127.0.0.1:11211 is used only if nothing listens there (checked by trying to connect).
if (exec 3<>/dev/tcp/127.0.0.1/11211) 2>/dev/null; then
  echo "127.0.0.1:11211 is already in use; refusing to capture (the 11211 name-elision pools need it)" >&2
  exit 1
fi

while read -r host port; do
  memcached -u nobody -l "$host" -p "$port" -U 0 -m 8 -t 1 -c 64 &
  PIDS+=($!)
done < "$WORK/backends.txt"

nutcracker -t -c "$WORK/nutcracker.yml" >/dev/null 2>&1 || { nutcracker -t -c "$WORK/nutcracker.yml"; exit 1; }
nutcracker -c "$WORK/nutcracker.yml" -o "$WORK/nutcracker.log" -p "$WORK/nutcracker.pid" \
  -s 27399 -a 127.0.0.1 &
PIDS+=($!)

# wait for every backend and for the first and last pool
wait_port() { for _ in $(seq 200); do (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null && return 0; sleep 0.05; done; echo "no listener on $1:$2" >&2; return 1; }
while read -r host port; do wait_port "$host" "$port"; done < "$WORK/backends.txt"
wait_port 127.0.0.1 27300
python3 "$HERE/capture.py" run "$WORK" "$PEERS/keys.json" "$VEC"
