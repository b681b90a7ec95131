"""Run the snake tester against one snake: health checks, then the scenario suite.

:func:`run_tester` drives any :class:`~snakewar.games.battlesnake.referee.clients.SnakeClient`
(an HTTP snake, an API v0 or legacy one, or a built-in bot in-process) and returns a
:class:`TesterReport`; nothing the snake does raises.

1. **Health checks**: ``GET /`` (status, latency, and the reply's schema: a JSON
   object with ``apiversion`` the string ``"1"``; bad customizations are noted,
   not failed), then ``POST /start``, ``POST /move`` (a valid move within the
   timeout) and ``POST /end`` on a fresh 11x11 game.
2. **Scenarios**: the scenarios of :mod:`snakewar.games.battlesnake.tester.scenarios` for the
   rulesets asked for (standard by default), each in its 8 symmetric variants; each
   variant is a game of its own (``/start`` at turn 0, one ``/move``, ``/end``) and
   passes when the move is one of the acceptable ones.

The verdict (:attr:`TesterReport.passed`, the exit code) rests on the health checks
and the **survival** scenarios; **strategy** scenarios are a score.

Games run one after the other by default: many real snakes (a Flask or Node server
on one thread, module-level state) serve one game at a time, and running several
at once failed them for what they never meet in play.  With ``parallel > 1`` every
position that fails is played again alone before it counts; one that then passes
*failed only under load*: reported as such, not held against the snake.  One game at
a time (``parallel == 1``), a position whose move timed out gets one more try: a busy
machine delays a snake that budgets close to its timeout, different positions each run.

An API v0 snake (:class:`~snakewar.games.battlesnake.referee.clients.V0SnakeClient`) has no
``GET /``:
its health checks are ``POST /ping``, ``POST /start``, the looks its ``/start``
reply gives (bad ones are notes), ``/move`` and ``/end`` (see :func:`_health_checks`).

If nothing answers at all (every health call refused, reset or timed out), the
snake is *unreachable*: the scenarios are skipped and :attr:`TesterReport.reachable`
is false (the CLI turns that into an error, exit status 2).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx

from snakewar.errors import WireFormatError
from snakewar.games.battlesnake.bots.base import SnakeMetadata
from snakewar.games.battlesnake.records import CallOutcome, CallStatus
from snakewar.games.battlesnake.referee.clients import (
    MAX_REPLY_BYTES,
    MIN_INFO_TIMEOUT_MS,
    HttpSnakeClient,
    LegacySnakeClient,
    SnakeClient,
    SnakeUnreachableError,
    V0SnakeClient,
)
from snakewar.games.battlesnake.rules.ascii import render_board
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Point, Snake
from snakewar.games.battlesnake.rules.wire import (
    API_VERSION,
    GameInfo,
    GameSource,
    SnakeInfo,
    SnakeRequest,
)
from snakewar.games.battlesnake.tester.scenarios import (
    DEFAULT_RULESETS,
    STRATEGY,
    SURVIVAL,
    YOU,
    Scenario,
    select_scenarios,
)

__all__ = [
    "DEFAULT_PARALLEL",
    "LEGACY_SKIPPED",
    "CheckResult",
    "ScenarioResult",
    "Score",
    "TesterReport",
    "VariantResult",
    "category_totals",
    "run_tester",
]

DEFAULT_PARALLEL = 1
"""Scenario games in flight at once: one, as many real snakes serve one game at a time."""

_NO_ANSWER = (CallStatus.CONNECTION_ERROR, CallStatus.TIMEOUT)
LEGACY_SKIPPED = ("hazards", "wrapped")
"""Categories the 2017/2018 APIs cannot describe (no hazards, no ruleset names);
skipped for legacy and API v0 snakes unless asked for by name."""

_INVALID_METADATA = "invalid-metadata"
"""The status of a ``GET /`` reply that is JSON but not valid API v1 metadata."""


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One health check: a call to one endpoint and what was wrong with it.

    ``detail`` says what failed (or, for a pass, a short summary); ``notes`` are
    problems that do not fail the check (e.g. an invalid colour).
    """

    name: str
    passed: bool
    status: str
    latency_ms: int | None = None
    http_status: int | None = None
    detail: str = ""
    notes: tuple[str, ...] = ()

    @property
    def answered(self) -> bool:
        """Whether the snake answered at all (any HTTP reply, or an in-process bot)."""
        return self.status not in _NO_ANSWER

    def to_dict(self) -> dict[str, Any]:
        """The check as JSON."""
        return {
            "name": self.name,
            "passed": self.passed,
            "status": self.status,
            "latency_ms": self.latency_ms,
            "http_status": self.http_status,
            "detail": self.detail,
            "notes": list(self.notes),
        }


