"""Snakewar's replay format: one refereed game as JSON Lines.

A replay is UTF-8 JSON Lines (optionally gzip-compressed: a path ending in ``.gz``
is written compressed, and readers detect compression by its magic bytes).  Every
line is one JSON object; points are ``[x, y]`` pairs and board states are
:meth:`BoardState.to_dict <snakewar.games.battlesnake.rules.types.BoardState.to_dict>`
objects (``turn``, ``width``, ``height``, ``food``, ``hazards`` and ``snakes``
with ``id``, ``body``, ``health``, ``eliminated_cause``, ``eliminated_by``,
``eliminated_on_turn``; eliminated snakes stay in the list, in board order).

**Line 1, the header**::

    {"format": "snakewar-replay", "version": 1, "game": GAME_NAME,
     "id": GAME_ID, "created": "2025-01-31T12:00:00Z", "snakewar": "0.1.0",
     "config": {"ruleset": "standard", "map": "standard", "width": 11, "height": 11,
                "settings": {"foodSpawnChance": "15", ...}, "seed": 42, "solo": null},
     "timeout": 500, "source": "",
     "snakes": [{"id", "name", "source", "author", "color", "head", "tail",
                 "version", "apiversion"}, ...],
     "initial": STATE,
     "start": {SNAKE_ID: OUTCOME, ...},
     "forked_from": {"game": GAME_ID, "turn": 40}}

``GAME_NAME`` is the game's registered name (:data:`snakewar.games.battlesnake.NAME`).
``created`` (ISO 8601, UTC) and ``snakewar`` (the writer's version) are optional.
``config.settings`` holds the raw string settings under the rules' names
(:attr:`Settings.params <snakewar.games.battlesnake.rules.settings.Settings.params>`);
``solo`` is ``true``, ``false`` or ``null`` (solo when fewer than two snakes).
``snakes`` are in placement order.  ``initial`` is the turn-0 state, or for a game
played on from a position the state it started from (its ``turn`` may be above 0, and
the turn lines go on from it); such a game's header has ``forked_from``: the game and
turn it came from (``{}`` for a drawn position).  Files without it read as before.
A game refereed under the unofficial timing rules
(:class:`~snakewar.games.battlesnake.records.TimingRules`, not the official rules) has
``"timing": {"timeBank": MS, "retryTimeout": true}`` in its header (either may be
left out: no bank, no retry); without it, the official timing.

**Then one line per turn played**::

    {"turn": 0, "moves": {SNAKE_ID: "up", ...}, "status": {SNAKE_ID: "ok", ...},
     "latency": {SNAKE_ID: 12, ...}, "http": {SNAKE_ID: 500},
     "error": {SNAKE_ID: "text"}, "shout": {SNAKE_ID: "text"}, "state": STATE}

``turn`` is the turn of the state the snakes saw (0 on the first turn line) and
``state`` the state the moves led to (turn ``turn + 1``).  ``moves``, ``status``
(a :class:`~snakewar.games.battlesnake.records.CallStatus` value) and ``latency``
(milliseconds) have one entry per snake asked, in board order; ``moves`` holds
the move *played* (the snake's last valid move when its reply failed).  To keep
lines short, ``http`` lists only the snakes that got an HTTP reply, ``error`` and
``shout`` only non-empty texts, and each of the three is left out when empty.
Under the unofficial timing rules a turn line may also have ``"bank": {SNAKE_ID: MS}``
(each snake's time bank left after its call, with a time bank) and
``"retried": {SNAKE_ID: {"status": "timeout", "latency": MS, "error": TEXT}}`` (the
try that timed out before the one recorded, for the calls retried); so a replay
shows why a move came late and still counted.

**Last, the result line**::

    {"result": {"winner": SNAKE_ID or null, "isDraw": false, "turns": 57,
                "reason": "game_over", "digest": SHA256_HEX},
     "end": {SNAKE_ID: OUTCOME, ...}}

A file without a result line is an unfinished (or cut) game: it still reads,
with ``result`` ``None`` (:attr:`Replay.complete` is false).

``OUTCOME`` (``/start`` and ``/end`` calls) is ``{"status": "ok", "latency": 3}``
plus ``http``, ``error``, ``move`` and ``shout`` when they are set.

**The digest** (:func:`replay_digest`) is the SHA-256 (hex) of the canonical JSON
(sorted keys, no spaces, UTF-8) of what defines the game::

    {"config": CONFIG, "game": GAME_NAME, "initial": STATE,
     "result": {"isDraw", "reason", "turns", "winner"} or null,
     "snakes": [[SNAKE_ID, SOURCE], ...], "turns": [[TURN, MOVES, STATE], ...]}

It leaves out timestamps, latencies, statuses, errors, HTTP codes and shouts, so
the same seeded game played twice has the same digest.
"""

