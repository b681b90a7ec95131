"""``snakewar export``: a game as a picture, an animation, a video or an HTML replay.

``snakewar export GAME_ID|REPLAY_FILE --png TURN | --svg TURN | --gif | --mp4 | --html``
draws the game as the board viewer does, on this machine, with no service: a stored
game (by id, from ``--database`` or the server's default database) or any replay file a
game reads; a stored game still running or stopped is drawn as far as it was played.
The drawing is the game's (its adapter's ``media()``), in the viewer's colours that
``--theme`` and ``--palette`` pick; this frame reads the input, picks the frames and
writes the file (``-o``, default ``NAME.FORMAT``).
Bad input is one ``error:`` line, exit status 2.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from snakewar.engine.protocol import GameAdapter

__all__ = ["ExportError", "export_command"]

MIN_SIZE, MAX_SIZE = 64, 4096
"""The picture's width in pixels, the range accepted."""
MIN_FPS, MAX_FPS = 1, 60

_GAME_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")


class ExportError(SnakewarError, ValueError):
    """Raised for an export that cannot be made (bad option, unknown game, turn)."""


def _source(target: str, database: str | None) -> tuple[bytes, str, GameAdapter]:
    """The replay bytes, their name and the game: from a file, else a stored game."""
    from snakewar.adapters import get_game
    from snakewar.cli.replay import _read

    path = Path(target)
    if path.exists() or any(sep in target for sep in ("/", "\\")) or not _GAME_ID.match(target):
        data, codec = _read(target)
        from snakewar.adapters import games

        adapter = next(a for a in games() if a.replays is codec)
        return data, path.name, adapter
    from snakewar.storage import Store

    with Store(database) as store:
        row = store.games.get(target)
        if row is None:
            raise ExportError(
                f"no stored game or replay file {target!r} (a game id, or a file's path)"
            )
        adapter = get_game(row.game)
        # A game still running or stopped is drawn as far as it was played.
        stored = store.games.data(target, views=adapter.media_reads_views)
        data = adapter.media_replay(stored)
    return data, adapter.replay_filename(target), adapter


def export_command(
    target: str = typer.Argument(
        ..., metavar="GAME_ID|REPLAY_FILE", help="A stored game's id, or a replay file."
    ),
    png: int | None = typer.Option(None, "--png", metavar="TURN", help="A PNG of this turn."),
    svg: int | None = typer.Option(None, "--svg", metavar="TURN", help="An SVG of this turn."),
    gif: bool = typer.Option(False, "--gif", help="An animated GIF of the whole game."),
    mp4: bool = typer.Option(False, "--mp4", help="An MP4 (H.264) video of the whole game."),
    html: bool = typer.Option(
        False, "--html", help="One self-contained HTML replay (the viewer inlined; offline)."
    ),
    output: Path | None = typer.Option(
        None, "-o", "--output", help="The file to write (default: GAME.FORMAT here)."
    ),
    size: int | None = typer.Option(
        None,
        "--size",
        metavar="PX",
        help="The picture's width in pixels (default: the game's own, sized to its board).",
    ),
    fps: int = typer.Option(10, "--fps", help="Frames a second of a GIF or video."),
    no_scoreboard: bool = typer.Option(
        False, "--no-scoreboard", help="The board alone, without the scoreboard beside it."
    ),
    theme: str = typer.Option(
        "", "--theme", help="The viewer's theme to draw in: light (default) or dark."
    ),
    palette: str = typer.Option(
        "",
        "--palette",
        help="The viewer's palette of the game's pieces: default, or another the game's "
        "viewer has (okabe-ito: colour-blind safe); a wrong one is refused naming them.",
    ),
    database: str | None = typer.Option(
        None, "--database", help="SQLAlchemy URL (default: the server's SQLite database)."
    ),
) -> None:
    """Export a game as PNG/SVG (one turn), GIF, MP4 or a self-contained HTML replay."""
    chosen = [
        name
        for name, on in (
            ("png", png is not None),
            ("svg", svg is not None),
            ("gif", gif),
            ("mp4", mp4),
            ("html", html),
        )
        if on
    ]
    if len(chosen) != 1:
        picked = ", ".join(f"--{c}" for c in chosen) if chosen else "none"
        raise ExportError(f"give exactly one of --png, --svg, --gif, --mp4, --html (got {picked})")
    fmt = chosen[0]
    if size is not None and not MIN_SIZE <= size <= MAX_SIZE:
        raise ExportError(f"--size must be {MIN_SIZE}..{MAX_SIZE} pixels, got {size}")
    if not MIN_FPS <= fps <= MAX_FPS:
        raise ExportError(f"--fps must be {MIN_FPS}..{MAX_FPS}, got {fps}")
    data, name, adapter = _source(target, database)
    codec = adapter.media()
    if codec is None:
        raise ExportError(f"{adapter.name} games cannot be exported as pictures yet")
    from snakewar.media import style_refusal

    for option, value, known in (
        ("theme", theme, codec.themes),
        ("palette", palette, codec.palettes),
    ):
        refusal = style_refusal(adapter.name, option, value, known)
        if refusal:
            raise ExportError(f"--{option}: {refusal}")
    replay = codec.load(data, name, theme=theme, palette=palette)
    turn = png if fmt == "png" else svg
    stem = Path(name).name.split(".")[0] or "game"
    title = f"{adapter.catalogue().title}: {stem}"
    from snakewar.media import export_media

    payload = export_media(
        replay, fmt, turn=turn, size=size, fps=fps, scoreboard=not no_scoreboard, title=title
    )
    target_path = output or Path(f"{stem}.{fmt}" if turn is None else f"{stem}-{turn}.{fmt}")
    try:
        target_path.write_bytes(payload)
    except OSError as exc:
        raise ExportError(f"cannot write {str(target_path)!r}: {exc.strerror or exc}") from None
    typer.echo(f"wrote {target_path} ({len(payload)} bytes, {fmt})")
