// A ladder's page: standings, the rating chart (axes, legend) and recent games from
// GET /api/ladders/{name}, refreshed every 1.5 s, with the latest run's progress.
// Members join with their own snakes and leave again; admins add any entrant, play
// 10 games, stop a run (its games in flight are cancelled), change the settings for
// the next games (how it plays on by itself too), pause and resume a continuous
// ladder, and delete the ladder.  Entrants still in placement are listed unranked after
// the ranked ones, and the secondary scorers (win rate, the game's statistics) stand
// beside the rating; each entrant links to its entry page.

import {
  changedParams,
  drawParams,
  entrantChoices,
  fillSelect,
  optionalNumber,
  paramFields,
  readParams,
} from "./club.js";
import { detailText, el, fetchJson, poll, postJson, renderRows } from "./dom.js";
import { entryUrl } from "./profiles.js";

export const PALETTE = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#42d4f4", "#f032e6"];

/** The chart's drawing area in the SVG's viewBox (0 0 600 260): room for the axes' labels. */
export const CHART = { left: 52, right: 590, top: 10, bottom: 222 };

const SVG = "http://www.w3.org/2000/svg";

function fixed(value) {
  return typeof value === "number" ? value.toFixed(2) : "-";
}

/**
 * A standing's status: "paused: NOTE" while paused, "failing: FAILURE" when its
 * latest game failed (`failure`, where the API has it), else "active".
 */
export function statusText(s) {
  if (s.paused) {
    const note = String(s.note ?? "");
    return note.startsWith("paused") ? note : `paused${note ? `: ${note}` : ""}`;
  }
  if (s.failure) {
    return `failing: ${s.failure}`;
  }
  return "active";
}

/**
 * A standings row: rank, snake, rating (mu - 3 sigma), mu, sigma, games, status.  With
 * the ladder's `scorers` (the game's statistics) the row is the arena's: rank, snake
 * (a link to its entry page, where mu and sigma are), rating, games, then the
 * secondary scorers side by side (win rate, each statistic's mean) and the status; an
 * entrant in placement shows how many games it has left instead of a rank.
 */
export function standingRow(s, scorers) {
  if (scorers === undefined) {
    return {
      cells: [s.rank ?? "-", s.snake, fixed(s.rating), fixed(s.mu), fixed(s.sigma), s.games, statusText(s)],
    };
  }
  const rank = s.in_placement
    ? { text: `in placement (${s.placement_left} left)`, cls: "muted" }
    : (s.rank ?? "-");
  const rate = typeof s.win_rate === "number" ? `${Math.round(s.win_rate * 100)}%` : "-";
  return {
    cells: [
      rank,
      { text: s.snake, href: entryUrl(ladderName(), s.snake) },
      fixed(s.rating),
      s.games,
      rate,
      ...scorers.map((x) => fixed(s.stats?.[x.key])),
      statusText(s),
    ],
    testid: s.in_placement ? "standing-placement" : "standing-ranked",
  };
}

/** The line on placement: how many games an entrant plays before it is ranked. */
export function placementText(games) {
  if (!games) {
    return "Entrants are ranked from their first game.";
  }
  return `Entrants are ranked after ${games} placement game${games === 1 ? "" : "s"}.`;
}

/** The standings' header for the ladder's `scorers`: the columns of `standingRow`. */
export function standingHeads(scorers) {
  return ["#", "snake", "rating", "games", "win rate", ...scorers.map((x) => x.label), "status", ""];
}

function ladderName() {
  return globalThis.document?.getElementById("ladder")?.dataset.name ?? "";
}

/**
 * What the viewer may do with an entry: "Remove" (an admin: any), "Leave" (a user:
 * their own snake's entry, named `@owner/name`, or `owner/name` if made before entry
 * names were namespaced), or `null`.
 */
export function entryAction(snake, me, admin) {
  if (admin) {
    return "Remove";
  }
  const text = String(snake);
  return me && (text.startsWith(`@${me}/`) || text.startsWith(`${me}/`)) ? "Leave" : null;
}

/**
 * What may join: for an admin the game's registered snakes and built-ins, for a user
 * their own snakes (`snakes` is what the API listed for them), less what is on the
 * ladder already (a snake's entry is `@owner/name`, a built-in's `builtin:NAME`; an
 * entry made before names were namespaced is `owner/name` or the bot's name).
 */
