"""The official Halite III engine's console log, line for line.

The engine logs to stderr as it plays: ``[info] Map seed is 42``,
``[warn] [17] [P1] Killing player``.  Each line is the level's name (coloured with ANSI
escapes, always, as the engine writes them), the turn being played when there is one,
the player it is about when there is one, and the message.  How much is logged is the
engine's ``-v`` count (:func:`level_for_verbosity`); ``--results-as-json`` turns the log
off.  The referee (:func:`snakewar.games.halite3.referee.runner.play_halite`) logs what
the engine logs while a game runs; ``snakewar halite play`` logs the lines before and after it.
"""

from __future__ import annotations

import enum
from typing import TextIO

__all__ = ["ENDED", "INIT", "EngineLog", "LogLevel", "level_for_verbosity"]

INIT = -1
"""The turn number of the initialization phase (no ``[turn]`` in the lines)."""
ENDED = -2
"""The turn number once the game has ended (no ``[turn]`` in the lines)."""


class LogLevel(enum.IntEnum):
    """The engine's log levels, from the least to the most severe."""

    DEBUG = 0
    INFO = 1
    WARNING = 2
    ERROR = 3


_NAMES = ("debug", "info", "warn", "error")
# The engine's colours for each level, written even when stderr is not a terminal.
_COLOURS = ("\033[0m", "\033[0;36m", "\033[1;33m", "\033[1;31m")
_RESET = "\033[0m"


def level_for_verbosity(count: int | None) -> LogLevel:
    """The least severe level logged for ``count`` ``-v`` flags (``None``: none given).

    As the engine: no ``-v`` is the same as ``-vvv`` (info and above); ``-v`` logs only
    errors, ``-vv`` warnings too, ``-vvvv`` (or more) debug lines too.
    """
    levels = len(LogLevel)
    verbosity = count or 3  # the switch is counted from 1: 0 is "not given"
    return LogLevel(0 if verbosity > levels else levels - verbosity)


class EngineLog:
    """Writes the engine's log lines to ``stream``.

    Attributes:
        level: the least severe level written.
        enabled: ``False`` writes nothing (the engine with ``--results-as-json``).
        turn: the turn shown in each line, or :data:`INIT` / :data:`ENDED` for none.
    """

    def __init__(
        self, stream: TextIO, level: LogLevel = LogLevel.INFO, *, enabled: bool = True
    ) -> None:
        self.stream = stream
        self.level = level
        self.enabled = enabled
        self.turn = INIT

    def wants(self, level: LogLevel) -> bool:
        """Whether a line at ``level`` would be written (to skip building it)."""
        return self.enabled and level >= self.level

    def log(self, message: str, level: LogLevel = LogLevel.INFO, player: int | None = None) -> None:
        """Write one line (dropped below :attr:`level`)."""
        if self.wants(level):
            self._write(message, level, player)

    def log_lines(self, text: str, player: int | None = None) -> None:
        """Write each line of ``text`` as an error line (the engine's ``log_lines``)."""
        if self.wants(LogLevel.ERROR):
            for line in _lines(text):
                self._write(line, LogLevel.ERROR, player)

    def _write(self, message: str, level: LogLevel, player: int | None) -> None:
        turn = f"[{self.turn}] " if self.turn >= 0 else ""
        who = f"[P{player}] " if player is not None else ""
        line = f"[{_COLOURS[level]}{_NAMES[level]}{_RESET}] {turn}{who}{message}\n"
        # A line at a time, flushed, as the engine's std::endl: the log is read live.
        self.stream.write(line)
        self.stream.flush()


def _lines(text: str) -> list[str]:
    """``text`` split as C++'s ``getline`` splits it: a final newline ends the last line."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines
