"""The game page's step controls and request inspector (``pages/inspect.js``) under Node,
fed with real answers of a local server's step-mode game."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest
from fastapi.testclient import TestClient

from snakewar.server import ServerConfig, create_app
from snakewar.viewer import static_dir

NODE_SCRIPT = r"""
const cfg = JSON.parse(process.argv[1]);
const I = await import(cfg.base + "pages/inspect.js");
const out = {};
out.urls = [I.actionUrl("a b/c", "step"), I.callsUrl("a b/c", 7)];
out.states = cfg.games.map(I.stepState);
out.notes = cfg.calls.map(I.callsNote);
out.summaries = cfg.calls[0].calls.map(I.callSummary);
out.failed = I.callSummary({ kind: "move", status: "http-status", http_status: 500,
  latency_ms: 12, move: "", error: "HTTP status 500" });
out.pretty = cfg.calls[0].calls.map((c) => I.prettyBody(c.request, c.request_truncated));
out.plain = [I.prettyBody("oops"), I.prettyBody(""), I.prettyBody('{"a":', true)];
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js(node: str) -> dict[str, Any]:
    app = create_app(ServerConfig(database_url="memory"))
    with TestClient(app, base_url="http://localhost") as client:
        body = {"snakes": ["random", "greedy"], "seed": 9, "width": 7, "height": 7, "step": True}
        gid = client.post("/api/games", json=body).json()["id"]
        paused = client.post(f"/api/games/{gid}/step").json()
        running = client.post(f"/api/games/{gid}/resume").json()
        turn0 = client.get(f"/api/games/{gid}/calls", params={"turn": 0}).json()
        later = client.get(f"/api/games/{gid}/calls", params={"turn": 4000}).json()
        over = client.post(f"/api/games/{gid}/cancel").json()
    public = {**turn0, "records_calls": False, "calls": []}
    config = {
        "base": static_dir().as_uri() + "/",
        "games": [paused, {**running, "status": "running"}, over],
        "calls": [turn0, later, public],
    }
    done = subprocess.run(
        [node, "--input-type=module", "-e", NODE_SCRIPT, json.dumps(config)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    result["config"] = config
    return result


def test_urls_escape_the_game_id(js: dict[str, Any]) -> None:
    assert js["urls"] == ["/api/games/a%20b%2Fc/step", "/api/games/a%20b%2Fc/calls?turn=7"]


def test_the_step_state_follows_the_game(js: dict[str, Any]) -> None:
    paused, running, over = js["states"]
    assert paused == {
        "text": "Paused at turn 1",
        "help": "Step plays the next turn; Resume lets the game run on. Scrub the board meanwhile.",
        "running": True,
        "paused": True,
    }
    assert running["running"] and not running["paused"]
    # No turn number: the toolbar shows the board's, which a polled one would lag.
    assert running["text"] == "Running"
    assert running["help"].startswith("Pause holds the game before its next turn")
    assert not over["running"] and not over["paused"]
    assert over["text"].startswith(f"Game {js['config']['games'][2]['status']} at turn ")
    assert over["help"] == ""


def test_the_inspector_lists_each_call_and_pretty_prints_its_body(js: dict[str, Any]) -> None:
    turn0 = js["config"]["calls"][0]
    assert [c["kind"] for c in turn0["calls"]] == ["start", "start", "move", "move"]
    assert js["notes"][0].startswith("Calls on turn 0")
    assert js["notes"][1] == (
        "No calls on turn 4000 yet: the snakes are asked when the game plays it."
    )
    assert "keeps no request bodies" in js["notes"][2]
    move = turn0["calls"][2]
    assert js["summaries"][2] == f"move · ok · {move['latency_ms']} ms · move {move['move']}"
    assert js["failed"] == "move · http-status · HTTP 500 · 12 ms — HTTP status 500"
    for call, pretty in zip(turn0["calls"], js["pretty"], strict=True):
        assert json.loads(pretty) == json.loads(call["request"])
        assert pretty.startswith('{\n  "game": {')
    assert js["plain"] == ["oops", "(empty)", '{"a":\n… (cut at 16 KiB)']
