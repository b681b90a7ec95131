"""Battlesnake games in Python and in notebooks: play one, load a replay, show it inline.

>>> import snakewar
>>> game = snakewar.play(["random", "random"], seed=3, width=7, height=7, bots_in_process=True)
>>> game.result.turns == len(game.turns)
True

:func:`play` runs a game between entrants written as the command line writes them
(built-in bot names, URLs, ``human``) and returns a :class:`SnakeGame`;
:func:`load_replay` reads a replay file into one.  In Jupyter a :class:`SnakeGame`
shows itself as the game's viewer (``_repr_html_``): the self-contained page of
``snakewar export --html`` in an ``<iframe srcdoc>``, with its modules, style and
replay inside, so it needs no server and no network.  Game records and replays show
the same viewer on their own (their ``_repr_html_`` reaches :func:`record_html` through
the registry of games, as the layers allow), with or without this module imported.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import html
import os
import secrets
import sys
from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from snakewar.errors import SnakewarError

if TYPE_CHECKING:
    from snakewar.games.battlesnake.records import GameRecord, TurnRecord
    from snakewar.games.battlesnake.referee.human import HumanClient
    from snakewar.games.battlesnake.rules.game import GameResult
    from snakewar.games.battlesnake.rules.types import BoardState

__all__ = ["SnakeGame", "load_replay", "play", "play_async", "record_html"]

VIEWER_HEIGHT = 560
"""The inline viewer's height in pixels (its width is the notebook's)."""

_SETTINGS = {
    "foodSpawnChance": 15,
    "minimumFood": 1,
    "hazardDamagePerTurn": 14,
    "shrinkEveryNTurns": 25,
    "maxFood": 1,
    "snakeStartLength": 3,
    "decHealthPoints": 1,
}
"""The rules settings :func:`play` takes, with the command line's defaults."""


def record_html(record: GameRecord, *, height: int = VIEWER_HEIGHT) -> str:
    """``record`` as an ``<iframe>`` holding the offline viewer (what Jupyter shows).

    The viewer is the page ``snakewar export --html`` writes, given as the frame's
    ``srcdoc`` (escaped): nothing is fetched, from a server or the network.
    """
    from snakewar.games.battlesnake.media import SnakeMedia
    from snakewar.games.battlesnake.replay.format import replay_lines

    data = "".join(line + "\n" for line in replay_lines(record, created="")).encode("utf-8")
    page = SnakeMedia().load(data, record.id).html(f"Battlesnake game {record.id}")
    return (
        f'<iframe class="snakewar-viewer" title="Battlesnake game {html.escape(record.id)}" '
        f'style="width:100%;height:{int(height)}px;border:0" '
        f'srcdoc="{html.escape(page, quote=True)}"></iframe>'
    )


