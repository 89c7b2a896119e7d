"""The README's Python snippets run as written (docs that execute cannot rot)."""

import pathlib
import re

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
#: The package's own README (its page on the package index).
PY_README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


@pytest.mark.parametrize("readme", [README, PY_README], ids=["README.md", "py/README.md"])
def test_readme_python_blocks_run(readme: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # In a folder of its own, as a reader's session is: a block may write files (a view source).
    monkeypatch.chdir(tmp_path)
    blocks = re.findall(r"```python\n(.*?)```", readme.read_text(encoding="utf-8"), re.S)
    assert blocks, f"{readme} has no Python snippet"
    for block in blocks:
        exec(compile(block, str(readme), "exec"), {})


def test_package_readme_installs_the_release_wheel_first() -> None:
    """keyroute is not on the package index yet, so the README's first install command is the
    release wheel, by path (scripts/doctest.py runs it, from the artifacts)."""
    lines = PY_README.read_text(encoding="utf-8").splitlines()
    first = next(line for line in lines if line.startswith("$ pip install"))
    assert re.fullmatch(r"\$ pip install -q \./keyroute-[0-9.]+-cp310-abi3-\S+\.whl", first), first


def test_readme_states_the_true_owner() -> None:
    import keyroute

    ring = keyroute.Ring({"cache-a": 1, "cache-b": 2, "cache-c": 1}, points=160)
    assert ring.route("user:42") == "cache-a"
