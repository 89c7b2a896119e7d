"""The package's types (inline annotations, py.typed, and the native module's stub) as a user's
mypy sees them: typed use checks clean under --strict, misuse is caught line by line."""

from __future__ import annotations

import re
from pathlib import Path

# mypy is a test dependency (`pip install './py[test]'`): without it this module fails to import,
# and the run fails with it; it never skips.
import mypy.api as mypy_api

HERE = Path(__file__).resolve().parent / "typing"
CACHE = Path(__file__).resolve().parents[2] / "build" / "py-mypy-cache"


def mypy(path: Path) -> str:
    out, err, _ = mypy_api.run(["--strict", "--cache-dir", str(CACHE), "--no-error-summary", str(path)])
    return out + err


def test_typed_use_checks_clean() -> None:
    assert mypy(HERE / "usage.py").strip() == ""


def test_misuse_is_caught() -> None:
    source = (HERE / "misuse.py").read_text().splitlines()
    expected = {i + 1 for i, line in enumerate(source) if line.endswith("# E")}
    out = mypy(HERE / "misuse.py")
    flagged = {int(m.group(1)) for m in re.finditer(r"misuse\.py:(\d+): error", out)}
    assert flagged == expected, out
