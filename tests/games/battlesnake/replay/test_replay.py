"""Replay files: Snakewar's format, verification, the official CLI's JSONL, ``snakewar replay``."""

from __future__ import annotations

import copy
import dataclasses
import gzip
import io
import json
import re
import sys
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.bots.random_safe import RandomSafeBot
from snakewar.games.battlesnake.records import (
    CallOutcome,
    CallStatus,
    GameRecord,
    SnakeEntry,
    TurnRecord,
    derive_ids,
)
from snakewar.games.battlesnake.replay.format import (
    FORMAT_VERSION,
    load_replay,
    read_replay,
    replay_digest,
    replay_lines,
    write_replay,
)
from snakewar.games.battlesnake.replay.official import (
    official_jsonl_lines,
    read_official_jsonl,
    sniff_replay,
    write_official_jsonl,
)
from snakewar.games.battlesnake.replay.verify import verify_replay
from snakewar.games.battlesnake.rules.wire import GameInfo, SnakeRequest
from snakewar.replay import ReplayError

# -- games to record ----------------------------------------------------------------------

Latency = Callable[[int, int], int]


def play(
    seed: int,
    snakes: int = 4,
    *,
    ruleset: str = "standard",
    map_id: str = "standard",
    size: int = 11,
    max_turns: int | None = None,
    latency: Latency = lambda turn, seat: 3 + (turn * 7 + seat) % 40,
    timeouts: bool = True,
) -> GameRecord:
    """Referee a game of RandomSafeBots in-process, recording it as the referee does.

    With ``timeouts``, seat 0 misses every 9th turn: its call is a timeout and it
    plays its last valid move (``up`` at first), as the official engine does.
    """
    config = GameConfig(
        ruleset=ruleset, map=map_id, width=size, height=size, settings=Settings.defaults(seed)
    )
    game_id, ids = derive_ids(seed, snakes)
    game = Game(config, ids)
    info = GameInfo(game_id, ruleset, "v1.2.3", config.settings, map_id, 500, "")
    bot = RandomSafeBot()
    entries = [
        SnakeEntry(sid, f"snake {i + 1}", "builtin:random", author="tests", color="#12ab34")
        for i, sid in enumerate(ids)
    ]
    record = GameRecord(
        id=game_id,
        config=config,
        timeout_ms=500,
        snakes=entries,
        initial=game.state,
        start={sid: CallOutcome(latency_ms=latency(0, i)) for i, sid in enumerate(ids)},
        source="tests",
    )
    last_move = dict.fromkeys(ids, "up")
    reason = "game_over"
    while not game.is_over:
        state = game.state
        if max_turns is not None and state.turn >= max_turns:
            reason = "max_turns"
            break
        board = state.replace(snakes=state.alive_snakes)
        calls = {}
        for sid in game.alive_ids():
            seat = ids.index(sid)
            if timeouts and seat == 0 and state.turn % 9 == 4:
                calls[sid] = CallOutcome(
                    CallStatus.TIMEOUT, 500, None, "no reply within 500 ms", last_move[sid]
                )
                continue
            move = bot.move(SnakeRequest(info, state.turn, board, state.snake(sid), {}))
            shout = f"turn {state.turn}!" if (state.turn + seat) % 5 == 0 else ""
            calls[sid] = CallOutcome(CallStatus.OK, latency(state.turn, seat), 200, "", move, shout)
            last_move[sid] = move
        step = game.step({sid: call.move for sid, call in calls.items()})
        assert step.after is not None
        record.turns.append(TurnRecord(state.turn, calls, step.after))
    record.result = game.result(reason)
    record.end = {sid: CallOutcome(latency_ms=2, http_status=200) for sid in ids}
    return record


@cache
def _standard() -> GameRecord:
    return play(48)


def standard() -> GameRecord:
    """A fresh copy of a 4-snake standard game (seed 48, 77 turns), safe to change.

    Its first snake is eliminated on turn 50: the official JSONL then shows it as
    ``you`` while it is off the board.
    """
    return copy.deepcopy(_standard())


def lines_of(record: GameRecord) -> list[str]:
    return replay_lines(record, created="2025-01-31T12:00:00Z")


