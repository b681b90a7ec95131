// Battlesnake's page modules under Node: the tester's (/static/battlesnake/pages/tester.js)
// and the board's seed reading (frames.js), as the pages use them.
// pytest runs this file with `node --test` (tests/games/battlesnake/viewer/test_pages_static.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "../../../../viewer/js/support.mjs";

const T = await load("battlesnake/pages/tester.js");
const F = await load("battlesnake/frames.js");

const { bigSeed } = input;

test("tester rows", () => {
  const rows = T.resultRows({
    checks: [
      { name: "info", passed: true, detail: "" },
      { name: "move", passed: false },
    ],
    scenarios: [
      { category: "food", title: "eat", passed: true, variants_passed: 3, variants_total: 4 },
    ],
  });
  same(rows, [
    { cells: ["check", "info", { text: "PASS", cls: "pass" }, { text: "", cls: "muted" }] },
    { cells: ["check", "move", { text: "FAIL", cls: "fail" }, { text: "", cls: "muted" }] },
    {
      cells: [
        "food",
        "eat",
        { text: "PASS", cls: "pass" },
        { text: "3/4 positions", cls: "muted" },
      ],
    },
  ]);
});

test("tester strategy rows, boards and stream", () => {
  const strategy = T.resultRows({
    scenarios: [
      {
        category: "head-to-head-win",
        title: "kill",
        kind: "strategy",
        passed: false,
        variants_passed: 2,
        variants_total: 8,
        variants_load_only: 0,
      },
      {
        category: "walls",
        title: "wall",
        kind: "survival",
        passed: true,
        variants_passed: 8,
        variants_total: 8,
        variants_load_only: 3,
      },
    ],
  });
  same(strategy, [
    {
      cells: [
        "head-to-head-win",
        "kill",
        { text: "MISS", cls: "miss" },
        { text: "2/8 positions · strategy (scored, never failed)", cls: "muted" },
      ],
    },
    {
      cells: [
        "walls",
        "wall",
        { text: "PASS", cls: "pass" },
        { text: "8/8 positions · 3 failed only under load (passed alone)", cls: "muted" },
      ],
    },
  ]);
  const boards = T.failureBoards({
    scenarios: [
      {
        id: "k",
        kind: "strategy",
        title: "kill",
        first_failure: {
          variant: "rot90",
          move: "up",
          acceptable: ["left"],
          ruleset: "standard",
          board: ["a", "b"],
        },
      },
      {
        id: "t",
        kind: "survival",
        title: "timeout",
        first_failure: {
          variant: "identity",
          move: "",
          acceptable: ["up"],
          ruleset: "standard",
          board: ["x"],
        },
      },
      {
        id: "w",
        kind: "survival",
        title: "wall",
        first_failure: {
          variant: "mirror",
          move: "down",
          acceptable: ["right", "left"],
          ruleset: "royale",
          board: ["c"],
        },
      },
      { id: "ok", kind: "survival", title: "fine", first_failure: null },
    ],
  });
  // Survival failures first; no board for a position without a move.
  same(boards, [
    {
      title: "survival w [mirror]: wall",
      detail: "gave 'down', expected left or right (royale rules)",
      board: "c",
      cls: "fail",
    },
    {
      title: "strategy k [rot90]: kill",
      detail: "gave 'up', expected left (standard rules)",
      board: "a\nb",
      cls: "miss",
    },
  ]);
  same(
    [T.parseLines('{"a":1}\n\n{"b":2}\n{"c"'), T.parseLines("")],
    [
      { events: [{ a: 1 }, { b: 2 }], rest: '{"c"' },
      { events: [], rest: "" },
    ],
  );
  assert.equal(
    T.progressText({ checks: 4, checksTotal: 4, done: 3, scenarios: 26 }),
    "running: health checks 4/4, scenarios 3/26",
  );
  same(T.buildBody(" http://x/ ", ["royale"]), { url: "http://x/", rulesets: ["standard", "royale"] });
});

test("seeds are read exactly", () => {
  const header = `{"format":"snakewar-replay","config":{"seed":${bigSeed}}}`;
  same(
    [
      F.exactIntegerText(header, "seed", JSON.parse(header).config.seed),
      F.exactIntegerText(`{"seed":7}`, "seed", 7),
      F.exactIntegerText(`{"seed":"7"}`, "seed", "7"),
      F.exactIntegerText(`{"name":"\\"seed\\":2618439174457646100","seed":1}`, "seed", 1),
    ],
    [bigSeed, "7", null, "1"],
  );
  same(
    [
      F.seedString({ Seed: Number(bigSeed), SeedString: bigSeed }),
      F.seedString({ Seed: 5 }),
      F.seedString({ Seed: 5, SeedString: "five" }),
      F.seedString({}),
    ],
    [bigSeed, "5", "5", null],
  );
});
