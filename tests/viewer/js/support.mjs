// What every viewer test module shares: the static folder, the test's input, and `same`.
//
// pytest runs these files with `node --test` (tests/viewer/conftest.py's `node_test`):
// SNAKEWAR_STATIC is the URL of the package's static folder, SNAKEWAR_TEST_INPUT the path of
// a JSON file with what the Python side made (a real server's answers, replay files).
import assert from "node:assert/strict";
import fs from "node:fs";

const base = process.env.SNAKEWAR_STATIC;
if (!base) {
  throw new Error("SNAKEWAR_STATIC is not set: run these tests through pytest (tests/viewer)");
}

/** Import a module of the package's static folder, e.g. `load("pages/club.js")`. */
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
