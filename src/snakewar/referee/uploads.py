"""Bots uploaded by users: an archive of files and a language from a fixed list.

An upload is a ``.zip`` or ``.tar.gz`` (told apart by content, not name) holding the
bot's files, like a starter kit: ``MyBot.py`` and its ``hlt/`` package.  It is unpacked
with every member checked (no absolute path, no ``..``, no link or device, a bounded
number of members, a bounded unpacked size counted while writing, not taken from the
headers); one top-level folder that holds everything is stripped.  A ``.tar.gz`` is
read as a stream of at most :data:`MAX_UNPACKED_BYTES` plus the members' headers:
``tarfile`` reads a pax or long-name header whole, whatever size it claims, so 1 MB
of gzip could otherwise make it allocate a gigabyte.  The language says
how it runs, always in a sandbox (:mod:`snakewar.referee.sandbox`): it is told from
the files (:mod:`snakewar.referee.languages`), and a compiled language's bot runs as it
was built (:mod:`snakewar.referee.builds`).
"""

from __future__ import annotations

import gzip
import hashlib
import io
import shutil
import stat
import tarfile
import tempfile
import threading
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO, Final

from snakewar.errors import EntrantError
from snakewar.referee.languages import LANGUAGES, Language, LanguageError, language_named
from snakewar.referee.process import Program
from snakewar.referee.sandbox import SandboxPolicy

__all__ = [
    "LANGUAGES",
    "MAX_ARCHIVE_BYTES",
    "MAX_FILES",
    "MAX_UNPACKED_BYTES",
    "Language",
    "UploadCache",
    "UploadedBotError",
    "UploadedProgram",
    "program_for_upload",
    "unpack_bot_archive",
]

MAX_ARCHIVE_BYTES: Final = 4 * 1024 * 1024
"""The largest archive accepted (compressed)."""
MAX_UNPACKED_BYTES: Final = 16 * 1024 * 1024
"""The most bytes an archive may unpack to."""
MAX_FILES: Final = 500
"""The most members (files and folders) an archive may hold."""
MAX_NAME_CHARS: Final = 255
"""The longest member path an archive may hold (one part is at most 100 characters)."""
MAX_PART_CHARS: Final = 100
MAX_DEPTH: Final = 16
"""The most folders deep a member may lie."""
MAX_BUILT_BYTES: Final = 32 * 1024 * 1024
"""The largest built bot (compressed) this server stores and unpacks: a build's cap."""
MAX_BUILT_UNPACKED_BYTES: Final = 128 * 1024 * 1024
"""The most bytes a built bot may unpack to (its build folder held at most 256 MiB)."""
MAX_BUILT_FILES: Final = 5000
"""The most members a built bot may hold (a CMake or Java build writes many files)."""

_CHUNK: Final = 64 * 1024
# What a tar stream may hold besides its files' bytes: a 512-byte header and up to 511
# bytes of padding per member, a long name's or pax record's own blocks, the end blocks.
_TAR_OVERHEAD: Final = MAX_FILES * 4096 + 64 * 1024


class UploadedBotError(EntrantError):
    """Raised for an uploaded bot that cannot be unpacked or run."""


def _members_zip(archive: zipfile.ZipFile) -> Iterator[tuple[str, bool, int, IO[bytes] | None]]:
    for info in archive.infolist():
        if not info.filename:
            raise UploadedBotError("an archive member has an empty name")
        mode = (info.external_attr >> 16) & 0xFFFF
        if mode and stat.S_ISLNK(mode):
            raise UploadedBotError(f"archive member {info.filename[:80]!r} is a link")
        if info.is_dir():
            yield info.filename, True, 0, None
        else:
            yield info.filename, False, mode, archive.open(info)


def _members_tar(archive: tarfile.TarFile) -> Iterator[tuple[str, bool, int, IO[bytes] | None]]:
    for info in archive:
        if info.isdir():
            yield info.name, True, 0, None
        elif info.isreg():
            yield info.name, False, info.mode, archive.extractfile(info)
        else:
            raise UploadedBotError(
                f"archive member {info.name[:80]!r} is a link or device; only files are kept"
            )


