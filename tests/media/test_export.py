"""``snakewar export``: every format from a real played game, decoded back and checked.

The pictures are read back with Pillow and the video with PyAV, and the pixel at the
centre of known cells (each snake's head, a food, an empty cell) is compared with what
the game's state says is there, in the viewer's colours.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from snakewar.games.battlesnake.media import (
    BORDER,
    CELL,
    DARK_THEME,
    PANEL,
    THEME,
    THEMES,
    safe_color,
)
from snakewar.games.battlesnake.replay.official import read_official_jsonl
from snakewar.games.battlesnake.rules.types import BoardState, Point
from snakewar.media import parse_color
from tests.media.conftest import PlayedReplay
from tests.test_cli_bad_input import assert_one_error_line, run

av = pytest.importorskip("av")
Image = pytest.importorskip("PIL.Image")

SIZE = 420


def export(played: PlayedReplay, *args: str, target: str | None = None) -> Path:
    out = played.home / ("out-" + re.sub(r"[^A-Za-z0-9]+", "-", " ".join(args))[:80])
    done = run("export", target or str(played.replay), *args, "-o", str(out), home=played.home)
    assert done.returncode == 0, done.stderr
    assert f"wrote {out}" in done.stdout
    return out


def state_at(played: PlayedReplay, turn: int) -> BoardState:
    record = played.record
    return record.initial if turn == 0 else record.turns[turn - 1].after


def pixel_of(state: BoardState, p: Point, width_px: int, scoreboard: bool) -> tuple[int, int]:
    """The pixel at the centre of cell ``p`` in a picture ``width_px`` wide."""
    scene_w = state.width * CELL + 2 * BORDER + (PANEL if scoreboard else 0)
    scale = width_px / scene_w
    x = (p.x + 0.5) * CELL + BORDER
    y = (state.height - p.y - 0.5) * CELL + BORDER
    return int(x * scale), int(y * scale)


def expected_cells(
    state: BoardState, colors: dict[str, str], theme: dict[str, str] = THEME
) -> dict[Point, tuple[int, int, int]]:
    """Known cells of ``state`` and their colours: living heads, food, an empty cell."""
    cells: dict[Point, tuple[int, int, int]] = {}
    occupied: set[Point] = set(state.food) | set(state.hazards)
    for snake in state.snakes:
        occupied.update(snake.body)
        if not snake.eliminated_cause:
            cells[snake.body[0]] = parse_color(colors[snake.id])
    # Food that a snake's body covers is not plain food: food may spawn under a snake
    # eliminated on this turn (the rules skip the eliminated), drawn faded over it.
    bodies = {p for snake in state.snakes for p in snake.body}
    for food in state.food:
        if food not in bodies:
            cells[food] = parse_color(theme["food"])
    # An empty cell with no snake beside it either (a tail's wedge reaches its edge).
    near = {Point(q.x + dx, q.y + dy) for q in occupied for dx in (-1, 0, 1) for dy in (-1, 0, 1)}
    empty = [
        Point(x, y)
        for x in range(state.width)
        for y in range(state.height)
        if Point(x, y) not in near
    ]
    if empty:
        cells[empty[0]] = parse_color(theme["cell"])
    assert any(c != parse_color(theme["cell"]) for c in cells.values())
    return cells


def check_cells(
    image: object,
    played: PlayedReplay,
    turn: int,
    *,
    scoreboard: bool,
    tolerance: int = 0,
    state: BoardState | None = None,
    colors: dict[str, str] | None = None,
    theme: dict[str, str] = THEME,
) -> None:
    """The picture's known cells (:func:`expected_cells`) have their colours."""
    from PIL.Image import Image as PilImage

    assert isinstance(image, PilImage)
    rgb = image.convert("RGB")
    state = state or state_at(played, turn)
    colors = colors or {e.id: safe_color(e.color) for e in played.record.snakes}
    for point, color in expected_cells(state, colors, theme).items():
        got = rgb.getpixel(pixel_of(state, point, rgb.width, scoreboard))
        assert isinstance(got, tuple)
        assert all(abs(a - b) <= tolerance for a, b in zip(got, color, strict=True)), (
            f"turn {turn}, cell {point}: {got} is not {color}"
        )