@dataclass(frozen=True, slots=True)
class VariantResult:
    """One symmetric variant of a scenario: the move given and whether it was right.

    ``move`` is empty when the snake gave no valid move (then ``status`` and
    ``error`` say why).
    """

    scenario: Scenario
    passed: bool
    move: str
    status: str
    latency_ms: int
    error: str = ""
    failed_under_load: str = ""
    """Set when the position failed under load (among parallel games, or timed out on a
    busy machine: what went wrong then) and passed when played again alone: not held
    against the snake."""

    @property
    def load_only(self) -> bool:
        """Whether the position failed only under load (passed alone)."""
        return bool(self.failed_under_load)

    @property
    def variant(self) -> str:
        """The symmetry's name (``identity``, ``rot90``, ...)."""
        return self.scenario.variant

    def board(self, *, unicode: bool = True) -> str:
        """The variant's board, drawn; the tested snake is named ``you``."""
        return render_board(self.scenario.state, unicode=unicode, names={YOU: "you (tested)"})

    def to_dict(self) -> dict[str, Any]:
        """The variant's result as JSON."""
        return {
            "variant": self.variant,
            "passed": self.passed,
            "move": self.move,
            "acceptable": sorted(self.scenario.acceptable),
            "status": self.status,
            "latency_ms": self.latency_ms,
            "error": self.error,
            "failed_under_load": self.failed_under_load,
        }


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """A scenario's 8 variants."""

    scenario: Scenario
    variants: tuple[VariantResult, ...]

    @property
    def passed(self) -> bool:
        """Whether every variant passed."""
        return all(v.passed for v in self.variants)

    @property
    def passed_count(self) -> int:
        """How many variants passed."""
        return sum(v.passed for v in self.variants)

    @property
    def first_failure(self) -> VariantResult | None:
        """The first variant that failed, in symmetry order."""
        return next((v for v in self.variants if not v.passed), None)

    @property
    def load_only(self) -> tuple[VariantResult, ...]:
        """The variants that failed only under load (passed when played alone)."""
        return tuple(v for v in self.variants if v.load_only)

    def to_dict(self) -> dict[str, Any]:
        """The scenario's result as JSON (the first failure with its board)."""
        failure = self.first_failure
        out: dict[str, Any] = {
            "id": self.scenario.id,
            "category": self.scenario.category,
            "kind": self.scenario.kind,
            "ruleset": self.scenario.ruleset,
            "title": self.scenario.title,
            "passed": self.passed,
            "variants_passed": self.passed_count,
            "variants_total": len(self.variants),
            "variants_load_only": len(self.load_only),
            "variants": [v.to_dict() for v in self.variants],
            "first_failure": None,
        }
        if failure is not None:
            out["first_failure"] = {
                **failure.to_dict(),
                "ruleset": failure.scenario.ruleset,
                "board": failure.board(unicode=False).splitlines(),
                "state": failure.scenario.state.to_dict(),
            }
        return out


@dataclass(frozen=True, slots=True)
class Score:
    """Scenarios and positions passed, out of how many (of one kind of check)."""

    passed: int
    total: int
    positions_passed: int
    positions_total: int

    @classmethod
    def of(cls, results: Iterable[ScenarioResult]) -> Score:
        """The score of ``results``."""
        chosen = list(results)
        return cls(
            sum(r.passed for r in chosen),
            len(chosen),
            sum(r.passed_count for r in chosen),
            sum(len(r.variants) for r in chosen),
        )

    def text(self) -> str:
        """``3/5 scenarios (30/40 positions)``."""
        return (
            f"{self.passed}/{self.total} scenarios "
            f"({self.positions_passed}/{self.positions_total} positions)"
        )

    def to_dict(self) -> dict[str, int]:
        """The score as JSON."""
        return {
            "passed": self.passed,
            "total": self.total,
            "positions_passed": self.positions_passed,
            "positions_total": self.positions_total,
        }


