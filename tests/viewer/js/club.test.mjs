// The club pages' modules: forms to request bodies, API answers to rows.
//
// `input` (tests/viewer/test_club_static.py) holds a real server's catalogue, the history
// of a ladder it played and a seed too big for a double.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const C = await load("viewer/pages/club.js");
const LS = await load("viewer/pages/ladders.js");
const L = await load("viewer/pages/ladder.js");
const TS = await load("viewer/pages/tournaments.js");
const T = await load("viewer/pages/tournament.js");
const U = await load("viewer/pages/admin_users.js");
const I = await load("viewer/pages/admin_invites.js");
const LI = await load("viewer/pages/login.js");

const { catalogue, history, bigSeed } = input;
const bs = catalogue.find((g) => g.name === "battlesnake");
const h3 = catalogue.find((g) => g.name === "halite3");
const fields = C.paramFields(bs.params, { width: 7, sequential: true });
const raw = Object.fromEntries(fields.map((f) => [f.name, f.value]));
const defaults = Object.fromEntries(C.paramFields(bs.params).map((f) => [f.name, f.value]));
const snakes = [
  { ref: "@ann/viper", game: "battlesnake", paused: false },
  { ref: "@ann/old", game: "battlesnake", paused: true },
  { ref: "@ann/kit", game: "halite3", paused: false },
];

test("formats and times read as words", () => {
  same(
    ["single_elimination", "double_elimination", "round_robin", "swiss", "new_kind"].map(
      C.formatName,
    ),
    ["Single elimination", "Double elimination", "Round robin", "Swiss", "New kind"],
  );
  same([C.shortTime("2026-11-24T03:04:05+00:00"), C.shortTime(null)], ["2026-11-24 03:04", ""]);
});

test("a game's settings become fields of their kind", () => {
  const byName = Object.fromEntries(fields.map((f) => [f.name, f]));
  same(Object.keys(byName), bs.params.map((p) => p.name));
  assert.equal(byName.ruleset.input, "select");
  assert.ok(byName.ruleset.options.includes("royale"));
  assert.equal(byName.ruleset.value, "standard");
  // Current values over defaults.
  same(byName.width, {
    name: "width",
    help: "Board width.",
    options: [],
    min: 1,
    max: 255,
    input: "number",
    value: "7",
  });
  assert.equal(byName.sequential.input, "checkbox");
  assert.equal(byName.sequential.value, true);
  const h3fields = C.paramFields(h3.params);
  same(h3fields.map((f) => f.name), ["width", "height"]);
  assert.ok(h3fields.every((f) => f.value === "0"));
});

test("only changed settings are sent", () => {
  // The form as drawn (width 7 and sequential over the defaults) differs by those two.
  same(C.changedParams(bs.params, raw), { width: 7, sequential: true });
  same(
    C.changedParams(bs.params, {
      ...raw,
      width: " 9 ",
      ruleset: "royale",
      sequential: false,
      height: "",
    }),
    { width: 9, ruleset: "royale" },
  );
  // What is no whole number goes as typed: the server names the field.
  same(C.changedParams(bs.params, { ...raw, width: "9.5" }), { width: "9.5", sequential: true });
  // Against a ladder's current settings: a change back to 7 is a change.
  same(C.changedParams(bs.params, { ...raw, width: "7" }, { width: 9 }), {
    width: 7,
    sequential: true,
  });
  same([C.gameSizes(bs), C.gameSizes(h3, 8)], [[2, 3, 4, 5, 6, 7, 8], [2, 4, 8]]);
  same([C.optionalNumber(" 12 "), C.optionalNumber(""), C.optionalNumber(undefined)], [
    12,
    null,
    null,
  ]);
});

test("a game's entrants are its registered snakes then built-ins", () => {
  same(C.entrantChoices(bs, snakes), [
    { value: "@ann/viper", label: "@ann/viper" },
    { value: "builtin:greedy", label: "greedy (built-in)" },
    { value: "builtin:hunter", label: "hunter (built-in)" },
    { value: "builtin:random", label: "random (built-in)" },
  ]);
});

