// The site's page modules (viewer/static/pages/): their pure parts.
//
// `input` (tests/viewer/test_pages_static.py) holds a real server's answers: its games list
// (one cancelled game, of a seed too big for a double) and the account page's trial bots.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const D = await load("viewer/pages/dom.js");
const H = await load("viewer/pages/home.js");
const G = await load("viewer/pages/game.js");
const LS = await load("viewer/pages/ladders.js");
const L = await load("viewer/pages/ladder.js");
const TO = await load("viewer/pages/tournament.js");
const LI = await load("viewer/pages/login.js");
const AC = await load("viewer/pages/account.js");
const K = await load("viewer/pages/board_keys.js");
const E = await load("viewer/pages/entrants.js");

const { games } = input;

test("API errors read as lines", () => {
  same(
    [
      D.detailText({ detail: "game 'x' not found" }, 404),
      D.detailText({
        detail: [
          { loc: ["body", "seed"], msg: "bad" },
          { loc: ["query"], msg: "m" },
        ],
      }),
      D.detailText(null, 502),
      D.detailText(null),
    ],
    ["game 'x' not found", "seed: bad\nquery: m", "the server answered 502", "the server gave no answer"],
  );
  same(
    [D.cellSpec("a"), D.cellSpec(3), D.cellSpec({ text: "w", href: "/x" }), D.cellSpec(null)],
    [
      { text: "a", cls: "", href: null },
      { text: "3", cls: "", href: null },
      { text: "w", cls: "", href: "/x" },
      { text: "", cls: "", href: null },
    ],
  );
});

test("home rows from the games API", () => {
  assert.equal(games.length, 1);
  const [game] = games;
  const [row, ...more] = games.map(H.gameRow);
  same(more, []);
  same(row.cells.slice(0, 3), [
    { text: "random, greedy", cls: "wrap" },
    { text: "standard · standard · 7x11", cls: "optional" },
    String(game.turn),
  ]);
  same(row.cells[4], { text: "watch", href: `/view/${game.id}` });
  const draw = H.gameRow({
    entrants: [],
    title: "solo · m · 1x2",
    turn: 0,
    status: "complete",
    winner: null,
    is_draw: true,
    viewer: "/view/d",
  });
  same(draw.cells[3], { text: "draw", cls: "wrap" });
});

test("the home page shows help only without games", () => {
  same(
    [
      H.homeSections({ live: [], games: [] }),
      H.homeSections({ live: [{}], games: [] }),
      H.homeSections({ live: [], games: [{}] }),
      H.homeSections(null),
    ],
    [
      { live: false, recent: false, empty: true },
      { live: true, recent: false, empty: false },
      { live: false, recent: true, empty: false },
      { live: false, recent: false, empty: true },
    ],
  );
});

test("the game page reads the board's turn", () => {
  assert.equal(G.turnText(12), "Turn 12");
  same(
    [
      G.postedTurn({ event: "TURN", data: { turn: 7 } }),
      G.postedTurn({ event: "TURN", data: { turn: "3" } }),
      G.postedTurn({ event: "TURN", data: {} }),
      G.postedTurn({ event: "RESIZE", data: { turn: 1 } }),
      G.postedTurn({ event: "TURN", data: { turn: -1 } }),
      G.postedTurn(null),
      G.postedTurn("TURN"),
    ],
    [7, 3, null, null, null, null, null],
  );
  assert.equal(G.rematchUrl("a b/c"), "/api/games/a%20b%2Fc/rematch");
});

test("the page forwards shortcuts but not typing or its own buttons", () => {
  const button = { closest: (q) => (q.includes("button") ? {} : null) };
  const inputField = { closest: (q) => (q === "input" ? { type: "text" } : null) };
  const range = { closest: (q) => (q === "input" ? { type: "range" } : null) };
  const body = { closest: () => null };
  const key = (name) => ({ event: "KEY", key: name });
  same(
    [
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
    ],
    [
      key("ArrowRight"),
      key(" "),
      null, // Space presses the focused button
      key("t"),
      null, // typing in a field
      key("t"), // the scrubber is no typing
      null, // not a shortcut
      null, // the browser's chord
      null, // something else took the key
      null,
    ],
  );
});

