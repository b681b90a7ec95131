"""Ladders: a set of entrants that keep playing each other, rated with OpenSkill.

A ladder is a list of entrants (bots of one game) and one :class:`MatchConfig`.  Each
game, the matchmaker takes the entrant with the fewest games and the entrants whose
rating is closest to it (with some random jitter, so pairings vary), plays the game
through an :class:`~snakewar.arena.executors.Executor`, stores it like any other game
(seed and settings included, so it can be replayed and verified), and updates the
ratings from the game's placement.  Every game is recorded as it ends: the game, its
players' new ratings and entries (:class:`~snakewar.arena.ports.SqlLadderRepository`).

Entrants of games whose bots can be checked ahead (:attr:`Catalogue.health_checked`,
bots on the network) are checked before every round: one that fails is paused, and
resumes once it answers.  An entrant that fails in games (:attr:`EntrantResult.failure`:
most of its moves timed out, it crashed) is paused after the game's
``failures_before_pause`` failing games in a row.

A ladder may also play on by itself (:class:`LadderSettings`: ``continuous``): a
server's scheduler (:mod:`snakewar.server.scheduler`) keeps up to ``games_in_flight``
of its games going, started no closer than ``games_per_hour`` allows, skipping entrants
that played ``daily_cap`` games in the last 24 hours; its admin pauses and resumes it.
Such a game is rated when it ends, from its stored result (:meth:`Ladder.rate`), once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

from snakewar.arena.config import MatchConfig, arena_game_id
from snakewar.arena.executors import Executor, GameJob, InProcessExecutor
from snakewar.arena.ratings import (
    Leaderboard,
    LeaderboardRow,
    Placement,
    Rating,
    placement_from_game,
)
from snakewar.engine.protocol import Entrant, OutboundPolicy, PlayedGame, PlaySession
from snakewar.errors import ConflictError, NotFoundError, ParamsError, SnakewarError

if TYPE_CHECKING:
    from snakewar.arena.ports import ArenaStore

__all__ = [
    "Ladder",
    "LadderEntry",
    "LadderError",
    "LadderExistsError",
    "LadderGame",
    "LadderGameRecordedError",
    "LadderNotFoundError",
    "LadderSettings",
    "LadderSettingsError",
    "load_ladder",
]


class LadderError(SnakewarError, ValueError):
    """Raised for an impossible ladder setting or a ladder that cannot go on."""


class LadderNotFoundError(LadderError, NotFoundError):
    """Raised when no ladder has the given name."""


class LadderExistsError(LadderError, ConflictError):
    """Raised when a ladder's name is taken."""


class LadderGameRecordedError(LadderError, ConflictError):
    """Raised when a ladder's game number is recorded already (another run played it)."""


class LadderSettingsError(ParamsError):
    """Raised for a continuous ladder's setting out of its bounds (``field`` names it)."""


MAX_GAMES_IN_FLIGHT: Final = 64
"""The most games one continuous ladder keeps going at once."""

MAX_GAMES_PER_HOUR: Final = 3600
"""The most games one continuous ladder starts an hour (one a second)."""

MAX_DAILY_CAP: Final = 10_000
"""The highest daily cap of games per entrant."""

MAX_PLACEMENT_GAMES: Final = 1000
"""The most games a ladder may keep an entrant in placement (unranked)."""

DEFAULT_PLACEMENT_GAMES: Final = 10
"""The games an entrant plays in placement by default (as the official arena)."""


