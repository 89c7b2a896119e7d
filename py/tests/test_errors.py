"""The error hierarchy is the one error table, and bad input of every kind gives a clear
keyroute error (with its code) — never a crash, never a bare exception from the native layer."""

from __future__ import annotations

import math
from typing import Any, Callable, Type

import keyroute
import numpy as np
import pytest
from keyroute import _native

#: The builtin each category maps to, as ARCHITECTURE.md states it.
BUILTIN = {
    "type": TypeError,
    "value": ValueError,
    "range": ValueError,
    "lookup": LookupError,
    "io": OSError,
    "memory": MemoryError,
    "internal": RuntimeError,
}


def test_generated_errors_match_the_error_table() -> None:
    """Every kind of the native module's table has exactly one class with its code, name and
    category, on the builtin its category names (`make test` also checks that the generated
    file is current)."""
    table = _native.error_table()
    assert [row[0] for row in table] == sorted({row[0] for row in table}), "codes sorted, unique"
    assert {row[0] for row in table} == set(keyroute.BY_CODE)
    for code, name, category, description in table:
        cls = keyroute.BY_CODE[code]
        assert (cls.code, cls.name, cls.category) == (code, name, category)
        assert issubclass(cls, keyroute.Error)
        assert description in " ".join((cls.__doc__ or "").split())
        assert issubclass(cls, BUILTIN[category]), f"{cls.__name__} should also be a {BUILTIN[category].__name__}"


def test_unknown_codes_still_give_a_keyroute_error() -> None:
    from keyroute._error import _from_code

    exc = _from_code(12345, "from a newer native module")
    assert type(exc) is keyroute.Error and exc.code == 12345


def raises(cls: Type[keyroute.Error], fn: Callable[[], Any]) -> keyroute.Error:
    with pytest.raises(cls) as info:
        fn()
    assert isinstance(info.value, keyroute.Error)
    assert info.value.code == cls.code and str(info.value)
    return info.value


RING = keyroute.Ring(["a", "b", "c"])


@pytest.mark.parametrize("key", [1, 1.5, None, ["k"], {"k": 1}, memoryview(b"k"), object(), np.uint64(3)])
def test_keys_of_the_wrong_type(key: Any) -> None:
    e = raises(keyroute.InvalidTypeError, lambda: RING.route(key))
    assert isinstance(e, TypeError)
    raises(keyroute.InvalidTypeError, lambda: RING.route_index(key))
    raises(keyroute.InvalidTypeError, lambda: RING.replicas(key, 1))
    raises(keyroute.InvalidTypeError, lambda: RING.key_hash(key))
    raises(keyroute.InvalidTypeError, lambda: RING.slot(key))
    e = raises(keyroute.InvalidTypeError, lambda: RING.route_many(["ok", key]))
    assert str(e).startswith("key 1: ")


def test_a_single_key_is_not_a_batch() -> None:
    for keys in ["abc", b"abc", bytearray(b"abc")]:
        raises(keyroute.InvalidTypeError, lambda keys=keys: RING.route_many(keys))
    raises(keyroute.InvalidTypeError, lambda: RING.route_many(42))


@pytest.mark.parametrize("key", ["\ud800", "abc\udfff", "\udc80\ud800x"])
def test_lone_surrogates_in_str_keys(key: str) -> None:
    e = raises(keyroute.InvalidUtf8Error, lambda: RING.route(key))
    assert isinstance(e, ValueError) and isinstance(e.__cause__, UnicodeEncodeError)
    raises(keyroute.InvalidUtf8Error, lambda: RING.replicas(key, 2))
    raises(keyroute.InvalidUtf8Error, lambda: RING.key_hash(key))
    e = raises(keyroute.InvalidUtf8Error, lambda: RING.route_many(["a", "b", key]))
    assert str(e).startswith("key 2: ") and isinstance(e.__cause__, UnicodeEncodeError)
    # The same text through surrogateescape'd bytes is fine as bytes.
    assert RING.route(key.encode("utf-8", "surrogatepass")) in RING.nodes


