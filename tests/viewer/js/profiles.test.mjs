// The profile pages' modules (profiles.js, picker.js, snake.js, snakes.js, user.js,
// ladder_entry.js and the ladder page's standings): API answers to text and rows.
//
// `input` (tests/viewer/test_profiles_static.py) holds a real server's answers: a
// ladder played 4 games with placement at 3, and one entrant's entry page data.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const P = await load("viewer/pages/profiles.js");
const K = await load("viewer/pages/picker.js");
const S = await load("viewer/pages/snake.js");
const D = await load("viewer/pages/snakes.js");
const U = await load("viewer/pages/user.js");
const E = await load("viewer/pages/ladder_entry.js");
const L = await load("viewer/pages/ladder.js");
const A = await load("viewer/pages/account.js");

const { ladder, entry } = input;

test("numbers, places and statistics read as people write them", () => {
  same(
    [P.percent(0.5), P.percent(null), P.fixed(1.234), P.signed(1.5), P.signed(-0.25), P.signed(null)],
    ["50%", "-", "1.23", "+1.50", "-0.25", "-"],
  );
  same([1, 2, 3, 4, 11, 12, 13, 21, 22, 101].map(P.ordinal), [
    "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st",
  ]);
  same(P.placementsText({ 2: 1, 1: 3 }), "1st x3, 2nd x1");
  same(P.placementsText({}), "-");
  const scorers = [{ key: "food", label: "food eaten" }, { key: "length", label: "final length" }];
  same(P.statsText({ length: 7, food: 2.5 }, scorers), "food eaten 2.50, final length 7.00");
  same(P.statsText({}, scorers), "-");
  same(P.tagsText({ language: "python3", tags: ["minimax"] }), "python3, minimax");
  same(P.tagsText({ language: null, tags: [] }), "-");
});

test("links: entries, challenges", () => {
  same(P.entryUrl("club", "@ann/viper"), "/ladders/club/entries/%40ann%2Fviper");
  same(P.challengeUrl({ ref: "@ann/viper", game: "battlesnake" }, "battlesnake"), "/new?challenge=%40ann%2Fviper");
  same(
    P.challengeUrl({ ref: "@ann/kit", game: "halite3" }, "battlesnake"),
    "/new?challenge=%40ann%2Fkit&game=halite3",
  );
});

test("the games list's query: fixed filters, the form's, a whole 'to' day, the page", () => {
  same(
    P.gamesQuery({ snake: "@a/b" }, { status: "", ladder: "club", from: "2026-03-01", to: "2026-03-31" }, 20, 10),
    "snake=%40a%2Fb&ladder=club&from=2026-03-01T00%3A00%3A00Z&to=2026-04-01T00%3A00%3A00Z&limit=10&offset=20",
  );
  same(P.gamesQuery({ user: "ann" }, {}, 0, 20), "user=ann&limit=20&offset=0");
  same([P.gamesCount(1), P.gamesCount(0), P.gamesCount(3)], ["1 game", "0 games", "3 games"]);
  same(D.directoryQuery("  fang ", "halite3", 50), "limit=50&offset=50&q=fang&game=halite3");
  same(D.directoryQuery("", "", 0), "limit=50&offset=0");
});

test("a real entry: standing, scorers and history rows with deltas", () => {
  assert.equal(entry.history.length, entry.games);
  assert.match(E.entryStanding(entry), /^(rank [12] of 2|in placement: \d games? to go) - rating -?\d+\.\d\d after \d games/);
  assert.match(E.entryScores(entry), /^win rate \d+% \(\d+ won\) - placements (1st|2nd)/);
  assert.match(E.entryScores(entry), /food eaten \d+\.\d\d, final length \d+\.\d\d, turns alive/);
  const rows = entry.history.map((step) => P.historyRow(step, entry.scorers));
  same(rows[0].cells[3], { text: "-", cls: "" });
  for (const [k, row] of rows.entries()) {
    assert.match(row.cells[1], /^(1st|2nd) of [12]( \(won\))?$/);
    same(row.cells[5], { text: "watch", href: entry.history[k].viewer });
  }
  const drawn = P.historyPoints(entry.history);
  assert.equal(drawn.points.length, entry.history.length);
  assert.ok(drawn.hi - drawn.lo >= 2);
  same(P.historyPoints([]), null);
  same(P.standingText({ in_placement: true, placement_left: 1 }), "in placement: 1 game to go");
  same(P.standingText({ in_placement: false, rank: 2, ranked: 5 }), "rank 2 of 5");
});

