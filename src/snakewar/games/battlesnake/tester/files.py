"""Scenario files: your own tester positions, saved from a replay turn, run by ``snakewar test``.

A scenario file is one JSON object::

    {
      "format": "snakewar-scenarios",
      "version": 1,
      "scenarios": [
        {
          "name": "cornered-at-42",           # [A-Za-z0-9][A-Za-z0-9_.-]{0,63}, unique in the file
          "title": "turn 42 of game g1",      # optional, one line of at most 200 characters
          "goal": "survive",                  # or "kill" (then "target": a snake id of the board)
          "kind": "survival",                 # or "strategy"
          "acceptable": ["left", "up"],       # the moves that meet the goal
          "request": {...}                    # the API v1 /move request the tested snake gets
        }
      ]
    }

``request`` is exactly what a snake receives (``game`` with its ruleset, settings and
map, ``turn``, ``board``, ``you``), so a position can be pasted from a snake's own log.
The tested snake is ``you``; the tester sends it under the id ``"you"`` (as in the
built-in scenarios), every other snake keeps its id.

The declared moves are not trusted: :func:`load_scenarios` recomputes them with the rules
engine (:func:`~snakewar.games.battlesnake.tester.scenarios.rules_acceptable_moves`,
the tested snake's move against every combination of the others') and refuses a file
whose ``acceptable`` or ``kind`` is wrong for its position.  ``kind`` is ``survival``
when every other move dies this turn whatever the others do (such a scenario gates the
tester's verdict) and ``strategy`` otherwise (scored).

:func:`turn_scenario` makes a scenario of a replay's turn (``snakewar replay scenario``
and the game page's "Save as test scenario" link).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from snakewar.errors import SnakewarError, WireFormatError, choices_text
from snakewar.games.battlesnake.rules.rulesets import named_ruleset
from snakewar.games.battlesnake.rules.types import BoardState, Snake
from snakewar.games.battlesnake.rules.wire import MOVES, GameInfo, SnakeInfo, SnakeRequest
from snakewar.games.battlesnake.tester.scenarios import (
    KINDS,
    STRATEGY,
    SURVIVAL,
    YOU,
    Scenario,
    rules_acceptable_moves,
)

__all__ = [
    "CATEGORY",
    "FORMAT",
    "GOALS",
    "MAX_FILE_BYTES",
    "MAX_SCENARIOS",
    "MAX_SNAKES",
    "VERSION",
    "ScenarioFileError",
    "TurnScenarioError",
    "classify",
    "entry_of",
    "file_bytes",
    "load_scenarios",
    "merge_entries",
    "turn_scenario",
]

FORMAT = "snakewar-scenarios"
"""The ``format`` field of every scenario file."""
VERSION = 1
"""The version of the format this module reads and writes."""
CATEGORY = "custom"
"""The report category of the scenarios of files."""
GOALS = ("survive", "kill")
"""The goals a scenario may have."""

MAX_FILE_BYTES = 4 * 1024 * 1024
"""The largest scenario file read."""
MAX_SCENARIOS = 500
"""The most scenarios one file may hold."""
MAX_SNAKES = 8
"""The most snakes on a scenario's board: the rules engine plays every combination of
their moves (4**8 turns at most)."""
MAX_TITLE = 200

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
_ENTRY_KEYS = ("name", "title", "goal", "target", "kind", "acceptable", "request")


class ScenarioFileError(SnakewarError, ValueError):
    """Raised for a scenario file that cannot be used: every problem, one line each.

    Attributes:
        problems: one line per bad field, naming the scenario and the field.
    """

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(self.problems))


class TurnScenarioError(SnakewarError, ValueError):
    """Raised for a replay turn that cannot be saved as a scenario (or tests nothing).

    Attributes:
        field: the request field at fault (``turn``, ``snake``, ``name``...), for an API.
    """

    def __init__(self, message: str, field: str = "turn") -> None:
        self.field = field
        super().__init__(message)


# -- the rules engine's verdict -----------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the rules engine says of a position.

    Attributes:
        acceptable: the moves that meet the goal whatever the others do.
        kind: ``survival`` when every other move dies this turn whatever the others
            do, else ``strategy``.
        dying: the moves after which the tested snake dies in every combination.
    """

    acceptable: frozenset[str]
    kind: str
    dying: frozenset[str]


