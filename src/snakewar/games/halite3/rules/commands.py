"""Bot command lines: parsing exactly as the engine's ``istream >>`` does, and serializing.

The engine reads one line per turn and extracts commands with C++ stream operators:
a command letter is one non-blank character, a ship id is a signed integer and a
direction is one non-blank character.  That gives some quirks this parser keeps:

* ``m 1n`` is a valid move (no blank is needed before the direction);
* an unknown letter (``x``) or direction (``q``) is a decoding error, fatal to the bot;
* a ``c`` whose id cannot be read (``c abc``, or a bare ``c`` at the end) ends parsing
  silently: that command and the rest of the line are ignored;
* a ``m`` whose id cannot be read is a decoding error (the direction read then fails).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from snakewar.errors import SnakewarError

__all__ = [
    "DIRECTIONS",
    "Command",
    "CommandParseError",
    "ConstructCommand",
    "MoveCommand",
    "SpawnCommand",
    "parse_commands",
    "serialize_commands",
]

Direction = Literal["n", "s", "e", "w", "o"]

#: Direction letter -> (dx, dy); ``n`` is y-1 and both axes wrap.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "n": (0, -1),
    "s": (0, 1),
    "e": (1, 0),
    "w": (-1, 0),
    "o": (0, 0),
}

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1


@dataclass(frozen=True, slots=True)
class SpawnCommand:
    """``g``: build a ship at the shipyard."""

    def serial(self) -> str:
        """The command as a bot writes it."""
        return "g"

    def to_replay(self) -> dict[str, object]:
        """The command as the replay's ``moves`` list stores it."""
        return {"type": "g"}


@dataclass(frozen=True, slots=True)
class MoveCommand:
    """``m <id> <d>``: move a ship (``o`` stays still)."""

    ship_id: int
    direction: str

    def serial(self) -> str:
        """The command as a bot writes it."""
        return f"m {self.ship_id} {self.direction}"

    def to_replay(self) -> dict[str, object]:
        """The command as the replay's ``moves`` list stores it."""
        return {"type": "m", "id": self.ship_id, "direction": self.direction}


@dataclass(frozen=True, slots=True)
class ConstructCommand:
    """``c <id>``: convert a ship into a dropoff."""

    ship_id: int

    def serial(self) -> str:
        """The command as a bot writes it."""
        return f"c {self.ship_id}"

    def to_replay(self) -> dict[str, object]:
        """The command as the replay's ``moves`` list stores it."""
        return {"type": "c", "id": self.ship_id}


Command = SpawnCommand | MoveCommand | ConstructCommand
_SPAWN = SpawnCommand()


