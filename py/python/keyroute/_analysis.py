"""Ownership, balance and diff: exact where the algorithm allows it (rings, Maglev and slot
tables are measured on the key-hash space itself, no key sampled), in closed form for jump,
modulo and rendezvous, sampled otherwise, and always saying which (``method``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Dict, Literal, Optional, Tuple, cast

from . import _native

if TYPE_CHECKING:
    from ._router import Router

#: How a figure was obtained: ``"exact"`` (the key-hash space itself), ``"slot_share"`` (per
#: slot), ``"expected"`` (closed form for uniformly hashed keys), ``"sampled"`` (estimated
#: from ``sample_keys`` keys). The names are the core's (``keyroute::analysis::Method``).
Method = Literal["exact", "slot_share", "expected", "sampled"]


@dataclass(frozen=True)
class Balance:
    """How evenly keys spread, relative to each node's fair share ``weight / total``."""

    #: Coefficient of variation of ``share / fair share`` over nodes with weight.
    cv: float
    #: Largest ``share / fair share``.
    max_over_mean: float
    #: Smallest ``share / fair share``.
    min_over_mean: float


@dataclass(frozen=True)
class Ownership:
    """The share of keys each node owns (shares sum to 1)."""

    shares: Dict[str, float]
    balance: Balance
    method: Method
    #: Keys routed, when ``method`` is ``"sampled"``.
    sample_keys: Optional[int] = None


@dataclass(frozen=True)
class Flow:
    """A share of all keys that goes from node ``source`` (in A) to node ``target`` (in B)."""

    source: str
    target: str
    share: float


@dataclass(frozen=True)
class MovedArc:
    """A moved piece of the key-hash space, ``start`` to ``end`` inclusive (exact diffs)."""

    start: int
    end: int
    source: str
    target: str


@dataclass(frozen=True)
class Diff:
    """What changing from router A to router B does."""

    #: Share of keys whose owner (by node id) changes.
    moved: float
    #: The least any router could move for this change of nodes and weights:
    #: ``1 - sum(min(fair share before, fair share after))`` over node ids.
    ideal_moved: float
    #: Every (source, target) pair with a positive share, staying keys included.
    flows: Tuple[Flow, ...]
    #: The moved pieces of the hash space, in hash order (exact diffs only; else empty).
    moved_arcs: Tuple[MovedArc, ...]
    method: Method
    sample_keys: Optional[int] = None


def ownership(router: Router) -> Ownership:
    """The share of keys each node of ``router`` owns, with their balance."""
    shares, method, sample_keys, (cv, hi, lo) = _native.ownership(router)
    nodes = router.nodes
    return Ownership(
        shares=dict(zip(nodes, shares)),
        balance=Balance(cv, hi, lo),
        method=cast(Method, method),
        sample_keys=sample_keys,
    )


def diff(a: Router, b: Router) -> Diff:
    """What changing from ``a`` to ``b`` moves: the moved share, the source→target flows and,
    where exact, the moved arcs of the hash space. Nodes are matched by id.

    >>> import keyroute
    >>> d = keyroute.diff(keyroute.Ring(["a", "b", "c"]), keyroute.Ring(["a", "b", "c", "d"]))
    >>> round(d.moved, 3), d.method, d.flows[1]
    (0.222, 'exact', Flow(source='a', target='d', share=0.07658316883911194))
    """
    moved, ideal_moved, flows, arcs, method, sample_keys = _native.diff(a, b)
    an, bn = a.nodes, b.nodes
    return Diff(
        moved=moved,
        ideal_moved=ideal_moved,
        flows=tuple(Flow(an[f], bn[t], share) for f, t, share in flows),
        moved_arcs=tuple(MovedArc(start, end, an[f], bn[t]) for start, end, f, t in arcs),
        method=cast(Method, method),
        sample_keys=sample_keys,
    )
