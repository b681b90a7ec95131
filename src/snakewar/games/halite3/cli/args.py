"""The official Halite III engine's command line, read word for word as the engine reads it.

The engine (1.2.2.finals) parses its arguments with TCLAP 1.2, and
:func:`parse_engine_args` applies the same rules.  So any command line given to
``halite``, such as the one in each official kit's ``run_game.sh``, means the same
to ``snakewar halite play``:

* ``-v`` (``--verbosity``) is a counted switch: ``-vvv`` gives it three times.  Letters
  after one ``-`` combine only for the one-letter switches ``-v`` and ``-h``: ``-vh``
  shows the help, ``-vx`` is an error, and ``-vs 5`` is an error too.
* A flag that takes a value takes the next word, whatever it is (``-s -1``), or the
  rest of its own word after a space (``"-s 5"``).  ``--seed=5`` is not a flag.
* Each flag may be given once (``-s 1 -s 2`` is an error), except ``-v`` and ``-o``.
* Any word that is not a flag is a bot command, including an unknown ``--flag``.
* ``--`` (or ``--ignore_rest``) ends the flags: every word after it is a bot command.
* Numbers are read as a C++ stream reads them into the flag's type.  ``-s -1`` is
  4294967295 (an ``unsigned int``), ``--turn-limit -1`` is 2**64 - 1 and ``" 5"`` is 5.
  ``"5 "``, ``"5x"`` and ``"0x10"`` are errors.  An empty value sets the flag to its
  default.
* ``-h``/``--help`` and ``--version`` act where they are read, before any later error.

The messages of refused command lines are TCLAP's, one line each.  Nothing here plays
a game or imports the engine.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from snakewar.errors import SnakewarError

__all__ = [
    "ENGINE_VERSION",
    "EngineArgs",
    "EngineArgsError",
    "parse_engine_args",
    "usage",
    "version_text",
]

ENGINE_VERSION = "1.2.2.finals"
"""The official engine's version: what ``--version`` prints, snapshots and replays say."""

# TCLAP marks a one-letter switch it has read out of a combined word ("-vvv") by putting
# this character in its place; a word with one in it is no longer a flag or a command.
_BLANK = "\a"
_SPACE = " \t\n\v\f\r"  # what a C++ stream skips before a number (isspace in "C")


class EngineArgsError(SnakewarError, ValueError):
    """A command line the engine refuses: TCLAP's message, and the flag it is about.

    Attributes:
        flag: the flag as TCLAP names it (``-s (--seed)``), or the word it could not
            read; ``""`` when the message is about the whole command line.
        problem: TCLAP's message (``Argument already set!``).
    """

    def __init__(self, flag: str, problem: str) -> None:
        self.flag = flag
        self.problem = problem
        super().__init__(f"{flag}: {problem}" if flag else problem)


@dataclass
class EngineArgs:
    """A command line as the engine reads it.

    ``None`` means that a flag was not given.  A flag given with an empty value is set
    to the engine's default for it: the seed 0, the side 48, the turn limit 0.

    Attributes:
        action: ``"play"``; ``"help"`` or ``"version"`` when ``-h``/``--help`` or
            ``--version`` was read (the rest of the command line is not read).
        bot_commands: the bots' command lines, in order.
        table: print Snakewar's table of results (``--table``: not an engine flag).
        bot_logs: keep each bot's log of the game in this folder (``--bot-logs DIR``:
            not an engine flag either); ``None``: not asked for.
    """

    action: Literal["play", "help", "version"] = "play"
    bot_commands: list[str] = field(default_factory=list)
    seed: int | None = None
    width: int | None = None
    height: int | None = None
    players: int | None = None
    turn_limit: int | None = None
    replay_directory: str = "."
    constants_file: str | None = None
    from_snapshot: str = ""
    map_type: str = "fractal"
    override_names: list[str] = field(default_factory=list)
    verbosity: int | None = None
    no_timeout: bool = False
    no_replay: bool = False
    no_logs: bool = False
    print_constants: bool = False
    no_compression: bool = False
    results_as_json: bool = False
    strict: bool = False
    table: bool = False
    bot_logs: str | None = None