class CommandParseError(SnakewarError, ValueError):
    """A command line the engine cannot decode (the bot is killed).

    Attributes:
        message: the engine's wording, e.g. ``failed to decode bot message: "x" (at position 19)``.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class _Stream:
    """Just enough of ``std::istringstream`` for the engine's extraction operators."""

    __slots__ = ("failed", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.failed = False

    def _skip_blanks(self) -> None:
        text, pos, n = self.text, self.pos, len(self.text)
        while pos < n and text[pos] in " \t\n\v\f\r":
            pos += 1
        self.pos = pos

    def read_char(self) -> str | None:
        if self.failed:
            return None
        self._skip_blanks()
        if self.pos >= len(self.text):
            self.failed = True
            return None
        char = self.text[self.pos]
        self.pos += 1
        return char

    def read_int(self) -> int | None:
        if self.failed:
            return None
        self._skip_blanks()
        text, start = self.text, self.pos
        pos = start
        if pos < len(text) and text[pos] in "+-":
            pos += 1
        digits = pos
        while pos < len(text) and "0" <= text[pos] <= "9":
            pos += 1
        if pos == digits:
            self.failed = True
            return None
        value = int(text[start:pos])
        self.pos = pos
        if not _INT64_MIN <= value <= _INT64_MAX:
            self.failed = True
            return None
        return value


# Blanks that ``str.split()`` splits on but C ``isspace`` does not (in ASCII lines).
_NOT_BLANK = re.compile("[\x1c-\x1f]")


class _NotPlain(Exception):
    """A token the fast path does not read (the character-level parser will)."""


def _plain_id(token: str) -> int:
    # ASCII digits only (the line is ASCII), and few enough to need no range check.
    if not (token.isdigit() and len(token) <= 18):
        raise _NotPlain
    return int(token)


@functools.lru_cache(maxsize=1 << 14)
def _move(number: str, direction: str) -> MoveCommand:
    # Commands are immutable and bots send the same few thousand moves turn after turn:
    # sharing them halves the cost of parsing a crowded turn (and of checking it).
    if direction not in DIRECTIONS:
        raise _NotPlain
    return MoveCommand(_plain_id(number), direction)


def _moves(tokens: list[str], start: int, stop: int) -> list[MoveCommand]:
    """The moves ``m <id> <d>`` filling ``tokens[start:stop]``."""
    letters = tokens[start:stop:3]
    if (stop - start) % 3 or letters.count("m") != len(letters):
        raise _NotPlain
    return list(map(_move, tokens[start + 1 : stop : 3], tokens[start + 2 : stop : 3]))


def _find(tokens: list[str], token: str, start: int) -> int:
    try:
        return tokens.index(token, start)
    except ValueError:
        return len(tokens)


def _parse_plain(line: str) -> list[Command] | None:
    """The common case, blank-separated well-formed commands; ``None`` for anything else.

    Such a line reads the same token by token as by the stream rules; a line with
    anything else (a glued ``m 1n``, an unknown letter, a 19-digit id, a blank the
    engine does not skip) falls back to the character-level parser, which also
    produces the engine's error messages.  Moves are read a run at a time: ``g`` and
    ``c`` tokens (which no id or direction can be) end a run.
    """
    if not line.isascii() or _NOT_BLANK.search(line) is not None:
        return None
    tokens = line.split()
    end = len(tokens)
    letters = tokens[::3]
    moves = letters.count("m")
    try:
        # The usual lines first: moves only, or moves and then a spawn.
        if moves == len(letters) and end % 3 == 0:
            return list(map(_move, tokens[1::3], tokens[2::3]))
        if moves == len(letters) - 1 and end % 3 == 1 and tokens[-1] == "g":
            commands: list[Command] = list(map(_move, tokens[1::3], tokens[2::3]))
            commands.append(_SPAWN)
            return commands
        commands = []
        start = 0
        while True:
            stop = min(_find(tokens, "g", start), _find(tokens, "c", start))
            commands.extend(_moves(tokens, start, stop))
            if stop == end:
                return commands
            if tokens[stop] == "g":
                commands.append(_SPAWN)
                start = stop + 1
            elif stop + 1 < end:
                commands.append(ConstructCommand(_plain_id(tokens[stop + 1])))
                start = stop + 2
            else:
                return None
    except _NotPlain:
        return None


def parse_commands(line: str) -> list[Command]:
    """Parse one turn's command line like the official engine.

    Raises:
        CommandParseError: an unknown command letter or direction (fatal to the bot).
    """
    plain = _parse_plain(line)
    if plain is not None:
        return plain
    stream = _Stream(line)
    commands: list[Command] = []
    while True:
        letter = stream.read_char()
        if letter is None:
            return commands
        if letter == "g":
            commands.append(SpawnCommand())
        elif letter == "m":
            ship_id = stream.read_int()
            direction = stream.read_char()
            if direction is None or direction not in DIRECTIONS:
                shown = "" if direction is None else direction
                raise CommandParseError(f'failed to decode bot message: "{shown}"')
            if ship_id is None:
                return commands
            commands.append(MoveCommand(ship_id, direction))
        elif letter == "c":
            ship_id = stream.read_int()
            if ship_id is None:
                return commands
            commands.append(ConstructCommand(ship_id))
        else:
            raise CommandParseError(
                f'failed to decode bot message: "{letter}" (at position {stream.pos})'
            )


def serialize_commands(commands: list[Command]) -> str:
    """One command line, as a bot would send it."""
    return " ".join(command.serial() for command in commands)
