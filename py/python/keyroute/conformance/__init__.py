"""keyroute's conformance corpus, shipped with the package, and the runner that checks this
installation against it.

The corpus (``vectors/v1`` beside this module, the repository's ``conformance/vectors/v1``) is
the set of golden vector files every keyroute surface runs: key → node for every native
algorithm and every peer preset (many captured by running the real peer libraries and
servers), error cases with their stable codes, and the hostile-input catalogue. Run it from a
shell::

    python -m keyroute.conformance                       # the shipped corpus
    python -m keyroute.conformance --preset uhashring    # only files captured from a peer preset
    python -m keyroute.conformance --algorithm ring --junit report.xml
    python -m keyroute.conformance --vectors path/to/v1 --file 'libmemcached-*'

It prints a summary, writes JUnit XML with ``--junit`` (one test case per vector case, grouped
by file), and exits 1 when any case does not give what its file says, 2 when the command line
or the corpus is unusable.

How a case's fields reach Python (the loading contract every surface's runner follows):

- ``spec``: the dict, and again as its JSON text, which must agree; ``spec_json``: the text;
  ``spec_hex``: the bytes decoded as UTF-8 with ``surrogateescape`` (each byte that is not
  UTF-8 becomes a lone surrogate, which has no UTF-8 form, so the native layer refuses it with
  invalid_utf8, the code those cases expect); ``spec_repeat``: ``head + unit * times + tail``,
  text or hex as ``spec_hex``; ``spec_toml``: not for this surface (only the CLI reads TOML).
- ``limits``: the ``limits=`` mapping, as given (malformed ones are cases too).
- ``key``: a str; ``key_hex``: bytes; ``key_utf16``: a str that may hold lone surrogates;
  ``key_repeat``: a str (text) or bytes (hex); ``key_type``: a value of that JSON type, which
  every key call refuses.
"""

from __future__ import annotations

import fnmatch
import json
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from .._errors import BY_CODE, Error
from .._router import Router

if TYPE_CHECKING:
    import argparse

__all__ = [
    "VECTORS",
    "MIN_FILES",
    "CaseResult",
    "FileResult",
    "Report",
    "vector_files",
    "select",
    "run_file",
    "run",
    "write_junit",
    "main",
]

#: The corpus shipped inside this package.
VECTORS: Path = Path(__file__).resolve().parent / "vectors" / "v1"

#: The shipped corpus has at least this many files; fewer means a broken installation.
MIN_FILES = 100

#: The Python value of each ``key_type``.
KEY_TYPES: Dict[str, Any] = {"int": 42, "float": 1.5, "null": None, "list": [], "object": {}, "bool": True}

#: Case fields that give the case its own spec.
SPEC_FIELDS = ("spec", "spec_json", "spec_hex", "spec_repeat", "spec_toml")


@dataclass
class CaseResult:
    """One case of a vector file: ``outcome`` is ``passed``, ``failed`` or ``skipped`` (not for
    this surface); ``message`` says why it failed or was skipped."""

    case: str
    outcome: str
    message: Optional[str] = None


@dataclass
class FileResult:
    """One vector file: its cases, and ``problems`` that concern the file as a whole (unreadable,
    its spec refused, the batch path disagreeing with the one-key path)."""

    path: Path
    id: str
    algorithm: Optional[str]
    peer: Optional[str]
    cases: List[CaseResult] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, outcome: str) -> int:
        """How many cases had ``outcome``."""
        return sum(1 for c in self.cases if c.outcome == outcome)

    @property
    def ok(self) -> bool:
        """True when no case failed and the file has no problem."""
        return not self.problems and self.count("failed") == 0


@dataclass
class Report:
    """A run over some vector files."""

    folder: Path
    files: List[FileResult]

    def count(self, outcome: str) -> int:
        """How many cases had ``outcome``, over every file."""
        return sum(f.count(outcome) for f in self.files)

    @property
    def ok(self) -> bool:
        """True when every file passed."""
        return all(f.ok for f in self.files)

    def summary(self) -> str:
        """One line: files, cases, and how many passed, failed and were not for this surface."""
        cases = sum(len(f.cases) for f in self.files)
        bad_files = sum(1 for f in self.files if f.problems)
        tail = f", {bad_files} files with problems" if bad_files else ""
        return (
            f"keyroute conformance: {len(self.files)} files, {cases} cases: {self.count('passed')} passed, "
            f"{self.count('failed')} failed, {self.count('skipped')} skipped (not for Python){tail}"
        )


def vector_files(folder: Path = VECTORS) -> List[Path]:
    """The vector files of ``folder`` (``*.json``, not the schema), sorted by name."""
    return sorted(p for p in folder.glob("*.json") if p.is_file())


