#!/usr/bin/env bash
# `make miri` (scripts/miri.sh): the tests that reach keyroute's `unsafe` code, run under Miri
# (the pinned nightly's interpreter, which fails on undefined behaviour: out-of-bounds or
# dangling accesses, invalid references, data races, leaks, provenance errors).
# `make test` runs `scripts/miri.sh quick`: the C ABI's tests and the core's batch test.
#
# Which tests, and why these: the `unsafe` blocks of the C ABI (ffi/src: raw pointers and
# spans, handles as reference counts, the thread-local error message, the shared router's swap
# across threads) are all reached by ffi/src/miri_tests.rs, which calls every entry point as C
# would; keyroute-bindings has no `unsafe` of its own but holds the shared router (arc-swap's
# `unsafe`, swapped under reader threads) and the spec and key paths every surface takes, so
# those unit tests run; the core's one `unsafe` (a cache prefetch hint in the ring's batch
# lookup) is reached by the ring's batch test (the other ring tests build hundreds of
# thousands of points, which would take Miri an hour, and reach no `unsafe`). The property tests
# and the conformance corpus are left to the native runs: under Miri (about 1000× slower) they
# would take hours and reach no `unsafe` the subset does not. The Python and Node modules call
# into their runtimes' C APIs, which Miri cannot run; their threads are checked by stress tests
# instead (py/tests/test_threads.py, node/test/workers.test.js).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/nightly.sh
ensure_nightly miri rust-src
# Isolation off: a live view records the wall-clock time it applied each view (the C ABI's
# live-view test publishes), which an isolated Miri refuses to read.
export MIRIFLAGS="${MIRIFLAGS:--Zmiri-strict-provenance -Zmiri-disable-isolation}"
run() { echo "miri: $*"; cargo "+$NIGHTLY" miri test --locked -q "$@"; }
case ${1:-all} in
  quick) # `make test`, about 40 s warm: every `unsafe` block of ffi/src, and the core's
    run -p keyroute-ffi --lib miri_tests
    run -p keyroute --lib ring::tests::batches ;;
  all) # `make miri`, about 4 minutes warm: also the bindings' shared router and spec paths
    run -p keyroute-ffi --lib miri_tests
    run -p keyroute --lib ring::tests::batches
    run -p keyroute-bindings --lib -- shared:: spec:: keys:: limits:: owned:: server:: error:: ;;
  *) echo "usage: scripts/miri.sh [quick|all]" >&2; exit 2 ;;
esac
echo "miri: ok"
