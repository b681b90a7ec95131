// Sign-up invitations (admins): make one (POST /api/auth/invites), whose link is
// shown once, to copy and send; list them (GET) and revoke open ones (DELETE).

import { copyText, shortTime } from "./club.js";
import { detailText, el, fetchJson, postJson } from "./dom.js";

/** The sign-up link of an invitation code on this server. */
export function inviteLink(origin, code) {
  return `${origin}/login?${new URLSearchParams({ invite: code })}`;
}

/** An invitation's cells: made, by whom, expires, state (who used it). */
export function inviteCells(invite) {
  const state =
    invite.status === "used" ? `used by ${invite.used_by}` : invite.status === "expired" ? "expired" : "open";
  return [shortTime(invite.created_at), invite.made_by ?? "-", shortTime(invite.expires_at), state];
}

function start() {
  const form = document.getElementById("invite");
  if (!form) {
    return; // not an admin, or a local server: the page says so
  }
  const error = document.getElementById("error");
  const tbody = document.getElementById("invites");
  const link = document.getElementById("invite-link");
  const copied = document.getElementById("copied");

  const refresh = async () => {
    const { ok, status, data } = await fetchJson("/api/auth/invites");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    tbody.replaceChildren(
      ...data.map((invite) => {
        const tr = document.createElement("tr");
        tr.dataset.testid = "invite-row";
        for (const text of inviteCells(invite)) {
          tr.append(el("td", text));
        }
        const cell = document.createElement("td");
        if (invite.status === "open") {
          const revoke = el("button", "Revoke", "inline");
          revoke.type = "button";
          revoke.dataset.testid = "revoke-invite";
          revoke.addEventListener("click", async () => {
            const path = `/api/auth/invites/${encodeURIComponent(invite.id)}`;
            const gone = await fetchJson(path, { method: "DELETE" });
            error.textContent = gone.ok ? "" : detailText(gone.data, gone.status);
            await refresh();
          });
          cell.append(revoke);
        }
        tr.append(cell);
        return tr;
      }),
    );
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const { ok, status, data } = await postJson("/api/auth/invites");
    error.textContent = ok ? "" : detailText(data, status);
    if (ok) {
      link.value = inviteLink(window.location.origin, data.code);
      copied.textContent = "";
      document.getElementById("made").hidden = false;
      link.select();
    }
    await refresh();
  });
  document.getElementById("copy").addEventListener("click", async () => {
    copied.textContent = (await copyText(link))
      ? "copied"
      : "select the link and copy it by hand";
  });
  refresh();
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