def test_png_of_a_turn_shows_that_turns_cells(played: PlayedReplay) -> None:
    turn = 4
    out = export(played, "--png", str(turn), "--size", str(SIZE))
    with Image.open(out) as image:
        assert image.format == "PNG" and image.width == SIZE
        check_cells(image, played, turn, scoreboard=True)
    # The turns differ: turn 4's picture is not turn 5's.
    other = export(played, "--png", str(turn + 1), "--size", str(SIZE))
    assert other.read_bytes() != out.read_bytes()


def test_png_without_scoreboard_is_the_board_alone(played: PlayedReplay) -> None:
    out = export(played, "--png", "0", "--size", "300", "--no-scoreboard")
    with Image.open(out) as image:
        state = played.record.initial
        assert image.size == (
            300,
            round(300 * (state.height * CELL + 2 * BORDER) / (state.width * CELL + 2 * BORDER)),
        )
        check_cells(image, played, 0, scoreboard=False)


def test_gif_has_every_frame_and_each_shows_its_turn(played: PlayedReplay) -> None:
    out = export(played, "--gif", "--size", str(SIZE), "--fps", "5")
    frames = len(played.record.turns) + 1
    with Image.open(out) as image:
        assert image.format == "GIF" and image.n_frames == frames
        assert image.info["duration"] == 200
        for turn in (0, frames // 2, frames - 1):
            image.seek(turn)
            check_cells(image, played, turn, scoreboard=True)


def test_mp4_decodes_to_every_frame_close_to_the_state(played: PlayedReplay) -> None:
    out = export(played, "--mp4", "--size", str(SIZE), "--fps", "8", "--no-scoreboard")
    with av.open(str(out)) as container:
        stream = container.streams.video[0]
        assert stream.average_rate == 8
        images = [frame.to_image() for frame in container.decode(stream)]
    frames = len(played.record.turns) + 1
    assert len(images) == frames
    assert images[0].width % 2 == 0 and images[0].height % 2 == 0
    for turn in (0, frames // 2, frames - 1):
        # Lossy (4:2:0 chroma): the flat centre of a cell comes back within a few levels.
        check_cells(images[turn], played, turn, scoreboard=False, tolerance=24)


def test_svg_is_xml_with_the_turns_snakes_in_their_colours(played: PlayedReplay) -> None:
    turn = 3
    out = export(played, "--svg", str(turn))
    root = ET.fromstring(out.read_bytes())
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    fills = {el.get("fill") for el in root.iter()} | {el.get("stroke") for el in root.iter()}
    for entry in played.record.snakes:
        assert safe_color(entry.color) in fills
    texts = [el.text for el in root.iter(f"{ns}text")]
    assert f"Turn {turn}" in texts
    assert any(t and t.startswith(played.record.snakes[0].name) for t in texts)
    state = state_at(played, turn)
    circles = {(el.get("cx"), el.get("cy")) for el in root.iter(f"{ns}circle")}
    for food in state.food:
        cx, cy = (food.x + 0.5) * CELL + BORDER, (state.height - food.y - 0.5) * CELL + BORDER
        assert (f"{cx:g}", f"{cy:g}") in circles


def test_a_stored_game_exports_by_its_id(played: PlayedReplay) -> None:
    game_id = played.record.id
    out = export(
        played, "--png", "2", "--size", str(SIZE), "--database", played.database, target=game_id
    )
    with Image.open(out) as image:
        check_cells(image, played, 2, scoreboard=True)
    from_file = export(played, "--png", "2", "--size", str(SIZE))
    assert out.read_bytes() == from_file.read_bytes()


def test_html_is_one_file_with_no_reference_outside_it(played: PlayedReplay) -> None:
    out = export(played, "--html")
    text = out.read_text(encoding="utf-8")
    assert 'src="' not in text and 'href="../' not in text and '<link rel="stylesheet"' not in text
    assert 'id="sw-inline-replay"' in text and '<script type="importmap">' in text
    assert played.record.id in text


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        (("--png", "0", "--gif"), ("exactly one", "--png", "--gif")),
        ((), ("exactly one", "none")),
        (("--png", "9999"), ("turn 9999", "0..")),
        (("--svg", "-1"), ("turn -1",)),
        (("--gif", "--size", "10"), ("--size",)),
        (("--gif", "--fps", "0"), ("--fps",)),
        (("--png", "1", "--theme", "pink"), ("--theme", "'pink'", "light, dark")),
        # The snakes' colours are their own: Battlesnake has one palette.
        (("--gif", "--palette", "okabe-ito"), ("--palette", "'okabe-ito'", "default")),
    ],
)
def test_bad_options_are_one_error_line(
    played: PlayedReplay, args: tuple[str, ...], needles: tuple[str, ...]
) -> None:
    done = run("export", str(played.replay), *args, home=played.home)
    assert_one_error_line(done, *needles)


