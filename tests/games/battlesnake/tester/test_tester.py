"""The snake tester: the scenario suite proven by the rules engine, then real snakes.

The scenarios' acceptable moves are recomputed with the rules engine for all 8
symmetric variants.  Snakes are served over real HTTP on loopback (uvicorn in a
background thread): the built-in hunter, an always-``up`` snake, a snake that
answers garbage, one with bad metadata and a slow one.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route

from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.bots.base import Bot
from snakewar.games.battlesnake.bots.sdk import create_app
from snakewar.games.battlesnake.records import CallStatus
from snakewar.games.battlesnake.referee.clients import HttpSnakeClient, new_http_client
from snakewar.games.battlesnake.referee.runner import make_client
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.settings import HAZARD_DAMAGE_PER_TURN
from snakewar.games.battlesnake.rules.types import Point
from snakewar.games.battlesnake.rules.wire import MOVES, SnakeRequest, api_schema
from snakewar.games.battlesnake.tester import (
    CATEGORIES,
    KINDS,
    SCENARIOS,
    STRATEGY,
    SURVIVAL,
    SYMMETRIES,
    CheckResult,
    Scenario,
    ScenarioResult,
    TesterReport,
    UnknownCategoryError,
    rules_acceptable_moves,
    run_tester,
    scenarios_in,
    select_scenarios,
)
from snakewar.games.battlesnake.tester.runner import LEGACY_SKIPPED
from snakewar.games.battlesnake.tester.scenarios import YOU

# -- the suite itself ---------------------------------------------------------------------

REQUEST_VALIDATOR = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/SnakeRequest", "$defs": api_schema()["$defs"]}
)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_acceptable_moves_are_exactly_what_the_rules_allow(scenario: Scenario) -> None:
    for variant in scenario.variants():
        computed = rules_acceptable_moves(variant)
        assert computed == variant.acceptable, (variant.id, variant.variant, sorted(computed))
        # Each position tells snakes apart: something is right and something is wrong.
        assert 0 < len(variant.acceptable) < 4, (variant.id, variant.variant)


def _room(scenario: Scenario, move: str) -> int:
    """Free squares reachable after ``move``, in the worst case over the other snakes.

    Bodies count as walls where they are after the turn (no tail release), and
    hazards that would kill count as walls too: a conservative measure.
    """
    ruleset = named_ruleset(scenario.ruleset, scenario.settings, solo=True)
    others = [s.id for s in scenario.state.snakes if s.id != YOU]
    damage = scenario.settings.get_int(HAZARD_DAMAGE_PER_TURN, 0)
    wrapped = scenario.ruleset.startswith("wrapped")
    worst = 10**9
    for replies in itertools.product(MOVES, repeat=len(others)):
        _, after = ruleset.execute(
            scenario.state, {YOU: move, **dict(zip(others, replies, strict=True))}
        )
        me = after.snake(YOU)
        blocked = {p for s in after.snakes if not s.eliminated_cause for p in s.body}
        if me.health - 1 - damage <= 0:
            blocked |= set(after.hazards)
        n = after.width
        seen = {me.body[0]}
        todo = [me.body[0]]
        while todo:
            p = todo.pop()
            for dx, dy in ((0, 1), (0, -1), (1, 0), (-1, 0)):
                q = Point(p.x + dx, p.y + dy)
                if wrapped:
                    q = Point(q.x % n, q.y % n)
                if after.is_on_board(q) and q not in seen and q not in blocked:
                    seen.add(q)
                    todo.append(q)
        worst = min(worst, len(seen) - 1)
    return worst


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_acceptable_moves_lead_to_open_space(scenario: Scenario) -> None:
    # So that "acceptable" is also clearly *right*: no acceptable move walks into a
    # dead end that a good snake would rightly refuse.
    for move in scenario.acceptable:
        assert _room(scenario, move) >= 2 * scenario.you.length, (scenario.id, move)


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_requests_follow_the_api_schema(scenario: Scenario) -> None:
    for variant in scenario.variants():
        body = variant.request(500).to_api()
        REQUEST_VALIDATOR.validate(body)
        assert SnakeRequest.from_api(body).you.body == variant.you.body
        start = variant.start_request(500).to_api()
        REQUEST_VALIDATOR.validate(start)
        assert start["turn"] == 0 and start["game"]["source"] == "custom"


def _dies_whatever_the_others_do(scenario: Scenario, move: str) -> bool:
    ruleset = named_ruleset(scenario.ruleset, scenario.settings, solo=True)
    others = [s.id for s in scenario.state.snakes if s.id != YOU]
    for replies in itertools.product(MOVES, repeat=len(others)):
        moves = {YOU: move, **dict(zip(others, replies, strict=True))}
        if not ruleset.execute(scenario.state, moves)[1].snake(YOU).eliminated_cause:
            return False
    return True


@pytest.mark.parametrize("scenario", SCENARIOS, ids=[s.id for s in SCENARIOS])
def test_survival_checks_are_exactly_those_where_a_wrong_move_dies(scenario: Scenario) -> None:
    # Survival gates the verdict, so a wrong move there must be a certain death this
    # turn; a strategy check has some wrong move the snake may live through.
    assert scenario.kind in KINDS
    for variant in scenario.variants():
        wrong = [m for m in MOVES if m not in variant.acceptable]
        certain = all(_dies_whatever_the_others_do(variant, m) for m in wrong)
        assert certain == variant.survival, (variant.id, variant.variant)


def test_survival_and_strategy_categories() -> None:
    kinds = {(s.category, s.kind) for s in SCENARIOS}
    assert {c for c, k in kinds if k == STRATEGY} == {"head-to-head-win", "head-to-head-avoid"}
    assert {c for c, k in kinds if k == SURVIVAL} == set(CATEGORIES) - {
        "head-to-head-win",
        "head-to-head-avoid",
    }
    # Standard rules by default; hazards and wrapped boards for the rulesets asked for.
    assert {s.ruleset for s in select_scenarios()} == {"standard"}
    assert {s.category for s in select_scenarios(["royale"])} == set(CATEGORIES) - {"wrapped"}
    assert {s.category for s in select_scenarios(["wrapped"])} == set(CATEGORIES) - {"hazards"}
    assert select_scenarios(["standard"], ["wrapped"]) == scenarios_in(["wrapped"])


def test_symmetries_move_points_and_moves_together() -> None:
    matrices = {(s.a, s.b, s.c, s.d) for s in SYMMETRIES}
    assert len(matrices) == 8
    assert all(abs(a * d - b * c) == 1 for a, b, c, d in matrices)
    assert SYMMETRIES[0].name == "identity"
    deltas = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
    for sym, size in itertools.product(SYMMETRIES, (7, 11)):
        corners = {sym.point(Point(x, y), size) for x in (0, size - 1) for y in (0, size - 1)}
        assert corners == {
            Point(0, 0),
            Point(0, size - 1),
            Point(size - 1, 0),
            Point(size - 1, size - 1),
        }
        assert sorted(sym.move(m) for m in MOVES) == sorted(MOVES)
        p = Point(2, 3)
        for move, (dx, dy) in deltas.items():
            moved = sym.point(Point(p.x + dx, p.y + dy), size)
            base = sym.point(p, size)
            ndx, ndy = deltas[sym.move(move)]
            assert moved == Point(base.x + ndx, base.y + ndy), (sym.name, move)
    assert SYMMETRIES[1].move("up") == "left"  # rot90 turns anticlockwise


def test_variants_are_eight_distinct_positions_with_the_same_game() -> None:
    for scenario in SCENARIOS:
        variants = scenario.variants()
        assert [v.variant for v in variants] == [s.name for s in SYMMETRIES]
        # None of the positions is symmetric, so every variant is a new position.
        assert len({v.state for v in variants}) == 8, scenario.id
        for v in variants:
            assert (v.ruleset, v.map, v.settings, v.state.turn) == (
                scenario.ruleset,
                scenario.map,
                scenario.settings,
                scenario.state.turn,
            )
            assert [s.health for s in v.state.snakes] == [s.health for s in scenario.state.snakes]


def test_the_suite_covers_every_category_several_times() -> None:
    assert CATEGORIES == (
        "walls",
        "own-body",
        "other-snakes",
        "only-safe-move",
        "head-to-head-win",
        "head-to-head-avoid",
        "starving",
        "hazards",
        "wrapped",
    )
    ids = [s.id for s in SCENARIOS]
    assert len(ids) == len(set(ids))
    for category in CATEGORIES:
        assert len(scenarios_in([category])) >= 3, category
    assert all(s.ruleset.startswith("wrapped") for s in scenarios_in(["wrapped"]))
    assert all(s.goal == "kill" for s in scenarios_in(["head-to-head-win"]))
    for s in scenarios_in(["hazards"]):
        assert s.state.hazards
        assert s.you.health <= s.settings.get_int(HAZARD_DAMAGE_PER_TURN, 0)
    with pytest.raises(UnknownCategoryError, match=r"'nope'.*'walls'"):
        scenarios_in(["nope"])


# -- snakes on loopback -------------------------------------------------------------------


class UpBot(Bot):
    """Always up: right only where up is."""

    name = "up"

    def move(self, request: SnakeRequest) -> str:
        return "up"


def _garbage_app() -> Starlette:
    """Answers every endpoint wrongly except /end."""

    async def index(request: Request) -> Response:
        return PlainTextResponse("hello, I am a snake", 200)

    async def start(request: Request) -> Response:
        return PlainTextResponse("crash", 500)

    async def move(request: Request) -> Response:
        return JSONResponse({"move": "sideways"})

    async def end(request: Request) -> Response:
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/start", start, methods=["POST"]),
            Route("/move", move, methods=["POST"]),
            Route("/end", end, methods=["POST"]),
        ]
    )


def _meta_app(metadata: dict[str, Any], move_delay_s: float = 0.0) -> Starlette:
    """A snake with the given GET / reply that moves up (after a delay)."""

    async def index(request: Request) -> Response:
        return JSONResponse(metadata)

    async def move(request: Request) -> Response:
        await asyncio.sleep(move_delay_s)
        return JSONResponse({"move": "up"})

    async def other(request: Request) -> Response:
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/move", move, methods=["POST"]),
            Route("/start", other, methods=["POST"]),
            Route("/end", other, methods=["POST"]),
        ]
    )


def _legacy_app(*, end: bool = True) -> Starlette:
    """A 2018-API snake: no GET / (404), moves "up" (towards y = 0 in its coordinates).

    ``end=False``: no ``/end`` either (404), as most snakes of 2017 and 2018.
    """

    async def index(request: Request) -> Response:
        return PlainTextResponse("not found", 404)

    async def move(request: Request) -> Response:
        world = await request.json()
        assert "board" not in world  # a 2017 or 2018 body, not API v1
        return JSONResponse({"move": "up", "taunt": "old school"})

    async def other(request: Request) -> Response:
        return JSONResponse({"color": "#abcdef", "name": "old"})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/move", move, methods=["POST"]),
            Route("/start", other, methods=["POST"]),
            *([Route("/end", other, methods=["POST"])] if end else []),
        ]
    )


def _slow_once_app(delay_s: float, positions: int) -> Starlette:
    """The hunter bot, but the first ``/move`` of the first ``positions`` positions comes
    after ``delay_s`` (as from a search snake on a busy machine); the same position again
    is answered at once.
    """
    bot = make_bot("hunter?depth=2")
    seen: set[str] = set()

    async def index(request: Request) -> Response:
        return JSONResponse({"apiversion": "1"})

    async def move(request: Request) -> Response:
        body = await request.json()
        key = json.dumps([body["board"], body["you"]["id"]], sort_keys=True)
        # The health check's /move is answered at once: only the positions are slow.
        if key not in seen and body["game"]["id"] != HEALTH_GAME_ID and len(seen) < positions:
            seen.add(key)
            await asyncio.sleep(delay_s)
        reply = bot.move(SnakeRequest.from_api(body))
        return JSONResponse({"move": reply if isinstance(reply, str) else reply.move})

    async def other(request: Request) -> Response:
        return JSONResponse({})

    return Starlette(
        routes=[
            Route("/", index, methods=["GET"]),
            Route("/move", move, methods=["POST"]),
            Route("/start", other, methods=["POST"]),
            Route("/end", other, methods=["POST"]),
        ]
    )


HEALTH_GAME_ID = str(uuid.uuid5(uuid.NAMESPACE_URL, "snakewar-test/health"))
"""The game id of the tester's health-check requests."""

