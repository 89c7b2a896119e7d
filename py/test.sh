#!/usr/bin/env bash
# Everything the Python surface needs for CI, idempotently, on a fresh Debian 12 as root:
# memcached (Debian's, only when missing), a venv at build/py-venv with ./py[test], then
# mypy (package + stubs checked against the built module) and pytest: every file of py/tests,
# among them the conformance corpus through the package's runner (test_conformance.py) and
# `python -m keyroute.conformance` itself (test_conformance_cli.py: the shipped corpus, filters,
# JUnit XML, tampered vectors), and the drop-ins live against the real peers
# (test_uhashring_dropin.py, test_uhashring_monkey.py, test_pymemcache_rendezvous.py), pymemcache's
# and uhashring's own tests against keyroute's drop-ins (test_peer_suites.py), and a spymemcached client (Java) writing what
# pymemcache with keyroute's Hasher reads back (test_mixed_fleet.py), and the same with Dalli
# (Ruby) as the writer (test_ruby_fleet.py).
set -euo pipefail
command -v memcached >/dev/null || [ -x /usr/bin/memcached ] || NEED_MEMCACHED=1
source "$(dirname "$0")/setup-venv.sh"   # cd's to the repo root; sets VENV
if [ -n "${NEED_MEMCACHED:-}" ]; then
  echo "py: installing memcached"
  apt_install memcached
fi
# The views tests' etcd (tests/test_views.py starts its own on free ports).
command -v etcd >/dev/null || { echo "py: installing etcd-server"; apt_install etcd-server; }
# The mixed-fleet test's Java writer (tests/java): a JDK and Debian's spymemcached jar.
java_need=()
[ -f /usr/share/java/spymemcached.jar ] || java_need+=(libspymemcached-java)
command -v javac >/dev/null && command -v java >/dev/null || java_need+=(default-jdk-headless)
if ((${#java_need[@]})); then
  echo "py: installing ${java_need[*]}"
  apt_install "${java_need[@]}"
fi
# The Ruby fleet test's writer (tests/ruby): Debian's ruby and ruby-dalli.
apt_install ruby ruby-dalli
# Debian starts the memcached service on install; the tests start their own servers on
# 127.0.0.1:27500-27599 and stop only those.

PY="$VENV/bin/python"
MYPY_CACHE="$ROOT/build/py-mypy-cache"
echo "py: mypy --strict on the installed package"
(cd "$ROOT/build" && "$PY" -m mypy --strict --cache-dir "$MYPY_CACHE" -p keyroute)
echo "py: stubtest (the native module's stub against the built module)"
(cd "$ROOT/build" && "$PY" -m mypy.stubtest keyroute._native)

echo "py: pytest"
set +e
(cd "$ROOT/py" && "$PY" -m pytest -p no:cacheprovider tests)
status=$?
set -e
if [ "$status" -eq 5 ]; then
  echo "py: pytest collected no tests: failing" >&2
  exit 1
fi
exit "$status"
