"""``snakewar.play``, ``snakewar.play_async`` and ``snakewar.load_replay``: games in Python.

Played with and without a running event loop (a notebook runs one), saved and read
back; the inline viewer (``_repr_html_``) is checked here for what it holds and in
tests/browser/test_notebook_html.py for what chromium draws of it offline.
"""

from __future__ import annotations

import asyncio
import html
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import snakewar
from snakewar.errors import SnakewarError
from snakewar.games.battlesnake.notebook import SnakeGame
from snakewar.games.battlesnake.replay.format import load_replay as load_replay_file


def small(snakes: list[str], **options: Any) -> SnakeGame:
    """``snakewar.play`` on a small board, the bots in this process (quick)."""
    game: SnakeGame = snakewar.play(snakes, width=7, height=7, bots_in_process=True, **options)
    return game


def test_play_outside_an_event_loop_returns_a_whole_game(tmp_path: Path) -> None:
    game = small(["hunter", "random"], seed=11, names=["h", "r"])
    result = game.result
    assert result is not None and result.turns == len(game.turns) > 0
    assert len(game.boards) == len(game.turns) + 1
    assert game.boards[0] == game.record.initial and game.boards[-1] == result.final_state
    assert set(game.latencies) == {"h", "r"}
    for sid, latencies in zip(game.names, game.latencies.values(), strict=True):
        assert latencies == [t.calls[sid].latency_ms for t in game.turns if sid in t.calls]
    assert game.winner in ("h", "r", None)
    text = repr(game)
    assert text.startswith(f"<SnakeGame {game.id}: h, r;") and "seed 11" in text
    assert "7x7" in text and "\n" not in text
    saved = game.save(tmp_path / "game.jsonl.gz")
    again = snakewar.load_replay(saved)
    assert again.record.turns == game.record.turns and again.result == game.result
    assert load_replay_file(saved).complete


def test_play_inside_a_running_event_loop_runs_the_game_in_a_thread() -> None:
    async def notebook_cell() -> SnakeGame:
        # As a Jupyter cell calls it: a plain call while the kernel's loop runs.
        return small(["greedy", "random"], seed=4)

    inside = asyncio.run(notebook_cell())
    outside = small(["greedy", "random"], seed=4)
    assert inside.result is not None
    # The same seed and snakes: the same game, in a loop or not.
    assert [t.moves for t in inside.turns] == [t.moves for t in outside.turns]


def test_play_async_is_awaited_in_a_loop_and_reports_each_turn() -> None:
    seen: list[int] = []

    async def cell() -> SnakeGame:
        game: SnakeGame = await snakewar.play_async(
            ["random", "random"],
            seed=9,
            ruleset="wrapped",
            max_turns=5,
            on_turn=lambda record, turn: seen.append(turn.turn),
            width=7,
            height=7,
            bots_in_process=True,
        )
        return game

    game = asyncio.run(cell())
    assert game.record.config.ruleset == "wrapped"
    assert len(game.turns) <= 5 and seen == list(range(len(game.turns)))


def test_bad_arguments_fail_naming_what_is_wrong() -> None:
    with pytest.raises(SnakewarError, match="nosuchbot"):
        snakewar.play(["nosuchbot", "random"])
    with pytest.raises(SnakewarError, match="list of entrants"):
        snakewar.play("hunter")
    with pytest.raises(SnakewarError, match="settings: unknown 'food'"):
        snakewar.play(["random", "random"], settings={"food": 3})
    with pytest.raises(SnakewarError, match="timeout"):
        snakewar.play(["random", "random"], timeout=0)
    # A person with no terminal to type on (pytest's stdin is none).
    with pytest.raises(SnakewarError, match="no terminal"):
        snakewar.play(["human", "random"])


def test_the_inline_viewer_is_the_offline_page_in_a_srcdoc_frame() -> None:
    game = small(["random", "random"], seed=2, max_turns=3)
    frame = game._repr_html_()
    assert frame.startswith('<iframe class="snakewar-viewer"') and frame.endswith("</iframe>")
    page = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))  # type: ignore[union-attr]
    assert "<script" in page and game.id in page
    # Nothing to fetch: no external script, style or any other http(s) address.
    assert not re.search(r"""(src|href)\s*=\s*["']?https?://""", page), page[:500]
    assert not re.search(r"@import|url\(\s*['\"]?https?:", page)


def test_ipython_shows_records_and_replays_as_the_viewer(tmp_path: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    game = small(["random", "random"], seed=2, max_turns=3)
    replay = load_replay_file(game.save(tmp_path / "game.jsonl"))
    shell = InteractiveShell.instance()
    try:
        for shown in (game, game.record, replay):
            assert shell.display_formatter is not None
            data, _ = shell.display_formatter.format(shown)  # type: ignore[no-untyped-call]
            assert data["text/html"] == game._repr_html_(), type(shown)
        assert data["text/plain"]
    finally:
        InteractiveShell.clear_instance()


# A fresh process: a replay file read by the replay module alone, as a bare record and as
# a replay, shown by IPython's formatter and by ``_repr_html_``; neither ``snakewar.play``
# nor ``snakewar.load_replay`` is used, and the notebook module is not imported before.
FRESH_SESSION = """import json, sys
from snakewar.games.battlesnake.replay.format import load_replay, read_replay

record = read_replay(sys.argv[1])
replay = load_replay(sys.argv[1])
before = "snakewar.games.battlesnake.notebook" in sys.modules
from IPython.core.interactiveshell import InteractiveShell

shell = InteractiveShell.instance()
shown = [shell.display_formatter.format(item)[0].get("text/html") for item in (record, replay)]
print(json.dumps({"before": before, "record": record._repr_html_(),
                  "replay": replay._repr_html_(), "shown": shown}))
"""


def test_a_bare_record_or_replay_shows_the_viewer_in_a_fresh_session(tmp_path: Path) -> None:
    import json

    game = small(["random", "random"], seed=5, max_turns=4)
    path = game.save(tmp_path / "game.jsonl")
    done = subprocess.run(
        [sys.executable, "-c", FRESH_SESSION, str(path)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["before"] is False  # nothing had loaded the viewer's side before
    assert out["record"] == out["replay"] == game._repr_html_()
    assert out["shown"] == [out["record"], out["record"]]
    assert out["record"].startswith('<iframe class="snakewar-viewer"') and game.id in out["record"]


def test_import_snakewar_does_not_import_the_referee() -> None:
    code = (
        "import sys, snakewar; print('snakewar.games.battlesnake.notebook' in sys.modules,"
        " 'httpx' in sys.modules, 'play' in dir(snakewar))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False", "False", "True"]
