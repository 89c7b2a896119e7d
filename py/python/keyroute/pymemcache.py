"""A keyroute hasher for pymemcache's ``HashClient``.

``HashClient(servers, hasher=...)`` calls ``hasher()`` with no arguments, then
``add_node(name)`` / ``remove_node(name)`` as servers join, fail or come back, and
``get_node(key)`` for every command. Server names are HashClient's ``"host:port"``.

::

    from pymemcache.client.hash import HashClient
    from keyroute.pymemcache import Hasher

    client = HashClient([("10.0.0.1", 11211), ("10.0.0.2", 11211)], hasher=Hasher)
    client = HashClient(servers, hasher=Hasher.factory("maglev", {"table_size": 65537}))

The default is keyroute's ring (160 points per node): adding a fourth server to three moves
about a quarter of the keys, where ``hash mod n`` moves three quarters. With
``Hasher.factory("pymemcache-rendezvous")`` it places keys exactly as pymemcache's own default
``RendezvousHash`` does (for ``str`` keys), only faster.

This module does not import pymemcache: it only follows the hasher protocol.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, List, Mapping, Optional, Union

from ._router import Router

__all__ = ["Hasher"]


class Hasher:
    """pymemcache hasher protocol over a keyroute router of any algorithm or preset.

    Each membership change builds a new immutable router and swaps it in atomically, so
    ``get_node`` never locks and may run in many threads while servers are added or removed.
    Keys may be ``str`` (routed as UTF-8) or ``bytes``; ``"k"`` and ``b"k"`` go to the same
    node.
    """

    def __init__(
        self,
        algorithm: str = "ring",
        params: Optional[Mapping[str, Any]] = None,
        weights: Optional[Mapping[str, int]] = None,
    ) -> None:
        """``algorithm`` and ``params`` as in a spec; ``weights`` by node name (default 1)."""
        self.algorithm = algorithm
        self.params = dict(params or {})
        self.weights = dict(weights or {})
        self._nodes: List[str] = []
        self._router: Optional[Router] = None
        self._lock = threading.Lock()

    @classmethod
    def factory(
        cls,
        algorithm: str = "ring",
        params: Optional[Mapping[str, Any]] = None,
        weights: Optional[Mapping[str, int]] = None,
    ) -> Callable[[], Hasher]:
        """A zero-argument factory for ``HashClient(hasher=...)``."""
        return lambda: cls(algorithm, params, weights)

    @property
    def nodes(self) -> List[str]:
        """The node names, in the order they were added."""
        return list(self._nodes)

    @property
    def router(self) -> Optional[Router]:
        """The current router (``None`` while there are no nodes)."""
        return self._router

    def add_node(self, node: str) -> None:
        """Adds server ``node`` (no-op when present)."""
        with self._lock:
            if node not in self._nodes:
                self._rebuild([*self._nodes, node])

    def remove_node(self, node: str) -> None:
        """Removes server ``node``; ``ValueError`` when absent, as pymemcache's hashers do."""
        with self._lock:
            if node not in self._nodes:
                raise ValueError(f"No such node {node} to remove")
            self._rebuild([n for n in self._nodes if n != node])

    def get_node(self, key: Union[str, bytes]) -> Optional[str]:
        """The server for ``key``, or ``None`` when there are no servers."""
        router = self._router
        return None if router is None else router.route(key)

    def _rebuild(self, nodes: List[str]) -> None:
        # Build first: a spec error leaves the hasher as it was.
        router = None
        if nodes:
            spec = {
                "algorithm": self.algorithm,
                "params": self.params,
                "nodes": [{"id": n, "weight": self.weights.get(n, 1)} for n in nodes],
            }
            router = Router(spec)
        self._router = router
        self._nodes = nodes
