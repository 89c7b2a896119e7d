#!/usr/bin/env python3
"""`make test-docs`: every code block of every README and of docs/ runs, from the release
artifacts, and prints what the doc shows.

Each document runs in a clean folder of its own that holds the artifacts of `dist/` (so a doc
installs them as a user would: `pip install ./keyroute-…whl`, `npm install ./keyroute-….tgz`,
`tar -xzf keyroute-cli-…tar.gz`), with no Rust toolchain on PATH. Its blocks run in order, as
one session: every block starts in that folder, with the variables the blocks before it
exported (a `PATH` that names an unpacked tarball, say); shell variables and `cd` last to the
end of their block. Python blocks run with the `python3` on the session's PATH (the
venv the runner makes for the document, which `pip install` fills), JavaScript blocks with
`node` in the session's folder (as ES modules; a block that calls `require` as CommonJS).

What each kind of block must do:

- console / sh: lines starting with `$ ` are commands, and the lines after one, up to the next
  command, are what it prints (stdout and stderr together). A block without `$ ` lines is a
  list of commands that must each succeed. In expected output, `…` stands for any text within
  a line, and a line that is only `…` for any number of lines. A command that exits non-zero
  fails the block (write `cmd || echo "exit $?"` to show a status).
- python / js: a statement whose line ends in `# -> VALUE` (`// -> VALUE`) must evaluate to
  VALUE (compared as values; with `…` in VALUE, its repr is matched as above); a further
  ` # note` (` // note`) after VALUE is a remark. Every other statement must run without an
  exception.
- json: must parse.
- rust: the document must be a crate's documentation (`#[doc = include_str!(…)]`), so that
  `cargo test` runs the block as a doc test; the runner checks that it is.
- Any other block needs a marker, an HTML comment on the line before the fence:
  `<!-- doctest: file NAME -->` writes the block to NAME in the session's folder (a C file, a
  CMakeLists.txt, a spec) for a later console block to use;
  `<!-- doctest: layout -->` checks that each path a line starts with exists in the repository;
  `<!-- doctest: skip REASON -->` does not run the block; every such block is listed, with its
  reason, at the end of the run.
- `<!-- doctest: setup COMMAND -->` before any block runs COMMAND in the session first (hidden
  when the document is rendered): the setup a reader has already done by that point, such as
  the CLI installed from its tarball. `<!-- doctest: teardown COMMAND -->` runs COMMAND after
  the block, whether it passed or failed: it stops a server the setup started. `$DOC_DIR` is the document's folder in the repository.

Usage: scripts/doctest.py DIST [DOC...]   (every README and docs/*.md by default)
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^(\s*)(`{3,})([\w+-]*)\s*$")
MARKER = re.compile(r"^\s*<!--\s*doctest:\s*(\w+)\s*(.*?)\s*-->\s*$")
TIMEOUT = 600  # seconds for one block


@dataclass
class Block:
    doc: str
    line: int  # 1-based line of the opening fence
    lang: str
    body: str
    marker: str = ""
    arg: str = ""
    setup: list[str] = field(default_factory=list)
    teardown: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


@dataclass
class Session:
    """One document's folder, environment and results."""

    doc: str
    folder: Path
    env: dict[str, str]
    failures: list[str] = field(default_factory=list)
    passed: int = 0


def blocks_of(doc: str) -> list[Block]:
    lines = (ROOT / doc).read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, ticks, lang = m.groups()
        j = i + 1
        while j < len(lines) and lines[j].strip() != ticks:
            j += 1
        body = "\n".join(line[len(indent) :] if line.startswith(indent) else line for line in lines[i + 1 : j])
        block = Block(doc, i + 1, lang.lower(), body + "\n")
        k = i - 1
        while k >= 0 and lines[k].strip().startswith("<!--"):
            if mk := MARKER.match(lines[k]):  # other comments (a generated-section banner) may stand between
                if mk.group(1) == "setup":
                    block.setup.insert(0, mk.group(2))
                elif mk.group(1) == "teardown":
                    block.teardown.insert(0, mk.group(2))
                else:
                    block.marker, block.arg = mk.group(1), mk.group(2)
            k -= 1
        out.append(block)
        i = j + 1
    return out


