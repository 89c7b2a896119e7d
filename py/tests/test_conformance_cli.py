"""``python -m keyroute.conformance``, run as a user runs it: the corpus shipped in the installed
package (the same bytes as the repository's), the filters, the JUnit report read back by a real
JUnit parser, and a non-zero exit on a tampered vector."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import junitparser
import pytest
from conftest import REPO
from keyroute import conformance

REPO_VECTORS = REPO / "conformance" / "vectors" / "v1"


def cli(*args: str, cwd: Path) -> Tuple[int, str]:
    """Runs the module in a fresh interpreter; returns (exit status, stdout + stderr)."""
    proc = subprocess.run(
        [sys.executable, "-m", "keyroute.conformance", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=600,
    )
    return proc.returncode, proc.stdout + proc.stderr


def listed(out: str) -> List[str]:
    """The file names ``--list`` printed (one per line: name, algorithm, peer)."""
    return [line.split("\t")[0] for line in out.splitlines() if "\t" in line]


def test_the_package_ships_the_repository_corpus() -> None:
    shipped = conformance.VECTORS
    assert shipped.is_dir(), f"the installed package has no corpus at {shipped}"
    assert "site-packages" in shipped.parts, f"{shipped} is not the installed package's"
    want = sorted(p.relative_to(REPO_VECTORS) for p in REPO_VECTORS.rglob("*.json"))
    got = sorted(p.relative_to(shipped) for p in shipped.rglob("*.json"))
    assert got == want, "the shipped corpus lists other files than conformance/vectors/v1"
    stale = [str(p) for p in want if (shipped / p).read_bytes() != (REPO_VECTORS / p).read_bytes()]
    assert not stale, f"shipped vector files differ from the repository's: {stale[:5]}"


def test_runs_the_shipped_corpus_and_writes_junit(tmp_path: Path, figure: object) -> None:
    report = tmp_path / "report.xml"
    status, out = cli("--junit", str(report), cwd=tmp_path)
    assert status == 0, out
    summary = out.strip().splitlines()[-1]
    assert summary.startswith("keyroute conformance: ") and " 0 failed" in summary, summary
    files = len(conformance.vector_files(conformance.VECTORS))
    assert f": {files} files, " in summary

    xml = junitparser.JUnitXml.fromfile(str(report))
    suites = list(xml)
    assert len(suites) == files, "one testsuite per vector file"
    cases = [case for suite in suites for case in suite]
    ids = {(case.classname, case.name) for case in cases}
    assert len(ids) == len(cases), "every testcase is named uniquely by file and case id"
    skipped = [case for case in cases if any(isinstance(r, junitparser.Skipped) for r in case.result)]
    failed = [case for case in cases if any(isinstance(r, (junitparser.Failure, junitparser.Error)) for r in case.result)]
    assert not failed
    passed = len(cases) - len(skipped) - files  # each file's "(file)" case besides its cases
    assert f"{passed} passed, 0 failed, {len(skipped)} skipped" in summary, (summary, passed, len(skipped))
    assert xml.tests == len(cases) and xml.failures == 0 and xml.skipped == len(skipped)
    uhashring = next(s for s in suites if s.name == "uhashring-ketama-3")
    assert {p.name: p.value for p in uhashring.properties()}["peer"] == "uhashring"
    figure(f"python -m keyroute.conformance: {summary.split(': ', 1)[1]}")


def test_filters(tmp_path: Path) -> None:
    status, out = cli("--list", "--preset", "uhashring", cwd=tmp_path)
    assert status == 0, out
    assert sorted(listed(out)) == sorted(p.name for p in REPO_VECTORS.glob("uhashring-*.json"))

    # jump is a native algorithm and a preset: --algorithm takes both, --preset only the peer's.
    status, out = cli("--list", "--algorithm", "jump", cwd=tmp_path)
    assert status == 0, out
    jump = listed(out)
    assert any(n.startswith("native-jump") for n in jump) and any(n.startswith("jump-u64be") for n in jump)
    status, out = cli("--list", "--preset", "jump", cwd=tmp_path)
    assert status == 0, out
    assert listed(out) and all(n.startswith("jump-u64be") for n in listed(out))

    status, out = cli("--list", "--file", "hostile", "--file", "native-ring-*.json", cwd=tmp_path)
    assert status == 0, out
    assert listed(out)[0] == "hostile.json" and all(n.startswith("native-ring-") for n in listed(out)[1:])

    status, out = cli("--algorithm", "ring", "--preset", "libmemcached", cwd=tmp_path)
    assert status == 2 and "no vector file" in out, "filters that match nothing are a usage error"
    status, out = cli("--vectors", str(tmp_path / "missing"), cwd=tmp_path)
    assert status == 2 and "no vector folder" in out

    status, out = cli("--preset", "pymemcache-rendezvous", "--algorithm", "pymemcache-rendezvous", cwd=tmp_path)
    assert status == 0, out
    assert ": 9 files, " in out.strip().splitlines()[-1]


def tampered_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "v1"
    folder.mkdir()
    for name in ("uhashring-ketama-3.json", "native-errors.json", "libmemcached-ketama-3.json"):
        shutil.copy(REPO_VECTORS / name, folder / name)
    return folder


def test_a_tampered_vector_fails(tmp_path: Path) -> None:
    folder = tampered_copy(tmp_path)
    status, out = cli("--vectors", str(folder), cwd=tmp_path)
    assert status == 0, f"the untouched copy must pass:\n{out}"

    path = folder / "uhashring-ketama-3.json"
    doc = json.loads(path.read_text())
    case = next(c for c in doc["cases"] if "node" in c)
    case["node"] = next(n["id"] for n in doc["spec"]["nodes"] if n["id"] != case["node"])
    path.write_text(json.dumps(doc))
    report = tmp_path / "report.xml"
    status, out = cli("--vectors", str(folder), "--junit", str(report), cwd=tmp_path)
    assert status == 1, out
    assert f"FAIL uhashring-ketama-3.json {case['id']}: node " in out
    assert " 1 failed" in out.strip().splitlines()[-1]
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(report))}
    failed = [c.name for c in suites["uhashring-ketama-3"] if any(isinstance(r, junitparser.Failure) for r in c.result)]
    # The case, and the file as a whole (its batch path disagrees with the vectors too).
    assert sorted(failed) == sorted([case["id"], "(file)"])
    assert not any(c.result for c in suites["libmemcached-ketama-3"])

    # Only the tampered file, by --file: still failing; the others alone pass.
    status, _ = cli("--vectors", str(folder), "--file", "uhashring-*", cwd=tmp_path)
    assert status == 1
    status, _ = cli("--vectors", str(folder), "--file", "libmemcached-*", "--file", "native-errors", cwd=tmp_path)
    assert status == 0


def test_a_tampered_error_code_fails(tmp_path: Path) -> None:
    folder = tampered_copy(tmp_path)
    path = folder / "native-errors.json"
    doc = json.loads(path.read_text())
    case = next(c for c in doc["cases"] if "code" in c)
    case["code"] += 1
    path.write_text(json.dumps(doc))
    status, out = cli("--vectors", str(folder), cwd=tmp_path)
    assert status == 1, out
    assert f"FAIL native-errors.json {case['id']}: " in out
    assert f"expected {case['error']} ({case['code']})" in out


def test_an_unreadable_file_fails(tmp_path: Path) -> None:
    folder = tampered_copy(tmp_path)
    (folder / "broken.json").write_text('{"id": "broken", "cases": [')
    status, out = cli("--vectors", str(folder), cwd=tmp_path)
    assert status == 1, out
    assert "FAIL broken.json: cannot read broken.json" in out
    assert "1 files with problems" in out


@pytest.mark.parametrize("name", ["uhashring-default-5w.json", "hostile.json"])
def test_run_file_api(name: str) -> None:
    result = conformance.run_file(conformance.VECTORS / name)
    assert result.ok and result.cases and result.count("failed") == 0
