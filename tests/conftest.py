"""Shared test configuration: hypothesis profiles, system tools and the conformance summary."""

from __future__ import annotations

import os
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from tests.system_tools import sandbox

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


# Filled by tests/battlesnake/test_conformance.py, printed at the end of the run.
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
