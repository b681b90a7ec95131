"""Reading Halite III replays in the server's decoder pool: the jobs its workers run.

The routes (:mod:`snakewar.games.halite3.routes`) hand an uploaded or stored ``.hlt`` to
:class:`~snakewar.server.decoding.DecoderPool`, whose memory-capped worker processes run
the functions here: :func:`decode_document`, :func:`gzipped_document`,
:func:`played_upload`.  They are this module's, so a worker imports only the replay
reader, never the web framework.  The caps (:data:`MAX_DOCUMENT_BYTES`,
:data:`MAX_DOCUMENT_ELEMENTS`) refuse most of a decompression bomb before it is built;
the pool's memory cap stops the rest (a ``MemoryError``, answered as 413).
"""

from __future__ import annotations

import dataclasses
import gzip
import json
from typing import TYPE_CHECKING, Final

from snakewar.games.halite3.referee.runner import NAME_MAX_LENGTH
from snakewar.games.halite3.replay.hlt import HltTooLargeError

if TYPE_CHECKING:
    from snakewar.engine.protocol import PlayedGame

__all__ = [
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_ELEMENTS",
    "MAX_UPLOAD_BYTES",
    "decode_document",
    "gzipped_document",
    "played_upload",
]

MAX_UPLOAD_BYTES: Final = 32 * 1024 * 1024
"""The largest ``.hlt`` (compressed) the server accepts: 32 MiB (``storage.MAX_REPLAY_BYTES``)."""

MAX_DOCUMENT_BYTES: Final = 32 * 1024 * 1024
"""The largest decompressed replay the server reads: 32 MiB (a 64x64 4-player game is ~2 MB)."""

MAX_DOCUMENT_ELEMENTS: Final = 3_000_000
"""The most keys and values a replay read by the server may hold (``replay.json_elements``).

The largest official replays (64x64, 4 players) hold 0.3 million; four built-in
``greedy`` bots, which build ships all game, make 1.3 million on a 64x64 map and 1.9
million on the largest map (128x128, 702 turns).  At most about 64 bytes of Python
objects each, this bounds one parse to about 200 MiB, where 31 MiB of ``{},``
(21 million elements) made 900 MiB.
"""


def _too_much_memory(name: str) -> HltTooLargeError:
    return HltTooLargeError(
        f"{name}: reading it needs more memory than the server gives one replay; "
        "expected a smaller replay"
    )


def _document_text(data: bytes, name: str) -> bytes:
    # Imported here, in the worker: the server's own process needs no replay reader.
    from snakewar.games.halite3.adapter import read_checked_hlt

    document = read_checked_hlt(
        data,
        name=name,
        max_bytes=MAX_UPLOAD_BYTES,
        max_document_bytes=MAX_DOCUMENT_BYTES,
        max_elements=MAX_DOCUMENT_ELEMENTS,
        max_name_length=NAME_MAX_LENGTH,
    ).document
    return json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode()


def decode_document(data: bytes) -> bytes:
    """A ``.hlt`` file's JSON document as compact UTF-8 text (what the viewer reads).

    Raises:
        HltReplayError: a file that is not a readable replay, or is past a cap
            (:class:`HltTooLargeError`, also when the parse runs out of memory).
    """
    try:
        return _document_text(data, "replay")
    except MemoryError:
        raise _too_much_memory("replay") from None


def gzipped_document(data: bytes) -> bytes:
    """:func:`decode_document`, gzipped (what the stored-replay route serves and caches)."""
    try:
        return gzip.compress(_document_text(data, "replay"), compresslevel=5, mtime=0)
    except MemoryError:
        raise _too_much_memory("replay") from None


def played_upload(data: bytes, game_id: str) -> PlayedGame:
    """An uploaded ``.hlt`` as a game to store, *without* its file (``data.replay`` empty).

    The caller has the file already; sending it back from the worker would copy up to
    32 MiB through a pipe for nothing.

    Raises:
        HltReplayError: a file that is not a readable replay, or is past a cap.
    """
    from snakewar.games.halite3.adapter import played_from_hlt

    try:
        played = played_from_hlt(
            data,
            game_id=game_id,
            source="upload",
            max_bytes=MAX_UPLOAD_BYTES,
            max_document_bytes=MAX_DOCUMENT_BYTES,
            max_elements=MAX_DOCUMENT_ELEMENTS,
            max_name_length=NAME_MAX_LENGTH,
        )
    except MemoryError:
        raise _too_much_memory("replay") from None
    return dataclasses.replace(played, data=dataclasses.replace(played.data, replay=b""))