def _file_header(path: Path) -> Tuple[Optional[str], Optional[str]]:
    """(spec algorithm, peer) of a vector file, or (None, None) when it has no file spec."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None, None
    spec = doc.get("spec") if isinstance(doc, dict) else None
    algorithm = spec.get("algorithm") if isinstance(spec, dict) else None
    provenance = doc.get("provenance") if isinstance(doc, dict) else None
    peer = provenance.get("peer") if isinstance(provenance, dict) and provenance.get("kind") == "peer" else None
    return (algorithm if isinstance(algorithm, str) else None), (peer if isinstance(peer, str) else None)


def select(
    paths: Sequence[Path],
    algorithms: Sequence[str] = (),
    presets: Sequence[str] = (),
    files: Sequence[str] = (),
) -> List[Path]:
    """The files of ``paths`` that pass every filter given.

    ``algorithms``: the file's spec names one of them (a native algorithm such as ``ring`` or a
    preset such as ``libmemcached``). ``presets``: the file was captured from a real peer and
    its spec names one of these presets. ``files``: its name or id matches one of these
    (shell wildcards allowed). Files whose cases each bring their own spec (the error and
    hostile-input catalogues) have no file spec, so only ``files`` selects them.
    """
    chosen = []
    for path in paths:
        if files and not any(fnmatch.fnmatchcase(path.name, f) or fnmatch.fnmatchcase(path.stem, f) for f in files):
            continue
        if algorithms or presets:
            algorithm, peer = _file_header(path)
            if algorithms and algorithm not in algorithms:
                continue
            if presets and (peer is None or algorithm not in presets):
                continue
        chosen.append(path)
    return chosen


def _not_utf8_text(data: bytes) -> str:
    """Bytes as the str Python reads them as (UTF-8, a bad byte as a lone surrogate)."""
    return data.decode("utf-8", "surrogateescape")


def _repeat(r: Dict[str, Any]) -> bytes:
    """``head + unit * times + tail`` (absent parts are empty), each text or, with ``hex``, hex."""

    def part(name: str) -> bytes:
        text: str = r.get(name, "")
        return bytes.fromhex(text) if r.get("hex") else text.encode("utf-8")

    return part("head") + part("unit") * int(r.get("times", 0)) + part("tail")


def case_key(case: Dict[str, Any]) -> Any:
    """The Python key a case routes (None when it has none)."""
    if "key" in case:
        return case["key"]  # text: routed as its UTF-8 bytes
    if "key_hex" in case:
        return bytes.fromhex(case["key_hex"])
    if "key_utf16" in case:
        # A str as JavaScript or Java would hold it: surrogate pairs combine into one character,
        # a lone surrogate stays one (and has no UTF-8 form, so routing it must fail).
        units = case["key_utf16"]
        return b"".join(u.to_bytes(2, "little") for u in units).decode("utf-16-le", "surrogatepass")
    if "key_repeat" in case:
        r = case["key_repeat"]
        data = _repeat(r)
        return data if r.get("hex") else data.decode("utf-8")
    if "key_type" in case:
        return KEY_TYPES[case["key_type"]]
    return None


def _case_specs(case: Dict[str, Any]) -> List[Tuple[str, Any]]:
    """The forms of the case's own spec to build, each named for messages (none: the case
    routes with its file's router)."""
    if "spec" in case:
        return [("dict", case["spec"]), ("JSON text", json.dumps(case["spec"]))]
    if "spec_json" in case:
        return [("text", case["spec_json"])]
    if "spec_hex" in case:
        return [("hex text", _not_utf8_text(bytes.fromhex(case["spec_hex"])))]
    if "spec_repeat" in case:
        return [("repeated text", _not_utf8_text(_repeat(case["spec_repeat"])))]
    return []


def not_for_python(case: Dict[str, Any]) -> Optional[str]:
    """Why this surface does not run the case, or None."""
    if "spec_toml" in case:
        return "spec_toml: only the CLI reads TOML"
    return None


def _check_error(case: Dict[str, Any], exc: Error) -> Optional[str]:
    if "error" not in case:
        return f"unexpected error {exc.name} ({exc.code}): {exc}"
    if (exc.name, exc.code) != (case["error"], case["code"]):
        return f"error {exc.name} ({exc.code}), expected {case['error']} ({case['code']})"
    if type(exc) is not BY_CODE[case["code"]]:
        return f"error class {type(exc).__name__} for code {case['code']}"
    return None


def _expect_refused(case: Dict[str, Any], call: Callable[[], Any], what: str) -> Optional[str]:
    """``call`` must raise the case's error."""
    try:
        got = call()
    except Error as e:
        why = _check_error(case, e)
        return None if why is None else f"{what}: {why}"
    return f"{what}: expected error {case['error']}, got {got!r}"


