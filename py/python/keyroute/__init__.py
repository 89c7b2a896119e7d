"""keyroute: which node owns this key?

Consistent-hashing routing for caches, shards and stateful services, with one promise: the same
key and the same topology give the same node in every language keyroute serves (Rust, C,
Python, JS), and bit-exact presets reproduce the routers fleets already run (libmemcached
ketama, uhashring, pymemcache, nginx, twemproxy, Guava, Redis Cluster, …).

>>> import keyroute
>>> ring = keyroute.Ring({"cache-a": 1, "cache-b": 2}, points=160)
>>> ring.route("user:42") in ring.nodes
True
>>> len(ring.replicas(b"user:42", 2))
2

Routers are immutable and thread-safe; ``SharedRouter`` swaps topologies under running threads,
``Transition`` moves keys to a new topology gradually, ``router.ownership()`` and
``keyroute.diff(a, b)`` say exactly who owns what and what a change moves. Every error is a
``keyroute.Error`` with a stable ``.code``.
"""

from . import _native, pymemcache
from ._analysis import Balance, Diff, Flow, MovedArc, Ownership, diff
from ._algorithms import Jump, Maglev, Modulo, MultiProbe, Nodes, Rendezvous, Ring, Slots
from ._errors import (
    BY_CODE,
    BufferTooSmallError,
    DuplicateNodeIdError,
    EmptyTopologyError,
    Error,
    InternalError,
    InvalidJsonError,
    InvalidKeyError,
    InvalidNodeIdError,
    InvalidParameterError,
    InvalidSpecError,
    InvalidUtf8Error,
    KeyTypeError,
    NodeOutOfRangeError,
    NullPointerError,
    ReplicasExceedNodesError,
    ReplicasUnsupportedError,
    RouteHashUnsupportedError,
    TableSizeNotPrimeError,
    TableSizeOutOfRangeError,
    TooManyNodesError,
    TooManyPointsError,
    UnknownAlgorithmError,
    WeightsUnsupportedError,
    ZeroTotalWeightError,
)
from ._presets import (
    Guava,
    Libmemcached,
    Nginx,
    NpmHashring,
    PymemcacheRendezvous,
    PythonHashRing,
    RedisCluster,
    Servers,
    Spymemcached,
    Twemproxy,
    Uhashring,
)
from ._router import Key, NodeSpec, Router, SharedRouter, Spec, Transition

__version__: str = _native.__version__

__all__ = [
    "__version__",
    "pymemcache",
    # routers
    "Router",
    "SharedRouter",
    "Ring",
    "Jump",
    "Maglev",
    "Rendezvous",
    "Slots",
    "MultiProbe",
    "Modulo",
    "Transition",
    # analysis
    "diff",
    "Ownership",
    "Balance",
    "Diff",
    "Flow",
    "MovedArc",
    # peer presets
    "Libmemcached",
    "Spymemcached",
    "Twemproxy",
    "Uhashring",
    "NpmHashring",
    "PythonHashRing",
    "Nginx",
    "Guava",
    "RedisCluster",
    "PymemcacheRendezvous",
    # types
    "Key",
    "Nodes",
    "Servers",
    "NodeSpec",
    "Spec",
    # errors
    "Error",
    "KeyTypeError",
    "BY_CODE",
    "BufferTooSmallError",
    "DuplicateNodeIdError",
    "EmptyTopologyError",
    "InternalError",
    "InvalidJsonError",
    "InvalidKeyError",
    "InvalidNodeIdError",
    "InvalidParameterError",
    "InvalidSpecError",
    "InvalidUtf8Error",
    "NodeOutOfRangeError",
    "NullPointerError",
    "ReplicasExceedNodesError",
    "ReplicasUnsupportedError",
    "RouteHashUnsupportedError",
    "TableSizeNotPrimeError",
    "TableSizeOutOfRangeError",
    "TooManyNodesError",
    "TooManyPointsError",
    "UnknownAlgorithmError",
    "WeightsUnsupportedError",
    "ZeroTotalWeightError",
]
