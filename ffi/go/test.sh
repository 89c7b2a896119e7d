#!/usr/bin/env bash
# The Go package's tests (idempotent; Debian 12, run as root), against an installed C library:
#
#   ffi/go/test.sh [--prefix DIR --libdir LIBDIR]
#
# With --prefix, the library installed there (by `make -C ffi install`, as ffi/test.sh does;
# LIBDIR relative to it, default lib); without, the debug build installed into
# build/ffi/go-prefix first. Steps:
#
#   1. installs Debian's Go 1.19, pkg-config, memcached, etcd-server (view_test.go starts a member
#      on free ports of 127.0.0.1 for its watches) and the peers' Go sources (gomemcache,
#      groupcache: ./debian-sources.sh gives them the go.mod a module replace needs);
#   2. gofmt and go vet over the package and ffi/go/peers;
#   3. go test (every method, every error kind by errors.Is, lifetimes, leaks, the godoc
#      examples, live views, watches of a file and of a real etcd with their census, and the
#      whole conformance corpus as installed: `pkg-config --variable=vectorsdir`)
#      linked with the shared library, again with -tags keyroute_static (libkeyroute.a), and the
#      concurrency tests once more under the race detector;
#   4. ffi/go/peers: 100,000 keys set through Debian's gomemcache with keyroute's ServerSelector
#      on real memcached servers started on 127.0.0.1, each found on the server keyroute routes
#      it to.
#
# No module proxy is used (GOPROXY=off): the package needs no third-party module, and the peers
# are Debian's sources. Closes with "go: N passed, M failed" (steps); exits non-zero on a failure.
set -euo pipefail
GO_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$GO_DIR/../.." && pwd)"
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"

prefix="" libdir="lib"
while (($#)); do
  case "$1" in
    --prefix) prefix="$2"; shift 2 ;;
    --libdir) libdir="$2"; shift 2 ;;
    *) echo "usage: ffi/go/test.sh [--prefix DIR --libdir LIBDIR]" >&2; exit 2 ;;
  esac
done

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. packages
apt_install golang-go pkg-config memcached etcd-server # etcd: view_test.go starts one for its watches
"$GO_DIR/debian-sources.sh" >/dev/null
if [ -z "$prefix" ]; then
  prefix="$ROOT/build/ffi/go-prefix"
  make -s -C "$ROOT/ffi" install PREFIX="$prefix" LIBDIR="$libdir" PROFILE=debug
fi
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" LD_LIBRARY_PATH="$prefix/$libdir"
export GOPROXY=off GOFLAGS=-mod=mod GO111MODULE=on CGO_ENABLED=1
# Go's build cache does not key a cgo package on pkg-config's output (golang/go#24544): a
# package compiled against an earlier install, since removed, would be linked with that
# install's -L and .a paths. The install's include directory in CGO_CPPFLAGS, which is part of
# the key, makes each install its own cache entry.
export CGO_CPPFLAGS="-I$prefix/include"
KEYROUTE_VECTORS="$(pkg-config --variable=vectorsdir keyroute)/v1"
KEYROUTE_MIN_FILES="$(find "$ROOT/conformance/vectors/v1" -maxdepth 1 -name '*.json' | wc -l)"
KEYROUTE_EXPECT_VERSION="$("$ROOT/scripts/dist/version.sh")"
export KEYROUTE_VECTORS KEYROUTE_MIN_FILES KEYROUTE_EXPECT_VERSION
echo "go: $(go version), keyroute $(pkg-config --modversion keyroute) from $prefix"

# ---------------------------------------------------------------- 2. format and vet
unformatted="$(cd "$GO_DIR" && gofmt -l .)"
if [ -z "$unformatted" ]; then
  pass "gofmt"
else
  fail "gofmt: $unformatted"
fi
if (cd "$GO_DIR" && go vet ./...) && (cd "$GO_DIR/peers" && go vet ./...); then
  pass "go vet (package, peers)"
else
  fail "go vet"
fi

# ---------------------------------------------------------------- 3. the package
summary() { grep -E '^(ok|FAIL|conformance:|gomemcache)' "$1" || true; }
# The failing tests' lines (the first 80), else the log's end; no pipe, so no SIGPIPE under pipefail.
failures() {
  local found
  found=$(grep -E -A12 -e '^\s*--- FAIL' -e '^panic' "$1" || true)
  if [ -n "$found" ]; then sed -n 1,80p <<<"$found" >&2; else tail -n 40 "$1" >&2; fi
}
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
if (cd "$GO_DIR" && go test -count=1 -v . >"$log" 2>&1); then
  summary "$log"
  pass "go test: $(grep -c '^--- PASS' "$log") tests and examples, the corpus ($KEYROUTE_MIN_FILES files) as installed (shared library)"
else
  failures "$log"
  fail "go test (shared library)"
fi
if (cd "$GO_DIR" && go test -count=1 -v -tags keyroute_static -run 'Conformance|Codes|ErrorKinds|Example' . >"$log" 2>&1); then
  summary "$log"
  pass "go test -tags keyroute_static: $(grep -c '^--- PASS' "$log") tests and examples (libkeyroute.a)"
else
  failures "$log"
  fail "go test -tags keyroute_static"
fi
if (cd "$GO_DIR" && go test -count=1 -race -run 'CloseRaces|Transition|RouteAgrees|ConsistentHash|ServerSelector|LiveView|Watch' . >"$log" 2>&1); then
  summary "$log"
  pass "go test -race (lifetimes, transitions, batches, live views and watches)"
else
  failures "$log"
  fail "go test -race"
fi

# ---------------------------------------------------------------- 4. inside the peers
if (cd "$GO_DIR/peers" && go test -count=1 -v . >"$log" 2>&1); then
  summary "$log"
  pass "gomemcache with keyroute's ServerSelector on real memcached (100,000 keys per topology)"
else
  failures "$log"
  fail "ffi/go/peers (gomemcache on memcached)"
fi

echo "go: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
