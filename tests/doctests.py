"""Runs the examples in a module's docstrings (doctest) and says what happened.

The pytest module ``tests/test_doctests.py`` calls :func:`run_module` in its own
process, and runs this file as a program (``python3 -m tests.doctests MODULE...``,
with ``SNAKEWAR_PURE=1``) for the modules compiled with mypyc: a compiled module
keeps no docstring examples doctest can find, so their examples run on the typed
sources those modules are compiled from.  The program prints one JSON object:
``{module: {"attempted": N, "failed": N, "report": TEXT}}``.
"""

from __future__ import annotations

import doctest
import importlib
import json
import re
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from types import ModuleType

OPTIONS = doctest.ELLIPSIS
"""The doctest options every example runs under (``...`` elides part of a long output)."""

EXAMPLE = re.compile(r"^\s*>>> ", re.MULTILINE)
"""A doctest example's first line in a source file."""


@dataclass(frozen=True)
class Outcome:
    """A module's doctest run: examples attempted and failed, and the failures' report."""

    attempted: int
    failed: int
    report: str


def examples_in_source(path: Path) -> int:
    """How many examples (``>>>`` lines) a source file holds, found by reading it."""
    return len(EXAMPLE.findall(path.read_text(encoding="utf-8")))


def run(module: ModuleType) -> Outcome:
    """Run every docstring example of ``module`` (its own objects', not imported ones)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=OPTIONS)
    report: list[str] = []
    for test in finder.find(module, module.__name__):
        runner.run(test, out=report.append)
    # The runner's counters, not summarize(): that one prints to stdout, which the
    # program's JSON answer is read from.
    return Outcome(runner.tries, runner.failures, "".join(report))


def run_module(name: str) -> Outcome:
    """Import the module ``name`` and run its docstring examples."""
    return run(importlib.import_module(name))


def main(names: list[str]) -> None:
    """Run the named modules' examples; print the outcomes as one JSON object."""
    outcomes = {name: asdict(run_module(name)) for name in names}
    print(json.dumps(outcomes))


if __name__ == "__main__":
    main(sys.argv[1:])
