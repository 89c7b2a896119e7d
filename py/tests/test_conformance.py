"""The Python conformance runner (``keyroute.conformance``, shipped in the package) over every
vector file of conformance/vectors/v1, one test per file: node ids, replicas, slots and error
codes (each error as its class, ``keyroute.BY_CODE[code]``). A missing or empty corpus fails.
How each case field reaches Python is described in ``keyroute.conformance``'s docstring.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import pytest
from conftest import VECTORS
from keyroute import conformance

#: Cases per outcome over the whole corpus, for the summary line.
_COUNTS: Dict[str, int] = {"passed": 0, "failed": 0, "skipped": 0}
_SKIPPED: Dict[str, List[str]] = {}


def vector_files() -> List[Path]:
    return conformance.vector_files(VECTORS) if VECTORS.is_dir() else []


def test_corpus_is_present() -> None:
    files = vector_files()
    assert VECTORS.is_dir(), f"no vector corpus at {VECTORS}"
    assert len(files) >= conformance.MIN_FILES, f"the corpus at {VECTORS} has only {len(files)} files"


@pytest.mark.parametrize("path", vector_files(), ids=lambda p: p.name)
def test_vector_file(path: Path) -> None:
    result = conformance.run_file(path)
    for c in result.cases:
        _COUNTS[c.outcome] += 1
        if c.outcome == "skipped":
            _SKIPPED.setdefault(c.message or "", []).append(f"{path.stem}/{c.case}")
    failures = [f"{c.case}: {c.message}" for c in result.cases if c.outcome == "failed"]
    assert result.cases, f"{path.name} has no case"
    assert not result.problems, "\n".join(result.problems)
    assert not failures, f"{len(failures)} of {len(result.cases)} cases failed:\n" + "\n".join(failures[:20])


def test_conformance_counts(figure: Any) -> None:
    """Runs last in this module (pytest keeps file order): the totals over every file, and why
    the cases this surface does not run are not for it."""
    total = sum(_COUNTS.values())
    if total == 0:
        pytest.skip("no vector file ran (run the whole module for the totals)")
    figure(
        f"conformance: {len(vector_files())} files, {total} cases: {_COUNTS['passed']} passed, "
        f"{_COUNTS['failed']} failed, {_COUNTS['skipped']} not for Python"
    )
    for reason, cases in _SKIPPED.items():
        figure(f"  not for Python ({reason}): {', '.join(cases)}")
    assert _COUNTS["failed"] == 0
