"""``snakewar test URL``: check a snake's health and play it through the scenario suite.

Register with ``app.command("test", help=...)(test_snake)``.  Exit status: 0 when
everything passed, 1 when a check or scenario failed, 2 (one ``error:`` line) when
the snake cannot be reached at all or an argument is bad.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import TYPE_CHECKING

import typer

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from rich.console import Console

    from snakewar.checkup.runner import TesterReport

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
        4, "--parallel", help="Scenario games in flight at once (1: one after the other)."
    ),
) -> None:
    """Test a snake: health checks, then positions with known right moves (8 symmetries each)."""
    from rich.console import Console

    from snakewar.checkup.runner import run_tester
    from snakewar.checkup.scenarios import scenarios_in
    from snakewar.referee.clients import new_http_client
    from snakewar.referee.runner import make_client

    if timeout < 1:
        raise SnakewarError(f"--timeout {timeout}: expected a number of milliseconds >= 1")
    if parallel < 1:
        raise SnakewarError(f"--parallel {parallel}: expected at least 1")
    health_only = HEALTH_ONLY in only
    categories = [c for c in only if c != HEALTH_ONLY] or None
    if health_only and categories:
        raise SnakewarError(
            f"--only {HEALTH_ONLY} runs no scenarios; it cannot be combined with {categories!r}"
        )
    if categories is not None:
        scenarios_in(categories)  # an unknown category is an error before any call

    console = Console(highlight=False, stderr=json_out)
    if not console.is_terminal:
        console.width = max(console.width, 140)  # logs and pipes: no squeezed tables

    async def run() -> TesterReport:
        async with new_http_client() as http:
            client = make_client(url, http, timeout)
            return await run_tester(
                client,
                categories=categories,
                scenarios=not health_only,
                timeout_ms=timeout,
                parallel=parallel,
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


def print_report(console: Console, report: TesterReport) -> None:
    """Draw the report: health table, scenario table, failing boards, summary line."""
    from rich.table import Table
    from rich.text import Text

    from snakewar.checkup.runner import category_totals

    def verdict(passed: bool) -> Text:
        return Text("PASS", style="bold green") if passed else Text("FAIL", style="bold red")

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
        table = Table(title="Scenarios (each in 8 symmetries)", title_justify="left")
        for column in ("category", "scenario", "result", "variants", "first failure"):
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
            table.add_row(
                r.scenario.category,
                Text(f"{r.scenario.id}\n") + Text(r.scenario.title, style="dim"),
                verdict(r.passed),
                f"{r.passed_count}/{len(r.variants)}",
                first,
            )
        console.print(table)
        per_category = ", ".join(f"{cat} {p}/{n}" for cat, (p, n) in totals.items())
        console.print(f"by category: {per_category}")
        # Boards only where the snake answered with a wrong move: for a missing
        # move the board says nothing (the status does).
        wrong = [
            r for r in report.scenarios if r.first_failure is not None and r.first_failure.move
        ]
        for r in wrong[:MAX_BOARDS]:
            failure = r.first_failure
            assert failure is not None
            console.print(
                Text(f"\n{r.scenario.id} [{failure.variant}]", style="bold")
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
