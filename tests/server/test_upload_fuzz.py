"""Issue 30: every refused bot upload is a 4xx that names no server path.

A probe of a public server found a zip with a 4,000-character member name answered
500 (the file system refused the name) and a damaged archive's error quoted the
server's scratch folder.  Here the upload route of a public server gets malformed
archives of both kinds, zip and tar.gz (long names, absolute paths, ``..``, links,
devices, truncated, bad checksums, bombs by ratio, nested, clashing members...): each
is refused with a 4xx whose body holds no server path, and nothing is registered.
"""

from __future__ import annotations

import gzip
import io
import re
import tarfile
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.referee import uploads
from snakewar.server.routers import snakes
from snakewar.server.safety import RateLimiter
from tests.server.accounts import make_user, public_client

BOT = b"import hlt\n"


def _zip(members: list[tuple[str, bytes]], *, method: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w", method) as archive:
        warnings.simplefilter("ignore")  # a duplicate name is the point of one case
        for name, data in members:
            archive.writestr(zipfile.ZipInfo(name), data, compress_type=method)
    return buffer.getvalue()


def _zip_link() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        info = zipfile.ZipInfo("MyBot.py")
        info.external_attr = (0o120777 << 16) | 0x20  # a symbolic link, as Unix zip writes it
        archive.writestr(info, "/etc/passwd")
    return buffer.getvalue()


def _zip_bad_crc() -> bytes:
    data = bytearray(_zip([("MyBot.py", b"print('hello')\n" * 20)], method=zipfile.ZIP_STORED))
    at = data.index(b"print")
    data[at] ^= 0x01  # stored bytes changed; the CRC in both headers is the old one
    return bytes(data)


def _zip_flagged(flag: int) -> bytes:
    data = bytearray(_zip([("MyBot.py", BOT)]))
    # The general-purpose flags of the local header (offset 6) and the central one (8).
    data[6] |= flag
    central = data.index(b"PK\x01\x02")
    data[central + 8] |= flag
    return bytes(data)


def _zip_method(method: int) -> bytes:
    data = bytearray(_zip([("MyBot.py", BOT)], method=zipfile.ZIP_STORED))
    data[8:10] = method.to_bytes(2, "little")
    central = data.index(b"PK\x01\x02")
    data[central + 10 : central + 12] = method.to_bytes(2, "little")
    return bytes(data)


def _zip_bomb() -> bytes:
    # 40 MB of zeros deflate to about 40 KB: a ratio of 1000 to 1, past the unpacked cap.
    buffer = io.BytesIO()
    with (
        zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive,
        archive.open("MyBot.py", "w", force_zip64=True) as out,
    ):
        for _ in range(40):
            out.write(bytes(1024 * 1024))
    return buffer.getvalue()


def _zip_lying_sizes() -> bytes:
    # The headers say 10 bytes; the data unpacks to much more.
    data = bytearray(_zip([("MyBot.py", bytes(1024 * 1024))]))
    data[22:26] = (10).to_bytes(4, "little")
    central = data.index(b"PK\x01\x02")
    data[central + 24 : central + 28] = (10).to_bytes(4, "little")
    return bytes(data)


def _tar(add: Callable[[tarfile.TarFile], None], *, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=fmt) as archive:
        add(archive)
    return buffer.getvalue()


def _tar_file(name: str, data: bytes = BOT) -> Callable[[tarfile.TarFile], None]:
    def add(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))

    return add