@dataclass(frozen=True, slots=True)
class LadderSettings:
    """How a ladder plays on by itself.

    Attributes:
        continuous: whether the scheduler plays it on by itself.
        paused: its admin paused it (no new games start; those in flight finish).
        games_in_flight: the most of its games playing at once (1 to 64).
        games_per_hour: the most games it starts an hour (1 to 3600): a game starts
            no sooner than ``3600 / games_per_hour`` seconds after the one before.
        daily_cap: the most games an entrant starts in 24 hours (``None``: no cap).
        placement_games: the games an entrant plays "in placement" before it is
            ranked (0 to 1000; 0: ranked from its first game).  It is rated all the
            same; standings list it apart, unranked, until then.

    Raises:
        LadderSettingsError: for a value out of its bounds, naming the field.
    """

    continuous: bool = False
    paused: bool = False
    games_in_flight: int = 1
    games_per_hour: int = 60
    daily_cap: int | None = None
    placement_games: int = DEFAULT_PLACEMENT_GAMES

    def __post_init__(self) -> None:
        for name, value, top in (
            ("games_in_flight", self.games_in_flight, MAX_GAMES_IN_FLIGHT),
            ("games_per_hour", self.games_per_hour, MAX_GAMES_PER_HOUR),
            ("daily_cap", self.daily_cap, MAX_DAILY_CAP),
        ):
            if value is None and name == "daily_cap":
                continue
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise LadderSettingsError(
                    name, f"{name} {value!r}: expected a whole number from 1 to {top}"
                )
        placement: object = self.placement_games  # checked as given (from JSON, a form)
        if (
            isinstance(placement, bool)
            or not isinstance(placement, int)
            or not 0 <= placement <= MAX_PLACEMENT_GAMES
        ):
            raise LadderSettingsError(
                "placement_games",
                f"placement_games {placement!r}: expected a whole number from 0 to "
                f"{MAX_PLACEMENT_GAMES}",
            )
        for name, flag in (("continuous", self.continuous), ("paused", self.paused)):
            if not isinstance(flag, bool):
                raise LadderSettingsError(name, f"{name} {flag!r}: expected true or false")

    @property
    def spacing_s(self) -> float:
        """The least time between two of its games' starts, in seconds."""
        return 3600.0 / self.games_per_hour

    @property
    def playing(self) -> bool:
        """Whether the scheduler starts its games now (continuous and not paused)."""
        return self.continuous and not self.paused

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "continuous": self.continuous,
            "paused": self.paused,
            "games_in_flight": self.games_in_flight,
            "games_per_hour": self.games_per_hour,
            "daily_cap": self.daily_cap,
            "placement_games": self.placement_games,
        }


@dataclass(slots=True)
class LadderEntry:
    """An entrant on a ladder."""

    name: str
    source: str
    paused: bool = False
    failures: int = 0
    """Consecutive failed health checks or failing games."""
    note: str = ""
    workdir: str | None = None
    """The folder a command entrant runs in (where it was entered); ``None``: the current one."""

    @property
    def failing(self) -> bool:
        """Whether its last game or health check failed (paused or not yet)."""
        return self.failures > 0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "name": self.name,
            "source": self.source,
            "paused": self.paused,
            "failures": self.failures,
            "note": self.note,
            "workdir": self.workdir,
        }


@dataclass(frozen=True, slots=True)
class LadderGame:
    """One rated game of a ladder.

    Attributes:
        number: the game's number on the ladder (0 first).
        game_id: the stored game's id.
        seed: its seed.
        seats: the entrants' names in seat order.
        placement: the names grouped by rank, best first.
        turns: turns played.
    """

    number: int
    game_id: str
    seed: int
    seats: tuple[str, ...]
    placement: Placement
    turns: int

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "number": self.number,
            "game_id": self.game_id,
            "seed": self.seed,
            "snakes": list(self.seats),
            "placement": [list(group) for group in self.placement],
            "turns": self.turns,
        }


