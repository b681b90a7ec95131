"use strict";

const { Game } = require("./hlt/game");

async function main() {
  const game = new Game();
  await game.readInit();
  let seed = game.myId * 7919 + 17;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  game.ready("JavaScriptBot");
  const directions = ["n", "s", "e", "w"];
  for (;;) {
    await game.readFrame();
    const commands = [];
    let yardTaken = false;
    for (const ship of game.ships) {
      if (ship.x === game.yardX && ship.y === game.yardY) {
        yardTaken = true;
      }
      if (game.cells[ship.y][ship.x] >= 50 && ship.halite < 800) {
        continue; // stay and mine
      }
      commands.push(`m ${ship.id} ${directions[Math.floor(random() * 4)]}`);
    }
    if (game.turn <= 100 && game.halite >= 1000 && !yardTaken) {
      commands.push("g");
    }
    game.endTurn(commands);
  }
}

main();