export function joinChoices(game, snakes, standings, admin) {
  const on = new Set(standings.map((s) => s.snake));
  const choices = entrantChoices(game, snakes).filter((c) => admin || c.value.startsWith("@"));
  return choices.filter((c) => {
    const legacy = c.value.startsWith("@") ? c.value.slice(1) : c.value.replace(/^builtin:/, "");
    return !on.has(c.value) && !on.has(legacy);
  });
}

/** A recent game's row: the placement ("a > b = c"), its length and a link to watch. */
export function recentGameRow(game) {
  return {
    cells: [
      game.placement.map((group) => group.join(" = ")).join(" > "),
      `${game.turns} turns`,
      { text: "watch", href: game.viewer },
    ],
  };
}

/** The line above the standings. */
export function summaryText(data) {
  const onward = data.schedule?.continuous && !data.schedule.paused;
  return `${data.games_played} games` + (data.running || onward ? " - playing now" : "");
}

/** The latest run's line: games played of asked, as the CLI's bar, and why it stopped. */
export function runText(run) {
  if (!run) {
    return "";
  }
  const of = run.games === null || run.games === undefined ? "" : ` of ${run.games}`;
  if (run.running) {
    const doing = run.state === "stopping" ? "Stopping" : "Playing";
    return `${doing}: ${run.done}${of} games played`;
  }
  if (run.state === "stopped") {
    return `Stopped by an admin after ${run.done}${of} games`;
  }
  if (run.state === "interrupted") {
    return `Interrupted after ${run.done}${of} games: ${run.error}`;
  }
  if (run.error) {
    return `Stopped after ${run.done}${of} games: ${run.error}`;
  }
  return `Played ${run.done}${of} games`;
}

/**
 * The line on how a ladder plays on by itself (`schedule` of the API; "" when it is
 * played in runs): its games in flight, in the last hour, its limits, who schedules.
 */
export function scheduleText(schedule) {
  if (!schedule || !schedule.continuous) {
    return "";
  }
  const flight = `${schedule.in_flight} of ${schedule.games_in_flight} games in flight`;
  const hour = `${schedule.games_last_hour} started in the last hour`;
  if (schedule.paused) {
    return `Paused by an admin: ${flight}, ${hour}`;
  }
  const capped = schedule.daily_cap !== null && schedule.daily_cap !== undefined;
  const cap = capped ? `, ${schedule.daily_cap} a day per snake` : "";
  const limits = `at most ${schedule.games_per_hour} an hour${cap}`;
  let who = "";
  if (schedule.scheduler) {
    who = `; scheduled by ${schedule.scheduler}`;
  } else if (!schedule.scheduled) {
    who = "; no server schedules it now";
  }
  return `Plays on by itself: ${flight}, ${hour} (${limits})${who}`;
}

/** Which of pause and resume shows: `{pause, resume}` (neither for a ladder played in runs). */
export function pauseButtons(schedule) {
  const on = Boolean(schedule?.continuous);
  return { pause: on && !schedule.paused, resume: on && Boolean(schedule.paused) };
}

/**
 * The PATCH body's fields for how the ladder plays on by itself: those the form changes
 * (`form`: continuous, games_in_flight, games_per_hour, daily_cap as typed), by the API's names.
 */
export function scheduleChanges(form, schedule) {
  const body = {};
  if (form.continuous !== schedule.continuous) {
    body.continuous = form.continuous;
  }
  const numbers = [
    ["games_in_flight", "gamesInFlight"],
    ["games_per_hour", "gamesPerHour"],
    ["daily_cap", "dailyCap"],
    ["placement_games", "placementGames"],
  ];
  for (const [field, name] of numbers) {
    const value = form[field] ?? null;
    if (value !== (schedule[field] ?? null)) {
      body[name] = value;
    }
  }
  return body;
}

/** Whether the stop button shows: a run plays, and nobody asked it to stop yet. */
export function canStop(data) {
  return Boolean(data.running) && data.run?.state !== "stopping";
}

/** Tick values from `lo` to `hi`, about `count` of them, at 1, 2 or 5 times a power of ten. */
export function niceTicks(lo, hi, count = 5) {
  if (!(hi > lo)) {
    return [lo];
  }
  const rough = (hi - lo) / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  // The round step whose number of ticks comes closest to `count`.
  const steps = [1, 2, 5, 10].map((m) => m * power);
  const off = (s) => Math.abs((hi - lo) / s - count);
  const step = steps.reduce((best, s) => (off(s) < off(best) ? s : best));
  const ticks = [];
  for (let k = Math.ceil(lo / step); k * step <= hi + step * 1e-9; k += 1) {
    // Rounded to the step's decimals: 0.1 * 3 must read 0.3.
    ticks.push(Number((k * step).toFixed(Math.max(0, -Math.floor(Math.log10(step))))));
  }
  return ticks;
}

