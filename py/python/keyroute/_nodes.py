"""The node forms the constructors take, turned into a spec's ``nodes`` list, and the spec a
constructor builds. The reading of every form is the native layer's (one function every
surface calls, so one mistake gets one error everywhere); this module only turns Python
values into JSON for it, keeping a mapping's order."""

from __future__ import annotations

import json
import math
from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple, Union

from . import _native
from ._errors import InvalidSpecError, InvalidTypeError
from ._router import NodeSpec

#: Nodes: ``{id: weight}``, or a sequence of ids, ``(id, weight)`` pairs and/or node mappings
#: (``{"id": ..., "weight": ..., "zone": ...}``), in order (routes answer positions in this
#: order).
Nodes = Union[Mapping[str, int], Iterable[Union[str, Tuple[str, int], NodeSpec, Mapping[str, Any]]]]

#: Memcached-style servers: ``{"host:port": weight}``, or a sequence of ``"host:port"``
#: addresses (weight 1), ``(address, weight)`` pairs and/or node mappings with explicit
#: ``host``/``port``/``name`` fields. ``host`` alone means port 11211; IPv6 is written
#: ``[addr]:port``. The address as written is the node id that routes report.
Servers = Union[Mapping[str, int], Iterable[Union[str, Tuple[str, int], NodeSpec, Mapping[str, Any]]]]

#: Slot owners: ``{id: [(first, last), ...]}`` with inclusive slot ranges, or node mappings
#: with a ``slots`` field.
SlotRanges = Union[Mapping[str, Iterable[Tuple[int, int]]], Iterable[Mapping[str, Any]]]


def _jsonable(nodes: Any) -> Any:
    """``nodes`` as JSON values: a mapping as ``[key, value]`` pairs in its order (a JSON
    object would lose both the order and any key that is not a string), an iterable as a list."""
    if isinstance(nodes, Mapping):
        return [[k, v] for k, v in nodes.items()]
    if isinstance(nodes, (str, int, float)) or nodes is None:
        return nodes
    if isinstance(nodes, (bytes, bytearray)):
        raise InvalidTypeError("nodes must be a mapping of id to weight or a sequence of nodes, not bytes")
    try:
        items = list(nodes)
    except TypeError as e:
        raise InvalidTypeError(f"nodes must be a mapping or a sequence, not {type(nodes).__name__}") from e
    return [dict(n) if isinstance(n, Mapping) else n for n in items]


def _finite(v: Any) -> Any:
    """``v`` with every NaN or infinity as ``None``, as JavaScript's ``JSON.stringify`` writes
    them, so both languages hand the native layer the same document (a weight of NaN is then
    refused at its field)."""
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {k: _finite(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_finite(x) for x in v]
    return v


def _spec_nodes(form: str, nodes: Any, limits: Optional[Mapping[str, object]] = None) -> List[Dict[str, Any]]:
    # JSON has no NaN or infinity: a count that is one is refused here, as the native layer
    # refuses any other count that is not a whole number (elsewhere it is null: not nodes).
    if form == "buckets" and isinstance(nodes, float) and not math.isfinite(nodes):
        raise InvalidSpecError(f"a bucket count must be a whole number ≥ 0, not {nodes}")
    # ASCII escapes keep a lone surrogate as text the native layer can name (invalid_utf8).
    arg = _finite(_jsonable(nodes))
    try:
        text = json.dumps(arg, allow_nan=False)
    except TypeError as e:
        raise InvalidSpecError(f"a node holds a value a spec cannot carry: {e}") from e
    limits_text = None
    if isinstance(limits, Mapping):
        try:
            limits_text = json.dumps(dict(limits), allow_nan=False)
        except (TypeError, ValueError):
            limits_text = None  # the router reports the limits themselves
    result: List[Dict[str, Any]] = json.loads(_native.spec_nodes(form, text, limits_text))
    return result


def node_list(nodes: Nodes) -> List[Dict[str, Any]]:
    """The spec's ``nodes`` list for ``nodes``."""
    return _spec_nodes("nodes", nodes)


def bucket_list(nodes: Union[int, Nodes], limits: Optional[Mapping[str, object]] = None) -> List[Dict[str, Any]]:
    """Nodes for bucket algorithms: ``n`` gives buckets with ids ``"0"`` … ``"n-1"``.

    A count above the node limit (``limits["max_nodes"]``, else the default) is refused before
    any bucket is made: ``Jump(2**40)`` fails at once instead of building a trillion dicts.
    """
    return _spec_nodes("buckets", nodes, limits)


def server_list(servers: Servers) -> List[Dict[str, Any]]:
    """Spec nodes for servers (each address split into host and port)."""
    return _spec_nodes("servers", servers)


def slot_list(slots: SlotRanges) -> List[Dict[str, Any]]:
    """Spec nodes for slot owners."""
    return _spec_nodes("slot_ranges", slots)


def make_spec(algorithm: str, nodes: List[Dict[str, Any]], params: Mapping[str, Any], version: int) -> Dict[str, Any]:
    """A spec with the parameters that were given (``None`` means "the default")."""
    return {
        "algorithm": algorithm,
        "params": {k: v for k, v in params.items() if v is not None},
        "nodes": nodes,
        "version": version,
    }
