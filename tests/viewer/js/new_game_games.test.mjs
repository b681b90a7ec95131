// The new-game page's game selector (viewer/pages/new_game_games.js): its pure parts.
// pytest runs this file with `node --test` (tests/viewer/test_new_game_games_static.py).

import { test } from "node:test";

import { load, same } from "./support.mjs";

const NG = await load("viewer/pages/new_game_games.js");

test("one game's form is shown at a time, the default game's for an unknown name", () => {
  const names = ["battlesnake", "halite3"];
  same(NG.visibility(names, "halite3"), [
    { name: "battlesnake", hidden: true },
    { name: "halite3", hidden: false },
  ]);
  same(NG.visibility(names, "battlesnake"), [
    { name: "battlesnake", hidden: false },
    { name: "halite3", hidden: true },
  ]);
  same(NG.visibility(names, "chess"), NG.visibility(names, "battlesnake"));
});

test("the choice is kept in the URL, the default game's without ?game=", () => {
  same(NG.gameUrl("http://h/new", "halite3", "battlesnake"), "http://h/new?game=halite3");
  same(NG.gameUrl("http://h/new?game=halite3", "battlesnake", "battlesnake"), "http://h/new");
  same(NG.gameUrl("http://h/new?x=1&game=a", "b", "c"), "http://h/new?x=1&game=b");
});
