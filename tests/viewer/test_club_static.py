"""The club pages' modules under Node: forms to request bodies, API answers to rows.

The ladders, tournaments, users and invitations pages (and the shared ``club.js``)
export what turns the catalogue and the API's answers into fields, rows, chart axes
and request bodies; here Node runs those parts on real answers of a server where it
can (the catalogue, a ladder's history), and the browser tests drive the rest.
"""

from __future__ import annotations

import json
import subprocess
import time
from typing import Any

import pytest

from snakewar.viewer import static_dir

BIG_SEED = "2618439174457646105"

NODE_SCRIPT = r"""
const cfg = JSON.parse(process.argv[1]);
const load = (name) => import(cfg.base + "pages/" + name);
const C = await load("club.js");
const LS = await load("ladders.js");
const L = await load("ladder.js");
const TS = await load("tournaments.js");
const T = await load("tournament.js");
const U = await load("admin_users.js");
const I = await load("admin_invites.js");
const LI = await load("login.js");
const out = {};
const bs = cfg.catalogue.find((g) => g.name === "battlesnake");
const h3 = cfg.catalogue.find((g) => g.name === "halite3");

out.formats = ["single_elimination", "double_elimination", "round_robin", "swiss",
  "new_kind"].map(C.formatName);
out.shortTime = [C.shortTime("2026-11-24T03:04:05+00:00"), C.shortTime(null)];
out.fields = C.paramFields(bs.params, { width: 7, sequential: true });
out.h3fields = C.paramFields(h3.params);
const raw = Object.fromEntries(out.fields.map((f) => [f.name, f.value]));
const defaults = Object.fromEntries(C.paramFields(bs.params).map((f) => [f.name, f.value]));
out.unchanged = C.changedParams(bs.params, raw);
out.changed = C.changedParams(bs.params, { ...raw, width: " 9 ", ruleset: "royale",
  sequential: false, height: "" });
out.typo = C.changedParams(bs.params, { ...raw, width: "9.5" });
out.againstCurrent = C.changedParams(bs.params, { ...raw, width: "7" }, { width: 9 });
out.sizes = [C.gameSizes(bs), C.gameSizes(h3, 8)];
const snakes = [
  { ref: "@ann/viper", game: "battlesnake", paused: false },
  { ref: "@ann/old", game: "battlesnake", paused: true },
  { ref: "@ann/kit", game: "halite3", paused: false },
];
out.choices = C.entrantChoices(bs, snakes);
out.optional = [C.optionalNumber(" 12 "), C.optionalNumber(""), C.optionalNumber(undefined)];

out.ladderBody = LS.ladderBody({ name: " club ", game_size: "4", timeout: "", max_turns: "300",
  seed: ` ${cfg.bigSeed} ` }, bs, { ...raw, width: "9" });
out.ladderBodyJson = JSON.stringify(out.ladderBody);
out.ladderRow = LS.ladderRow({ name: "a", game: "halite3", snakes: 1, games_played: 0,
  running: false });

out.status = [
  L.statusText({ paused: false, note: "" }),
  L.statusText({ paused: false, note: "", failure: "" }),
  L.statusText({ paused: false, note: "failed in a game: timeout", failure: "timeout" }),
  L.statusText({ paused: true, note: "paused: connection refused", failure: "refused" }),
  L.statusText({ paused: true, note: "paused by its owner" }),
  L.statusText({ paused: true, note: "" }),
];
out.actions = [L.entryAction("ann/viper", "ann", false), L.entryAction("bob/x", "ann", false),
  L.entryAction("random", "ann", false), L.entryAction("random", "boss", true),
  L.entryAction("annie/x", "ann", false), L.entryAction("ann/x", "", false)];
const standings = [{ snake: "ann/viper" }, { snake: "random" }];
out.joinMember = L.joinChoices(bs, snakes, standings, false);
out.joinAdmin = L.joinChoices(bs, [...snakes, { ref: "@bob/b", game: "battlesnake",
  paused: false }], standings, true);
out.runs = [L.runText(null), L.runText({ games: 10, done: 3, running: true, error: "" }),
  L.runText({ games: 10, done: 10, running: false, error: "" }),
  L.runText({ games: 10, done: 4, running: false, error: "no game of the round" }),
  L.runText({ games: null, done: 5, running: true, error: "" }),
  L.runText({ games: 10, done: 4, running: true, error: "", state: "stopping" }),
  L.runText({ games: 10, done: 4, running: false, error: "", state: "stopped" }),
  L.runText({ games: 10, done: 6, running: false, error: "its server stopped", state:
    "interrupted" })];
out.ladderStops = [L.canStop({ running: true, run: { state: "running" } }),
  L.canStop({ running: true, run: { state: "stopping" } }),
  L.canStop({ running: false, run: { state: "stopped" } })];
out.ticks = [L.niceTicks(0, 10, 5), L.niceTicks(-3.2, 7.9, 5), L.niceTicks(0.1, 0.55, 4),
  L.niceTicks(1, 1, 5), L.niceTicks(1, 3, 6)];
out.axes = L.chartAxes(cfg.history);
out.lines = L.chartLines(cfg.history);
out.noAxes = L.chartAxes({});
out.legend = L.legendItems(cfg.history);
out.area = L.CHART;

const listed = { id: "c-1", name: "Cup", page: "/tournaments/c-1", running: false,
  game: "battlesnake", format: "double_elimination", entrants: 4, started: false,
  finished: false, champion: null };
out.states = [TS.stateText(listed), TS.stateText({ ...listed, started: true, running: true }),
  TS.stateText({ ...listed, started: true }),
  TS.stateText({ ...listed, started: true, finished: true, champion: "a" }),
  TS.stateText({ id: "b", name: "b", page: "/tournaments/b", running: false, started: true,
    finished: false, champion: null, error: "tournament 'b' cannot be loaded: no match R9-9" })];
out.tRow = TS.tournamentRow(listed);
out.noTournaments = TS.tournamentRows([]);
out.tBody = TS.tournamentBody({ name: " Cup ", format: "swiss",
  more: " @bob/b \n\n builtin:random ", heat_size: "2", best_of: "3", timeout: "250",
  max_turns: "", seed: "", start: "on" },
  ["@ann/viper", "builtin:greedy"], bs, { ...defaults, ruleset: "wrapped" });
out.tBodyLater = TS.tournamentBody({ name: "x", format: "round_robin", heat_size: "2",
  best_of: "1" }, ["a", "b"], h3, {}).start;

const cup = { name: "Cup", format: "round_robin", format_title: "Round robin",
  config: { game: "battlesnake" }, snakes: [{}, {}, {}], finished: false, running: false,
  started: false, run: null };
out.tStatus = [T.statusText(cup), T.statusText({ ...cup, started: true, running: true,
  run: { done: 2 } }), T.statusText({ ...cup, started: true, run: { error: "x failed" } }),
  T.statusText({ ...cup, finished: true, champion: "a" }),
  T.statusText({ ...cup, started: true, running: true, run: { done: 3, state: "stopping" } }),
  T.statusText({ ...cup, started: true, run: { done: 3, state: "stopped", error: "" } }),
  T.statusText({ ...cup, started: true, run: { done: 3, state: "interrupted",
    error: "its server stopped" } })];
out.tStops = [T.canStop({ ...cup, started: true, running: true, run: { state: "running" } }),
  T.canStop({ ...cup, started: true, running: true, run: { state: "stopping" } }),
  T.canStop(cup)];
out.startLabels = [T.startLabel(cup), T.startLabel({ ...cup, started: true }),
  T.startLabel({ ...cup, started: true, running: true }),
  T.startLabel({ ...cup, finished: true })];
out.about = [T.aboutText(cup), T.aboutText({ ...cup, format_title: "" })];
out.roundTitles = T.groupRounds([{ bracket: "winners", round: "Winners round 1" },
  { bracket: "final", round: "Grand final" }]).map((r) => r.title);
out.liveBox = T.matchBox({ entrants: ["a", "b"], wins: {}, advanced: [], status: "pending",
  games: [], playing: { game_id: "g", viewer: "/view/g" } }).live;

out.userCells = U.userCells({ name: "ann", role: "user", disabled: true,
  created_at: "2026-11-24T03:04:05+00:00", stored_bytes: 1536, quota_bytes: 67108864 });
out.storedTexts = [U.storedText({ stored_bytes: 0, quota_bytes: 1000 }),
  U.storedText({ stored_bytes: 22 * 1048576 + 1, quota_bytes: null }),
  U.storedText({}), U.sizeText(1023), U.sizeText(5 * 1073741824)];
out.userActions = [U.userActions({ name: "ann", role: "user", disabled: false }, "boss"),
  U.userActions({ name: "bob", role: "admin", disabled: true }, "boss"),
  U.userActions({ name: "boss", role: "admin", disabled: false }, "boss")];
out.actionBodies = ["Make user", "Make admin", "Disable", "Enable", "Reset password"]
  .map(U.actionBody);

out.link = I.inviteLink("https://club.example:8443", "a+b/c=");
out.inviteCells = [
  I.inviteCells({ status: "open", created_at: "2026-11-24T03:04:05+00:00",
    expires_at: "2026-12-01T03:04:05+00:00", made_by: "boss", used_by: null }),
  I.inviteCells({ status: "used", created_at: "2026-11-24T03:04:05+00:00",
    expires_at: "2026-12-01T03:04:05+00:00", made_by: null, used_by: "ann" }),
  I.inviteCells({ status: "expired", created_at: "2026-11-24T03:04:05+00:00",
    expires_at: "2026-12-01T03:04:05+00:00", made_by: "boss", used_by: null }),
];
out.inviteFrom = [LI.inviteFrom("?invite=%20abc%2Bd%20"), LI.inviteFrom(""),
  LI.inviteFrom("?x=1"), LI.inviteFrom("?invite=" + "z".repeat(300)).length];
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js(node: str) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        catalogue = client.get("/api/catalogue").json()
        client.post("/api/ladders", json={"name": "l", "width": 7, "height": 7})
        for snake in ("random", "greedy", "hunter?depth=1"):
            client.post("/api/ladders/l/snakes", json={"snake": snake})
        deadline = time.monotonic() + 240
        # Six games for the chart; on a loaded machine a game may not get its bot worker
        # in time (it is skipped, as a ladder does): the rest are played by another run.
        while (ladder := client.get("/api/ladders/l").json())["games_played"] < 6:
            assert time.monotonic() < deadline, ladder["run"]
            if not ladder["running"]:
                client.post("/api/ladders/l/run", json={"games": 6 - ladder["games_played"]})
            time.sleep(0.05)
        while (ladder := client.get("/api/ladders/l").json())["running"]:
            time.sleep(0.05)
    assert ladder["games_played"] == 6, ladder["run"]
    config = {
        "base": static_dir().as_uri() + "/",
        "bigSeed": BIG_SEED,
        "catalogue": catalogue,
        "history": ladder["history"],
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


def test_formats_and_times_read_as_words(js: dict[str, Any]) -> None:
    assert js["formats"] == [
        "Single elimination",
        "Double elimination",
        "Round robin",
        "Swiss",
        "New kind",
    ]
    assert js["shortTime"] == ["2026-11-24 03:04", ""]


def test_a_games_settings_become_fields_of_their_kind(js: dict[str, Any]) -> None:
    by_name = {f["name"]: f for f in js["fields"]}
    battlesnake = next(g for g in js["config"]["catalogue"] if g["name"] == "battlesnake")
    assert list(by_name) == [p["name"] for p in battlesnake["params"]]
    assert by_name["ruleset"]["input"] == "select" and "royale" in by_name["ruleset"]["options"]
    assert by_name["ruleset"]["value"] == "standard"
    # Current values over defaults.
    assert by_name["width"] == {
        "name": "width",
        "help": "Board width.",
        "options": [],
        "min": 1,
        "max": 255,
        "input": "number",
        "value": "7",
    }
    assert by_name["sequential"]["input"] == "checkbox" and by_name["sequential"]["value"] is True
    assert [f["name"] for f in js["h3fields"]] == ["width", "height"]
    assert all(f["value"] == "0" for f in js["h3fields"])


def test_only_changed_settings_are_sent(js: dict[str, Any]) -> None:
    # The form as drawn (width 7 and sequential over the defaults) differs by those two.
    assert js["unchanged"] == {"width": 7, "sequential": True}
    assert js["changed"] == {"width": 9, "ruleset": "royale"}
    # What is no whole number goes as typed: the server names the field.
    assert js["typo"] == {"width": "9.5", "sequential": True}
    # Against a ladder's current settings: a change back to 7 is a change.
    assert js["againstCurrent"] == {"width": 7, "sequential": True}
    assert js["sizes"] == [[2, 3, 4, 5, 6, 7, 8], [2, 4, 8]]
    assert js["optional"] == [12, None, None]


def test_a_games_entrants_are_its_registered_snakes_then_built_ins(js: dict[str, Any]) -> None:
    assert js["choices"] == [
        {"value": "@ann/viper", "label": "@ann/viper"},
        {"value": "builtin:greedy", "label": "greedy (built-in)"},
        {"value": "builtin:hunter", "label": "hunter (built-in)"},
        {"value": "builtin:random", "label": "random (built-in)"},
    ]


def test_the_new_ladder_body(js: dict[str, Any]) -> None:
    assert js["ladderBody"] == {
        "name": "club",
        "game": "battlesnake",
        "game_size": 4,
        "params": {"width": 9, "sequential": True},
        "maxTurns": 300,
        "seed": BIG_SEED,
    }
    assert f'"seed":"{BIG_SEED}"' in js["ladderBodyJson"]
    assert js["ladderRow"]["cells"][1:] == ["halite3", "1 snakes", "0 games", ""]


def test_a_standings_status_says_paused_failing_or_active(js: dict[str, Any]) -> None:
    assert js["status"] == [
        "active",
        "active",
        "failing: timeout",
        "paused: connection refused",
        "paused by its owner",
        "paused",
    ]


def test_members_leave_their_own_entries_and_join_with_their_own_snakes(
    js: dict[str, Any],
) -> None:
    assert js["actions"] == ["Leave", None, None, "Remove", None, None]
    # ann/viper is on the ladder already; a paused snake and another game's are not offered.
    assert js["joinMember"] == []
    assert js["joinAdmin"] == [
        {"value": "@bob/b", "label": "@bob/b"},
        {"value": "builtin:greedy", "label": "greedy (built-in)"},
        {"value": "builtin:hunter", "label": "hunter (built-in)"},
    ]


def test_a_runs_progress_reads_like_the_clis_bar(js: dict[str, Any]) -> None:
    assert js["runs"] == [
        "",
        "Playing: 3 of 10 games played",
        "Played 10 of 10 games",
        "Stopped after 4 of 10 games: no game of the round",
        "Playing: 5 games played",
        "Stopping: 4 of 10 games played",
        "Stopped by an admin after 4 of 10 games",
        "Interrupted after 6 of 10 games: its server stopped",
    ]
    # A stop button while a run plays, until a stop is asked.
    assert js["ladderStops"] == [True, False, False]


def test_axis_ticks_are_round_numbers_inside_the_range(js: dict[str, Any]) -> None:
    assert js["ticks"] == [
        [0, 2, 4, 6, 8, 10],
        [-2, 0, 2, 4, 6],
        [0.1, 0.2, 0.3, 0.4, 0.5],
        [1],
        [1, 1.5, 2, 2.5, 3],
    ]


def test_the_chart_has_axes_and_a_legend_for_a_real_ladder(js: dict[str, Any]) -> None:
    area, history = js["area"], js["config"]["history"]
    axes = js["axes"]
    longest = max(len(points) for points in history.values())
    # x: a snake's games, whole numbers from 1 to its longest history, left to right.
    games = [int(t["label"]) for t in axes["x"]]
    assert games[0] >= 1 and games[-1] <= longest and games == sorted(games)
    assert all(area["left"] <= t["at"] <= area["right"] for t in axes["x"])
    # y: ratings, top to bottom from high to low, inside the drawing area.
    ratings = [float(t["label"]) for t in axes["y"]]
    assert len(ratings) >= 2 and ratings == sorted(ratings)
    positions = [t["at"] for t in axes["y"]]
    assert positions == sorted(positions, reverse=True)
    assert all(area["top"] - 1e-6 <= y <= area["bottom"] + 1e-6 for y in positions)
    # Every line's points lie between the ticks' extremes and the area.
    lowest = min(p["mu"] - 3 * p["sigma"] for points in history.values() for p in points)
    assert ratings[0] >= lowest - 1
    # The legend names every snake with its line's colour.
    assert [(item["snake"], item["color"]) for item in js["legend"]] == [
        (line["snake"], line["color"]) for line in js["lines"]
    ]
    assert (
        {item["snake"] for item in js["legend"]}
        == set(history)
        == {
            "random",
            "greedy",
            "hunter",
        }
    )
    assert js["noAxes"] is None


def test_tournament_rows_bodies_and_states(js: dict[str, Any]) -> None:
    assert js["states"] == [
        "Not started",
        "Playing now",
        "Stopped: play it on from its page",
        "Champion: a",
        "Cannot be played on: tournament 'b' cannot be loaded: no match R9-9",
    ]
    assert js["tRow"] == {
        "testid": "tournament-row",
        "cells": [
            {"text": "Cup", "href": "/tournaments/c-1"},
            "battlesnake",
            "Double elimination",
            "4 snakes",
            "Not started",
        ],
    }
    assert js["noTournaments"] == [{"cells": [{"text": "No tournaments yet.", "cls": "muted"}]}]
    assert js["tBody"] == {
        "name": "Cup",
        "game": "battlesnake",
        "format": "swiss",
        "snakes": ["@ann/viper", "builtin:greedy", "@bob/b", "builtin:random"],
        "heat_size": 2,
        "best_of": 3,
        "params": {"ruleset": "wrapped"},
        "start": True,
        "timeout": 250,
    }
    assert js["tBodyLater"] is False
    assert js["tStatus"] == [
        "Not started",
        "Playing now (2 games played)",
        "Stopped: x failed",
        "Champion: a",
        "Stopping (3 games played)",
        "Stopped by an admin",
        "Interrupted: its server stopped",
    ]
    assert js["tStops"] == [True, False, False]
    assert js["startLabels"] == ["Start the tournament", "Play it on", None, None]
    assert js["about"] == [
        "Round robin · battlesnake · 3 snakes",
        "Round robin · battlesnake · 3 snakes",
    ]
    assert js["liveBox"] == {"text": "watch live", "href": "/view/g"}
    # Rounds are headed by their names, not their brackets' ids.
    assert js["roundTitles"] == ["Winners round 1", "Grand final"]


def test_user_and_invitation_rows(js: dict[str, Any]) -> None:
    assert js["userCells"] == ["ann", "user", "2026-11-24 03:04", "disabled", "1.5 KiB of 64.0 MiB"]
    assert js["storedTexts"] == ["0 B of 1000 B", "22.0 MiB", "0 B", "1023 B", "5.0 GiB"]
    assert js["userActions"] == [
        ["Make admin", "Disable", "Reset password"],
        ["Make user", "Enable", "Reset password"],
        [],
    ]
    assert js["actionBodies"] == [
        {"role": "user"},
        {"role": "admin"},
        {"disabled": True},
        {"disabled": False},
        None,
    ]
    assert js["link"] == "https://club.example:8443/login?invite=a%2Bb%2Fc%3D"
    assert js["inviteCells"] == [
        ["2026-11-24 03:04", "boss", "2026-12-01 03:04", "open"],
        ["2026-11-24 03:04", "-", "2026-12-01 03:04", "used by ann"],
        ["2026-11-24 03:04", "boss", "2026-12-01 03:04", "expired"],
    ]
    assert js["inviteFrom"] == ["abc+d", "", "", 100]
