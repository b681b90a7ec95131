"""Output files and folders of the commands: checked before the work, written after it.

A command that writes a file at the end of its work (a replay after a game, results
after a batch, an export) checks the path first with :func:`check_writable` or
:func:`make_directory`, so a typo costs nothing, and writes it with
:func:`write_output`: a failure either way is one :class:`OutputPathError` naming the
path, printed as one ``error:`` line.
"""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path

from snakewar.errors import SnakewarError

__all__ = ["OutputPathError", "check_writable", "make_directory", "write_output"]


class OutputPathError(SnakewarError, OSError):
    """Raised when an output file or folder cannot be written (checked before the work)."""


def _why(path: str, what: str, exc: OSError) -> OutputPathError:
    if exc.errno == errno.ENOENT:
        parent = str(Path(path).parent)
        return OutputPathError(f"{what} {path!r}: directory {parent!r} does not exist")
    if exc.errno == errno.EISDIR:
        return OutputPathError(f"{what} {path!r} is a directory (expected a file path)")
    return OutputPathError(f"{what} {path!r} cannot be written: {exc.strerror or exc}")


def check_writable(path: str | os.PathLike[str], what: str) -> Path:
    """Fail early, naming the path, if the file ``path`` cannot be written.

    The file is opened for appending (and removed again if that made it), which tells
    what writing it will meet: a missing or read-only folder, a name too long, a
    folder in the way, permissions, a read-only file system.  A device or a pipe that
    is there already (``/dev/stdout``) is only checked for permission: opening one
    can wait for a reader.

    Args:
        path: The file to write later.
        what: What it is, for the message (e.g. ``"replay file"``).

    Returns:
        The path.

    Raises:
        OutputPathError: if it cannot be written.
    """
    text = os.fspath(path)
    target = Path(text)
    try:
        if target.is_dir():
            raise OutputPathError(f"{what} {text!r} is a directory (expected a file path)")
        if target.exists() and not target.is_file():
            if not os.access(target, os.W_OK):
                raise OutputPathError(f"{what} {text!r} is not writable")
            return target
        existed = target.exists()
        with target.open("ab"):
            pass
        if not existed:
            target.unlink()
    except OutputPathError:
        raise
    except OSError as exc:
        raise _why(text, what, exc) from None
    return target


def make_directory(path: str | os.PathLike[str], what: str) -> Path:
    """Create the folder ``path`` (and its parents) if missing; fail early, naming it.

    Args:
        path: The folder that files will be written into.
        what: What it is, for the message (e.g. ``"replay directory"``).

    Returns:
        The folder.

    Raises:
        OutputPathError: if it cannot be made (a file is in the way, no permission) or
            a file cannot be written in it.
    """
    text = os.fspath(path)
    target = Path(text)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except FileExistsError:
        raise OutputPathError(f"{what} {text!r} is a file (expected a directory)") from None
    except OSError as exc:
        raise OutputPathError(f"{what} {text!r} cannot be made: {exc.strerror}") from None
    try:
        # A file made and removed at once: what writing into it will meet.
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as exc:
        raise OutputPathError(f"{what} {text!r} is not writable: {exc.strerror}") from None
    return target


def write_output(path: str | os.PathLike[str], data: str | bytes, what: str) -> Path:
    """Write ``data`` (text as UTF-8) to the file ``path``.

    Raises:
        OutputPathError: if it cannot be written after all (the disk filled up, the
            folder went away), naming the path.
    """
    text = os.fspath(path)
    target = Path(text)
    try:
        if isinstance(data, str):
            target.write_text(data, encoding="utf-8")
        else:
            target.write_bytes(data)
    except OSError as exc:
        raise _why(text, what, exc) from None
    return target
