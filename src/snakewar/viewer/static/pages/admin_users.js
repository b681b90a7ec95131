// The accounts of a server (admins): GET /api/users, with what each stores of uploads
// against its quota; change a role or disable an account (PATCH /api/users/{name});
// reset a password (POST .../reset-password), whose one-time password is shown once.

import { copyText, shortTime } from "./club.js";
import { detailText, el, fetchJson, postJson } from "./dom.js";

/** `bytes` for people: 0 B, 512 B, 1.5 KiB, 12.3 MiB. */
export function sizeText(bytes) {
  const units = ["B", "KiB", "MiB", "GiB"];
  let size = bytes;
  let unit = 0;
  while (size >= 1024 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${size} B` : `${size.toFixed(1)} ${units[unit]}`;
}

/** What a user stores of uploads, against their quota (none for admins). */
export function storedText(user) {
  const stored = sizeText(user.stored_bytes ?? 0);
  return user.quota_bytes == null ? stored : `${stored} of ${sizeText(user.quota_bytes)}`;
}

/** A user's cells: name, role, since when, state, stored uploads. */
export function userCells(user) {
  return [
    user.name,
    user.role,
    shortTime(user.created_at),
    user.disabled ? "disabled" : "active",
    storedText(user),
  ];
}

/**
 * What an admin may do to `user`: change its role, disable or enable it, reset its
 * password; nothing to their own account (that is the account page's).
 */
export function userActions(user, me) {
  if (user.name === me) {
    return [];
  }
  return [
    user.role === "admin" ? "Make user" : "Make admin",
    user.disabled ? "Enable" : "Disable",
    "Reset password",
  ];
}

/** The PATCH body of an action from `userActions` (`null`: not a PATCH). */
export function actionBody(action) {
  return (
    {
      "Make user": { role: "user" },
      "Make admin": { role: "admin" },
      Disable: { disabled: true },
      Enable: { disabled: false },
    }[action] ?? null
  );
}

function slug(action) {
  return action.toLowerCase().replaceAll(" ", "-");
}

function start() {
  const tbody = document.getElementById("users");
  if (!tbody) {
    return; // not an admin: the page says so
  }
  const me = tbody.dataset.me;
  const error = document.getElementById("error");
  const shown = document.getElementById("reset");

  const act = async (user, action) => {
    if (action === "Reset password") {
      const sure = window.confirm(
        `Reset the password of ${user.name}? Their sessions and API tokens end now.`,
      );
      if (!sure) {
        return;
      }
      const path = `/api/users/${encodeURIComponent(user.name)}/reset-password`;
      const { ok, status, data } = await postJson(path);
      error.textContent = ok ? "" : detailText(data, status);
      if (ok) {
        document.getElementById("reset-text").textContent =
          `New password of ${data.name} (shown once; they change it on their account page):`;
        document.getElementById("reset-password").value = data.password;
        shown.hidden = false;
      }
    } else {
      const path = `/api/users/${encodeURIComponent(user.name)}`;
      const { ok, status, data } = await postJson(path, actionBody(action), "PATCH");
      error.textContent = ok ? "" : detailText(data, status);
    }
    await refresh();
  };

  const refresh = async () => {
    const { ok, status, data } = await fetchJson("/api/users");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    tbody.replaceChildren(
      ...data.map((user) => {
        const tr = document.createElement("tr");
        tr.dataset.testid = `user-${user.name}`;
        for (const text of userCells(user)) {
          tr.append(el("td", text));
        }
        const cell = el("td", undefined, "actions");
        for (const action of userActions(user, me)) {
          const button = el("button", action, "inline");
          button.type = "button";
          button.dataset.testid = `${slug(action)}-${user.name}`;
          button.addEventListener("click", () => act(user, action));
          cell.append(button, document.createTextNode(" "));
        }
        tr.append(cell);
        return tr;
      }),
    );
  };

  document.getElementById("reset-copy").addEventListener("click", () => {
    copyText(document.getElementById("reset-password"));
  });
  refresh();
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