test("the new ladder body", () => {
  const body = LS.ladderBody(
    { name: " club ", game_size: "4", timeout: "", max_turns: "300", seed: ` ${bigSeed} ` },
    bs,
    { ...raw, width: "9" },
  );
  same(body, {
    name: "club",
    game: "battlesnake",
    game_size: 4,
    params: { width: 9, sequential: true },
    maxTurns: 300,
    seed: bigSeed,
  });
  assert.ok(JSON.stringify(body).includes(`"seed":"${bigSeed}"`));
  const row = LS.ladderRow({ name: "a", game: "halite3", snakes: 1, games_played: 0, running: false });
  same(row.cells.slice(1), ["halite3", "1 snakes", "0 games", ""]);
});

test("a standings status says paused, failing or active", () => {
  same(
    [
      L.statusText({ paused: false, note: "" }),
      L.statusText({ paused: false, note: "", failure: "" }),
      L.statusText({ paused: false, note: "failed in a game: timeout", failure: "timeout" }),
      L.statusText({ paused: true, note: "paused: connection refused", failure: "refused" }),
      L.statusText({ paused: true, note: "paused by its owner" }),
      L.statusText({ paused: true, note: "" }),
    ],
    [
      "active",
      "active",
      "failing: timeout",
      "paused: connection refused",
      "paused by its owner",
      "paused",
    ],
  );
});

test("members leave their own entries and join with their own snakes", () => {
  same(
    [
      L.entryAction("ann/viper", "ann", false),
      L.entryAction("bob/x", "ann", false),
      L.entryAction("random", "ann", false),
      L.entryAction("random", "boss", true),
      L.entryAction("annie/x", "ann", false),
      L.entryAction("ann/x", "", false),
    ],
    ["Leave", null, null, "Remove", null, null],
  );
  const standings = [{ snake: "ann/viper" }, { snake: "random" }];
  // ann/viper is on the ladder already; a paused snake and another game's are not offered.
  same(L.joinChoices(bs, snakes, standings, false), []);
  const bobs = [...snakes, { ref: "@bob/b", game: "battlesnake", paused: false }];
  same(L.joinChoices(bs, bobs, standings, true), [
    { value: "@bob/b", label: "@bob/b" },
    { value: "builtin:greedy", label: "greedy (built-in)" },
    { value: "builtin:hunter", label: "hunter (built-in)" },
  ]);
});

test("a run's progress reads like the CLI's bar", () => {
  same(
    [
      L.runText(null),
      L.runText({ games: 10, done: 3, running: true, error: "" }),
      L.runText({ games: 10, done: 10, running: false, error: "" }),
      L.runText({ games: 10, done: 4, running: false, error: "no game of the round" }),
      L.runText({ games: null, done: 5, running: true, error: "" }),
      L.runText({ games: 10, done: 4, running: true, error: "", state: "stopping" }),
      L.runText({ games: 10, done: 4, running: false, error: "", state: "stopped" }),
      L.runText({
        games: 10,
        done: 6,
        running: false,
        error: "its server stopped",
        state: "interrupted",
      }),
    ],
    [
      "",
      "Playing: 3 of 10 games played",
      "Played 10 of 10 games",
      "Stopped after 4 of 10 games: no game of the round",
      "Playing: 5 games played",
      "Stopping: 4 of 10 games played",
      "Stopped by an admin after 4 of 10 games",
      "Interrupted after 6 of 10 games: its server stopped",
    ],
  );
  // A stop button while a run plays, until a stop is asked.
  same(
    [
      L.canStop({ running: true, run: { state: "running" } }),
      L.canStop({ running: true, run: { state: "stopping" } }),
      L.canStop({ running: false, run: { state: "stopped" } }),
    ],
    [true, false, false],
  );
});

test("axis ticks are round numbers inside the range", () => {
  same(
    [
      L.niceTicks(0, 10, 5),
      L.niceTicks(-3.2, 7.9, 5),
      L.niceTicks(0.1, 0.55, 4),
      L.niceTicks(1, 1, 5),
      L.niceTicks(1, 3, 6),
    ],
    [[0, 2, 4, 6, 8, 10], [-2, 0, 2, 4, 6], [0.1, 0.2, 0.3, 0.4, 0.5], [1], [1, 1.5, 2, 2.5, 3]],
  );
});

