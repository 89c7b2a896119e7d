# keyroute — every target installs what it needs (idempotently) before it runs.
# `make demo` runs the demo, `make test` runs every test of every crate and surface.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
CARGO := cargo
export CARGO_TERM_COLOR ?= never

.PHONY: all demo test setup lint test-rust nostd doc test-naive test-peers test-ffi test-py install bench vectors conformance-peers fmt clean

all: test

## Toolchain, components and targets pinned in rust-toolchain.toml.
setup:
	@scripts/setup.sh

demo: setup
	$(CARGO) run --release --locked -p keyroute-cli -- demo

test: setup lint test-rust nostd doc test-naive test-peers test-ffi test-py

lint:
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings

test-rust:
	$(CARGO) test --workspace --locked

## The core is no_std: build it for a target that has no std at all (wasm32 has std).
nostd:
	$(CARGO) build -p keyroute --target thumbv7em-none-eabihf --locked

doc:
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p keyroute -p keyroute-bindings --no-deps --locked

## An independent Python implementation of conformance/SPEC.md agrees with the native vectors.
test-naive:
	conformance/naive/run.sh

## The peer vectors still match the real peers: re-capture the library peers live.
test-peers:
	conformance/peers/recapture-check.sh

## The C ABI: header freshness, C99 tests under valgrind (static and shared), the conformance
## runner in C, the quickstart, pkg-config install, and Java (JNA) against the real peers.
test-ffi:
	ffi/test.sh

## Python: pip install ./py in a fresh venv, mypy, pytest (incl. live memcached and peers).
test-py:
	py/test.sh

## The C library, header and pkg-config file: `make install PREFIX=/opt/keyroute` (see ffi/Makefile).
PREFIX ?= /usr/local
install: setup
	$(MAKE) -C ffi install PREFIX=$(PREFIX)

## Criterion benchmarks side by side with the peers, then every median as a ratio to F.
bench: setup
	$(CARGO) bench -p keyroute --bench route --locked -- $(BENCH_ARGS) | tee target/bench-route.txt
	python3 scripts/bench_report.py target/criterion target/bench-route.txt

## Regenerate the native vector files (then review the diff: a change that moves a key needs a
## new scheme version, see conformance/SPEC.md).
vectors:
	KEYROUTE_BLESS=1 $(CARGO) test -p keyroute-bindings --test native_vectors --locked

## Re-capture every peer vector file from the real peers (installs them; several minutes).
conformance-peers:
	conformance/peers/capture-all.sh

fmt:
	$(CARGO) fmt --all

clean:
	$(CARGO) clean
