#!/usr/bin/env bash
# Every test of the C ABI, for CI and for people (idempotent; Debian 12, run as root):
#
#   1. installs what it needs with apt (only when something is missing);
#   2. builds libkeyroute (debug) and checks that the committed header is what
#      `cargo xtask codegen` generates from ffi/src and the error table today;
#   3. compiles the C tests with -std=c99 -pedantic -Wall -Wextra -Werror, links each against
#      the static and the shared library, and runs them under valgrind (and once more under
#      AddressSanitizer + UBSan where it works): unit, bad input, threads, swap stress (fewer
#      swaps under valgrind), conformance, views (a live view, a watched file, and a real etcd
#      this script starts on a free port of 127.0.0.1); then natively: swap stress (with its VmRSS bound) and
#      the memory-limit test (setrlimit and injected allocation failures, which valgrind and
#      ASan cannot run);
#   4. compiles and runs the quickstart, installs to a temporary prefix with
#      `make -C ffi install` (LIBDIR=lib/x86_64-linux-gnu: ffi/install.sh, as the release
#      tarball, which scripts/dist/test-c.sh tests with CMake), checks the versioned library
#      names and the installed corpus, and compiles the quickstart again through pkg-config;
#   5. compiles the Java package and runs its tests: its own (every method and error kind), the
#      whole conformance corpus, views (a file and the etcd of step 3), keyroute through JNA
#      against spymemcached and Guava, and the
#      spymemcached NodeLocator in a real MemcachedClient against memcached servers it starts;
#   6. runs the Go package's tests against the install of step 4 (ffi/go/test.sh): its own (views
#      included: a watched file and an etcd of their own), the whole corpus, and gomemcache with
#      keyroute's selector on real memcached;
#   7. runs the PHP package's tests against the same install (ffi/php/test.sh): its own, the
#      whole corpus, and php-memcached against keyroute's libmemcached presets on real memcached;
#   8. runs the .NET assembly's tests against the same install (ffi/dotnet/test.sh): its own
#      (errors by kind, Dispose, finalizers, threads) and the whole corpus, on Mono;
#   9. runs the Ruby gem's tests against the same install (ffi/ruby/test.sh): its own, the whole
#      corpus, and Dalli routed by keyroute on real memcached.
#
# Closes with "ffi: N passed, M failed" (N, M: steps); exits non-zero if any step failed.
set -euo pipefail

source "$(dirname "${BASH_SOURCE[0]}")/env.sh"
LIB="$TARGET_DIR/debug"
VECTORS="$ROOT/conformance/vectors/v1"
JOBS="$(nproc 2>/dev/null || echo 2)"
mkdir -p "$OUT"

steps_passed=0
steps_failed=0
pass() { steps_passed=$((steps_passed + 1)); echo "ok: $1"; }
fail() { steps_failed=$((steps_failed + 1)); echo "FAILED: $1" >&2; }

# ---------------------------------------------------------------- 1. system packages
# shellcheck source=scripts/lib.sh
source "$ROOT/scripts/lib.sh"
need=(gcc make pkg-config valgrind curl libjansson-dev libjna-java libspymemcached-java libguava-java git)
command -v memcached >/dev/null || [ -x /usr/bin/memcached ] || need+=(memcached) # the NodeLocator test's servers
command -v javac >/dev/null && command -v java >/dev/null || need+=(default-jdk-headless)
command -v etcd >/dev/null || [ -x /usr/bin/etcd ] || need+=(etcd-server) # test_views' source
apt_install "${need[@]}"

# ---------------------------------------------------------------- 2. library and header
cargo build -p keyroute-ffi --locked
cargo build -p keyroute-cli --locked --bin keyroute # the NodeLocator test's reference for the native ring
SHARED="$(shared_lib_dir "$LIB")" # $LIB's library, also under its SONAME, for the shared links
if cargo test -p keyroute-ffi --locked >"$OUT/cargo-test.log" 2>&1; then
  grep -E '^test result' "$OUT/cargo-test.log" || true
  pass "libkeyroute (debug) built; Rust boundary tests (allocation-free lookups, panics, header codes)"
