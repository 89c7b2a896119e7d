#!/usr/bin/env bash
# `make bench-migrate`: keys/s and MB/s of keyroute's migration copy on loopback, against a
# naive get-then-add loop measured in the same run, for memcached and Redis
# (cli/examples/bench_migrate.rs; medians of ROUNDS rounds, KEYS keys of VALUE bytes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fleet-servers.sh
cargo run --release --locked -p keyroute-cli --example bench_migrate
