"""Views in Python: a LiveView applying and refusing documents, watches of a file and of a real
etcd (started by the test on 127.0.0.1) with the census, and pymemcache following a view —
ViewHasher inside HashClient, and ViewClient's dual reads and write rules during a rollout —
against real memcached servers started by the test. Waits poll with a generous timeout;
nothing asserts a duration."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import keyroute
import pytest
from keyroute.pymemcache import ViewClient, ViewHasher
from pymemcache.client.base import Client
from pymemcache.client.hash import HashClient

WAIT = 60.0


def spec(nodes: List[str]) -> Dict[str, Any]:
    return {"algorithm": "ring", "nodes": [{"id": n} for n in nodes]}


def doc(version: int, nodes: List[str], to: Optional[List[str]] = None, progress: float = 0.0) -> str:
    d: Dict[str, Any] = {"version": version, "spec": spec(nodes)}
    if to is not None:
        d["rollout"] = {"to": spec(to), "progress": progress}
    return json.dumps(d)


def until(what: str, done: Callable[[], Any]) -> Any:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        value = done()
        if value:
            return value
        time.sleep(0.02)
    pytest.fail(f"not {what} within {WAIT} s")


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def test_a_live_view_applies_newer_versions_and_refuses_the_rest() -> None:
    view = keyroute.LiveView()
    assert (view.version, view.fingerprint, view.last_refusal) == (None, None, None)
    with pytest.raises(keyroute.NoViewError):
        view.route("user:42")
    assert view.publish(doc(1, ["a", "b", "c"])) == 1
    router = keyroute.Router(spec(["a", "b", "c"]))
    assert view.fingerprint == f"{router.fingerprint:016x}", "the text form, as in every document"
    assert re.fullmatch("[0-9a-f]{16}", view.fingerprint or "")
    keys = [f"user:{i}" for i in range(1000)]
    assert [view.route(k) for k in keys] == [router.route(k) for k in keys]
    with pytest.raises(keyroute.StaleVersionError):
        view.publish(doc(1, ["a", "b"]))
    with pytest.raises(keyroute.DuplicateNodeIdError):
        view.publish(doc(2, ["a", "a"]))
    assert (view.version, view.refusals) == (1, 2), "the last good view stays"
    refusal = view.last_refusal or {}
    assert (refusal["version"], refusal["error"], refusal["code"]) == (2, "duplicate_node_id", 5)
    # A rollout half way: keys that cut over name their previous owner.
    assert view.publish(doc(3, ["a", "b", "c"], to=["a", "b", "c", "d"], progress=0.5)) == 3
    assert view.progress == 0.5
    moved = [k for k in keys if view.route_with_fallback(k)[1] is not None]
    assert moved and all(view.route(k) == "d" for k in moved)
    assert json.loads(view.document_json() or "{}")["version"] == 3


def test_a_watched_file_and_its_census(tmp_path: Path) -> None:
    path = tmp_path / "view.json"
    write_atomically(path, doc(1, ["a", "b", "c"]))
    view = keyroute.LiveView()
    with keyroute.watch(str(path), view, census=True, instance="py-1", poll_interval=0.05) as w:
        assert (w.running, w.instance) == (True, "py-1")
        until("version 1 applied", lambda: view.version == 1)
        status = until("in sync", lambda: (s := keyroute.fleet_status(str(path))) and keyroute.converged(s) and s)
        entry = status["instances"][0]
        assert (entry["instance"], entry["surface"], entry["standing"]) == ("py-1", "python", "sync")
        assert entry["fingerprint"] == view.fingerprint == status["fingerprint"]
        # A hand-written document that does not build: refused, and the census says so.
        write_atomically(path, doc(2, []))
        until("a refusal", lambda: view.refusals == 1)
        status = until(
            "refused", lambda: (s := keyroute.fleet_status(str(path)))["instances"][0]["standing"] == "refused" and s
        )
        assert status["problem"]["error"] == "empty_topology" and not keyroute.converged(status)
        assert view.version == 1 and view.route("k") in ("a", "b", "c")
        write_atomically(path, doc(3, ["a", "b", "c", "d"]))
        until("version 3 applied", lambda: view.version == 3)
        until("in sync again", lambda: keyroute.converged(keyroute.fleet_status(str(path))))
    assert not w.running
    assert keyroute.fleet_status(str(path))["instances"] == [], "stopping leaves the census"


def test_an_etcd_source_with_publishers_racing_and_the_census_by_default(etcd: Any) -> None:
    src = etcd.url("/keyroute/py")
    assert keyroute.publish_view(src, doc(1, ["a", "b", "c"]), expect_version=0) == 1
    with pytest.raises(keyroute.VersionConflictError):
        keyroute.publish_view(src, doc(2, ["a", "b"]), expect_version=0)
    with pytest.raises(keyroute.DuplicateNodeIdError):
        keyroute.publish_view(src, {"version": 2, "spec": spec(["a", "a"])}, expect_version=1)
    views = [keyroute.LiveView() for _ in range(3)]
    watches = [keyroute.watch(src, v, instance=f"py-{i}", census_ttl=2.0) for i, v in enumerate(views)]
    try:
        until("version 1 everywhere", lambda: all(v.version == 1 for v in views))
        status = until("three in sync", lambda: (s := keyroute.fleet_status(src)) and keyroute.converged(s) and s)
        assert [i["instance"] for i in status["instances"]] == ["py-0", "py-1", "py-2"]
        assert keyroute.publish_view(src, doc(2, ["a", "b", "c", "d"]), expect_version=1) == 2
        until("version 2 everywhere", lambda: all(v.version == 2 for v in views))
        until("in sync at 2", lambda: keyroute.converged(s := keyroute.fleet_status(src)) and s["version"] == 2)
    finally:
        for w in watches:
            w.stop()
    until("every entry gone", lambda: keyroute.fleet_status(src)["instances"] == [])


def test_memcached_through_a_view_hasher_and_dual_reads_during_a_rollout(memcached: Any, figure: Any) -> None:
    servers = memcached.start(4)
    names = [f"{h}:{p}" for h, p in servers]
    direct = {n: Client(s) for n, s in zip(names, servers)}
    for c in direct.values():
        c.flush_all(noreply=False)
    view = keyroute.LiveView()
    view.publish(doc(1, names[:3]))
    # HashClient with the view as its hasher: every key lands where the view routes it.
    hc = HashClient(servers, hasher=ViewHasher.following(view), default_noreply=False)
    keys = [f"user:{i}" for i in range(2000)]
    assert not hc.set_many({k: k.encode() for k in keys})
    assert all(direct[view.route(k)].get(k) == k.encode() for k in keys)
    # Half way to four servers: HashClient follows the view at once, and misses what moved.
    view.publish(doc(2, names[:3], to=names, progress=0.5))
    moved = [k for k in keys if view.route_with_fallback(k)[1] is not None]
    hits = len(hc.get_many(keys))
    assert hits == len(keys) - len(moved)
    plain_hits = hits / len(keys)
    # ViewClient reads the previous owner on a miss and warms the new one: no key is lost.
    vc = ViewClient(view, direct)
    assert all(vc.get(k) == k.encode() for k in keys)
    assert all(direct[view.route(k)].get(k) == k.encode() for k in moved), "warmed on the new owner"
    # An instance still at progress 0 writes a moved key: it writes the old owner and drops the
    # new owner's copy, so the instance at 0.5 reads the new value, not the warmed old one.
    behind = keyroute.LiveView()
    behind.publish(doc(2, names[:3], to=names, progress=0.0))
    ViewClient(behind, direct).set(moved[0], b"new")
    assert vc.get(moved[0]) == b"new"
    vc.delete(moved[1])
    assert all(direct[n].get(moved[1]) is None for n in names), "a delete reaches both ends"
    figure(
        f"views: HashClient following a live view at progress 0.5 kept {plain_hits:.1%} of 2,000 keys; "
        f"ViewClient's dual reads kept 100% and warmed {len(moved)} moved keys on their new owner"
    )
    hc.close()
