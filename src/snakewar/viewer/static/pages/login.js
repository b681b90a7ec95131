// Log in and sign up: POST /api/auth/login or /api/auth/signup, then go home.  An
// invitation's link (/login?invite=CODE) fills the sign-up form's invitation in.

import { detailText, postJson } from "./dom.js";

/** The JSON a credentials form sends (the invitation only when one is typed). */
export function credentials(fields) {
  const body = { name: String(fields.name ?? "").trim(), password: String(fields.password ?? "") };
  const invite = String(fields.invite ?? "").trim();
  if (invite) {
    body.invite = invite;
  }
  return body;
}

/** The invitation code of a sign-up link's query (`?invite=CODE`), or "". */
export function inviteFrom(search) {
  return (new URLSearchParams(search).get("invite") ?? "").trim().slice(0, 100);
}

/** Fill the invitation of the sign-up form from the page's link, and go to that form. */
function welcome() {
  const code = inviteFrom(window.location.search);
  const form = document.getElementById("signup");
  if (!code || !form) {
    return;
  }
  if (form.elements.invite) {
    form.elements.invite.value = code;
  }
  document.getElementById("invited").hidden = false;
  document.getElementById("signup-title").scrollIntoView();
  form.elements.name.focus();
}

function bind(formId, url) {
  const form = document.getElementById(formId);
  if (!form) {
    return;
  }
  const error = form.querySelector(".error");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    const fields = Object.fromEntries(new FormData(form).entries());
    const { ok, status, data } = await postJson(url, credentials(fields));
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    window.location.assign("/account");
  });
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", () => {
    bind("login", "/api/auth/login");
    bind("signup", "/api/auth/signup");
    welcome();
  });
}