# ------------------------------------------------------------------------------ expected output
def matches(want: list[str], got: list[str]) -> bool:
    """`want` lines against `got` lines: `…` is any text in a line; a line of `…` any lines."""
    if not want:
        return not got
    head = want[0]
    if head.strip() == "…":
        return any(matches(want[1:], got[k:]) for k in range(len(got) + 1))
    if not got:
        return False
    pattern = ".*".join(re.escape(part) for part in head.split("…"))
    return re.fullmatch(pattern, got[0]) is not None and matches(want[1:], got[1:])


def tidy(text: str) -> list[str]:
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


# ------------------------------------------------------------------------------ console
def console_commands(body: str) -> list[tuple[str, list[str]]] | None:
    """[(command, expected lines)] for a transcript; None for a list of commands."""
    lines = body.rstrip("\n").split("\n")
    if not any(line.startswith("$ ") for line in lines):
        return None
    out: list[tuple[str, list[str]]] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            if out:
                out[-1][1].append(line)
            i += 1
            continue
        cmd = line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd += "\n" + lines[i]
        out.append((cmd, []))
        i += 1
    return out


def run_shell(session: Session, script: str) -> tuple[int, str]:
    """Runs `script` in bash in the session's state; keeps the folder and exports it leaves."""
    state = session.folder / ".doctest-state"
    wrapped = (
        f"source {state}\n"
        + script
        + f"\n__status=$?; export -p >{state}.new && mv {state}.new {state}; exit $__status\n"
    )
    proc = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", wrapped],
        cwd=session.folder,
        env=session.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        timeout=TIMEOUT,
        check=False,
    )
    return proc.returncode, proc.stdout.decode("utf-8", "replace")


SEPARATOR = "@@doctest-command@@"


def run_commands(session: Session, commands: list[str]) -> list[tuple[int, str]]:
    """Runs the commands one after another in one bash (so shell variables carry from one to
    the next), each only when the one before succeeded; gives each one's status and output."""
    lines = []
    for n, cmd in enumerate(commands):
        guard = "" if n == 0 else "((__s == 0)) && "
        lines.append(
            f"{guard}{{ printf '%s\\n' '{SEPARATOR}'; {{\n{cmd}\n}}; __s=$?; printf '\\n%s %d\\n' '{SEPARATOR}' $__s; }}"
        )
    status, output = run_shell(session, "__s=0\n" + "\n".join(lines) + "\n(exit $__s)")
    results = []
    for chunk in output.split(SEPARATOR + "\n")[1:]:
        text, found, tail = chunk.rpartition("\n" + SEPARATOR + " ")
        if not found:  # the shell itself stopped (exit in a command)
            results.append((status or 1, chunk))
            break
        results.append((int(tail.split()[0]), text))
    return results


def check_console(session: Session, block: Block) -> str | None:
    transcript = console_commands(block.body)
    if transcript is None:  # a list: every line must succeed
        transcript = [
            (line, None)
            for line in block.body.rstrip("\n").split("\n")
            if line.strip() and not line.lstrip().startswith("#")
        ]
    results = run_commands(session, [cmd for cmd, _ in transcript])
    for (cmd, want), (status, output) in zip(transcript, results):
        if status != 0:
            return f"`{cmd}` exited {status}:\n{indent(output)}"
        if want is not None and not matches(tidy("\n".join(want)), tidy(output)):
            return f"`{cmd}` printed:\n{indent(output)}\nthe doc shows:\n{indent(chr(10).join(want))}"
    if len(results) < len(transcript):
        return f"`{transcript[len(results)][0]}` did not run"
    return None


def indent(text: str) -> str:
    return "\n".join("    | " + line for line in text.rstrip("\n").split("\n"))


# ------------------------------------------------------------------------------ python
PY_DRIVER = r"""
import ast, io, re, sys, tokenize
path = sys.argv[1]
src = open(path, encoding="utf-8").read()
comments = {}
for tok in tokenize.generate_tokens(io.StringIO(src).readline):
    if tok.type == tokenize.COMMENT and tok.string.startswith("# -> "):
        comments[tok.start[0]] = tok.string[5:].split(" # ")[0].strip()
def shown(want, value):
    if "…" in want:
        return re.fullmatch(".*".join(re.escape(p) for p in want.split("…")), repr(value), re.S) is not None
    try:
        return value == eval(want, scope)
    except Exception:
        return repr(value) == want
scope = {"__name__": "__main__"}
failed = False
for stmt in ast.parse(src, path).body:
    want = comments.get(stmt.end_lineno) if isinstance(stmt, ast.Expr) else None
    if want is None:
        exec(compile(ast.Module([stmt], []), path, "exec"), scope)
        continue
    value = eval(compile(ast.Expression(stmt.value), path, "eval"), scope)
    if not shown(want, value):
        print(f"line {stmt.lineno}: {ast.get_source_segment(src, stmt)} is {value!r}; the doc shows {want}")
        failed = True
sys.exit(1 if failed else 0)
"""


