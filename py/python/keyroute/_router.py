"""``Router`` and ``SharedRouter``: the Python faces of the native classes.

Everything that decides a route (parsing, validation, hashing, lookup) happens in the native
module, which wraps ``keyroute-bindings``; this module only turns Python values into spec JSON
and numpy arrays into bytes and back.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    Iterable,
    List,
    Mapping,
    Optional,
    Type,
    TypedDict,
    TypeVar,
    Union,
    cast,
    overload,
)

from . import _native
from ._errors import InvalidSpecError, InvalidTypeError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from ._analysis import Ownership

#: A key: text (routed as its UTF-8 bytes) or raw bytes.
Key = Union[str, bytes, bytearray]


class _NodeId(TypedDict):
    id: str


class NodeSpec(_NodeId, total=False):
    """One node of a spec; only ``id`` is required (``conformance/VECTORS.md`` lists which
    presets read which field)."""

    weight: int
    zone: str
    host: str
    port: int
    name: str
    slots: List[List[int]]


class _SpecRequired(TypedDict):
    algorithm: str
    nodes: List[NodeSpec]


class Spec(_SpecRequired, total=False):
    """A topology spec, the JSON document every keyroute surface accepts."""

    params: Dict[str, Any]
    version: int


class Limits(TypedDict, total=False):
    """What a spec may ask of the process that builds it (``conformance/SPEC.md``, Limits).

    Pass only the limits to change; the others keep their defaults (``keyroute.LIMITS``), and
    none may exceed ``keyroute.LIMITS_CEILING``. A spec over one is refused before anything is
    built, with ``SpecTooLargeError``, ``TooManyNodesError``, ``TooManyPointsError`` or
    ``TableSizeOutOfRangeError``.
    """

    max_spec_bytes: int
    max_nodes: int
    max_points: int
    max_hashed_bytes: int
    max_table_entries: int


#: The default limits (a copy for reading: changing it changes nothing).
LIMITS: Dict[str, int] = dict(_native.LIMITS)
#: The most any limit can be raised to.
LIMITS_CEILING: Dict[str, int] = dict(_native.LIMITS_CEILING)


def limits_json(limits: Union[Limits, Mapping[str, int], None]) -> Union[str, None]:
    """``limits`` as JSON for the native layer (which validates it), or None for the defaults."""
    if limits is None:
        return None
    if not isinstance(limits, Mapping):
        raise InvalidTypeError(f"limits must be a mapping of limit names to integers, not {type(limits).__name__}")
    try:
        return json.dumps(dict(limits), allow_nan=False)
    except (TypeError, ValueError) as e:
        raise InvalidTypeError(f"limits cannot be written as JSON: {e}") from e


_R = TypeVar("_R", bound="Router")


def spec_json(spec: Mapping[str, Any]) -> str:
    """``spec`` as JSON text for the native layer (which validates it).

    Raises ``InvalidSpecError`` for values JSON cannot hold (NaN, sets, arbitrary objects).
    """
    try:
        return json.dumps(spec, allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as e:
        raise InvalidSpecError(f"the spec cannot be written as JSON: {e}") from e


def _selector(client: Optional[Key]) -> int:
    """The stable selector of a client id (XXH3-64 of its bytes, as on every surface), or a
    random one."""
    if client is None:
        return random.getrandbits(64)
    return _native.client_selector(client)


def split_keys(key: Key, r: int) -> List[bytes]:
    """The ``r`` derived keys a hot key is written under when the cache keeps no replicas:
    ``key#1`` … ``key#r``; each routes on its own, so they land on different nodes."""
    return _native.split_keys(key, r)


def split_key(key: Key, r: int, client: Optional[Key] = None) -> bytes:
    """The derived key to read a split hot key from: one of ``split_keys(key, r)``, the same
    for the same ``client`` (on every surface), random without one."""
    return _native.split_key(key, r, _selector(client))


