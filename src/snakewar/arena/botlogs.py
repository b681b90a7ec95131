"""Each bot's log of each game, kept in a folder: the view ``--bot-logs DIR`` gives.

Games whose bots are programs (their stdout is the game's channel) record what each bot
wrote to stderr, with the game's own lines about it, as
:attr:`~snakewar.engine.protocol.EntrantResult.log`.  :func:`write_bot_logs` keeps one
file per bot per game, ``DIR/<game>-seat<N>-<name>.log`` (empty when it wrote nothing,
so that every bot of every game has its file), and :func:`failure_lines` says, for each
bot that failed, why and the last lines it wrote, as ``--launch-logs`` does for bot
servers.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from snakewar.engine.protocol import EntrantResult

__all__ = ["failure_lines", "log_tail", "write_bot_logs"]

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
_TAIL_LINES = 8
_TAIL_CHARS = 600


def _safe(text: str) -> str:
    # A file name from a bot's name: no separators, no dot files, bounded.
    return _UNSAFE.sub("_", text).strip("._")[:60] or "bot"


def write_bot_logs(directory: Path, label: str, results: Sequence[EntrantResult]) -> list[Path]:
    """Write each bot's log of a game (its ``results``) into ``directory``; the files, by seat.

    ``label`` names the game in the file names (a job id or ``seed-42``).
    """
    written = []
    for result in sorted(results, key=lambda r: r.seat):
        path = directory / f"{_safe(label)}-seat{result.seat}-{_safe(result.name)}.log"
        path.write_text(result.log, encoding="utf-8", errors="replace")
        written.append(path)
    return written


def log_tail(log: str, lines: int = _TAIL_LINES) -> str:
    """The last ``lines`` non-blank lines of ``log``, joined by `` | ``, capped."""
    kept = [line.strip() for line in log.splitlines() if line.strip()]
    joined = " | ".join(kept[-lines:])
    return joined if len(joined) <= _TAIL_CHARS else "..." + joined[-_TAIL_CHARS:]


def failure_lines(
    label: str, results: Sequence[EntrantResult], paths: Sequence[Path] | None = None
) -> list[str]:
    """One line per bot that failed in a game: why, its log's last lines, its file."""
    out = []
    for result in sorted(results, key=lambda r: r.seat):
        if not result.failure:
            continue
        tail = log_tail(result.log)
        said = f"; last lines of its log: {tail}" if tail else "; its log is empty"
        where = ""
        if paths is not None and result.seat < len(paths):
            where = f" ({paths[result.seat]})"
        out.append(f"{label}: {result.name} failed: {result.failure}{said}{where}")
    return out
