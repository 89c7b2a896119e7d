"""``keyroute.audit`` and ``keyroute.migrate``: ``keyroute audit`` and ``keyroute migrate`` for
Python scripts, over the same Rust code (its memcached and Redis clients, its planner and
copier). Each returns the JSON report the CLI's ``--json`` prints, as a dict.

A node's address comes from its ``host``/``port`` when the spec has them, from its id when
that is ``host:port``, or from ``addrs`` (``{"cache-a": "10.0.0.1:11211"}``).
"""

from __future__ import annotations

import json
from typing import Any, Dict, Mapping, Optional, Tuple, Union

from . import _native
from ._router import Router, spec_json

SpecLike = Union[Router, Mapping[str, Any], str]


def _spec(spec: SpecLike) -> str:
    if isinstance(spec, Router):
        return spec.canonical_json
    if isinstance(spec, str):
        return spec
    return spec_json(spec)


def _addrs(addrs: Optional[Mapping[str, str]]) -> list[str]:
    return [f"{node}={address}" for node, address in (addrs or {}).items()]


def audit(
    spec: SpecLike,
    *,
    backend: str = "memcached",
    addrs: Optional[Mapping[str, str]] = None,
    samples: int = 5,
) -> Dict[str, Any]:
    """Lists every node's keys (memcached ``lru_crawler metadump``, Redis ``SCAN``) and checks
    each against ``spec``: ``{"keys", "misplaced", "nodes": [{"id", "address", "keys",
    "misplaced", "samples"}]}``, up to ``samples`` misplaced keys per node."""
    text = _native.audit(_spec(spec), backend=backend, addrs=_addrs(addrs), samples=samples)
    result: Dict[str, Any] = json.loads(text)
    return result


def migrate(
    a: SpecLike,
    b: SpecLike,
    *,
    step: Optional[Tuple[float, float]] = None,
    backend: str = "memcached",
    addrs: Optional[Mapping[str, str]] = None,
    dry_run: bool = False,
    delete_old: bool = False,
    batch: int = 256,
    concurrency: int = 4,
    ops_per_sec: Optional[float] = None,
    bytes_per_sec: Optional[float] = None,
) -> Dict[str, Any]:
    """Copies exactly the keys whose owner changes from topology ``a`` to ``b`` (or, with
    ``step=(p1, p2)``, those that cut over between two progress values of the gradual change)
    to their new owner, keeping TTLs and flags, never overwriting a value already there and
    never reviving an expired key; then audits the new owners. Returns the report
    (``moved``, ``copied``, ``already_present``, ``expired``, ``verified``, ``missing``,
    ``bytes_copied``, ``seconds``, ``flows``, ``after``, …). A re-run resumes."""
    text = _native.migrate(
        _spec(a),
        _spec(b),
        step=step,
        backend=backend,
        addrs=_addrs(addrs),
        dry_run=dry_run,
        delete_old=delete_old,
        batch=batch,
        concurrency=concurrency,
        ops_per_sec=ops_per_sec,
        bytes_per_sec=bytes_per_sec,
    )
    result: Dict[str, Any] = json.loads(text)
    return result
