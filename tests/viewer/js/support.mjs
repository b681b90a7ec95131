// What every viewer test module shares: the static files, the test's input, and `same`.
//
// pytest runs these files with `node --test` (tests/js_modules.py's `node_test`):
// SNAKEWAR_STATIC is the URL of a copy of the server's /static/ tree (the shared files under
// viewer/, each game's under its name), SNAKEWAR_TEST_INPUT the path of a JSON file with what
// the Python side made (a real server's answers, replay files).
import assert from "node:assert/strict";
import fs from "node:fs";

const base = process.env.SNAKEWAR_STATIC;
if (!base) {
  throw new Error("SNAKEWAR_STATIC is not set: run these tests through pytest (tests/js_modules.py)");
}

/** Import a module as the server serves it under /static/, e.g. `load("viewer/pages/club.js")`. */
export const load = (path) => import(new URL(path, base).href);

/** The JSON input the Python side wrote for this file ({} without one). */
export const input = process.env.SNAKEWAR_TEST_INPUT
  ? JSON.parse(fs.readFileSync(process.env.SNAKEWAR_TEST_INPUT, "utf8"))
  : {};

/**
 * Deep equality of `actual` as JSON (what a page would send or show: `undefined` entries of
 * an array read as null, undefined fields are left out) with `expected`.
 */
export function same(actual, expected, message) {
  assert.deepStrictEqual(JSON.parse(JSON.stringify(actual) ?? "null"), expected, message);
}