def classify(scenario: Scenario) -> Verdict:
    """The acceptable moves and the kind of ``scenario``, by the rules engine.

    The acceptable moves are :func:`rules_acceptable_moves`'s; a move dies for sure when
    the tested snake is eliminated in every combination of the other snakes' moves.
    """
    acceptable = rules_acceptable_moves(scenario)
    ruleset = named_ruleset(scenario.ruleset, scenario.settings, solo=True)
    state = scenario.state
    others = [s.id for s in state.snakes if s.id != YOU and not s.eliminated_cause]
    dying: set[str] = set()
    for move in MOVES:
        if move in acceptable:
            continue
        for replies in itertools.product(MOVES, repeat=len(others)):
            moves = {YOU: move, **dict(zip(others, replies, strict=True))}
            _, after = ruleset.execute(state, moves)
            if not after.snake(YOU).eliminated_cause:
                break
        else:
            dying.add(move)
    wrong = set(MOVES) - acceptable
    kind = SURVIVAL if wrong <= dying else STRATEGY
    return Verdict(acceptable, kind, frozenset(dying))


# -- entries --------------------------------------------------------------------------------


def entry_of(
    request: SnakeRequest,
    *,
    name: str,
    title: str = "",
    goal: str = "survive",
    target: str = "",
    keep: bool = False,
) -> dict[str, Any]:
    """One scenario file entry for the position ``request`` shows its snake.

    The acceptable moves and the kind come from the rules engine.

    Raises:
        TurnScenarioError: a bad name, title, goal or target, a board with too many
            snakes, or (unless ``keep``) a position where no move or every move meets
            the goal: it tests nothing.
    """
    if not _NAME.match(name):
        raise TurnScenarioError(
            f"scenario name {name!r}: expected letters, digits, '_', '.', '-' "
            "(at most 64, starting with a letter or digit)",
            "name",
        )
    _check_title(title, f"scenario {name!r}")
    if goal not in GOALS:
        raise TurnScenarioError(f"goal {goal!r}: expected one of {choices_text(GOALS)}", "goal")
    raw: dict[str, Any] = {"name": name, "goal": goal}
    if title:
        raw["title"] = title
    if goal == "kill":
        raw["target"] = target
    raw["request"] = request.to_api()
    problems: list[str] = []
    scenario = _scenario(raw, f"scenario {name!r}", problems, declared=False)
    if scenario is None:
        raise TurnScenarioError(problems[0], "title" if "'title'" in problems[0] else "snake")
    verdict = classify(scenario)
    if not keep:
        if not verdict.acceptable and goal == "kill":
            called = request.infos.get(target)
            raise TurnScenarioError(
                f"no move kills {(called.name if called else '') or target} here for certain "
                "(whatever the other snakes do, and surviving): the position tests nothing "
                "(--keep saves it anyway)",
                "kill",
            )
        if not verdict.acceptable:
            raise TurnScenarioError(
                f"no move meets the goal ({goal}) here: the position tests nothing "
                "(--keep saves it anyway)"
            )
        if len(verdict.acceptable) == len(MOVES):
            raise TurnScenarioError(
                f"every move meets the goal ({goal}) here: the position tests nothing "
                "(--keep saves it anyway)"
            )
    out: dict[str, Any] = {"name": name}
    if title:
        out["title"] = title
    out["goal"] = goal
    if goal == "kill":
        out["target"] = target
    out["kind"] = verdict.kind
    out["acceptable"] = sorted(verdict.acceptable, key=MOVES.index)
    out["request"] = raw["request"]
    return out


def file_bytes(entries: Iterable[Mapping[str, Any]]) -> bytes:
    """A scenario file holding ``entries``, as written (indented JSON, one newline at the end)."""
    document = {"format": FORMAT, "version": VERSION, "scenarios": list(entries)}
    return (json.dumps(document, indent=1) + "\n").encode()


