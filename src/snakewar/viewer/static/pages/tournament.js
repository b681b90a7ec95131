// A tournament's page: the bracket (a column per round), each match's games and its
// game being played now (to watch live), and the standings, from
// GET /api/tournaments/{id}, refreshed every 1.5 s until the tournament is decided.
// Admins start it (or play a stopped run on), stop a run (POST .../stop: its games in
// flight are cancelled), and before it starts rename it and change its entrants (PATCH).

import { entrantChoices, fillSelect, formatName } from "./club.js";
import { detailText, el, fetchJson, poll, postJson, renderRows } from "./dom.js";

/** The line under the title: the champion, or whether games are being played. */
export function statusText(data) {
  if (data.finished) {
    return `Champion: ${data.champion}`;
  }
  if (data.running) {
    const played = data.run ? ` (${data.run.done} games played)` : "";
    return data.run?.state === "stopping" ? `Stopping${played}` : `Playing now${played}`;
  }
  if (data.started === false) {
    return "Not started";
  }
  if (data.run?.state === "stopped") {
    return "Stopped by an admin";
  }
  if (data.run?.state === "interrupted") {
    return `Interrupted: ${data.run.error}`;
  }
  if (data.run?.error) {
    return `Stopped: ${data.run.error}`;
  }
  return "Waiting to be played on";
}

/** Whether the stop button shows: a run plays it, and nobody asked it to stop yet. */
export function canStop(data) {
  return Boolean(data.running) && data.run?.state !== "stopping";
}

/** The start button's label, or `null` when there is nothing to start. */
export function startLabel(data) {
  if (data.finished || data.running) {
    return null;
  }
  return data.started === false ? "Start the tournament" : "Play it on";
}

/** The line under the title: format (by its name, never its id), game and entrants. */
export function aboutText(data) {
  const format = data.format_title || formatName(data.format);
  return `${format} · ${data.config.game} · ${data.snakes.length} snakes`;
}

/**
 * The bracket's columns: matches grouped by bracket and round ("winners 1",
 * "losers 2", ...), in the order the API lists them.  `[{key, title, matches}]`,
 * `title` the round's name for people ("Winners round 1", "Grand final").
 */
export function groupRounds(matches) {
  const rounds = new Map();
  for (const match of matches) {
    const key = `${match.bracket} ${match.round}`;
    if (!rounds.has(key)) {
      rounds.set(key, []);
    }
    rounds.get(key).push(match);
  }
  return [...rounds].map(([key, list]) => ({ key, title: String(list[0].round), matches: list }));
}

/** Where a game of a match is watched: the viewer of its game, as the server says. */
export function gameUrl(game) {
  return game.viewer;
}

/**
 * A match's box: a line per entrant with its wins (`won` for who advanced),
 * whether it is a bye, a link per game played, and its game being played now.
 */
export function matchBox(match) {
  const advanced = match.advanced ?? [];
  return {
    lines: match.entrants.map((name) => ({
      text: `${name ?? "?"} ${match.wins?.[name] ?? ""}`.trim(),
      won: name !== null && advanced.includes(name),
    })),
    bye: match.status === "bye",
    games: (match.games ?? []).map((game, i) => ({ text: `game ${i + 1}`, href: gameUrl(game) })),
    live: match.playing ? { text: "watch live", href: match.playing.viewer } : null,
  };
}

/** The standings rows: place and entrant. */
export function standingRows(standings) {
  return standings.map((s) => ({ cells: [s.place, s.entrant] }));
}

function matchElement(match) {
  const box = matchBox(match);
  const node = el("div", undefined, "match");
  node.dataset.testid = "match";
  for (const line of box.lines) {
    node.append(el("div", line.text, line.won ? "pass" : ""));
  }
  if (box.bye) {
    node.append(el("div", "bye", "muted"));
  }
  for (const game of box.games) {
    const a = el("a", game.text);
    a.href = game.href;
    node.append(a, document.createTextNode(" "));
  }
  if (box.live) {
    const a = el("a", box.live.text, "live");
    a.href = box.live.href;
    a.dataset.testid = "watch-live";
    node.append(a);
  }
  return node;
}

