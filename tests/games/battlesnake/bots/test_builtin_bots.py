"""The ``greedy`` and ``hunter`` built-in bots: their simulator, tactics and strength.

Every tactical scenario is a hand-built position played in all 8 rotations and
mirrors of the board (the expected move turns with it).  The hunter runs with a
fixed depth (deterministic) or a small budget, so the file stays fast.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence

import pytest

from snakewar.games.battlesnake import BoardState, Game, GameConfig, Point, Settings, Snake
from snakewar.games.battlesnake.bots import UnknownBotError, make_bot
from snakewar.games.battlesnake.bots._board import geometry, sim_from_request, territory
from snakewar.games.battlesnake.bots.base import Bot
from snakewar.games.battlesnake.bots.greedy import GreedyBot
from snakewar.games.battlesnake.bots.hunter import (
    MAX_BUDGET_MS,
    MAX_DEPTH,
    MAX_OPPONENTS,
    BotOptionError,
    HunterBot,
    default_budget_ms,
    think_cap_ms,
)
from snakewar.games.battlesnake.bots.random_safe import safe_moves
from snakewar.games.battlesnake.rules.wire import GameInfo, MoveReply, SnakeRequest

Cells = Sequence[tuple[int, int]]
_DELTA = {"up": (0, 1), "down": (0, -1), "left": (-1, 0), "right": (1, 0)}
_NAME = {v: k for k, v in _DELTA.items()}
# The 8 symmetries of the square as (a, b, c, d): x' = a*x + b*y, y' = c*x + d*y (+ offsets).
_SYMMETRIES = [
    (1, 0, 0, 1),
    (-1, 0, 0, 1),
    (1, 0, 0, -1),
    (-1, 0, 0, -1),
    (0, 1, 1, 0),
    (0, -1, 1, 0),
    (0, 1, -1, 0),
    (0, -1, -1, 0),
]


class Scenario:
    """A position from ``you``'s point of view, which can be rotated and mirrored."""

    def __init__(
        self,
        you: Cells,
        others: Sequence[Cells] = (),
        *,
        width: int = 11,
        height: int = 11,
        food: Cells = (),
        hazards: Cells = (),
        health: int = 100,
        other_health: int = 100,
        ruleset: str = "standard",
        damage: int = 14,
    ) -> None:
        self.you = list(you)
        self.others = [list(o) for o in others]
        self.width, self.height = width, height
        self.food, self.hazards = list(food), list(hazards)
        self.health, self.other_health = health, other_health
        self.ruleset = ruleset
        self.damage = damage

    def request(self, sym: int = 0) -> SnakeRequest:
        a, b, c, d = _SYMMETRIES[sym]
        w, h = (self.height, self.width) if b else (self.width, self.height)

        def tp(cell: tuple[int, int]) -> Point:
            x, y = cell
            nx = a * x + b * y + (w - 1 if a + b < 0 else 0)
            ny = c * x + d * y + (h - 1 if c + d < 0 else 0)
            return Point(nx, ny)

        you = Snake("you", tuple(tp(p) for p in self.you), self.health)
        others = tuple(
            Snake(f"opp{i}", tuple(tp(p) for p in body), self.other_health)
            for i, body in enumerate(self.others)
        )
        board = BoardState(
            turn=5,
            width=w,
            height=h,
            snakes=(you, *others),
            food=tuple(tp(p) for p in self.food),
            hazards=tuple(tp(p) for p in self.hazards),
        )
        board.validate()
        settings = Settings.defaults(damagePerTurn=self.damage)
        info = GameInfo(id="t", ruleset_name=self.ruleset, settings=settings, timeout=500)
        return SnakeRequest(info, 5, board, you)

    def move_name(self, move: str, sym: int) -> str:
        """The name of ``move`` (given in the untransformed board) after symmetry ``sym``."""
        a, b, c, d = _SYMMETRIES[sym]
        dx, dy = _DELTA[move]
        return _NAME[(a * dx + b * dy, c * dx + d * dy)]


def _move(bot: Bot, request: SnakeRequest) -> str:
    reply = bot.move(request)
    return reply.move if isinstance(reply, MoveReply) else reply


BOTS: dict[str, Callable[[], Bot]] = {
    "greedy": GreedyBot,
    "hunter-d1": lambda: HunterBot(depth=1),
    "hunter-d3": lambda: HunterBot(depth=3),
    "hunter-30ms": lambda: HunterBot(budget=30),
}
HUNTERS = ["hunter-d1", "hunter-d3", "hunter-30ms"]
SYMS = range(8)


