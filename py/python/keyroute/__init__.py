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
``keyroute.diff(a, b)`` say exactly who owns what and what a change moves, and ``BoundedLoad``
keeps any node from serving more than ``c`` times its share of the requests in flight, and
``HotKeys`` finds the hottest keys in fixed memory. ``LiveView`` holds the view a fleet routes
with, fed by ``keyroute.watch(source, view)`` from a file or etcd and registered in the
source's census (``keyroute.fleet_status``). Every error is a ``keyroute.Error`` with a
stable ``.code``.

``keyroute.uhashring.HashRing`` and ``keyroute.pymemcache.RendezvousHash`` are drop-ins for
uhashring's and pymemcache's own classes, and ``python -m keyroute.conformance`` checks this
installation against the conformance corpus shipped inside the package.
"""

from . import _algorithms, _errors, _native, conformance, pymemcache, uhashring

# The generated lists: a constructor per algorithm and peer preset (the registry), a class per
# error kind and BY_CODE (the error table). Each module's ``__all__`` names what it adds here.
from ._algorithms import *  # noqa: F403
from ._analysis import Balance, Diff, Flow, MovedArc, Ownership, diff
from ._bounded import DEFAULT_BALANCE_FACTOR, BoundedLoad, Lease
from ._errors import *  # noqa: F403
from ._fleet import audit, migrate
from ._hotkeys import HotKeys
from ._nodes import Nodes, Servers, SlotRanges
from ._router import (
    LIMITS,
    LIMITS_CEILING,
    Key,
    Limits,
    NodeSpec,
    Router,
    SharedRouter,
    Spec,
    Transition,
    split_key,
    split_keys,
)
from ._view import LiveView, Watch, converged, fleet_status, publish_view, watch

__version__: str = _native.__version__

# Tracebacks and pickles name this module, where every error class is exported.
for _cls in BY_CODE.values():  # noqa: F405
    _cls.__module__ = __name__
del _cls

__all__ = [
    "__version__",
    "conformance",
    "pymemcache",
    "uhashring",
    # routers
    "Router",
    "SharedRouter",
    "Transition",
    "BoundedLoad",
    "Lease",
    "DEFAULT_BALANCE_FACTOR",
    "HotKeys",
    "split_key",
    "split_keys",
    # fleets
    "audit",
    "migrate",
    # views
    "LiveView",
    "Watch",
    "watch",
    "fleet_status",
    "publish_view",
    "converged",
    # analysis
    "diff",
    "Ownership",
    "Balance",
    "Diff",
    "Flow",
    "MovedArc",
    # types
    "Key",
    "Nodes",
    "Servers",
    "SlotRanges",
    "NodeSpec",
    "Spec",
    # limits
    "Limits",
    "LIMITS",
    "LIMITS_CEILING",
]
# Algorithms and peer presets, then the errors (Error, one class per kind, BY_CODE).
__all__ += _algorithms.__all__
__all__ += _errors.__all__
