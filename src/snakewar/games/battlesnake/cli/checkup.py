"""``snakewar test URL``: check a snake's health and play it through the scenario suite.

Register with ``app.command("test", help=...)(test_snake)``.  Exit status: 0 when
every health check and survival scenario passed (strategy scenarios are a score,
never a failure), 1 when one failed, 2 (one ``error:`` line) when the snake cannot be
reached at all or an argument is bad.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from rich.console import Console

    from snakewar.games.battlesnake.tester.runner import TesterReport
    from snakewar.games.battlesnake.tester.scenarios import Scenario

__all__ = ["test_snake"]

MAX_BOARDS = 8
"""Boards of failing scenarios drawn at most (the JSON output has all of them)."""

HEALTH_ONLY = "health"
"""``--only health``: the health checks without the scenarios."""


def test_snake(
    url: str = typer.Argument(
        ...,
        metavar="URL",
        help="The snake: http(s)://..., builtin:NAME, v0:URL or legacy:URL.",
    ),
    timeout: int = typer.Option(500, "-t", "--timeout", help="Move timeout in ms."),
    json_out: bool = typer.Option(
        False, "--json", help="Print the results as JSON on stdout (no tables)."
    ),
    only: list[str] = typer.Option(
        [],
        "--only",
        metavar="CATEGORY",
        help="Only this scenario category (repeatable); 'health' for the health checks only.",
    ),
    parallel: int = typer.Option(
        1,
        "--parallel",
        help="Scenario games in flight at once (default 1: one after the other, as most "
        "snakes play); failures under load are played again alone before they count.",
    ),
    ruleset: list[str] = typer.Option(
        [],
        "--ruleset",
        metavar="NAME",
        help="A ruleset the snake plays (repeatable; default standard): adds its own "
        "scenarios (royale: hazards, wrapped: edges).",
    ),
    scenario_files: list[Path] = typer.Option(
        [],
        "--scenarios",
        metavar="FILE",
        help="A scenario file of your own (repeatable; 'snakewar replay scenario' writes "
        "them): its positions run beside the built-in ones, in their symmetries.",
    ),
    only_scenarios: bool = typer.Option(
        False,
        "--only-scenarios",
        help="Run the --scenarios files' positions without the built-in ones.",
    ),
) -> None:
    """Test a snake: health checks, then positions with known right moves (8 symmetries each).

    Survival positions (a wrong move dies) decide the exit status; strategy positions
    (a free kill, a head-to-head) are scored.
    """
    from rich.console import Console

    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.runner import make_client
    from snakewar.games.battlesnake.rules.rulesets import named_ruleset
    from snakewar.games.battlesnake.tester.runner import run_tester
    from snakewar.games.battlesnake.tester.scenarios import DEFAULT_RULESETS, scenarios_in

    if timeout < 1:
        raise typer.BadParameter(
            f"{timeout}: expected a number of milliseconds >= 1", param_hint=["-t", "--timeout"]
        )
    if parallel < 1:
        raise typer.BadParameter(f"{parallel}: expected at least 1", param_hint=["--parallel"])
    health_only = HEALTH_ONLY in only
    categories = [c for c in only if c != HEALTH_ONLY] or None
    if health_only and categories:
        raise typer.BadParameter(
            f"{HEALTH_ONLY} runs no scenarios; it cannot be combined with {categories!r}",
            param_hint=["--only"],
        )
    if categories is not None:
        scenarios_in(categories)  # an unknown category is an error before any call
    if only_scenarios and not scenario_files:
        raise typer.BadParameter(
            "runs the --scenarios files' positions: give at least one",
            param_hint=["--only-scenarios"],
        )
    if only_scenarios and categories is not None:
        raise typer.BadParameter(
            "--only CATEGORY picks built-in scenarios; --only-scenarios runs none of them",
            param_hint=["--only-scenarios"],
        )
    if health_only and scenario_files:
        raise typer.BadParameter(
            f"{HEALTH_ONLY} runs no scenarios; it cannot be combined with --scenarios",
            param_hint=["--only"],
        )
    extra = _read_scenario_files(scenario_files)
    rulesets = tuple(ruleset) or DEFAULT_RULESETS
    for name in rulesets:
        named_ruleset(name)  # likewise an unknown ruleset

    console = Console(highlight=False, stderr=json_out)
    if not console.is_terminal:
        console.width = max(console.width, 140)  # logs and pipes: no squeezed tables

    async def run() -> TesterReport:
        async with new_http_client() as http:
            client = make_client(url, http, timeout)
            return await run_tester(
                client,
                categories=categories,
                rulesets=rulesets,
                scenarios=not health_only,
                timeout_ms=timeout,
                parallel=parallel,
                extra=extra,
                builtin=not only_scenarios,
            )

    if console.is_terminal and not json_out:
        with console.status(f"testing {url} ..."):
            report = asyncio.run(run())
    else:
        report = asyncio.run(run())

    if not report.reachable:
        raise SnakewarError(f"snake {url}: not reachable ({report.unreachable_reason})")
    if json_out:
        sys.stdout.write(json.dumps(report.to_dict(), indent=2) + "\n")
    else:
        print_report(console, report)
    if report.exit_code:
        raise typer.Exit(report.exit_code)


def _read_scenario_files(paths: list[Path]) -> list[Scenario]:
    """Every scenario of the files ``paths``, checked; bad ones are ``error:`` lines, status 2."""
    from snakewar.games.battlesnake.tester.files import (
        MAX_FILE_BYTES,
        ScenarioFileError,
        load_scenarios,
    )

    out: list[Scenario] = []
    problems: list[str] = []
    seen: dict[str, str] = {}
    for path in paths:
        name = str(path)
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except FileNotFoundError:
            problems.append(f"scenario file {name!r} does not exist")
            continue
        except IsADirectoryError:
            problems.append(f"{name!r} is a directory, not a scenario file")
            continue
        except OSError as exc:
            problems.append(f"cannot read {name!r}: {exc.strerror or exc}")
            continue
        try:
            loaded = load_scenarios(data, name)
        except ScenarioFileError as exc:
            problems.extend(exc.problems)
            continue
        for scenario in loaded:
            if scenario.id in seen:
                problems.append(
                    f"{name}: scenario {scenario.id!r}: field 'name': also in {seen[scenario.id]}"
                )
            seen[scenario.id] = name
            out.append(scenario)
    if problems:
        for line in problems:
            sys.stderr.write(f"error: {line}\n")
        raise typer.Exit(2)
    return out


def print_report(console: Console, report: TesterReport) -> None:
    """Draw the report: health table, scenario table, failing boards, summary line."""
    from rich.table import Table
    from rich.text import Text

    from snakewar.games.battlesnake.tester.runner import category_totals

    def verdict(passed: bool, survival: bool = True) -> Text:
        if passed:
            return Text("PASS", style="bold green")
        # A strategy miss is no failure: the run still passes.
        return Text("FAIL", style="bold red") if survival else Text("MISS", style="yellow")

    checks = Table(title=f"Health checks: {report.source}", title_justify="left")
    for column in ("check", "result", "status", "latency", "details"):
        checks.add_column(column, justify="right" if column == "latency" else "left")
    for c in report.checks:
        latency = "" if c.latency_ms is None else f"{c.latency_ms} ms"
        status = c.status if c.http_status is None else f"{c.status} ({c.http_status})"
        details = Text(c.detail)
        for note in c.notes:
            details.append(f"\nnote: {note}", style="yellow")
        checks.add_row(c.name, verdict(c.passed), status, latency, details)
    console.print(checks)

    if report.scenarios:
        totals = category_totals(report.scenarios)
        table = Table(
            title="Scenarios (each in 8 symmetries; survival decides, strategy is scored)",
            title_justify="left",
        )
        for column in ("kind", "category", "scenario", "result", "variants", "first failure"):
            table.add_column(column)
        for r in report.scenarios:
            failure = r.first_failure
            first = ""
            if failure is not None:
                given = repr(failure.move) if failure.move else f"no move ({failure.status})"
                first = (
                    f"{failure.variant}: {given}, expected "
                    f"{' or '.join(sorted(failure.scenario.acceptable))}"
                )
                if not failure.move and failure.error:
                    first += f"; {failure.error}"
            if r.load_only:
                first += (
                    f"{'; ' if first else ''}{len(r.load_only)} failed only under load "
                    "(passed alone)"
                )
            table.add_row(
                r.scenario.kind,
                r.scenario.category,
                Text(f"{r.scenario.id}\n") + Text(r.scenario.title, style="dim"),
                verdict(r.passed, r.scenario.survival),
                f"{r.passed_count}/{len(r.variants)}",
                first,
            )
        console.print(table)
        per_category = ", ".join(f"{cat} {p}/{n}" for cat, (p, n) in totals.items())
        console.print(f"by category: {per_category}")
        console.print(
            f"survival: {report.survival.text()} (decides the verdict); "
            f"strategy: {report.strategy.text()} (a score)"
        )
        # Boards only where the snake answered with a wrong move: for a missing
        # move the board says nothing (the status does).  Survival failures first.
        wrong = sorted(
            (r for r in report.scenarios if r.first_failure is not None and r.first_failure.move),
            key=lambda r: not r.scenario.survival,
        )
        for r in wrong[:MAX_BOARDS]:
            failure = r.first_failure
            assert failure is not None
            console.print(
                Text(f"\n{r.scenario.kind} {r.scenario.id} [{failure.variant}]", style="bold")
                + Text(f": {r.scenario.title}\n")
                + Text(
                    f"gave {failure.move!r}, expected "
                    f"{' or '.join(sorted(failure.scenario.acceptable))}"
                    f" ({failure.scenario.ruleset} rules)"
                )
            )
            console.print(Text(failure.board()))
        if len(wrong) > MAX_BOARDS:
            console.print(
                f"\n... and {len(wrong) - MAX_BOARDS} more failing scenarios "
                "(--json has every first failure with its board)"
            )
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    console.print(
        Text(report.summary(), style="bold green" if report.passed else "bold red"),
    )
