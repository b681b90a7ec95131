"""Halite III games in the arena: the same executors, ratings, ladders and tournaments.

A Halite match is a :class:`HaliteSpec` (bot commands or ``builtin:NAME``, map size,
turn limit, turn timeout).  It travels in a :class:`~snakewar.arena.executors.GameJob`
like a Battlesnake match; an executor plays it with
:func:`~snakewar.referee.halite.play_halite` and returns a :class:`HaliteSummary`:
ranks, scores, why bots were killed, and the game's official ``.hlt`` replay.  Ratings
take the placement from the engine's ranks (every rank differs, so there are no ties).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from snakewar.errors import SnakewarError

__all__ = [
    "HaliteSpec",
    "HaliteSpecError",
    "HaliteSummary",
    "halite_entrant",
    "halite_game_id",
    "play_halite_spec",
    "play_halite_spec_sync",
    "store_halite_summary",
]

_PLAYER_COUNTS = (1, 2, 4, 8, 16)


class HaliteSpecError(SnakewarError, ValueError):
    """A Halite match that cannot be set up (player count, map size, timeout)."""


@dataclass(frozen=True, slots=True)
class HaliteSpec:
    """One Halite III match: who plays and on what map.

    Attributes:
        entrants: one per player: a shell command or ``builtin:NAME[?opts]``.
        names: the names to rate and show, one per player.
        width: map width; 0 lets the seed pick the size, as official play does.
        height: map height; 0 means the same as ``width``.
        turn_limit: the official ``--turn-limit`` (``None``: by map size).
        turn_timeout_ms: each bot's time per turn.
        source: where the game comes from (``ladder:NAME``, ``tournament:ID``).
    """

    entrants: tuple[str, ...]
    names: tuple[str, ...]
    width: int = 0
    height: int = 0
    turn_limit: int | None = None
    turn_timeout_ms: int = 2000
    source: str = ""

    def check(self) -> None:
        """Fail now if this match cannot be played.

        Raises:
            HaliteSpecError: the player count, map size or timeout is impossible.
        """
        from snakewar.games.halite3 import HaliteGame, MapError

        if len(self.entrants) != len(self.names):
            raise HaliteSpecError(
                f"{len(self.entrants)} entrants but {len(self.names)} names; expected one each"
            )
        if len(self.entrants) not in _PLAYER_COUNTS:
            raise HaliteSpecError(f"{len(self.entrants)} Halite players: expected 1, 2, 4, 8 or 16")
        if self.turn_timeout_ms < 1:
            raise HaliteSpecError(f"turn timeout {self.turn_timeout_ms} ms: expected at least 1")
        if self.width:
            try:
                HaliteGame.create(
                    1, len(self.entrants), width=self.width, height=self.height or None
                )
            except MapError as exc:
                raise HaliteSpecError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class HaliteSummary:
    """What the arena keeps of a played Halite game.

    Attributes:
        seed: the map seed.
        width: map width.
        height: map height.
        names: the players' names (the spec's), by player id.
        ranks: each player's rank, 1 = winner.
        scores: each player's final halite (0 for a player killed or out of resources).
        turns: turns played.
        killed: why a player was killed (protocol failure or fatal command), by id.
        hlt: the official ``.hlt`` replay (zstd-compressed JSON).
    """

    seed: int
    width: int
    height: int
    names: tuple[str, ...]
    ranks: tuple[int, ...]
    scores: tuple[int, ...]
    turns: int
    killed: dict[int, str]
    hlt: bytes

    def placement(self, keys: Sequence[str] | None = None) -> list[list[str]]:
        """The placement (best first) for the ratings: one group per rank."""
        names = list(keys) if keys is not None else list(self.names)
        if len(names) != len(self.ranks):
            raise HaliteSpecError(f"{len(names)} keys for {len(self.ranks)} players")
        order = sorted(range(len(names)), key=lambda pid: self.ranks[pid])
        return [[names[pid]] for pid in order]


async def play_halite_spec(spec: HaliteSpec, seed: int) -> HaliteSummary:
    """Play one Halite match and summarize it (with its ``.hlt`` replay)."""
    from snakewar.referee.halite import play_halite
    from snakewar.replay.hlt import encode_hlt, replay_document

    match = await play_halite(
        list(spec.entrants),
        seed=seed & 0xFFFFFFFF,
        width=spec.width or None,
        height=spec.height or spec.width or None,
        turn_limit=spec.turn_limit,
        turn_timeout=spec.turn_timeout_ms / 1000,
        names=list(spec.names),
    )
    game = match.game
    result = game.result()
    names = tuple(spec.names)
    document = replay_document(game, names, execution_time_ms=match.execution_time_ms)
    killed: dict[int, str] = {}
    for pid, player in enumerate(game.players):
        if player.terminated:
            why = match.failures.get(pid)
            if why is None:
                log = match.error_logs.get(pid, "") or game.error_logs.get(pid, "")
                errors = [line for line in log.splitlines() if line.startswith("error:")]
                why = errors[0][len("error: ") :] if errors else "killed"
            killed[pid] = why
    return HaliteSummary(
        seed=game.seed,
        width=game.width,
        height=game.height,
        names=names,
        ranks=tuple(result.ranks),
        scores=tuple(result.scores),
        turns=game.turn,
        killed=killed,
        hlt=encode_hlt(document),
    )


def play_halite_spec_sync(spec: HaliteSpec, seed: int) -> HaliteSummary:
    """:func:`play_halite_spec` on its own event loop."""
    return asyncio.run(play_halite_spec(spec, seed))


def halite_entrant(source: str) -> tuple[str, str]:
    """A Halite entrant, checked, and its default name: ``builtin:NAME`` or a command.

    Raises:
        HaliteSpecError: an empty command.
        UnknownHaliteBotError: an unknown built-in bot.
    """
    import os
    import shlex

    from snakewar.bots.halite import make_halite_bot

    text = source.strip()
    if not text:
        raise HaliteSpecError("a Halite entrant must be a command or builtin:NAME, got ''")
    if text.startswith("builtin:"):
        bot = make_halite_bot(text)
        return text, text[len("builtin:") :].split("?")[0] or bot.name
    try:
        words = shlex.split(text)
    except ValueError:
        words = text.split()
    stem = os.path.splitext(os.path.basename(words[-1] if words else text))[0]
    return text, stem or "bot"


def halite_game_id(job_id: str, seed: int) -> str:
    """A stable store id for an arena game: the same job and seed give the same id."""
    import hashlib

    digest = hashlib.sha256(f"{job_id}:{seed}".encode()).hexdigest()
    return f"h{digest[:31]}"


def store_halite_summary(store: Any, summary: HaliteSummary, source: str, game_id: str) -> str:
    """Store a played game so ``/halite`` lists it; returns its id (kept if stored already)."""
    from snakewar.server.store import GameExistsError

    with contextlib.suppress(GameExistsError):
        store.save_halite_game(
            summary.hlt,
            source=source,
            seed=summary.seed,
            width=summary.width,
            height=summary.height,
            players=list(summary.names),
            ranks=list(summary.ranks),
            scores=list(summary.scores),
            turns=summary.turns,
            game_id=game_id,
        )
    return game_id
