// A game page's Export menu (every game whose adapter draws its replays): the game as
// an animated GIF, an MP4 video, a PNG or an SVG of the turn the board shows, or a
// self-contained HTML replay, drawn by the server as the board draws it
// (GET /api/games/{id}/media, as `snakewar export` does) and downloaded.
//
// The turn follows the board (its "boardturn" events on the frame's element, or its TURN
// messages); until the board tells one, a picture is of the game's last turn.  The width
// (empty: the game's own), the speed of a GIF or video, the scoreboard, and the viewer's
// theme and palette (those the game's pictures have: the menu's data-themes and
// data-palettes) are options; the server checks them, and its answer to a bad one (422,
// naming the field) is shown in the menu instead of being downloaded as a file.

import { detailText, el } from "./dom.js";

/** The formats, in the menu's order: [format, label, a picture of one turn]. */
export const FORMATS = [
  ["gif", "Animated GIF", false],
  ["mp4", "MP4 video", false],
  ["png", "PNG", true],
  ["svg", "SVG", true],
  ["html", "HTML replay (offline)", false],
];

/**
 * The media route's URL for game `id` as `format`; `options`: `turn` (a picture's turn,
 * null: the last), `size` (pixels, null: the game's default), `fps`, `scoreboard`,
 * `theme` and `palette` (names; empty: the game's default).  The HTML replay has the
 * viewer's own switches, so it takes none of them.
 */
export function mediaUrl(id, format, options = {}) {
  const query = new URLSearchParams({ format });
  const picture = FORMATS.some(([f, , one]) => f === format && one);
  if (picture && Number.isInteger(options.turn) && options.turn >= 0) {
    query.set("turn", String(options.turn));
  }
  if (format !== "html") {
    if (Number.isInteger(options.size)) {
      query.set("size", String(options.size));
    }
    if (options.scoreboard === false) {
      query.set("scoreboard", "false");
    }
    for (const key of ["theme", "palette"]) {
      if (isName(options[key])) {
        query.set(key, options[key]);
      }
    }
  }
  if ((format === "gif" || format === "mp4") && Number.isInteger(options.fps)) {
    query.set("fps", String(options.fps));
  }
  return `/api/games/${encodeURIComponent(id)}/media?${query}`;
}

/** Whether `text` is a theme's or a palette's name (the server checks it is the game's). */
export function isName(text) {
  return typeof text === "string" && /^[a-z0-9-]{1,32}$/.test(text);
}

/** The names a data attribute lists (space-separated), the game's default first. */
export function names(text) {
  return String(text ?? "").split(/\s+/).filter(isName);
}

/** The file name of a download: the answer's Content-Disposition, else `fallback`. */
export function fileName(disposition, fallback) {
  const found = /filename="([^"\\/]+)"/.exec(String(disposition ?? ""));
  return found ? found[1] : fallback;
}

/** A whole number typed in an option field, or null when it is empty or no number. */
export function readNumber(text) {
  const trimmed = String(text ?? "").trim();
  return /^\d{1,6}$/.test(trimmed) ? Number(trimmed) : null;
}

/** A menu entry's label: a picture names the turn it shows. */
export function entryLabel(label, picture, turn) {
  if (!picture) {
    return label;
  }
  return Number.isInteger(turn) ? `${label} of turn ${turn}` : `${label} of the last turn`;
}

function field(label, input) {
  const wrap = el("label", null, "export-option");
  wrap.append(`${label} `, input);
  return wrap;
}

