// The game page's latency chart (pages/latency_chart.js): its data from real frames.
//
// `input` (tests/viewer/test_latency_chart_static.py) holds a real local game's first page
// of frames, played by two built-ins under the unofficial timing rules.
import assert from "node:assert/strict";
import { test } from "node:test";

import { input, load, same } from "./support.mjs";

const C = await load("viewer/pages/latency_chart.js");
const { page } = input;

test("the badge names the unofficial timing rules, and nothing under the official ones", () => {
  same(
    [
      C.timingBadge({ timeBank: 2000, retryTimeout: true }),
      C.timingBadge({ timeBank: 2000 }),
      C.timingBadge({ retryTimeout: true }),
      C.timingBadge(undefined),
      C.timingBadge({}),
    ],
    [
      "unofficial timing: bank 2000 ms, retry on timeout",
      "unofficial timing: bank 2000 ms",
      "unofficial timing: retry on timeout",
      "",
      "",
    ],
  );
});

test("a real game gives one series per snake, a point per call, in the snakes' colours", () => {
  const data = C.latencySeries(page.header, page.frames);
  assert.equal(data.timeout, page.header.timeout);
  assert.equal(data.badge, "unofficial timing: bank 1000 ms, retry on timeout");
  same(
    data.series.map((s) => [s.id, s.color]),
    page.header.snakes.map((s) => [s.id, s.color]),
  );
  const played = page.frames.length - 1;
  assert.equal(data.turns, played);
  for (const series of data.series) {
    // A snake is asked each turn it is alive: numbered by the turn the call was made on.
    const asked = page.frames.slice(1).filter((f) => {
      const snake = f.Snakes.find((s) => s.ID === series.id);
      return snake.CallStatus !== "";
    });
    same(
      series.points.map((p) => p.turn),
      asked.map((f) => f.Turn - 1),
    );
    for (const point of series.points) {
      assert.ok(!point.timeout && !point.retried && point.ms >= 0);
      assert.ok(point.bank !== null && point.bank <= 1000);
    }
  }
  assert.ok(C.turnText(data, 0).startsWith("Turn 0: "), C.turnText(data, 0));
});

test("timeouts are marked from the call status, or from the error of older frames", () => {
  const snake = (status, latency, extra = {}) => ({
    ID: "a",
    Name: "late",
    Color: "#ff0000",
    Latency: String(latency),
    Error: status === "timeout" ? "timeout: no complete reply within 500 ms" : "",
    CallStatus: status,
    TimeBank: null,
    Retried: false,
    ...extra,
  });
  const frames = [
    { Turn: 0, Snakes: [snake("", 0)] },
    { Turn: 1, Snakes: [snake("ok", 40)] },
    { Turn: 2, Snakes: [snake("timeout", 500, { Retried: true })] },
    // A frame stored before CallStatus was kept: its error says timeout.
    { Turn: 3, Snakes: [{ ...snake("timeout", 500), CallStatus: undefined }] },
  ];
  const data = C.latencySeries({ timeout: 500 }, frames);
  same(
    data.series[0].points.map((p) => [p.turn, p.ms, p.timeout, p.retried]),
    [
      [0, 40, false, false],
      [1, 500, true, true],
      [2, 500, true, false],
    ],
  );
  assert.equal(C.turnText(data, 1), "Turn 1: late timed out after 500 ms (retried)");
  assert.equal(C.turnText(data, 0), "Turn 0: late 40 ms");
  assert.equal(C.turnText(data, 9), "Turn 9: no calls");
  // Frames without entrants' latencies (another game's) give no chart.
  assert.equal(C.latencySeries({}, [{ turn: 0, cells: [] }]), null);
});

test("the scales reach past the timeout and the slowest call, and map back to turns", () => {
  const data = {
    timeout: 500,
    turns: 11,
    series: [{ points: [{ turn: 3, ms: 2400 }] }],
  };
  const scale = C.chartScale(data, 640, 150);
  assert.ok(scale.top >= 2400);
  assert.ok(scale.y(0) > scale.y(500) && scale.y(500) > scale.y(2400));
  for (const turn of [0, 4, 10]) {
    assert.equal(scale.turnAt(scale.x(turn)), turn);
  }
  const quiet = C.chartScale({ timeout: 500, turns: 2, series: [] }, 640, 150);
  assert.ok(quiet.top >= 500);
});
