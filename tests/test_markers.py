"""The pytest markers select what they say: ``browser``, ``postgres`` and ``slow``.

One real pytest run in a subprocess collects a few test files (``--collect-only``:
nothing runs) with ``-m "not browser and not postgres and not slow"``, the quick run, and
reports what it kept and what ``-m`` left out, with each test's markers.  So what is
asserted is what ``pytest -m ...`` selects, including that the markers ``tests/conftest.py``
adds are there before ``-m`` selects.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FILES = [
    "tests/browser/test_not_found.py",
    "tests/storage/test_calls.py",
    "tests/games/battlesnake/rules/test_compiled.py",
]

# Records the kept and the left-out tests with their markers, and the registered markers.
REPORTER = """
import json, sys
import pytest

class Report:
    def __init__(self):
        self.left_out = {}

    def pytest_deselected(self, items):
        for item in items:
            self.left_out[item.nodeid] = sorted(m.name for m in item.iter_markers())

    def pytest_collection_finish(self, session):
        self.kept = {i.nodeid: sorted(m.name for m in i.iter_markers()) for i in session.items}
        self.registered = [line.split(":")[0] for line in session.config.getini("markers")]

report = Report()
code = pytest.main(sys.argv[1:], plugins=[report])
print("REPORT " + json.dumps([int(code), report.kept, report.left_out, report.registered]))
"""


def test_the_quick_run_leaves_out_browser_postgres_and_slow_tests() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            REPORTER,
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            "-m",
            "not browser and not postgres and not slow",
            *FILES,
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert len(lines) == 1, done.stdout + done.stderr
    code, kept, left_out, registered = json.loads(lines[0].removeprefix("REPORT "))
    assert code == 0, done.stdout + done.stderr
    assert {"browser", "postgres", "slow"} <= set(registered)

    browser = [t for t in left_out if t.startswith("tests/browser/")]
    assert browser and all("browser" in left_out[t] for t in browser)
    postgres = [t for t in left_out if "postgresql" in t]
    assert postgres and all("postgres" in left_out[t] for t in postgres)
    slow = (
        "tests/games/battlesnake/rules/test_compiled.py"
        "::test_compiled_and_pure_compute_the_same_states"
    )
    assert "slow" in left_out[slow]
    assert set(left_out) == {*browser, *postgres, slow}

    # What is kept: the SQLite cases and the quick tests, none of them marked.
    assert any("[sqlite" in t for t in kept) and any("test_compiled.py" in t for t in kept)
    assert not any(t.startswith("tests/browser/") or "postgresql" in t for t in kept)
    assert not {"browser", "postgres", "slow"} & {m for marks in kept.values() for m in marks}


def test_the_tests_that_load_jax_run_after_the_ones_that_fork() -> None:
    # The sandbox's tests fork; once JAX runs in the process every fork warns (an error).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "--collect-only", "-p", "no:cacheprovider",
         "tests/referee/test_sandbox.py", "tests/games/battlesnake/sim/test_jax.py",
         "tests/games/battlesnake/sim/test_extremes.py", "tests/server/test_program_bots.py"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    jax = [i for i, nodeid in enumerate(ids) if "jax" in nodeid.lower()]
    assert jax and ids[jax[0] :] == [ids[i] for i in jax]  # all of them, at the end
    assert any("test_sandbox" in nodeid for nodeid in ids[: jax[0]])