def check(bot_name: str, scenario: Scenario, allowed: set[str]) -> None:
    bot = BOTS[bot_name]()
    for sym in SYMS:
        expected = {scenario.move_name(m, sym) for m in allowed}
        got = _move(bot, scenario.request(sym))
        assert got in expected, f"{bot_name} symmetry {sym}: {got!r} not in {sorted(expected)}"


# -- tactics ------------------------------------------------------------------------------


@pytest.mark.parametrize("bot", list(BOTS))
def test_avoids_the_wall(bot: str) -> None:
    # Head on the left edge facing it; food beyond the wall's reach is irrelevant.
    check(bot, Scenario([(0, 5), (1, 5), (2, 5)], [[(8, 8), (8, 9), (8, 10)]]), {"up", "down"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_avoids_its_own_body(bot: str) -> None:
    you = [(5, 5), (5, 6), (4, 6), (4, 5), (4, 4), (5, 4), (6, 4), (6, 3)]
    check(bot, Scenario(you, [[(9, 9), (9, 10), (10, 10)]]), {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_avoids_other_bodies(bot: str) -> None:
    # The opponent's body walls off up and left; food lures the bot up.
    opp = [(3, 8), (4, 8), (5, 8), (5, 7), (5, 6), (4, 6), (4, 5), (4, 4), (4, 3)]
    check(bot, Scenario([(5, 5), (5, 4), (5, 3)], [opp], food=[(5, 9)]), {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_takes_the_only_safe_move(bot: str) -> None:
    # Up is the neck, left a wall of opponent body, right the own body: only down.
    you = [(5, 5), (5, 6), (6, 6), (6, 5), (6, 4), (7, 4)]
    opp = [(4, 7), (4, 6), (4, 5), (4, 4), (3, 4)]
    check(bot, Scenario(you, [opp]), {"down"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_enters_its_own_moving_tail_but_not_a_stacked_one(bot: str) -> None:
    # Boxed in: the only way out is the square its tail leaves this turn.
    you = [(1, 1), (1, 2), (2, 2), (2, 1), (2, 0), (1, 0)]
    opp = [(0, 3), (0, 2), (0, 1), (0, 0)]
    check(bot, Scenario(you, [opp], other_health=90), {"down"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_does_not_enter_a_stacked_tail(bot: str) -> None:
    # The same shape, but the tail is stacked (just ate): it stays, so go the other way.
    you = [(5, 5), (5, 6), (6, 6), (6, 5), (6, 4), (5, 4), (5, 4)]
    check(bot, Scenario(you, [[(9, 9), (9, 10), (10, 10)]]), {"left"})


@pytest.mark.parametrize("bot", HUNTERS)
def test_longer_snake_wins_the_head_to_head(bot: str) -> None:
    # The shorter snake's only move is down to (0, 4); the hunter gets there first.
    you = [(1, 4), (1, 5), (1, 6), (1, 7), (1, 8)]
    opp = [(0, 5), (0, 6), (0, 7)]
    check(bot, Scenario(you, [opp], food=[(9, 1)]), {"left"})


@pytest.mark.parametrize("bot", list(BOTS))
@pytest.mark.parametrize("opp_length", [3, 4])
def test_avoids_head_to_head_with_equal_or_longer(bot: str, opp_length: int) -> None:
    # Food at (6, 5) tempts the bot, but an equal or longer head can reach it too.
    opp = [(7, 5), (8, 5), (9, 5), (10, 5)][:opp_length]
    check(bot, Scenario([(5, 5), (5, 4), (5, 3)], [opp], food=[(6, 5)]), {"up", "left"})


@pytest.mark.parametrize("bot", HUNTERS)
def test_goes_for_the_head_to_head_food_when_longer(bot: str) -> None:
    # Being longer, contesting the food is safe and starves the shorter snake of it.
    opp = [(7, 5), (8, 5), (9, 5)]
    you = [(5, 5), (5, 4), (5, 3), (5, 2)]
    check(bot, Scenario(you, [opp], food=[(6, 5)], other_health=5), {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_eats_adjacent_food_when_starving(bot: str) -> None:
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)], [[(9, 9), (9, 10), (10, 10)]], food=[(4, 5)], health=1
    )
    check(bot, scenario, {"left"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_reaches_food_just_in_time(bot: str) -> None:
    # Health 3, food 3 squares away around a corner: only the shortest path lives.
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)],
        [[(9, 9), (9, 10), (10, 10)]],
        food=[(3, 6), (0, 0)],
        health=3,
    )
    # Left or up both start a shortest path (3 moves); right does not.
    check(bot, scenario, {"left", "up"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_does_not_enter_a_deadly_hazard(bot: str) -> None:
    # Health 10 and 14 damage: the hazards up and left kill; the food behind them is bait.
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)],
        [[(9, 9), (9, 10), (10, 10)]],
        food=[(5, 7), (3, 5)],
        hazards=[(5, 6), (4, 5)],
        health=10,
    )
    check(bot, scenario, {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_stacked_hazards_deal_damage_per_copy(bot: str) -> None:
    # 20 health survives one hazard (14) but not two stacked ones (28).
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)],
        [[(9, 9), (9, 10), (10, 10)]],
        hazards=[(5, 6), (5, 6), (4, 5), (4, 5), (6, 5)],
        health=20,
    )
    check(bot, scenario, {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_food_on_a_hazard_cancels_its_damage(bot: str) -> None:
    # Health 2: only the food saves it, and food on a hazard square deals no damage.
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)],
        [[(9, 9), (9, 10), (10, 10)]],
        food=[(6, 5)],
        hazards=[(6, 5), (4, 5), (5, 6)],
        health=2,
    )
    check(bot, scenario, {"right"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_wraps_off_the_edge_when_it_is_the_only_safe_move(bot: str) -> None:
    you = [(0, 5), (1, 5), (2, 5)]
    opp = [(0, 7), (0, 6), (1, 6), (2, 6), (3, 6), (3, 5), (3, 4), (2, 4), (1, 4), (0, 4), (0, 3)]
    check(bot, Scenario(you, [opp], ruleset="wrapped"), {"left"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_wraps_off_the_edge_to_reach_food(bot: str) -> None:
    # Health 1 and the only food just across the left edge.
    scenario = Scenario(
        [(0, 5), (1, 5), (2, 5)],
        [[(6, 8), (6, 9), (6, 10)]],
        food=[(10, 5)],
        health=1,
        ruleset="wrapped",
    )
    check(bot, scenario, {"left"})


@pytest.mark.parametrize("bot", list(BOTS))
def test_keeps_room_instead_of_entering_a_pocket(bot: str) -> None:
    # Left leads into a 2-square pocket whose walls free up too late for length 6;
    # the food inside is bait.  Up and right are open.
    you = [(5, 5), (5, 4), (5, 3), (5, 2), (5, 1), (5, 0)]
    opp = [(4, 3), (4, 4), (3, 4), (2, 4), (2, 5), (2, 6), (3, 6), (4, 6), (4, 7), (3, 7)]
    check(bot, Scenario(you, [opp], food=[(3, 5)]), {"right", "up"})


def test_hunter_handles_many_snakes_on_a_big_wrapped_board_within_budget() -> None:
    rng = random.Random(5)
    bot = HunterBot(budget=40)
    settings = Settings.defaults(seed=11)
    config = GameConfig(ruleset="wrapped", width=19, height=19, settings=settings)
    game = Game(config, [f"s{i}" for i in range(8)])
    info = GameInfo(id="big", ruleset_name="wrapped", settings=settings)
    worst = 0.0
    for _ in range(12):
        if game.is_over:
            break
        state = game.state
        board = state.replace(snakes=state.alive_snakes)
        moves = {}
        for snake in board.snakes:
            if snake.id == "s0":
                began = time.perf_counter()
                moves[snake.id] = _move(bot, SnakeRequest(info, state.turn, board, snake))
                worst = max(worst, time.perf_counter() - began)
            else:
                options = safe_moves(board, snake, wrapped=True) or ["up"]
                moves[snake.id] = rng.choice(options)
        game.step(moves)
    # It stops on its 40 ms clock: the slack is for a busy machine (where the time between
    # two looks at the clock stretches), far below what a search that ignored its clock
    # takes (seconds: a crowded 19x19 board, no depth limit).
    assert worst < 0.040 + 0.5


# -- options ------------------------------------------------------------------------------


def test_make_bot_builds_both_bots_with_options() -> None:
    hunter = make_bot("hunter?budget=100&depth=3")
    assert isinstance(hunter, HunterBot) and (hunter.budget, hunter.depth) == (100, 3)
    assert isinstance(make_bot("builtin:greedy"), GreedyBot)
    assert make_bot("greedy").metadata.author == "snakewar"


@pytest.mark.parametrize("spec", ["hunter?depth=0", "hunter?budget=-5", "hunter?opponents=0"])
def test_bad_hunter_options_are_refused(spec: str) -> None:
    with pytest.raises(UnknownBotError, match="expected a positive integer"):
        make_bot(spec)
    with pytest.raises(BotOptionError):
        HunterBot(depth=0)


@pytest.mark.parametrize(
    ("spec", "names"),
    [
        ("hunter?depth=40&budget=100000", "budget=100000: expected a positive integer up to"),
        ("hunter?depth=40", f"depth=40: expected a positive integer up to {MAX_DEPTH}"),
        (f"hunter?depth={MAX_DEPTH + 1}", f"(1..{MAX_DEPTH})"),
        (f"hunter?budget={MAX_BUDGET_MS + 1}", f"budget={MAX_BUDGET_MS + 1}: "),
        (f"hunter?opponents={MAX_OPPONENTS + 1}", f"(1..{MAX_OPPONENTS})"),
    ],
)
def test_hunter_options_past_their_maximum_are_refused(spec: str, names: str) -> None:
    with pytest.raises(UnknownBotError) as info:
        make_bot(spec)
    assert names in str(info.value) and "\n" not in str(info.value)
    # The largest values themselves are accepted.
    most = make_bot(f"hunter?depth={MAX_DEPTH}&budget={MAX_BUDGET_MS}&opponents={MAX_OPPONENTS}")
    assert isinstance(most, HunterBot) and most.depth == MAX_DEPTH


def _crowded_request(timeout_ms: int) -> SnakeRequest:
    # 8 snakes on a 19x19 board: the costliest position a search meets.
    settings = Settings.defaults(seed=3)
    config = GameConfig(ruleset="standard", width=19, height=19, settings=settings)
    game = Game(config, [f"s{i}" for i in range(8)])
    info = GameInfo(id="cap", ruleset_name="standard", settings=settings, timeout=timeout_ms)
    state = game.state
    return SnakeRequest(info, state.turn, state, state.snakes[0])


@pytest.mark.parametrize(
    "options",
    [f"depth={MAX_DEPTH}", f"budget={MAX_BUDGET_MS}", f"depth={MAX_DEPTH}&opponents=7"],
)
def test_a_search_never_outlasts_the_games_timeout(options: str) -> None:
    bot = make_bot(f"hunter?{options}")
    assert isinstance(bot, HunterBot)
    began = time.perf_counter()
    reply = bot.move(_crowded_request(100))
    took_ms = (time.perf_counter() - began) * 1000
    assert reply.move in _DELTA
    # The cap is 80 ms of a 100 ms game: it stopped on that clock (not at its depth, which
    # no game's time allows), soon after it.  The slack is for a busy machine (67 ms past
    # the cap at load 10 here), far below what the search it cut short would take.
    assert think_cap_ms(100) == 80.0
    assert bot.last is not None and bot.last.depth < MAX_DEPTH
    assert took_ms < 80 + 500, took_ms


def test_unknown_hunter_option_is_refused() -> None:
    with pytest.raises(UnknownBotError, match="bad options"):
        make_bot("hunter?speed=3")


def test_default_budget_follows_the_timeout() -> None:
    assert default_budget_ms(500) == 250.0
    assert default_budget_ms(200) == 50.0
    assert default_budget_ms(60) == 20.0


def test_fixed_depth_hunter_is_deterministic() -> None:
    scenario = Scenario(
        [(5, 5), (5, 4), (5, 3)], [[(2, 8), (2, 9), (2, 10)]], food=[(8, 2), (1, 1)]
    )
    request = scenario.request()
    moves = {_move(HunterBot(depth=3), request) for _ in range(3)}
    assert len(moves) == 1
    bot = HunterBot(depth=3)
    bot.move(request)
    assert bot.last is not None and bot.last.depth == 3 and bot.last.nodes > 0


# -- the simulator against the rules engine -----------------------------------------------


@pytest.mark.parametrize(
    ("ruleset", "map_id", "snakes", "overrides"),
    [
        ("standard", "standard", 4, {}),
        ("wrapped", "standard", 3, {}),
        ("constrictor", "standard", 2, {}),
        ("wrapped_constrictor", "standard", 4, {}),
        ("royale", "standard", 4, {"shrinkEveryNTurns": 5}),
        ("standard", "hz_spiral", 3, {"damagePerTurn": 30}),
        ("wrapped", "hz_islands_bridges", 2, {"damagePerTurn": -5}),
    ],
)
def test_simulator_step_matches_the_rules_engine(
    ruleset: str, map_id: str, snakes: int, overrides: dict[str, int]
) -> None:
    wrapped = ruleset.startswith("wrapped")
    turns = 0
    for seed in range(1, 9):
        settings = Settings.defaults(seed=seed, **overrides)
        ids = [f"s{i}" for i in range(snakes)]
        game = Game(GameConfig(ruleset=ruleset, map=map_id, settings=settings), ids)
        rng = random.Random(seed)
        info = GameInfo(id="sim", ruleset_name=ruleset, settings=settings)
        while not game.is_over:
            state = game.state
            alive = state.alive_snakes
            moves = {}
            for s in alive:
                options = safe_moves(state, s, wrapped)
                careful = options and rng.random() < 0.97
                moves[s.id] = rng.choice(options if careful else ["up", "down", "left", "right"])
            board = state.replace(snakes=alive)
            sim, sim_snakes, food, order = sim_from_request(
                SnakeRequest(info, state.turn, board, alive[0])
            )
            geo = sim.geo
            dests = []
            for sid in order:
                head = board.snake(sid).body[0]
                dx, dy = _DELTA[moves[sid]]
                x, y = head.x + dx, head.y + dy
                if wrapped:
                    x, y = x % geo.width, y % geo.height
                on = 0 <= x < geo.width and 0 <= y < geo.height
                dests.append(y * geo.width + x if on else -1)
            after, after_food = sim.step(sim_snakes, food, dests)
            result = game.step(moves)
            if result.game_over:
                break
            real = result.after_rules
            for sid, mine in zip(order, after, strict=True):
                snake = real.snake(sid)
                if snake.eliminated_cause:
                    assert mine is None, (seed, state.turn, sid, snake.eliminated_cause)
                else:
                    assert mine is not None, (seed, state.turn, sid)
                    assert mine[0] == tuple(geo.cell(p) for p in snake.body)
                    assert mine[1] == snake.health
                    assert mine[2] == sum(1 << c for c in set(mine[0]))
            assert after_food == sum(1 << geo.cell(p) for p in set(real.food))
            turns += 1
    assert turns > 100


def test_territory_splits_the_board_between_two_heads() -> None:
    geo = geometry(5, 1, False)
    a = ((0,), 100, 1 << 0)
    b = ((4,), 100, 1 << 4)
    areas, food_dists, _ = territory(geo, [a, b], [0, 1], 1 << 3, True)
    # Square 2 is equidistant and both snakes are as long: nobody's.
    assert areas == [1, 1] and food_dists == [-1, 1]
    longer = ((0, 0), 100, 1 << 0)
    areas, _, _ = territory(geo, [longer, b], [0, 1], 0, True)
    assert areas == [2, 1]


def test_wrapped_geometry_neighbours_cross_the_edges() -> None:
    geo = geometry(4, 3, True)
    # Cell 0 is (0, 0): up (0, 1), down wraps to (0, 2), left wraps to (3, 0), right (1, 0).
    assert geo.neighbours[0] == (4, 8, 3, 1)
    assert geo.expand(1 << 0) == (1 << 4) | (1 << 8) | (1 << 3) | (1 << 1)


# -- strength -----------------------------------------------------------------------------


def _play(first: Bot, second: Bot, seed: int, max_turns: int = 400) -> str | None:
    settings = Settings.defaults(seed=seed)
    game = Game(GameConfig(settings=settings), ["a", "b"])
    bots = {"a": first, "b": second}
    info = GameInfo(id=f"strength-{seed}", settings=settings)
    while not game.is_over and game.state.turn < max_turns:
        state = game.state
        board = state.replace(snakes=state.alive_snakes)
        game.step(
            {
                s.id: _move(bots[s.id], SnakeRequest(info, state.turn, board, s))
                for s in board.snakes
            }
        )
    return game.result().winner


def test_hunter_beats_greedy_in_most_games() -> None:
    wins = 0
    games = 10
    for seed in range(1, games + 1):
        hunter, greedy = HunterBot(depth=2), GreedyBot()
        if seed % 2:
            wins += _play(hunter, greedy, seed) == "a"
        else:
            wins += _play(greedy, hunter, seed) == "b"
    assert wins > games // 2, f"hunter won only {wins} of {games}"


def test_greedy_beats_random_in_most_games() -> None:
    wins = sum(_play(GreedyBot(), make_bot("random"), seed) == "a" for seed in range(1, 11))
    assert wins > 5
