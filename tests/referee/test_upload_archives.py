"""Uploaded bot archives are unpacked within their caps, their members' headers included.

``tarfile`` reads a pax header or a GNU long name whole, at the size its header claims:
1 MB of gzip held a 1 GiB pax header and made the server allocate 1 GiB (and spend a
minute of CPU) before any member was checked.  The stream is now capped at the
unpacked-size limit plus the headers' room, so such a header is refused as it is read.
"""

from __future__ import annotations

import gzip
import io
import random
import tarfile
import tracemalloc
from pathlib import Path

import pytest

from snakewar.referee.uploads import MAX_UNPACKED_BYTES, UploadedBotError, unpack_bot_archive


def tar_gz_with_header(kind: bytes, size: int) -> bytes:
    """A .tar.gz whose first header (pax ``x`` or GNU long name ``L``) claims ``size``."""
    header = tarfile.TarInfo("././@PaxHeader" if kind == tarfile.XHDTYPE else "././@LongLink")
    header.type = kind
    header.size = size
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", compresslevel=1) as packed:
        packed.write(header.tobuf(format=tarfile.USTAR_FORMAT))
        block = b"\0" * (1 << 20)
        for _ in range(size >> 20):
            packed.write(block)
        bot = tarfile.TarInfo("MyBot.py")
        packed.write(bot.tobuf(format=tarfile.USTAR_FORMAT) + b"\0" * 1024)
    return buffer.getvalue()


@pytest.mark.parametrize("kind", [tarfile.XHDTYPE, tarfile.GNUTYPE_LONGNAME], ids=["pax", "gnu"])
def test_a_header_claiming_256_mib_is_refused_as_it_is_read(tmp_path: Path, kind: bytes) -> None:
    data = tar_gz_with_header(kind, 256 << 20)
    assert len(data) < 2 << 20
    tracemalloc.start()
    try:
        with pytest.raises(UploadedBotError, match=f"more than {MAX_UNPACKED_BYTES} bytes"):
            unpack_bot_archive(data, tmp_path / "bot")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The unpacked-size cap and its headers' room at most, never the claimed 256 MiB.
    assert peak < MAX_UNPACKED_BYTES + (8 << 20), peak
    assert not (tmp_path / "bot").exists()


def test_long_names_and_pax_records_of_a_real_archive_still_unpack(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    deep = "hlt/" + "/".join(["a_rather_long_folder_name"] * 8) + "/positionals.py"
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as archive:
        for name, text in (("MyBot.py", b"print('hi')\n"), (deep, b"X = 1\n")):
            info = tarfile.TarInfo(name)
            info.size = len(text)
            info.pax_headers = {"comment": "é" * 100}
            archive.addfile(info, io.BytesIO(text))
    files = unpack_bot_archive(buffer.getvalue(), tmp_path / "bot")
    assert sorted(files) == sorted(["MyBot.py", deep])
    assert (tmp_path / "bot" / deep).read_bytes() == b"X = 1\n"


def test_damaged_and_cut_gzip_streams_are_one_line_refusals(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    noise = random.Random(31).randbytes(200_000)  # incompressible: the cut is mid-member
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("MyBot.py")
        info.size = len(noise)
        archive.addfile(info, io.BytesIO(noise))
    data = buffer.getvalue()
    with pytest.raises(UploadedBotError, match=r"^the archive is damaged \(.*\)$"):
        unpack_bot_archive(data[: len(data) // 2], tmp_path / "cut")
    with pytest.raises(UploadedBotError, match=r"^the upload is no \.zip or \.tar\.gz archive$"):
        unpack_bot_archive(b"\x1f\x8b\x08\x00" + b"\xff" * 64, tmp_path / "garbage")
    assert not (tmp_path / "cut").exists() and not (tmp_path / "garbage").exists()