class _CappedStream(io.RawIOBase):
    """A decompressed stream that refuses to give more than ``limit`` bytes in all."""

    def __init__(self, source: io.BufferedIOBase, limit: int, refusal: str) -> None:
        super().__init__()
        self._source = source
        self._limit = limit
        self._refusal = refusal
        self._seen = 0

    def readable(self) -> bool:
        """It is read (by ``tarfile``), never written."""
        return True

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` bytes; never more than one byte past the limit is decompressed."""
        room = self._limit - self._seen + 1
        chunk = self._source.read(room if size < 0 or size > room else size)
        self._seen += len(chunk)
        if self._seen > self._limit:
            raise UploadedBotError(self._refusal)
        return chunk


def _safe_path(name: str) -> PurePosixPath:
    # Checked before the name touches the file system: a name the file system refuses
    # (too long, a NUL) would otherwise fail there, as an error naming the server's path.
    shown = f"{name[:80]!r}{'...' if len(name) > 80 else ''}"
    if len(name) > MAX_NAME_CHARS:
        raise UploadedBotError(
            f"archive member {shown} has a name of {len(name)} characters; "
            f"expected at most {MAX_NAME_CHARS}"
        )
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise UploadedBotError(f"archive member {shown} has a control character in its name")
    path = PurePosixPath(name.replace("\\", "/"))
    if path.is_absolute() or ".." in path.parts or not path.parts:
        raise UploadedBotError(f"archive member {shown} leaves the bot's folder")
    if len(path.parts) > MAX_DEPTH or any(len(part) > MAX_PART_CHARS for part in path.parts):
        raise UploadedBotError(
            f"archive member {shown} lies deeper than {MAX_DEPTH} folders or has a "
            f"name part longer than {MAX_PART_CHARS} characters"
        )
    return path


def unpack_bot_archive(
    data: bytes,
    destination: Path,
    *,
    max_bytes: int = MAX_UNPACKED_BYTES,
    max_files: int = MAX_FILES,
    max_archive_bytes: int = MAX_ARCHIVE_BYTES,
) -> list[str]:
    """Unpack an uploaded bot into ``destination`` (made, must not exist); its files.

    Folders are made readable by every user (``0755``, files ``0644``, or ``0755`` when
    executable) so that a sandbox's own user can read them.

    Raises:
        UploadedBotError: not a zip or tar.gz, a member outside the folder, a link, a
            device, too many members, or more than ``max_bytes`` unpacked.
    """
    if len(data) > max_archive_bytes:
        raise UploadedBotError(
            f"archive of {len(data)} bytes is too large; expected at most {max_archive_bytes}"
        )
    stream = io.BytesIO(data)
    members: Iterator[tuple[str, bool, int, IO[bytes] | None]]
    opened: zipfile.ZipFile | tarfile.TarFile
    capped: _CappedStream | None = None
    try:
        if zipfile.is_zipfile(stream):
            opened = zipfile.ZipFile(stream)
            members = _members_zip(opened)
        else:
            stream.seek(0)
            # A stream ("r|"), so that every byte tarfile reads comes through the cap,
            # a header's too.  Closed by the ``with opened`` below.
            capped = _CappedStream(
                gzip.GzipFile(fileobj=stream, mode="rb"),
                max_bytes + _TAR_OVERHEAD,
                f"archive unpacks to more than {max_bytes} bytes",
            )
            tar = tarfile.open(fileobj=capped, mode="r|")  # noqa: SIM115
            opened, members = tar, _members_tar(tar)
    except UploadedBotError:  # the cap's refusal, told as it is
        raise
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        OSError,
        EOFError,
        zlib.error,
        RuntimeError,
        NotImplementedError,
        ValueError,
        LookupError,
    ):
        raise UploadedBotError("the upload is no .zip or .tar.gz archive") from None
    destination.mkdir(mode=0o755)
    files: list[str] = []
    total = 0
    name = ""
    try:
        with opened:
            for count, (name, is_dir, mode, source) in enumerate(members, start=1):
                if count > max_files:
                    raise UploadedBotError(f"archive holds more than {max_files} members")
                path = _safe_path(name)
                target = destination.joinpath(*path.parts)
                if is_dir:
                    target.mkdir(mode=0o755, parents=True, exist_ok=True)
                    continue
                target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
                assert source is not None
                with source, open(target, "xb") as out:
                    while chunk := source.read(_CHUNK):
                        total += len(chunk)
                        if total > max_bytes:
                            raise UploadedBotError(
                                f"archive unpacks to more than {max_bytes} bytes"
                            )
                        out.write(chunk)
                target.chmod(0o755 if mode & 0o111 else 0o644)
                files.append(str(path))
            if capped is not None:
                # A tar stream ends before its gzip trailer is read: read on to the end
                # (through the cap), so that a damaged archive's CRC is checked too.
                while capped.read(_CHUNK):
                    pass
    except UploadedBotError:
        shutil.rmtree(destination, ignore_errors=True)
        raise
    except (FileExistsError, NotADirectoryError, IsADirectoryError):
        shutil.rmtree(destination, ignore_errors=True)
        # The exception's text names the server's folder: the answer never does.
        raise UploadedBotError(
            f"archive member {name[:80]!r} clashes with another member (the same path twice, "
            "or a file where a folder is)"
        ) from None
    except (
        tarfile.TarError,
        zipfile.BadZipFile,
        EOFError,
        gzip.BadGzipFile,
        zlib.error,
        OSError,
        RuntimeError,  # zipfile: an encrypted member
        NotImplementedError,  # zipfile: a compression method it cannot read
        ValueError,
        LookupError,
    ) as exc:
        shutil.rmtree(destination, ignore_errors=True)
        raise UploadedBotError(f"the archive is damaged ({_why(exc)})") from None
    except BaseException:
        shutil.rmtree(destination, ignore_errors=True)
        raise
    _strip_single_folder(destination)
    return files


def _why(exc: BaseException) -> str:
    """Why an archive could not be read, in words that never name a server path.

    The archive modules' own messages name members and checksums; an ``OSError``'s
    names the file it was writing, in the server's scratch folder: only its kind is told.
    """
    if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
        return exc.strerror or type(exc).__name__
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text[:200]


def _strip_single_folder(destination: Path) -> None:
    """A starter kit zipped as ``kit/MyBot.py``: keep what is inside ``kit/``."""
    entries = list(destination.iterdir())
    if len(entries) != 1 or not entries[0].is_dir():
        return
    inner = entries[0]
    holding = destination.with_name(destination.name + ".inner")
    inner.rename(holding)
    for item in holding.iterdir():
        item.rename(destination / item.name)
    holding.rmdir()


@dataclass(frozen=True, slots=True)
class UploadedProgram(Program):
    """The sandboxed program of an uploaded bot, with what names its archive.

    ``sha256`` (hex) and ``language`` are what a cluster's worker needs to fetch the
    archive from the database, check it and run it there (its ``files`` are a folder
    of this machine's cache only).
    """

    sha256: str = ""
    language: str = ""


def program_for_upload(
    directory: Path, language: str, policy: SandboxPolicy | None = None, *, sha256: str = ""
) -> UploadedProgram:
    """The sandboxed program of an unpacked upload (``sha256``: its archive's).

    ``directory`` holds what runs: a compiled language's built folder, another's files.

    Raises:
        UploadedBotError: an unknown language, or no entry file for it.
    """
    try:
        found = language_named(language)
    except LanguageError as exc:
        raise UploadedBotError(str(exc)) from None
    entry = found.produces or found.main
    if not (directory / entry).is_file():
        what = "a built" if found.compiled else "a"
        raise UploadedBotError(f"{what} {found.label} bot needs {entry} at the archive's top")
    return UploadedProgram(
        found.argv,
        sandbox=policy or SandboxPolicy(),
        files=str(directory),
        sha256=sha256,
        language=language,
    )


class UploadCache:
    """Uploaded bots unpacked once each, in a folder of this process (removed by :meth:`close`).

    A bot is keyed by its archive's SHA-256, so a re-uploaded bot gets a fresh folder
    and games already running keep the files they started with.
    """

    def __init__(self) -> None:
        self._root = Path(tempfile.mkdtemp(prefix="snakewar-uploads-"))
        self._root.chmod(0o755)  # a sandbox's own user reads the bots' files
        self._lock = threading.Lock()

    def folder(self, data: bytes) -> Path:
        """The unpacked folder of the archive ``data`` (unpacked on first use).

        Raises:
            UploadedBotError: an archive that cannot be unpacked.
        """
        key = hashlib.sha256(data).hexdigest()
        folder = self._root / key
        with self._lock:
            if not folder.is_dir():
                staging = self._root / f"{key}.partial"
                shutil.rmtree(staging, ignore_errors=True)
                # Stored archives only: an upload was checked under the upload's caps
                # when it came, a built bot was made by a build under its own.
                unpack_bot_archive(
                    data,
                    staging,
                    max_bytes=MAX_BUILT_UNPACKED_BYTES,
                    max_files=MAX_BUILT_FILES,
                    max_archive_bytes=MAX_BUILT_BYTES,
                )
                staging.rename(folder)
        return folder

    def close(self) -> None:
        """Remove every unpacked bot."""
        shutil.rmtree(self._root, ignore_errors=True)
