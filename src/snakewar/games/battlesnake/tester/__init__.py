"""A snake's checkup (the snake tester): health checks and positions with known right moves.

``snakewar test URL`` (see :mod:`snakewar.games.battlesnake.cli.checkup`) and the server use
:func:`run_tester`, which works with any snake client (HTTP, v0, legacy or a built-in
bot in-process)::

    import asyncio
    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.runner import make_client
    from snakewar.games.battlesnake.tester import run_tester

    async def check(url: str) -> None:
        async with new_http_client() as http:
            report = await run_tester(make_client(url, http, 500))
        print(report.summary())

The scenarios (:mod:`snakewar.games.battlesnake.tester.scenarios`) are pure data, proven against the
rules engine by the test suite.  Survival scenarios (a wrong move dies this turn) and
the health checks make the verdict; strategy scenarios (a free kill, a head-to-head
gamble) are a score.  Games run one at a time unless ``parallel`` says otherwise.
"""

from snakewar.games.battlesnake.tester.runner import (
    DEFAULT_PARALLEL,
    CheckResult,
    ScenarioResult,
    Score,
    TesterReport,
    VariantResult,
    category_totals,
    run_tester,
)
from snakewar.games.battlesnake.tester.scenarios import (
    CATEGORIES,
    DEFAULT_RULESETS,
    KINDS,
    SCENARIOS,
    STRATEGY,
    SURVIVAL,
    SYMMETRIES,
    Scenario,
    Symmetry,
    UnknownCategoryError,
    rules_acceptable_moves,
    scenarios_in,
    select_scenarios,
    special_rulesets,
)

__all__ = [
    "CATEGORIES",
    "DEFAULT_PARALLEL",
    "DEFAULT_RULESETS",
    "KINDS",
    "SCENARIOS",
    "STRATEGY",
    "SURVIVAL",
    "SYMMETRIES",
    "CheckResult",
    "Scenario",
    "ScenarioResult",
    "Score",
    "Symmetry",
    "TesterReport",
    "UnknownCategoryError",
    "VariantResult",
    "category_totals",
    "rules_acceptable_moves",
    "run_tester",
    "scenarios_in",
    "select_scenarios",
    "special_rulesets",
]
