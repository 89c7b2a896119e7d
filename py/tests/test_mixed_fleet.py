"""A Java service and a Python service on the same memcached fleet: a real spymemcached
``MemcachedClient`` (its own ketama ``KetamaNodeLocator``) writes 100,000 keys to memcached
servers the test starts on 127.0.0.1, and a real pymemcache ``HashClient`` with
``keyroute.pymemcache.Hasher.factory("spymemcached")`` reads every one of them back; again with
servers on the IPv6 loopback ``::1`` (20,000 keys), where spymemcached names each server as
Java prints an IPv6 address (``[0:0:0:0:0:0:0:1]:27500``) and pymemcache as ``::1:27500``. The Java
side is ``tests/java/SpymemcachedWriter.java``, compiled here against Debian's spymemcached jar
(py/test.sh installs it and a JDK)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from keyroute.pymemcache import Hasher
from pymemcache.client.hash import HashClient

SPYMEMCACHED_JAR = Path("/usr/share/java/spymemcached.jar")
WRITER = Path(__file__).resolve().parent / "java" / "SpymemcachedWriter.java"
N_KEYS = 100_000


def _java(tmp_path: Path) -> Path:
    """The writer compiled into ``tmp_path`` (a missing JDK or jar fails the test)."""
    if shutil.which("javac") is None or not SPYMEMCACHED_JAR.exists():
        pytest.fail("javac and Debian's spymemcached jar are needed (py/test.sh installs them)")
    classes = tmp_path / "classes"
    subprocess.run(
        ["javac", "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-cp", str(SPYMEMCACHED_JAR), "-d", str(classes), str(WRITER)],
        check=True,
    )
    return classes


@pytest.mark.parametrize(("host", "n_keys"), [("127.0.0.1", N_KEYS), ("::1", 20_000)])
def test_python_reads_every_key_java_wrote(memcached: Any, tmp_path: Path, figure: Any, host: str, n_keys: int) -> None:
    classes = _java(tmp_path)
    servers = memcached.start(4, host)
    names = [f"{host}:{port}" for host, port in servers]
    prefix = "mixed:"
    out = subprocess.run(
        ["java", "-cp", f"{SPYMEMCACHED_JAR}:{classes}", "SpymemcachedWriter", prefix, str(n_keys), *names],
        check=True,
        capture_output=True,
        text=True,
    )
    assert out.stdout.strip() == f"wrote {n_keys} keys", out.stdout + out.stderr

    keys = [f"{prefix}{i}" for i in range(n_keys)]
    python = HashClient(servers, hasher=Hasher.factory("spymemcached"), default_noreply=False)
    got = python.get_many(keys)
    python.close()
    misses = [k for k in keys if got.get(k) != f"v:{k}".encode()]
    # pymemcache's own hasher over the same servers, for contrast: it finds few of them.
    default = HashClient(servers, default_noreply=False)
    sample = keys[:10_000]
    default_hits = len(default.get_many(sample))
    default.close()
    figure(
        f"mixed fleet on {host}: {n_keys:,} keys written by spymemcached (Java, ketama), read by pymemcache "
        f"HashClient + keyroute Hasher('spymemcached'): {n_keys - len(misses):,} hits, {len(misses)} misses "
        f"(pymemcache's default hasher: {default_hits / len(sample):.1%} of 10,000)"
    )
    assert not misses, f"{len(misses)} keys missed, first {misses[:3]}"
    assert default_hits < 0.5 * len(sample), "the default hasher should not find spymemcached's keys"