test("the chart has axes and a legend for a real ladder", () => {
  const area = L.CHART;
  const axes = L.chartAxes(history);
  const longest = Math.max(...Object.values(history).map((points) => points.length));
  // x: a snake's games, whole numbers from 1 to its longest history, left to right.
  const games = axes.x.map((t) => Number.parseInt(t.label, 10));
  assert.ok(games[0] >= 1 && games.at(-1) <= longest, `${games} of ${longest}`);
  same(games, [...games].sort((a, b) => a - b));
  assert.ok(axes.x.every((t) => area.left <= t.at && t.at <= area.right));
  // y: ratings, top to bottom from high to low, inside the drawing area.
  const ratings = axes.y.map((t) => Number.parseFloat(t.label));
  assert.ok(ratings.length >= 2);
  same(ratings, [...ratings].sort((a, b) => a - b));
  const positions = axes.y.map((t) => t.at);
  same(positions, [...positions].sort((a, b) => b - a));
  assert.ok(positions.every((y) => area.top - 1e-6 <= y && y <= area.bottom + 1e-6));
  // Every line's points lie between the ticks' extremes and the area.
  const lowest = Math.min(
    ...Object.values(history).flatMap((points) => points.map((p) => p.mu - 3 * p.sigma)),
  );
  assert.ok(ratings[0] >= lowest - 1);
  // The legend names every snake with its line's colour.
  const legend = L.legendItems(history);
  same(
    legend.map((item) => [item.snake, item.color]),
    L.chartLines(history).map((line) => [line.snake, line.color]),
  );
  same([...new Set(legend.map((item) => item.snake))].sort(), Object.keys(history).sort());
  same(Object.keys(history).sort(), ["greedy", "hunter", "random"]);
  same(L.chartAxes({}), null);
});

test("tournament rows, bodies and states", () => {
  const listed = {
    id: "c-1",
    name: "Cup",
    page: "/tournaments/c-1",
    running: false,
    game: "battlesnake",
    format: "double_elimination",
    entrants: 4,
    started: false,
    finished: false,
    champion: null,
  };
  same(
    [
      TS.stateText(listed),
      TS.stateText({ ...listed, started: true, running: true }),
      TS.stateText({ ...listed, started: true }),
      TS.stateText({ ...listed, started: true, finished: true, champion: "a" }),
      TS.stateText({
        id: "b",
        name: "b",
        page: "/tournaments/b",
        running: false,
        started: true,
        finished: false,
        champion: null,
        error: "tournament 'b' cannot be loaded: no match R9-9",
      }),
    ],
    [
      "Not started",
      "Playing now",
      "Stopped: play it on from its page",
      "Champion: a",
      "Cannot be played on: tournament 'b' cannot be loaded: no match R9-9",
    ],
  );
  same(TS.tournamentRow(listed), {
    testid: "tournament-row",
    cells: [
      { text: "Cup", href: "/tournaments/c-1" },
      "battlesnake",
      "Double elimination",
      "4 snakes",
      "Not started",
    ],
  });
  same(TS.tournamentRows([]), [{ cells: [{ text: "No tournaments yet.", cls: "muted" }] }]);
  const form = {
    name: " Cup ",
    format: "swiss",
    more: " @bob/b \n\n builtin:random ",
    heat_size: "2",
    best_of: "3",
    timeout: "250",
    max_turns: "",
    seed: "",
    start: "on",
  };
  same(
    TS.tournamentBody(form, ["@ann/viper", "builtin:greedy"], bs, {
      ...defaults,
      ruleset: "wrapped",
    }),
    {
      name: "Cup",
      game: "battlesnake",
      format: "swiss",
      snakes: ["@ann/viper", "builtin:greedy", "@bob/b", "builtin:random"],
      heat_size: 2,
      best_of: 3,
      params: { ruleset: "wrapped" },
      start: true,
      timeout: 250,
    },
  );
  const later = { name: "x", format: "round_robin", heat_size: "2", best_of: "1" };
  assert.equal(TS.tournamentBody(later, ["a", "b"], h3, {}).start, false);

  const cup = {
    name: "Cup",
    format: "round_robin",
    format_title: "Round robin",
    config: { game: "battlesnake" },
    snakes: [{}, {}, {}],
    finished: false,
    running: false,
    started: false,
    run: null,
  };
  same(
    [
      T.statusText(cup),
      T.statusText({ ...cup, started: true, running: true, run: { done: 2 } }),
      T.statusText({ ...cup, started: true, run: { error: "x failed" } }),
      T.statusText({ ...cup, finished: true, champion: "a" }),
      T.statusText({ ...cup, started: true, running: true, run: { done: 3, state: "stopping" } }),
      T.statusText({ ...cup, started: true, run: { done: 3, state: "stopped", error: "" } }),
      T.statusText({
        ...cup,
        started: true,
        run: { done: 3, state: "interrupted", error: "its server stopped" },
      }),
    ],
    [
      "Not started",
      "Playing now (2 games played)",
      "Stopped: x failed",
      "Champion: a",
      "Stopping (3 games played)",
      "Stopped by an admin",
      "Interrupted: its server stopped",
    ],
  );
  same(
    [
      T.canStop({ ...cup, started: true, running: true, run: { state: "running" } }),
      T.canStop({ ...cup, started: true, running: true, run: { state: "stopping" } }),
      T.canStop(cup),
    ],
    [true, false, false],
  );
  same(
    [
      T.startLabel(cup),
      T.startLabel({ ...cup, started: true }),
      T.startLabel({ ...cup, started: true, running: true }),
      T.startLabel({ ...cup, finished: true }),
    ],
    ["Start the tournament", "Play it on", null, null],
  );
  same(
    [T.aboutText(cup), T.aboutText({ ...cup, format_title: "" })],
    ["Round robin · battlesnake · 3 snakes", "Round robin · battlesnake · 3 snakes"],
  );
  const box = T.matchBox({
    entrants: ["a", "b"],
    wins: {},
    advanced: [],
    status: "pending",
    games: [],
    playing: { game_id: "g", viewer: "/view/g" },
  });
  same(box.live, { text: "watch live", href: "/view/g" });
  // Rounds are headed by their names, not their brackets' ids.
  const rounds = T.groupRounds([
    { bracket: "winners", round: "Winners round 1" },
    { bracket: "final", round: "Grand final" },
  ]);
  same(rounds.map((r) => r.title), ["Winners round 1", "Grand final"]);
});

