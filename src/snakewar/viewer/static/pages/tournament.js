// A tournament's page: who may enter it and when it plays, its entrants, the bracket
// (a column per round), each match's games and its game being played now (to watch
// live), and the standings, from GET /api/tournaments/{id}, refreshed every 1.5 s
// until the tournament is decided.  Users enter their own snakes while registration
// lets them (POST .../entrants) and withdraw them (DELETE) before it starts.  Admins
// start it (or play a stopped run on), run the next round (POST .../round), stop a run
// (POST .../stop: its games in flight are cancelled), and before it starts rename it,
// change its entrants and settings (PATCH) and qualify entrants from a ladder
// (POST .../qualify).

import { entrantChoices, fillSelect, formatName, optionalNumber, shortTime } from "./club.js";
import { detailText, el, fetchJson, poll, postJson, renderRows } from "./dom.js";

const MODES = {
  closed: "Entries: by its admins",
  open: "Entries: open to every user",
  owner: "Entries: its creator's and admins' snakes",
};

/**
 * The line about entering and scheduling: who enters and until when, the caps, the
 * ladder it qualified from, and when the scheduler starts it or plays its next round.
 */
export function entryText(data, at = shortTime) {
  const parts = [];
  const reg = data.registration;
  if (reg && !data.started) {
    parts.push(reg.open ? "Taking entries now" : MODES[reg.mode] ?? reg.mode);
    if (reg.mode !== "closed" && reg.closes_at) {
      parts.push(`${reg.open ? "closing" : "closed"} ${at(reg.closes_at)}`);
    }
  }
  if (reg?.max_entrants) {
    parts.push(`at most ${reg.max_entrants} snakes`);
  }
  if (reg?.per_owner) {
    parts.push(`at most ${reg.per_owner} per owner`);
  }
  if (data.qualifier) {
    const cap = data.qualifier.per_owner ? `, at most ${data.qualifier.per_owner} per owner` : "";
    parts.push(`qualified: top ${data.qualifier.top} of ladder ${data.qualifier.ladder}${cap}`);
  }
  if (data.starts_at && !data.started) {
    parts.push(`starts ${at(data.starts_at)}`);
  } else if (data.next_round_at && !data.finished) {
    parts.push(`next round ${at(data.next_round_at)}`);
  }
  return parts.join(" · ");
}

/** The next-round button's label, or `null` when there is no round to run now. */
export function roundLabel(data) {
  if (data.finished || data.running || !data.next_round || data.snakes.length < 2) {
    return null;
  }
  return `Run the next round: ${data.next_round.name}`;
}

/**
 * What the requester may enter: their own snakes of the game (an admin: any, and the
 * built-ins) that are not entered yet.  `[{value, label}]`.
 */
export function registerChoices(game, snakes, data, admin) {
  const entered = new Set(data.snakes.map((s) => s.name));
  return entrantChoices(game, snakes)
    .filter((c) => admin || c.value.startsWith("@"))
    .filter((c) => !entered.has(c.value) && !entered.has(c.value.replace(/^builtin:/, "")));
}

/** Whether the requester may enter snakes now (before it starts, registration allowing). */
export function mayRegister(data, admin) {
  if (data.started || data.running) {
    return false;
  }
  return admin || Boolean(data.registration?.open);
}

/** Whether `name` may be withdrawn by the requester (`me`): theirs, before it starts. */
export function canWithdraw(name, data, me, admin) {
  if (data.started || data.running || admin) {
    return false; // admins remove entrants in the edit section
  }
  return Boolean(me) && String(name).startsWith(`@${me}/`);
}

/** An ISO time as a `datetime-local` field shows it (local time), or "". */
export function localTime(iso) {
  if (!iso) {
    return "";
  }
  const when = new Date(iso);
  const pad = (n) => String(n).padStart(2, "0");
  return (
    `${when.getFullYear()}-${pad(when.getMonth() + 1)}-${pad(when.getDate())}` +
    `T${pad(when.getHours())}:${pad(when.getMinutes())}`
  );
}

/** The PATCH body of the settings form: every setting, an empty field clearing it. */
export function settingsBody(values) {
  const time = (text) => {
    const trimmed = String(text ?? "").trim();
    return trimmed === "" ? null : new Date(trimmed).toISOString();
  };
  return {
    registration: values.registration,
    registration_closes_at: time(values.closes_at),
    max_entrants: optionalNumber(values.max_entrants) ?? null,
    per_owner: optionalNumber(values.per_owner) ?? null,
    starts_at: time(values.starts_at),
    round_gap_s: optionalNumber(values.round_gap_s) ?? 0,
  };
}

