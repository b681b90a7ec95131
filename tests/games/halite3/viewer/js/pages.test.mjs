// Halite III's page modules (/static/halite3/pages/): their pure parts under Node.
// pytest runs this file with `node --test` (tests/games/halite3/viewer/test_pages_static.py).

import { test } from "node:test";

import { load, same } from "../../../../viewer/js/support.mjs";

const HA = await load("halite3/pages/games.js");
const HG = await load("halite3/pages/game.js");

test("halite rows", () => {
  const rows = HA.haliteRows([
    {
      players: ["x", "<y>"],
      winner: "x",
      width: 32,
      height: 40,
      turns: 400,
      source: "upload",
      url: "/halite/games/1",
    },
  ]);
  same(rows, [
    {
      testid: "halite-game",
      cells: [
        "x, <y>",
        "won by x",
        "32x40",
        "400 turns",
        { text: "upload", cls: "muted" },
        { text: "watch", href: "/halite/games/1" },
      ],
    },
  ]);
  const bare = { players: [], winner: null, width: 1, height: 1, turns: 0, source: "s", url: "/u" };
  same(HA.haliteRow(bare).cells[1], "won by -");
  const running = {
    players: ["a"],
    winner: null,
    width: 1,
    height: 1,
    turns: 3,
    source: "custom",
    url: "/u",
    status: "running",
  };
  same(HA.haliteRow(running).cells[1], "running"); // a game being played has no winner yet
  same(HA.haliteRows([]), [{ cells: [{ text: "No Halite games stored yet.", cls: "muted" }] }]);
});

test("the Halite page says the game's state in words", () => {
  same(
    [
      { status: "running", turn: 1 },
      { status: "running", turn: 5 },
      { status: "complete", turn: 400, winner: "greedy" },
      { status: "complete", turn: 9 },
      { status: "cancelled", turn: 3 },
      { status: "aborted", turn: 1 },
      { status: "error", turn: 2, error: "ValueError: x" },
      { status: "starting", turn: 0 },
    ].map(HG.stateText),
    [
      "Running · 1 turn played",
      "Running · 5 turns played",
      "Won by greedy · 400 turns",
      "Over · 9 turns",
      "Cancelled after 3 turns",
      "Stopped after 1 turn (its server stopped)",
      "Stopped by an error after 2 turns: ValueError: x",
      "Starting…",
    ],
  );
});

const HN = await load("halite3/pages/new_game.js");

test("the new-game form's Halite game: seats, bots and the body it posts", () => {
  const builtins = ["crowd", "greedy", "random"];
  const mine = [
    { ref: "@ann/viper", name: "viper", game: "halite3", paused: false },
    { ref: "@ann/old", name: "old", game: "halite3", paused: true }, // paused: not offered
    { ref: "@ann/snek", name: "snek", game: "battlesnake", paused: false }, // another game's
  ];
  same(HN.seatChoices(builtins, mine), [
    {
      label: "Built-in bots",
      options: [
        { value: "builtin:crowd", text: "crowd" },
        { value: "builtin:greedy", text: "greedy" },
        { value: "builtin:random", text: "random" },
      ],
    },
    { label: "Your bots", options: [{ value: "@ann/viper", text: "viper" }] },
  ]);
  same(HN.seatChoices(["greedy"], []), [
    { label: "Built-in bots", options: [{ value: "builtin:greedy", text: "greedy" }] },
  ]);
  same([0, 1, 2, 3].map((seat) => HN.defaultBot(builtins, seat)), [
    "builtin:greedy", "builtin:random", "builtin:greedy", "builtin:random",
  ]);
  same(HN.defaultBot(["crowd"], 1), "builtin:crowd");
  same(HN.defaultBot([], 0), "");

  const values = {
    players: "2", size: "40", seed: " 18446744073709551615 ", maxTurns: "8",
    seat0: "@ann/viper", seat1: "builtin:greedy", seat2: "builtin:random", seat3: "builtin:crowd",
  };
  // The seed goes as typed (a 64-bit seed does not survive a JavaScript number).
  same(HN.buildBody(values), {
    game: "halite3",
    snakes: ["@ann/viper", "builtin:greedy"],
    params: { width: 40, height: 40 },
    seed: "18446744073709551615",
    maxTurns: 8,
  });
  // Four players: four seats; the seed picks the size; no seed, no turns: left out.
  same(HN.buildBody({ ...values, players: "4", size: "0", seed: "", maxTurns: "" }), {
    game: "halite3",
    snakes: ["@ann/viper", "builtin:greedy", "builtin:random", "builtin:crowd"],
    params: { width: 0, height: 0 },
  });
});

test("a challenge from the directory seats the challenged bot against the user's own", () => {
  const builtins = ["greedy", "random"];
  const mine = [{ ref: "@ann/viper", name: "viper", game: "halite3", paused: false }];
  same(HN.challengedRef("?challenge=%40bob%2Fshark&game=halite3"), "@bob/shark");
  same(HN.challengedRef("?challenge=bob"), ""); // not a registered bot's reference
  same(HN.challengedRef("?game=halite3"), "");
  same(HN.seatChoices(builtins, mine, "@bob/shark").at(-1), {
    label: "Challenged",
    options: [{ value: "@bob/shark", text: "@bob/shark" }],
  });
  // One's own bot, challenged: it is among one's bots already.
  same(HN.seatChoices(builtins, mine, "@ann/viper").length, 2);
  same(HN.startingSeats(builtins, mine, "@bob/shark", 4), [
    "@ann/viper", "@bob/shark", "builtin:greedy", "builtin:random",
  ]);
  same(HN.startingSeats(builtins, [], "@bob/shark", 2), ["builtin:greedy", "@bob/shark"]);
  same(HN.startingSeats(builtins, mine, "", 2), ["builtin:greedy", "builtin:random"]);
});
