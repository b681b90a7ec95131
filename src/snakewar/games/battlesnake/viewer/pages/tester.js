// The snake tester: POST /api/test/stream, then a row per check and per scenario as
// they complete, a progress line, and the board of each failing position.

import { csrfToken, detailText, el, renderRows, withCsrf } from "../../viewer/pages/dom.js";

/** PASS, FAIL or (a strategy scenario missed: no failure) MISS, with its class. */
function verdict(passed, kind = "survival") {
  if (passed) {
    return { text: "PASS", cls: "pass" };
  }
  return kind === "strategy" ? { text: "MISS", cls: "miss" } : { text: "FAIL", cls: "fail" };
}

/** The rows of a (partial) tester report: the checks first, then the scenarios. */
export function resultRows(report) {
  const rows = [];
  for (const check of report.checks ?? []) {
    rows.push({
      cells: ["check", check.name, verdict(check.passed), { text: check.detail ?? "", cls: "muted" }],
    });
  }
  for (const s of report.scenarios ?? []) {
    let positions = `${s.variants_passed}/${s.variants_total} positions`;
    if (s.kind === "strategy") {
      positions += " · strategy (scored, never failed)";
    }
    if (s.variants_load_only) {
      positions += ` · ${s.variants_load_only} failed only under load (passed alone)`;
    }
    rows.push({
      cells: [s.category, s.title, verdict(s.passed, s.kind), { text: positions, cls: "muted" }],
    });
  }
  return rows;
}

/** The progress line while a run goes on: `{checks, checksTotal, done, scenarios}`. */
export function progressText({ checks = 0, checksTotal = 4, done = 0, scenarios = 0 }) {
  return `running: health checks ${checks}/${checksTotal}, scenarios ${done}/${scenarios}`;
}

/**
 * The failing positions to draw: each scenario's first failure where the snake gave
 * a wrong move (a missing move's board says nothing; its status does), survival first.
 */
export function failureBoards(report) {
  const failing = (report.scenarios ?? []).filter((s) => s.first_failure?.move);
  failing.sort((a, b) => (a.kind === "strategy") - (b.kind === "strategy"));
  return failing.map((s) => {
    const f = s.first_failure;
    return {
      title: `${s.kind ?? "survival"} ${s.id} [${f.variant}]: ${s.title}`,
      detail: `gave '${f.move}', expected ${[...f.acceptable].sort().join(" or ")} (${f.ruleset} rules)`,
      board: (f.board ?? []).join("\n"),
      cls: s.kind === "strategy" ? "miss" : "fail",
    };
  });
}

/**
 * Split NDJSON text: the complete lines' objects, and the unfinished rest.
 * Blank lines are skipped.
 */
export function parseLines(buffer) {
  const parts = buffer.split("\n");
  const rest = parts.pop() ?? "";
  const events = parts.filter((line) => line.trim()).map((line) => JSON.parse(line));
  return { events, rest };
}

/** The largest scenario file sent (the server refuses larger ones too). */
export const MAX_SCENARIO_FILE_BYTES = 1024 * 1024;

/**
 * The request body of the form: the snake, the rulesets ticked and, when a file was
 * chosen, its scenarios (the parsed file) and whether they run alone.
 */
export function buildBody(url, extraRulesets, scenarios = null, onlyScenarios = false) {
  const body = { url: url.trim(), rulesets: ["standard", ...extraRulesets] };
  if (scenarios !== null) {
    body.scenarios = scenarios;
    body.only_scenarios = onlyScenarios;
  }
  return body;
}

/** The chosen scenario file, parsed: `{scenarios}` or `{error}` (one line), `{}` for none. */
export async function readScenarioFile(file) {
  if (!file) {
    return {};
  }
  if (file.size > MAX_SCENARIO_FILE_BYTES) {
    return { error: `scenarios: the file is larger than ${MAX_SCENARIO_FILE_BYTES / 1024} KiB` };
  }
  try {
    return { scenarios: JSON.parse(await file.text()) };
  } catch (exc) {
    return { error: `scenarios: the file is not JSON (${exc.message})` };
  }
}

function drawBoards(node, report) {
  node.replaceChildren(
    ...failureBoards(report).map((b) => {
      const box = el("div", undefined, "failure");
      box.dataset.testid = "failure";
      box.append(el("h3", b.title, b.cls), el("p", b.detail, "muted"));
      const pre = el("pre", b.board, "ascii-board");
      pre.dataset.testid = "failure-board";
      box.append(pre);
      return box;
    }),
  );
}

function start() {
  const form = document.getElementById("tester");
  if (!form) {
    return; // a visitor who has not logged in sees no form
  }
  const summary = document.getElementById("summary");
  const error = document.getElementById("error");
  const progress = document.getElementById("progress");
  const bar = document.getElementById("progress-bar");
  const results = document.getElementById("results");
  const boards = document.getElementById("failures");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    summary.textContent = "";
    results.replaceChildren();
    boards.replaceChildren();
    const extra = [...form.querySelectorAll("input[name=ruleset]:checked")].map((i) => i.value);
    const own = await readScenarioFile(form.scenarios?.files?.[0]);
    if (own.error) {
      error.textContent = own.error;
      return;
    }
    const only = Boolean(form.only_scenarios?.checked);
    const state = { checks: 0, checksTotal: 4, done: 0, scenarios: 0 };
    const partial = { checks: [], scenarios: [] };
    progress.textContent = "starting...";
    bar.hidden = false;
    bar.removeAttribute("value");
    form.querySelector("button").disabled = true;
    const show = () => {
      progress.textContent = progressText(state);
      bar.max = state.checksTotal + state.scenarios;
      bar.value = state.checks + state.done;
      renderRows(results, resultRows(partial));
    };
    let report = null;
    try {
      const response = await fetch(
        "/api/test/stream",
        withCsrf(
          {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: JSON.stringify(buildBody(form.url.value, extra, own.scenarios ?? null, only)),
          },
          csrfToken(),
        ),
      );
      if (!response.ok) {
        let data = null;
        try {
          data = await response.json();
        } catch {
          data = null;
        }
        error.textContent = detailText(data, response.status);
        return;
      }
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        buffer += decoder.decode(value ?? new Uint8Array(), { stream: !done });
        const parsed = parseLines(done ? `${buffer}\n` : buffer);
        buffer = parsed.rest;
        for (const e of parsed.events) {
          if (e.event === "start") {
            state.checksTotal = e.checks;
            state.scenarios = e.scenarios;
          } else if (e.event === "check") {
            partial.checks.push(e.check);
            state.checks += 1;
          } else if (e.event === "scenario") {
            partial.scenarios.push(e.scenario);
            state.done = e.done;
            state.scenarios = Math.max(state.scenarios, e.scenarios);
          } else if (e.event === "report") {
            report = e.report;
          }
        }
        show();
        if (done) {
          break;
        }
      }
    } catch (exc) {
      error.textContent = `the run stopped: ${exc}`;
    } finally {
      form.querySelector("button").disabled = false;
      bar.hidden = true;
      progress.textContent = "";
    }
    if (report) {
      renderRows(results, resultRows(report));
      drawBoards(boards, report);
      summary.textContent = report.summary;
      summary.className = report.passed ? "pass" : "fail";
    } else if (!error.textContent) {
      error.textContent = "the run ended without a report";
    }
  });
}

if (typeof document !== "undefined") {
  start();
}
