// Your notification settings on the account page: GET and PUT
// /api/notifications/settings, a test message (POST /api/notifications/test) and what
// became of your latest messages (GET /api/notifications).

import { shortTime } from "./club.js";
import { detailText, el, fetchJson, postJson, renderRows } from "./dom.js";

/** The PUT body from the form's values and its checked boxes (`event:channel`). */
export function settingsBody(webhookUrl, email, checked) {
  const events = {};
  for (const key of checked) {
    const [event, channel] = key.split(":");
    (events[event] ??= []).push(channel);
  }
  return { webhook_url: webhookUrl.trim() || null, email: email.trim() || null, events };
}

/** Whether `settings` sends `event` on `channel`. */
export function isChosen(settings, event, channel) {
  return (settings.events[event] ?? []).includes(channel);
}

/** A message's row: when, channel, title, state (with the error when there is one). */
export function sentCells(item) {
  const state = item.error ? `${item.state}: ${item.error}` : item.state;
  return [shortTime(item.created_at), item.channel, item.title, state];
}

const CHANNEL_TITLES = { webhook: "Webhook", email: "E-mail" };

/** One fieldset per event (its title, a checkbox per channel): it stacks on a phone. */
function drawEvents(container, settings) {
  container.replaceChildren(
    ...settings.available_events.map((event) => {
      const set = document.createElement("fieldset");
      set.append(el("legend", `Tell me when: ${event.title.toLowerCase()}`));
      const row = el("div", undefined, "row");
      for (const channel of settings.channels) {
        const label = el("label", undefined, "check");
        const box = document.createElement("input");
        box.type = "checkbox";
        box.name = "event";
        box.value = `${event.name}:${channel}`;
        box.checked = isChosen(settings, event.name, channel);
        box.dataset.testid = `notify-${event.name}-${channel}`;
        label.append(box, ` ${CHANNEL_TITLES[channel] ?? channel}`);
        row.append(label);
      }
      set.append(row);
      return set;
    }),
  );
}

function start() {
  const form = document.getElementById("notify-form");
  if (!form) {
    return;
  }
  const error = form.querySelector(".error");
  const done = form.querySelector(".pass");
  const events = document.getElementById("notify-events");
  const sent = document.getElementById("notify-sent");

  const show = (settings) => {
    form.webhook_url.value = settings.webhook_url ?? "";
    form.email.value = settings.email ?? "";
    document.getElementById("notify-no-email").hidden = settings.email_enabled;
    document.getElementById("notify-cap").textContent =
      `At most ${settings.per_hour} messages an hour on each channel; more are not sent.`;
    drawEvents(events, settings);
    form.dataset.loaded = "true";
  };
  const refreshSent = async () => {
    const { ok, data } = await fetchJson("/api/notifications");
    if (ok) {
      renderRows(
        sent,
        data.map((item) => ({ cells: sentCells(item), testid: `sent-${item.id}` })),
      );
    }
  };
  const load = async () => {
    const { ok, status, data } = await fetchJson("/api/notifications/settings");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    show(data);
    await refreshSent();
  };

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    error.textContent = "";
    done.textContent = "";
    const checked = [...form.querySelectorAll('input[name="event"]:checked')].map((b) => b.value);
    const body = settingsBody(form.webhook_url.value, form.email.value, checked);
    const { ok, status, data } = await postJson("/api/notifications/settings", body, "PUT");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    show(data);
    done.textContent = "Saved.";
  });
  document.getElementById("notify-test").addEventListener("click", async () => {
    error.textContent = "";
    done.textContent = "";
    const { ok, status, data } = await postJson("/api/notifications/test");
    if (!ok) {
      error.textContent = detailText(data, status);
      return;
    }
    done.textContent = data.length
      ? `A test message is on its way (${data.map((item) => item.channel).join(", ")}).`
      : "Set a webhook URL or an e-mail address first, and save.";
    await refreshSent();
    // Delivery takes a moment: show what became of it.
    setTimeout(refreshSent, 3000);
  });
  load();
}

if (typeof document !== "undefined") {
  document.addEventListener("DOMContentLoaded", start);
}
