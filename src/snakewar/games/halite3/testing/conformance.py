"""A shipped conformance checker: replay official-engine recordings and compare every field.

The recordings are the ``halite3-oracle/1`` JSON Lines files (see the conformance
README): a header (seed, size, constants, initial map, shipyards), one record per turn
(the raw command lines and everything that happened) and a result record.  For each
game :func:`check_halite_game` builds the map from the seed, feeds every turn's recorded
command lines to :class:`~snakewar.games.halite3.rules.game.HaliteGame` and reports each
field that differs.  ``snakewar halite conformance DIR`` runs it from the command line.

Next to ``games/`` a folder may hold each game's ``transcripts/<id>.p0.jsonl.gz`` (the
exact text player 0 received) and ``replays/<id>.hlt`` (the official replay).  When they
are there, every frame the engine would send is compared with the transcript line by
line, in order, and the whole replay document this engine writes with the official one,
every list in order: the official engine writes ships, changed cells, collisions and
``halite_per_dropoff`` in the order of its hash tables, and so must this engine.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snakewar.games.halite3.replay.hlt import read_hlt, replay_document
from snakewar.games.halite3.rules.game import HaliteGame
from snakewar.games.halite3.rules.protocol import frame_text, init_text

__all__ = [
    "GameCheck",
    "Mismatch",
    "check_halite_game",
    "check_records",
    "companion_files",
    "iter_oracle_games",
    "read_oracle",
    "read_transcript",
]


@dataclass(frozen=True, slots=True)
class Mismatch:
    """One recorded field the engine did not reproduce."""

    game_id: str
    turn: int | None
    field: str
    expected: Any
    actual: Any

    def __str__(self) -> str:
        where = f"turn {self.turn}" if self.turn is not None else "result"
        expected = _short(self.expected)
        actual = _short(self.actual)
        return f"{self.game_id} {where}: {self.field} expected {expected}, got {actual}"


@dataclass(frozen=True, slots=True)
class GameCheck:
    """The outcome of checking one recorded game."""

    game_id: str
    turns: int
    mismatches: tuple[Mismatch, ...]
    frames_checked: int = 0
    """Frames compared with player 0's transcript, line by line (0: no transcript)."""
    replay_checked: bool = False
    """Whether the replay document was compared with the official replay."""

    @property
    def ok(self) -> bool:
        """True when every field matched."""
        return not self.mismatches


def _short(value: Any, limit: int = 300) -> str:
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + "..."


