"""The board viewer's static files: present, packaged, offline, and its JavaScript correct.

The pure modules (frame conversion, board rendering, playback, the events
stream) run under Node against games played by the real ``snakewar`` command,
and their output is compared with Snakewar's own Python readers and the
server's frame builder.  Browser tests come separately.
"""

from __future__ import annotations

import gzip
import itertools
import json
import re
import subprocess
import sys
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from snakewar.games.battlesnake.frames import game_info, record_frames
from snakewar.replay import read_official_jsonl, read_replay
from snakewar.viewer import ASSETS, BOARD_PAGE, static_dir

CELL = 20  # render.js's CELL

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


def js_files() -> list[Path]:
    """The viewer's modules and the site's page modules (``pages/``)."""
    return sorted(static_dir().rglob("*.js"))


def shipped_files() -> set[str]:
    return {p.relative_to(static_dir()).as_posix() for p in static_dir().rglob("*") if p.is_file()}


# -- the files ---------------------------------------------------------------------------


def test_every_asset_exists_in_the_package() -> None:
    root = static_dir()
    assert root.is_dir()
    for name in ASSETS:
        assert (root / name).is_file(), name
        assert (root / name).stat().st_size > 0, name
    packaged = resources.files("snakewar.viewer").joinpath("static", BOARD_PAGE)
    assert packaged.is_file()
    # Nothing shipped is left out of ASSETS (the server and packagers rely on it).
    assert shipped_files() == set(ASSETS)


def test_the_page_loads_its_own_files_only() -> None:
    page = (static_dir() / BOARD_PAGE).read_text(encoding="utf-8")
    assert 'href="viewer.css"' in page
    assert '<script type="module" src="viewer.js">' in page
    for name in shipped_files():
        path = static_dir() / name
        text = path.read_text(encoding="utf-8")
        # The SVG namespace is an identifier, not a download.
        urls = set(re.findall(r"https?://[^\s\"'`)]+", text)) - {"http://www.w3.org/2000/svg"}
        assert not urls, f"{path.name} refers to {urls}: the viewer must work offline"


def test_every_relative_import_resolves() -> None:
    for path in js_files():
        for target in re.findall(r'from\s+"(\.\.?/[^"]+)"', path.read_text(encoding="utf-8")):
            assert (path.parent / target).is_file(), f"{path.name} imports missing {target}"


def test_the_main_controls_and_rows_carry_test_ids() -> None:
    page = (static_dir() / BOARD_PAGE).read_text(encoding="utf-8")
    for test_id in CONTROL_IDS:
        assert page.count(f'data-testid="{test_id}"') == 1, test_id
    rows = (static_dir() / "scoreboard.js").read_text(encoding="utf-8")
    for test_id in ROW_IDS:
        assert f'data-testid="{test_id}"' in rows, test_id


