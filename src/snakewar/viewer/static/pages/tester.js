// The snake tester: POST /api/test and a row per check and per scenario.

import { detailText, postJson, renderRows } from "./dom.js";

/** PASS or FAIL, with its class. */
function verdict(passed) {
  return passed ? { text: "PASS", cls: "pass" } : { text: "FAIL", cls: "fail" };
}

/** The rows of a tester report: the checks first, then the scenarios. */
export function resultRows(report) {
  const rows = [];
  for (const check of report.checks ?? []) {
    rows.push({
      cells: ["check", check.name, verdict(check.passed), { text: check.detail ?? "", cls: "muted" }],
    });
  }
  for (const s of report.scenarios ?? []) {
    const positions = `${s.variants_passed}/${s.variants_total} positions`;
    rows.push({ cells: [s.category, s.title, verdict(s.passed), { text: positions, cls: "muted" }] });
  }
  return rows;
}

function start() {
  const form = document.getElementById("tester");
  if (!form) {
    return; // a visitor who has not logged in sees no form
  }
  const summary = document.getElementById("summary");
  const error = document.getElementById("error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    summary.textContent = "running...";
    const { ok, status, data } = await postJson("/api/test", { url: form.url.value });
    if (!ok) {
      error.textContent = detailText(data, status);
      summary.textContent = "";
      return;
    }
    renderRows(document.getElementById("results"), resultRows(data));
    summary.textContent = data.summary;
  });
}

if (typeof document !== "undefined") {
  start();
}
