// A tournament's page: the bracket (a column per round) and the standings from
// GET /api/tournaments/{id}, refreshed every 1.5 s until the tournament is decided.

import { detailText, el, fetchJson, poll, renderRows } from "./dom.js";

/** The line under the title: the champion, or whether games are being played. */
export function statusText(data) {
  if (data.finished) {
    return `Champion: ${data.champion}`;
  }
  return data.running ? "Playing now" : "Waiting";
}

/**
 * The bracket's columns: matches grouped by bracket and round ("winners 1",
 * "losers 2", ...), in the order the API lists them.  `[{key, matches}]`.
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
  return [...rounds].map(([key, list]) => ({ key, matches: list }));
}

/** Where a game of a match is watched: the viewer of its game, as the server says. */
export function gameUrl(game) {
  return game.viewer;
}

/**
 * A match's box: a line per entrant with its wins (`won` for who advanced),
 * whether it is a bye, and a link per game played.
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
  return node;
}

function start() {
  const tid = document.getElementById("tournament").dataset.tid;
  const refresh = async () => {
    const { ok, status, data } = await fetchJson(`/api/tournaments/${encodeURIComponent(tid)}`);
    if (!ok) {
      throw new Error(detailText(data, status));
    }
    document.getElementById("title").textContent = `${data.name} (${data.format})`;
    document.getElementById("status").textContent = statusText(data);
    document.getElementById("bracket").replaceChildren(
      ...groupRounds(data.matches).map(({ key, matches }) => {
        const column = el("div");
        column.append(el("h3", key), ...matches.map(matchElement));
        return column;
      }),
    );
    renderRows(document.getElementById("standings"), standingRows(data.standings));
    return !data.finished;
  };
  poll(refresh, 1500, document.getElementById("error"));
}

if (typeof document !== "undefined") {
  start();
}