@pytest.mark.parametrize("path", js_files(), ids=lambda p: p.relative_to(static_dir()).as_posix())
def test_module_parses(path: Path, node: str) -> None:
    done = subprocess.run([node, "--check", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


# -- the JavaScript under Node, against real games -----------------------------------------

NODE_SCRIPT = r"""
import fs from "node:fs";
const cfg = JSON.parse(process.argv[1]);
const F = await import(cfg.base + "frames.js");
const R = await import(cfg.base + "render.js");
const S = await import(cfg.base + "sprites.js");
const P = await import(cfg.base + "player.js");
const C = await import(cfg.base + "controls.js");
const L = await import(cfg.base + "live.js");
const SB = await import(cfg.base + "scoreboard.js");

const load = async (path) => F.parseReplayText(await F.decodeReplayBytes(fs.readFileSync(path)));
const out = {};
out.snakewar = await load(cfg.snakewar);
out.snakewarGzSame =
  JSON.stringify((await load(cfg.snakewarGz)).frames) === JSON.stringify(out.snakewar.frames);
out.official = await load(cfg.official);
out.wrapped = await load(cfg.wrapped);
out.engineFramesNormalized = cfg.engineFrames.map(F.normalizeFrame);
out.sentences = Object.fromEntries(
  out.snakewar.frames.at(-1).Snakes.map((s, _, all) => [s.ID, F.eliminationText(s, all)]),
);
out.order = F.scoreboardOrder(out.wrapped.frames.at(-1).Snakes).map((s) => s.ID);

// The board of every wrapped frame: body polylines, hazards, food, head directions.
out.render = out.wrapped.frames.map((frame) => {
  const svg = R.renderBoard(out.wrapped.game, frame, { showCoords: true });
  let maxStep = 0;
  for (const [, d] of svg.matchAll(/class="snake-body" d="([^"]+)"/g)) {
    const pts = d.slice(1).split(" L").map((p) => p.split(" ").map(Number));
    for (let i = 1; i < pts.length; i += 1) {
      const len = Math.hypot(pts[i][0] - pts[i - 1][0], pts[i][1] - pts[i - 1][1]);
      maxStep = Math.max(maxStep, len);
    }
  }
  const hazards = {};
  for (const [, x, y, n] of svg.matchAll(
    /class="hazard" x="([\d.]+)" y="([\d.]+)"[^>]*data-stack="(\d+)"/g,
  )) {
    const cx = Math.floor(Number(x) / R.CELL);
    const cy = out.wrapped.game.Height - 1 - Math.floor(Number(y) / R.CELL);
    hazards[`${cx},${cy}`] = Number(n);
  }
  const heads = {};
  for (const s of frame.Snakes) {
    const g = R.snakeGeometry(s.Body, out.wrapped.game.Height);
    if (g.head) {
      heads[s.ID] = [g.head.dx, g.head.dy];
    }
  }
  const drawn = [...svg.matchAll(/class="snake[^"]*" data-snake-id="([^"]+)"/g)].map((m) => m[1]);
  return {
    turn: frame.Turn,
    maxStep,
    hazards,
    food: (svg.match(/class="food"/g) ?? []).length,
    heads,
    drawn,
    scoreboardRows: (SB.renderScoreboard(frame).match(/data-testid="snake-row"/g) ?? []).length,
  };
});

// Sprites: names, and unknown names drawn as the defaults.
const sample = out.snakewar.frames[5];
const renamed = (head, tail) => ({
  ...sample,
  Snakes: sample.Snakes.map((s) => ({ ...s, HeadType: head, TailType: tail })),
});
out.sprites = {
  heads: S.HEAD_NAMES,
  tails: S.TAIL_NAMES,
  unknownDrawnAsDefault:
    R.renderBoard(out.snakewar.game, renamed("no-such-head", 42)) ===
    R.renderBoard(out.snakewar.game, renamed("default", "default")),
  allDistinct:
    new Set(S.HEAD_NAMES.map((n) => S.headPaths(n).join())).size === S.HEAD_NAMES.length &&
    new Set(S.TAIL_NAMES.map((n) => S.tailPaths(n).join())).size === S.TAIL_NAMES.length,
};
out.escaped = SB.renderScoreboard({
  Turn: 0, Food: [], Hazards: [],
  Snakes: [F.normalizeSnake({ ID: "x", Name: "<b>&", Shout: "\"hi'", Color: "red;x" })],
});

// insertFrame: duplicates replaced, late frames sorted in.
const buffer = [];
for (const t of [0, 1, 2, 1, 0, 5, 3, 4, 5]) {
  F.insertFrame(buffer, { Turn: t, Snakes: [], Food: [], Hazards: [] });
}
out.inserted = buffer.map((f) => f.Turn);

// Playback with a fake clock.
const timers = [];
const clock = {
  schedule: (fn, ms) => timers.push({ fn, ms }) - 1,
  cancel: (h) => { timers[h] = null; },
};
const fire = () => {
  const i = timers.findIndex((t) => t !== null);
  const t = timers[i];
  timers[i] = null;
  t.fn();
  return t.ms;
};
const pending = () => timers.filter((t) => t !== null).length;
const frames10 = Array.from({ length: 10 }, (_, i) => ({
  Turn: i, Food: [], Hazards: [],
  Snakes: [
    { ID: "a", Death: i >= 3 ? { Cause: "wall-collision", Turn: 3, EliminatedBy: "" } : null },
    { ID: "b", Death: i >= 7 ? { Cause: "out-of-health", Turn: 7, EliminatedBy: "" } : null },
  ],
}));
const player = new P.Player(clock);
const log = {};
player.setFrames([...frames10]);
player.play();
log.firstDelay = fire();
fire();
fire();
log.afterThreeTicks = player.index;
player.setFps(30);
log.pendingAfterFps = pending();
log.fpsDelay = fire();
log.afterFpsTick = player.index;
player.pause();
log.pendingAfterPause = pending();
player.first();
log.nextElim = [];
for (let i = 0; i < 3; i += 1) {
  log.nextElim.push(player.nextElimination(), player.frame.Turn);
}
log.prevElim = [player.prevElimination(), player.frame.Turn];
player.last();
player.play();
log.playAtEndRestarts = player.index;
player.pause();
// Live: wait at the end, follow new frames, keep the turn when a late frame lands.
const live = new P.Player(clock);
live.live = true;
live.setFrames([frames10[2], frames10[4]], 1);
live.framesInserted(F.insertFrame(live.frames, frames10[5]));
log.followsNewFrame = live.frame.Turn;
live.framesInserted(F.insertFrame(live.frames, frames10[3]));
log.lateFrameKeepsTurn = live.frame.Turn;
live.prev();
live.framesInserted(F.insertFrame(live.frames, frames10[6]));
log.scrolledBackStays = live.frame.Turn;
live.last();
live.play();
fire();
log.liveWaitsAtEnd = [live.playing, live.frame.Turn, pending()];
live.framesInserted(F.insertFrame(live.frames, frames10[7]));
fire();
log.livePlaysOn = live.frame.Turn;
live.pause();
out.player = log;
out.clamp = [P.clampFps("x"), P.clampFps(0), P.clampFps(1000), P.clampFps("12")];

out.keys = Object.fromEntries(
  [" ", "s", "K", "ArrowRight", "d", "l", "ArrowLeft", "a", "j", "e", "q", "r", "t", "x"].map(
    (key) => [key, C.keyAction({ key })],
  ),
);
out.ctrlKey = C.keyAction({ key: "r", ctrlKey: true });
out.messages = [
  C.messageAction({ event: "KEY", key: "t" }),
  C.messageAction({ event: "KEY", key: "ArrowLeft" }),
  C.messageAction({ event: "KEY", key: "x" }),
  C.messageAction({ event: "TURN", key: "t" }),
  C.messageAction({ event: "KEY", key: 7 }),
  C.messageAction("KEY"),
  C.messageAction(null),
];

// The events stream with a fake websocket: reconnect, de-duplicate, stop at game_end.
out.urls = [
  L.eventsUrl("http://h:9/x/", "a b"),
  L.eventsUrl("https://e.example/", "g"),
  L.gameUrl("http://h:9/x/", "g"),
  L.framesUrl("http://h:9", "g", 100),
];
out.backoff = [0, 1, 5, 30].map((n) => [L.backoffDelay(n, () => 0), L.backoffDelay(n, () => 1)]);
const sockets = [];
class FakeSocket {
  constructor(url) { this.url = url; this.handlers = {}; sockets.push(this); }
  addEventListener(type, fn) { (this.handlers[type] ??= []).push(fn); }
  emit(type, event = {}) { for (const fn of this.handlers[type] ?? []) fn(event); }
  close() { this.emit("close", { code: 1000 }); }
}
const seen = [];
const statuses = [];
let ended = null;
const stream = new L.EventStream("ws://h/games/g/events", {
  onFrame: (f) => F.insertFrame(seen, f),
  onEnd: (d) => { ended = d; },
  onStatus: (s) => statuses.push(s),
}, { WebSocket: FakeSocket, ...clock });
const send = (s, type, data) =>
  s.emit("message", { data: JSON.stringify({ Type: type, Data: data }) });
stream.start();
sockets[0].emit("open");
send(sockets[0], "frame", { Turn: 0 });
send(sockets[0], "frame", { Turn: 1 });
sockets[0].emit("message", { data: "not json" });
sockets[0].emit("close", { code: 1006 });
const reconnectDelay = timers.filter((t) => t !== null).at(-1).ms;
fire();
sockets[1].emit("open");
for (const t of [0, 1, 2]) send(sockets[1], "frame", { Turn: t });
send(sockets[1], "game_end", { ID: "g" });
out.stream = {
  sockets: sockets.length,
  turns: seen.map((f) => f.Turn),
  ended,
  reconnectDelay,
  pendingAfterEnd: pending(),
  statuses,
};
let missing = false;
const lost = new L.EventStream("ws://h/games/nope/events", { onMissing: () => { missing = true; } },
  { WebSocket: FakeSocket, ...clock });
lost.start();
sockets.at(-1).emit("close", { code: L.GAME_NOT_FOUND });
out.missing = { missing, pending: pending() };
const capStatuses = [];
const capped = new L.EventStream("ws://h/games/g/events", { onStatus: (s) => capStatuses.push(s) },
  { WebSocket: FakeSocket, ...clock });
capped.start();
sockets.at(-1).emit("close", { code: L.FOLLOWER_LIMIT, reason: "too many followers of this game" });
out.capped = { statuses: capStatuses, pending: pending() };
capped.stop();

console.log(JSON.stringify(out));
"""


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
    return {"snakewar": replay, "official": official, "wrapped": wrapped, "snakewarGz": gz}


@pytest.fixture(scope="module")
def js(games: dict[str, Path], node: str) -> dict[str, Any]:
    record = read_replay(games["snakewar"])
    config = {
        "base": static_dir().as_uri() + "/",
        **{key: str(path) for key, path in games.items()},
        "engineFrames": record_frames(record)[:3],
    }
    done = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT, json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def _bodies(state: Any) -> dict[str, list[list[int]]]:
    return {s.id: [[p.x, p.y] for p in s.body] for s in state.snakes}


def test_a_snakewar_replay_converts_to_the_servers_frames(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    record = read_replay(games["snakewar"])
    converted = js["snakewar"]
    assert converted["format"] == "snakewar"
    # Exactly what the live server sends for this game, field for field.
    assert converted["frames"] == record_frames(record)
    assert converted["game"] == game_info(record, "complete")
    assert record.result is not None
    assert converted["result"]["winnerId"] == record.result.winner
    assert converted["result"]["isDraw"] == record.result.is_draw
    assert converted["notes"] == []
    assert js["snakewarGzSame"] is True


def test_normalizing_the_servers_frames_changes_nothing(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    assert js["engineFramesNormalized"] == record_frames(read_replay(games["snakewar"]))[:3]


def test_the_official_jsonl_converts_to_frames(js: dict[str, Any], games: dict[str, Path]) -> None:
    official = read_official_jsonl(games["official"])
    record = read_replay(games["snakewar"])
    converted = js["official"]
    assert converted["format"] == "official"
    frames = converted["frames"]
    assert [f["Turn"] for f in frames] == [f.turn for f in official.frames]
    assert len(frames) == len(record.turns) + 1
    for frame, theirs in zip(frames, official.frames, strict=True):
        alive = {s["ID"]: s for s in frame["Snakes"] if s["Death"] is None}
        assert {sid: [[p["X"], p["Y"]] for p in s["Body"]] for sid, s in alive.items()} == (
            _bodies(theirs.state)
        )
        assert {sid: s["Health"] for sid, s in alive.items()} == {
            s.id: s.health for s in theirs.state.snakes
        }
        assert [[p["X"], p["Y"]] for p in frame["Food"]] == [[p.x, p.y] for p in theirs.state.food]
    # Snakes that disappear are kept, eliminated on the turn the Snakewar replay says.
    final = {s["ID"]: s for s in frames[-1]["Snakes"]}
    assert set(final) == {e.id for e in record.snakes}
    for snake in record.final_state.snakes:
        death = final[snake.id]["Death"]
        if snake.eliminated_cause:
            assert death == {"Cause": "", "Turn": snake.eliminated_on_turn, "EliminatedBy": ""}
        else:
            assert death is None
    assert official.result is not None
    assert converted["result"]["winnerId"] == official.result.winner_id
    assert converted["result"]["winnerName"] == official.result.winner_name
    assert converted["game"]["ID"] == record.id
    assert converted["game"]["Width"] == record.config.width


def test_elimination_sentences_name_the_cause_and_the_other_snake(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    record = read_replay(games["snakewar"])
    names = {e.id: e.name for e in record.snakes}
    expected_by_cause = {
        "snake-collision": "Collided with {by}'s body on turn {turn}",
        "snake-self-collision": "Collided with itself on turn {turn}",
        "head-collision": "Lost head-to-head with {by} on turn {turn}",
        "wall-collision": "Moved out of bounds on turn {turn}",
        "out-of-health": "Starved on turn {turn}",
        "hazard": "Eliminated by hazard on turn {turn}",
    }
    eliminated = [s for s in record.final_state.snakes if s.eliminated_cause]
    assert eliminated, "the sample game should eliminate someone"
    for snake in record.final_state.snakes:
        text = js["sentences"][snake.id]
        if not snake.eliminated_cause:
            assert text == ""
            continue
        template = expected_by_cause[str(snake.eliminated_cause)]
        by = names.get(snake.eliminated_by, snake.eliminated_by)
        assert text == template.format(by=by, turn=snake.eliminated_on_turn)


def test_the_scoreboard_lists_the_living_first_then_the_latest_eliminated(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    final = read_replay(games["wrapped"]).final_state
    alive = [s.id for s in final.snakes if not s.eliminated_cause]
    dead = sorted(
        (s for s in final.snakes if s.eliminated_cause), key=lambda s: -s.eliminated_on_turn
    )
    assert js["order"] == alive + [s.id for s in dead]


def _direction(neck: tuple[int, int], head: tuple[int, int]) -> list[int]:
    dx, dy = head[0] - neck[0], head[1] - neck[1]
    # One step across a wrapped edge shows as a jump of (size - 1) the other way.
    if abs(dx) > 1:
        dx = -1 if dx > 0 else 1
    if abs(dy) > 1:
        dy = -1 if dy > 0 else 1
    return [dx, dy]


def test_wrapped_boards_draw_no_segment_across_the_board(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    record = read_replay(games["wrapped"])
    states = [record.initial, *(t.after for t in record.turns)]
    crossings = 0
    for state, drawn in zip(states, js["render"], strict=True):
        assert drawn["turn"] == state.turn
        for snake in state.snakes:
            body = snake.body
            crossings += sum(
                abs(a.x - b.x) > 1 or abs(a.y - b.y) > 1 for a, b in itertools.pairwise(body)
            )
        # Between cell centres (or a centre and an edge), never across the board.
        assert drawn["maxStep"] <= CELL + 1e-6, f"turn {state.turn}"
    assert crossings > 0, "the sample game should cross an edge"


def test_heads_face_away_from_the_neck_even_across_an_edge(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    record = read_replay(games["wrapped"])
    states = [record.initial, *(t.after for t in record.turns)]
    checked = 0
    for state, drawn in zip(states, js["render"], strict=True):
        for snake in state.snakes:
            distinct = [p for i, p in enumerate(snake.body) if i == 0 or p != snake.body[i - 1]]
            if len(distinct) < 2:
                assert drawn["heads"][snake.id] == [0, 1]  # stacked at the start: facing up
                continue
            head, neck = distinct[0], distinct[1]
            expected = _direction((neck.x, neck.y), (head.x, head.y))
            assert drawn["heads"][snake.id] == expected, (state.turn, snake.id)
            checked += 1
    assert checked > 100


def test_hazards_stack_and_food_and_snakes_are_drawn(
    js: dict[str, Any], games: dict[str, Path]
) -> None:
    record = read_replay(games["wrapped"])
    states = [record.initial, *(t.after for t in record.turns)]
    w, h = record.config.width, record.config.height
    most = 0
    for state, drawn in zip(states, js["render"], strict=True):
        stacks = Counter(f"{p.x},{p.y}" for p in state.hazards if 0 <= p.x < w and 0 <= p.y < h)
        assert drawn["hazards"] == dict(stacks), f"turn {state.turn}"
        most = max(most, *stacks.values(), 0)
        assert drawn["food"] == len(state.food)
        # The living are drawn, and the snakes eliminated on this very turn (faded).
        shown = {
            s.id
            for s in state.snakes
            if not s.eliminated_cause or s.eliminated_on_turn == state.turn
        }
        assert set(drawn["drawn"]) == shown
        assert drawn["scoreboardRows"] == len(state.snakes)
    assert most >= 2, "the sample game should stack hazards"


def test_sprites_have_many_shapes_and_unknown_names_fall_back(js: dict[str, Any]) -> None:
    sprites = js["sprites"]
    assert len(sprites["heads"]) >= 6
    assert len(sprites["tails"]) >= 6
    assert sprites["heads"][0] == sprites["tails"][0] == "default"
    assert {"beluga", "bendr", "dead", "fang", "pixel", "smile", "tongue"} <= set(sprites["heads"])
    assert {"block-bum", "bolt", "curled", "fat-rattle", "freckled", "round-bum"} <= set(
        sprites["tails"]
    )
    assert sprites["unknownDrawnAsDefault"] is True
    assert sprites["allDistinct"] is True


def test_text_from_snakes_is_escaped(js: dict[str, Any]) -> None:
    html = js["escaped"]
    assert "<b>" not in html and "&lt;b&gt;&amp;" in html
    assert "&quot;hi&#39;" in html
    assert "red;x" not in html  # not a hex colour: the default grey is used
    assert "#888888" in html
    # No inline style in the markup (the server's CSP allows none): the bar is painted
    # from its data attributes.
    assert "style=" not in html and 'data-health="0" data-color="#888888"' in html


def test_frames_are_deduplicated_and_sorted_by_turn(js: dict[str, Any]) -> None:
    assert js["inserted"] == [0, 1, 2, 3, 4, 5]


def test_playback(js: dict[str, Any]) -> None:
    log = js["player"]
    assert log["firstDelay"] == pytest.approx(1000 / 6)
    assert log["afterThreeTicks"] == 3
    # A new speed replaces the pending tick instead of adding one.
    assert log["pendingAfterFps"] == 1
    assert log["fpsDelay"] == pytest.approx(1000 / 30)
    assert log["afterFpsTick"] == 4
    assert log["pendingAfterPause"] == 0
    assert log["nextElim"] == [True, 3, True, 7, False, 7]
    assert log["prevElim"] == [True, 3]
    assert log["playAtEndRestarts"] == 0
    assert log["followsNewFrame"] == 5
    assert log["lateFrameKeepsTurn"] == 5
    assert log["scrolledBackStays"] == 4
    assert log["liveWaitsAtEnd"] == [True, 6, 1]
    assert log["livePlaysOn"] == 7
    assert js["clamp"] == [6, 6, 60, 12]


def test_keyboard_shortcuts_match_the_official_board(js: dict[str, Any]) -> None:
    assert js["keys"] == {
        " ": "toggle",
        "s": "toggle",
        "K": "toggle",
        "ArrowRight": "next",
        "d": "next",
        "l": "next",
        "ArrowLeft": "prev",
        "a": "prev",
        "j": "prev",
        "e": "nextElimination",
        "q": "prevElimination",
        "r": "first",
        "t": "last",
        "x": None,
    }
    assert js["ctrlKey"] is None
    # Keys forwarded by the embedding page (pages/board_keys.js) do the same.
    assert js["messages"] == ["last", "prev", None, None, None, None, None]


def test_engine_urls_and_backoff(js: dict[str, Any]) -> None:
    assert js["urls"] == [
        "ws://h:9/x/games/a%20b/events",
        "wss://e.example/games/g/events",
        "http://h:9/x/games/g",
        "http://h:9/games/g/frames?offset=100&limit=100",
    ]
    assert js["backoff"] == [[400, 600], [800, 1200], [12000, 18000], [12000, 18000]]


def test_the_event_stream_reconnects_deduplicates_and_stops_at_game_end(
    js: dict[str, Any],
) -> None:
    stream = js["stream"]
    assert stream["sockets"] == 2
    assert stream["turns"] == [0, 1, 2]
    assert stream["ended"] == {"ID": "g"}
    assert 400 <= stream["reconnectDelay"] <= 600
    assert stream["pendingAfterEnd"] == 0
    assert stream["statuses"][-1] == "game over"
    assert js["missing"] == {"missing": True, "pending": 0}
    # Refused by a follower cap: the reason is shown and it tries again later.
    assert js["capped"] == {
        "statuses": ["connecting", "too many followers of this game; retrying in 1 s"],
        "pending": 1,
    }


def test_a_replays_64_bit_seed_is_read_exactly(tmp_path: Path, node: str) -> None:
    seed = 2618439174457646105  # JSON.parse alone gives 2618439174457646000
    replay, _ = _play(tmp_path, "big-seed", "random", "greedy", "-r", str(seed))
    script = (
        "const F = await import(process.argv[1] + 'frames.js');"
        "const fs = await import('node:fs');"
        "const text = await F.decodeReplayBytes(fs.readFileSync(process.argv[2]));"
        "console.log(JSON.stringify(F.parseReplayText(text).game));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script, static_dir().as_uri() + "/", str(replay)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    game = json.loads(done.stdout)
    assert game["SeedString"] == str(seed)
    assert game == {**game_info(read_replay(replay), "complete"), "Seed": game["Seed"]}
