"""Constructors for keyroute's native algorithms (``conformance/SPEC.md``), from keyword
arguments. Each builds a spec and hands it to ``Router``; the native layer validates it and
fills in the documented defaults for every parameter left as ``None``."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Literal, Mapping, Optional, Union

from ._errors import InvalidSpecError
from ._router import NodeSpec, Router

#: Nodes: ``{id: weight}``, or a sequence of ids and/or node mappings (``{"id": ..., "weight":
#: ..., "zone": ...}``), in order (routes answer positions in this order).
Nodes = Union[Mapping[str, int], Iterable[Union[str, NodeSpec, Mapping[str, Any]]]]


def node_list(nodes: Nodes) -> List[Dict[str, Any]]:
    """The spec's ``nodes`` list for ``nodes`` (shapes only; the native layer validates)."""
    if isinstance(nodes, Mapping):
        return [{"id": node_id, "weight": weight} for node_id, weight in nodes.items()]
    if isinstance(nodes, (str, bytes, bytearray)):
        raise InvalidSpecError("nodes must be a mapping of id to weight or a sequence of nodes, not one string")
    try:
        items = list(nodes)
    except TypeError as e:
        raise InvalidSpecError(f"nodes must be a mapping or a sequence, not {type(nodes).__name__}") from e
    return [{"id": n} if isinstance(n, str) else dict(n) if isinstance(n, Mapping) else n for n in items]


def bucket_list(nodes: Union[int, Nodes]) -> List[Dict[str, Any]]:
    """Nodes for bucket algorithms: ``n`` gives buckets with ids ``"0"`` … ``"n-1"``."""
    if isinstance(nodes, bool):
        raise InvalidSpecError("nodes must be a bucket count or nodes, not a bool")
    if isinstance(nodes, int):
        return [{"id": str(i)} for i in range(nodes)]
    return node_list(nodes)


def make_spec(algorithm: str, nodes: List[Dict[str, Any]], params: Mapping[str, Any], version: int) -> Dict[str, Any]:
    """A spec with the parameters that were given (``None`` means "the default")."""
    return {
        "algorithm": algorithm,
        "params": {k: v for k, v in params.items() if v is not None},
        "nodes": nodes,
        "version": version,
    }


class Ring(Router):
    """Hash ring with weighted virtual points (native ``ring-v1``): ``points`` per unit of
    weight (default 160). Adding a node moves only about 1/(n+1) of the keys.

    >>> ring = Ring({"cache-a": 1, "cache-b": 2}, points=160)
    >>> ring.route("user:42") in ("cache-a", "cache-b")
    True
    """

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, points: Optional[int] = None, version: int = 0) -> Ring:
        return super().__new__(cls, make_spec("ring", node_list(nodes), {"points_per_weight": points}, version))


class Jump(Router):
    """Jump consistent hash (Lamping & Veach) over buckets in order; equal weights only, no
    replicas. ``nodes`` may be a bucket count. ``key_hash``: ``"xxh3"`` (default) hashes the
    key; ``"u64be"`` takes 8-byte keys as big-endian integers, as PyPI ``jump-consistent-hash``
    does (``route_hash(n)`` and numpy ``route_many`` take the integers directly).
    """

    __slots__ = ()

    def __new__(
        cls,
        nodes: Union[int, Nodes],
        *,
        key_hash: Optional[Literal["xxh3", "u64be"]] = None,
        version: int = 0,
    ) -> Jump:
        return super().__new__(cls, make_spec("jump", bucket_list(nodes), {"key_hash": key_hash}, version))


class Maglev(Router):
    """Maglev lookup table (native ``maglev-v1``): ``table_size`` a prime (default 65537)."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, table_size: Optional[int] = None, version: int = 0) -> Maglev:
        return super().__new__(cls, make_spec("maglev", node_list(nodes), {"table_size": table_size}, version))


class Rendezvous(Router):
    """Weighted rendezvous (highest random weight) hashing (native ``rendezvous-v1``)."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, version: int = 0) -> Rendezvous:
        return super().__new__(cls, make_spec("rendezvous", node_list(nodes), {}, version))


class Slots(Router):
    """Fixed slots: key → one of ``count`` slots (default 1024) → node. Slots are dealt out by
    weight, or given per node as ``{"id": ..., "slots": [[first, last], ...]}``."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, count: Optional[int] = None, version: int = 0) -> Slots:
        return super().__new__(cls, make_spec("slots", node_list(nodes), {"count": count}, version))


class MultiProbe(Router):
    """Multi-probe consistent hashing: one point per node, ``probes`` probes per key
    (default 21); equal weights only."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, probes: Optional[int] = None, version: int = 0) -> MultiProbe:
        return super().__new__(cls, make_spec("multi-probe", node_list(nodes), {"probes": probes}, version))


class Modulo(Router):
    """``hash(key) mod n``: the baseline that loses most keys when ``n`` changes. For
    comparisons only."""

    __slots__ = ()

    def __new__(cls, nodes: Nodes, *, version: int = 0) -> Modulo:
        return super().__new__(cls, make_spec("modulo", node_list(nodes), {}, version))
