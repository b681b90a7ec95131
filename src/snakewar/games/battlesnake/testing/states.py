"""Check Snakewar's Battlesnake rules against hand-made states run through the official engine.

A states file is gzip JSON Lines, one record per state: ``{"spec": {...}, "go": {...}}``
(``conformance/battlesnake/states/README.md`` of the project's shared material).
``spec`` is one call: ruleset, ``solo``, raw settings, seed, the ``before`` state, the
exact move list (``null`` for none) and, where ``map`` is not empty, the map whose
post-update followed.  ``go`` is what the reference did: ``game_over``, ``error``,
``after_rules``, ``after`` (the map's post-update, then ``Turn+1``) or ``map_error``,
and whether it ``panicked``.  The states are deliberately odd (bodies off the board,
stacked and empty bodies, health out of range, extreme settings), so a state is
built without :meth:`BoardState.validate`, whose limits are for untrusted input.

Every state is checked exactly, list order included (snail_mode's hazards as a
multiset, as the reference builds them from Go map order).  Each state is checked
alone, as the reference ran it in a fresh process: the castle-wall maps' food list
starts in its declared order (:meth:`GameMap.new_process_memory`).

Where the reference panicked, Snakewar's documented behaviour is checked instead:

* ``Execute`` indexing ``Body[0]`` of an alive snake without a body (no moves given
  after turn 0): Snakewar returns the reference's own error for that snake,
  ``snake is length zero``
  (:func:`~snakewar.games.battlesnake.rules.rulesets.eliminate_snakes_standard`);
* ``Execute`` indexing ``Body[-1]`` (constrictor growing a one-segment snake):
  Snakewar grows it to two segments, so every snake ends with two or more
  (:func:`~snakewar.games.battlesnake.rules.rulesets.grow_snakes_constrictor`), unless a
  snake without a body follows, which is ``snake is length zero``;
* a map's post-update panicking (documented on each map): Snakewar's update
  completes;
* any other panic: Snakewar returns a result or one of its rules errors, never
  anything else.

Run it as ``python -m snakewar.games.battlesnake.testing.states DIR_OR_FILE [...]``: the data is
always named (``tests/data/battlesnake/states`` in a clone); there is no default folder.
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
from snakewar.games.battlesnake.rules.maps import get_map
from snakewar.games.battlesnake.rules.rng import go_int
from snakewar.games.battlesnake.rules.rulesets import (
    ERR_ZERO_LENGTH,
    named_ruleset,
    normalize_moves,
)
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState, Snake, points
from snakewar.games.battlesnake.testing.conformance import path_problem

__all__ = [
    "StatesReport",
    "check_paths",
    "check_state",
    "iter_states",
    "state_files",
]

Record = dict[str, Any]

_UNORDERED_HAZARD_MAPS = frozenset({"snail_mode"})
_PANIC_EMPTY_HEAD = "index out of range [0] with length 0"
_PANIC_GROW = "index out of range [-1]"


def state_files(paths: list[Path]) -> list[Path]:
    """Every ``*.jsonl.gz`` states file under the given files and folders, sorted."""
    found: list[Path] = []
    for p in paths:
        if p.is_dir():
            found.extend(sorted(p.rglob("*.jsonl.gz")))
        elif p.exists():
            found.append(p)
    return found


def iter_states(path: Path) -> Iterator[Record]:
    """Yield each ``{"spec", "go"}`` record of one states file.

    Raises:
        ValueError: if a line is not such a record.
    """
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            rec = json.loads(line)
            if not isinstance(rec, dict) or "spec" not in rec or "go" not in rec:
                raise ValueError(f"{path}:{number}: not a states record (spec and go)")
            yield rec


def build_state(data: Record) -> BoardState:
    """The ``before`` state as given: parsed field by field, not validated.

    Raises:
        InvalidStateError: if a field has the wrong type.
    """
    return BoardState(
        turn=data["turn"],
        width=data["width"],
        height=data["height"],
        snakes=tuple(Snake.from_dict(s) for s in data["snakes"]),
        food=points(data["food"]),
        hazards=points(data["hazards"]),
    )


def _canon(state: Record | None, unordered: bool) -> Record | None:
    if state is None:
        return None
    out = {k: state[k] for k in ("turn", "width", "height", "snakes")}
    out["food"] = [list(p) for p in state["food"]]
    hazards = [list(p) for p in state["hazards"]]
    out["hazards"] = sorted(hazards) if unordered else hazards
    return out


def _diff(label: str, ours: Record | None, theirs: Record | None) -> str | None:
    if ours == theirs:
        return None
    if ours is None or theirs is None:
        return f"{label}: ours={'a state' if ours else None} theirs={'a state' if theirs else None}"
    parts = [
        f"{k}: ours={ours[k]!r} theirs={theirs.get(k)!r}" for k in ours if ours[k] != theirs.get(k)
    ]
    return f"{label}: " + "; ".join(parts)[:800]


def _check_panic(sid: str, go: Record, result: BaseException | BoardState) -> str | None:
    """Check Snakewar's documented behaviour where ``Execute`` panicked."""
    text = str(go.get("error") or "")
    if isinstance(result, BaseException):
        reason = getattr(result, "reason", None)
        if not isinstance(result, RulesError):
            return f"{sid}: reference panicked ({text}); ours crashed: {result!r}"
        if _PANIC_EMPTY_HEAD in text and reason != ERR_ZERO_LENGTH:
            return f"{sid}: reference panicked ({text}); expected {ERR_ZERO_LENGTH!r}, got {result}"
        if _PANIC_GROW in text and reason != ERR_ZERO_LENGTH:
            return f"{sid}: reference panicked ({text}); expected a result, got {result}"
        return None
    if _PANIC_EMPTY_HEAD in text:
        return f"{sid}: reference panicked ({text}); expected {ERR_ZERO_LENGTH!r}, got a result"
    if _PANIC_GROW in text:
        short = [s.id for s in result.snakes if len(s.body) < 2]
        if short:
            return f"{sid}: reference panicked ({text}); snakes not grown to 2+: {short}"
    return None


