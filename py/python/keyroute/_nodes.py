"""The node forms the constructors take, turned into a spec's ``nodes`` list (shapes only: the
native layer validates everything), and the spec a constructor builds."""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _native
from ._errors import InvalidSpecError, InvalidTypeError, TooManyNodesError
from ._router import NodeSpec

#: Nodes: ``{id: weight}``, or a sequence of ids and/or node mappings (``{"id": ..., "weight":
#: ..., "zone": ...}``), in order (routes answer positions in this order).
Nodes = Union[Mapping[str, int], Iterable[Union[str, NodeSpec, Mapping[str, Any]]]]

#: Memcached-style servers: ``{"host:port": weight}``, or a sequence of ``"host:port"``
#: addresses (weight 1) and/or node mappings with explicit ``host``/``port``/``name`` fields.
#: ``host`` alone means port 11211; IPv6 is written ``[addr]:port``. The address as written is
#: the node id that routes report.
Servers = Union[Mapping[str, int], Iterable[Union[str, NodeSpec, Mapping[str, Any]]]]

#: Slot owners: ``{id: [(first, last), ...]}`` with inclusive slot ranges, or node mappings
#: with a ``slots`` field.
SlotRanges = Union[Mapping[str, Iterable[Tuple[int, int]]], Iterable[Mapping[str, Any]]]


def node_list(nodes: Nodes) -> List[Dict[str, Any]]:
    """The spec's ``nodes`` list for ``nodes``."""
    if isinstance(nodes, Mapping):
        return [{"id": node_id, "weight": weight} for node_id, weight in nodes.items()]
    if isinstance(nodes, (str, bytes, bytearray)):
        raise InvalidTypeError("nodes must be a mapping of id to weight or a sequence of nodes, not one string")
    try:
        items = list(nodes)
    except TypeError as e:
        raise InvalidTypeError(f"nodes must be a mapping or a sequence, not {type(nodes).__name__}") from e
    return [{"id": n} if isinstance(n, str) else dict(n) if isinstance(n, Mapping) else n for n in items]


def bucket_list(nodes: Union[int, Nodes], limits: Optional[Mapping[str, object]] = None) -> List[Dict[str, Any]]:
    """Nodes for bucket algorithms: ``n`` gives buckets with ids ``"0"`` … ``"n-1"``.

    A count above the node limit (``limits["max_nodes"]``, else the default) is refused before
    any bucket is made: ``Jump(2**40)`` fails at once instead of building a trillion dicts.
    """
    if isinstance(nodes, bool):
        raise InvalidTypeError("nodes must be a bucket count or nodes, not a bool")
    if isinstance(nodes, int):
        max_nodes = _native.LIMITS["max_nodes"]
        given = limits.get("max_nodes") if limits is not None else None
        if isinstance(given, int):
            max_nodes = given
        if nodes > max_nodes:
            raise TooManyNodesError(f"{nodes} nodes, above the limit of {max_nodes}")
        return [{"id": str(i)} for i in range(nodes)]
    return node_list(nodes)


def server_list(servers: Servers) -> List[Dict[str, Any]]:
    """Spec nodes for servers (addresses are split by the native layer)."""
    if isinstance(servers, (str, bytes, bytearray)):
        raise InvalidTypeError("servers must be a mapping or a sequence of addresses, not one string")
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


def slot_list(slots: SlotRanges) -> List[Dict[str, Any]]:
    """Spec nodes for slot owners."""
    if isinstance(slots, Mapping):
        return [{"id": node_id, "slots": [list(r) for r in ranges]} for node_id, ranges in slots.items()]
    return node_list(slots)


def make_spec(algorithm: str, nodes: List[Dict[str, Any]], params: Mapping[str, Any], version: int) -> Dict[str, Any]:
    """A spec with the parameters that were given (``None`` means "the default")."""
    return {
        "algorithm": algorithm,
        "params": {k: v for k, v in params.items() if v is not None},
        "nodes": nodes,
        "version": version,
    }