class Router(_native.Router):
    """An immutable router: which node owns a key.

    Build one from a spec (a mapping or its JSON text), or with the constructors ``Ring``,
    ``Jump``, ``Maglev``, … and the peer presets (``Libmemcached``, ``Uhashring``, …), which
    are subclasses. Routers are immutable and safe to share between threads; batch calls
    release the GIL.

    >>> r = Router({"algorithm": "ring", "nodes": [{"id": "cache-a"}, {"id": "cache-b"}]})
    >>> r.route("user:42") in r.nodes
    True
    """

    __slots__ = ()

    def __new__(
        cls: Type[_R],
        spec: Union[Spec, Mapping[str, Any], str, _native.RouterHandle],
        *,
        limits: Union[Limits, Mapping[str, int], None] = None,
    ) -> _R:
        if isinstance(spec, Mapping):
            return super().__new__(cls, spec_json(spec), limits_json(limits), serialized=True)
        return super().__new__(cls, spec, limits_json(limits))

    @classmethod
    def from_file(
        cls, path: Union[str, "os.PathLike[str]"], *, limits: Union[Limits, Mapping[str, int], None] = None
    ) -> Router:
        """A router from the spec file at ``path``: JSON, or TOML when its name ends in ``.toml``
        (under ``limits``, the limits to change). A file that cannot be read raises ``IoError``
        naming the path; a malformed one, the spec's own error (``InvalidTomlError`` for TOML)."""
        return Router(_native.router_from_file(path, limits_json(limits)))

    @classmethod
    def from_json(cls, text: str, *, limits: Union[Limits, Mapping[str, int], None] = None) -> Router:
        """A router from spec JSON text (under ``limits``, the limits to change)."""
        return Router(text, limits=limits)

    @classmethod
    def from_spec(
        cls, spec: Union[Spec, Mapping[str, Any]], *, limits: Union[Limits, Mapping[str, int], None] = None
    ) -> Router:
        """A router from a spec mapping (under ``limits``, the limits to change)."""
        return Router(spec, limits=limits)

    @property
    def spec(self) -> Dict[str, Any]:
        """The spec in canonical form (every default filled in), as a new dict."""
        result: Dict[str, Any] = json.loads(self.canonical_json)
        return result

    @property
    def algorithm(self) -> str:
        """The spec's algorithm or preset name."""
        name: str = self.spec["algorithm"]
        return name

    @overload
    def route_many(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]: ...

    @overload
    def route_many(self, keys: Iterable[Key]) -> List[str]: ...

    def route_many(self, keys: Any) -> Any:
        """Routes many keys at once, with the GIL released while routing.

        ``keys`` is a sequence (or iterable) of ``str``/``bytes`` keys: returns the owners'
        ids, in order. The keys are read with the GIL held — and hashed as they are read, for
        the algorithms that route on one 64-bit hash, or copied otherwise — so the list may
        change in another thread while the batch is routed. Or a numpy array of ``uint64`` key hashes (``key_hash`` values, or the
        integers themselves for jump over ``u64be`` keys): returns a ``uint32`` array of the
        same shape with node positions (``nodes[i]`` is the id), for the algorithms that
        route on one 64-bit hash: ring, jump, Maglev, modulo, and the ``libmemcached``,
        ``python-hash-ring``, ``guava`` and ``jump`` presets (the others raise
        ``RouteHashUnsupportedError``).
        """
        return _route_many(self, keys)

    def spread(self, key: Key, r: int, client: Optional[Key] = None) -> str:
        """Read spreading for a hot key: one of the key's first ``r`` replicas (its owner and
        the next nodes of its preference order). With ``client`` (any stable id of the caller)
        the same client always reads the same copy; without, each call picks one at random.

        Writes must reach all ``r`` copies (write each, or invalidate each): a copy left behind
        serves stale reads. Caches without replication can spread a hot key over ``r`` derived
        keys instead: ``split_keys(key, r)`` to write, ``split_key(key, r, client)`` to read.

        >>> ring = Router({"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
        >>> ring.spread("hot", 2, client="web-1") in ring.replicas("hot", 2)
        True
        """
        return self._spread(key, r, _selector(client))

    def ownership(self) -> Ownership:
        """The share of keys each node owns, with their balance (exact for rings, Maglev and
        slot tables; closed form for jump, modulo, rendezvous; sampled otherwise)."""
        from ._analysis import ownership

        return ownership(self)

    def __repr__(self) -> str:
        return (
            f"<keyroute.{type(self).__name__} {self.algorithm}, {len(self)} nodes, "
            f"version {self.version}, fingerprint {self.fingerprint:016x}>"
        )

    def __reduce__(self) -> Any:
        # The same class back (a Ring stays a Ring), rebuilt from the canonical spec.
        return (_restore, (type(self), self.canonical_json))

    def __copy__(self: _R) -> _R:
        return self

    def __deepcopy__(self: _R, memo: Any) -> _R:
        return self


