"""The node-argument catalogue (conformance/node-args.json) through Python's constructors:
every argument gives the ids or the error the catalogue lists, as it does on every surface."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable, Dict

import keyroute
import pytest

CATALOGUE = Path(__file__).resolve().parents[2] / "conformance" / "node-args.json"
CASES = json.loads(CATALOGUE.read_text(encoding="utf-8"))["cases"]

#: One constructor per node form.
BUILD: Dict[str, Callable[[Any], keyroute.Router]] = {
    "nodes": keyroute.Ring,
    "buckets": keyroute.Jump,
    "servers": lambda s: keyroute.Libmemcached(s, distribution="ketama_weighted"),
    "slot_ranges": keyroute.RedisCluster,
}


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_node_argument(case: Dict[str, Any]) -> None:
    build = BUILD[case["form"]]
    if "error" in case:
        with pytest.raises(keyroute.Error) as e:
            build(case["nodes"])
        assert e.value.name == case["error"], str(e.value)
    else:
        assert list(build(case["nodes"]).nodes) == case["ids"]


def test_python_only_forms_read_as_their_json() -> None:
    # Tuples are pairs, a non-dict mapping is a mapping, a float count is a count, NaN is null.
    assert keyroute.Ring([("a", 2), ("b", 1)]).nodes == ("a", "b")
    assert keyroute.Jump(3.0).nodes == ("0", "1", "2")
    with pytest.raises(keyroute.InvalidSpecError):
        keyroute.Ring({"a": float("nan")})
    with pytest.raises(keyroute.InvalidSpecError):
        keyroute.Jump(float("nan"))
    with pytest.raises(keyroute.InvalidTypeError):
        keyroute.Ring(float("nan"))  # type: ignore[arg-type]
    with pytest.raises(keyroute.TooManyNodesError):
        keyroute.Jump(10**400)
    with pytest.raises(keyroute.InvalidTypeError):
        keyroute.Ring(b"ab")  # type: ignore[arg-type]


def test_router_from_file(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text('{"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b"}]}')
    (tmp_path / "a.toml").write_text('algorithm = "ring"\nnodes = [{ id = "a" }, { id = "b" }]\n')
    a = keyroute.Router.from_file(tmp_path / "a.json")
    assert a.fingerprint == keyroute.Router.from_file(str(tmp_path / "a.toml")).fingerprint
    with pytest.raises(keyroute.IoError, match="missing.json"):
        keyroute.Router.from_file(tmp_path / "missing.json")
    (tmp_path / "bad.toml").write_text("algorithm = \n")
    with pytest.raises(keyroute.InvalidTomlError, match=r"bad.toml: line 1, column \d+: not valid TOML"):
        keyroute.Router.from_file(tmp_path / "bad.toml")


def test_errors_point_at_the_fix() -> None:
    with pytest.raises(keyroute.UnknownAlgorithmError, match='did you mean "ring"'):
        keyroute.Router({"algorithm": "rnig", "nodes": [{"id": "a"}]})
    # From a dict, the field and no line or column of JSON the caller never wrote.
    with pytest.raises(keyroute.InvalidSpecError) as e:
        keyroute.Router({"algorithm": "ring", "nodes": [{"id": "a"}, {"id": "b", "weight": "2"}]})
    assert str(e.value).startswith('nodes[1].weight must be an integer from 0 to 4294967295, not the string "2"')
    with pytest.raises(keyroute.DuplicateNodeIdError, match='repeats the id "a"'):
        keyroute.Ring(["a", "b", "a"])