def _run_with(router: Router, case: Dict[str, Any]) -> Optional[str]:
    key = case_key(case)
    if key is None and "key_type" not in case:
        return "the spec built, but an error was expected" if "error" in case else "case has no key"
    if "replicas_count" in case:
        return _expect_refused(case, lambda: router.replicas(key, case["replicas_count"]), "replicas")
    if "error" in case:
        # Every call that takes this key refuses it alike, one key or a batch.
        why = _expect_refused(case, lambda: router.route(key), "route")
        if why is None and "key_type" in case:
            for name, call in [
                ("route_index", lambda: router.route_index(key)),
                ("key_hash", lambda: router.key_hash(key)),
                ("slot", lambda: router.slot(key)),
                ("route_many", lambda: router.route_many(["k", key])),
            ]:
                why = why or _expect_refused(case, call, name)
        return why
    try:
        node = router.route(key)
    except Error as e:
        return _check_error(case, e)
    if node != case["node"]:
        return f"node {node}, expected {case['node']}"
    if "slot" in case and router.slot(key) != case["slot"]:
        return f"slot {router.slot(key)}, expected {case['slot']}"
    if "replicas" in case:
        got = router.replicas(key, len(case["replicas"]))
        if got != case["replicas"]:
            return f"replicas {got}, expected {case['replicas']}"
    return None


def run_case(file_router: Optional[Router], case: Dict[str, Any]) -> Optional[str]:
    """Runs one case; returns why it failed, or None."""
    specs = _case_specs(case)
    if not specs:
        if file_router is None:
            return "case has no spec and the file has none"
        return _run_with(file_router, case)
    limits = case.get("limits")
    for form, spec in specs:
        try:
            router = Router(spec, limits=limits)
        except Error as e:
            why = _check_error(case, e)
        else:
            why = _run_with(router, case)
        if why is not None:
            return why if len(specs) == 1 else f"spec as {form}: {why}"
    return None


def run_file(path: Path) -> FileResult:
    """Runs every case of one vector file. Never raises for a bad file: what is wrong with it
    is a failed case or a problem of the result."""
    started = time.perf_counter()
    result = FileResult(path=path, id=path.stem, algorithm=None, peer=None)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
            raise ValueError("not a vector file (an object with a list of cases)")
    except (OSError, ValueError) as e:
        result.problems.append(f"cannot read {path.name}: {e}")
        result.seconds = time.perf_counter() - started
        return result
    result.algorithm, result.peer = _file_header(path)
    if doc.get("id") != path.stem:
        result.problems.append(f"the file's id {doc.get('id')!r} is not its name {path.stem!r}")
    file_router = None
    if "spec" in doc:
        try:
            # From the dict and from its JSON text: the two must be the same router.
            file_router = Router(doc["spec"])
            if Router(json.dumps(doc["spec"])) != file_router:
                result.problems.append("the spec as a dict and as JSON text give different routers")
        except Error as e:
            result.problems.append(f"the file's spec is refused: {e.name} ({e.code}): {e}")
            file_router = None
    seen = set()
    for number, case in enumerate(doc["cases"]):
        if not isinstance(case, dict):
            result.cases.append(CaseResult(f"#{number}", "failed", "not a case object"))
            continue
        case_id = str(case.get("id", f"#{number}"))
        if case_id in seen:
            result.problems.append(f"case id {case_id} repeats")
        seen.add(case_id)
        skip = not_for_python(case)
        if skip is not None:
            result.cases.append(CaseResult(case_id, "skipped", skip))
            continue
        try:
            why = run_case(file_router, case)
        except Exception as e:  # a malformed case fails; it does not stop the run
            why = f"the case could not be run: {type(e).__name__}: {e}"
        result.cases.append(CaseResult(case_id, "passed" if why is None else "failed", why))

    # The batch path agrees with the expected owners too.
    if file_router is not None:
        routed = [
            c for c in doc["cases"] if isinstance(c, dict) and "node" in c and not any(f in c for f in SPEC_FIELDS)
        ]
        if routed:
            try:
                got = file_router.route_many([case_key(c) for c in routed])
                if got != [c["node"] for c in routed]:
                    wrong = sum(1 for g, c in zip(got, routed) if g != c["node"])
                    result.problems.append(f"route_many differs from the vectors on {wrong} of {len(routed)} keys")
            except Error as e:
                result.problems.append(f"route_many refused the file's keys: {e.name} ({e.code}): {e}")
    result.seconds = time.perf_counter() - started
    return result


def run(paths: Sequence[Path], folder: Path = VECTORS) -> Report:
    """Runs the given vector files (from ``folder``)."""
    return Report(folder=folder, files=[run_file(p) for p in paths])


