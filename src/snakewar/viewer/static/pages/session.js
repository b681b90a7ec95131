// Every page's header: the log-out button of a logged-in visitor.

import { postJson } from "./dom.js";

function start() {
  document.getElementById("logout")?.addEventListener("click", async () => {
    await postJson("/api/auth/logout");
    window.location.assign("/");
  });
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
