// The operations pages' modules: the dashboard's rows and the notification settings' body.
//
// `input` (tests/viewer/test_ops_static.py) holds a real server's dashboard answer and
// notification settings.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const D = await load("viewer/pages/admin_dashboard.js");
const N = await load("viewer/pages/notifications.js");

const { dashboard, settings } = input;

test("games by status: a row per status, in the answer's order", () => {
  same(
    D.statusRows(dashboard.games_by_status).map((r) => [r.testid, ...r.cells]),
    [
      ["status-running", "running", "0"],
      ["status-complete", "complete", "1"],
      ["status-aborted", "aborted", "1"],
      ["status-cancelled", "cancelled", "0"],
    ],
  );
});

test("workers and queues say what is used of what there is", () => {
  const rows = Object.fromEntries(D.workerRows(dashboard).map((r) => [r.testid, r.cells[1]]));
  assert.equal(rows.runner, "local");
  assert.equal(rows.running, "1 of 32"); // the stepped game, paused and still live
  assert.equal(rows.paused, "1");
  assert.equal(rows["builtin-workers"], "2 of 16"); // its two built-in bots
  assert.equal(rows["arena-runs"], "0 of 16 (2 at once)");
  assert.match(rows.scheduler, / \(this replica\)$/);
});

test("a failed game links its page and shows its reason", () => {
  const [row] = D.failedRows(dashboard.failed_games);
  const [, game, title, reason] = row.cells;
  assert.equal(game, "battlesnake");
  assert.equal(title.href, `/view/${dashboard.failed_games[0].id}`);
  assert.equal(reason, "the worker died");
});

test("sign-ups and space", () => {
  same(D.signUpRows(dashboard.sign_ups).map((r) => r.cells[0]), ["local"]);
  const space = Object.fromEntries(D.spaceRows(dashboard).map((r) => [r.testid, r.cells[1]]));
  assert.equal(space.outbox, "0 pending, 0 sent, 0 failed, 0 capped");
  assert.equal(space["database-size"], "in memory");
  assert.equal(space["replay-size"], "0 B");
  assert.equal(space["stored-counts"], `2 / ${dashboard.disk.frames}`);
});

test("the settings' body: checked boxes grouped by event, empty fields as null", () => {
  same(N.settingsBody("  https://x.example/h ", "", ["game_finished:webhook", "snake_paused:email", "snake_paused:webhook"]), {
    webhook_url: "https://x.example/h",
    email: null,
    events: { game_finished: ["webhook"], snake_paused: ["email", "webhook"] },
  });
  same(N.settingsBody("", "", []), { webhook_url: null, email: null, events: {} });
});

test("a saved setting is shown checked", () => {
  assert.equal(N.isChosen(settings, "game_finished", "webhook"), true);
  assert.equal(N.isChosen(settings, "game_finished", "email"), false);
  assert.equal(N.isChosen(settings, "signup", "webhook"), false);
});

test("a message's row shows its error with its state", () => {
  const cells = N.sentCells({
    created_at: "2026-11-27T10:00:00Z",
    channel: "webhook",
    title: "t",
    state: "failed",
    error: "webhook: HTTP status 404",
  });
  assert.equal(cells[3], "failed: webhook: HTTP status 404");
  assert.equal(N.sentCells({ ...{ created_at: "2026-11-27T10:00:00Z" }, channel: "email", title: "t", state: "sent", error: null })[3], "sent");
});