def check_state(rec: Record) -> tuple[str, str | None]:
    """Check one record; returns ``(kind, mismatch or None)``.

    ``kind`` is what was compared: ``"result"``, ``"error"``, ``"map"`` (a result and
    a map update), ``"panic"`` or ``"map-panic"`` (documented behaviour checked).
    """
    spec, go = rec["spec"], rec["go"]
    sid = spec["id"]
    map_id = spec.get("map") or ""
    unordered = map_id in _UNORDERED_HAZARD_MAPS
    settings = Settings(spec["settings"], spec["seed"])
    try:
        ruleset = named_ruleset(spec["ruleset"], settings, solo=spec["solo"])
    except RulesError as exc:
        return "result", f"{sid}: {exc}"
    if list(ruleset.stages) != go["stages"] or ruleset.name != go["ruleset_name"]:
        return "result", f"{sid}: stages {ruleset.name} {ruleset.stages} != {go['stages']}"
    before = build_state(spec["state"])
    moves = normalize_moves([(m["id"], m["move"]) for m in spec["moves"] or ()])

    result: BaseException | BoardState
    try:
        over, result = ruleset.execute(before, moves)
    except Exception as exc:  # a crash is a finding, not a test error
        result = exc
    if go["panicked"]:
        return "panic", _check_panic(sid, go, result)
    if isinstance(result, BaseException):
        if not isinstance(result, StepError):
            return "error", f"{sid}: raised {result!r}, expected {go['error']!r}"
        if result.reason != go["error"]:
            return "error", f"{sid}: raised {result.reason!r}, expected error {go['error']!r}"
        return "error", None
    if go["error"] is not None:
        return "error", f"{sid}: no error, expected {go['error']!r}"
    if over != go["game_over"]:
        return "result", f"{sid}: game_over {over} != {go['game_over']}"
    msg = _diff(
        f"{sid} after_rules",
        _canon(result.to_dict(), unordered),
        _canon(go["after_rules"], unordered),
    )
    if msg is not None:
        return "result", msg
    map_error = go.get("map_error")
    if go.get("after") is None and map_error is None:
        return "result", None

    game_map = get_map(map_id)
    edit = MutableBoard.from_state(result)
    try:
        game_map.update_board(result, settings, edit, game_map.new_process_memory())
    except Exception as exc:  # a crash is a finding, not a test error
        if map_error is None:
            return "map", f"{sid}: map {map_id} raised {exc!r}"
        if "panicked" in map_error:
            return "map-panic", f"{sid}: map {map_id} panicked in Go ({map_error}); ours: {exc!r}"
        reason = getattr(exc, "reason", str(exc))
        if not isinstance(exc, RulesError) or not map_error.endswith(reason):
            return "map", f"{sid}: map {map_id} raised {exc!r}, expected {map_error!r}"
        return "map", None
    if map_error is not None:
        if "panicked" in map_error:
            return "map-panic", None
        return "map", f"{sid}: map {map_id} went on, expected {map_error!r}"
    edit.turn = go_int(edit.turn + 1)
    return "map", _diff(
        f"{sid} after ({map_id})",
        _canon(edit.freeze().to_dict(), unordered),
        _canon(go["after"], unordered),
    )


@dataclass
class StatesReport:
    """Counts of what was compared, and every mismatch found."""

    kinds: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        """The number of states checked."""
        return sum(self.kinds.values())

    def add(self, rec: Record) -> None:
        """Check one record and count it."""
        kind, failure = check_state(rec)
        self.kinds[kind] += 1
        if failure is not None:
            self.failures.append(failure)

    def summary(self) -> str:
        """One line: states checked by kind, and the mismatches."""
        kinds = ", ".join(f"{n} {k}" for k, n in sorted(self.kinds.items()))
        return f"{self.total} states ({kinds}), {len(self.failures)} mismatches"


def check_paths(paths: list[Path]) -> StatesReport:
    """Check every state in the given files and folders.

    Args:
        paths: the states files and folders to check (at least one).

    Raises:
        ValueError: if ``paths`` is empty.
    """
    if not paths:
        raise ValueError("no states given: name the files or folders to check")
    report = StatesReport()
    for path in state_files(paths):
        for rec in iter_states(path):
            report.add(rec)
    return report


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point; returns the exit status (2: no data or a missing path)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "paths", nargs="*", type=Path, help="states files or folders (at least one)"
    )
    parser.add_argument("--show", type=int, default=20, help="mismatches to print")
    args = parser.parse_args(argv)
    problem = path_problem(args.paths, "states", "tests/data/battlesnake/states")
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    report = check_paths(args.paths)
    for line in report.failures[: args.show]:
        print(line)
    print(report.summary())
    return 1 if report.failures or not report.total else 0


if __name__ == "__main__":
    sys.exit(main())