test("deleting asks in words", () => {
  same(
    [AC.deleteQuestion({ ref: "@a/b" }), AC.revokeQuestion({ label: "ci" })],
    [
      "Delete @a/b? Games it played stay; ladders and new games can no longer use it.",
      'Revoke the token "ci"? Scripts that use it stop working.',
    ],
  );
});

test("ladder rows and standings", () => {
  same(
    LS.ladderRows([
      { name: "a b", game: "battlesnake", snakes: 2, games_played: 5, running: true },
    ]),
    [
      {
        cells: [
          { text: "a b", href: "/ladders/a%20b" },
          "battlesnake",
          "2 snakes",
          "5 games",
          "playing now",
        ],
      },
    ],
  );
  same(LS.ladderRows([]), [{ cells: [{ text: "No ladders yet.", cls: "muted" }] }]);
  same(
    [
      L.standingRow({
        rank: 1,
        snake: "s",
        rating: 1.234,
        mu: 25,
        sigma: 8.3333,
        games: 3,
        paused: false,
        note: "",
      }),
      L.standingRow({
        rank: null,
        snake: "new",
        rating: null,
        mu: null,
        sigma: null,
        games: 0,
        paused: true,
        note: "unreachable",
      }),
    ],
    [
      { cells: [1, "s", "1.23", "25.00", "8.33", 3, "active"] },
      { cells: ["-", "new", "-", "-", "-", 0, "paused: unreachable"] },
    ],
  );
  const recent = L.recentGameRow({ placement: [["a"], ["b", "c"]], turns: 12, viewer: "/view/g" });
  same(recent, { cells: ["a > b = c", "12 turns", { text: "watch", href: "/view/g" }] });
  same(
    [
      L.summaryText({ games_played: 4, running: true }),
      L.summaryText({ games_played: 0, running: false }),
      L.summaryText({ games_played: 9, running: false, schedule: { continuous: true, paused: false } }),
      L.summaryText({ games_played: 9, running: false, schedule: { continuous: true, paused: true } }),
    ],
    ["4 games - playing now", "0 games", "9 games - playing now", "9 games"],
  );
  const schedule = {
    continuous: true,
    paused: false,
    games_in_flight: 2,
    games_per_hour: 60,
    daily_cap: 5,
    in_flight: 1,
    games_last_hour: 7,
    scheduled: true,
    scheduler: "web-1:42:abc",
    status: "playing",
  };
  same(
    [
      L.scheduleText(schedule),
      L.scheduleText({ ...schedule, daily_cap: null, scheduler: null }),
      L.scheduleText({ ...schedule, scheduler: null, scheduled: false }),
      L.scheduleText({ ...schedule, paused: true }),
      L.scheduleText({ ...schedule, continuous: false }),
      L.scheduleText(null),
    ],
    [
      "Plays on by itself: 1 of 2 games in flight, 7 started in the last hour (at most 60 an hour, " +
        "5 a day per snake); scheduled by web-1:42:abc",
      "Plays on by itself: 1 of 2 games in flight, 7 started in the last hour (at most 60 an hour)",
      "Plays on by itself: 1 of 2 games in flight, 7 started in the last hour (at most 60 an hour, " +
        "5 a day per snake); no server schedules it now",
      "Paused by an admin: 1 of 2 games in flight, 7 started in the last hour",
      "",
      "",
    ],
  );
  same(
    [schedule, { ...schedule, paused: true }, { ...schedule, continuous: false }, null].map(L.pauseButtons),
    [
      { pause: true, resume: false },
      { pause: false, resume: true },
      { pause: false, resume: false },
      { pause: false, resume: false },
    ],
  );
  same(
    L.scheduleChanges(
      { continuous: true, games_in_flight: 2, games_per_hour: 120, daily_cap: null },
      schedule,
    ),
    { gamesPerHour: 120, dailyCap: null },
  );
  same(
    L.scheduleChanges({ continuous: false, games_in_flight: 3, games_per_hour: 60, daily_cap: 5 }, schedule),
    { continuous: false, gamesInFlight: 3 },
  );
});