def _tar_special(kind: bytes, name: str = "MyBot.py", target: str = "") -> bytes:
    def add(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo(name)
        info.type = kind
        info.linkname = target
        archive.addfile(info)

    return _tar(add)


def _tar_two(first: str, second: str) -> bytes:
    def add(archive: tarfile.TarFile) -> None:
        _tar_file(first)(archive)
        _tar_file(second)(archive)

    return _tar(add)


def _tar_bad_checksum() -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as archive:
        _tar_file("MyBot.py")(archive)
    data = bytearray(raw.getvalue())
    data[0] ^= 0x01  # the name changes; the header's checksum is the old one
    return gzip.compress(bytes(data))


def _tar_bomb() -> bytes:
    return _tar(_tar_file("MyBot.py", bytes(40 * 1024 * 1024)))


def _gzip_bad_crc() -> bytes:
    data = bytearray(_tar(_tar_file("MyBot.py")))
    data[-8] ^= 0xFF  # the gzip trailer's CRC-32
    return bytes(data)


def _nested(depth: int) -> bytes:
    data = _zip([("MyBot.py", BOT)])
    for level in range(depth):
        data = _zip([(f"inner{level}.zip", data)])
    return data


def _deflate_garbage() -> bytes:
    data = bytearray(_zip([("MyBot.py", b"x" * 5000)]))
    at = data.index(b"MyBot.py") + len("MyBot.py")
    data[at : at + 20] = bytes(range(20))  # the compressed stream is noise now
    return bytes(data)


def _tar_huge_pax() -> bytes:
    def add(archive: tarfile.TarFile) -> None:
        info = tarfile.TarInfo("MyBot.py")
        # Past the unpacked cap: tarfile reads a pax header whole, whatever its size.
        info.pax_headers = {"comment": "x" * (uploads.MAX_UNPACKED_BYTES + 8 * 1024 * 1024)}
        info.size = len(BOT)
        archive.addfile(info, io.BytesIO(BOT))

    return _tar(add)


LONG = "a" * 4000
MALFORMED: dict[str, bytes] = {
    "zip: a 4,000-character member name": _zip([(LONG, BOT)]),
    "zip: a 4,000-character folder path": _zip([("/".join(["d" * 200] * 20) + "/MyBot.py", BOT)]),
    "zip: a 300-character name part": _zip([("p" * 300 + "/MyBot.py", BOT)]),
    "zip: a path 40 folders deep": _zip([("x/" * 40 + "MyBot.py", BOT)]),
    "zip: an absolute path": _zip([("/abs/MyBot.py", BOT)]),
    "zip: a Windows absolute path": _zip([("\\abs\\MyBot.py", BOT)]),
    "zip: a .. path": _zip([("../MyBot.py", BOT)]),
    "zip: a .. inside": _zip([("kit/../../MyBot.py", BOT)]),
    "zip: a backslash ..": _zip([("..\\..\\MyBot.py", BOT)]),
    "zip: a NUL in a name": _zip([("My\x00Bot.py", BOT)]),
    "zip: a newline in a name": _zip([("My\nBot.py", BOT)]),
    "zip: an empty name": _zip([("", BOT)]),
    "zip: a dot name": _zip([(".", BOT)]),
    "zip: a symbolic link": _zip_link(),
    "zip: the same member twice": _zip([("MyBot.py", BOT), ("MyBot.py", BOT)]),
    "zip: a file where a folder is": _zip([("hlt", BOT), ("hlt/x.py", BOT)]),
    "zip: a folder where a file is": _zip([("hlt/x.py", BOT), ("hlt", BOT)]),
    "zip: truncated to half": _zip([("MyBot.py", BOT * 100)])[:60],
    "zip: truncated central directory": _zip([("MyBot.py", BOT)])[:-10],
    "zip: a bad CRC": _zip_bad_crc(),
    "zip: an encrypted member": _zip_flagged(0x1),
    "zip: an unknown compression method": _zip_method(99),
    "zip: deflate noise": _deflate_garbage(),
    "zip: a bomb by ratio": _zip_bomb(),
    "zip: sizes that lie": _zip_lying_sizes(),
    "zip: nested zips and no bot": _nested(3),
    "zip: too many members": _zip([(f"f{i}.py", b"") for i in range(uploads.MAX_FILES + 5)]),
    "zip: empty": _zip([]),
    "tar: a 4,000-character member name (GNU)": _tar(_tar_file(LONG), fmt=tarfile.GNU_FORMAT),
    "tar: a 4,000-character member name (pax)": _tar(_tar_file(LONG)),
    "tar: an absolute path": _tar(_tar_file("/abs/MyBot.py")),
    "tar: a .. path": _tar(_tar_file("../MyBot.py")),
    "tar: a symbolic link": _tar_special(tarfile.SYMTYPE, target="/etc/passwd"),
    "tar: a hard link": _tar_special(tarfile.LNKTYPE, target="/etc/passwd"),
    "tar: a character device": _tar_special(tarfile.CHRTYPE),
    "tar: a fifo": _tar_special(tarfile.FIFOTYPE),
    "tar: the same member twice": _tar_two("MyBot.py", "MyBot.py"),
    "tar: a file where a folder is": _tar_two("hlt", "hlt/x.py"),
    "tar: a NUL-free control character": _tar(_tar_file("My\x1bBot.py")),
    "tar: truncated gzip": _tar(_tar_file("MyBot.py", BOT * 100))[:40],
    "tar: a bad gzip CRC": _gzip_bad_crc(),
    "tar: a bad header checksum": _tar_bad_checksum(),
    "tar: a bomb by ratio": _tar_bomb(),
    "tar: a huge pax header": _tar_huge_pax(),
    "tar: gzip of no tar": gzip.compress(b"this is no tar archive" * 100),
    "tar: raw deflate": zlib.compress(b"no gzip header"),
    "tar: empty gzip": gzip.compress(b""),
    "not an archive": b"#!/bin/sh\nrm -rf /\n",
    "empty body": b"",
}

# What would name the server's files: its scratch folders and their roots.
SERVER_PATHS = re.compile(
    r"/tmp\b|snakewar-uploads|/var/|/home/|/root\b|/proc/|/usr/|" + re.escape(tempfile.gettempdir())
)


@pytest.fixture
def public(monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    # Nothing runs: the archives are refused before any sandbox would start, so the
    # server is told it has one, and the refusals are checked on every machine.
    monkeypatch.setattr(snakes, "sandbox_available", lambda: None)
    with public_client() as client:
        # Many uploads from one client: past the per-client rate a 429 would hide the
        # answer under test.
        app: Any = client.app
        app.state.bot_upload_limiter = RateLimiter(per_minute=1e6, burst=10**6)
        yield client


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_a_malformed_archive_is_a_4xx_naming_no_server_path(public: TestClient, case: str) -> None:
    ann = make_user(public.store, "ann")
    for content_type in ("application/zip", "application/gzip"):
        refused = public.post(
            "/api/snakes/upload",
            params={"name": "bot", "language": "python3"},
            content=MALFORMED[case],
            headers={**ann, "Content-Type": content_type},
        )
        assert 400 <= refused.status_code < 500, (case, refused.status_code, refused.text)
        assert SERVER_PATHS.search(refused.text) is None, (case, refused.text)
        detail = refused.json()["detail"]
        assert isinstance(detail, str) and detail, (case, refused.text)
        assert "\n" not in detail and len(detail) <= 600, (case, detail)
    assert public.get("/api/snakes", headers=ann).json() == []


def test_the_probes_4000_character_name_is_refused_naming_the_limit(public: TestClient) -> None:
    ann = make_user(public.store, "ann")
    refused = public.post(
        "/api/snakes/upload",
        params={"name": "bot", "language": "python3"},
        content=MALFORMED["zip: a 4,000-character member name"],
        headers={**ann, "Content-Type": "application/zip"},
    )
    assert refused.status_code == 400, refused.text
    assert "4000 characters; expected at most 255" in refused.json()["detail"]


def test_a_damaged_archive_is_told_as_damaged_without_the_scratch_folder(
    public: TestClient,
) -> None:
    ann = make_user(public.store, "ann")
    for case, words in (
        ("zip: a bad CRC", "the archive is damaged (Bad CRC-32"),
        ("zip: the same member twice", "clashes with another member"),
        ("tar: a bad gzip CRC", "the archive is damaged"),
    ):
        refused = public.post(
            "/api/snakes/upload",
            params={"name": "bot", "language": "python3"},
            content=MALFORMED[case],
            headers={**ann, "Content-Type": "application/zip"},
        )
        assert refused.status_code == 400, (case, refused.text)
        assert words in refused.json()["detail"], (case, refused.text)


def test_a_good_archive_still_uploads_after_the_checks(public: TestClient) -> None:
    # The checks refuse what is malformed only: a starter kit in one folder goes in.
    ann = make_user(public.store, "ann")
    data = _zip([("kit/MyBot.py", BOT), ("kit/hlt/__init__.py", b""), ("kit/" + "n" * 90, b"")])
    made = public.post(
        "/api/snakes/upload",
        params={"name": "bot", "language": "python3"},
        content=data,
        headers={**ann, "Content-Type": "application/zip"},
    )
    assert made.status_code == 201, made.text
    assert made.json()["ref"] == "@ann/bot"