def edit(lines: list[str], index: int, change: Callable[[dict[str, Any]], None]) -> list[str]:
    """Return ``lines`` with line ``index`` decoded, changed and encoded again."""
    index %= len(lines)
    obj = json.loads(lines[index])
    change(obj)
    return [*lines[:index], json.dumps(obj), *lines[index + 1 :]]


# -- the format ------------------------------------------------------------------------


def test_write_then_read_gives_an_equal_record(tmp_path: Path) -> None:
    record = standard()
    assert record.result is not None and record.turns
    assert any(c.status is CallStatus.TIMEOUT for t in record.turns for c in t.calls.values())
    assert read_replay(lines_of(record)) == record
    for name in ("game.jsonl", "game.jsonl.gz"):
        # A fixed creation time: two clock readings may straddle a second.
        path = write_replay(record, tmp_path / name, created="2025-01-31T12:00:00Z")
        assert read_replay(path) == record
        assert read_replay(str(path)) == record
    raw = (tmp_path / "game.jsonl.gz").read_bytes()
    assert raw[:2] == b"\x1f\x8b"
    assert gzip.decompress(raw) == (tmp_path / "game.jsonl").read_bytes()


def test_lines_have_the_documented_shape() -> None:
    record = standard()
    lines = lines_of(record)
    objs = [json.loads(line) for line in lines]
    assert len(objs) == len(record.turns) + 2
    header, turns, last = objs[0], objs[1:-1], objs[-1]
    assert list(header) == [
        "format",
        "version",
        "game",
        "id",
        "created",
        "snakewar",
        "config",
        "timeout",
        "source",
        "snakes",
        "initial",
        "start",
    ]
    assert (header["format"], header["version"], header["game"]) == (
        "snakewar-replay",
        FORMAT_VERSION,
        "battlesnake",
    )
    assert header["config"] == {
        "ruleset": "standard",
        "map": "standard",
        "width": 11,
        "height": 11,
        "settings": dict(record.config.settings.params),
        "seed": 48,
        "solo": None,
    }
    assert [s["id"] for s in header["snakes"]] == [e.id for e in record.snakes]
    assert header["initial"] == record.initial.to_dict()
    first_id = record.snakes[0].id
    for number, (obj, turn) in enumerate(zip(turns, record.turns, strict=True)):
        assert obj["turn"] == number
        assert {"turn", "moves", "status", "latency", "state"} <= set(obj)
        assert set(obj) <= {"turn", "moves", "status", "latency", "http", "error", "shout", "state"}
        assert obj["moves"] == turn.moves
        assert obj["state"] == turn.after.to_dict()
        assert all(obj.get("shout", {}).values()) and all(obj.get("error", {}).values())
        if turn.calls.get(first_id, CallOutcome()).status is CallStatus.TIMEOUT:
            assert obj["status"][first_id] == "timeout"
            assert first_id not in obj["http"]
            assert obj["error"][first_id] == "no reply within 500 ms"
    assert set(last) == {"result", "end"}
    assert set(last["result"]) == {"winner", "isDraw", "turns", "reason", "digest"}
    assert last["result"]["digest"] == replay_digest(record)


def test_created_is_stamped_unless_left_out() -> None:
    record = standard()
    stamped = json.loads(replay_lines(record)[0])
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamped["created"])
    assert "created" not in json.loads(replay_lines(record, created="")[0])
    replay = load_replay(lines_of(record))
    assert replay.created == "2025-01-31T12:00:00Z" and replay.snakewar_version


def test_help_lists_the_subcommands(cli: Any) -> None:
    status, out, _ = cli("replay", "--help")
    assert status == 0 and "show" in out and "verify" in out


def test_an_unfinished_game_reads_back_marked() -> None:
    record = standard()
    record.turns = record.turns[:10]
    record.result, record.end = None, {}
    lines = lines_of(record)
    assert len(lines) == 11
    replay = load_replay(lines)
    assert not replay.complete and replay.record.result is None
    assert replay.record == record
    assert verify_replay(replay).message.endswith("(unfinished game: no result)")