/**
 * How the chart maps games and ratings to the drawing area: a snake's k-th game
 * (k from 0) at `x(k)` over the longest history, a rating at `y(r)` between the lowest
 * and the highest (at least 2 apart).  `null` when there is no rating yet.
 */
export function chartScale(history, area = CHART) {
  const series = Object.values(history);
  let lo = Infinity;
  let hi = -Infinity;
  let longest = 1;
  for (const points of series) {
    longest = Math.max(longest, points.length);
    for (const p of points) {
      const rating = p.mu - 3 * p.sigma;
      lo = Math.min(lo, rating);
      hi = Math.max(hi, rating);
    }
  }
  if (!Number.isFinite(lo)) {
    return null;
  }
  if (hi - lo < 1) {
    hi += 1;
    lo -= 1;
  }
  const width = area.right - area.left;
  const height = area.bottom - area.top;
  return {
    lo,
    hi,
    longest,
    x: (k) => area.left + (width * k) / Math.max(longest - 1, 1),
    y: (rating) => area.bottom - (height * (rating - lo)) / (hi - lo),
  };
}

/**
 * The chart's lines: one per snake, its rating (mu - 3 sigma) after each of its
 * games, scaled into `area`.  `[{snake, color, points}]` with `points` as an SVG
 * polyline's "x,y x,y" text; empty when there is no rating yet.
 */
export function chartLines(history, area = CHART) {
  const scale = chartScale(history, area);
  if (scale === null) {
    return [];
  }
  return Object.entries(history).map(([snake, points], i) => ({
    snake,
    color: PALETTE[i % PALETTE.length],
    points: points.map((p, k) => `${scale.x(k)},${scale.y(p.mu - 3 * p.sigma)}`).join(" "),
  }));
}

/**
 * The chart's axes: ticks on x (a snake's games, 1 to the longest history) and on y
 * (ratings), each `{at, label}` with `at` in the drawing area; `null` with no rating.
 */
export function chartAxes(history, area = CHART) {
  const scale = chartScale(history, area);
  if (scale === null) {
    return null;
  }
  const games = niceTicks(1, scale.longest, 6).filter((g) => Number.isInteger(g) && g >= 1);
  if (games.length > 1 && games[0] > 1 && games[0] - 1 >= (games[1] - games[0]) / 2) {
    games.unshift(1); // the first game is marked where there is room for it
  }
  const ratings = niceTicks(scale.lo, scale.hi, 5);
  const step = ratings.length > 1 ? ratings[1] - ratings[0] : 1;
  const decimals = step < 1 ? Math.ceil(-Math.log10(step)) : 0;
  return {
    x: (games.length ? games : [1]).map((g) => ({ at: scale.x(g - 1), label: String(g) })),
    y: ratings.map((r) => ({ at: scale.y(r), label: r.toFixed(decimals) })),
  };
}

/** The legend: each snake with its line's colour, in the chart's order. */
export function legendItems(history) {
  return Object.keys(history).map((snake, i) => ({ snake, color: PALETTE[i % PALETTE.length] }));
}

function svg(tag, attributes, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, String(value));
  }
  if (text !== undefined) {
    node.textContent = text;
  }
  return node;
}

function drawChart(chart, legend, history) {
  const axes = chartAxes(history);
  const parts = [];
  if (axes !== null) {
    const { left, right, top, bottom } = CHART;
    parts.push(svg("line", { x1: left, y1: bottom, x2: right, y2: bottom, class: "axis" }));
    parts.push(svg("line", { x1: left, y1: top, x2: left, y2: bottom, class: "axis" }));
    for (const tick of axes.x) {
      parts.push(svg("line", { x1: tick.at, y1: bottom, x2: tick.at, y2: bottom + 4, class: "axis" }));
      const label = svg("text", { x: tick.at, y: bottom + 17, "text-anchor": "middle" }, tick.label);
      label.dataset.testid = "chart-x-tick";
      parts.push(label);
    }
    for (const tick of axes.y) {
      parts.push(svg("line", { x1: left, y1: tick.at, x2: right, y2: tick.at, class: "grid" }));
      const label = svg("text", { x: left - 6, y: tick.at + 4, "text-anchor": "end" }, tick.label);
      label.dataset.testid = "chart-y-tick";
      parts.push(label);
    }
    const games = svg("text", { x: right, y: 256, "text-anchor": "end" }, "games played");
    const middle = (top + bottom) / 2;
    const ratings = svg(
      "text",
      { x: 12, y: middle, "text-anchor": "middle", transform: `rotate(-90 12 ${middle})` },
      "rating (mu - 3 sigma)",
    );
    games.dataset.testid = "chart-x-title";
    ratings.dataset.testid = "chart-y-title";
    parts.push(games, ratings);
  }
  for (const { snake, color, points } of chartLines(history)) {
    const line = svg("polyline", { fill: "none", stroke: color, "stroke-width": 2, points });
    line.dataset.snake = snake;
    line.append(svg("title", {}, snake));
    parts.push(line);
  }
  chart.replaceChildren(...parts);
  legend.replaceChildren(
    ...legendItems(history).map(({ snake, color }) => {
      const item = el("li");
      item.dataset.testid = "legend-item";
      item.dataset.color = color;
      const swatch = svg("svg", { width: 14, height: 14, viewBox: "0 0 14 14", "aria-hidden": "true" });
      swatch.append(svg("rect", { width: 14, height: 14, rx: 3, fill: color }));
      item.append(swatch, document.createTextNode(` ${snake}`));
      return item;
    }),
  );
}