test("a real ladder's standings: ranked, then in placement, scorers side by side", () => {
  const heads = L.standingHeads(ladder.scorers);
  same(heads, ["#", "snake", "rating", "games", "win rate", "food eaten", "final length", "turns alive", "status", ""]);
  const rows = ladder.standings.map((s) => L.standingRow(s, ladder.scorers));
  for (const row of rows) {
    assert.equal(row.cells.length, heads.length - 1); // the last column is the leave button's
  }
  const placing = ladder.standings.filter((s) => s.in_placement);
  for (const [i, s] of ladder.standings.entries()) {
    const rank = rows[i].cells[0];
    if (s.in_placement) {
      same(rank, { text: `in placement (${s.placement_left} left)`, cls: "muted" });
      same(rows[i].testid, "standing-placement");
    } else {
      same(rank, s.rank);
    }
    assert.match(rows[i].cells[4], s.games ? /^\d+%$/ : /^-$/);
  }
  same(
    ladder.standings.map((s) => [s.snake, s.in_placement]),
    [
      [ladder.standings[0].snake, false],
      [ladder.standings[1].snake, false],
      ["late", true],
    ],
  );
  same(placing.map((s) => s.placement_left), [3]);
  // Without scorers the row is as it always was.
  same(L.standingRow(ladder.standings[0]).cells.length, 7);
  same(
    [L.placementText(0), L.placementText(1), L.placementText(10)],
    [
      "Entrants are ranked from their first game.",
      "Entrants are ranked after 1 placement game.",
      "Entrants are ranked after 10 placement games.",
    ],
  );
  same(
    L.scheduleChanges(
      { continuous: false, games_in_flight: 1, games_per_hour: 60, daily_cap: null, placement_games: 4 },
      { continuous: false, games_in_flight: 1, games_per_hour: 60, daily_cap: null, placement_games: 10 },
    ),
    { placementGames: 4 },
  );
});

test("the picker: choices, entrants added and removed, a challenge's entrants", () => {
  same(K.builtinChoices(["random", "greedy", "hunter"], "GRE"), [
    { value: "greedy", label: "greedy", kind: "built-in" },
  ]);
  same(K.builtinChoices(["random", "greedy"], "").length, 2);
  same(K.snakeChoice({ ref: "@ann/viper", language: null, tags: ["go"] }), {
    value: "@ann/viper",
    label: "@ann/viper (go)",
    kind: "snake",
  });
  same(K.withEntrant("a\n\n b \n", "c"), "a\nb\nc");
  same(K.withEntrant("", "c"), "c");
  same(K.withoutEntrant("a\nb\nc", 1), "a\nc");
  same(K.entrantLines(" a \n\nb"), ["a", "b"]);
  same(K.challengeEntrants("@bob/coil", ["@ann/viper"], "random"), "@bob/coil\n@ann/viper");
  same(K.challengeEntrants("@bob/coil", ["@bob/coil"], "random"), "@bob/coil\nrandom");
  same(K.challengeEntrants("@bob/coil", [], "random"), "@bob/coil\nrandom");
  same(A.tagWords(" Python, minimax  python\tgo "), ["python", "minimax", "go"]);
  same(A.tagWords(""), []);
});

test("a snake's and a user's page: latency, health, ladder and owned rows", () => {
  same(
    S.latencyText({ games: 3, calls: 40, p50_ms: 12, p95_ms: 80, timeouts: 2 }),
    "Latency over 3 recent games: p50 12 ms, p95 80 ms (40 calls, 2 timed out)",
  );
  assert.match(S.latencyText({ games: 0, calls: 0, p50_ms: null, p95_ms: null, timeouts: 0 }), /^Latency: no calls/);
  same(S.healthText({ status: "failing", detail: "x" }), "Health: failing - x");
  const row = S.ladderRow(entry);
  same(row.cells[0], { text: entry.ladder, href: P.entryUrl(entry.ladder, entry.entrant) });
  same(row.cells[3], entry.games);
  same(U.ownedRow({ id: 3, name: "viper", game: "battlesnake", language: null, tags: [], visibility: "private", paused: true }), {
    cells: [{ text: "viper", href: "/snakes/3" }, "battlesnake", "-", "private, paused"],
    testid: "owned-row",
  });
});