@dataclass(slots=True)
class TesterReport:
    """Everything the tester found out about one snake."""

    __test__ = False  # not a pytest test class, despite the name

    source: str
    timeout_ms: int
    checks: list[CheckResult] = field(default_factory=list)
    scenarios: list[ScenarioResult] = field(default_factory=list)
    reachable: bool = True
    unreachable_reason: str = ""
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    """What the reader should know beyond the results (e.g. skipped categories)."""
    rulesets: tuple[str, ...] = DEFAULT_RULESETS
    parallel: int = DEFAULT_PARALLEL

    def of_kind(self, kind: str) -> list[ScenarioResult]:
        """The results of the scenarios of one kind (``survival`` or ``strategy``)."""
        return [r for r in self.scenarios if r.scenario.kind == kind]

    @property
    def survival(self) -> Score:
        """The survival checks' score: any failure fails the snake."""
        return Score.of(self.of_kind(SURVIVAL))

    @property
    def strategy(self) -> Score:
        """The strategy checks' score: reported, never failed."""
        return Score.of(self.of_kind(STRATEGY))

    @property
    def load_only(self) -> list[VariantResult]:
        """Every position that failed only under load (passed when played alone)."""
        return [v for r in self.scenarios for v in r.load_only]

    @property
    def passed(self) -> bool:
        """Whether the snake is reachable and passed every health and survival check."""
        return (
            self.reachable
            and all(c.passed for c in self.checks)
            and all(r.passed for r in self.of_kind(SURVIVAL))
        )

    @property
    def exit_code(self) -> int:
        """0 if every health and survival check passed, 1 if one failed, 2 if unreachable."""
        if not self.reachable:
            return 2
        return 0 if self.passed else 1

    def summary(self) -> str:
        """One line: the verdict, the health checks, survival and strategy scores."""
        if not self.reachable:
            return f"UNREACHABLE: {self.unreachable_reason}"
        checks = sum(c.passed for c in self.checks)
        verdict = "PASS" if self.passed else "FAIL"
        parts = [f"{verdict}: {checks}/{len(self.checks)} health checks"]
        if self.scenarios:
            parts.append(f"survival {self.survival.text()}")
            if self.strategy.total:
                parts.append(f"strategy {self.strategy.text()}")
        line = ", ".join(parts) + f" in {self.elapsed_s:.2f} s"
        if self.load_only and self.parallel == 1:
            line += f"; {len(self.load_only)} positions timed out once, passed when played again"
        elif self.load_only:
            line += (
                f"; {len(self.load_only)} positions failed only under load "
                f"(--parallel {self.parallel}), passed alone"
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        """The whole report as JSON (what ``snakewar test --json`` prints)."""
        return {
            "source": self.source,
            "timeout_ms": self.timeout_ms,
            "rulesets": list(self.rulesets),
            "parallel": self.parallel,
            "reachable": self.reachable,
            "unreachable_reason": self.unreachable_reason,
            "passed": self.passed,
            "exit_code": self.exit_code,
            "summary": self.summary(),
            "elapsed_s": round(self.elapsed_s, 3),
            "survival": self.survival.to_dict(),
            "strategy": self.strategy.to_dict(),
            "load_only": [
                {
                    "id": v.scenario.id,
                    "variant": v.variant,
                    "failed_under_load": v.failed_under_load,
                }
                for v in self.load_only
            ],
            "notes": list(self.notes),
            "checks": [c.to_dict() for c in self.checks],
            "scenarios": [s.to_dict() for s in self.scenarios],
        }


CheckCallback = Callable[[CheckResult], Awaitable[None] | None]
ScenarioCallback = Callable[[ScenarioResult], Awaitable[None] | None]


async def _notify(callback: Callable[[Any], Awaitable[None] | None] | None, item: Any) -> None:
    if callback is not None:
        maybe = callback(item)
        if maybe is not None:
            await maybe


async def run_tester(
    client: SnakeClient,
    *,
    categories: Iterable[str] | None = None,
    rulesets: Iterable[str] = DEFAULT_RULESETS,
    scenarios: bool = True,
    timeout_ms: int | None = None,
    parallel: int = DEFAULT_PARALLEL,
    on_check: CheckCallback | None = None,
    on_scenario: ScenarioCallback | None = None,
    extra: Sequence[Scenario] = (),
    builtin: bool = True,
) -> TesterReport:
    """Test one snake: health checks, then (unless ``scenarios=False``) the scenarios.

    Args:
        client: The snake (see :func:`snakewar.games.battlesnake.referee.runner.make_client`).
        categories: Only the scenarios of these categories (default: those of
            ``rulesets``).
        rulesets: The rulesets the snake plays: the standard scenarios, and those
            specific to these rulesets (``royale`` hazards, ``wrapped`` edges).
        scenarios: False to run the health checks only.
        timeout_ms: The game timeout sent to the snake (default: the client's).
        parallel: Scenario games in flight at once (1: one after the other).  Above
            1, every failing position is played again alone before it counts; at 1,
            every position whose move timed out.
        on_check: Called with each health check as it completes (e.g. to show it live).
        on_scenario: Called with each scenario once its 8 variants are final.
        extra: Scenarios of your own (a scenario file's:
            :func:`snakewar.games.battlesnake.tester.files.load_scenarios`), run after the
            built-in ones with their symmetries, reported alike (survival gates the
            verdict, strategy is scored).
        builtin: False to run only ``extra`` (no built-in scenario).

    Returns:
        The report; nothing the snake does raises.

    Raises:
        UnknownCategoryError: for an unknown category (before any call).
        UnknownRulesetError: for an unknown ruleset (before any call).
    """
    wanted = None if categories is None else list(categories)
    asked = tuple(dict.fromkeys(rulesets)) or DEFAULT_RULESETS
    for name in asked:
        named_ruleset(name)  # an unknown name is an error before any call
    chosen = select_scenarios(asked, wanted) if scenarios and builtin else []
    timeout = timeout_ms if timeout_ms is not None else getattr(client, "timeout_ms", 500)
    parallel = max(1, parallel)
    report = TesterReport(client.source, timeout, rulesets=asked, parallel=parallel)
    skip_note = _old_api_skip_note(client)
    if skip_note and wanted is None:
        skipped = [s for s in chosen if s.category in LEGACY_SKIPPED]
        if skipped:
            chosen = [s for s in chosen if s.category not in LEGACY_SKIPPED]
            report.notes.append(skip_note)
    if scenarios:
        chosen = [*chosen, *extra]
    if wanted is None and scenarios and builtin:
        plain = [r for r in asked if not any(s.ruleset == r for s in chosen)]
        plain = [r for r in plain if r not in DEFAULT_RULESETS]
        if plain:
            report.notes.append(
                f"no scenarios of their own for {', '.join(plain)}: the standard ones ran"
            )
    started = time.perf_counter()

    for check in _health_checks(client):
        result = await check(client, timeout)
        report.checks.append(result)
        await _notify(on_check, result)

    if not any(c.answered for c in report.checks):
        report.reachable = False
        first = report.checks[0]
        report.unreachable_reason = f"{first.name}: {first.detail}"
        report.elapsed_s = time.perf_counter() - started
        return report

    if parallel == 1:
        # One game at a time, in report order: each scenario is final when played.
        for scenario in chosen:
            variants = []
            for variant in scenario.variants():
                played = await _play_variant(client, variant, timeout)
                if played.status == CallStatus.TIMEOUT:
                    # Alone, a timeout may still be this machine's (busy with other
                    # work), not the snake's: the position gets one more try.
                    played = await _alone(client, played, timeout)
                variants.append(played)
            done = ScenarioResult(scenario, tuple(variants))
            report.scenarios.append(done)
            await _notify(on_scenario, done)
        if report.load_only:
            report.notes.append(
                f"{len(report.load_only)} positions timed out, then passed when played again: "
                "a busy machine's delay, not held against the snake (a quiet machine tells "
                "for sure)"
            )
    else:
        gate = asyncio.Semaphore(parallel)

        async def gated(variant: Scenario) -> VariantResult:
            async with gate:
                return await _play_variant(client, variant, timeout)

        first_pass = await asyncio.gather(
            *(asyncio.gather(*(gated(v) for v in s.variants())) for s in chosen)
        )
        for scenario, variants in zip(chosen, first_pass, strict=True):
            # A failure among parallel games may be the load's (a single-threaded
            # server timing out, state shared between games): play it again alone.
            final = [v if v.passed else await _alone(client, v, timeout) for v in variants]
            done = ScenarioResult(scenario, tuple(final))
            report.scenarios.append(done)
            await _notify(on_scenario, done)
        if report.load_only:
            report.notes.append(
                f"{len(report.load_only)} positions failed with {parallel} games in flight "
                "but passed when played alone: the snake may not serve several games at "
                "once (what --parallel 1, the default, tests)"
            )
    report.elapsed_s = time.perf_counter() - started
    return report


async def _alone(client: SnakeClient, failed: VariantResult, timeout_ms: int) -> VariantResult:
    """Play a position that failed under load again, alone."""
    again = await _play_variant(client, failed.scenario, timeout_ms)
    if not again.passed:
        return again
    seen = failed.error or failed.status
    return dataclasses.replace(again, failed_under_load=seen)


async def _play_variant(client: SnakeClient, variant: Scenario, timeout_ms: int) -> VariantResult:
    """One variant as a game of its own: ``/start`` (turn 0), ``/move``, ``/end``."""
    # The game id is a UUID fixed by the scenario and variant, so that a snake whose
    # choices depend on the game id (seeded tie-breaks) gets the same report every run.
    request = variant.request(timeout_ms)
    # Snakes may keep per-game state from /start; its outcome is judged by the
    # health check, not here.
    await client.start(variant.start_request(timeout_ms))
    outcome = await client.move(request)
    await client.end(request)
    passed = outcome.ok and outcome.move in variant.acceptable
    error = outcome.error
    if outcome.ok and not passed:
        error = f"moved {outcome.move!r}, expected one of {sorted(variant.acceptable)}"
    return VariantResult(
        variant,
        passed,
        outcome.move if outcome.ok else "",
        outcome.status,
        outcome.latency_ms,
        error,
    )


# -- health checks ---------------------------------------------------------------------


def _health_request(timeout_ms: int, turn: int = 0) -> SnakeRequest:
    """A fresh standard 11x11 game: two snakes on their start squares, centre food."""
    you = Snake(YOU, (Point(1, 1),) * 3)
    rival = Snake("rival", (Point(9, 9),) * 3)
    state = BoardState(turn, 11, 11, (you, rival), (Point(0, 2), Point(10, 8), Point(5, 5)), ())
    game = GameInfo(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, "snakewar-test/health")),
        ruleset_name="standard",
        settings=Settings.defaults(),
        map="standard",
        timeout=timeout_ms,
        source=GameSource.CUSTOM,
    )
    infos = {YOU: SnakeInfo(name="you"), "rival": SnakeInfo(name="rival", color="#3f51b5")}
    return SnakeRequest(game, turn, state, you, infos)


