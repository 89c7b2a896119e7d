# keyroute — every target installs what it needs (idempotently) before it runs.
# `make demo` runs the demo, `make test` runs every test of every crate and surface (what CI
# runs), `make check` is the quick loop (format, lint, unit tests), `make help` lists the rest.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
CARGO := cargo
export CARGO_TERM_COLOR ?= never

.PHONY: all help setup demo test check lint codegen codegen-check test-rust nostd doc test-naive test-peers \
	test-ffi test-py test-js test-fuzz-smoke test-miri-quick miri fuzz test-cross wasm playground install bench bench-migrate bench-views incident \
	dist test-dist test-msrv test-docs test-fresh vectors conformance-peers fmt clean

all: test

help: ## This list.
	@awk -F ':.*## ' '/^[a-z-]+:.*## / { printf "  make %-20s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)

setup: ## The pinned Rust toolchain, its components and targets (rust-toolchain.toml).
	@scripts/setup.sh

demo: setup ## What adding one node does to a cache, per algorithm (keyroute demo).
	$(CARGO) run --release --locked -p keyroute-cli -- demo

test: setup lint test-rust nostd doc test-naive test-peers test-ffi test-py test-js test-adapters test-dist test-docs test-msrv test-fuzz-smoke test-miri-quick ## Every test of every crate and surface (CI).

check: setup ## The quick loop: format, clippy, generated files, unit tests (no surfaces, no peers).
	$(CARGO) fmt --all --check
	$(CARGO) clippy --workspace --all-targets --locked -- -D warnings
	$(CARGO) xtask codegen --check
	$(CARGO) test --workspace --lib --locked

lint: setup ## rustfmt, clippy, ruff, shellcheck, and every generated file current.
	scripts/lint.sh

codegen: ## Regenerate every file generated from the registry and the error table.
	$(CARGO) xtask codegen

codegen-check: ## Fail when a generated file is stale.
	$(CARGO) xtask codegen --check

test-rust: ## Every Rust test, doc test and the Rust conformance runner (and audit/migrate on real memcached and Redis).
	scripts/fleet-servers.sh
	$(CARGO) test --workspace --locked

nostd: ## The core builds for a target with no std at all (wasm32 has std).
	$(CARGO) build -p keyroute --target thumbv7em-none-eabihf --locked

doc: ## rustdoc without warnings.
	RUSTDOCFLAGS="-D warnings" $(CARGO) doc -p keyroute -p keyroute-bindings -p keyroute-fleet --no-deps --locked

test-naive: ## An independent Python implementation of conformance/SPEC.md agrees with the native vectors.
	conformance/naive/run.sh

test-peers: ## The peer vectors still match the real peers (library peers re-captured live).
	conformance/peers/recapture-check.sh

test-adapters: setup ## The reference Java adapter passes `keyroute conformance --exec`; its Latin-1 variant gets the key-encoding hint.
	conformance/adapters/java/test.sh

test-ffi: ## The C ABI: header, C99 tests under valgrind and ASan, conformance in C, install, Java.
	ffi/test.sh

test-py: ## Python: pip install ./py in a fresh venv, mypy, stubtest, pytest (live memcached and peers).
	py/test.sh

test-js: ## JavaScript: the addon and WebAssembly, shared tests, live npm peers, Chromium, tsc, installs.
	node/test.sh

dist: setup ## Every release artifact into dist/ (wheel, sdist, npm, C tarball, jar, CLI, crates), with SHA256SUMS.
	scripts/dist/build.sh dist

test-docs: setup ## Every code block of the READMEs and docs/ run from the artifacts in dist/ (scripts/doctest.py).
	scripts/test-docs.sh dist

test-fresh: ## What a brand-new machine sees: .ci/run on a clone of HEAD with empty caches; each phase's time.
	scripts/test-fresh.sh

test-dist: setup ## Every artifact in dist/ installed from itself in a clean place, no Rust on PATH.
	scripts/dist/test.sh dist

test-msrv: ## The published crates build with their rust-version (1.88), the core not with the release before.
	scripts/msrv.sh

test-fuzz-smoke: ## Every committed fuzz reproducer, then each fuzz target for 15 s from its seeds.
	scripts/fuzz.sh smoke

test-miri-quick: ## Miri over the C ABI's boundary tests and the core's batch path (every `unsafe` block).
	scripts/miri.sh quick

miri: ## Miri over every test that reaches keyroute's `unsafe` (C ABI, shared routers, the core's ring).
	scripts/miri.sh

FUZZ_SECONDS ?= 3600
fuzz: ## Long fuzzing: each target for FUZZ_SECONDS (3600) or 10 million executions.
	scripts/fuzz.sh long $(FUZZ_SECONDS)

test-cross: ## s390x, i686 and aarch64 under qemu: the corpus and the core's tests; then every arm64, musl and Windows artifact of dist/ on its platform (qemu, wine).
	scripts/test-cross.sh

wasm: ## Build the WebAssembly backend into node/wasm (wasm-bindgen CLI and binaryen installed first).
	wasm/build.sh

PORT ?= 8080
playground: wasm ## Serve the playground (wasm/www) on 127.0.0.1:$(PORT).
	PORT=$(PORT) node wasm/serve.mjs

PREFIX ?= /usr/local
install: setup ## The C library (SONAME'd), header, pkg-config, CMake package, corpus: make install PREFIX=/opt/keyroute [LIBDIR=lib].
	$(MAKE) -C ffi install PREFIX=$(PREFIX)

bench: setup ## Criterion benchmarks beside the peers, every median as a ratio to F.
	$(CARGO) bench -p keyroute --bench route --locked -- $(BENCH_ARGS) | tee target/bench-route.txt
	python3 scripts/bench_report.py target/criterion target/bench-route.txt

bench-migrate: ## keyroute migrate's copy against a naive get-then-add loop, keys/s and MB/s, memcached and Redis.
	scripts/bench-migrate.sh

incident: ## The 3 → 4 node cache incident on real memcached and Redis, full size: docs/incident/ (table, plots, JSON).
	scripts/fleet-servers.sh
	KEYROUTE_INCIDENT_KEYS=100000 KEYROUTE_INCIDENT_READS=200000 KEYROUTE_INCIDENT_OUT=$(CURDIR)/docs/incident \
		$(CARGO) test --release --locked -p keyroute-cli --test incident -- --nocapture

bench-views: setup ## A route through a live view against a plain route (ratios, Rust and Node); publish-to-applied over 50 watchers of a file, and of etcd (4 processes).
	$(CARGO) bench -p keyroute-bindings --bench view --locked
	$(CARGO) bench -p keyroute-fleet --bench convergence --locked
	scripts/fleet-servers.sh
	$(CARGO) test --release -p keyroute-fleet --test fleet_of_fifty --locked -- --nocapture
	cd node && npm ci --loglevel=error && npm run --silent build-native && ../wasm/build.sh && node bench.js --views

vectors: ## Regenerate the native vector files (review the diff: a moved key needs a new scheme version).
	KEYROUTE_BLESS=1 $(CARGO) test -p keyroute-bindings --test native_vectors --locked

conformance-peers: ## Re-capture every peer vector file from the real peers (several minutes).
	conformance/peers/capture-all.sh

fmt: ## Format the Rust code.
	$(CARGO) fmt --all

clean: ## Remove build outputs.
	$(CARGO) clean
