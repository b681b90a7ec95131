"""Link previews of a game: OpenGraph and Twitter card tags, and the card's image.

A link to a game pasted in a chat shows its title, a description and an image.  None of
them names the winner unless the sharer asked (``?reveal=1``, the share panel's "say who
won" option): a finished game's preview says only who plays and how long it lasted, so
that whoever opens the link watches it unspoiled.

The image (:func:`card_png`) is drawn here, without an imaging library: the site's name
and the game's title in a small dot font, one band per entrant in its colour with its name
under it (the winner's band taller, with a gold edge, only when revealed), written as a
PNG with :mod:`zlib`.
"""

from __future__ import annotations

import functools
import re
import struct
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Final
from urllib.parse import quote, urlencode

from fastapi import Query, Request

from snakewar.adapters import get_game
from snakewar.storage import AsyncStore, GameNotFoundError

if TYPE_CHECKING:
    from snakewar.server.manager import GameManager

__all__ = [
    "CARD_SIZE",
    "GamePreview",
    "RevealQuery",
    "card_png",
    "game_preview",
    "page_preview_tags",
    "page_query",
    "preview_tags",
    "revealed",
]

CARD_SIZE: Final = (1200, 630)
"""The card's width and height: the size OpenGraph and Twitter's large card ask for."""

_BACKGROUND: Final = (24, 28, 38)
_GOLD: Final = (240, 190, 40)
_PALETTE: Final = (
    (229, 57, 53),
    (30, 136, 229),
    (67, 160, 71),
    (251, 140, 0),
    (142, 36, 170),
    (0, 172, 193),
    (216, 27, 96),
    (124, 179, 66),
)
_HEX: Final = re.compile(r"#?([0-9a-fA-F]{6})")


@dataclass(frozen=True, slots=True)
class GamePreview:
    """What a game's preview shows (the caller decides whether the winner is in it).

    Attributes:
        game_title: the game's title, as its catalogue gives it.
        names: the entrants' names, by seat.
        colors: their colours (``#rrggbb``, or ``""`` for the palette's).
        finished: whether the game is over.
        turns: the turns played (so far).
        winner: the winner's seat, when revealed and there is one alone.
        draw: whether it ended in a draw, when revealed.
    """

    game_title: str
    names: tuple[str, ...]
    colors: tuple[str, ...]
    finished: bool
    turns: int
    winner: int | None = None
    draw: bool = False