SLOW_ONCE_TIMEOUT_MS = 2_000
"""The timeout the once-slow snake is tested with: its first reply to a position comes
after twice that (late on any machine), the second at once (well within it, even on a
busy one: a hunter of depth 2 thinks for milliseconds)."""

SLOW_ONCE_POSITIONS = 3
"""How many positions the once-slow snake is late on."""


class Snakes:
    """One uvicorn server hosting every test snake under ``/NAME/``."""

    def __init__(self) -> None:
        app = Starlette(
            routes=[
                Mount("/hunter", create_app(make_bot("hunter?depth=2"))),
                Mount("/up", create_app(UpBot())),
                Mount("/garbage", _garbage_app()),
                Mount(
                    "/badmeta",
                    _meta_app({"apiversion": 1, "color": "red", "author": 7}),
                ),
                Mount("/slow", _meta_app({"apiversion": "1"}, move_delay_s=0.3)),
                Mount("/legacy", _legacy_app()),
                Mount("/legacy-no-end", _legacy_app(end=False)),
                Mount(
                    "/slow-once",
                    _slow_once_app(SLOW_ONCE_TIMEOUT_MS * 2 / 1000, SLOW_ONCE_POSITIONS),
                ),
            ]
        )
        # proto=IPPROTO_TCP so that asyncio sets TCP_NODELAY on accepted connections
        # (it checks the proto); with proto 0 every reply waits ~40 ms for a delayed ACK.
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        self._sock.bind(("127.0.0.1", 0))
        self.port = self._sock.getsockname()[1]
        config = uvicorn.Config(app, log_level="error", access_log=False)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._sock]}, daemon=True
        )

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}/"

    def __enter__(self) -> Snakes:
        self._thread.start()
        deadline = time.monotonic() + 60
        while not self._server.started:
            assert time.monotonic() < deadline, "test snake server did not start"
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.should_exit = True
        self._thread.join(5)
        self._sock.close()


