#!/usr/bin/env bash
# Streaming throughput of `keyroute route`: 10,000,000 keys from a file on stdin, owners to
# stdout, through a release build, for each --input mode (lines, hex, ndjson: the same keys).
# Prints each run, the median of 3 in keys per second, and each mode's ratio to lines.
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

# The same keys for --input hex and --input ndjson (each key as hex, as a JSON string).
for mode in hex ndjson; do
    if [[ ! -s "$FILE.$mode" ]]; then
        python3 - "$FILE" "$mode" <<'PY'
import json, sys
path, mode = sys.argv[1], sys.argv[2]
with open(path, "rb") as src, open(path + "." + mode, "w") as out:
    for line in src:
        key = line.rstrip(b"\n")
        out.write((key.hex() if mode == "hex" else json.dumps(key.decode())) + "\n")
PY
    fi
done

echo "keyroute route: $KEYS keys from $FILE ($(du -h "$FILE" | cut -f1)), topology $TOPOLOGY, stdout to $OUT"
declare -A medians
for mode in lines hex ndjson; do
    input=$FILE
    [[ $mode == lines ]] || input=$FILE.$mode
    rates=()
    for run in 1 2 3; do
        start=$(date +%s%N)
        "$BIN" route -t "$TOPOLOGY" --input "$mode" < "$input" > "$OUT"
        end=$(date +%s%N)
        rate=$(( KEYS * 1000000000 / (end - start) ))
        secs=$(awk -v ns=$(( end - start )) 'BEGIN { printf "%.3f", ns / 1e9 }')
        echo "  --input $mode, run $run: ${secs} s, $rate keys/s"
        rates+=("$rate")
    done
    medians[$mode]=$(printf '%s\n' "${rates[@]}" | sort -n | sed -n 2p)
done
for mode in lines hex ndjson; do
    ratio=$(awk -v m="${medians[$mode]}" -v l="${medians[lines]}" 'BEGIN { printf "%.2f", m / l }')
    echo "median --input $mode: ${medians[$mode]} keys/s (${ratio}x --input lines)"
done