@dataclass(frozen=True)
class _Flag:
    """One of the engine's arguments, as TCLAP declares it."""

    letter: str  # the one-letter flag ("s"), or ""
    name: str  # the long name ("seed")
    kind: Literal["switch", "count", "value", "values", "help", "version", "end"]
    field: str = ""  # the EngineArgs field it sets
    read: Callable[[str], int | str | None] | None = None  # a value's reader
    default: int | None = None  # what an empty number means
    value_name: str = ""  # for the usage
    help: str = ""

    def __str__(self) -> str:
        # TCLAP's name for it in messages: "-s (--seed)", "(--width)".
        long = f"(--{self.name})"
        return f"-{self.letter} {long}" if self.letter else long

    def matches(self, word: str) -> bool:
        return (bool(self.letter) and word == f"-{self.letter}") or word == f"--{self.name}"


def _integer(bits: int, signed: bool) -> Callable[[str], int | None]:
    """A reader of C++ ``operator>>`` into an integer of ``bits`` bits, as TCLAP calls it.

    TCLAP reads values from the word until the word is used up: one value is the value,
    none (an empty word) leaves the default (``None`` here), more than one is an error,
    and so is anything that is not an integer in range, after leading spaces.  A
    negative number read into an unsigned type wraps around, as libstdc++ reads it.
    """
    top = (1 << (bits - 1)) if signed else (1 << bits) - 1

    def read(text: str) -> int | None:
        value: int | None = None
        count = 0
        at, end = 0, len(text)
        while at < end:
            count += 1
            while at < end and text[at] in _SPACE:
                at += 1
            sign = at
            if at < end and text[at] in "+-":
                at += 1
            digits = at
            while at < end and "0" <= text[at] <= "9":
                at += 1
            if at == digits:  # spaces to the end, a lone sign, or no digits at all
                raise ValueError(f"Couldn't read argument value from string '{text}'")
            negative = text[sign] == "-"
            magnitude = int(text[digits:at])
            if magnitude > (top if negative or not signed else top - 1):
                raise ValueError(f"Couldn't read argument value from string '{text}'")
            value = -magnitude if negative else magnitude
            if not signed:
                value %= 1 << bits
        if count > 1:
            raise ValueError(f"More than one valid value parsed from string '{text}'")
        return value

    return read


def _text(value: str) -> str:
    return value


_UNSIGNED_INT = _integer(32, signed=False)
_UNSIGNED_LONG = _integer(64, signed=False)
_LONG = _integer(64, signed=True)