class SnakeGame:
    """One Battlesnake game, played by :func:`play` or read by :func:`load_replay`.

    Attributes:
        record: the whole game (:class:`~snakewar.games.battlesnake.records.GameRecord`).
    """

    def __init__(self, record: GameRecord) -> None:
        self.record = record

    @property
    def id(self) -> str:
        """The game's id."""
        return self.record.id

    @property
    def result(self) -> GameResult | None:
        """How the game ended: ``winner`` (a snake id), ``is_draw``, ``turns``, ``reason``.

        ``None`` for an unfinished game (a replay cut short).
        """
        return self.record.result

    @property
    def winner(self) -> str | None:
        """The winner's name (``None``: a draw, or no result)."""
        result = self.record.result
        if result is None or result.winner is None:
            return None
        return self.record.snake(result.winner).name

    @property
    def names(self) -> dict[str, str]:
        """Each snake's name, by id, in placement order."""
        return {entry.id: entry.name for entry in self.record.snakes}

    @property
    def turns(self) -> list[TurnRecord]:
        """Each turn: the calls made (``.calls``), the moves (``.moves``), the board after."""
        return self.record.turns

    @property
    def boards(self) -> list[BoardState]:
        """The board before the first turn and after each turn."""
        return [self.record.initial, *(turn.after for turn in self.record.turns)]

    @property
    def latencies(self) -> dict[str, list[int]]:
        """Each snake's move latencies in milliseconds, turn by turn, by name."""
        names = self.names
        out: dict[str, list[int]] = {name: [] for name in names.values()}
        for turn in self.record.turns:
            for sid, call in turn.calls.items():
                out[names[sid]].append(call.latency_ms)
        return out

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the game as a Snakewar replay (gzip-compressed if ``path`` ends in ``.gz``).

        Raises:
            ReplayError: if the file cannot be written.
        """
        from snakewar.games.battlesnake.replay.format import write_replay

        return write_replay(self.record, path)

    def html(self, *, height: int = VIEWER_HEIGHT) -> str:
        """The inline viewer (:func:`record_html`), ``height`` pixels high."""
        return record_html(self.record, height=height)

    def _repr_html_(self) -> str:
        return self.html()

    def __repr__(self) -> str:
        snakes = ", ".join(entry.name for entry in self.record.snakes)
        result = self.record.result
        if result is None:
            outcome = f"unfinished after {len(self.record.turns)} turns"
        elif result.winner is not None:
            outcome = f"{self.winner} won in {result.turns} turns"
        elif result.is_draw:
            outcome = f"draw in {result.turns} turns"
        else:
            outcome = f"over after {result.turns} turns"
        config = self.record.config
        return (
            f"<SnakeGame {self.record.id}: {snakes}; {outcome}; {config.ruleset} "
            f"{config.width}x{config.height}, seed {config.settings.seed}>"
        )


def load_replay(path: str | os.PathLike[str]) -> SnakeGame:
    """Read a Snakewar replay file (``--replay``, ``snakewar download``; ``.gz`` too).

    Raises:
        ReplayError: for a missing, damaged or foreign file, naming the line and field.
    """
    from snakewar.games.battlesnake.replay.format import read_replay

    return SnakeGame(read_replay(os.fspath(path)))


def play(
    snakes: Sequence[str],
    *,
    names: Sequence[str] = (),
    ruleset: str = "standard",
    map: str | None = None,
    width: int | None = None,
    height: int | None = None,
    seed: int | None = None,
    timeout: int = 500,
    max_turns: int | None = None,
    sequential: bool = False,
    settings: Mapping[str, int] | None = None,
    human_timeout: int | None = None,
    bots_in_process: bool = False,
) -> SnakeGame:
    """Play one game and return it; in Jupyter it shows itself as the viewer.

    Works with or without a running event loop: inside one (a notebook's), the game
    runs on an event loop of its own in a worker thread while this call waits.  In
    a coroutine, ``await`` :func:`play_async` instead.

    Args:
        snakes: the entrants in placement order, as ``snakewar play`` takes them: a
            built-in bot's name (``"hunter"``, ``"builtin:greedy?depth=2"``), a URL,
            ``v0:URL``/``legacy:URL``, or ``"human"`` (a person at this terminal,
            arrow keys or WASD; needs a terminal).
        names: the snakes' names, in order (default: after their source).
        ruleset: ``standard``, ``solo``, ``royale``, ``constrictor``, ``wrapped``,
            ``classic``...
        map: a map id (default: the ruleset's).
        width: board width (default: the ruleset's, 11 or 20 for classic).
        height: board height (default: the ruleset's).
        seed: the game's seed (default: random; ``game.record.config.settings.seed``).
        timeout: each move's timeout in milliseconds.
        max_turns: stop after this many turns.
        sequential: ask the snakes one after the other.
        settings: rules settings by their command-line names (``foodSpawnChance``,
            ``minimumFood``, ``hazardDamagePerTurn``, ``shrinkEveryNTurns``, ``maxFood``,
            ``snakeStartLength``, ``decHealthPoints``).
        human_timeout: the person's time for each move in milliseconds (default 10 s).
        bots_in_process: run built-in bots in this process rather than worker processes.

    Raises:
        SnakewarError: an entrant that is no snake, a snake that cannot be reached,
            settings the rules refuse; each names what is wrong.
    """
    game = play_async(
        snakes,
        names=names,
        ruleset=ruleset,
        map=map,
        width=width,
        height=height,
        seed=seed,
        timeout=timeout,
        max_turns=max_turns,
        sequential=sequential,
        settings=settings,
        human_timeout=human_timeout,
        bots_in_process=bots_in_process,
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(game)
    # A loop runs in this thread (Jupyter's): asyncio.run cannot nest, so the game gets
    # a thread and a loop of its own, and this call waits for it like any other call.
    with concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="snakewar-play") as pool:
        return pool.submit(asyncio.run, game).result()


async def play_async(
    snakes: Sequence[str],
    *,
    names: Sequence[str] = (),
    ruleset: str = "standard",
    map: str | None = None,
    width: int | None = None,
    height: int | None = None,
    seed: int | None = None,
    timeout: int = 500,
    max_turns: int | None = None,
    sequential: bool = False,
    settings: Mapping[str, int] | None = None,
    human_timeout: int | None = None,
    bots_in_process: bool = False,
    on_turn: Callable[[GameRecord, TurnRecord], Awaitable[None] | None] | None = None,
) -> SnakeGame:
    """:func:`play` as a coroutine, for code already in an event loop.

    ``on_turn(record, turn)`` is called after each turn.  The other arguments are
    :func:`play`'s.

    Raises:
        SnakewarError: as :func:`play`.
    """
    from snakewar.games.battlesnake.adapter import settings_params
    from snakewar.games.battlesnake.referee.batch import SnakeMatch, builtin_pool
    from snakewar.games.battlesnake.referee.clients import new_http_client
    from snakewar.games.battlesnake.referee.human import HUMAN
    from snakewar.games.battlesnake.referee.runner import (
        close_clients,
        connect,
        play_game,
        snake_kind,
    )
    from snakewar.games.battlesnake.rules.classic import default_board

    specs = tuple(snakes)
    if isinstance(snakes, str) or not specs:
        raise SnakewarError("snakes: expected a list of entrants, e.g. ['hunter', 'greedy']")
    for spec in specs:
        snake_kind(spec)  # a bad entrant fails before anything starts
    if timeout < 1:
        raise SnakewarError(f"timeout: {timeout}: expected milliseconds >= 1")
    unknown = sorted(set(settings or {}) - set(_SETTINGS))
    if unknown:
        raise SnakewarError(
            f"settings: unknown {unknown[0]!r}; expected one of {sorted(_SETTINGS)}"
        )
    default_map, default_width, default_height = default_board(ruleset)
    params = {"ruleset": ruleset, **_SETTINGS, **(settings or {})}
    match = SnakeMatch(
        snakes=specs,
        names=tuple(names),
        ruleset=ruleset,
        map=default_map if map is None else map,
        width=default_width if width is None else width,
        height=default_height if height is None else height,
        params=settings_params(params),
        timeout_ms=timeout,
        sequential=sequential,
        max_turns=max_turns,
    )
    game_seed = seed if seed is not None else secrets.randbits(62) + 1
    match.check(game_seed)
    with _human(any(snake_kind(s)[0] == HUMAN for s in specs), human_timeout) as human:
        pooled = () if bots_in_process else specs
        async with new_http_client() as http, builtin_pool(pooled) as bots:
            connected = await connect(specs, match.names, http, timeout, bots, human)
            try:
                record = await play_game(
                    match.config(game_seed),
                    connected,
                    timeout_ms=timeout,
                    sequential=sequential,
                    max_turns=max_turns,
                    on_turn=on_turn,
                )
            finally:
                await close_clients(connected)
    return SnakeGame(record)


@contextmanager
def _human(wanted: bool, timeout_ms: int | None) -> Iterator[HumanClient | None]:
    """The client ``human`` plays through here: this terminal's keys (none if not wanted).

    Raises:
        SnakewarError: ``human`` without a terminal to read keys from.
    """
    if not wanted:
        yield None
        return
    from snakewar.games.battlesnake.referee.human import (
        DEFAULT_HUMAN_TIMEOUT_MS,
        HumanClient,
        HumanMoves,
        check_human_timeout,
    )
    from snakewar.games.battlesnake.referee.keyboard import terminal_keys

    if not sys.stdin.isatty():
        raise SnakewarError(
            "snake 'human': no terminal to read keys from; run `snakewar play human ... "
            "--browser` to play in the browser"
        )
    moves = HumanMoves()
    client = HumanClient(moves, check_human_timeout(timeout_ms or DEFAULT_HUMAN_TIMEOUT_MS))
    with terminal_keys(moves, sys.stdin.fileno()):
        yield client
