// Count's viewer: the totals of a stored game (?game=ID), read from the games API.
const id = new URLSearchParams(window.location.search).get("game");
if (id) {
  const response = await fetch(`/api/games/${encodeURIComponent(id)}`);
  const game = await response.json();
  document.getElementById("totals").textContent = `${game.status}, won by ${game.winner ?? "-"}`;
}