function start() {
  const root = document.getElementById("tournament");
  const tid = root.dataset.tid;
  const admin = root.dataset.admin === "yes";
  const url = `/api/tournaments/${encodeURIComponent(tid)}`;
  const error = document.getElementById("error");
  const editing = document.getElementById("edit");
  let choices = null;

  const patch = async (body) => {
    const node = editing.querySelector(".error");
    const answer = await postJson(url, body, "PATCH");
    node.textContent = answer.ok ? "" : detailText(answer.data, answer.status);
    if (answer.ok) {
      await refresh();
    }
    return answer.ok;
  };

  const drawEdit = async (data) => {
    editing.hidden = data.started !== false;
    if (editing.hidden) {
      return;
    }
    document.getElementById("rename").elements.name.placeholder = data.name;
    const rows = document.getElementById("entrants");
    rows.replaceChildren(
      ...data.snakes.map((snake, i) => {
        const tr = document.createElement("tr");
        tr.append(el("td", String(i + 1)), el("td", snake.name));
        const remove = el("button", "Remove", "inline");
        remove.type = "button";
        remove.dataset.testid = `remove-${snake.name}`;
        remove.addEventListener("click", () => patch({ remove: [snake.name] }));
        const cell = document.createElement("td");
        cell.append(remove);
        tr.append(cell);
        return tr;
      }),
    );
    if (choices === null) {
      const [catalogue, snakes] = await Promise.all([
        fetchJson("/api/catalogue"),
        fetchJson(`/api/snakes?game=${encodeURIComponent(data.config.game)}`),
      ]);
      if (!catalogue.ok || !snakes.ok) {
        const failed = catalogue.ok ? snakes : catalogue;
        throw new Error(detailText(failed.data, failed.status));
      }
      const game = catalogue.data.find((g) => g.name === data.config.game);
      const offered = entrantChoices(game, snakes.data);
      fillSelect(document.getElementById("add-entrant").elements.snake, offered);
      choices = offered;
    }
  };

  const refresh = async () => {
    const { ok, status, data } = await fetchJson(url);
    if (!ok) {
      throw new Error(detailText(data, status));
    }
    document.getElementById("title").textContent = data.name;
    document.getElementById("about").textContent = aboutText(data);
    document.getElementById("status").textContent = statusText(data);
    const startButton = document.getElementById("start");
    if (startButton) {
      const label = startLabel(data);
      startButton.hidden = label === null;
      startButton.textContent = label ?? "";
    }
    const stopButton = document.getElementById("stop");
    if (stopButton) {
      stopButton.hidden = !canStop(data);
    }
    if (admin && editing) {
      await drawEdit(data);
    }
    document.getElementById("bracket").replaceChildren(
      ...groupRounds(data.matches).map(({ title, matches }) => {
        const column = el("div");
        column.append(el("h3", title), ...matches.map(matchElement));
        return column;
      }),
    );
    renderRows(document.getElementById("standings"), standingRows(data.standings));
    // A tournament nobody started yet may be started from another browser: keep looking.
    return !data.finished || data.running;
  };

  document.getElementById("start")?.addEventListener("click", async () => {
    const answer = await postJson(`${url}/run`);
    error.textContent = answer.ok ? "" : detailText(answer.data, answer.status);
    await refresh().catch((e) => {
      error.textContent = String(e.message);
    });
  });
  document.getElementById("stop")?.addEventListener("click", async () => {
    const answer = await postJson(`${url}/stop`);
    error.textContent = answer.ok ? "" : detailText(answer.data, answer.status);
    await refresh().catch((e) => {
      error.textContent = String(e.message);
    });
  });
  document.getElementById("rename")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const field = event.target.elements.name;
    if (await patch({ name: field.value.trim() })) {
      field.value = "";
    }
  });
  document.getElementById("add-entrant")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    await patch({ add: [event.target.elements.snake.value] });
  });
  poll(refresh, 1500, error);
}

if (typeof document !== "undefined") {
  start();
}
