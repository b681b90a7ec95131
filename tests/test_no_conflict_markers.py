"""No file of the repository holds a merge's conflict markers.

Two merges once left them in a stylesheet and a docs page: the stylesheet's lost brace
nested every later rule inside one and browsers dropped them all, and nothing failed.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MARKERS = (b"<<<<<<< ", b">>>>>>> ", b"||||||| ")


def test_no_tracked_file_holds_conflict_markers() -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout
    names = [name for name in listed.decode().split("\0") if name]
    assert len(names) > 500, "git ls-files listed too few files: is this a checkout?"
    found = []
    for name in names:
        path = ROOT / name
        if not path.is_file():
            continue
        for number, line in enumerate(path.read_bytes().splitlines(), 1):
            if line.startswith(MARKERS) or (line == b"=======" and name.endswith((".css", ".js"))):
                found.append(f"{name}:{number}: {line[:60]!r}")
    assert not found, "conflict markers:\n" + "\n".join(found)
