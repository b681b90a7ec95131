"""Battlesnake's board viewer: its files shipped in the game's package, and its JavaScript correct.

The pure modules (frame conversion, board rendering, playback, the events
stream) run under Node against games played by the real ``snakewar`` command,
and their output is compared with Snakewar's own Python readers and the
server's frame builder: ``js/viewer.test.mjs``, run by ``node --test``.  Browser tests
come separately.
"""

from __future__ import annotations

import gzip
import itertools
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.battlesnake.adapter import GAME
from snakewar.games.battlesnake.frames import game_info, record_frames
from snakewar.games.battlesnake.replay.format import read_replay
from snakewar.games.battlesnake.replay.official import read_official_jsonl

VIEWER = Path(str(resources.files("snakewar.games.battlesnake").joinpath("viewer")))
"""The board viewer (the adapter's ``static_assets()``), served at ``/static/battlesnake/``."""
BOARD_PAGE = "board.html"
JS = Path(__file__).resolve().parent / "js"
"""The Node test files of this folder."""

CONTROL_IDS = (
    "board",
    "scoreboard",
    "scrubber",
    "btn-first",
    "btn-prev",
    "btn-play",
    "btn-next",
    "btn-last",
    "btn-prev-elimination",
    "btn-next-elimination",
    "fps",
    "coords",
    "theme",
    "turn",
    "game-status",
    "connection-status",
    "replay-picker",
    "replay-file",
    "btn-open",
    "message",
)
ROW_IDS = ("snake-row", "snake-name", "snake-length", "snake-health", "snake-latency")


# -- the files ---------------------------------------------------------------------------


def test_the_board_is_shipped_in_the_package() -> None:
    # importlib.resources finds it where the adapter says, so a wheel serves it as well.
    packaged = resources.files("snakewar.games.battlesnake").joinpath("viewer", BOARD_PAGE)
    assert packaged.is_file()
    assert Path(str(GAME.static_assets())) == VIEWER
    for name in ("board.html", "viewer.js", "frames.js", "render.js", "sprites.js", "live.js"):
        assert (VIEWER / name).is_file(), name
    assert (Path(str(GAME.templates())) / "tester.html").is_file()


def test_the_page_loads_its_own_files_and_the_shared_ones() -> None:
    page = (VIEWER / BOARD_PAGE).read_text(encoding="utf-8")
    # The stylesheet and playback every game's viewer shares are the server's /static/viewer/.
    assert 'href="../viewer/viewer.css"' in page
    assert '<script type="module" src="viewer.js">' in page
    viewer = (VIEWER / "viewer.js").read_text(encoding="utf-8")
    assert 'from "../viewer/player.js"' in viewer
    assert 'from "../viewer/controls.js"' in viewer


def test_the_main_controls_and_rows_carry_test_ids() -> None:
    page = (VIEWER / BOARD_PAGE).read_text(encoding="utf-8")
    for test_id in CONTROL_IDS:
        assert page.count(f'data-testid="{test_id}"') == 1, test_id
    rows = (VIEWER / "scoreboard.js").read_text(encoding="utf-8")
    for test_id in ROW_IDS:
        assert f'data-testid="{test_id}"' in rows, test_id


# -- the JavaScript under Node, against real games -----------------------------------------
#
# js/viewer.test.mjs runs the modules on games played by the real ``snakewar`` command and
# compares them with what Snakewar's Python readers and the server's frame builder make of
# the same games, which this side works out and hands over.

BIG_SEED = "2618439174457646105"  # JSON.parse alone gives 2618439174457646000

ELIMINATION_SENTENCES = {
    "snake-collision": "Collided with {by}'s body on turn {turn}",
    "snake-self-collision": "Collided with itself on turn {turn}",
    "head-collision": "Lost head-to-head with {by} on turn {turn}",
    "wall-collision": "Moved out of bounds on turn {turn}",
    "out-of-health": "Starved on turn {turn}",
    "hazard": "Eliminated by hazard on turn {turn}",
}


def _play(tmp: Path, name: str, *args: str) -> tuple[Path, Path]:
    replay = tmp / f"{name}.jsonl"
    official = tmp / f"{name}-official.jsonl"
    command = [sys.executable, "-m", "snakewar", "play", *args, "--no-live"]
    command += ["--replay", str(replay), "-o", str(official)]
    done = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return replay, official


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    tmp = tmp_path_factory.mktemp("viewer")
    replay, official = _play(tmp, "standard", "random", "random", "greedy", "-r", "3")
    # Wrapped sinkholes: snakes cross edges and hazards stack.
    wrapped, _ = _play(
        tmp,
        "wrapped",
        *("random", "random", "greedy", "greedy", "-r", "5", "-g", "wrapped", "-m", "sinkholes"),
    )
    gz = tmp / "standard.jsonl.gz"
    gz.write_bytes(gzip.compress(replay.read_bytes()))
    big, _ = _play(tmp, "big-seed", "random", "greedy", "-r", BIG_SEED)
    return {
        "snakewar": replay,
        "official": official,
        "wrapped": wrapped,
        "snakewarGz": gz,
        "bigSeed": big,
    }


def _points(points: Any) -> list[list[int]]:
    return [[p.x, p.y] for p in points]