@pytest.mark.parametrize(
    "cls, build",
    [
        (keyroute.EmptyTopologyError, lambda: keyroute.Ring([])),
        (keyroute.EmptyTopologyError, lambda: keyroute.Ring({})),
        (keyroute.DuplicateNodeIdError, lambda: keyroute.Ring(["a", "b", "a"])),
        (keyroute.DuplicateNodeIdError, lambda: keyroute.Libmemcached(["h:1", "h:1"], distribution="ketama")),
        (keyroute.InvalidNodeIdError, lambda: keyroute.Ring([""])),
        (keyroute.InvalidNodeIdError, lambda: keyroute.Ring(["x" * 5000])),
        (keyroute.ZeroTotalWeightError, lambda: keyroute.Ring({"a": 0, "b": 0})),
        (keyroute.TooManyPointsError, lambda: keyroute.Ring({"a": 2**32 - 1})),
        (keyroute.TooManyPointsError, lambda: keyroute.Ring({"a": 1}, points=2**31)),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": 2**32})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": 10**100})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": -1})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": 1.5})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": "1"})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": None})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": math.nan})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring({"a": {1, 2}})),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring([1, 2])),
        (keyroute.InvalidTypeError, lambda: keyroute.Ring("abc")),
        (keyroute.InvalidTypeError, lambda: keyroute.Ring(3)),  # type: ignore[arg-type]
        (keyroute.InvalidSpecError, lambda: keyroute.Ring(["a"], points="many")),  # type: ignore[arg-type]
        (keyroute.InvalidSpecError, lambda: keyroute.Ring(["a"], version=-1)),
        (keyroute.InvalidSpecError, lambda: keyroute.Ring(["a"], version=2**53)),
        (keyroute.InvalidSpecError, lambda: keyroute.Router({"algorithm": "ring"})),
        (keyroute.InvalidSpecError, lambda: keyroute.Router({"algorithm": "ring", "nodes": [], "extra": 1})),
        (keyroute.InvalidTypeError, lambda: keyroute.Router(42)),  # type: ignore[arg-type]
        (keyroute.InvalidTypeError, lambda: keyroute.Router(b"{}")),  # type: ignore[arg-type]
        (keyroute.InvalidSpecError, lambda: keyroute.Libmemcached(["[::1"], distribution="ketama")),
        (keyroute.InvalidSpecError, lambda: keyroute.Libmemcached([7], distribution="ketama")),  # type: ignore[list-item]
        (keyroute.InvalidJsonError, lambda: keyroute.Router("{")),
        (keyroute.InvalidJsonError, lambda: keyroute.Router("")),
        (keyroute.UnknownAlgorithmError, lambda: keyroute.Router({"algorithm": "nope", "nodes": [{"id": "a"}]})),
        (keyroute.WeightsUnsupportedError, lambda: keyroute.Jump({"a": 1, "b": 2})),
        (keyroute.WeightsUnsupportedError, lambda: keyroute.PymemcacheRendezvous({"a": 1, "b": 2})),
        (keyroute.TableSizeNotPrimeError, lambda: keyroute.Maglev(["a"], table_size=65536)),
        (keyroute.TableSizeOutOfRangeError, lambda: keyroute.Maglev(["a", "b", "c"], table_size=2)),
        (keyroute.InvalidParameterError, lambda: keyroute.MultiProbe(["a"], probes=0)),
        (keyroute.InvalidParameterError, lambda: keyroute.Uhashring(["a"], vnodes=0)),
        (keyroute.InvalidUtf8Error, lambda: keyroute.Ring(["\ud800"])),
        (keyroute.InvalidUtf8Error, lambda: keyroute.Libmemcached(["\ud800:11211"], distribution="ketama")),
        (keyroute.InvalidUtf8Error, lambda: keyroute.Router('{"algorithm": "\ud800", "nodes": []}')),
    ],
)
def test_bad_specs(cls: Type[keyroute.Error], build: Callable[[], Any]) -> None:
    e = raises(cls, build)
    assert isinstance(e, BUILTIN[cls.category])


def test_bad_replica_counts() -> None:
    raises(keyroute.ReplicasExceedNodesError, lambda: RING.replicas("k", 4))
    raises(keyroute.ReplicasExceedNodesError, lambda: RING.replicas("k", 2**64 - 1))
    raises(keyroute.ReplicasExceedNodesError, lambda: keyroute.Ring({"a": 1, "b": 0}).replicas("k", 2))
    for n in [-1, 2**64]:
        raises(keyroute.InvalidParameterError, lambda n=n: RING.replicas("k", n))
    for bad in [1.0, "2", None, True]:
        raises(keyroute.InvalidTypeError, lambda bad=bad: RING.replicas("k", bad))  # type: ignore[arg-type]
    raises(keyroute.ReplicasUnsupportedError, lambda: keyroute.Jump(3).replicas("k", 1))


def test_bad_keys_for_the_algorithm() -> None:
    jump = keyroute.Jump(3, key_hash="u64be")
    e = raises(keyroute.InvalidKeyError, lambda: jump.route("not 8 bytes"))
    assert not isinstance(e, TypeError)
    raises(keyroute.InvalidKeyError, lambda: jump.route_many([b"\0" * 8, b"short"]))
    for h in [-1, 2**64]:
        raises(keyroute.InvalidKeyError, lambda h=h: jump.route_hash(h))
    for h in [1.0, "1", None]:
        raises(keyroute.InvalidTypeError, lambda h=h: jump.route_hash(h))  # type: ignore[arg-type]
    pm = keyroute.PymemcacheRendezvous(["a", "b"])
    raises(keyroute.InvalidKeyError, lambda: pm.route(b"\xff\xfe"))  # pymemcache keys are text


@pytest.mark.parametrize("dtype", [np.int64, np.uint32, np.float64, object])
def test_numpy_arrays_must_hold_uint64_hashes(dtype: Any) -> None:
    raises(keyroute.InvalidTypeError, lambda: RING.route_many(np.array([1, 2], dtype=dtype)))


def test_errors_from_the_shared_router() -> None:
    shared = keyroute.SharedRouter(keyroute.Jump(2))
    raises(keyroute.InvalidTypeError, lambda: shared.route(3))  # type: ignore[arg-type]
    raises(keyroute.InvalidUtf8Error, lambda: shared.route_many(["\ud800"]))
    raises(keyroute.ReplicasUnsupportedError, lambda: shared.replicas("k", 1))
    with pytest.raises(TypeError):
        shared.store("not a router")  # type: ignore[arg-type]


def test_huge_and_odd_keys_route() -> None:
    for key in [b"", b"\0" * 10, bytes(range(256)) * 4096, "x" * 1_000_000, "\U0010ffff"]:
        assert RING.route(key) in RING.nodes