def read_oracle(path: str | Path) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """Read one ``games/*.jsonl.gz`` recording: ``(header, turn records, result)``."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    if not records or records[0].get("type") != "header" or records[-1].get("type") != "result":
        raise ValueError(f"{path}: not a halite3-oracle recording (header ... result)")
    return records[0], records[1:-1], records[-1]


def read_transcript(path: str | Path) -> tuple[str, dict[int, str]]:
    """Read one ``transcripts/*.p0.jsonl.gz``: ``(init text, {turn: frame text})``."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        records = [json.loads(line) for line in handle if line.strip()]
    if not records or "init" not in records[0]:
        raise ValueError(f"{path}: not a Halite III transcript (init, then frames)")
    frames = {int(r["t"]): str(r["frame"]) for r in records[1:]}
    return str(records[0]["init"]), frames


def iter_oracle_games(directory: str | Path) -> Iterator[Path]:
    """The recordings under ``directory`` (its ``games/`` folder when it has one), sorted."""
    root = Path(directory)
    games = root / "games" if (root / "games").is_dir() else root
    yield from sorted(games.glob("*.jsonl*"))


def _compare_text(
    out: list[Mismatch], gid: str, turn: int | None, name: str, expected: str, actual: str
) -> None:
    """Compare two protocol texts line by line, in order; report the first difference."""
    if expected == actual:
        return
    want = expected.split("\n")
    got = actual.split("\n")
    for index, (a, b) in enumerate(zip(want, got, strict=False)):
        if a != b:
            out.append(Mismatch(gid, turn, f"{name} line {index + 1}", a, b))
            return
    out.append(Mismatch(gid, turn, f"{name} line count", len(want), len(got)))


def _compare_json(
    out: list[Mismatch], gid: str, turn: int | None, where: str, expected: Any, actual: Any
) -> None:
    """Compare two JSON values, every list in order; report the first differing path."""
    if expected == actual:
        return
    if isinstance(expected, dict) and isinstance(actual, dict):
        for key in sorted(set(expected) | set(actual)):
            if expected.get(key, _MISSING) != actual.get(key, _MISSING):
                _compare_json(out, gid, turn, f"{where}.{key}", expected.get(key), actual.get(key))
                return
    if isinstance(expected, list) and isinstance(actual, list) and len(expected) == len(actual):
        for index, (a, b) in enumerate(zip(expected, actual, strict=True)):
            if a != b:
                _compare_json(out, gid, turn, f"{where}[{index}]", a, b)
                return
    out.append(Mismatch(gid, turn, where, expected, actual))


_MISSING = object()


def _compare_replay(
    out: list[Mismatch], gid: str, official: dict[str, Any], ours: dict[str, Any]
) -> None:
    """Compare our replay document with the official one (all but the wall time)."""
    official = dict(official)
    ours = dict(ours)
    frames_official = official.pop("full_frames", [])
    frames_ours = ours.pop("full_frames", [])
    for document in (official, ours):
        stats = dict(document.get("game_statistics", {}))
        stats.pop("execution_time", None)
        document["game_statistics"] = stats
    _compare_json(out, gid, None, "replay", official, ours)
    if len(frames_official) != len(frames_ours):
        out.append(
            Mismatch(gid, None, "replay.full_frames count", len(frames_official), len(frames_ours))
        )
    for t, (a, b) in enumerate(zip(frames_official, frames_ours, strict=False)):
        before = len(out)
        _compare_json(out, gid, t, f"replay.full_frames[{t}]", a, b)
        if len(out) > before:
            return


def check_records(
    header: dict[str, Any],
    turns: list[dict[str, Any]],
    result: dict[str, Any],
    *,
    transcript: tuple[str, dict[int, str]] | None = None,
    replay: dict[str, Any] | None = None,
) -> GameCheck:
    """Replay one recording through the engine and list every differing field.

    Args:
        header: the recording's header (see :func:`read_oracle`).
        turns: its turn records.
        result: its result record.
        transcript: player 0's transcript (see :func:`read_transcript`): the init text
            and every frame are compared line by line, in order.
        replay: the official replay document: ours must equal it, lists in order.
    """
    gid = str(header.get("game_id", "?"))
    out: list[Mismatch] = []
    frames_checked = 0

    def expect(turn: int | None, name: str, expected: Any, actual: Any) -> None:
        if expected != actual:
            out.append(Mismatch(gid, turn, name, expected, actual))

    def done(turn: int) -> GameCheck:
        return GameCheck(gid, turn, tuple(out), frames_checked, False)

    n = int(header["num_players"])
    game = HaliteGame.create(int(header["seed"]), n, width=header["width"], height=header["height"])
    expect(None, "constants", header["constants"], game.constants.to_json())
    expect(None, "initial_halite", header["initial_halite"], game.initial_halite)
    expect(
        None,
        "shipyards",
        [list(p["shipyard"]) for p in header["players"]],
        [list(p.shipyard) for p in game.players],
    )
    expect(None, "map_total_halite", header["map_total_halite"], game.map_total_halite)
    if out:
        return done(0)
    frames: dict[int, str] = {}
    if transcript is not None:
        init, frames = transcript
        _compare_text(out, gid, None, "init message", init, init_text(game, 0))
    for record in turns:
        t = int(record["t"])
        commands = {int(k): v for k, v in record["commands"].items()}
        if game.over:
            out.append(Mismatch(gid, t, "game over", "turn played", "game already over"))
            break
        if t in frames:
            # What player 0 received at the start of turn t: every line, in order.
            _compare_text(out, gid, t, "frame", frames[t], frame_text(game))
            frames_checked += 1
        outcome = game.step(commands)
        expect(
            t,
            "inspired_at_start",
            sorted(record["inspired_at_start"]),
            list(outcome.inspired_at_start),
        )
        expect(t, "killed", sorted(record["killed"]), sorted(outcome.killed))
        expect(t, "accepted", sorted(record["accepted"]), list(outcome.accepted))
        expect(t, "events", record["events"], [e.to_list() for e in outcome.events])
        # The recording sorts the changed cells; their order is checked in the frames.
        expect(t, "cells", record["cells"], sorted(list(c) for c in outcome.cells))
        expect(t, "ships", record["ships"], [list(s) for s in game.snapshot_ships()])
        expect(
            t,
            "dropoffs",
            record["dropoffs"],
            [[d.id, d.owner, d.x, d.y] for d in game.dropoffs],
        )
        expect(t, "energy", record["energy"], [p.energy for p in game.players])
        expect(t, "deposited", record["deposited"], [p.deposited for p in game.players])
        if out:
            return done(t)
    missing = sorted(set(frames) - {int(r["t"]) for r in turns})
    if missing:
        out.append(Mismatch(gid, missing[0], "frame", "a turn played", "no such turn recorded"))
    if not game.over:
        out.append(
            Mismatch(gid, None, "game over", "game over", f"still running at turn {game.turn}")
        )
        return done(game.turn)
    res = game.result()
    expect(None, "turns_played", result["turns_played"], game.turn)
    expect(None, "number_turns", result["number_turns_engine"], res.number_turns)
    expect(None, "ranks", result["ranks"], list(res.ranks))
    expect(None, "scores", result["scores"], list(res.scores))
    expect(None, "terminated", result["terminated"], list(res.terminated))
    expect(None, "final_inspired", sorted(result["final_inspired"]), list(res.final_inspired))
    for pid in range(n):
        # Warnings and errors the rules raise (timeouts and crashes are worded by the referee).
        expect(
            None,
            f"error_log[{pid}]",
            _log_messages(result.get("error_logs", {}).get(str(pid), "")),
            _log_messages(game.error_logs[pid]),
        )
    for pid, (want, got) in enumerate(
        zip(result["player_statistics"], res.statistics, strict=True)
    ):
        # Every list in order, ``halite_per_dropoff`` (a hash table) included.
        for key in sorted(set(want) | set(got)):
            expect(None, f"player_statistics[{pid}].{key}", want.get(key), got.get(key))
    replay_checked = False
    if replay is not None:
        names = [str(p.get("name", "")) for p in header["players"]]
        _compare_replay(out, gid, replay, replay_document(game, names))
        replay_checked = True
    return GameCheck(gid, game.turn, tuple(out), frames_checked, replay_checked)


_REFEREE_MESSAGES = ("error: timed out", "error: communication error")


def _log_messages(text: str) -> list[str]:
    """The warning and error lines of an error log, in the order logged."""
    return [
        line
        for line in text.splitlines()
        if line.startswith(("error:", "warning:")) and not line.startswith(_REFEREE_MESSAGES)
    ]


def companion_files(path: str | Path) -> tuple[Path, Path]:
    """Where a recording's transcript and official replay lie (they may be missing).

    ``<root>/games/<id>.jsonl.gz`` goes with ``<root>/transcripts/<id>.p0.jsonl.gz`` and
    ``<root>/replays/<id>.hlt``; a recording outside a ``games/`` folder looks for both
    beside itself.
    """
    path = Path(path)
    game_id = path.name.split(".")[0]
    root = path.parent.parent if path.parent.name == "games" else path.parent
    return root / "transcripts" / f"{game_id}.p0.jsonl.gz", root / "replays" / f"{game_id}.hlt"


def check_halite_game(path: str | Path) -> GameCheck:
    """Check one recording file, with its transcript and replay where they are there.

    See :func:`check_records` and :func:`companion_files`.
    """
    transcript_path, replay_path = companion_files(path)
    transcript = read_transcript(transcript_path) if transcript_path.is_file() else None
    replay = read_hlt(replay_path).document if replay_path.is_file() else None
    return check_records(*read_oracle(path), transcript=transcript, replay=replay)
