"""pymemcache's own tests, run against keyroute's drop-in: ``test_rendezvous.py`` and
``test_client_hash.py`` from the installed pymemcache (the pinned 4.0.0, whose wheel ships its
test package), copied to a scratch folder with the helpers they import, and run by pytest in a
child process with one change: a plugin loaded first points pymemcache's ``RendezvousHash``
(the name ``test_rendezvous.py`` imports, and ``HashClient``'s default hasher) at
``keyroute.pymemcache.RendezvousHash``. Every test must pass except the ones listed in
``peer-suites/pymemcache.json``, each with its reason; the test fails when that set changes
either way. The same copy without the plugin passes every test, so a listed failure is
keyroute's, not the harness's.

uhashring's own tests are not run: its published 2.5 package ships none (the sdist holds only
the library), and the project copies no peer's code into the repository.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import metadata
from pathlib import Path
from typing import Dict, Tuple

import pymemcache.test

EXPECTED = json.loads((Path(__file__).parent / "peer-suites" / "pymemcache.json").read_text())
#: What the copied suite needs: the two test files and the modules they import relatively.
SUITE = ["__init__.py", "conftest.py", "utils.py", "test_client.py", "test_client_hash.py", "test_rendezvous.py"]
TESTS = ["test_rendezvous.py", "test_client_hash.py"]

REDIRECT = '''"""Points pymemcache's RendezvousHash at keyroute's, before any test module imports it."""
import pymemcache.client.hash as hash_client
import pymemcache.client.rendezvous as rendezvous
from keyroute.pymemcache import RendezvousHash

original = rendezvous.RendezvousHash
rendezvous.RendezvousHash = RendezvousHash
hash_client.RendezvousHash = RendezvousHash
# HashClient(servers, hasher=RendezvousHash, ...): the default was bound when pymemcache loaded.
hash_client.HashClient.__init__.__defaults__ = tuple(
    RendezvousHash if d is original else d for d in hash_client.HashClient.__init__.__defaults__
)
'''


def run_suite(tmp: Path, redirect: bool) -> Tuple[Dict[str, str], int]:
    """Runs the copied suite; (failed test id → message, tests run)."""
    suite = tmp / "pymemcache_suite"
    suite.mkdir()
    source = Path(pymemcache.test.__file__).parent
    for name in SUITE:
        shutil.copy(source / name, suite / name)
    args = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "--junitxml", str(tmp / "report.xml")]
    if redirect:
        (tmp / "keyroute_redirect.py").write_text(REDIRECT)
        args += ["-p", "keyroute_redirect"]
    env = {**os.environ, "PYTHONPATH": str(tmp)}
    subprocess.run(args + [f"pymemcache_suite/{t}" for t in TESTS], cwd=tmp, env=env, capture_output=True, timeout=600)
    failed: Dict[str, str] = {}
    ran = 0
    for case in ET.parse(tmp / "report.xml").iter("testcase"):
        ran += 1
        problem = case.find("failure")
        if problem is None:
            problem = case.find("error")
        if case.find("skipped") is not None:
            raise AssertionError(f"{case.get('name')} was skipped")
        if problem is not None:
            test_id = f"{case.get('classname', '').rsplit('.', 1)[-1]}::{case.get('name')}"
            failed[test_id] = (problem.get("message") or "")[:200]
    return failed, ran


def test_the_suite_passes_against_pymemcache_itself(tmp_path: Path) -> None:
    assert metadata.version("pymemcache") == EXPECTED["version"]
    failed, ran = run_suite(tmp_path, redirect=False)
    assert failed == {}
    assert ran >= EXPECTED["tests"]


def test_the_suite_against_keyroute_fails_only_where_listed(tmp_path: Path) -> None:
    failed, ran = run_suite(tmp_path, redirect=True)
    expected = EXPECTED["expected_failures"]
    new_failures = {t: m for t, m in failed.items() if t not in expected}
    now_passing = sorted(t for t in expected if t not in failed)
    assert (new_failures, now_passing) == ({}, []), failed
    assert ran == EXPECTED["tests"]
    print(f"pymemcache {EXPECTED['version']} suite on keyroute: {ran - len(failed)} passed, {len(failed)} failed as listed, of {ran}")
