"""A Halite III game that has not ended is exported as far as it was played.

Such a game has no ``.hlt`` yet (its replay route answers 409), but its media route and
``snakewar export`` draw the frames stored so far, as a Battlesnake game's export of a
running game does: the same drawing, the turns played so far.  A real bot program
(``tests/server/test_halite_live.py``'s gated bot) holds the game on a turn until the
test lets it go, so "running" and "turns so far" are known without the clock.  The
pictures are decoded back and checked cell by cell against the frames the API serves,
and against the same turns drawn from the finished game's replay.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.games.halite3.media import DARK_THEME, Style
from snakewar.games.halite3.replay.hlt import HltReplay, read_hlt
from snakewar.media import parse_color
from snakewar.storage import Store
from tests.media.test_halite_export import check_cells, mean_difference
from tests.server.test_halite_live import Gated, local, start
from tests.test_cli_bad_input import run
from tests.waiting import wait_finished

Image = pytest.importorskip("PIL.Image")

__all__ = ["local"]  # the fixture, used by name


def played_so_far(client: TestClient, game_id: str) -> HltReplay:
    """The game's frames so far as the API serves them (a live viewer's document)."""
    page = client.get(f"/api/games/{game_id}/frames").json()
    document = {**page["header"], "full_frames": page["frames"]}
    return read_hlt(json.dumps(document).encode(), unfinished=True)


def media(client: TestClient, game_id: str, **query: Any) -> bytes:
    answer = client.get(f"/api/games/{game_id}/media", params=query)
    assert answer.status_code == 200, answer.text
    content: bytes = answer.content
    return content


def gif_frames(data: bytes) -> list[Any]:
    with Image.open(io.BytesIO(data)) as gif:
        assert gif.format == "GIF"
        frames = []
        for index in range(getattr(gif, "n_frames", 1)):
            gif.seek(index)
            frames.append(gif.convert("RGB"))
        return frames


def test_a_running_then_cancelled_halite_game_exports_its_turns_so_far(
    local: tuple[TestClient, Store], tmp_path: Path
) -> None:
    client, store = local
    bot = Gated(store, tmp_path / "bot", {3})
    game_id = start(client, bot, max_turns=50)["id"]
    bot.reached(3)  # turns 1 and 2 played; turn 3 waits for the bot
    assert client.get(f"/api/games/{game_id}").json()["status"] == "running"
    assert client.get(f"/api/games/{game_id}/replay").status_code == 409  # no .hlt yet
    so_far = played_so_far(client, game_id)
    assert len(so_far.frames) == 3 and not so_far.finished

    frames = gif_frames(media(client, game_id, format="gif", fps=5))
    assert len(frames) == 3  # turns 0, 1 and 2
    answer = client.get(f"/api/games/{game_id}/media", params={"format": "png"})
    assert answer.status_code == 200, answer.text
    # A picture's default turn is the last one played.
    assert answer.headers["content-disposition"] == f'attachment; filename="{game_id}-2.png"'
    with Image.open(io.BytesIO(answer.content)) as png:
        check_cells(png, so_far, 2)
        assert mean_difference(png, frames[2]) < 1.0
    for turn, frame in enumerate(frames):
        check_cells(frame, so_far, turn, tolerance=3)
    beyond = client.get(f"/api/games/{game_id}/media", params={"format": "png", "turn": 3})
    assert beyond.status_code == 422 and "turn 3 is not in the game" in beyond.text
    # The viewer's dark theme and colour-blind palette, asked for by the route.
    styled = media(client, game_id, format="png", theme="dark", palette="okabe-ito")
    with Image.open(io.BytesIO(styled)) as png:
        check_cells(png, so_far, 2, style=Style.of("dark", "okabe-ito"))
        rgb = png.convert("RGB")
        assert rgb.getpixel((rgb.width - 2, rgb.height - 2)) == parse_color(DARK_THEME["panel"])
    for name, value in (("theme", "sepia"), ("palette", "rainbow")):
        refused = client.get(f"/api/games/{game_id}/media", params={"format": "png", name: value})
        assert refused.status_code == 422, refused.text
        (error,) = refused.json()["detail"]
        assert error["loc"][-1] == name and repr(value) in error["msg"]
    page = media(client, game_id, format="html").decode()
    assert page.lstrip().lower().startswith("<!doctype html") and "full_frames" in page

    assert client.post(f"/api/games/{game_id}/cancel").status_code == 200
    assert client.get(f"/api/games/{game_id}").json()["status"] == "cancelled"
    assert client.get(f"/api/games/{game_id}/replay").status_code == 409
    # Stopped, it is still drawn: its three frames, read back from the store.
    stopped = gif_frames(media(client, game_id, format="gif", fps=5))
    assert len(stopped) == 3
    assert all(mean_difference(a, b) == 0 for a, b in zip(stopped, frames, strict=True))
    # And by `snakewar export` from the same database.
    out = tmp_path / "stopped.gif"
    database = f"sqlite:///{tmp_path / 'g.db'}"  # the fixture's store
    done = run(
        "export", game_id, "--gif", "--database", database, "-o", str(out), home=tmp_path
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert len(gif_frames(out.read_bytes())) == 3


def test_the_turns_so_far_are_drawn_as_the_finished_games_replay_draws_them(
    local: tuple[TestClient, Store], tmp_path: Path
) -> None:
    client, store = local
    bot = Gated(store, tmp_path / "bot", {4})
    game_id = start(client, bot, max_turns=6, seed=11)["id"]
    bot.reached(4)
    running = [media(client, game_id, format="png", turn=t) for t in range(4)]
    assert (
        client.get(f"/api/games/{game_id}/media", params={"format": "png"})
        .headers["content-disposition"]
        .endswith(f'{game_id}-3.png"')
    )
    bot.release(4)
    assert wait_finished(client, game_id)["status"] == "complete"
    finished = [media(client, game_id, format="png", turn=t) for t in range(4)]
    # The same pictures: none of these turns is the last, so no final scores differ.
    assert running == finished
    gif = gif_frames(media(client, game_id, format="gif"))
    assert len(gif) == 6 + 2  # the initial frame, 6 turns and the final one