test("user and invitation rows", () => {
  same(
    U.userCells({
      name: "ann",
      role: "user",
      disabled: true,
      created_at: "2026-11-24T03:04:05+00:00",
      stored_bytes: 1536,
      quota_bytes: 67108864,
    }),
    ["ann", "user", "2026-11-24 03:04", "disabled", "1.5 KiB of 64.0 MiB"],
  );
  same(
    [
      U.storedText({ stored_bytes: 0, quota_bytes: 1000 }),
      U.storedText({ stored_bytes: 22 * 1048576 + 1, quota_bytes: null }),
      U.storedText({}),
      U.sizeText(1023),
      U.sizeText(5 * 1073741824),
    ],
    ["0 B of 1000 B", "22.0 MiB", "0 B", "1023 B", "5.0 GiB"],
  );
  same(
    [
      U.userActions({ name: "ann", role: "user", disabled: false }, "boss"),
      U.userActions({ name: "bob", role: "admin", disabled: true }, "boss"),
      U.userActions({ name: "boss", role: "admin", disabled: false }, "boss"),
    ],
    [["Make admin", "Disable", "Reset password"], ["Make user", "Enable", "Reset password"], []],
  );
  same(["Make user", "Make admin", "Disable", "Enable", "Reset password"].map(U.actionBody), [
    { role: "user" },
    { role: "admin" },
    { disabled: true },
    { disabled: false },
    null,
  ]);
  same(
    I.inviteLink("https://club.example:8443", "a+b/c="),
    "https://club.example:8443/login?invite=a%2Bb%2Fc%3D",
  );
  const when = { created_at: "2026-11-24T03:04:05+00:00", expires_at: "2026-12-01T03:04:05+00:00" };
  same(
    [
      I.inviteCells({ status: "open", ...when, made_by: "boss", used_by: null }),
      I.inviteCells({ status: "used", ...when, made_by: null, used_by: "ann" }),
      I.inviteCells({ status: "expired", ...when, made_by: "boss", used_by: null }),
    ],
    [
      ["2026-11-24 03:04", "boss", "2026-12-01 03:04", "open"],
      ["2026-11-24 03:04", "-", "2026-12-01 03:04", "used by ann"],
      ["2026-11-24 03:04", "boss", "2026-12-01 03:04", "expired"],
    ],
  );
  same(
    [
      LI.inviteFrom("?invite=%20abc%2Bd%20"),
      LI.inviteFrom(""),
      LI.inviteFrom("?x=1"),
      LI.inviteFrom(`?invite=${"z".repeat(300)}`).length,
    ],
    ["abc+d", "", "", 100],
  );
});