# The engine's arguments in the order TCLAP tries them on each word: the reverse of the
# order they were declared in, then its own three, then the bot commands (always last).
_FLAGS: tuple[_Flag, ...] = (
    _Flag("v", "verbosity", "count", "verbosity",
          help="Log more: -v errors only, -vv warnings too, -vvv (the default) information "
          "too, -vvvv debugging lines too."),
    _Flag("o", "override-names", "values", "override_names", _text, value_name="NAME",
          help="Name the players, in order (once per player), whatever their bots answer."),
    _Flag("m", "map-type", "value", "map_type", _text, value_name="TYPE",
          help="The map generator: fractal (the only one the official games used)."),
    _Flag("", "from-snapshot", "value", "from_snapshot", _text, value_name="SNAPSHOT",
          help="Start from a snapshot (a results' final_snapshot, or the viewer's)."),
    _Flag("c", "constants-file", "value", "constants_file", _text, value_name="FILE",
          help="A JSON file of every game constant (see --print-constants)."),
    _Flag("i", "replay-directory", "value", "replay_directory", _text, value_name="DIR",
          help="The folder of the replay and the error logs (default: the current one; "
          "made if missing; if it cannot be written, the current one)."),
    _Flag("", "turn-limit", "value", "turn_limit", _UNSIGNED_LONG, 0, "N",
          help="Play at most N turns (0: none; by default 400 to 500 by the map's size)."),
    _Flag("s", "seed", "value", "seed", _UNSIGNED_INT, 0, "N",
          help="The map's seed, 0 to 4294967295 (-1 is 4294967295; default: the clock)."),
    _Flag("", "height", "value", "height", _LONG, 48, "N",
          help="The map's height (default: the size the seed picks, 32 to 64)."),
    _Flag("", "width", "value", "width", _LONG, 48, "N",
          help="The map's width (default: the size the seed picks, 32 to 64)."),
    _Flag("n", "players", "value", "players", _UNSIGNED_LONG, 1, "N",
          help="Make the map for N players (at least the bots given)."),
    _Flag("", "strict", "switch", "strict",
          help="A warning (an unaffordable move, an own collision) ends the game."),
    _Flag("", "results-as-json", "switch", "results_as_json",
          help="Print the results as JSON on stdout, and log nothing."),
    _Flag("", "no-compression", "switch", "no_compression",
          help="Write the replay as plain JSON instead of zstd-compressed JSON."),
    _Flag("", "print-constants", "switch", "print_constants",
          help="Print the constants as JSON and play nothing."),
    _Flag("", "no-logs", "switch", "no_logs",
          help="Write no error logs (a killed player's log is still written)."),
    _Flag("", "no-replay", "switch", "no_replay", help="Write no replay."),
    _Flag("", "no-timeout", "switch", "no_timeout",
          help="Wait for slow bots forever (no 30 s to start, no 2 s per turn)."),
    _Flag("", "table", "switch", "table",
          help="Snakewar's own: print a table of the results on stdout."),
    _Flag("", "bot-logs", "value", "bot_logs", _text, value_name="DIR",
          help="Snakewar's own: keep each bot's log of the game (its stderr, the engine's "
          "lines on it) in DIR/seed-SEED-seatN-NAME.log (made if missing); each killed "
          "bot's reason and last lines on stderr."),
    _Flag("-", "ignore_rest", "end", help="End the flags: every word after is a bot command."),
    _Flag("", "version", "version", help="Print the engine's version and exit."),
    _Flag("h", "help", "help", help="Print this help and exit."),
)  # fmt: skip


def _takes_letter(flag: _Flag, words: list[str], at: int) -> bool:
    """TCLAP's combined switches: blank out ``flag``'s letter in ``-abc`` if it is there."""
    word = words[at]
    if not flag.letter or flag.letter == "-" or not word.startswith("-"):
        return False
    if word.startswith("--") or " " in word:
        return False
    spot = word.find(flag.letter, 1)
    if spot < 0:
        return False
    words[at] = word[:spot] + _BLANK + word[spot + 1 :]
    return True


def _has_blanks(word: str) -> bool:
    return _BLANK in word[1:]


def _all_blank(word: str) -> bool:
    """A word whose letters were all read as switches (``-vvv`` once ``-v`` read them)."""
    return word[:1] in ("", "-") and all(c == _BLANK for c in word[1:])


