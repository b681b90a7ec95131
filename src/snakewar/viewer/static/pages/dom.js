// What the site's pages share: table rows from plain data, and calls to the REST API.
//
// A page module builds its rows as data first (pure functions, tested under Node),
// then draws them with `renderRows`.  A row is `{cells, testid?}`; a cell is a
// string or `{text, cls?, href?}`.  Text always goes in as text, never as HTML.

/** An element with optional text and class. */
export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) {
    node.textContent = String(text);
  }
  if (cls) {
    node.className = cls;
  }
  return node;
}

/** A cell spec as `{text, cls, href}` (a bare string or number is its text). */
export function cellSpec(cell) {
  if (typeof cell === "object" && cell !== null) {
    return { text: String(cell.text ?? ""), cls: cell.cls ?? "", href: cell.href ?? null };
  }
  return { text: String(cell ?? ""), cls: "", href: null };
}

/** A `<tr>` for a row spec. */
export function rowElement(row) {
  const tr = document.createElement("tr");
  if (row.testid) {
    tr.dataset.testid = row.testid;
  }
  for (const cell of row.cells) {
    const { text, cls, href } = cellSpec(cell);
    const td = el("td", href ? undefined : text, cls);
    if (href) {
      const a = el("a", text);
      a.href = href;
      td.append(a);
    }
    tr.append(td);
  }
  return tr;
}

/** Replace the rows of `tbody` with `rows` (row specs). */
export function renderRows(tbody, rows) {
  tbody.replaceChildren(...rows.map(rowElement));
}

/**
 * The text of an API error answer: FastAPI's `{"detail": "..."}`, or its
 * validation list `{"detail": [{loc, msg}]}` as one "field: message" line each.
 */
export function detailText(data, status) {
  const detail = data?.detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d) => {
        const loc = (Array.isArray(d?.loc) ? d.loc : []).filter((part) => part !== "body");
        return (loc.length ? `${loc.join(".")}: ` : "") + String(d?.msg ?? "");
      })
      .join("\n");
  }
  if (typeof detail === "string" && detail) {
    return detail;
  }
  return status ? `the server answered ${status}` : "the server gave no answer";
}

/** The session's CSRF token from the page's `<meta name="csrf-token">`, or "". */
export function csrfToken(doc = globalThis.document) {
  return doc?.querySelector?.('meta[name="csrf-token"]')?.getAttribute("content") ?? "";
}

/** `options` with the CSRF header added to a request that changes something. */
export function withCsrf(options, token) {
  const method = (options.method ?? "GET").toUpperCase();
  if (!token || ["GET", "HEAD", "OPTIONS"].includes(method)) {
    return options;
  }
  return { ...options, headers: { ...(options.headers ?? {}), "X-CSRF-Token": token } };
}

/** `fetch` then read JSON: `{ok, status, data}` (data null when the body is no JSON). */
export async function fetchJson(url, options = {}) {
  const response = await fetch(url, withCsrf(options, csrfToken()));
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  return { ok: response.ok, status: response.status, data };
}

/** Send `body` as JSON (`method`, POST by default) and read the answer, as `fetchJson`. */
export function postJson(url, body, method = "POST") {
  return fetchJson(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Call `refresh` now and every `ms` milliseconds, one call at a time, until it
 * returns `false`.  A failed call shows its message in `errorNode` (cleared by
 * the next call that succeeds) and the polling goes on: a restarting server
 * comes back.
 */
export function poll(refresh, ms, errorNode) {
  let failed = false;
  const tick = async () => {
    let more = true;
    try {
      more = (await refresh()) !== false;
      if (failed && errorNode) {
        errorNode.textContent = "";
      }
      failed = false;
    } catch (error) {
      failed = true;
      if (errorNode) {
        errorNode.textContent = String(error?.message ?? error);
      }
    }
    if (more) {
      setTimeout(tick, ms);
    }
  };
  tick();
}

/**
 * Read game `id` (`GET /api/games/{id}`) now and every `ms` milliseconds while it runs,
 * giving each answer to `onGame`; a failed read is tried again.
 */
export function pollGame(id, onGame, ms) {
  async function refresh() {
    const { ok, data } = await fetchJson(`/api/games/${encodeURIComponent(id)}`);
    if (ok) {
      onGame(data);
    }
    if (!ok || ["running", "starting"].includes(data?.status)) {
      setTimeout(refresh, ms);
    }
  }
  refresh();
}