def _from_outcome(name: str, outcome: CallOutcome, timeout_ms: int) -> CheckResult:
    notes: list[str] = []
    if outcome.ok and outcome.latency_ms > timeout_ms * 0.8:
        notes.append(f"slow: {outcome.latency_ms} ms of a {timeout_ms} ms timeout")
    return CheckResult(
        name,
        outcome.ok,
        str(outcome.status),
        outcome.latency_ms,
        outcome.http_status,
        outcome.error,
        tuple(notes),
    )


async def _check_start(client: SnakeClient, timeout_ms: int) -> CheckResult:
    outcome = await client.start(_health_request(timeout_ms))
    return _from_outcome("POST /start", outcome, timeout_ms)


async def _check_move(client: SnakeClient, timeout_ms: int) -> CheckResult:
    outcome = await client.move(_health_request(timeout_ms))
    result = _from_outcome("POST /move", outcome, timeout_ms)
    if result.passed:
        return CheckResult(
            result.name,
            True,
            result.status,
            result.latency_ms,
            result.http_status,
            f"move {outcome.move!r}",
            result.notes,
        )
    return result


async def _check_end(client: SnakeClient, timeout_ms: int) -> CheckResult:
    outcome = await client.end(_health_request(timeout_ms, turn=1))
    result = _from_outcome("POST /end", outcome, timeout_ms)
    if result.passed or not isinstance(client, LegacySnakeClient):
        return result
    # The 2017/2018 servers never called /end, so most snakes of that time have none
    # (404): its answer is reported, not held against the snake.
    why = result.detail or result.status
    return CheckResult(
        result.name,
        True,
        result.status,
        result.latency_ms,
        result.http_status,
        f"not counted: the {client.api} servers never called /end",
        (*result.notes, f"/end: {why}"),
    )