def test_a_file_cut_while_being_written_is_an_unfinished_game(tmp_path: Path) -> None:
    record = standard()
    text = "".join(line + "\n" for line in lines_of(record))
    cut = text.rindex('{"turn":20,') + 50  # in the middle of the 21st turn line
    path = tmp_path / "cut.jsonl"
    path.write_text(text[:cut], encoding="utf-8")
    replay = load_replay(path)
    assert not replay.complete and replay.cut_line == 22
    assert replay.record.turns == record.turns[:20]
    assert verify_replay(replay).ok
    # The same damage in the middle of the file is an error, not a cut.
    path.write_text(text[:cut] + "\n" + text[cut:], encoding="utf-8")
    with pytest.raises(ReplayError, match=r"cut\.jsonl: line 22: not JSON: "):
        load_replay(path)


def test_the_digest_ignores_timings_statuses_shouts_and_timestamps() -> None:
    record = standard()
    digest = replay_digest(record)
    assert len(digest) == 64 and int(digest, 16) >= 0
    other = play(48, latency=lambda turn, seat: 400 - turn)
    assert other != record and replay_digest(other) == digest
    other.turns = [
        dataclasses.replace(
            turn,
            calls={
                sid: dataclasses.replace(
                    call, status=CallStatus.BAD_JSON, http_status=502, error="x", shout="!"
                )
                for sid, call in turn.calls.items()
            },
        )
        for turn in other.turns
    ]
    other.start = {}
    other.end = {}
    assert replay_digest(other) == digest
    first = lines_of(record)[-1]
    second = replay_lines(other, created="1999-01-01T00:00:00Z")[-1]
    assert json.loads(first)["result"]["digest"] == json.loads(second)["result"]["digest"]
    # What defines the game does count.
    assert replay_digest(play(49)) != digest
    changed = standard()
    changed.snakes[0] = dataclasses.replace(changed.snakes[0], source="https://x.example")
    assert replay_digest(changed) != digest


# -- verification --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("seed", "snakes", "options"),
    [
        (7, 2, {"ruleset": "royale", "map": "royale"}),
        (8, 3, {"ruleset": "wrapped", "map": "hz_spiral"}),
        (9, 1, {"ruleset": "solo", "size": 7}),
        (10, 4, {"ruleset": "constrictor", "size": 7}),
    ],
)
def test_verify_accepts_real_games(seed: int, snakes: int, options: dict[str, Any]) -> None:
    options = dict(options)
    map_id = options.pop("map", "standard")
    record = play(seed, snakes, map_id=map_id, **options)
    report = verify_replay(load_replay(lines_of(record)))
    assert report.ok, report.message
    assert report.message == f"OK: {len(record.turns)} turns, digest {replay_digest(record)}"


def test_verify_accepts_a_game_stopped_at_the_turn_limit() -> None:
    record = play(42, max_turns=20)
    assert record.result is not None and record.result.reason == "max_turns"
    assert len(record.turns) == 20
    assert verify_replay(record).ok
    lines = edit(lines_of(record), -1, lambda o: o["result"].update(reason="game_over"))
    report = verify_replay(load_replay(lines))
    assert report.message == (
        "result: the file says the game is over after turn 20, but by the rules it goes on"
    )


def test_verify_names_a_tampered_state() -> None:
    record = standard()
    sid = record.snakes[2].id
    health = record.turns[10].after.snake(sid).health

    def hurt(obj: dict[str, Any]) -> None:
        for snake in obj["state"]["snakes"]:
            if snake["id"] == sid:
                snake["health"] -= 1

    report = verify_replay(load_replay(edit(lines_of(record), 11, hurt)))
    assert not report.ok and report.turn == 11
    assert report.message == (
        f"turn 11: snake {sid!r} health differs: expected {health} got {health - 1}"
    )


