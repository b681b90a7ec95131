// A page that shows another page in a frame under the site's header (a viewer's file
// picker, the API docs).  A board viewer's keyboard shortcuts work from the page at once.

import { forwardKeys } from "./board_keys.js";

if (typeof document !== "undefined") {
  const board = document.querySelector("iframe[data-board]");
  if (board) {
    forwardKeys(board);
  }
}
