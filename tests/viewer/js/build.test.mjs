// The build page and the account page's build cells: what an uploaded bot's owner reads.

import assert from "node:assert/strict";
import { test } from "node:test";

import { load } from "./support.mjs";

const B = await load("viewer/pages/build.js");
const AC = await load("viewer/pages/account.js");

test("a build's state reads as one line", () => {
  const base = { language: "cpp", language_label: "C++", log: "" };
  assert.equal(
    B.statusText({ ...base, status: "ready", error: null }),
    "C++: built; its games run the built bot.",
  );
  assert.equal(
    B.statusText({ ...base, status: "failed", error: "g++ failed; the log says why" }),
    "C++: the build failed: g++ failed; the log says why.",
  );
  assert.equal(B.statusText({ ...base, status: "building", error: null }), "C++: being built.");
  assert.equal(
    B.statusText({ language: "python3", language_label: null, status: null, error: null }),
    "python3: not built (it runs from its files).",
  );
});

test("the account page shows an upload's build, a URL snake's URL", () => {
  const upload = { ref: "@a/k", game: "halite3", kind: "upload", url: null, language: "go" };
  const cells = (snake) => AC.snakeCells({ visibility: "public", paused: false, ...snake });
  assert.equal(cells({ ...upload, build_status: "ready" })[2], "go: built");
  assert.equal(
    cells({ ...upload, build_status: "failed", build_error: "go failed; the log says why" })[2],
    "go: build failed: go failed; the log says why",
  );
  assert.equal(cells({ ...upload, build_status: "failed", build_error: null })[2], "go: build failed");
  assert.equal(cells({ ...upload, build_status: null })[2], "go");
  assert.equal(cells({ ref: "@a/s", game: "battlesnake", kind: "url", url: "http://x" })[2], "http://x");
});

test("an upload names its language only when one is picked", () => {
  assert.equal(AC.uploadUrl(" my bot ", ""), "/api/snakes/upload?name=my+bot");
  assert.equal(AC.uploadUrl("k", "rust"), "/api/snakes/upload?name=k&language=rust");
});

test("the account page asks again while one of its uploads is being built", () => {
  const upload = { kind: "upload", build_status: "ready" };
  assert.equal(AC.anyBuilding([]), false);
  assert.equal(AC.anyBuilding([upload, { kind: "url", build_status: null }]), false);
  assert.equal(AC.anyBuilding([upload, { ...upload, build_status: "building" }]), true);
  assert.equal(AC.anyBuilding([{ ...upload, build_status: "failed" }]), false);
  assert.ok(AC.POLL_MS > 0 && B.POLL_MS > 0);
});
