"""The site's page modules (``viewer/static/pages/``): their pure parts under Node.

Each page module exports the logic that turns API answers into rows, chart lines,
bracket columns or a request body; the DOM part only runs in a browser (the
browser tests drive it).  Here Node imports the modules and runs the pure parts on
API-shaped data, some of it real answers from the server.
"""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from snakewar.viewer import static_dir

BIG_SEED = "2618439174457646105"  # a JavaScript number would make it ...6000

NODE_SCRIPT = r"""
const cfg = JSON.parse(process.argv[1]);
const load = (name) => import(cfg.base + "pages/" + name);
const D = await load("dom.js");
const H = await load("home.js");
const N = await load("new_game.js");
const G = await load("game.js");
const T = await load("tester.js");
const LS = await load("ladders.js");
const L = await load("ladder.js");
const TO = await load("tournament.js");
const HA = await load("halite_games.js");
const LI = await load("login.js");
const AC = await load("account.js");
const F = await import(cfg.base + "frames.js");
const out = {};

out.detail = [
  D.detailText({ detail: "game 'x' not found" }, 404),
  D.detailText({ detail: [{ loc: ["body", "seed"], msg: "bad" }, { loc: ["query"], msg: "m" }] }),
  D.detailText(null, 502),
  D.detailText(null),
];
out.cells = [D.cellSpec("a"), D.cellSpec(3), D.cellSpec({ text: "w", href: "/x" }),
  D.cellSpec(null)];

out.home = cfg.games.games.map(H.gameRow);
out.homeDraw = H.gameRow({ entrants: [], title: "solo · m · 1x2", turn: 0,
  status: "complete", winner: null, is_draw: true, viewer: "/view/d" });

const form = {
  snakes: " builtin:a\n\nhttp://x/ \n", ruleset: "royale", map: "standard", width: "7",
  height: "9", timeout: "500", seed: ` ${cfg.bigSeed} `, foodSpawnChance: "15", minimumFood: "1",
  hazardDamagePerTurn: "14", shrinkEveryNTurns: "25",
};
out.body = N.buildBody(form);
out.bodyJson = JSON.stringify(N.buildBody(form));
out.bodyNoSeed = "seed" in N.buildBody({ ...form, seed: "  " });
out.classicBody = N.buildBody({ ...form, ruleset: "classic", map: "classic", seed: "",
  maxFood: "2", snakeStartLength: "4", decHealthPoints: "1" });
out.rulesetBoard = [N.rulesetBoard("classic", "standard"), N.rulesetBoard("royale", "classic"),
  N.rulesetBoard("royale", "standard")];
const maze = cfg.maps.find((m) => m.id === "healing_pools");
const any = { id: "free", name: "Free", description: "Anything.", sizes: "any", min_players: 1,
  max_players: 8 };
out.maze = maze;
out.fit = {
  kept: N.fitSize(maze, maze.sizes.at(-1)[0], maze.sizes.at(-1)[1]),
  changed: N.fitSize(maze, 1, 1),
  any: N.fitSize(any, 4, 5),
  info: N.mapInfo(maze),
  anyInfo: N.mapInfo(any),
};
out.rematch = G.rematchUrl("a b/c");
out.turnText = G.turnText(12);
out.postedTurn = [G.postedTurn({ event: "TURN", data: { turn: 7 } }),
  G.postedTurn({ event: "TURN", data: { turn: "3" } }), G.postedTurn({ event: "TURN", data: {} }),
  G.postedTurn({ event: "RESIZE", data: { turn: 1 } }), G.postedTurn({ event: "TURN",
  data: { turn: -1 } }), G.postedTurn(null), G.postedTurn("TURN")];
const arcade = cfg.maps.find((m) => m.id === "arcade_maze");
const standard = cfg.maps.find((m) => m.id === "standard");
out.arcadeThenStandard = N.fitSize(standard, ...N.fitSize(arcade, 7, 7));
out.choices = N.mapChoices(cfg.maps);
out.homeSections = [H.homeSections({ live: [], games: [] }), H.homeSections({ live: [{}],
  games: [] }), H.homeSections({ live: [], games: [{}] }), H.homeSections(null)];
const K = await load("board_keys.js");
const button = { closest: (q) => (q.includes("button") ? {} : null) };
const inputField = { closest: (q) => (q === "input" ? { type: "text" } : null) };
const range = { closest: (q) => (q === "input" ? { type: "range" } : null) };
const body = { closest: () => null };
out.keyMessages = [
  K.keyMessage({ key: "ArrowRight", target: body }),
  K.keyMessage({ key: " ", target: body }),
  K.keyMessage({ key: " ", target: button }),
  K.keyMessage({ key: "t", target: button }),
  K.keyMessage({ key: "t", target: inputField }),
  K.keyMessage({ key: "t", target: range }),
  K.keyMessage({ key: "x", target: body }),
  K.keyMessage({ key: "r", ctrlKey: true, target: body }),
  K.keyMessage({ key: "r", target: body, defaultPrevented: true }),
  K.keyMessage({ key: "Enter", target: button }),
];
out.questions = [AC.deleteQuestion({ ref: "@a/b" }), AC.revokeQuestion({ label: "ci" })];

out.tester = T.resultRows({
  checks: [{ name: "info", passed: true, detail: "" }, { name: "move", passed: false }],
  scenarios: [{ category: "food", title: "eat", passed: true, variants_passed: 3,
    variants_total: 4 }],
});

out.testerStrategy = T.resultRows({
  scenarios: [{ category: "head-to-head-win", title: "kill", kind: "strategy", passed: false,
    variants_passed: 2, variants_total: 8, variants_load_only: 0 },
  { category: "walls", title: "wall", kind: "survival", passed: true, variants_passed: 8,
    variants_total: 8, variants_load_only: 3 }],
});
out.testerBoards = T.failureBoards({
  scenarios: [
    { id: "k", kind: "strategy", title: "kill", first_failure: { variant: "rot90", move: "up",
      acceptable: ["left"], ruleset: "standard", board: ["a", "b"] } },
    { id: "t", kind: "survival", title: "timeout", first_failure: { variant: "identity",
      move: "", acceptable: ["up"], ruleset: "standard", board: ["x"] } },
    { id: "w", kind: "survival", title: "wall", first_failure: { variant: "mirror",
      move: "down", acceptable: ["right", "left"], ruleset: "royale", board: ["c"] } },
    { id: "ok", kind: "survival", title: "fine", first_failure: null },
  ],
});
out.testerLines = [T.parseLines('{"a":1}\n\n{"b":2}\n{"c"'), T.parseLines("")];
out.testerProgress = T.progressText({ checks: 4, checksTotal: 4, done: 3, scenarios: 26 });
out.testerBody = T.buildBody(" http://x/ ", ["royale"]);

out.ladders = LS.ladderRows([{ name: "a b", game: "battlesnake", snakes: 2, games_played: 5,
  running: true }]);
out.noLadders = LS.ladderRows([]);

out.standing = [
  L.standingRow({ rank: 1, snake: "s", rating: 1.234, mu: 25, sigma: 8.3333, games: 3,
    paused: false, note: "" }),
  L.standingRow({ rank: null, snake: "new", rating: null, mu: null, sigma: null, games: 0,
    paused: true, note: "unreachable" }),
];
out.recent = L.recentGameRow({ placement: [["a"], ["b", "c"]], turns: 12, viewer: "/view/g" });
out.summary = [L.summaryText({ games_played: 4, running: true }),
  L.summaryText({ games_played: 0, running: false })];
out.chart = L.chartLines({
  a: [{ mu: 25, sigma: 8 }, { mu: 27, sigma: 7 }, { mu: 30, sigma: 6 }],
  b: [{ mu: 25, sigma: 8 }],
});
out.flatChart = L.chartLines({ a: [{ mu: 10, sigma: 0 }, { mu: 10, sigma: 0 }] });
out.emptyChart = L.chartLines({});
out.chartArea = L.CHART;

const matches = [
  { bracket: "winners", round: 1, id: "m1", status: "done", entrants: ["a", "b"],
    wins: { a: 1, b: 0 }, advanced: ["a"], games: [{ game_id: "g1", viewer: "/view/g1" },
      { game_id: "h 2", viewer: "/halite/games/h%202" }] },
  { bracket: "winners", round: 1, id: "m2", status: "bye", entrants: ["c", null], wins: {},
    advanced: ["c"], games: [] },
  { bracket: "losers", round: 1, id: "m3", status: "pending", entrants: [null, null],
    wins: {}, advanced: [], games: [] },
  { bracket: "winners", round: 2, id: "m4", status: "pending", entrants: ["a", "c"],
    wins: {}, advanced: [], games: [] },
];
out.rounds = TO.groupRounds(matches).map((r) => [r.key, r.matches.map((m) => m.id)]);
out.boxes = matches.map(TO.matchBox);
out.status = [TO.statusText({ finished: true, champion: "a" }),
  TO.statusText({ finished: false, running: true }), TO.statusText({ finished: false })];
out.tStandings = TO.standingRows([{ place: 1, entrant: "a" }, { place: 2, entrant: "b" }]);

out.halite = HA.haliteRows([{ players: ["x", "<y>"], winner: "x", width: 32, height: 40,
  turns: 400, source: "upload", url: "/halite/games/1" }]);
out.haliteWinnerless = HA.haliteRow({ players: [], winner: null, width: 1, height: 1, turns: 0,
  source: "s", url: "/u" }).cells[1];
out.noHalite = HA.haliteRows([]);
out.haliteRunning = HA.haliteRow({ players: ["a"], winner: null, width: 1, height: 1, turns: 3,
  source: "custom", url: "/u", status: "running" }).cells[1];

const header = `{"format":"snakewar-replay","config":{"seed":${cfg.bigSeed}}}`;
out.exact = [
  F.exactIntegerText(header, "seed", JSON.parse(header).config.seed),
  F.exactIntegerText(`{"seed":7}`, "seed", 7),
  F.exactIntegerText(`{"seed":"7"}`, "seed", "7"),
  F.exactIntegerText(`{"name":"\\"seed\\":2618439174457646100","seed":1}`, "seed", 1),
];
out.seedString = [
  F.seedString({ Seed: Number(cfg.bigSeed), SeedString: cfg.bigSeed }),
  F.seedString({ Seed: 5 }),
  F.seedString({ Seed: 5, SeedString: "five" }),
  F.seedString({}),
];
const meta = { querySelector: (q) => (q === 'meta[name="csrf-token"]'
  ? { getAttribute: () => "tok" } : null) };
out.csrf = [D.csrfToken(meta), D.csrfToken({ querySelector: () => null }), D.csrfToken(undefined)];
out.withCsrf = [
  D.withCsrf({ method: "POST", headers: { "Content-Type": "application/json" } }, "tok"),
  D.withCsrf({ method: "delete" }, "tok"),
  D.withCsrf({}, "tok"),
  D.withCsrf({ method: "POST" }, ""),
];
out.credentials = [LI.credentials({ name: " ann ", password: " p w ", invite: "  " }),
  LI.credentials({ name: "bob", password: "x", invite: " code " })];
out.snakeCells = [AC.snakeCells({ ref: "@a/b", game: "battlesnake", url: null,
  visibility: "public", paused: true })];
out.uploadUrl = AC.uploadUrl(" my bot ", "python3");
out.trial = [AC.trialGame({ game: "halite3", ref: "@a/k" }), AC.trialGame({ game: "battlesnake",
  ref: "@a/s" })];
out.tokenCells = [AC.tokenCells({ label: "ci", created_at: "2026-11-24T03:04:05+00:00",
  last_used_at: null, revoked: true })];
const E = await load("entrants.js");
const HG = await load("halite_game.js");
const failedGame = { id: "g 1", status: "complete", entrants: [
  { name: "a", failure: "killed on turn 5: timed out after 2000 ms" },
  { name: "b", failure: "" }, { name: "c", failure: "" }] };
out.entrantItems = [
  E.entrantItems(failedGame, [1]),
  E.entrantItems({ ...failedGame, status: "running" }, [0, 1]),
  E.entrantItems(null, [0]),
];
out.logSeats = [E.parseSeats("0 2"), E.parseSeats(""), E.parseSeats(" 3  x -1 12345 1 ")];
out.logUrl = E.logUrl("a/b", 2);
out.stateText = [
  { status: "running", turn: 1 }, { status: "running", turn: 5 },
  { status: "complete", turn: 400, winner: "greedy" }, { status: "complete", turn: 9 },
  { status: "cancelled", turn: 3 }, { status: "aborted", turn: 1 },
  { status: "error", turn: 2, error: "ValueError: x" }, { status: "starting", turn: 0 },
].map(HG.stateText);
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def js(node: str) -> dict[str, Any]:
    from fastapi.testclient import TestClient

    from snakewar.server import ServerConfig, create_app

    with TestClient(
        create_app(ServerConfig(database_url="memory")), base_url="http://localhost"
    ) as client:
        game = client.post(
            "/api/games", json={"snakes": ["random", "greedy"], "seed": BIG_SEED, "width": 7}
        ).json()
        maps = client.get("/api/maps").json()
        client.post(f"/api/games/{game['id']}/cancel")
        games = client.get("/api/games").json()
    config = {
        "base": static_dir().as_uri() + "/",
        "bigSeed": BIG_SEED,
        "games": {"games": games["live"] + games["games"]},
        "maps": maps,
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


def test_api_errors_read_as_lines(js: dict[str, Any]) -> None:
    assert js["detail"] == [
        "game 'x' not found",
        "seed: bad\nquery: m",
        "the server answered 502",
        "the server gave no answer",
    ]
    assert js["cells"] == [
        {"text": "a", "cls": "", "href": None},
        {"text": "3", "cls": "", "href": None},
        {"text": "w", "cls": "", "href": "/x"},
        {"text": "", "cls": "", "href": None},
    ]


def test_home_rows_from_the_games_api(js: dict[str, Any]) -> None:
    (game,) = js["config"]["games"]["games"]
    (row,) = js["home"]
    assert row["cells"][:3] == [
        {"text": "random, greedy", "cls": "wrap"},
        {"text": "standard · standard · 7x11", "cls": "optional"},
        str(game["turn"]),
    ]
    assert row["cells"][4] == {"text": "watch", "href": f"/view/{game['id']}"}
    assert js["homeDraw"]["cells"][3] == {"text": "draw", "cls": "wrap"}


def test_the_new_game_body_sends_the_seed_as_typed(js: dict[str, Any]) -> None:
    assert js["body"] == {
        "snakes": ["builtin:a", "http://x/"],
        "ruleset": "royale",
        "map": "standard",
        "width": 7,
        "height": 9,
        "timeout": 500,
        "foodSpawnChance": 15,
        "minimumFood": 1,
        "hazardDamagePerTurn": 14,
        "shrinkEveryNTurns": 25,
        "seed": BIG_SEED,
    }
    assert f'"seed":"{BIG_SEED}"' in js["bodyJson"]
    assert js["bodyNoSeed"] is False


def test_the_classic_game_sends_its_own_settings_on_its_own_board(js: dict[str, Any]) -> None:
    assert js["classicBody"] == {
        "snakes": ["builtin:a", "http://x/"],
        "ruleset": "classic",
        "map": "classic",
        "width": 7,
        "height": 9,
        "timeout": 500,
        "maxFood": 2,
        "snakeStartLength": 4,
        "decHealthPoints": 1,
    }
    assert js["rulesetBoard"] == [
        {"map": "classic", "width": 20, "height": 20},
        {"map": "standard", "width": 11, "height": 11},
        None,
    ]


def test_the_map_size_is_kept_when_the_map_allows_it(js: dict[str, Any]) -> None:
    maze = js["maze"]
    assert js["fit"]["kept"] == maze["sizes"][-1]
    assert js["fit"]["changed"] == maze["default_size"] == [11, 11]
    assert js["fit"]["any"] == [4, 5]
    sizes = ", ".join(f"{w}x{h}" for w, h in maze["sizes"])
    assert js["fit"]["info"] == (
        f"{maze['description']} Sizes: {sizes}. "
        f"Players: {maze['min_players']}-{maze['max_players']}."
    )
    assert js["fit"]["anyInfo"] == "Anything. Sizes: any size. Players: 1-8."
    assert js["rematch"] == "/api/games/a%20b%2Fc/rematch"


def test_leaving_a_map_for_one_that_does_not_take_its_size_gives_the_default(
    js: dict[str, Any],
) -> None:
    # Arcade Maze is 19x21 only; Standard does not take that and starts at 11x11 (its
    # smallest size, 7x7, was what the form once fell back to).
    assert js["arcadeThenStandard"] == [11, 11]


def test_every_map_is_listed_by_its_title(js: dict[str, Any]) -> None:
    choices = js["choices"]
    assert len(choices) == len(js["config"]["maps"])
    titles = [c["title"] for c in choices]
    assert titles == sorted(titles, key=str.casefold)
    by_id = {c["id"]: c["title"] for c in choices}
    assert by_id["arcade_maze"] == "Arcade Maze"
    assert by_id["hz_castle_wall"] == "Castle Wall"
    assert by_id["hz_rivers_bridges_xl"] == "Rivers and Bridges (extra large)"
    # No raw id is shown as a title.
    assert not [t for t in titles if "_" in t or t.startswith("hz")]


def test_the_home_page_shows_help_only_without_games(js: dict[str, Any]) -> None:
    assert js["homeSections"] == [
        {"live": False, "recent": False, "empty": True},
        {"live": True, "recent": False, "empty": False},
        {"live": False, "recent": True, "empty": False},
        {"live": False, "recent": False, "empty": True},
    ]


def test_the_game_page_reads_the_boards_turn(js: dict[str, Any]) -> None:
    assert js["turnText"] == "Turn 12"
    assert js["postedTurn"] == [7, 3, None, None, None, None, None]


def test_the_page_forwards_shortcuts_but_not_typing_or_its_own_buttons(
    js: dict[str, Any],
) -> None:
    key = {"event": "KEY"}
    assert js["keyMessages"] == [
        key | {"key": "ArrowRight"},
        key | {"key": " "},
        None,  # Space presses the focused button
        key | {"key": "t"},
        None,  # typing in a field
        key | {"key": "t"},  # the scrubber is no typing
        None,  # not a shortcut
        None,  # the browser's chord
        None,  # something else took the key
        None,
    ]


def test_deleting_asks_in_words(js: dict[str, Any]) -> None:
    assert js["questions"] == [
        "Delete @a/b? Games it played stay; ladders and new games can no longer use it.",
        'Revoke the token "ci"? Scripts that use it stop working.',
    ]


def test_tester_rows(js: dict[str, Any]) -> None:
    assert js["tester"] == [
        {"cells": ["check", "info", {"text": "PASS", "cls": "pass"}, {"text": "", "cls": "muted"}]},
        {"cells": ["check", "move", {"text": "FAIL", "cls": "fail"}, {"text": "", "cls": "muted"}]},
        {
            "cells": [
                "food",
                "eat",
                {"text": "PASS", "cls": "pass"},
                {"text": "3/4 positions", "cls": "muted"},
            ]
        },
    ]


def test_tester_strategy_rows_boards_and_stream(js: dict[str, Any]) -> None:
    assert js["testerStrategy"] == [
        {
            "cells": [
                "head-to-head-win",
                "kill",
                {"text": "MISS", "cls": "miss"},
                {"text": "2/8 positions · strategy (scored, never failed)", "cls": "muted"},
            ]
        },
        {
            "cells": [
                "walls",
                "wall",
                {"text": "PASS", "cls": "pass"},
                {
                    "text": "8/8 positions · 3 failed only under load (passed alone)",
                    "cls": "muted",
                },
            ]
        },
    ]
    # Survival failures first; no board for a position without a move.
    assert js["testerBoards"] == [
        {
            "title": "survival w [mirror]: wall",
            "detail": "gave 'down', expected left or right (royale rules)",
            "board": "c",
            "cls": "fail",
        },
        {
            "title": "strategy k [rot90]: kill",
            "detail": "gave 'up', expected left (standard rules)",
            "board": "a\nb",
            "cls": "miss",
        },
    ]
    assert js["testerLines"] == [
        {"events": [{"a": 1}, {"b": 2}], "rest": '{"c"'},
        {"events": [], "rest": ""},
    ]
    assert js["testerProgress"] == "running: health checks 4/4, scenarios 3/26"
    assert js["testerBody"] == {"url": "http://x/", "rulesets": ["standard", "royale"]}


def test_ladder_rows_and_standings(js: dict[str, Any]) -> None:
    assert js["ladders"] == [
        {
            "cells": [
                {"text": "a b", "href": "/ladders/a%20b"},
                "battlesnake",
                "2 snakes",
                "5 games",
                "playing now",
            ]
        }
    ]
    assert js["noLadders"] == [{"cells": [{"text": "No ladders yet.", "cls": "muted"}]}]
    assert js["standing"] == [
        {"cells": [1, "s", "1.23", "25.00", "8.33", 3, "active"]},
        {"cells": ["-", "new", "-", "-", "-", 0, "paused: unreachable"]},
    ]
    watch = {"text": "watch", "href": "/view/g"}
    assert js["recent"] == {"cells": ["a > b = c", "12 turns", watch]}
    assert js["summary"] == ["4 games - playing now", "0 games"]


def _points(line: dict[str, Any]) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in (p.split(",") for p in line["points"].split())]


def test_the_rating_chart_spans_its_area(js: dict[str, Any]) -> None:
    area = js["chartArea"]
    a, b = js["chart"]
    assert (a["snake"], b["snake"]) == ("a", "b")
    assert a["color"] != b["color"]
    # Ratings (mu - 3 sigma): a goes 1, 6, 12; b is at 1.  Lowest at the bottom,
    # highest at the top, games spread over the width of the longest history.
    height = area["bottom"] - area["top"]
    assert _points(a) == [
        (area["left"], area["bottom"]),
        ((area["left"] + area["right"]) / 2, area["bottom"] - 5 / 11 * height),
        (area["right"], area["top"]),
    ]
    assert _points(b) == [(area["left"], area["bottom"])]
    # A flat history is drawn mid-height, not divided by zero.
    (flat,) = js["flatChart"]
    middle = (area["top"] + area["bottom"]) / 2
    assert [y for _, y in _points(flat)] == [middle, middle]
    assert js["emptyChart"] == []


def test_the_bracket_groups_matches_by_round(js: dict[str, Any]) -> None:
    assert js["rounds"] == [
        ["winners 1", ["m1", "m2"]],
        ["losers 1", ["m3"]],
        ["winners 2", ["m4"]],
    ]
    done, bye, empty, pending = js["boxes"]
    assert done == {
        "lines": [{"text": "a 1", "won": True}, {"text": "b 0", "won": False}],
        "bye": False,
        "games": [
            {"text": "game 1", "href": "/view/g1"},
            {"text": "game 2", "href": "/halite/games/h%202"},
        ],
        "live": None,
    }
    assert bye["bye"] is True and bye["lines"] == [
        {"text": "c", "won": True},
        {"text": "?", "won": False},
    ]
    assert empty["lines"] == [{"text": "?", "won": False}] * 2
    assert pending["games"] == []
    assert js["status"] == ["Champion: a", "Playing now", "Waiting to be played on"]
    assert js["tStandings"] == [{"cells": [1, "a"]}, {"cells": [2, "b"]}]


def test_halite_rows(js: dict[str, Any]) -> None:
    assert js["halite"] == [
        {
            "testid": "halite-game",
            "cells": [
                "x, <y>",
                "won by x",
                "32x40",
                "400 turns",
                {"text": "upload", "cls": "muted"},
                {"text": "watch", "href": "/halite/games/1"},
            ],
        }
    ]
    assert js["haliteWinnerless"] == "won by -"
    assert js["haliteRunning"] == "running"  # a game being played has no winner yet
    assert js["noHalite"] == [{"cells": [{"text": "No Halite games stored yet.", "cls": "muted"}]}]


def test_seeds_are_read_exactly(js: dict[str, Any]) -> None:
    assert js["exact"] == [BIG_SEED, "7", None, "1"]
    assert js["seedString"] == [BIG_SEED, "5", "5", None]


def test_changes_carry_the_csrf_token_and_forms_send_what_was_typed(js: dict[str, Any]) -> None:
    assert js["csrf"] == ["tok", "", ""]
    post, delete, get, no_token = js["withCsrf"]
    assert post == {
        "method": "POST",
        "headers": {"Content-Type": "application/json", "X-CSRF-Token": "tok"},
    }
    assert delete["headers"] == {"X-CSRF-Token": "tok"}
    assert get == {} and no_token == {"method": "POST"}
    assert js["credentials"] == [
        {"name": "ann", "password": " p w "},
        {"name": "bob", "password": "x", "invite": "code"},
    ]
    assert js["snakeCells"] == [["@a/b", "battlesnake", "", "public", "paused"]]
    assert js["tokenCells"] == [["ci", "2026-11-24 03:04", "never", "revoked"]]
    assert js["uploadUrl"] == "/api/snakes/upload?name=my+bot&language=python3"
    assert js["trial"] == [
        {"game": "halite3", "snakes": ["@a/k", "builtin:greedy"], "maxTurns": 100},
        {"game": "battlesnake", "snakes": ["@a/s", "builtin:random"], "maxTurns": 100},
    ]


def test_a_game_page_lists_failures_and_the_logs_it_may_show(js: dict[str, Any]) -> None:
    finished, running, nothing = js["entrantItems"]
    assert finished == [
        {"seat": 0, "name": "a", "failure": "killed on turn 5: timed out after 2000 ms",
         "log": None},
        {"seat": 1, "name": "b", "failure": "", "log": "/api/games/g%201/logs/1"},
    ]  # fmt: skip
    # Logs are written when the game ends: none is offered while it runs.
    assert running == [finished[0]]
    assert nothing == []
    assert js["logSeats"] == [[0, 2], [], [3, 1]]
    assert js["logUrl"] == "/api/games/a%2Fb/logs/2"


def test_the_halite_page_says_the_games_state_in_words(js: dict[str, Any]) -> None:
    assert js["stateText"] == [
        "Running · 1 turn played",
        "Running · 5 turns played",
        "Won by greedy · 400 turns",
        "Over · 9 turns",
        "Cancelled after 3 turns",
        "Stopped after 1 turn (its server stopped)",
        "Stopped by an error after 2 turns: ValueError: x",
        "Starting…",
    ]