def merge_entries(
    existing: bytes | None, entries: Sequence[Mapping[str, Any]], name: str = "scenario file"
) -> bytes:
    """The file ``existing`` (a scenario file, or ``None`` for none) with ``entries`` added.

    Raises:
        ScenarioFileError: ``existing`` is no valid scenario file, or a name is taken.
    """
    kept: list[Mapping[str, Any]] = []
    if existing is not None:
        load_scenarios(existing, name)  # whole-file validation before it grows
        kept = list(json.loads(existing)["scenarios"])
    taken = {str(e["name"]) for e in kept}
    clashes = [str(e["name"]) for e in entries if e["name"] in taken]
    if clashes:
        raise ScenarioFileError(
            [f"{name}: scenario {n!r} is already in the file (give another name)" for n in clashes]
        )
    if len(kept) + len(entries) > MAX_SCENARIOS:
        raise ScenarioFileError([f"{name}: more than {MAX_SCENARIOS} scenarios"])
    return file_bytes([*kept, *entries])


# -- reading ----------------------------------------------------------------------------------


def load_scenarios(data: bytes | str, name: str = "scenario file") -> list[Scenario]:
    """Read and check a scenario file; every scenario's moves proven by the rules engine.

    Args:
        data: the file's contents.
        name: the file's name in error messages.

    Returns:
        The scenarios, in file order (category :data:`CATEGORY`).

    Raises:
        ScenarioFileError: naming every bad field (``NAME: scenario 'x': field: ...``),
            and every scenario whose declared moves or kind are not the rules engine's.
    """
    if len(data) > MAX_FILE_BYTES:
        raise ScenarioFileError(
            [f"{name}: larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB; refused"]
        )
    try:
        document = json.loads(data)
    except (ValueError, RecursionError) as exc:
        raise ScenarioFileError([f"{name}: not JSON ({exc})"]) from None
    if not isinstance(document, dict):
        raise ScenarioFileError([f"{name}: expected a JSON object, got {_short(document)}"])
    if document.get("format") != FORMAT:
        raise ScenarioFileError(
            [f"{name}: field 'format': expected {FORMAT!r}, got {_short(document.get('format'))}"]
        )
    version = document.get("version")
    if version != VERSION or type(version) is not int:
        raise ScenarioFileError(
            [f"{name}: field 'version': expected {VERSION}, got {_short(version)}"]
        )
    extra = sorted(set(document) - {"format", "version", "scenarios"})
    problems: list[str] = [f"{name}: unknown field {k!r}" for k in extra]
    items = document.get("scenarios")
    if not isinstance(items, list):
        raise ScenarioFileError([*problems, f"{name}: field 'scenarios': expected a list"])
    if len(items) > MAX_SCENARIOS:
        raise ScenarioFileError([f"{name}: more than {MAX_SCENARIOS} scenarios"])
    out: list[Scenario] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        label = f"{name}: scenarios[{i}]"
        if isinstance(item, dict) and isinstance(item.get("name"), str):
            label = f"{name}: scenario {item['name']!r}"
            if item["name"] in seen:
                problems.append(f"{label}: field 'name': used twice in the file")
            seen.add(item["name"])
        scenario = _scenario(item, label, problems, declared=True)
        if scenario is not None:
            out.append(scenario)
    if problems:
        raise ScenarioFileError(problems)
    return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_title(title: Any, label: str) -> str | None:
    if not isinstance(title, str):
        return f"{label}: field 'title': expected a string, got {_short(title)}"
    if len(title) > MAX_TITLE or any(ch in title for ch in "\r\n\x00"):
        if len(title) > MAX_TITLE:
            return f"{label}: field 'title': longer than {MAX_TITLE} characters"
        return f"{label}: field 'title': expected one line"
    return None