def write_junit(report: Report, path: Path) -> None:
    """Writes ``report`` as JUnit XML: one ``testsuite`` per vector file, one ``testcase`` per
    case (``classname`` the file's id), with a ``failure`` or ``skipped`` element, and one
    ``testcase`` named ``(file)`` per file for its problems as a whole."""
    import xml.etree.ElementTree as ET

    suites = ET.Element(
        "testsuites",
        name="keyroute conformance",
        tests=str(sum(len(f.cases) + 1 for f in report.files)),
        failures=str(report.count("failed") + sum(1 for f in report.files if f.problems)),
        errors="0",
        skipped=str(report.count("skipped")),
        time=f"{sum(f.seconds for f in report.files):.3f}",
    )
    for f in report.files:
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f.id,
            tests=str(len(f.cases) + 1),
            failures=str(f.count("failed") + (1 if f.problems else 0)),
            errors="0",
            skipped=str(f.count("skipped")),
            time=f"{f.seconds:.3f}",
        )
        properties = ET.SubElement(suite, "properties")
        for name, value in (("file", f.path.name), ("algorithm", f.algorithm), ("peer", f.peer)):
            if value is not None:
                ET.SubElement(properties, "property", name=name, value=value)
        whole = ET.SubElement(suite, "testcase", classname=f.id, name="(file)", time=f"{f.seconds:.3f}")
        if f.problems:
            failure = ET.SubElement(whole, "failure", message=f.problems[0], type="problem")
            failure.text = "\n".join(f.problems)
        for c in f.cases:
            case = ET.SubElement(suite, "testcase", classname=f.id, name=c.case, time="0")
            if c.outcome == "failed":
                failure = ET.SubElement(case, "failure", message=c.message or "failed", type="mismatch")
                failure.text = c.message
            elif c.outcome == "skipped":
                ET.SubElement(case, "skipped", message=c.message or "skipped")
    tree = ET.ElementTree(suites)
    ET.indent(tree)
    tree.write(path, encoding="utf-8", xml_declaration=True)


def _parser() -> argparse.ArgumentParser:
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m keyroute.conformance",
        description="Run keyroute's conformance vectors through this installation of keyroute.",
    )
    parser.add_argument(
        "--vectors", type=Path, metavar="DIR", help="a folder of vector files (default: the corpus shipped in the package)"
    )
    parser.add_argument(
        "--algorithm",
        action="append",
        default=[],
        metavar="NAME",
        help="only files whose spec names this algorithm or preset (repeatable)",
    )
    parser.add_argument(
        "--preset",
        action="append",
        default=[],
        metavar="NAME",
        help="only files captured from a real peer through this preset (repeatable)",
    )
    parser.add_argument(
        "--file", action="append", default=[], metavar="NAME", help="only files with this name or id; wildcards allowed (repeatable)"
    )
    parser.add_argument("--junit", type=Path, metavar="PATH", help="write a JUnit XML report here")
    parser.add_argument("--list", action="store_true", help="list the selected files and stop")
    parser.add_argument("-v", "--verbose", action="store_true", help="one line per file, and every failing case")
    return parser


def main(argv: Optional[Sequence[str]] = None) -> int:
    """The command line: 0 when every selected case passes, 1 when any fails, 2 when nothing
    could be run."""
    args = _parser().parse_args(argv)
    folder: Path = args.vectors if args.vectors is not None else VECTORS
    if not folder.is_dir():
        print(f"keyroute conformance: no vector folder at {folder}", file=sys.stderr)
        return 2
    everything = vector_files(folder)
    if args.vectors is None and len(everything) < MIN_FILES:
        print(
            f"keyroute conformance: the shipped corpus at {folder} has {len(everything)} files "
            f"(at least {MIN_FILES} expected): a broken installation",
            file=sys.stderr,
        )
        return 2
    paths = select(everything, args.algorithm, args.preset, args.file)
    if not paths:
        print(f"keyroute conformance: no vector file of {folder} matches the filters", file=sys.stderr)
        return 2
    if args.list:
        for p in paths:
            algorithm, peer = _file_header(p)
            print(f"{p.name}\t{algorithm or '-'}\t{peer or '-'}")
        return 0
    report = run(paths, folder)
    shown = 0
    for f in report.files:
        if args.verbose:
            print(f"{'ok  ' if f.ok else 'FAIL'} {f.path.name}: {f.count('passed')} passed, {f.count('failed')} failed")
        for problem in f.problems:
            print(f"FAIL {f.path.name}: {problem}")
        for c in f.cases:
            if c.outcome == "failed" and (args.verbose or shown < 50):
                print(f"FAIL {f.path.name} {c.case}: {c.message}")
                shown += 1
    hidden = report.count("failed") - shown
    if hidden > 0 and not args.verbose:
        print(f"... and {hidden} more failing cases (--verbose lists every one)")
    if args.junit is not None:
        write_junit(report, args.junit)
        print(f"keyroute conformance: JUnit XML written to {args.junit}")
    print(f"keyroute conformance: vectors from {folder}")
    print(report.summary())
    return 0 if report.ok else 1