const points = (line) => line.points.split(/\s+/).filter(Boolean).map((p) => p.split(",").map(Number));

test("the rating chart spans its area", () => {
  const area = L.CHART;
  const chart = L.chartLines({
    a: [
      { mu: 25, sigma: 8 },
      { mu: 27, sigma: 7 },
      { mu: 30, sigma: 6 },
    ],
    b: [{ mu: 25, sigma: 8 }],
  });
  assert.equal(chart.length, 2);
  const [a, b] = chart;
  same([a.snake, b.snake], ["a", "b"]);
  assert.notEqual(a.color, b.color);
  // Ratings (mu - 3 sigma): a goes 1, 6, 12; b is at 1.  Lowest at the bottom,
  // highest at the top, games spread over the width of the longest history.
  const height = area.bottom - area.top;
  same(points(a), [
    [area.left, area.bottom],
    [(area.left + area.right) / 2, area.bottom - (5 / 11) * height],
    [area.right, area.top],
  ]);
  same(points(b), [[area.left, area.bottom]]);
  // A flat history is drawn mid-height, not divided by zero.
  const flatChart = L.chartLines({
    a: [
      { mu: 10, sigma: 0 },
      { mu: 10, sigma: 0 },
    ],
  });
  assert.equal(flatChart.length, 1);
  const middle = (area.top + area.bottom) / 2;
  same(points(flatChart[0]).map(([, y]) => y), [middle, middle]);
  same(L.chartLines({}), []);
});

test("the bracket groups matches by round", () => {
  const matches = [
    {
      bracket: "winners",
      round: 1,
      id: "m1",
      status: "done",
      entrants: ["a", "b"],
      wins: { a: 1, b: 0 },
      advanced: ["a"],
      games: [
        { game_id: "g1", viewer: "/view/g1" },
        { game_id: "h 2", viewer: "/halite/games/h%202" },
      ],
    },
    {
      bracket: "winners",
      round: 1,
      id: "m2",
      status: "bye",
      entrants: ["c", null],
      wins: {},
      advanced: ["c"],
      games: [],
    },
    {
      bracket: "losers",
      round: 1,
      id: "m3",
      status: "pending",
      entrants: [null, null],
      wins: {},
      advanced: [],
      games: [],
    },
    {
      bracket: "winners",
      round: 2,
      id: "m4",
      status: "pending",
      entrants: ["a", "c"],
      wins: {},
      advanced: [],
      games: [],
    },
  ];
  same(
    TO.groupRounds(matches).map((r) => [r.key, r.matches.map((m) => m.id)]),
    [
      ["winners 1", ["m1", "m2"]],
      ["losers 1", ["m3"]],
      ["winners 2", ["m4"]],
    ],
  );
  const [done, bye, empty, pending] = JSON.parse(JSON.stringify(matches.map(TO.matchBox)));
  same(done, {
    lines: [
      { text: "a 1", won: true },
      { text: "b 0", won: false },
    ],
    bye: false,
    games: [
      { text: "game 1", href: "/view/g1" },
      { text: "game 2", href: "/halite/games/h%202" },
    ],
    live: null,
  });
  assert.equal(bye.bye, true);
  same(bye.lines, [
    { text: "c", won: true },
    { text: "?", won: false },
  ]);
  same(empty.lines, [
    { text: "?", won: false },
    { text: "?", won: false },
  ]);
  same(pending.games, []);
  same(
    [
      TO.statusText({ finished: true, champion: "a" }),
      TO.statusText({ finished: false, running: true }),
      TO.statusText({ finished: false }),
    ],
    ["Champion: a", "Playing now", "Waiting to be played on"],
  );
  same(
    TO.standingRows([
      { place: 1, entrant: "a" },
      { place: 2, entrant: "b" },
    ]),
    [{ cells: [1, "a"] }, { cells: [2, "b"] }],
  );
});