else
  tail -n 40 "$OUT/cargo-test.log" >&2
  fail "cargo test -p keyroute-ffi"
fi

# A freshly generated header compared with the committed one (and every other generated file).
if (cd "$ROOT" && cargo xtask codegen --check); then
  pass "ffi/include/keyroute.h is what cargo xtask codegen generates"
else
  fail "ffi/include/keyroute.h is stale: run cargo xtask codegen and commit the header"
fi

# ---------------------------------------------------------------- 3. C tests
CFLAGS=(-std=c99 -pedantic -Wall -Wextra -Werror -g -I"$FFI/include")
TESTS=(test_unit test_bad_input test_threads test_swap_stress conformance test_views) # valgrind, ASan
NATIVE_TESTS=(test_swap_stress test_oom)                                   # neither
VALGRIND_SWAPS=5000 # test_swap_stress under valgrind (~50x slower): 100,000 natively and under ASan
extra_libs() { [ "$1" = conformance ] && pkg-config --libs jansson || true; }
for t in "${TESTS[@]}" test_oom; do
  # shellcheck disable=SC2046
  gcc "${CFLAGS[@]}" -pthread "$FFI/tests/$t.c" "$LIB/libkeyroute.a" $(extra_libs "$t") -ldl -lm -o "$OUT/$t-static"
  # shellcheck disable=SC2046
  gcc "${CFLAGS[@]}" -pthread "$FFI/tests/$t.c" -L"$SHARED" -lkeyroute -Wl,-rpath,"$SHARED" $(extra_libs "$t") -o "$OUT/$t-shared"
done
pass "C tests compile with -std=c99 -pedantic -Wall -Wextra -Werror (static and shared)"

# Runs the jobs below at most $JOBS at a time, each into its own log (its wall time into
# NAME.secs, its status into NAME.rc), then reports in order. The status is read from the file,
# not from `wait`: bash may already have reaped a job that `jobs` saw finish, and then `wait`
# on its pid fails with "not a child of this shell" (seen under heavy load).
job_names=()
job_pids=()
run_job() { # name, command...
  local name="$1"
  shift
  while (($(jobs -rp | wc -l) >= JOBS)); do sleep 0.2; done
  rm -f "$OUT/$name.rc" # a job that dies before writing its status fails
  (
    start=$SECONDS
    rc=0
    "$@" >"$OUT/$name.log" 2>&1 || rc=$?
    echo $((SECONDS - start)) >"$OUT/$name.secs"
    echo "$rc" >"$OUT/$name.rc"
    exit "$rc"
  ) &
  job_names+=("$name")
  job_pids+=("$!")
}
finish_jobs() {
  local i
  for i in "${!job_names[@]}"; do
    wait "${job_pids[$i]}" 2>/dev/null || true
    if [[ "$(cat "$OUT/${job_names[$i]}.rc" 2>/dev/null)" == 0 ]]; then
      echo "--- ${job_names[$i]}: $(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$OUT/${job_names[$i]}.log" | tail -n 1)" \
        "($(cat "$OUT/${job_names[$i]}.secs" 2>/dev/null || echo '?') s)"
      grep -E '^(threads:|[0-9]+ files|swap stress: ([0-9]+ swaps|VmRSS))' "$OUT/${job_names[$i]}.log" || true
      pass "${job_names[$i]}"
    else
      echo "--- ${job_names[$i]}: log follows" >&2
      tail -n 60 "$OUT/${job_names[$i]}.log" >&2
      fail "${job_names[$i]}"
    fi
  done
  job_names=()
  job_pids=()
}

