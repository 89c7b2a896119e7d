"""Peer presets: routers that give, key for key, the node an existing router gives
(``conformance/VECTORS.md`` specifies each one's spec; vectors captured from the real peers
prove it). Parameters left as ``None`` take the preset's documented default."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Tuple, Union

from . import _native
from ._algorithms import Nodes, bucket_list, make_spec, node_list
from ._errors import InvalidSpecError
from ._router import NodeSpec, Router

#: Memcached-style servers: ``{"host:port": weight}``, or a sequence of ``"host:port"``
#: addresses (weight 1) and/or node mappings with explicit ``host``/``port``/``name`` fields.
#: ``host`` alone means port 11211; IPv6 is written ``[addr]:port``. The address as written is
#: the node id that routes report.
Servers = Union[Mapping[str, int], Iterable[Union[str, NodeSpec, Mapping[str, Any]]]]


def server_list(servers: Servers) -> List[Dict[str, Any]]:
    """Spec nodes for servers (addresses are split by the native layer)."""
    if isinstance(servers, (str, bytes, bytearray)):
        raise InvalidSpecError("servers must be a mapping or a sequence of addresses, not one string")
    if isinstance(servers, Mapping):
        return [_server(address, weight) for address, weight in servers.items()]
    nodes: List[Dict[str, Any]] = []
    for server in node_list(servers):
        # node_list turns an address into {"id": address}; a mapping with more fields is
        # taken as written.
        only_id = isinstance(server, dict) and set(server) == {"id"} and isinstance(server["id"], str)
        nodes.append(_server(server["id"], 1) if only_id else server)
    return nodes


def _server(address: Any, weight: Any) -> Dict[str, Any]:
    if not isinstance(address, str):
        raise InvalidSpecError(f"a server address must be a str, not {type(address).__name__}")
    host, port = _native.parse_server(address)
    return {"id": address, "host": host, "port": port, "weight": weight}


class Libmemcached(Router):
    """libmemcached 1.x ketama, bit for bit (Debian's libmemcached11 1.1.4 is the reference).

    The defaults are ``MEMCACHED_BEHAVIOR_KETAMA_WEIGHTED``: MD5 keys, weighted MD5 points.
    ``weighted`` is libmemcached's *effective* flag: ``BEHAVIOR_KETAMA`` alone leaves it off
    (``distribution="ketama", hash="one_at_a_time", weighted=False``), but libmemcached turns it
    back on when any server has weight > 1, so pass ``weighted=True`` then.

    >>> lm = Libmemcached({"10.0.1.1:11211": 600, "10.0.1.2:11211": 300})
    >>> lm.route("foo") in lm.nodes
    True
    """

    __slots__ = ()

    def __new__(
        cls,
        servers: Servers,
        *,
        distribution: Literal["ketama", "ketama_weighted", "ketama_spy"] = "ketama_weighted",
        hash: Literal[
            "md5",
            "one_at_a_time",
            "crc",
            "fnv1_32",
            "fnv1a_32",
            "fnv1_64",
            "fnv1a_64",
            "murmur",
            "jenkins",
            "hsieh",
        ] = "md5",
        weighted: bool = True,
        version: int = 0,
    ) -> Libmemcached:
        params = {"distribution": distribution, "hash": hash, "weighted": weighted}
        return super().__new__(cls, make_spec("libmemcached", server_list(servers), params, version))


class Spymemcached(Router):
    """spymemcached 2.12 ``KetamaNodeLocator``. A server's node key (what its points are named
    after) is ``host:port`` unless a node mapping gives ``name`` (e.g. ``host/1.2.3.4:11211``
    for a resolved hostname)."""

    __slots__ = ()

    def __new__(
        cls,
        servers: Servers,
        *,
        format: Optional[Literal["spymemcached", "libmemcached"]] = None,
        hash: Optional[Literal["ketama", "fnv1_32", "fnv1a_32", "fnv1_64", "fnv1a_64", "crc", "native"]] = None,
        weighted: Optional[bool] = None,
        version: int = 0,
    ) -> Spymemcached:
        params = {"format": format, "hash": hash, "weighted": weighted}
        return super().__new__(cls, make_spec("spymemcached", server_list(servers), params, version))


class Twemproxy(Router):
    """twemproxy (nutcracker) ``distribution: ketama`` with its ``hash`` (default
    ``fnv1a_64``) and optional two-character ``hash_tag`` (e.g. ``"{}"``)."""

    __slots__ = ()

    def __new__(
        cls,
        servers: Servers,
        *,
        hash: Optional[str] = None,
        hash_tag: Optional[str] = None,
        version: int = 0,
    ) -> Twemproxy:
        params = {"hash": hash, "hash_tag": hash_tag}
        return super().__new__(cls, make_spec("twemproxy", server_list(servers), params, version))


class Uhashring(Router):
    """uhashring 2.x ``HashRing``: ``mode="default"`` is ``HashRing(nodes)`` (160 vnodes,
    128-bit MD5 points), ``mode="ketama"`` is ``HashRing(nodes, hash_fn="ketama")`` (40 vnodes,
    4 points each). Node names are the ids, ``{name: weight}`` as uhashring takes them."""

    __slots__ = ()

    def __new__(
        cls,
        nodes: Nodes,
        *,
        mode: Literal["default", "ketama"] = "default",
        vnodes: Optional[int] = None,
        replicas: Optional[int] = None,
        version: int = 0,
    ) -> Uhashring:
        params = {"mode": mode, "vnodes": vnodes, "replicas": replicas}
        return super().__new__(cls, make_spec("uhashring", node_list(nodes), params, version))


class NpmHashring(Router):
    """npm ``hashring`` 3.x: servers as written (ids) with weights; ``vnode_count`` (default
    40), ``replicas`` (4; 3 for ``compatibility: 'hash_ring'``), ``default_port``."""

    __slots__ = ()

    def __new__(
        cls,
        nodes: Nodes,
        *,
        vnode_count: Optional[int] = None,
        replicas: Optional[int] = None,
        default_port: Optional[int] = None,
        version: int = 0,
    ) -> NpmHashring:
        params = {"vnode_count": vnode_count, "replicas": replicas, "default_port": default_port}
        return super().__new__(cls, make_spec("npm-hashring", node_list(nodes), params, version))


class PythonHashRing(Router):
    """PyPI ``hash_ring`` 1.3 ``HashRing(nodes, weights)``."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, version: int = 0) -> PythonHashRing:
        return super().__new__(cls, make_spec("python-hash-ring", node_list(nodes), {}, version))