def _direction(neck: tuple[int, int], head: tuple[int, int]) -> list[int]:
    dx, dy = head[0] - neck[0], head[1] - neck[1]
    # One step across a wrapped edge shows as a jump of (size - 1) the other way.
    if abs(dx) > 1:
        dx = -1 if dx > 0 else 1
    if abs(dy) > 1:
        dy = -1 if dy > 0 else 1
    return [dx, dy]


def _official(games: dict[str, Path]) -> dict[str, Any]:
    """The official JSONL as Snakewar reads it, and the deaths its own replay says."""
    official = read_official_jsonl(games["official"])
    record = read_replay(games["snakewar"])
    assert official.result is not None
    states = [
        {
            "bodies": {s.id: _points(s.body) for s in frame.state.snakes},
            "health": {s.id: s.health for s in frame.state.snakes},
            "food": _points(frame.state.food),
        }
        for frame in official.frames
    ]
    deaths = {
        s.id: (
            {"Cause": "", "Turn": s.eliminated_on_turn, "EliminatedBy": ""}
            if s.eliminated_cause
            else None
        )
        for s in record.final_state.snakes
    }
    return {
        "turns": [f.turn for f in official.frames],
        "frameCount": len(record.turns) + 1,
        "states": states,
        "snakes": [e.id for e in record.snakes],
        "deaths": deaths,
        "winnerId": official.result.winner_id,
        "winnerName": official.result.winner_name,
        "id": record.id,
        "width": record.config.width,
    }


def _wrapped(games: dict[str, Path]) -> tuple[list[dict[str, Any]], list[str]]:
    """Per state of the wrapped game what the board must show, and the final scoreboard."""
    record = read_replay(games["wrapped"])
    states = [record.initial, *(t.after for t in record.turns)]
    w, h = record.config.width, record.config.height
    expected: list[dict[str, Any]] = []
    crossings = most = heads_checked = 0
    for state in states:
        heads: dict[str, list[int]] = {}
        for snake in state.snakes:
            body = snake.body
            crossings += sum(
                abs(a.x - b.x) > 1 or abs(a.y - b.y) > 1 for a, b in itertools.pairwise(body)
            )
            distinct = [p for i, p in enumerate(body) if i == 0 or p != body[i - 1]]
            if len(distinct) < 2:
                heads[snake.id] = [0, 1]  # stacked at the start: facing up
                continue
            head, neck = distinct[0], distinct[1]
            heads[snake.id] = _direction((neck.x, neck.y), (head.x, head.y))
            heads_checked += 1
        stacks = Counter(f"{p.x},{p.y}" for p in state.hazards if 0 <= p.x < w and 0 <= p.y < h)
        most = max(most, *stacks.values(), 0)
        # The living are drawn, and the snakes eliminated on this very turn (faded).
        shown = {
            s.id
            for s in state.snakes
            if not s.eliminated_cause or s.eliminated_on_turn == state.turn
        }
        expected.append(
            {
                "turn": state.turn,
                "heads": heads,
                "hazards": dict(stacks),
                "food": len(state.food),
                "shown": sorted(shown),
                "snakes": len(state.snakes),
            }
        )
    # The sample game shows what the checks are about.
    assert crossings > 0, "the sample game should cross an edge"
    assert most >= 2, "the sample game should stack hazards"
    assert heads_checked > 100
    final = record.final_state
    alive = [s.id for s in final.snakes if not s.eliminated_cause]
    dead = sorted(
        (s for s in final.snakes if s.eliminated_cause), key=lambda s: -s.eliminated_on_turn
    )
    return expected, alive + [s.id for s in dead]


@pytest.fixture(scope="module")
def viewer_input(games: dict[str, Path]) -> dict[str, Any]:
    """What ``js/viewer.test.mjs`` reads: the games' files and what Python makes of them."""
    record = read_replay(games["snakewar"])
    assert record.result is not None
    names = {e.id: e.name for e in record.snakes}
    eliminated = [s for s in record.final_state.snakes if s.eliminated_cause]
    assert eliminated, "the sample game should eliminate someone"
    sentences = {
        s.id: (
            ELIMINATION_SENTENCES[str(s.eliminated_cause)].format(
                by=names.get(s.eliminated_by, s.eliminated_by), turn=s.eliminated_on_turn
            )
            if s.eliminated_cause
            else ""
        )
        for s in record.final_state.snakes
    }
    wrapped, order = _wrapped(games)
    frames = record_frames(record)
    return {
        "files": {key: str(path) for key, path in games.items()},
        "engineFrames": frames[:3],
        "expected": {
            "snakewar": {
                "frames": frames,
                "game": game_info(record, "complete"),
                "winner": record.result.winner,
                "isDraw": record.result.is_draw,
            },
            "official": _official(games),
            "sentences": sentences,
            "order": order,
            "wrapped": wrapped,
            "bigSeed": {
                "seed": BIG_SEED,
                "game": game_info(read_replay(games["bigSeed"]), "complete"),
            },
        },
    }


def test_the_viewer_modules_under_node(
    viewer_input: dict[str, Any], node_test: Callable[..., int]
) -> None:
    assert node_test(JS / "viewer.test.mjs", viewer_input) == 21
