// A game page's list of its entrants' failures and bot logs.
//
// Each entrant that failed (a timeout, a crash, a bad command, a failed start...) is
// listed with the API's reason (`entrants[i].failure`); each seat whose log the one
// looking may read (the page says which: `data-log-seats`, the server's decision) gets a
// "Bot log" link, which shows the log in the page (the link itself is the API's JSON).
// Logs are written when a game ends, so the links come with the finished game.

import { detailText, el, fetchJson } from "./dom.js";

/** The URL of the log of seat `seat` of game `id`. */
export function logUrl(id, seat) {
  return `/api/games/${encodeURIComponent(id)}/logs/${seat}`;
}

/** The seats listed in a `data-log-seats` attribute ("0 2"), as numbers. */
export function parseSeats(text) {
  return String(text ?? "")
    .split(/\s+/)
    .filter((word) => /^\d{1,4}$/.test(word))
    .map(Number);
}

/**
 * The entrants a page lists, from an API game: those that failed, and those whose log
 * may be read (`logSeats`) once the game is over: `{seat, name, failure, log}` (`log`:
 * the log's URL, or null).
 */
export function entrantItems(game, logSeats) {
  const over = game?.status !== undefined && !["running", "starting"].includes(game.status);
  const readable = new Set(over ? logSeats : []);
  return (game?.entrants ?? [])
    .map((entrant, seat) => ({
      seat,
      name: String(entrant?.name ?? `seat ${seat}`),
      failure: String(entrant?.failure ?? ""),
      log: readable.has(seat) ? logUrl(game.id, seat) : null,
    }))
    .filter((item) => item.failure || item.log);
}

async function toggleLog(item, box) {
  if (!box.hidden) {
    box.hidden = true;
    return;
  }
  box.textContent = "Loading the log…";
  box.hidden = false;
  const { ok, status, data } = await fetchJson(item.log);
  if (ok) {
    box.textContent = data.log || "(the bot wrote nothing and the game logged nothing about it)";
  } else {
    box.textContent = detailText(data, status);
  }
}

/**
 * Draw `game`'s failures and log links in `list` (a `<ul>`); hidden when there is none.
 * Items already drawn are kept (an open log stays open while the page polls).
 */
export function renderEntrants(list, game, logSeats) {
  const items = entrantItems(game, logSeats);
  const key = JSON.stringify(items);
  if (list.dataset.drawn === key) {
    return;
  }
  list.dataset.drawn = key;
  list.replaceChildren(
    ...items.map((item) => {
      const li = el("li");
      li.dataset.testid = "entrant";
      li.dataset.seat = String(item.seat);
      li.append(el("strong", item.name));
      if (item.failure) {
        const failure = el("span", item.failure, "error");
        failure.dataset.testid = "entrant-failure";
        li.append(" ", failure);
      }
      if (item.log) {
        const link = el("a", "Bot log");
        link.href = item.log;
        link.dataset.testid = "bot-log-link";
        const box = el("pre", undefined, "bot-log");
        box.dataset.testid = "bot-log";
        box.hidden = true;
        link.addEventListener("click", (event) => {
          event.preventDefault();
          toggleLog(item, box);
        });
        li.append(" ", link, box);
      }
      return li;
    }),
  );
  list.hidden = items.length === 0;
}