class Nginx(Router):
    """nginx ``hash $key consistent``: node ids are the ``server`` tokens as written."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, version: int = 0) -> Nginx:
        return super().__new__(cls, make_spec("nginx", node_list(nodes), {}, version))


class Guava(Router):
    """Guava ``Hashing.consistentHash`` over buckets (``buckets`` may be a count).
    ``key_hash="murmur3_128"``: ``murmur3_128().hashString(key, UTF_8)``; ``"u64be"``: 8-byte
    keys taken as the big-endian ``long``."""

    __slots__ = ()

    def __new__(
        cls,
        buckets: Union[int, Nodes],
        *,
        key_hash: Literal["murmur3_128", "u64be"] = "murmur3_128",
        version: int = 0,
    ) -> Guava:
        return super().__new__(cls, make_spec("guava", bucket_list(buckets), {"key_hash": key_hash}, version))


class RedisCluster(Router):
    """Redis Cluster: CRC16 key slots (with ``{hash tags}``) owned by nodes,
    ``{node: [(first, last), ...]}`` with inclusive slot ranges. ``slot(key)`` gives the slot."""

    __slots__ = ()

    def __new__(
        cls,
        slots: Union[Mapping[str, Iterable[Tuple[int, int]]], Iterable[Mapping[str, Any]]],
        *,
        version: int = 0,
    ) -> RedisCluster:
        if isinstance(slots, Mapping):
            nodes = [{"id": node_id, "slots": [list(r) for r in ranges]} for node_id, ranges in slots.items()]
        else:
            nodes = node_list(slots)
        return super().__new__(cls, make_spec("redis-cluster", nodes, {}, version))


class PymemcacheRendezvous(Router):
    """pymemcache 4 ``RendezvousHash`` (HashClient's default hasher) over node names
    (``"host:port"``, as HashClient names servers), with its ``seed`` (default 0)."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, seed: Optional[int] = None, version: int = 0) -> PymemcacheRendezvous:
        return super().__new__(cls, make_spec("pymemcache-rendezvous", node_list(nodes), {"seed": seed}, version))
