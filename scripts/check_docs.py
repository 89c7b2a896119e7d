#!/usr/bin/env python3
"""The docs stand alone: no file of the repository points at a document outside it.

A reader has only the repository, so every document a file names must be in it. Two checks
over every tracked text file (`scripts/lint.sh` runs this):

- a Markdown document named by its file name (ending in `.md`) must exist in the repository;
- a Markdown link (`[text](target)`) with a relative target must stay inside the repository.

Prints each offending line and exits 1 when there is one.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

DOC_NAME = re.compile(r"(?<![\w/.-])([\w-]+\.md)\b")
LINK = re.compile(r"\]\((?![a-z]+:|#)([^)#\s]+)")


def main() -> int:
    root = subprocess.check_output(["git", "rev-parse", "--show-toplevel"], text=True).strip()
    files = [f for f in subprocess.check_output(["git", "ls-files", "-z"], text=True, cwd=root).split("\0") if f]
    names = {os.path.basename(f) for f in files}
    bad = []
    for f in files:
        path = os.path.join(root, f)
        try:
            with open(path, encoding="utf-8") as handle:
                lines = handle.read().splitlines()
        except (UnicodeDecodeError, OSError):
            continue  # binary files, and files deleted but not yet committed
        for n, line in enumerate(lines, 1):
            for m in DOC_NAME.finditer(line):
                if m.group(1) not in names:
                    bad.append(f"{f}:{n}: {m.group(1)} is not a document of this repository")
            for m in LINK.finditer(line):
                target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
                if not (target + os.sep).startswith(root + os.sep):
                    bad.append(f"{f}:{n}: the link to {m.group(1)} leaves the repository")
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