# One etcd member on free ports of 127.0.0.1 for test_views (each run uses keys of its own);
# this script stops it, by its pid, after the Java views test (step 5) has used it too.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
etcd_dir="$(mktemp -d)"
etcd_client="127.0.0.1:$(free_port)"
etcd_peer="http://127.0.0.1:$(free_port)"
"$(command -v etcd || echo /usr/bin/etcd)" --name keyroute-ffi --data-dir "$etcd_dir/data" \
  --listen-client-urls "http://$etcd_client" --advertise-client-urls "http://$etcd_client" \
  --listen-peer-urls "$etcd_peer" --initial-advertise-peer-urls "$etcd_peer" \
  --initial-cluster "keyroute-ffi=$etcd_peer" >"$OUT/etcd.log" 2>&1 &
etcd_pid=$!
stop_etcd() { # idempotent; etcd's exit status (143 after SIGTERM) is not this script's
  if kill "$etcd_pid" 2>/dev/null; then wait "$etcd_pid" 2>/dev/null || true; fi
  rm -rf "$etcd_dir"
}
trap stop_etcd EXIT
for _ in $(seq 600); do
  got="$(curl -s "http://$etcd_client/health" 2>/dev/null || true)"
  [[ $got == *'"health":"true"'* ]] && break
  kill -0 "$etcd_pid" 2>/dev/null || break
  sleep 0.1
done
if [[ $got == *'"health":"true"'* ]]; then
  pass "etcd on $etcd_client (pid $etcd_pid) for test_views"
else
  tail -n 20 "$OUT/etcd.log" >&2
  fail "etcd did not start on $etcd_client"
fi

# The suppression file names the one allocation of Rust's standard library valgrind misreads.
# valgrind runs a program's threads one at a time, and by default hands its lock to whichever
# thread takes it first: test_threads' readers, which loop until the writer is done, once kept
# the writer waiting for 685 s of a cold run (10 s usually). --fair-sched=yes hands it over in
# turn.
VALGRIND=(valgrind -q --error-exitcode=1 --leak-check=full --fair-sched=yes --suppressions="$FFI/tests/valgrind.supp")
args_for() { # test, mode (valgrind, asan, native)
  case "$1:$2" in
    conformance:*) echo "$VECTORS" ;;
    test_views:*) echo "$etcd_client" ;;
    test_swap_stress:valgrind) echo "$VALGRIND_SWAPS --no-rss-check" ;;
  esac
}
for t in "${TESTS[@]}"; do
  for link in static shared; do
    # shellcheck disable=SC2046
    run_job "valgrind-$t-$link" "${VALGRIND[@]}" "$OUT/$t-$link" $(args_for "$t" valgrind)
  done
done
for t in "${NATIVE_TESTS[@]}"; do
  for link in static shared; do
    # shellcheck disable=SC2046
    run_job "native-$t-$link" "$OUT/$t-$link" $(args_for "$t" native)
  done
done

# AddressSanitizer + UBSan, where the toolchain and the sandbox support it.
if echo 'int main(void){return 0;}' | gcc -fsanitize=address,undefined -x c - -o "$OUT/asan-probe" 2>/dev/null &&
  "$OUT/asan-probe" 2>/dev/null; then
  for t in "${TESTS[@]}"; do
    # shellcheck disable=SC2046
    gcc "${CFLAGS[@]}" -pthread -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all \
      "$FFI/tests/$t.c" "$LIB/libkeyroute.a" $(extra_libs "$t") -ldl -lm -o "$OUT/$t-asan"
    # shellcheck disable=SC2046
    run_job "asan-$t" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 "$OUT/$t-asan" $(args_for "$t" asan)
  done
else
  echo "note: AddressSanitizer does not work here; valgrind covers memory errors"
fi
finish_jobs

# ---------------------------------------------------------------- 4. quickstart and install
gcc "${CFLAGS[@]}" "$FFI/examples/quickstart.c" -L"$SHARED" -lkeyroute -Wl,-rpath,"$SHARED" -o "$OUT/quickstart"
if expected="$("${VALGRIND[@]}" "$OUT/quickstart")" && [ -n "$expected" ]; then
  echo "$expected"
  pass "quickstart (build tree, valgrind)"
