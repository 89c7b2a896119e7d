"""A Ruby service and a Python service on the same memcached fleet: a real Dalli client
(Debian's ruby-dalli 3.0, its own ``Dalli::Ring``) writes 100,000 keys to memcached servers
started by the ``memcached`` fixture, and pymemcache's ``HashClient`` with
``keyroute.pymemcache.Hasher.factory("dalli")`` reads every one of them back. The Ruby side is
``tests/ruby/dalli_writer.rb``; py/test.sh installs ruby and ruby-dalli.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from keyroute.pymemcache import Hasher
from pymemcache.client.hash import HashClient

WRITER = Path(__file__).resolve().parent / "ruby" / "dalli_writer.rb"
N_KEYS = 100_000


def test_python_reads_every_key_dalli_wrote(memcached: Any, figure: Any) -> None:
    if shutil.which("ruby") is None:
        pytest.fail("ruby and ruby-dalli are needed (py/test.sh installs them)")
    servers = memcached.start(3)
    names = [f"{host}:{port}" for host, port in servers]
    prefix = "rb:"
    out = subprocess.run(
        ["ruby", "-W0", str(WRITER), prefix, str(N_KEYS), *names], check=True, capture_output=True, text=True
    )
    assert out.stdout.strip() == f"wrote {N_KEYS} keys", out.stdout + out.stderr

    keys = [f"{prefix}{i}" for i in range(N_KEYS)]
    python = HashClient(servers, hasher=Hasher.factory("dalli"), default_noreply=False)
    got = python.get_many(keys)
    python.close()
    misses = [k for k in keys if got.get(k) != f"v:{k}".encode()]
    default = HashClient(servers, default_noreply=False)
    sample = keys[:10_000]
    default_hits = len(default.get_many(sample))
    default.close()
    figure(
        f"ruby fleet: {N_KEYS:,} keys written by Dalli (Ruby, Dalli::Ring), read by pymemcache "
        f"HashClient + keyroute Hasher('dalli'): {N_KEYS - len(misses):,} hits, {len(misses)} misses "
        f"(pymemcache's default hasher: {default_hits / len(sample):.1%} of 10,000)"
    )
    assert not misses, f"{len(misses)} keys missed, first {misses[:3]}"
    assert default_hits < 0.6 * len(sample), "the default hasher should not find Dalli's keys"