def _names(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``... (six at most, then how many more)."""
    shown = [n for n in names[:6] if n] or ["no entrants"]
    more = len(names) - len(shown)
    text = ", ".join(shown[:-1]) + (" and " if len(shown) > 1 else "") + shown[-1]
    return text + (f" and {more} more" if more > 0 else "")


def preview_tags(
    preview: GamePreview, *, page_url: str, image_url: str, revealed: bool
) -> list[tuple[str, str, str]]:
    """The ``<meta>`` tags of a game's page: ``(attribute, name, content)`` each.

    ``attribute`` is ``property`` (OpenGraph) or ``name`` (Twitter); the template writes
    them escaped.
    """
    title = f"{preview.game_title}: " + " vs ".join(n for n in preview.names[:6] if n)
    if len(preview.names) > 6:
        title += f" and {len(preview.names) - 6} more"
    who = _names(preview.names)
    if not preview.finished:
        description = f"Live now: {who} playing {preview.game_title} (turn {preview.turns})."
    elif revealed and preview.winner is not None:
        winner = preview.names[preview.winner]
        description = f"{winner} won a game of {preview.game_title} against " + _names(
            [n for i, n in enumerate(preview.names) if i != preview.winner]
        )
        description += f" in {preview.turns} turns."
    elif revealed and preview.draw:
        description = f"{who} drew a game of {preview.game_title} after {preview.turns} turns."
    elif revealed:
        description = f"{who} played {preview.game_title} for {preview.turns} turns: no winner."
    else:
        description = (
            f"{who} played {preview.game_title} for {preview.turns} turns. "
            "Watch who wins (no spoilers here)."
        )
    return [
        ("property", "og:type", "website"),
        ("property", "og:site_name", "Snakewar"),
        ("property", "og:title", title),
        ("property", "og:description", description),
        ("property", "og:url", page_url),
        ("property", "og:image", image_url),
        ("property", "og:image:width", str(CARD_SIZE[0])),
        ("property", "og:image:height", str(CARD_SIZE[1])),
        ("name", "twitter:card", "summary_large_image"),
        ("name", "twitter:title", title),
        ("name", "twitter:description", description),
        ("name", "twitter:image", image_url),
    ]


def page_query(turn: int | None, revealed: bool) -> str:
    """The query a shared page's URL keeps: its turn, and whether it reveals the winner."""
    query: dict[str, str] = {}
    if turn is not None:
        query["turn"] = str(turn)
    if revealed:
        query["reveal"] = "1"
    return f"?{urlencode(query)}" if query else ""


def _color(text: str, seat: int) -> tuple[int, int, int]:
    found = _HEX.fullmatch(text.strip()) if text else None
    if found is None:
        return _PALETTE[seat % len(_PALETTE)]
    value = int(found[1], 16)
    return (value >> 16) & 255, (value >> 8) & 255, value & 255


# A 5x7 dot font for the card's words (drawn here: no font files, no imaging library).
# Each glyph is seven rows of five dots, "1" inked; lowercase is drawn as uppercase.
_GLYPHS: Final = {
    "A": "01110 10001 10001 11111 10001 10001 10001",
    "B": "11110 10001 10001 11110 10001 10001 11110",
    "C": "01110 10001 10000 10000 10000 10001 01110",
    "D": "11110 10001 10001 10001 10001 10001 11110",
    "E": "11111 10000 10000 11110 10000 10000 11111",
    "F": "11111 10000 10000 11110 10000 10000 10000",
    "G": "01110 10001 10000 10111 10001 10001 01111",
    "H": "10001 10001 10001 11111 10001 10001 10001",
    "I": "01110 00100 00100 00100 00100 00100 01110",
    "J": "00111 00010 00010 00010 00010 10010 01100",
    "K": "10001 10010 10100 11000 10100 10010 10001",
    "L": "10000 10000 10000 10000 10000 10000 11111",
    "M": "10001 11011 10101 10101 10001 10001 10001",
    "N": "10001 10001 11001 10101 10011 10001 10001",
    "O": "01110 10001 10001 10001 10001 10001 01110",
    "P": "11110 10001 10001 11110 10000 10000 10000",
    "Q": "01110 10001 10001 10001 10101 10010 01101",
    "R": "11110 10001 10001 11110 10100 10010 10001",
    "S": "01111 10000 10000 01110 00001 00001 11110",
    "T": "11111 00100 00100 00100 00100 00100 00100",
    "U": "10001 10001 10001 10001 10001 10001 01110",
    "V": "10001 10001 10001 10001 10001 01010 00100",
    "W": "10001 10001 10001 10101 10101 10101 01010",
    "X": "10001 10001 01010 00100 01010 10001 10001",
    "Y": "10001 10001 01010 00100 00100 00100 00100",
    "Z": "11111 00001 00010 00100 01000 10000 11111",
    "0": "01110 10001 10011 10101 11001 10001 01110",
    "1": "00100 01100 00100 00100 00100 00100 01110",
    "2": "01110 10001 00001 00010 00100 01000 11111",
    "3": "11111 00010 00100 00010 00001 10001 01110",
    "4": "00010 00110 01010 10010 11111 00010 00010",
    "5": "11111 10000 11110 00001 00001 10001 01110",
    "6": "00110 01000 10000 11110 10001 10001 01110",
    "7": "11111 00001 00010 00100 01000 01000 01000",
    "8": "01110 10001 10001 01110 10001 10001 01110",
    "9": "01110 10001 10001 01111 00001 00010 01100",
    "-": "00000 00000 00000 11111 00000 00000 00000",
    "_": "00000 00000 00000 00000 00000 00000 11111",
    ".": "00000 00000 00000 00000 00000 01100 01100",
    ":": "00000 01100 01100 00000 01100 01100 00000",
    "/": "00001 00010 00010 00100 01000 01000 10000",
    "@": "01110 10001 10111 10101 10111 10000 01110",
    " ": "00000 00000 00000 00000 00000 00000 00000",
    "?": "01110 10001 00001 00010 00100 00000 00100",
}
_ACCENT: Final = (102, 187, 106)
_TEXT: Final = (236, 236, 241)


class _Canvas:
    """An RGB image in rows of bytes, drawn on with filled rectangles."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.rows = [bytearray(_BACKGROUND * width) for _ in range(height)]

    def fill(self, x: int, y: int, w: int, h: int, color: tuple[int, int, int]) -> None:
        x0, x1 = max(0, x), min(self.width, x + w)
        if x1 <= x0:
            return
        span = bytes(color) * (x1 - x0)
        for row in self.rows[max(0, y) : min(self.height, y + h)]:
            row[3 * x0 : 3 * x1] = span

    def text(self, x: int, y: int, text: str, dot: int, color: tuple[int, int, int]) -> None:
        """``text`` from ``(x, y)`` in the dot font, each dot ``dot`` pixels square."""
        for i, char in enumerate(text):
            glyph = _GLYPHS.get(char.upper(), _GLYPHS["?"]).split()
            left = x + i * 6 * dot
            for r, bits in enumerate(glyph):
                for c, bit in enumerate(bits):
                    if bit == "1":
                        self.fill(left + c * dot, y + r * dot, dot, dot, color)

    def png(self) -> bytes:
        def chunk(kind: bytes, data: bytes) -> bytes:
            body = kind + data
            return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)
        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6))
            + chunk(b"IEND", b"")
        )


def _fit(text: str, width: int, dot: int) -> str:
    """``text`` cut to what fits ``width`` pixels in the dot font (an ellipsis of dots)."""
    most = max(1, (width + dot) // (6 * dot))
    return text if len(text) <= most else text[: max(0, most - 2)] + ".."


@functools.lru_cache(maxsize=256)
def card_png(preview: GamePreview) -> bytes:
    """The preview card as a PNG (:data:`CARD_SIZE`).

    The site's name and the game's title at the top; a band per entrant in its colour,
    its name under it.  The winner's band is taller and edged in gold only when
    ``preview.winner`` is set (the caller sets it only when the sharer revealed it).  A
    finished game's card never changes: the last cards drawn are kept (a link pasted in
    a busy chat is fetched by every reader's client).
    """
    width, height = CARD_SIZE
    canvas = _Canvas(width, height)
    margin, gap = 80, 24
    canvas.text(margin, 48, "Snakewar", 8, _ACCENT)
    title = _fit(preview.game_title, width - 2 * margin - 9 * 48, 5)
    canvas.text(margin + 9 * 48, 62, title, 5, _TEXT)
    seats = max(1, min(len(preview.names), 16))
    band = (width - 2 * margin - gap * (seats - 1)) // seats
    top, bottom = 200, height - 150
    dot = 4 if band >= 150 else 2
    for seat in range(seats):
        left = margin + seat * (band + gap)
        color = _color(preview.colors[seat] if seat < len(preview.colors) else "", seat)
        if seat == preview.winner:
            canvas.fill(left, top - 60, band, bottom - top + 60, _GOLD)
            canvas.fill(left + 8, top - 52, band - 16, bottom - top + 44, color)
        else:
            canvas.fill(left, top, band, bottom - top, color)
        name = preview.names[seat] if seat < len(preview.names) else ""
        canvas.text(left, bottom + 30, _fit(name, band, dot), dot, _TEXT)
    return canvas.png()


# -- a game's preview, from the store or the live games ------------------------------


async def game_preview(
    store: AsyncStore, manager: GameManager, game_id: str, *, reveal: bool
) -> GamePreview:
    """What a game's link preview shows; the winner only when ``reveal``.

    Raises:
        GameNotFoundError: neither running nor stored.
    """
    live = manager.games.get(game_id)
    if live is not None and not live.finished:
        colors = list(live.listing.colors) if live.listing is not None else []
        return GamePreview(
            game_title=get_game(live.game).catalogue().title,
            names=tuple(e.name for e in live.spec.entrants),
            colors=tuple(colors),
            finished=False,
            turns=max(len(live.feed) - 1, 0),
        )
    row = await store.run(store.store.games.get, game_id)
    if row is None:
        raise GameNotFoundError(game_id)
    ranks = row.ranks or []
    firsts = [seat for seat, rank in enumerate(ranks) if rank == 1]
    return GamePreview(
        game_title=get_game(row.game).catalogue().title,
        names=tuple(str(e.get("name", "")) for e in row.entrants),
        colors=tuple(str(e.get("color", "")) for e in row.entrants),
        finished=row.finished,
        turns=row.turns,
        winner=firsts[0] if reveal and row.finished and len(firsts) == 1 else None,
        draw=reveal and row.finished and len(ranks) > 1 and len(set(ranks)) == 1,
    )


RevealQuery = Annotated[
    str | None,
    Query(description="1: the preview names the winner (else it never does)."),
]


def revealed(text: str | None) -> bool:
    """Whether ``?reveal=`` asks for the winner (``1``, ``true``, ``yes``)."""
    return text is not None and text.lower() in ("1", "true", "yes")


async def page_preview_tags(
    request: Request,
    store: AsyncStore,
    manager: GameManager,
    game_id: str,
    turn: int | None,
    reveal: str | None,
) -> list[tuple[str, str, str]]:
    """The OpenGraph and Twitter tags of ``/view/{game_id}`` as it was asked for."""
    shown = revealed(reveal)
    preview = await game_preview(store, manager, game_id, reveal=shown)
    base = str(request.base_url).rstrip("/")
    path = str(request.url_for("view_game", game_id=game_id).path)
    image = f"{base}/api/games/{quote(game_id, safe='')}/preview.png"
    image += "?reveal=1" if shown else ""
    return preview_tags(
        preview,
        page_url=base + path + page_query(turn, shown),
        image_url=image,
        revealed=shown,
    )
