// Halite III's form on the new-game page (templates/new_game_form.html): each seat picks
// a built-in bot (GET /api/bots?game=halite3) or one of the user's uploaded bots
// (GET /api/snakes?game=halite3&mine=true); the game is POSTed to /api/games and the
// page goes to its viewer, which follows it live.

import { detailText, fetchJson, postJson } from "../../viewer/pages/dom.js";

const GAME = "halite3";
/** The built-ins the seats start with, in seat order (where the server has them). */
const DEFAULT_BOTS = ["greedy", "random"];

/** A registered bot's reference as the directory's "Challenge" link gives it, or "". */
export function challengedRef(search) {
  const ref = new URLSearchParams(search).get("challenge") ?? "";
  return /^@[\w.-]{1,64}\/[\w.-]{1,64}$/.test(ref) ? ref : "";
}

/**
 * The choices of a seat's list: `[{label, options: [{value, text}]}]`, the built-in
 * bots first, then the user's own bots (left out when there are none), then the bot
 * the user challenges from the directory (`challenged`, when it is not theirs).
 */
export function seatChoices(builtins, mine, challenged = "") {
  const groups = [
    { label: "Built-in bots", options: builtins.map((name) => ({ value: `builtin:${name}`, text: name })) },
  ];
  const own = mine
    .filter((bot) => bot.game === GAME && !bot.paused)
    .map((bot) => ({ value: bot.ref, text: bot.name }));
  if (own.length > 0) {
    groups.push({ label: "Your bots", options: own });
  }
  if (challenged && !own.some((option) => option.value === challenged)) {
    groups.push({ label: "Challenged", options: [{ value: challenged, text: challenged }] });
  }
  return groups;
}

/**
 * What the seats start with (`[seat0, seat1, ...]` for `seats` seats): a challenge
 * puts the user's first own bot (or the default built-in) against the challenged bot;
 * otherwise the defaults in turn.
 */
export function startingSeats(builtins, mine, challenged, seats) {
  const starting = Array.from({ length: seats }, (_, seat) => defaultBot(builtins, seat));
  if (challenged) {
    const own = mine.find((bot) => bot.game === GAME && !bot.paused && bot.ref !== challenged);
    if (own) {
      starting[0] = own.ref;
    }
    starting[1] = challenged;
  }
  return starting;
}

/** The bot seat `seat` starts with: the defaults in turn, among the built-ins there are. */
export function defaultBot(builtins, seat) {
  const known = DEFAULT_BOTS.filter((name) => builtins.includes(name));
  const pool = known.length > 0 ? known : builtins;
  return pool.length > 0 ? `builtin:${pool[seat % pool.length]}` : "";
}

/**
 * The POST /api/games body from the form's values (strings, by field name): the seats
 * in play (`players` of them), a square map of `size` (0: the seed picks it), the
 * seed as the string typed (left out when empty) and the turns when given.
 */
export function buildBody(values) {
  const players = Number(values.players);
  const size = Number(values.size);
  const body = {
    game: GAME,
    snakes: Array.from({ length: players }, (_, seat) => String(values[`seat${seat}`] ?? "")),
    params: { width: size, height: size },
  };
  const seed = String(values.seed ?? "").trim();
  if (seed !== "") {
    body.seed = seed;
  }
  const turns = String(values.maxTurns ?? "").trim();
  if (turns !== "") {
    body.maxTurns = Number(turns);
  }
  return body;
}

function formValues(form) {
  return Object.fromEntries(
    [...form.elements].filter((field) => field.name).map((field) => [field.name, field.value]),
  );
}

function fillSeats(form, groups, starting) {
  form.querySelectorAll("[data-testid=halite-seat]").forEach((select, seat) => {
    const chosen = select.value || starting[seat] || "";
    select.replaceChildren(...groups.map((group) => {
      const optgroup = document.createElement("optgroup");
      optgroup.label = group.label;
      for (const { value, text } of group.options) {
        const option = document.createElement("option");
        option.value = value;
        option.textContent = text;
        optgroup.append(option);
      }
      return optgroup;
    }));
    select.value = chosen;
  });
}

async function start() {
  const form = document.getElementById("new-halite-game");
  if (!form) {
    return; // a visitor who has not logged in sees no form
  }
  const error = form.querySelector("[data-testid=halite-error]");
  const showSeats = () => {
    const players = Number(form.players.value);
    for (const label of form.querySelectorAll("[data-seat]")) {
      label.hidden = Number(label.dataset.seat) >= players;
    }
  };
  form.players.addEventListener("change", showSeats);
  showSeats();

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "starting...";
    const { ok, status, data } = await postJson("/api/games", buildBody(formValues(form)));
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.href = data.viewer;
  });

  const [bots, snakes] = await Promise.all([
    fetchJson(`/api/bots?game=${GAME}`),
    fetchJson(`/api/snakes?game=${GAME}&mine=true`),
  ]);
  if (!bots.ok) {
    error.textContent = detailText(bots.data, bots.status);
    return;
  }
  const builtins = bots.data;
  const mine = snakes.ok ? snakes.data : [];
  const challenged = challengedRef(window.location.search);
  const seats = form.querySelectorAll("[data-testid=halite-seat]").length;
  fillSeats(
    form,
    seatChoices(builtins, mine, challenged),
    startingSeats(builtins, mine, challenged, seats),
  );
  form.dataset.ready = "true";
}

if (typeof document !== "undefined") {
  start();
}
