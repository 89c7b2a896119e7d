"""Views in Python: ``LiveView``, ``watch`` and ``fleet_status`` (docs/views.md).

A ``LiveView`` routes with the view in effect; a newer version applies atomically, a lookup
never waits, and a document that does not build is refused and recorded while the last good
view stays. ``watch(source, view)`` feeds it from a source named by a URL (``file:///…``, a
plain path, or ``etcd://HOST:PORT/KEY``) on a thread of its own, and registers the instance in
the source's census (by default over etcd). ``fleet_status(source)`` reads the census against
the source's view, as ``keyroute fleet status --json`` does.

>>> import keyroute
>>> view = keyroute.LiveView()
>>> view.publish('{"version": 1, "spec": {"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]}}')
1
>>> view.version, view.fingerprint
(1, '...')
>>> view.route("user:42") in ("a", "b")
True
"""

from __future__ import annotations

import json
import time
from typing import Any, Dict, Mapping, Optional, Union

from . import _native
from ._router import Limits, limits_json

Watch = _native.Watch


class LiveView(_native.LiveView):
    """The view in effect for this process: route through it, feed it with ``watch``.

    ``publish(document)`` applies a view document (JSON text or bytes) whose version is newer
    than the one in effect and which builds, and returns its version; otherwise the view in
    effect stays, the refusal is recorded (``last_refusal``, ``refusals``) and its error is
    raised (``StaleVersionError``, ``InvalidSpecError``, …). Routing before any view was
    applied raises ``NoViewError``. Lookups are lock-free and safe from any thread.
    """

    def __new__(cls, limits: Union[Limits, Mapping[str, int], None] = None) -> LiveView:
        return super().__new__(cls, limits_json(limits))

    @property
    def last_refusal(self) -> Optional[Dict[str, Any]]:
        """The last refusal: ``{"version", "code", "error", "message", "at_unix_ms"}``, or ``None``."""
        text = self._last_refusal()
        return None if text is None else json.loads(text)


def watch(
    source: str,
    view: LiveView,
    *,
    poll_interval: float = 1.0,
    poll_only: bool = False,
    census: Optional[bool] = None,
    instance: Optional[str] = None,
    census_ttl: float = 10.0,
    first: float = 5.0,
) -> Watch:
    """Feeds ``view`` from ``source``: its current document now, then every change, until the
    returned ``Watch`` is stopped (``with keyroute.watch(…) as w:`` stops it on exit). It
    returns once the first read is applied or refused, or after ``first`` seconds (0: at once),
    so a process can route as soon as ``watch`` returns when the source holds a view.

    A change is seen at once where the source notifies (inotify for a file, etcd's watch
    stream), and at the latest every ``poll_interval`` seconds. With ``census`` (the default
    for an etcd source) the instance registers in the source's census as ``instance``
    (``HOST-PID`` by default), with surface ``python``; its entry outlives it by ``census_ttl``
    seconds if it dies without stopping.
    """
    version, refusals = view.version, view.refusals
    w = _native.watch(
        source,
        view,
        poll_interval=poll_interval,
        poll_only=poll_only,
        census=census,
        instance=instance,
        census_ttl=census_ttl,
    )
    deadline = time.monotonic() + first
    while view.version == version and view.refusals == refusals and time.monotonic() < deadline:
        time.sleep(0.002)
    return w


def fleet_status(
    source: str, *, deadline: float = 30.0, limits: Union[Limits, Mapping[str, int], None] = None
) -> Dict[str, Any]:
    """The census of ``source`` against its view, as ``keyroute fleet status --json`` prints it:
    ``version``, ``fingerprint``, ``problem`` and one entry per instance with its ``standing``
    (``sync``, ``behind``, ``stale`` — behind for longer than ``deadline`` seconds —,
    ``refused`` or ``diverged``). Every instance is in sync when ``converged(status)`` is true."""
    text = _native.fleet_status(source, deadline=deadline, limits=limits_json(limits))
    status: Dict[str, Any] = json.loads(text)
    return status


def publish_view(
    source: str,
    document: Union[str, bytes, Mapping[str, Any]],
    *,
    expect_version: int,
    limits: Union[Limits, Mapping[str, int], None] = None,
) -> int:
    """Publishes a view document (JSON text, bytes, or a dict) to ``source`` if it holds
    ``expect_version`` (0 for none), as ``keyroute view publish`` does: of two publishers that
    expect the same version exactly one wins, the other gets ``VersionConflictError``. A
    document that does not build is never written. Returns the version published."""
    if isinstance(document, Mapping):
        document = json.dumps(dict(document), allow_nan=False)
    return _native.publish_view(source, document, expect_version=expect_version, limits=limits_json(limits))


def converged(status: Dict[str, Any]) -> bool:
    """Every registered instance of a ``fleet_status`` result routes with the source's view (and
    there is at least one): the gate a rollout step waits for."""
    instances = status.get("instances") or []
    return (
        bool(instances)
        and status.get("problem") is None
        and not status.get("unreadable")
        and all(i.get("standing") == "sync" for i in instances)
    )