test("changes carry the CSRF token and forms send what was typed", () => {
  const meta = {
    querySelector: (q) => (q === 'meta[name="csrf-token"]' ? { getAttribute: () => "tok" } : null),
  };
  same(
    [D.csrfToken(meta), D.csrfToken({ querySelector: () => null }), D.csrfToken(undefined)],
    ["tok", "", ""],
  );
  const post = D.withCsrf(
    { method: "POST", headers: { "Content-Type": "application/json" } },
    "tok",
  );
  same(post, {
    method: "POST",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": "tok" },
  });
  same(D.withCsrf({ method: "delete" }, "tok").headers, { "X-CSRF-Token": "tok" });
  same(D.withCsrf({}, "tok"), {});
  same(D.withCsrf({ method: "POST" }, ""), { method: "POST" });
  same(
    [
      LI.credentials({ name: " ann ", password: " p w ", invite: "  " }),
      LI.credentials({ name: "bob", password: "x", invite: " code " }),
    ],
    [
      { name: "ann", password: " p w " },
      { name: "bob", password: "x", invite: "code" },
    ],
  );
  same(
    [
      AC.snakeCells({
        ref: "@a/b",
        game: "battlesnake",
        url: null,
        visibility: "public",
        paused: true,
      }),
    ],
    [["@a/b", "battlesnake", "", "public", "paused"]],
  );
  same(
    [
      AC.tokenCells({
        label: "ci",
        created_at: "2026-11-24T03:04:05+00:00",
        last_used_at: null,
        revoked: true,
      }),
    ],
    [["ci", "2026-11-24 03:04", "never", "revoked"]],
  );
  assert.equal(
    AC.uploadUrl(" my bot ", "python3"),
    "/api/snakes/upload?name=my+bot&language=python3",
  );
  same(
    [
      ...Object.keys(input.trialBots).map((game) => AC.trialGame({ game, ref: "@a/k" }, input.trialBots)),
      AC.trialGame({ game: "unknown", ref: "@a/s" }, {}),
    ],
    [
      ...Object.entries(input.trialBots).map(([game, bot]) => ({
        game,
        snakes: ["@a/k", bot],
        maxTurns: 100,
      })),
      { game: "unknown", snakes: ["@a/s", "builtin:random"], maxTurns: 100 },
    ],
  );
});

test("a game page lists failures and the logs it may show", () => {
  const failedGame = {
    id: "g 1",
    status: "complete",
    entrants: [
      { name: "a", failure: "killed on turn 5: timed out after 2000 ms" },
      { name: "b", failure: "" },
      { name: "c", failure: "" },
    ],
  };
  const finished = E.entrantItems(failedGame, [1]);
  same(finished, [
    { seat: 0, name: "a", failure: "killed on turn 5: timed out after 2000 ms", log: null },
    { seat: 1, name: "b", failure: "", log: "/api/games/g%201/logs/1" },
  ]);
  // Logs are written when the game ends: none is offered while it runs.
  same(E.entrantItems({ ...failedGame, status: "running" }, [0, 1]), [
    JSON.parse(JSON.stringify(finished[0])),
  ]);
  same(E.entrantItems(null, [0]), []);
  same(
    [E.parseSeats("0 2"), E.parseSeats(""), E.parseSeats(" 3  x -1 12345 1 ")],
    [[0, 2], [], [3, 1]],
  );
  assert.equal(E.logUrl("a/b", 2), "/api/games/a%2Fb/logs/2");
});