def test_an_unknown_game_or_file_is_one_error_line(played: PlayedReplay, tmp_path: Path) -> None:
    done = run(
        "export", "nosuchgame", "--png", "0", "--database", played.database, home=played.home
    )
    assert_one_error_line(done, "nosuchgame")
    done = run("export", str(tmp_path / "missing.jsonl"), "--gif", home=played.home)
    assert_one_error_line(done, "missing.jsonl", "does not exist")
    junk = tmp_path / "junk.jsonl"
    junk.write_text("hello\n")
    done = run("export", str(junk), "--gif", home=played.home)
    assert_one_error_line(done, "junk.jsonl")


def test_an_official_jsonl_file_exports_too(played: PlayedReplay) -> None:
    official = played.home / "official.jsonl"
    done = run(
        "play", "-W", "7", "-H", "7", "-r", "7", "-o", str(official),
        "builtin:hunter", "builtin:greedy", home=played.home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    frame = read_official_jsonl(official).frames[3]
    colors = {sid: safe_color(info.color) for sid, info in frame.infos.items()}
    out = export(played, "--png", "3", "--size", str(SIZE), target=str(official))
    with Image.open(out) as image:
        check_cells(image, played, 3, scoreboard=True, state=frame.state, colors=colors)


def test_the_pictures_colours_are_the_viewers_light_and_dark_themes() -> None:
    from snakewar.media.html import shared_static

    css = (shared_static() / "viewer.css").read_text(encoding="utf-8")
    light = css[: css.index("}")]  # the first block: the light theme's variables
    start = css.index(':root[data-theme="dark"]')
    dark = css[start : css.index("}", start)]
    names = {
        "board": "board-bg",
        "cell": "cell",
        "food": "food",
        "hazard": "hazard",
        "panel": "panel",
        "text": "text",
        "muted": "muted",
        "track": "health-track",
    }
    assert set(names) == set(THEME) == set(DARK_THEME) and list(THEMES) == ["light", "dark"]
    for block, theme in ((light, THEME), (dark, DARK_THEME)):
        for ours, theirs in names.items():
            found = re.search(rf"--{theirs}:\s*(#[0-9a-fA-F]{{6}});", block)
            assert found is not None, theirs
            assert theme[ours] == found.group(1).lower(), ours


def test_the_dark_theme_draws_the_board_and_scoreboard_in_its_colours(
    played: PlayedReplay,
) -> None:
    turn = 4
    light = export(played, "--png", str(turn), "--size", str(SIZE))
    dark = export(played, "--png", str(turn), "--size", str(SIZE), "--theme", "dark")
    with Image.open(light) as day, Image.open(dark) as night:
        check_cells(night, played, turn, scoreboard=True, theme=DARK_THEME)
        # The scoreboard's background: the panel's colour of each theme.
        corner = (SIZE - 2, night.height - 2)
        assert night.convert("RGB").getpixel(corner) == parse_color(DARK_THEME["panel"])
        assert day.convert("RGB").getpixel(corner) == parse_color(THEME["panel"])
        # The snakes keep their colours; the empty cells and food change.
        head = next(s for s in state_at(played, turn).snakes if not s.eliminated_cause).body[0]
        at = pixel_of(state_at(played, turn), head, SIZE, True)
        assert day.convert("RGB").getpixel(at) == night.convert("RGB").getpixel(at)
    light_by_name = export(played, "--png", str(turn), "--size", str(SIZE), "--theme", "light")
    assert light_by_name.read_bytes() == light.read_bytes()