def _scenario(item: Any, label: str, problems: list[str], *, declared: bool) -> Scenario | None:
    """One entry as a :class:`Scenario`, or ``None`` with its problems appended."""
    start = len(problems)
    if not isinstance(item, dict):
        problems.append(f"{label}: expected an object, got {_short(item)}")
        return None
    problems.extend(f"{label}: unknown field {k!r}" for k in sorted(set(item) - set(_ENTRY_KEYS)))
    name = item.get("name")
    if not isinstance(name, str) or not _NAME.match(name):
        problems.append(
            f"{label}: field 'name': expected letters, digits, '_', '.', '-' (at most 64), "
            f"got {_short(name)}"
        )
    title = item.get("title", "")
    bad_title = _check_title(title, label)
    if bad_title:
        problems.append(bad_title)
        title = ""
    goal = item.get("goal", "survive")
    if goal not in GOALS:
        problems.append(f"{label}: field 'goal': expected one of {choices_text(GOALS)}")
    kind = item.get("kind")
    acceptable = item.get("acceptable")
    if declared:
        if kind not in KINDS:
            problems.append(
                f"{label}: field 'kind': expected one of {choices_text(KINDS)}, got {_short(kind)}"
            )
        if (
            not isinstance(acceptable, list)
            or not all(m in MOVES for m in acceptable)
            or len(set(acceptable)) != len(acceptable)
        ):
            problems.append(
                f"{label}: field 'acceptable': expected a list of distinct moves "
                f"({choices_text(MOVES)}), got {_short(acceptable)}"
            )
    target = item.get("target", "")
    if not isinstance(target, str):
        problems.append(f"{label}: field 'target': expected a snake id, got {_short(target)}")
        target = ""
    try:
        request = SnakeRequest.from_api(item.get("request"))
    except WireFormatError as exc:
        problems.append(f"{label}: field 'request': {exc}")
        return None
    except (ValueError, TypeError, RecursionError) as exc:
        problems.append(f"{label}: field 'request': {exc}")
        return None
    state = request.board
    you = request.you
    if you.id not in {s.id for s in state.snakes}:
        problems.append(f"{label}: field 'request.you': snake {you.id!r} is not on the board")
        return None
    if next(s for s in state.snakes if s.id == you.id).body != you.body:
        problems.append(f"{label}: field 'request.you': not the board's snake {you.id!r}")
        return None
    if len(state.snakes) > MAX_SNAKES:
        problems.append(
            f"{label}: field 'request.board.snakes': more than {MAX_SNAKES} snakes "
            "(the rules engine plays every combination of their moves)"
        )
        return None
    try:
        named_ruleset(request.game.ruleset_name, request.game.settings)
    except SnakewarError as exc:
        problems.append(f"{label}: field 'request.game.ruleset': {exc}")
        return None
    state, ids = _as_tested(state, you.id)
    if goal == "kill":
        if target == you.id or target not in ids:
            others = [sid for sid in ids if sid != you.id]
            problems.append(
                f"{label}: field 'target': expected another snake of the board "
                f"({choices_text(others)}), got {_short(target)}"
            )
        target = ids.get(target, "")
    elif "target" in item:
        problems.append(f"{label}: field 'target': only a 'kill' goal has a target")
    if len(problems) > start:
        return None
    scenario = Scenario(
        id=str(name),
        category=CATEGORY,
        title=title or f"turn {request.turn} ({request.game.ruleset_name})",
        state=state,
        acceptable=frozenset(acceptable or ()) if declared else frozenset(),
        ruleset=request.game.ruleset_name,
        map=request.game.map,
        settings=request.game.settings,
        goal=str(goal),
        target=target,
        kind=str(kind) if declared else SURVIVAL,
    )
    if declared:
        verdict = classify(scenario)
        if verdict.acceptable != scenario.acceptable:
            problems.append(
                f"{label}: field 'acceptable': the rules engine says "
                f"{_moves_text(verdict.acceptable)}, the file {_moves_text(scenario.acceptable)}"
            )
        elif verdict.kind != scenario.kind:
            why = (
                "every other move dies this turn"
                if verdict.kind == SURVIVAL
                else "a wrong move does not always die this turn"
            )
            problems.append(
                f"{label}: field 'kind': the rules engine says {verdict.kind!r} ({why}), "
                f"the file {scenario.kind!r}"
            )
    return scenario if len(problems) == start else None


def _moves_text(moves: Iterable[str]) -> str:
    chosen = sorted(moves, key=MOVES.index)
    return "[" + ", ".join(chosen) + "]" if chosen else "no move"


def _as_tested(state: BoardState, you_id: str) -> tuple[BoardState, dict[str, str]]:
    """``state`` with the tested snake renamed :data:`YOU`; the new id of every old one."""
    ids: dict[str, str] = {}
    taken = {s.id for s in state.snakes}
    snakes: list[Snake] = []
    for snake in state.snakes:
        if snake.id == you_id:
            new = YOU
        elif snake.id == YOU:
            # Another snake called "you": it gets a free name, the tested one takes "you".
            new = next(f"you-{i}" for i in itertools.count(2) if f"you-{i}" not in taken)
            taken.add(new)
        else:
            new = snake.id
        ids[snake.id] = new
        snakes.append(snake._replace(id=new) if new != snake.id else snake)
    return state.replace(snakes=tuple(snakes)), ids


