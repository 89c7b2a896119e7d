"""keyroute.audit and keyroute.migrate from Python against real memcached servers started by
the test on 127.0.0.1: the same Rust code as ``keyroute audit`` and ``keyroute migrate``."""

from __future__ import annotations

from typing import Any

import keyroute
import pytest
from pymemcache.client.base import Client

N_KEYS = 5_000


def test_audit_and_migrate_a_scale_out(memcached: Any, figure: Any) -> None:
    servers = memcached.start(4)
    ids = [f"{h}:{p}" for h, p in servers]
    clients = {i: Client(s) for i, s in zip(ids, servers)}
    for c in clients.values():
        c.flush_all(noreply=False)
    a = keyroute.Ring(ids[:3], points=160)
    b = keyroute.Ring(ids, points=160, version=2)
    keys = [f"user:{i}" for i in range(N_KEYS)]
    for k in keys:
        clients[a.route(k)].set(k, k.encode(), expire=600, noreply=False)

    before = keyroute.audit(a)
    assert (before["keys"], before["misplaced"]) == (N_KEYS, 0)
    against_b = keyroute.audit({"algorithm": "ring", "nodes": [{"id": i} for i in ids]}, samples=2)
    moving = [k for k in keys if a.route(k) != b.route(k)]
    assert against_b["misplaced"] == len(moving) > 0
    assert all(len(n["samples"]) <= 2 for n in against_b["nodes"])

    dry = keyroute.migrate(a, b, dry_run=True)
    assert (dry["dry_run"], dry["moved"], dry["copied"]) == (True, len(moving), 0)
    report = keyroute.migrate(a, b, delete_old=True, concurrency=2)
    assert (report["moved"], report["copied"], report["verified"], report["missing"]) == (
        len(moving), len(moving), len(moving), 0,
    )
    assert report["after"]["misplaced"] == 0 and report["plan_check"]["disagree"] == 0
    assert all(clients[b.route(k)].get(k) == k.encode() for k in keys), "every key on its new owner"
    again = keyroute.migrate(a, b)
    assert again["copied"] == 0, "a re-run copies nothing twice"
    figure(f"fleet ops: keyroute.migrate moved {report['copied']:,} of {N_KEYS:,} keys (3 -> 4 memcached), "
           f"{report['bytes_copied']:,} bytes, every one verified on its new owner")


def test_bad_arguments_are_typed_errors() -> None:
    a = keyroute.Ring(["127.0.0.1:1"], points=160)
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.audit(a, backend="mongodb")
    with pytest.raises(keyroute.InvalidParameterError):
        keyroute.migrate(a, a, concurrency=0)
    with pytest.raises(keyroute.InvalidArgumentError):
        keyroute.migrate(a, a, step=(0.5, 0.2))
    with pytest.raises(keyroute.IoError):
        keyroute.audit(a)  # nothing listens on port 1