def test_verify_names_a_tampered_move() -> None:
    record = standard()
    turn = record.turns[3]
    sid, move = next(iter(turn.moves.items()))
    other = next(m for m in ("up", "down", "left", "right") if m != move)
    lines = edit(lines_of(record), 4, lambda o: o["moves"].update({sid: other}))
    report = verify_replay(load_replay(lines))
    assert not report.ok and report.turn == 4
    assert report.message.startswith("turn 4: ")
    body = [list(p) for p in turn.after.snake(sid).body]
    wanted = f"snake {sid!r} body differs: expected "
    found = [d for d in report.differences if wanted in d]
    assert found and found[0].endswith(f" got {body}")


def test_verify_names_a_tampered_initial_state_food() -> None:
    record = standard()

    def move_food(obj: dict[str, Any]) -> None:
        obj["initial"]["food"][0][0] += 1

    report = verify_replay(load_replay(edit(lines_of(record), 0, move_food)))
    assert report.turn == 0
    assert report.message.startswith("turn 0: initial state: food differs: expected [[")


def test_verify_checks_the_result_and_the_stored_digest() -> None:
    record = standard()
    assert record.result is not None and record.result.winner is not None
    loser = next(e.id for e in record.snakes if e.id != record.result.winner)
    lines = edit(lines_of(record), -1, lambda o: o["result"].update(winner=loser))
    report = verify_replay(load_replay(lines))
    winner = record.result.winner
    assert report.message == f"result: winner differs: expected {winner!r} got {loser!r}"
    lines = edit(lines_of(record), -1, lambda o: o["result"].update(digest="0" * 64))
    report = verify_replay(load_replay(lines))
    assert report.message == (
        f"digest differs: the file says {'0' * 64}, the game gives {replay_digest(record)}"
    )


def test_verify_notices_turns_after_the_game_ended() -> None:
    record = standard()
    record.turns.append(TurnRecord(record.final_state.turn, {}, record.final_state))
    report = verify_replay(record)
    assert report.message == (
        f"turn {len(record.turns) - 1}: the game is already over by the rules, "
        "yet the file has 1 more turn(s)"
    )


# -- damaged and foreign files --------------------------------------------------------


def _header(change: Callable[[dict[str, Any]], None]) -> list[str]:
    return edit(lines_of(standard()), 0, change)