def check_python(session: Session, block: Block) -> str | None:
    script = session.folder / f".doctest-{block.line}.py"
    script.write_text(block.body, encoding="utf-8")
    driver = session.folder / ".doctest-driver.py"
    driver.write_text(PY_DRIVER, encoding="utf-8")
    status, output = run_shell(session, f"python3 {driver} {script}")
    return None if status == 0 else f"python exited {status}:\n{indent(output)}"


# ------------------------------------------------------------------------------ javascript
JS_CHECK = re.compile(r"^(\s*);?(?:(const|let|var)\s+([\w{}, ]+?)\s*=\s*)?(.+?);?\s*// -> (.+?)\s*$")
JS_PRELUDE = """\
import { isDeepStrictEqual as __eq, inspect as __inspect } from 'node:util'
const __check = (line, value, want, wantText) => {
  const shown = wantText.includes('…')
    ? new RegExp('^' + wantText.split('…').map((p) => p.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')).join('.*') + '$', 's').test(__inspect(value, { depth: 10, breakLength: Infinity }))
    : __eq(value, want)
  if (!shown) {
    console.error(`line ${line}: the value is ${__inspect(value, { depth: 10 })}; the doc shows ${wantText}`)
    process.exitCode = 1
  }
  return value
}
"""


def js_source(body: str) -> str:
    out = []
    for n, line in enumerate(body.split("\n"), 1):
        m = JS_CHECK.match(line)
        if not m or line.lstrip().startswith("//"):
            out.append(line)
            continue
        lead, decl, names, expr, want = m.groups()
        want = want.split(" // ")[0].strip()
        wanted = "undefined" if "…" in want else f"({want})"
        call = f"__check({n}, ({expr}), {wanted}, {json.dumps(want)})"
        out.append(f"{lead}{decl} {names} = {call}" if decl else f"{lead}{call}")
    return "\n".join(out)


def check_js(session: Session, block: Block) -> str | None:
    source = js_source(block.body)
    if re.search(r"\brequire\(", block.body):
        prelude = JS_PRELUDE.replace(
            "import { isDeepStrictEqual as __eq, inspect as __inspect } from 'node:util'",
            "const { isDeepStrictEqual: __eq, inspect: __inspect } = require('node:util')",
        )
        script = session.folder / f".doctest-{block.line}.cjs"
    else:
        prelude = JS_PRELUDE
        script = session.folder / f".doctest-{block.line}.mjs"
    script.write_text(prelude + source + "\n", encoding="utf-8")
    status, output = run_shell(session, f"node {script}")
    return None if status == 0 else f"node exited {status}:\n{indent(output)}"


# ------------------------------------------------------------------------------ other kinds
def rustdoc_docs() -> set[str]:
    """Documents included as a crate's docs, whose rust blocks `cargo test` runs."""
    found = set()
    for lib in ROOT.glob("*/src/lib.rs"):
        for m in re.finditer(r'#\[doc\s*=\s*include_str!\("([^"]+)"\)\]', lib.read_text(encoding="utf-8")):
            found.add(os.path.relpath((lib.parent / m.group(1)).resolve(), ROOT))
    return found


def check_layout(block: Block) -> str | None:
    for line in block.body.split("\n"):
        m = re.match(r"^([\w.-]+/?)(\s|$)", line)
        if m and not (ROOT / m.group(1)).exists():
            return f"{m.group(1)} is not in the repository"
    return None


def run_block(session: Session, block: Block, rustdocs: set[str], skipped: list[str]) -> str | None:
    try:
        return run_block_body(session, block, rustdocs, skipped)
    finally:
        for command in block.teardown:
            run_shell(session, command)