function start() {
  const menu = document.getElementById("export-menu");
  if (!menu) {
    return;
  }
  const id = menu.dataset.gameId;
  const state = { turn: null, busy: false };

  const size = el("input");
  Object.assign(size, { type: "number", min: "64", max: "1280", step: "1", placeholder: "auto" });
  size.dataset.testid = "export-size";
  const fps = el("input");
  Object.assign(fps, { type: "number", min: "1", max: "60", step: "1", value: "10" });
  fps.dataset.testid = "export-fps";
  const scoreboard = el("input");
  Object.assign(scoreboard, { type: "checkbox", checked: true });
  scoreboard.dataset.testid = "export-scoreboard";
  // A choice of the game's themes and palettes, where it has more than one.
  const choices = {};
  for (const [key, label] of [["theme", "Theme"], ["palette", "Colours"]]) {
    const listed = names(menu.dataset[`${key}s`]);
    if (listed.length > 1) {
      const select = el("select");
      select.dataset.testid = `export-${key}`;
      select.append(...listed.map((name) => Object.assign(el("option", name), { value: name })));
      choices[key] = { select, label, first: listed[0] };
    }
  }
  const status = el("span", null, "export-state");
  status.setAttribute("role", "status");
  status.dataset.testid = "export-state";

  const links = FORMATS.map(([format, label, picture]) => {
    const link = el("a", entryLabel(label, picture, null));
    link.dataset.testid = `export-${format}`;
    link.dataset.format = format;
    link.setAttribute("download", "");
    link.addEventListener("click", (event) => {
      event.preventDefault();
      download(link, format).catch((err) => {
        status.textContent = `Export failed: ${err.message}`;
      });
    });
    return { link, format, label, picture };
  });

  function options() {
    return {
      turn: state.turn,
      size: readNumber(size.value),
      fps: readNumber(fps.value),
      scoreboard: scoreboard.checked,
      // The default is left out: the URL is the server's default one.
      ...Object.fromEntries(
        Object.entries(choices).map(([key, { select, first }]) => [
          key,
          select.value === first ? "" : select.value,
        ]),
      ),
    };
  }

  function update() {
    for (const { link, format, label, picture } of links) {
      link.href = mediaUrl(id, format, options());
      link.textContent = entryLabel(label, picture, state.turn);
    }
  }

  async function download(link, format) {
    if (state.busy) {
      return;
    }
    state.busy = true;
    status.textContent = `Making the ${format.toUpperCase()}…`;
    try {
      const response = await fetch(link.href);
      if (!response.ok) {
        let data = null;
        try {
          data = await response.json();
        } catch {
          data = null;
        }
        status.textContent = `Export failed: ${detailText(data, response.status)}`;
        return;
      }
      const blob = await response.blob();
      const url = URL.createObjectURL(blob);
      const save = el("a");
      save.href = url;
      save.download = fileName(response.headers.get("Content-Disposition"), `${id}.${format}`);
      document.body.append(save);
      save.click();
      save.remove();
      // The download has its own copy once started; the URL can go a little later.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      status.textContent = `Downloaded ${save.download}`;
    } finally {
      state.busy = false;
    }
  }

  function boardTurn(turn) {
    if (Number.isInteger(turn) && turn >= 0 && turn !== state.turn) {
      state.turn = turn;
      update();
    }
  }

  const list = el("span", null, "export-links");
  list.append(...links.map(({ link }) => link));
  const settings = el("span", null, "export-options");
  settings.append(
    field("Width", size),
    field("Frames/s", fps),
    field("Scoreboard", scoreboard),
    ...Object.values(choices).map(({ select, label }) => field(label, select)),
  );
  menu.append(list, settings, status);
  for (const input of [size, fps, scoreboard, ...Object.values(choices).map((c) => c.select)]) {
    input.addEventListener("input", update);
    input.addEventListener("change", update);
  }
  const board = document.querySelector("iframe[data-board]");
  board?.addEventListener("boardturn", (event) => boardTurn(Number(event.detail?.turn)));
  window.addEventListener("message", (event) => {
    if (event.source === board?.contentWindow && event.data?.event === "TURN") {
      boardTurn(Number(event.data?.data?.turn));
    }
  });
  update();
}

if (typeof document !== "undefined") {
  start();
}
