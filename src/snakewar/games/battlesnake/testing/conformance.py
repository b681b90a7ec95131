"""Check Snakewar's Battlesnake engine against games recorded from the official engine.

The data format is described in ``conformance/battlesnake/README.md`` of the
project's shared material: gzip JSON Lines with one ``game`` header, its ``turn``
records and one ``end`` record per game.  For each game this checks:

* the ruleset's stage list and name against the header;
* ``setup`` from seed, size and snake ids (except the setup food of the
  rivers/islands maps, which the reference itself draws from Go map order);
* ``init`` (the initialization call) and ``init_game_over``;
* for every turn record, starting from its ``before``: ``game_over``, ``error``
  and ``after_rules`` from ``Ruleset.execute``, then ``after`` from the map's
  post-update and ``turn + 1``.  Everything is compared exactly, list order
  included, except snail_mode's hazards, which are compared as a multiset (the
  reference builds them from Go map iteration).

Run it as ``python -m snakewar.games.battlesnake.testing.conformance DIR_OR_FILE [...]``: the data
is always named (``tests/data/battlesnake/public`` in a clone); there is no default folder.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snakewar.errors import RulesError, StepError
from snakewar.games.battlesnake.rules.board import MutableBoard
from snakewar.games.battlesnake.rules.game import setup_board
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.rng import go_int
from snakewar.games.battlesnake.rules.rulesets import named_ruleset, normalize_moves
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState

__all__ = [
    "ConformanceReport",
    "check_battlesnake_game",
    "check_paths",
    "iter_games",
    "path_problem",
]

_UNORDERED_HAZARD_MAPS = frozenset({"snail_mode"})
_UNREPRODUCIBLE_SETUP_FOOD = frozenset(
    {
        "hz_rivers_bridges",
        "hz_rivers_bridges_lg",
        "hz_rivers_bridges_xl",
        "hz_islands_bridges",
        "hz_islands_bridges_lg",
    }
)

Record = dict[str, Any]


def data_files(paths: list[Path]) -> list[Path]:
    """Every game-record file under the given files and folders, sorted.

    In a folder, a game-record file is a ``*.jsonl.gz`` whose first record is a
    ``game`` header; other data kept beside the games (the hand-made states, say) is
    left out.  A file named directly is always taken.
    """
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(f for f in sorted(p.rglob("*.jsonl.gz")) if _holds_games(f))
        elif p.exists():
            found.append(p)
    return found


def path_problem(paths: list[Path], what: str, example: str) -> str | None:
    """Why a checker's command line cannot run on ``paths`` (``None``: it can).

    The checkers read only what they are given: no paths, or one that does not exist, is
    said in one line rather than checked as an empty set.
    """
    if not paths:
        return f"no {what} given: name the files or folders to check (e.g. {example})"
    for path in paths:
        if not path.exists():
            return f"{str(path)!r} does not exist"
    return None


def _holds_games(path: Path) -> bool:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        first = f.readline()
    try:
        record = json.loads(first)
    except ValueError:
        return False
    return isinstance(record, dict) and record.get("kind") == "game"


def iter_games(path: Path) -> Iterator[tuple[Record, list[Record], Record]]:
    """Yield ``(header, turns, end)`` for each game in one data file.

    Raises:
        ValueError: if the file is not in the expected shape.
    """
    header: Record | None = None
    turns: list[Record] = []
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            rec = json.loads(line)
            kind = rec.get("kind")
            if kind == "game":
                if header is not None:
                    raise ValueError(f"{path}:{number}: game header inside game")
                header, turns = rec, []
            elif kind == "turn" and header is not None:
                turns.append(rec)
            elif kind == "end" and header is not None:
                yield header, turns, rec
                header, turns = None, []
            else:
                raise ValueError(f"{path}:{number}: unexpected record kind {kind!r}")
    if header is not None:
        raise ValueError(f"{path}: file ends inside game {header.get('game_id')!r}")


def _canon(state: Record | None, unordered_hazards: bool) -> Record | None:
    if state is None:
        return None
    out = {k: state[k] for k in ("turn", "width", "height", "food", "hazards", "snakes")}
    out["food"] = [list(p) for p in out["food"]]
    out["hazards"] = [list(p) for p in out["hazards"]]
    if unordered_hazards:
        out["hazards"] = sorted(out["hazards"])
    return out


def _diff(label: str, ours: Record | None, theirs: Record | None) -> str | None:
    if ours == theirs:
        return None
    if ours is None or theirs is None:
        has = "a state" if ours is not None else "none"
        expected = "a state" if theirs is not None else "none"
        return f"{label}: ours has {has}, the reference has {expected}"
    parts = [
        f"{k}: ours={ours[k]!r} theirs={theirs[k]!r}" for k in ours if ours[k] != theirs.get(k)
    ]
    return f"{label}: " + "; ".join(parts)[:600]


@dataclass
class ConformanceReport:
    """Counts of what was compared, and every mismatch found."""

    records: Counter[tuple[str, str]] = field(default_factory=Counter)
    games: Counter[tuple[str, str]] = field(default_factory=Counter)
    setups: int = 0
    failures: list[str] = field(default_factory=list)

    @property
    def total_records(self) -> int:
        """The number of turn records compared."""
        return sum(self.records.values())

    def summary(self) -> str:
        """A table of records compared per (ruleset, map), then the totals."""
        lines = [f"{'ruleset':<22}{'map':<24}{'games':>6}{'records':>9}"]
        for key in sorted(self.records.keys() | self.games.keys()):
            lines.append(f"{key[0]:<22}{key[1]:<24}{self.games[key]:>6}{self.records[key]:>9}")
        lines.append(
            f"total: {sum(self.games.values())} games, {self.setups} setups, "
            f"{self.total_records} turn records, {len(self.failures)} mismatches"
        )
        return "\n".join(lines)


def check_battlesnake_game(
    header: Record, turns: list[Record], end: Record, report: ConformanceReport
) -> None:
    """Check one recorded game, adding counts and mismatches to ``report``."""
    gid = header["game_id"]
    map_id = header["map"]
    key = (header["ruleset"], map_id)
    report.games[key] += 1
    unordered = map_id in _UNORDERED_HAZARD_MAPS
    settings = Settings(header["settings"], header["seed"])
    fail = report.failures.append
    try:
        ruleset = named_ruleset(header["ruleset"], settings, solo=header["solo"])
        game_map = get_map(map_id)
    except RulesError as exc:
        fail(f"{gid}: {exc}")
        return
    if list(ruleset.stages) != header["stages"]:
        fail(f"{gid}: stages {ruleset.stages} != {header['stages']}")
    if ruleset.name != header["ruleset_name"]:
        fail(f"{gid}: ruleset name {ruleset.name!r} != {header['ruleset_name']!r}")

    if header.get("setup") is not None:
        report.setups += 1
        try:
            setup = setup_board(
                game_map, settings, header["width"], header["height"], header["snake_ids"]
            ).to_dict()
        except RulesError as exc:
            fail(f"{gid} setup: raised {exc}")
        else:
            expected = _canon(header["setup"], unordered)
            ours = _canon(setup, unordered)
            if map_id in _UNREPRODUCIBLE_SETUP_FOOD and ours and expected:
                ours["food"] = expected["food"] = None
            if (msg := _diff(f"{gid} setup", ours, expected)) is not None:
                fail(msg)
        try:
            over, init = ruleset.execute(BoardState.from_dict(header["setup"]), ())
        except RulesError as exc:
            fail(f"{gid} init: raised {exc}")
        else:
            if over != header["init_game_over"]:
                fail(f"{gid} init: game_over {over} != {header['init_game_over']}")
            if (
                msg := _diff(
                    f"{gid} init",
                    _canon(init.to_dict(), unordered),
                    _canon(header["init"], unordered),
                )
            ) is not None:
                fail(msg)

    # Records of a game come in order, so maps that remember earlier turns (castle
    # wall) get one memory per game, as in a real game.
    memory = game_map.new_memory()
    for rec in turns:
        report.records[key] += 1
        label = f"{gid} turn {rec['turn']}"
        before = BoardState.from_dict(rec["before"])
        try:
            over, after_rules = ruleset.execute(
                before, normalize_moves([(m["id"], m["move"]) for m in rec["moves"]])
            )
        except StepError as exc:
            if rec["error"] != exc.reason:
                fail(f"{label}: raised {exc.reason!r}, expected error {rec['error']!r}")
            continue
        if rec["error"] is not None and rec["after_rules"] is None:
            fail(f"{label}: no error, expected {rec['error']!r}")
            continue
        if over != rec["game_over"]:
            fail(f"{label}: game_over {over} != {rec['game_over']}")
        if (
            msg := _diff(
                f"{label} after_rules",
                _canon(after_rules.to_dict(), unordered),
                _canon(rec["after_rules"], unordered),
            )
        ) is not None:
            fail(msg)
            continue
        if rec["after"] is None:
            continue
        edit = MutableBoard.from_state(after_rules)
        try:
            game_map.update_board(after_rules, settings, edit, memory)
        except RulesError as exc:
            fail(f"{label} after: map raised {exc}")
            continue
        edit.turn = go_int(edit.turn + 1)
        if (
            msg := _diff(
                f"{label} after",
                _canon(edit.freeze().to_dict(), unordered),
                _canon(rec["after"], unordered),
            )
        ) is not None:
            fail(msg)


def check_paths(
    paths: list[Path], only_map: str | None = None, only_ruleset: str | None = None
) -> ConformanceReport:
    """Check every game in the given files and folders.

    Args:
        paths: the game-record files and folders to check (at least one).
        only_map: check only the games on this map.
        only_ruleset: check only the games of this ruleset.

    Raises:
        ValueError: if ``paths`` is empty.
    """
    if not paths:
        raise ValueError("no conformance data given: name the files or folders to check")
    report = ConformanceReport()
    for path in data_files(paths):
        for header, turns, end in iter_games(path):
            if only_map and header["map"] != only_map:
                continue
            if only_ruleset and header["ruleset"] != only_ruleset:
                continue
            check_battlesnake_game(header, turns, end, report)
    return report


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (2: no data or a missing path)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "paths", nargs="*", type=Path, help="game-record files or folders (at least one)"
    )
    parser.add_argument("--map", dest="only_map")
    parser.add_argument("--ruleset", dest="only_ruleset")
    parser.add_argument("--show", type=int, default=20, help="mismatches to print")
    args = parser.parse_args(argv)
    problem = path_problem(args.paths, "recorded games", "tests/data/battlesnake/public")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    report = check_paths(args.paths, args.only_map, args.only_ruleset)
    for line in report.failures[: args.show]:
        print(line)
    print(report.summary())
    return 1 if report.failures or not report.total_records else 0


if __name__ == "__main__":
    sys.exit(main())
