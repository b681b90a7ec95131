// A tiny API v1 Battlesnake on Node's plain http module, for launch tests.
// Run: node snake.js --port 8000 (or with PORT set). It steps to a free neighbouring square.
"use strict";
const http = require("http");

const argPort = process.argv.indexOf("--port");
const port = Number(argPort >= 0 ? process.argv[argPort + 1] : process.env.PORT || 8000);
const MOVES = { up: [0, 1], down: [0, -1], left: [-1, 0], right: [1, 0] };

function choose(game) {
  const board = game.board;
  const head = game.you.head;
  const taken = new Set();
  for (const s of board.snakes) for (const p of s.body.slice(0, -1)) taken.add(`${p.x},${p.y}`);
  for (const [move, [dx, dy]] of Object.entries(MOVES)) {
    const x = head.x + dx;
    const y = head.y + dy;
    if (x >= 0 && x < board.width && y >= 0 && y < board.height && !taken.has(`${x},${y}`)) {
      return move;
    }
  }
  return "up";
}

function reply(res, body) {
  const data = JSON.stringify(body);
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(data) });
  res.end(data);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET") {
    reply(res, { apiversion: "1", author: "tests", color: "#cc6633" });
    return;
  }
  let body = "";
  req.on("data", (chunk) => { body += chunk; });
  req.on("end", () => {
    if (req.url === "/move") {
      reply(res, { move: choose(JSON.parse(body)), shout: "" });
    } else {
      console.log(`${req.url} called`);
      reply(res, {});
    }
  });
});
server.listen(port, "127.0.0.1", () => console.log(`node snake listening on port ${port}`));
