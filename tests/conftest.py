"""Shared test configuration: hypothesis profiles, markers, the fixtures more than one folder
uses (a sandbox, a fresh database) and the conformance summary."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from snakewar.storage import Store
from tests.system_tools import fresh_schema, postgres_url, sandbox

# The fixtures of the JavaScript tests (node, node_test, static_site), for every folder.
pytest_plugins = ["tests.js_modules"]

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "dev", max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


@pytest.fixture(scope="session")
def bubblewrap() -> None:
    """Bubblewrap sandboxes work here (a skip without them, a failure under CI).

    For every test that runs a bot in a real sandbox (``snakewar.referee.sandbox``).
    """
    sandbox()


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.postgres)])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database: a SQLite file, or a new schema in the PostgreSQL database.

    For the server and storage tests; the PostgreSQL case carries the ``postgres`` marker.
    """
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'games.db'}"
        return
    # Every connection of the store works in the test's own schema.
    with fresh_schema(postgres_url()) as scoped:
        yield scoped


@pytest.fixture
def store(db_url: str) -> Iterator[Store]:
    """A :class:`Store` on :func:`db_url`, closed after the test."""
    opened = Store(db_url)
    try:
        yield opened
    finally:
        opened.close()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that drives chromium ``browser`` (before ``-m`` selects); run the
    tests that load JAX in this process last.

    JAX starts threads when it is first used and warns at every later fork of the process
    (a fork of a multithreaded process can deadlock): the sandbox's tests fork (a child's
    preparation before bubblewrap), so they must not run after it.
    """
    for item in items:
        if "chromium" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
    items.sort(key=loads_jax)  # stable: the order is otherwise the collection's
    if items and items[0].config.pluginmanager.hasplugin("xdist"):
        for item in items:
            group = xdist_group(item)
            if group:
                item.add_marker(pytest.mark.xdist_group(group))


def xdist_group(item: pytest.Item) -> str | None:
    """The pytest-xdist group a test must share a worker with (``--dist loadgroup``).

    ``jax``: the JAX tests, on one worker and last (they come last in the collection,
    and ``--no-loadscope-reorder`` hands the groups out in its order), so no test of that
    worker forks after JAX has started its threads. ``ray``: the tests that start a Ray cluster,
    one at a time (two clusters on one machine would each take every core, and a test
    that joins "auto" would find the other's).
    """
    if loads_jax(item):
        return "jax"
    if item.get_closest_marker("ray"):
        return "ray"
    return None


def loads_jax(item: pytest.Item) -> bool:
    """Whether a test runs JAX in this process: its module or its parameters name it."""
    return "jax" in item.nodeid.lower()


# Filled by tests/games/battlesnake/rules/test_conformance.py, printed at the end of the run.
CONFORMANCE_COUNTS: Counter[tuple[str, str]] = Counter()
CONFORMANCE_SETUPS: list[int] = []
# Filled by tests/test_doctests.py: docstring examples run, per module.
DOCTEST_COUNTS: dict[str, int] = {}


def pytest_terminal_summary(terminalreporter: Any) -> None:
    tr = terminalreporter
    if DOCTEST_COUNTS:
        tr.write_line(
            f"doctests: {sum(DOCTEST_COUNTS.values())} docstring examples run "
            f"in {len(DOCTEST_COUNTS)} modules"
        )
    if not CONFORMANCE_COUNTS:
        return
    tr.section("battlesnake conformance: turn records compared per ruleset and map")
    for (ruleset, map_id), n in sorted(CONFORMANCE_COUNTS.items()):
        tr.write_line(f"  {ruleset:<22}{map_id:<24}{n:>7}")
    tr.write_line(
        f"  total: {sum(CONFORMANCE_COUNTS.values())} turn records, "
        f"{sum(CONFORMANCE_SETUPS)} setups, {len(CONFORMANCE_COUNTS)} (ruleset, map) pairs"
    )