def parse_engine_args(argv: Sequence[str]) -> EngineArgs:
    """Read a ``halite`` command line (without the program's name) as the engine reads it.

    Returns:
        The flags and bot commands; with ``action`` ``"help"`` or ``"version"`` when
        one of those was read (the words after it are not read).

    Raises:
        EngineArgsError: a command line the engine refuses, with its message.
    """
    args = EngineArgs()
    words = list(argv)
    seen: set[str] = set()
    ending = False  # after "--": the flags are not read, every word is a bot command
    at = 0
    while at < len(words):
        matched = False
        for flag in _FLAGS:
            if ending:
                break
            word = words[at]
            if flag.kind == "count":
                if flag.matches(word):
                    args.verbosity = (args.verbosity or 0) + 1
                    matched = True
                    break
                while _takes_letter(flag, words, at):
                    args.verbosity = (args.verbosity or 0) + 1
                continue
            if flag.kind in ("value", "values"):
                if _has_blanks(word):
                    continue
                name, value = word, None
                space = word.find(" ")
                if space > 1:  # "-s 5" in one word: TCLAP splits it at its first space
                    name, value = word[:space], word[space + 1 :]
                if not flag.matches(name):
                    continue
                if flag.kind == "value" and flag.name in seen:
                    raise EngineArgsError(str(flag), "Argument already set!")
                if not value:
                    at += 1
                    if at == len(words):
                        raise EngineArgsError(str(flag), "Missing a value for this argument!")
                    value = words[at]
                _store(args, flag, value)
                seen.add(flag.name)
                matched = True
                break
            # A switch: --name, or -h (alone or combined with other one-letter switches).
            if flag.matches(word):
                whole = True
            elif _takes_letter(flag, words, at):
                if _takes_letter(flag, words, at):
                    raise EngineArgsError(str(flag), "Argument already set!")
                whole = _all_blank(words[at])
            else:
                continue
            if flag.name in seen:
                raise EngineArgsError(str(flag), "Argument already set!")
            seen.add(flag.name)
            if flag.kind == "help":
                return dataclasses.replace(args, action="help")
            if flag.kind == "version":
                return dataclasses.replace(args, action="version")
            if flag.kind == "end":
                ending = True
            else:
                setattr(args, flag.field, True)
            if whole:
                matched = True
                break
        if not matched and not _has_blanks(words[at]):
            args.bot_commands.append(words[at])
            matched = True
        if not matched and not _all_blank(words[at]) and not ending:
            raise EngineArgsError(argv[at], "Couldn't find match for argument")
        at += 1
    if not args.bot_commands:
        raise EngineArgsError(
            "", "Required argument missing: bot-commands (a game needs at least 1 bot command)"
        )
    return args


def _store(args: EngineArgs, flag: _Flag, text: str) -> None:
    assert flag.read is not None
    try:
        value = flag.read(text)
    except ValueError as exc:
        raise EngineArgsError(str(flag), str(exc)) from None
    if flag.kind == "values":
        args.override_names.append(text)
    elif value is None:
        setattr(args, flag.field, flag.default)
    else:
        setattr(args, flag.field, value)


def version_text() -> str:
    """What ``--version`` prints: TCLAP's layout, the engine's version."""
    return f"\nsnakewar halite play  version: {ENGINE_VERSION}\n\n"


_SHOWN = ("seed", "width", "height", "players", "turn-limit", "replay-directory", "no-replay",
          "no-compression", "no-logs", "results-as-json", "constants-file", "print-constants",
          "strict", "no-timeout", "override-names", "verbosity", "map-type", "from-snapshot",
          "table", "bot-logs", "ignore_rest", "version", "help")  # fmt: skip
"""The flags in the order ``--help`` lists them (the game's first, then the outputs)."""


def usage() -> str:
    """What ``--help`` prints."""
    import textwrap

    lines = [
        "Usage: snakewar halite play [FLAGS] BOT_COMMAND...",
        "",
        "  Play one Halite III game between bots, as the official engine `halite` plays",
        "  it: the same flags, read the same way, the same replay and error log files,",
        "  and the same log on stderr.  A bot command is a program and its arguments",
        "  (run without a shell; leading NAME=value words set its environment), or",
        "  builtin:NAME[?opts] for a built-in bot played in-process.",
        "",
        "  As the engine's: flags and bot commands may come in any order; each flag",
        "  once, but -v and -o; a word that is no flag is a bot command; -- ends the",
        "  flags; -vvv is -v three times.",
        "",
        "Flags:",
    ]
    by_name = {flag.name: flag for flag in _FLAGS}
    for name in _SHOWN:
        flag = by_name[name]
        if flag.kind == "end":
            names = "--, --ignore_rest"
        else:
            names = f"-{flag.letter}, --{flag.name}" if flag.letter else f"--{flag.name}"
        if flag.value_name:
            names += f" {flag.value_name}"
        text = textwrap.wrap(flag.help, 79 - 30, break_on_hyphens=False)
        lines.append(f"  {names:27} {text[0]}")
        lines.extend(f"{'':30}{rest}" for rest in text[1:])
    return "\n".join(lines) + "\n"