def _turn(change: Callable[[dict[str, Any]], None]) -> list[str]:
    return edit(lines_of(standard()), 1, change)


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (list, r"^replay is empty \(expected a Snakewar replay"),
        (lambda: ["", "  "], r"^replay is empty"),
        (
            lambda: [*lines_of(standard())[:2], "{oops", *lines_of(standard())[2:]],
            r"^replay: line 3: not JSON: Expecting property name",
        ),
        (
            lambda: ['{"hello": 1}'],
            r"^replay is not a Snakewar replay \(no 'format': 'snakewar-replay' header\); "
            r"official CLI JSONL files .* can be opened with 'snakewar replay FILE'",
        ),
        (lambda: ["[1, 2]"], r"^replay is not a Snakewar replay"),
        (
            lambda: official_jsonl_lines(standard()),
            r"^replay is not a Snakewar replay .*it looks like an official CLI JSONL file",
        ),
        (
            lambda: _header(lambda h: h.update(version=2)),
            r"^replay: replay format version 2 is newer than this Snakewar supports \(version 1,",
        ),
        (
            lambda: _header(lambda h: h.update(version="1")),
            r"^replay: line 1: field 'version': expected a format version \(1\.\.1\), got '1'",
        ),
        (
            lambda: _header(lambda h: h.update(game="halite3")),
            r"^replay: line 1: field 'game': expected 'battlesnake'",
        ),
        (
            lambda: _header(lambda h: h["config"].update(width="11")),
            r"^replay: line 1: field 'config.width': expected an integer >= 1, got '11'",
        ),
        (
            lambda: _header(lambda h: h["config"]["settings"].update(minimumFood=1)),
            r"^replay: line 1: field 'config.settings.minimumFood': expected a string",
        ),
        (
            lambda: _header(lambda h: h.pop("snakes")),
            r"^replay: line 1: field 'snakes' is missing",
        ),
        (
            lambda: _header(lambda h: h["initial"].update(width=0)),
            r"^replay: line 1: field 'initial': board width 0 is out of range",
        ),
        (
            lambda: _header(lambda h: h["snakes"].pop()),
            r"^replay: line 1: field 'initial': its snakes .* are not the header's snakes",
        ),
        (
            lambda: _turn(lambda t: t.update(moves=["up"])),
            r"^replay: line 2: field 'moves': expected an object, got \['up'\]",
        ),
        (
            lambda: _turn(lambda t: t["moves"].update({next(iter(t["moves"])): "north"})),
            r"^replay: line 2: field 'moves\..*': expected one of 'up', 'down', 'left', "
            r"'right', got 'north'",
        ),
        (
            lambda: _turn(lambda t: t["moves"].update(ghost="up")),
            r"^replay: line 2: field 'moves': unknown snake id 'ghost'",
        ),
        (
            lambda: _turn(lambda t: t["status"].update({next(iter(t["status"])): "fine"})),
            r"^replay: line 2: field 'status\..*': expected one of 'ok', 'timeout'",
        ),
        (
            lambda: _turn(lambda t: t["latency"].update({next(iter(t["latency"])): -1})),
            r"^replay: line 2: field 'latency\..*': expected an integer >= 0",
        ),
        (
            lambda: _turn(lambda t: t["latency"].pop(next(iter(t["latency"])))),
            r"^replay: line 2: field 'latency': no entry for ",
        ),
        (
            lambda: _turn(lambda t: t.update(turn=5)),
            r"^replay: line 2: field 'turn': expected 0 \(turns follow one another\), got 5",
        ),
        (
            lambda: _turn(lambda t: t["state"]["snakes"][0].update(body="x")),
            r"^replay: line 2: field 'state': snake .* 'body' must be a list of points",
        ),
        (
            lambda: _turn(lambda t: t.pop("state")),
            r"^replay: line 2: field 'state' is missing",
        ),
        (
            lambda: [*lines_of(standard())[:2], '{"turns": 1}'],
            r"^replay: line 3: expected a turn line \(with 'turn'\) or the result line",
        ),
        (
            lambda: [*lines_of(standard()), lines_of(standard())[1]],
            r"^replay: line \d+: unexpected line after the result line",
        ),
        (
            lambda: edit(lines_of(standard()), -1, lambda r: r["result"].update(isDraw="no")),
            r"^replay: line \d+: field 'result.isDraw': expected true or false, got 'no'",
        ),
        (
            lambda: edit(lines_of(standard()), -1, lambda r: r["result"].update(digest="abc")),
            r"^replay: line \d+: field 'result.digest': expected 64 lowercase hex digits",
        ),
    ],
)
def test_damaged_and_foreign_replays_are_one_clear_error(
    make: Callable[[], list[str]], pattern: str
) -> None:
    with pytest.raises(ReplayError, match=pattern) as info:
        load_replay(make())
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)  # a SnakewarError, also a ValueError


def test_file_errors_name_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "nope.jsonl"
    with pytest.raises(ReplayError, match=r"^replay file '.*nope\.jsonl' does not exist$"):
        read_replay(missing)
    with pytest.raises(ReplayError, match=r"is a directory, not a replay file"):
        read_replay(tmp_path)
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    with pytest.raises(ReplayError, match=r"empty\.jsonl is empty"):
        read_replay(empty)
    binary = tmp_path / "bin.jsonl"
    binary.write_bytes(b"\xff\xfe\x00garbage\n")
    with pytest.raises(ReplayError, match=r"bin\.jsonl: line 1: not UTF-8 text"):
        read_replay(binary)
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(lines_of(standard())) + "\n", encoding="utf-8")
    with pytest.raises(ReplayError, match=r"big\.jsonl: line 1: longer than 1000 bytes; refused"):
        load_replay(big, max_line_bytes=1000)
    with pytest.raises(ReplayError, match=r"big\.jsonl: larger than"):
        load_replay(big, max_file_bytes=20_000)


def test_sniff_tells_the_formats_apart(tmp_path: Path) -> None:
    record = standard()
    ours, theirs = tmp_path / "ours.jsonl", tmp_path / "theirs.jsonl"
    write_replay(record, ours)
    write_official_jsonl(record, theirs)
    assert sniff_replay(ours) == "snakewar"
    assert sniff_replay(theirs) == "official"
    with pytest.raises(ReplayError, match="neither a Snakewar replay"):
        sniff_replay(['{"a": 1}'])


