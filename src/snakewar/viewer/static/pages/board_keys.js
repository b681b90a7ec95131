// A page with a board viewer in a frame: the viewer's keyboard shortcuts (step, play and
// pause...) work as soon as the page opens, not only once the frame has been clicked.
//
// A key pressed on the page itself goes to the page, not to the frame; this sends each
// shortcut key on to the viewer (a "KEY" message: controls.js `bindKeyboard` takes it),
// except while the user types in a field, or presses Space or Enter on one of the
// page's own buttons and links (that key is the control's).

import { keyAction, typingInto } from "../controls.js";

/** Whether `event` is Space or Enter on a control of the page, which the key belongs to. */
export function pressesControl(event) {
  if (event.key !== " " && event.key !== "Enter") {
    return false;
  }
  const target = event.target;
  if (!target || typeof target.closest !== "function") {
    return false;
  }
  return Boolean(target.closest("button, a[href], summary, [role='button']"));
}

/** The message that sends `event`'s shortcut to the viewer, or null if the page keeps it. */
export function keyMessage(event) {
  if (event.defaultPrevented || typingInto(event.target) || pressesControl(event)) {
    return null;
  }
  return keyAction(event) ? { event: "KEY", key: event.key } : null;
}

/** Send the board viewer in `frame` every shortcut key pressed on this page. */
export function forwardKeys(frame, win = window) {
  const origin = new URL(frame.src, win.location.href).origin;
  win.addEventListener("keydown", (event) => {
    const message = keyMessage(event);
    if (message && frame.contentWindow) {
      // The page's own use of the key (Space scrolls, arrows scroll) gives way.
      event.preventDefault();
      frame.contentWindow.postMessage(message, origin);
    }
  });
}