/** The POST .../qualify body of the qualify form. */
export function qualifyBody(values) {
  const body = { ladder: values.ladder, top: Number(values.top) };
  const cap = optionalNumber(values.per_owner);
  if (cap !== undefined) {
    body.per_owner = cap;
  }
  return body;
}

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
  const me = root.dataset.me;
  const url = `/api/tournaments/${encodeURIComponent(tid)}`;
  const error = document.getElementById("error");
  const editing = document.getElementById("edit");
  const registering = document.getElementById("register");
  let choices = null;
  let mine = null;
  let settingsDrawn = false;
  let laddersDrawn = false;

  const report = (node, answer) => {
    node.textContent = answer.ok ? "" : detailText(answer.data, answer.status);
    return answer.ok;
  };

  const drawEntrants = (data) => {
    const rows = document.getElementById("entrant-list");
    if (data.snakes.length === 0) {
      const tr = document.createElement("tr");
      tr.append(el("td", "No entrants yet.", "muted"));
      rows.replaceChildren(tr);
      return;
    }
    rows.replaceChildren(
      ...data.snakes.map((snake, i) => {
        const tr = document.createElement("tr");
        tr.dataset.testid = "entrant-row";
        tr.append(el("td", String(i + 1)), el("td", snake.name));
        const cell = document.createElement("td");
        if (canWithdraw(snake.name, data, me, admin)) {
          const button = el("button", "Withdraw", "inline");
          button.type = "button";
          button.dataset.testid = `withdraw-${snake.name}`;
          button.addEventListener("click", async () => {
            const path = `${url}/entrants/${snake.name.split("/").map(encodeURIComponent).join("/")}`;
            const answer = await fetchJson(path, { method: "DELETE" });
            report(error, answer);
            await refresh();
          });
          cell.append(button);
        }
        tr.append(cell);
        return tr;
      }),
    );
  };

  const drawRegister = async (data) => {
    if (!registering) {
      return;
    }
    registering.hidden = !mayRegister(data, admin);
    if (registering.hidden) {
      return;
    }
    if (mine === null) {
      const query = new URLSearchParams({ game: data.config.game, ...(admin ? {} : { mine: "true" }) });
      const [catalogue, snakes] = await Promise.all([
        fetchJson("/api/catalogue"),
        fetchJson(`/api/snakes?${query}`),
      ]);
      if (!catalogue.ok || !snakes.ok) {
        const failed = catalogue.ok ? snakes : catalogue;
        throw new Error(detailText(failed.data, failed.status));
      }
      mine = { game: catalogue.data.find((g) => g.name === data.config.game), snakes: snakes.data };
    }
    const offered = registerChoices(mine.game, mine.snakes, data, admin);
    const drawn = JSON.stringify(offered);
    if (drawn !== registering.dataset.choices) {
      registering.dataset.choices = drawn;
      fillSelect(registering.elements.snake, offered, registering.elements.snake.value);
    }
    registering.querySelector("button").disabled = offered.length === 0;
    document.getElementById("register-none").hidden = offered.length > 0 || admin;
  };

  const drawSettings = async (data) => {
    const form = document.getElementById("settings");
    if (!settingsDrawn) {
      settingsDrawn = true;
      const reg = data.registration ?? {};
      form.elements.registration.value = reg.mode ?? "closed";
      form.elements.closes_at.value = localTime(reg.closes_at);
      form.elements.max_entrants.value = reg.max_entrants ?? "";
      form.elements.per_owner.value = reg.per_owner ?? "";
      form.elements.starts_at.value = localTime(data.starts_at);
      form.elements.round_gap_s.value = data.round_gap_s ?? 0;
    }
    if (!laddersDrawn) {
      laddersDrawn = true;
      const ladders = await fetchJson("/api/ladders");
      if (ladders.ok) {
        const same = ladders.data.filter((l) => l.game === data.config.game).map((l) => l.name);
        fillSelect(document.getElementById("qualify").elements.ladder, same);
      }
    }
  };

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
    const roundButton = document.getElementById("round");
    if (roundButton) {
      const label = roundLabel(data);
      roundButton.hidden = label === null;
      roundButton.textContent = label ?? "";
    }
    document.getElementById("entry-info").textContent = entryText(data);
    drawEntrants(data);
    await drawRegister(data);
    if (admin && editing) {
      await drawEdit(data);
      if (!editing.hidden) {
        await drawSettings(data);
      }
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
  document.getElementById("round")?.addEventListener("click", async () => {
    const answer = await postJson(`${url}/round`);
    report(error, answer);
    await refresh().catch((e) => {
      error.textContent = String(e.message);
    });
  });
  registering?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const answer = await postJson(`${url}/entrants`, { snake: registering.elements.snake.value });
    if (report(registering.querySelector(".error"), answer)) {
      await refresh();
    }
  });
  document.getElementById("settings")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const values = Object.fromEntries(new FormData(form).entries());
    const answer = await postJson(url, settingsBody(values), "PATCH");
    if (report(form.querySelector(".error"), answer)) {
      await refresh();
    }
  });
  document.getElementById("qualify")?.addEventListener("submit", async (event) => {
    event.preventDefault();
    const form = event.target;
    const values = Object.fromEntries(new FormData(form).entries());
    const answer = await postJson(`${url}/qualify`, qualifyBody(values));
    if (report(form.querySelector(".error"), answer)) {
      await refresh();
    }
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
