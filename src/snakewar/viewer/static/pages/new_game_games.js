// The new-game page's game selector (server template new_game_games.html): shows the
// chosen game's form and hides the others, and keeps the choice in the URL (?game=),
// so that a reload or a shared link opens the same form.

/** The forms' boxes (`[data-game-form]`) to show and hide for game `chosen`. */
export function visibility(names, chosen) {
  const known = names.includes(chosen) ? chosen : names[0];
  return names.map((name) => ({ name, hidden: name !== known }));
}

/** The page's URL with `?game=` set to `chosen` (left out for the default game, `first`). */
export function gameUrl(href, chosen, first) {
  const url = new URL(href);
  if (chosen === first) {
    url.searchParams.delete("game");
  } else {
    url.searchParams.set("game", chosen);
  }
  return url.toString();
}

function start() {
  const select = document.getElementById("game-select");
  if (!select) {
    return;
  }
  const boxes = [...document.querySelectorAll("[data-game-form]")];
  const names = boxes.map((box) => box.dataset.gameForm);
  const show = () => {
    for (const { name, hidden } of visibility(names, select.value)) {
      boxes[names.indexOf(name)].hidden = hidden;
    }
    window.history.replaceState(null, "", gameUrl(window.location.href, select.value, names[0]));
  };
  select.addEventListener("change", show);
}

if (typeof document !== "undefined") {
  start();
}
