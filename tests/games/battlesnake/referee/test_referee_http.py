"""The referee against real snake servers on loopback."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator, Sequence

import jsonschema
import pytest

from snakewar.errors import EntrantError
from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.records import CallStatus, GameRecord
from snakewar.games.battlesnake.referee.clients import (
    SnakeUnreachableError,
    SnakeURLError,
    check_url,
    new_http_client,
)
from snakewar.games.battlesnake.referee.runner import SnakeSpecError, connect, play_game
from snakewar.games.battlesnake.rules.wire import api_schema

from .snake_servers import LATE_S, SnakeServers

SCHEMA = api_schema()
REQUEST_VALIDATOR = jsonschema.Draft202012Validator(
    {"$ref": "#/$defs/SnakeRequest", "$defs": SCHEMA["$defs"]}
)


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def play(
    specs: Sequence[str],
    seed: int = 1,
    timeout_ms: int = 500,
    names: Sequence[str] = (),
    max_turns: int | None = 40,
    **kwargs: object,
) -> GameRecord:
    async def run() -> GameRecord:
        async with new_http_client() as http:
            snakes = await connect(specs, names, http, timeout_ms)
            return await play_game(
                GameConfig(settings=Settings.defaults(seed=seed)),
                snakes,
                timeout_ms=timeout_ms,
                max_turns=max_turns,
                **kwargs,  # type: ignore[arg-type]
            )

    return asyncio.run(run())


def test_request_bodies_follow_api_v1(servers: SnakeServers) -> None:
    servers.received.clear()
    record = play([servers.url("good"), servers.url("good2"), "builtin:random"], seed=11)
    assert record.result is not None
    for name in ("good", "good2"):
        starts = servers.bodies(name, "start")
        moves = servers.bodies(name, "move")
        ends = servers.bodies(name, "end")
        assert len(starts) == 1 and len(ends) == 1
        assert len(moves) == sum(
            1 for t in record.turns if record.snakes[0 if name == "good" else 1].id in t.calls
        )
        for body in starts + moves + ends:
            REQUEST_VALIDATOR.validate(body)
            assert body["game"]["id"] == record.id
            assert body["game"]["timeout"] == 500
            assert body["game"]["map"] == "standard"
            assert body["game"]["ruleset"]["name"] == "standard"
            assert body["game"]["ruleset"]["settings"]["foodSpawnChance"] == 15
            assert body["game"]["ruleset"]["settings"]["royale"] == {"shrinkEveryNTurns": 25}
        assert starts[0]["turn"] == 0
        for body in moves:
            # Only alive snakes are on the board, and the recipient is one of them.
            ids = [s["id"] for s in body["board"]["snakes"]]
            assert body["you"]["id"] in ids
            state = record.initial if body["turn"] == 0 else record.turns[body["turn"] - 1].after
            assert ids == [s.id for s in state.snakes if not s.eliminated_cause]
            assert body["you"]["body"] == [
                {"x": p.x, "y": p.y} for p in state.snake(body["you"]["id"]).body
            ]
        assert ends[0]["turn"] == record.final_state.turn
    good_id = record.snakes[0].id
    # Metadata becomes customizations; names default from the source.
    first_move = servers.bodies("good2", "move")[0]
    good_view = next(s for s in first_move["board"]["snakes"] if s["id"] == good_id)
    assert good_view["customizations"] == {"color": "#123456", "head": "smile", "tail": "bolt"}
    assert good_view["shout"] == "" and good_view["latency"] == "0"
    # Shouts and latencies are relayed on the next turn.
    second = servers.bodies("good2", "move")[1]
    good_view = next(s for s in second["board"]["snakes"] if s["id"] == good_id)
    assert good_view["shout"] == "good says 0"
    assert good_view["latency"] == str(record.turns[0].calls[good_id].latency_ms)


def test_every_failure_is_a_status_and_plays_the_default_move(servers: SnakeServers) -> None:
    kinds = ["good", "late", "hang", "garbage", "invalid", "status500", "huge", "crash"]
    # The good snake answers well within it on a busy machine; the late one answers after
    # it (LATE_S), the hanging one never.
    timeout = 2000
    assert 2 * timeout / 1000 < LATE_S
    started = time.perf_counter()
    record = play([servers.url(k) for k in kinds], seed=5, timeout_ms=timeout, max_turns=3)
    elapsed = time.perf_counter() - started
    ids = {kind: entry.id for kind, entry in zip(kinds, record.snakes, strict=True)}
    first = record.turns[0].calls
    expected = {
        "good": CallStatus.OK,
        "late": CallStatus.TIMEOUT,
        "hang": CallStatus.TIMEOUT,
        "garbage": CallStatus.BAD_JSON,
        "invalid": CallStatus.INVALID_MOVE,
        "status500": CallStatus.HTTP_STATUS,
        "huge": CallStatus.TOO_LARGE,
        "crash": CallStatus.CONNECTION_ERROR,
    }
    for kind, status in expected.items():
        call = first[ids[kind]]
        assert call.status is status, (kind, call)
        if status is not CallStatus.OK:
            assert call.move == "up", (kind, call)  # no valid move yet: "up"
            assert call.error
    assert first[ids["status500"]].http_status == 500
    assert first[ids["hang"]].latency_ms == timeout
    assert first[ids["good"]].http_status == 200
    # A hanging snake never costs a turn more than the timeout (plus a margin for a busy
    # machine, far below the minute the hanging snake would take).
    assert elapsed < len(record.turns) * (timeout / 1000 + 1) + 10
    assert record.result is not None


def test_failed_turns_repeat_the_last_valid_move(servers: SnakeServers) -> None:
    record = play([servers.url("flaky"), servers.url("good")], seed=3)
    flaky = record.snakes[0].id
    played = [t.calls[flaky] for t in record.turns if flaky in t.calls]
    assert len(played) >= 4
    for turn, call in enumerate(played):
        if turn % 2:
            assert call.status is CallStatus.HTTP_STATUS and call.http_status == 503
            assert call.move == played[turn - 1].move
        else:
            assert call.status is CallStatus.OK


def test_long_shouts_are_cut_to_256(servers: SnakeServers) -> None:
    servers.received.clear()
    record = play([servers.url("longshout"), servers.url("good")], seed=4)
    loud = record.snakes[0].id
    assert len(record.turns[0].calls[loud].shout) == 256
    second = servers.bodies("good", "move")[1]
    view = next(s for s in second["board"]["snakes"] if s["id"] == loud)
    assert view["shout"] == "x" * 256


def test_start_errors_are_recorded_not_fatal(servers: SnakeServers) -> None:
    record = play([servers.url("startfail"), servers.url("good")], seed=8)
    assert record.start[record.snakes[0].id].status is CallStatus.HTTP_STATUS
    assert record.start[record.snakes[1].id].ok
    assert record.turns[0].calls[record.snakes[0].id].ok


@pytest.mark.parametrize("api", [2017, 2018])
def test_legacy_snakes_play(servers: SnakeServers, api: int) -> None:
    name = f"legacy{api}"
    servers.received.clear()
    record = play([f"legacy{api}:{servers.url(name)}", servers.url("good")], seed=21)
    legacy = record.snakes[0]
    assert legacy.source == f"legacy{api}:{servers.url(name)}"
    assert legacy.color == "#aabbcc" and legacy.head == "fang" and legacy.tail == "curled"
    start = servers.bodies(name, "start")[0]
    assert set(start) == {"game_id", "width", "height"}
    moves = servers.bodies(name, "move")
    assert moves
    for body in moves:
        turn = body["turn"]
        state = record.initial if turn == 0 else record.turns[turn - 1].after
        me = state.snake(legacy.id)
        if api == 2018:
            assert body["object"] == "world" and isinstance(body["id"], int)
            assert body["snakes"]["object"] == "list"
            you_body = body["you"]["body"]
            assert you_body["object"] == "list"
            points = [(p["x"], p["y"]) for p in you_body["data"]]
            assert all(p["object"] == "point" for p in you_body["data"])
            assert body["food"]["object"] == "list"
        else:
            assert body["you"] == legacy.id and body["game_id"] == record.id
            you = next(s for s in body["snakes"] if s["id"] == legacy.id)
            points = [tuple(p) for p in you["coords"]]
            assert "health_points" in you
        # Legacy boards count y from the top.
        assert points == [(p.x, state.height - 1 - p.y) for p in me.body]
    calls = [t.calls[legacy.id] for t in record.turns if legacy.id in t.calls]
    assert all(c.ok for c in calls)
    assert calls[0].shout == "taunt 0"
    # The legacy snake's moves are safe in its own coordinates, so it never hits a wall.
    final = record.final_state.snake(legacy.id)
    assert final.eliminated_cause != "wall-collision"


def test_hanging_snake_does_not_slow_another_game(servers: SnakeServers) -> None:
    # Long timeouts: a good snake answers well within them on a busy machine, and a fast
    # game that waited on the other game's hanging snake would take the whole timeout a turn.
    timeout_ms = 3000

    async def run() -> tuple[float, GameRecord]:
        async with new_http_client() as http:
            slow_snakes = await connect(
                [servers.url("hang"), servers.url("good")], [], http, timeout_ms
            )
            fast_snakes = await connect(
                [servers.url("good"), servers.url("good2")], [], http, timeout_ms
            )

            async def timed(snakes: list, seed: int, turns: int) -> tuple[float, GameRecord]:  # type: ignore[type-arg]
                started = time.perf_counter()
                rec = await play_game(
                    GameConfig(settings=Settings.defaults(seed=seed)),
                    snakes,
                    timeout_ms=timeout_ms,
                    max_turns=turns,
                )
                return time.perf_counter() - started, rec

            _, (t_fast, fast) = await asyncio.gather(
                timed(slow_snakes, 1, 3), timed(fast_snakes, 2, 20)
            )
            return t_fast, fast

    t_fast, fast = asyncio.run(run())
    turns = len(fast.turns)
    assert turns >= 5
    # The fast game's turns are bounded by its own snakes (a few ms here), far below the
    # hanging snake's timeout that each turn of the other game waits out.
    assert t_fast / turns < timeout_ms / 1000 / 2, (t_fast, turns)
    assert all(c.ok for t in fast.turns for c in t.calls.values())


def test_unreachable_and_malformed_urls_fail_before_the_game(servers: SnakeServers) -> None:
    sock_port = servers.drop_port + 1  # nothing listens there (very likely)
    with pytest.raises(SnakeUnreachableError, match=rf"127\.0\.0\.1:{sock_port}"):
        play([f"http://127.0.0.1:{sock_port}", servers.url("good")])
    with pytest.raises(SnakeURLError, match="malformed"):
        play(["http://", servers.url("good")])
    with pytest.raises(SnakeSpecError, match="ftp://x"):
        play(["ftp://x"])


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("http://127.0.0.1:1/\x7f", "control"),
        ("http://127.0.0.1:1/a b", "space"),
        ("http://exa\u00efmple.com/", "non-ASCII"),
        ("http://" + "a" * 64 + ".com/", "no DNS name"),
        ("http://" + ".".join(["abcdefgh"] * 30) + "/", "no DNS name"),
        ("http://-bad.com/", "no DNS name"),
        ("http://a..b/", "no DNS name"),
        ("http://user:pw@example.com/", "user name"),
        ("http://example.com:0/", "port 0"),
        ("http://example.com:99999/", "malformed"),
        ("http://[::1x]/", "malformed"),
        ("http://example.com/" + "a" * 2048, "longer than 2048"),
        ("ftp://example.com/", "malformed"),
    ],
)
def test_snake_urls_follow_one_strict_grammar(url: str, why: str) -> None:
    with pytest.raises(SnakeURLError, match=why) as info:
        check_url(url)
    assert len(str(info.value)) < 300  # a long URL is cut, not echoed whole
    assert isinstance(info.value, EntrantError)


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8000",
        "https://snake.example.com/v1/",
        "http://my_snake:8000/",
        "http://[::1]:8000/",
        "http://10.0.0.1/?a=1&b=%20",
        "http://example.com./",
    ],
)
def test_ordinary_snake_urls_pass_the_grammar(url: str) -> None:
    assert check_url(url) == url


def test_sequential_asks_one_snake_after_the_other(servers: SnakeServers) -> None:
    timeout = 1000
    timings = []
    for sequential in (False, True):
        started = time.perf_counter()
        record = play(
            [servers.url("late"), servers.url("hang")],
            timeout_ms=timeout,
            max_turns=2,
            sequential=sequential,
        )
        timings.append((time.perf_counter() - started) / len(record.turns))
    parallel, one_by_one = timings
    # Both snakes time out every turn: in parallel a turn costs one timeout, in sequence two
    # (at least: a busy machine adds to each, so the parallel bound has a margin).
    assert parallel < 1.5 * timeout / 1000 < 2 * timeout / 1000 <= one_by_one + 0.01


def test_duration_sets_a_minimum_turn_time() -> None:
    started = time.perf_counter()
    record = play(["random", "random"], seed=2, max_turns=5, duration_ms=80)
    assert len(record.turns) == 5
    assert time.perf_counter() - started >= 5 * 0.08


def test_the_referees_clients_send_plain_http_through_the_lean_transport() -> None:
    """Local and public clients alike: httpx's own transport cost is counted as the snake's."""
    from snakewar.referee.addresses import AddressPolicy
    from snakewar.referee.http11 import Http11Transport
    from snakewar.referee.outbound import PolicyTransport

    async def check() -> None:
        async with new_http_client() as local:
            assert isinstance(local._transport, Http11Transport)
        async with new_http_client(AddressPolicy(public_only=True)) as public:
            policy = public._transport
            assert isinstance(policy, PolicyTransport)
            assert isinstance(policy._inner, Http11Transport)

    asyncio.run(check())
