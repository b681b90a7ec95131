// Battlesnake's page modules under Node: the new-game form's and the tester's
// (/static/battlesnake/pages/) and the board's seed reading (frames.js), as the pages use them.
// `input` holds a real server's maps (GET /api/maps) and a seed too big for a double.
// pytest runs this file with `node --test` (tests/games/battlesnake/viewer/test_pages_static.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "../../../../viewer/js/support.mjs";

const T = await load("battlesnake/pages/tester.js");
const N = await load("battlesnake/pages/new_game.js");
const F = await load("battlesnake/frames.js");

const { bigSeed, maps } = input;

const form = {
  snakes: " builtin:a\n\nhttp://x/ \n",
  ruleset: "royale",
  map: "standard",
  width: "7",
  height: "9",
  timeout: "500",
  seed: ` ${bigSeed} `,
  foodSpawnChance: "15",
  minimumFood: "1",
  hazardDamagePerTurn: "14",
  shrinkEveryNTurns: "25",
};

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
  same(T.buildBody("http://x/", [], { format: "snakewar-scenarios" }, true), {
    url: "http://x/",
    rulesets: ["standard"],
    scenarios: { format: "snakewar-scenarios" },
    only_scenarios: true,
  });
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

test("the new game body sends the seed as typed", () => {
  same(N.buildBody(form), {
    snakes: ["builtin:a", "http://x/"],
    params: {
      ruleset: "royale",
      map: "standard",
      width: 7,
      height: 9,
      foodSpawnChance: 15,
      minimumFood: 1,
      hazardDamagePerTurn: 14,
      shrinkEveryNTurns: 25,
    },
    timeout: 500,
    seed: bigSeed,
  });
  assert.ok(JSON.stringify(N.buildBody(form)).includes(`"seed":"${bigSeed}"`));
  assert.equal("seed" in N.buildBody({ ...form, seed: "  " }), false);
});

test("the classic game sends its own settings on its own board", () => {
  const classic = N.buildBody({
    ...form,
    ruleset: "classic",
    map: "classic",
    seed: "",
    maxFood: "2",
    snakeStartLength: "4",
    decHealthPoints: "1",
  });
  same(classic, {
    snakes: ["builtin:a", "http://x/"],
    params: {
      ruleset: "classic",
      map: "classic",
      width: 7,
      height: 9,
      maxFood: 2,
      snakeStartLength: 4,
      decHealthPoints: 1,
    },
    timeout: 500,
  });
  same(
    [
      N.rulesetBoard("classic", "standard"),
      N.rulesetBoard("royale", "classic"),
      N.rulesetBoard("royale", "standard"),
    ],
    [{ map: "classic", width: 20, height: 20 }, { map: "standard", width: 11, height: 11 }, null],
  );
});

test("the map size is kept when the map allows it", () => {
  const maze = maps.find((m) => m.id === "healing_pools");
  const any = {
    id: "free",
    name: "Free",
    description: "Anything.",
    sizes: "any",
    min_players: 1,
    max_players: 8,
  };
  same(N.fitSize(maze, maze.sizes.at(-1)[0], maze.sizes.at(-1)[1]), maze.sizes.at(-1));
  same(N.fitSize(maze, 1, 1), maze.default_size);
  same(maze.default_size, [11, 11]);
  same(N.fitSize(any, 4, 5), [4, 5]);
  const sizes = maze.sizes.map(([w, h]) => `${w}x${h}`).join(", ");
  assert.equal(
    N.mapInfo(maze),
    `${maze.description} Sizes: ${sizes}. Players: ${maze.min_players}-${maze.max_players}.`,
  );
  assert.equal(N.mapInfo(any), "Anything. Sizes: any size. Players: 1-8.");
});

test("leaving a map for one that does not take its size gives the default", () => {
  // Arcade Maze is 19x21 only; Standard does not take that and starts at 11x11 (its
  // smallest size, 7x7, was what the form once fell back to).
  const arcade = maps.find((m) => m.id === "arcade_maze");
  const standard = maps.find((m) => m.id === "standard");
  same(N.fitSize(standard, ...N.fitSize(arcade, 7, 7)), [11, 11]);
});

test("every map is listed by its title", () => {
  const choices = N.mapChoices(maps);
  assert.equal(choices.length, maps.length);
  const titles = choices.map((c) => c.title);
  const folded = (a, b) => {
    const [x, y] = [a.toLowerCase(), b.toLowerCase()];
    return x < y ? -1 : x > y ? 1 : 0;
  };
  same(titles, [...titles].sort(folded));
  const byId = Object.fromEntries(choices.map((c) => [c.id, c.title]));
  assert.equal(byId.arcade_maze, "Arcade Maze");
  assert.equal(byId.hz_castle_wall, "Castle Wall");
  assert.equal(byId.hz_rivers_bridges_xl, "Rivers and Bridges (extra large)");
  // No raw id is shown as a title.
  same(titles.filter((t) => t.includes("_") || t.startsWith("hz")), []);
});

test("the new game body carries the unofficial timing rules only when set", () => {
  const plain = N.buildBody({ ...form, timeBank: "0", retryTimeout: false });
  assert.equal("timeBank" in plain.params || "retryTimeout" in plain.params, false);
  const timed = N.buildBody({ ...form, timeBank: "1500", retryTimeout: true });
  same([timed.params.timeBank, timed.params.retryTimeout, timed.timeout], [1500, true, 500]);
});
