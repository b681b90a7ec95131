"""Ladders: a set of snakes that keep playing each other, rated with OpenSkill.

A ladder is a list of snakes (URLs or built-in bots) and one game config.  Each
game, the matchmaker takes the snake with the fewest games and the snakes whose
rating is closest to it (with some random jitter, so pairings vary), plays the
game through an :class:`~snakewar.arena.executors.Executor`, stores it like any
server game (seed and config included, so it can be replayed and verified), and
updates the ratings from the elimination order.

Snakes that fail their health check (``GET /``), or fail most of their moves in a
game, are paused; a paused snake is checked again before every round and resumes
once it answers.  The ladder's whole state lives in the store's ``ladders`` table.

A ladder plays one game, ``battlesnake`` (the default) or ``halite3``.  A Halite
ladder's entrants are bot commands (``python3 MyBot.py``) or ``builtin:NAME``; its
games are stored as official ``.hlt`` replays (``/halite`` shows them) and rated by
the engine's ranks.  Its bots are not health-checked (they are local programs); a bot
killed in a game is noted, and paused after two games in a row.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from snakewar.arena.executors import Executor, GameJob, InProcessExecutor
from snakewar.arena.halite import (
    HaliteSpec,
    HaliteSummary,
    halite_entrant,
    halite_game_id,
    store_halite_summary,
)
from snakewar.arena.ratings import Leaderboard, LeaderboardRow, placement_from_summary
from snakewar.errors import SnakewarError
from snakewar.games.battlesnake.game import GameConfig
from snakewar.games.battlesnake.settings import CLI_DEFAULTS, Settings
from snakewar.referee.batch import MatchSpec, check_setup
from snakewar.referee.runner import canonical_source, default_snake_name

__all__ = ["GAMES", "Ladder", "LadderConfig", "LadderEntry", "LadderError"]

GAMES = ("battlesnake", "halite3")
"""The games a ladder or tournament can play."""

_FAILED_SHARE = 0.5
"""A snake whose share of failed moves in a game reaches this counts as failing."""


class LadderError(SnakewarError, ValueError):
    """Raised for a ladder that does not exist or an impossible ladder setting."""


@dataclass(frozen=True, slots=True)
class LadderConfig:
    """The game every ladder game plays."""

    ruleset: str = "standard"
    map: str = "standard"
    width: int = 11
    height: int = 11
    params: dict[str, str] = field(default_factory=lambda: dict(CLI_DEFAULTS))
    timeout_ms: int = 500
    game_size: int = 2
    max_turns: int | None = None
    game: str = "battlesnake"
    """``battlesnake`` or ``halite3`` (then ``width``/``height`` 0 let the seed pick)."""

    def __post_init__(self) -> None:
        if self.game not in GAMES:
            raise LadderError(f"game {self.game!r}: expected one of {', '.join(GAMES)}")
        if self.game == "halite3":
            if self.game_size not in (2, 4, 8):
                raise LadderError(
                    f"game size {self.game_size}: Halite games have 2, 4 or 8 players"
                )
        elif not 2 <= self.game_size <= 8:
            raise LadderError(f"game size {self.game_size}: expected 2 to 8 snakes per game")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "ruleset": self.ruleset,
            "map": self.map,
            "width": self.width,
            "height": self.height,
            "params": dict(self.params),
            "timeout_ms": self.timeout_ms,
            "game_size": self.game_size,
            "max_turns": self.max_turns,
            "game": self.game,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LadderConfig:
        """Inverse of :meth:`to_dict`."""
        return cls(
            ruleset=data["ruleset"],
            map=data["map"],
            width=data["width"],
            height=data["height"],
            params=dict(data["params"]),
            timeout_ms=data["timeout_ms"],
            game_size=data["game_size"],
            max_turns=data["max_turns"],
            game=data.get("game", "battlesnake"),
        )

    def match_spec(
        self, sources: Sequence[str], names: Sequence[str], source: str = ""
    ) -> MatchSpec | HaliteSpec:
        """The match between the snakes ``sources`` (named ``names``) with this config."""
        if self.game == "halite3":
            return HaliteSpec(
                entrants=tuple(sources),
                names=tuple(names),
                width=self.width,
                height=self.height,
                turn_limit=self.max_turns,
                turn_timeout_ms=self.timeout_ms,
                source=source,
            )
        return MatchSpec(
            snakes=tuple(sources),
            names=tuple(names),
            ruleset=self.ruleset,
            map=self.map,
            width=self.width,
            height=self.height,
            params=dict(self.params),
            timeout_ms=self.timeout_ms,
            max_turns=self.max_turns,
            source=source,
        )

    def check(self) -> None:
        """Fail now if a game of ``game_size`` snakes cannot be set up with this config.

        Raises:
            RulesError: as :func:`snakewar.referee.batch.check_setup`.
            HaliteSpecError: for a Halite map size that does not fit ``game_size``.
        """
        if self.game == "halite3":
            names = tuple(f"p{i}" for i in range(self.game_size))
            self.match_spec(names, names).check()
            return
        game = GameConfig(
            self.ruleset, self.map, self.width, self.height, Settings(dict(self.params), 1)
        )
        check_setup(game, self.game_size)


@dataclass(slots=True)
class LadderEntry:
    """A snake on a ladder."""

    name: str
    source: str
    paused: bool = False
    failures: int = 0
    """Consecutive failed checks or failing games."""
    note: str = ""


@dataclass
class Ladder:
    """A ladder's state: config, snakes, ratings with history, and its games."""

    name: str
    config: LadderConfig = field(default_factory=LadderConfig)
    seed: int = 1
    entries: dict[str, LadderEntry] = field(default_factory=dict)
    board: Leaderboard = field(default_factory=Leaderboard)
    games: list[dict[str, Any]] = field(default_factory=list)

    # -- state ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (what the store keeps)."""
        return {
            "name": self.name,
            "seed": self.seed,
            "config": self.config.to_dict(),
            "entries": [
                {
                    "name": e.name,
                    "source": e.source,
                    "paused": e.paused,
                    "failures": e.failures,
                    "note": e.note,
                }
                for e in self.entries.values()
            ],
            "leaderboard": self.board.to_dict(),
            "games": self.games,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ladder:
        """Rebuild a ladder from :meth:`to_dict`."""
        config = LadderConfig.from_dict(data["config"])
        entries = {e["name"]: LadderEntry(**e) for e in data["entries"]}
        return cls(
            data["name"],
            config,
            data["seed"],
            entries,
            Leaderboard.from_dict(data["leaderboard"]),
            list(data["games"]),
        )

    def add(self, source: str, name: str | None = None) -> LadderEntry:
        """Add a snake (a URL, ``builtin:NAME`` or ``legacy:URL``).

        Raises:
            LadderError: if the name is taken.
            SnakeSpecError: if ``source`` is not a snake.
        """
        if self.config.game == "halite3":
            canonical, default = halite_entrant(source)
        else:
            canonical, default = canonical_source(source), None
        if name is None:
            name = default or default_snake_name(source)
        if name in self.entries:
            raise LadderError(f"ladder {self.name!r} already has a snake named {name!r}")
        entry = LadderEntry(name, canonical)
        self.entries[name] = entry
        return entry

    def standings(self) -> list[LeaderboardRow]:
        """Snakes by displayed rating (mu - 3 sigma), best first."""
        return self.board.rows()

    # -- playing ----------------------------------------------------------------------

    def active(self) -> list[str]:
        """Names of the snakes that are not paused."""
        return [e.name for e in self.entries.values() if not e.paused]

    def matchmake(self, rng: random.Random, pending: Counter[str] | None = None) -> list[str]:
        """Pick the next game's snakes: the least-played one and its closest rivals.

        ``pending`` counts games already matched but not yet played (the rest of
        the round), so a round spreads its games over the snakes.

        Raises:
            LadderError: if fewer active snakes than a game needs.
        """
        active = self.active()
        size = self.config.game_size
        if len(active) < size:
            raise LadderError(
                f"ladder {self.name!r} has {len(active)} active snakes; a game needs {size}"
            )
        rows = {row.snake: row for row in self.board.rows()}
        fresh = self.board.model.new_rating()

        def display(name: str) -> float:
            return rows[name].display if name in rows else fresh.display

        waiting: Counter[str] = pending if pending is not None else Counter()

        def played(name: str) -> int:
            return (rows[name].games if name in rows else 0) + waiting[name]

        fewest = min(played(n) for n in active)
        anchor = rng.choice(sorted(n for n in active if played(n) == fewest))
        # Jitter keeps pairings varied while favouring similar ratings.
        others = sorted(
            (n for n in active if n != anchor),
            key=lambda n: (abs(display(n) - display(anchor)) + rng.gauss(0, 3.0), n),
        )
        chosen = [anchor, *others[: size - 1]]
        rng.shuffle(chosen)  # placement order: no seat advantage for anyone
        return chosen

    def spec_for(self, names: list[str]) -> MatchSpec | HaliteSpec:
        """The match between ``names``."""
        sources = [self.entries[n].source for n in names]
        return self.config.match_spec(sources, names, f"ladder:{self.name}")

    def check_health(self) -> None:
        """``GET /`` every HTTP snake; pause those that fail, resume those that answer.

        Halite bots are local programs with no health check: nothing changes.
        """
        if self.config.game == "halite3":
            return
        from snakewar.referee.clients import new_http_client
        from snakewar.referee.runner import make_client

        async def check() -> dict[str, str | None]:
            async with new_http_client() as http:
                results: dict[str, str | None] = {}
                for entry in self.entries.values():
                    if entry.source.startswith("builtin:"):
                        results[entry.name] = None
                        continue
                    try:
                        await make_client(entry.source, http, self.config.timeout_ms).info()
                        results[entry.name] = None
                    except SnakewarError as exc:
                        results[entry.name] = str(exc)
                return results

        for name, problem in asyncio.run(check()).items():
            entry = self.entries[name]
            if problem is None:
                if entry.paused:
                    entry.note = "resumed: health check passed"
                entry.paused = False
                entry.failures = 0
            else:
                entry.failures += 1
                entry.paused = True
                entry.note = f"paused: {problem}"[:300]

    def run(
        self,
        games: int,
        store: Any,
        *,
        executor: Executor | None = None,
        parallel: int = 4,
        on_game: Callable[[dict[str, Any]], None] | None = None,
    ) -> int:
        """Play ``games`` more games (in rounds of ``parallel``); returns how many counted.

        Each round starts with a health check.  Games are stored in ``store`` (any
        object with ``create_game`` and ``save_ladder``, i.e. a
        :class:`~snakewar.server.store.Store`) and the ladder is saved after each round.
        """
        from snakewar.replay import read_replay

        executor = executor or InProcessExecutor(concurrency=parallel)
        played = 0
        while played < games:
            self.check_health()
            round_size = min(parallel, games - played)
            jobs: list[tuple[GameJob, list[str]]] = []
            pending: Counter[str] = Counter()
            for _ in range(round_size):
                index = len(self.games) + len(jobs)
                rng = random.Random(f"{self.seed}:{index}")
                names = self.matchmake(rng, pending)
                pending.update(names)
                seed = rng.getrandbits(62) + 1
                jobs.append((GameJob(f"{self.name}:{index}", self.spec_for(names), seed), names))
            outcomes = executor.run([job for job, _ in jobs], replays=True)
            for (job, names), outcome in zip(jobs, outcomes, strict=True):
                summary = outcome.summary
                if isinstance(summary, HaliteSummary):
                    game_id = store_halite_summary(
                        store, summary, f"ladder:{self.name}", halite_game_id(job.job_id, job.seed)
                    )
                    self._judge_halite(summary, names)
                elif outcome.ok and summary is not None and outcome.replay is not None:
                    record = read_replay(outcome.replay)
                    store.create_game(record, "complete")
                    game_id = record.id
                    self._judge_failures(summary, names)
                else:
                    # The game could not be played (a snake vanished mid-round): skip it;
                    # the next health check pauses whoever is to blame.
                    continue
                placement = placement_from_summary(summary, keys=names)
                self.board.play(game_id, placement)
                entry = {
                    "game": self.config.game,
                    "game_id": game_id,
                    "seed": job.seed,
                    "snakes": names,
                    "placement": [list(group) for group in placement],
                    "turns": summary.turns,
                }
                self.games.append(entry)
                played += 1
                if on_game is not None:
                    on_game(entry)
            store.save_ladder(self.name, self.to_dict())
            if not any(o.ok for o in outcomes):
                raise LadderError(
                    f"ladder {self.name!r}: no game of the round could be played "
                    f"({outcomes[0].error})"
                )
        return played

    def _judge_failures(self, summary: Any, names: list[str]) -> None:
        for outcome in summary.snakes:
            calls = len(outcome.latencies)
            failed = sum(outcome.statuses.values())
            entry = self.entries[names[outcome.seat]]
            if calls and failed / calls >= _FAILED_SHARE:
                entry.failures += 1
                entry.paused = True
                entry.note = f"paused: {failed} of {calls} moves failed in a game"

    def _judge_halite(self, summary: HaliteSummary, names: list[str]) -> None:
        for pid, name in enumerate(names):
            entry = self.entries[name]
            why = summary.killed.get(pid)
            if why is None:
                entry.failures = 0
                continue
            entry.failures += 1
            entry.note = f"killed in a game: {why}"[:300]
            if entry.failures >= 2:
                entry.paused = True
                entry.note = f"paused: killed in {entry.failures} games in a row ({why})"[:300]


def load_ladder(store: Any, name: str) -> Ladder:
    """Load the ladder ``name`` from ``store``.

    Raises:
        LadderError: if there is no such ladder.
    """
    data = store.load_ladder(name)
    if data is None:
        known = ", ".join(repr(n) for n in store.list_ladders()) or "none yet"
        raise LadderError(f"no ladder named {name!r} (ladders: {known})")
    return Ladder.from_dict(data)
