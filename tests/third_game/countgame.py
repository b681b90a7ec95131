"""A third game, as another package would add one: one adapter, declared by an entry point.

*Count* is as small as a game can be: two built-in bots (``builtin:one`` adds 1 to
its total each turn, ``builtin:two`` adds 2), ``turns`` turns, the higher total wins.
It exists to prove that the game-agnostic layers (the arena, storage, the server,
``snakewar replay``) play, store, show and verify a game they have never heard of:
``tests/third_game/test_third_game.py`` installs it beside Snakewar through an entry
point only, touching no Snakewar file.  It adds two commands to ``snakewar`` the same
way (entry point group ``snakewar.commands``, :data:`COMMANDS`): ``snakewar count``, which
reads its own command line, and ``snakewar bench count``, one of the frame's benchmarks.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping
from typing import Any

import typer

from snakewar.engine.protocol import (
    BotInfo,
    Catalogue,
    Entrant,
    EntrantResult,
    Frame,
    GameAdapter,
    GameCommand,
    GameData,
    MatchHooks,
    MatchSpec,
    Param,
    PlayedGame,
    PlaySession,
    Reach,
    ReplayCodec,
    ReplayInfo,
    StoredGame,
    TerminalReplay,
    VerifyResult,
    ViewerPage,
)
from snakewar.errors import EntrantError, ParamsError
from snakewar.replay import ReplayError

NAME = "count"
STEP = {"builtin:one": 1, "builtin:two": 2}


def _totals(sources: list[str], turns: int) -> list[int]:
    return [STEP[s] * turns for s in sources]


def _ranks(totals: list[int]) -> list[int]:
    return [1 + sum(other > mine for other in totals) for mine in totals]


class CountReplays(ReplayCodec):
    """A Count replay: one JSON object naming the game, the seed, the bots and totals."""

    name = "count-json"
    media_type = "application/json"
    looks_like = 'a JSON object with "game": "count"'

    def _read(self, data: bytes, name: str) -> dict[str, Any]:
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise ReplayError(f"{name}: not a Count replay ({exc})") from None
        if not isinstance(doc, dict) or doc.get("game") != NAME:
            raise ReplayError(f"{name}: not a Count replay")
        return doc

    def sniff(self, head: bytes, name: str = "") -> bool:
        return head.lstrip().startswith(b'{"game":"count"')

    def describe(self, data: bytes, name: str = "replay") -> ReplayInfo:
        doc = self._read(data, name)
        return ReplayInfo(
            game=NAME,
            format=self.name,
            seed=doc["seed"],
            turns=doc["turns"],
            entrants=tuple(doc["names"]),
            summary=(f"totals {doc['totals']}",),
        )

    def terminal(self, data: bytes, name: str = "replay") -> TerminalReplay:
        doc = self._read(data, name)

        def draw(console: Any, index: int, color: bool, unicode: bool) -> None:
            del color, unicode
            totals = [STEP[s] * index for s in doc["sources"]]
            console.print(f"turn {index}: " + ", ".join(map(str, totals)))

        return TerminalReplay(
            turns=tuple(range(doc["turns"] + 1)), draw=draw, summary=(str(doc["totals"]),)
        )

    def verify(self, data: bytes, name: str = "replay") -> VerifyResult:
        doc = self._read(data, name)
        again = _totals(doc["sources"], doc["turns"])
        if again != doc["totals"]:
            return VerifyResult(False, f"totals differ: {again} != {doc['totals']}", doc["turns"])
        return VerifyResult(True, f"OK: {doc['turns']} turns replayed", doc["turns"])


class CountGame(GameAdapter):
    """The Count game's adapter."""

    def __init__(self) -> None:
        self._replays = CountReplays()

    def catalogue(self) -> Catalogue:
        return Catalogue(
            name=NAME,
            version=1,
            title="Count",
            description="Add your number each turn; the higher total wins.",
            params=(Param("turns", "int", 3, "Turns to play.", minimum=1, maximum=20),),
            bots=(BotInfo("one", "adds 1"), BotInfo("two", "adds 2")),
            player_counts=(2, 3, 4),
            default_timeout_ms=100,
            entrant_help="builtin:one or builtin:two",
        )

    def entrant(self, text: str, name: str | None = None) -> Entrant:
        source = text if text.startswith("builtin:") else f"builtin:{text}"
        if source not in STEP:
            raise EntrantError(f"unknown Count bot {text!r}; expected one or two")
        return Entrant(source, name or source.removeprefix("builtin:"))

    def reach(self, entrant: Entrant) -> Reach:
        return Reach("builtin")

    def check(self, spec: MatchSpec) -> None:
        if len(spec.entrants) not in self.catalogue().player_counts:
            raise ParamsError("snakes", f"{len(spec.entrants)} players; expected 2, 3 or 4")

    async def play(
        self,
        spec: MatchSpec,
        seed: int,
        session: PlaySession,
        hooks: MatchHooks | None = None,
    ) -> PlayedGame:
        hooks = hooks or MatchHooks()
        game_id = hooks.game_id or f"count-{seed}"
        turns = int(spec.params["turns"])
        sources = [e.source for e in spec.entrants]
        header: Mapping[str, Any] = {"seed": seed, "sources": sources, "names": list(spec.names)}
        frames = [Frame(t, {"totals": [STEP[s] * t for s in sources]}) for t in range(turns + 1)]
        stored = StoredGame(
            id=game_id,
            game=NAME,
            seed=seed,
            width=0,
            height=0,
            turns=0,
            source=spec.source,
            title="Count",
            entrants=spec.entrants,
        )
        if hooks.on_start is not None:
            started = hooks.on_start(stored, GameData(header, (frames[0],)))
            if started is not None:
                await started
        for frame in frames[1:]:
            if hooks.on_frame is not None:
                step = hooks.on_frame(frame)
                if step is not None:
                    await step
        totals = _totals(sources, turns)
        ranks = _ranks(totals)
        result = {"totals": totals, "ranks": ranks}
        return PlayedGame(
            game=NAME,
            id=game_id,
            seed=seed,
            turns=turns,
            results=tuple(
                EntrantResult(seat, entrant.name, entrant.source, ranks[seat], float(totals[seat]))
                for seat, entrant in enumerate(spec.entrants)
            ),
            data=GameData(header, tuple(frames), result),
            title="Count",
            source=spec.source,
            spec=spec,
        )

    @property
    def replays(self) -> ReplayCodec:
        return self._replays

    def export(self, data: GameData) -> bytes:
        if data.result is None:
            raise ReplayError("the game is not finished")
        doc = {
            "game": NAME,
            "seed": data.header["seed"],
            "turns": len(data.frames) - 1,
            "sources": data.header["sources"],
            "names": data.header["names"],
            "totals": data.result["totals"],
        }
        return json.dumps(doc, separators=(",", ":")).encode()

    def replay_filename(self, game_id: str) -> str:
        return f"{game_id}.count.json"

    def commands(self) -> Mapping[str, GameCommand]:
        return COMMANDS

    def viewer_page(self, game_id: str, *, server: str, turn: int | None = None) -> ViewerPage:
        # A real game ships its own viewer and page template; Count borrows the board's.
        return ViewerPage(template="game.html", board=f"board.html?game={game_id}")


