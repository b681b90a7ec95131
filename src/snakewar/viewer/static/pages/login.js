// Log in and sign up: POST /api/auth/login or /api/auth/signup, then go home.

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
  });
}
