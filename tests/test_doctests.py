"""Every example in the package's docstrings runs and shows what it claims.

The modules are found by reading the sources (any ``>>>`` line), so a new example,
or a module moved to another package, is picked up without a list to keep.  Each
module's examples run in this process; those of the modules compiled with mypyc run
in one child process on their pure-Python sources (``SNAKEWAR_PURE=1``), where this
process imported the compiled ones: compiled functions keep no examples doctest can
find.  Where the engine is not compiled (``SNAKEWAR_PURE=1``, no C compiler) every
module runs here.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import snakewar
from tests import conftest
from tests.doctests import Outcome, examples_in_source, run, run_module

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = Path(snakewar.__file__).resolve().parent


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


DOCUMENTED = {
    module_name(path): path for path in sorted(PACKAGE.rglob("*.py")) if examples_in_source(path)
}
"""Every module whose source holds a docstring example, by module name."""


def is_compiled(name: str) -> bool:
    if name not in snakewar.COMPILED_MODULES:
        return False
    loader = getattr(importlib.import_module(name), "__loader__", None)
    return isinstance(loader, importlib.machinery.ExtensionFileLoader)


@pytest.fixture(scope="module")
def pure_outcomes() -> dict[str, Outcome]:
    """The compiled modules' examples, run once on their sources in a child process."""
    names = [name for name in DOCUMENTED if is_compiled(name)]
    if not names:
        return {}
    env = {**os.environ, "SNAKEWAR_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "tests.doctests", *names],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    return {name: Outcome(**fields) for name, fields in answer.items()}


def test_the_package_has_its_documented_examples() -> None:
    # A floor, not a count to keep: the examples the docs promise are still found.
    assert len(DOCUMENTED) >= 36
    assert "snakewar.games.battlesnake" in DOCUMENTED


@pytest.mark.parametrize("name", sorted(DOCUMENTED))
def test_docstring_examples_run(name: str, pure_outcomes: dict[str, Outcome]) -> None:
    outcome = pure_outcomes[name] if name in pure_outcomes else run_module(name)
    conftest.DOCTEST_COUNTS[name] = outcome.attempted
    assert outcome.failed == 0, outcome.report
    # Every ">>>" line of the source ran: none sits where doctest does not look (a
    # comment, a private helper's nested function, an object another module owns).
    assert outcome.attempted == examples_in_source(DOCUMENTED[name])


def test_a_wrong_example_fails(tmp_path: Path) -> None:
    # The runner itself: an example whose output is wrong is a failure, with a report.
    source = tmp_path / "planted.py"
    source.write_text(
        '"""A planted example.\n\n>>> 2 + 2\n5\n"""\n\n\n'
        'def fine() -> int:\n    """One that holds.\n\n    >>> fine()\n    1\n    """\n'
        "    return 1\n",
        encoding="utf-8",
    )
    spec = importlib.util.spec_from_file_location("planted", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    outcome = run(module)
    assert (outcome.attempted, outcome.failed) == (2, 1)
    assert "Expected:\n    5\nGot:\n    4" in outcome.report
    assert examples_in_source(source) == 2