# -- the official CLI's JSONL -------------------------------------------------------


GAME_KEYS = ["id", "ruleset", "map", "timeout", "source"]
SNAKE_KEYS = [
    "id",
    "name",
    "latency",
    "health",
    "body",
    "head",
    "length",
    "shout",
    "squad",
    "customizations",
]


def test_official_jsonl_has_the_cli_shape() -> None:
    record = standard()
    objs = [json.loads(line) for line in official_jsonl_lines(record)]
    assert len(objs) == len(record.turns) + 3
    game, requests, last = objs[0], objs[1:-1], objs[-1]
    assert list(game) == GAME_KEYS
    assert list(game["ruleset"]) == ["name", "version", "settings"]
    assert game["ruleset"]["name"] == "standard" and game["ruleset"]["version"] == "cli"
    assert game["ruleset"]["settings"]["hazardDamagePerTurn"] == 14
    assert (game["id"], game["map"], game["timeout"], game["source"]) == (
        record.id,
        "standard",
        500,
        "",
    )
    states = [record.initial] + [t.after for t in record.turns]
    first = record.snakes[0]
    for turn, (request, state) in enumerate(zip(requests, states, strict=True)):
        assert list(request) == ["game", "turn", "board", "you"]
        assert request["game"] == game and request["turn"] == turn == state.turn
        assert list(request["board"]) == ["height", "width", "snakes", "food", "hazards"]
        alive = [s.id for s in state.snakes if not s.eliminated_cause]
        assert [s["id"] for s in request["board"]["snakes"]] == alive
        for snake in [*request["board"]["snakes"], request["you"]]:
            assert list(snake) == SNAKE_KEYS
            assert isinstance(snake["latency"], str) and int(snake["latency"]) >= 0
            assert snake["customizations"] == {
                "color": "#12ab34",
                "head": "default",
                "tail": "default",
            }
        you = request["you"]
        assert you["id"] == first.id and you["name"] == first.name
        body = [list(p) for p in state.snake(first.id).body]
        assert [[p["x"], p["y"]] for p in you["body"]] == body
    # Latency and shout are those of the reply that led to each frame.
    call = record.turns[4].calls[first.id]
    assert call.status is CallStatus.TIMEOUT
    assert requests[5]["you"]["latency"] == "500"
    turn, sid, shout = next(
        (t.turn, sid, c.shout)
        for t in record.turns
        for sid, c in t.calls.items()
        if c.shout and sid != first.id
    )
    snake = next(s for s in requests[turn + 1]["board"]["snakes"] if s["id"] == sid)
    assert snake["shout"] == shout
    assert record.result is not None and record.result.winner is not None
    assert last == {
        "winnerId": record.result.winner,
        "winnerName": record.snake(record.result.winner).name,
        "isDraw": False,
    }


def test_official_jsonl_without_a_winner_uses_go_zero_values() -> None:
    record = standard()
    assert record.result is not None
    record.result = dataclasses.replace(record.result, winner=None, is_draw=True)
    last = json.loads(official_jsonl_lines(record)[-1])
    assert last == {"winnerId": "", "winnerName": "", "isDraw": True}
    record.result = None
    assert "winnerId" not in official_jsonl_lines(record)[-1]


def test_official_jsonl_reads_back(tmp_path: Path) -> None:
    record = standard()
    path = write_official_jsonl(record, tmp_path / "out.jsonl")
    replay = read_official_jsonl(path)
    assert replay.game.id == record.id and replay.game.ruleset_version == "cli"
    assert replay.game.settings.to_api() == record.config.settings.to_api()
    states = [record.initial] + [t.after for t in record.turns]
    assert [f.turn for f in replay.frames] == [s.turn for s in states]
    for frame, state in zip(replay.frames, states, strict=True):
        assert frame.state == state.replace(snakes=state.alive_snakes)
        assert frame.you.id == record.snakes[0].id
        names = {frame.infos[s.id].name for s in frame.state.snakes}
        assert names <= {e.name for e in record.snakes}
    assert replay.result is not None and record.result is not None
    assert replay.result.winner_id == record.result.winner
    assert replay.cut_line is None