# -- a replay's turn ----------------------------------------------------------------------------


Position = tuple[GameInfo, BoardState, Mapping[str, SnakeInfo]]
"""A replay's turn as its snakes saw it: the game, the board, the snakes' names and looks."""


def turn_request(positions: Sequence[Position], source: str, turn: int, snake: str) -> SnakeRequest:
    """The ``/move`` request snake ``snake`` (an id or a name) got at ``turn`` of a replay.

    Args:
        positions: the replay's turns, turn 0 first (the game's adapter reads the file).
        source: the replay's name in messages.
        turn: the turn.
        snake: the snake's id, or its name.

    Raises:
        TurnScenarioError: no such turn, or no such snake alive then.
    """
    if not 0 <= turn < len(positions):
        raise TurnScenarioError(_no_turn(source, turn, len(positions) - 1))
    game, state, infos = positions[turn]
    alive = [s for s in state.snakes if not s.eliminated_cause]
    chosen = _alive_snake(alive, infos, snake, turn, source, "snake")
    board = state.replace(snakes=tuple(alive))
    return SnakeRequest(game, state.turn, board, chosen, dict(infos))


def _alive_snake(
    alive: Sequence[Snake],
    infos: Mapping[str, SnakeInfo],
    snake: str,
    turn: int,
    source: str,
    field: str,
) -> Snake:
    """The snake of ``alive`` (at ``turn`` of ``source``) whose id, else name, is ``snake``.

    Raises:
        TurnScenarioError: naming ``field``: no such snake, or a name several snakes have.
    """
    role = " to kill" if field == "kill" else ""
    chosen = [s for s in alive if s.id == snake]
    if not chosen:
        chosen = [s for s in alive if infos.get(s.id, SnakeInfo()).name == snake]
    if len(chosen) > 1:
        raise TurnScenarioError(
            f"{len(chosen)} snakes{role} are named {snake!r} at turn {turn}: give the id "
            f"({choices_text(s.id for s in chosen)})",
            field,
        )
    if not chosen:
        shown = [f"{s.id} ({infos.get(s.id, SnakeInfo()).name})" for s in alive]
        raise TurnScenarioError(
            f"no snake {snake!r}{role} alive at turn {turn} of {source} "
            f"(alive: {', '.join(shown) or 'none'})",
            field,
        )
    return chosen[0]


def _no_turn(source: str, turn: int, last: int) -> str:
    return f"turn {turn} is not in {source} (it has turns 0..{last})"


def turn_scenario(
    positions: Sequence[Position],
    source: str,
    *,
    turn: int,
    snake: str,
    name: str | None = None,
    title: str = "",
    keep: bool = False,
    kill: str | None = None,
) -> dict[str, Any]:
    """Turn ``turn`` of a replay (its ``positions``), seen by ``snake``, as one scenario entry.

    The goal is to survive; with ``kill`` (another snake alive then, by id or name) it is
    to kill that snake this turn for certain, surviving (the tester's ``kill`` goal: the
    right moves are those after which the target dies whatever every other snake does).
    The name defaults to ``turn-N-SNAKE`` (``turn-N-SNAKE-kills-TARGET``; made safe); the
    title says where it came from.

    Raises:
        TurnScenarioError: no such turn or snake (``kill`` naming its field), or a
            position that tests nothing (unless ``keep``).
    """
    request = turn_request(positions, source, turn, snake)
    target: Snake | None = None
    if kill is not None:
        others = [s for s in request.board.snakes if s.id != request.you.id]
        target = _alive_snake(others, request.infos, kill, turn, source, "kill")
    if name is None:
        name = f"turn-{turn}-{_safe(snake)}"
        if kill is not None:
            name += f"-kills-{_safe(kill)}"
        name = name[:64].rstrip("-.")
    if not title:
        title = f"turn {turn} of {source[:80]}, {_called(request, request.you.id)}"
        if target is not None:
            title += f" to kill {_called(request, target.id)}"
        title = " ".join(title.split())[:MAX_TITLE]
    if target is None:
        return entry_of(request, name=name, title=title, keep=keep)
    return entry_of(request, name=name, title=title, keep=keep, goal="kill", target=target.id)


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text).strip("-.") or "snake"


def _called(request: SnakeRequest, snake_id: str) -> str:
    info = request.infos.get(snake_id)
    return (info.name if info else "") or snake_id
