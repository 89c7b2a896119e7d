"""A keyroute hasher for pymemcache's ``HashClient``.

``HashClient(servers, hasher=...)`` calls ``hasher()`` with no arguments, then
``add_node(name)`` / ``remove_node(name)`` as servers join, fail or come back, and
``get_node(key)`` for every command. Server names are HashClient's ``"host:port"``
(``"[v6]:port"`` for IPv6). For the presets built from servers (``spymemcached``,
``libmemcached``, ``twemproxy``), each name is split into the host and port the preset reads,
by the same parser as ``keyroute.Spymemcached([...])``, and stays the node's id; a name that is
no address is refused with ``InvalidSpecError``. So a Python service routes like the Java
service beside it::

    client = HashClient(servers, hasher=Hasher.factory("spymemcached"))
    client = HashClient(servers, hasher=Hasher.factory("libmemcached", {"distribution": "ketama"}))

::

    from pymemcache.client.hash import HashClient
    from keyroute.pymemcache import Hasher

    client = HashClient([("10.0.0.1", 11211), ("10.0.0.2", 11211)], hasher=Hasher)
    client = HashClient(servers, hasher=Hasher.factory("maglev", {"table_size": 65537}))

The default is keyroute's ring (160 points per node): adding a fourth server to three moves
about a quarter of the keys, where ``hash mod n`` moves three quarters. With
``Hasher.factory("pymemcache-rendezvous")`` it places keys exactly as pymemcache's own default
``RendezvousHash`` does (for ``str`` keys), only faster.

``RendezvousHash`` is a drop-in for pymemcache's own ``RendezvousHash`` (the default hasher of
``HashClient``), with its API and its routes for every key type: pymemcache scores
``f"{node}-{key}"``, so a ``bytes`` key is scored as the text ``b'k'`` and an ``int`` as its
digits, and so does this class (through the ``pymemcache-rendezvous`` preset)::

    from keyroute.pymemcache import RendezvousHash

    client = HashClient(servers)                          # pymemcache's RendezvousHash
    client = HashClient(servers, hasher=RendezvousHash)   # the same keys on the same servers

A fleet that routes with a live view (``keyroute.LiveView``, fed by ``keyroute.watch``) uses
``ViewHasher.following(view)`` as the hasher, so every command follows the view in effect, or
``ViewClient(view, clients)`` for a rollout without a drop in hits: it reads a key's new owner,
falls back to the previous one on a miss and copies a hit to the new owner (as mcrouter's
WarmUpRoute does), and sends each write and delete where both ends of the rollout look::

    view = keyroute.LiveView()
    keyroute.watch("etcd://10.0.0.5:2379/keyroute/cache", view)
    client = HashClient(servers, hasher=ViewHasher.following(view))
    client = ViewClient(view, {f"{h}:{p}": Client((h, p)) for h, p in servers})

This module does not import pymemcache: it only follows the hasher protocol, and ``ViewClient``
takes any clients with pymemcache's ``get``, ``set``, ``add`` and ``delete``.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple, Union

from . import _native
from ._errors import InvalidParameterError
from ._nodes import server_list
from ._router import Router
from ._view import LiveView

__all__ = ["Hasher", "RendezvousHash", "ViewClient", "ViewHasher"]


class Hasher:
    """pymemcache hasher protocol over a keyroute router of any algorithm or preset.

    Each membership change builds a new immutable router and swaps it in atomically, so
    ``get_node`` never locks and may run in many threads while servers are added or removed.
    Keys may be ``str`` (routed as UTF-8) or ``bytes``; ``"k"`` and ``b"k"`` go to the same
    node. Presets that read a host and a port (``spymemcached``, ``libmemcached``,
    ``twemproxy``) take the ``"host:port"`` names ``HashClient`` gives (for IPv6 both
    ``"[::1]:11211"`` and HashClient's own ``"::1:11211"``; ``"host"`` alone is port 11211);
    ``add_node`` refuses any other name with ``InvalidSpecError`` and leaves the hasher as it was.
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
            weighted = {n: self.weights.get(n, 1) for n in nodes}
            if _native.node_form(self.algorithm) == "servers":
                spec_nodes = _server_nodes(weighted)
            else:
                spec_nodes = [{"id": n, "weight": w} for n, w in weighted.items()]
            router = Router({"algorithm": self.algorithm, "params": self.params, "nodes": spec_nodes})
        self._router = router
        self._nodes = nodes


def _server_nodes(weighted: Dict[str, int]) -> List[Dict[str, Any]]:
    """Spec nodes for HashClient's server names, split into host and port by the constructors'
    own reader of ``"host:port"`` (``keyroute.Spymemcached([...])``'s); each keeps its name as
    its id. HashClient names an IPv6 server ``(host, port)`` as ``"::1:11211"``, unbracketed: a
    name with more than one ``:`` and no ``[`` is read as that, the port after the last ``:``."""
    names = list(weighted)
    addresses = {}
    for name in names:
        host, sep, port = name.rpartition(":")
        unbracketed_v6 = sep and ":" in host and not name.startswith("[")
        addresses[f"[{host}]:{port}" if unbracketed_v6 else name] = weighted[name]
    spec_nodes = server_list(addresses)
    for node, name in zip(spec_nodes, names):
        node["id"] = name
    return spec_nodes


class RendezvousHash:
    """pymemcache's ``RendezvousHash`` (highest random weight over MurmurHash3 of
    ``f"{node}-{key}"``), routing through keyroute's ``pymemcache-rendezvous`` preset.

    The same API (``nodes``, ``seed``, ``add_node``, ``remove_node``, ``get_node``) and the same
    node for every key pymemcache accepts: ``str``, ``bytes`` (scored as its ``repr``, as
    pymemcache does) or anything else (scored as ``str(key)``). ``hash_function`` may only be
    left out: keyroute cannot route on a Python hash function. A ``str`` key holding a lone
    surrogate has no UTF-8 form and is refused with ``InvalidUtf8Error``.

    >>> ring = RendezvousHash(["10.0.0.1:11211", "10.0.0.2:11211"])
    >>> ring.get_node(b"user:42") in ring.nodes
    True
    """

    def __init__(self, nodes: Optional[List[Any]] = None, seed: int = 0, hash_function: None = None) -> None:
        if hash_function is not None:
            raise InvalidParameterError(
                "keyroute.pymemcache.RendezvousHash scores with pymemcache's MurmurHash3 only; "
                "a Python hash_function cannot route through keyroute"
            )
        self.seed = seed
        self._lock = threading.Lock()
        # The router (None with no nodes), the node list and each id's node, swapped as one.
        self._state: Tuple[Optional[Router], List[Any], Dict[str, Any]] = (None, [], {})
        self._rebuild(list(nodes) if nodes is not None else [])

    @property
    def nodes(self) -> List[Any]:
        """The nodes, in the order they were added."""
        return list(self._state[1])

    def add_node(self, node: Any) -> None:
        """Adds ``node`` (no-op when present)."""
        with self._lock:
            if node not in self._state[1]:
                self._rebuild([*self._state[1], node])

    def remove_node(self, node: Any) -> None:
        """Removes ``node``; ``ValueError`` when absent, as pymemcache does."""
        with self._lock:
            if node not in self._state[1]:
                raise ValueError(f"No such node {node} to remove")
            self._rebuild([n for n in self._state[1] if n != node])

    def get_node(self, key: Any) -> Any:
        """The node for ``key``, or None when there are no nodes."""
        router, _, ids = self._state
        if router is None:
            return None
        return ids[router.route(key if type(key) is str else f"{key}")]

    def _rebuild(self, nodes: List[Any]) -> None:
        router = None
        ids = {f"{n}": n for n in nodes}
        if nodes:
            router = Router(
                {
                    "algorithm": "pymemcache-rendezvous",
                    "params": {"seed": self.seed},
                    "nodes": [{"id": f"{n}"} for n in nodes],
                }
            )
        self._state = (router, nodes, ids)


class ViewHasher:
    """pymemcache hasher protocol over a live view: ``get_node`` routes with the view in effect,
    so a new version applies to the next command, without rebuilding the client.

    The view's node ids are HashClient's server names (``"host:port"``), and HashClient must
    hold a client for every server a view may name (construct it with all of them: those of the
    view and of the rollout it moves to). ``remove_node`` (HashClient giving up on a dead
    server) makes ``get_node`` answer ``None`` for the keys that server owns, so HashClient
    raises or ignores as its ``ignore_exc`` says, rather than moving them elsewhere behind the
    fleet's back; ``add_node`` brings it back.
    """

    def __init__(self, view: LiveView) -> None:
        self.view = view
        self._down: frozenset[str] = frozenset()
        self._lock = threading.Lock()

    @classmethod
    def following(cls, view: LiveView) -> Callable[[], ViewHasher]:
        """A zero-argument factory for ``HashClient(hasher=...)``."""
        return lambda: cls(view)

    def add_node(self, node: str) -> None:
        """Marks server ``node`` up (HashClient calls this for every server it starts with)."""
        with self._lock:
            self._down = self._down - {node}

    def remove_node(self, node: str) -> None:
        """Marks server ``node`` down."""
        with self._lock:
            self._down = self._down | {node}

    def get_node(self, key: Union[str, bytes]) -> Optional[str]:
        """The server that owns ``key`` in the view in effect (``None`` when it is down)."""
        node = self.view.route(key)
        return None if node in self._down else node


class ViewClient:
    """memcached through a live view, with dual reads during a rollout.

    ``clients`` maps each node id of the views to a client (pymemcache's ``Client`` or
    anything with its ``get``, ``set``, ``add`` and ``delete``), or is a function that makes
    the client of a node id (called once per id). Every command routes with the view in
    effect:

    - ``get``: the key's owner; during a rollout, on a miss for a key that has cut over, the
      previous owner, and a hit there is copied to the owner with ``add`` (so a value written
      meanwhile is never overwritten), expiring after ``warm_expire`` seconds (0: never).
    - ``set`` and ``add``: the owner; during a rollout, the key is also deleted from the other
      end's owner (the owner under the rollout's spec or its target), so no instance at another
      progress reads an older copy there.
    - ``delete``: the owner and both ends' owners.

    The rules for writes while instances sit at different progress values, and after a
    rollback, are in docs/views.md ("Writes during a rollout").
    """

    def __init__(
        self,
        view: LiveView,
        clients: Union[Mapping[str, Any], Callable[[str], Any]],
        *,
        warm_expire: int = 0,
    ) -> None:
        self.view = view
        self.warm_expire = warm_expire
        self._made: Dict[str, Any] = {}
        self._lock = threading.Lock()
        if callable(clients):
            self._make: Callable[[str], Any] = clients
        else:
            fixed = dict(clients)
            self._make = lambda node: fixed[node]

    def client(self, node: str) -> Any:
        """The client of node ``node``."""
        made = self._made.get(node)
        if made is None:
            with self._lock:
                made = self._made.get(node)
                if made is None:
                    made = self._made[node] = self._make(node)
        return made

    def _others(self, key: Union[str, bytes], owner: str) -> List[str]:
        """The ends' owners of ``key`` other than ``owner``."""
        start, end = self.view._ends(key)
        return [n for n in dict.fromkeys((start, end)) if n is not None and n != owner]

    def get(self, key: Union[str, bytes], default: Any = None) -> Any:
        """The value of ``key`` (``default`` when no copy has it)."""
        owner, previous = self.view.route_with_fallback(key)
        value = self.client(owner).get(key)
        if value is None and previous is not None:
            value = self.client(previous).get(key)
            if value is not None:
                self.client(owner).add(key, value, expire=self.warm_expire, noreply=True)
        return default if value is None else value

    def set(self, key: Union[str, bytes], value: Any, expire: int = 0) -> bool:
        """Stores ``value`` on the owner of ``key`` (and drops the other end's copy)."""
        owner, _ = self.view.route_with_fallback(key)
        stored = bool(self.client(owner).set(key, value, expire=expire, noreply=False))
        for other in self._others(key, owner):
            self.client(other).delete(key, noreply=False)
        return stored

    def add(self, key: Union[str, bytes], value: Any, expire: int = 0) -> bool:
        """Stores ``value`` on the owner of ``key`` if it holds none (and drops the other end's copy)."""
        owner, _ = self.view.route_with_fallback(key)
        added = bool(self.client(owner).add(key, value, expire=expire, noreply=False))
        if added:
            for other in self._others(key, owner):
                self.client(other).delete(key, noreply=False)
        return added

    def delete(self, key: Union[str, bytes]) -> None:
        """Deletes ``key`` from its owner and from both ends' owners."""
        owner, previous = self.view.route_with_fallback(key)
        for node in dict.fromkeys([owner, *([previous] if previous else []), *self._others(key, owner)]):
            self.client(node).delete(key, noreply=False)
