#!/usr/bin/env bash
# Streaming throughput of `keyroute route`: 10,000,000 keys from a file on stdin, owners to
# stdout, through a release build. Prints each run and the median of 3 in keys per second.
#
#   cli/bench.sh                          # 4-node ring-v1 topology, output to /dev/null
#   cli/bench.sh path/to/topology.json    # another topology
#   OUT=target/bench-cli/owners.tsv cli/bench.sh   # write the owners to a file instead
set -euo pipefail
cd "$(dirname "$0")/.."

TOPOLOGY="${1:-cli/topologies/4-nodes.json}"
KEYS=10000000
DIR=target/bench-cli
FILE="$DIR/keys-$KEYS.txt"
OUT="${OUT:-/dev/null}"

cargo build --release --locked -p keyroute-cli --quiet
BIN=target/release/keyroute

mkdir -p "$DIR"
if [[ ! -s "$FILE" ]]; then
    # Distinct keys shaped like real ones (user:<10 digits>), in a scrambled order.
    python3 - "$FILE" "$KEYS" <<'PY'
import sys
path, n = sys.argv[1], int(sys.argv[2])
with open(path, "w") as f:
    step = 1 << 20
    for start in range(0, n, step):
        f.write("".join("user:%010d\n" % (i * 2654435761 % 10**10) for i in range(start, min(n, start + step))))
PY
fi

echo "keyroute route: $KEYS keys from $FILE ($(du -h "$FILE" | cut -f1)), topology $TOPOLOGY, stdout to $OUT"
rates=()
for run in 1 2 3; do
    start=$(date +%s%N)
    "$BIN" route -t "$TOPOLOGY" < "$FILE" > "$OUT"
    end=$(date +%s%N)
    rate=$(( KEYS * 1000000000 / (end - start) ))
    secs=$(awk -v ns=$(( end - start )) 'BEGIN { printf "%.3f", ns / 1e9 }')
    echo "  run $run: ${secs} s, $rate keys/s"
    rates+=("$rate")
done
median=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n 2p)
echo "median: $median keys/s"