async def _check_info(client: SnakeClient, timeout_ms: int) -> CheckResult:
    """``GET /``: reachable, 200, and a valid API v1 metadata object."""
    name = "GET /"
    if isinstance(client, HttpSnakeClient):
        # The snake's own HTTP client: its address policy holds for this call too.
        return await _check_info_http(client.url, timeout_ms, client.http)
    started = time.perf_counter()
    try:
        meta = await client.info()
    except SnakeUnreachableError as exc:
        return CheckResult(name, False, str(CallStatus.CONNECTION_ERROR), detail=str(exc))
    except Exception as exc:  # a built-in bot's bug is a failed check, not a crash
        return CheckResult(
            name, False, str(CallStatus.BOT_ERROR), detail=f"{type(exc).__name__}: {exc}"[:200]
        )
    latency = round((time.perf_counter() - started) * 1000)
    if isinstance(client, LegacySnakeClient):
        return CheckResult(
            name,
            True,
            str(CallStatus.OK),
            latency,
            detail=f"legacy {client.api} API: no metadata at GET /, but the server answers",
        )
    problems, notes = _metadata_problems(meta.to_api())
    return CheckResult(
        name,
        not problems,
        str(CallStatus.OK) if not problems else _INVALID_METADATA,
        latency,
        detail="; ".join(problems) or _metadata_summary(meta),
        notes=tuple(notes),
    )