from __future__ import annotations

import datetime as dt
import gzip
import hashlib
import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from snakewar import __version__
from snakewar.errors import SnakewarError
from snakewar.games.battlesnake import NAME
from snakewar.games.battlesnake.records import (
    CallOutcome,
    CallStatus,
    GameRecord,
    SnakeEntry,
    TimingRules,
    TurnRecord,
    notebook_html,
)
from snakewar.games.battlesnake.rules.game import GameConfig, GameResult
from snakewar.games.battlesnake.rules.settings import Settings
from snakewar.games.battlesnake.rules.types import BoardState
from snakewar.games.battlesnake.rules.wire import MOVES
from snakewar.replay._lines import (
    MAX_FILE_BYTES,
    MAX_LINE_BYTES,
    JsonLine,
    ReplayError,
    ReplaySource,
    json_lines,
    short,
    source_name,
)

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "Replay",
    "config_to_dict",
    "header_dict",
    "load_replay",
    "read_replay",
    "replay_digest",
    "replay_lines",
    "result_dict",
    "timing_dict",
    "turn_dict",
    "write_replay",
]

FORMAT_NAME = "snakewar-replay"
"""The header's ``format`` value."""
FORMAT_VERSION = 1
"""The newest format version this Snakewar reads, and the one it writes."""
GAME_NAME = NAME
"""The header's ``game`` value: the game's registered name."""

_STATUSES = frozenset(s.value for s in CallStatus)
_HEX64 = re.compile(r"[0-9a-f]{64}\Z")


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- writing ---------------------------------------------------------------------------


def config_to_dict(config: GameConfig) -> dict[str, Any]:
    """Return the header's ``config`` object for ``config``."""
    return {
        "ruleset": config.ruleset,
        "map": config.map,
        "width": config.width,
        "height": config.height,
        "settings": dict(config.settings.params),
        "seed": config.settings.seed,
        "solo": config.solo,
    }


def _entry_to_dict(entry: SnakeEntry) -> dict[str, str]:
    return {
        "id": entry.id,
        "name": entry.name,
        "source": entry.source,
        "author": entry.author,
        "color": entry.color,
        "head": entry.head,
        "tail": entry.tail,
        "version": entry.version,
        "apiversion": entry.apiversion,
    }


def _outcome_to_dict(outcome: CallOutcome) -> dict[str, Any]:
    out: dict[str, Any] = {"status": str(outcome.status), "latency": outcome.latency_ms}
    if outcome.http_status is not None:
        out["http"] = outcome.http_status
    for key, text in (("error", outcome.error), ("move", outcome.move), ("shout", outcome.shout)):
        if text:
            out[key] = text
    return out


