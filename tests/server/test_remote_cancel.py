"""Cancelling a game played elsewhere (on a cluster) when its player is gone before it answers.

The server that started a cluster game takes its actor down as soon as the game ends.
When another server's cancel is what ended it, that can happen before the actor's
answer to the cancel left it: the cancelling server then hears nothing back.  The
stored game says whether the game was stopped: a cancel that stopped it succeeded.

Here the cluster's part is played by a second server in this process that plays the
game for real (its frames and its ending stored as an actor stores them); the runner
of the cancelling server reaches it as the cluster runner reaches an actor, and is
answered as the cluster runner is when the actor is gone.
"""

from __future__ import annotations

import asyncio

from snakewar.adapters import get_game
from snakewar.engine.protocol import Entrant, GameAdapter, MatchSpec
from snakewar.server.manager import GameManager, LiveGame, UserCaps
from snakewar.server.runners import Action, GameRunner, Launch, RemoteState
from snakewar.storage import AsyncStore, GameStatus, Store


class Elsewhere(GameRunner):
    """Games played by `player`; a control call that stops the game gets no answer."""

    remote = True

    def __init__(self, player: GameManager, *, stops: bool) -> None:
        super().__init__()
        self.player = player
        self.stops = stops
        self.asked: list[tuple[str, Action]] = []

    def launch(self, live: LiveGame, adapter: GameAdapter, steps: bool) -> Launch:
        raise AssertionError("this server starts no game")

    async def control(self, game_id: str, action: Action) -> RemoteState | None:
        self.asked.append((game_id, action))
        if action == "cancel" and self.stops:
            await self.player.cancel(game_id)  # the actor stopped it, then was taken down
        return None


def test_a_cancel_whose_answer_is_lost_succeeds_when_it_stopped_the_game() -> None:
    async def scenario() -> None:
        with Store("sqlite://") as opened:
            store = AsyncStore(opened)
            player = GameManager(store, builtin_workers=4, user_caps=UserCaps())
            await player.start()
            spec = MatchSpec(
                "battlesnake",
                (Entrant("builtin:random", "a"), Entrant("builtin:random", "b")),
                get_game("battlesnake").parse_params({"width": 7, "height": 7}),
            )
            try:
                first = await player.create(spec, 1, step=True)
                second = await player.create(spec, 2, step=True)
                stopping = GameManager(store, runner=Elsewhere(player, stops=True))
                silent = GameManager(store, runner=Elsewhere(player, stops=False))
                # Stopped, though unanswered: done.
                assert await stopping.cancel(first.id)
                row = await store.run(store.store.games.get, first.id)
                assert row is not None and row.status == GameStatus.CANCELLED
                # Not stopped and unanswered (no such actor): not done, still running.
                assert not await silent.cancel(second.id)
                row = await store.run(store.store.games.get, second.id)
                assert row is not None and row.status == GameStatus.RUNNING
                # A game already over is not asked about at all.
                asked = len(stopping.runner.asked)  # type: ignore[attr-defined]
                assert not await stopping.cancel(first.id)
                assert len(stopping.runner.asked) == asked  # type: ignore[attr-defined]
                await player.cancel(second.id)
            finally:
                await player.close()
                store.close()

    asyncio.run(scenario())