def _metadata_summary(meta: SnakeMetadata) -> str:
    parts = [f"apiversion {meta.apiversion!r}"]
    if meta.author:
        parts.append(f"author {meta.author!r}")
    parts.append(f"color {meta.color}")
    if meta.version:
        parts.append(f"version {meta.version!r}")
    return ", ".join(parts)


def _metadata_problems(data: Any) -> tuple[list[str], list[str]]:
    """Failures and notes for a ``GET /`` reply, checked against the API v1 schema."""
    if not isinstance(data, dict):
        return [f"reply is not a JSON object (got {type(data).__name__})"], []
    problems: list[str] = []
    notes: list[str] = []
    version = data.get("apiversion")
    if version is None:
        problems.append(f"'apiversion' is missing (expected {API_VERSION!r})")
    elif not isinstance(version, str):
        problems.append(f"'apiversion' is {version!r}, expected the string {API_VERSION!r}")
    elif version != API_VERSION:
        problems.append(f"'apiversion' is {version!r}, expected {API_VERSION!r}")
    for key in ("author", "color", "head", "tail", "version"):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            notes.append(f"{key!r} is {value!r}, expected a string (ignored)")
    color = data.get("color")
    if isinstance(color, str) and color:
        try:
            ok = SnakeMetadata.from_api({"apiversion": "1", "color": color}).color == color
        except WireFormatError:  # pragma: no cover - apiversion is given
            ok = False
        if not ok:
            notes.append(f"'color' {color!r} is not #rrggbb (shown as #888888)")
    return problems, notes


def _root_url(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


async def _check_info_http(url: str, timeout_ms: int, http: httpx.AsyncClient) -> CheckResult:
    """Our own ``GET /`` so that the raw reply's schema can be checked."""
    name = "GET /"
    limit = max(timeout_ms, MIN_INFO_TIMEOUT_MS)
    started = time.perf_counter()
    http_status: int | None = None
    body = b""
    try:
        async with asyncio.timeout(limit / 1000):
            async with http.stream("GET", _root_url(url)) as response:
                http_status = response.status_code
                async for chunk in response.aiter_bytes():
                    body += chunk
                    if len(body) > MAX_REPLY_BYTES:
                        return CheckResult(
                            name,
                            False,
                            str(CallStatus.TOO_LARGE),
                            round((time.perf_counter() - started) * 1000),
                            http_status,
                            f"reply larger than {MAX_REPLY_BYTES} bytes",
                        )
    except TimeoutError:
        return CheckResult(
            name,
            False,
            str(CallStatus.TIMEOUT),
            limit,
            http_status,
            f"no complete reply within {limit} ms",
        )
    except httpx.HTTPError as exc:
        return CheckResult(
            name,
            False,
            str(CallStatus.CONNECTION_ERROR),
            round((time.perf_counter() - started) * 1000),
            http_status,
            f"{type(exc).__name__}: {exc}"[:200] or type(exc).__name__,
        )
    latency = round((time.perf_counter() - started) * 1000)
    if http_status != 200:
        return CheckResult(
            name,
            False,
            str(CallStatus.HTTP_STATUS),
            latency,
            http_status,
            f"HTTP status {http_status} (expected 200)",
        )
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError) as exc:
        return CheckResult(
            name,
            False,
            str(CallStatus.BAD_JSON),
            latency,
            http_status,
            f"reply is not JSON ({exc}): {body[:60]!r}",
        )
    problems, notes = _metadata_problems(data)
    if problems:
        return CheckResult(
            name,
            False,
            _INVALID_METADATA,
            latency,
            http_status,
            "; ".join(problems),
            tuple(notes),
        )
    return CheckResult(
        name,
        True,
        str(CallStatus.OK),
        latency,
        http_status,
        _metadata_summary(SnakeMetadata.from_api(data)),
        tuple(notes),
    )