def test_official_jsonl_cut_short_reads_as_unfinished(tmp_path: Path) -> None:
    record = standard()
    text = "".join(line + "\n" for line in official_jsonl_lines(record))
    path = tmp_path / "cut.jsonl"
    path.write_text(text[: text.index('"turn":30,') + 40], encoding="utf-8")
    replay = read_official_jsonl(path)
    assert [f.turn for f in replay.frames] == list(range(30))
    assert replay.result is None and replay.cut_line == 32


@pytest.mark.parametrize(
    ("make", "pattern"),
    [
        (list, r"^replay is empty \(expected an official CLI JSONL file\)"),
        (lambda: ["{x"], r"^replay: line 1: not JSON: "),
        (lambda: ['{"turn": 0}'], r"^replay is not an official CLI JSONL file \(line 1 is not"),
        (
            lambda: lines_of(standard()),
            r"^replay is a Snakewar replay, not an official CLI JSONL file",
        ),
        (
            lambda: edit(official_jsonl_lines(standard()), 2, lambda o: o.pop("board")),
            r"^replay: line 3: board: expected an object, got None",
        ),
        (
            lambda: edit(official_jsonl_lines(standard()), 2, lambda o: o.update(turn=7)),
            r"^replay: line 3: field 'turn': expected 1 \(frames follow one another\), got 7",
        ),
        (
            lambda: edit(official_jsonl_lines(standard()), -1, lambda o: o.update(isDraw=0)),
            r"^replay: line \d+: field 'isDraw': expected true or false, got 0",
        ),
        (
            lambda: [*official_jsonl_lines(standard()), "{}"],
            r"^replay: line \d+: unexpected line after the winner line",
        ),
    ],
)
def test_damaged_official_jsonl_is_one_clear_error(
    make: Callable[[], list[str]], pattern: str
) -> None:
    with pytest.raises(ReplayError, match=pattern):
        read_official_jsonl(make())


# -- the command line ----------------------------------------------------------------


@pytest.fixture
def cli(monkeypatch: pytest.MonkeyPatch) -> Callable[..., tuple[int, str, str]]:
    """Run ``snakewar`` through ``snakewar.cli.main``; returns (status, stdout, stderr)."""
    from snakewar.cli import main

    monkeypatch.setenv("COLUMNS", "120")

    def run(*args: str, stdin: str = "") -> tuple[int, str, str]:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        out, err = io.StringIO(), io.StringIO()
        monkeypatch.setattr(sys, "stdout", out)
        monkeypatch.setattr(sys, "stderr", err)
        status = main(list(args))
        return status, out.getvalue(), err.getvalue()

    return run


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    record = standard()
    return {
        "ours": write_replay(record, tmp_path / "game.jsonl"),
        "gz": write_replay(record, tmp_path / "game.jsonl.gz"),
        "official": write_official_jsonl(record, tmp_path / "official.jsonl"),
    }


def test_show_prints_the_final_frame_and_a_summary(cli: Any, files: dict[str, Path]) -> None:
    record = standard()
    assert record.result is not None and record.result.winner is not None
    last = len(record.turns)
    for args in (("replay", str(files["ours"])), ("replay", "show", str(files["gz"]))):
        status, out, err = cli(*args)
        assert status == 0, err
        assert f"turn {last} (frame {last + 1} of {last + 1})" in out
        assert out.count("(frame ") == 1
        winner = record.snake(record.result.winner)
        assert f"{winner.name} ({winner.id}) was the winner." in out
        assert f"seed 48, {last} turns" in out
        for column in ("name", "length", "health", "move", "status", "latency", "result"):
            assert column in out
        assert "winner" in out and " on turn " in out  # eliminated snakes say how and when