function button(label, testid, action) {
  const node = el("button", label, "inline");
  node.type = "button";
  node.dataset.testid = testid;
  node.addEventListener("click", action);
  return node;
}

async function snakesFor(game, admin) {
  // An admin may add anyone's snake; a user joins with their own.
  const query = new URLSearchParams({ game: game.name, ...(admin ? {} : { mine: "true" }) });
  const listed = await fetchJson(`/api/snakes?${query}`);
  if (!listed.ok) {
    throw new Error(detailText(listed.data, listed.status));
  }
  return listed.data;
}

function start() {
  const root = document.getElementById("ladder");
  const name = root.dataset.name;
  const me = root.dataset.me;
  const admin = root.dataset.admin === "yes";
  const url = `/api/ladders/${encodeURIComponent(name)}`;
  const error = document.getElementById("error");
  const joinForm = document.getElementById("join");
  const editForm = document.getElementById("edit");
  let game = null;
  let snakes = null;
  let editing = false; // the settings form is filled once, not under the admin's typing

  const report = (node, answer) => {
    node.textContent = answer.ok ? "" : detailText(answer.data, answer.status);
    return answer.ok;
  };

  const fillEdit = (data) => {
    const config = data.config;
    editForm.timeout.value = config.timeout_ms ?? "";
    editForm.max_turns.value = config.max_turns ?? "";
    const schedule = data.schedule;
    if (schedule) {
      editForm.continuous.checked = schedule.continuous;
      editForm.games_in_flight.value = schedule.games_in_flight;
      editForm.games_per_hour.value = schedule.games_per_hour;
      editForm.daily_cap.value = schedule.daily_cap ?? "";
    }
    editForm.placement_games.value = data.placement_games;
    drawParams(editForm.querySelector("[data-params]"), paramFields(game.params, config.params));
    editing = true;
  };

  const drawStandings = (data) => {
    const tbody = document.getElementById("standings");
    const head = document.getElementById("standings-head");
    const heads = standingHeads(data.scorers ?? []);
    if (head.dataset.drawn !== heads.join("|")) {
      head.dataset.drawn = heads.join("|");
      head.replaceChildren(...heads.map((text) => el("th", text)));
    }
    renderRows(tbody, data.standings.map((s) => standingRow(s, data.scorers ?? [])));
    data.standings.forEach((s, i) => {
      const cell = document.createElement("td");
      const action = entryAction(s.snake, me, admin);
      if (action !== null) {
        const path = `${url}/snakes/${encodeURIComponent(s.snake)}`;
        cell.append(
          button(action, `leave-${s.snake}`, async () => {
            if (report(error, await fetchJson(path, { method: "DELETE" }))) {
              await refresh();
            }
          }),
        );
      }
      tbody.children[i].append(cell);
    });
  };

  const drawJoin = async (data) => {
    if (snakes === null) {
      snakes = await snakesFor(game, admin);
    }
    const choices = joinChoices(game, snakes, data.standings, admin);
    const drawn = JSON.stringify(choices);
    if (drawn === joinForm.dataset.choices) {
      return; // redrawn, an open list would close under the user's pointer
    }
    joinForm.dataset.choices = drawn;
    fillSelect(joinForm.snake, choices, joinForm.snake.value);
    const none = choices.length === 0;
    joinForm.querySelector("button").disabled = none;
    document.getElementById("join-none").hidden = !none || admin;
  };

  const refresh = async () => {
    const { ok, status, data } = await fetchJson(url);
    if (!ok) {
      throw new Error(detailText(data, status));
    }
    if (game === null) {
      const catalogue = await fetchJson("/api/catalogue");
      if (!catalogue.ok) {
        throw new Error(detailText(catalogue.data, catalogue.status));
      }
      game = catalogue.data.find((g) => g.name === data.game);
    }
    document.getElementById("summary").textContent = summaryText(data);
    document.getElementById("placement").textContent = placementText(data.placement_games);
    drawStandings(data);
    renderRows(document.getElementById("games"), data.recent_games.map(recentGameRow));
    drawChart(document.getElementById("chart"), document.getElementById("legend"), data.history);
    const progress = document.getElementById("run-progress");
    document.getElementById("run-status").textContent = runText(data.run);
    progress.hidden = !data.run || data.run.games === null;
    if (data.run && data.run.games !== null) {
      progress.max = data.run.games;
      progress.value = data.run.done;
    }
    document.getElementById("schedule").textContent = scheduleText(data.schedule);
    const note = data.schedule?.continuous ? data.schedule.status : "";
    document.getElementById("schedule-status").textContent = note;
    const shown = pauseButtons(data.schedule);
    for (const which of ["pause", "resume"]) {
      const node = document.getElementById(which);
      if (node) {
        node.hidden = !shown[which];
      }
    }
    const run = document.getElementById("run");
    if (run) {
      // A continuous ladder plays on by itself: it takes no runs.
      run.disabled = data.running || Boolean(data.schedule?.continuous);
    }
    const stop = document.getElementById("stop");
    if (stop) {
      stop.hidden = !canStop(data);
    }
    if (joinForm) {
      await drawJoin(data);
    }
    if (editForm && !editing) {
      fillEdit(data);
    }
  };

  const later = (promise) =>
    promise.catch((e) => {
      error.textContent = String(e.message);
    });

  document.getElementById("run")?.addEventListener("click", async () => {
    report(error, await postJson(`${url}/run`, { games: 10 }));
    await later(refresh());
  });

  document.getElementById("stop")?.addEventListener("click", async () => {
    report(error, await postJson(`${url}/stop`));
    await later(refresh());
  });

  for (const which of ["pause", "resume"]) {
    document.getElementById(which)?.addEventListener("click", async () => {
      report(error, await postJson(`${url}/${which}`));
      await later(refresh());
    });
  }

  joinForm?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await postJson(`${url}/snakes`, { snake: joinForm.snake.value });
    if (report(joinForm.querySelector(".error"), answer)) {
      await later(refresh());
    }
  });

  editForm?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const done = editForm.querySelector(".pass");
    done.textContent = "";
    const { ok, status, data } = await fetchJson(url);
    if (!ok) {
      editForm.querySelector(".error").textContent = detailText(data, status);
      return;
    }
    const body = {
      params: changedParams(game.params, readParams(editForm.querySelector("[data-params]")), data.config.params),
    };
    const timeout = optionalNumber(editForm.timeout.value) ?? null;
    if (timeout !== data.config.timeout_ms) {
      body.timeout = timeout;
    }
    const turns = optionalNumber(editForm.max_turns.value) ?? null;
    if (turns !== data.config.max_turns) {
      body.maxTurns = turns;
    }
    if (data.schedule) {
      const typed = {
        continuous: editForm.continuous.checked,
        games_in_flight: optionalNumber(editForm.games_in_flight.value) ?? null,
        games_per_hour: optionalNumber(editForm.games_per_hour.value) ?? null,
        daily_cap: optionalNumber(editForm.daily_cap.value) ?? null,
        placement_games: optionalNumber(editForm.placement_games.value) ?? null,
      };
      const current = { ...data.schedule, placement_games: data.placement_games };
      Object.assign(body, scheduleChanges(typed, current));
    }
    const answer = await postJson(url, body, "PATCH");
    if (report(editForm.querySelector(".error"), answer)) {
      done.textContent = "Saved: the next games play with these settings.";
      fillEdit(answer.data);
    }
  });

  document.getElementById("delete")?.addEventListener("click", async () => {
    const sure = window.confirm(
      `Delete the ladder ${name} with its standings and rating history? Its games stay.`,
    );
    if (sure && report(error, await fetchJson(url, { method: "DELETE" }))) {
      window.location.assign("/ladders");
    }
  });

  poll(refresh, 1500, error);
}

if (typeof document !== "undefined") {
  start();
}
