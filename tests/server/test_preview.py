"""Link previews: what the tags say in each case, and the card they point to.

The tags and card are made from a :class:`GamePreview`; the caller (the game's page,
the image route, tested over HTTP in ``test_sharing.py``) puts the winner in only when
the sharer asked.  Here: no description names a winner unless it was given one, and the
card shows the players' names and colours.
"""

from __future__ import annotations

import struct
import zlib

import pytest

from snakewar.server.preview import CARD_SIZE, GamePreview, card_png, page_query, preview_tags


def preview(**changes: object) -> GamePreview:
    base: dict[str, object] = {
        "game_title": "Game",
        "names": ("ann", "bob", "cy"),
        "colors": ("#112233", "", "not a colour"),
        "finished": True,
        "turns": 42,
    }
    return GamePreview(**{**base, **changes})  # type: ignore[arg-type]


def description(shown: GamePreview, revealed: bool) -> str:
    tags = preview_tags(
        shown, page_url="https://x/view/g", image_url="https://x/i.png", revealed=revealed
    )
    found = {name: content for _, name, content in tags}
    assert found["og:description"] == found["twitter:description"]
    assert found["og:title"] == found["twitter:title"]
    assert found["og:image"] == found["twitter:image"] == "https://x/i.png"
    return found["og:description"]


@pytest.mark.parametrize(
    ("shown", "revealed", "expected"),
    [
        (
            preview(),
            False,
            "ann, bob and cy played Game for 42 turns. Watch who wins (no spoilers here).",
        ),
        # Asked to reveal but given no winner (the caller found none): says so, names none.
        (preview(), True, "ann, bob and cy played Game for 42 turns: no winner."),
        (preview(winner=1), True, "bob won a game of Game against ann and cy in 42 turns."),
        (preview(draw=True), True, "ann, bob and cy drew a game of Game after 42 turns."),
        (
            preview(finished=False, turns=7),
            False,
            "Live now: ann, bob and cy playing Game (turn 7).",
        ),
    ],
)
def test_the_description_names_a_winner_only_when_revealed(
    shown: GamePreview, revealed: bool, expected: str
) -> None:
    assert description(shown, revealed) == expected


def test_many_players_are_counted_not_listed() -> None:
    many = preview(names=tuple(f"p{i}" for i in range(9)), colors=())
    assert "p0, p1, p2, p3, p4 and p5 and 3 more" in description(many, False)
    tags = {n: c for _, n, c in preview_tags(many, page_url="", image_url="", revealed=False)}
    assert tags["og:title"] == "Game: p0 vs p1 vs p2 vs p3 vs p4 vs p5 and 3 more"
    three = {n: c for _, n, c in preview_tags(preview(), page_url="", image_url="", revealed=False)}
    assert three["og:title"] == "Game: ann vs bob vs cy"


def test_a_shared_pages_query_keeps_its_turn_and_reveal() -> None:
    assert page_query(None, False) == ""
    assert page_query(5, False) == "?turn=5"
    assert page_query(0, True) == "?turn=0&reveal=1"


def pixels(png: bytes) -> tuple[int, int, bytes]:
    at, data, size = 8, b"", (0, 0)
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind, body = png[at + 4 : at + 8], png[at + 8 : at + 8 + length]
        assert (
            zlib.crc32(kind + body)
            == struct.unpack(">I", png[at + 8 + length : at + 12 + length])[0]
        )
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            data += body
        at += 12 + length
    return size[0], size[1], zlib.decompress(data)


def test_the_card_is_a_png_of_the_players_colours_and_names() -> None:
    width, height, raw = pixels(card_png(preview()))
    assert (width, height) == CARD_SIZE
    assert len(raw) == height * (1 + 3 * width)
    assert bytes((0x11, 0x22, 0x33)) in raw  # ann's own colour
    # The names are drawn: a card of other names differs, one of the same is the same.
    assert card_png(preview(names=("dee", "eve", "fay"))) != card_png(preview())
    assert card_png(preview()) == card_png(preview())
    # Only a revealed winner is marked.
    assert card_png(preview(winner=0)) != card_png(preview())