# -- older APIs: what they cannot describe, and API v0's own checks ---------------------

HealthCheck = Callable[[SnakeClient, int], Awaitable[CheckResult]]


def _old_api_skip_note(client: SnakeClient) -> str:
    """The report's note when ``client`` speaks an API without rulesets or hazards."""
    if isinstance(client, LegacySnakeClient):
        return (
            f"legacy API: {' and '.join(LEGACY_SKIPPED)} scenarios skipped "
            "(the 2017/2018 APIs cannot describe them)"
        )
    if isinstance(client, V0SnakeClient):
        return (
            f"API v0: {' and '.join(LEGACY_SKIPPED)} scenarios skipped "
            "(v0 requests carry no ruleset and no hazards)"
        )
    return ""


def _health_checks(client: SnakeClient) -> tuple[HealthCheck, ...]:
    """The health checks for ``client``, in order: API v0 has ``/ping`` for ``GET /``."""
    if isinstance(client, V0SnakeClient):
        return (_check_ping, _check_start, _check_v0_looks, _check_move, _check_end)
    return (_check_info, _check_start, _check_move, _check_end)


async def _check_ping(client: SnakeClient, timeout_ms: int) -> CheckResult:
    """``POST /ping``: API v0's keep-alive must answer 200 (its body is ignored)."""
    assert isinstance(client, V0SnakeClient)
    outcome = await client.ping()
    result = _from_outcome("POST /ping", outcome, max(timeout_ms, MIN_INFO_TIMEOUT_MS))
    if result.passed:
        return CheckResult(
            result.name,
            True,
            result.status,
            result.latency_ms,
            result.http_status,
            "API v0: the server answers (no metadata at GET / in v0)",
            result.notes,
        )
    return result


async def _check_v0_looks(client: SnakeClient, timeout_ms: int) -> CheckResult:
    """The ``/start`` reply's looks (``color``, ``headType``, ``tailType``).

    A ``/start`` of its own, read by the client
    (:func:`~snakewar.games.battlesnake.referee.clients.v0_start_reply`).
    A bad value only changes how the snake is drawn, so it is a note; the check
    fails only when there is no ``/start`` reply to read.
    """
    assert isinstance(client, V0SnakeClient)
    name = "/start looks (v0)"
    outcome = await client.start(_health_request(timeout_ms))
    if not outcome.ok:
        return CheckResult(
            name,
            False,
            str(outcome.status),
            outcome.latency_ms,
            outcome.http_status,
            f"no /start reply to read the looks from ({outcome.error})",
        )
    meta = client.metadata
    return CheckResult(
        name,
        True,
        str(outcome.status),
        outcome.latency_ms,
        outcome.http_status,
        f"color {meta.color}, head {meta.head!r}, tail {meta.tail!r}",
        client.start_notes,
    )


def category_totals(results: Sequence[ScenarioResult]) -> dict[str, tuple[int, int]]:
    """Per category: ``(scenarios passed, scenarios)``, in report order."""
    out: dict[str, tuple[int, int]] = {}
    for r in results:
        passed, total = out.get(r.scenario.category, (0, 0))
        out[r.scenario.category] = (passed + r.passed, total + 1)
    return out
