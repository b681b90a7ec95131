"""The unofficial timing rules (a time bank, retry-once on timeout) against real snakes.

The slow snakes are slow by wide margins (a 200 ms timeout, replies after 600 ms or
3 s), so that a loaded machine cannot turn a kept move into a lost one or back: load
only makes a slow reply later, and a reply that must come in time has a second or more.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from snakewar.adapters import get_game
from snakewar.engine.protocol import Entrant, MatchSpec
from snakewar.games.battlesnake import GameConfig, Settings
from snakewar.games.battlesnake.records import CallStatus, GameRecord, TimingRules
from snakewar.games.battlesnake.referee.clients import new_http_client
from snakewar.games.battlesnake.referee.runner import connect, play_game
from snakewar.games.battlesnake.replay.format import load_replay, replay_lines, write_replay
from snakewar.games.battlesnake.replay.verify import verify_replay

from .snake_servers import FIRST_TRY_S, SLUGGISH_S, SnakeServers

TIMEOUT_MS = 200
RETRY_TIMEOUT_MS = 1000
"""The timeout of the retry test: its second tries, answered at once, have a second."""


@pytest.fixture(scope="module")
def servers() -> Iterator[SnakeServers]:
    with SnakeServers() as running:
        yield running


def play(
    specs: Sequence[str],
    timing: TimingRules | None,
    max_turns: int,
    calls: list[tuple[int, list[dict[str, object]]]] | None = None,
    timeout_ms: int = TIMEOUT_MS,
) -> GameRecord:
    async def on_calls(turn: int, records: list[dict[str, object]]) -> None:
        if calls is not None:
            calls.append((turn, records))

    async def run() -> GameRecord:
        async with new_http_client() as http:
            snakes = await connect(specs, [], http, timeout_ms)
            return await play_game(
                GameConfig(settings=Settings.defaults(seed=3)),
                snakes,
                timeout_ms=timeout_ms,
                max_turns=max_turns,
                timing=timing,
                on_calls=on_calls,
            )

    return asyncio.run(run())


def _moves(record: GameRecord, sid: str) -> list[tuple[CallStatus, int, int | None]]:
    return [
        (t.calls[sid].status, t.calls[sid].latency_ms, t.calls[sid].bank_ms)
        for t in record.turns
        if sid in t.calls
    ]


def test_a_bank_keeps_the_moves_of_a_snake_past_the_timeout(
    servers: SnakeServers, tmp_path: Path
) -> None:
    assert SLUGGISH_S * 1000 > 2 * TIMEOUT_MS
    specs = [servers.url("sluggish"), servers.url("good")]
    servers.received.clear()
    banked = play(specs, TimingRules(time_bank_ms=30_000), max_turns=3)
    slow = banked.snakes[0].id
    moves = _moves(banked, slow)
    assert len(moves) == 3
    bank = 30_000
    for status, latency, left in moves:
        assert status is CallStatus.OK and latency > TIMEOUT_MS
        # What the move took past the timeout came out of the bank, to the millisecond.
        bank -= latency - TIMEOUT_MS
        assert left == bank
    # The snake kept its own moves: what it answered is what it played.
    assert banked.timing == TimingRules(30_000, False)
    # Snakes are told the per-move timeout, never the bank.
    assert {b["game"]["timeout"] for b in servers.bodies("sluggish", "move")} == {TIMEOUT_MS}
    # The fast snake draws nothing from its bank.
    good = banked.snakes[1].id
    assert all(left is not None and left <= 30_000 for _, _, left in _moves(banked, good))

    # Recorded in the replay, read back, and the replay verifies.
    path = write_replay(banked, tmp_path / "banked.jsonl")
    header_line = path.read_text().splitlines()[0]
    assert '"timing":{"timeBank":30000}' in header_line
    replay = load_replay(path)
    assert replay.record.timing == banked.timing
    assert _moves(replay.record, slow) == moves
    assert verify_replay(replay).ok

    # Without a bank, the same snake loses every move to the timeout.
    plain = play(specs, None, max_turns=3)
    lost = _moves(plain, plain.snakes[0].id)
    assert lost and all(s is CallStatus.TIMEOUT and b is None for s, _, b in lost)
    assert all(latency == TIMEOUT_MS for _, latency, _ in lost)
    assert "timing" not in replay_lines(plain, created="")[0]


def test_the_bank_runs_out_then_the_plain_timeout_applies(servers: SnakeServers) -> None:
    # 2000 ms of bank: the first move (about 400 ms over) is kept by a wide margin, and a
    # few moves later it is spent.
    calls: list[tuple[int, list[dict[str, object]]]] = []
    specs = [servers.url("sluggish"), servers.url("good")]
    record = play(specs, TimingRules(2000), 10, calls=calls)
    slow = record.snakes[0].id
    moves = _moves(record, slow)
    assert moves[0][0] is CallStatus.OK
    statuses = [status for status, _, _ in moves]
    assert CallStatus.TIMEOUT in statuses
    first_out = statuses.index(CallStatus.TIMEOUT)
    bank = 2000
    for i, (status, latency, left) in enumerate(moves):
        if i < first_out:
            assert status is CallStatus.OK
            bank -= latency - TIMEOUT_MS
            assert left == bank
        elif i == first_out:
            # It had the timeout plus what was left, and timing out spent the rest.
            assert latency == TIMEOUT_MS + bank and left == 0
        else:
            assert (status, latency, left) == (CallStatus.TIMEOUT, TIMEOUT_MS, 0)
    # The inspector's records give each call's deadline, bank included.
    move_rounds = [records for _, records in calls if records and records[0]["kind"] == "move"]
    timed_out = next(r for r in move_rounds[first_out] if r["snake"] == slow)
    assert timed_out["status"] == "timeout"
    assert timed_out["deadline_ms"] == moves[first_out][1]
    assert timed_out["timeout_ms"] == TIMEOUT_MS
    assert timed_out["bank_ms"] == 0
    first = next(r for r in move_rounds[0] if r["snake"] == slow)
    assert first["deadline_ms"] == TIMEOUT_MS + 2000


def test_retry_once_recovers_a_single_slow_reply(servers: SnakeServers, tmp_path: Path) -> None:
    assert FIRST_TRY_S * 1000 > 2 * RETRY_TIMEOUT_MS
    specs = [servers.url("slowfirst"), servers.url("good")]
    calls: list[tuple[int, list[dict[str, object]]]] = []
    retried = play(
        specs,
        TimingRules(retry_timeout=True),
        max_turns=2,
        calls=calls,
        timeout_ms=RETRY_TIMEOUT_MS,
    )
    sid = retried.snakes[0].id
    for turn in retried.turns:
        call = turn.calls[sid]
        # The first try timed out; the second, the same request, was answered and played.
        assert call.status is CallStatus.OK
        assert call.first_try is not None
        assert call.first_try.status is CallStatus.TIMEOUT
        assert call.first_try.latency_ms == RETRY_TIMEOUT_MS
        assert call.bank_ms is None
        assert turn.calls[retried.snakes[1].id].first_try is None
    # Both tries asked the same turn of the same game.
    bodies = servers.bodies("slowfirst", "move")
    mine = [b for b in bodies if b["game"]["id"] == retried.id]
    assert [b["turn"] for b in mine] == [0, 0, 1, 1]
    assert mine[0] == mine[1]
    # The inspector shows both tries.
    move_round = next(records for _, records in calls if records[0]["kind"] == "move")
    record = next(r for r in move_round if r["snake"] == sid)
    assert record["status"] == "ok"
    assert record["first_try"] == {
        "status": "timeout",
        "latency_ms": RETRY_TIMEOUT_MS,
        "deadline_ms": RETRY_TIMEOUT_MS,
        "error": f"no complete reply within {RETRY_TIMEOUT_MS} ms",
    }

    path = write_replay(retried, tmp_path / "retried.jsonl")
    text = path.read_text()
    assert '"timing":{"retryTimeout":true}' in text.splitlines()[0]
    assert '"retried":{' in text.splitlines()[1]
    replay = load_replay(path)
    assert replay.record.turns[0].calls[sid].first_try == retried.turns[0].calls[sid].first_try
    assert verify_replay(replay).ok

    # Without the retry the same snake loses those moves.
    plain = play(specs, None, max_turns=2, timeout_ms=RETRY_TIMEOUT_MS)
    assert all(t.calls[plain.snakes[0].id].status is CallStatus.TIMEOUT for t in plain.turns)


def test_old_replays_read_with_the_official_timing() -> None:
    lines = [
        '{"format":"snakewar-replay","version":1,"id":"g","config":{"ruleset":"standard",'
        '"map":"empty","width":3,"height":3,"settings":{},"seed":1},"timeout":500,'
        '"snakes":[{"id":"a","name":"a","source":"builtin:random"}],'
        '"initial":{"turn":0,"width":3,"height":3,"food":[],"hazards":[],'
        '"snakes":[{"id":"a","body":[[1,1],[1,1],[1,1]],"health":100}]}}',
    ]
    record = load_replay(lines).record
    assert record.timing == TimingRules() and record.timing.official


@pytest.mark.parametrize(
    ("timing", "problem"),
    [
        ('{"timeBank":-1}', "field 'timing.timeBank': expected an integer >= 0"),
        ('{"retryTimeout":"yes"}', "field 'timing.retryTimeout': expected true or false"),
        ('"fast"', "field 'timing': expected an object"),
    ],
)
def test_a_bad_timing_header_names_the_field(timing: str, problem: str) -> None:
    from snakewar.replay._lines import ReplayError

    line = (
        '{"format":"snakewar-replay","version":1,"id":"g","config":{"ruleset":"standard",'
        '"map":"empty","width":3,"height":3,"settings":{},"seed":1},"timeout":500,'
        f'"timing":{timing},"snakes":[{{"id":"a","name":"a","source":"builtin:random"}}],'
        '"initial":{"turn":0,"width":3,"height":3,"food":[],"hazards":[],'
        '"snakes":[{"id":"a","body":[[1,1],[1,1],[1,1]],"health":100}]}}'
    )
    with pytest.raises(ReplayError, match=problem.replace("(", r"\(")):
        load_replay([line])


def test_a_turn_may_wait_the_timeout_the_bank_left_and_a_retry() -> None:
    # How long the server waits for a paused game to hold (see the stepping tests).
    adapter = get_game("battlesnake")

    def spec(params: dict[str, object], *sources: str, timeout: int | None = 1000) -> MatchSpec:
        entrants = tuple(Entrant(s, f"s{i}") for i, s in enumerate(sources or ("random",) * 2))
        full = adapter.parse_params(params)
        return MatchSpec("battlesnake", entrants, full, timeout_ms=timeout)

    def view(*banks: int | None, dead: int | None = None) -> dict[str, object]:
        death = {"Cause": "wall-collision", "Turn": 3, "EliminatedBy": ""}
        snakes: list[dict[str, object]] = [{"TimeBank": bank, "Death": None} for bank in banks]
        if dead is not None:
            snakes.append({"TimeBank": dead, "Death": death})
        return {"Turn": 4, "Snakes": snakes}

    assert adapter.longest_turn_ms(spec({})) == 1000
    assert adapter.longest_turn_ms(spec({}, timeout=None)) == 500  # the game's own default
    assert adapter.longest_turn_ms(spec({"timeBank": 8000})) == 9000
    assert adapter.longest_turn_ms(spec({"retryTimeout": True})) == 2000
    # A timed-out first try spends the bank: the retry has the timeout alone.
    both = spec({"timeBank": 8000, "retryTimeout": True})
    assert adapter.longest_turn_ms(both) == 10_000
    # The largest bank a snake alive has left, once moves were played.
    assert adapter.longest_turn_ms(both, view(None, None)) == 10_000  # turn 0: all of it
    assert adapter.longest_turn_ms(both, view(3000, 500, dead=7000)) == 5000
    assert adapter.longest_turn_ms(both, view(0, 0)) == 2000
    # Snakes asked in turn wait in turn; a person's seat waits its own time.
    assert adapter.longest_turn_ms(spec({"timeBank": 8000, "sequential": True})) == 18_000
    assert adapter.longest_turn_ms(spec({}, "human?timeout=30000", "random")) == 30_000