def _now() -> str:
    return dt.datetime.now(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def header_dict(record: GameRecord, created: str | None = None) -> dict[str, Any]:
    """Return the header object (line 1) of ``record``'s replay.

    ``created`` is an ISO 8601 time; ``None`` stamps the current time and ``""``
    leaves the field out.
    """
    header: dict[str, Any] = {
        "format": FORMAT_NAME,
        "version": FORMAT_VERSION,
        "game": GAME_NAME,
        "id": record.id,
    }
    stamp = _now() if created is None else created
    if stamp:
        header["created"] = stamp
    header.update(
        {
            "snakewar": __version__,
            "config": config_to_dict(record.config),
            "timeout": record.timeout_ms,
            "source": record.source,
            "snakes": [_entry_to_dict(e) for e in record.snakes],
            "initial": record.initial.to_dict(),
            "start": {sid: _outcome_to_dict(o) for sid, o in record.start.items()},
        }
    )
    timing = timing_dict(record.timing)
    if timing:
        header["timing"] = timing
    if record.forked_from is not None:
        header["forked_from"] = dict(record.forked_from)
    return header


def timing_dict(timing: TimingRules) -> dict[str, Any]:
    """The header's ``timing`` object (empty under the official timing)."""
    out: dict[str, Any] = {}
    if timing.time_bank_ms:
        out["timeBank"] = timing.time_bank_ms
    if timing.retry_timeout:
        out["retryTimeout"] = True
    return out


def turn_dict(turn: TurnRecord) -> dict[str, Any]:
    """Return the line object of one turn."""
    calls = turn.calls
    line: dict[str, Any] = {
        "turn": turn.turn,
        "moves": {sid: c.move for sid, c in calls.items()},
        "status": {sid: str(c.status) for sid, c in calls.items()},
        "latency": {sid: c.latency_ms for sid, c in calls.items()},
    }
    http = {sid: c.http_status for sid, c in calls.items() if c.http_status is not None}
    errors = {sid: c.error for sid, c in calls.items() if c.error}
    shouts = {sid: c.shout for sid, c in calls.items() if c.shout}
    for key, values in (("http", http), ("error", errors), ("shout", shouts)):
        if values:
            line[key] = values
    bank = {sid: c.bank_ms for sid, c in calls.items() if c.bank_ms is not None}
    if bank:
        line["bank"] = bank
    retried = {sid: _try_dict(c.first_try) for sid, c in calls.items() if c.first_try is not None}
    if retried:
        line["retried"] = retried
    line["state"] = turn.after.to_dict()
    return line


def _try_dict(outcome: CallOutcome) -> dict[str, Any]:
    out: dict[str, Any] = {"status": str(outcome.status), "latency": outcome.latency_ms}
    if outcome.error:
        out["error"] = outcome.error
    return out


def result_dict(record: GameRecord) -> dict[str, Any]:
    """Return the result line object (``result`` is ``null`` if the game has none)."""
    result = record.result
    return {
        "result": None
        if result is None
        else {
            "winner": result.winner,
            "isDraw": result.is_draw,
            "turns": result.turns,
            "reason": result.reason,
            "digest": replay_digest(record),
        },
        "end": {sid: _outcome_to_dict(o) for sid, o in record.end.items()},
    }


def replay_lines(record: GameRecord, *, created: str | None = None) -> list[str]:
    """Return the lines (without newlines) of ``record``'s replay.

    The result line is written when the record has a result or ``/end`` outcomes;
    without it the replay reads back as an unfinished game.

    Args:
        record: the game.
        created: the ``created`` time (ISO 8601); ``None`` stamps now, ``""`` omits it.
    """
    lines = [_dumps(header_dict(record, created))]
    lines.extend(_dumps(turn_dict(t)) for t in record.turns)
    if record.result is not None or record.end:
        lines.append(_dumps(result_dict(record)))
    return lines


def write_replay(
    record: GameRecord, path: str | os.PathLike[str], *, created: str | None = None
) -> Path:
    """Write ``record``'s replay to ``path`` (gzip-compressed if it ends in ``.gz``).

    The file is written beside its destination and renamed into place, so a reader
    never sees half a replay.  Returns the path.

    Raises:
        ReplayError: if the file cannot be written.
    """
    target = Path(path)
    text = "".join(line + "\n" for line in replay_lines(record, created=created))
    data = text.encode("utf-8")
    if target.name.endswith(".gz"):
        # mtime=0: the same game gives the same bytes.
        data = gzip.compress(data, mtime=0)
    temp = target.with_name(f".{target.name}.tmp")
    try:
        temp.write_bytes(data)
        os.replace(temp, target)
    except OSError as exc:
        temp.unlink(missing_ok=True)
        raise ReplayError(f"cannot write {os.fspath(path)!r}: {exc.strerror or exc}") from None
    return target


# -- the digest ------------------------------------------------------------------------


def replay_digest(record: GameRecord) -> str:
    """Return the SHA-256 hex digest of what defines ``record``'s game.

    See the module documentation for the exact document hashed.  Timings, call
    statuses, errors, HTTP codes, shouts and timestamps do not count.
    """
    result = record.result
    document = {
        "game": GAME_NAME,
        "config": config_to_dict(record.config),
        "snakes": [[e.id, e.source] for e in record.snakes],
        "initial": record.initial.to_dict(),
        "turns": [[t.turn, t.moves, t.after.to_dict()] for t in record.turns],
        "result": None
        if result is None
        else {
            "winner": result.winner,
            "isDraw": result.is_draw,
            "turns": result.turns,
            "reason": result.reason,
        },
    }
    canonical = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


# -- reading ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Replay:
    """A replay file as read: the game record plus what the file says about itself."""

    record: GameRecord
    name: str
    """The file's path (``replay`` for in-memory lines), for messages."""
    created: str | None = None
    """The ``created`` time, if the file has one."""
    snakewar_version: str | None = None
    """The version of Snakewar that wrote the file, if given."""
    digest: str | None = None
    """The digest stored in the result line (``None`` without a result)."""
    complete: bool = True
    """Whether the file has its result line (``False``: an unfinished or cut game)."""
    cut_line: int | None = None
    """The number of a last line cut short while being written (dropped), if any."""

    def _repr_html_(self) -> str | None:
        """The game's viewer, inline (Jupyter shows a replay this way)."""
        return notebook_html(self)

    @property
    def notes(self) -> list[str]:
        """Human-readable remarks about an incomplete file (empty when complete)."""
        notes = []
        if self.cut_line is not None:
            notes.append(f"line {self.cut_line} is cut short (ignored)")
        if not self.complete:
            notes.append("no result line: an unfinished or truncated game")
        return notes


class _Line:
    """Typed access to one line's fields, failing with the line number and field name."""

    def __init__(self, name: str, line: JsonLine, what: str) -> None:
        self.name = name
        self.number = line.number
        if not isinstance(line.value, dict):
            raise self.error(f"expected {what} (a JSON object), got {short(line.value)}")
        self.obj: dict[str, Any] = line.value

    def error(self, text: str) -> ReplayError:
        return ReplayError(f"{self.name}: line {self.number}: {text}")

    def fail(self, field: str, expected: str, value: Any) -> ReplayError:
        return self.error(f"field {field!r}: expected {expected}, got {short(value)}")

    def get(self, key: str, default: Any = ...) -> Any:
        if key not in self.obj:
            if default is ...:
                raise self.error(f"field {key!r} is missing")
            return default
        return self.obj[key]

    def str_(self, key: str, default: str | None = None) -> str:
        value = self.get(key, ... if default is None else default)
        if not isinstance(value, str):
            raise self.fail(key, "a string", value)
        return value

    def int_(self, key: str, minimum: int | None = None) -> int:
        value = self.get(key)
        if type(value) is not int or (minimum is not None and value < minimum):
            raise self.fail(
                key, "an integer" + ("" if minimum is None else f" >= {minimum}"), value
            )
        return value

    def obj_(self, key: str, default: Any = ...) -> dict[str, Any]:
        value = self.get(key, default)
        if not isinstance(value, dict):
            raise self.fail(key, "an object", value)
        return value

    def state(self, key: str) -> BoardState:
        value = self.get(key)
        try:
            return BoardState.from_dict(value)
        except SnakewarError as exc:
            raise self.error(f"field {key!r}: {exc}") from None

    def by_snake(
        self,
        key: str,
        ids: Mapping[str, object],
        expected: str,
        check: Callable[[Any], bool],
        default: Any = ...,
    ) -> dict[str, Any]:
        """A ``{snake_id: value}`` object whose ids are ``ids`` and values pass ``check``."""
        value = self.obj_(key, default)
        for sid, item in value.items():
            if sid not in ids:
                raise self.error(
                    f"field {key!r}: unknown snake id {sid!r} "
                    f"(snakes here: {', '.join(repr(i) for i in ids)})"
                )
            if not check(item):
                raise self.fail(f"{key}.{sid}", expected, item)
        return value


def _outcomes(line: _Line, key: str, ids: Mapping[str, object]) -> dict[str, CallOutcome]:
    raw = line.by_snake(key, ids, "an outcome object", lambda v: isinstance(v, dict), {})
    out: dict[str, CallOutcome] = {}
    for sid, item in raw.items():
        where = f"{key}.{sid}"
        status = item.get("status", "ok")
        if not _is_status(status):
            raise line.fail(f"{where}.status", _status_choices(), status)
        latency = item.get("latency", 0)
        if type(latency) is not int or latency < 0:
            raise line.fail(f"{where}.latency", "an integer >= 0 (milliseconds)", latency)
        http = item.get("http")
        if http is not None and type(http) is not int:
            raise line.fail(f"{where}.http", "an HTTP status code or null", http)
        texts = {}
        for field in ("error", "move", "shout"):
            text = item.get(field, "")
            if not isinstance(text, str):
                raise line.fail(f"{where}.{field}", "a string", text)
            texts[field] = text
        out[sid] = CallOutcome(
            CallStatus(status), latency, http, texts["error"], texts["move"], texts["shout"]
        )
    return out


def _is_status(value: Any) -> bool:
    return isinstance(value, str) and value in _STATUSES


def _status_choices() -> str:
    return "one of " + ", ".join(repr(s.value) for s in CallStatus)


def _read_header(name: str, first: JsonLine) -> tuple[GameRecord, str | None, str | None]:
    value = first.value
    if not isinstance(value, dict) or value.get("format") != FORMAT_NAME:
        hint = ""
        if isinstance(value, dict) and "ruleset" in value and "id" in value:
            hint = (
                " (it looks like an official CLI JSONL file: show it with 'snakewar replay FILE' "
                "or read it with snakewar.games.battlesnake.replay.official.read_official_jsonl)"
            )
        else:
            hint = (
                "; official CLI JSONL files (battlesnake play --output) can be opened with "
                "'snakewar replay FILE' or "
                "snakewar.games.battlesnake.replay.official.read_official_jsonl"
            )
        raise ReplayError(
            f"{name} is not a Snakewar replay (no 'format': {FORMAT_NAME!r} header){hint}"
        )
    line = _Line(name, first, "the header")
    version = line.get("version")
    if type(version) is not int or version < 1:
        raise line.fail("version", f"a format version (1..{FORMAT_VERSION})", version)
    if version > FORMAT_VERSION:
        raise ReplayError(
            f"{name}: replay format version {version} is newer than this Snakewar supports "
            f"(version {FORMAT_VERSION}, Snakewar {__version__}); upgrade Snakewar to read it"
        )
    game = line.get("game", GAME_NAME)
    if game != GAME_NAME:
        raise line.fail("game", f"{GAME_NAME!r} (the only game this Snakewar replays)", game)
    created = line.get("created", None)
    if created is not None and not isinstance(created, str):
        raise line.fail("created", "an ISO 8601 time string", created)
    writer = line.get("snakewar", None)
    if writer is not None and not isinstance(writer, str):
        raise line.fail("snakewar", "a version string", writer)

    config = _read_config(line)
    snakes = _read_snakes(line)
    ids = {e.id: e for e in snakes}
    initial = line.state("initial")
    state_ids = [s.id for s in initial.snakes]
    if sorted(state_ids) != sorted(ids):
        raise line.error(
            f"field 'initial': its snakes {state_ids!r} are not the header's snakes {list(ids)!r}"
        )
    record = GameRecord(
        id=line.str_("id"),
        config=config,
        timeout_ms=line.int_("timeout", 0),
        snakes=snakes,
        initial=initial,
        start=_outcomes(line, "start", ids),
        source=line.str_("source", ""),
        timing=_read_timing(line),
        forked_from=_read_forked_from(line),
    )
    return record, created, writer


def _read_timing(line: _Line) -> TimingRules:
    raw = line.obj_("timing", {})
    bank = raw.get("timeBank", 0)
    if type(bank) is not int or bank < 0:
        raise line.fail("timing.timeBank", "an integer >= 0 (milliseconds)", bank)
    retry = raw.get("retryTimeout", False)
    if not isinstance(retry, bool):
        raise line.fail("timing.retryTimeout", "true or false", retry)
    return TimingRules(bank, retry)


def _read_forked_from(line: _Line) -> dict[str, Any] | None:
    value = line.get("forked_from", None)
    if value is None:
        return None
    expected = "an object {'game': GAME_ID, 'turn': N} (or {})"
    if not isinstance(value, dict) or not set(value) <= {"game", "turn"}:
        raise line.fail("forked_from", expected, value)
    game, turn = value.get("game", ""), value.get("turn", 0)
    if not isinstance(game, str) or type(turn) is not int or turn < 0:
        raise line.fail("forked_from", expected, value)
    return dict(value)


def _read_config(line: _Line) -> GameConfig:
    raw = line.obj_("config")
    sub = _Line(line.name, JsonLine(line.number, raw), "the config")
    settings = sub.obj_("settings", {})
    for key, value in settings.items():
        if not isinstance(value, str):
            raise line.fail(f"config.settings.{key}", "a string (raw settings are text)", value)
    seed = sub.get("seed", 0)
    if type(seed) is not int:
        raise line.fail("config.seed", "an integer", seed)
    solo = sub.get("solo", None)
    if solo is not None and not isinstance(solo, bool):
        raise line.fail("config.solo", "true, false or null", solo)
    try:
        game_settings = Settings(settings, seed)
    except SnakewarError as exc:
        raise line.error(f"field 'config': {exc}") from None
    fields = {}
    for key in ("ruleset", "map"):
        value = sub.get(key)
        if not isinstance(value, str):
            raise line.fail(f"config.{key}", "a string", value)
        fields[key] = value
    sizes = {}
    for key in ("width", "height"):
        value = sub.get(key)
        if type(value) is not int or value < 1:
            raise line.fail(f"config.{key}", "an integer >= 1", value)
        sizes[key] = value
    return GameConfig(
        ruleset=fields["ruleset"],
        map=fields["map"],
        width=sizes["width"],
        height=sizes["height"],
        settings=game_settings,
        solo=solo,
    )


def _read_snakes(line: _Line) -> list[SnakeEntry]:
    raw = line.get("snakes")
    if not isinstance(raw, list) or not raw:
        raise line.fail("snakes", "a non-empty list of snake objects", raw)
    entries: list[SnakeEntry] = []
    defaults = SnakeEntry("", "", "")
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            raise line.fail(f"snakes[{i}]", "a snake object", item)
        values: dict[str, str] = {}
        for key in SnakeEntry.__slots__:
            default = getattr(defaults, key) if key not in ("id", "name", "source") else None
            value = item.get(key, default)
            if not isinstance(value, str):
                raise line.fail(f"snakes[{i}].{key}", "a string", value)
            values[key] = value
        entry = SnakeEntry(**values)
        if not entry.id or any(e.id == entry.id for e in entries):
            raise line.fail(f"snakes[{i}].id", "a unique, non-empty snake id", entry.id)
        entries.append(entry)
    return entries


def _move_ok(value: Any) -> bool:
    return isinstance(value, str) and value in MOVES


def _read_turn(line: _Line, ids: Mapping[str, SnakeEntry], expected_turn: int) -> TurnRecord:
    turn = line.get("turn")
    if type(turn) is not int:
        raise line.fail("turn", "an integer", turn)
    if turn != expected_turn:
        raise line.fail("turn", f"{expected_turn} (turns follow one another)", turn)
    moves = line.by_snake("moves", ids, "one of " + ", ".join(map(repr, MOVES)), _move_ok)
    # The other per-snake fields describe the same calls: only the snakes that moved.
    status = line.by_snake("status", moves, _status_choices(), _is_status)
    latency = line.by_snake(
        "latency", moves, "an integer >= 0 (milliseconds)", lambda v: type(v) is int and v >= 0
    )
    for key, table in (("status", status), ("latency", latency)):
        missing = [sid for sid in moves if sid not in table]
        if missing:
            raise line.error(f"field {key!r}: no entry for {', '.join(map(repr, missing))}")
    http = line.by_snake("http", moves, "an HTTP status code", lambda v: type(v) is int, {})
    errors = line.by_snake("error", moves, "a string", lambda v: isinstance(v, str), {})
    shouts = line.by_snake("shout", moves, "a string", lambda v: isinstance(v, str), {})
    bank = line.by_snake(
        "bank", moves, "an integer >= 0 (milliseconds)", lambda v: type(v) is int and v >= 0, {}
    )
    retried = line.by_snake("retried", moves, "a try object", _try_ok, {})
    calls = {
        sid: CallOutcome(
            status=CallStatus(status[sid]),
            latency_ms=latency[sid],
            http_status=http.get(sid),
            error=errors.get(sid, ""),
            move=move,
            shout=shouts.get(sid, ""),
            bank_ms=bank.get(sid),
            first_try=_first_try(retried[sid]) if sid in retried else None,
        )
        for sid, move in moves.items()
    }
    return TurnRecord(turn=turn, calls=calls, after=line.state("state"))


def _try_ok(value: Any) -> bool:
    """Whether ``value`` is a ``retried`` try: a status, a latency, maybe an error."""
    return (
        isinstance(value, dict)
        and _is_status(value.get("status"))
        and type(value.get("latency")) is int
        and value["latency"] >= 0
        and isinstance(value.get("error", ""), str)
    )


def _first_try(value: Mapping[str, Any]) -> CallOutcome:
    return CallOutcome(CallStatus(value["status"]), value["latency"], error=value.get("error", ""))


def load_replay(
    source: ReplaySource,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
    name: str | None = None,
) -> Replay:
    """Read a Snakewar replay with what the file says about itself.

    Args:
        source: a path, or the file's lines as strings.
        max_line_bytes: refuse longer lines.
        max_file_bytes: refuse larger (uncompressed) files.
        name: the file's name in error messages (default: the path, or ``replay``).

    Raises:
        ReplayError: for a missing, empty, damaged or foreign file, an unsupported
            version, or a field of the wrong type (naming the line and field).
    """
    name = name or source_name(source)
    cut: list[int] = []
    lines = json_lines(
        source, max_line_bytes=max_line_bytes, max_file_bytes=max_file_bytes, cut=cut, name=name
    )
    first = next(lines, None)
    if first is None:
        if cut:
            raise ReplayError(f"{name}: line {cut[0]}: the header is cut short")
        raise ReplayError(
            f"{name} is empty (expected a Snakewar replay: JSON Lines starting with "
            f"a {FORMAT_NAME!r} header)"
        )
    record, created, writer = _read_header(name, first)
    ids = {e.id: e for e in record.snakes}
    digest: str | None = None
    complete = False
    for item in lines:
        if complete:
            raise ReplayError(f"{name}: line {item.number}: unexpected line after the result line")
        line = _Line(name, item, "a turn line or the result line")
        if "turn" in line.obj:
            record.turns.append(_read_turn(line, ids, record.final_state.turn))
        elif "result" in line.obj:
            digest = _read_result(line, record, ids)
            complete = True
        else:
            raise line.error(
                "expected a turn line (with 'turn') or the result line (with 'result'), "
                f"got the fields {sorted(line.obj)!r}"
            )
    return Replay(
        record=record,
        name=name,
        created=created,
        snakewar_version=writer,
        digest=digest,
        complete=complete,
        cut_line=cut[0] if cut else None,
    )


def _read_result(line: _Line, record: GameRecord, ids: Mapping[str, SnakeEntry]) -> str | None:
    record.end = _outcomes(line, "end", ids)
    raw = line.get("result")
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise line.fail("result", "an object or null", raw)
    winner = raw.get("winner")
    if winner is not None and not (isinstance(winner, str) and winner in ids):
        raise line.fail("result.winner", "a snake id of this game or null", winner)
    is_draw = raw.get("isDraw")
    if not isinstance(is_draw, bool):
        raise line.fail("result.isDraw", "true or false", is_draw)
    turns = raw.get("turns")
    if type(turns) is not int or turns < 0:
        raise line.fail("result.turns", "an integer >= 0", turns)
    reason = raw.get("reason", "game_over")
    if not isinstance(reason, str):
        raise line.fail("result.reason", "a string such as 'game_over'", reason)
    digest = raw.get("digest")
    if not isinstance(digest, str) or not _HEX64.match(digest):
        raise line.fail("result.digest", "64 lowercase hex digits (SHA-256)", digest)
    record.result = GameResult(winner, is_draw, turns, record.final_state, reason)
    return digest


def read_replay(source: ReplaySource) -> GameRecord:
    """Read a Snakewar replay into the :class:`GameRecord` it was written from.

    An unfinished game (no result line) reads with ``result`` ``None``; use
    :func:`load_replay` to learn more about the file.

    Raises:
        ReplayError: as :func:`load_replay`.
    """
    return load_replay(source).record
