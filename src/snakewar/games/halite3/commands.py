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


def _parse_plain(line: str) -> list[Command] | None:
    """The common case, blank-separated well-formed commands; ``None`` for anything else.

    Splitting on blanks reads such a line exactly as the stream rules do; any token
    that is not plainly ``g``, ``m <digits> <d>`` or ``c <digits>`` falls back to the
    character-level parser, which also produces the engine's error messages.
    """
    tokens = line.split()
    commands: list[Command] = []
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        if token == "g":
            commands.append(_SPAWN)
            i += 1
        elif token == "m":
            if i + 2 >= n:
                return None
            number, direction = tokens[i + 1], tokens[i + 2]
            if not (number.isdigit() and len(number) < 19 and direction in DIRECTIONS):
                return None
            commands.append(MoveCommand(int(number), direction))
            i += 3
        elif token == "c":
            if i + 1 >= n:
                return None
            number = tokens[i + 1]
            if not (number.isdigit() and len(number) < 19):
                return None
            commands.append(ConstructCommand(int(number)))
            i += 2
        else:
            return None
    return commands


def parse_commands(line: str) -> list[Command]:
    """Parse one turn's command line like the official engine.

    Raises:
        CommandParseError: an unknown command letter or direction (fatal to the bot).
    """
    if line.isascii():
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