@dataclass
class Ladder:
    """A ladder's state: config, entrants, ratings with history, and its recent games.

    Attributes:
        name: the ladder's name.
        config: the game every game plays.
        seed: the seed the matchmaking and the games' seeds derive from.
        entries: the entrants by name, in the order they joined.
        board: ratings, games played and rating history.
        games_played: rated games so far.
        recent: the last games (as many as were loaded), oldest first.
        settings: how it plays on by itself (:class:`LadderSettings`).
    """

    name: str
    config: MatchConfig = field(default_factory=MatchConfig.create)
    seed: int = 1
    entries: dict[str, LadderEntry] = field(default_factory=dict)
    board: Leaderboard = field(default_factory=Leaderboard)
    games_played: int = 0
    recent: list[LadderGame] = field(default_factory=list)
    settings: LadderSettings = field(default_factory=LadderSettings)

    @property
    def source(self) -> str:
        """The ``source`` of the ladder's games: ``ladder:NAME``."""
        return f"ladder:{self.name}"

    def add(self, text: str, name: str | None = None, *, workdir: str | None = None) -> LadderEntry:
        """Add an entrant: what a user typed (a URL, a command, ``builtin:NAME``...).

        ``workdir`` is the folder a command runs in (the one it was typed in, so that
        ``python3 MyBot.py`` finds its file whatever folder the ladder runs from); only
        entrants that are programs keep it.

        Raises:
            LadderError: if the name is taken.
            EntrantError: if ``text`` is no entrant of the ladder's game.
        """
        entrant = self.entrant(text, name, workdir=workdir)
        if entrant.name in self.entries:
            raise LadderError(f"ladder {self.name!r} already has an entrant named {entrant.name!r}")
        entry = LadderEntry(entrant.name, entrant.source, workdir=entrant.workdir)
        self.entries[entry.name] = entry
        return entry

    def entrant(self, text: str, name: str | None = None, *, workdir: str | None = None) -> Entrant:
        """The entrant ``text`` would be on this ladder (checked, not added).

        Raises:
            EntrantError: if ``text`` is no entrant of the ladder's game.
        """
        adapter = self.config.adapter
        entrant = adapter.entrant(text, name)
        if workdir is not None and adapter.reach(entrant).kind == "program":
            entrant = dataclasses.replace(entrant, workdir=workdir)
        return entrant

    def standings(self) -> list[LeaderboardRow]:
        """Entrants by displayed rating (mu - 3 sigma), best first."""
        return self.board.rows()

    # -- playing ----------------------------------------------------------------------

    def active(self) -> list[str]:
        """Names of the entrants that are not paused."""
        return [e.name for e in self.entries.values() if not e.paused]

    def check_playable(self) -> None:
        """Fail now if no game can be matched (too few active entrants).

        Raises:
            LadderError: naming the ladder, its active entrants and what a game needs.
        """
        active, size = len(self.active()), self.config.game_size
        if active < size:
            raise LadderError(
                f"ladder {self.name!r} has {active} active entrants; a game needs {size}"
            )

    def matchmake(
        self,
        rng: random.Random,
        pending: Counter[str] | None = None,
        among: Sequence[str] | None = None,
    ) -> list[str]:
        """Pick the next game's entrants: the least-played one and its closest rivals.

        ``pending`` counts games already matched but not yet played (the rest of
        the round, or a continuous ladder's games in flight), so games spread over
        the entrants.  ``among`` limits the choice to those entrants (a continuous
        ladder's: not paused, not failing, under the daily cap); every active one
        when not given.

        Raises:
            LadderError: if fewer entrants to choose from than a game needs.
        """
        size = self.config.game_size
        if among is None:
            self.check_playable()
            active = self.active()
        else:
            active = [n for n in among if n in self.entries]
            if len(active) < size:
                raise LadderError(
                    f"ladder {self.name!r} has {len(active)} entrants free to play; a game "
                    f"needs {size}"
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
        rng.shuffle(chosen)  # seat order: no seat advantage for anyone
        return chosen

    def job(
        self,
        number: int,
        names: Sequence[str],
        seed: int,
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
    ) -> GameJob:
        """The job of game ``number`` between ``names`` (in seat order).

        ``outbound`` is the address policy its connections follow; ``programs`` what
        runs the entrants that a server resolved (registered program bots), by source.
        """
        found = programs or {}
        entries = [self.entries[n] for n in names]
        entrants = [
            Entrant(e.source, e.name, found.get(e.source), workdir=e.workdir) for e in entries
        ]
        spec = self.config.match_spec(entrants, self.source)
        game_id = arena_game_id(self.source, number, seed)
        return GameJob(f"{self.name}:{number}", spec, seed, game_id, outbound)

    def check_health(self, outbound: OutboundPolicy | None = None) -> list[LadderEntry]:
        """Check every entrant of a game whose bots can be checked; returns the changed entries.

        A failing entrant is paused; a paused one that answers resumes.
        """
        adapter = self.config.adapter
        if not adapter.catalogue().health_checked:
            return []

        async def check() -> dict[str, str | None]:
            async with PlaySession(outbound) as session:
                return {
                    entry.name: await adapter.health(Entrant(entry.source, entry.name), session)
                    for entry in self.entries.values()
                }

        changed = []
        for name, problem in asyncio.run(check()).items():
            entry = self.entries[name]
            before = entry.to_dict()
            if problem is None:
                if entry.paused:
                    entry.note = "resumed: health check passed"
                entry.paused = False
                entry.failures = 0
            else:
                entry.failures += 1
                entry.paused = True
                # Everyone reads the note in the standings; a bot's address is its owner's
                # secret: the problem names the entrant instead.
                entry.note = f"paused: {problem.replace(entry.source, entry.name)}"[:300]
            if entry.to_dict() != before:
                changed.append(entry)
        return changed

    def run(
        self,
        games: int,
        store: ArenaStore,
        *,
        executor: Executor | None = None,
        parallel: int = 4,
        on_game: Callable[[LadderGame], None] | None = None,
        outbound: OutboundPolicy | None = None,
        programs: Mapping[str, Any] | None = None,
        should_stop: Callable[[], bool] | None = None,
    ) -> int:
        """Play ``games`` more games (in rounds of ``parallel``); returns how many counted.

        The ladder and its entries are saved first; then each round starts with a
        health check, and every game is stored and recorded as it ends.
        ``should_stop`` is asked before each round: once it says so, the run returns
        (with fewer games).

        Raises:
            LadderError: too few active entrants, or no game of a round could be played.
            LadderGameRecordedError: another run recorded a game of this one's number.
        """
        executor = executor or InProcessExecutor(concurrency=parallel)
        store.ladders.save(self)
        played = 0
        while played < games:
            if should_stop is not None and should_stop():
                break
            for entry in self.check_health(outbound):
                store.ladders.save_entry(self.name, entry)
            jobs: list[tuple[GameJob, list[str]]] = []
            pending: Counter[str] = Counter()
            for _ in range(min(parallel, games - played)):
                number = self.games_played + len(jobs)
                rng = random.Random(f"{self.seed}:{number}")
                names = self.matchmake(rng, pending)
                pending.update(names)
                seed = rng.getrandbits(62) + 1
                jobs.append((self.job(number, names, seed, outbound, programs), names))
            outcomes = executor.run([job for job, _ in jobs])
            for (job, names), outcome in zip(jobs, outcomes, strict=True):
                if outcome.played is None:
                    # The game could not be played (a bot vanished mid-round): skip it;
                    # the next health check pauses whoever is to blame.
                    continue
                game = self._record(store, outcome.played, names, job.seed)
                played += 1
                if on_game is not None:
                    on_game(game)
            if not any(o.ok for o in outcomes):
                raise LadderError(
                    f"ladder {self.name!r}: no game of the round could be played "
                    f"({outcomes[0].error})"
                )
        return played

    def _record(
        self, store: ArenaStore, played: PlayedGame, names: list[str], seed: int
    ) -> LadderGame:
        store.games.save_played(played)
        placement = placement_from_game(played, keys=names)
        failures = [""] * len(names)
        for result in played.results:
            failures[result.seat] = result.failure
        game, ratings, changed = self.rate(
            played.id, seed, names, placement, played.turns, failures
        )
        store.ladders.record_game(self.name, game, ratings, changed)
        return game

    def rate(
        self,
        game_id: str,
        seed: int,
        names: Sequence[str],
        placement: Placement,
        turns: int,
        failures: Sequence[str] = (),
    ) -> tuple[LadderGame, dict[str, Rating], list[LadderEntry]]:
        """Rate one finished game as the ladder's next (number :attr:`games_played`).

        Args:
            game_id: the stored game.
            seed: its seed.
            names: its entrants' names, by seat.
            placement: the names grouped by rank, best first.
            turns: turns played.
            failures: why each seat failed (``""``: it did not), by seat.

        Returns:
            The game as recorded, its players' new ratings, and the entries that
            changed (failing games counted, an entrant paused).
        """
        self.board.play(game_id, placement)
        changed = self._judge(names, failures)
        game = LadderGame(self.games_played, game_id, seed, tuple(names), placement, turns)
        self.games_played += 1
        self.recent.append(game)
        del self.recent[:-20]
        ratings = {name: self.board.ratings[name] for name in names}
        return game, ratings, changed

    def _judge(self, names: Sequence[str], failures: Sequence[str]) -> list[LadderEntry]:
        """Count failing games; pause an entrant after the game's number in a row."""
        limit = self.config.adapter.catalogue().failures_before_pause
        changed = []
        for seat, name in enumerate(names):
            entry = self.entries.get(name)
            if entry is None:  # taken off the ladder while it played
                continue
            failure = failures[seat] if seat < len(failures) else ""
            before = entry.to_dict()
            if not failure:
                entry.failures = 0
            else:
                entry.failures += 1
                # What happened first, the reason (which may be long) last.
                if entry.failures >= limit:
                    entry.paused = True
                    streak = f"{entry.failures} games in a row" if entry.failures > 1 else "a game"
                    entry.note = f"paused: failed {streak}: {failure}"[:300]
                else:
                    # Failing, not paused yet: the note is the reason alone (shown as
                    # "failing: REASON").
                    entry.note = failure[:300]
            if entry.to_dict() != before:
                changed.append(entry)
        return changed


def load_ladder(store: ArenaStore, name: str) -> Ladder:
    """Load the ladder ``name`` from ``store``.

    Raises:
        LadderNotFoundError: if there is no such ladder.
    """
    ladder = store.ladders.get(name)
    if ladder is None:
        known = ", ".join(repr(n) for n in store.ladders.names()) or "none yet"
        raise LadderNotFoundError(f"no ladder named {name!r} (ladders: {known})")
    return ladder
