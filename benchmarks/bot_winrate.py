"""Win rates of the built-in bots against each other, 1v1 on 11x11 standard.

Plays ``--games`` games per pairing in-process, driving
:class:`~snakewar.games.battlesnake.Game` directly and asking each alive snake
for its move with the :class:`SnakeRequest` the referee would send.  Game ``k``
uses seed ``k`` and alternates which bot is placed first, so both seats and the
same boards are played by every pairing.  Prints, per pairing, the first bot's
wins, draws and losses with 95% Wilson intervals, and the median think time per
move of each bot.

    python3 benchmarks/bot_winrate.py --games 100 --budget 150 --jobs 2
    python3 benchmarks/bot_winrate.py --pairs hunter:greedy --games 20 --hunter "hunter?depth=2"
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

from snakewar.games.battlesnake import Game, GameConfig, Settings
from snakewar.games.battlesnake.bots import make_bot
from snakewar.games.battlesnake.bots.base import Bot
from snakewar.games.battlesnake.bots.hunter import HunterBot
from snakewar.games.battlesnake.rules.wire import GameInfo, MoveReply, SnakeRequest
from snakewar.referee.intervals import wilson_interval

TIMEOUT_MS = 500
"""The game timeout the requests announce (the hunter's default budget derives from it)."""


@dataclass
class GameOutcome:
    seed: int
    winner: int | None  # 0: the pairing's first bot, 1: the second, None: a draw
    turns: int
    think: tuple[list[float], list[float]]  # seconds per move, per bot
    depths: list[int]  # hunter search depths reached (bot 0 or 1, whichever is a hunter)
    nodes: list[int]


def play(spec_a: str, spec_b: str, seed: int, max_turns: int) -> GameOutcome:
    """Play one game; bot A is placed first on odd seeds, second on even ones."""
    bots: list[Bot] = [make_bot(spec_a), make_bot(spec_b)]
    order = [0, 1] if seed % 2 else [1, 0]
    ids = {f"snake-{pos + 1}": who for pos, who in enumerate(order)}
    settings = Settings.defaults(seed=seed)
    game = Game(GameConfig(ruleset="standard", map="standard", settings=settings), list(ids))
    info = GameInfo(
        id=f"bench-{seed}", ruleset_name="standard", settings=settings, timeout=TIMEOUT_MS
    )
    think: tuple[list[float], list[float]] = ([], [])
    depths: list[int] = []
    nodes: list[int] = []
    for sid, who in ids.items():
        bots[who].start(SnakeRequest(info, 0, game.state, game.state.snake(sid)))
    while not game.is_over and game.state.turn < max_turns:
        state = game.state
        board = state.replace(snakes=state.alive_snakes)
        moves = {}
        for snake in board.snakes:
            who = ids[snake.id]
            bot = bots[who]
            began = time.perf_counter()
            reply = bot.move(SnakeRequest(info, state.turn, board, snake))
            think[who].append(time.perf_counter() - began)
            moves[snake.id] = reply.move if isinstance(reply, MoveReply) else reply
            if isinstance(bot, HunterBot) and bot.last is not None and bot.last.nodes:
                depths.append(bot.last.depth)
                nodes.append(bot.last.nodes)
        game.step(moves)
    result = game.result()
    winner = ids[result.winner] if result.winner is not None else None
    return GameOutcome(seed, winner, game.state.turn, think, depths, nodes)


def _play_args(args: tuple[str, str, int, int]) -> GameOutcome:
    return play(*args)


def run_pairing(
    spec_a: str, spec_b: str, games: int, max_turns: int, jobs: int
) -> list[GameOutcome]:
    tasks = [(spec_a, spec_b, seed, max_turns) for seed in range(1, games + 1)]
    if jobs <= 1:
        return [_play_args(t) for t in tasks]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(_play_args, tasks))


def _pct(x: float) -> str:
    return f"{100.0 * x:5.1f}%"


def report(spec_a: str, spec_b: str, outcomes: Sequence[GameOutcome], elapsed: float) -> str:
    n = len(outcomes)
    wins = sum(1 for o in outcomes if o.winner == 0)
    losses = sum(1 for o in outcomes if o.winner == 1)
    draws = n - wins - losses
    parts = [f"{spec_a} vs {spec_b}: {n} games, {elapsed:.0f} s"]
    for label, k in (("wins", wins), ("draws", draws), ("losses", losses)):
        lo, hi = wilson_interval(k, n)
        parts.append(f"  {label:<7}{k:>4}  {_pct(k / n)}  [{_pct(lo)}, {_pct(hi)}]")
    for who, spec in ((0, spec_a), (1, spec_b)):
        times = [t for o in outcomes for t in o.think[who]]
        if times:
            parts.append(
                f"  {spec}: median think {1000 * statistics.median(times):.1f} ms, "
                f"max {1000 * max(times):.1f} ms over {len(times)} moves"
            )
    depths = [d for o in outcomes for d in o.depths]
    nodes = [k for o in outcomes for k in o.nodes]
    if depths:
        parts.append(
            f"  hunter search: median depth {statistics.median(depths):.0f} "
            f"(max {max(depths)}), median nodes {statistics.median(nodes):.0f}"
        )
    parts.append(f"  mean game length {statistics.fmean(o.turns for o in outcomes):.0f} turns")
    return "\n".join(parts)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=100, help="games per pairing (seeds 1..N)")
    parser.add_argument("--budget", type=int, default=None, help="hunter budget in ms")
    parser.add_argument("--hunter", default=None, help="hunter spec (overrides --budget)")
    parser.add_argument(
        "--pairs",
        default="hunter:greedy,greedy:random,hunter:random",
        help="comma-separated A:B pairings",
    )
    parser.add_argument("--max-turns", type=int, default=1000)
    parser.add_argument("--jobs", type=int, default=1, help="games played in parallel")
    args = parser.parse_args(argv)
    hunter = args.hunter or ("hunter" if args.budget is None else f"hunter?budget={args.budget}")
    if args.hunter:
        budget = "as the spec says (default: 250 ms of the 500 ms timeout)"
    elif args.budget is not None:
        budget = f"{args.budget} ms"
    else:
        budget = "default (250 ms of the 500 ms timeout)"
    print(f"hunter spec {hunter!r}, budget {budget}, {args.jobs} job(s)", flush=True)
    for pair in args.pairs.split(","):
        a, b = (hunter if s == "hunter" else s for s in pair.split(":"))
        began = time.perf_counter()
        outcomes = run_pairing(a, b, args.games, args.max_turns, args.jobs)
        print(report(a, b, outcomes, time.perf_counter() - began), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
