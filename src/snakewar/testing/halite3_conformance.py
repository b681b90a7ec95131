"""A shipped conformance checker: replay official-engine recordings and compare every field.

The recordings are the ``halite3-oracle/1`` JSON Lines files (see the conformance
README): a header (seed, size, constants, initial map, shipyards), one record per turn
(the raw command lines and everything that happened) and a result record.  For each
game :func:`check_halite_game` builds the map from the seed, feeds every turn's recorded
command lines to :class:`~snakewar.games.halite3.game.HaliteGame` and reports each
field that differs.  ``snakewar halite conformance DIR`` runs it from the command line.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snakewar.games.halite3.game import HaliteGame

__all__ = [
    "GameCheck",
    "Mismatch",
    "check_halite_game",
    "check_records",
    "iter_oracle_games",
    "read_oracle",
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


def iter_oracle_games(directory: str | Path) -> Iterator[Path]:
    """The recordings under ``directory`` (its ``games/`` folder when it has one), sorted."""
    root = Path(directory)
    games = root / "games" if (root / "games").is_dir() else root
    yield from sorted(games.glob("*.jsonl*"))


def _events(events: list[list[Any]]) -> tuple[list[Any], list[Any]]:
    """Split events into the ordered part and collisions (compared as a set)."""
    ordered = [e for e in events if e[0] != "collision"]
    collisions = sorted([e[1], e[2], sorted(e[3])] for e in events if e[0] == "collision")
    return ordered, collisions


def check_records(
    header: dict[str, Any], turns: list[dict[str, Any]], result: dict[str, Any]
) -> GameCheck:
    """Replay one recording through the engine and list every differing field."""
    gid = str(header.get("game_id", "?"))
    out: list[Mismatch] = []

    def expect(turn: int | None, name: str, expected: Any, actual: Any) -> None:
        if expected != actual:
            out.append(Mismatch(gid, turn, name, expected, actual))

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
        return GameCheck(gid, 0, tuple(out))
    for record in turns:
        t = int(record["t"])
        commands = {int(k): v for k, v in record["commands"].items()}
        if game.over:
            out.append(Mismatch(gid, t, "game over", "turn played", "game already over"))
            break
        outcome = game.step(commands)
        expect(
            t,
            "inspired_at_start",
            sorted(record["inspired_at_start"]),
            list(outcome.inspired_at_start),
        )
        expect(t, "killed", sorted(record["killed"]), sorted(outcome.killed))
        expect(t, "accepted", sorted(record["accepted"]), list(outcome.accepted))
        expected_ordered, expected_collisions = _events(record["events"])
        actual_ordered, actual_collisions = _events([e.to_list() for e in outcome.events])
        expect(t, "events", expected_ordered, actual_ordered)
        expect(t, "collisions", expected_collisions, actual_collisions)
        expect(t, "cells", record["cells"], [list(c) for c in outcome.cells])
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
            return GameCheck(gid, t, tuple(out))
    if not game.over:
        out.append(
            Mismatch(gid, None, "game over", "game over", f"still running at turn {game.turn}")
        )
        return GameCheck(gid, game.turn, tuple(out))
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
        want = dict(want)
        want["halite_per_dropoff"] = sorted(
            ([d["x"], d["y"]], v) for d, v in want["halite_per_dropoff"]
        )
        got = dict(got)
        got["halite_per_dropoff"] = sorted(
            ([d["x"], d["y"]], v) for d, v in got["halite_per_dropoff"]
        )
        for key in sorted(set(want) | set(got)):
            expect(None, f"player_statistics[{pid}].{key}", want.get(key), got.get(key))
    return GameCheck(gid, game.turn, tuple(out))


_REFEREE_MESSAGES = ("error: timed out", "error: communication error")


def _log_messages(text: str) -> list[str]:
    """The sorted warning and error lines of an error log (the engine orders some by hash)."""
    return sorted(
        line
        for line in text.splitlines()
        if line.startswith(("error:", "warning:")) and not line.startswith(_REFEREE_MESSAGES)
    )


def check_halite_game(path: str | Path) -> GameCheck:
    """Check one recording file (see :func:`check_records`)."""
    return check_records(*read_oracle(path))
