"""Consistent hashing with bounded loads: ``BoundedLoad`` and its ``Lease``."""

from __future__ import annotations

from . import _native
from ._router import Router

#: The balance factor ``c`` unless one is given (the core's constant).
DEFAULT_BALANCE_FACTOR: float = _native.DEFAULT_BALANCE_FACTOR

Lease = _native.Lease


class BoundedLoad(_native.BoundedLoad):
    """Routes each request to the first node of its key's preference order with room.

    A node has room while it serves fewer than ⌈c · (total + 1) · weight / total weight⌉
    requests, where ``total`` counts the requests in flight: no node takes more than ``c``
    times its share, rounded up, and a key is served by its owner whenever the owner has room,
    so keys go home as load falls (Mirrokni, Thorup and Zadimoghaddam's consistent hashing with
    bounded loads, as HAProxy's ``hash-balance-factor``). The preference order is the router's
    replica order: the ring walk for rings, the ranking for rendezvous and Maglev. Jump and
    modulo have none and are refused (``ReplicasUnsupportedError``).

    ``acquire`` takes a slot for a request and returns a ``Lease`` that gives it back when the
    request is done: on ``release()``, at the end of a ``with`` block, or when the lease is
    garbage-collected. The counts are atomic: one ``BoundedLoad`` serves many threads.

    >>> import keyroute
    >>> bounded = keyroute.BoundedLoad(keyroute.Ring(["a", "b", "c", "d"]), c=1.25)
    >>> with bounded.acquire("user:42") as lease:
    ...     lease.is_home, bounded.load(lease.node)
    (True, 1)
    >>> bounded.total
    0
    """

    __slots__ = ()

    def __new__(cls, router: Router, c: float = DEFAULT_BALANCE_FACTOR) -> BoundedLoad:
        return super().__new__(cls, router, c)