else
  fail "quickstart (build tree, valgrind)"
fi

prefix="$(mktemp -d)"
trap 'rm -rf "$prefix"; stop_etcd' EXIT
libdir="lib/x86_64-linux-gnu"
make -s -C "$FFI" install PREFIX="$prefix" LIBDIR="$libdir" PROFILE=debug
# shellcheck disable=SC2046
cc -std=c99 -pedantic -Wall -Wextra -Werror "$FFI/examples/quickstart.c" \
  $(PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig" pkg-config --cflags --libs keyroute) -o "$prefix/quickstart"
got="$(LD_LIBRARY_PATH="$prefix/$libdir" "$prefix/quickstart" || true)"
if [ -n "$got" ] && [ "$got" = "$expected" ] && [ -f "$prefix/include/keyroute.h" ] && [ -f "$prefix/$libdir/libkeyroute.a" ]; then
  pass "make -C ffi install PREFIX=... LIBDIR=$libdir; cc quickstart.c \$(pkg-config --cflags --libs keyroute)"
else
  fail "installed quickstart printed: $got"
fi
# The names ffi/build.rs gives (SONAME libkeyroute.so.0.MINOR under 0.x), and the corpus.
version="$(scripts/dist/version.sh)"
soname="libkeyroute.so.$(echo "$version" | awk -F. '$1 == 0 { print "0." $2; next } { print $1 }')"
installed_vectors="$(find "$prefix/share/keyroute/vectors/v1" -name '*.json' | wc -l)"
if [[ $(readelf -d "$prefix/$libdir/libkeyroute.so.$version") == *"Library soname: [$soname]"* ]] &&
  [ "$(readlink "$prefix/$libdir/libkeyroute.so")" = "$soname" ] &&
  [ "$(readlink "$prefix/$libdir/$soname")" = "libkeyroute.so.$version" ] &&
  [[ $(readelf -d "$prefix/quickstart") == *"Shared library: [$soname]"* ]] &&
  [ "$installed_vectors" -eq "$(find "$VECTORS" -name '*.json' | wc -l)" ] &&
  [ -f "$prefix/$libdir/cmake/keyroute/keyroute-config.cmake" ]; then
  pass "installed: libkeyroute.so.$version (SONAME $soname) and its links, the CMake package, $installed_vectors vector files"
else
  fail "installed library names, CMake package or corpus (see $prefix)"
fi

# ---------------------------------------------------------------- 5. Java through the C ABI
# The package (ffi/java/src/main/java) and its tests, compiled with every lint as an error and
# run against the debug library: the package's own tests (every method, every error kind,
# lifetimes, threads), the whole conformance corpus, and agreement with the real peers.
CP="/usr/share/java/jna.jar:/usr/share/java/spymemcached.jar:/usr/share/java/guava.jar"
JAVA_RUN=(java -cp "$CP:$OUT/java" -Djna.library.path="$LIB" -Dkeyroute.expect.version="$("$ROOT/scripts/dist/version.sh")")
rm -rf "$OUT/java"
mapfile -t java_sources < <(find "$FFI/java/src/main/java" "$FFI/java/test" -name '*.java' | LC_ALL=C sort)
if javac -encoding UTF-8 -Xlint:all -Werror -d "$OUT/java" -cp "$CP" "${java_sources[@]}"; then
  pass "Java package and tests compile with -Xlint:all -Werror"
else
  fail "Java package and tests compile"
fi
# A fixed, pre-touched heap: the leak checks read VmRSS, which then moves with native memory only.
if "${JAVA_RUN[@]}" -Xms64m -Xmx64m -XX:+AlwaysPreTouch io.github.keyroute.KeyrouteTest; then
  pass "Java package: every method, every error kind, lifetimes, threads"
else
  fail "Java package tests (ffi/java/test/io/github/keyroute/KeyrouteTest.java)"
fi
python3 "$FFI/java/vectors.py" "$VECTORS"/*.json >"$OUT/java-vectors.tsv"
vector_files=$(find "$VECTORS" -maxdepth 1 -name '*.json' | wc -l)
if "${JAVA_RUN[@]}" ConformanceTest "$OUT/java-vectors.tsv" --min-files "$vector_files"; then
  pass "Java conformance: every vector file"
else
  fail "Java conformance (ffi/java/test/ConformanceTest.java)"
fi
if "${JAVA_RUN[@]}" PeerAgreementTest; then
  pass "Java (JNA) agrees with spymemcached and Guava"
else
  fail "Java (JNA) against spymemcached and Guava"
fi
# Views through the package: a LiveView, a watched file with its census, and the etcd above.
if "${JAVA_RUN[@]}" ViewsTest "$etcd_client"; then
  pass "Java views: LiveView, Watch on a file and on etcd, Views.publish racing, Views.fleetStatus"
else
  fail "Java views (ffi/java/test/ViewsTest.java)"
fi
stop_etcd

# The spymemcached NodeLocator in a real MemcachedClient, against memcached servers it starts
# on 127.0.0.1: 100,000 keys a case, read back from each server.
if "${JAVA_RUN[@]}" SpymemcachedLocatorTest "$LIB/keyroute" 100000; then
  pass "Java spymemcached NodeLocator: keys land where KetamaNodeLocator and keyroute route put them"
else
  fail "Java spymemcached NodeLocator (ffi/java/test/SpymemcachedLocatorTest.java)"
fi

# ---------------------------------------------------------------- 6. Go through the C ABI
# The Go package (ffi/go) against the install of step 4: its tests, the corpus as installed,
# both links, the race detector, and gomemcache on real memcached (ffi/go/test.sh).
if "$FFI/go/test.sh" --prefix "$prefix" --libdir "$libdir"; then
  pass "Go package: every method and error kind, the corpus, gomemcache on memcached (ffi/go/test.sh)"
else
  fail "Go package (ffi/go/test.sh)"
fi

# ---------------------------------------------------------------- 7. PHP through the C ABI
# The PHP package (ffi/php, FFI) against the install of step 4: its tests, the corpus as
# installed, and php-memcached on real memcached (ffi/php/test.sh).
if "$FFI/php/test.sh" --prefix "$prefix" --libdir "$libdir"; then
  pass "PHP package: every method and error kind, the corpus, php-memcached on memcached (ffi/php/test.sh)"
else
  fail "PHP package (ffi/php/test.sh)"
fi

# ---------------------------------------------------------------- 8. .NET through the C ABI
# The assembly (ffi/dotnet, C# on Mono over P/Invoke) against the install of step 4: its tests
# and the corpus as installed (ffi/dotnet/test.sh).
if "$FFI/dotnet/test.sh" --prefix "$prefix" --libdir "$libdir"; then
  pass ".NET assembly: every method and error kind, Dispose and threads, the corpus (ffi/dotnet/test.sh)"
else
  fail ".NET assembly (ffi/dotnet/test.sh)"
fi

# ---------------------------------------------------------------- 9. Ruby through the C ABI
# The Ruby gem (ffi/ruby) against the same install: its tests, the corpus as installed, and
# Dalli routed by keyroute on real memcached (ffi/ruby/test.sh).
if "$FFI/ruby/test.sh" --prefix "$prefix" --libdir "$libdir"; then
  pass "Ruby gem: every method and error kind, the corpus, Dalli on memcached (ffi/ruby/test.sh)"
else
  fail "Ruby gem (ffi/ruby/test.sh)"
fi

echo "ffi: $steps_passed passed, $steps_failed failed"
[ "$steps_failed" -eq 0 ]
