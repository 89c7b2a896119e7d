"""A drop-in for uhashring 2.x's ``HashRing``, routing through keyroute's ``uhashring`` preset.

::

    from keyroute.uhashring import HashRing      # instead of: from uhashring import HashRing

    ring = HashRing(nodes=["cache-1", "cache-2", "cache-3"])
    ring = HashRing(nodes={"cache-1": 1, "cache-2": 2}, hash_fn="ketama")
    ring = HashRing(nodes={"cache-1": {"weight": 2, "vnodes": 80, "instance": client1, "port": 11211}})
    ring.get_node("user:42")        # the node's name
    ring["user:42"]                 # its instance
    ring.get("user:42")             # its whole configuration dict
    list(ring.range("user:42", 2))  # the configurations of two distinct nodes, in ring order
    ring.add_node("cache-4", {"weight": 1})
    ring.remove_node("cache-1")

Every key goes to the node uhashring 2.x gives it, in both of its rings (the default one and
``hash_fn="ketama"``), with node weights, per-node ``vnodes``, ``weight_fn``, and after nodes
are added or removed. Like uhashring, a key is hashed as ``str(key)``: ``b"k"`` as the text
``b'k'``, ``42`` as ``42``.

``range`` and ``iterate_nodes`` are generators, as in uhashring, and read the ring lazily: a
generator made before ``add_node`` and first read after it walks the new ring.

What differs: ``hash_fn`` may only be ``None`` or ``"ketama"`` (keyroute cannot route on a
Python hash function); ``range(unique=False)`` and ``iterate_nodes(distinct=False)``, which walk
every point of the ring, and the point-level helpers (``hashi``, ``get_key``, ``get_points``,
``get_server``, ``get_node_pos``, ``print_continuum`` and the ``ring`` and ``continuum``
properties) are not
supported, since the ring's points live in the native router: each raises
``InvalidParameterError`` saying so (``range`` and ``iterate_nodes`` when called, not when
first read). Node names are routed as their text (``f"{name}"``), so two names with the same
text are refused. ``keyroute.uhashring.monkey.patch_memcache()`` is uhashring's patch of
python-memcached, routing through this class. Lookups never lock: each change builds a new immutable router and swaps it
in.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import Any, Callable, Dict, Iterator, KeysView, List, Mapping, NoReturn, Optional, Tuple, Union

from .._errors import InvalidParameterError, InvalidTypeError, ZeroTotalWeightError
from .._router import Router

__all__ = ["HashRing", "monkey"]

#: The node configuration keys uhashring reads; any other key of a node's dict is ignored.
CONF_KEYS = ("hostname", "instance", "nodename", "port", "vnodes", "weight")

#: Changing one of these rebuilds the ring (uhashring's rule; a new node always does).
RING_KEYS = ("nodename", "vnodes", "weight")

NodesArg = Union[str, List[Any], Dict[Any, Any]]


def _text(key: Any) -> str:
    """The text uhashring hashes for ``key``: ``str(key)``."""
    return key if type(key) is str else str(key)


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidTypeError(f"{what} must be an integer, not {type(value).__name__}")
    return value


def _point_level(name: str) -> InvalidParameterError:
    return InvalidParameterError(
        f"HashRing.{name} is not supported by keyroute.uhashring: the ring's points live in "
        "keyroute's native router (get_node, range and iterate_nodes answer from it)"
    )


class HashRing:
    """uhashring 2.x ``HashRing`` (default or ketama ring) over keyroute's ``uhashring`` preset.

    ``nodes`` is a node name, a list of names, or a dict of name → weight (an int) or name →
    configuration dict (``weight``, ``vnodes``, ``instance``, ``hostname``, ``port``,
    ``nodename``). Keywords: ``hash_fn`` (``None`` or ``"ketama"``), ``vnodes`` (the default
    per node: 160, or 40 for ketama), ``replicas`` (ketama: points per name, 1 to 4, default
    4) and ``weight_fn`` (called with each node's configuration as keywords; returns its
    weight).

    >>> ring = HashRing(nodes={"a": 1, "b": 2})
    >>> ring.get_node("user:42") in ("a", "b")
    True
    """

    def __init__(self, nodes: NodesArg = [], **kwargs: Any) -> None:  # noqa: B006 (uhashring's signature)
        hash_fn = kwargs.get("hash_fn")
        if hash_fn is not None and hash_fn != "ketama":
            raise InvalidParameterError(
                "keyroute.uhashring.HashRing takes hash_fn=None (uhashring's default ring) or "
                "'ketama'; a Python hash function cannot route through keyroute"
            )
        self._ketama = hash_fn == "ketama"
        vnodes = kwargs.get("vnodes")
        self._default_vnodes: int = (40 if self._ketama else 160) if vnodes is None else vnodes
        self._replicas: int = kwargs.get("replicas", 4) if self._ketama else 4
        weight_fn = kwargs.get("weight_fn")
        if weight_fn and not callable(weight_fn):
            raise InvalidTypeError("weight_fn should be a callable function")
        self._weight_fn: Optional[Callable[..., Any]] = weight_fn or None
        self._lock = threading.Lock()
        self._nodes: Dict[Any, Dict[str, Any]] = {}
        # What lookups read, swapped as one value: the router (None when the ring has no
        # point), each routed id's node name, the points per node, and the configuration.
        self._state: Tuple[Optional[Router], Dict[str, Any], Dict[Any, int], Dict[Any, Dict[str, Any]]] = (
            None,
            {},
            {},
            {},
        )
        conf, _ = self._configure(self._nodes, nodes)
        self._commit(conf)

    # -- configuration ---------------------------------------------------------------------

    def _configure(self, current: Dict[Any, Dict[str, Any]], nodes: Any) -> Tuple[Dict[Any, Dict[str, Any]], bool]:
        """uhashring's node configuration rules, on a copy: (the new configuration, whether
        the ring must be rebuilt)."""
        if isinstance(nodes, str):
            nodes = [nodes]
        elif not isinstance(nodes, (dict, list)):
            raise InvalidParameterError(f"nodes configuration should be a list or a dict, got {type(nodes)}")
        result = dict(current)
        changed = False
        for node in nodes:
            conf: Dict[str, Any] = {
                "hostname": node,
                "instance": None,
                "nodename": node,
                "port": None,
                "vnodes": self._default_vnodes,
                "weight": 1,
            }
            before = current.get(node, {})
            if not before:
                changed = True
            if isinstance(nodes, dict):
                node_conf = nodes[node]
                if isinstance(node_conf, int):
                    conf["weight"] = node_conf
                elif isinstance(node_conf, dict):
                    for k, v in node_conf.items():
                        if k in conf:
                            conf[k] = v
                            if k in RING_KEYS and before.get(k) != v:
                                changed = True
                else:
                    raise InvalidParameterError(f"node configuration should be a dict or an int, got {type(node_conf)}")
            if self._weight_fn is not None:
                conf["weight"] = self._weight_fn(**conf)
            if before.get("weight") != conf["weight"]:
                changed = True
            result[node] = conf
        return result, changed

    def _names(self, nodes: Mapping[Any, Dict[str, Any]]) -> Dict[Any, int]:
        """How many names (``node-0``, ``node-1``, …) each node puts on the ring, as uhashring
        counts them."""
        if not self._ketama:
            # The default ring: vnodes × weight names per node.
            return {
                name: _whole(conf["vnodes"], f"vnodes of node {name!r}") * _whole(conf["weight"], f"weight of node {name!r}")
                for name, conf in nodes.items()
            }
        # ketama: vnodes × node count × weight // Σweight, in exact integers.
        total = sum(_whole(conf["weight"], f"weight of node {name!r}") for name, conf in nodes.items())
        if nodes and total == 0:
            raise ZeroTotalWeightError("the nodes' weights add up to 0")
        return {
            name: (_whole(conf["vnodes"], f"vnodes of node {name!r}") * len(nodes) * conf["weight"]) // total
            for name, conf in nodes.items()
        }

    def _spec(self, nodes: Mapping[Any, Dict[str, Any]], names: Mapping[Any, int]) -> Optional[Dict[str, Any]]:
        """The keyroute spec of this ring (None when no node has a point)."""
        on_ring = [(f"{name}", count) for name, count in names.items() if count > 0]
        if not on_ring:
            return None
        if not self._ketama:
            # One name per unit of weight: the preset's vnodes × weight with vnodes 1.
            return {
                "algorithm": "uhashring",
                "params": {"mode": "default", "vnodes": 1},
                "nodes": [{"id": i, "weight": count} for i, count in on_ring],
            }
        vnodes = {conf["vnodes"] for conf in nodes.values()}
        if len(on_ring) == len(nodes) and len(vnodes) == 1:
            # Every node on the ring with one vnodes: the preset's own parameters.
            return {
                "algorithm": "uhashring",
                "params": {"mode": "ketama", "vnodes": vnodes.pop(), "replicas": self._replicas},
                "nodes": [{"id": f"{name}", "weight": conf["weight"]} for name, conf in nodes.items()],
            }
        # Per-node vnodes, or nodes with no name: weights that make the preset's
        # vnodes · n · weight // Σweight give each node its count k exactly. With n nodes,
        # K = Σk, V = ⌈K / n⌉ and b = V·n − K (0 ≤ b < n), weight n·k + b sums to n·V·n,
        # so V · n · (n·k + b) // (n·V·n) = k + b // n = k.
        n = len(on_ring)
        total = sum(count for _, count in on_ring)
        v = -(-total // n)
        b = v * n - total
        return {
            "algorithm": "uhashring",
            "params": {"mode": "ketama", "vnodes": v, "replicas": self._replicas},
            "nodes": [{"id": i, "weight": n * count + b} for i, count in on_ring],
        }

    def _commit(self, nodes: Dict[Any, Dict[str, Any]]) -> None:
        """Builds the router for ``nodes`` and publishes it (nothing changes when it fails)."""
        names = self._names(nodes)
        spec = self._spec(nodes, names)
        router = Router(spec) if spec is not None else None
        ids = {f"{name}": name for name, count in names.items() if count > 0}
        points = {name: count * (self._replicas if self._ketama else 1) for name, count in names.items()}
        self._nodes = nodes
        self._state = (router, ids, points, nodes)

    # -- changes ---------------------------------------------------------------------------

    def add_node(self, nodename: Any, conf: Union[int, Dict[str, Any]] = {"weight": 1}) -> None:  # noqa: B006
        """Adds node ``nodename`` with its configuration (a weight or a dict), or updates it."""
        with self._lock:
            nodes, changed = self._configure(self._nodes, {nodename: conf})
            if changed:
                self._commit(nodes)
            else:  # a change that moves no key (an instance, a port): the same router
                router, ids, points, _ = self._state
                self._nodes = nodes
                self._state = (router, ids, points, nodes)

    __setitem__ = add_node

    def remove_node(self, nodename: Any) -> None:
        """Removes node ``nodename``; ``KeyError`` when there is none."""
        with self._lock:
            if nodename not in self._nodes:
                raise KeyError(f"node '{nodename}' not found, available nodes: {self._nodes.keys()}")
            self._commit({k: v for k, v in self._nodes.items() if k != nodename})

    __delitem__ = remove_node

    def regenerate(self) -> None:
        """Re-evaluates ``weight_fn`` for every node and rebuilds the ring."""
        with self._lock:
            nodes, _ = self._configure(self._nodes, dict(self._nodes))
            self._commit(nodes)

    # -- lookups ---------------------------------------------------------------------------

    def _conf(self, key: Any) -> Optional[Dict[str, Any]]:
        router, ids, _, nodes = self._state
        if router is None:
            return None
        return nodes[ids[router.route(_text(key))]]

    def get_node(self, key: Any) -> Any:
        """The name of the node that owns ``key`` (None when the ring is empty)."""
        router, ids, _, _ = self._state
        return None if router is None else ids[router.route(_text(key))]

    def get(self, key: Any) -> Optional[Dict[str, Any]]:
        """The configuration dict of the node that owns ``key``."""
        return self._conf(key)

    def _field(self, key: Any, name: str) -> Any:
        conf = self._conf(key)
        return None if conf is None else conf[name]

    def get_node_instance(self, key: Any) -> Any:
        """The ``instance`` of the node that owns ``key``."""
        return self._field(key, "instance")

    __getitem__ = get_node_instance

    def get_node_hostname(self, key: Any) -> Any:
        """The ``hostname`` of the node that owns ``key``."""
        return self._field(key, "hostname")

    def get_node_port(self, key: Any) -> Any:
        """The ``port`` of the node that owns ``key``."""
        return self._field(key, "port")

    def get_node_weight(self, key: Any) -> Any:
        """The ``weight`` of the node that owns ``key``."""
        return self._field(key, "weight")

    def range(self, key: Any, size: Optional[int] = None, unique: bool = True) -> Iterator[Dict[str, Any]]:
        """A generator of the configurations of distinct nodes in ring order from ``key``'s
        position: its owner first, then the next nodes clockwise, at most ``size`` of them (all
        by default). As in uhashring, the ring is read when iteration starts, not when
        ``range`` is called."""
        if not unique:
            raise InvalidParameterError(
                "keyroute.uhashring.HashRing.range walks distinct nodes only (unique=True): "
                "the ring's points live in the native router"
            )
        return self._range(key, size)

    def _range(self, key: Any, size: Optional[int]) -> Iterator[Dict[str, Any]]:
        router, ids, _, nodes = self._state
        if router is None:
            return
        count = len(router) if not size or size < 0 else min(size, len(router))
        for i in router.replicas(_text(key), count):
            yield nodes[ids[i]]

    def iterate_nodes(self, key: Any, distinct: bool = True) -> Iterator[Any]:
        """A generator of the ``nodename`` of each distinct node in ring order from ``key`` (one
        None when the ring is empty), read lazily as ``range`` is."""
        if not distinct:
            raise InvalidParameterError(
                "keyroute.uhashring.HashRing.iterate_nodes walks distinct nodes only (distinct=True): "
                "the ring's points live in the native router"
            )
        return self._iterate_nodes(key)

    def _iterate_nodes(self, key: Any) -> Iterator[Any]:
        if self._state[0] is None:
            yield None
            return
        for conf in self._range(key, None):
            yield conf["nodename"]

    # -- uhashring's point-level helpers: refused ------------------------------------------

    def hashi(self, key: Any, replica: int = 0) -> NoReturn:
        """uhashring's hash of a key on the ring: refused (``InvalidParameterError``)."""
        raise _point_level("hashi")

    def get_key(self, key: Any) -> NoReturn:
        """uhashring's ring hash of ``key``: refused (``InvalidParameterError``)."""
        raise _point_level("get_key")

    def get_node_pos(self, key: Any) -> NoReturn:
        """uhashring's point index of ``key``: refused (``InvalidParameterError``)."""
        raise _point_level("get_node_pos")

    def get_points(self) -> NoReturn:
        """uhashring's list of (hash, node) points: refused (``InvalidParameterError``)."""
        raise _point_level("get_points")

    def get_server(self, key: Any) -> NoReturn:
        """uhashring's (point index, node) of ``key``: refused (``InvalidParameterError``)."""
        raise _point_level("get_server")

    def print_continuum(self) -> NoReturn:
        """uhashring's printout of every point: refused (``InvalidParameterError``)."""
        raise _point_level("print_continuum")

    @property
    def ring(self) -> NoReturn:
        """uhashring's hash → node mapping of every point: refused (``InvalidParameterError``)."""
        raise _point_level("ring")

    @property
    def continuum(self) -> NoReturn:
        """uhashring's other name for ``ring``: refused (``InvalidParameterError``)."""
        raise _point_level("continuum")

    # -- the configuration -----------------------------------------------------------------

    def get_nodes(self) -> KeysView[Any]:
        """The names of every configured node."""
        return self._nodes.keys()

    def get_instances(self) -> List[Any]:
        """The ``instance`` of every node that has one."""
        return [c.get("instance") for c in self._nodes.values() if c.get("instance")]

    @property
    def conf(self) -> Dict[Any, Dict[str, Any]]:
        """Each node's configuration dict, by name."""
        return self._nodes

    nodes = conf

    @property
    def distribution(self) -> Counter[Any]:
        """How many ring points each node holds."""
        return Counter({name: count for name, count in self._state[2].items() if count > 0})

    @property
    def size(self) -> int:
        """The number of points on the ring."""
        return sum(self._state[2].values())

    @property
    def router(self) -> Optional[Router]:
        """The keyroute router the ring currently routes with (None when it is empty)."""
        return self._state[0]

    def __repr__(self) -> str:
        return f"<keyroute.uhashring.HashRing {'ketama' if self._ketama else 'default'}, {len(self._nodes)} nodes>"


from . import monkey  # noqa: E402 (uhashring.monkey, which needs HashRing defined)
