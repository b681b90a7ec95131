// The sharing pages' modules: share links and embed code, TV mode's choice of games and
// scoreboard, the exports' rows.
//
// `input` (tests/viewer/test_sharing_static.py) holds a real server's answers: the games
// list with two live games (one of a ladder) and a finished game, and an export job.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const S = await load("viewer/pages/share.js");
const TV = await load("viewer/pages/tv.js");
const E = await load("viewer/pages/saved.js");

const { list, finished, job, ladderGame } = input;
const origin = "https://arena.example";

test("a share link opens the game at a turn, and asks for the winner only when told", () => {
  const id = finished.id;
  assert.equal(S.shareLink(origin, id, 12, false), `${origin}/view/${id}?turn=12`);
  assert.equal(S.shareLink(origin, id, 0, true), `${origin}/view/${id}?turn=0&reveal=1`);
  assert.equal(S.shareLink(origin, id, null, false), `${origin}/view/${id}`);
  assert.equal(S.shareLink(origin, "a b/c", 1, false), `${origin}/view/a%20b%2Fc?turn=1`);
});

test("the embed code frames the game's embed page at the turn, its URL escaped", () => {
  const code = S.embedCode(origin, finished.id, 7);
  assert.match(code, new RegExp(`^<iframe src="${origin}/embed/${finished.id}\\?turn=7" `));
  assert.ok(code.endsWith("></iframe>"));
  assert.ok(!S.embedCode(origin, '"><script>', null).includes("<script>"));
});

test("a typed turn is a whole number from 0, else none", () => {
  same(["0", " 42 ", "-1", "1.5", "abc", "", "1234567890"].map(S.readTurn), [
    0, 42, null, null, null, null, null,
  ]);
});

test("TV mode keeps the live games its filters ask for, in id order", () => {
  const all = TV.selectGames(list.live, {});
  assert.equal(all.length, 2);
  assert.ok(all.every((g) => g.status === "running"));
  same(
    all.map((g) => g.id),
    list.live.map((g) => g.id).sort(),
  );
  same(
    TV.selectGames(list.live, { ladder: "lad" }).map((g) => g.id),
    [ladderGame],
  );
  same(TV.selectGames(list.live, { ladder: "other" }), []);
  same(TV.selectGames(list.live, { tournament: "lad" }), []);
  assert.equal(TV.selectGames(list.live, { game: "battlesnake" }).length, 2);
  same(TV.selectGames(list.live, { game: "halite3" }), []);
  // Finished games (the stored list) are no live games.
  same(TV.selectGames(list.games, {}), []);
});

test("TV mode shows the games in turn and comes round again", () => {
  const games = TV.selectGames(list.live, {});
  assert.equal(TV.nextGame(games, null).id, games[0].id);
  assert.equal(TV.nextGame(games, games[0].id).id, games[1].id);
  assert.equal(TV.nextGame(games, games[1].id).id, games[0].id);
  assert.equal(TV.nextGame(games, "gone").id, games[0].id);
  assert.equal(TV.nextGame([], games[0].id), null);
});

test("the scoreboard names each entrant with its colour, the winner marked", () => {
  const lines = TV.scoreLines(finished);
  same(
    lines.map((l) => l.name),
    finished.entrants.map((e) => e.name),
  );
  assert.ok(lines.every((l) => /^#[0-9a-f]{6}$/i.test(l.color)));
  same(
    lines.filter((l) => l.note === "winner").map((l) => l.name),
    finished.winner ? [finished.winner] : [],
  );
  same(TV.scoreLines(null), []);
});

test("an export's row shows its progress, size and download", () => {
  const row = E.exportRow(job);
  assert.equal(row.testid, `export-${job.id}`);
  same(row.cells.slice(0, 3), [
    `user ${job.target}`,
    { text: "done", cls: "" },
    `${job.done} of ${job.total} game${job.total === 1 ? "" : "s"}`,
  ]);
  same(row.cells[4], { text: `Download ${job.filename}`, href: job.download });
  const failed = { ...job, state: "failed", error: "too big", download: null };
  assert.match(E.progressText(failed), /: too big$/);
  assert.equal(E.exportRow(failed).cells[4], "");
  same([0, 2048, 5 * 1024 * 1024].map(E.sizeText), ["0 B", "2.0 KiB", "5.0 MiB"]);
});

test("TV mode lists a ladder's ratings and a tournament's points", () => {
  same(
    TV.standingLines({
      standings: [
        { snake: "a", rating: 25.04 },
        { snake: "b", rating: null },
      ],
    }),
    ["a 25.0", "b unrated"],
  );
  same(
    TV.standingLines({
      standings: [
        { entrant: "x", points: 2 },
        { entrant: "y", points: 1 },
      ],
    }),
    ["x 2 pts", "y 1 pt"],
  );
  same(TV.standingLines(null), []);
});
