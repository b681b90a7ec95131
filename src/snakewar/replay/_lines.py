"""Reading JSON Lines from users' files safely: size caps, gzip, clear line-numbered errors.

Both replay readers (Snakewar's format and the official CLI's JSONL) read through
:func:`json_lines`, so they refuse the same things the same way.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from snakewar.errors import SnakewarError

__all__ = [
    "MAX_FILE_BYTES",
    "MAX_LINE_BYTES",
    "JsonLine",
    "ReplayError",
    "ReplaySource",
    "json_lines",
    "short",
    "source_name",
]

MAX_LINE_BYTES = 8 * 1024 * 1024
"""The longest line a reader accepts (a turn line of a large board is a few kB)."""
MAX_FILE_BYTES = 512 * 1024 * 1024
"""The largest (uncompressed) file a reader accepts."""

_GZIP_MAGIC = b"\x1f\x8b"

ReplaySource = str | os.PathLike[str] | bytes | Iterable[str]
"""A path (``str`` or ``Path``), a whole file's bytes, or its lines as strings
(``text.splitlines()``)."""


class ReplayError(SnakewarError, ValueError):
    """Raised for a replay file that cannot be read: missing, empty, damaged or foreign.

    The message is one line that names the file, the line number and what was
    expected there.
    """


@dataclass(frozen=True, slots=True)
class JsonLine:
    """One non-blank line of a JSON Lines file, parsed."""

    number: int
    """1-based line number in the file."""
    value: Any
    """What ``json.loads`` returned."""


def short(value: Any, limit: int = 80) -> str:
    """``repr(value)``, cut to ``limit`` characters for error messages."""
    shown = repr(value)
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def source_name(source: ReplaySource) -> str:
    """The name used in error messages: the path, or ``replay`` for in-memory lines."""
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return "replay"


def _open(source: str | os.PathLike[str] | bytes, name: str) -> IO[bytes]:
    if isinstance(source, bytes):
        return io.BytesIO(source)
    try:
        return Path(source).open("rb")
    except FileNotFoundError:
        raise ReplayError(f"replay file {name!r} does not exist") from None
    except IsADirectoryError:
        raise ReplayError(f"{name!r} is a directory, not a replay file") from None
    except OSError as exc:
        raise ReplayError(f"cannot read {name!r}: {exc.strerror or exc}") from None


def _mib(n: int) -> str:
    mib = 1024 * 1024
    return f"{n // mib} MiB" if n % mib == 0 else f"{n} bytes"


def _raw_lines(
    source: ReplaySource, name: str, max_line_bytes: int, max_file_bytes: int
) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(number, bytes without the newline, ended_with_newline)`` per line."""
    if not isinstance(source, str | os.PathLike | bytes):
        total = 0
        for number, text in enumerate(source, 1):
            if not isinstance(text, str):
                raise ReplayError(f"{name}: line {number}: expected a string, got {short(text)}")
            data = text.rstrip("\r\n").encode("utf-8", "surrogatepass")
            total += len(data) + 1
            if len(data) > max_line_bytes:
                raise ReplayError(
                    f"{name}: line {number}: longer than {_mib(max_line_bytes)}; refused"
                )
            if total > max_file_bytes:
                raise ReplayError(f"{name}: larger than {_mib(max_file_bytes)}; refused")
            yield number, data, True
        return
    raw_file = _open(source, name)
    with raw_file:
        stream: IO[bytes] | gzip.GzipFile = raw_file
        compressed = raw_file.read(2) == _GZIP_MAGIC
        raw_file.seek(0)
        if compressed:
            stream = gzip.GzipFile(fileobj=raw_file, mode="rb")
        total = 0
        number = 0
        while True:
            try:
                raw = stream.readline(max_line_bytes + 2)
            except EOFError:
                # A gzip stream that ends early: what was read so far stands (a cut file).
                return
            except (OSError, zlib.error) as exc:
                raise ReplayError(f"{name}: damaged compressed data ({exc})") from None
            if not raw:
                return
            number += 1
            total += len(raw)
            if total > max_file_bytes:
                raise ReplayError(f"{name}: larger than {_mib(max_file_bytes)}; refused")
            ended = raw.endswith(b"\n")
            data = raw.rstrip(b"\r\n") if ended else raw
            if len(data) > max_line_bytes:
                raise ReplayError(
                    f"{name}: line {number}: longer than {_mib(max_line_bytes)}; refused"
                )
            yield number, data, ended


def json_lines(
    source: ReplaySource,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    max_file_bytes: int = MAX_FILE_BYTES,
    cut: list[int] | None = None,
    name: str | None = None,
) -> Generator[JsonLine, None, None]:
    """Parse every non-blank line of ``source`` as JSON.

    A last line that has no newline and is not valid JSON is a file cut short
    while being written: it is dropped and its number appended to ``cut`` (when
    given) instead of being an error.  ``name`` names the file in messages (default:
    :func:`source_name`).

    Raises:
        ReplayError: for a missing or unreadable file, a line or file over the
            caps, a line that is not UTF-8 or not JSON.
    """
    name = name or source_name(source)
    pending: tuple[int, bytes, bool] | None = None
    for item in _raw_lines(source, name, max_line_bytes, max_file_bytes):
        # Hold one line back: only the very last line may be cut short.
        if pending is not None:
            parsed = _parse(name, pending[0], pending[1])
            if parsed is not None:
                yield parsed
        pending = item
    if pending is not None:
        try:
            parsed = _parse(name, pending[0], pending[1])
        except ReplayError:
            if pending[2]:
                raise
            if cut is not None:
                cut.append(pending[0])
            return
        if parsed is not None:
            yield parsed


def _parse(name: str, number: int, data: bytes) -> JsonLine | None:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ReplayError(f"{name}: line {number}: not UTF-8 text ({exc.reason})") from None
    if not text.strip():
        return None
    try:
        value = json.loads(text)
    except ValueError as exc:  # JSONDecodeError, and ints past Python's digit limit
        raise ReplayError(f"{name}: line {number}: not JSON: {exc}") from None
    except RecursionError:
        raise ReplayError(f"{name}: line {number}: not JSON: nested too deeply") from None
    return JsonLine(number, value)
