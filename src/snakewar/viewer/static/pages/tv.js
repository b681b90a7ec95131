// TV mode: the live games one after the other, each for a few seconds, full screen, with
// a scoreboard beside the board (its entrants, its turn; a ladder's or a tournament's
// standings when the page is filtered by one).  For an event's big screen: nothing to click.
//
// The list of live games is read every second (`GET /api/games`: live games first); the
// board is the game's embed (`/embed/{id}`), which follows it live.

import { el, fetchJson } from "./dom.js";

const REFRESH_MS = 1000;
const STANDINGS_MS = 10_000;

/** The live games that the filters keep (`{ladder, tournament, game}`), in id order. */
export function selectGames(live, filters) {
  return (live ?? [])
    .filter((g) => ["running", "starting"].includes(g.status))
    .filter((g) => !filters.ladder || g.source === `ladder:${filters.ladder}`)
    .filter((g) => !filters.tournament || g.source === `tournament:${filters.tournament}`)
    .filter((g) => !filters.game || g.game === filters.game)
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** The game to show after `currentId` among `games` (the first after the end), or null. */
export function nextGame(games, currentId) {
  if (games.length === 0) {
    return null;
  }
  const at = games.findIndex((g) => g.id === currentId);
  return games[(at + 1) % games.length] ?? games[0];
}

/** The scoreboard's lines for a game: name, colour and how it fares, by seat. */
export function scoreLines(game) {
  return (game?.entrants ?? []).map((e, seat) => {
    let note = "";
    if (e.failure) {
      note = "out";
    } else if (game.winner && game.winner === e.name) {
      note = "winner";
    }
    return { seat, name: e.name, color: e.color || "", note };
  });
}

/** A ladder's or a tournament's standings as TV mode lists them (the first ten). */
export function standingLines(data) {
  return (data?.standings ?? []).slice(0, 10).map((s) => {
    if ("snake" in s) {
      return `${s.snake} ${s.rating === null ? "unrated" : s.rating.toFixed(1)}`;
    }
    return `${s.entrant} ${s.points} pt${s.points === 1 ? "" : "s"}`;
  });
}

function start() {
  const root = document.getElementById("tv");
  if (!root) {
    return;
  }
  const filters = {
    ladder: root.dataset.ladder || "",
    tournament: root.dataset.tournament || "",
    game: root.dataset.game || "",
  };
  const dwellMs = Number(root.dataset.dwell) * 1000;
  const board = document.getElementById("tv-board");
  const title = document.getElementById("tv-title");
  const status = document.getElementById("tv-status");
  const entrants = document.getElementById("tv-entrants");
  const open = document.getElementById("tv-open");
  const next = document.getElementById("tv-next");
  const error = document.getElementById("error");
  let current = null; // the game shown (its last known state)
  let shownAt = 0;

  function show(game) {
    current = game;
    shownAt = Date.now();
    board.src = `/embed/${encodeURIComponent(game.id)}`;
    board.hidden = false;
    board.dataset.gameId = game.id;
    root.dataset.showing = game.id;
    open.href = game.viewer;
    open.hidden = false;
  }

  function drawScoreboard(games) {
    if (!current) {
      title.textContent = "Live games";
      status.textContent = "No live games right now: the next one shows here when it starts.";
      entrants.replaceChildren();
      next.textContent = "";
      return;
    }
    title.textContent = current.title || current.game;
    const live = ["running", "starting"].includes(current.status);
    status.textContent = live ? `Turn ${current.turn}` : `Over at turn ${current.turn}`;
    entrants.replaceChildren(
      ...scoreLines(current).map((line) => {
        const item = el("li", null, line.note);
        item.dataset.testid = "tv-entrant";
        const swatch = el("span", null, "swatch");
        swatch.dataset.color = line.color;
        item.append(swatch, el("span", line.name), el("span", line.note, "muted"));
        return item;
      }),
    );
    for (const swatch of entrants.querySelectorAll(".swatch")) {
      if (/^#[0-9a-fA-F]{6}$/.test(swatch.dataset.color)) {
        swatch.style.background = swatch.dataset.color; // CSSOM: allowed by the CSP
      }
    }
    const others = games.filter((g) => g.id !== current.id).length;
    const left = Math.max(0, Math.ceil((shownAt + dwellMs - Date.now()) / 1000));
    next.textContent = others ? `Next game in ${left} s (${games.length} live)` : "";
  }

  async function refresh() {
    const { ok, status: code, data } = await fetchJson("/api/games?limit=1");
    if (!ok) {
      error.textContent = `Could not read the live games (${code}); trying again.`;
      return;
    }
    error.textContent = "";
    const games = selectGames(data.live, filters);
    const fresh = current && (data.live ?? []).find((g) => g.id === current.id);
    if (fresh) {
      current = fresh;
    } else if (current && ["running", "starting"].includes(current.status)) {
      // Gone from the live list: it finished (it stays on screen until its time is up).
      current = { ...current, status: "complete" };
    }
    if (!current || Date.now() - shownAt >= dwellMs) {
      const chosen = nextGame(games, current?.id);
      if (chosen && chosen.id !== current?.id) {
        show(chosen);
      } else if (!chosen && current && !["running", "starting"].includes(current.status)) {
        shownAt = Date.now(); // nothing else live: keep the last game on screen
      }
    }
    drawScoreboard(games);
  }

  async function standings() {
    const list = document.getElementById("tv-standings");
    const heading = document.getElementById("tv-standings-title");
    const path = filters.ladder
      ? `/api/ladders/${encodeURIComponent(filters.ladder)}`
      : `/api/tournaments/${encodeURIComponent(filters.tournament)}`;
    const { ok, data } = await fetchJson(path);
    if (!ok) {
      return;
    }
    heading.hidden = false;
    heading.textContent = `${data.name}: standings`;
    list.hidden = false;
    list.replaceChildren(...standingLines(data).map((line) => el("li", line)));
  }

  const tick = async () => {
    try {
      await refresh();
    } catch (failure) {
      error.textContent = String(failure?.message ?? failure);
    }
    setTimeout(tick, REFRESH_MS);
  };
  tick();
  if (filters.ladder || filters.tournament) {
    const again = async () => {
      try {
        await standings();
      } finally {
        setTimeout(again, STANDINGS_MS);
      }
    };
    again();
  }
  document.getElementById("tv-fullscreen").addEventListener("click", () => {
    document.documentElement.requestFullscreen?.().catch(() => {});
  });
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