@pytest.fixture(scope="module")
def snakes() -> Iterator[Snakes]:
    with Snakes() as running:
        yield running


AMPLE_MS = 10_000
"""The move timeout of the tests about verdicts: the snakes here answer in milliseconds,
but they share this process with the tester, and on a busy machine a reply can take
longer than the usual 500 ms (the timeout itself is tested with the slow snake)."""
AMPLE = ["--timeout", str(AMPLE_MS)]


def _test(url: str, **kwargs: Any) -> TesterReport:
    async def go() -> TesterReport:
        async with new_http_client() as http:
            return await run_tester(HttpSnakeClient(url, http, AMPLE_MS), **kwargs)

    return asyncio.run(go())


def _cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    from snakewar import cli

    capsys.readouterr()
    code = cli.main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_hunter_over_http_passes_everything(
    snakes: Snakes, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        [
            "test",
            snakes.url("hunter"),
            "--json",
            *AMPLE,
            "--ruleset",
            "royale",
            "--ruleset",
            "wrapped",
        ],
        capsys,
    )
    report = json.loads(out)
    failures = [
        (s["id"], s["first_failure"]["variant"], s["first_failure"]["move"])
        for s in report["scenarios"]
        if not s["passed"]
    ]
    assert failures == []
    assert code == 0, err
    assert report["passed"] is True and report["exit_code"] == 0 and report["reachable"]
    assert [c["name"] for c in report["checks"]] == [
        "GET /",
        "POST /start",
        "POST /move",
        "POST /end",
    ]
    assert all(c["passed"] and c["http_status"] == 200 for c in report["checks"])
    assert "apiversion '1'" in report["checks"][0]["detail"]
    assert [s["id"] for s in report["scenarios"]] == [s.id for s in SCENARIOS]
    assert all(s["variants_passed"] == s["variants_total"] == 8 for s in report["scenarios"])
    survival = sum(s.survival for s in SCENARIOS)
    assert report["survival"] == {
        "passed": survival,
        "total": survival,
        "positions_passed": 8 * survival,
        "positions_total": 8 * survival,
    }
    assert report["strategy"]["passed"] == report["strategy"]["total"] == len(SCENARIOS) - survival
    assert report["summary"].startswith(
        f"PASS: 4/4 health checks, survival {survival}/{survival} scenarios "
        f"({8 * survival}/{8 * survival} positions), strategy "
    )


