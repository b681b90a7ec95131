// The Halite viewer's pure parts under Node: the camera (zoom, pan, reset), the palettes
// and what the inspector reads of a replay (replay.js), on an official replay the Python
// side decoded (input.doc) with its expected answers (input.expected).
// pytest runs this file with `node --test` (tests/games/halite3/viewer/test_view_static.py).

import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "../../../../viewer/js/support.mjs";

const V = await load("halite3/view.js");
const R = await load("halite3/replay.js");

test("the camera starts on the whole map and resets to it", () => {
  const c = new V.Camera(32, 40);
  same([c.zoom, c.cx, c.cy, c.isReset], [1, 16, 20, true]);
  same(c.transform(10), [1, 0, 0]);
  same(c.visible(), { x0: 0, y0: 0, x1: 32, y1: 40 });
  c.zoomAt(2, 0.5, 0.5);
  c.panBy(0.25, -0.25);
  assert.equal(c.isReset, false);
  c.reset();
  same([c.zoom, c.cx, c.cy, c.isReset], [1, 16, 20, true]);
});

test("zooming keeps the point under the cursor where it is", () => {
  const c = new V.Camera(32, 32);
  const before = c.toMap(0.25, 0.75);
  c.zoomAt(2, 0.25, 0.75);
  assert.equal(c.zoom, 2);
  same(c.toMap(0.25, 0.75), before);
  // The drawing transform puts that map point at the same canvas pixel.
  const cell = 10;
  const [scale, dx, dy] = c.transform(cell);
  same([before.x * cell * scale + dx, before.y * cell * scale + dy], [0.25 * 320, 0.75 * 320]);
  // Zoom is bounded both ways; at zoom 1 the view is the whole map again.
  c.zoomAt(100);
  assert.equal(c.zoom, V.MAX_ZOOM);
  c.zoomAt(1 / 1000);
  same([c.zoom, c.cx, c.cy], [V.MIN_ZOOM, 16, 16]);
});

test("panning moves the view by a fraction of it, and never off the map", () => {
  const c = new V.Camera(32, 32);
  c.panBy(0.5, 0.5);
  same([c.cx, c.cy], [16, 16]); // the whole map is shown: nothing to pan to
  c.zoomAt(4); // an 8x8 view, centred
  c.panBy(0.5, -0.25);
  same([c.cx, c.cy], [20, 14]);
  same(c.visible(), { x0: 16, y0: 10, x1: 24, y1: 18 });
  c.panBy(10, 10);
  same([c.cx, c.cy], [28, 28]); // its far edge on the map's edge
  c.panBy(-10, -10);
  same([c.cx, c.cy], [4, 4]);
});

test("the palettes: a colour-blind safe one beside the default", () => {
  assert.equal(V.isPalette("okabe-ito"), true);
  assert.equal(V.isPalette("nope"), false);
  assert.equal(V.isPalette("toString"), false);
  same(V.palette("nope"), V.palette("default"));
  // The Okabe–Ito colours, in their order.
  same(
    [0, 1, 2, 3].map((i) => V.playerColor("okabe-ito", i)),
    ["#e69f00", "#56b4e9", "#009e73", "#f0e442"],
  );
  assert.notEqual(V.playerColor("okabe-ito", 0), V.playerColor("default", 0));
  assert.equal(V.playerColor("default", 6), V.playerColor("default", 0)); // wraps around
  for (const name of Object.keys(V.PALETTES)) {
    const heat = V.heatColors(name);
    assert.equal(heat.length, 256 * 3);
    same([...heat.slice(0, 3)], V.palette(name).heat[0][1]);
    same([...heat.slice(765)], V.palette(name).heat.at(-1)[1]);
  }
  // The colour-blind heat map gets lighter all the way (it reads without hue).
  const heat = V.heatColors("okabe-ito");
  const light = (i) => 0.2126 * heat[i * 3] + 0.7152 * heat[i * 3 + 1] + 0.0722 * heat[i * 3 + 2];
  for (let i = 1; i < 256; i += 1) {
    assert.ok(light(i) >= light(i - 1), `level ${i} is darker than ${i - 1}`);
  }
});

test("what the inspector reads of a replay: ships, cells and structures at a turn", () => {
  const { doc, expected } = input;
  const game = new R.HaliteGame(doc, "okabe-ito");
  same(game.players.map((p) => p.color), ["#e69f00", "#56b4e9"]);
  game.setPalette("default");
  same(game.players.map((p) => p.color), [V.playerColor("default", 0), V.playerColor("default", 1)]);
  const { turn, ship, yard } = expected;
  const seen = game.shipAt(turn, ship.id);
  same(seen, ship);
  assert.equal(game.shipAt(turn, 987654), null);
  same(game.cellInfo(turn, ship.x, ship.y), {
    x: ship.x, y: ship.y, halite: expected.shipCellHalite, structure: expected.shipCellStructure, ship,
  });
  same(game.cellInfo(turn, yard.x, yard.y).structure, { kind: "shipyard", owner: yard.owner });
  same(game.cellInfo(0, 0, 0).halite, doc.production_map.grid[0][0].energy);
});
