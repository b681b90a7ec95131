"""A snake's checkup (the snake tester): health checks and positions with known right moves.

``snakewar test URL`` (see :mod:`snakewar.cli.checkup`) and the server use
:func:`run_tester`, which works with any snake client (HTTP, v0, legacy or a built-in
bot in-process)::

    import asyncio
    from snakewar.referee.clients import new_http_client
    from snakewar.referee.runner import make_client
    from snakewar.checkup import run_tester

    async def check(url: str) -> None:
        async with new_http_client() as http:
            report = await run_tester(make_client(url, http, 500))
        print(report.summary())

The scenarios (:mod:`snakewar.checkup.scenarios`) are pure data, proven against the
rules engine by the test suite.
"""

from snakewar.checkup.runner import (
    DEFAULT_PARALLEL,
    CheckResult,
    ScenarioResult,
    TesterReport,
    VariantResult,
    category_totals,
    run_tester,
)
from snakewar.checkup.scenarios import (
    CATEGORIES,
    SCENARIOS,
    SYMMETRIES,
    Scenario,
    Symmetry,
    UnknownCategoryError,
    rules_acceptable_moves,
    scenarios_in,
)

__all__ = [
    "CATEGORIES",
    "DEFAULT_PARALLEL",
    "SCENARIOS",
    "SYMMETRIES",
    "CheckResult",
    "Scenario",
    "ScenarioResult",
    "Symmetry",
    "TesterReport",
    "UnknownCategoryError",
    "VariantResult",
    "category_totals",
    "rules_acceptable_moves",
    "run_tester",
    "scenarios_in",
]