test("tournaments people enter: the list's parts, entry lines and request bodies", () => {
  const at = (iso) => `<${iso}>`;
  const one = (phase, extra = {}) => ({ id: phase, phase, ...extra });
  same(TS.byPhase([one("running"), one("registering"), one("finished"), one("odd")]), {
    registering: [one("registering")],
    upcoming: [one("odd")],
    running: [one("running")],
    finished: [one("finished")],
  });
  same(
    [
      TS.whenText({ registration_open: true, registration_closes_at: "T1", starts_at: "T2" }, at),
      TS.whenText({ registration_open: true, started: false }, at),
      TS.whenText({ registration_open: false, starts_at: "T2", started: true }, at),
    ],
    ["entries close <T1> · starts <T2>", "entries open", ""],
  );
  same(TS.stateText({ started: false, registration_open: true }), "Taking entries");
  same(
    TS.addEntrySettings(
      {},
      { registration: "open", closes_at: "", max_entrants: "8", per_owner: " 2 ", round_gap_s: "" },
    ),
    { registration: "open", max_entrants: 8, per_owner: 2 },
  );
  assert.equal(TS.isoTime("2030-01-02T03:04Z"), "2030-01-02T03:04:00.000Z");
  assert.equal(TS.isoTime(" "), undefined);

  const open = {
    started: false,
    running: false,
    finished: false,
    snakes: [{ name: "@ann/viper" }, { name: "greedy" }],
    registration: { mode: "open", closes_at: "C", open: true, max_entrants: 8, per_owner: 1 },
    qualifier: null,
    starts_at: "S",
    next_round: { index: 0, name: "Round 1", matches: ["R1-1"] },
  };
  same(
    T.entryText(open, at),
    "Taking entries now · closing <C> · at most 8 snakes · at most 1 per owner · starts <S>",
  );
  same(
    T.entryText(
      {
        ...open,
        started: true,
        starts_at: null,
        next_round_at: "N",
        qualifier: { ladder: "main", top: 4, per_owner: 2 },
        registration: { mode: "closed", closes_at: null, open: false },
      },
      at,
    ),
    "qualified: top 4 of ladder main, at most 2 per owner · next round <N>",
  );
  same(
    [
      T.roundLabel(open),
      T.roundLabel({ ...open, running: true }),
      T.roundLabel({ ...open, snakes: [{ name: "a" }] }),
      T.roundLabel({ ...open, finished: true }),
    ],
    ["Run the next round: Round 1", null, null, null],
  );
  const mine = [
    { ref: "@ann/viper", game: "battlesnake", paused: false },
    { ref: "@ann/cobra", game: "battlesnake", paused: false },
  ];
  same(
    T.registerChoices(bs, mine, open, false).map((c) => c.value),
    ["@ann/cobra"],
  );
  const forAdmin = T.registerChoices(bs, mine, open, true).map((c) => c.value);
  assert.ok(forAdmin.includes("@ann/cobra") && !forAdmin.includes("builtin:greedy"));
  same(
    [
      T.mayRegister(open, false),
      T.mayRegister({ ...open, registration: { ...open.registration, open: false } }, false),
      T.mayRegister({ ...open, registration: { ...open.registration, open: false } }, true),
      T.mayRegister({ ...open, started: true }, true),
    ],
    [true, false, true, false],
  );
  same(
    [
      T.canWithdraw("@ann/viper", open, "ann", false),
      T.canWithdraw("@bob/x", open, "ann", false),
      T.canWithdraw("@ann/viper", { ...open, started: true }, "ann", false),
      T.canWithdraw("@ann/viper", open, "", false),
    ],
    [true, false, false, false],
  );
  same(
    T.settingsBody({
      registration: "owner",
      closes_at: "",
      max_entrants: "",
      per_owner: "3",
      starts_at: "2030-01-02T03:04Z",
      round_gap_s: "",
    }),
    {
      registration: "owner",
      registration_closes_at: null,
      max_entrants: null,
      per_owner: 3,
      starts_at: "2030-01-02T03:04:00.000Z",
      round_gap_s: 0,
    },
  );
  same(T.qualifyBody({ ladder: "main", top: "4", per_owner: "" }), { ladder: "main", top: 4 });
  same(T.qualifyBody({ ladder: "main", top: "4", per_owner: "1" }), {
    ladder: "main",
    top: 4,
    per_owner: 1,
  });
  assert.equal(T.localTime(null), "");
  assert.match(T.localTime("2030-01-02T03:04:00Z"), /^2030-01-0[12]T\d\d:04$/);
});
