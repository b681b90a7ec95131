// The game page's Export menu (pages/export_menu.js): the media route's URLs it asks for,
// the downloaded file's name and the options it reads.  The browser tests
// (tests/browser/test_export_halite.py) click it on a real server.
import assert from "node:assert/strict";
import { test } from "node:test";

import { load, same } from "./support.mjs";

const M = await load("viewer/pages/export_menu.js");

const params = (url) => Object.fromEntries(new URL(url, "http://x").searchParams);

test("a picture names its turn; an animation, a video and the HTML never do", () => {
  const options = { turn: 7, size: 480, fps: 5, scoreboard: true };
  same(params(M.mediaUrl("g1", "png", options)), { format: "png", turn: "7", size: "480" });
  same(params(M.mediaUrl("g1", "svg", options)), { format: "svg", turn: "7", size: "480" });
  same(params(M.mediaUrl("g1", "gif", options)), { format: "gif", size: "480", fps: "5" });
  same(params(M.mediaUrl("g1", "mp4", options)), { format: "mp4", size: "480", fps: "5" });
  same(params(M.mediaUrl("g1", "html", options)), { format: "html" });
  assert.ok(M.mediaUrl("g1", "gif").startsWith("/api/games/g1/media?"));
});

test("options left out are the server's defaults; no scoreboard is said", () => {
  same(params(M.mediaUrl("g", "png", { turn: null, size: null, fps: null })), { format: "png" });
  same(params(M.mediaUrl("g", "gif", { scoreboard: false })), {
    format: "gif",
    scoreboard: "false",
  });
});

test("the game's id is one path segment", () => {
  assert.ok(M.mediaUrl("a/b?c", "png").startsWith("/api/games/a%2Fb%3Fc/media?"));
});

test("the file's name is the server's, else the fallback; no path gets through", () => {
  assert.equal(M.fileName('attachment; filename="g-3.png"', "x.png"), "g-3.png");
  assert.equal(M.fileName('attachment; filename="../etc/passwd"', "x.png"), "x.png");
  assert.equal(M.fileName(null, "x.gif"), "x.gif");
});

test("typed numbers are whole numbers or nothing, and labels name the turn", () => {
  same(["480", " 64 ", "", "-1", "1.5", "big"].map(M.readNumber), [480, 64, null, null, null, null]);
  assert.equal(M.entryLabel("PNG", true, 4), "PNG of turn 4");
  assert.equal(M.entryLabel("PNG", true, null), "PNG of the last turn");
  assert.equal(M.entryLabel("Animated GIF", false, 4), "Animated GIF");
});

test("a theme and a palette are asked for by name, never for the HTML replay", () => {
  const options = { theme: "dark", palette: "okabe-ito", turn: 3 };
  same(params(M.mediaUrl("g", "png", options)), {
    format: "png",
    turn: "3",
    theme: "dark",
    palette: "okabe-ito",
  });
  same(params(M.mediaUrl("g", "gif", options)), {
    format: "gif",
    theme: "dark",
    palette: "okabe-ito",
  });
  same(params(M.mediaUrl("g", "html", options)), { format: "html" });
  // The default (empty) is left out; no other text gets into the query.
  same(params(M.mediaUrl("g", "png", { theme: "", palette: "a&b=c" })), { format: "png" });
  same(M.names(" light  dark "), ["light", "dark"]);
  same(M.names("default okabe-ito <x>"), ["default", "okabe-ito"]);
  same(M.names(undefined), []);
});