def run_block_body(session: Session, block: Block, rustdocs: set[str], skipped: list[str]) -> str | None:
    for command in block.setup:
        status, output = run_shell(session, command)
        if status != 0:
            return f"setup `{command}` exited {status}:\n{indent(output)}"
    if block.marker == "skip":
        if not block.arg:
            return "a skip marker needs its reason"
        skipped.append(f"{block.where} [{block.lang or 'text'}]: {block.arg}")
        return None
    if block.marker == "file":
        target = session.folder / run_shell(session, f"printf %s {block.arg}")[1]
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(block.body, encoding="utf-8")
        return None
    if block.marker == "layout":
        return check_layout(block)
    if block.marker:
        return f"unknown marker `doctest: {block.marker}`"
    if block.lang in ("console", "sh", "bash", "shell"):
        return check_console(session, block)
    if block.lang in ("python", "py"):
        return check_python(session, block)
    if block.lang in ("js", "javascript", "mjs"):
        return check_js(session, block)
    if block.lang == "json":
        try:
            json.loads(block.body)
        except json.JSONDecodeError as e:
            return f"not valid JSON: {e}"
        return None
    if block.lang == "rust":
        return None if block.doc in rustdocs else "a rust block outside any crate's #[doc = include_str!] is never run"
    return f"a `{block.lang or 'plain'}` block needs a marker (file NAME, layout or skip REASON)"


def new_session(doc: str, base: Path, dist: Path, path: str) -> Session:
    folder = base / re.sub(r"[^\w.-]", "_", doc)
    folder.mkdir(parents=True)
    for artifact in dist.iterdir():
        os.symlink(artifact, folder / artifact.name)
    venv = folder / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {
        "HOME": str(folder / ".home"),
        "PATH": f"{venv}/bin:{path}",
        "VIRTUAL_ENV": str(venv),
        "DOC_DIR": str((ROOT / doc).parent),
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
        "npm_config_update_notifier": "false",
        "npm_config_loglevel": "error",
    }
    for keep in (
        "PIP_CERT",
        "PIP_FIND_LINKS",
        "PIP_DEFAULT_TIMEOUT",
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "NODE_EXTRA_CA_CERTS",
        "npm_config_cache",
        "XDG_CACHE_HOME",
        "PIP_NO_CACHE_DIR",
    ):
        if keep in os.environ:
            env[keep] = os.environ[keep]
    (folder / ".home").mkdir()
    if (Path.home() / ".npmrc").exists():  # the machine's npm settings, as a user has them
        shutil.copy(Path.home() / ".npmrc", folder / ".home" / ".npmrc")
    (folder / ".doctest-state").write_text("")
    return Session(doc, folder, env)


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    dist = Path(sys.argv[1]).resolve()
    docs = sys.argv[2:] or sorted(
        f
        for f in subprocess.check_output(["git", "ls-files"], cwd=ROOT, text=True).split("\n")
        if f.endswith("README.md") or (f.startswith("docs/") and f.endswith(".md"))
    )
    # No Rust on PATH: the artifacts must work without it.
    path = subprocess.check_output([str(ROOT / "scripts/dist/no-rust-path.sh")], text=True).strip()
    rustdocs = rustdoc_docs()
    skipped: list[str] = []
    passed = failed = 0
    kinds: dict[str, int] = {}
    with tempfile.TemporaryDirectory(prefix="keyroute-doctest.") as base:
        for doc in docs:
            blocks = blocks_of(doc)
            if not blocks:
                continue
            session = new_session(doc, Path(base), dist, path)
            for block in blocks:
                try:
                    problem = run_block(session, block, rustdocs, skipped)
                except subprocess.TimeoutExpired:
                    problem = f"did not finish in {TIMEOUT} s"
                if block.marker == "skip" and problem is None:
                    print(f"skip  {block.where} [{block.lang or 'text'}]: {block.arg}")
                elif problem is None:
                    passed += 1
                    kind = block.marker or block.lang or "text"
                    kinds[kind] = kinds.get(kind, 0) + 1
                    print(f"ok    {block.where} [{block.lang or 'text'}]")
                else:
                    failed += 1
                    print(f"FAIL  {block.where} [{block.lang or 'text'}]: {problem}")
    if skipped:
        print(f"\nnot run ({len(skipped)} blocks, each marked with its reason):")
        for line in skipped:
            print(f"  {line}")
    print("\nran: " + ", ".join(f"{n} {kind}" for kind, n in sorted(kinds.items())))
    print(f"doctest: {passed} passed, {failed} failed, {len(skipped)} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