def test_show_one_turn_and_every_turn(cli: Any, files: dict[str, Path]) -> None:
    record = standard()
    status, out, _ = cli("replay", str(files["ours"]), "--turn", "5")
    assert status == 0 and "turn 5 (frame 6 of" in out and out.count("(frame ") == 1
    assert "was the winner" not in out
    status, out, _ = cli("replay", str(files["ours"]), "--all")
    assert status == 0 and out.count("(frame ") == len(record.turns) + 1
    status, out, _ = cli("replay", str(files["ours"]), "--turn", "5", "--color")
    assert status == 0 and "\x1b[" in out and "turn 5 (frame 6 of" in out
    status, _, err = cli("replay", str(files["ours"]), "--turn", "999")
    assert status == 2
    assert err == (
        f"error: turn 999 is not in {str(files['ours'])!r} (it has turns 0..{len(record.turns)})\n"
    )


def test_show_is_interactive_when_asked(cli: Any, files: dict[str, Path]) -> None:
    record = standard()
    script = "\nn\np\n7\nf\nl\nn\nzz\n12345\nq\n"
    status, out, _ = cli("replay", str(files["ours"]), "--interactive", stdin=script)
    assert status == 0
    # (The prompt and the next frame share a line: input() from a pipe echoes no newline.)
    shown = [int(turn) for turn in re.findall(r"turn (\d+) \(frame ", out)]
    last = len(record.turns)
    assert shown == [0, 1, 2, 1, 7, 0, last, last, last, last]
    assert "this is the last frame" in out
    assert "unknown command 'zz'" in out
    assert f"no turn 12345 here (turns 0..{last})" in out
    # End of input quits too.
    status, out, _ = cli("replay", str(files["ours"]), "--interactive", stdin="n\n")
    assert status == 0 and out.count("(frame ") == 2


def test_show_reads_official_jsonl(cli: Any, files: dict[str, Path]) -> None:
    record = standard()
    assert record.result is not None and record.result.winner is not None
    status, out, err = cli("replay", str(files["official"]))
    assert status == 0, err
    assert f"official CLI game {record.id}" in out
    winner = record.snake(record.result.winner)
    assert f"{winner.name} ({winner.id}) was the winner." in out
    assert "eliminated on turn" in out
    status, out, _ = cli("replay", str(files["official"]), "--turn", "1")
    assert status == 0 and "turn 1 (frame 2 of" in out


def test_verify_command(cli: Any, files: dict[str, Path], tmp_path: Path) -> None:
    record = standard()
    status, out, err = cli("replay", "verify", str(files["gz"]))
    assert (status, err) == (0, "")
    assert out == f"OK: {len(record.turns)} turns, digest {replay_digest(record)}\n"
    sid = record.snakes[1].id

    def shift(obj: dict[str, Any]) -> None:
        for snake in obj["state"]["snakes"]:
            if snake["id"] == sid:
                snake["body"][0][1] += 1

    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(edit(lines_of(record), 3, shift)) + "\n", encoding="utf-8")
    status, out, err = cli("replay", "verify", str(bad))
    assert status == 1 and err == ""
    assert out.startswith(f"FAILED: turn 3: snake {sid!r} body differs: expected [[")
    status, _, err = cli("replay", "verify", str(files["official"]))
    assert status == 2 and "records no seed" in err


def _header_then_garbage() -> bytes:
    return (lines_of(standard())[0] + "\n[\n").encode()


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (None, "does not exist"),
        (lambda: b"", "is empty"),
        (lambda: b'{"hello": "world"}\n', "not a replay file of any game; expected a Snakewar"),
        (lambda: b'{"format": "snakewar-replay", "version": 99}\n', "version 99 is newer"),
        (_header_then_garbage, "x.jsonl: line 2: not JSON"),
    ],
)
@pytest.mark.parametrize("command", [(), ("verify",), ("show", "--all")])
def test_bad_files_are_one_error_line(
    cli: Any,
    tmp_path: Path,
    content: Callable[[], bytes] | None,
    needle: str,
    command: tuple[str, ...],
) -> None:
    path = tmp_path / "x.jsonl"
    if content is not None:
        path.write_bytes(content())
    args = ["replay", *command[:1], str(path), *command[1:]]
    status, out, err = cli(*args)
    assert status == 2, (out, err)
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0], err