def _restore(cls: Type[_R], canonical_json: str) -> _R:
    """Unpickles a router: the spec it was built from, under the ceiling limits (a pickle is
    trusted input, and the router was built once already, under whatever limits its builder
    chose)."""
    return Router.__new__(cls, canonical_json, limits=LIMITS_CEILING)


class SharedRouter(_native.SharedRouter):
    """A router that many threads route through while another publishes new topologies.

    ``route``, ``route_index``, ``replicas`` and ``route_many`` use the router current at the
    call (one lock-free load; a batch is routed by one router throughout). ``store`` swaps in
    a new, fully built router atomically; ``load`` returns the current one.

    >>> shared = SharedRouter(Router({"algorithm": "ring", "nodes": [{"id": "a"}]}))
    >>> old = shared.store(Router({"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]}))
    >>> len(old), len(shared.load())
    (1, 2)
    """

    __slots__ = ()

    def __new__(cls, router: Router) -> SharedRouter:
        return super().__new__(cls, router)

    def load(self) -> Router:
        """The current router."""
        return Router(self._load())

    def store(self, router: Router) -> Router:
        """Publishes ``router``; returns the router it replaced."""
        return Router(self._store(router))

    @overload
    def route_many(self, keys: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]: ...

    @overload
    def route_many(self, keys: Iterable[Key]) -> List[str]: ...

    def route_many(self, keys: Any) -> Any:
        """As ``Router.route_many``, every key routed by the router current at the call."""
        return _route_many(self, keys)

    def __repr__(self) -> str:
        return f"<keyroute.SharedRouter of {self.load()!r}>"


class Transition(_native.Transition):
    """A membership change from router A (``source``) to router B (``target``), part way done.

    Each key cuts over from its A-owner to its B-owner at a deterministic point of
    ``progress`` in [0, 1] (``conformance/SPEC.md``, transition-v1): raising progress only ever
    moves more keys to their new owner, 0 is A exactly (a rollback), 1 is B exactly.
    ``route_with_fallback`` gives the owner and, for a key that has moved, where it lived
    before, for dual reads while the data migrates. Immutable: ``with_progress`` returns a new
    transition.

    >>> a = Router({"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]})
    >>> b = Router({"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})
    >>> t = Transition(a, b, 0.5)
    >>> t.with_progress(0.0).route("k") == a.route("k")
    True
    """

    __slots__ = ()

    def __new__(cls, source: Router, target: Router, progress: float) -> Transition:
        return super().__new__(cls, source, target, progress)

    def with_progress(self, progress: float) -> Transition:
        """The same change at another progress (forward, or back to 0 for a rollback)."""
        return Transition(self.source, self.target, progress)

    @property
    def source(self) -> Router:
        """The router before the change (view A)."""
        return cast(Router, super().source)  # the Router given to __new__

    @property
    def target(self) -> Router:
        """The router after the change (view B)."""
        return cast(Router, super().target)  # the Router given to __new__

    def route_many(self, keys: Iterable[Key]) -> List[str]:
        """The owner of each key now (GIL released while routing)."""
        return self._route_many(keys)

    def __repr__(self) -> str:
        return (
            f"<keyroute.Transition {self.progress:.0%} from version {self.source.version} "
            f"({self.source.fingerprint:016x}) to version {self.target.version} "
            f"({self.target.fingerprint:016x})>"
        )


def _route_many(target: Union[_native.Router, _native.SharedRouter], keys: Any) -> Any:
    np = sys.modules.get("numpy")  # an array of key hashes means numpy is already imported
    if np is not None and isinstance(keys, np.ndarray):
        if keys.dtype.kind != "u" or keys.dtype.itemsize != 8:
            raise InvalidTypeError(f"an array of key hashes must have dtype uint64, not {keys.dtype}")
        data = np.ascontiguousarray(keys, dtype="<u8").tobytes()
        return np.frombuffer(target._route_hashes(data), dtype="<u4").reshape(keys.shape)
    return target._route_many(keys)