GAME = CountGame()
"""The adapter the entry point names."""


def count_main(argv: list[str]) -> int:
    """``snakewar count [TURNS]``: the totals of one and two after TURNS turns (default 3)."""
    if len(argv) > 1 or (argv and not argv[0].isdigit()):
        print("error: usage: snakewar count [TURNS]", file=sys.stderr)
        return 2
    turns = int(argv[0]) if argv else 3
    totals = _totals(["builtin:one", "builtin:two"], turns)
    print(f"one {totals[0]}, two {totals[1]} after {turns} turns")
    return 0


def bench_count(
    games: int = typer.Option(10, "--games", help="Games to play."),
) -> None:
    """Count games played per second (there is nothing to measure: a plug-in's benchmark)."""
    for _ in range(games):
        _totals(["builtin:one", "builtin:two"], 3)
    typer.echo(f"{games} Count games played")


COMMANDS = {
    "count": GameCommand(
        "countgame",
        "count_main",
        "Count: the totals of one and two after TURNS turns.",
        after="games",
        own_args=True,
    ),
    "bench count": GameCommand(
        "countgame",
        "bench_count",
        "Count games played per second (there is nothing to measure: a plug-in's benchmark).",
    ),
}
"""Count's commands of ``snakewar``, declared in the entry point group ``snakewar.commands``."""
