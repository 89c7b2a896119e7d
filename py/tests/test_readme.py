"""The README's Python snippets run as written (docs that execute cannot rot)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_blocks_run() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    assert blocks, "README.md has no Python snippet"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})


def test_readme_states_the_true_owner() -> None:
    import keyroute

    ring = keyroute.Ring({"cache-a": 1, "cache-b": 2, "cache-c": 1}, points=160)
    assert ring.route("user:42") == "cache-a"
