// The admin dashboard: GET /api/admin/dashboard every few seconds, drawn as tables.
// It changes nothing: every link leads to a page of its own.

import { shortTime } from "./club.js";
import { fetchJson, detailText, poll, renderRows } from "./dom.js";
import { sizeText } from "./admin_users.js";

const EVERY_MS = 5000;

/** Stored games by status: one row each, in the API's order. */
export function statusRows(byStatus) {
  return Object.entries(byStatus).map(([status, count]) => ({
    cells: [status, String(count)],
    testid: `status-${status}`,
  }));
}

/** This replica's workers and queues, one row each. */
export function workerRows(data) {
  const { live, queue, scheduler } = data;
  return [
    { cells: ["Runner", live.runner], testid: "runner" },
    { cells: ["Games playing", `${live.running} of ${live.max_concurrent}`], testid: "running" },
    { cells: ["Paused games", String(live.paused)], testid: "paused" },
    {
      cells: ["Built-in bot workers in use", `${live.builtin_workers_in_use} of ${live.builtin_workers}`],
      testid: "builtin-workers",
    },
    {
      cells: ["Ladder and tournament runs", `${live.arena_runs} of ${live.max_arena_runs} (${live.arena_workers} at once)`],
      testid: "arena-runs",
    },
    { cells: ["Games waiting for workers", String(queue.builtin_workers)], testid: "queue-builtin" },
    { cells: ["Runs waiting for a thread", String(queue.arena_runs_waiting)], testid: "queue-runs" },
    {
      cells: [
        "Ladder scheduler",
        scheduler.holder == null ? "nobody now" : `${scheduler.holder}${scheduler.here ? " (this replica)" : ""}`,
      ],
      testid: "scheduler",
    },
  ];
}

/** The failed games, newest first, each a link to its page. */
export function failedRows(games) {
  return games.map((g) => ({
    cells: [shortTime(g.at), g.game, { text: g.title || g.id, href: `/view/${encodeURIComponent(g.id)}` }, g.reason],
    testid: `failed-${g.id}`,
  }));
}

/** The bot errors: the first line of each seat's log. */
export function botErrorRows(errors) {
  return errors.map((e) => ({
    cells: [shortTime(e.at), { text: e.game, href: `/view/${encodeURIComponent(e.game_id)}` }, String(e.seat), e.text],
    testid: `bot-error-${e.game_id}-${e.seat}`,
  }));
}

/** The newest accounts. */
export function signUpRows(users) {
  return users.map((u) => ({
    cells: [u.name, u.role, shortTime(u.created_at), u.disabled ? "disabled" : "active"],
    testid: `signup-${u.name}`,
  }));
}

/** The outbox by state, and the space the database takes. */
export function spaceRows(data) {
  const { disk, notifications } = data;
  const outbox = Object.entries(notifications)
    .map(([state, count]) => `${count} ${state}`)
    .join(", ");
  return [
    { cells: ["Notifications", outbox], testid: "outbox" },
    {
      cells: [`Database (${disk.database})`, disk.database_bytes == null ? "in memory" : sizeText(disk.database_bytes)],
      testid: "database-size",
    },
    { cells: ["Replay files", sizeText(disk.replay_bytes)], testid: "replay-size" },
    { cells: ["Bot archives", sizeText(disk.archive_bytes)], testid: "archive-size" },
    { cells: ["Stored games / frames", `${disk.games} / ${disk.frames}`], testid: "stored-counts" },
  ];
}

function start() {
  const root = document.getElementById("dashboard");
  if (!root) {
    return; // not an admin: the page says so
  }
  const error = document.getElementById("error");
  const draw = (data) => {
    document.getElementById("replica").textContent = `replica ${data.replica.slice(0, 12)}`;
    renderRows(document.getElementById("games"), statusRows(data.games_by_status));
    renderRows(document.getElementById("workers"), workerRows(data));
    renderRows(document.getElementById("failed"), failedRows(data.failed_games));
    renderRows(document.getElementById("bot-errors"), botErrorRows(data.bot_errors));
    renderRows(document.getElementById("signups"), signUpRows(data.sign_ups));
    renderRows(document.getElementById("space"), spaceRows(data));
    root.dataset.loaded = "true";
  };
  poll(
    async () => {
      const { ok, status, data } = await fetchJson("/api/admin/dashboard");
      if (!ok) {
        throw new Error(detailText(data, status));
      }
      draw(data);
      return true;
    },
    EVERY_MS,
    error,
  );
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
