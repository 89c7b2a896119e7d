#!/usr/bin/env bash
# peer-kind: server (runs real servers on 127.0.0.1; re-captured by `make conformance-peers`)
# Capture Redis Cluster golden vectors by running real redis-server (Debian) on 127.0.0.1.
#   redis-cluster-3.json       : 3 masters 127.0.0.1:27001-27003, slots from `redis-cli --cluster create`
#   redis-cluster-4-split.json : 4 masters 127.0.0.1:27004-27007, interleaved ranges via CLUSTER ADDSLOTSRANGE
# Servers are stopped on exit (trap), also on failure.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
PEERS=$(dirname "$HERE")
VEC=$(cd "$PEERS/.." && pwd)/vectors/v1
WORK="$PEERS/.work/redis-cluster"

# shellcheck source=scripts/lib.sh
source "$PEERS/../../scripts/lib.sh"
apt_install redis-server redis-tools

PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
}
trap cleanup EXIT

rm -rf "$WORK"; mkdir -p "$WORK" "$VEC"
for port in 27001 27002 27003 27004 27005 27006 27007; do
  d="$WORK/$port"; mkdir -p "$d"
  redis-server --bind 127.0.0.1 --port "$port" --dir "$d" --cluster-enabled yes \
    --cluster-config-file "$d/nodes.conf" --daemonize no --save "" --appendonly no \
    --logfile "$d/redis.log" &
  PIDS+=($!)
done
for port in 27001 27002 27003 27004 27005 27006 27007; do
  for _ in $(seq 100); do redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
done

wait_ok() {
  for _ in $(seq 200); do
    ok=1
    for port in "$@"; do
      [[ $(redis-cli -h 127.0.0.1 -p "$port" cluster info) == *cluster_state:ok* ]] || ok=0
    done
    [ $ok = 1 ] && return 0
    sleep 0.1
  done
  echo "cluster did not reach cluster_state:ok" >&2; return 1
}

# Cluster A: the stock tool's slot split.
redis-cli --cluster create 127.0.0.1:27001 127.0.0.1:27002 127.0.0.1:27003 \
  --cluster-replicas 0 --cluster-yes > "$WORK/cluster-create.log"
wait_ok 27001 27002 27003
python3 "$HERE/capture.py" --keys "$PEERS/keys.json" --workdir "$WORK" --ports 27001,27002,27003 \
  --id redis-cluster-3 --out "$VEC/redis-cluster-3.json" \
  --description "Redis Cluster, 3 masters (127.0.0.1:27001-27003) with the slot split of redis-cli --cluster create; slot from CLUSTER KEYSLOT, owner from a real GET (MOVED redirect or local answer)"

# Cluster B: interleaved, uneven slot ranges assigned by hand.
cli() { redis-cli -h 127.0.0.1 -p "$@"; }
cli 27004 cluster addslotsrange 0 999 5000 5999 12000 16383 >/dev/null
cli 27005 cluster addslotsrange 1000 2999 9000 9999 >/dev/null
cli 27006 cluster addslotsrange 3000 3000 3001 4999 6000 6999 10000 11999 >/dev/null
cli 27007 cluster addslotsrange 7000 8999 >/dev/null
for port in 27005 27006 27007; do cli 27004 cluster meet 127.0.0.1 "$port" >/dev/null; done
wait_ok 27004 27005 27006 27007
python3 "$HERE/capture.py" --keys "$PEERS/keys.json" --workdir "$WORK" --ports 27004,27005,27006,27007 \
  --id redis-cluster-4-split --out "$VEC/redis-cluster-4-split.json" \
  --description "Redis Cluster, 4 masters (127.0.0.1:27004-27007) with interleaved uneven slot ranges set by CLUSTER ADDSLOTSRANGE; slot from CLUSTER KEYSLOT, owner from a real GET (MOVED redirect or local answer)"