def test_always_up_fails_exactly_where_up_is_wrong(snakes: Snakes) -> None:
    seen_checks: list[CheckResult] = []
    seen_scenarios: list[ScenarioResult] = []
    report = _test(
        snakes.url("up"),
        rulesets=["royale", "wrapped"],
        on_check=seen_checks.append,
        on_scenario=seen_scenarios.append,
    )
    assert report.reachable and all(c.passed for c in report.checks)
    assert seen_checks == report.checks
    # One game at a time by default: each scenario is reported final, in suite order.
    assert [r.scenario.id for r in seen_scenarios] == [s.id for s in SCENARIOS]
    for result in report.scenarios:
        assert len(result.variants) == 8
        for v in result.variants:
            assert v.status == CallStatus.OK and v.move == "up"
            assert v.passed == ("up" in v.scenario.acceptable), (result.scenario.id, v.variant)
    assert not report.passed and report.exit_code == 1
    failure = next(r for r in report.scenarios if not r.passed).first_failure
    assert failure is not None and "expected one of" in failure.error


def test_always_up_cli_table_marks_failures(
    snakes: Snakes, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(["test", snakes.url("up"), "--only", "walls", *AMPLE], capsys)
    assert code == 1, err
    assert "Health checks" in out and "PASS" in out and "FAIL" in out
    # walls-corner passes (up is its answer); walls-top-edge fails in every variant
    # where up is not acceptable, and the first failing board is drawn.
    assert "walls-top-edge" in out and "gave 'up'" in out and "you (tested)" in out
    assert out.strip().splitlines()[-1].startswith("FAIL: 4/4 health checks, ")
    assert "wrapped" not in out


def test_garbage_snake_fails_the_right_checks(
    snakes: Snakes, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = _cli(
        ["test", snakes.url("garbage"), "--json", "--only", "starving", *AMPLE], capsys
    )
    assert code == 1, err
    report = json.loads(out)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["GET /"]["passed"] is False and checks["GET /"]["status"] == "bad-json"
    assert checks["POST /start"]["passed"] is False
    assert checks["POST /start"]["status"] == "http-status"
    assert checks["POST /start"]["http_status"] == 500
    assert checks["POST /move"]["passed"] is False
    assert checks["POST /move"]["status"] == "invalid-move"
    assert "sideways" in checks["POST /move"]["detail"]
    assert checks["POST /end"]["passed"] is True
    assert [s["category"] for s in report["scenarios"]] == ["starving"] * 3
    for s in report["scenarios"]:
        assert s["variants_passed"] == 0
        assert all(v["status"] == "invalid-move" and v["move"] == "" for v in s["variants"])
        assert s["first_failure"]["variant"] == "identity"
        assert any("A" in row for row in s["first_failure"]["board"])


def test_bad_metadata_fails_get_with_notes(snakes: Snakes) -> None:
    report = _test(snakes.url("badmeta"), scenarios=False)
    info = report.checks[0]
    assert info.name == "GET /" and not info.passed and info.status == "invalid-metadata"
    assert "'apiversion' is 1, expected the string '1'" in info.detail
    assert any("'color' 'red'" in n for n in info.notes)
    assert any("'author' is 7" in n for n in info.notes)
    assert all(c.passed for c in report.checks[1:])
    assert report.scenarios == [] and report.exit_code == 1


def test_slow_snake_times_out_on_move(snakes: Snakes, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(
        ["test", snakes.url("slow"), "--timeout", "100", "--only", "health", "--json"], capsys
    )
    assert code == 1, err
    report = json.loads(out)
    move = next(c for c in report["checks"] if c["name"] == "POST /move")
    assert move["passed"] is False and move["status"] == "timeout"
    assert "100 ms" in move["detail"]
    assert report["scenarios"] == []
    assert next(c for c in report["checks"] if c["name"] == "GET /")["passed"] is True


def test_unreachable_snake_is_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the test runs: nothing listens
    url = f"http://127.0.0.1:{port}"
    code, out, err = _cli(["test", url], capsys)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: snake {url}: not reachable")


def test_unreachable_report_from_the_api() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    report = _test(f"http://127.0.0.1:{port}/")
    assert not report.reachable and report.exit_code == 2
    assert report.scenarios == []
    assert all(c.status == "connection-error" and not c.passed for c in report.checks)
    assert report.unreachable_reason.startswith("GET /: ")


def test_bad_arguments_are_one_error_line(capsys: pytest.CaptureFixture[str]) -> None:
    for args, expected in (
        (["test", "builtin:random", "--only", "nope"], "unknown scenario category 'nope'"),
        (["test", "builtin:nosuchbot"], "unknown built-in bot 'nosuchbot'"),
        # Usage errors are typer's: the option, the value, what it must be.
        (["test", "builtin:random", "--timeout", "0"], "'--timeout': 0: expected a number"),
        (["test", "builtin:random", "--parallel", "0"], "'--parallel': 0: expected at least 1"),
        (["test", "builtin:random", "--only", "health", "--only", "walls"], "'--only': health"),
        (["bot", "serve", "random", "--port", "70000"], "'--port': 70000: expected 1..65535"),
        (["test", "ftp://example"], "snake 'ftp://example'"),
    ):
        code, out, err = _cli(args, capsys)
        assert code == 2 and out == "", args
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: ") and expected in lines[0], err


def test_builtin_snake_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _cli(["test", "builtin:random", "--only", "walls", "--json", *AMPLE], capsys)
    report = json.loads(out)
    assert code == 0, err
    assert report["source"] == "builtin:random"
    assert [c["passed"] for c in report["checks"]] == [True] * 4
    assert {s["category"] for s in report["scenarios"]} == {"walls"}


def test_legacy_snake_skips_what_its_api_cannot_describe(snakes: Snakes) -> None:
    async def go() -> TesterReport:
        async with new_http_client() as http:
            client = make_client("legacy:" + snakes.url("legacy"), http, AMPLE_MS)
            return await run_tester(client, rulesets=["royale", "wrapped"])

    report = asyncio.run(go())
    assert report.reachable and [c.passed for c in report.checks] == [True] * 4
    assert "legacy 2018 API" in report.checks[0].detail
    assert {r.scenario.category for r in report.scenarios} == set(CATEGORIES) - set(LEGACY_SKIPPED)
    assert any("hazards and wrapped scenarios skipped" in n for n in report.notes)
    # Its "up" is API v1's "up" (the client mirrors y), so it passes exactly where up is right.
    for result in report.scenarios:
        for v in result.variants:
            assert v.passed == ("up" in v.scenario.acceptable), (result.scenario.id, v.variant)


def test_a_legacy_snake_without_end_passes_the_health_checks(snakes: Snakes) -> None:
    async def go(prefix: str) -> TesterReport:
        async with new_http_client() as http:
            client = make_client(prefix + snakes.url("legacy-no-end"), http, AMPLE_MS)
            return await run_tester(client, categories=["walls"])

    for prefix in ("legacy:", "legacy2017:"):
        report = asyncio.run(go(prefix))
        end = report.checks[-1]
        assert end.name == "POST /end" and end.http_status == 404
        assert end.passed and "never called /end" in end.detail, end
        assert any("404" in note for note in end.notes), end.notes
        assert [c.passed for c in report.checks] == [True] * 4

    # An API v1 snake without /end still fails the check: its servers call /end.
    async def v1() -> TesterReport:
        async with new_http_client() as http:
            client = make_client(snakes.url("legacy-no-end"), http, AMPLE_MS)
            return await run_tester(client, categories=["walls"])

    assert not asyncio.run(v1()).checks[-1].passed


def test_a_timeout_played_alone_gets_one_more_try(snakes: Snakes) -> None:
    async def go() -> TesterReport:
        async with new_http_client() as http:
            client = HttpSnakeClient(snakes.url("slow-once"), http, SLOW_ONCE_TIMEOUT_MS)
            return await run_tester(client, categories=["walls"], parallel=1)

    report = asyncio.run(go())
    variants = [v for r in report.scenarios for v in r.variants]
    # The first positions timed out once (their first reply was late), then passed.
    late = f"no complete reply within {SLOW_ONCE_TIMEOUT_MS} ms"
    first, rest = variants[:SLOW_ONCE_POSITIONS], variants[SLOW_ONCE_POSITIONS:]
    assert all(v.passed and v.failed_under_load == late for v in first), first
    assert rest and all(v.passed and not v.failed_under_load for v in rest)
    assert report.passed and report.exit_code == 0
    assert report.load_only == first
    assert "3 positions timed out once, passed when played again" in report.summary()
    assert any("a busy machine's delay" in note for note in report.notes)


def test_a_wrong_move_played_alone_is_not_played_again(snakes: Snakes) -> None:
    report = _test(snakes.url("up"), categories=["walls"])
    assert not report.passed and report.load_only == []
    assert all(not v.failed_under_load for r in report.scenarios for v in r.variants)


def test_real_failures_stay_failures_under_parallel_load(snakes: Snakes) -> None:
    alone = _test(snakes.url("up"), categories=["walls", "head-to-head-win"])
    loaded = _test(snakes.url("up"), categories=["walls", "head-to-head-win"], parallel=4)
    assert loaded.parallel == 4 and loaded.load_only == []
    assert [[v.passed for v in r.variants] for r in loaded.scenarios] == [
        [v.passed for v in r.variants] for r in alone.scenarios
    ]
    assert not loaded.passed and loaded.exit_code == 1
    assert "under load" not in loaded.summary()
